#!/usr/bin/env bash
# Tool figures (issue 4): the grep tool against ripgrep on the same large generated tree
# (SPEC §10: within 2x of ripgrep's wall time). Both are warmed up and timed 5 times; medians.
# Our figure is in-process (no process start); ripgrep's includes its ~1 ms start.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rg >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq ripgrep) >/dev/null 2>&1 || true
tree=target/bench-grep-tree
echo "== grep vs ripgrep (target: ratio <= 2)"
for case in "unusual_[a-z]+_token files_with_matches -l" "fn count --count-matches"; do
  set -- $case
  pattern=$1 mode=$2 rgflag=$3
  ours=$(cargo run -q --release --example grep_bench -- "$tree" "$pattern" "$mode" | sed -n 's/^median_s=//p')
  if command -v rg >/dev/null 2>&1; then
    theirs=$(python3 - "$pattern" "$rgflag" "$tree" <<'PY'
import subprocess, sys, time
pattern, flag, tree = sys.argv[1:4]
cmd = ["rg", flag, pattern, tree]
subprocess.run(cmd, stdout=subprocess.DEVNULL)
runs = []
for _ in range(5):
    start = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL); runs.append(time.perf_counter() - start)
print("%.4f" % sorted(runs)[2])
PY
)
    ratio=$(python3 -c "print('%.2f' % ($ours / $theirs))")
    echo "pattern '$pattern' ($mode): mewcode ${ours}s, ripgrep ${theirs}s, ratio ${ratio}"
  else
    echo "pattern '$pattern' ($mode): mewcode ${ours}s, ripgrep not installed"
  fi
done
