/* gatewayd/ctr_followed.c: shaping that follows containers. Link notifications say an interface
 * appeared, changed or went away; each one is then looked up afresh (notifications can be
 * stale or lost), matched against the `containers` entries and shaped, checked, renamed or
 * unshaped. A container's tree is a one-link config run through gw_apply, gw_verify and
 * gw_remove like any link's, so it is all or nothing and read back. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "sys/clock.h"
#include "tree/apply.h"
#include "tree/own.h"
#include "gatewayd/ctr_followed.h"
#include "sys/log.h"
#include "sys/fd.h"
#include "gatewayd/sampler.h"
#include "qdisc/monitor.h"

#define FAST_RECHECK_S 10.0	/* after appearing, an unmatched candidate is looked at often */
#define FAST_PERIOD_S 0.1
#define SLOW_PERIOD_S 1.0
#define FAILED_PERIOD_S 10.0	/* an apply the kernel refused is retried this often */
#define NETNS_MAX_FILES 4096	/* namespace files one netns pattern may name */

/* A shaped container. Heap-allocated and never moved: its config points into itself. */
struct shaped {
	int ifindex;
	size_t rule;
	struct gw_ctr_synth s;
	struct gw_applied applied;
	struct gw_sampler *sampler;
};

/* An interface whose name matches an entry but whose namespace or address does not (yet), or
 * whose apply failed: looked at again on a timer. */
struct pending {
	int ifindex;
	double since, next;
	bool failed;
};

struct gw_ctr_followed {
	const struct gw_config *cfg;
	struct gw_nl *nl;		/* tc requests: the daemon's */
	struct gw_nl *q;		/* look-ups, strict (address dumps in other namespaces) */
	int ep, timer_fd;
	struct gw_monitor *links, *addrs;	/* link and address notifications */
	struct shaped **v;
	size_t n;
	struct pending *p;
	size_t np;
	int *dirty;			/* interfaces to look at after this read */
	size_t nd;
	bool resync;			/* notifications were lost: look at everything */
	bool timer_armed;
	double timer_period;
	/* the namespace ids each entry's netns pattern names, found once per dispatch */
	int **nsids;
	size_t *n_nsids;
	bool *nsids_known;
	size_t n_rules;			/* entries the three arrays above have room for */
	char last_err[1200];
};


/* ---- matching (no kernel) ---------------------------------------------------------------- */

bool gw_ctr_followed_name_matches(const struct gw_ctr_cfg *r, const char *name)
{
	for (size_t i = 0; i < r->n_globs; i++)
		if (fnmatch(r->globs[i], name, 0) == 0)
			return true;
	return false;
}

bool gw_ctr_followed_prefix_has(const struct gw_ctr_cfg *r, int family, const void *addr)
{
	const uint8_t *a = addr;
	int len = r->prefix_len;

	if (!r->has_address || family != r->family)
		return false;
	for (int i = 0; len > 0; i++, len -= 8) {
		uint8_t mask = len >= 8 ? 0xff : (uint8_t)(0xff << (8 - len));

		if ((a[i] & mask) != (r->addr[i] & mask))
			return false;
	}
	return true;
}

void gw_ctr_followed_netns_pattern(const struct gw_ctr_cfg *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", r->netns[0] == '/' ? "" : "/run/netns/", r->netns);
}


bool gw_ctr_followed_excluded(const struct gw_config *cfg, const struct gw_plink *l)
{
	if ((l->flags & IFF_LOOPBACK) || !strcmp(l->kind, "ifb") || !l->name[0] ||
	    !strncmp(l->name, GW_CTR_IFB_PREFIX, strlen(GW_CTR_IFB_PREFIX)))
		return true;
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *k = &cfg->links[i];

		if (!strcmp(k->interface, l->name) ||
		    (k->dir[GW_DIR_INGRESS].present && !strcmp(k->dir[GW_DIR_INGRESS].ifb, l->name)))
			return true;
	}
	return false;
}

/* ---- namespaces and addresses -------------------------------------------------------------- */

/* The ids of the namespaces entry r's netns pattern names now (files that are not
 * namespaces, or that our namespace has no id for, are skipped). */
static void find_nsids(struct gw_ctr_followed *c, size_t r)
{
	char pattern[GW_CTR_NETNS_MAX + 16];
	glob_t g;
	int *ids;
	size_t n = 0;

	c->nsids_known[r] = true;
	gw_ctr_followed_netns_pattern(&c->cfg->containers[r], pattern, sizeof(pattern));
	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return;
	ids = calloc(g.gl_pathc < NETNS_MAX_FILES ? g.gl_pathc : NETNS_MAX_FILES, sizeof(*ids));
	for (size_t i = 0; ids && i < g.gl_pathc && n < NETNS_MAX_FILES; i++) {
		int fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK), id;

		if (fd < 0)
			continue;
		if (gw_netns_id(c->q, fd, &id) == 0)
			ids[n++] = id;
		close(fd);
	}
	globfree(&g);
	c->nsids[r] = ids;
	c->n_nsids[r] = ids ? n : 0;
}

static void forget_nsids(struct gw_ctr_followed *c)
{
	for (size_t r = 0; r < c->n_rules; r++) {
		free(c->nsids[r]);
		c->nsids[r] = NULL;
		c->n_nsids[r] = 0;
		c->nsids_known[r] = false;
	}
}

static bool netns_ok(struct gw_ctr_followed *c, size_t r, const struct gw_plink *l)
{
	if (!c->cfg->containers[r].netns[0])
		return true;
	if (l->peer_nsid < 0)
		return false;	/* no peer, or the peer is in our own namespace */
	if (!c->nsids_known[r])
		find_nsids(c, r);
	for (size_t i = 0; i < c->n_nsids[r]; i++)
		if (c->nsids[r][i] == l->peer_nsid)
			return true;
	return false;
}

struct addr_match {
	const struct gw_ctr_cfg *r;
	bool hit;
};

static int addr_cb(int family, const void *addr, void *arg)
{
	struct addr_match *m = arg;

	if (gw_ctr_followed_prefix_has(m->r, family, addr))
		m->hit = true;
	return m->hit ? 1 : 0;
}

/* The address criterion is judged on the other end of the pair: the container's own
 * interface, read in its namespace (IFA_TARGET_NETNSID), not the host's routes or
 * neighbours, which a bridge (docker0) would hide behind its own device. */
static bool address_ok(struct gw_ctr_followed *c, size_t r, const struct gw_plink *l)
{
	struct addr_match m = { &c->cfg->containers[r], false };

	if (!m.r->has_address)
		return true;
	if (l->peer_ifindex <= 0 || l->peer_ifindex == l->ifindex)
		return false;
	gw_peer_addrs(c->q, l->peer_nsid, l->peer_ifindex, addr_cb, &m);
	return m.hit;
}

/* The first entry the interface matches in full: 1 with *rule set; 0 when a pattern matched
 * but a namespace or address did not (worth looking at again); -1 when no pattern did. */
static int match(struct gw_ctr_followed *c, const struct gw_plink *l, size_t *rule)
{
	bool named = false;

	if (gw_ctr_followed_excluded(c->cfg, l))
		return -1;
	for (size_t r = 0; r < c->cfg->n_containers && r < c->n_rules; r++) {
		if (!gw_ctr_followed_name_matches(&c->cfg->containers[r], l->name))
			continue;
		named = true;
		if (netns_ok(c, r, l) && address_ok(c, r, l)) {
			*rule = r;
			return 1;
		}
	}
	return named ? 0 : -1;
}

/* ---- the table ----------------------------------------------------------------------------- */

static struct shaped *find(struct gw_ctr_followed *c, int ifindex, size_t *at)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->ifindex == ifindex) {
			if (at)
				*at = i;
			return c->v[i];
		}
	return NULL;
}

static struct pending *find_pending(struct gw_ctr_followed *c, int ifindex)
{
	for (size_t i = 0; i < c->np; i++)
		if (c->p[i].ifindex == ifindex)
			return &c->p[i];
	return NULL;
}

static void drop_pending(struct gw_ctr_followed *c, int ifindex)
{
	struct pending *p = find_pending(c, ifindex);

	if (p)
		*p = c->p[--c->np];
}

static void set_timer(struct gw_ctr_followed *c, double period)
{
	struct itimerspec its = { 0 };

	if (c->timer_armed && period == c->timer_period)
		return;
	if (period > 0) {
		its.it_interval.tv_sec = (time_t)period;
		its.it_interval.tv_nsec = (long)((period - (double)(time_t)period) * 1e9);
		its.it_value = its.it_interval;
	}
	timerfd_settime(c->timer_fd, 0, &its, NULL);
	c->timer_armed = period > 0;
	c->timer_period = period;
}

/* Fast while something new waits, slow while only old ones do, off when none. */
static void rearm(struct gw_ctr_followed *c)
{
	double now = gw_mono_now(), period = 0;

	for (size_t i = 0; i < c->np; i++) {
		double p = c->p[i].failed ? SLOW_PERIOD_S :
			   now - c->p[i].since < FAST_RECHECK_S ? FAST_PERIOD_S : SLOW_PERIOD_S;

		if (!period || p < period)
			period = p;
	}
	set_timer(c, period);
}

static void add_pending(struct gw_ctr_followed *c, int ifindex, bool failed)
{
	double now = gw_mono_now();
	struct pending *p = find_pending(c, ifindex);

	if (!p) {
		void *n;

		if (c->np + c->n >= GW_CTR_FOLLOWED_MAX)
			return;
		if (!(n = realloc(c->p, (c->np + 1) * sizeof(*c->p))))
			return;
		c->p = n;
		p = &c->p[c->np++];
		p->ifindex = ifindex;
		p->since = now;
	}
	p->failed = failed;
	p->next = now + (failed ? FAILED_PERIOD_S :
			 now - p->since < FAST_RECHECK_S ? FAST_PERIOD_S : SLOW_PERIOD_S);
}

/* A failure is logged when it is new, not at every retry. */
static void log_once(struct gw_ctr_followed *c, const char *msg)
{
	if (!strcmp(msg, c->last_err))
		return;
	snprintf(c->last_err, sizeof(c->last_err), "%s", msg);
	gw_log(GW_LOG_ERR, "%s", msg);
}

static void describe(const struct shaped *s, char *buf, size_t len)
{
	char e[32] = "", i[32] = "";

	if (s->s.link.dir[GW_DIR_EGRESS].present)
		gw_format_rate(s->s.cls[GW_DIR_EGRESS][0].ceil, e, sizeof(e));
	if (s->s.link.dir[GW_DIR_INGRESS].present)
		gw_format_rate(s->s.cls[GW_DIR_INGRESS][0].ceil, i, sizeof(i));
	snprintf(buf, len, "%s%s%s%s%s%s%s", e[0] ? "egress " : "", e, e[0] && i[0] ? ", " : "",
		 i[0] ? "ingress " : "", i, i[0] ? " through " : "",
		 i[0] ? s->s.link.dir[GW_DIR_INGRESS].ifb : "");
}

static int shape(struct gw_ctr_followed *c, const struct gw_plink *l, size_t rule)
{
	struct shaped *s = calloc(1, sizeof(*s));
	char err[1024] = "", what[128];
	double t0 = gw_mono_now();
	void *n;
	int r;

	n = s ? realloc(c->v, (c->n + 1) * sizeof(*c->v)) : NULL;
	if (!n) {
		free(s);
		return -ENOMEM;
	}
	c->v = n;
	s->ifindex = l->ifindex;
	s->rule = rule;
	gw_ctr_synthesize(c->cfg, &c->cfg->containers[rule], l->name, l->ifindex, &s->s);
	r = gw_apply(c->nl, &s->s.cfg, NULL, &s->applied, err, sizeof(err));
	if (!r && (r = gw_sampler_new(&s->s.cfg, &s->applied, &s->sampler)))
		gw_remove(c->nl, &s->applied, what, sizeof(what));
	if (r) {
		char msg[1200];

		if (!err[0])
			snprintf(err, sizeof(err), "%s", strerror(-r));
		snprintf(msg, sizeof(msg), "container %s (entry on line %d): %s; will retry",
			 l->name, c->cfg->containers[rule].line, err);
		log_once(c, msg);
		gw_applied_free(&s->applied);
		free(s);
		add_pending(c, l->ifindex, true);
		return r;
	}
	c->v[c->n++] = s;
	drop_pending(c, l->ifindex);
	describe(s, what, sizeof(what));
	gw_log(GW_LOG_INFO, "container %s: shaped (%s) in %.1f ms", l->name, what,
	       (gw_mono_now() - t0) * 1000);
	return 0;
}

static void unshape_at(struct gw_ctr_followed *c, size_t at, const char *why)
{
	struct shaped *s = c->v[at];
	char err[512] = "";

	c->v[at] = c->v[--c->n];
	if (gw_remove(c->nl, &s->applied, err, sizeof(err)))
		gw_log(GW_LOG_ERR, "container %s: %s", s->s.link.interface, err);
	else if (why)
		gw_log(GW_LOG_INFO, "container %s: %s; its tree%s removed", s->s.link.interface, why,
		       s->s.link.dir[GW_DIR_INGRESS].present ? " and ifb" : "");
	gw_applied_free(&s->applied);
	gw_sampler_free(s->sampler);
	free(s);
}

/* The interface of a tracked container was renamed: the tree stays (it is on the index), the
 * names follow. A new sampler reads the same kernel counters, so totals carry on. */
static void rename_shaped(struct shaped *s, const char *name)
{
	struct gw_sampler *ns, *old = NULL;

	gw_log(GW_LOG_INFO, "container %s: renamed %s", s->s.link.interface, name);
	snprintf(s->s.link.interface, sizeof(s->s.link.interface), "%s", name);
	snprintf(s->s.link.name, sizeof(s->s.link.name), GW_CTR_LINK_PREFIX "%s", name);
	for (size_t i = 0; i < s->applied.n_devs; i++)
		if (!s->applied.devs[i].is_ifb)
			snprintf(s->applied.devs[i].name, sizeof(s->applied.devs[i].name), "%s",
				 name);
	if (gw_sampler_new(&s->s.cfg, &s->applied, &ns) == 0) {
		old = s->sampler;
		s->sampler = ns;
	}
	gw_sampler_free(old);
}

/* Read the tree back; if it is not the plan (the device was replaced under the same index, a
 * qdisc was deleted), take what is left away and apply it afresh. */
static void check_tree(struct gw_ctr_followed *c, size_t at)
{
	struct shaped *s = c->v[at];
	struct gw_plink l;
	char why[512] = "";
	size_t rule = s->rule;

	/* a dump that raced with other changes can miss an object: a second look decides */
	if (gw_verify(c->nl, &s->s.cfg, &s->applied, why, sizeof(why)) == 0 ||
	    gw_verify(c->nl, &s->s.cfg, &s->applied, why, sizeof(why)) == 0)
		return;
	if (gw_plink_get(c->q, s->ifindex, &l, NULL)) {
		unshape_at(c, at, "gone");
		return;
	}
	gw_log(GW_LOG_WARNING, "container %s: %s; shaping it again", l.name, why);
	unshape_at(c, at, NULL);
	shape(c, &l, rule);
}

/* Look at one interface as it is now. */
static void evaluate(struct gw_ctr_followed *c, int ifindex)
{
	struct gw_plink l;
	struct shaped *s;
	size_t at = 0, rule = 0;
	int m;

	if (gw_plink_get(c->q, ifindex, &l, NULL)) {
		/* gone (or unreadable: it is then looked at again at the next notification) */
		if ((s = find(c, ifindex, &at)))
			unshape_at(c, at, "gone");
		drop_pending(c, ifindex);
		return;
	}
	m = match(c, &l, &rule);
	if ((s = find(c, ifindex, &at))) {
		if (m != 1 || rule != s->rule) {
			unshape_at(c, at, m == 1 ? "now matches another entry" :
				   "no longer matches its entry");
		} else {
			if (strcmp(s->s.link.interface, l.name))
				rename_shaped(s, l.name);
			check_tree(c, at);
			return;
		}
	}
	if (m == 1)
		shape(c, &l, rule);
	else if (m == 0)
		add_pending(c, ifindex, false);
	else
		drop_pending(c, ifindex);
}

static void mark_dirty(struct gw_ctr_followed *c, int ifindex)
{
	void *n;

	for (size_t i = 0; i < c->nd; i++)
		if (c->dirty[i] == ifindex)
			return;
	if (c->nd >= GW_CTR_FOLLOWED_MAX ||
	    !(n = realloc(c->dirty, (c->nd + 1) * sizeof(*c->dirty)))) {
		c->resync = true;
		return;
	}
	c->dirty = n;
	c->dirty[c->nd++] = ifindex;
}

static int collect_cb(const struct gw_plink *l, void *arg)
{
	mark_dirty(arg, l->ifindex);
	return 0;
}

/* Everything afresh: what is tracked and gone, and every interface there is. */
static void resync(struct gw_ctr_followed *c)
{
	c->resync = false;
	for (size_t i = 0; i < c->n; i++)
		mark_dirty(c, c->v[i]->ifindex);
	for (size_t i = 0; i < c->np; i++)
		mark_dirty(c, c->p[i].ifindex);
	if (gw_plink_dump(c->q, collect_cb, c))
		c->resync = true;	/* tried again at the next event or tick */
}

static void run_dirty(struct gw_ctr_followed *c)
{
	/* evaluate() may add to the list (it does not), so walk a copy of the count */
	for (size_t i = 0; i < c->nd; i++)
		evaluate(c, c->dirty[i]);
	c->nd = 0;
	forget_nsids(c);
	rearm(c);
}

/* ---- notifications -------------------------------------------------------------------------- */

static void on_link_msg(struct gw_ctr_followed *c, const struct nlmsghdr *h)
{
	struct gw_plink l;
	size_t at;

	if (gw_plink_parse(h, &l))
		return;
	/* a removal is handled at once, before a later message could reuse its index */
	if (h->nlmsg_type == RTM_DELLINK) {
		if (find(c, l.ifindex, &at))
			unshape_at(c, at, "gone");
		drop_pending(c, l.ifindex);
		for (size_t i = 0; i < c->nd; i++)
			if (c->dirty[i] == l.ifindex)
				c->dirty[i] = c->dirty[--c->nd];
		return;
	}
	mark_dirty(c, l.ifindex);
}

struct drained {
	struct gw_ctr_followed *c;
	void (*cb)(struct gw_ctr_followed *, const struct nlmsghdr *);
	bool got;
};

static int drained_cb(const struct nlmsghdr *h, void *arg)
{
	struct drained *d = arg;

	d->got = true;
	if (d->cb)
		d->cb(d->c, h);
	return 0;
}

/* Read a monitor's notifications; cb sees each message (NULL: only drain). Returns 1 if
 * anything came (lost ones too: then everything is looked at again). */
static int drain(struct gw_ctr_followed *c, struct gw_monitor *m,
		 void (*cb)(struct gw_ctr_followed *, const struct nlmsghdr *))
{
	struct drained d = { c, cb, false };

	if (gw_monitor_read(m, drained_cb, &d) == -ENOBUFS)
		c->resync = d.got = true;
	return d.got;
}

static void due_pending(struct gw_ctr_followed *c, bool all)
{
	double now = gw_mono_now();

	for (size_t i = 0; i < c->np; i++)
		if (all || c->p[i].next <= now)
			mark_dirty(c, c->p[i].ifindex);
}

void gw_ctr_followed_dispatch(struct gw_ctr_followed *c)
{
	uint64_t exp;
	bool ticked;

	drain(c, c->links, on_link_msg);
	/* an address added anywhere (a container getting its address after its veth) */
	if (drain(c, c->addrs, NULL) && c->np)
		due_pending(c, true);
	ticked = read(c->timer_fd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp);
	if (ticked)
		due_pending(c, false);
	if (c->resync)
		resync(c);
	run_dirty(c);
}

/* ---- set-up, sampling, reload, teardown ------------------------------------------------------ */

/* (a monitor of the unit tests' in-memory kernel has no fd: it is read when dispatched) */
static int add_fd(int ep, int fd)
{
	if (fd < 0)
		return 0;
	return gw_epoll_set(ep, EPOLL_CTL_ADD, fd, EPOLLIN, (epoll_data_t){ .fd = fd });
}

static int alloc_rules(struct gw_ctr_followed *c, size_t n)
{
	c->nsids = calloc(n + 1, sizeof(*c->nsids));
	c->n_nsids = calloc(n + 1, sizeof(*c->n_nsids));
	c->nsids_known = calloc(n + 1, sizeof(*c->nsids_known));
	if (!c->nsids || !c->n_nsids || !c->nsids_known)
		return -ENOMEM;
	c->n_rules = n;
	return 0;
}

static void free_rules(struct gw_ctr_followed *c)
{
	if (c->nsids)
		forget_nsids(c);
	free(c->nsids);
	free(c->n_nsids);
	free(c->nsids_known);
	c->nsids = NULL;
	c->n_nsids = NULL;
	c->nsids_known = NULL;
	c->n_rules = 0;
}

/* ifbs named like ours that no container of ours uses, and carrying gatewayd's mark
 * (tree/own.c): left by a run that was killed. An unmarked one is someone else's. */
static int stale_cb(const struct gw_plink *l, void *arg)
{
	struct gw_ctr_followed *c = arg;
	char want[IFNAMSIZ];

	if (strncmp(l->name, GW_CTR_IFB_PREFIX, strlen(GW_CTR_IFB_PREFIX)))
		return 0;
	if (!gw_own_ifb(l->kind, l->alias)) {
		gw_log(GW_LOG_INFO, "left %s in place: named like a container ifb, but %s", l->name,
		       strcmp(l->kind, "ifb") ? "not an ifb" : "without gatewayd's mark");
		return 0;
	}
	for (size_t i = 0; i < c->n; i++) {
		gw_ctr_ifb_name(c->v[i]->ifindex, want, sizeof(want));
		if (!strcmp(want, l->name) && c->v[i]->s.link.dir[GW_DIR_INGRESS].present)
			return 0;
	}
	gw_link_del(c->nl, l->name, NULL);
	gw_log(GW_LOG_INFO, "removed %s, a container ifb left by an earlier run", l->name);
	return 0;
}

int gw_ctr_followed_new(const struct gw_config *cfg, struct gw_nl *nl,
			struct gw_ctr_followed **out)
{
	struct gw_ctr_followed *c = calloc(1, sizeof(*c));
	int r = -ENOMEM;

	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->nl = nl;
	c->ep = c->timer_fd = -1;
	if (alloc_rules(c, cfg->n_containers))
		goto fail;
	if ((r = gw_nl_open_sibling(nl, &c->q)) || (r = gw_nl_set_strict(c->q)))
		goto fail;
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->ep < 0 || c->timer_fd < 0) {
		r = -errno;
		goto fail;
	}
	/* addresses appear inside the containers' namespaces, not ours: all namespaces' (on an
	 * old kernel without that, the retry timer finds them instead) */
	if ((r = gw_nl_monitor(nl, RTMGRP_LINK, false, &c->links)) ||
	    (r = gw_nl_monitor(nl, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, true, &c->addrs)))
		goto fail;
	if ((r = add_fd(c->ep, gw_monitor_fd(c->links))) ||
	    (r = add_fd(c->ep, gw_monitor_fd(c->addrs))) || (r = add_fd(c->ep, c->timer_fd)))
		goto fail;
	/* subscribed first, then looked: nothing that appears in between is missed */
	if (cfg->n_containers) {
		resync(c);
		run_dirty(c);
	}
	gw_plink_dump(c->q, stale_cb, c);
	*out = c;
	return 0;
fail:
	gw_ctr_followed_free(c);
	return r;
}

void gw_ctr_followed_free(struct gw_ctr_followed *c)
{
	if (!c)
		return;
	while (c->n)
		unshape_at(c, c->n - 1, NULL);
	free(c->v);
	free(c->p);
	free(c->dirty);
	free_rules(c);
	gw_fd_close(&c->ep);
	gw_monitor_close(c->links);
	gw_monitor_close(c->addrs);
	gw_fd_close(&c->timer_fd);
	gw_nl_close(c->q);
	free(c);
}

bool gw_ctr_followed_has(struct gw_ctr_followed *c, const char *link)
{
	bool r = false;

	for (size_t i = 0; i < c->n && !r; i++)
		r = !strcmp(c->v[i]->s.link.name, link);
	return r;
}

int gw_ctr_followed_fd(const struct gw_ctr_followed *c)
{
	return c->ep;
}

size_t gw_ctr_followed_count(const struct gw_ctr_followed *c)
{
	return c ? c->n : 0;
}

/* Entries may have changed in any way: every tree is taken down and every interface looked
 * at again under the new entries (a container is unshaped for the few ms that takes). */
void gw_ctr_followed_reload(struct gw_ctr_followed *c, const struct gw_config *cfg)
{
	free_rules(c);
	while (c->n)
		unshape_at(c, c->n - 1, NULL);
	c->np = 0;
	c->cfg = cfg;
	if (alloc_rules(c, cfg->n_containers)) {
		/* n_rules stays 0: nothing matches until the next reload */
		free_rules(c);
		gw_log(GW_LOG_ERR, "containers: out of memory; not shaped until the next reload");
		return;
	}
	c->last_err[0] = '\0';
	resync(c);
	run_dirty(c);
}

static int append_dirs(struct gw_snapshot *snap, struct gw_snapshot *cs)
{
	void *n = realloc(snap->dirs, (snap->n_dirs + cs->n_dirs + 1) * sizeof(*snap->dirs));

	if (!n)
		return -ENOMEM;
	snap->dirs = n;
	memcpy(&snap->dirs[snap->n_dirs], cs->dirs, cs->n_dirs * sizeof(*cs->dirs));
	snap->n_dirs += cs->n_dirs;
	cs->n_dirs = 0;		/* the classes now belong to snap */
	return 0;
}

/* One qdisc dump of the namespace for every container: a dump walks all qdiscs there, so one
 * per container would cost n^2 each interval. */
static int shared_qdisc_dump(struct gw_ctr_followed *c)
{
	struct gw_sampler_route *v;
	size_t devs = 0, n = 0;
	int r;

	for (size_t i = 0; i < c->n; i++)
		devs += c->v[i]->applied.n_devs;
	if (!(v = calloc(devs + 1, sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		gw_sampler_begin(c->v[i]->sampler);
		for (size_t k = 0; k < c->v[i]->applied.n_devs; k++)
			v[n++] = (struct gw_sampler_route){ c->v[i]->applied.devs[k].ifindex,
							    c->v[i]->sampler };
	}
	r = gw_sampler_dump_routed(c->nl, v, n);
	free(v);
	return r;
}

int gw_ctr_followed_sample(struct gw_ctr_followed *c, double now, struct gw_snapshot *snap)
{
	bool missing = false;
	double mono;
	int ret = 0;

	if (!c->n)
		return 0;
	mono = gw_mono_now();	/* the counters' time: the dump's (gw_sampler_pass) */
	if ((ret = shared_qdisc_dump(c)))
		return ret;
	for (size_t i = 0; i < c->n; i++) {
		struct gw_snapshot *cs = NULL;
		char err[256] = "";
		int r = gw_sampler_finish(c->v[i]->sampler, c->nl, mono, now, &cs, err,
					  sizeof(err));

		if (r) {
			ret = r;
			continue;
		}
		/* a root gone without a notification we understood: look at it again */
		if (err[0]) {
			mark_dirty(c, c->v[i]->ifindex);
			missing = true;
		}
		if (append_dirs(snap, cs))
			ret = -ENOMEM;
		gw_snapshot_put(cs);
	}
	if (missing)
		run_dirty(c);
	return ret;
}
