#!/usr/bin/env bash
# Checks after edits (issue 33): a check's overhead is only the check's own time. Side by side in
# one interleaved loop, medians of several runs of `mewcode -p` against a scripted local model:
# - the same write_file of app.py (200 functions) without a check, and with the check
#   `python3 -m py_compile {file}` configured;
# - that check command run alone (a plain `sh -c`, no mewcode);
# - the same command through the bash tool (the sandbox every command and check runs in).
# The overhead is (with check - without) - the command alone; what is left beyond the command is
# the sandbox's set-up, the same a bash call pays.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${MEWCODE_BIN:-target/release/mewcode}")
runs=${BENCH_RUNS:-15}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }

echo write > "$work/mode"
python3 bench/checks_server.py "$work/port" "$work/mode" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
mkdir -p "$work/project" "$work/plain" "$work/check"
provider=$(printf 'providers:\n  - {name: bench, protocol: anthropic, model: m, api_key: k, base_url: "http://127.0.0.1:%s"}\n' "$port")
printf '%s\n' "$provider" > "$work/plain/config.yaml"
printf '%s\nchecks:\n  - {pattern: "**/*.py", command: "python3 -m py_compile {file}"}\n' "$provider" > "$work/check/config.yaml"

# One `mewcode -p` run with MEWCODE_HOME=$1 and the model in mode $2, from a project without
# app.py (write) or with it (bash); prints its wall time in microseconds.
run() {
  echo "$2" > "$work/mode"
  rm -rf "$work/project/app.py" "$work/project/__pycache__" "$work/project/.mewcode"
  [ "$2" = bash ] && cp "$work/app.py" "$work/project/app.py"
  local start end
  start=$(now_us)
  (cd "$work/project" && env -i PATH="$PATH" HOME="$work" MEWCODE_HOME="$work/$1" LANG=C.UTF-8 \
    "$bin" -p "write app.py" --mode bypass </dev/null >"$work/out" 2>"$work/err") || { echo "mewcode failed:"; cat "$work/err"; exit 1; }
  end=$(now_us)
  grep -qx done "$work/out" || { echo "unexpected answer:"; cat "$work/out" "$work/err"; exit 1; }
  echo $(( end - start ))
}

# The file the runs write, for the command alone and the bash call.
run plain write >/dev/null
cp "$work/project/app.py" "$work/app.py"
run check write >/dev/null

plain=(); check=(); alone=(); bash_call=()
for _ in $(seq "$runs"); do
  plain+=("$(run plain write)")
  check+=("$(run check write)")
  rm -rf "$work/project/__pycache__"; cp "$work/app.py" "$work/project/app.py"
  start=$(now_us)
  (cd "$work/project" && sh -c 'python3 -m py_compile app.py')
  alone+=($(( $(now_us) - start )))
  bash_call+=("$(run plain bash)")
done
ms() { awk -v us="$1" 'BEGIN {printf "%.1f", us / 1000}'; }
p=$(printf '%s\n' "${plain[@]}" | median)
c=$(printf '%s\n' "${check[@]}" | median)
a=$(printf '%s\n' "${alone[@]}" | median)
b=$(printf '%s\n' "${bash_call[@]}" | median)
echo "== checks after edits: overhead of a check (median of $runs interleaved runs, wall time of mewcode -p)"
echo "edit without a check:                 $(ms "$p") ms"
echo "same edit with py_compile check:      $(ms "$c") ms  (+$(ms $(( c - p ))) ms)"
echo "the check command alone (sh -c):      $(ms "$a") ms"
echo "overhead beyond the command:          $(ms $(( c - p - a ))) ms"
echo "same command as a bash call (sandboxed, a run of its own): $(ms "$b") ms; minus the edit run: $(ms $(( b - p ))) ms"
