#!/usr/bin/env bash
# Checkpoint figures (issue 29): what a turn's checkpoints cost on a repository of 10 000 files
# with 20 changed per turn (target: under 50 ms), against a bare lstat walk of the same files, the
# first (cold) snapshot, /diff and a rewind, and the disk the store takes. Medians of several runs.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== checkpoints (10 000 files, 20 changed per turn)"
cargo run -q --release --example checkpoint_bench -- "${CHECKPOINT_BENCH_RUNS:-15}"
