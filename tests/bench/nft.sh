#!/usr/bin/env bash
# tests/bench/nft.sh: replacing gatewayd's nftables table for HOSTS per-host classes (one map
# of address -> class, two rules) plus a few match rules, two ways in the same run: gatewayd's
# own batch (libnftnl + libmnl, timed by the daemon around the send and the acks, on start and
# on each SIGHUP) and `nft -f` of the same ruleset as `gatewayd --dry-run` prints it (process
# start, parsing and the same replace-in-one-transaction). Prints a markdown table of medians.
# env: HOSTS_PREFIX (22: 1022 hosts), REPS (10)
. "$(dirname "$0")/lib.bash"
bench_preflight
command -v nft >/dev/null || die "nft (nftables) missing"

PREFIX=${HOSTS_PREFIX:-22}
REPS=${REPS:-10}
cat >"$TMPD/n.conf" <<CONF
links = ( { name = "lan"; interface = "v0";
  egress = { shaper = "htb"; rate = "10gbit"; classes = (
    { name = "voice"; rate = "100mbit"; child = { kind = "fifo"; };
      match = ( { dscp = ["ef", "cs5"]; }, { proto = "udp"; dport = "5060-5061"; } ); },
    { name = "bulk"; rate = "100mbit"; default = true; child = { kind = "fifo"; }; } );
    hosts = { subnet = "10.0.0.0/$PREFIX"; rate = "8mbit"; child = { kind = "fifo"; }; }; }; } );
CONF

"$GATEWAYD" -c "$TMPD/n.conf" --dry-run >"$TMPD/plan" || die "dry run failed"
sed -n "/^nft -f - <<'EOF'$/,/^EOF$/p" "$TMPD/plan" | sed '1d;$d' >"$TMPD/ruleset.nft"
hosts=$(grep -c ' : e000:' "$TMPD/ruleset.nft")
log "ruleset: $hosts hosts, $(wc -l <"$TMPD/ruleset.nft") lines"

# gatewayd: start, then REPS reloads of the same file (the tree is unchanged, the table is
# replaced whole each time)
ns_fresh NA daemon || die "namespace"
daemon_start GP "$NA" "$TMPD/n.conf" "$TMPD/d.log" -v
wait_log "$GP" "$TMPD/d.log" "applied and verified" 30 || die "gatewayd did not start: $(tail -3 "$TMPD/d.log")"
for ((i = 0; i < REPS; i++)); do
	n=$(grep -c "nft: table" "$TMPD/d.log")
	kill -HUP "$GP"
	for _ in $(seq 1 100); do [ "$(grep -c "nft: table" "$TMPD/d.log")" -gt "$n" ] && break; sleep 0.05; done
	sleep 0.2
done
gw=$(sed -n 's/.*nft: table inet gatewayd replaced in \([0-9.]*\) ms.*/\1/p' "$TMPD/d.log")
[ "$(echo "$gw" | wc -w)" -ge $((REPS + 1)) ] || die "gatewayd logged $(echo "$gw" | wc -w) replacements"
ip netns exec "$NA" nft list table inet gatewayd >"$TMPD/gw.list" || die "no table"

# nft -f, in a second namespace, the same number of times; timed from inside it, so the cost
# of entering the namespace is not nft's
ns_fresh NB nft || die "namespace"
# times FILE: REPS+1 runs of nft -f FILE, in ms
times() {
	ip netns exec "$NB" bash -c 'for ((i = 0; i <= $2; i++)); do
		s=$EPOCHREALTIME; nft -f "$1" || exit 1; e=$EPOCHREALTIME
		awk -v a="$s" -v b="$e" "BEGIN { printf \"%.3f \", (b - a) * 1000 }"
	done' _ "$1" "$REPS"
}
nf=$(times "$TMPD/ruleset.nft") || die "nft -f refused the dry run's ruleset"
ip netns exec "$NB" nft list table inet gatewayd >"$TMPD/nft.list"
# what nft costs with next to nothing to do: process start, the cache, one tiny transaction
printf 'table inet gwbench\ndelete table inet gwbench\n' >"$TMPD/empty.nft"
ne=$(times "$TMPD/empty.nft") || die "nft -f of an empty transaction failed"
# the same table both ways (element order in a hash map is the kernel's)
norm() { tr ',' '\n' <"$1" | tr -d ' \t{}' | grep -v '^$' | sort; }
if [ "$(norm "$TMPD/gw.list")" != "$(norm "$TMPD/nft.list")" ]; then
	diff <(norm "$TMPD/gw.list") <(norm "$TMPD/nft.list") | head >&2
	die "gatewayd's table and nft -f's differ"
fi
daemon_stop rc "$GP" 10

mg=$(median $gw)
mn=$(median $nf)
log "gatewayd ms: $gw"
log "nft -f ms: $nf"
echo "| hosts | rules | gatewayd (batch, median of $((REPS + 1))) | nft -f (median of $((REPS + 1))) | nft -f / gatewayd | nft -f of an empty transaction |"
echo "|---:|---:|---:|---:|---:|---:|"
echo "| $hosts | $(grep -c 'meta priority set' "$TMPD/ruleset.nft") | $mg ms | $mn ms | $(ratio "$mn" "$mg")x | $(median $ne) ms |"
