#!/usr/bin/env bash
# tests/fuzz/make-http-seeds.sh: regenerate fuzz_http's hand-made seeds. Each file is the flag
# byte fuzz_http.c describes, then either query pairs (flag 0x00) or the bytes a client sends
# (0x01; +0x04 basic auth on, +0x08 no snapshot yet, +0x10 a stale one, +0x20 no history).
# usage: tests/fuzz/make-http-seeds.sh [OUT_DIR]   (default tests/fuzz/corpus/http)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/http}
mkdir -p "$out"
rm -f "$out"/query-* "$out"/req-*
auth="Authorization: Basic YWRtaW46c2VjcmV0"	# admin:secret, fuzz_http.c's user
wrong="Authorization: Basic YWRtaW46d3Jvbmc="	# admin:wrong
# seed NAME FLAG TEXT: TEXT through printf %b (so \r\n and \x00 work)
seed() {
	{ printf "\\x$2"; printf '%b' "$3"; } >"$out/$1"
}
get() {	# get NAME FLAG PATH [HEADER...]
	local name=$1 flag=$2 path=$3 h=""
	shift 3
	for x in "$@"; do h="$h$x\r\n"; done
	seed "$name" "$flag" "GET $path HTTP/1.1\r\nHost: 127.0.0.1:9180\r\n$h\r\n"
}

# the validator on its own
seed query-full 00 "link=wan&direction=egress&class=voice&from=1699999000.5&to=1700000000&resolution=minute"
seed query-min 00 "link=wan&direction=ingress"
seed query-flag 00 "link=wan&direction&class=bulk"
seed query-dup 00 "link=wan&link=lan&direction=egress"
seed query-many 00 "link=a&direction=egress&class=b&from=1&to=2&resolution=raw&x=1&y=2&z=3"
seed query-badtime 00 "link=wan&direction=egress&from=1e9&to=-5"
seed query-order 00 "link=wan&direction=egress&from=1700000001&to=1700000000"
seed query-name 00 "link=w%20an&direction=egress&class=$(printf 'x%.0s' {1..40})"

# whole requests
get req-page 01 /
get req-status 01 /api/status "Accept: application/json"
get req-metrics 01 /metrics
get req-healthz 01 /healthz
get req-js 01 /app.js "If-None-Match: \"x\""
get req-css 01 /style.css
get req-svg 01 /favicon.svg
get req-404 01 /nope
get req-history 01 "/api/history?link=wan&direction=egress&class=voice&from=1699999000&to=1700000000"
get req-history-min 01 "/api/history?link=wan&direction=ingress&resolution=minute"
get req-history-bad 01 "/api/history?link=w%0Aan&direction=sideways"
get req-history-none 01 "/api/history?link=lan&direction=egress"
get req-history-err 01 "/api/history?link=wan&direction=egress&class=broken"
get req-query-elsewhere 01 "/metrics?x=1"
get req-long-url 01 "/$(printf 'a%.0s' {1..1100})"
get req-auth 05 /api/status "$auth"
get req-auth-wrong 05 /metrics "$wrong"
get req-auth-none 05 /
get req-auth-healthz 05 /healthz
get req-nosnap-status 09 /api/status
get req-nosnap-metrics 09 /metrics
get req-nosnap-healthz 09 /healthz
get req-stale-healthz 11 /healthz
get req-stale-status 11 /api/status
get req-nohistory 21 "/api/history?link=wan&direction=egress"
seed req-head 01 "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
seed req-post 01 "POST /api/status HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
seed req-get-body 01 "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
seed req-chunked 01 "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
seed req-http10 01 "GET /healthz HTTP/1.0\r\n\r\n"
seed req-pipelined 01 "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
seed req-garbage 01 "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
seed req-folded 01 "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"
echo "$(ls "$out" | wc -l) files in $out"
