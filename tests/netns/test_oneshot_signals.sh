#!/usr/bin/env bash
# `gatewayd --oneshot` of a 10,000-class tree, SIGINT or SIGTERM at a random point of the run:
# afterwards the namespace's tc state (qdiscs, classes, filters, ifbs, nft ruleset) is exactly
# what was there before or exactly the tree an uninterrupted run leaves. Half the trials start
# on an empty device, half over a foreign root qdisc (replace = true); some send a second
# signal while the first one's rollback runs.
# env: ONESHOT_TRIALS (20; the sanitizer lane runs fewer), ONESHOT_CLASSES (10000)
LIB_RUN_PREFIX=oneshot
. "$(dirname "$0")/lib.sh"

TRIALS=${ONESHOT_TRIALS:-20}
N=${ONESHOT_CLASSES:-10000}
IFB="ifbos$$"
IFB=${IFB:0:15}

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
T_START=$(now_ms)

ns_new NS t || { not_ok "namespace"; exit 1; }
# no IPv6: no router solicitations or MLD reports through the tree while it is built
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS" link add v0 type veth peer name v1 && ip -n "$NS" link set v0 up &&
	ip -n "$NS" link set v1 up || { not_ok "veth"; exit 1; }

# htb with N classes of 1 mbit and fifo leaves, one matched by port (gatewayd's nft table);
# ingress through an ifb (u32 + mirred on v0's ingress hook)
{
	echo 'links = ( { name = "wan"; interface = "v0"; replace = true;'
	echo '  egress = { shaper = "htb"; rate = "10gbit"; classes = ('
	echo '    { name = "port"; rate = "1mbit"; ceil = "10gbit"; match = { proto = "tcp"; dport = 5201; }; child = { kind = "fifo"; }; },'
	for ((i = 1; i < N; i++)); do # no subshells: a fork costs ~10 ms on a busy machine
		def='' sep=,
		((i == 1)) && def=' default = true;'
		((i == N - 1)) && sep=''
		printf '    { name = "c%d"; rate = "1mbit"; ceil = "10gbit";%s child = { kind = "fifo"; }; }%s\n' \
			"$i" "$def" "$sep"
	done
	echo '  ); };'
	echo "  ingress = { shaper = \"tbf\"; rate = \"50mbit\"; ifb = \"$IFB\"; child = { kind = \"fifo\"; }; }; } );"
} >"$TMPD/big.conf"

# state OUT: the namespace's tc state, normalized (counters and kernel reference counts out,
# sorted), in OUT; its digest on stdout
state() {
	{
		ip netns exec "$NS" tc -j qdisc show |
			jq -c 'map(del(.refcnt) | del(.options.direct_packets_stat)) | sort_by(.dev, .handle) | .[]'
		# iproute2 6.1 prints classes as text even with -j
		ip netns exec "$NS" tc class show dev v0 | sort
		ip netns exec "$NS" tc -j filter show dev v0 ingress |
			jq -c '.[] | del(.options.actions[]?.index, .options.actions[]?.ref, .options.actions[]?.bind)'
		ip -n "$NS" -o link show type ifb | sed -E 's/^[0-9]+: ([^:@]+).*/ifb \1/'
		ip netns exec "$NS" nft list ruleset
	} >"$1" 2>&1
	sha256sum <"$1" | cut -c1-16
}

# put_back KIND: the device as the trial of KIND (empty, foreign) starts it
FOREIGN='root handle 7: htb default 20'
put_back() {
	ip netns exec "$NS" nft delete table inet gatewayd 2>/dev/null
	ip -n "$NS" link del "$IFB" 2>/dev/null
	tc -n "$NS" qdisc del dev v0 ingress 2>/dev/null
	tc -n "$NS" qdisc del dev v0 root 2>/dev/null
	if [ "$1" = foreign ]; then
		tc -n "$NS" qdisc add dev v0 $FOREIGN &&
			tc -n "$NS" class add dev v0 parent 7: classid 7:1 htb rate 10mbit &&
			tc -n "$NS" class add dev v0 parent 7:1 classid 7:20 htb rate 5mbit ceil 10mbit &&
			tc -n "$NS" qdisc add dev v0 parent 7:20 handle 20: bfifo limit 30000
	fi
}

# the three states: empty device, foreign tree, the full tree of an uninterrupted run
put_back empty
PRE_EMPTY=$(state "$TMPD/pre.empty")
put_back foreign
PRE_FOREIGN=$(state "$TMPD/pre.foreign")
t0=$(now_ms)
env --default-signal=INT,TERM,HUP ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/big.conf" --oneshot \
	>"$TMPD/ref.log" 2>&1
rc=$?
DUR=$(($(now_ms) - t0))
FULL=$(state "$TMPD/full")
check "an uninterrupted --oneshot over the foreign tree exits 0 (took $DUR ms)" test "$rc" -eq 0
check "it applied and verified $((2 * N + 6)) objects" \
	grep -q "applied and verified $((2 * N + 6)) objects on 2 devices" "$TMPD/ref.log"
check "the full tree has $((N + 1)) classes on v0, the ifb, the nft table" \
	bash -c "[ \$(grep -c '^class htb e000:' '$TMPD/full') -eq $((N + 1)) ] &&
		grep -q '^ifb $IFB' '$TMPD/full' && grep -q 'table inet gatewayd' '$TMPD/full'"
check "the three states differ" \
	bash -c "[ '$PRE_EMPTY' != '$PRE_FOREIGN' ] && [ '$PRE_EMPTY' != '$FULL' ] && [ '$PRE_FOREIGN' != '$FULL' ]"

bad=0 restored=0 complete=0 early=0 second=0
for ((t = 1; t <= TRIALS; t++)); do
	kind=empty pre=$PRE_EMPTY
	((t % 2 == 0)) && kind=foreign pre=$PRE_FOREIGN
	sig=INT
	((t % 3 == 0)) && sig=TERM
	put_back $kind
	if [ "$(state "$TMPD/now")" != "$pre" ]; then
		not_ok "trial $t: the device put back as before ($kind)"
		bad=$((bad + 1))
		continue
	fi
	dur=$DUR delay=$(((RANDOM * 32768 + RANDOM) % (DUR + 1)))
	log=$TMPD/trial.$t.log
	env --default-signal=INT,TERM,HUP ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/big.conf" \
		--oneshot >"$log" 2>&1 &
	pid=$!
	PIDS+=("$pid")	# killed if the suite is
	# the time is the point: a random moment of the run (or its end, if that comes first;
	# no waiting on after it)
	start=$(now_ms)
	end=$((start + delay)) us=${EPOCHREALTIME/./}
	while kill -0 "$pid" 2>/dev/null && ((us / 1000 < end)); do
		sleep 0.05
		us=${EPOCHREALTIME/./}
	done
	# a run that ended first measured the run's length anew: the next delays follow the
	# machine's load (a busy shared machine makes the same apply 5-50 times slower)
	kill -0 "$pid" 2>/dev/null || DUR=$((us / 1000 - start))
	kill -s "$sig" "$pid" 2>/dev/null
	# every fourth: a second signal while the first one's rollback may be running
	also=$sig
	if ((t % 4 == 0)); then
		sleep 0.05
		kill -s INT "$pid" 2>/dev/null && second=$((second + 1)) also=INT
	fi
	wait "$pid"
	rc=$?
	unset 'PIDS[-1]'
	got=$(state "$TMPD/after.$t")
	what="trial $t ($kind, SIG$sig at $delay of $dur ms, exit $rc)"
	if grep -q "restored what was there before" "$log"; then
		restored=$((restored + 1))
		outcome=restored
		# both pending at once, gatewayd names the lower-numbered one (SIGINT)
		[ "$got" = "$pre" ] && { [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] ||
			[ "$rc" -eq $((128 + $(kill -l "$also"))) ]; } || outcome=bad
	elif [ "$rc" -eq 0 ]; then
		complete=$((complete + 1))
		outcome=complete
		[ "$got" = "$FULL" ] || outcome=bad
	else
		# ended by the signal before it held it (starting, reading the file): nothing touched
		early=$((early + 1))
		outcome=early
		[ "$got" = "$pre" ] && [ ! -s "$log" ] || outcome=bad
	fi
	if [ $outcome = bad ]; then
		bad=$((bad + 1))
		not_ok "$what" "state $got (before $pre, full $FULL); log: $(tail -n 3 "$log" | tr '\n' ' ')"
		diff <(head -c 100000 "$TMPD/pre.$kind") <(head -c 100000 "$TMPD/after.$t") | head -n 8
	else
		echo "# $what: $outcome"
	fi
done
check "every one of $TRIALS trials left the state before or the full tree, as its exit said" \
	test "$bad" -eq 0
echo "# $restored restored, $complete complete, $early ended before the apply; $second second signals"
# the point of the suite: some signals came during the apply and were undone
check "at least one trial was interrupted during the apply and rolled back" test "$restored" -ge 1
check "no rollback fell short" bash -c "! grep -l 'did not complete' '$TMPD'/trial.*.log"
echo "# suite took $(($(now_ms) - T_START)) ms"
