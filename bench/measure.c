/* bench/measure.c: one run's measuring on the testbed (bench/measure.h), shared by a queue's
 * run and the varying-link scenario: the daemon's own probers from the client to the server
 * (ICMP, and the VoIP-like UDP stream to the reflector), the load, the counters read every
 * tick, each probe and tick kept with its run time, and the run's schedule called around
 * each tick. The daemon the gateway runs is started and stopped here too. */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "bench/load.h"
#include "bench/measure.h"
#include "bench/options.h"
#include "bench/run.h"
#include "bench/testbed.h"
#include "probe/prober.h"
#include "qdisc/nl.h"
#include "sys/grow.h"

bool bench_interrupted(int sigfd)
{
	struct signalfd_siginfo si;

	return sigfd >= 0 && read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si);
}

/* An ICMP probe's reply (or loss), by the phase it was sent in, not the one it came back in */
static void on_sample(void *arg, const struct gw_probe_sample *s)
{
	struct bench_measure *m = arg;
	struct bench_result *r = m->r;
	float t = (float)(s->sent_mono - m->t0);

	if (t < 0)	/* the warm-up probes (ARP along the path) are not the run's */
		return;
	if (gw_grow(&r->samples, &r->cap_samples, r->n_samples, sizeof(*r->samples), 1024))
		return;
	r->samples[r->n_samples++] = (struct bench_sample){ .t = t,
		.phase = (uint8_t)m->ops->phase(m->arg, t),
		.rtt_ms = s->lost ? NAN : (float)s->rtt_ms };
	if (!s->lost)
		m->last_rtt = s->rtt_ms;
}

/* A UDP probe's reply: its round trip and one-way delays, by the phase it was sent in. */
static void on_usample(void *arg, const struct gw_probe_sample *s)
{
	struct bench_measure *m = arg;
	struct bench_result *r = m->r;
	float t = (float)(s->sent_mono - m->t0);

	if (t < 0 || gw_grow(&r->usamples, &r->cap_usamples, r->n_usamples,
			     sizeof(*r->usamples), 1024))
		return;
	r->usamples[r->n_usamples++] = (struct bench_usample){ .t = t,
		.phase = (uint8_t)m->ops->phase(m->arg, t),
		.ms = { s->lost ? NAN : (float)s->rtt_ms, s->lost ? NAN : (float)s->owd_up_ms,
			s->lost ? NAN : (float)s->owd_down_ms } };
}

/* One tick: the run's counters, and how busy the bench's CPU is (the guest's one in UML: at
 * 95% and more the figures measure the CPU as much as the queue or the link). */
static void tick(struct bench_measure *m, double t)
{
	struct bench_result *r = m->r;
	struct bench_tick k = { .t = (float)t };
	unsigned long long v[8] = { 0 };
	FILE *f;

	if (gw_grow(&r->ticks, &r->cap_ticks, r->n_ticks, sizeof(*r->ticks), 512))
		return;
	if ((f = fopen("/proc/stat", "re")) &&
	    fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			k.cpu_total += v[i];
		k.cpu_busy = k.cpu_total - v[3] - v[4];	/* less idle and iowait */
	}
	if (f)
		fclose(f);
	if (m->ops->sample(m->arg, &k) == 0)
		r->ticks[r->n_ticks++] = k;
}

/* ICMP (ICMPv6 with --family 6) to the server; with voip, UDP to the server's reflector too,
 * which gives each way's delay: a VoIP-like stream. Sockets made in the client's namespace. */
static int probers_new(struct bench_measure *m)
{
	struct gw_probe_cfg pcfg = {
		.present = true, .method = GW_PROBE_ICMP, .n_targets = 1,
		.interval_us = 1000000 / BENCH_PROBE_HZ,
		.timeout_us = 2000000,	/* a fifo's queue takes a second and more to cross */
		.size = GW_PROBE_SIZE_DEFAULT, .fwmark = GW_UNSET,
	};
	struct gw_probe_cfg ucfg;
	char err[256];
	int ret;

	snprintf(pcfg.targets[0].host, sizeof(pcfg.targets[0].host), "%s", bench_server_ip(m->b));
	pcfg.targets[0].addrlen = bench_server_addr(m->b, 0, &pcfg.targets[0].addr);
	ucfg = pcfg;
	ucfg.method = GW_PROBE_UDP;
	ucfg.interval_us = 1000000 / BENCH_VOIP_HZ;
	ucfg.size = BENCH_VOIP_PAYLOAD;
	/* (--family 46: over IPv6, beside the ICMP probes over IPv4) */
	ucfg.targets[0].addrlen = bench_server_addr_in(m->b->dual ? AF_INET6 : m->b->family,
						       BENCH_REFLECT_PORT, &ucfg.targets[0].addr);
	if ((ret = bench_enter(m->b, BENCH_NS_CLIENT)) == 0 &&
	    (ret = gw_prober_new(&pcfg, NULL, on_sample, m, &m->pr[0], err, sizeof(err))) == 0 &&
	    m->voip)
		ret = gw_prober_new(&ucfg, NULL, on_usample, m, &m->pr[1], err, sizeof(err));
	bench_enter(m->b, -1);
	if (ret)
		snprintf(m->r->note, sizeof(m->r->note), "the prober: %.200s", err);
	return ret;
}

/* The probers' sockets and the load's into pfd; their count. */
static int poll_fds(struct bench_measure *m, struct pollfd *pfd, bool load)
{
	int n = 0, fds[BENCH_LOAD_FDS], nfd = load ? bench_load_fds(m->ld, fds) : 0;

	for (int i = 0; i < 2; i++)
		if (m->pr[i])
			pfd[n++] = (struct pollfd){ .fd = gw_prober_fd(m->pr[i]), .events = POLLIN };
	for (int i = 0; i < nfd; i++)
		pfd[n++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	return n;
}

static void probers_run(struct bench_measure *m)
{
	for (int i = 0; i < 2; i++)
		if (m->pr[i])
			gw_prober_run(m->pr[i]);
}

/* The probers alone for secs: the warm-up's ARP, or the last replies (step ms a poll). */
static void probe_for(struct bench_measure *m, double until, int step_ms)
{
	struct pollfd pfd[2];

	while (bench_now() < until) {
		poll(pfd, (nfds_t)poll_fds(m, pfd, false), step_ms);
		probers_run(m);
	}
}

static int loop(struct bench_measure *m)
{
	const struct bench_measure_ops *ops = m->ops;
	double next_tick = 0, end = INFINITY;
	int e;

	for (;;) {
		struct pollfd pfd[2 + BENCH_LOAD_FDS];
		int n = poll_fds(m, pfd, true);
		double t = bench_now() - m->t0, wake = INFINITY, next_send, w;
		bool due = t >= next_tick;

		if (bench_interrupted(m->sigfd))
			return -EINTR;
		if (t >= end)
			break;
		if (ops->before && (e = ops->before(m->arg, m, t, due, &wake, &end)))
			return e;
		if (due) {
			tick(m, t);
			next_tick = t + BENCH_TICK_S;
		}
		if (ops->after && (e = ops->after(m->arg, m, t, due, &wake, &end)))
			return e;
		next_send = bench_load_run(m->ld, due);
		/* sleep until a probe is due or answered, a flow is ready, the flood's next
		 * datagrams, the schedule's next moment or the next tick: in a one-CPU UML guest
		 * every needless wake-up is CPU taken from the path being measured */
		t = bench_now() - m->t0;
		w = fmin(fmin(next_tick, next_send), wake) - t;
		poll(pfd, (nfds_t)n, w > 0 ? (int)ceil(w * 1000) : 0);
		probers_run(m);
	}
	/* a flow's failure before they are stopped (a stop resets them all) */
	const char *err = bench_load_error(m->ld);

	if (err[0])
		snprintf(m->r->note, sizeof(m->r->note), "a TCP flow: %.200s", err);
	if (ops->done)
		ops->done(m->arg, m);
	return 0;
}

int bench_measure_run(struct bench_measure *m)
{
	struct timespec wall;
	char err[256];
	int ret;

	m->last_rtt = NAN;
	m->pr[0] = m->pr[1] = NULL;
	m->ld = NULL;
	if ((ret = probers_new(m)))
		goto out;
	/* half a second of probes first, so the path's ARP entries exist when the run starts */
	m->t0 = bench_now() + 0.5;
	clock_gettime(CLOCK_REALTIME, &wall);
	m->r->t0_unix = (double)wall.tv_sec + wall.tv_nsec / 1e9 + (m->t0 - bench_now());
	if ((ret = bench_load_new(m->b, m->t0, &m->ld, err, sizeof(err)))) {
		snprintf(m->r->note, sizeof(m->r->note), "the load: %.200s", err);
		goto out;
	}
	probe_for(m, m->t0, 20);
	if ((ret = loop(m)))
		goto out;
	/* the last probes' replies (a fifo may still hold them), then maybe the final counters */
	probe_for(m, bench_now() + m->drain_s, 10);
	if (m->last_tick)
		tick(m, bench_now() - m->t0);
	if ((ret = bench_load_flows(m->ld, m->r)))
		snprintf(m->r->note, sizeof(m->r->note), "out of memory for the flows' series");
out:
	gw_prober_free(m->pr[0]);
	gw_prober_free(m->pr[1]);
	bench_load_free(m->ld);
	m->pr[0] = m->pr[1] = NULL;
	m->ld = NULL;
	return ret;
}

int bench_gw_up(struct bench_bed *b, const struct bench_opts *o, const char *conf, const char *log,
		pid_t *pid, struct gw_nl **nl, int ifidx[2], char *note, size_t notelen)
{
	int ret;

	*nl = NULL;
	if ((*pid = bench_start_gatewayd(b, o, conf, log, note, notelen)) < 0)
		return (int)*pid;
	/* the gateway's netlink socket stays in its namespace */
	if ((ret = bench_enter(b, BENCH_NS_GW)) == 0) {
		ret = gw_nl_open(nl);
		ifidx[0] = (int)if_nametoindex(BENCH_GW_WAN);
		ifidx[1] = (int)if_nametoindex(BENCH_GW_IFB);
	}
	bench_enter(b, -1);
	if (ret || !ifidx[0] || !ifidx[1]) {
		snprintf(note, notelen, "cannot watch the gateway's qdiscs: %s",
			 ret ? strerror(-ret) : "no g1 or ifb");
		ret = ret ? ret : -ENODEV;
		bench_gw_down(*pid, *nl, log, true, note, notelen);
		*pid = 0;
		*nl = NULL;
	}
	return ret;
}

void bench_gw_down(pid_t pid, struct gw_nl *nl, const char *log, bool failed, char *note,
		   size_t notelen)
{
	if (pid > 0) {
		kill(pid, SIGTERM);
		if (bench_reap(pid, 10) != 0 && !failed)
			snprintf(note, notelen, "gatewayd did not stop cleanly (see %.200s)", log);
	}
	gw_nl_close(nl);
}

void bench_tick_rate(const struct bench_result *r, size_t n, double out[2])
{
	out[0] = out[1] = 0;
	if (r->n_ticks <= n)
		return;
	const struct bench_tick *a = &r->ticks[r->n_ticks - 1 - n], *b = &r->ticks[r->n_ticks - 1];
	double dt = b->t - a->t;

	for (int d = 0; d < 2 && dt > 0; d++)
		out[d] = (double)(b->bytes[d] - a->bytes[d]) / dt;
}

bool bench_load_seen(const struct bench_result *r, const double rate[2], double since)
{
	const struct bench_tick *b, *a = NULL;

	if (r->n_ticks < 2)
		return false;
	b = &r->ticks[r->n_ticks - 1];
	for (size_t i = r->n_ticks - 1; i-- > 0;)
		if (b->t - r->ticks[i].t >= 0.3) {
			a = &r->ticks[i];
			break;
		}
	if (!a || a->t < since)
		return false;
	/* either way: behind a fifo one direction's ACKs can wait long behind the other's
	 * data, so both directions need not get going together */
	for (int d = 0; d < 2; d++)
		if ((double)(b->bytes[d] - a->bytes[d]) / (b->t - a->t) >= 0.25 * rate[d])
			return true;
	return false;
}

void bench_tick_window(const struct bench_result *r, double lo, double hi,
		       const struct bench_tick **a, const struct bench_tick **b)
{
	*a = *b = NULL;
	for (size_t i = 0; i < r->n_ticks; i++) {
		if (!*a && r->ticks[i].t >= lo)
			*a = &r->ticks[i];
		if (r->ticks[i].t <= hi)
			*b = &r->ticks[i];
	}
}

double bench_tick_cpu(const struct bench_tick *a, const struct bench_tick *b)
{
	if (!a || !b || b->cpu_total <= a->cpu_total)
		return NAN;
	return (double)(b->cpu_busy - a->cpu_busy) / (double)(b->cpu_total - a->cpu_total);
}
