#!/bin/bash
# tests/uml/guest/pie.sh: guest side of tests/uml/test_gatewayd.sh for the pie kind (the host
# kernel has none): pie leaves under htb and under tbf on an ifb, --check and --dry-run, the
# tree applied and verified by read-back, tc's view of it, traffic through it counted in
# /api/status (with pie's own statistics) and /metrics, and a reload that changes a leaf.
# Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
T=$(mktemp -d)

[ -z "$UML_MODULES_FAILED" ] || not_ok "guest modules" "not loaded: $UML_MODULES_FAILED"
uml_topology || { not_ok "topology" "uml_topology failed"; exit 1; }

conf() {	# conf LIMIT: htb with a tuned and a default pie class, tbf + pie on ingress
	cat <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
      { name = "tuned"; rate = "5mbit";
        child = { kind = "pie"; limit = $1; target = "10ms"; tupdate = "30ms"; alpha = 3;
                  beta = 25; ecn = true; bytemode = false; dq_rate_estimator = true; }; },
      { name = "plain"; rate = "15mbit"; default = true; child = { kind = "pie"; }; } ); };
  ingress = { shaper = "tbf"; rate = "30mbit"; ifb = "ifb-wan"; child = { kind = "pie"; alpha = 4; }; }; } );
CONF
}
conf 500 >"$T/a.conf"
out=$("$GW" -c "$T/a.conf" --check 2>&1)
check "--check: this kernel has pie ($out)" "$out" test $? -eq 0
out=$("$GW" -c "$T/a.conf" --dry-run 2>&1)
check "--dry-run: tc-pie(8)'s words" "$out" grep -q \
	"parent e000:10 handle 1000: pie limit 500 target 10ms tupdate 30ms alpha 3 beta 25 ecn nobytemode dq_rate_estimator" <<<"$out"

ip netns exec $UML_NS_R "$GW" -c "$T/a.conf" >"$T/log" 2>&1 &
GWPID=$!
for _ in $(seq 100); do
	grep -q "applied and verified" "$T/log" && break
	kill -0 $GWPID 2>/dev/null || break
	sleep 0.1
done
if grep -q "applied and verified" "$T/log"; then
	ok "htb + pie classes, tbf + pie ingress: applied and verified (read back)"
	expect_qdisc "class tuned: pie with its settings" r1 e000:10 gwr pie \
		'.options.limit == 500 and .options.alpha == 3 and .options.beta == 25 and .options.ecn == true'
	expect_qdisc "class plain: pie, kernel defaults" r1 e000:11 gwr pie '.options.limit == 1000 and .options.alpha == 2'
	expect_qdisc "ingress: pie under tbf on the ifb" ifb-wan e000:1 gwr pie '.options.alpha == 4'
	timeout 10 ip netns exec $UML_NS_C ping -q -c 20 -i 0.05 $UML_IP_S >/dev/null
	sleep 1.2	# two sampling intervals
	ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/api/status >"$T/status.json"
	ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/metrics >"$T/metrics"
	# (no match: the guest has no nftables; the pings go to the default class, plain)
	k=$(jq -r '.links[0].directions[0].classes[1].kind' "$T/status.json")
	n=$(jq -r '.links[0].directions[0].classes[1].sent_packets' "$T/status.json")
	tcn=$(qdisc_packets r1 e000:11 gwr)
	check "/api/status: class plain is kind pie ($k) and counted the pings ($n, tc $tcn)" "$k $n" \
		eval '[ "$k" = pie ] && [ "$n" -ge 20 ] && [ "$n" -le "$tcn" ]'
	pin=$(jq -r '.links[0].directions[0].classes[1].pie.packets_in' "$T/status.json")
	tcin=$(qdisc_get r1 e000:11 gwr .pkts_in)
	check "/api/status: pie's own packets_in $pin, as tc's ($tcin)" \
		"$(jq -c '.links[0].directions[0].classes[1].pie' "$T/status.json")" \
		eval '[ "$pin" -ge 20 ] && [ "$pin" -le "$tcin" ]'
	check "/api/status: pie's queue delay and drop probability are numbers" \
		"$(jq -c '.links[0].directions[0].classes[1].pie' "$T/status.json")" \
		eval 'jq -e ".links[0].directions[0].classes[1].pie | (.queue_delay_ms | type) == \"number\" and (.drop_probability | type) == \"number\"" "$T/status.json" >/dev/null'
	check "/api/status: a pie class has no fq_codel or cake statistics" \
		"$(jq -c '.links[0].directions[0].classes[0] | [.fq_codel, .cake]' "$T/status.json")" \
		test "$(jq -c '.links[0].directions[0].classes[0] | [.fq_codel, .cake]' "$T/status.json")" = "[null,null]"
	check "/metrics: the pie class's packets" "$(grep 'class="plain"' "$T/metrics" | head -3)" \
		grep -q 'gatewayd_class_sent_packets_total{link="wan",direction="egress",class="plain",kind="pie"} [1-9]' "$T/metrics"
	check "/metrics: pie's own families, HELP and TYPE" "$(grep gatewayd_pie_ "$T/metrics" | head -4)" \
		eval 'grep -q "^# TYPE gatewayd_pie_packets_in_total counter" "$T/metrics" &&
		      grep -q "gatewayd_pie_packets_in_total{link=\"wan\",direction=\"egress\",class=\"plain\",kind=\"pie\"} [1-9]" "$T/metrics"'
	conf 800 >"$T/a.conf"
	kill -HUP $GWPID
	for _ in $(seq 30); do
		grep -q "reloaded\|reload:" "$T/log" && break
		sleep 0.2
	done
	check "reload: logged" "$(tail -3 "$T/log")" grep -q "reloaded" "$T/log"
	expect_qdisc "reload: class tuned's pie limit is 800 now" r1 e000:10 gwr pie '.options.limit == 800'
	kill -TERM $GWPID
	wait $GWPID
	rc=$?
	check "SIGTERM: exit 0" "status $rc" test $rc -eq 0
	expect_qdisc "stop gives r1 its default qdisc back" r1 root gwr noqueue
else
	not_ok "htb + pie, tbf + pie: applied" "$(cat "$T/log")"
	kill -TERM $GWPID 2>/dev/null
	wait $GWPID
fi
uml_status
