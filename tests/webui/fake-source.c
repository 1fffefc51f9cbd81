/* tests/webui/fake-source.c: the web UI serving a synthetic snapshot that changes every
 * interval (default 0.5 s): two links, htb with fq_codel and cake classes, a cake shaper with
 * four tins, an idle tbf, a pie class (a kind the page has no code for); the prober on link wan (two targets up, one down) and a finished
 * load test. For the tests in tests/webui; no root, no kernel.
 *
 * usage: webui-fake-server -l ADDR [-l ADDR]... [-a AUTH_FILE] [-i INTERVAL_MS]
 *                          [-f FREEZE_AFTER_S] [-e] [-c COMPARE_DIR] [-p]
 *                          [-t CERT -k KEY] [-H HOST]... [-n FAIL_LIMIT] [-b BACKOFF_S]
 *                          [-m MEMORY_MAX] [-w LOG_WINDOW_S]
 *   -t, -k, -H, -n, -b, -m: tls_cert, tls_key, allowed_hosts, auth_fail_limit,
 *       auth_fail_backoff, http_memory_max; -w: the failed-login log's window (60 s)
 *   log lines go to stderr as "<LEVEL>message"
 *   -f: stop publishing after that many seconds (the snapshot goes stale)
 *   -e: never publish (no snapshot at all)
 *   -p: a prober per link: `probes` lists wan's and one of lan's own (udp, from a source)
 *   -c: the last comparison is read from there, by the daemon's reader (webui/lastcmp.c)
 * Prints "ready" once listening; stops on SIGINT or SIGTERM. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "qdisc/qdisc.h"
#include "tests/unit/xstats.h"
#include "webui/lastcmp.h"
#include "webui/webui.h"

static struct gw_lastcmp lastcmp;

static int fake_compare(void *ctx, const char *name, char **body, size_t *len, char *err,
			size_t errlen)
{
	(void)ctx;
	return gw_lastcmp_read(&lastcmp, name, body, len, err, errlen);
}

struct fake_class {
	const char *name, *kind;
	double rate_mbit, ceil_mbit, phase;
	bool idle;
	int tins;
};

struct fake_dir {
	const char *link, *interface, *device, *direction, *shaper;
	double rate_mbit;
	const struct fake_class *classes;
	size_t n;
};

static const struct fake_class wan_egress[] = {
	{ "interactive", "fq_codel", 10, 95, 0.0, false, 0 },
	{ "bulk", "fq_codel", 70, 95, 1.3, false, 0 },
	{ "video", "cake", 15, 95, 2.1, false, 4 },
};
static const struct fake_class wan_ingress[] = { { "default", "cake", 450, 450, 0.7, false, 4 } };
static const struct fake_class lan_egress[] = { { "default", "fifo", 20, 20, 0, true, 0 } };
static const struct fake_class lan_ingress[] = {
	{ "voip", "fq_codel", 2, 50, 0.4, false, 0 },
	{ "rest", "fq_codel", 48, 50, 2.8, false, 0 },
	{ "games", "pie", 5, 50, 1.9, false, 0 },
};

static const struct fake_dir dirs[] = {
	{ "wan", "eth0", "eth0", "egress", "htb", 95, wan_egress, 3 },
	{ "wan", "eth0", "ifb4eth0", "ingress", "cake", 450, wan_ingress, 1 },
	{ "lan", "eth1", "eth1", "egress", "tbf", 20, lan_egress, 1 },
	{ "lan", "eth1", "ifb4eth1", "ingress", "htb", 50, lan_ingress, 3 },
};
#define N_DIRS (sizeof(dirs) / sizeof(dirs[0]))

struct fake {
	pthread_mutex_t lock;
	struct gw_snapshot *cur;
	double start, interval;
	uint64_t seq;
	/* counters carried from pass to pass: [dir][class], class index max 3 (+1 total) */
	uint64_t bytes[N_DIRS][4], packets[N_DIRS][4], drops[N_DIRS][4];
	uint64_t replies;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* How busy a class is at time t, 0..1: slow waves, different per class. */
static double level(const struct fake_class *c, double t)
{
	if (c->idle)
		return 0.02 + 0.01 * sin(t);
	return fmin(1.0, 0.62 + 0.33 * sin(t / 9.0 + c->phase) + 0.08 * sin(t / 2.3 + c->phase));
}

/* A queue builds as the class nears its ceil: a few ms at the top, with some jitter. */
static double delay_ms(const struct fake_class *c, double t)
{
	double l = level(c, t), q = l > 0.7 ? (l - 0.7) / 0.3 : 0;

	return 0.05 + 14 * q * q * q + (q > 0.5 ? 1.5 * fabs(sin(t * 1.7 + c->phase)) : 0);
}

/* Drops per second: only near the ceil, where the queue is long enough for the AQM. */
static double drops_per_s(const struct fake_class *c, double t)
{
	double l = level(c, t);

	return l > 0.88 ? 60 * (l - 0.88) : 0;
}

static void fill_cake(struct gw_snap_class *o, const struct fake_class *c, double t)
{
	static const double share[] = { 0.0625, 1.0, 0.5, 0.25 };

	struct gw_xstats *x = &o->x;

	x->desc = gw_cake_ops.xdesc;
	xstat_set(x, "capacity_estimate_bits_per_second", (uint64_t)(c->ceil_mbit * 1e6));
	xstat_set(x, "memory_used_bytes", 123456);
	xstat_set(x, "memory_limit_bytes", 4194304);
	x->n_groups = c->tins;
	for (int i = 0; i < c->tins; i++) {
		uint64_t avg = (uint64_t)(delay_ms(c, t + i) * 1000);

		xstat_gset(x, i, "threshold_bits_per_second",
			   (uint64_t)(c->ceil_mbit * 1e6 * share[i]));
		xstat_gset(x, i, "sent_bytes", o->bytes / (uint64_t)(i + 2));
		xstat_gset(x, i, "sent_packets", o->packets / (uint64_t)(i + 2));
		xstat_gset(x, i, "dropped_packets", o->drops / (uint64_t)(i + 2));
		xstat_gset(x, i, "ecn_marked_packets", o->ecn_marks / (uint64_t)(i + 2));
		xstat_gset(x, i, "backlog_bytes", o->backlog_bytes / (uint32_t)(i + 2));
		xstat_gset(x, i, "average_delay_ms", avg);
		xstat_gset(x, i, "peak_delay_ms", avg * 2 + 500);
		xstat_gset(x, i, "base_delay_ms", 150 + 10 * (uint64_t)i);
		xstat_gset(x, i, "sparse_flows", (uint64_t)(i + 1));
		xstat_gset(x, i, "bulk_flows", i == 1 ? 3 : 0);
	}
}

/* pie measures its own delay: the class's queue delay is pie's (as the sampler makes it). */
static void fill_pie(struct gw_snap_class *o)
{
	struct gw_xstats *x = &o->x;

	x->desc = gw_qdisc_ops_by_name("pie")->xdesc;	/* by name, as the registry finds any kind */
	/* the kernel's fraction of 2^64: a tenth of a percent per ms of delay */
	xstat_set(x, "drop_probability", (uint64_t)(o->queue_delay_ms / 1000 *
						    18446744073709551616.0));
	xstat_set(x, "queue_delay_ms", (uint64_t)(o->queue_delay_ms * 1000));
	xstat_set(x, "packets_in", o->packets + o->drops);
	xstat_set(x, "dropped_packets", o->drops);
	xstat_set(x, "overlimit_packets", o->drops / 10);
	xstat_set(x, "max_queue_packets", 40);
	xstat_set(x, "ecn_marked_packets", o->ecn_marks);
}

static void fill_class(struct fake *f, struct gw_snap_class *o, const struct fake_class *c,
		       size_t d, size_t k, double t)
{
	double l = level(c, t), bps = l * c->ceil_mbit * 1e6, drops = drops_per_s(c, t);

	/* a saturated class runs at its ceil, give or take the shaper's error */
	o->saturated = l > 0.85;
	o->accuracy = o->saturated ? 0.988 + 0.012 * sin(t * 0.7 + c->phase) : NAN;
	if (o->saturated)
		bps = o->accuracy * c->ceil_mbit * 1e6;

	snprintf(o->name, sizeof(o->name), "%s", c->name);
	snprintf(o->kind, sizeof(o->kind), "%s", c->kind);
	o->rate_in_force_bytes_per_s = (uint64_t)(c->rate_mbit * 1e6 / 8);
	o->ceil_bytes_per_s = (uint64_t)(c->ceil_mbit * 1e6 / 8);
	f->bytes[d][k] += (uint64_t)(bps / 8 * f->interval);
	f->packets[d][k] += (uint64_t)(bps / 8 * f->interval / 1200);
	f->drops[d][k] += (uint64_t)(drops * f->interval + 0.5);
	o->bytes = f->bytes[d][k];
	o->packets = f->packets[d][k];
	o->drops = f->drops[d][k];
	o->ecn_marks = o->drops / 3;
	o->overlimits = o->packets / 50;
	o->achieved_bytes_per_s = bps / 8;
	o->utilisation = bps / (c->rate_mbit * 1e6);
	o->queue_delay_ms = delay_ms(c, t);
	o->backlog_bytes = (uint32_t)(o->queue_delay_ms / 1000 * bps / 8);
	o->backlog_packets = o->backlog_bytes / 1200;
	o->drops_per_s = drops;
	o->marks_per_s = o->drops_per_s / 3;
	if (!strcmp(c->kind, "fq_codel")) {
		o->x.desc = gw_fq_codel_ops.xdesc;
		xstat_set(&o->x, "max_packet_bytes", 1514);
		xstat_set(&o->x, "new_flow_count", (uint32_t)(o->packets / 100));
		xstat_set(&o->x, "new_flows", 1);
		xstat_set(&o->x, "old_flows", 2);
		xstat_set(&o->x, "memory_used_bytes", o->backlog_packets * 2048);
	}
	if (!strcmp(c->kind, "pie"))
		fill_pie(o);
	if (c->tins)
		fill_cake(o, c, t);
}

static void fill_total(struct gw_snap_dir *o, const struct fake_dir *d)
{
	struct gw_snap_class *t = &o->total;

	snprintf(t->name, sizeof(t->name), "total");
	snprintf(t->kind, sizeof(t->kind), "%s", d->shaper);
	t->rate_in_force_bytes_per_s = t->ceil_bytes_per_s = o->rate_in_force_bytes_per_s;
	for (size_t k = 0; k < o->n_classes; k++) {
		const struct gw_snap_class *c = &o->classes[k];

		t->bytes += c->bytes;
		t->packets += c->packets;
		t->drops += c->drops;
		t->ecn_marks += c->ecn_marks;
		t->overlimits += c->overlimits;
		t->backlog_bytes += c->backlog_bytes;
		t->backlog_packets += c->backlog_packets;
		t->achieved_bytes_per_s += c->achieved_bytes_per_s;
		t->drops_per_s += c->drops_per_s;
		t->marks_per_s += c->marks_per_s;
		t->queue_delay_ms = fmax(t->queue_delay_ms, c->queue_delay_ms);
	}
	t->achieved_bytes_per_s = fmin(t->achieved_bytes_per_s, (double)o->rate_in_force_bytes_per_s * 0.999);
	t->utilisation = t->achieved_bytes_per_s / (double)o->rate_in_force_bytes_per_s;
	t->saturated = t->utilisation > 0.95;
	t->accuracy = t->saturated ? t->utilisation : NAN;
}

/* The prober on link wan: a 12 ms baseline, the loaded figures following how busy the
 * direction is; the histogram grows by 10 replies a pass. */
static double lat_p50(const struct fake_dir *d, double t)
{
	double l = 0;

	for (size_t k = 0; k < d->n; k++)
		l = fmax(l, level(&d->classes[k], t));
	return 12 + 2 + 25 * l * l;
}

static void fill_latency(struct fake *f, struct gw_snap_latency *o, const struct fake_dir *d,
			 double t)
{
	static const double bounds[GW_SNAP_RTT_BUCKETS] = GW_SNAP_RTT_BOUNDS;
	double p50 = lat_p50(d, t);

	o->present = true;
	o->baseline_ms = 12.05;
	o->idle = (struct gw_snap_rtt){ .samples = 240, .lost = 1, .loss = 1 / 240.0,
		.min_ms = 11.9, .p50_ms = 12.2, .p90_ms = 12.6, .p99_ms = 13.4, .mean_ms = 12.3,
		.jitter_ms = 0.21 };
	o->loaded = (struct gw_snap_rtt){ .samples = 360, .lost = 4, .loss = 4 / 360.0,
		.min_ms = 12.5, .p50_ms = p50, .p90_ms = p50 * 1.2, .p99_ms = p50 * 1.5,
		.mean_ms = p50 * 1.05, .jitter_ms = 1.7 };
	o->induced_p50_ms = p50 - o->baseline_ms;
	o->induced_p99_ms = p50 * 1.5 - o->baseline_ms;
	o->induced_mean_ms = p50 * 1.05 - o->baseline_ms;
	snprintf(o->grade, sizeof(o->grade), "%s", o->induced_mean_ms < 30 ? "A" : "B");
	o->pass_loaded_p50_ms = p50;
	o->pass_loaded_p99_ms = p50 * 1.5;
	f->replies += 10;
	o->hist_count = f->replies;
	o->hist_sum_s = (double)f->replies * 0.0135;
	for (int i = 0; i < GW_SNAP_RTT_BUCKETS; i++)	/* most between 10 and 20 ms */
		o->hist_le[i] = bounds[i] < 0.01 ? 0 : bounds[i] < 0.02 ? f->replies * 8 / 10 :
				bounds[i] < 0.05 ? f->replies * 97 / 100 : f->replies;
}

static bool per_link;	/* -p */

/* lan's own prober, beside wan's, in `probes` (as a link's own probe block makes it). */
static void fill_probers(struct gw_snapshot *s, uint64_t seq, double t)
{
	struct gw_snap_probe *p;

	if (!per_link || !(s->probes = calloc(2, sizeof(*s->probes))))
		return;
	s->n_probes = 2;
	s->probes[0] = s->probe;
	p = &s->probes[1];
	p->enabled = true;
	snprintf(p->method, sizeof(p->method), "udp");
	snprintf(p->link, sizeof(p->link), "lan");
	snprintf(p->source, sizeof(p->source), "192.0.2.200");
	p->interval_us = 200000;
	p->n_targets = 1;
	snprintf(p->targets[0].host, sizeof(p->targets[0].host), "203.0.113.9");
	p->targets[0].up = true;
	p->targets[0].sent = p->targets[0].received = seq * 2;
	p->targets[0].last_rtt_ms = 31.5 + 0.3 * sin(t);
	p->targets[0].last_reply_unix = t - 0.1;
}

static void fill_probe(struct gw_snapshot *s, uint64_t seq, double t)
{
	static const char *const hosts[] = { "192.0.2.1", "2001:db8::1", "198.51.100.7" };

	s->probe.enabled = true;
	snprintf(s->probe.method, sizeof(s->probe.method), "icmp");
	snprintf(s->probe.link, sizeof(s->probe.link), "wan");
	s->probe.interval_us = 100000;
	s->probe.n_targets = 3;
	for (size_t i = 0; i < 3; i++) {
		struct gw_snap_target *g = &s->probe.targets[i];

		snprintf(g->host, sizeof(g->host), "%s", hosts[i]);
		g->up = i < 2;	/* the third never answers */
		g->sent = seq * 5;
		g->received = g->up ? seq * 5 - seq / 20 : 0;
		g->lost = g->sent - g->received;
		g->reordered = i == 0 ? seq / 50 : 0;
		g->duplicates = 0;
		g->last_rtt_ms = g->up ? 12.2 + (double)i * 3 + 0.3 * sin(t) : NAN;
		g->last_reply_unix = g->up ? t - 0.05 : 0;
		/* icmp echo: no one-way delays */
		g->last_owd_up_ms = g->last_owd_down_ms = NAN;
	}
}

/* A load test that ran a minute before the fake started. */
static void fill_loadtest(struct gw_snap_loadtest *o, double start)
{
	static const char *const names[] = { "download", "upload", "both" };

	o->present = true;
	o->started_unix = start - 90;
	o->finished_unix = start - 60;
	snprintf(o->sink, sizeof(o->sink), "192.0.2.9:5201");
	o->n_dirs = 3;
	for (size_t i = 0; i < 3; i++) {
		struct gw_snap_load_dir *d = &o->dirs[i];

		snprintf(d->direction, sizeof(d->direction), "%s", names[i]);
		d->goodput_bps = (i == 1 ? 19e6 : 94e6);
		d->idle_p50_ms = 12.2;
		d->loaded_p50_ms = 15.1 + (double)i;
		d->loaded_p99_ms = 21.5 + (double)i;
		d->induced_mean_ms = 3.4 + (double)i;
		d->induced_p99_ms = 9.3 + (double)i;
		snprintf(d->grade, sizeof(d->grade), "%s", d->induced_mean_ms < 5 ? "A+" : "A");
		/* 4 flows a direction, one of them behind the others */
		d->n_down_flows = i == 1 ? 0 : 4;
		d->n_up_flows = i == 0 ? 0 : 4;
		for (size_t k = 0; k < 4; k++) {
			d->down_flow_bps[k] = (k == 3 ? 11e6 : 27.6e6) / (i == 2 ? 2 : 1);
			d->up_flow_bps[k] = k == 3 ? 2.2e6 : 5.6e6;
		}
		d->fairness = i == 1 ? 0.93 : 0.92;
	}
}

static struct gw_snapshot *build(struct fake *f, double t)
{
	struct gw_snapshot *s = calloc(1, sizeof(*s));

	if (!s || !(s->dirs = calloc(N_DIRS, sizeof(*s->dirs)))) {
		free(s);
		return NULL;
	}
	atomic_init(&s->refs, 1);
	s->n_xdescs = gw_qdisc_xdescs(s->xdescs, GW_SNAP_XKINDS);
	s->seq = ++f->seq;
	s->unix_time = t;
	s->uptime_s = t - f->start;
	s->interval_us = (int64_t)(f->interval * 1e6);
	s->sample_ms = 0.3 + 0.1 * sin(t);
	s->sample_lag_ms = 0.05;
	s->samples_total = s->seq;
	s->late_samples_total = s->seq / 100;
	for (size_t d = 0; d < N_DIRS; d++) {
		struct gw_snap_dir *o = &s->dirs[d];

		snprintf(o->link, sizeof(o->link), "%s", dirs[d].link);
		snprintf(o->interface, sizeof(o->interface), "%s", dirs[d].interface);
		snprintf(o->device, sizeof(o->device), "%s", dirs[d].device);
		snprintf(o->direction, sizeof(o->direction), "%s", dirs[d].direction);
		snprintf(o->shaper, sizeof(o->shaper), "%s", dirs[d].shaper);
		o->rate_in_force_bytes_per_s = (uint64_t)(dirs[d].rate_mbit * 1e6 / 8);
		if (!(o->classes = calloc(dirs[d].n, sizeof(*o->classes)))) {
			gw_snapshot_put(s);
			return NULL;
		}
		s->n_dirs = d + 1;
		o->n_classes = dirs[d].n;
		for (size_t k = 0; k < dirs[d].n; k++)
			fill_class(f, &o->classes[k], &dirs[d].classes[k], d, k, t);
		fill_total(o, &dirs[d]);
		if (!strcmp(dirs[d].link, "wan"))
			fill_latency(f, &o->latency, &dirs[d], t);
	}
	fill_probe(s, s->seq, t);
	fill_probers(s, s->seq, t);
	fill_loadtest(&s->loadtest, f->start);
	return s;
}

static struct gw_snapshot *fake_get(void *ctx)
{
	struct fake *f = ctx;

	return gw_snapshot_take(&f->lock, &f->cur);
}

static void hist_point(const struct fake_dir *d, const struct fake_class *c, double t,
		       struct gw_hist_point *p)
{
	double bps = 0, dl = 0, drops = 0;

	for (size_t k = 0; k < d->n; k++) {
		if (c && c != &d->classes[k])
			continue;
		bps += level(&d->classes[k], t) * d->classes[k].ceil_mbit * 1e6;
		dl = fmax(dl, delay_ms(&d->classes[k], t));
		drops += drops_per_s(&d->classes[k], t);
	}
	if (!c)
		bps = fmin(bps, d->rate_mbit * 1e6 * 0.999);
	*p = (struct gw_hist_point){ .t = t, .rate_bps_min = (float)(bps * 0.97),
		.rate_bps_avg = (float)bps, .rate_bps_max = (float)(bps * 1.02),
		.delay_ms_min = (float)(dl * 0.8), .delay_ms_avg = (float)dl,
		.delay_ms_max = (float)(dl * 1.3), .drops_per_s_avg = (float)drops,
		.backlog_bytes_avg = (float)(dl / 1000 * bps / 8), .baseline_ms = NAN,
		.loaded_p50_ms = NAN, .loaded_p99_ms = NAN };
	if (!c && !strcmp(d->link, "wan")) {	/* the probed link's totals */
		p->baseline_ms = 12.05f;
		p->loaded_p50_ms = (float)lat_p50(d, t);
		p->loaded_p99_ms = (float)(lat_p50(d, t) * 1.5);
	}
}

/* History made up from the same waves: 15 minutes raw, 24 hours by the minute. */
static int fake_history(void *ctx, const char *link, const char *direction,
			const char *class_name, double from, double to, bool minute,
			struct gw_hist_point *out, size_t max)
{
	struct fake *f = ctx;
	const struct fake_dir *d = NULL;
	const struct fake_class *c = NULL;
	double step = minute ? 60 : f->interval, now = now_s(), t;
	size_t n = 0;

	for (size_t i = 0; i < N_DIRS && !d; i++)
		if (!strcmp(dirs[i].link, link) && !strcmp(dirs[i].direction, direction))
			d = &dirs[i];
	if (!d)
		return -ENOENT;
	for (size_t k = 0; strcmp(class_name, "total") && k < d->n && !c; k++)
		if (!strcmp(d->classes[k].name, class_name))
			c = &d->classes[k];
	if (strcmp(class_name, "total") && !c)
		return -ENOENT;
	from = fmax(from, now - (minute ? 86400 : 900));
	to = fmin(to, now);
	t = ceil(from / step) * step;
	for (; t <= to && n < max; t += step)
		hist_point(d, c, t, &out[n++]);
	return (int)n;
}

static void publish(struct fake *f)
{
	struct gw_snapshot *s = build(f, now_s());

	if (s)
		gw_snapshot_publish(&f->lock, &f->cur, s);
}

/* the web UI's log lines on stderr, where the tests count them */
static void log_line(void *ctx, int level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "<%d>%s\n", level, msg);
}

static void usage(void)
{
	fprintf(stderr, "usage: webui-fake-server -l ADDR [-l ADDR]... [-a AUTH_FILE] "
		"[-i INTERVAL_MS] [-f FREEZE_AFTER_S] [-e] [-c COMPARE_DIR] [-p] [-t CERT -k KEY] "
		"[-H HOST]... [-n FAIL_LIMIT] [-b BACKOFF_S] [-m MEMORY_MAX] [-w LOG_WINDOW_S]\n");
	exit(2);
}

/* Publish every interval until a signal; the web UI runs on its own threads meanwhile. */
static int run(struct fake *f, double freeze_after, bool empty)
{
	struct timespec ts = { (time_t)f->interval, (long)(fmod(f->interval, 1.0) * 1e9) };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	for (;;) {
		if (!empty && (freeze_after <= 0 || now_s() - f->start < freeze_after))
			publish(f);
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return 0;
	}
}

int main(int argc, char **argv)
{
	const char *compare_dir = NULL, *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o = { .log = log_line };
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	struct fake f = { .interval = 0.5 };
	struct gw_webui_source src = { &f, fake_get, fake_history, fake_compare };
	struct gw_webui *w;
	double freeze_after = 0;
	size_t n_listen = 0;
	bool empty = false;
	char err[256];
	sigset_t set;
	int opt, r;

	while ((opt = getopt(argc, argv, "l:a:i:f:ec:pt:k:H:n:b:m:w:")) != -1) {
		if (opt == 'l' && n_listen < GW_WEBUI_MAX_LISTEN) {
			listen[n_listen].text = optarg;
			if (gw_parse_listen(optarg, &listen[n_listen].addr, &listen[n_listen].len))
				usage();
			n_listen++;
		}
		else if (opt == 'a')
			o.auth_file = optarg;
		else if (opt == 't')
			o.tls_cert = optarg;
		else if (opt == 'k')
			o.tls_key = optarg;
		else if (opt == 'H' && o.n_allowed_hosts < GW_WEBUI_MAX_HOSTS)
			hosts[o.n_allowed_hosts++] = optarg;
		else if (opt == 'n')
			o.auth_fail_limit = (unsigned int)atoi(optarg);
		else if (opt == 'b')
			o.auth_fail_backoff_s = atof(optarg);
		else if (opt == 'm')
			o.memory_max = (size_t)atoll(optarg);
		else if (opt == 'w')
			o.log_window_s = atof(optarg);
		else if (opt == 'i')
			f.interval = atof(optarg) / 1000;
		else if (opt == 'f')
			freeze_after = atof(optarg);
		else if (opt == 'e')
			empty = true;
		else if (opt == 'c')
			compare_dir = optarg;
		else if (opt == 'p')
			per_link = true;
		else
			usage();
	}
	if (!n_listen || f.interval < 0.01)
		usage();
	/* blocked before any thread starts, so only sigtimedwait sees them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_init(&f.lock, NULL);
	gw_lastcmp_init(&lastcmp, compare_dir);
	f.start = now_s();
	o.allowed_hosts = hosts;
	r = gw_webui_start_opts(listen, n_listen, &o, &src, &w, err, sizeof(err));
	if (r) {
		fprintf(stderr, "webui-fake-server: %s\n", err);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	r = run(&f, freeze_after, empty);
	gw_webui_stop(w);
	gw_snapshot_put(f.cur);
	pthread_mutex_destroy(&f.lock);
	gw_lastcmp_destroy(&lastcmp);
	return r ? 1 : 0;
}
