#!/usr/bin/env bash
# SIGHUP and the status page: a reload that adds auth_file and TLS, moves listen, or renews the
# certificate file in place is served at once, by a new web process that serves a key and an
# auth file its user may not open (the daemon hands them over open); the process it replaces
# is gone within a second even when it cannot go by itself (stopped). One whose TLS file is
# missing, or that puts auth_file on plain HTTP without auth_plain_http, is refused loudly and
# the page goes on as it was; so is one whose auth file is a FIFO, and the daemon answers it at
# once (it used to wait on the FIFO). The daemon in a namespace of its own; the page on that
# namespace's loopback.
. "$(dirname "$0")/lib.sh"

ns_new NS web-reload || { not_ok "namespace"; exit 1; }
ip -n "$NS" link add wr0 type veth peer name wr1
ip -n "$NS" link set wr0 up
ip -n "$NS" link set wr1 up
D=$TMPD
mkcert() {	# mkcert NAME: a self-signed certificate for 127.0.0.1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj "/CN=$1" -addext "subjectAltName=IP:127.0.0.1" \
		-keyout "$D/$1.key" -out "$D/$1.pem" 2>/dev/null
}
mkcert one
mkcert two
cp "$D/one.pem" "$D/tls.pem"
cp "$D/one.key" "$D/tls.key"
printf 'admin:%s\n' "$(openssl passwd -6 s3cret)" >"$D/users"
# as on a router: root's, readable by group gatewayd (the daemon's user after its start, for
# a reload), by no one else; the web process (gatewayd-web) cannot open them: the daemon opens
# them and hands them over
chgrp gatewayd "$D/users" "$D"/*.key 2>/dev/null
chmod 640 "$D/users" "$D"/*.key
chmod 755 "$D"
# the web process serving PORT: the one that holds its listening socket (beside the daemon)
web_pid() { ip netns exec "$NS" ss -Hltnp "sport = :$1" | grep -o '"gatewayd-web",pid=[0-9]*' | head -1 | cut -d= -f2; }
conf() {	# conf PORT [TOP-LEVEL SETTINGS]
	cat >"$D/run.conf" <<CONF
listen = "127.0.0.1:$1";
interval = "500ms";
${2:-}
links = ( { name = "wan"; interface = "wr0";
  egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );
CONF
}
code() { ip netns exec "$NS" curl -s --max-time 3 -o /dev/null -w '%{http_code}' "$@"; }
TLS="auth_file = \"$D/users\"; tls_cert = \"$D/tls.pem\"; tls_key = \"$D/tls.key\";"

conf 9181
gw_start "$NS" "$D/run.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
check "plain HTTP without auth at start" test "$(code http://127.0.0.1:9181/api/status)" = 200

conf 9181 "$TLS"
gw_reload
check "reload adding auth_file and TLS: logged as applied" \
	grep -q "reload: status page restarted on https://127.0.0.1:9181/ with basic auth" "$GW_LOG"
check "  plain HTTP is no longer answered" test "$(code http://127.0.0.1:9181/api/status)" = 000
check "  HTTPS without credentials is 401" \
	test "$(code --cacert "$D/one.pem" https://127.0.0.1:9181/api/status)" = 401
check "  HTTPS with them is 200" \
	test "$(code --cacert "$D/one.pem" -u admin:s3cret https://127.0.0.1:9181/api/status)" = 200
WEB=$(web_pid 9181)
read -r WUID WGID < <(awk '/^Uid:/ { u = $2 } /^Gid:/ { g = $2 } END { print u, g }' "/proc/${WEB:-0}/status" 2>/dev/null)
cannot_open() { ! setpriv --reuid="$WUID" --regid="$WGID" --clear-groups cat "$1" >/dev/null 2>&1; }
check "  served by a web process ($WEB, uid $WUID) that cannot open the key or the auth file itself" \
	eval '[ -n "$WUID" ] && [ "$WUID" != 0 ] && setpriv --reuid="$WUID" --regid="$WGID" --clear-groups true &&
		cannot_open "$D/tls.key" && cannot_open "$D/users"'

# the process serving the old port is stopped: it cannot read the end of its stream and go,
# so the launcher kills it a second after the new one takes over
kill -STOP "$WEB"
conf 9182 "$TLS"
gw_reload
check "reload moving listen: the new port answers" \
	test "$(code --cacert "$D/one.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 200
check "  the replaced web process ($WEB), stopped, is killed within 2 s" \
	wait_for "! kill -0 $WEB 2>/dev/null" 2 "the old web process to be killed"
check "  and the old one is closed" \
	test "$(code --cacert "$D/one.pem" -u admin:s3cret https://127.0.0.1:9181/api/status)" = 000

cp "$D/two.pem" "$D/tls.pem"
cp "$D/two.key" "$D/tls.key"
gw_reload
check "reload after the certificate file was renewed in place: the new one is served" \
	test "$(code --cacert "$D/two.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 200
check "  (the old one no longer verifies)" \
	test "$(code --cacert "$D/one.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 000

conf 9183 "auth_file = \"$D/users\"; tls_cert = \"$D/gone.pem\"; tls_key = \"$D/tls.key\";"
gw_reload
check "reload with a missing certificate file is refused, and says why" \
	grep -q "reload: status page: tls_cert $D/gone.pem: No such file or directory; still running the previous config" "$GW_LOG"
check "  the running page goes on as it was" \
	test "$(code --cacert "$D/two.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 200
said() { ip netns exec "$NS" curl -s --max-time 3 --cacert "$D/two.pem" -u admin:s3cret https://127.0.0.1:9182/api/status | grep -q 'last reload failed: status page: tls_cert'; }
wait_for said 5 "the next snapshot to carry the reload's error"
check "  and /api/status says the reload failed (from the next sampling pass on)" said

conf 9182 "auth_file = \"$D/users\";"
gw_reload
check "reload putting auth_file on plain HTTP without auth_plain_http is refused (file:line)" \
	grep -q "reload: $D/run.conf:3: 'auth_file' without 'tls_cert' and 'tls_key' sends passwords in clear text" "$GW_LOG"
check "  and HTTPS goes on" \
	test "$(code --cacert "$D/two.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 200

conf 9182 "auth_file = \"$D/users\"; auth_plain_http = true;"
gw_reload
check "with auth_plain_http = true it is taken: plain HTTP with auth" \
	test "$(code http://127.0.0.1:9182/api/status):$(code -u admin:s3cret http://127.0.0.1:9182/api/status)" = "401:200"

printf 'admin:plaintext\n' >"$D/users"
gw_reload
check "reload with an auth file that does not load is refused, and says where" \
	grep -q "reload: status page: $D/users:1: not a crypt(3) hash" "$GW_LOG"
check "  the old users still log in" \
	test "$(code -u admin:s3cret http://127.0.0.1:9182/api/status)" = 200
# a FIFO where the auth file was: refused at once, the loop and the page go on
printf 'admin:%s\n' "$(openssl passwd -6 s3cret)" >"$D/users.good"
chgrp gatewayd "$D/users.good" 2>/dev/null
chmod 640 "$D/users.good"
rm -f "$D/users"
mkfifo -m 640 "$D/users"
chgrp gatewayd "$D/users" 2>/dev/null	# the daemon's user may open it: what it is counts
t0=$EPOCHREALTIME
gw_reload 1
rc=$?
echo "# SIGHUP with a FIFO at auth_file: answered in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }') s"
check "a FIFO at auth_file and SIGHUP: the daemon answers within 1 s" test "$rc" -eq 0
check "  refusing it, and naming it" \
	grep -q "reload: status page: auth_file $D/users: a FIFO (named pipe), not a regular file" "$GW_LOG"
check "  the page goes on with the old users" \
	test "$(code -u admin:s3cret http://127.0.0.1:9182/api/status)" = 200
mv "$D/users.good" "$D/users"
gw_reload
check "  the file back: the next reload takes it" \
	test "$(code -u admin:s3cret http://127.0.0.1:9182/api/status)" = 200
check "shaping went on throughout (the tree is in place)" \
	bash -c "ip netns exec $NS tc qdisc show dev wr0 | grep -q 'tbf e000:'"
gw_stop
check "stop after the reloads: exit 0" test $? = 0

# a start whose auth file may not be served (every user may read it): said, and no page
# without the auth it was given until a reload mends the file; shaping goes on
chmod 644 "$D/users"
conf 9183 "auth_file = \"$D/users\"; auth_plain_http = true;"
gw_start "$NS" "$D/run.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
check "a start with an auth file every user may read: said, naming it" \
	grep -q "status page: auth_file $D/users: mode 0644 lets every user read it.*not served until a reload mends it" "$GW_LOG"
check "  no page is served meanwhile (not without its auth)" \
	test "$(ip netns exec "$NS" curl -s --max-time 1 -o /dev/null -w '%{http_code}' http://127.0.0.1:9183/api/status)" = 000
check "  shaping goes on" bash -c "ip netns exec $NS tc qdisc show dev wr0 | grep -q 'tbf e000:'"
chmod 640 "$D/users"
gw_reload
check "  the file mended, a reload serves the page with it" \
	test "$(code http://127.0.0.1:9183/api/status):$(code -u admin:s3cret http://127.0.0.1:9183/api/status)" = "401:200"
gw_stop
check "stop: exit 0" test $? = 0
