/* probe/packet.c: probe packets, ICMP echo and timestamp framing to and from bytes, and
 * the one-way delays the replies carry. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include "probe/packet.h"

#define ICMP4_ECHO_REQUEST 8
#define ICMP4_ECHO_REPLY 0
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ICMP4_TS_REQUEST 13
#define ICMP4_TS_REPLY 14
#define IPV4_PROTO_ICMP 1
#define DAY_NS (86400LL * 1000000000LL)

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

int gw_probe_pkt_build(uint8_t *buf, size_t len, const struct gw_probe_pkt *pkt)
{
	if (len < GW_PROBE_PKT_HDR || len > GW_PROBE_PKT_MAX)
		return -EINVAL;
	memset(buf, 0, len);
	memcpy(buf, GW_PROBE_PKT_MAGIC, 4);
	buf[4] = GW_PROBE_PKT_VERSION;
	buf[5] = pkt->type;
	/* 6..7 reserved: zero when sent, ignored when read */
	put32(buf + 8, pkt->seq);
	put32(buf + 12, pkt->cookie);
	put64(buf + 16, pkt->client_send_ns);
	put64(buf + 24, pkt->refl_recv_ns);
	put64(buf + 32, pkt->refl_send_ns);
	return (int)len;
}

int gw_probe_pkt_parse(const uint8_t *buf, size_t len, struct gw_probe_pkt *out)
{
	if (len < GW_PROBE_PKT_HDR)
		return -EBADMSG;
	if (len > GW_PROBE_PKT_MAX)
		return -EMSGSIZE;
	if (memcmp(buf, GW_PROBE_PKT_MAGIC, 4))
		return -EPROTO;
	if (buf[4] != GW_PROBE_PKT_VERSION)
		return -EPROTONOSUPPORT;
	if (buf[5] != GW_PROBE_PKT_REQUEST && buf[5] != GW_PROBE_PKT_REPLY)
		return -EPROTO;
	out->type = buf[5];
	out->seq = get32(buf + 8);
	out->cookie = get32(buf + 12);
	out->client_send_ns = get64(buf + 16);
	out->refl_recv_ns = get64(buf + 24);
	out->refl_send_ns = get64(buf + 32);
	return 0;
}

int gw_probe_pkt_reflect(uint8_t *buf, size_t len, uint64_t recv_ns, uint64_t send_ns)
{
	struct gw_probe_pkt pkt;
	int ret = gw_probe_pkt_parse(buf, len, &pkt);

	if (ret)
		return ret;
	if (pkt.type != GW_PROBE_PKT_REQUEST)
		return -EPROTO;
	buf[5] = GW_PROBE_PKT_REPLY;
	put64(buf + 24, recv_ns);
	put64(buf + 32, send_ns);
	return 0;
}

/* RFC 1071: the ones' complement of the ones' complement sum of 16-bit words. */
static uint16_t inet_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Past a raw IPv4 socket's IP header to its ICMP message: 0, -EBADMSG (malformed), -ENOMSG
 * (not ICMP). The message ends where the header's total length says. */
static int skip_ipv4(const uint8_t **buf, size_t *len)
{
	const uint8_t *b = *buf;
	size_t ihl, total;

	if (*len < 20 || b[0] >> 4 != 4)
		return -EBADMSG;
	ihl = (size_t)(b[0] & 0x0f) * 4;
	total = (size_t)b[2] << 8 | b[3];
	if (ihl < 20 || ihl > *len || total < ihl || total > *len)
		return -EBADMSG;
	if (b[9] != IPV4_PROTO_ICMP)
		return -ENOMSG;
	*buf = b + ihl;
	*len = total - ihl;
	return 0;
}

int gw_probe_icmp_build(uint8_t *buf, size_t cap, int family, uint16_t ident,
			const struct gw_probe_pkt *pkt, size_t size)
{
	uint16_t csum;
	int n;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	if (cap < GW_PROBE_ICMP_HDR + size)
		return -EINVAL;
	n = gw_probe_pkt_build(buf + GW_PROBE_ICMP_HDR, size, pkt);
	if (n < 0)
		return n;
	buf[0] = family == AF_INET ? ICMP4_ECHO_REQUEST : ICMP6_ECHO_REQUEST;
	buf[1] = 0;
	buf[2] = buf[3] = 0;
	buf[4] = (uint8_t)(ident >> 8);
	buf[5] = (uint8_t)ident;
	buf[6] = (uint8_t)(pkt->seq >> 8);
	buf[7] = (uint8_t)pkt->seq;
	if (family == AF_INET) {
		csum = inet_csum(buf, GW_PROBE_ICMP_HDR + size);
		buf[2] = (uint8_t)(csum >> 8);
		buf[3] = (uint8_t)csum;
	}
	return (int)(GW_PROBE_ICMP_HDR + size);
}

int gw_probe_icmp_parse(const uint8_t *buf, size_t len, int family, bool ip_header,
			struct gw_probe_icmp_reply *out)
{
	uint8_t want = family == AF_INET ? ICMP4_ECHO_REPLY : ICMP6_ECHO_REPLY;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	if (ip_header) {
		int ret;

		/* only raw IPv4 sockets hand us the IP header */
		if (family != AF_INET)
			return -EBADMSG;
		if ((ret = skip_ipv4(&buf, &len)))
			return ret;
	}
	if (len < GW_PROBE_ICMP_HDR)
		return -EBADMSG;
	if (buf[0] != want || buf[1] != 0)
		return -ENOMSG;
	out->ident = (uint16_t)(buf[4] << 8 | buf[5]);
	out->seq16 = (uint16_t)(buf[6] << 8 | buf[7]);
	if (gw_probe_pkt_parse(buf + GW_PROBE_ICMP_HDR, len - GW_PROBE_ICMP_HDR, &out->pkt))
		return -EBADMSG;
	if ((out->pkt.seq & 0xffff) != out->seq16)
		return -EBADMSG;
	return 0;
}

/* b - a, ns, as a signed number (stamps of two clocks: either may be the larger) */
static double diff_ms(uint64_t b, uint64_t a)
{
	return (double)(int64_t)(b - a) / 1e6;
}

void gw_probe_pkt_owd(const struct gw_probe_pkt *reply, int64_t sent_ns, int64_t rx_ns,
		      double *up_ms, double *down_ms)
{
	*up_ms = *down_ms = NAN;
	if (!reply->refl_recv_ns || !reply->refl_send_ns)
		return;
	*up_ms = diff_ms(reply->refl_recv_ns, (uint64_t)sent_ns);
	*down_ms = diff_ms((uint64_t)rx_ns, reply->refl_send_ns);
}

uint32_t gw_probe_ts_of_ns(int64_t unix_ns)
{
	int64_t in_day = (unix_ns % DAY_NS + DAY_NS) % DAY_NS;

	return (uint32_t)(in_day / 1000000);
}

int gw_probe_ts_build(uint8_t *buf, size_t cap, const struct gw_probe_ts *ts)
{
	uint16_t csum;

	if (cap < GW_PROBE_TS_LEN)
		return -EINVAL;
	memset(buf, 0, GW_PROBE_TS_LEN);
	buf[0] = ICMP4_TS_REQUEST;
	buf[4] = (uint8_t)(ts->ident >> 8);
	buf[5] = (uint8_t)ts->ident;
	buf[6] = (uint8_t)(ts->seq16 >> 8);
	buf[7] = (uint8_t)ts->seq16;
	put32(buf + 8, ts->originate);
	/* receive and transmit: zero, the target fills them in */
	csum = inet_csum(buf, GW_PROBE_TS_LEN);
	buf[2] = (uint8_t)(csum >> 8);
	buf[3] = (uint8_t)csum;
	return GW_PROBE_TS_LEN;
}

int gw_probe_ts_parse(const uint8_t *buf, size_t len, bool ip_header, struct gw_probe_ts *out)
{
	int ret;

	if (ip_header && (ret = skip_ipv4(&buf, &len)))
		return ret;
	if (len < 1)
		return -EBADMSG;
	if (buf[0] != ICMP4_TS_REPLY)
		return len < GW_PROBE_ICMP_HDR ? -EBADMSG : -ENOMSG;
	/* RFC 792's reply is exactly 20 bytes; a raw socket sees it before the kernel has
	 * checked its checksum, so we check it */
	if (len != GW_PROBE_TS_LEN || buf[1] != 0 || inet_csum(buf, len) != 0)
		return -EBADMSG;
	out->ident = (uint16_t)(buf[4] << 8 | buf[5]);
	out->seq16 = (uint16_t)(buf[6] << 8 | buf[7]);
	out->originate = get32(buf + 8);
	out->receive = get32(buf + 12);
	out->transmit = get32(buf + 16);
	return 0;
}

static bool ts_standard(uint32_t ms)
{
	return !(ms & GW_PROBE_TS_NONSTD) && ms < GW_PROBE_TS_DAY_MS;
}

/* remote - local, ms, both since midnight UT, into -12 h..+12 h */
static double day_diff_ms(double remote, double local)
{
	double d = remote - local, day = GW_PROBE_TS_DAY_MS;

	if (d > day / 2)
		d -= day;
	else if (d <= -day / 2)
		d += day;
	return d;
}

/* A unix ns stamp as ms since midnight UT, with its fraction. */
static double local_ms(int64_t unix_ns)
{
	return (double)((unix_ns % DAY_NS + DAY_NS) % DAY_NS) / 1e6;
}

void gw_probe_ts_owd(const struct gw_probe_ts *reply, int64_t sent_ns, int64_t rx_ns,
		     double *up_ms, double *down_ms)
{
	/* the remote stamps are whole milliseconds (RFC 792; Linux truncates): the middle of
	 * the millisecond is the best guess of when within it */
	*up_ms = ts_standard(reply->receive) ?
		day_diff_ms((double)reply->receive + 0.5, local_ms(sent_ns)) : NAN;
	*down_ms = ts_standard(reply->transmit) ?
		-day_diff_ms((double)reply->transmit + 0.5, local_ms(rx_ns)) : NAN;
}
