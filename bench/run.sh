#!/usr/bin/env bash
# `make bench`: prints the quality figures of SPEC §10 measured so far. Medians of several runs;
# the machine is shared and noisy, so compare ratios measured side by side, not lone numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MEWCODE_BIN:-target/release/mewcode}
runs=${BENCH_RUNS:-21}

# hyperfine and /usr/bin/time come from Debian; install them when missing.
missing=()
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 || echo "(could not install ${missing[*]})"
fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "== mewcode --version (median of $runs runs)"
times=(); rss=()
for _ in $(seq "$runs"); do
  out=$( { /usr/bin/time -f '%e %M' "$bin" --version >/dev/null; } 2>&1 )
  times+=("$(echo "$out" | awk '{print $1*1000}')"); rss+=("$(echo "$out" | awk '{print $2}')")
done
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 3 --runs "$runs" --export-json /tmp/mewcode-bench-version.json "$bin --version" >/dev/null 2>&1 || true
  wall=$(python3 -c 'import json;d=json.load(open("/tmp/mewcode-bench-version.json"))["results"][0];print("%.2f"%(d["median"]*1000))' 2>/dev/null || echo "?")
  echo "wall time (hyperfine median): ${wall} ms"
else
  echo "wall time (/usr/bin/time median, 10 ms resolution): $(printf '%s\n' "${times[@]}" | median) ms"
fi
echo "peak RSS (median): $(printf '%s\n' "${rss[@]}" | median) KB"

echo
echo "== binary size (stripped)"
echo "release (glibc): $(stat -c %s "$bin") bytes"
musl=${MUSL_BIN:-target/x86_64-unknown-linux-musl/release/mewcode}
if [ -x "$musl" ]; then
  echo "musl (static):   $(stat -c %s "$musl") bytes  ($(file -b "$musl" | cut -d, -f1-6))"
else
  echo "musl (static):   not built (run make musl first)"
fi

for extra in bench/*.bench.sh; do
  [ -e "$extra" ] || continue
  echo
  bash "$extra"
done
