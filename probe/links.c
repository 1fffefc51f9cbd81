/* probe/links.c: the probers of the config's links, one per probed link, for the daemon. A
 * probe's RTT crosses both directions of its link, so every sample is judged twice, each time
 * against one direction's load, and only against its own link's: each link's prober leaves
 * through that link and has its accumulators of its own.
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
#include "probe/latency.h"
#include "probe/links.h"
#include "sys/log.h"
#include "probe/prober.h"

#define N_PASSES 16	/* passes remembered for late verdicts (a loss is judged a timeout later) */

/* One pass's load, per direction (enum gw_direction), as the link's samples are judged by. */
struct pass {
	double mono;
	struct gw_probe_links_load dir[2];
};

/* One probed link: its prober, the samples waiting for their pass, its accumulators. */
struct lprobe {
	struct gw_probe_links *set;
	struct gw_probe_cfg cfg;	/* its block (a copy: a reload frees the config); cfg.link
					 * is the link's name */
	bool global;			/* the global block's: the load test's link */
	char ifname[IFNAMSIZ];
	struct gw_prober *p;
	char error[256];
	bool dir_present[2];
	uint64_t rate[2];		/* the shaper's configured rate, bytes/s */
	struct gw_latency *acc[2];	/* over the window, per direction */
	struct gw_latency *recent[2];	/* what this pass judged, for the history */
	/* a direction's standing backlog and whether a pass had rates (the first has none) */
	uint32_t prev_backlog[2];
	uint64_t dir_passes[2];
	struct pass passes[N_PASSES];
	size_t pass_head, n_passes;	/* pass_head: the newest */
	struct gw_probe_sample *pending;
	size_t pend_cap, pend_head, n_pend;
};

struct gw_probe_links {
	int ep;				/* watches every prober's fd; stays across reloads */
	int64_t interval_us;		/* the sampling interval */
	struct lprobe *lp[GW_MAX_LINKS];	/* in the links' order */
	size_t n;
	char error[512];		/* the probers' errors, joined */
	gw_probe_cb tap;		/* gw_probe_links_tap: the global block's samples */
	void *tap_ctx;
	gw_probe_links_hook hook;	/* gw_probe_links_set_hook: every link's judged samples */
	void *hook_ctx;
	gw_probe_links_sample_fn on_sample;	/* gw_probe_links_on_sample */
	void *on_sample_ctx;
};

static double probe_rate(const struct gw_probe_cfg *c)
{
	return c->interval_us > 0 ? (double)c->n_targets * 1e6 / (double)c->interval_us : 10;
}

/* s judged under pass p (NULL: no verdict known) into both directions' figures. */
static void judge(struct lprobe *lp, const struct gw_probe_sample *s, const struct pass *p)
{
	struct gw_probe_links *m = lp->set;

	for (int d = 0; d < 2; d++) {
		if (!lp->acc[d])
			continue;
		enum gw_load_state st = p ? p->dir[d].state : GW_LOAD_UNKNOWN;

		gw_latency_add(lp->acc[d], s, st);
		gw_latency_add(lp->recent[d], s, st);
	}
	if (m->hook) {
		struct gw_probe_links_judged j = { .link = lp->cfg.link, .sample = s };

		for (int d = 0; d < 2; d++) {
			if (p)
				j.dir[d] = p->dir[d];
			j.dir[d].present = lp->dir_present[d];
			j.dir[d].rate_bytes_per_s = lp->rate[d];
		}
		m->hook(m->hook_ctx, &j);
	}
}

/* The verdict of the first pass at or after t; NULL when no such pass is known yet. */
static const struct pass *covering(const struct lprobe *lp, double t)
{
	for (size_t k = lp->n_passes; k > 0; k--) {	/* oldest first */
		const struct pass *p = &lp->passes[(lp->pass_head + N_PASSES + 1 - k) % N_PASSES];

		if (p->mono >= t)
			return p;
	}
	return NULL;
}

static void on_sample(void *ctx, const struct gw_probe_sample *s)
{
	struct lprobe *lp = ctx;

	if (lp->global && lp->set->tap)
		lp->set->tap(lp->set->tap_ctx, s);
	if (lp->set->on_sample)
		lp->set->on_sample(lp->set->on_sample_ctx, lp->cfg.link, s);
	if (lp->n_pend == lp->pend_cap) {
		/* more than the queue was sized for: the oldest is judged now, with the newest
		 * verdict, rather than dropped */
		const struct gw_probe_sample *o = &lp->pending[lp->pend_head];

		judge(lp, o, lp->n_passes ? &lp->passes[lp->pass_head] : NULL);
		lp->pend_head = (lp->pend_head + 1) % lp->pend_cap;
		lp->n_pend--;
	}
	lp->pending[(lp->pend_head + lp->n_pend) % lp->pend_cap] = *s;
	lp->n_pend++;
}

/* Judge what the passes so far cover; the rest waits for the next pass. */
static void flush(struct lprobe *lp)
{
	size_t n = lp->n_pend, kept = 0;

	for (size_t k = 0; k < n; k++) {
		struct gw_probe_sample s = lp->pending[(lp->pend_head + k) % lp->pend_cap];
		const struct pass *p = covering(lp, s.sent_mono);

		if (p) {
			judge(lp, &s, p);
			continue;
		}
		lp->pending[(lp->pend_head + kept) % lp->pend_cap] = s;
		kept++;
	}
	lp->n_pend = kept;
}

static void stop_prober(struct lprobe *lp)
{
	if (!lp->p)
		return;
	epoll_ctl(lp->set->ep, EPOLL_CTL_DEL, gw_prober_fd(lp->p), NULL);
	gw_prober_free(lp->p);
	lp->p = NULL;
}

static void start_prober(struct lprobe *lp)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char err[200] = "";
	int r;

	lp->error[0] = '\0';
	r = gw_prober_new(&lp->cfg, lp->ifname, on_sample, lp, &lp->p, err, sizeof(err));
	if (!r) {
		ev.data.ptr = lp;
		if (epoll_ctl(lp->set->ep, EPOLL_CTL_ADD, gw_prober_fd(lp->p), &ev) < 0) {
			r = -errno;
			snprintf(err, sizeof(err), "watching its fd: %s", strerror(errno));
			gw_prober_free(lp->p);
			lp->p = NULL;
		}
	}
	if (r) {
		snprintf(lp->error, sizeof(lp->error), "prober on link '%s' (%s) not running: %s",
			 lp->cfg.link, lp->ifname, err[0] ? err : strerror(-r));
		gw_log(GW_LOG_ERR, "%s; shaping goes on without latency figures", lp->error);
		return;
	}
	gw_log(GW_LOG_INFO, "probing %zu target%s by %s every %lld ms through %s (link '%s')%s%s",
	       lp->cfg.n_targets, lp->cfg.n_targets == 1 ? "" : "s",
	       gw_prober_method_name(lp->cfg.method), (long long)lp->cfg.interval_us / 1000,
	       lp->ifname, lp->cfg.link, lp->cfg.source[0] ? " from " : "", lp->cfg.source);
}

static void free_accs(struct lprobe *lp)
{
	for (int d = 0; d < 2; d++) {
		gw_latency_free(lp->acc[d]);
		gw_latency_free(lp->recent[d]);
		lp->acc[d] = lp->recent[d] = NULL;
		lp->dir_passes[d] = 0;
		lp->prev_backlog[d] = 0;
	}
	lp->n_pend = lp->pend_head = 0;
	lp->n_passes = 0;
}

/* Accumulators for the directions the link has (kept when keep), queue sized for the rate.
 * 0 or -ENOMEM. */
static int size_for(struct lprobe *lp, const struct gw_config *cfg, const struct gw_link_cfg *l,
		    bool keep)
{
	double rate = probe_rate(&lp->cfg) * 1.25 + 1;
	/* what can arrive between two passes, and the losses judged a timeout late */
	double span = (double)cfg->interval_us / 1e6 * 2 + (double)lp->cfg.timeout_us / 1e6;
	size_t cap = (size_t)ceil(rate * span) + 64;
	struct gw_probe_sample *pend;

	if (!keep)
		free_accs(lp);
	for (int d = 0; d < 2; d++) {
		lp->dir_present[d] = l->dir[d].present;
		lp->rate[d] = l->dir[d].present ? l->dir[d].rate : 0;
		if (!lp->dir_present[d]) {
			gw_latency_free(lp->acc[d]);
			gw_latency_free(lp->recent[d]);
			lp->acc[d] = lp->recent[d] = NULL;
			continue;
		}
		if (!lp->acc[d])
			lp->acc[d] = gw_latency_new_rate(GW_PROBE_LINKS_WINDOW_S, rate);
		else if (gw_latency_reserve(lp->acc[d], rate))
			return -ENOMEM;
		if (!lp->recent[d])
			lp->recent[d] = gw_latency_new_rate(span, rate);
		else if (gw_latency_reserve(lp->recent[d], rate))
			return -ENOMEM;
		if (!lp->acc[d] || !lp->recent[d])
			return -ENOMEM;
	}
	if (cap > lp->pend_cap) {
		if (!(pend = calloc(cap, sizeof(*pend))))
			return -ENOMEM;
		for (size_t k = 0; k < lp->n_pend; k++)
			pend[k] = lp->pending[(lp->pend_head + k) % lp->pend_cap];
		free(lp->pending);
		lp->pending = pend;
		lp->pend_cap = cap;
		lp->pend_head = 0;
	}
	return 0;
}

/* Take over the block pc of link l (of cfg) and start the prober (or say why not). */
static int configure(struct lprobe *lp, const struct gw_config *cfg, const struct gw_link_cfg *l,
		     const struct gw_probe_cfg *pc, bool keep)
{
	int r;

	stop_prober(lp);
	lp->cfg = *pc;
	lp->global = pc == &cfg->probe;
	lp->error[0] = '\0';
	snprintf(lp->ifname, sizeof(lp->ifname), "%s", l->interface);
	if ((r = size_for(lp, cfg, l, keep)))
		return r;
	start_prober(lp);
	return 0;
}

static void lp_free(struct lprobe *lp)
{
	if (!lp)
		return;
	stop_prober(lp);
	free_accs(lp);
	free(lp->pending);
	free(lp);
}

static void refresh_error(struct gw_probe_links *m)
{
	size_t len = 0;

	m->error[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		if (!m->lp[i]->error[0] || len >= sizeof(m->error) - 1)
			continue;
		len += (size_t)snprintf(m->error + len, sizeof(m->error) - len, "%s%s",
					len ? "; " : "", m->lp[i]->error);
	}
}

/* A new link's prober, or NULL (out of memory, said). */
static struct lprobe *lp_new(struct gw_probe_links *m, const struct gw_config *cfg,
			     const struct gw_link_cfg *l, const struct gw_probe_cfg *pc)
{
	struct lprobe *lp = calloc(1, sizeof(*lp));

	if (!lp)
		return NULL;
	lp->set = m;
	if (configure(lp, cfg, l, pc, false)) {
		lp_free(lp);
		return NULL;
	}
	return lp;
}

int gw_probe_links_new(const struct gw_config *cfg, struct gw_probe_links **out)
{
	struct gw_probe_links *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	m->ep = epoll_create1(EPOLL_CLOEXEC);
	if (m->ep < 0) {
		r = -errno;
		free(m);
		return r;
	}
	m->interval_us = cfg->interval_us;
	for (size_t i = 0; i < cfg->n_links && m->n < GW_MAX_LINKS; i++) {
		const struct gw_probe_cfg *pc = gw_config_probe_of(cfg, i);

		if (!pc)
			continue;
		if (!(m->lp[m->n] = lp_new(m, cfg, &cfg->links[i], pc))) {
			gw_probe_links_free(m);
			return -ENOMEM;
		}
		m->n++;
	}
	refresh_error(m);
	*out = m;
	return 0;
}

void gw_probe_links_free(struct gw_probe_links *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		lp_free(m->lp[i]);
	close(m->ep);
	free(m);
}

int gw_probe_links_fd(const struct gw_probe_links *m)
{
	return m->ep;
}

void gw_probe_links_run(struct gw_probe_links *m)
{
	struct epoll_event ev[GW_MAX_LINKS];
	bool changed = false;
	int n, r;

	/* drain our own epoll's readiness; each prober reads its sockets itself */
	n = epoll_wait(m->ep, ev, GW_MAX_LINKS, 0);
	for (int k = 0; k < n; k++) {
		struct lprobe *lp = ev[k].data.ptr;

		if (!lp->p)
			continue;
		r = gw_prober_run(lp->p);
		if (r < 0 && !lp->error[0]) {
			snprintf(lp->error, sizeof(lp->error), "prober: %s", strerror(-r));
			gw_log(GW_LOG_WARNING, "%s", lp->error);
			changed = true;
		} else if (r >= 0 && !strncmp(lp->error, "prober: ", 8)) {
			lp->error[0] = '\0';
			changed = true;
		}
	}
	if (changed)
		refresh_error(m);
}

/* The global block's prober (the load test's link), or NULL. */
static struct lprobe *global_lp(const struct gw_probe_links *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->lp[i]->global)
			return m->lp[i];
	return NULL;
}

static struct lprobe *lp_of(const struct gw_probe_links *m, const char *link)
{
	for (size_t i = 0; i < m->n; i++)	/* NULL: taken by a reload under way */
		if (m->lp[i] && !strcmp(m->lp[i]->cfg.link, link))
			return m->lp[i];
	return NULL;
}

void gw_probe_links_sample(struct gw_probe_links *m, const struct gw_probe_sample *s)
{
	if (m->n && m->lp[0]->pend_cap)
		on_sample(m->lp[0], s);
}

int gw_probe_links_sample_link(struct gw_probe_links *m, const char *link,
			   const struct gw_probe_sample *s)
{
	struct lprobe *lp = lp_of(m, link);

	if (!lp || !lp->pend_cap)
		return -ENOENT;
	on_sample(lp, s);
	return 0;
}

void gw_probe_links_tap(struct gw_probe_links *m, gw_probe_cb fn, void *ctx)
{
	m->tap = fn;
	m->tap_ctx = fn ? ctx : NULL;
}

void gw_probe_links_set_hook(struct gw_probe_links *m, gw_probe_links_hook fn, void *ctx)
{
	m->hook = fn;
	m->hook_ctx = fn ? ctx : NULL;
}

void gw_probe_links_on_sample(struct gw_probe_links *m, gw_probe_links_sample_fn fn, void *ctx)
{
	m->on_sample = fn;
	m->on_sample_ctx = fn ? ctx : NULL;
}

bool gw_probe_links_running(const struct gw_probe_links *m)
{
	const struct lprobe *lp = global_lp(m);

	return lp && lp->p;
}

size_t gw_probe_links_count(const struct gw_probe_links *m)
{
	return m->n;
}

const char *gw_probe_links_error(const struct gw_probe_links *m)
{
	return m->error;
}

/* This pass's verdict per direction of lp's link, remembered for samples still to come. */
static void take_loads(struct lprobe *lp, const struct gw_snapshot *snap, double mono)
{
	struct pass *p;

	lp->pass_head = lp->n_passes ? (lp->pass_head + 1) % N_PASSES : 0;
	if (lp->n_passes < N_PASSES)
		lp->n_passes++;
	p = &lp->passes[lp->pass_head];
	memset(p, 0, sizeof(*p));
	p->mono = mono;
	for (size_t i = 0; i < snap->n_dirs; i++) {
		const struct gw_snap_dir *d = &snap->dirs[i];
		int k = !strcmp(d->direction, "ingress");
		bool standing;

		if (strcmp(d->link, lp->cfg.link) || !lp->dir_present[k])
			continue;
		/* backlogged at both ends of the interval: a queue that stands, not one packet
		 * caught in passing */
		standing = lp->prev_backlog[k] > 0 && d->total.backlog_bytes > 0;
		lp->prev_backlog[k] = d->total.backlog_bytes;
		p->dir[k].achieved_bytes_per_s = d->total.achieved_bytes_per_s;
		p->dir[k].utilisation = d->total.utilisation;
		/* the first pass has no rates yet, nor the first after a rebuilt tree (it reads 0,
		 * which a direction the probes cross never does): no verdict */
		if (lp->dir_passes[k]++ && d->total.achieved_bytes_per_s > 0)
			p->dir[k].state = gw_load_classify(d->total.utilisation, standing);
	}
}

static void fill_probe(const struct lprobe *lp, struct gw_snap_probe *o)
{
	struct gw_probe_target_state st[GW_MAX_PROBE_TARGETS];
	size_t n = lp->p ? gw_prober_targets(lp->p, st, GW_MAX_PROBE_TARGETS) : 0;

	o->enabled = true;
	snprintf(o->method, sizeof(o->method), "%s", gw_prober_method_name(lp->cfg.method));
	snprintf(o->link, sizeof(o->link), "%s", lp->cfg.link);
	snprintf(o->source, sizeof(o->source), "%s", lp->cfg.source);
	o->interval_us = lp->cfg.interval_us;
	o->n_targets = lp->cfg.n_targets < GW_MAX_PROBE_TARGETS ? lp->cfg.n_targets :
								    GW_MAX_PROBE_TARGETS;
	if (o->n_targets > sizeof(o->targets) / sizeof(o->targets[0]))
		o->n_targets = sizeof(o->targets) / sizeof(o->targets[0]);
	for (size_t i = 0; i < o->n_targets; i++) {
		struct gw_snap_target *t = &o->targets[i];

		snprintf(t->host, sizeof(t->host), "%s", lp->cfg.targets[i].host);
		t->last_rtt_ms = t->last_owd_up_ms = t->last_owd_down_ms = NAN;
		if (i >= n)
			continue;	/* no prober: the targets, and nothing known of them */
		t->up = st[i].up;
		t->sent = st[i].sent;
		t->received = st[i].received;
		t->lost = st[i].lost;
		t->duplicates = st[i].duplicates;
		t->reordered = st[i].reordered;
		t->last_rtt_ms = st[i].last_rtt_ms;
		t->last_owd_up_ms = st[i].last_owd_up_ms;
		t->last_owd_down_ms = st[i].last_owd_down_ms;
		t->last_reply_unix = st[i].last_reply_wall;
	}
}

/* snap->probe: the global block's prober (else the first link's); snap->probes: every one,
 * when a config uses what today's single block could not say (a link's own block, a source),
 * so a config with one global block renders as it always did. */
static void fill_probes(struct gw_probe_links *m, struct gw_snapshot *snap)
{
	const struct lprobe *first = global_lp(m);
	bool listed = false;

	fill_probe(first ? first : m->lp[0], &snap->probe);
	for (size_t i = 0; i < m->n; i++)
		listed = listed || !m->lp[i]->global || m->lp[i]->cfg.source[0];
	if (!listed || !(snap->probes = calloc(m->n, sizeof(*snap->probes))))
		return;
	snap->n_probes = m->n;
	for (size_t i = 0; i < m->n; i++)
		fill_probe(m->lp[i], &snap->probes[i]);
}

/* The link's directions' latency sections, with this pass's own loaded figures (the web
 * process's history keeps those). */
static void fill_latency(struct lprobe *lp, struct gw_snapshot *snap, double mono)
{
	for (size_t i = 0; i < snap->n_dirs; i++) {
		struct gw_snap_dir *d = &snap->dirs[i];
		int k = !strcmp(d->direction, "ingress");
		struct gw_snap_latency recent;

		if (strcmp(d->link, lp->cfg.link) || !lp->acc[k])
			continue;
		gw_latency_summary(lp->acc[k], mono, &d->latency);
		/* the history's loaded figures are this pass's own, not the window's */
		gw_latency_summary(lp->recent[k], mono, &recent);
		gw_latency_clear(lp->recent[k]);
		d->latency.pass_loaded_p50_ms = recent.loaded.p50_ms;	/* NAN without replies */
		d->latency.pass_loaded_p99_ms = recent.loaded.p99_ms;
	}
}

void gw_probe_links_pass(struct gw_probe_links *m, struct gw_snapshot *snap, double mono)
{
	if (!m->n)
		return;
	for (size_t i = 0; i < m->n; i++) {
		take_loads(m->lp[i], snap, mono);
		flush(m->lp[i]);
		fill_latency(m->lp[i], snap, mono);
	}
	fill_probes(m, snap);
}

static bool same_probe(const struct gw_probe_cfg *a, const struct gw_probe_cfg *b)
{
	if (a->method != b->method || a->n_targets != b->n_targets ||
	    a->interval_us != b->interval_us || a->timeout_us != b->timeout_us ||
	    a->size != b->size || a->fwmark != b->fwmark || strcmp(a->link, b->link) ||
	    strcmp(a->source, b->source))
		return false;
	for (size_t i = 0; i < a->n_targets; i++)
		if (strcmp(a->targets[i].host, b->targets[i].host) ||
		    a->targets[i].addrlen != b->targets[i].addrlen ||
		    memcmp(&a->targets[i].addr, &b->targets[i].addr, a->targets[i].addrlen))
			return false;
	return true;
}

/* "" for the global block's prober (its messages as they always were), else "link 'X': ". */
static const char *who(const char *link, bool global, char *buf, size_t len)
{
	if (global)
		return "";
	snprintf(buf, len, "link '%s': ", link);
	return buf;
}

/* lp (the running prober of link l's name, or NULL) for next's block pc: kept, changed in
 * place (its figures kept when the interface is the same) or made. NULL: out of memory. */
static struct lprobe *reload_one(struct gw_probe_links *m, struct lprobe *lp,
				 const struct gw_config *next, const struct gw_link_cfg *l,
				 const struct gw_probe_cfg *pc)
{
	bool global = pc == &next->probe, same_link = lp && !strcmp(lp->ifname, l->interface);
	char buf[GW_NAME_MAX + 16];

	if (!lp) {
		gw_log(GW_LOG_INFO, "reload: %sstarting the prober", who(l->name, global, buf,
									 sizeof(buf)));
		if (!(lp = lp_new(m, next, l, pc)))
			gw_log(GW_LOG_ERR, "reload: the prober of link '%s': %s", l->name,
			       strerror(ENOMEM));
		return lp;
	}
	if (same_link && same_probe(&lp->cfg, pc) && lp->p &&
	    lp->dir_present[0] == l->dir[0].present && lp->dir_present[1] == l->dir[1].present) {
		lp->cfg = *pc;	/* line numbers */
		lp->global = global;
		lp->rate[0] = l->dir[0].present ? l->dir[0].rate : 0;
		lp->rate[1] = l->dir[1].present ? l->dir[1].rate : 0;
		return lp;
	}
	/* a target index that now names another host: its baseline is not the new one's */
	for (size_t i = 0; same_link && i < GW_MAX_PROBE_TARGETS; i++)
		if (i >= pc->n_targets || i >= lp->cfg.n_targets ||
		    strcmp(lp->cfg.targets[i].host, pc->targets[i].host))
			for (int d = 0; d < 2; d++)
				if (lp->acc[d])
					gw_latency_forget_target(lp->acc[d], (int)i);
	gw_log(GW_LOG_INFO, "reload: %srestarting the prober%s",
	       who(l->name, global, buf, sizeof(buf)), same_link ? " (the link's latency figures are kept)" : "");
	if (configure(lp, next, l, pc, same_link))
		gw_log(GW_LOG_ERR, "reload: the prober: %s", strerror(ENOMEM));
	return lp;
}

void gw_probe_links_reload(struct gw_probe_links *m, const struct gw_config *next)
{
	struct lprobe *keep[GW_MAX_LINKS];
	char buf[GW_NAME_MAX + 16];
	size_t n = 0;

	m->interval_us = next->interval_us;
	for (size_t i = 0; i < next->n_links && n < GW_MAX_LINKS; i++) {
		const struct gw_probe_cfg *pc = gw_config_probe_of(next, i);
		struct lprobe *lp;

		if (!pc)
			continue;
		lp = lp_of(m, next->links[i].name);
		/* taken out of the running set: what is left there at the end goes */
		for (size_t k = 0; lp && k < m->n; k++)
			if (m->lp[k] == lp)
				m->lp[k] = NULL;
		if ((lp = reload_one(m, lp, next, &next->links[i], pc)))
			keep[n++] = lp;
	}
	for (size_t k = 0; k < m->n; k++) {
		if (!m->lp[k])
			continue;
		gw_log(GW_LOG_INFO, "reload: %sstopping the prober", who(m->lp[k]->cfg.link,
									 m->lp[k]->global, buf,
									 sizeof(buf)));
		lp_free(m->lp[k]);
	}
	memcpy(m->lp, keep, n * sizeof(*keep));
	m->n = n;
	refresh_error(m);
}

void gw_probe_links_relink(struct gw_probe_links *m, const char *link, bool there)
{
	struct lprobe *lp = NULL;

	for (size_t i = 0; m && i < m->n && !lp; i++)
		if (!strcmp(m->lp[i]->cfg.link, link))
			lp = m->lp[i];
	if (!lp || !lp->ifname[0])
		return;
	stop_prober(lp);
	if (there)
		start_prober(lp);
	else
		snprintf(lp->error, sizeof(lp->error), "prober on link '%s' (%s) not running: "
			 "waiting for the interface", lp->cfg.link, lp->ifname);
	refresh_error(m);
}
