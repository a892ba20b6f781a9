#!/usr/bin/env bash
# LLM engine figures (issue 3): SSE parser throughput, and the time from the fake server's last
# byte to `mewcode -p` exiting.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== SSE parser throughput (target >= 300 MB/s, one core)"
cargo run -q --release --example sse_bench
echo
echo "== -p exit latency after the last byte"
cargo run -q --release --example exit_latency -- target/release/mewcode "${BENCH_RUNS:-15}"
