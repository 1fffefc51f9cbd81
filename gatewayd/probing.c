/* gatewayd/probing.c: the prober in the daemon. A probe's RTT crosses both directions of its
 * link, so every sample is judged twice, each time against one direction's load.
 *
 * The load comes from the sampling passes, which see an interval only once it is over: a
 * sample waits (in a bounded queue) for the first pass at or after the moment it was sent, and
 * takes that pass's verdict, so a probe sent during a burst is judged against the burst, not
 * against the quiet interval before it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "gatewayd/probe/latency.h"
#include "gatewayd/probing.h"
#include "gatewayd/sys/log.h"
#include "gatewayd/probe/prober.h"

#define N_PASSES 16	/* passes remembered for late verdicts (a loss is judged a timeout later) */

struct pass {
	double mono;
	enum gw_load_state st[2];
};

struct gw_probing {
	int ep;				/* watches the prober's fd; stays across prober changes */
	struct gw_probe_cfg cfg;	/* the running probe block */
	char ifname[IFNAMSIZ];
	int64_t interval_us;		/* the sampling interval */
	struct gw_prober *p;
	char error[256];
	bool present;			/* the config has a probe block */
	bool dir_present[2];
	struct gw_latency *acc[2];	/* over the window, per direction */
	struct gw_latency *recent[2];	/* what this pass judged, for the history */
	/* a direction's standing backlog and whether a pass had rates (the first has none) */
	uint32_t prev_backlog[2];
	uint64_t dir_passes[2];
	struct pass passes[N_PASSES];
	size_t pass_head, n_passes;	/* pass_head: the newest */
	struct gw_probe_sample *pending;
	size_t pend_cap, pend_head, n_pend;
	gw_probe_cb tap;		/* gw_probing_tap */
	void *tap_ctx;
	gw_probing_sample_fn on_sample;	/* gw_probing_on_sample */
	void *on_sample_ctx;
};

static double probe_rate(const struct gw_probe_cfg *c)
{
	return c->interval_us > 0 ? (double)c->n_targets * 1e6 / (double)c->interval_us : 10;
}

static const struct gw_link_cfg *probe_link(const struct gw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_links; i++)
		if (!strcmp(cfg->links[i].name, cfg->probe.link))
			return &cfg->links[i];
	return NULL;
}

static void judge(struct gw_probing *m, const struct gw_probe_sample *s, const enum gw_load_state *st)
{
	for (int d = 0; d < 2; d++) {
		if (!m->acc[d])
			continue;
		gw_latency_add(m->acc[d], s, st[d]);
		gw_latency_add(m->recent[d], s, st[d]);
	}
}

/* The verdict of the first pass at or after t; NULL when no such pass is known yet. */
static const struct pass *covering(const struct gw_probing *m, double t)
{
	for (size_t k = m->n_passes; k > 0; k--) {	/* oldest first */
		const struct pass *p = &m->passes[(m->pass_head + N_PASSES + 1 - k) % N_PASSES];

		if (p->mono >= t)
			return p;
	}
	return NULL;
}

static void on_sample(void *ctx, const struct gw_probe_sample *s)
{
	struct gw_probing *m = ctx;

	if (m->tap)
		m->tap(m->tap_ctx, s);
	if (m->on_sample)
		m->on_sample(m->on_sample_ctx, m->cfg.link, s);
	if (m->n_pend == m->pend_cap) {
		/* more than the queue was sized for: the oldest is judged now, with the newest
		 * verdict, rather than dropped */
		const struct gw_probe_sample *o = &m->pending[m->pend_head];
		const struct pass *p = m->n_passes ? &m->passes[m->pass_head] : NULL;
		enum gw_load_state unk[2] = { GW_LOAD_UNKNOWN, GW_LOAD_UNKNOWN };

		judge(m, o, p ? p->st : unk);
		m->pend_head = (m->pend_head + 1) % m->pend_cap;
		m->n_pend--;
	}
	m->pending[(m->pend_head + m->n_pend) % m->pend_cap] = *s;
	m->n_pend++;
}

void gw_probing_sample(struct gw_probing *m, const struct gw_probe_sample *s)
{
	if (m->pend_cap)
		on_sample(m, s);
}

/* Judge what the passes so far cover; the rest waits for the next pass. */
static void flush(struct gw_probing *m)
{
	size_t n = m->n_pend, kept = 0;

	for (size_t k = 0; k < n; k++) {
		struct gw_probe_sample s = m->pending[(m->pend_head + k) % m->pend_cap];
		const struct pass *p = covering(m, s.sent_mono);

		if (p) {
			judge(m, &s, p->st);
			continue;
		}
		m->pending[(m->pend_head + kept) % m->pend_cap] = s;
		kept++;
	}
	m->n_pend = kept;
}

static void stop_prober(struct gw_probing *m)
{
	if (!m->p)
		return;
	epoll_ctl(m->ep, EPOLL_CTL_DEL, gw_prober_fd(m->p), NULL);
	gw_prober_free(m->p);
	m->p = NULL;
}

static void start_prober(struct gw_probing *m)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char err[200] = "";
	int r;

	m->error[0] = '\0';
	r = gw_prober_new(&m->cfg, m->ifname, on_sample, m, &m->p, err, sizeof(err));
	if (!r) {
		ev.data.ptr = m->p;
		if (epoll_ctl(m->ep, EPOLL_CTL_ADD, gw_prober_fd(m->p), &ev) < 0) {
			r = -errno;
			snprintf(err, sizeof(err), "watching its fd: %s", strerror(errno));
			gw_prober_free(m->p);
			m->p = NULL;
		}
	}
	if (r) {
		snprintf(m->error, sizeof(m->error), "prober on link '%s' (%s) not running: %s",
			 m->cfg.link, m->ifname, err[0] ? err : strerror(-r));
		gw_log(GW_LOG_ERR, "%s; shaping goes on without latency figures", m->error);
		return;
	}
	gw_log(GW_LOG_INFO, "probing %zu target%s by %s every %lld ms through %s (link '%s')",
	       m->cfg.n_targets, m->cfg.n_targets == 1 ? "" : "s",
	       m->cfg.method == GW_PROBE_UDP ? "udp" : "icmp", (long long)m->cfg.interval_us / 1000,
	       m->ifname, m->cfg.link);
}

static void free_accs(struct gw_probing *m)
{
	for (int d = 0; d < 2; d++) {
		gw_latency_free(m->acc[d]);
		gw_latency_free(m->recent[d]);
		m->acc[d] = m->recent[d] = NULL;
		m->dir_passes[d] = 0;
		m->prev_backlog[d] = 0;
	}
	m->n_pend = m->pend_head = 0;
	m->n_passes = 0;
}

/* Accumulators for the directions the probed link has (kept when keep), queue sized for the
 * rate. 0 or -ENOMEM. */
static int size_for(struct gw_probing *m, const struct gw_config *cfg, bool keep)
{
	const struct gw_link_cfg *l = probe_link(cfg);
	double rate = probe_rate(&cfg->probe) * 1.25 + 1;
	/* what can arrive between two passes, and the losses judged a timeout late */
	double span = (double)cfg->interval_us / 1e6 * 2 + (double)cfg->probe.timeout_us / 1e6;
	size_t cap = (size_t)ceil(rate * span) + 64;
	struct gw_probe_sample *pend;

	if (!keep)
		free_accs(m);
	for (int d = 0; d < 2; d++) {
		m->dir_present[d] = l && l->dir[d].present;
		if (!m->dir_present[d]) {
			gw_latency_free(m->acc[d]);
			gw_latency_free(m->recent[d]);
			m->acc[d] = m->recent[d] = NULL;
			continue;
		}
		if (!m->acc[d])
			m->acc[d] = gw_latency_new_rate(GW_PROBING_WINDOW_S, rate);
		else if (gw_latency_reserve(m->acc[d], rate))
			return -ENOMEM;
		if (!m->recent[d])
			m->recent[d] = gw_latency_new_rate(span, rate);
		else if (gw_latency_reserve(m->recent[d], rate))
			return -ENOMEM;
		if (!m->acc[d] || !m->recent[d])
			return -ENOMEM;
	}
	if (cap > m->pend_cap) {
		if (!(pend = calloc(cap, sizeof(*pend))))
			return -ENOMEM;
		for (size_t k = 0; k < m->n_pend; k++)
			pend[k] = m->pending[(m->pend_head + k) % m->pend_cap];
		free(m->pending);
		m->pending = pend;
		m->pend_cap = cap;
		m->pend_head = 0;
	}
	return 0;
}

/* Take over cfg's probe block and start (or not) the prober. */
static int configure(struct gw_probing *m, const struct gw_config *cfg, bool keep)
{
	const struct gw_link_cfg *l;
	int r;

	stop_prober(m);
	m->present = cfg->probe.present;
	m->cfg = cfg->probe;
	m->interval_us = cfg->interval_us;
	m->error[0] = '\0';
	if (!m->present) {
		free_accs(m);
		m->dir_present[0] = m->dir_present[1] = false;
		return 0;
	}
	l = probe_link(cfg);
	snprintf(m->ifname, sizeof(m->ifname), "%s", l ? l->interface : "");
	if ((r = size_for(m, cfg, keep)))
		return r;
	if (!l) {
		snprintf(m->error, sizeof(m->error), "prober not running: no link '%s'", m->cfg.link);
		gw_log(GW_LOG_ERR, "%s", m->error);
		return 0;
	}
	start_prober(m);
	return 0;
}

int gw_probing_new(const struct gw_config *cfg, struct gw_probing **out)
{
	struct gw_probing *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	m->ep = epoll_create1(EPOLL_CLOEXEC);
	if (m->ep < 0) {
		r = -errno;
		free(m);
		return r;
	}
	if ((r = configure(m, cfg, false))) {
		gw_probing_free(m);
		return r;
	}
	*out = m;
	return 0;
}

void gw_probing_free(struct gw_probing *m)
{
	if (!m)
		return;
	stop_prober(m);
	free_accs(m);
	free(m->pending);
	close(m->ep);
	free(m);
}

int gw_probing_fd(const struct gw_probing *m)
{
	return m->ep;
}

void gw_probing_run(struct gw_probing *m)
{
	struct epoll_event ev;
	int r;

	/* drain our own epoll's readiness; the prober reads its sockets itself */
	if (epoll_wait(m->ep, &ev, 1, 0) <= 0 || !m->p)
		return;
	r = gw_prober_run(m->p);
	if (r < 0 && !m->error[0]) {
		snprintf(m->error, sizeof(m->error), "prober: %s", strerror(-r));
		gw_log(GW_LOG_WARNING, "%s", m->error);
	} else if (r >= 0 && !strncmp(m->error, "prober: ", 8)) {
		m->error[0] = '\0';
	}
}

void gw_probing_tap(struct gw_probing *m, gw_probe_cb fn, void *ctx)
{
	m->tap = fn;
	m->tap_ctx = fn ? ctx : NULL;
}

void gw_probing_on_sample(struct gw_probing *m, gw_probing_sample_fn fn, void *ctx)
{
	m->on_sample = fn;
	m->on_sample_ctx = fn ? ctx : NULL;
}

bool gw_probing_probing(const struct gw_probing *m)
{
	return m->p != NULL;
}

const char *gw_probing_error(const struct gw_probing *m)
{
	return m->error;
}

/* This pass's verdict per direction, remembered for samples still to come. */
static void take_loads(struct gw_probing *m, const struct gw_snapshot *snap, double mono)
{
	struct pass *p;

	m->pass_head = m->n_passes ? (m->pass_head + 1) % N_PASSES : 0;
	if (m->n_passes < N_PASSES)
		m->n_passes++;
	p = &m->passes[m->pass_head];
	p->mono = mono;
	p->st[0] = p->st[1] = GW_LOAD_UNKNOWN;
	for (size_t i = 0; i < snap->n_dirs; i++) {
		const struct gw_snap_dir *d = &snap->dirs[i];
		int k = !strcmp(d->direction, "ingress");
		bool standing;

		if (strcmp(d->link, m->cfg.link) || !m->dir_present[k])
			continue;
		/* backlogged at both ends of the interval: a queue that stands, not one packet
		 * caught in passing */
		standing = m->prev_backlog[k] > 0 && d->total.backlog_bytes > 0;
		m->prev_backlog[k] = d->total.backlog_bytes;
		/* the first pass has no rates yet, nor the first after a rebuilt tree (it reads 0,
		 * which a direction the probes cross never does): no verdict */
		if (m->dir_passes[k]++ && d->total.achieved_bytes_per_s > 0)
			p->st[k] = gw_load_classify(d->total.utilisation, standing);
	}
}

static void fill_probe(struct gw_probing *m, struct gw_snapshot *snap)
{
	struct gw_probe_target_state st[GW_MAX_PROBE_TARGETS];
	struct gw_snap_probe *o = &snap->probe;
	size_t n = m->p ? gw_prober_targets(m->p, st, GW_MAX_PROBE_TARGETS) : 0;

	o->enabled = true;
	snprintf(o->method, sizeof(o->method), "%s", m->cfg.method == GW_PROBE_UDP ? "udp" : "icmp");
	snprintf(o->link, sizeof(o->link), "%s", m->cfg.link);
	o->interval_us = m->cfg.interval_us;
	o->n_targets = m->cfg.n_targets < GW_MAX_PROBE_TARGETS ? m->cfg.n_targets :
								   GW_MAX_PROBE_TARGETS;
	if (o->n_targets > sizeof(o->targets) / sizeof(o->targets[0]))
		o->n_targets = sizeof(o->targets) / sizeof(o->targets[0]);
	for (size_t i = 0; i < o->n_targets; i++) {
		struct gw_snap_target *t = &o->targets[i];

		snprintf(t->host, sizeof(t->host), "%s", m->cfg.targets[i].host);
		t->last_rtt_ms = NAN;
		if (i >= n)
			continue;	/* no prober: the targets, and nothing known of them */
		t->up = st[i].up;
		t->sent = st[i].sent;
		t->received = st[i].received;
		t->lost = st[i].lost;
		t->duplicates = st[i].duplicates;
		t->reordered = st[i].reordered;
		t->last_rtt_ms = st[i].last_rtt_ms;
		t->last_reply_unix = st[i].last_reply_wall;
	}
}

void gw_probing_pass(struct gw_probing *m, struct gw_snapshot *snap, struct gw_sampler *s,
		    double mono)
{
	if (!m->present)
		return;
	take_loads(m, snap, mono);
	flush(m);
	fill_probe(m, snap);
	for (size_t i = 0; i < snap->n_dirs; i++) {
		struct gw_snap_dir *d = &snap->dirs[i];
		int k = !strcmp(d->direction, "ingress");
		struct gw_snap_latency recent;

		if (strcmp(d->link, m->cfg.link) || !m->acc[k])
			continue;
		gw_latency_summary(m->acc[k], mono, &d->latency);
		/* the history's loaded figures are this pass's own, not the window's */
		gw_latency_summary(m->recent[k], mono, &recent);
		gw_latency_clear(m->recent[k]);
		d->latency.pass_loaded_p50_ms = recent.loaded.p50_ms;	/* NAN without replies */
		d->latency.pass_loaded_p99_ms = recent.loaded.p99_ms;
		if (s)
			gw_sampler_push_latency(s, i, d->latency.baseline_ms, recent.loaded.p50_ms,
						recent.loaded.p99_ms);
	}
}

static bool same_probe(const struct gw_probe_cfg *a, const struct gw_probe_cfg *b)
{
	if (a->method != b->method || a->n_targets != b->n_targets ||
	    a->interval_us != b->interval_us || a->timeout_us != b->timeout_us ||
	    a->size != b->size || a->fwmark != b->fwmark || strcmp(a->link, b->link))
		return false;
	for (size_t i = 0; i < a->n_targets; i++)
		if (strcmp(a->targets[i].host, b->targets[i].host) ||
		    a->targets[i].addrlen != b->targets[i].addrlen ||
		    memcmp(&a->targets[i].addr, &b->targets[i].addr, a->targets[i].addrlen))
			return false;
	return true;
}

void gw_probing_reload(struct gw_probing *m, const struct gw_config *next)
{
	const struct gw_link_cfg *l = next->probe.present ? probe_link(next) : NULL;
	bool same_link = m->present && next->probe.present && l &&
			 !strcmp(m->cfg.link, next->probe.link) && !strcmp(m->ifname, l->interface);

	if (same_link && same_probe(&m->cfg, &next->probe) && m->p &&
	    m->dir_present[0] == l->dir[0].present && m->dir_present[1] == l->dir[1].present) {
		m->cfg = next->probe;	/* line numbers, load test settings */
		return;
	}
	/* a target index that now names another host: its baseline is not the new one's */
	for (size_t i = 0; same_link && i < GW_MAX_PROBE_TARGETS; i++)
		if (i >= next->probe.n_targets || i >= m->cfg.n_targets ||
		    strcmp(m->cfg.targets[i].host, next->probe.targets[i].host))
			for (int d = 0; d < 2; d++)
				if (m->acc[d])
					gw_latency_forget_target(m->acc[d], (int)i);
	if (m->present || next->probe.present)
		gw_log(GW_LOG_INFO, "reload: %s the prober%s", next->probe.present ?
		       (m->present ? "restarting" : "starting") : "stopping",
		       same_link ? " (the link's latency figures are kept)" : "");
	if (configure(m, next, same_link))
		gw_log(GW_LOG_ERR, "reload: the prober: %s", strerror(ENOMEM));
}
