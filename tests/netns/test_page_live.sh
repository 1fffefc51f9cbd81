#!/usr/bin/env bash
# The status page of a real daemon, shaping real traffic, in headless Chromium: no console
# errors, charts drawing changing data (a container's too), a link waiting for its interface
# said as such, a screenshot in
# build/screenshots/status-live.png.
. "$(dirname "$0")/lib.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
	skip "live status page" "$CHROMIUM not installed (make deps installs chromium)"
	exit 0
fi
topo_chain || { not_ok "topology"; exit 1; }
mkdir "$TMPD/nocmp"	# no comparison there: the page's section stays hidden
cat >"$TMPD/p.conf" <<CONF
interval = "500ms";
compare_dir = "$TMPD/nocmp";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "30mbit"; classes = (
    { name = "bulk"; rate = "20mbit"; default = true; child = { kind = "fifo"; limit = 200; }; },
    { name = "spare"; rate = "10mbit"; child = { kind = "fifo"; }; } ); };
  ingress = { shaper = "tbf"; rate = "50mbit"; ifb = "ifb-$RUN_ID"; child = { kind = "fifo"; }; }; },
  { name = "lte"; interface = "wwan9"; egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );
containers = ( { interfaces = "vp*"; egress = { rate = "10mbit"; child = { kind = "fifo"; }; };
  ingress = { rate = "5mbit"; child = { kind = "fifo"; }; }; } );
CONF
# a container's interface (its peer stays here too): the page shows ctr:vp0 beside wan, with
# charts from its own history
ip -n "$NS_R" link add vp0 type veth peer name xp0
ip -n "$NS_R" link set vp0 up
ip -n "$NS_R" link set xp0 up
gw_start "$NS_R" "$TMPD/p.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
ip netns exec "$NS_S" timeout 40 iperf3 -s -1 -B 10.77.2.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"
# 30 s of load, bounded; the page is looked at while it runs
ip netns exec "$NS_C" timeout 40 iperf3 -c 10.77.2.2 -P 4 -t 30 >/dev/null 2>&1 &
PIDS+=($!)
# some history for the charts: 16 points (8 s at 500 ms) for wan and for the container
points() {
	ip netns exec "$NS_R" curl -s --max-time 3 "http://127.0.0.1:9180/api/history?link=$1&direction=egress" |
		jq '.points | length' 2>/dev/null || echo 0
}
wait_for '[ "$(points wan)" -ge 16 ] && [ "$(points ctr:vp0)" -ge 16 ]' 20 "16 history points for wan and ctr:vp0"
mkdir -p "$TOP/build/screenshots"
CDP_WAITING="waiting for wwan9" CDP_DIRS=4 CDP_TINS=0 CDP_MIN_POINTS=10 CDP_IDLE_CLASS=1 CDP_LAT_DIRS=0 CDP_SHOT_PREFIX=status-live CDP_COMPARE_RUNS=0 \
	timeout 120 ip netns exec "$NS_R" python3 "$TOP/tests/webui/cdp.py" "$CHROMIUM" \
	"http://127.0.0.1:9180/" "$TOP/build/screenshots"
[ $? -eq 124 ] && not_ok "the headless browser run finished in time"
gw_stop
check "clean stop after the page was served" test $? -eq 0
