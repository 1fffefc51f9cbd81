#!/usr/bin/env bash
# --dry-run prints runnable commands: run by hand in a second namespace they build the same
# tree as the daemon builds in the first. And --dry-run touches nothing.
. "$(dirname "$0")/lib.sh"

ns_new NA daemon && ns_new NB byhand || { not_ok "namespaces"; exit 1; }
for ns in "$NA" "$NB"; do
	ip -n "$ns" link add v0 type veth peer name v1
	ip -n "$ns" link set v0 up
	ip -n "$ns" link set v1 up
done
cat >"$TMPD/d.conf" <<CONF
links = (
  { name = "wan"; interface = "v0"; linklayer = "docsis";
    egress = { shaper = "htb"; rate = "95mbit";
      classes = (
        { name = "interactive"; rate = "10mbit"; ceil = "95mbit"; prio = 0; quantum = 3000;
          child = { kind = "fifo"; limit = 50; }; },
        { name = "bulk"; rate = "85mbit"; prio = 1; default = true; burst = "32k"; cburst = "64k";
          child = { kind = "fifo"; limit = "256k"; }; } ); };
    ingress = { shaper = "htb"; rate = "300mbit"; ifb = "ifb-dry"; child = { kind = "fifo"; }; }; },
  { name = "lan"; interface = "v1";
    egress = { shaper = "tbf"; rate = "1500kbit"; burst = "4k"; child = { kind = "fifo"; limit = 20; }; }; }
);
CONF

before=$(tree "$NA" v0; tree "$NA" v1)
ip netns exec "$NA" "$GATEWAYD" -c "$TMPD/d.conf" --dry-run >"$TMPD/plan.sh" 2>"$TMPD/err"
check "--dry-run exits 0" test $? -eq 0
check "--dry-run touched nothing" test "$(tree "$NA" v0; tree "$NA" v1)" = "$before"
check "--dry-run did not create the ifb" bash -c "! ip -n $NA link show ifb-dry 2>/dev/null"
check "one command per line, nothing but tc and ip" \
	bash -c "! grep -vE '^(#|tc |ip link add name ifb-dry up type ifb$)' '$TMPD/plan.sh'"
ip netns exec "$NB" sh -e "$TMPD/plan.sh" >"$TMPD/byhand.out" 2>&1
check "the printed commands run cleanly by hand" test $? -eq 0

gw_start "$NA" "$TMPD/d.conf"
check "daemon applied the same config" kill -0 "$GW_PID"
for dev in v0 v1 ifb-dry; do
	check "$dev: the daemon's tree equals the hand-run commands' tree" \
		test "$(tree "$NA" $dev)" = "$(tree "$NB" $dev)"
done
gw_stop
