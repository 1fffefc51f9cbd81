/* probe/cli.c: `gatewayd -c FILE --probe COUNT`: the prober alone, in the foreground,
 * one line per sample and a summary per target, for people and for tests. One-way delays are
 * printed only where the method gives them (udp, icmp-timestamp): an icmp run's output is what
 * it always was. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "probe/packet.h"
#include "probe/prober.h"
#include "probe/cli.h"
#include "sys/signals.h"

#define KEEP_MAX 1000000	/* RTTs kept per target for the summary's percentiles */

struct cli {
	const struct gw_probe_cfg *cfg;
	FILE *out;
	double *rtt[GW_MAX_PROBE_TARGETS];
	size_t n_rtt[GW_MAX_PROBE_TARGETS], cap;
	double *owd[2][GW_MAX_PROBE_TARGETS];	/* up, down; NULL for a method without them */
	size_t n_owd[2][GW_MAX_PROBE_TARGETS];
	uint64_t samples[GW_MAX_PROBE_TARGETS], lost[GW_MAX_PROBE_TARGETS];
	uint64_t link_lost[GW_MAX_PROBE_TARGETS], link_samples[GW_MAX_PROBE_TARGETS];
};

static void on_sample(void *ctx, const struct gw_probe_sample *s)
{
	struct cli *c = ctx;
	int i = s->target;

	fprintf(c->out, "%s seq=%u rtt_ms=%.3f lost=%d reordered=%d up=%d sent=%.6f",
		c->cfg->targets[i].host, s->seq, s->rtt_ms, s->lost, s->reordered, s->target_up,
		s->sent_wall);
	if (isfinite(s->owd_up_ms) || isfinite(s->owd_down_ms))
		fprintf(c->out, " owd_up_ms=%.3f owd_down_ms=%.3f", s->owd_up_ms, s->owd_down_ms);
	fputc('\n', c->out);
	for (int d = 0; d < 2; d++) {
		double v = d ? s->owd_down_ms : s->owd_up_ms;

		if (c->owd[d][i] && isfinite(v) && c->n_owd[d][i] < c->cap)
			c->owd[d][i][c->n_owd[d][i]++] = v;
	}
	c->samples[i]++;
	c->lost[i] += s->lost;
	if (s->target_up) {
		c->link_samples[i]++;
		c->link_lost[i] += s->lost;
	}
	if (!s->lost && c->n_rtt[i] < c->cap)
		c->rtt[i][c->n_rtt[i]++] = s->rtt_ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank on a sorted array. */
static double pct(const double *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return NAN;
	k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

/* "; owd_ms up_min .. down_p99 .." for a target with one-way delays, "" for one without
 * (their own words: the tests read " p50 " as the RTT's) */
static void owd_summary(struct cli *c, size_t i, char *buf, size_t len)
{
	size_t n[2] = { c->n_owd[0][i], c->n_owd[1][i] };
	double *v[2] = { c->owd[0][i], c->owd[1][i] };

	buf[0] = '\0';
	if (!n[0] && !n[1])
		return;
	for (int d = 0; d < 2; d++)
		qsort(v[d], n[d], sizeof(double), cmp_double);
	snprintf(buf, len, "; owd_ms up_min %.3f up_p50 %.3f up_p99 %.3f down_min %.3f "
		 "down_p50 %.3f down_p99 %.3f", n[0] ? v[0][0] : NAN, pct(v[0], n[0], 0.5),
		 pct(v[0], n[0], 0.99), n[1] ? v[1][0] : NAN, pct(v[1], n[1], 0.5),
		 pct(v[1], n[1], 0.99));
}

static void summary(struct cli *c, struct gw_prober *p)
{
	struct gw_probe_target_state st[GW_MAX_PROBE_TARGETS];
	size_t i, n = gw_prober_targets(p, st, GW_MAX_PROBE_TARGETS);

	for (i = 0; i < n; i++) {
		double *v = c->rtt[i];
		size_t k = c->n_rtt[i];
		char owd[160];

		qsort(v, k, sizeof(*v), cmp_double);
		owd_summary(c, i, owd, sizeof(owd));
		fprintf(c->out, "# %s: samples %llu received %zu lost %llu (%.2f%%) link_lost %llu "
			"(%.2f%%) duplicates %llu reordered %llu late %llu invalid %llu kernel_stamps tx %llu rx %llu; rtt_ms min "
			"%.3f p50 %.3f p90 %.3f p99 %.3f max %.3f%s; %s\n", c->cfg->targets[i].host,
			(unsigned long long)c->samples[i], k, (unsigned long long)c->lost[i],
			c->samples[i] ? 100.0 * (double)c->lost[i] / (double)c->samples[i] : 0.0,
			(unsigned long long)c->link_lost[i], c->link_samples[i] ?
			100.0 * (double)c->link_lost[i] / (double)c->link_samples[i] : 0.0,
			(unsigned long long)st[i].duplicates, (unsigned long long)st[i].reordered,
			(unsigned long long)st[i].late, (unsigned long long)st[i].invalid,
			(unsigned long long)st[i].tx_stamps, (unsigned long long)st[i].rx_stamps,
			k ? v[0] : NAN, pct(v, k, 0.5), pct(v, k, 0.9), pct(v, k, 0.99),
			k ? v[k - 1] : NAN, owd, st[i].up ? "up" : "down");
	}
	fflush(c->out);
}

/* The block to run: the global one, else the first link's own; NULL when there is none. */
static const struct gw_probe_cfg *cli_block(const struct gw_config *cfg)
{
	if (cfg->probe.present)
		return &cfg->probe;
	for (size_t i = 0; i < cfg->n_links; i++)
		if (cfg->links[i].probe)
			return cfg->links[i].probe;
	return NULL;
}

static const char *link_interface(const struct gw_config *cfg, const struct gw_probe_cfg *pc)
{
	size_t i;

	for (i = 0; i < cfg->n_links; i++)
		if (!strcmp(cfg->links[i].name, pc->link))
			return cfg->links[i].interface;
	return NULL;
}

static int run(struct gw_prober *p, int sfd, FILE *out)
{
	struct epoll_event ev = { .events = EPOLLIN }, got[2];
	int ep = epoll_create1(EPOLL_CLOEXEC), n, k, ret = 0;

	if (ep < 0)
		return -errno;
	ev.data.u32 = 0;
	epoll_ctl(ep, EPOLL_CTL_ADD, gw_prober_fd(p), &ev);
	ev.data.u32 = 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	while (!gw_prober_done(p)) {
		n = epoll_wait(ep, got, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		for (k = 0; k < n; k++)
			if (got[k].data.u32 == 1)
				goto out;	/* interrupted: the summary of what we have */
		if ((ret = gw_prober_run(p)) < 0)
			break;
		fflush(out);	/* one write per wake-up that reported something, none otherwise */
	}
out:
	close(ep);
	return ret < 0 ? ret : 0;
}

int gw_probe_cli(const struct gw_config *cfg, uint64_t count, FILE *out, char *err,
		 size_t errlen)
{
	const struct gw_probe_cfg *pc = cli_block(cfg);
	struct cli c = { .cfg = pc, .out = out };
	struct gw_prober *p = NULL;
	const char *ifname;
	int sfd, ret;
	size_t i;

	if (!pc) {
		snprintf(err, errlen, "%s: no probe block: nothing to probe", cfg->file);
		return -EINVAL;
	}
	ifname = link_interface(cfg, pc);
	c.cap = count && count < KEEP_MAX ? count : KEEP_MAX;
	for (i = 0; i < pc->n_targets; i++) {
		bool owd = pc->method != GW_PROBE_ICMP;

		if (!(c.rtt[i] = calloc(c.cap, sizeof(double))) ||
		    (owd && (!(c.owd[0][i] = calloc(c.cap, sizeof(double))) ||
			     !(c.owd[1][i] = calloc(c.cap, sizeof(double)))))) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if ((sfd = gw_signalfd(SIGTERM, SIGINT, 0)) < 0) {
		ret = sfd;
		snprintf(err, errlen, "signalfd: %s", strerror(-sfd));
		goto out;
	}
	ret = gw_prober_new(pc, ifname, on_sample, &c, &p, err, errlen);
	if (!ret) {
		gw_prober_limit(p, count);
		fprintf(out, "# probing %zu target%s by %s every %.3f ms, timeout %.0f ms, %lld "
			"bytes, from %s%s%s%s\n", pc->n_targets,
			pc->n_targets == 1 ? "" : "s",
			pc->method != GW_PROBE_ICMP ? gw_prober_method_name(pc->method) :
			gw_prober_raw(p) ? "icmp (raw socket)" : "icmp (ping socket)",
			(double)pc->interval_us / 1000, (double)pc->timeout_us / 1000,
			pc->method == GW_PROBE_ICMP_TS ? (long long)GW_PROBE_TS_LEN :
			(long long)pc->size, ifname ? ifname : "any interface",
			pc->fwmark != GW_UNSET ? " with a fwmark" : "",
			pc->source[0] ? ", source " : "", pc->source);
		ret = run(p, sfd, out);
		summary(&c, p);
		if (ret)
			snprintf(err, errlen, "probe: %s", strerror(-ret));
	}
	gw_prober_free(p);
	close(sfd);
out:
	for (i = 0; i < pc->n_targets; i++) {
		free(c.rtt[i]);
		free(c.owd[0][i]);
		free(c.owd[1][i]);
	}
	return ret;
}
