/* tests/fuzz/fuzz_probe.c: libFuzzer target: what the network hands the prober and the
 * reflector (probe/packet.c).
 *
 * Input: 1 byte, then the datagram. Without its bit 2 (value 4) the byte's low 2 bits pick the
 * reader: 0 the UDP probe packet (gw_probe_pkt_parse, and the reflector's gw_probe_pkt_reflect
 * on a copy), 1 an ICMP echo reply with its IPv4 header (raw socket), 2 without (ping socket),
 * 3 ICMPv6. With bit 2: an ICMP timestamp reply (gw_probe_ts_parse), with its IPv4 header
 * when bit 0 is set, and the one-way delays it gives. The datagram is
 * copied into a buffer of exactly its size, so ASan sees any read past it. What is accepted
 * is checked for what the parser promises: a packet that parses builds back to the same
 * header, a reflected request parses as a reply carrying the stamps, an echo reply's 16-bit
 * sequence is its packet's, a timestamp reply is 20 bytes with a good checksum, its delays are
 * NAN or within half a day, and a request built from it carries the same fields. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "probe/packet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_pkt(const struct gw_probe_pkt *a, const struct gw_probe_pkt *b)
{
	return a->type == b->type && a->seq == b->seq && a->cookie == b->cookie &&
		a->client_send_ns == b->client_send_ns && a->refl_recv_ns == b->refl_recv_ns &&
		a->refl_send_ns == b->refl_send_ns;
}

static void check_pkt(const uint8_t *buf, size_t len)
{
	struct gw_probe_pkt a, b;
	uint8_t *copy, *again;
	int ret = gw_probe_pkt_parse(buf, len, &a);

	if (ret) {
		if (ret != -EBADMSG && ret != -EMSGSIZE && ret != -EPROTO && ret != -EPROTONOSUPPORT)
			abort();
		if ((ret == -EBADMSG) != (len < GW_PROBE_PKT_HDR))
			abort();
		return;
	}
	if (len < GW_PROBE_PKT_HDR || len > GW_PROBE_PKT_MAX)
		abort();
	again = malloc(len);
	if (gw_probe_pkt_build(again, len, &a) != (int)len || gw_probe_pkt_parse(again, len, &b) ||
	    !same_pkt(&a, &b) || memcmp(again + 8, buf + 8, GW_PROBE_PKT_HDR - 8))
		abort();
	free(again);
	copy = malloc(len);
	memcpy(copy, buf, len);
	ret = gw_probe_pkt_reflect(copy, len, 111, 222);
	if ((ret == 0) != (a.type == GW_PROBE_PKT_REQUEST))
		abort();
	if (!ret && (gw_probe_pkt_parse(copy, len, &b) || b.type != GW_PROBE_PKT_REPLY ||
		     b.seq != a.seq || b.cookie != a.cookie || b.client_send_ns != a.client_send_ns ||
		     b.refl_recv_ns != 111 || b.refl_send_ns != 222 ||
		     memcmp(copy + GW_PROBE_PKT_HDR, buf + GW_PROBE_PKT_HDR, len - GW_PROBE_PKT_HDR)))
		abort();
	free(copy);
}

static void check_icmp(const uint8_t *buf, size_t len, int family, bool ip_header)
{
	struct gw_probe_icmp_reply r;
	int ret = gw_probe_icmp_parse(buf, len, family, ip_header, &r);

	if (ret && ret != -ENOMSG && ret != -EBADMSG)
		abort();
	if (!ret && (r.pkt.seq & 0xffff) != r.seq16)
		abort();
}

static uint16_t sum16(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* a one-way delay is NAN or, modulo a day, within half of one (and the stamps' 0.5 ms) */
static bool owd_ok(double v)
{
	return isnan(v) || fabs(v) <= 43200000.0 + 1;
}

static void check_ts(const uint8_t *buf, size_t len, bool ip_header)
{
	struct gw_probe_ts r, again;
	const uint8_t *m = buf;
	uint8_t req[GW_PROBE_TS_LEN];
	double up, down;
	int ret = gw_probe_ts_parse(buf, len, ip_header, &r);

	if (ret && ret != -ENOMSG && ret != -EBADMSG)
		abort();
	if (ret)
		return;
	if (ip_header)
		m = buf + (buf[0] & 0x0f) * 4;
	if ((size_t)(m - buf) + GW_PROBE_TS_LEN > len || m[0] != 14 || m[1] != 0 ||
	    sum16(m, GW_PROBE_TS_LEN) != 0 || r.ident != (m[4] << 8 | m[5]) ||
	    r.seq16 != (m[6] << 8 | m[7]) || r.originate != be32(m + 8) ||
	    r.receive != be32(m + 12) || r.transmit != be32(m + 16))
		abort();
	if (!ip_header && len != GW_PROBE_TS_LEN)
		abort();
	/* the client's stamps from the reply's own fields: any values at all */
	gw_probe_ts_owd(&r, (int64_t)r.originate * 1000003, (int64_t)r.transmit * 999983, &up,
			&down);
	if (!owd_ok(up) || !owd_ok(down))
		abort();
	if (gw_probe_ts_build(req, sizeof(req), &r) != GW_PROBE_TS_LEN || req[0] != 13 ||
	    sum16(req, sizeof(req)) != 0)
		abort();
	again = (struct gw_probe_ts){ .ident = (uint16_t)(req[4] << 8 | req[5]),
				      .seq16 = (uint16_t)(req[6] << 8 | req[7]),
				      .originate = be32(req + 8) };
	if (again.ident != r.ident || again.seq16 != r.seq16 || again.originate != r.originate ||
	    be32(req + 12) || be32(req + 16))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
	if (data[0] & 4) {
		check_ts(buf, len, data[0] & 1);
		free(buf);
		return 0;
	}
	switch (data[0] & 3) {
	case 0:
		check_pkt(buf, len);
		break;
	case 1:
		check_icmp(buf, len, AF_INET, true);
		break;
	case 2:
		check_icmp(buf, len, AF_INET, false);
		break;
	default:
		check_icmp(buf, len, AF_INET6, false);
		break;
	}
	free(buf);
	return 0;
}
