/* load/loadgen.c: the load generator: TCP flows to a gatewayd sink (or an iperf3 client
 * process for an iperf3 server), non-blocking, every flow's bytes counted at fixed ticks. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/tcp.h>	/* tcp_info with tcpi_bytes_acked (glibc's lacks it) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "sys/clock.h"
#include "sys/fd.h"
#include "sys/helper.h"
#include "load/loadgen.h"
#include "load/sink.h"


enum flow_state { F_CONNECTING, F_REPLY, F_DATA, F_DONE };

struct flow {
	struct gw_loadgen_flow pub;
	int fd;
	enum flow_state state;
	uint8_t reply[GW_LOAD_REPLY_LEN];
	size_t got;
	size_t hdr_len;		/* the header it sent: the sink's acknowledgements count it */
	uint64_t read;		/* payload read (a download) */
};

#define TAG_TIMER 0xffffffffu
#define TAG_PIPE 0xfffffffeu
#define IO_CHUNK 65536
#define IO_ROUNDS 8
#define IPERF3_OUT_MAX (8u << 20)	/* its JSON report: ~1 KB per stream and interval */
#define IPERF3_GRACE_S 8.0		/* past the duration before it is killed */

struct gw_loadgen {
	struct gw_loadgen_opts o;
	const struct gw_clock *clk;	/* o.clock, or the real one */
	int ep, timer;			/* the timer: the ticks, on clk */
	double start, end;		/* clk's now */
	bool done;
	char error[160];
	struct flow *flows;
	size_t n_flows;
	/* the series: times[k], and bytes[f * max_ticks + k] */
	double *times;
	uint64_t *bytes;
	size_t n_ticks, max_ticks;
	/* iperf3 */
	pid_t pid;
	int pipe;
	char *out;
	size_t out_len, out_cap;
	double iperf3_goodput[2], iperf3_fair[2];	/* by enum gw_flow_dir; NAN: none */
	uint8_t buf[IO_CHUNK];
};


const char *gw_load_phase_name(enum gw_load_phase p)
{
	return p == GW_PHASE_DOWNLOAD ? "download" : p == GW_PHASE_UPLOAD ? "upload" : "both";
}

double gw_jain_index(const double *x, size_t n)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	if (n == 0 || sq <= 0)
		return NAN;
	return sum * sum / ((double)n * sq);
}

static int ep_add(struct gw_loadgen *g, int fd, uint32_t events, uint32_t tag, int op)
{
	return gw_epoll_set(g->ep, op, fd, events, (epoll_data_t){ .u32 = tag });
}

/* Bytes that count, as the kernel counts them, so a late read of ours moves nothing between
 * ticks: received (tcpi_bytes_received, less the reply), or acknowledged by the sink
 * (tcpi_bytes_acked, less the header), not merely queued locally. */
static uint64_t flow_bytes(struct flow *f)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	bool down = f->pub.dir == GW_FLOW_DOWN;

	if (f->fd < 0 || f->state != F_DATA)
		return f->pub.bytes;
	if (getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received)) {
		uint64_t k = down ? ti.tcpi_bytes_received : ti.tcpi_bytes_acked;
		uint64_t hdr = down ? GW_LOAD_REPLY_LEN : f->hdr_len;

		if (k > hdr)
			f->pub.bytes = k - hdr;
	} else if (down) {
		f->pub.bytes = f->read;	/* a kernel without the counter: what we read */
	}
	return f->pub.bytes;
}

static void flow_fail(struct gw_loadgen *g, struct flow *f, const char *why, int e)
{
	(void)g;
	if (f->pub.error[0] == '\0')
		snprintf(f->pub.error, sizeof(f->pub.error), "%s%s%s", why, e ? ": " : "",
			 e ? strerror(e) : "");
	if (f->fd >= 0) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		flow_bytes(f);	/* its last count, for the ticks to come */
		setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(f->fd);
		f->fd = -1;
	}
	f->state = F_DONE;
}

static void record_tick(struct gw_loadgen *g, double now)
{
	size_t k = g->n_ticks;

	if (k >= g->max_ticks)
		return;
	g->times[k] = now - g->start;
	for (size_t i = 0; i < g->n_flows; i++)
		g->bytes[i * g->max_ticks + k] = flow_bytes(&g->flows[i]);
	g->n_ticks++;
}

static int flow_open(struct gw_loadgen *g, struct flow *f, uint32_t tag)
{
	const struct gw_loadgen_opts *o = &g->o;
	int fd = socket(o->sink.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	f->fd = fd;
	if (fd < 0)
		return -errno;
	if (o->ifname && o->ifname[0] &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, o->ifname, (socklen_t)strlen(o->ifname)) < 0)
		return -errno;
	if (o->fwmark >= 0) {
		unsigned int mark = (unsigned int)o->fwmark;

		if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0)
			return -errno;
	}
	if (connect(fd, (const struct sockaddr *)&o->sink, o->sinklen) < 0 && errno != EINPROGRESS)
		return -errno;
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);

	if (getsockname(fd, (struct sockaddr *)&me, &ml) == 0)
		f->pub.local_port = ntohs(me.ss_family == AF_INET6 ?
					  ((struct sockaddr_in6 *)&me)->sin6_port :
					  ((struct sockaddr_in *)&me)->sin_port);
	f->state = F_CONNECTING;
	return ep_add(g, fd, EPOLLOUT, tag, EPOLL_CTL_ADD);
}

static void flow_connected(struct gw_loadgen *g, struct flow *f, uint32_t tag)
{
	struct gw_load_hdr h = { .version = g->o.token[0] ? GW_LOAD_VERSION : GW_LOAD_VERSION_1,
				 .mode = f->pub.dir == GW_FLOW_UP ? GW_LOAD_MODE_UPLOAD :
					 GW_LOAD_MODE_DOWNLOAD };
	uint8_t hdr[GW_LOAD_HDR_MAX];
	socklen_t len = sizeof(int);
	double left = g->end - gw_clock_now(g->clk);
	int e = 0;

	if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 || e) {
		flow_fail(g, f, "connect", e ? e : errno);
		return;
	}
	/* the sink's own bound, whatever happens to us: a second after we stop, so a late
	 * timer of ours never sees it end a flow early */
	h.duration_ms = (uint32_t)((left + 1) * 1000 + 0.5);
	if (h.duration_ms < GW_LOAD_MIN_DURATION_MS)
		h.duration_ms = GW_LOAD_MIN_DURATION_MS;
	if (h.duration_ms > GW_LOAD_MAX_DURATION_MS)
		h.duration_ms = GW_LOAD_MAX_DURATION_MS;
	memcpy(h.token, g->o.token, sizeof(h.token));
	f->hdr_len = gw_load_hdr_build(hdr, &h);
	explicit_bzero(h.token, sizeof(h.token));
	/* 12 or 76 bytes into a new socket's empty buffer */
	if (send(f->fd, hdr, f->hdr_len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)f->hdr_len) {
		explicit_bzero(hdr, sizeof(hdr));
		flow_fail(g, f, "sending the header", errno);
		return;
	}
	explicit_bzero(hdr, sizeof(hdr));
	f->state = F_REPLY;
	ep_add(g, f->fd, EPOLLIN, tag, EPOLL_CTL_MOD);
}

static void flow_reply(struct gw_loadgen *g, struct flow *f, uint32_t tag)
{
	ssize_t n = recv(f->fd, f->reply + f->got, sizeof(f->reply) - f->got, 0);
	uint8_t status;
	int r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		flow_fail(g, f, n == 0 ? "the sink closed the connection (not a gatewayd sink?)" :
			  "reading the reply", n == 0 ? 0 : errno);
		return;
	}
	f->got += (size_t)n;
	r = gw_load_reply_parse(f->reply, f->got, &status);
	if (r == -EAGAIN)
		return;
	if (r) {
		flow_fail(g, f, "not a gatewayd sink (bad reply)", 0);
		return;
	}
	if (status != GW_LOAD_OK) {
		flow_fail(g, f, status == GW_LOAD_BAD_VERSION ? "the sink speaks another version" :
			  status == GW_LOAD_REFUSED ? "the sink refused this client (its token or "
			  "address: see the sink's log)" :
			  "the sink refused the request", 0);
		return;
	}
	f->pub.accepted = true;
	f->state = F_DATA;
	if (f->pub.dir == GW_FLOW_DOWN && g->o.rcvlowat > 0)
		setsockopt(f->fd, SOL_SOCKET, SO_RCVLOWAT, &g->o.rcvlowat, sizeof(g->o.rcvlowat));
	ep_add(g, f->fd, f->pub.dir == GW_FLOW_UP ? EPOLLIN | EPOLLOUT : EPOLLIN, tag,
	       EPOLL_CTL_MOD);
}

static void flow_io(struct gw_loadgen *g, struct flow *f, uint32_t events)
{
	ssize_t n;

	if (f->pub.dir == GW_FLOW_DOWN) {
		for (int i = 0; i < IO_ROUNDS; i++) {
			n = recv(f->fd, g->buf, sizeof(g->buf), 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			if (n <= 0) {
				flow_fail(g, f, n == 0 ? "the sink ended the flow early" : "receive",
					  n == 0 ? 0 : errno);
				return;
			}
			f->read += (uint64_t)n;
		}
		return;
	}
	/* the sink sends nothing after its reply: readable means it closed or reset */
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		n = recv(f->fd, g->buf, sizeof(g->buf), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			flow_fail(g, f, n == 0 ? "the sink ended the flow early" : "receive",
				  n == 0 ? 0 : errno);
			return;
		}
	}
	if (!(events & EPOLLOUT))
		return;
	for (int i = 0; i < IO_ROUNDS; i++) {
		n = send(f->fd, g->buf, sizeof(g->buf), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0) {
			flow_fail(g, f, "send", errno);
			return;
		}
	}
}

static void on_flow(struct gw_loadgen *g, uint32_t tag, uint32_t events)
{
	struct flow *f = &g->flows[tag];

	switch (f->state) {
	case F_CONNECTING:
		flow_connected(g, f, tag);
		break;
	case F_REPLY:
		flow_reply(g, f, tag);
		break;
	case F_DATA:
		flow_io(g, f, events);
		break;
	case F_DONE:
		break;
	}
}

static void close_flows(struct gw_loadgen *g)
{
	for (size_t i = 0; i < g->n_flows; i++) {
		struct flow *f = &g->flows[i];

		if (f->fd >= 0) {
			struct linger lg = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
			close(f->fd);
			f->fd = -1;
		}
		if (f->state != F_DONE && !f->pub.accepted && !f->pub.error[0])
			snprintf(f->pub.error, sizeof(f->pub.error), "no answer from the sink");
		f->state = F_DONE;
	}
}

static void finish_native(struct gw_loadgen *g)
{
	size_t ok = 0;

	close_flows(g);
	for (size_t i = 0; i < g->n_flows; i++)
		ok += g->flows[i].pub.accepted;
	if (!ok)
		snprintf(g->error, sizeof(g->error), "the sink accepted no flow: %s",
			 g->flows[0].pub.error);
	g->done = true;
}

/* ---- iperf3 ---- */

static void iperf3_kill(struct gw_loadgen *g)
{
	/* SIGKILL if it still runs, and reaped (by us, or by the launcher that started it) */
	gw_helper_stop(g->pid);
	g->pid = -1;
}

static int iperf3_start(struct gw_loadgen *g, char *err, size_t errlen)
{
	const struct gw_loadgen_opts *o = &g->o;
	char host[INET6_ADDRSTRLEN], port[8], dur[16], omit[16], par[8], tick[16];
	const void *ip = o->sink.ss_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)&o->sink)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)&o->sink)->sin_addr;
	const char *argv[24];
	char path[64];
	int p[2] = { -1, -1 }, n = 0, r;
	int ramp = (int)lround(o->ramp_s), total = (int)ceil(o->duration_s - 1e-9);

	/* iperf3 counts whole seconds; the omitted ramp is part of the duration */
	if (ramp >= total)
		ramp = 0;
	/* by absolute path from the system's directories, never PATH: it parses what a remote
	 * server sends, and runs as nobody with nothing (sys/helper.h) */
	if ((r = gw_helper_find("iperf3", path, sizeof(path), err, errlen)))
		return r;
	inet_ntop(o->sink.ss_family, ip, host, sizeof(host));
	snprintf(port, sizeof(port), "%d", ntohs(((const struct sockaddr_in *)&o->sink)->sin_port));
	snprintf(dur, sizeof(dur), "%d", total - ramp);
	snprintf(omit, sizeof(omit), "%d", ramp);
	snprintf(par, sizeof(par), "%d", o->flows);
	snprintf(tick, sizeof(tick), "%.2f", g->o.tick_s);
	argv[n++] = path;
	argv[n++] = "-c"; argv[n++] = host;
	argv[n++] = "-p"; argv[n++] = port;
	argv[n++] = "-t"; argv[n++] = dur;
	argv[n++] = "-O"; argv[n++] = omit;
	argv[n++] = "-P"; argv[n++] = par;
	argv[n++] = "-i"; argv[n++] = tick;
	argv[n++] = "-J";
	argv[n++] = "--connect-timeout"; argv[n++] = "3000";
	if (o->phase == GW_PHASE_DOWNLOAD)
		argv[n++] = "-R";
	else if (o->phase == GW_PHASE_BOTH)
		argv[n++] = "--bidir";
	if (o->ifname && o->ifname[0]) {
		argv[n++] = "--bind-dev";
		argv[n++] = o->ifname;
	}
	argv[n] = NULL;
	/* our end alone non-blocking: iperf3's stdio on a non-blocking stdout could lose the
	 * report's tail to EAGAIN */
	if (pipe2(p, O_CLOEXEC) < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		r = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-r));
		if (p[0] >= 0) {
			close(p[0]);
			close(p[1]);
		}
		return r;
	}
	r = gw_helper_start(argv, p[1], &g->pid, err, errlen);
	close(p[1]);
	if (r) {
		close(p[0]);
		g->pid = -1;
		return r;
	}
	g->pipe = p[0];
	return ep_add(g, g->pipe, EPOLLIN, TAG_PIPE, EPOLL_CTL_ADD);
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : NAN;
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v && json_object_get_boolean(v);
}

/* o[key] when it is an array (json-c's array calls abort on anything else), else NULL */
static json_object *jarr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

/* element i of array a, or NULL (a NULL) */
static json_object *jidx(json_object *a, size_t i)
{
	return a && i < json_object_array_length(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* A byte count from the report, which carries the server's figures too: a number of bytes a
 * run can have moved (below 2^62), else 0; converting more to uint64_t is undefined. */
static double jbytes(json_object *o, const char *key)
{
	double b = jnum(o, key);

	return isfinite(b) && b > 0 && b < 0x1p62 ? b : 0;
}

/* Streams in the report's order become flows: up where we were the sender. */
static int iperf3_streams(struct gw_loadgen *g, json_object *streams)
{
	size_t n = streams ? json_object_array_length(streams) : 0;

	/* room was made for both directions' flows */
	if (n == 0 || n > 2 * (size_t)g->o.flows)
		return -EPROTO;
	g->n_flows = n;
	for (size_t i = 0; i < n; i++) {
		json_object *s = jidx(streams, i);
		json_object *rcv = jget(s, "receiver"), *snd = jget(s, "sender");

		g->flows[i].fd = -1;
		g->flows[i].state = F_DONE;
		g->flows[i].pub.dir = jbool(snd, "sender") ? GW_FLOW_UP : GW_FLOW_DOWN;
		g->flows[i].pub.accepted = true;
		g->flows[i].pub.bytes = (uint64_t)jbytes(rcv, "bytes");
	}
	return 0;
}

static void iperf3_sums(struct gw_loadgen *g, json_object *end)
{
	json_object *streams = jarr(end, "streams");
	double per[2][2 * GW_LOADGEN_MAX_FLOWS];
	size_t nper[2] = { 0, 0 };
	/* -R: the one sum is the download; otherwise it is the upload, and --bidir's reverse
	 * sum the download */
	enum gw_flow_dir first = g->o.phase == GW_PHASE_DOWNLOAD ? GW_FLOW_DOWN : GW_FLOW_UP;
	double bps = jnum(jget(end, "sum_received"), "bits_per_second");

	g->iperf3_goodput[first] = bps;
	if (g->o.phase == GW_PHASE_BOTH)
		g->iperf3_goodput[GW_FLOW_DOWN] =
			jnum(jget(end, "sum_received_bidir_reverse"), "bits_per_second");
	for (size_t i = 0; i < g->n_flows; i++) {
		json_object *rcv = jget(jidx(streams, i), "receiver");
		int d = g->flows[i].pub.dir;

		if (rcv)
			per[d][nper[d]++] = jbytes(rcv, "bytes");
	}
	for (int d = 0; d < 2; d++)
		g->iperf3_fair[d] = gw_jain_index(per[d], nper[d]);
}

/* The per-interval series, on the test's own clock (iperf3 restarts it after the omitted
 * ramp), and each direction's goodput from the end report's receiver sums. Those divide by the
 * receiver's own time, which behind a big FIFO runs on past the sender's end while the queue
 * drains; the client's interval counts of an upload are what entered its sockets, and over a
 * short test a growing send buffer puts them far above the rate (measured: 132% at 20 mbit). */
static int iperf3_parse(struct gw_loadgen *g)
{
	json_object *root = json_tokener_parse(g->out), *end, *ivs, *e;
	double omit_end = 0;
	int r = -EPROTO;

	if (!root)
		return -EPROTO;
	if ((e = jget(root, "error"))) {
		/* one line in the log, whatever the text (the server has a say in it) */
		snprintf(g->error, sizeof(g->error), "iperf3: %s", json_object_get_string(e));
		for (char *c = g->error; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
		json_object_put(root);
		return -EIO;
	}
	end = jget(root, "end");
	if (iperf3_streams(g, jarr(end, "streams")))
		goto out;
	ivs = jarr(root, "intervals");
	for (size_t k = 0; ivs && k < json_object_array_length(ivs) && k < g->max_ticks; k++) {
		json_object *iv = jidx(ivs, k), *ss = jarr(iv, "streams");
		size_t ns = ss ? json_object_array_length(ss) : 0;
		double t = k ? g->times[k - 1] : 0;

		/* every flow's count goes on, also where an interval leaves its stream out */
		for (size_t i = 0; i < g->n_flows; i++) {
			json_object *s = i < ns ? jidx(ss, i) : NULL;
			double prev = k ? (double)g->bytes[i * g->max_ticks + k - 1] : 0;
			double end_s = jnum(s, "end") + (jbool(s, "omitted") ? 0 : omit_end);

			/* a time the run can have (the clock of a tick no earlier than the last) */
			if (s && isfinite(end_s) && end_s >= t &&
			    end_s <= 2 * GW_LOADGEN_MAX_DURATION_S)
				t = end_s;
			g->bytes[i * g->max_ticks + k] = (uint64_t)fmin(prev + jbytes(s, "bytes"),
									0x1p62);
		}
		if (ns && jbool(jidx(ss, 0), "omitted"))
			omit_end = t;
		g->times[k] = t;
		g->n_ticks = k + 1;
	}
	iperf3_sums(g, end);
	r = 0;
out:
	json_object_put(root);
	return r;
}

/* why: NULL when iperf3 closed its output (its report is read), else why it was killed */
static void iperf3_finish(struct gw_loadgen *g, const char *why)
{
	bool killed = why != NULL;

	if (g->pipe >= 0) {
		close(g->pipe);
		g->pipe = -1;
	}
	/* one that closed its output but did not exit goes too */
	iperf3_kill(g);
	g->done = true;
	if (killed) {
		snprintf(g->error, sizeof(g->error), "iperf3 %s: killed", why);
		return;
	}
	if (!g->out || iperf3_parse(g) < 0) {
		if (!g->error[0])
			snprintf(g->error, sizeof(g->error), "iperf3 gave no usable report");
	}
}

static void iperf3_read(struct gw_loadgen *g)
{
	for (;;) {
		ssize_t n;

		/* grown as the report comes, up to its bound */
		if (g->out_len == g->out_cap) {
			size_t cap = g->out_cap ? 2 * g->out_cap : 65536;
			char *p;

			if (cap > IPERF3_OUT_MAX)
				cap = IPERF3_OUT_MAX;
			if (!(p = realloc(g->out, cap + 1)))
				return iperf3_finish(g, "report: out of memory");
			g->out = p;
			g->out_cap = cap;
		}
		n = read(g->pipe, g->out + g->out_len, g->out_cap - g->out_len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n > 0) {
			g->out_len += (size_t)n;
			g->out[g->out_len] = '\0';
			if (g->out_len < IPERF3_OUT_MAX)
				continue;
		}
		/* EOF, an error, or a report past our bound */
		return iperf3_finish(g, n > 0 ? "report past 8 MiB" : NULL);
	}
}

/* ---- common ---- */

int gw_loadgen_run(struct gw_loadgen *g)
{
	struct epoll_event evs[32];
	int n;

	if (g->done)
		return 1;
	n = epoll_wait(g->ep, evs, 32, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n && !g->done; i++) {
		uint32_t tag = evs[i].data.u32;

		if (tag == TAG_TIMER) {
			uint64_t exp;
			double now = gw_clock_now(g->clk);

			if (read(g->timer, &exp, sizeof(exp)) < 0)
				continue;
			if (g->o.iperf3) {
				if (now >= g->end + IPERF3_GRACE_S)
					iperf3_finish(g, "did not finish in time");
				continue;
			}
			for (size_t j = 0; j < g->n_flows; j++) {
				struct flow *f = &g->flows[j];

				if (f->state < F_DATA && now - g->start >= GW_LOADGEN_CONNECT_S)
					flow_fail(g, f, "no answer from the sink", 0);
			}
			/* the counts are now's, late timer or not: so is the tick's time */
			record_tick(g, now);
			if (now >= g->end)
				finish_native(g);
		} else if (tag == TAG_PIPE) {
			iperf3_read(g);
		} else if (tag < g->n_flows) {
			on_flow(g, tag, evs[i].events);
		}
	}
	return g->done ? 1 : 0;
}

static int check_opts(const struct gw_loadgen_opts *o, char *err, size_t errlen)
{
	if (o->flows < 1 || o->flows > GW_LOADGEN_MAX_FLOWS) {
		snprintf(err, errlen, "flows: 1 to %d per direction", GW_LOADGEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (!(o->duration_s >= GW_LOADGEN_MIN_DURATION_S &&
	      o->duration_s <= GW_LOADGEN_MAX_DURATION_S)) {
		snprintf(err, errlen, "duration: %.1f to %.0f s", GW_LOADGEN_MIN_DURATION_S,
			 GW_LOADGEN_MAX_DURATION_S);
		return -EINVAL;
	}
	if (o->sink.ss_family != AF_INET && o->sink.ss_family != AF_INET6) {
		snprintf(err, errlen, "the sink needs an IPv4 or IPv6 address");
		return -EINVAL;
	}
	if (o->phase > GW_PHASE_BOTH) {
		snprintf(err, errlen, "unknown phase");
		return -EINVAL;
	}
	if (o->iperf3 && o->duration_s < 1) {
		snprintf(err, errlen, "an iperf3 run lasts at least 1 s");
		return -EINVAL;
	}
	return 0;
}

/* A run of o with its flows, series and settings made, and nothing started yet. */
static int loadgen_alloc(const struct gw_loadgen_opts *o, struct gw_loadgen **out, char *err,
			 size_t errlen)
{
	struct gw_loadgen *g;
	size_t per_dir, nf;
	int r;

	if ((r = check_opts(o, err, errlen)))
		return r;
	if (!(g = calloc(1, sizeof(*g))))
		return -ENOMEM;
	g->o = *o;
	g->clk = gw_clock_or_real(o->clock);
	g->pid = -1;
	g->pipe = -1;
	g->iperf3_goodput[0] = g->iperf3_goodput[1] = NAN;
	g->timer = -1;
	if (g->o.tick_s <= 0)
		g->o.tick_s = o->iperf3 ? 0.5 : 0.1;
	if (g->o.tick_s < 0.01)
		g->o.tick_s = 0.01;
	if (!(g->o.ramp_s >= 0 && g->o.ramp_s < g->o.duration_s))
		g->o.ramp_s = 0;
	per_dir = (size_t)o->flows;
	nf = o->phase == GW_PHASE_BOTH ? 2 * per_dir : per_dir;
	/* iperf3 reports the streams it ran: room for both directions whatever the phase */
	g->n_flows = nf;
	g->max_ticks = (size_t)ceil(g->o.duration_s / g->o.tick_s) + 3;
	g->flows = calloc(2 * per_dir, sizeof(*g->flows));
	g->times = calloc(g->max_ticks, sizeof(*g->times));
	g->bytes = calloc(2 * per_dir * g->max_ticks, sizeof(*g->bytes));
	g->ep = -1;
	for (size_t i = 0; g->flows && i < 2 * per_dir; i++)
		g->flows[i].fd = -1;
	if (!g->flows || !g->times || !g->bytes) {
		snprintf(err, errlen, "out of memory");
		gw_loadgen_free(g);
		return -ENOMEM;
	}
	*out = g;
	return 0;
}

int gw_loadgen_new(const struct gw_loadgen_opts *o, struct gw_loadgen **out, char *err,
		   size_t errlen)
{
	struct gw_loadgen *g;
	size_t per_dir, nf;
	int r;

	if ((r = loadgen_alloc(o, &g, err, errlen)))
		return r;
	per_dir = (size_t)o->flows;
	nf = g->n_flows;
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	r = g->ep < 0 ? -errno : 0;
	if (!r && (g->timer = gw_clock_timer(g->clk)) < 0)
		r = g->timer;
	if (!r)
		r = gw_clock_arm(g->clk, g->timer, g->o.tick_s, g->o.tick_s);
	if (!r)
		r = ep_add(g, g->timer, EPOLLIN, TAG_TIMER, EPOLL_CTL_ADD);
	if (r) {
		snprintf(err, errlen, "epoll/timer: %s", strerror(-r));
		goto fail;
	}
	g->start = gw_clock_now(g->clk);
	g->end = g->start + g->o.duration_s;
	if (o->iperf3) {
		if ((r = iperf3_start(g, err, errlen)))
			goto fail;
		*out = g;
		return 0;
	}
	for (size_t i = 0; i < nf; i++) {
		struct flow *f = &g->flows[i];

		f->pub.dir = o->phase == GW_PHASE_UPLOAD || (o->phase == GW_PHASE_BOTH && i >= per_dir) ?
			     GW_FLOW_UP : GW_FLOW_DOWN;
		if ((r = flow_open(g, f, (uint32_t)i))) {
			snprintf(err, errlen, "flow %zu to the sink: %s", i, strerror(-r));
			goto fail;
		}
	}
	record_tick(g, g->start);
	*out = g;
	return 0;
fail:
	gw_loadgen_free(g);
	return r;
}

void gw_loadgen_free(struct gw_loadgen *g)
{
	if (!g)
		return;
	if (g->flows)
		close_flows(g);
	iperf3_kill(g);
	gw_fd_close(&g->pipe);
	gw_clock_timer_close(g->clk, &g->timer);
	gw_fd_close(&g->ep);
	free(g->out);
	free(g->flows);
	free(g->times);
	free(g->bytes);
	free(g);
}

int gw_loadgen_iperf3_report(const struct gw_loadgen_opts *o, const char *text, size_t len,
			     struct gw_loadgen **out, char *err, size_t errlen)
{
	struct gw_loadgen_opts io = *o;
	struct gw_loadgen *g;
	int r;

	io.iperf3 = true;
	if ((r = loadgen_alloc(&io, &g, err, errlen)))
		return r;
	g->done = true;
	if (len >= IPERF3_OUT_MAX) {
		/* as iperf3_read stops reading: killed, its report lost */
		snprintf(g->error, sizeof(g->error), "iperf3 report past 8 MiB: killed");
	} else if (!(g->out = malloc(len + 1))) {
		gw_loadgen_free(g);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	} else {
		memcpy(g->out, text, len);
		g->out[len] = '\0';
		g->out_len = g->out_cap = len;
		if (iperf3_parse(g) < 0 && !g->error[0])
			snprintf(g->error, sizeof(g->error), "iperf3 gave no usable report");
	}
	*out = g;
	return 0;
}

void gw_loadgen_stop(struct gw_loadgen *g)
{
	if (g->done)
		return;
	if (g->o.iperf3) {
		iperf3_finish(g, "stopped before its end");
		return;
	}
	record_tick(g, gw_clock_now(g->clk));
	finish_native(g);
}

int gw_loadgen_fd(const struct gw_loadgen *g)
{
	return g->ep;
}

bool gw_loadgen_done(const struct gw_loadgen *g)
{
	return g->done;
}

const char *gw_loadgen_error(const struct gw_loadgen *g)
{
	return g->error;
}

size_t gw_loadgen_n_flows(const struct gw_loadgen *g)
{
	return g->n_flows;
}

const struct gw_loadgen_flow *gw_loadgen_flow(const struct gw_loadgen *g, size_t i)
{
	return i < g->n_flows ? &g->flows[i].pub : NULL;
}

int gw_loadgen_flow_rtt(const struct gw_loadgen *g, size_t i, uint32_t *rtt_us,
			uint32_t *rttvar_us)
{
	if (i >= g->n_flows || g->flows[i].fd < 0 || g->flows[i].state != F_DATA)
		return -ENOENT;
	return gw_tcp_rtt(g->flows[i].fd, rtt_us, rttvar_us);
}

size_t gw_loadgen_n_ticks(const struct gw_loadgen *g)
{
	return g->n_ticks;
}

double gw_loadgen_tick_time(const struct gw_loadgen *g, size_t k)
{
	return k < g->n_ticks ? g->times[k] : NAN;
}

uint64_t gw_loadgen_tick_bytes(const struct gw_loadgen *g, size_t flow, size_t k)
{
	return flow < g->n_flows && k < g->n_ticks ? g->bytes[flow * g->max_ticks + k] : 0;
}

/* Each native flow of dir's throughput (bits/s) from the ramp to the end, into per (room for
 * max); the count, 0 when there is no such flow or no window yet. */
static size_t window_rates(const struct gw_loadgen *g, enum gw_flow_dir dir, double *per,
			   size_t max)
{
	size_t k0 = 0, k1, n = 0;
	double span;

	if (g->o.iperf3 || g->n_ticks < 2)
		return 0;
	k1 = g->n_ticks - 1;
	/* the first tick at or after the ramp */
	while (k0 < k1 && g->times[k0] < g->o.ramp_s - 1e-6)
		k0++;
	span = g->times[k1] - g->times[k0];
	if (k0 >= k1 || span <= 0)
		return 0;
	for (size_t i = 0; i < g->n_flows && n < max; i++)
		if (g->flows[i].pub.dir == dir)
			per[n++] = (double)(g->bytes[i * g->max_ticks + k1] -
					    g->bytes[i * g->max_ticks + k0]) * 8 / span;
	return n;
}

int gw_loadgen_goodput(const struct gw_loadgen *g, enum gw_flow_dir dir, double *bps,
		       double *fairness)
{
	double per[GW_LOADGEN_MAX_FLOWS], sum = 0;
	size_t n;

	*bps = *fairness = NAN;
	if (g->o.iperf3) {
		if (!isfinite(g->iperf3_goodput[dir]) || g->iperf3_goodput[dir] <= 0)
			return -ENOENT;
		*bps = g->iperf3_goodput[dir];
		*fairness = g->iperf3_fair[dir];
		return 0;
	}
	if (!(n = window_rates(g, dir, per, GW_LOADGEN_MAX_FLOWS)))
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		sum += per[i];
	*bps = sum;
	*fairness = gw_jain_index(per, n);
	return 0;
}

size_t gw_loadgen_flow_rates(const struct gw_loadgen *g, enum gw_flow_dir dir, double *bps,
			     size_t max)
{
	return window_rates(g, dir, bps, max);
}
