#!/usr/bin/env bash
# Agent loop figures (issue 4): per-iteration overhead with a 10 000-message history, and the
# speedup of a concurrent read-only batch over a serial baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== agent loop overhead (target <= 1 ms per iteration with 10 000 messages)"
cargo run -q --release --example iteration_overhead
echo
echo "== read-only batch (target <= 1.3 x 100 ms)"
cargo run -q --release --example batch_speedup
echo
echo "== context management per iteration (estimate + layer 1; O(new messages), same at 10k and 100k)"
cargo run -q --release --example context_estimate
