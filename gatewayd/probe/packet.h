/* gatewayd/probe/packet.h: the probe packet (UDP payload, and ICMP echo data), and ICMP echo
 * framing: pure functions, no I/O, fuzzed by tests/fuzz/fuzz_probe.c. The wire format is
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

#endif
