#!/usr/bin/env bash
# Network and memory figures (issue 14): connections the real `mewcode -p` opens per 10-iteration
# run against a keep-alive model server (1 = one kept-alive connection), and its peak RSS at 1, 2
# and 4 MB of history with the ratio to the history (target <= 2 x history + 8 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== connections and memory in proportion to the history"
cargo run -q --release --example net_memory -- "${MEWCODE_BIN:-target/release/mewcode}" "${NET_BENCH_RUNS:-3}"
