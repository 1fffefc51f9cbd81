#!/usr/bin/env bash
# tests/bench/probe-table.bash DIR N TITLE: the RTT-precision table of tests/bench/probe.sh, from
# one run of gatewayd --probe ICMP (DIR/gw-icmp) and UDP (DIR/gw-udp), ping (DIR/ping) and
# irtt (DIR/irtt.json), N probes each, sent every 20 ms at the same time: each tool's median and
# p99, and the k-th RTT of each tool less gatewayd ICMP's k-th (probes sent within the same few
# ms): median and p99 of those differences. Sourced by the host bench and the UML guest.
T=$1
N=$2
TITLE=$3
# one RTT per line in probe order, "nan" for a loss
sed -nE 's/^[^#].* seq=([0-9]+) rtt_ms=([0-9.na]+) .*/\1 \2/p' "$T/gw-icmp" | sort -n | cut -d' ' -f2 >"$T/a.icmp"
sed -nE 's/^[^#].* seq=([0-9]+) rtt_ms=([0-9.na]+) .*/\1 \2/p' "$T/gw-udp" | sort -n | cut -d' ' -f2 >"$T/a.udp"
sed -nE 's/.*icmp_seq=([0-9]+) .*time=([0-9.]+) ms.*/\1 \2/p' "$T/ping" |
	awk -v n="$N" '{ r[$1] = $2 } END { for (i = 1; i <= n; i++) print (i in r) ? r[i] : "nan" }' >"$T/a.ping"
jq -r '.round_trips[] | if .lost == "false" then (.delay.rtt / 1e6) else "nan" end' "$T/irtt.json" \
	>"$T/a.irtt" 2>/dev/null

stats() {	# stats FILE: "count median p99" of the numbers in FILE
	grep -v nan "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 - -"; exit }
		m = v[int((NR + 1) / 2)]; k = int(NR * 0.99 + 0.999); if (k < 1) k = 1
		printf "%d %.3f %.3f\n", NR, m, v[k] }'
}
diffs() {	# diffs FILE: "median p99(|d|)" of FILE's k-th less gatewayd ICMP's k-th
	paste -d' ' "$1" "$T/a.icmp" | awk '$1 != "nan" && $2 != "nan" && NF == 2 { print $1 - $2 }' \
		>"$T/d"
	local med p99
	med=$(sort -g "$T/d" | awk '{ v[NR] = $1 } END { if (NR) printf "%+.3f", v[int((NR + 1) / 2)]; else print "-" }')
	p99=$(awk '{ print $1 < 0 ? -$1 : $1 }' "$T/d" | sort -g |
		awk '{ v[NR] = $1 } END { k = int(NR * 0.99 + 0.999); if (NR) printf "%.3f", v[k]; else print "-" }')
	echo "$med $p99"
}
echo "### RTT precision, $TITLE: $N probes every 20 ms, all four at once"
echo
echo "| tool | replies | median (ms) | p99 (ms) | k-th less gatewayd ICMP's k-th: median | p99 of abs |"
echo "|---|---|---|---|---|---|"
for f in icmp udp ping irtt; do
	read -r n med p99 <<<"$(stats "$T/a.$f")"
	read -r dm dp <<<"$(diffs "$T/a.$f")"
	case $f in
	icmp) name="gatewayd ICMP (kernel stamps)"; dm="-"; dp="-" ;;
	udp) name="gatewayd UDP to --reflect" ;;
	ping) name="ping (send time from user space)" ;;
	irtt) name="irtt client/server" ;;
	esac
	echo "| $name | $n | $med | $p99 | $dm | $dp |"
done
echo
echo "(ping prints times of 10 ms and more with 0.1 ms resolution)"
