#!/usr/bin/env bash
# The command line: --version, --help, usage errors, invalid configs and missing interfaces,
# each with its exit status (0 ok, 1 runtime failure, 2 usage or invalid config).
. "$(dirname "$0")/lib.sh"

"$GATEWAYD" --version >"$TMPD/v" 2>&1
check "--version exits 0 and names the version" bash -c "[ $? -eq 0 ] && grep -qE '^gatewayd [0-9]+\.[0-9]+' '$TMPD/v'"
"$GATEWAYD" --help >"$TMPD/h" 2>&1
check "--help exits 0 and lists --dry-run" bash -c "[ $? -eq 0 ] && grep -q -- '--dry-run' '$TMPD/h'"
"$GATEWAYD" >/dev/null 2>&1
check "no -c: usage error, exit 2" test $? -eq 2
"$GATEWAYD" -c x.conf --bogus >/dev/null 2>&1
check "unknown option: exit 2" test $? -eq 2
"$GATEWAYD" -c "$TMPD/none.conf" --check 2>"$TMPD/e"
check "missing file: exit 2" test $? -eq 2
check "missing file: the message names it" grep -q "none.conf" "$TMPD/e"

printf 'links = (\n  { name = "wan"; interface = "eth0";\n    egress = { shaper = "htb"; rate = "20"; }; } );\n' >"$TMPD/bad.conf"
"$GATEWAYD" -c "$TMPD/bad.conf" --check 2>"$TMPD/e"
check "invalid config: exit 2" test $? -eq 2
check "invalid config: FILE:LINE: message, asking for a unit" \
	grep -qE "bad.conf:3: .*rate.*unit" "$TMPD/e"
"$GATEWAYD" -c "$TMPD/bad.conf" 2>/dev/null
check "invalid config in daemon mode: exit 2, nothing started" test $? -eq 2

ns_new NS cli || { not_ok "namespace"; exit 1; }
printf 'links = ( { name = "wan"; interface = "nosuch0";\n  egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );\n' >"$TMPD/missing.conf"
# a missing interface is waited for (tests/netns/test_links.sh), unless the link is required
sed 's/interface = "nosuch0";/interface = "nosuch0"; required = true;/' "$TMPD/missing.conf" >"$TMPD/required.conf"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/required.conf" 2>"$TMPD/e"
check "missing interface of a required link: exit 1" test $? -eq 1
check "missing interface: named in the error" grep -q "link 'wan': interface nosuch0: no such interface" "$TMPD/e"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/missing.conf" --dry-run >"$TMPD/plan" 2>&1
check "--dry-run works without the interface (MTU 1500 assumed)" \
	grep -q "tc qdisc replace dev nosuch0 root handle e000: tbf rate 10mbit burst 1514 limit 26514" "$TMPD/plan"
# as an unprivileged user --check validates the file and says the kinds were not probed
if command -v setpriv >/dev/null; then
	chmod o+rx "$TMPD" && chmod o+r "$TMPD/missing.conf"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GATEWAYD" -c "$TMPD/missing.conf" --check >"$TMPD/o" 2>&1
	check "--check without privileges: exit 0, kinds not probed" \
		bash -c "[ $? -eq 0 ] && grep -q 'not probed' '$TMPD/o'"
else
	skip "--check without privileges" "setpriv is not installed"
fi
