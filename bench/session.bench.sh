#!/usr/bin/env bash
# Session figures (SPEC §10): resume of a 100 000-line log (target <= 0.5 s) and listing 1 000
# sessions, some with multi-MB logs (target <= 100 ms). Medians of several runs.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== sessions"
cargo run -q --release --example session_bench
