# tests/uml/guest/kinds/pie.sh: pie for tests/uml/guest/leaf-kind.sh (its variables there),
# with checks of pie's own statistics in /api/status and /metrics.
# shellcheck shell=bash disable=SC2034
kind_child() { echo "limit = $1; target = \"10ms\"; tupdate = \"30ms\"; alpha = 3; beta = 25; ecn = true; bytemode = false; dq_rate_estimator = true;"; }
KIND_LIMITS="500 800"
KIND_INGRESS="alpha = 4;"
KIND_TC="limit 500 target 10ms tupdate 30ms alpha 3 beta 25 ecn nobytemode dq_rate_estimator"
KIND_Q_TUNED='.options.limit == 500 and .options.alpha == 3 and .options.beta == 25 and .options.ecn == true'
KIND_Q_PLAIN='.options.limit == 1000 and .options.alpha == 2'
KIND_Q_INGRESS='.options.alpha == 4'
kind_checks() {
	local pie pin tcin
	pie=$(jq -c '.links[0].directions[0].classes[1].pie' "$T/status.json")
	pin=$(jq -r '.links[0].directions[0].classes[1].pie.packets_in' "$T/status.json")
	tcin=$(qdisc_get r1 e000:11 gwr .pkts_in)
	check_detail "/api/status: pie's own packets_in $pin, as tc's ($tcin)" "$pie" \
		eval '[ "$pin" -ge 20 ] && [ "$pin" -le "$tcin" ]'
	check_detail "/api/status: pie's queue delay and drop probability are numbers" "$pie" \
		eval 'jq -e ".links[0].directions[0].classes[1].pie | (.queue_delay_ms | type) == \"number\" and (.drop_probability | type) == \"number\"" "$T/status.json" >/dev/null'
	check_detail "/metrics: pie's own families, HELP and TYPE" "$(grep gatewayd_pie_ "$T/metrics" | head -4)" \
		eval 'grep -q "^# TYPE gatewayd_pie_packets_in_total counter" "$T/metrics" &&
		      grep -q "gatewayd_pie_packets_in_total{link=\"wan\",direction=\"egress\",class=\"plain\",kind=\"pie\"} [1-9]" "$T/metrics"'
}
