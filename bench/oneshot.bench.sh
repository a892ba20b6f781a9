#!/usr/bin/env bash
# One-shot (-p) figures for `make bench` (run by bench/run.sh), issue 31:
# - requests per run to an OpenAI-compatible server that reports no context window, with no
#   context_window configured: the first run asks the probe endpoints, the second takes the
#   answer from $MEWCODE_HOME/discovery.json and makes the one chat request;
# - text mode on a terminal (a pseudo-terminal): the delay from the server writing the first
#   text chunk (then stalling 300 ms) to that text on the terminal, median of several runs, beside
#   `curl -N` reading the same stream on the same kind of terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=${MEWCODE_BIN:-$repo/target/release/mewcode}
runs=${BENCH_RUNS:-11}
work=$(mktemp -d)
servers=()
trap 'for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# Starts `python3 SCRIPT LOG PORTFILE` and waits until it wrote its port (not in a `$(...)`: the
# server would hold the substitution's pipe open).
start_server() {
  python3 "$1" "$2" "$3" >/dev/null 2>&1 &
  servers+=($!)
  for _ in $(seq 200); do [ -s "$3" ] && break; sleep 0.05; done
}

echo "== -p one-shot (issue 31)"
touch "$work/requests"
start_server bench/openai_count_server.py "$work/requests" "$work/port-count"
port=$(cat "$work/port-count")
mkdir -p "$work/home-count" "$work/project"
printf 'providers:\n  - {name: local, protocol: openai, model: m, api_key: k, base_url: "http://127.0.0.1:%s/v1"}\n' \
  "$port" >"$work/home-count/config.yaml"
count_run() {
  local before
  before=$(wc -l <"$work/requests")
  (cd "$work/project" && env -i PATH="$PATH" HOME="$work" MEWCODE_HOME="$work/home-count" LANG=C.UTF-8 \
    "$bin" -p hi </dev/null >/dev/null 2>&1) || echo "(the run failed)" >&2
  echo $(( $(wc -l <"$work/requests") - before ))
}
first=$(count_run)
second=$(count_run)
echo "requests to an OpenAI-compatible server without a window, no context_window set:" \
  "first run $first, second run $second (discovery cached)"

touch "$work/stamps"
start_server bench/first_token_server.py "$work/stamps" "$work/port-ft"
port=$(cat "$work/port-ft")
mkdir -p "$work/home-ft"
printf 'providers:\n  - {name: bench, protocol: anthropic, model: m, api_key: k, context_window: 200000, base_url: "http://127.0.0.1:%s"}\n' \
  "$port" >"$work/home-ft/config.yaml"
mewcode_us=(); curl_us=()
for _ in $(seq "$runs"); do
  mewcode_us+=("$(cd "$work/project" && env -i PATH="$PATH" HOME="$work" MEWCODE_HOME="$work/home-ft" \
    MEWCODE_PROBE_PORTS=9,9 LANG=C.UTF-8 TERM=xterm-256color \
    python3 "$repo/bench/pty_first_text.py" "$work/stamps" "$bin" -p hi)")
  curl_us+=("$(python3 bench/pty_first_text.py "$work/stamps" curl -sN -X POST -H 'content-type: application/json' \
    -d '{}' "http://127.0.0.1:$port/v1/messages")")
done
echo "text mode on a terminal, first text after the server wrote it (median of $runs):" \
  "$(printf '%s\n' "${mewcode_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms" \
  "(curl -N on the same terminal: $(printf '%s\n' "${curl_us[@]}" | median | awk '{printf "%.1f", $1/1000}') ms)"
