#!/usr/bin/env bash
# tests/fuzz/make-probe-seeds.sh: seeds for fuzz_probe (tests/fuzz/corpus/probe/seed-*): probe
# requests and replies of several sizes, ICMP/ICMPv6 echo replies carrying them, and ICMP
# timestamp replies, framed as each socket kind hands them over (the first byte picks the
# reader: see fuzz_probe.c).
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
def csum(b):
    s = sum((b[i] << 8) | (b[i + 1] if i + 1 < len(b) else 0) for i in range(0, len(b), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def ts(t=14, ident=0x4242, seq=7, o=45296789, r=45296795, x=45296796, extra=b''):
    m = bytearray(bytes([t, 0, 0, 0]) + struct.pack('>HHIII', ident, seq, o, r, x) + extra)
    c = csum(m)
    m[2], m[3] = c >> 8, c & 0xff
    return bytes(m)
seeds.update({
    'ts-reply': b'\x04' + ts(), 'ts-raw': b'\x05' + ip4(ts()),
    'ts-midnight': b'\x04' + ts(o=86399999, r=1, x=2),
    'ts-nonstd': b'\x04' + ts(r=0x80000005, x=0x80000006),
    'ts-request': b'\x04' + ts(t=13, r=0, x=0), 'ts-long': b'\x04' + ts(extra=b'\0\0\0\0'),
    'ts-short': b'\x04' + ts()[:19], 'ts-badsum': b'\x04' + ts()[:2] + b'\0\0' + ts()[4:],
})
for name, data in seeds.items():
    open('corpus/probe/seed-' + name, 'wb').write(data)
PY
