/* probe/packet.h: the probe packet (UDP payload, and ICMP echo data), ICMP echo and
 * ICMP timestamp framing, and the one-way delays replies give: pure functions, no I/O, fuzzed
 * by tests/fuzz/fuzz_probe.c. The wire format is
 * documented in docs/probe-protocol.md; change both together. */
#ifndef GW_PROBE_PKT_H
#define GW_PROBE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_PROBE_PKT_MAGIC "GWPR"
#define GW_PROBE_PKT_VERSION 1
#define GW_PROBE_PKT_HDR 40		/* bytes; shorter packets are refused */
#define GW_PROBE_PKT_MAX 1472		/* bytes; longer ones too */
#define GW_PROBE_ICMP_HDR 8		/* type, code, checksum, identifier, sequence */

enum { GW_PROBE_PKT_REQUEST = 1, GW_PROBE_PKT_REPLY = 2 };

struct gw_probe_pkt {
	uint8_t type;			/* GW_PROBE_PKT_REQUEST or _REPLY */
	uint32_t seq;			/* the client's, per target */
	uint32_t cookie;		/* the client's, random per target: tells its replies apart */
	uint64_t client_send_ns;	/* the client's clock, opaque to the reflector */
	uint64_t refl_recv_ns;		/* the reflector's receive stamp (unix ns); 0 in requests */
	uint64_t refl_send_ns;		/* the reflector's send time (unix ns); 0 in requests */
};

/* Write pkt into buf as len bytes (header, then zero padding). Returns len or -EINVAL when
 * len is out of GW_PROBE_PKT_HDR..GW_PROBE_PKT_MAX. */
int gw_probe_pkt_build(uint8_t *buf, size_t len, const struct gw_probe_pkt *pkt);
/* Read a packet of len bytes. 0, or -EBADMSG (too short), -EMSGSIZE (too long), -EPROTO (bad
 * magic or type), -EPROTONOSUPPORT (another version). Padding is not looked at. */
int gw_probe_pkt_parse(const uint8_t *buf, size_t len, struct gw_probe_pkt *out);
/* The reflector's whole job on one packet, in place: a valid request becomes a reply carrying
 * the two stamps. Returns 0 or parse's -errno (-EPROTO for anything but a request). */
int gw_probe_pkt_reflect(uint8_t *buf, size_t len, uint64_t recv_ns, uint64_t send_ns);

/* An ICMP (family AF_INET) or ICMPv6 (AF_INET6) echo request carrying pkt as its data of
 * size bytes; the IPv4 checksum is computed (the kernel computes ICMPv6's). Returns the
 * length or -EINVAL. */
int gw_probe_icmp_build(uint8_t *buf, size_t cap, int family, uint16_t ident,
			const struct gw_probe_pkt *pkt, size_t size);

struct gw_probe_icmp_reply {
	uint16_t ident, seq16;
	struct gw_probe_pkt pkt;
};

/* An echo reply as a socket gives it: with the IPv4 header first (raw IPv4 sockets) or
 * without (ping sockets, ICMPv6). 0 when it is an echo reply whose data is a probe packet,
 * -ENOMSG for other ICMP messages, -EBADMSG for anything malformed. */
int gw_probe_icmp_parse(const uint8_t *buf, size_t len, int family, bool ip_header,
			struct gw_probe_icmp_reply *out);

/* One-way delays of a UDP probe's reply, ms: up = reflector receive - client send, down =
 * client receive - reflector send (sent_ns and rx_ns: the client's stamps, unix ns). Two
 * machines' clocks: right up to a constant offset, negative when the reflector's clock is
 * behind (up) or ahead (down). Both NAN when the reply carries no reflector stamps. */
void gw_probe_pkt_owd(const struct gw_probe_pkt *reply, int64_t sent_ns, int64_t rx_ns,
		      double *up_ms, double *down_ms);

/* ICMP timestamp request (type 13) and reply (type 14), RFC 792: a 20-byte message, the
 * three stamps in ms since midnight UT; a stamp with the high bit set is "non-standard". */
#define GW_PROBE_TS_LEN 20
#define GW_PROBE_TS_NONSTD 0x80000000u
#define GW_PROBE_TS_DAY_MS 86400000u

struct gw_probe_ts {
	uint16_t ident, seq16;
	uint32_t originate, receive, transmit;	/* as on the wire (host order) */
};

/* The ms-since-midnight-UT stamp of a unix time in ns (ours, so always standard). */
uint32_t gw_probe_ts_of_ns(int64_t unix_ns);
/* A timestamp request carrying ts's identifier, sequence and originate (receive and
 * transmit zero), checksummed: GW_PROBE_TS_LEN bytes, or -EINVAL when cap is smaller. */
int gw_probe_ts_build(uint8_t *buf, size_t cap, const struct gw_probe_ts *ts);
/* A timestamp reply as a raw IPv4 socket gives it (ip_header: the IPv4 header first). 0 when
 * it is a well-formed reply of exactly GW_PROBE_TS_LEN bytes with a good checksum, -ENOMSG
 * for other ICMP messages (other types, and other protocols), -EBADMSG for anything
 * malformed (short, long, a bad checksum, a code other than 0). */
int gw_probe_ts_parse(const uint8_t *buf, size_t len, bool ip_header, struct gw_probe_ts *out);
/* One-way delays of a timestamp reply, ms: up = receive - the client's send, down = the
 * client's receive - transmit, each modulo a day into -12 h..+12 h (a probe across midnight
 * UT is a few ms, not a day), a remote stamp counted from the middle of its millisecond. NAN
 * for a direction whose stamp is non-standard (the high bit) or beyond a day. */
void gw_probe_ts_owd(const struct gw_probe_ts *reply, int64_t sent_ns, int64_t rx_ns,
		     double *up_ms, double *down_ms);

#endif
