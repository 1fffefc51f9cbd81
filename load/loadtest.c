/* load/loadtest.c: the active load test: an idle phase, then download, upload and both
 * directions at once, each saturating the link with TCP flows to the sink for load_duration
 * while the prober runs; each phase's latency judged against the idle baseline. */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "sys/clock.h"
#include "probe/latency.h"
#include "load/loadgen.h"
#include "load/loadtest.h"
#include "sys/log.h"
#include "sys/fd.h"
#include "sys/instance.h"
#include "probe/prober.h"
#include "sys/signals.h"

#define N_PHASES 3
#define TAG_PROBER 1u
#define TAG_GEN 2u
#define TAG_TIMER 3u

enum step { S_IDLE, S_LOAD, S_GAP, S_SETTLE, S_DONE };

struct gw_loadtest {
	struct gw_probe_cfg pc;		/* a copy: a reload may free the config */
	char ifname[IFNAMSIZ];
	struct sockaddr_storage sink;
	socklen_t sinklen;
	bool iperf3;
	uint8_t token[GW_LOAD_TOKEN_MAX];	/* from sink_token_file; all zero: none */
	double idle_s, ramp_s, phase_s, settle_s;

	const struct gw_clock *clk;	/* the phases', the engine's and the samples' */
	int ep, timer;
	struct gw_lock lock;		/* one test per namespace (sys/instance.c) */
	struct gw_prober *prober;
	struct gw_loadgen *gen;
	struct gw_latency *lat[N_PHASES];
	enum step step;
	int phase;			/* the phase running, or next after a gap */
	double step_end;		/* clk's now */
	double idle_from, idle_to;
	double load_from[N_PHASES], load_to[N_PHASES];	/* the part judged as loaded */
	struct gw_snap_loadtest res;
};



int gw_loadtest_sink(const char *sink, struct sockaddr_storage *addr, socklen_t *len,
		     bool *iperf3)
{
	*iperf3 = strncmp(sink, "iperf3:", 7) == 0;
	return gw_parse_listen(*iperf3 ? sink + 7 : sink, addr, len);
}

static double idle_seconds(const struct gw_probe_cfg *pc)
{
	double ten = (double)pc->interval_us * 10 / 1e6;

	return ten > GW_LOADTEST_IDLE_S ? ten : GW_LOADTEST_IDLE_S;
}

static double ramp_seconds(double phase_s)
{
	return phase_s / 4 < GW_LOADTEST_RAMP_S ? phase_s / 4 : GW_LOADTEST_RAMP_S;
}

double gw_loadtest_seconds(const struct gw_config *cfg)
{
	const struct gw_probe_cfg *pc = &cfg->probe;

	return idle_seconds(pc) + N_PHASES * ((double)pc->load_duration_us / 1e6 + GW_LOADTEST_GAP_S) -
	       GW_LOADTEST_GAP_S + (double)pc->timeout_us / 1e6 + 0.2;
}

static void arm(struct gw_loadtest *t, double at)
{
	double d = at - gw_clock_now(t->clk);

	if (d < 0.001)
		d = 0.001;
	t->step_end = at;
	gw_clock_arm(t->clk, t->timer, d, 0);
}

/* A probe's outcome, by when it left: idle phase, or the loaded part of a phase. */
void gw_loadtest_sample(void *ctx, const struct gw_probe_sample *s)
{
	struct gw_loadtest *t = ctx;

	if (!s->target_up)
		return;	/* a dead target's silence is not the link's */
	if (s->sent_mono >= t->idle_from && s->sent_mono < t->idle_to) {
		for (int p = 0; p < N_PHASES; p++)
			gw_latency_add(t->lat[p], s, GW_LOAD_IDLE);
		return;
	}
	for (int p = 0; p < N_PHASES; p++) {
		if (s->sent_mono >= t->load_from[p] && s->sent_mono < t->load_to[p]) {
			gw_latency_add(t->lat[p], s, GW_LOAD_LOADED);
			return;
		}
	}
}

static const char *link_interface(const struct gw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_links; i++)
		if (!cfg->probe.link[0] || !strcmp(cfg->links[i].name, cfg->probe.link))
			return cfg->links[i].interface;
	return NULL;
}

static int start_phase(struct gw_loadtest *t, double now)
{
	struct gw_loadgen_opts o = {
		.sink = t->sink, .sinklen = t->sinklen, .iperf3 = t->iperf3,
		.phase = (enum gw_load_phase)t->phase, .flows = t->pc.load_flows,
		.duration_s = t->phase_s, .ramp_s = t->ramp_s,
		.ifname = t->ifname[0] ? t->ifname : NULL,
		.fwmark = t->pc.fwmark >= 0 ? t->pc.fwmark : -1,
		.clock = t->clk,
	};
	struct gw_snap_load_dir *d = &t->res.dirs[t->phase];
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_GEN };
	char err[160] = "";
	int r;

	memcpy(o.token, t->token, sizeof(o.token));

	memset(d, 0, sizeof(*d));
	snprintf(d->direction, sizeof(d->direction), "%s", gw_load_phase_name(o.phase));
	d->goodput_bps = d->down_bps = d->up_bps = d->fairness = NAN;
	d->idle_p50_ms = d->loaded_p50_ms = d->loaded_p99_ms = NAN;
	d->induced_mean_ms = d->induced_p99_ms = NAN;
	t->res.n_dirs = (size_t)t->phase + 1;
	snprintf(t->res.phase, sizeof(t->res.phase), "%s", d->direction);
	r = gw_loadgen_new(&o, &t->gen, err, sizeof(err));
	if (r == 0 && epoll_ctl(t->ep, EPOLL_CTL_ADD, gw_loadgen_fd(t->gen), &ev) < 0)
		r = -errno;
	if (r) {
		snprintf(t->res.error, sizeof(t->res.error), "%s: %s", d->direction,
			 err[0] ? err : strerror(-r));
		return r;
	}
	t->load_from[t->phase] = now + t->ramp_s;
	t->load_to[t->phase] = now + t->phase_s;
	t->step = S_LOAD;
	/* the engine ends itself; this is only a backstop (iperf3 may need its grace) */
	arm(t, now + t->phase_s + 15);
	return 0;
}

static void end_phase(struct gw_loadtest *t, double now)
{
	struct gw_snap_load_dir *d = &t->res.dirs[t->phase];
	double bps[2], fair[2];
	const char *e = gw_loadgen_error(t->gen);

	for (int k = 0; k < 2; k++)
		if (gw_loadgen_goodput(t->gen, (enum gw_flow_dir)k, &bps[k], &fair[k]))
			bps[k] = fair[k] = NAN;
	d->down_bps = bps[GW_FLOW_DOWN];
	d->up_bps = bps[GW_FLOW_UP];
	d->goodput_bps = t->phase == GW_PHASE_DOWNLOAD ? bps[GW_FLOW_DOWN] :
			 t->phase == GW_PHASE_UPLOAD ? bps[GW_FLOW_UP] : bps[0] + bps[1];
	d->fairness = t->phase == GW_PHASE_DOWNLOAD ? fair[0] : t->phase == GW_PHASE_UPLOAD ?
		      fair[1] : fmin(fair[0], fair[1]);
	for (size_t i = 0; i < gw_loadgen_n_flows(t->gen); i++)
		d->flows += gw_loadgen_flow(t->gen, i)->accepted;
	d->n_down_flows = gw_loadgen_flow_rates(t->gen, GW_FLOW_DOWN, d->down_flow_bps,
						GW_SNAP_LOAD_FLOWS);
	d->n_up_flows = gw_loadgen_flow_rates(t->gen, GW_FLOW_UP, d->up_flow_bps,
					      GW_SNAP_LOAD_FLOWS);
	if (e[0] && !t->res.error[0])
		snprintf(t->res.error, sizeof(t->res.error), "%s: %s", d->direction, e);
	/* a flow that stopped early says why, even when the others carried on */
	for (size_t i = 0; !e[0] && !t->res.error[0] && i < gw_loadgen_n_flows(t->gen); i++) {
		const struct gw_loadgen_flow *f = gw_loadgen_flow(t->gen, i);

		if (f->error[0])
			gw_log(GW_LOG_WARNING, "load test %s: flow %zu: %s", d->direction, i, f->error);
	}
	gw_loadgen_free(t->gen);	/* its fd leaves our epoll as it closes */
	t->gen = NULL;
	t->load_to[t->phase] = fmin(t->load_to[t->phase], now);
	t->phase++;
	if (t->phase < N_PHASES) {
		t->step = S_GAP;
		snprintf(t->res.phase, sizeof(t->res.phase), "gap");
		arm(t, now + GW_LOADTEST_GAP_S);
	} else {
		/* the last probes' replies (or time-outs) are still to come */
		t->step = S_SETTLE;
		snprintf(t->res.phase, sizeof(t->res.phase), "settle");
		arm(t, now + t->settle_s);
	}
}

static void finish(struct gw_loadtest *t, double now)
{
	for (int p = 0; p < (int)t->res.n_dirs; p++) {
		struct gw_snap_load_dir *d = &t->res.dirs[p];
		struct gw_snap_latency l;

		gw_latency_summary(t->lat[p], now, &l);
		d->idle_p50_ms = l.idle.p50_ms;
		d->loaded_p50_ms = l.loaded.p50_ms;
		d->loaded_p99_ms = l.loaded.p99_ms;
		d->induced_mean_ms = l.induced_mean_ms;
		d->induced_p99_ms = l.induced_p99_ms;
		d->loaded_samples = l.loaded.samples;
		d->loaded_lost = l.loaded.lost;
		snprintf(d->grade, sizeof(d->grade), "%s", l.grade);
	}
	if (t->gen) {
		gw_loadgen_free(t->gen);
		t->gen = NULL;
	}
	t->step = S_DONE;
	t->res.running = false;
	t->res.phase[0] = '\0';
	t->res.finished_unix = gw_clock_wall(t->clk);
}

/* Move the test along by the clock; a failure ends it (with what was measured). */
static void advance(struct gw_loadtest *t, double now)
{
	switch (t->step) {
	case S_IDLE:
	case S_GAP:
		if (now < t->step_end)
			return;
		if (t->step == S_IDLE)
			t->idle_to = now;
		if (start_phase(t, now))
			finish(t, now);
		return;
	case S_LOAD:
		if (gw_loadgen_done(t->gen) || now >= t->step_end)
			end_phase(t, now);
		if (t->res.error[0] && t->step != S_DONE) {
			t->step = S_SETTLE;
			snprintf(t->res.phase, sizeof(t->res.phase), "settle");
			arm(t, now + t->settle_s);
		}
		return;
	case S_SETTLE:
		if (now >= t->step_end)
			finish(t, now);
		return;
	case S_DONE:
		return;
	}
}

int gw_loadtest_run(struct gw_loadtest *t)
{
	struct epoll_event evs[4];
	int n;

	if (t->step == S_DONE)
		return 1;
	n = epoll_wait(t->ep, evs, 4, 0);
	if (n < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < n; i++) {
		uint64_t exp;

		switch (evs[i].data.u32) {
		case TAG_PROBER:
			gw_prober_run(t->prober);
			break;
		case TAG_GEN:
			if (t->gen)
				gw_loadgen_run(t->gen);
			break;
		case TAG_TIMER:
			if (read(t->timer, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
				return -errno;
			break;
		}
	}
	advance(t, gw_clock_now(t->clk));
	return t->step == S_DONE ? 1 : 0;
}

/* One test at a time per network namespace, daemon or command line: 0, or -errno with err. */
static int take_lock(struct gw_lock *lock, char *err, size_t errlen)
{
	struct gw_lock_holder holder;
	char why[256];
	int r = gw_lock_take(GW_LOCK_LOADTEST, lock, &holder, why, sizeof(why));

	if (r == -EBUSY && holder.pid > 0)
		snprintf(err, errlen, "another load test is running in this network namespace "
			 "(pid %d, uid %u): one at a time", (int)holder.pid, (unsigned)holder.uid);
	else if (r == -EBUSY)
		snprintf(err, errlen, "another load test is running in this network namespace: "
			 "one at a time");
	else if (r)
		snprintf(err, errlen, "its lock: %s", why);
	return r;
}

/* The test's epoll and timer, and its own prober when the daemon's does not feed it: 0, or
 * -errno with err. */
static int open_fds(struct gw_loadtest *t, bool own_prober, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_TIMER };
	int r;

	t->ep = epoll_create1(EPOLL_CLOEXEC);
	r = t->ep < 0 ? -errno : 0;
	if (!r && (t->timer = gw_clock_timer(t->clk)) < 0)
		r = t->timer;
	if (!r && epoll_ctl(t->ep, EPOLL_CTL_ADD, t->timer, &ev) < 0)
		r = -errno;
	if (r) {
		snprintf(err, errlen, "epoll/timer: %s", strerror(-r));
		return r;
	}
	if (!own_prober)
		return 0;
	r = gw_prober_new(&t->pc, t->ifname[0] ? t->ifname : NULL, gw_loadtest_sample, t,
			  &t->prober, err, errlen);
	if (r)
		return r;
	ev.data.u32 = TAG_PROBER;
	if (epoll_ctl(t->ep, EPOLL_CTL_ADD, gw_prober_fd(t->prober), &ev) < 0) {
		r = -errno;
		snprintf(err, errlen, "epoll: %s", strerror(errno));
	}
	return r;
}

static int new_test(const struct gw_config *cfg, const struct gw_clock *clk, bool own_prober,
		    struct gw_loadtest **out, char *err, size_t errlen)
{
	const struct gw_probe_cfg *pc = &cfg->probe;
	const char *ifname = link_interface(cfg);
	struct gw_loadtest *t;
	double total;
	int r = 0;

	if (!pc->present || !pc->sink[0]) {
		snprintf(err, errlen, "no sink configured: a load test needs the probe block's "
			 "'sink' (a gatewayd --sink or an iperf3 server past the link; it never "
			 "picks one by itself)");
		return -EINVAL;
	}
	if (!(t = calloc(1, sizeof(*t))))
		return -ENOMEM;
	t->ep = t->timer = -1;
	t->clk = gw_clock_or_real(clk);
	t->lock = (struct gw_lock){ .fd = -1, .dir = -1 };
	if ((r = take_lock(&t->lock, err, errlen)))
		goto fail;
	t->pc = *pc;
	if (gw_loadtest_sink(pc->sink, &t->sink, &t->sinklen, &t->iperf3)) {
		snprintf(err, errlen, "sink \"%s\": expected \"IP:PORT\" or \"iperf3:IP:PORT\"",
			 pc->sink);
		r = -EINVAL;
		goto fail;
	}
	/* read now, so a new token in the file is taken by the next test without a reload */
	if (pc->sink_token_file[0] && !t->iperf3 &&
	    (r = gw_load_token_read(pc->sink_token_file, t->token, err, errlen)))
		goto fail;
	snprintf(t->ifname, sizeof(t->ifname), "%s", ifname ? ifname : "");
	t->idle_s = idle_seconds(pc);
	t->phase_s = (double)pc->load_duration_us / 1e6;
	t->ramp_s = ramp_seconds(t->phase_s);
	t->settle_s = (double)pc->timeout_us / 1e6 + 0.2;
	total = gw_loadtest_seconds(cfg) + 10;
	for (int p = 0; p < N_PHASES; p++) {
		/* all of the test fits the window: nothing ages out before the summary */
		t->lat[p] = gw_latency_new_rate(total, (double)(pc->n_targets ? pc->n_targets : 1) *
					       1e6 / (double)(pc->interval_us > 0 ? pc->interval_us : 100000));
		if (!t->lat[p]) {
			r = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if ((r = open_fds(t, own_prober, err, errlen)))
		goto fail;
	t->res.present = t->res.running = true;
	t->res.started_unix = gw_clock_wall(t->clk);
	snprintf(t->res.sink, sizeof(t->res.sink), "%s", pc->sink);
	snprintf(t->res.phase, sizeof(t->res.phase), "idle");
	t->res.flows = pc->load_flows;
	t->res.phase_s = t->phase_s;
	t->idle_from = gw_clock_now(t->clk);
	t->idle_to = t->idle_from + t->idle_s;
	t->step = S_IDLE;
	arm(t, t->idle_to);
	*out = t;
	return 0;
fail:
	gw_loadtest_free(t);
	return r;
}

int gw_loadtest_new(const struct gw_config *cfg, struct gw_loadtest **out, char *err,
		    size_t errlen)
{
	/* its own prober stamps its samples on the real clock: so must the test */
	return new_test(cfg, NULL, true, out, err, errlen);
}

int gw_loadtest_new_fed(const struct gw_config *cfg, struct gw_loadtest **out, char *err,
			size_t errlen)
{
	return new_test(cfg, NULL, false, out, err, errlen);
}

int gw_loadtest_new_clock(const struct gw_config *cfg, const struct gw_clock *clk,
			  struct gw_loadtest **out, char *err, size_t errlen)
{
	return new_test(cfg, clk, false, out, err, errlen);
}

void gw_loadtest_free(struct gw_loadtest *t)
{
	if (!t)
		return;
	gw_loadgen_free(t->gen);
	gw_prober_free(t->prober);
	for (int p = 0; p < N_PHASES; p++)
		gw_latency_free(t->lat[p]);
	gw_clock_timer_close(t->clk, &t->timer);
	gw_fd_close(&t->ep);
	gw_lock_release(&t->lock);
	explicit_bzero(t->token, sizeof(t->token));
	free(t);
}

int gw_loadtest_fd(const struct gw_loadtest *t)
{
	return t->ep;
}

void gw_loadtest_result(const struct gw_loadtest *t, struct gw_snap_loadtest *out)
{
	*out = t->res;
}

/* ---- the command line ---- */

/* "          per flow, Mbit/s: 4.91 5.02 ..." under a row (naming the direction when the row
 * has both); nothing when the sink reported sums only. */
static void print_flows(FILE *f, const char *dir, const double *bps, size_t n, bool name)
{
	if (!n)
		return;
	fprintf(f, "%-9s per flow%s%s, Mbit/s:", "", name ? " " : "", name ? dir : "");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %.2f", bps[i] / 1e6);
	fputc('\n', f);
}

static void fmt_ms(char *buf, size_t len, double ms)
{
	if (isnan(ms))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fabs(ms) < 10 ? "%.2f ms" : "%.1f ms", ms);
}

static void print_table(FILE *f, const struct gw_snap_loadtest *r)
{
	fprintf(f, "%-9s %13s %5s %8s %9s %10s %10s %12s %11s %7s %5s\n", "direction", "goodput",
		"flows", "fairness", "idle p50", "loaded p50", "loaded p99", "induced mean",
		"induced p99", "samples", "grade");
	for (size_t i = 0; i < r->n_dirs; i++) {
		const struct gw_snap_load_dir *d = &r->dirs[i];
		char gp[32], ip[16], lp[16], l99[16], im[16], i99[16], fair[16];

		if (isnan(d->goodput_bps))
			snprintf(gp, sizeof(gp), "-");
		else
			snprintf(gp, sizeof(gp), "%.2f Mbit/s", d->goodput_bps / 1e6);
		if (isnan(d->fairness))
			snprintf(fair, sizeof(fair), "-");
		else
			snprintf(fair, sizeof(fair), "%.3f", d->fairness);
		fmt_ms(ip, sizeof(ip), d->idle_p50_ms);
		fmt_ms(lp, sizeof(lp), d->loaded_p50_ms);
		fmt_ms(l99, sizeof(l99), d->loaded_p99_ms);
		fmt_ms(im, sizeof(im), d->induced_mean_ms);
		fmt_ms(i99, sizeof(i99), d->induced_p99_ms);
		fprintf(f, "%-9s %13s %5d %8s %9s %10s %10s %12s %11s %7llu %5s\n", d->direction, gp,
			d->flows, fair, ip, lp, l99, im, i99, (unsigned long long)d->loaded_samples,
			d->grade[0] ? d->grade : "-");
		if (!strcmp(d->direction, "both") && !isnan(d->down_bps))
			fprintf(f, "%-9s %13s (download %.2f + upload %.2f Mbit/s)\n", "", "",
				d->down_bps / 1e6, d->up_bps / 1e6);
		print_flows(f, "download", d->down_flow_bps, d->n_down_flows, d->n_up_flows > 0);
		print_flows(f, "upload", d->up_flow_bps, d->n_up_flows, d->n_down_flows > 0);
	}
}

int gw_loadtest_main(const struct gw_config *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct gw_snap_loadtest res;
	struct gw_loadtest *t;
	char err[512] = "";
	int sfd, ep, r, stopped = 0;

	if (!cfg->probe.present || !cfg->probe.sink[0]) {
		fprintf(stderr, "gatewayd: --load-test: no sink configured in %s: set the probe "
			"block's 'sink' to a host past the link running `gatewayd --sink ADDR:PORT` "
			"(or an iperf3 server, \"iperf3:ADDR:PORT\"); the load test never picks one "
			"by itself\n", cfg->file);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sfd = gw_signalfd(SIGTERM, SIGINT, 0);
	if ((r = gw_loadtest_new(cfg, &t, err, sizeof(err)))) {
		fprintf(stderr, "gatewayd: --load-test: %s\n", err);
		close(sfd);
		return r == -EINVAL ? 2 : 1;
	}
	printf("load test: sink %s, %d flows per direction, %.1f s per phase, about %.0f s in all\n",
	       cfg->probe.sink, cfg->probe.load_flows, (double)cfg->probe.load_duration_us / 1e6,
	       gw_loadtest_seconds(cfg));
	fflush(stdout);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = gw_loadtest_fd(t);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sfd;
	if (sfd >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	while ((r = gw_loadtest_run(t)) == 0) {
		struct epoll_event got[2];

		if (epoll_wait(ep, got, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2 && sfd >= 0; i++) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				stopped = (int)si.ssi_signo;
		}
		if (stopped)
			break;
	}
	gw_loadtest_result(t, &res);
	gw_loadtest_free(t);	/* every flow and probe socket closed, iperf3 killed */
	close(ep);
	gw_fd_close(&sfd);
	if (stopped) {
		fprintf(stderr, "gatewayd: --load-test: stopped by signal %d\n", stopped);
		return 1;
	}
	print_table(stdout, &res);
	if (res.error[0]) {
		fprintf(stderr, "gatewayd: --load-test: %s\n", res.error);
		return 1;
	}
	return r < 0 ? 1 : 0;
}
