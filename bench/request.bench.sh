#!/usr/bin/env bash
# The fixed cost of a request (issue 31): the first request of `mewcode -p hi` on a 4 096- and a
# 131 072-token window (lean below `lean_below`, 16 384 by default; full above), for both
# protocols, recorded by a tiny local server: bytes of the whole body, bytes of the system prompt
# and tool definitions as serialized, and those in tokens at 3.5 characters a token (mewcode's
# estimate). No project instructions: the project is an empty temp directory outside git.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${MEWCODE_BIN:-target/release/mewcode}")
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
python3 bench/request_server.py "$work/record.jsonl" "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
mkdir -p "$work/project" "$work/home"

echo "== first request size (system prompt + tools = the fixed cost of every request)"
printf '%-10s %-8s %-5s %12s %18s %14s\n' protocol window form "body bytes" "system+tools bytes" "~tokens (/3.5)"
for protocol in openai anthropic; do
  base="http://127.0.0.1:$port"
  [ "$protocol" = openai ] && base="$base/v1"
  for window in 4096 131072; do
    : > "$work/record.jsonl"
    printf 'providers:\n  - {name: bench, protocol: %s, model: m, api_key: k, base_url: "%s", context_window: %s}\n' \
      "$protocol" "$base" "$window" > "$work/home/config.yaml"
    (cd "$work/project" && env -i PATH="$PATH" HOME="$work" MEWCODE_HOME="$work/home" LANG=C.UTF-8 \
      "$bin" -p hi >/dev/null 2>"$work/stderr") || { echo "mewcode failed:"; cat "$work/stderr"; exit 1; }
    python3 - "$work/record.jsonl" "$protocol" "$window" <<'PY'
import json, sys
record, protocol, window = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The first chat request (an own server may be asked what its model can do first).
def chat(line):
    try:
        return "messages" in json.loads(json.loads(line)["body"])
    except (ValueError, KeyError, TypeError):
        return False
first = json.loads(next(line for line in open(record) if chat(line)))
body = json.loads(first["body"])
if "system" in body:
    system = json.dumps(body["system"], separators=(",", ":"))
else:
    system = json.dumps([m for m in body["messages"] if m["role"] == "system"], separators=(",", ":"))
tools = json.dumps(body.get("tools", []), separators=(",", ":"))
fixed = len(system.encode()) + len(tools.encode())
names = [tool.get("name") or tool.get("function", {}).get("name") for tool in body.get("tools", [])]
form = "full" if "task" in names else "lean"
print(f"{protocol:<10} {window:<8} {form:<5} {len(first['body'].encode()):>12} {fixed:>18} {round(fixed / 3.5):>14}")
PY
  done
done
