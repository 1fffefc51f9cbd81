#!/usr/bin/env bash
# tests/fuzz/make-probe-seeds.sh: seeds for fuzz_probe (tests/fuzz/corpus/probe/seed-*): probe
# requests and replies of several sizes, and ICMP/ICMPv6 echo replies carrying them, framed as
# each socket kind hands them over (the first byte picks the reader: see fuzz_probe.c).
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/probe
python3 - <<'PY'
import struct
def pkt(typ=1, seq=7, cookie=0x1234abcd, size=64, c=1_700_000_000_000_000_000, rr=0, rs=0, ver=1):
    h = b'GWPR' + bytes([ver, typ]) + b'\0\0' + struct.pack('>IIQQQ', seq, cookie, c, rr, rs)
    return h + bytes(size - len(h))
def icmp(t, p, ident=0x4242):
    seq = struct.unpack('>I', p[8:12])[0] & 0xffff
    return bytes([t, 0, 0, 0]) + struct.pack('>HH', ident, seq) + p
def ip4(payload):
    return bytes([0x45, 0, 0, 0]) [:2] + struct.pack('>H', 20 + len(payload)) + bytes(5) + b'\x01' + bytes(10) + payload
seeds = {
    'req-40': b'\0' + pkt(size=40), 'req-64': b'\0' + pkt(), 'req-1472': b'\0' + pkt(size=1472),
    'reply-64': b'\0' + pkt(typ=2, rr=5, rs=9), 'badver': b'\0' + pkt(ver=2),
    'short': b'\0' + pkt()[:39], 'long': b'\0' + pkt(size=1472) + b'x',
    'icmp4-raw': b'\x01' + ip4(icmp(0, pkt())), 'icmp4-raw-opts': b'\x01' + bytes([0x46]) + ip4(icmp(0, pkt()))[1:2] + struct.pack('>H', 24 + 72) + ip4(icmp(0, pkt()))[4:20] + bytes(4) + icmp(0, pkt()),
    'icmp4-ping': b'\x02' + icmp(0, pkt(seq=0x10005)), 'icmp4-unreach': b'\x02' + bytes([3, 1, 0, 0]) + bytes(4) + ip4(icmp(8, pkt()))[:28],
    'icmp6': b'\x03' + icmp(129, pkt(seq=65536 + 3)), 'icmp6-request': b'\x03' + icmp(128, pkt()),
}
for name, data in seeds.items():
    open('corpus/probe/seed-' + name, 'wb').write(data)
PY
