#!/usr/bin/env bash
# tests/webui/test_http.sh: the HTTP server against the fake snapshot source: routes, methods,
# query checks, headers, basic auth, and malformed, oversized, idle and slow clients.
# No root. Prints "ok - ..." / "not ok - ..." / "skip - ..." lines for tests/run.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/webui/lib.sh
. tests/webui/lib.sh
if ! start_fake main; then
	not_ok "fake server starts"
	exit 1
fi
B=http://127.0.0.1:$port
C="curl -s --max-time 5"
# a snapshot or two: sample seq 2 published
seq_now() { $C $B/api/status | sed -n 's/.*"seq":\([0-9]*\).*/\1/p'; }
wait_for '[ "$(seq_now)" -ge 2 ] 2>/dev/null' 5 "the fake source's second snapshot"

# code URL [curl args]: the status code only
code() { $C -o /dev/null -w '%{http_code}' "$@"; }
# header NAME URL [curl args]: one response header's value
header() {
	local h=$1
	shift
	$C -o /dev/null -D - "$@" | tr -d '\r' | awk -v h="$(echo "$h" | tr 'A-Z' 'a-z')" \
		'{ n = index($0, ":"); if (n && tolower(substr($0, 1, n - 1)) == h) { print substr($0, n + 2); exit } }'
}

# --- routes, types and headers
check "GET / is 200" test "$(code $B/)" = 200
check "GET / is HTML" test "$(header content-type $B/)" = "text/html; charset=utf-8"
csp=$(header content-security-policy $B/)
check "the page has a strict CSP (default-src 'none', script-src 'self', no inline)" \
	bash -c "[[ \"$csp\" == *\"default-src 'none'\"* && \"$csp\" == *\"script-src 'self'\"* && \"$csp\" != *unsafe-inline* ]]"
check "nosniff on the page" test "$(header x-content-type-options $B/)" = nosniff
check "nosniff on the API" test "$(header x-content-type-options $B/api/status)" = nosniff
check "GET /app.js is JavaScript" test "$(header content-type $B/app.js)" = "text/javascript; charset=utf-8"
check "GET /style.css is CSS" test "$(header content-type $B/style.css)" = "text/css; charset=utf-8"
check "GET /api/status is 200 JSON" test "$(code $B/api/status)/$(header content-type $B/api/status)" = "200/application/json"
$C $B/api/status >"$tmp/status.json"
check "/api/status parses, schema_version 1, 2 links, 4 directions" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["healthy"] is True
assert [l["name"] for l in d["links"]] == ["wan", "lan"]
assert sum(len(l["directions"]) for l in d["links"]) == 4
c = d["links"][0]["directions"][0]["classes"][2]
assert c["cake"]["tins"][3]["index"] == 3
' "$tmp/status.json"
check "/api/status has no nan or inf" bash -c "! grep -qiE 'nan|inf[^o]' '$tmp/status.json'"
check "every direction and class: the rate in force, and under rate_bits_per_second (deprecated) the same" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for l in d["links"]:
    for dr in l["directions"]:
        for o in [dr, dr["total"]] + dr["classes"]:
            assert o["rate_in_force_bits_per_second"] > 0, o
            assert o["rate_bits_per_second"] == o["rate_in_force_bits_per_second"], o
            n += 1
assert n > 8, n
' "$tmp/status.json"
check "an idle class says accuracy null, saturated false" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["links"][1]["directions"][0]["classes"][0]
assert c["saturated"] is False and c["accuracy"] is None, c
' "$tmp/status.json"
check "/api/status: latency per direction of the probed link, null elsewhere" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
wan, lan = d["links"]
for dr in wan["directions"]:
    l = dr["latency"]
    assert l["baseline_ms"] > 0 and l["grade"] in ("A+", "A", "B", "C", "D", "F"), l
    assert l["loaded"]["p99_ms"] >= l["loaded"]["p90_ms"] >= l["loaded"]["p50_ms"] >= l["loaded"]["min_ms"]
    assert 0 <= l["idle"]["loss"] <= 1 and l["idle"]["samples"] >= l["idle"]["lost"]
    assert abs(l["induced_p50_ms"] - (l["loaded"]["p50_ms"] - l["baseline_ms"])) < 1e-3
    assert l["replies_total"] > 0
for dr in lan["directions"]:
    assert dr["latency"] is None
' "$tmp/status.json"
check "/api/status: probe targets with health, the last load test" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["probe"]
assert p["method"] == "icmp" and p["link"] == "wan" and p["interval_seconds"] == 0.1
assert [t["up"] for t in p["targets"]] == [True, True, False]
assert p["targets"][2]["last_rtt_ms"] is None and p["targets"][0]["last_rtt_ms"] > 0
assert all(t["last_owd_up_ms"] is None and t["last_owd_down_ms"] is None for t in p["targets"])
t = d["loadtest"]
assert t["running"] is False and t["error"] is None and t["finished_unix_seconds"] > t["started_unix_seconds"]
assert [x["direction"] for x in t["directions"]] == ["download", "upload", "both"]
assert t["directions"][0]["grade"] == "A+"
' "$tmp/status.json"
check "/metrics type is text/plain; version=0.0.4" \
	test "$(header content-type $B/metrics)" = "text/plain; version=0.0.4; charset=utf-8"
if command -v promtool >/dev/null; then
	$C $B/metrics >"$tmp/metrics.txt"
	check "promtool check metrics passes on /metrics" bash -c "promtool check metrics <'$tmp/metrics.txt'"
	check "/metrics: every _rate_in_force_bytes_per_second sample, and the same under _configured_rate_ (deprecated)" python3 -c '
import re, sys
txt = open(sys.argv[1]).read()
for kind in ("class", "direction"):
    new = dict(re.findall(r"^gatewayd_%s_rate_in_force_bytes_per_second(\{[^}]*\}) (\S+)$" % kind, txt, re.M))
    old = dict(re.findall(r"^gatewayd_%s_configured_rate_bytes_per_second(\{[^}]*\}) (\S+)$" % kind, txt, re.M))
    assert len(new) >= 4 and new == old, (kind, new, old)
    assert "# HELP gatewayd_%s_configured_rate_bytes_per_second Deprecated" % kind in txt
' "$tmp/metrics.txt"
	check "/metrics: the RTT histogram is cumulative, +Inf equals _count, per link and direction" python3 -c '
import re, sys
txt = open(sys.argv[1]).read()
assert "# TYPE gatewayd_probe_rtt_seconds histogram" in txt
for dr in ("egress", "ingress"):
    lab = "link=\"wan\",direction=\"%s\"" % dr
    b = [(m.group(1), float(m.group(2))) for m in re.finditer(
        r"gatewayd_probe_rtt_seconds_bucket\{" + lab + r",le=\"([^\"]+)\"\} (\S+)", txt)]
    assert len(b) == 15 and b[-1][0] == "+Inf", b
    assert all(b[i][1] <= b[i + 1][1] for i in range(14)), b
    cnt = float(re.search(r"gatewayd_probe_rtt_seconds_count\{" + lab + r"\} (\S+)", txt).group(1))
    assert cnt == b[-1][1] and cnt > 0
assert "lan" not in "".join(l for l in txt.splitlines() if l.startswith("gatewayd_probe_rtt"))
' "$tmp/metrics.txt"
	check "/metrics: loss, induced latency, baseline, target health" python3 -c '
import sys
txt = open(sys.argv[1]).read()
for want in ("gatewayd_probe_loss_ratio{link=\"wan\",direction=\"egress\",state=\"loaded\"}",
             "gatewayd_probe_induced_latency_p99_seconds{link=\"wan\",direction=\"ingress\"}",
             "gatewayd_probe_induced_latency_mean_seconds{link=\"wan\",direction=\"egress\"}",
             "gatewayd_probe_baseline_seconds{link=\"wan\",direction=\"egress\"} 0.01205",
             "gatewayd_probe_target_up{target=\"198.51.100.7\"} 0",
             "gatewayd_probe_target_up{target=\"2001:db8::1\"} 1",
             "gatewayd_probe_target_lost_total{target=\"198.51.100.7\"}",
             "gatewayd_loadtest_goodput_bytes_per_second{direction=\"upload\"} 2375000"):
    assert want in txt, want
' "$tmp/metrics.txt"
else
	echo "skip - promtool not installed (Debian package prometheus)"
fi
check "/healthz is 200 ok" test "$($C $B/healthz)" = ok
check "unknown path is 404" test "$(code $B/nope)" = 404
check "query parameters where none are taken: 400" test "$(code "$B/api/status?x=1")" = 400
check "a 10 KB query string: 400" test "$(code "$B/metrics?x=$(printf 'y%.0s' $(seq 10000))")" = 400
check "a path under / is 404, not the page" test "$(code $B/index.html/x)" = 404

# --- methods
check "HEAD /api/status is 200 with no body" bash -c "[ \"\$($C -I -o '$tmp/head' -w '%{http_code} %{size_download}' $B/api/status)\" = '200 0' ]"
check "HEAD /api/status has a Content-Length" bash -c "$C -I $B/api/status | grep -qi '^content-length: [1-9]'"
check "HEAD / is 200" test "$(code -I $B/)" = 200
for m in POST PUT DELETE PATCH OPTIONS; do
	check "$m is 405" test "$(code -X $m -d x=1 $B/api/status)" = 405
done
check "405 says Allow: GET, HEAD" test "$(header allow -X POST $B/)" = "GET, HEAD"
check "a GET with a body is 400" test "$(code -X GET -d x=1 $B/api/status)" = 400
check "keep-alive: two requests share one connection" \
	bash -c "$C -v $B/healthz $B/api/status -o /dev/null -o /dev/null 2>&1 | grep -qi 're-using'"

# --- /api/history
H="$B/api/history"
check "history of a class is 200 with points" python3 -c '
import json, sys, urllib.request
d = json.load(urllib.request.urlopen(sys.argv[1] + "?link=wan&direction=egress&class=bulk", timeout=5))
assert d["class"] == "bulk" and d["resolution"] == "raw" and len(d["points"]) > 100
assert d["columns"][0] == "time_unix_seconds" and len(d["points"][0]) == len(d["columns"])
assert d["columns"][9:] == ["baseline_ms", "loaded_p50_ms", "loaded_p99_ms"]
assert all(p[9] is None for p in d["points"]), "a class has no latency"
t = json.load(urllib.request.urlopen(sys.argv[1] + "?link=wan&direction=egress", timeout=5))
assert all(p[9] > 0 and p[11] >= p[10] for p in t["points"]), "the probed total has"

assert d["to_unix_seconds"] - d["from_unix_seconds"] == 900
' "$H"
check "history defaults to class total" bash -c "$C '$H?link=lan&direction=ingress' | grep -q '\"class\":\"total\"'"
check "history at minute resolution" bash -c "$C '$H?link=wan&direction=egress&resolution=minute' | grep -q '\"resolution\":\"minute\"'"
for q in "direction=egress" "link=wan" "link=wan&direction=sideways" "link=wan&direction=egress&from=abc" \
	"link=wan&direction=egress&from=1e9" "link=wan&direction=egress&to=-5" \
	"link=wan&direction=egress&from=200&to=100" "link=wan&direction=egress&resolution=hour" \
	"link=wan&direction=egress&colour=red" "link=wan&direction=egress&link=lan" \
	"link=wa%22n&direction=egress" "link=wan&direction=egress&class=" \
	"link=wan&direction=egress&from=nan" \
	"link=$(printf 'a%.0s' $(seq 100))&direction=egress" \
	"link=wan&direction=egress&a=1&b=2&c=3&d=4&e=5&f=6&g=7"; do
	check "bad history query '${q:0:60}' is 400" test "$(code "$H?$q")" = 400
done
check "unknown series is 404" test "$(code "$H?link=wan&direction=egress&class=nope")" = 404
check "unknown link is 404" test "$(code "$H?link=dsl&direction=egress")" = 404

# --- bounds: long URL, oversized header, idle and slow clients
check "a 2 KB path is 414" test "$(code "$B/$(printf 'x%.0s' $(seq 2000))")" = 414
python3 - "$port" >"$tmp/big.out" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
try:
    s.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
except OSError:
    pass
try:
    r = s.recv(200)
    print(r.split(b"\r\n")[0].decode() if r else "closed")
except OSError:
    print("closed")
EOF
big=$(cat "$tmp/big.out")
check "a 100 KB header gets 4xx or a closed connection ($big)" bash -c "[[ '$big' == closed || '$big' == 'HTTP/1.1 4'* ]]"
check "a normal client is served after it" test "$(code $B/healthz)" = 200

# 300 idle connections from 127.0.0.2 and one client trickling a header a byte a second,
# watched from one python process while curl (from 127.0.0.1) keeps being served
python3 - "$port" >"$tmp/idle.out" 2>&1 <<'EOF' &
import socket, sys, time, select
port = int(sys.argv[1])
idle = []
for i in range(300):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
        idle.append(s)
    except OSError:
        s.close()
print("connected", len(idle), flush=True)
slow = socket.create_connection(("127.0.0.1", port), timeout=2)
req = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nUser-Agent: " + b"s" * 60 + b"\r\n\r\n"
t0 = time.time()
slow_closed = None
i = 0
while time.time() - t0 < 16 and slow_closed is None:
    try:
        slow.send(req[i:i + 1])
        i += 1
        r, _, _ = select.select([slow], [], [], 1.0)
        if r and slow.recv(100) == b"":
            slow_closed = time.time() - t0
    except OSError:
        slow_closed = time.time() - t0
print("slow_closed", -1 if slow_closed is None else round(slow_closed, 1), "sent", i, flush=True)
# by now (>10 s) every idle connection must have been dropped too
still = 0
for s in idle:
    try:
        s.settimeout(0.05)
        if s.recv(1) != b"":
            still += 1
    except socket.timeout:
        still += 1
    except OSError:
        pass
print("idle_open", still, flush=True)
EOF
watch_pid=$!
wait_for "grep -q connected '$tmp/idle.out'" 6 "the idle clients to connect"
# (it holds 32 of them per address and turns the rest away, nothing to see from outside:) a
# duration, not a wait: the time the server has to take them in before the normal client asks
sleep 0.5
t0=$(date +%s.%N)
c1=$(code $B/healthz)
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
check "with 300 idle connections open ($(grep connected "$tmp/idle.out")), a normal client is served ($c1 in $took s)" \
	awk -v c="$c1" -v t="$took" 'BEGIN { exit !(c == 200 && t < 2) }'
sleep 3	# a duration: the server goes on meanwhile with 300 idle clients and a slow one
check "and again 3 s later, with a slow client trickling" test "$(code $B/api/status)" = 200
wait "$watch_pid"
read -r _ slow_s _ sent < <(grep slow_closed "$tmp/idle.out")
check "a slow client (a header byte a second) is dropped within 12 s (after ${slow_s} s, $sent bytes)" \
	awk -v t="${slow_s:--1}" 'BEGIN { exit !(t > 0 && t <= 12) }'
idle_open=$(awk '/idle_open/ { print $2 }' "$tmp/idle.out")
check "idle connections are all dropped by then ($idle_open left)" test "${idle_open:-x}" = 0
check "a normal client is still served" test "$(code $B/metrics)" = 200

# --- basic auth
hash=$(openssl passwd -6 -salt saltsalt s3cret)
printf '# gatewayd users\n\nadmin:%s\nother:%s\n' "$hash" "$(openssl passwd -6 other)" >"$tmp/users"
if start_fake auth -a "$tmp/users"; then
	A=http://127.0.0.1:$port
	check "auth: no credentials is 401" test "$(code $A/api/status)" = 401
	wwwa=$(header www-authenticate $A/)
	check "auth: 401 says WWW-Authenticate: Basic ($wwwa)" bash -c "[[ '$wwwa' == 'Basic realm=\"gatewayd\"'* ]]"
	check "auth: wrong password is 401" test "$(code -u admin:wrong $A/api/status)" = 401
	check "auth: unknown user is 401" test "$(code -u nobody:s3cret $A/api/status)" = 401
	check "auth: right password is 200" test "$(code -u admin:s3cret $A/api/status)" = 200
	check "auth: and again (remembered)" test "$(code -u admin:s3cret $A/metrics)" = 200
	check "auth: the page needs it too" test "$(code $A/)" = 401
	check "auth: /healthz stays open" test "$(code $A/healthz)" = 200
else
	not_ok "fake server starts with an auth file"
fi
printf 'admin:plaintext\n' >"$tmp/badusers"
"$FAKE" -l "127.0.0.1:$(free_port)" -a "$tmp/badusers" >/dev/null 2>"$tmp/bad.err" &
bad_pid=$!
pids+=($bad_pid)
wait_for "! kill -0 $bad_pid 2>/dev/null" 3 "the fake server with a bad users file to exit"
check "auth: a plaintext password in the file is refused at start ($(cat "$tmp/bad.err"))" \
	grep -q "badusers:1: not a crypt(3) hash" "$tmp/bad.err"

# --- health: no snapshot yet, and a sampler that stopped
if start_fake empty -e; then
	E=http://127.0.0.1:$port
	check "no snapshot: /healthz is 503" test "$(code $E/healthz)" = 503
	check "no snapshot: /healthz says why" test "$($C $E/healthz)" = "no sample yet"
	check "no snapshot: /api/status is 503" test "$(code $E/api/status)" = 503
	check "no snapshot: /api/status says sample null" \
		bash -c "$C $E/api/status | grep -q '\"sample\":null,\"links\":\[\]'"
	check "no snapshot: /metrics is 200 with gatewayd_up 0" \
		bash -c "$C $E/metrics | grep -qx 'gatewayd_up 0'"
fi
if start_fake frozen -f 0.6; then
	F=http://127.0.0.1:$port
	check "fresh: /healthz is 200" test "$(code $F/healthz)" = 200
	check "stale (no sample for > 3 intervals): /healthz is 503" wait_for '[ "$(code $F/healthz)" = 503 ]' 3
	check "stale: /healthz says how old" bash -c "$C $F/healthz | grep -q 'last sample .* s ago'"
	check "stale: gatewayd_up 0" bash -c "$C $F/metrics | grep -qx 'gatewayd_up 0'"
	check "stale: /api/status says healthy false" bash -c "$C $F/api/status | grep -q '\"healthy\":false'"
fi

# --- IPv6, where the host has it
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	p6=$(free_port)
	"$FAKE" -l "127.0.0.1:$p6" -l "[::1]:$p6" >"$tmp/v6.out" 2>&1 &
	pids+=($!)
	wait_for "grep -q ready '$tmp/v6.out'" 3 "the fake server on two addresses to say ready"
	check "two listen addresses: IPv4 served" test "$(code http://127.0.0.1:$p6/healthz)" = 200
	check "two listen addresses: IPv6 served" test "$(code -g "http://[::1]:$p6/healthz")" = 200
else
	echo "skip - IPv6: no ::1 on this host"
fi
inuse=$(timeout 3 "$FAKE" -l "127.0.0.1:$port" 2>&1)
check "a listen address in use is refused with its errno ($inuse)" \
	bash -c "[[ '$inuse' == *'listen 127.0.0.1:$port: Address already in use'* ]]"
# --- the last comparison: /api/compare and /compare/NAME.svg, read by the daemon's reader
# (webui/lastcmp.c) from a real run's files (tests/webui/compare: gatewayd --compare
# --kernel host --qdiscs fifo --duration 5s)
mkdir -p "$tmp/cmp"
cp tests/webui/compare/* "$tmp/cmp/"
if start_fake cmp -c "$tmp/cmp"; then
	K=http://127.0.0.1:$port
	check "/api/compare is 200 JSON" test "$(code $K/api/compare)/$(header content-type $K/api/compare)" = "200/application/json"
	$C $K/api/compare >"$tmp/cmp.json"
	check "/api/compare: the run's settings and time, per queue the table's figures, no samples" python3 -c '
import json, sys
s = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
assert s["generated_unix"] == f["generated_unix"] and s["kernel"] == f["kernel"]
assert s["config"]["rate_bps"] == f["config"]["rate_bps"] and s["config"]["rtt_ms"] == f["config"]["rtt_ms"]
assert len(s["runs"]) == len(f["runs"]) == 1
a, b = s["runs"][0], f["runs"][0]
assert a["qdisc"] == "fifo" and a["grade"] == b["grade"] and a["drops"] == b["drops"]
for d in ("up", "down"):
    assert abs(a["goodput_bps"][d] - b["goodput_bps"][d]) <= 1e-5 * b["goodput_bps"][d]
for k in ("p50", "p99"):
    assert abs(a["latency_ms"]["induced"][k] - b["latency_ms"]["induced"][k]) < 1e-3
assert "queue" not in a and "flows" not in a and "samples" not in a
assert s["plots"] == ["latency-cdf.svg", "latency-time.svg", "flows-fifo.svg"]
assert len(open(sys.argv[1]).read()) < len(open(sys.argv[2]).read()) / 4
' "$tmp/cmp.json" "$tmp/cmp/results.json"
	check "/compare/latency-cdf.svg is 200 image/svg+xml" test "$(code $K/compare/latency-cdf.svg)/$(header content-type $K/compare/latency-cdf.svg)" = "200/image/svg+xml"
	check "/compare/flows-fifo.svg is the file, byte for byte" cmp -s <($C $K/compare/flows-fifo.svg) "$tmp/cmp/flows-fifo.svg"
	check "a known plot that is not there is 404" test "$(code $K/compare/flows-cake.svg)" = 404
	check "results.json itself is not served as a plot (404)" test "$(code $K/compare/results.json)" = 404
	for u in "/compare/../results.json" "/compare/..%2Fresults.json" "/compare/%2e%2e%2f%2e%2e%2fetc%2fpasswd" \
		"/compare/./latency-cdf.svg" "/compare/" "/compare/flows-..%2f..%2fetc%2fpasswd.svg"; do
		c=$(code --path-as-is "$K$u")
		check "traversal $u refused ($c)" bash -c "[ $c = 404 ] || [ $c = 400 ]"
	done
	ln -s /etc/passwd "$tmp/cmp/flows-cake.svg"
	c=$(code $K/compare/flows-cake.svg)
	check "a plot that is a symlink is not followed ($c)" bash -c "[ $c != 200 ] && ! $C $K/compare/flows-cake.svg | grep -q root:"
	check "/api/compare takes no query (400)" test "$(code "$K/api/compare?x=1")" = 400
	# error states: each a JSON {"error"} with a status, never a crash
	cmp_err() { # cmp_err NAME WANT_CODE WANT_TEXT
		local c
		c=$($C -o "$tmp/err.json" -w '%{http_code}' $K/api/compare)
		check "$1: $c, $(cat "$tmp/err.json")" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == sys.argv[3] and sys.argv[4] in d["error"], d' "$tmp/err.json" "$c" "$2" "$3"
	}
	printf '{"schema": "gatewayd-compare", "version": 1, "runs": [' >"$tmp/cmp/results.json"
	cmp_err "a truncated results.json is a 500" 500 "ends inside its value"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema"]="other"; json.dump(d, open(sys.argv[2],"w"))' \
		tests/webui/compare/results.json "$tmp/cmp/results.json"
	cmp_err "another schema is a 500" 500 "schema"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runs"][0]["goodput_bps"]["up"]="fast"; json.dump(d, open(sys.argv[2],"w"))' \
		tests/webui/compare/results.json "$tmp/cmp/results.json"
	cmp_err "a figure that is not a number is a 500" 500 "goodput_bps.up: want a number"
	sed 's/"jain_fairness": *[0-9.]*/"jain_fairness": NaN/' tests/webui/compare/results.json >"$tmp/cmp/results.json"
	cmp_err "a NaN is a 500 (never copied into the answer)" 500 "NaN or Infinity"
	python3 -c 'import json,sys; print("[" * 5000 + "]" * 5000)' >"$tmp/cmp/results.json"
	cmp_err "5000 nested arrays are a 500 (depth bound)" 500 "not JSON"
	truncate -s 40M "$tmp/cmp/results.json"
	cmp_err "a 40 MB results.json is a 500 (size bound)" 500 "over the"
	rm "$tmp/cmp/results.json"
	cmp_err "no results.json is a 404" 404 "no comparison has run yet"
	mkdir "$tmp/cmp/results.json"
	cmp_err "a directory in its place is a 503" 503 "not a regular file"
	rmdir "$tmp/cmp/results.json"
	cp tests/webui/compare/results.json "$tmp/cmp/results.json"
	check "a good results.json again: 200" test "$(code $K/api/compare)" = 200
	rm -r "$tmp/cmp"
	cmp_err "no compare directory at all is a 404" 404 "no comparison has run yet"
else
	not_ok "fake server starts with a compare directory"
fi
check "a server with no compare directory answers /api/compare 404 JSON" \
	test "$(code $B/api/compare)/$(header content-type $B/api/compare)" = "404/application/json"

# the first server, stopped as the daemon stops it: clean exit, no sanitizer report
main_pid=${pids[0]}
kill -TERM "$main_pid"
wait "$main_pid"
rc=$?
check "the server stops cleanly on SIGTERM (exit $rc$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer.*' "$tmp/main.err"))" \
	bash -c "[ $rc -eq 0 ] && ! grep -q Sanitizer '$tmp/main.err'"
pids=("${pids[@]:1}")
tap_status
