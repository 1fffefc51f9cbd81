/* tests/unit/test_loadgen.c: the load-test protocol's header and reply, Jain's index, and the
 * load engine against the sink over loopback (real sockets, no root): both directions, IPv4
 * and IPv6, byte counts that agree with the sink's, refusals and the connection bound; the
 * load test's schedule fed its probes; and an iperf3 client's JSON report read as the load
 * test reads it (gw_loadgen_iperf3_report). The engine, the sink and the load test run on a
 * fake clock (fake_clock.h): what they did by a time is judged on it, to the tick, and the
 * wall clock only bounds the loops. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "config/config.h"
#include "load/loadgen.h"
#include "load/loadtest.h"
#include "load/sink.h"
#include "tests/unit/fake_clock.h"
#include "tests/unit/tap.h"

static void test_header(void)
{
	struct gw_load_hdr h = { .version = 1, .mode = GW_LOAD_MODE_DOWNLOAD, .duration_ms = 2500 };
	struct gw_load_hdr got;
	uint8_t b[GW_LOAD_HDR_LEN], r[GW_LOAD_REPLY_LEN], st;

	gw_load_hdr_build(b, &h);
	CHECK(memcmp(b, "GWLT\x01\x02\x00\x00\x00\x00\x09\xc4", 12) == 0,
	      "header: the documented bytes (magic, version, mode, 0, 0, duration BE)");
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == 0 && got.mode == 2 &&
	      got.duration_ms == 2500 && got.version == 1, "header: round trip");
	for (size_t n = 0; n < sizeof(b); n++)
		if (gw_load_hdr_parse(b, n, &got) != -EAGAIN)
			CHECK(0, "header: a %zu-byte prefix waits for more", n);
	CHECK(1, "header: every prefix asks for more");
	CHECK(gw_load_hdr_parse((const uint8_t *)"G", 1, &got) == -EAGAIN, "header: 'G' waits");
	CHECK(gw_load_hdr_parse((const uint8_t *)"GET / HTTP/1.1\r\n", 16, &got) == -EPROTO,
	      "header: an HTTP request is not ours");
	CHECK(gw_load_hdr_parse((const uint8_t *)"X", 1, &got) == -EPROTO,
	      "header: a wrong first byte is refused at once");
	b[4] = 3;
	CHECK(gw_load_hdr_parse(b, 5, &got) == -EPROTONOSUPPORT && got.version == 3,
	      "header: version 3 refused as unsupported, from its fifth byte");
	b[4] = 1;
	b[5] = 3;
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: mode 3 refused");
	b[5] = 0;
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: mode 0 refused");
	b[5] = 1;
	b[7] = 1;
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: reserved bits refused");
	b[7] = 0;
	h.duration_ms = GW_LOAD_MAX_DURATION_MS + 1;
	gw_load_hdr_build(b, &h);
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: 300.001 s refused");
	h.duration_ms = GW_LOAD_MAX_DURATION_MS;
	gw_load_hdr_build(b, &h);
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == 0, "header: 300 s taken");
	h.duration_ms = GW_LOAD_MIN_DURATION_MS - 1;
	gw_load_hdr_build(b, &h);
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: 99 ms refused");
	h.duration_ms = 0xffffffffu;
	gw_load_hdr_build(b, &h);
	CHECK(gw_load_hdr_parse(b, sizeof(b), &got) == -EINVAL, "header: 2^32-1 ms refused");

	gw_load_reply_build(r, GW_LOAD_BAD_REQUEST);
	CHECK(memcmp(r, "GWLR\x02\x02\x00\x00", 8) == 0,
	      "reply: the documented bytes (the sink's version, 2)");
	CHECK(gw_load_reply_parse(r, 8, &st) == 0 && st == GW_LOAD_BAD_REQUEST, "reply: parsed");
	CHECK(gw_load_reply_parse(r, 7, &st) == -EAGAIN, "reply: short waits");
	CHECK(gw_load_reply_parse((const uint8_t *)"HTTP/1.1", 8, &st) == -EPROTO,
	      "reply: anything else is not a sink");
}

static void test_jain(void)
{
	double eq[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 }, half[2] = { 3, 1 };

	CHECK(fabs(gw_jain_index(eq, 4) - 1) < 1e-12, "jain: equal shares give 1");
	CHECK(fabs(gw_jain_index(one, 4) - 0.25) < 1e-12, "jain: one flow of four gives 1/4");
	CHECK(fabs(gw_jain_index(half, 2) - 0.8) < 1e-12, "jain: 3 and 1 give 16/20");
	CHECK(isnan(gw_jain_index(eq, 0)), "jain: no flows: NAN");
}

/* The clock of the engine, the sink and the load test: it moves only in steps of drive(). */
static struct fake_clock fc;
#define STEP_S 0.01

static double fnow(void)
{
	return fake_clock_now(&fc);
}

/* On to the next whole second: a run started there ends on a tick whose time is exactly its
 * start plus its duration (a double of whole seconds adds without rounding). */
static void align(void)
{
	fake_clock_advance(&fc, ceil(fnow()) - fnow());
}

/* Serve the sink (and run the engine, if any), then move the clock a step, until secs have
 * passed on it or the engine has ended. Before each turn a real poll lets loopback move what
 * is ready (2 ms at most when nothing is: a connection's handshake on loopback is done by
 * then), so sockets go at their own pace and the clock at the test's. */
static void drive(struct gw_sink *s, struct gw_loadgen *g, double secs)
{
	double end = fnow() + secs;

	for (;;) {
		struct pollfd p[2] = { { .fd = gw_sink_fd(s), .events = POLLIN },
				       { .fd = g ? gw_loadgen_fd(g) : -1, .events = POLLIN } };
		double left = end - fnow();

		poll(p, 2, 2);
		gw_sink_run(s);
		if ((g && gw_loadgen_run(g) != 0) || left < 1e-9)
			return;
		fake_clock_advance(&fc, left < STEP_S ? left : STEP_S);
	}
}

static void addr_of(struct sockaddr_storage *ss, socklen_t *len, int family, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = in6addr_loopback;
		*len = sizeof(*a);
	}
}

static void run_phase(struct gw_sink *s, int family, int port, enum gw_load_phase ph)
{
	struct gw_loadgen_opts o = { .phase = ph, .flows = 3, .duration_s = 1.0, .ramp_s = 0.2,
				     .fwmark = -1, .clock = &fc.clock };
	const char *name = gw_load_phase_name(ph);
	const char *fam = family == AF_INET ? "IPv4" : "IPv6";
	struct gw_sink_stats before, after;
	struct gw_loadgen *g;
	char err[256] = "";
	double t0, bps[2], fair[2];
	uint64_t sum[2] = { 0, 0 };
	size_t accepted = 0;
	bool monotonic = true;
	int r;

	addr_of(&o.sink, &o.sinklen, family, port);
	gw_sink_get_stats(s, &before);
	align();
	t0 = fnow();
	r = gw_loadgen_new(&o, &g, err, sizeof(err));
	if (!CHECK(r == 0, "%s %s: generator starts (%s)", fam, name, err))
		return;
	drive(s, g, 5);
	CHECK(gw_loadgen_done(g) && fabs(fnow() - t0 - 1.0) < 1e-9,
	      "%s %s: done at its duration, 1 s on its clock (%.3f s)", fam, name, fnow() - t0);
	CHECK_EQ_STR(gw_loadgen_error(g), "", "loadgen error");
	for (size_t i = 0; i < gw_loadgen_n_flows(g); i++) {
		const struct gw_loadgen_flow *f = gw_loadgen_flow(g, i);

		accepted += f->accepted;
		sum[f->dir] += f->bytes;
		for (size_t k = 1; k < gw_loadgen_n_ticks(g); k++)
			monotonic &= gw_loadgen_tick_bytes(g, i, k) >= gw_loadgen_tick_bytes(g, i, k - 1);
	}
	CHECK_EQ_INT(accepted, ph == GW_PHASE_BOTH ? 6 : 3, "flows accepted");
	CHECK(gw_loadgen_n_ticks(g) == 11 && gw_loadgen_tick_time(g, 0) == 0 &&
	      fabs(gw_loadgen_tick_time(g, 10) - 1.0) < 1e-9,
	      "%s %s: %zu ticks, every 0.1 s from 0 to 1 s (the last at %.3f s)", fam, name,
	      gw_loadgen_n_ticks(g), gw_loadgen_tick_time(g, gw_loadgen_n_ticks(g) - 1));
	CHECK(monotonic, "%s %s: per-flow counts never go back", fam, name);
	drive(s, NULL, 0.3);	/* let the sink see the ends */
	gw_sink_get_stats(s, &after);
	for (int d = 0; d < 2; d++) {
		bool want = ph == GW_PHASE_BOTH || (int)ph == d;
		const char *dn = d == GW_FLOW_DOWN ? "down" : "up";
		/* what the sink moved, against what the flows counted */
		double sink_bytes = d == GW_FLOW_DOWN ? (double)(after.bytes_out - before.bytes_out) :
					(double)(after.bytes_in - before.bytes_in);

		r = gw_loadgen_goodput(g, (enum gw_flow_dir)d, &bps[d], &fair[d]);
		if (!want) {
			CHECK(r == -ENOENT, "%s %s: no %s goodput", fam, name, dn);
			continue;
		}
		printf("# %s %s %s: goodput %.0f Mbit/s, fairness %.3f, flows counted %llu bytes, "
		       "sink %.0f\n", fam, name, dn, bps[d] / 1e6, fair[d],
		       (unsigned long long)sum[d], sink_bytes);
		CHECK(r == 0 && bps[d] > 1e6, "%s %s %s: goodput %.0f Mbit/s", fam, name, dn,
		      bps[d] / 1e6);
		CHECK(fair[d] > 0 && fair[d] <= 1.0 + 1e-9, "%s %s %s: fairness %.3f in (0, 1]", fam,
		      name, dn, fair[d]);
		/* a download's last send buffers never reach us; an upload's acks lead the reads */
		CHECK(sum[d] > 0 && (double)sum[d] <= sink_bytes * 1.02 + 4e6 &&
		      (double)sum[d] >= sink_bytes * 0.8 - 16e6,
		      "%s %s %s: the flows' count %llu agrees with the sink's %.0f", fam, name, dn,
		      (unsigned long long)sum[d], sink_bytes);
	}
	CHECK(after.malformed == before.malformed, "%s %s: nothing malformed", fam, name);
	gw_loadgen_free(g);
}

static int raw_connect(int port, const void *data, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	addr_of(&ss, &sl, AF_INET, port);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (len && send(fd, data, len, MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The longest test the config allows is one the sink takes (its bound is the protocol's). */
static void test_longest(struct gw_sink *s, int port)
{
	struct gw_loadgen_opts o = { .phase = GW_PHASE_BOTH, .flows = 2, .fwmark = -1,
				     .duration_s = GW_LOADGEN_MAX_DURATION_S, .clock = &fc.clock };
	struct gw_loadgen *g;
	char err[256] = "";
	size_t ok = 0;

	addr_of(&o.sink, &o.sinklen, AF_INET, port);
	if (!CHECK(gw_loadgen_new(&o, &g, err, sizeof(err)) == 0, "a 300 s test starts (%s)", err))
		return;
	drive(s, g, 0.3);
	for (size_t i = 0; i < gw_loadgen_n_flows(g); i++)
		ok += gw_loadgen_flow(g, i)->accepted;
	CHECK_EQ_INT(ok, 4, "a 300 s test: the sink took every flow");
	CHECK(!gw_loadgen_done(g), "a 300 s test still runs after 0.3 s");
	gw_loadgen_free(g);
	drive(s, NULL, 0.2);
}

/* Receivers that wake per 32 KB (the comparison bench's setting), and a test stopped early:
 * both directions move and count, the stop is at once and leaves no error. */
static void test_lowat_stop(struct gw_sink *s, int port)
{
	struct gw_loadgen_opts o = { .phase = GW_PHASE_BOTH, .flows = 2, .fwmark = -1,
				     .duration_s = 30, .rcvlowat = 32768, .clock = &fc.clock };
	struct gw_loadgen *g;
	char err[256] = "";
	uint64_t sum[2] = { 0, 0 };
	size_t nt;

	gw_sink_set_rcvlowat(s, 32768);
	addr_of(&o.sink, &o.sinklen, AF_INET, port);
	align();
	if (!CHECK(gw_loadgen_new(&o, &g, err, sizeof(err)) == 0, "low-water flows start (%s)", err))
		return;
	drive(s, g, 0.6);
	/* an upload as the sink received it: found by the client's port, at least what the
	 * client has had acknowledged */
	size_t found = 0, atleast = 0;

	for (size_t i = 0; i < gw_loadgen_n_flows(g); i++) {
		const struct gw_loadgen_flow *f = gw_loadgen_flow(g, i);
		uint64_t rx = 0;

		if (f->dir != GW_FLOW_UP)
			continue;
		if (gw_sink_upload_bytes(s, f->local_port, &rx) == 0) {
			found++;
			atleast += rx >= f->bytes && rx > 0;
		}
	}
	CHECK(found == 2 && atleast == 2,
	      "both uploads found at the sink by port, received >= acknowledged (%zu, %zu)", found,
	      atleast);
	uint64_t none;

	CHECK(gw_sink_upload_bytes(s, 1, &none) == -ENOENT, "no upload from port 1: -ENOENT");
	gw_loadgen_stop(g);
	nt = gw_loadgen_n_ticks(g);
	CHECK(gw_loadgen_done(g) && nt > 0 && fabs(gw_loadgen_tick_time(g, nt - 1) - 0.6) < 1e-9,
	      "stopped before its 30 s: done, its last count at the stop (%.3f s)",
	      nt ? gw_loadgen_tick_time(g, nt - 1) : -1.0);
	CHECK_EQ_STR(gw_loadgen_error(g), "", "a stopped test has no error");
	CHECK(gw_loadgen_run(g) == 1, "run after the stop: finished");
	for (size_t i = 0; i < gw_loadgen_n_flows(g); i++)
		sum[gw_loadgen_flow(g, i)->dir] += gw_loadgen_flow(g, i)->bytes;
	CHECK(sum[GW_FLOW_DOWN] > 1000000 && sum[GW_FLOW_UP] > 1000000,
	      "per 32 KB wake-ups both ways moved data in 0.6 s (%llu down, %llu up)",
	      (unsigned long long)sum[GW_FLOW_DOWN], (unsigned long long)sum[GW_FLOW_UP]);
	CHECK(nt == 8, "ticks: 0 to 0.6 s every 0.1 s, then the stop's (%zu)", nt);
	gw_loadgen_free(g);
	drive(s, NULL, 0.2);
}

/* An upload that trickles below the sink's low-water mark wakes nobody, and is not taken for
 * a stalled one: what waits below the mark is progress. */
static void test_lowat_trickle(struct gw_sink *s, int port)
{
	struct gw_load_hdr h = { .version = 1, .mode = GW_LOAD_MODE_UPLOAD, .duration_ms = 9000 };
	struct gw_sink_stats st0, st;
	uint8_t hdr[GW_LOAD_HDR_LEN], data[100] = { 0 };
	int fd;

	gw_sink_set_rcvlowat(s, 32768);
	gw_sink_get_stats(s, &st0);
	gw_load_hdr_build(hdr, &h);
	fd = raw_connect(port, hdr, sizeof(hdr));
	for (int i = 0; fd >= 0 && i < 7; i++) {
		send(fd, data, sizeof(data), MSG_NOSIGNAL);
		drive(s, NULL, 1.0);
	}
	gw_sink_get_stats(s, &st);
	CHECK(st.idle_closed == st0.idle_closed && st.open == st0.open + 1,
	      "7 s of 100 B/s under a 32 KB mark: still open, not idle-closed (%llu open)",
	      (unsigned long long)st.open);
	CHECK(st.bytes_in - st0.bytes_in >= 400,
	      "what waited under the mark was read (%llu B of 700)",
	      (unsigned long long)(st.bytes_in - st0.bytes_in));
	if (fd >= 0)
		close(fd);
	drive(s, NULL, 0.3);
	gw_sink_set_rcvlowat(s, 0);
}

/* Bad clients: closed and counted; the bound holds; a refused generator says why. */
static void test_refusals(struct gw_sink *s, int port)
{
	struct gw_load_hdr h = { .version = 9, .mode = 1, .duration_ms = 1000 };
	struct gw_sink_stats st0, st;
	uint8_t hdr[GW_LOAD_HDR_LEN], rep[GW_LOAD_REPLY_LEN];
	int fds[GW_SINK_MAX_CONNS + 10], fd;
	size_t n = 0;
	ssize_t got;
	double t0;

	gw_sink_get_stats(s, &st0);
	fd = raw_connect(port, "GET / HTTP/1.0\r\n\r\n", 18);
	drive(s, NULL, 0.2);
	got = recv(fd, rep, sizeof(rep), MSG_DONTWAIT);
	CHECK(got == 0 || (got < 0 && errno == ECONNRESET), "an HTTP request: closed, no reply");
	close(fd);
	gw_load_hdr_build(hdr, &h);
	fd = raw_connect(port, hdr, sizeof(hdr));
	drive(s, NULL, 0.2);
	got = recv(fd, rep, sizeof(rep), MSG_DONTWAIT);
	CHECK(got == 8 && rep[5] == GW_LOAD_BAD_VERSION, "version 9: the reply says bad version");
	close(fd);
	gw_sink_get_stats(s, &st);
	CHECK_EQ_INT(st.malformed - st0.malformed, 2, "two malformed headers counted");
	CHECK_EQ_INT(st.open, 0, "none left open");

	t0 = fnow();
	while (n < sizeof(fds) / sizeof(fds[0]) && (fds[n] = raw_connect(port, NULL, 0)) >= 0) {
		n++;
		drive(s, NULL, 0.005);
	}
	drive(s, NULL, 0.2);
	gw_sink_get_stats(s, &st);
	CHECK(n == GW_SINK_MAX_CONNS + 10, "%zu silent clients connected", n);
	CHECK(st.open <= GW_SINK_MAX_CONNS, "bound: %llu open of at most %d",
	      (unsigned long long)st.open, GW_SINK_MAX_CONNS);
	CHECK(st.refused_full - st0.refused_full >= 10, "bound: %llu refused while full",
	      (unsigned long long)(st.refused_full - st0.refused_full));
	/* the first came at t0: none is closed for its silence short of the time-out */
	drive(s, NULL, t0 + GW_SINK_HDR_TIMEOUT_S - 0.05 - fnow());
	gw_sink_get_stats(s, &st);
	CHECK(st.idle_closed == st0.idle_closed && st.open == GW_SINK_MAX_CONNS,
	      "silent clients: none closed %.2f s after the first came (%llu open)",
	      fnow() - t0, (unsigned long long)st.open);
	drive(s, NULL, GW_SINK_HDR_TIMEOUT_S);
	gw_sink_get_stats(s, &st);
	CHECK(st.open == 0 && st.idle_closed - st0.idle_closed >= GW_SINK_MAX_CONNS - 1,
	      "silent clients closed after the header time-out (%llu idle closed, %llu open)",
	      (unsigned long long)(st.idle_closed - st0.idle_closed), (unsigned long long)st.open);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* A client that asks for a download and never reads: the sink stops at the duration and
 * resets it once the 2 s margin is over, so the connection never outlives duration + margin. */
static void test_never_reads(struct gw_sink *s, int port)
{
	struct gw_load_hdr h = { .version = 1, .mode = GW_LOAD_MODE_DOWNLOAD, .duration_ms = 300 };
	struct gw_sink_stats st0, st;
	uint8_t hdr[GW_LOAD_HDR_LEN];
	double t0 = fnow(), closed = -1;
	int fd;

	gw_sink_get_stats(s, &st0);
	gw_load_hdr_build(hdr, &h);
	fd = raw_connect(port, hdr, sizeof(hdr));
	while (fnow() - t0 < 3.5) {
		drive(s, NULL, 0.05);
		gw_sink_get_stats(s, &st);
		if (st.open == 0 && st.completed > st0.completed) {
			closed = fnow() - t0;
			break;
		}
	}
	/* its duration ends on one of the sink's 100 ms ticks, the margin on another */
	CHECK(closed >= 0.3 + GW_SINK_MARGIN_S - 1e-9 && closed <= 0.3 + GW_SINK_MARGIN_S + 0.25,
	      "a download nobody reads is reset once its duration and the margin are over "
	      "(%.2f s on the sink's clock, of 0.3 + 2)", closed);
	if (fd >= 0)
		close(fd);
}

/* A generator pointed at something that is not a sink fails with a reason, on time. */
static void test_not_a_sink(void)
{
	struct gw_loadgen_opts o = { .phase = GW_PHASE_UPLOAD, .flows = 2, .duration_s = 1.0,
				     .fwmark = -1, .clock = &fc.clock };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct gw_loadgen *g;
	char err[256];
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c1, c2;
	double t0;

	addr_of(&ss, &sl, AF_INET, 0);
	bind(lfd, (struct sockaddr *)&ss, sl);
	listen(lfd, 8);
	o.sinklen = sizeof(o.sink);
	getsockname(lfd, (struct sockaddr *)&o.sink, &o.sinklen);
	align();
	t0 = fnow();
	if (!CHECK(gw_loadgen_new(&o, &g, err, sizeof(err)) == 0, "generator to a plain listener"))
		return;
	c1 = accept(lfd, NULL, NULL);
	c2 = accept(lfd, NULL, NULL);
	send(c1, "HTTP/1.1 400 Bad\r\n", 18, MSG_NOSIGNAL);
	close(c2);
	while (gw_loadgen_run(g) == 0 && fnow() - t0 < 5) {
		struct pollfd p = { .fd = gw_loadgen_fd(g), .events = POLLIN };

		poll(&p, 1, 2);
		fake_clock_advance(&fc, STEP_S);
	}
	CHECK(gw_loadgen_done(g) && strstr(gw_loadgen_error(g), "accepted no flow"),
	      "not a sink: \"%s\"", gw_loadgen_error(g));
	CHECK(strstr(gw_loadgen_flow(g, 0)->error, "not a gatewayd sink") != NULL,
	      "flow 0: \"%s\"", gw_loadgen_flow(g, 0)->error);
	CHECK(fabs(fnow() - t0 - 1.0) < 1e-9, "ended at its duration, 1 s on its clock (%.3f s)",
	      fnow() - t0);
	gw_loadgen_free(g);
	close(c1);
	close(lfd);
}

/* The probe block's sink: a gatewayd sink or an iperf3 server; no sink, no test. */
static void test_config(void)
{
	static const char *links = "links = ( { name = \"wan\"; interface = \"lo\"; egress = { "
				   "shaper = \"tbf\"; rate = \"10mbit\"; child = { kind = \"fifo\"; "
				   "}; }; } );\n";
	char text[1024], err[512] = "";
	struct gw_config *cfg = NULL;
	struct gw_loadtest *t = NULL;
	struct sockaddr_storage ss;
	socklen_t sl;
	bool ip3 = false;

	snprintf(text, sizeof(text), "%sprobe = { targets = [ \"127.0.0.1\" ]; "
		 "sink = \"iperf3:[::1]:5201\"; load_flows = 64; load_duration = \"300s\"; };\n",
		 links);
	CHECK(gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) == 0,
	      "config: an iperf3 sink, 64 flows, 300 s (%s)", err);
	if (cfg) {
		CHECK(gw_loadtest_sink(cfg->probe.sink, &ss, &sl, &ip3) == 0 && ip3 &&
		      ss.ss_family == AF_INET6 && ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == 5201,
		      "iperf3:[::1]:5201 is an IPv6 iperf3 server on 5201");
		/* the config's bounds are the engine's and the protocol's */
		CHECK(cfg->probe.load_flows <= GW_LOADGEN_MAX_FLOWS &&
		      cfg->probe.load_duration_us / 1000 <= GW_LOAD_MAX_DURATION_MS &&
		      2 * cfg->probe.load_flows <= GW_SINK_MAX_CONNS,
		      "the config's largest test fits the engine, the protocol and one sink");
		gw_config_free(cfg);
	}
	CHECK(gw_loadtest_sink("10.0.0.1:7070", &ss, &sl, &ip3) == 0 && !ip3,
	      "10.0.0.1:7070 is a gatewayd sink");
	CHECK(gw_loadtest_sink("iperf3:somehost:1", &ss, &sl, &ip3) != 0, "a host name is refused");
	snprintf(text, sizeof(text), "%sprobe = { targets = [ \"127.0.0.1\" ]; };\n", links);
	cfg = NULL;
	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) == 0) {
		err[0] = '\0';
		CHECK(gw_loadtest_new(cfg, &t, err, sizeof(err)) == -EINVAL && !t &&
		      strstr(err, "no sink configured"), "no sink: refused (\"%.60s...\")", err);
		gw_config_free(cfg);
	} else {
		CHECK(0, "config without a sink loads: %s", err);
	}
}

/* An iperf3 report as `iperf3 -c -J -P 2 -O 1 -i 0.5 -t 1` prints it, cut to what is read. */
#define IPERF3_IV(om, e1, b1, e2, b2) \
	"{ \"streams\": [ { \"end\": " e1 ", \"bytes\": " b1 ", \"omitted\": " om " }, " \
	"{ \"end\": " e2 ", \"bytes\": " b2 ", \"omitted\": " om " } ] }"
#define IPERF3_END(b1, b2, bps) \
	"\"end\": { \"streams\": [ { \"sender\": { \"sender\": true }, \"receiver\": { \"bytes\": " \
	b1 " } }, { \"sender\": { \"sender\": true }, \"receiver\": { \"bytes\": " b2 " } } ], " \
	"\"sum_received\": { \"bits_per_second\": " bps " } }"

static struct gw_loadgen *iperf3_report(const char *text)
{
	struct gw_loadgen_opts o = { .duration_s = 2, .tick_s = 0.5, .ramp_s = 1, .flows = 2,
				     .phase = GW_PHASE_UPLOAD, .fwmark = -1 };
	struct gw_loadgen *g = NULL;
	char err[160];

	o.sink.ss_family = AF_INET;
	if (gw_loadgen_iperf3_report(&o, text, strlen(text), &g, err, sizeof(err)))
		CHECK(0, "iperf3 report: %s", err);
	return g;
}

static void test_iperf3_report(void)
{
	struct gw_loadgen *g;
	double bps, fair;

	g = iperf3_report("{ \"intervals\": [ " IPERF3_IV("true", "0.5", "100", "0.5", "100") ", "
			  IPERF3_IV("true", "1.0", "100", "1.0", "100") ", "
			  IPERF3_IV("false", "0.5", "200", "0.5", "200") ", "
			  IPERF3_IV("false", "1.0", "300", "1.0", "100") " ], "
			  IPERF3_END("500", "300", "6400") " }");
	if (g) {
		int r;

		CHECK(!gw_loadgen_error(g)[0], "iperf3 report: read (%s)", gw_loadgen_error(g));
		CHECK_EQ_INT(gw_loadgen_n_flows(g), 2, "iperf3 report: its two streams are the flows");
		CHECK_EQ_INT(gw_loadgen_flow(g, 1)->bytes, 300, "iperf3 report: a flow's bytes");
		CHECK_EQ_INT(gw_loadgen_n_ticks(g), 4, "iperf3 report: one tick per interval");
		CHECK(gw_loadgen_tick_time(g, 3) == 2.0 && gw_loadgen_tick_time(g, 1) == 1.0,
		      "iperf3 report: after the omitted ramp the clock goes on (%.1f, %.1f)",
		      gw_loadgen_tick_time(g, 1), gw_loadgen_tick_time(g, 3));
		CHECK_EQ_INT(gw_loadgen_tick_bytes(g, 0, 3), 700, "iperf3 report: counts add up");
		r = gw_loadgen_goodput(g, GW_FLOW_UP, &bps, &fair);
		CHECK(r == 0 && bps == 6400 && fair > 0.9 && fair < 1,
		      "iperf3 report: goodput from the receiver's sum "
		      "(%.0f), fairness from the streams (%.3f)", bps, fair);
	}
	gw_loadgen_free(g);
	/* regressions (fuzz_iperf3): json-c aborts on an array call on anything else */
	g = iperf3_report("{ \"intervals\": 5, \"end\": { \"streams\": { \"a\": 1 } } }");
	CHECK(g && !strcmp(gw_loadgen_error(g), "iperf3 gave no usable report"),
	      "iperf3 report: streams that are no array: no report (%s)",
	      g ? gw_loadgen_error(g) : "-");
	gw_loadgen_free(g);
	g = iperf3_report("{ \"intervals\": [ 1, { \"streams\": 7 } ], " IPERF3_END("1", "1", "8") " }");
	CHECK(g && !gw_loadgen_error(g)[0] && gw_loadgen_n_ticks(g) == 2,
	      "iperf3 report: intervals of the wrong type are empty ticks");
	gw_loadgen_free(g);
	/* a figure no count can hold (undefined when converted) and a negative one: nothing */
	g = iperf3_report("{ \"intervals\": [ " IPERF3_IV("false", "0.5", "1e300", "0.5", "-5") " ], "
			  IPERF3_END("1e300", "-7", "1e7") " }");
	CHECK(g && gw_loadgen_flow(g, 0)->bytes == 0 && gw_loadgen_flow(g, 1)->bytes == 0 &&
	      gw_loadgen_tick_bytes(g, 0, 0) == 0, "iperf3 report: impossible byte counts are 0");
	gw_loadgen_free(g);
	/* an interval that leaves a stream out: its count stays where it was, not back at 0 */
	g = iperf3_report("{ \"intervals\": [ " IPERF3_IV("false", "0.5", "10", "0.5", "10") ", "
			  "{ \"streams\": [ { \"end\": 1.0, \"bytes\": 5 } ] } ], "
			  IPERF3_END("15", "10", "100") " }");
	CHECK(g && gw_loadgen_tick_bytes(g, 1, 1) == 10 && gw_loadgen_tick_bytes(g, 0, 1) == 15,
	      "iperf3 report: a stream left out keeps its count");
	gw_loadgen_free(g);
	/* the server has a say in the error text: it is logged as one line */
	g = iperf3_report("{ \"error\": \"unable to connect\\nsecond line\" }");
	CHECK(g && !strcmp(gw_loadgen_error(g), "iperf3: unable to connect second line"),
	      "iperf3 report: its error, on one line (%s)", g ? gw_loadgen_error(g) : "-");
	gw_loadgen_free(g);
}

/* A load test fed its probes, as the daemon feeds it, on the fake clock against the sink: its
 * schedule to the step (2 s idle, three phases of 2 s each with their first 0.5 s left out, a
 * 1 s gap between them, 0.7 s to settle), each probe judged by when it left, and each phase's
 * figures from its flows and its own probes. */
static void test_loadtest_clock(struct gw_sink *s, int port)
{
	static const char *const names[3] = { "download", "upload", "both" };
	/* each phase's probes from its loaded part: 2.5-4, 5.5-7, 8.5-10 s; at 10 ms and 10 ms
	 * more a second, their RTTs lie between these */
	static const double lo[3] = { 35, 65, 95 }, hi[3] = { 49, 79, 109 };
	char text[1024], err[512] = "";
	struct gw_config *cfg = NULL;
	struct gw_loadtest *t = NULL;
	struct gw_snap_loadtest r;
	double t0, start[3] = { -1, -1, -1 };
	int rc = 0;

	snprintf(text, sizeof(text), "links = ( { name = \"wan\"; interface = \"lo\"; egress = { "
		 "shaper = \"tbf\"; rate = \"10mbit\"; }; } );\nprobe = { targets = [ "
		 "\"127.0.0.1\" ]; interval = \"100ms\"; timeout = \"500ms\"; sink = "
		 "\"127.0.0.1:%d\"; load_duration = \"2s\"; load_flows = 2; };\n", port);
	if (!CHECK(gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) == 0,
		   "load test: its config (%s)", err))
		return;
	align();
	t0 = fnow();
	if (!CHECK(gw_loadtest_new_clock(cfg, &fc.clock, &t, err, sizeof(err)) == 0,
		   "load test on the fake clock: starts (%s)", err)) {
		gw_config_free(cfg);
		return;
	}
	/* a probe every 0.1 s, half a step off the schedule's edges, its RTT saying when it
	 * left: 10 ms at the start, 10 ms more every second */
	for (long i = 0; rc == 0 && i < 3000; i++) {
		struct pollfd p[2] = { { .fd = gw_sink_fd(s), .events = POLLIN },
				       { .fd = gw_loadtest_fd(t), .events = POLLIN } };
		double rel = fnow() - t0;

		if (i % 10 == 5) {
			struct gw_probe_sample smp = { .seq = (uint32_t)(i / 10), .sent_mono = fnow(),
						       .sent_wall = 1.7e9 + fnow(), .target_up = true,
						       .rtt_ms = 10 + 10 * rel, .owd_up_ms = NAN,
						       .owd_down_ms = NAN };

			gw_loadtest_sample(t, &smp);
		}
		poll(p, 2, 2);
		gw_sink_run(s);
		rc = gw_loadtest_run(t);
		gw_loadtest_result(t, &r);
		for (int k = 0; k < 3; k++)
			if (start[k] < 0 && !strcmp(r.phase, names[k]))
				start[k] = rel;
		if (rc == 0)
			fake_clock_advance(&fc, STEP_S);
	}
	CHECK(rc == 1 && fabs(fnow() - t0 - 10.7) < 1e-6 && !r.running && !r.error[0],
	      "load test: finished 10.7 s on its clock after it started (%.2f s; \"%s\")",
	      fnow() - t0, r.error);
	CHECK(fabs(r.finished_unix - r.started_unix - 10.7) < 1e-6,
	      "load test: its start and end in unix time, 10.7 s apart on the same clock");
	CHECK(fabs(start[0] - 2) < 1e-6 && fabs(start[1] - 5) < 1e-6 && fabs(start[2] - 8) < 1e-6,
	      "load test: its phases began at 2, 5 and 8 s (%.2f, %.2f, %.2f)", start[0], start[1],
	      start[2]);
	for (int k = 0; k < 3 && r.n_dirs == 3; k++) {
		const struct gw_snap_load_dir *d = &r.dirs[k];

		CHECK(d->flows == (k == 2 ? 4 : 2) && d->goodput_bps > 1e6,
		      "load test %s: %d flows, goodput %.0f Mbit/s", names[k], d->flows,
		      d->goodput_bps / 1e6);
		CHECK(d->loaded_samples == 15 && d->loaded_p50_ms >= lo[k] && d->loaded_p50_ms <= hi[k],
		      "load test %s: the 15 probes of its loaded part judged loaded (%llu), their "
		      "p50 %.1f ms theirs (%.0f-%.0f)", names[k],
		      (unsigned long long)d->loaded_samples, d->loaded_p50_ms, lo[k], hi[k]);
		CHECK(d->idle_p50_ms >= 10 && d->idle_p50_ms <= 29,
		      "load test %s: its idle p50 %.1f ms from the first 2 s (10-29)", names[k],
		      d->idle_p50_ms);
	}
	CHECK_EQ_INT(r.n_dirs, 3, "load test: three phases");
	gw_loadtest_free(t);
	gw_config_free(cfg);
	drive(s, NULL, 0.3);
}

int main(void)
{
	struct sockaddr_storage ss[2];
	socklen_t lens[2];
	struct gw_sink *s;
	char err[256] = "";
	int p4, p6;

	signal(SIGPIPE, SIG_IGN);
	fake_clock_init(&fc, 1000);
	test_header();
	test_jain();
	test_config();
	test_iperf3_report();
	addr_of(&ss[0], &lens[0], AF_INET, 0);
	addr_of(&ss[1], &lens[1], AF_INET6, 0);
	if (!CHECK(gw_sink_new_clock(&fc.clock, ss, lens, 2, &s, err, sizeof(err)) == 0,
		   "sink on 127.0.0.1 and ::1 (%s)", err))
		return tap_done();
	p4 = gw_sink_port(s, 0);
	p6 = gw_sink_port(s, 1);
	CHECK(p4 > 0 && p6 > 0, "sink ports %d, %d", p4, p6);
	run_phase(s, AF_INET, p4, GW_PHASE_DOWNLOAD);
	run_phase(s, AF_INET, p4, GW_PHASE_UPLOAD);
	run_phase(s, AF_INET6, p6, GW_PHASE_BOTH);
	test_longest(s, p4);
	test_never_reads(s, p4);
	test_refusals(s, p4);
	test_lowat_stop(s, p4);
	test_lowat_trickle(s, p4);
	run_phase(s, AF_INET, p4, GW_PHASE_DOWNLOAD);	/* still serving */
	test_loadtest_clock(s, p4);
	gw_sink_free(s);
	test_not_a_sink();
	CHECK_EQ_INT(fake_clock_open(&fc), 0, "every timer on the clock closed again");
	return tap_done();
}
