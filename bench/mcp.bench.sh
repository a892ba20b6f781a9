#!/usr/bin/env bash
# MCP start-up (SPEC §7): three stdio servers that each take ~1 s to answer `initialize` connect
# concurrently, so `mewcode mcp list` should take ~1 s (the slowest), not ~3 s (the sum).
# Prints the median wall time of several runs. Uses fixtures/mcp/raw_server.py (stdlib only).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MEWCODE_BIN:-target/release/mewcode}
runs=${MCP_BENCH_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/project"
raw="$PWD/fixtures/mcp/raw_server.py"
{
  echo "mcp_servers:"
  for name in one two three; do
    echo "  $name: {type: stdio, command: python3, args: [\"$raw\", ok, \"1\"]}"
  done
} >"$work/home/config.yaml"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "== MCP start-up: 3 stdio servers, each ~1 s to initialise (median of $runs runs)"
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  MEWCODE_HOME="$work/home" "$bin" -C "$work/project" mcp list >/dev/null
  end=$(date +%s%N)
  times+=("$(( (end - start) / 1000000 ))")
done
echo "mewcode mcp list: $(printf '%s\n' "${times[@]}" | median) ms (all runs: ${times[*]} ms; the sum of the three would be ≥ 3000 ms)"
