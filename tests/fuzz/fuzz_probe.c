/* tests/fuzz/fuzz_probe.c: libFuzzer target: what the network hands the prober and the
 * reflector (gatewayd/probe/packet.c).
 *
 * Input: 1 byte, then the datagram. The byte's low 2 bits pick the reader: 0 the UDP probe
 * packet (gw_probe_pkt_parse, and the reflector's gw_probe_pkt_reflect on a copy), 1 an ICMP
 * echo reply with its IPv4 header (raw socket), 2 without (ping socket), 3 ICMPv6. The datagram
 * is copied into a buffer of exactly its size, so ASan sees any read past it. What is accepted
 * is checked for what the parser promises: a packet that parses builds back to the same
 * header, a reflected request parses as a reply carrying the stamps, an echo reply's 16-bit
 * sequence is its packet's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "gatewayd/probe/packet.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1, len);
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
