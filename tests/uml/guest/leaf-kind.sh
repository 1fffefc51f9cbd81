#!/bin/bash
# tests/uml/guest/leaf-kind.sh: the guest side of tests/uml/test_gatewayd.sh for one leaf kind
# the host kernel lacks, from its own file tests/uml/guest/kinds/KIND.sh: leaves of the kind
# under htb and under tbf on an ifb; --check and --dry-run; the tree applied and verified by
# read-back and as tc shows it; pings through it counted in /api/status and /metrics (and
# the kind's own checks of its statistics); a reload that changes a leaf; a clean stop.
# Arguments: the gatewayd binary, the kind. A kind's file sets:
#   kind_child LIMIT   the tuned class's child settings, its limit LIMIT (the kind's name and
#                      its keys; the plain class and the ingress use ${KIND} and KIND_INGRESS)
#   KIND_LIMITS        "FIRST RELOADED": the tuned class's limit before and after the reload
#   KIND_INGRESS       the ingress child's settings after kind = ...
#   KIND_TC            the --dry-run words of the tuned class's leaf (after "handle 1000: ")
#   KIND_Q_TUNED, KIND_Q_PLAIN, KIND_Q_INGRESS   jq filters on tc -j's view of each leaf
#   kind_checks        optional: checks of the kind's own statistics ($T/status.json,
#                      $T/metrics, class plain at .links[0].directions[0].classes[1])
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
KIND=${2:?kind}
# shellcheck source=/dev/null
. "$(dirname "$0")/kinds/$KIND.sh" || exit 1
uml_guest_begin "$1"
read -r limit reloaded <<<"$KIND_LIMITS"

conf() {	# conf LIMIT: htb with a tuned and a default class of the kind, tbf + it on ingress
	cat <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
      { name = "tuned"; rate = "5mbit"; child = { kind = "$KIND"; $(kind_child "$1") }; },
      { name = "plain"; rate = "15mbit"; default = true; child = { kind = "$KIND"; }; } ); };
  ingress = { shaper = "tbf"; rate = "30mbit"; ifb = "ifb-wan";
              child = { kind = "$KIND"; $KIND_INGRESS }; }; } );
CONF
}
conf "$limit" >"$T/a.conf"
out=$("$GW" -c "$T/a.conf" --check 2>&1)
check_detail "--check: this kernel has $KIND ($out)" "$out" test $? -eq 0
out=$("$GW" -c "$T/a.conf" --dry-run 2>&1)
check_detail "--dry-run: tc-$KIND(8)'s words" "$out" grep -qF \
	"parent e000:10 handle 1000: $KIND $KIND_TC" <<<"$out"

if uml_gw_start "$T/a.conf"; then
	ok "htb + $KIND classes, tbf + $KIND ingress: applied and verified (read back)"
	expect_qdisc "class tuned: $KIND with its settings" r1 e000:10 gwr "$KIND" "$KIND_Q_TUNED"
	expect_qdisc "class plain: $KIND, kernel defaults" r1 e000:11 gwr "$KIND" "$KIND_Q_PLAIN"
	expect_qdisc "ingress: $KIND under tbf on the ifb" ifb-wan e000:1 gwr "$KIND" "$KIND_Q_INGRESS"
	timeout 10 ip netns exec $UML_NS_C ping -q -c 20 -i 0.05 $UML_IP_S >/dev/null
	# (no match: the guest has no nftables; the pings go to the default class, plain)
	status() {
		ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/api/status \
			>"$T/status.json"
		n=$(jq -r '.links[0].directions[0].classes[1].sent_packets' "$T/status.json")
		[ "${n:-0}" -ge 20 ] 2>/dev/null
	}
	wait_for status 10 "/api/status to count the 20 pings in class plain"
	ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/metrics >"$T/metrics"
	k=$(jq -r '.links[0].directions[0].classes[1].kind' "$T/status.json")
	tcn=$(qdisc_packets r1 e000:11 gwr)
	check_detail "/api/status: class plain is kind $KIND ($k) and counted the pings ($n, tc $tcn)" \
		"$k $n" eval '[ "$k" = "$KIND" ] && [ "$n" -ge 20 ] && [ "$n" -le "$tcn" ]'
	other=$(jq -c '.links[0].directions[0].classes[0] | [.fq_codel, .cake]' "$T/status.json")
	check_detail "/api/status: a $KIND class has no fq_codel or cake statistics" "$other" \
		test "$other" = "[null,null]"
	check_detail "/metrics: the $KIND class's packets" "$(grep 'class="plain"' "$T/metrics" | head -3)" \
		grep -q "gatewayd_class_sent_packets_total{link=\"wan\",direction=\"egress\",class=\"plain\",kind=\"$KIND\"} [1-9]" "$T/metrics"
	[ "$(type -t kind_checks)" = function ] && kind_checks
	conf "$reloaded" >"$T/a.conf"
	kill -HUP $GWPID
	wait_for '[[ $(<"$T/log") == *reloaded* ]]' 6 "gatewayd to log the reload"
	check_detail "reload: logged" "$(tail -3 "$T/log")" grep -q "reloaded" "$T/log"
	expect_qdisc "reload: class tuned's $KIND limit is $reloaded now" r1 e000:10 gwr "$KIND" \
		".options.limit == $reloaded"
	uml_gw_stop
	rc=$?
	check_detail "SIGTERM: exit 0" "status $rc" test $rc -eq 0
	expect_qdisc "stop gives r1 its default qdisc back" r1 root gwr noqueue
else
	not_ok "htb + $KIND, tbf + $KIND: applied" "$(cat "$T/log")"
	kill -TERM $GWPID 2>/dev/null
	wait $GWPID
fi
tap_status
