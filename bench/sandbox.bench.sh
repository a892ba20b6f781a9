#!/usr/bin/env bash
# Sandbox figures (issue 10): what the session, the reaper and the Landlock + seccomp confinement
# add to a trivial command, measured side by side with a bare spawn in one interleaved loop.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q --release --example sandbox_overhead -- "${SANDBOX_RUNS:-300}"
