#!/usr/bin/env bash
# The REPL's figures for `make bench` (run by bench/run.sh): time from launch to the first prompt
# drawn in a real pseudo-terminal (tmux, median of several runs, tmux's own start-up measured
# the same way and shown beside it), the first token on screen after the server wrote it (curl
# printing the same stream beside it), the renderer's per-token cost on a 100 000-token answer, and
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

# First token on screen: the fake endpoint (bench/first_token_server.py) stamps the moment it
# writes the first text delta; the pane is polled until that text shows. curl printing the same
# stream in a pane is measured the same way beside it, so the poll's own delay is in both.
python3 bench/first_token_server.py "$work/stamps" "$work/port" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
mkdir -p "$work/home-ft"
printf 'providers:\n  - {name: bench, protocol: anthropic, model: m, api_key: k, context_window: 200000, base_url: "http://127.0.0.1:%s"}\n' "$port" >"$work/home-ft/config.yaml"
touch "$work/stamps"

# Microseconds from the server writing the first token until the pane shows it; `$2` = yes
# types a prompt at the first prompt first.
time_to_token() {
  local socket="mewcode-bench-$$-$RANDOM" before now stamp start
  before=$(wc -l <"$work/stamps")
  tmux -L "$socket" -f /dev/null new-session -d -x 120 -y 40 "$1; sleep 30"
  start=$(date +%s%N)
  if [ "$2" = yes ]; then
    until tmux -L "$socket" capture-pane -p 2>/dev/null | grep -qx '›'; do
      now=$(date +%s%N); (( (now - start) / 1000000 > 10000 )) && break
    done
    tmux -L "$socket" send-keys -t 0 hi Enter
  fi
  until tmux -L "$socket" capture-pane -p 2>/dev/null | grep -q FIRSTTOKEN; do
    now=$(date +%s%N); (( (now - start) / 1000000 > 10000 )) && { echo "timeout" >&2; break; }
  done
  now=$(date +%s%N)
  until [ "$(wc -l <"$work/stamps")" -gt "$before" ]; do sleep 0.01; done
  stamp=$(tail -1 "$work/stamps")
  tmux -L "$socket" kill-server 2>/dev/null || true
  echo $(( (now - stamp) / 1000 ))
}

launch_ft="cd '$work/project' && env -i PATH='$PATH' HOME='$work' MEWCODE_HOME='$work/home-ft' MEWCODE_PROBE_PORTS=9,9 LANG=C.UTF-8 TERM=xterm-256color '$bin'"
curl_ft="curl -sN -X POST -H 'content-type: application/json' -d '{}' http://127.0.0.1:$port/v1/messages"
token_us=(); curl_us=()
for _ in $(seq "$runs"); do
  token_us+=("$(time_to_token "$launch_ft" yes)")
  curl_us+=("$(time_to_token "$curl_ft" no)")
done
echo "first token on screen after the server wrote it (tmux): $(printf '%s\n' "${token_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms" \
  "(curl printing the same stream: $(printf '%s\n' "${curl_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms)"
cargo run --quiet --release --example render_bench
cargo run --quiet --release --example markdown_bench
