#!/usr/bin/env bash
# Background job output capture (issue 33): a job writing as fast as it can, captured into its
# spool, side by side with the same writer piped to /dev/null; target: keeps up with 50 MB/s.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q --release --example job_capture -- "${JOB_CAPTURE_MB:-500}" "${JOB_CAPTURE_RUNS:-5}"
