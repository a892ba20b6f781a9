#!/usr/bin/env bash
# The REPL's figures for `make bench` (run by bench/run.sh): time from launch to the first prompt
# drawn in a real pseudo-terminal (tmux, median of several runs, tmux's own start-up measured
# the same way and shown beside it), the renderer's per-token cost on a 100 000-token answer, and
# its markdown rendering in ms per KB of a streamed ~100 KB answer.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/target/release/mewcode
runs=${BENCH_RUNS:-11}
command -v tmux >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq tmux) >/dev/null 2>&1 || true
if ! command -v tmux >/dev/null 2>&1; then echo "== REPL: tmux missing, skipped"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project"
# A provider that is never called: start-up does not talk to the model.
printf 'providers:\n  - {name: bench, protocol: anthropic, model: m, api_key: k, base_url: "http://127.0.0.1:9"}\n' >"$work/home/config.yaml"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# Milliseconds from starting `$1` in a new tmux pane until a line that is exactly `›` shows.
time_to_prompt() {
  local socket="mewcode-bench-$$-$RANDOM" start now
  start=$(date +%s%N)
  tmux -L "$socket" -f /dev/null new-session -d -x 120 -y 40 "$1; sleep 30"
  while :; do
    if tmux -L "$socket" capture-pane -p 2>/dev/null | grep -qx '›'; then break; fi
    now=$(date +%s%N)
    if (( (now - start) / 1000000 > 10000 )); then echo "timeout" >&2; break; fi
  done
  now=$(date +%s%N)
  tmux -L "$socket" kill-server 2>/dev/null || true
  echo $(( (now - start) / 1000 ))
}

launch="cd '$work/project' && env -i PATH='$PATH' HOME='$work' MEWCODE_HOME='$work/home' MEWCODE_PROBE_PORTS=9,9 LANG=C.UTF-8 TERM=xterm-256color '$bin'"
baseline="printf '\\342\\200\\272\\n'"
mewcode_us=(); tmux_us=()
for _ in $(seq "$runs"); do
  mewcode_us+=("$(time_to_prompt "$launch")")
  tmux_us+=("$(time_to_prompt "$baseline")")
done
echo "== REPL (median of $runs runs)"
echo "launch to first prompt drawn (tmux): $(printf '%s\n' "${mewcode_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms" \
  "(tmux printing one line: $(printf '%s\n' "${tmux_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms)"
cargo run --quiet --release --example render_bench
cargo run --quiet --release --example markdown_bench
