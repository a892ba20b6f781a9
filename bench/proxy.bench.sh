#!/usr/bin/env bash
# The commands' network proxy (issue 32), run on its own with an allow-all decision
# (examples/proxy_runner.rs) against a local origin (bench/proxy_origin.py): the throughput of a
# 100 MB download through it over a direct one, as a ratio (target >= 0.8), for a plain HTTP request
# (absolute form), a CONNECT tunnel (how HTTPS goes) and SOCKS5; and the latency it adds per small
# request (median over 100 requests, each on a new connection as the proxy serves one request per
# connection, direct and proxied interleaved); and the proxy's own CPU time per 100 MB relayed,
# which a loaded machine does not blur as it does the ratio (three processes sharing the cores
# instead of two). Medians of several runs; the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${PROXY_BENCH_RUNS:-5}
work=$(mktemp -d)
origin_pid=
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# Only the proxies this bench names: none from the environment.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

cargo build -q --release --example proxy_runner
runner="${CARGO_TARGET_DIR:-target}/release/examples/proxy_runner"
python3 bench/proxy_origin.py "$work/port" &
origin_pid=$!
mkfifo "$work/proxy_in"
"$runner" < "$work/proxy_in" > "$work/proxy_out" &
proxy_pid=$!
exec 3> "$work/proxy_in"
for _ in $(seq 100); do [ -s "$work/port" ] && grep -q listening "$work/proxy_out" && break; sleep 0.05; done
port=$(cat "$work/port")
proxy=$(awk '/^listening/ {print $2}' "$work/proxy_out")
url="http://127.0.0.1:$port/big"

echo "== network proxy for commands: 100 MB download through it vs direct (median of $runs)"
speed() { curl -s -o /dev/null -w '%{speed_download}\n' "$@"; }
declare -A speeds
proxy_cpu() { awk '{print $14 + $15}' "/proc/$proxy_pid/stat"; }
cpu_before=$(proxy_cpu)
for _ in $(seq "$runs"); do
  speeds[direct]+="$(speed "$url") "
  speeds[http]+="$(speed -x "http://$proxy" "$url") "
  speeds[connect]+="$(speed -p -x "http://$proxy" "$url") "
  speeds[socks5]+="$(speed -x "socks5h://$proxy" "$url") "
done
cpu_ms=$(echo "($(proxy_cpu) - $cpu_before) * 1000 / $(getconf CLK_TCK) / (3 * $runs)" | bc -l)
direct=$(printf '%s\n' ${speeds[direct]} | median)
printf '%-26s %8.0f MB/s\n' "direct" "$(echo "$direct / 1000000" | bc -l)"
for way in http connect socks5; do
  through=$(printf '%s\n' ${speeds[$way]} | median)
  printf '%-26s %8.0f MB/s  ratio %.2f (target >= 0.8)\n' "through the proxy ($way)" \
    "$(echo "$through / 1000000" | bc -l)" "$(echo "$through / $direct" | bc -l)"
done
printf 'proxy CPU (user + system) per 100 MB relayed: %.0f ms (mean over the %d proxied downloads)\n' "$cpu_ms" $((3 * runs))

echo
echo "== network proxy for commands: added latency per small request (median of 100, new connection each)"
python3 - "$port" "$proxy" <<'PY'
import http.client, statistics, sys, time
port, proxy = int(sys.argv[1]), sys.argv[2]
proxy_host, proxy_port = proxy.rsplit(":", 1)

def timed(host, port, target):
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, port)
    connection.request("GET", target)
    response = connection.getresponse()
    assert response.read() == b"ok", response.status
    connection.close()
    return (time.perf_counter() - started) * 1000

for _ in range(10):  # warm-up
    timed("127.0.0.1", port, "/small"), timed(proxy_host, int(proxy_port), f"http://127.0.0.1:{port}/small")
direct, proxied = [], []
for _ in range(100):
    direct.append(timed("127.0.0.1", port, "/small"))
    proxied.append(timed(proxy_host, int(proxy_port), f"http://127.0.0.1:{port}/small"))
d, p = statistics.median(direct), statistics.median(proxied)
print(f"direct {d:.3f} ms, through the proxy {p:.3f} ms: added {p - d:.3f} ms per request")
PY
exec 3>&-
wait "$proxy_pid" || true
proxy_pid=
sed -n 's/^decision log/proxy &/p' "$work/proxy_out"
