/* webui/wire.h: the framed, versioned format the privileged daemon sends its web process in:
 * snapshots, the web settings and history points, each frame length-checked and every field
 * bounded on decode (docs/privsep.md). */
#ifndef GW_WEBUI_WIRE_H
#define GW_WEBUI_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "webui/snapshot.h"
#include "webui/webui.h"

/* frame = magic "GWWC", version u16, type u16, payload length u32, payload (little-endian) */
#define GW_WIRE_MAGIC "GWWC"
#define GW_WIRE_VERSION 2	/* 2: the snapshot's web section */
#define GW_WIRE_HDR 12
/* a snapshot of 10,000 classes is about 2 MB (docs/privsep.md); this leaves room for 20 times
 * that and bounds what a corrupt length can make the reader hold */
#define GW_WIRE_MAX_PAYLOAD (64u << 20)

enum gw_wire_type {
	GW_WIRE_SNAPSHOT = 1,	/* one sampling pass's struct gw_snapshot */
	GW_WIRE_SETTINGS = 2,	/* the web settings, at start and on every reload */
	GW_WIRE_HISTORY = 3,	/* points of one history series (re-sent to a new child) */
	GW_WIRE_TYPE_MAX = 3,
};

struct gw_wire_hdr {
	uint16_t version, type;
	uint32_t len;		/* payload bytes after the header */
};

/* Bounds the decoder holds every count to (the daemon's own are these or lower). */
#define GW_WIRE_MAX_DIRS 10496	/* 2 x (64 links + 4096 + 1024 cni containers), with room */
#define GW_WIRE_MAX_CLASSES 50000	/* per direction, as the config's bound */
#define GW_WIRE_HIST_MAX 10800		/* points in one history frame (GW_HIST_MAX_POINTS) */
#define GW_WIRE_PATH 4096		/* a path, with its NUL */
#define GW_WIRE_LISTEN_TEXT 128		/* a listen address as written, with its NUL */
#define GW_WIRE_HOST 256		/* an allowed Host name, with its NUL */

/* A growing output buffer of whole frames. */
struct gw_wire_buf {
	uint8_t *p;
	size_t len, cap;
};

void gw_wire_buf_free(struct gw_wire_buf *b);

/*
 * Append one frame to b. Each returns 0, -ENOMEM, or -ENAMETOOLONG / -E2BIG / -EINVAL when a
 * value is beyond what the decoder takes (a string too long for its field, too many of
 * something, an address family other than IPv4 or IPv6): b is then as it was.
 */
int gw_wire_put_snapshot(struct gw_wire_buf *b, const struct gw_snapshot *s);

/* The web settings: what the HTTP side needs of the config (gatewayd/web.c fills it). */
struct gw_wire_settings {
	size_t n_listen;
	char listen_text[GW_WEBUI_MAX_LISTEN][GW_WIRE_LISTEN_TEXT];
	struct sockaddr_storage listen_addr[GW_WEBUI_MAX_LISTEN];
	socklen_t listen_len[GW_WEBUI_MAX_LISTEN];
	char auth_file[GW_WIRE_PATH];	/* "" none */
	char tls_cert[GW_WIRE_PATH], tls_key[GW_WIRE_PATH];	/* "" none */
	size_t n_allowed_hosts;
	char allowed_hosts[GW_WEBUI_MAX_HOSTS][GW_WIRE_HOST];
	uint32_t auth_fail_limit;
	double auth_fail_backoff_s;
	uint64_t memory_max;
	double log_window_s;
	char compare_dir[GW_WIRE_PATH];	/* "" none */
	int64_t interval_us;		/* the sampling interval (the history's resolution) */
};

int gw_wire_put_settings(struct gw_wire_buf *b, const struct gw_wire_settings *ws);

/* Which series a history frame's points belong to. */
struct gw_wire_series {
	char link[GW_SNAP_NAME];
	char direction[8];
	char class_name[GW_SNAP_NAME];	/* "total" for the direction's */
	bool minute;			/* the minute ring, else the raw one */
};

int gw_wire_put_history(struct gw_wire_buf *b, const struct gw_wire_series *ser,
			const struct gw_hist_point *pts, size_t n);

/*
 * A header from the first GW_WIRE_HDR bytes of p: 0, -EAGAIN when len is shorter, -EBADMSG
 * (not the magic, or an unknown type), -EPROTONOSUPPORT (another version), -EMSGSIZE (a
 * payload over GW_WIRE_MAX_PAYLOAD).
 */
int gw_wire_hdr_parse(const void *p, size_t len, struct gw_wire_hdr *h);

/*
 * Decoders of a payload (exactly len bytes: what is left over is refused too). Each returns 0
 * or -EBADMSG (truncated, a count or string over its bound, a bool not 0 or 1, a kind not in
 * kinds) or -ENOMEM; on failure nothing is kept.
 *
 * Snapshots name their kinds' statistics descriptors by their JSON key; kinds is the table
 * they are looked up in (the registry's, gw_qdisc_xdescs). *out has one reference
 * (gw_snapshot_put frees it).
 */
int gw_wire_get_snapshot(const void *payload, size_t len,
			 const struct gw_xstats_desc *const *kinds, size_t n_kinds,
			 struct gw_snapshot **out);
int gw_wire_get_settings(const void *payload, size_t len, struct gw_wire_settings *ws);
/* pts holds GW_WIRE_HIST_MAX points; *n is set to how many came */
int gw_wire_get_history(const void *payload, size_t len, struct gw_wire_series *ser,
			struct gw_hist_point *pts, size_t *n);

/* The settings as the server takes them: listen[GW_WEBUI_MAX_LISTEN], o, and hosts (the
 * allowed names' pointers, GW_WEBUI_MAX_HOSTS of them) point into ws. Returns the addresses. */
size_t gw_wire_settings_opts(const struct gw_wire_settings *ws, struct gw_webui_listen *listen,
			     struct gw_webui_opts *o, const char **hosts);

/* A stream of frames read in pieces (a SOCK_STREAM socket): bytes in, whole frames out. */
struct gw_wire_rx {
	uint8_t *buf;
	size_t len, cap, off;	/* bytes held; the first not yet handed out */
	int err;		/* sticky: a bad header, the stream cannot be resynchronised */
};

void gw_wire_rx_free(struct gw_wire_rx *rx);
/* Keep n more bytes: 0 or -ENOMEM. */
int gw_wire_rx_feed(struct gw_wire_rx *rx, const void *p, size_t n);
/* Read what fd has (non-blocking): bytes read, 0 at end of stream, or -errno (-EAGAIN). */
long gw_wire_rx_read(struct gw_wire_rx *rx, int fd);
/*
 * The next whole frame: 1 with *h and *payload (valid until the next call), 0 when it has not
 * all come yet, or gw_wire_hdr_parse's -errno (then always: a stream that lost its framing is
 * not read on).
 */
int gw_wire_rx_next(struct gw_wire_rx *rx, struct gw_wire_hdr *h, const uint8_t **payload);

#endif
