/* load/sink.h: the load-test sink (`gatewayd --sink ADDR:PORT`) and its wire protocol
 * (docs/load-protocol.md): a client opens a TCP connection, sends a 12-byte header asking the
 * sink to discard what it sends (upload) or to send to it for a bounded time (download), and
 * the sink answers with an 8-byte reply before any data. */
#ifndef GW_SINK_H
#define GW_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "load/access.h"
#include "sys/clock.h"

#define GW_LOAD_MAGIC "GWLT"		/* client -> sink */
#define GW_LOAD_REPLY_MAGIC "GWLR"	/* sink -> client */
#define GW_LOAD_VERSION 2		/* the newest this side speaks; it takes 1 as well */
#define GW_LOAD_VERSION_1 1		/* the header without a token */
#define GW_LOAD_HDR_LEN 12		/* version 1's header, and version 2's fixed part */
#define GW_LOAD_HDR2_LEN 76		/* version 2: the fixed part and a 64-byte token */
#define GW_LOAD_HDR_MAX GW_LOAD_HDR2_LEN
#define GW_LOAD_REPLY_LEN 8
#define GW_LOAD_MIN_DURATION_MS 100
#define GW_LOAD_MAX_DURATION_MS 300000	/* 5 minutes, as the config allows */

enum gw_load_mode { GW_LOAD_MODE_UPLOAD = 1, GW_LOAD_MODE_DOWNLOAD = 2 };

/* The reply's status byte. */
enum gw_load_status {
	GW_LOAD_OK = 0,
	GW_LOAD_BAD_VERSION = 1,	/* a version this sink does not speak */
	GW_LOAD_BAD_REQUEST = 2,	/* unknown mode, duration out of range, reserved bits set */
	GW_LOAD_REFUSED = 3,		/* no token, a wrong one, or an address not allowed */
};

struct gw_load_hdr {
	uint8_t version;		/* 1, or 2 with a token */
	uint8_t mode;			/* enum gw_load_mode */
	uint32_t duration_ms;		/* GW_LOAD_MIN_DURATION_MS..GW_LOAD_MAX_DURATION_MS */
	uint8_t token[GW_LOAD_TOKEN_MAX];	/* version 2: printable, then zeros (all zero:
						 * none); version 1: zeros */
};

/* A header's length on the wire: GW_LOAD_HDR_LEN (version 1) or GW_LOAD_HDR2_LEN. */
size_t gw_load_hdr_len(uint8_t version);
/*
 * A header from the first len bytes a client sent. Returns 0 (out filled), -EAGAIN (a valid
 * prefix: wait for more), -EPROTO (not this protocol: bad magic), -EPROTONOSUPPORT (another
 * version; out->version set) or -EINVAL (bad mode, duration, reserved bits or token field).
 * Bytes past the header (gw_load_hdr_len(out->version)) are the caller's (an upload's data).
 */
int gw_load_hdr_parse(const uint8_t *buf, size_t len, struct gw_load_hdr *out);
/* Writes h (version 1 or 2) into buf, returns its length. */
size_t gw_load_hdr_build(uint8_t *buf, const struct gw_load_hdr *h);
/* The reply: 0 with *status set, -EAGAIN (short) or -EPROTO (not a reply). */
int gw_load_reply_parse(const uint8_t *buf, size_t len, uint8_t *status);
void gw_load_reply_build(uint8_t buf[GW_LOAD_REPLY_LEN], uint8_t status);

/* What the sink has seen since it started. */
struct gw_sink_stats {
	uint64_t open;			/* connections now */
	uint64_t accepted;		/* taken on (a free slot) */
	uint64_t refused_full;		/* closed at once: every slot taken */
	uint64_t refused_per_addr;	/* closed at once: its address holds its share of slots */
	uint64_t refused_auth;		/* answered "refused": no token, wrong one, not allowed */
	uint64_t malformed;		/* bad magic, version or request: closed */
	uint64_t idle_closed;		/* no header in time, or no progress: closed */
	uint64_t completed;		/* ran their duration, or the client closed */
	uint64_t uploads, downloads;	/* requests accepted */
	uint64_t bytes_in, bytes_out;	/* payload discarded and sent */
};

#define GW_SINK_MAX_CONNS 128		/* open at once; more are accepted and closed */
#define GW_SINK_PER_ADDR_DEFAULT 32	/* open at once from one address (--max-per-address) */
#define GW_SINK_MAX_LISTEN 4
#define GW_SINK_HDR_TIMEOUT_S 2.0	/* a header must be complete this soon after accept */
#define GW_SINK_STALL_S 5.0		/* no byte moved for this long: closed */
#define GW_SINK_MARGIN_S 2.0		/* past its duration a connection gets this long to end */

struct gw_sink;

/* Who the sink serves: with neither a token nor an allow-list, every client (the caller
 * decides whether that is safe: gw_sink_main() allows it on loopback alone); else a client
 * whose header carries the token, or whose address is in the list. */
struct gw_sink_access {
	bool has_token;
	uint8_t token[GW_LOAD_TOKEN_MAX];
	struct gw_prefix allow[GW_SINK_ALLOW_MAX];
	size_t n_allow;
	int max_per_addr;		/* 0: GW_SINK_PER_ADDR_DEFAULT */
};

/* Listen on each address (IPv4 or IPv6; port 0 picks one). Returns 0 or -errno with err. */
int gw_sink_new(const struct sockaddr_storage *addrs, const socklen_t *lens, size_t n,
		struct gw_sink **out, char *err, size_t errlen);
/* The same on clk (NULL: the real clock): its durations, time-outs and its 100 ms timer. */
int gw_sink_new_clock(const struct gw_clock *clk, const struct sockaddr_storage *addrs,
		      const socklen_t *lens, size_t n, struct gw_sink **out, char *err,
		      size_t errlen);
void gw_sink_free(struct gw_sink *s);
/* One fd (an epoll of the listeners, connections and a timer) for a loop to watch. */
int gw_sink_fd(const struct gw_sink *s);
/* Serve whatever is ready, and close what is past its time. Never blocks. */
int gw_sink_run(struct gw_sink *s);
/* Uploads wake the sink only once this many bytes wait (SO_RCVLOWAT; 0, the default: every
 * segment). Fewer wake-ups per byte, for a bench on a CPU it shares with what it measures. */
void gw_sink_set_rcvlowat(struct gw_sink *s, int bytes);
/* An upload's bytes as the sink's kernel has received them (the header left out), found by the
 * client's port: what a receiver-side goodput counts. 0, -ENOENT (no such upload open) or
 * -EOPNOTSUPP (no TCP_INFO counter). */
int gw_sink_upload_bytes(const struct gw_sink *s, uint16_t peer_port, uint64_t *bytes);
/* A download's smoothed RTT and its variation (us) as the sink's kernel, its sender, has them
 * now, found by the client's port: the round trip its data and the client's ACKs take, queues
 * included. 0, -ENOENT (no such download sending) or -EAGAIN (no RTT sample yet). */
int gw_sink_download_rtt(const struct gw_sink *s, uint16_t peer_port, uint32_t *rtt_us,
			 uint32_t *rttvar_us);
/* A TCP socket's tcpi_rtt and tcpi_rttvar (us): 0, -errno, or -EAGAIN before its first RTT
 * sample (the kernel reports 0 then). */
int gw_tcp_rtt(int fd, uint32_t *rtt_us, uint32_t *rttvar_us);
/* The port listener i is bound to (to learn what port 0 picked). */
int gw_sink_port(const struct gw_sink *s, size_t i);
void gw_sink_get_stats(const struct gw_sink *s, struct gw_sink_stats *out);
/* Serve only what a says from now on (a is copied; NULL: every client, the default). */
void gw_sink_set_access(struct gw_sink *s, const struct gw_sink_access *a);

/* `gatewayd --sink`'s options besides the addresses. */
struct gw_sink_opts {
	const char *token_file;		/* NULL: none */
	const char *allow;		/* NULL, or "10.0.0.0/8,fd00::/8" */
	int max_per_addr;		/* 0: the default */
};

/* `gatewayd --sink ADDR:PORT ...`: serve until SIGTERM/SIGINT; SIGUSR1 logs the counters.
 * Bound beyond loopback it needs a token file or an allow-list, or it does not start.
 * Returns the process's exit status. */
int gw_sink_main(const char *const *addrs, size_t n, const struct gw_sink_opts *o);

#endif
