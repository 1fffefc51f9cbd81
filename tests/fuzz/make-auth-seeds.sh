#!/usr/bin/env bash
# tests/fuzz/make-auth-seeds.sh: regenerate fuzz_auth's seeds, users files as people make them:
# `openssl passwd` (-6, -5, -1) and crypt(3) through python3 (yescrypt, gost-yescrypt, bcrypt
# at its cheapest, sha1-crypt, SunMD5, scrypt), one user or several with comments, blank lines
# and CRLF endings; and each refusal the reader has (no colon, an empty or control-character
# name, a user twice, a plain-text password, an unknown method, a cost above the limits, a NUL
# byte, 65 users). The cheapest costs throughout, so a seed costs the fuzzer little time.
# usage: tests/fuzz/make-auth-seeds.sh [OUT_DIR]   (default tests/fuzz/corpus/auth)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/auth}
mkdir -p "$out"
rm -f "$out"/seed-*
hash() {	# hash SETTING: crypt("pw", SETTING)
	python3 -W ignore -c 'import crypt, sys; print(crypt.crypt("pw", sys.argv[1]))' "$1"
}
sha512=$(openssl passwd -6 -salt gatewayd pw)
sha256=$(openssl passwd -5 -salt gatewayd pw)
md5=$(openssl passwd -1 -salt gatewayd pw)
yes=$(hash '$y$j75$k2XAnEHBqQ1Ct2aMXFKNa/$')
gost=$(hash '$gy$j75$k2XAnEHBqQ1Ct2aMXFKNa/$')
bcrypt=$(hash '$2b$04$KBCwKxOzLha2MUDgW0PjXe')
sha1=$(hash '$sha1$1000$gatewayd$')
sunmd5=$(hash '$md5,rounds=1000$gatewayd$')
printf 'admin:%s\n' "$sha512" >"$out/seed-openssl-sha512"
printf 'admin:%s\n' "$sha256" >"$out/seed-openssl-sha256"
printf 'admin:%s\n' "$(hash '$5$rounds=1000$gatewayd$')" >"$out/seed-sha256-rounds"
printf 'admin:%s\n' "$md5" >"$out/seed-openssl-md5"
printf 'admin:%s\n' "$yes" >"$out/seed-yescrypt"
printf 'admin:%s\n' "$gost" >"$out/seed-gost-yescrypt"
printf 'admin:%s\n' "$bcrypt" >"$out/seed-bcrypt"
printf 'admin:%s\n' "$sha1" >"$out/seed-sha1crypt"
printf 'admin:%s\n' "$sunmd5" >"$out/seed-sunmd5"
printf '# gatewayd users\n\nadmin:%s\nother:%s\n#end\n' "$md5" "$bcrypt" >"$out/seed-two-users"
printf 'admin:%s\r\nbob:%s\r\n' "$md5" "$sha256" >"$out/seed-crlf"
printf 'admin\n' >"$out/seed-no-colon"
printf ':%s\n' "$md5" >"$out/seed-empty-name"
printf 'ad\tmin:%s\n' "$md5" >"$out/seed-control-name"
printf 'admin:%s\nadmin:%s\n' "$md5" "$md5" >"$out/seed-twice"
printf 'admin:s3cret\n' >"$out/seed-plain-password"
printf 'admin:$9$abc$def\n' >"$out/seed-unknown-method"
printf 'admin:$6$rounds=999999999$gatewayd$x\n' >"$out/seed-cost-sha512"
printf 'admin:$2b$31$KBCwKxOzLha2MUDgW0PjXeHeA6RFjwuQook1qJZxSCCFGf7mJ9Nk.\n' >"$out/seed-cost-bcrypt"
printf 'admin:$y$jFT$k2XAnEHBqQ1Ct2aMXFKNa/$x\n' >"$out/seed-cost-yescrypt"
printf 'admin:$7$EU..../....gatewayd$x\n' >"$out/seed-cost-scrypt"
printf 'admin:%s\0\n' "$md5" >"$out/seed-nul-byte"
for i in $(seq 1 65); do printf 'user%d:%s\n' "$i" "$md5"; done >"$out/seed-65-users"
printf '# nobody\n\n' >"$out/seed-no-users"
ls "$out" | wc -l | sed 's/^/auth seeds: /'
