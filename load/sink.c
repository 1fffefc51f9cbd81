/* load/sink.c: the load-test sink: a bounded, non-blocking TCP server that discards what
 * a client uploads or sends it data for a bounded time (docs/load-protocol.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h>	/* tcp_info with tcpi_bytes_received (glibc's lacks it) */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "config/config.h"
#include "sys/clock.h"
#include "sys/log.h"
#include "sys/fd.h"
#include "sys/privdrop.h"
#include "load/sink.h"
#include "sys/ratelog.h"
#include "sys/signals.h"

/* ---- the wire format ---- */

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t gw_load_hdr_len(uint8_t version)
{
	return version == GW_LOAD_VERSION ? GW_LOAD_HDR2_LEN : GW_LOAD_HDR_LEN;
}

int gw_load_hdr_parse(const uint8_t *buf, size_t len, struct gw_load_hdr *out)
{
	size_t m = len < 4 ? len : 4;

	/* a wrong first byte is refused at once, not after a wait for twelve */
	if (memcmp(buf, GW_LOAD_MAGIC, m))
		return -EPROTO;
	if (len < 5)
		return -EAGAIN;
	out->version = buf[4];
	if (buf[4] != GW_LOAD_VERSION_1 && buf[4] != GW_LOAD_VERSION)
		return -EPROTONOSUPPORT;
	if (len < GW_LOAD_HDR_LEN)
		return -EAGAIN;
	out->mode = buf[5];
	out->duration_ms = get_be32(buf + 8);
	/* the fixed part is judged as soon as it is there, in either version */
	if (buf[6] || buf[7])
		return -EINVAL;
	if (out->mode != GW_LOAD_MODE_UPLOAD && out->mode != GW_LOAD_MODE_DOWNLOAD)
		return -EINVAL;
	if (out->duration_ms < GW_LOAD_MIN_DURATION_MS || out->duration_ms > GW_LOAD_MAX_DURATION_MS)
		return -EINVAL;
	memset(out->token, 0, sizeof(out->token));
	if (out->version == GW_LOAD_VERSION_1)
		return 0;
	if (len < GW_LOAD_HDR2_LEN)
		return -EAGAIN;
	memcpy(out->token, buf + GW_LOAD_HDR_LEN, GW_LOAD_TOKEN_MAX);
	if (!gw_load_token_valid(out->token))
		return -EINVAL;
	return 0;
}

size_t gw_load_hdr_build(uint8_t *buf, const struct gw_load_hdr *h)
{
	memcpy(buf, GW_LOAD_MAGIC, 4);
	buf[4] = h->version;
	buf[5] = h->mode;
	buf[6] = buf[7] = 0;
	buf[8] = (uint8_t)(h->duration_ms >> 24);
	buf[9] = (uint8_t)(h->duration_ms >> 16);
	buf[10] = (uint8_t)(h->duration_ms >> 8);
	buf[11] = (uint8_t)h->duration_ms;
	if (h->version != GW_LOAD_VERSION)
		return GW_LOAD_HDR_LEN;
	memcpy(buf + GW_LOAD_HDR_LEN, h->token, GW_LOAD_TOKEN_MAX);
	return GW_LOAD_HDR2_LEN;
}

int gw_load_reply_parse(const uint8_t *buf, size_t len, uint8_t *status)
{
	size_t m = len < 4 ? len : 4;

	if (memcmp(buf, GW_LOAD_REPLY_MAGIC, m))
		return -EPROTO;
	if (len < GW_LOAD_REPLY_LEN)
		return -EAGAIN;
	*status = buf[5];
	return 0;
}

void gw_load_reply_build(uint8_t buf[GW_LOAD_REPLY_LEN], uint8_t status)
{
	memcpy(buf, GW_LOAD_REPLY_MAGIC, 4);
	buf[4] = GW_LOAD_VERSION;
	buf[5] = status;
	buf[6] = buf[7] = 0;
}

/* ---- the server ---- */

enum conn_state { C_FREE, C_HDR, C_UPLOAD, C_DOWNLOAD, C_DRAIN };

struct conn {
	int fd;
	enum conn_state state;
	uint8_t hdr[GW_LOAD_HDR_MAX];
	size_t got;
	size_t hdr_len;		/* the header's length once it is known (its version) */
	struct gw_prefix peer;	/* the client's address, for the allow-list and its share */
	double deadline;	/* the state's end: header time-out, duration, drain margin */
	double progress;	/* when a byte last moved */
	uint16_t peer_port;	/* the client's port (host order) */
};

#define TAG_TIMER 0xffffu
#define TAG_LISTEN 0x10000u	/* + listener index */
#define IO_CHUNK 65536
#define IO_ROUNDS 8		/* chunks per connection per wake-up: others get their turn */

struct gw_sink {
	const struct gw_clock *clk;	/* the deadlines' and the timer's */
	int ep, timer;
	int lfd[GW_SINK_MAX_LISTEN];
	size_t n_listen;
	struct conn conns[GW_SINK_MAX_CONNS];
	struct gw_sink_stats st;
	int rcvlowat;		/* uploads wake us at this many bytes (0: every segment) */
	struct gw_sink_access acc;
	struct gw_ratelog log_auth, log_addr;	/* refusals: a line per 10 s at most */
	uint8_t buf[IO_CHUNK];	/* one buffer for every connection: discard and send */
};

static int ep_set(struct gw_sink *s, int op, int fd, uint32_t events, uint32_t tag)
{
	return gw_epoll_set(s->ep, op, fd, events, (epoll_data_t){ .u32 = tag });
}

/* hard: an RST now (whatever is unsent is dropped), so nothing lingers past our bound */
static void conn_close(struct gw_sink *s, struct conn *c, bool hard)
{
	if (hard) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(c->fd);	/* also leaves the epoll set */
	c->fd = -1;
	c->state = C_FREE;
	s->st.open--;
}

/* Close a connection at once, counted under why (idle_closed, completed...). */
static void retire(struct gw_sink *s, struct conn *c, uint64_t *why)
{
	(*why)++;
	conn_close(s, c, true);
}

static void send_reply(struct conn *c, uint8_t status)
{
	uint8_t r[GW_LOAD_REPLY_LEN];

	/* a fresh socket's buffer always takes 8 bytes; if not, the client learns by EOF */
	gw_load_reply_build(r, status);
	if (send(c->fd, r, sizeof(r), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		gw_log(GW_LOG_DEBUG, "sink: reply: %s", strerror(errno));
}

/* A token that matches, or an address in the list; anyone when the sink has neither. */
static const char *refusal(const struct gw_sink *s, const struct conn *c,
			   const struct gw_load_hdr *h)
{
	const struct gw_sink_access *a = &s->acc;
	bool tok, addr;

	if (!a->has_token && !a->n_allow)
		return NULL;
	tok = a->has_token && gw_load_token_equal(a->token, h->token);
	addr = a->n_allow && gw_prefix_list_has(a->allow, a->n_allow, &c->peer);
	if (tok || addr)
		return NULL;
	if (!a->has_token)
		return "its address is not in --allow";
	if (h->version == GW_LOAD_VERSION_1 || !h->token[0])
		return a->n_allow ? "no token, and its address is not in --allow" : "no token";
	return a->n_allow ? "a wrong token, and its address is not in --allow" : "a wrong token";
}

static void log_refusal(struct gw_ratelog *rl, const struct conn *c,
			double now, const char *why)
{
	char host[64];
	uint64_t held;

	if (!gw_ratelog_ok(rl, now, GW_RATELOG_EVERY_S, &held))
		return;
	gw_format_prefix(&c->peer, host, sizeof(host));
	if (held)
		gw_log(GW_LOG_WARNING, "sink: refused %s port %u: %s (and %llu more refused like "
		       "it in the last %.0f s, not logged)", host, c->peer_port, why,
		       (unsigned long long)held, GW_RATELOG_EVERY_S);
	else
		gw_log(GW_LOG_WARNING, "sink: refused %s port %u: %s", host, c->peer_port, why);
}

static void on_header(struct gw_sink *s, struct conn *c, size_t idx, double now)
{
	struct gw_load_hdr h;
	const char *why;
	int r;

	if (c->got >= 5)
		c->hdr_len = gw_load_hdr_len(c->hdr[4]);
	r = gw_load_hdr_parse(c->hdr, c->got, &h);
	if (r == -EAGAIN)
		return;
	if (r) {
		s->st.malformed++;
		gw_log(GW_LOG_DEBUG, "sink: connection %zu: %s header: closed", idx,
		       r == -EPROTO ? "not a load-test" : r == -EPROTONOSUPPORT ?
		       "unknown version of the" : "invalid");
		if (r != -EPROTO)
			send_reply(c, r == -EPROTONOSUPPORT ? GW_LOAD_BAD_VERSION :
				   GW_LOAD_BAD_REQUEST);
		conn_close(s, c, true);
		return;
	}
	why = refusal(s, c, &h);
	explicit_bzero(h.token, sizeof(h.token));
	explicit_bzero(c->hdr, sizeof(c->hdr));
	if (why) {
		s->st.refused_auth++;
		log_refusal(&s->log_auth, c, now, why);
		send_reply(c, GW_LOAD_REFUSED);
		conn_close(s, c, true);
		return;
	}
	send_reply(c, GW_LOAD_OK);
	c->deadline = now + h.duration_ms / 1000.0;
	c->progress = now;
	if (h.mode == GW_LOAD_MODE_UPLOAD) {
		c->state = C_UPLOAD;
		s->st.uploads++;
		if (s->rcvlowat > 0)
			setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &s->rcvlowat, sizeof(s->rcvlowat));
	} else {
		c->state = C_DOWNLOAD;
		s->st.downloads++;
		ep_set(s, EPOLL_CTL_MOD, c->fd, EPOLLIN | EPOLLOUT, (uint32_t)idx);
	}
}

/* Read: the header's bytes, then whatever the client sends (discarded). 0 on EOF or error. */
static bool conn_read(struct gw_sink *s, struct conn *c, size_t idx, double now)
{
	for (int i = 0; i < IO_ROUNDS && c->fd >= 0; i++) {
		ssize_t n;

		if (c->state == C_HDR) {
			/* byte exact: what follows the header is data, not ours to eat here
			 * (12 bytes until the version says how many) */
			n = recv(c->fd, c->hdr + c->got, c->hdr_len - c->got, 0);
		} else {
			n = recv(c->fd, s->buf, sizeof(s->buf), 0);
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n <= 0)
			return false;
		if (c->state == C_HDR) {
			c->got += (size_t)n;
			on_header(s, c, idx, now);
			if (c->fd < 0)
				return true;	/* refused and closed */
			continue;
		}
		s->st.bytes_in += (uint64_t)n;
		if (c->state == C_UPLOAD)
			c->progress = now;
	}
	return true;
}

static bool conn_write(struct gw_sink *s, struct conn *c, double now)
{
	for (int i = 0; i < IO_ROUNDS; i++) {
		ssize_t n = send(c->fd, s->buf, sizeof(s->buf), MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n < 0)
			return false;
		s->st.bytes_out += (uint64_t)n;
		c->progress = now;
	}
	return true;
}

/* The end of a download: a FIN after what is queued, then a short wait for the client's. */
static void start_drain(struct gw_sink *s, struct conn *c, size_t idx, double now)
{
	shutdown(c->fd, SHUT_WR);
	c->state = C_DRAIN;
	c->deadline = now + GW_SINK_MARGIN_S;
	ep_set(s, EPOLL_CTL_MOD, c->fd, EPOLLIN, (uint32_t)idx);
}

static void on_conn(struct gw_sink *s, size_t idx, uint32_t events, double now)
{
	struct conn *c = &s->conns[idx];
	bool alive = true;

	if (c->state == C_FREE)
		return;
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		alive = conn_read(s, c, idx, now);
	if (c->state == C_FREE)
		return;
	if (!alive) {
		/* the client ended it: a finished test, or one that gave up before its header */
		if (c->state == C_HDR)
			s->st.malformed++;
		else
			s->st.completed++;
		conn_close(s, c, c->state != C_DRAIN);
		return;
	}
	if (c->state == C_DOWNLOAD && now >= c->deadline) {
		start_drain(s, c, idx, now);
		return;
	}
	if (c->state == C_DOWNLOAD && (events & EPOLLOUT) && !conn_write(s, c, now)) {
		retire(s, c, &s->st.completed);
	}
}

static uint16_t peer_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static size_t open_from(const struct gw_sink *s, const struct gw_prefix *peer)
{
	size_t n = 0;

	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++) {
		const struct conn *c = &s->conns[i];

		n += c->state != C_FREE && c->peer.family == peer->family &&
		     !memcmp(c->peer.addr, peer->addr, sizeof(peer->addr));
	}
	return n;
}

static void refuse_now(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

static void on_listen(struct gw_sink *s, size_t li, double now)
{
	for (int i = 0; i < 16; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(s->lfd[li], (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn nc = { .state = C_HDR, .progress = now, .hdr_len = GW_LOAD_HDR_LEN,
				   .deadline = now + GW_SINK_HDR_TIMEOUT_S };
		size_t idx;

		if (fd < 0)
			return;	/* EAGAIN, or the client gave up already */
		nc.fd = fd;
		nc.peer_port = peer_port_of(&peer);
		if (gw_sockaddr_prefix(&peer, &nc.peer)) {
			refuse_now(fd);
			continue;
		}
		for (idx = 0; idx < GW_SINK_MAX_CONNS && s->conns[idx].state != C_FREE; idx++)
			;
		if (idx == GW_SINK_MAX_CONNS) {
			refuse_now(fd);
			s->st.refused_full++;
			continue;
		}
		/* one address cannot take every slot: the others' tests still start */
		if (open_from(s, &nc.peer) >= (size_t)s->acc.max_per_addr) {
			char why[96];

			refuse_now(fd);
			s->st.refused_per_addr++;
			snprintf(why, sizeof(why), "%d connections from it are open already "
				 "(--max-per-address)", s->acc.max_per_addr);
			log_refusal(&s->log_addr, &nc, now, why);
			continue;
		}
		if (ep_set(s, EPOLL_CTL_ADD, fd, EPOLLIN, (uint32_t)idx)) {
			close(fd);
			continue;
		}
		s->conns[idx] = nc;
		s->st.open++;
		s->st.accepted++;
	}
}

/* Every 100 ms: whatever is past its time goes. */
static void on_timer(struct gw_sink *s, double now)
{
	uint64_t exp;

	if (read(s->timer, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		return;
	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++) {
		struct conn *c = &s->conns[i];

		switch (c->state) {
		case C_FREE:
			break;
		case C_HDR:
			if (now >= c->deadline)
				retire(s, c, &s->st.idle_closed);
			break;
		case C_UPLOAD:
		case C_DOWNLOAD:
			/* an upload slower than its low-water mark wakes nobody: what
			 * waits below the mark is progress all the same */
			if (c->state == C_UPLOAD && s->rcvlowat > 0 &&
			    now - c->progress >= GW_SINK_STALL_S / 2) {
				int q = 0;

				if (ioctl(c->fd, FIONREAD, &q) == 0 && q > 0 &&
				    !conn_read(s, c, i, now)) {
					retire(s, c, &s->st.completed);
					break;
				}
			}
			if (now - c->progress >= GW_SINK_STALL_S) {
				retire(s, c, &s->st.idle_closed);
			} else if (c->state == C_DOWNLOAD && now >= c->deadline) {
				start_drain(s, c, i, now);
			} else if (c->state == C_UPLOAD && now >= c->deadline + GW_SINK_MARGIN_S) {
				/* the client overran its own duration */
				retire(s, c, &s->st.completed);
			}
			break;
		case C_DRAIN:
			if (now >= c->deadline)
				retire(s, c, &s->st.completed);
			break;
		}
	}
}

int gw_sink_run(struct gw_sink *s)
{
	struct epoll_event evs[32];
	int n = epoll_wait(s->ep, evs, 32, 0);
	double now = gw_clock_now(s->clk);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		uint32_t tag = evs[i].data.u32;

		if (tag == TAG_TIMER)
			on_timer(s, now);
		else if (tag >= TAG_LISTEN)
			on_listen(s, tag - TAG_LISTEN, now);
		else if (tag < GW_SINK_MAX_CONNS)
			on_conn(s, tag, evs[i].events, now);
	}
	return 0;
}

static int listen_one(const struct sockaddr_storage *a, socklen_t len)
{
	int one = 1, fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)a, len) < 0 || listen(fd, 128) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int gw_sink_new(const struct sockaddr_storage *addrs, const socklen_t *lens, size_t n,
		struct gw_sink **out, char *err, size_t errlen)
{
	return gw_sink_new_clock(NULL, addrs, lens, n, out, err, errlen);
}

int gw_sink_new_clock(const struct gw_clock *clk, const struct sockaddr_storage *addrs,
		      const socklen_t *lens, size_t n, struct gw_sink **out, char *err,
		      size_t errlen)
{
	struct gw_sink *s;
	int r = 0;

	if (n < 1 || n > GW_SINK_MAX_LISTEN) {
		snprintf(err, errlen, "the sink takes 1 to %d addresses", GW_SINK_MAX_LISTEN);
		return -EINVAL;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->clk = gw_clock_or_real(clk);
	s->timer = -1;
	s->acc.max_per_addr = GW_SINK_MAX_CONNS;	/* no share per address until told */
	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++)
		s->conns[i].fd = -1;
	for (size_t i = 0; i < GW_SINK_MAX_LISTEN; i++)
		s->lfd[i] = -1;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		r = -errno;
		snprintf(err, errlen, "epoll: %s", strerror(-r));
		goto fail;
	}
	/* every 100 ms, what is past its time goes (on_timer) */
	if ((s->timer = gw_clock_timer(s->clk)) < 0)
		r = s->timer;
	if (!r)
		r = gw_clock_arm(s->clk, s->timer, 0.1, 0.1);
	if (!r)
		r = ep_set(s, EPOLL_CTL_ADD, s->timer, EPOLLIN, TAG_TIMER);
	if (r) {
		snprintf(err, errlen, "timer: %s", strerror(-r));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		int fd = listen_one(&addrs[i], lens[i]);

		if (fd < 0 || (r = ep_set(s, EPOLL_CTL_ADD, fd, EPOLLIN, TAG_LISTEN + (uint32_t)i))) {
			char host[INET6_ADDRSTRLEN] = "?";
			const void *ip = addrs[i].ss_family == AF_INET6 ?
				(const void *)&((const struct sockaddr_in6 *)&addrs[i])->sin6_addr :
				(const void *)&((const struct sockaddr_in *)&addrs[i])->sin_addr;

			r = fd < 0 ? fd : r;
			gw_fd_close(&fd);
			inet_ntop(addrs[i].ss_family, ip, host, sizeof(host));
			snprintf(err, errlen, "listening on %s port %d: %s", host,
				 ntohs(((const struct sockaddr_in *)&addrs[i])->sin_port), strerror(-r));
			goto fail;
		}
		s->lfd[s->n_listen++] = fd;
	}
	memset(s->buf, 0, sizeof(s->buf));
	*out = s;
	return 0;
fail:
	gw_sink_free(s);
	return r;
}

void gw_sink_free(struct gw_sink *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++)
		if (s->conns[i].state != C_FREE)
			conn_close(s, &s->conns[i], true);
	for (size_t i = 0; i < s->n_listen; i++)
		close(s->lfd[i]);
	gw_clock_timer_close(s->clk, &s->timer);
	gw_fd_close(&s->ep);
	explicit_bzero(&s->acc, sizeof(s->acc));
	free(s);
}

int gw_sink_fd(const struct gw_sink *s)
{
	return s->ep;
}

int gw_sink_upload_bytes(const struct gw_sink *s, uint16_t peer_port, uint64_t *bytes)
{
	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++) {
		const struct conn *c = &s->conns[i];
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		if (c->state != C_UPLOAD || c->peer_port != peer_port)
			continue;
		if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
		    len < offsetof(struct tcp_info, tcpi_bytes_received) +
			  sizeof(ti.tcpi_bytes_received))
			return -EOPNOTSUPP;
		*bytes = ti.tcpi_bytes_received > c->hdr_len ?
			 ti.tcpi_bytes_received - c->hdr_len : 0;
		return 0;
	}
	return -ENOENT;
}

int gw_tcp_rtt(int fd, uint32_t *rtt_us, uint32_t *rttvar_us)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -errno;
	if (len < offsetof(struct tcp_info, tcpi_rttvar) + sizeof(ti.tcpi_rttvar))
		return -EOPNOTSUPP;
	/* no ACK measured yet: 0, which is no figure, not a round trip of nothing */
	if (!ti.tcpi_rtt)
		return -EAGAIN;
	*rtt_us = ti.tcpi_rtt;
	*rttvar_us = ti.tcpi_rttvar;
	return 0;
}

int gw_sink_download_rtt(const struct gw_sink *s, uint16_t peer_port, uint32_t *rtt_us,
			 uint32_t *rttvar_us)
{
	for (size_t i = 0; i < GW_SINK_MAX_CONNS; i++) {
		const struct conn *c = &s->conns[i];

		if (c->state == C_DOWNLOAD && c->peer_port == peer_port)
			return gw_tcp_rtt(c->fd, rtt_us, rttvar_us);
	}
	return -ENOENT;
}

void gw_sink_set_access(struct gw_sink *s, const struct gw_sink_access *a)
{
	if (!a) {
		explicit_bzero(&s->acc, sizeof(s->acc));
		s->acc.max_per_addr = GW_SINK_MAX_CONNS;
		return;
	}
	s->acc = *a;
	if (s->acc.n_allow > GW_SINK_ALLOW_MAX)
		s->acc.n_allow = GW_SINK_ALLOW_MAX;
	if (s->acc.max_per_addr <= 0)
		s->acc.max_per_addr = GW_SINK_PER_ADDR_DEFAULT;
	if (s->acc.max_per_addr > GW_SINK_MAX_CONNS)
		s->acc.max_per_addr = GW_SINK_MAX_CONNS;
}

void gw_sink_set_rcvlowat(struct gw_sink *s, int bytes)
{
	s->rcvlowat = bytes > 0 ? bytes : 0;
}

int gw_sink_port(const struct gw_sink *s, size_t i)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);

	if (i >= s->n_listen || getsockname(s->lfd[i], (struct sockaddr *)&a, &len) < 0)
		return -EINVAL;
	/* sin_port and sin6_port sit at the same offset */
	return ntohs(((const struct sockaddr_in *)&a)->sin_port);
}

void gw_sink_get_stats(const struct gw_sink *s, struct gw_sink_stats *out)
{
	*out = s->st;
}

static void log_stats(const struct gw_sink *s)
{
	const struct gw_sink_stats *st = &s->st;

	gw_log(GW_LOG_INFO, "sink: %llu open, %llu accepted, %llu refused (all %d slots taken), "
	       "%llu malformed, %llu idle closed, %llu completed; %llu uploads, %llu downloads, "
	       "%llu bytes in, %llu bytes out; %llu refused (%d from one address), "
	       "%llu refused (no token or not allowed)",
	       (unsigned long long)st->open, (unsigned long long)st->accepted,
	       (unsigned long long)st->refused_full, GW_SINK_MAX_CONNS,
	       (unsigned long long)st->malformed, (unsigned long long)st->idle_closed,
	       (unsigned long long)st->completed, (unsigned long long)st->uploads,
	       (unsigned long long)st->downloads, (unsigned long long)st->bytes_in,
	       (unsigned long long)st->bytes_out, (unsigned long long)st->refused_per_addr,
	       s->acc.max_per_addr, (unsigned long long)st->refused_auth);
}

/* The options into an access policy; bound beyond loopback, one of the two is required. */
static int main_access(const char *const *addrs, const struct sockaddr_storage *ss, size_t n,
		       const struct gw_sink_opts *o, struct gw_sink_access *a)
{
	char err[256];

	memset(a, 0, sizeof(*a));
	if (o->max_per_addr < 0 || o->max_per_addr > GW_SINK_MAX_CONNS) {
		fprintf(stderr, "gatewayd: --max-per-address: 1 to %d\n", GW_SINK_MAX_CONNS);
		return 2;
	}
	a->max_per_addr = o->max_per_addr ? o->max_per_addr : GW_SINK_PER_ADDR_DEFAULT;
	if (o->allow && gw_sink_allow_parse(o->allow, a->allow, &a->n_allow, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		return 2;
	}
	if (o->token_file) {
		if (gw_load_token_read(o->token_file, a->token, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: --token-file: %s\n", err);
			return 2;
		}
		a->has_token = true;
	}
	if (a->has_token || a->n_allow)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (gw_sockaddr_is_loopback(&ss[i]))
			continue;
		fprintf(stderr, "gatewayd: --sink %s is reachable beyond this host: anyone there "
			"could borrow it to load any link. Give it --token-file FILE (the load "
			"test's sink_token_file holds the same token) or --allow PREFIX,... (the "
			"addresses it serves), or bind it to loopback\n", addrs[i]);
		return 2;
	}
	return 0;
}

int gw_sink_main(const char *const *addrs, size_t n, const struct gw_sink_opts *o)
{
	struct sockaddr_storage ss[GW_SINK_MAX_LISTEN];
	socklen_t lens[GW_SINK_MAX_LISTEN];
	struct epoll_event ev = { .events = EPOLLIN };
	struct gw_sink_access acc;
	struct gw_sink *s;
	char err[256];
	int sfd, ep, rc = 1;

	if (n > GW_SINK_MAX_LISTEN) {
		fprintf(stderr, "gatewayd: at most %d --sink addresses\n", GW_SINK_MAX_LISTEN);
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (gw_parse_listen(addrs[i], &ss[i], &lens[i])) {
			fprintf(stderr, "gatewayd: --sink %s: not an IP:PORT (IPv6 as [ADDR]:PORT)\n",
				addrs[i]);
			return 2;
		}
	}
	if ((rc = main_access(addrs, ss, n, o, &acc)))
		return rc;
	rc = 1;
	signal(SIGPIPE, SIG_IGN);
	if ((sfd = gw_signalfd(SIGTERM, SIGINT, SIGUSR1, 0)) < 0)
		return 1;
	if (gw_sink_new(ss, lens, n, &s, err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "sink: %s", err);
		close(sfd);
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.fd = gw_sink_fd(s);
	epoll_ctl(ep, EPOLL_CTL_ADD, gw_sink_fd(s), &ev);
	gw_sink_set_access(s, &acc);
	explicit_bzero(&acc, sizeof(acc));
	/* bound, and the token read: nothing from here on needs root */
	if (gw_drop_to_nobody(err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "sink: giving up privileges: %s", err);
		gw_sink_free(s);
		close(ep);
		close(sfd);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		gw_log(GW_LOG_INFO, "sink: listening on %s (port %d)", addrs[i], gw_sink_port(s, i));
	gw_log(GW_LOG_INFO, "sink: serving %s; at most %d connections from one address",
	       o->token_file && o->allow ? "clients with the token or from --allow" :
	       o->token_file ? "clients with the token" : o->allow ? "clients from --allow" :
	       "every client (loopback only)", s->acc.max_per_addr);
	for (;;) {
		struct epoll_event got[2];
		int k = epoll_wait(ep, got, 2, -1);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		for (int i = 0; i < k; i++) {
			struct signalfd_siginfo si;

			if (got[i].data.fd != sfd) {
				gw_sink_run(s);
				continue;
			}
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					log_stats(s);
					continue;
				}
				gw_log(GW_LOG_INFO, "signal %u: stopping", si.ssi_signo);
				rc = 0;
				goto out;
			}
		}
	}
out:
	log_stats(s);
	gw_sink_free(s);
	close(ep);
	close(sfd);
	return rc;
}
