#!/usr/bin/env bash
# SIGHUP and the status page: a reload that adds auth_file and TLS, moves listen, or renews the
# certificate file in place is served at once; one whose TLS file is missing, or that puts
# auth_file on plain HTTP without auth_plain_http, is refused loudly and the page goes on as it
# was. The daemon in a namespace of its own; the page on that namespace's loopback.
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
# root's and the daemon's group's alone, as on a router: the daemon (its own user once
# started) reads them again at a reload; the web process is another user, and its files are
# read for it
chmod 600 "$D/users" "$D"/*.key
daemon_reads "$D/users" "$D"/*.key
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

conf 9182 "$TLS"
gw_reload
check "reload moving listen: the new port answers" \
	test "$(code --cacert "$D/one.pem" -u admin:s3cret https://127.0.0.1:9182/api/status)" = 200
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
check "shaping went on throughout (the tree is in place)" \
	bash -c "ip netns exec $NS tc qdisc show dev wr0 | grep -q 'tbf e000:'"
gw_stop
check "stop after the reloads: exit 0" test $? = 0
