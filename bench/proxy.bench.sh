#!/usr/bin/env bash
# The commands' network proxy (issue 32), run on its own with an allow-all decision
# (examples/proxy_runner.rs) against a local origin (bench/proxy_origin.py): the throughput of a
# 100 MB download through it over a direct one, as a ratio (target >= 0.8), for a plain HTTP request
# (absolute form), a CONNECT tunnel (how HTTPS goes) and SOCKS5; and the latency it adds per small
# request (median over 100 requests, each on a new connection as the proxy serves one request per
# connection, direct and proxied interleaved); and the CPU time each download costs, by process
# (origin, proxy, curl), which a loaded machine does not blur as it does the ratio: on a machine with
# fewer cores than busy processes (two here, three processes once the proxy is in the way) the
# download is bound by the CPU, and the ratio of the CPU totals is the ratio the throughput has then;
# with a core per process, the busiest process would bound it instead.
# Medians of several runs; the machine is shared. PROXY_RUNNER=path measures that build of the runner
# instead of building this tree's (to compare two builds).
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

runner=${PROXY_RUNNER:-}
if [ -z "$runner" ]; then
  cargo build -q --release --example proxy_runner
  runner="${CARGO_TARGET_DIR:-target}/release/examples/proxy_runner"
fi
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
declare -A speeds cpu_origin cpu_proxy cpu_curl
# CPU time (user + system, in ms) a process has used, its exited threads included.
cpu_ms() { awk -v tck="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000 / tck}' "/proc/$1/stat"; }
# One download by `way`: its speed, and the CPU it cost the origin, the proxy and curl.
download() {
  local way=$1; shift
  local origin_before proxy_before
  origin_before=$(cpu_ms "$origin_pid")
  proxy_before=$(cpu_ms "$proxy_pid")
  { time curl -s -o /dev/null -w '%{speed_download}\n' "$@" "$url" > "$work/speed"; } 2> "$work/time"
  speeds[$way]+="$(cat "$work/speed") "
  cpu_origin[$way]=$(echo "${cpu_origin[$way]:-0} + $(cpu_ms "$origin_pid") - $origin_before" | bc -l)
  cpu_proxy[$way]=$(echo "${cpu_proxy[$way]:-0} + $(cpu_ms "$proxy_pid") - $proxy_before" | bc -l)
  cpu_curl[$way]=$(echo "${cpu_curl[$way]:-0} + ($(awk '{print $1 + $2}' "$work/time")) * 1000" | bc -l)
}
# What curl costs to start and fetch 2 bytes (median of 5), taken off its figures below.
TIMEFORMAT='%3U %3S'
curl_start=$(for _ in $(seq 5); do
  { time curl -s -o /dev/null "http://127.0.0.1:$port/small"; } 2>&1 | awk '{print ($1 + $2) * 1000}'
done | median)
for _ in $(seq "$runs"); do
  download direct
  download http -x "http://$proxy"
  download connect -p -x "http://$proxy"
  download socks5 -x "socks5h://$proxy"
done
direct=$(printf '%s\n' ${speeds[direct]} | median)
printf '%-26s %8.0f MB/s\n' "direct" "$(echo "$direct / 1000000" | bc -l)"
for way in http connect socks5; do
  through=$(printf '%s\n' ${speeds[$way]} | median)
  printf '%-26s %8.0f MB/s  ratio %.2f (target >= 0.8)\n' "through the proxy ($way)" \
    "$(echo "$through / 1000000" | bc -l)" "$(echo "$through / $direct" | bc -l)"
done
echo "CPU (user + system) per 100 MB, mean of $runs (curl's without its start, $curl_start ms):"
for way in direct http connect socks5; do
  cpu_curl[$way]=$(echo "${cpu_curl[$way]} - $runs * $curl_start" | bc -l)
done
total() { echo "(${cpu_origin[$1]} + ${cpu_proxy[$1]} + ${cpu_curl[$1]}) / $runs" | bc -l; }
# The busiest process: what bounds the throughput when each has a core of its own.
busiest() { printf '%s\n' "${cpu_origin[$1]}" "${cpu_proxy[$1]}" "${cpu_curl[$1]}" | sort -n | tail -1; }
for way in direct http connect socks5; do
  printf '  %-8s origin %4.0f ms  proxy %4.0f ms  curl %4.0f ms  total %4.0f ms' "$way" \
    "$(echo "${cpu_origin[$way]} / $runs" | bc -l)" "$(echo "${cpu_proxy[$way]} / $runs" | bc -l)" \
    "$(echo "${cpu_curl[$way]} / $runs" | bc -l)" "$(total "$way")"
  [ "$way" = direct ] && echo || printf '  ratio of totals %.2f, of busiest %.2f\n' \
    "$(echo "$(total direct) / $(total "$way")" | bc -l)" "$(echo "$(busiest direct) / $(busiest "$way")" | bc -l)"
done
echo "  (all cores busy, the throughput ratio is at most the ratio of totals; with a core per process,"
echo "  the busiest process bounds it)"

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
