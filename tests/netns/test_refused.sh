#!/usr/bin/env bash
# All or nothing: when the kernel refuses part of the tree, what was there before is put back,
# and the error names the object and the kernel's message. A foreign tree is left alone unless
# the config says replace = true.
. "$(dirname "$0")/lib.sh"

ns_new NS refuse || { not_ok "namespace"; exit 1; }
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up

# The host kernel has no fq_codel: with the kind probe skipped, the kernel itself refuses the
# third class's child, after the root, the classes and two leaves went in.
conf() {
	cat >"$TMPD/r.conf" <<CONF
links = ( { name = "wan"; interface = "v0"; replace = $1;
  egress = { shaper = "htb"; rate = "50mbit";
    classes = (
      { name = "a"; rate = "10mbit"; child = { kind = "fifo"; }; },
      { name = "b"; rate = "10mbit"; child = { kind = "fifo"; }; },
      { name = "c"; rate = "10mbit"; default = true; child = { kind = "fq_codel"; }; } ); };
  ingress = { shaper = "tbf"; rate = "20mbit"; ifb = "ifb-ref"; child = { kind = "fifo"; }; }; } );
CONF
}
conf false
before=$(tree "$NS" v0)
# --no-kind-probe: the kernel itself refuses the kind this one lacks, at the apply
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/r.conf" --oneshot --no-kind-probe 2>"$TMPD/e1"
rc=$?
check "refused apply exits 1" test $rc -eq 1
check "the error names the link, class and object" grep -q "link 'wan' egress qdisc of class c on v0" "$TMPD/e1"
check "the error shows the tc command" grep -q 'tc qdisc add dev v0 parent e000:12 handle 1002: fq_codel' "$TMPD/e1"
check "the error carries the kernel's message" grep -qi "unknown" "$TMPD/e1"
check "the default qdisc is back on v0" test "$(tree "$NS" v0)" = "$before"
check "the ifb it created is gone" bash -c "! ip -n $NS link show ifb-ref 2>/dev/null"

# the kind probe catches the same thing before touching anything, with the config's line
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/r.conf" --check 2>"$TMPD/e2"
check "--check exits 2 for a kind this kernel lacks" test $? -eq 2
check "--check names file:line and how to load it" \
	grep -qE "r.conf:[0-9]+: .*fq_codel.*modprobe sch_fq_codel" "$TMPD/e2"
out=$(ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/r.conf" --check --no-kind-probe 2>&1)
check "--check --no-kind-probe: the file is valid, the kinds not asked ($out)" \
	grep -q "ok (1 link); qdisc kinds not probed (--no-kind-probe)" <<<"$out"

# A foreign tree, left alone without replace
ip netns exec "$NS" tc qdisc add dev v0 root handle 1: htb default 20
ip netns exec "$NS" tc class add dev v0 parent 1: classid 1:20 htb rate 7mbit ceil 9mbit
ip netns exec "$NS" tc qdisc add dev v0 parent 1:20 handle 20: pfifo limit 77
ip netns exec "$NS" tc qdisc add dev v0 ingress
ip netns exec "$NS" tc filter add dev v0 parent ffff: protocol ip prio 3 u32 match ip dst 10.9.9.9/32 classid 1:20
foreign=$(tree "$NS" v0)
sed -i 's/default = true; child = { kind = "fq_codel"; }/default = true; child = { kind = "fifo"; }/' "$TMPD/r.conf"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/r.conf" --oneshot 2>"$TMPD/e3"
check "a foreign root without replace: refused, exit 1" test $? -eq 1
check "the error says replace = true would allow it" grep -q "replace = true" "$TMPD/e3"
check "the foreign tree is untouched" test "$(tree "$NS" v0)" = "$foreign"

# With replace = true and a kernel refusal, the foreign tree comes back as it was
conf true
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/r.conf" --oneshot --no-kind-probe 2>"$TMPD/e4"
check "replace = true, refused: exit 1" test $? -eq 1
after=$(tree "$NS" v0)
check "the foreign tree (qdiscs, classes, ingress filter) is put back" test "$after" = "$foreign"
[ "$after" = "$foreign" ] || diff <(echo "$foreign") <(echo "$after") | sed 's/^/# /'

# With replace = true and a good config it is replaced, and on stop the default returns
sed -i 's/default = true; child = { kind = "fq_codel"; }/default = true; child = { kind = "fifo"; }/' "$TMPD/r.conf"
gw_start "$NS" "$TMPD/r.conf"
check "replace = true: the tree goes in" bash -c "ip netns exec $NS tc qdisc show dev v0 | grep -q 'htb e000:'"
gw_stop
check "stop removes only gatewayd's objects" \
	bash -c "ip netns exec $NS tc qdisc show dev v0 | grep -qv 'e000:'"
