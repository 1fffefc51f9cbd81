/* bench/load.c: the bench's load, generated in this process rather than by iperf3
 * children: the TCP flows are gatewayd's own load engine (loadgen.c) from the client to a sink
 * (sink.c) in the server's namespace, both directions at once, each counted where it is
 * received; the UDP flood is a paced sendmmsg from the client to a socket in the server's
 * namespace that counts what arrives.
 * One process and a few wake-ups a second per flow: in a one-CPU UML guest every process
 * switch and system call is CPU taken from the kernel path being measured. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "bench/load.h"
#include "bench/options.h"
#include "bench/run.h"
#include "bench/testbed.h"
#include "load/loadgen.h"
#include "load/sink.h"
#include "sys/fd.h"

#define LOAD_PORT 5201
#define FLOOD_PORT 5203
#define FLOOD_PAYLOAD 1400	/* bytes per datagram: 1428 on the wire, a full-size packet */
#define FLOOD_BATCH 64		/* datagrams per sendmmsg / recvmmsg */
#define FLOOD_STEP_S 0.005	/* the flood's pacing: what is due, every 5 ms */
#define FLOOD_MAX_LAG_S 0.02	/* a late wake-up sends at most this much at once */
#define RCVLOWAT (32 * 1024)	/* a receiver wakes per 32 KB, not per segment */
#define SERIES_S 0.5		/* the flows' series: one point per half second */
#define MAX_POINTS 4096
#define MAX_TICKS 4096		/* the uploads' receiver counts, one per tick: 409 s */
#define RTT_FLOWS (2 * BENCH_TCP_FLOWS_MAX)	/* the loadgen's flows whose RTT is read */

struct series {
	double t[MAX_POINTS];	/* interval end, run time */
	double secs[MAX_POINTS];
	double rate[MAX_POINTS];	/* bytes/s */
	size_t n;
};

/* --family 46: a load engine per family (IPv4's first), the flows numbered across both */
#define MAX_GENS 2

struct bench_load {
	struct gw_sink *sink;
	struct gw_loadgen *gen[MAX_GENS];
	int n_gen;
	int family[MAX_GENS];		/* 4 or 6 */
	int flood_family;
	double t0;			/* the run's clock: bench_now() - t0 */
	double gen_start;		/* run time the loadgen started */
	/* the uploads counted where they arrive (the sink's kernel), every tick: the
	 * sender's acknowledged bytes come back through the other direction's queue, in
	 * bursts when that queue is a deep fifo, and read above the rate over a window */
	size_t up_n;
	double up_t[MAX_TICKS];
	uint64_t up_b[BENCH_TCP_FLOWS_MAX][MAX_TICKS];
	/* every TCP flow's RTT as its sender has it, every tick, by its place across the engines:
	 * an upload's from the client's socket, a download's from the sink's */
	size_t rtt_n[RTT_FLOWS];
	double rtt_t[RTT_FLOWS][MAX_TICKS];
	float rtt_ms[RTT_FLOWS][MAX_TICKS], rttvar_ms[RTT_FLOWS][MAX_TICKS];

	int ftx, frx;			/* the flood's sockets: client side, server side */
	bool flooding;
	double fstart, fend;		/* run time */
	double fnext;			/* next send, run time */
	uint64_t fsent;			/* bytes sent since fstart */
	double frate;			/* payload bytes/s */
	uint64_t frecv;			/* payload bytes counted at the server */
	double fmark_t;			/* the series' last point: time and count */
	uint64_t fmark_b;
	struct series fseries;
	uint8_t buf[FLOOD_PAYLOAD];
};

static int udp_socket(const struct bench_bed *b, int ns, bool rx, char *err, size_t errlen)
{
	struct sockaddr_storage a;
	socklen_t alen = bench_server_addr(b, FLOOD_PORT, &a);
	int fd = -1, r, big = 4 << 20;

	if ((r = bench_enter(b, ns)) == 0) {
		fd = socket(a.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		r = fd < 0 ? -errno : 0;
	}
	bench_enter(b, -1);
	if (r) {
		snprintf(err, errlen, "the flood's socket: %s", strerror(-r));
		return r;
	}
	/* a tick's worth of the flood waits in the receiver until it is counted (root may go
	 * past rmem_max; without root the default is what it gets) */
	if (rx && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (rx ? bind(fd, (struct sockaddr *)&a, alen) < 0 :
		 connect(fd, (struct sockaddr *)&a, alen) < 0) {
		r = -errno;
		snprintf(err, errlen, "the flood's socket (%s %s port %d): %s", rx ? "bind" : "connect",
			 bench_server_ip(b), FLOOD_PORT, strerror(errno));
		close(fd);
		return r;
	}
	return fd;
}

int bench_load_new(const struct bench_bed *b, double t0, struct bench_load **out, char *err,
		   size_t errlen)
{
	struct sockaddr_storage ss[2];
	socklen_t len[2];
	struct bench_load *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return -ENOMEM;
	l->t0 = t0;
	l->ftx = l->frx = -1;
	/* the sink on the server's address, both of them with --family 46 */
	len[0] = bench_server_addr(b, LOAD_PORT, &ss[0]);
	l->flood_family = b->family == AF_INET6 ? 6 : 4;
	len[1] = bench_server_addr_in(AF_INET6, LOAD_PORT, &ss[1]);
	if ((r = bench_enter(b, BENCH_NS_SERVER)) == 0)
		r = gw_sink_new(ss, len, b->dual ? 2 : 1, &l->sink, err, errlen);
	bench_enter(b, -1);
	if (r)
		goto fail;
	gw_sink_set_rcvlowat(l->sink, RCVLOWAT);
	if ((l->frx = udp_socket(b, BENCH_NS_SERVER, true, err, errlen)) < 0 ||
	    (l->ftx = udp_socket(b, BENCH_NS_CLIENT, false, err, errlen)) < 0) {
		r = l->frx < 0 ? l->frx : l->ftx;
		goto fail;
	}
	memset(l->buf, 0x5a, sizeof(l->buf));
	*out = l;
	return 0;
fail:
	bench_load_free(l);
	return r;
}

void bench_load_free(struct bench_load *l)
{
	if (!l)
		return;
	for (int g = 0; g < l->n_gen; g++)
		gw_loadgen_free(l->gen[g]);
	gw_sink_free(l->sink);
	gw_fd_close(&l->ftx);
	gw_fd_close(&l->frx);
	free(l);
}

int bench_load_start_tcp(struct bench_load *l, const struct bench_bed *b,
			 enum bench_profile profile, int flows, double secs, char *err,
			 size_t errlen)
{
	struct gw_loadgen_opts o = {
		.phase = profile == BENCH_PROF_UPLOAD ? GW_PHASE_UPLOAD :
			 profile == BENCH_PROF_DOWNLOAD ? GW_PHASE_DOWNLOAD : GW_PHASE_BOTH,
		.flows = flows > 0 && flows <= BENCH_TCP_FLOWS_MAX ? flows : BENCH_TCP_FLOWS,
		.duration_s = secs,
		.tick_s = BENCH_TICK_S, .fwmark = -1, .rcvlowat = RCVLOWAT,
	};
	int r = 0, n = o.flows;

	if (o.duration_s > GW_LOADGEN_MAX_DURATION_S)
		o.duration_s = GW_LOADGEN_MAX_DURATION_S;
	if (o.duration_s < GW_LOADGEN_MIN_DURATION_S)
		o.duration_s = GW_LOADGEN_MIN_DURATION_S;
	l->gen_start = bench_now() - l->t0;
	/* --family 46 (as flent's rrul46): each way's flows half over IPv4, half over IPv6 (an
	 * odd one over IPv4), each half a load engine of its own; else one over the bed's */
	for (int g = 0; g < (b->dual ? MAX_GENS : 1) && !r; g++) {
		int fam = b->dual ? (g ? AF_INET6 : AF_INET) : b->family;

		o.flows = b->dual ? (g ? n / 2 : n - n / 2) : n;
		if (!o.flows)
			continue;
		o.sinklen = bench_server_addr_in(fam, LOAD_PORT, &o.sink);
		if ((r = bench_enter(b, BENCH_NS_CLIENT)) == 0 &&
		    (r = gw_loadgen_new(&o, &l->gen[l->n_gen], err, errlen)) == 0)
			l->family[l->n_gen++] = fam == AF_INET6 ? 6 : 4;
		bench_enter(b, -1);
	}
	return r;
}

void bench_load_stop_tcp(struct bench_load *l)
{
	for (int g = 0; g < l->n_gen; g++)
		gw_loadgen_stop(l->gen[g]);
}

void bench_load_start_flood(struct bench_load *l, double rate, double secs)
{
	double now = bench_now() - l->t0;

	l->flooding = true;
	l->frate = rate * FLOOD_PAYLOAD / (FLOOD_PAYLOAD + 28);	/* + UDP/IP headers */
	l->fstart = l->fnext = now;
	l->fend = now + secs;
	l->fsent = 0;
	l->fmark_t = now;
	l->fmark_b = l->frecv;
}

/* What arrived at the server, counted (MSG_TRUNC: the length without copying the payload). */
static void flood_count(struct bench_load *l)
{
	struct mmsghdr m[FLOOD_BATCH];
	struct iovec iov[FLOOD_BATCH];
	uint8_t one[FLOOD_BATCH];

	for (int round = 0; round < 64; round++) {
		for (int i = 0; i < FLOOD_BATCH; i++) {
			iov[i] = (struct iovec){ .iov_base = &one[i], .iov_len = 1 };
			m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		int n = recvmmsg(l->frx, m, FLOOD_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);

		if (n <= 0)
			return;
		for (int i = 0; i < n; i++)
			l->frecv += m[i].msg_len;
		if (n < FLOOD_BATCH)
			return;
	}
}

static void flood_point(struct bench_load *l, double now)
{
	struct series *s = &l->fseries;
	double dt = now - l->fmark_t;

	if (dt <= 0 || s->n == MAX_POINTS)
		return;
	s->t[s->n] = now;
	s->secs[s->n] = dt;
	s->rate[s->n] = (double)(l->frecv - l->fmark_b) / dt;
	s->n++;
	l->fmark_t = now;
	l->fmark_b = l->frecv;
}

static void flood_send(struct bench_load *l, double now)
{
	struct mmsghdr m[FLOOD_BATCH];
	struct iovec iov = { .iov_base = l->buf, .iov_len = FLOOD_PAYLOAD };
	double until = fmin(now, l->fend);
	double due = l->frate * (until - l->fstart) - (double)l->fsent;

	/* a late wake-up does not send the whole backlog at once */
	if (due > l->frate * FLOOD_MAX_LAG_S) {
		l->fsent += (uint64_t)(due - l->frate * FLOOD_MAX_LAG_S);
		due = l->frate * FLOOD_MAX_LAG_S;
	}
	while (due >= FLOOD_PAYLOAD) {
		int k = (int)fmin(FLOOD_BATCH, floor(due / FLOOD_PAYLOAD)), n;

		for (int i = 0; i < k; i++)
			m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
		n = sendmmsg(l->ftx, m, (unsigned int)k, MSG_DONTWAIT);
		if (n <= 0) {
			/* the client's own queue is full: what was due is lost, as a flood's is */
			l->fsent += (uint64_t)k * FLOOD_PAYLOAD;
			break;
		}
		l->fsent += (uint64_t)n * FLOOD_PAYLOAD;
		due -= n * FLOOD_PAYLOAD;
	}
	l->fnext = now + FLOOD_STEP_S;
}

int bench_load_fds(const struct bench_load *l, int fds[BENCH_LOAD_FDS])
{
	int n = 0;

	fds[n++] = gw_sink_fd(l->sink);
	for (int g = 0; g < l->n_gen; g++)
		if (!gw_loadgen_done(l->gen[g]))
			fds[n++] = gw_loadgen_fd(l->gen[g]);
	return n;
}

/* Each upload's bytes as received by the sink now. */
static void count_uploads(struct bench_load *l, double now)
{
	size_t k = l->up_n, u = 0;

	if (k == MAX_TICKS)
		return;
	l->up_t[k] = now;
	for (int g = 0; g < l->n_gen; g++)
		for (size_t i = 0; i < gw_loadgen_n_flows(l->gen[g]) && u < BENCH_TCP_FLOWS_MAX; i++) {
			const struct gw_loadgen_flow *f = gw_loadgen_flow(l->gen[g], i);
			uint64_t b;

			if (f->dir != GW_FLOW_UP)
				continue;
			if (!f->accepted || gw_sink_upload_bytes(l->sink, f->local_port, &b))
				b = k ? l->up_b[u][k - 1] : 0;	/* not (or no longer) there */
			l->up_b[u++][k] = b;
		}
	l->up_n++;
}

/* Each TCP flow's smoothed RTT now, read at its sender. A flow without a figure this tick
 * (not yet accepted, no ACK measured yet, ended) has no point: a gap, not a zero. */
static void sample_rtt(struct bench_load *l, double now)
{
	size_t j = 0;	/* the flow's place across the engines */

	for (int g = 0; g < l->n_gen; g++)
		for (size_t i = 0; i < gw_loadgen_n_flows(l->gen[g]) && j < RTT_FLOWS; i++, j++) {
			const struct gw_loadgen_flow *f = gw_loadgen_flow(l->gen[g], i);
			size_t k = l->rtt_n[j];
			uint32_t rtt, var;
			int e;

			if (k == MAX_TICKS || !f->accepted || gw_loadgen_done(l->gen[g]))
				continue;
			e = f->dir == GW_FLOW_UP ? gw_loadgen_flow_rtt(l->gen[g], i, &rtt, &var) :
				gw_sink_download_rtt(l->sink, f->local_port, &rtt, &var);
			if (e)
				continue;
			l->rtt_t[j][k] = now;
			l->rtt_ms[j][k] = (float)(rtt / 1000.0);
			l->rttvar_ms[j][k] = (float)(var / 1000.0);
			l->rtt_n[j]++;
		}
}

double bench_load_run(struct bench_load *l, bool tick)
{
	double now = bench_now() - l->t0;

	bool running = false;

	gw_sink_run(l->sink);
	for (int g = 0; g < l->n_gen; g++)
		if (!gw_loadgen_done(l->gen[g])) {
			gw_loadgen_run(l->gen[g]);
			running |= !gw_loadgen_done(l->gen[g]);
		}
	if (tick && running) {
		count_uploads(l, now);
		sample_rtt(l, now);
	}
	if (l->flooding && now >= l->fnext)
		flood_send(l, now);
	if (tick) {
		flood_count(l);
		if (l->flooding && now - l->fmark_t >= SERIES_S - BENCH_TICK_S / 2)
			flood_point(l, now);
	}
	if (l->flooding && now >= l->fend + 0.5) {	/* the last datagrams' way across */
		flood_count(l);
		flood_point(l, now);
		l->flooding = false;
	}
	/* past its end the flood only waits for its last datagrams: counted on ticks */
	return l->flooding && now < l->fend ? l->fnext : INFINITY;
}

const char *bench_load_error(const struct bench_load *l)
{
	for (int g = 0; g < l->n_gen; g++) {
		const char *e = gw_loadgen_error(l->gen[g]);

		if (e[0])
			return e;
		for (size_t i = 0; i < gw_loadgen_n_flows(l->gen[g]); i++)
			if (gw_loadgen_flow(l->gen[g], i)->error[0])
				return gw_loadgen_flow(l->gen[g], i)->error;
	}
	return "";
}

static int put_series(struct bench_flow *f, const struct series *s)
{
	if (!s->n)
		return 0;
	f->t = malloc(s->n * sizeof(*f->t));
	f->secs = malloc(s->n * sizeof(*f->secs));
	f->rate = malloc(s->n * sizeof(*f->rate));
	if (!f->t || !f->secs || !f->rate)
		return -ENOMEM;
	memcpy(f->t, s->t, s->n * sizeof(*f->t));
	memcpy(f->secs, s->secs, s->n * sizeof(*f->secs));
	memcpy(f->rate, s->rate, s->n * sizeof(*f->rate));
	f->n = s->n;
	return 0;
}

/* Loadgen flow i's RTT ticks into f. */
static int put_rtt(struct bench_flow *f, const struct bench_load *l, size_t i)
{
	size_t n = i < RTT_FLOWS ? l->rtt_n[i] : 0;

	if (!n)
		return 0;
	f->rtt_t = malloc(n * sizeof(*f->rtt_t));
	f->rtt_ms = malloc(n * sizeof(*f->rtt_ms));
	f->rttvar_ms = malloc(n * sizeof(*f->rttvar_ms));
	if (!f->rtt_t || !f->rtt_ms || !f->rttvar_ms)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		f->rtt_t[k] = l->rtt_t[i][k];
		f->rtt_ms[k] = l->rtt_ms[i][k];
		f->rttvar_ms[k] = l->rttvar_ms[i][k];
	}
	f->n_rtt = n;
	return 0;
}

/* A flow's throughput per half second from cumulative byte counts at times t (run time). */
static void to_series(const double *t, const uint64_t *b, size_t nt, struct series *s)
{
	size_t a = 0;

	s->n = 0;
	for (size_t k = 1; k < nt && s->n < MAX_POINTS; k++) {
		if (t[k] - t[a] < SERIES_S - BENCH_TICK_S / 2 && k + 1 < nt)
			continue;
		if (t[k] <= t[a])
			continue;
		s->t[s->n] = t[k];
		s->secs[s->n] = t[k] - t[a];
		s->rate[s->n] = (double)(b[k] > b[a] ? b[k] - b[a] : 0) / (t[k] - t[a]);
		s->n++;
		a = k;
	}
}

/* One engine's flows into r: each one's series and RTT ticks; up and down number the flows
 * across the engines, j is the first one's place among all. */
static int gen_flows(const struct bench_load *l, int g, struct bench_result *r, struct series *s,
		     int *up, int *down, size_t j)
{
	const struct gw_loadgen *gen = l->gen[g];
	size_t nt = gw_loadgen_n_ticks(gen);
	double *t = calloc(nt + 1, sizeof(*t));
	uint64_t *b = calloc(nt + 1, sizeof(*b));
	int ret = 0;

	if (!t || !b) {
		free(t);
		free(b);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nt; k++)
		t[k] = l->gen_start + gw_loadgen_tick_time(gen, k);
	for (size_t i = 0; i < gw_loadgen_n_flows(gen) && r->n_flows + 1 < BENCH_MAX_FLOWS; i++) {
		const struct gw_loadgen_flow *gf = gw_loadgen_flow(gen, i);
		struct bench_flow *f = &r->flows[r->n_flows];
		bool is_up = gf->dir == GW_FLOW_UP;
		int nth = is_up ? ++*up : ++*down;	/* by position, accepted or not */

		if (!gf->accepted)
			continue;
		f->up = is_up;
		f->family = l->family[g];
		snprintf(f->name, sizeof(f->name), "%s%d", is_up ? "up" : "down", nth);
		if (is_up) {	/* received by the sink */
			to_series(l->up_t, l->up_b[*up - 1], l->up_n, s);
		} else {	/* received here: the loadgen's own counts */
			for (size_t k = 0; k < nt; k++)
				b[k] = gw_loadgen_tick_bytes(gen, i, k);
			to_series(t, b, nt, s);
		}
		if ((ret = put_series(f, s)) || (ret = put_rtt(f, l, j + i)))
			break;
		r->n_flows++;
	}
	free(t);
	free(b);
	return ret;
}

int bench_load_flows(const struct bench_load *l, struct bench_result *r)
{
	struct series *s = malloc(sizeof(*s));	/* 96 KB: not on the stack */
	int up = 0, down = 0, ret = 0;
	size_t j = 0;

	if (!s)
		return -ENOMEM;
	for (int g = 0; g < l->n_gen && !ret; g++) {
		ret = gen_flows(l, g, r, s, &up, &down, j);
		j += gw_loadgen_n_flows(l->gen[g]);
	}
	free(s);
	if (ret)
		return ret;
	if (l->fseries.n && r->n_flows < BENCH_MAX_FLOWS) {
		struct bench_flow *f = &r->flows[r->n_flows];

		snprintf(f->name, sizeof(f->name), "udp-flood");
		f->up = true;
		f->udp = true;
		f->family = l->flood_family;
		if ((ret = put_series(f, &l->fseries)))
			return ret;
		r->n_flows++;
	}
	return 0;
}
