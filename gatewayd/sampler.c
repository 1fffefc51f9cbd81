/* gatewayd/sampler.c: counters -> rates, accuracy, queue depth -> snapshots.
 * Objects are found by handle arithmetic (leaf i is qdisc 1000+i:, class e000:10+i), so a pass
 * over 16,000 classes is two dumps and no searching. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "gatewayd/sampler.h"
#include "sys/clock.h"
#include "qdisc/stats.h"

struct slot {
	char name[GW_NAME_MAX];
	enum gw_kind kind;		/* its queue's kind (the shaper's, for a total) */
	uint64_t rate, ceil;		/* bytes/s, as planned (gw_plan_rates) */
	size_t series;
	struct gw_counters total, last, now, delta;
	bool first, seen;
	uint32_t prev_backlog;
	struct gw_tc_stats leaf;	/* the queue's own statistics (xstats) */
	/* derived */
	double achieved, delay_ms, drops_s, marks_s;	/* achieved: bytes/s */
	bool saturated;
	double accuracy;
};

struct sdir {
	size_t link;
	enum gw_direction dir;
	int ifindex;
	bool waiting;		/* the link waits for its interface: no objects, no counters */
	bool foreign;		/* ingress held by a hook gatewayd did not make: the same, but
				 * said as that (waiting is set too) */
	char hook_kind[16];	/* then: that hook's kind */
	char device[IFNAMSIZ];
	enum gw_kind shaper;
	struct slot total;		/* rate and ceil: the shaper's */
	struct slot *classes;
	size_t n;
	int32_t *by_slot;	/* handle slot -> class index, -1 for none (see gw_plan_build) */
	uint32_t n_slots;
};

struct gw_sampler {
	const struct gw_config *cfg;
	struct sdir *dirs;
	size_t n_dirs;
	double prev_mono;
	bool have_prev;
};

static void slot_init(struct slot *s, const char *name, enum gw_kind kind, size_t *series)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->kind = kind;
	s->first = true;
	s->accuracy = NAN;
	s->series = (*series)++;
}

/* Classes are found by handle: slot s is class e000:(10+s) with queue (1000+s):. */
static int map_slots(struct sdir *d, const struct gw_applied *a)
{
	uint32_t *slot = calloc(d->n, sizeof(*slot)), max = 0;

	if (!slot)
		return -ENOMEM;
	gw_plan_slots(&a->plan, d->link, d->dir, slot, d->n);
	for (size_t k = 0; k < d->n; k++)
		max = slot[k] > max ? slot[k] : max;
	d->n_slots = max + 1;
	d->by_slot = malloc(d->n_slots * sizeof(*d->by_slot));
	if (d->by_slot) {
		memset(d->by_slot, 0xff, d->n_slots * sizeof(*d->by_slot));
		for (size_t k = 0; k < d->n; k++)
			d->by_slot[slot[k]] = (int32_t)k;
	}
	free(slot);
	return d->by_slot ? 0 : -ENOMEM;
}

/* The class behind a slot, or NULL. */
static struct slot *class_at(struct sdir *d, uint32_t slot)
{
	return slot < d->n_slots && d->by_slot[slot] >= 0 ? &d->classes[d->by_slot[slot]] : NULL;
}

/* The direction's rates as a's plan gives them to the kernel: the shaper's (its root), and
 * each class's by its slot; tbf's and cake's one queue drains at the shaper's rate. */
static void take_rates(struct sdir *d, const struct gw_applied *a)
{
	for (size_t i = 0; i < a->plan.n; i++) {
		const struct gw_plan_obj *o = &a->plan.objs[i];
		struct slot *c;

		if (o->link != d->link || o->dir != d->dir)
			continue;
		if (o->shaper_rate) {
			d->total.rate = d->total.ceil = o->shaper_rate;
			for (size_t k = 0; k < d->n; k++)
				d->classes[k].rate = d->classes[k].ceil = o->shaper_rate;
		} else if (o->obj.type == GW_OBJ_CLASS && !o->obj.inner &&
			   (c = class_at(d, o->slot))) {
			c->rate = o->obj.cls.rate;
			c->ceil = o->obj.cls.ceil;
		}
	}
}

/* Where a's tree puts the direction now: its device's index, its class slots, its rates. */
static int follow(struct sdir *d, const struct gw_applied *a)
{
	const struct gw_link_facts *f = &a->facts[d->link];

	d->foreign = !f->absent && d->dir == GW_DIR_INGRESS && f->ingress_foreign;
	d->waiting = f->absent || d->foreign;
	snprintf(d->hook_kind, sizeof(d->hook_kind), "%s", f->hook_kind[0] ? f->hook_kind : "ingress");
	d->ifindex = d->waiting ? 0 : d->dir == GW_DIR_EGRESS ? f->dev.ifindex : f->ifb.ifindex;
	/* a link that waited had no slots to map: they are the plan's from now on */
	free(d->by_slot);
	d->by_slot = NULL;
	if (map_slots(d, a) < 0) {
		d->n_slots = 0;	/* no class to find by slot: none is read */
		return -ENOMEM;
	}
	take_rates(d, a);
	return 0;
}

static int dir_init(struct sdir *d, const struct gw_config *cfg, const struct gw_applied *a,
		    size_t link, enum gw_direction dir, size_t *series)
{
	const struct gw_link_cfg *l = &cfg->links[link];
	const struct gw_dir_cfg *dc = &l->dir[dir];
	size_t n = dc->n_classes ? dc->n_classes : 1;

	d->link = link;
	d->dir = dir;
	d->foreign = !a->facts[link].absent && dir == GW_DIR_INGRESS &&
		     a->facts[link].ingress_foreign;
	d->waiting = a->facts[link].absent || d->foreign;
	snprintf(d->hook_kind, sizeof(d->hook_kind), "%s",
		 a->facts[link].hook_kind[0] ? a->facts[link].hook_kind : "ingress");
	d->ifindex = d->waiting ? 0 : dir == GW_DIR_EGRESS ? a->facts[link].dev.ifindex :
		     a->facts[link].ifb.ifindex;
	snprintf(d->device, sizeof(d->device), "%s", dir == GW_DIR_EGRESS ? l->interface : dc->ifb);
	d->shaper = dc->shaper;
	d->n = n;
	d->classes = calloc(n, sizeof(*d->classes));
	if (!d->classes || map_slots(d, a) < 0)
		return -ENOMEM;
	slot_init(&d->total, "total", dc->shaper, series);
	if (!dc->n_classes) {
		/* one queue: htb's single default class, tbf's child, or cake itself */
		enum gw_kind k = gw_shaper_role(dc->shaper) == GW_SHAPER_SELF ? dc->shaper :
				 dc->child.kind;

		slot_init(&d->classes[0], "default", k, series);
	}
	for (size_t i = 0; i < n && dc->n_classes; i++) {
		const struct gw_class_cfg *c = &dc->classes[i];

		slot_init(&d->classes[i], c->name, c->child.kind, series);
	}
	d->total.rate = d->total.ceil = dc->rate;	/* a waiting link's: the config's */
	take_rates(d, a);
	return 0;
}

int gw_sampler_new(const struct gw_config *cfg, const struct gw_applied *a,
		   struct gw_sampler **out)
{
	struct gw_sampler *s = calloc(1, sizeof(*s));
	size_t n = 0;
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->cfg = cfg;
	s->dirs = calloc(cfg->n_links * 2 + 1, sizeof(*s->dirs));
	if (!s->dirs) {
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cfg->n_links && !err; i++)
		for (int d = 0; d < 2 && !err; d++)
			if (cfg->links[i].dir[d].present)
				err = dir_init(&s->dirs[s->n_dirs++], cfg, a, i,
					       (enum gw_direction)d, &n);
	(void)n;
	if (err) {
		gw_sampler_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void gw_sampler_free(struct gw_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_dirs; i++) {
		free(s->dirs[i].classes);
		free(s->dirs[i].by_slot);
	}
	free(s->dirs);
	free(s);
}

void gw_sampler_rebind(struct gw_sampler *s, const struct gw_applied *a)
{
	for (size_t i = 0; i < s->n_dirs; i++) {
		struct sdir *d = &s->dirs[i];

		follow(d, a);
		/* new objects count from zero: their first reading is added whole */
		d->total.first = true;
		for (size_t k = 0; k < d->n; k++)
			d->classes[k].first = true;
	}
}

void gw_sampler_retarget(struct gw_sampler *s, const struct gw_config *cfg,
			 const struct gw_applied *a)
{
	s->cfg = cfg;
	for (size_t i = 0; i < s->n_dirs; i++) {
		struct sdir *d = &s->dirs[i];
		const struct gw_dir_cfg *dc = &cfg->links[d->link].dir[d->dir];

		for (size_t k = 0; k < d->n && dc->n_classes; k++)
			snprintf(d->classes[k].name, sizeof(d->classes[k].name), "%s",
				 dc->classes[k].name);
		take_rates(d, a);
	}
}

/* What a reload made anew, per slot: the object a slot counts from (a class, tbf's queue, cake
 * itself), or only an htb class's leaf (whose drops and marks the class shows). */
enum { NEW_OBJ = 1, NEW_LEAF = 2 };

static struct sdir *dir_of(struct gw_sampler *s, size_t link, enum gw_direction dir)
{
	for (size_t i = 0; i < s->n_dirs; i++)
		if (s->dirs[i].link == link && s->dirs[i].dir == dir)
			return &s->dirs[i];
	return NULL;
}

/* marks[i]: per direction i, [0] its total, [1 + k] its class k. */
static void mark_fresh(struct gw_sampler *s, const struct gw_applied *a, const bool *fresh,
		       uint8_t **marks)
{
	for (size_t i = 0; i < a->plan.n; i++) {
		const struct gw_plan_obj *o = &a->plan.objs[i];
		struct sdir *d = dir_of(s, o->link, o->dir);
		struct slot *c;
		uint8_t *m;

		if ((fresh && !fresh[i]) || !d)
			continue;
		m = marks[d - s->dirs];
		if (o->obj.type == GW_OBJ_QDISC && o->obj.parent == TC_H_ROOT) {
			m[0] |= NEW_OBJ;
			if (gw_shaper_role(d->shaper) == GW_SHAPER_SELF)
				m[1] |= NEW_OBJ;
		} else if (o->obj.type == GW_OBJ_CLASS && !o->obj.inner &&
			   (c = class_at(d, o->slot))) {
			m[1 + (c - d->classes)] |= NEW_OBJ;
		} else if (o->obj.type == GW_OBJ_QDISC && o->cls[0] && (c = class_at(d, o->slot))) {
			m[1 + (c - d->classes)] |= gw_shaper_role(d->shaper) == GW_SHAPER_BUCKET ?
						   NEW_OBJ : NEW_LEAF;
		}
	}
}

static void carry_slot(struct slot *to, const struct slot *from, uint8_t mark)
{
	to->total = from->total;
	to->last = from->last;
	/* a new object's first reading is all new: added whole to the running total */
	to->first = from->first || (mark & NEW_OBJ);
	to->prev_backlog = from->prev_backlog;
	if (mark & NEW_LEAF)
		to->last.drops = to->last.marks = 0;
}

/* The direction's marks are the sum of its classes': what the sum starts from. */
static void fix_marks(struct sdir *d)
{
	uint64_t marks = 0;

	for (size_t k = 0; k < d->n; k++)
		marks += d->classes[k].first ? 0 : d->classes[k].last.marks;
	if (gw_shaper_role(d->shaper) != GW_SHAPER_SELF && !d->total.first)
		d->total.last.marks = marks;
}

static void carry_dir(struct sdir *d, const struct sdir *od, const uint8_t *m)
{
	carry_slot(&d->total, &od->total, m[0]);
	for (uint32_t sl = 0; sl < d->n_slots; sl++) {
		struct slot *c = class_at(d, sl);
		const struct slot *oc = class_at((struct sdir *)od, sl);

		/* a slot keeps its class by name across reloads, and is not reused in one */
		if (c && oc && !strcmp(c->name, oc->name))
			carry_slot(c, oc, m[1 + (c - d->classes)]);
	}
	fix_marks(d);
}

void gw_sampler_carry(struct gw_sampler *s, const struct gw_sampler *from,
		      const struct gw_applied *a, const bool *fresh)
{
	uint8_t **marks = calloc(s->n_dirs + 1, sizeof(*marks));

	for (size_t i = 0; marks && i < s->n_dirs; i++)
		if (!(marks[i] = calloc(s->dirs[i].n + 1, 1)))
			goto out;
	if (!marks)
		goto out;
	mark_fresh(s, a, fresh, marks);
	for (size_t i = 0; i < s->n_dirs; i++) {
		struct sdir *d = &s->dirs[i];
		const char *link = s->cfg->links[d->link].name;

		for (size_t k = 0; k < from->n_dirs; k++) {
			const struct sdir *od = &from->dirs[k];

			if (od->dir == d->dir && !strcmp(from->cfg->links[od->link].name, link))
				carry_dir(d, od, marks[i]);
		}
	}
	s->prev_mono = from->prev_mono;
	s->have_prev = from->have_prev;
out:
	for (size_t i = 0; marks && i < s->n_dirs; i++)
		free(marks[i]);
	free(marks);
}

void gw_sampler_refresh(struct gw_sampler *s, const struct gw_applied *a, const bool *fresh)
{
	uint8_t **marks = calloc(s->n_dirs + 1, sizeof(*marks));

	/* slots first: the marks are found through them */
	for (size_t i = 0; i < s->n_dirs; i++)
		if (follow(&s->dirs[i], a))
			fresh = NULL;
	for (size_t i = 0; marks && i < s->n_dirs; i++)
		if (!(marks[i] = calloc(s->dirs[i].n + 1, 1)))
			fresh = NULL;	/* no room to tell: all counted as new */
	if (marks && fresh)
		mark_fresh(s, a, fresh, marks);
	for (size_t i = 0; i < s->n_dirs; i++) {
		struct sdir *d = &s->dirs[i];
		struct slot self;
		uint8_t all = NEW_OBJ, *m = marks && marks[i] && fresh ? marks[i] : NULL;

		/* carrying a slot onto itself applies the marks and keeps the rest */
		self = d->total;
		carry_slot(&d->total, &self, m ? m[0] : all);
		for (size_t k = 0; k < d->n; k++) {
			self = d->classes[k];
			carry_slot(&d->classes[k], &self, m ? m[1 + k] : all);
		}
		fix_marks(d);
	}
	for (size_t i = 0; marks && i < s->n_dirs; i++)
		free(marks[i]);
	free(marks);
}

void gw_counters_advance(struct gw_counters *total, struct gw_counters *last,
			 const struct gw_counters *now, bool first, struct gw_counters *delta)
{
	memset(delta, 0, sizeof(*delta));
	if (first || now->bytes < last->bytes) {
		/* gatewayd created the object, so its counters so far are all ours; bytes going
		 * back means it was recreated and counts from zero again */
		*delta = *now;
	} else {
		delta->bytes = now->bytes - last->bytes;
		delta->packets = now->packets - last->packets;
		/* the kernel's 32-bit counters wrap; unsigned subtraction at their width */
		delta->drops = (uint32_t)(now->drops - last->drops);
		delta->overlimits = (uint32_t)(now->overlimits - last->overlimits);
		delta->requeues = (uint32_t)(now->requeues - last->requeues);
		delta->marks = (uint32_t)(now->marks - last->marks);
	}
	total->bytes += delta->bytes;
	total->packets += delta->packets;
	total->drops += delta->drops;
	total->overlimits += delta->overlimits;
	total->requeues += delta->requeues;
	total->marks += delta->marks;
	*last = *now;
	total->backlog_bytes = now->backlog_bytes;
	total->backlog_packets = now->backlog_packets;
}

static void take_counters(struct slot *s, const struct gw_tc_stats *st)
{
	s->now.bytes = st->bytes;
	s->now.packets = st->packets;
	s->now.drops = st->drops;
	s->now.overlimits = st->overlimits;
	s->now.requeues = st->requeues;
	s->now.backlog_bytes = st->backlog_bytes;
	s->now.backlog_packets = st->qlen;
	s->seen = true;
}

/* ECN marks are the queue's to count (its kind's extended statistics say how many). */
static uint64_t marks_of(const struct gw_tc_stats *st)
{
	return st->ecn_marks;
}

static struct sdir *dir_by_ifindex(struct gw_sampler *s, int ifindex)
{
	for (size_t i = 0; i < s->n_dirs; i++)
		if (s->dirs[i].ifindex == ifindex)
			return &s->dirs[i];
	return NULL;
}

static int qdisc_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct gw_sampler *s = arg;
	struct gw_tc_stats st;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct sdir *d;
	uint32_t major;

	/* most of a dump is other devices': looked at before anything is parsed */
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || !dir_by_ifindex(s, t->tcm_ifindex))
		return 0;
	if (gw_stats_parse(nlh, &st) || !(d = dir_by_ifindex(s, st.ifindex)))
		return 0;
	major = TC_H_MAJ(st.handle) >> 16;
	if (st.handle == GW_ROOT_HANDLE && st.parent == TC_H_ROOT) {
		take_counters(&d->total, &st);
		d->total.leaf = st;
		if (gw_shaper_role(d->shaper) == GW_SHAPER_SELF) {	/* the root is the queue */
			take_counters(&d->classes[0], &st);
			d->classes[0].leaf = st;
			d->classes[0].now.marks = d->total.now.marks = marks_of(&st);
		}
	} else if (major >= GW_LEAF_MAJOR_BASE && class_at(d, major - GW_LEAF_MAJOR_BASE)) {
		struct slot *c = class_at(d, major - GW_LEAF_MAJOR_BASE);

		c->leaf = st;
		c->now.marks = marks_of(&st);
		/* a bucket's class has no counters: its child does */
		if (gw_shaper_role(d->shaper) == GW_SHAPER_BUCKET)
			take_counters(c, &st);
	}
	return 0;
}

static int class_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct sdir *d = arg;
	struct gw_tc_stats st;
	uint32_t minor;

	if (gw_stats_parse(nlh, &st) || st.ifindex != d->ifindex ||
	    TC_H_MAJ(st.handle) != GW_ROOT_HANDLE)
		return 0;
	minor = TC_H_MIN(st.handle);
	if (minor >= GW_LEAF_MINOR_BASE && class_at(d, minor - GW_LEAF_MINOR_BASE)) {
		struct slot *c = class_at(d, minor - GW_LEAF_MINOR_BASE);
		uint64_t marks = c->now.marks;

		take_counters(c, &st);
		c->now.marks = marks;
		/* htb counts only the packets its leaf refused; an AQM drops inside the leaf at
		 * dequeue too, so the queue's own count is the class's (the qdisc dump ran first) */
		if (c->leaf.handle)
			c->now.drops = c->leaf.drops;
	}
	return 0;
}

/* Rates and queue depth of one slot over dt seconds. */
static void derive(struct slot *c, double dt)
{
	double drain;

	gw_counters_advance(&c->total, &c->last, &c->now, c->first, &c->delta);
	c->achieved = dt > 0 && !c->first ? (double)c->delta.bytes / dt : 0;
	c->drops_s = dt > 0 && !c->first ? (double)c->delta.drops / dt : 0;
	c->marks_s = dt > 0 && !c->first ? (double)c->delta.marks / dt : 0;
	/* backlogged at both ends and throttled in between: the shaper, not the sender, set
	 * the pace over this interval */
	c->saturated = !c->first && c->prev_backlog > 0 && c->now.backlog_bytes > 0 &&
		       c->delta.overlimits > 0;
	c->prev_backlog = c->now.backlog_bytes;
	drain = fmax(c->achieved, (double)c->rate);
	c->delay_ms = drain > 0 ? c->now.backlog_bytes / drain * 1000 : 0;
	if (c->leaf.has_delay)	/* a queue that measures its own delay knows better */
		c->delay_ms = c->leaf.delay_us / 1000.0;
	c->first = false;
}

static void derive_dir(struct sdir *d, double dt)
{
	size_t active = 0;
	uint64_t marks = 0;

	for (size_t i = 0; i < d->n; i++) {
		derive(&d->classes[i], dt);
		active += d->classes[i].delta.bytes > 0;
		marks += d->classes[i].now.marks;
	}
	if (gw_shaper_role(d->shaper) != GW_SHAPER_SELF)
		d->total.now.marks = marks;
	derive(&d->total, dt);
	d->total.accuracy = d->total.saturated ? d->total.achieved / (double)d->total.rate : NAN;
	for (size_t i = 0; i < d->n; i++) {
		struct slot *c = &d->classes[i];

		if (gw_shaper_role(d->shaper) != GW_SHAPER_CLASSES) {
			/* one queue behind tbf or cake: the direction's figures are its own */
			c->saturated = d->total.saturated;
			c->accuracy = d->total.accuracy;
			continue;
		}
		/* a class answers for its ceil only when nothing else shared the link */
		c->accuracy = c->saturated && (!d->total.saturated || active == 1) ?
			      c->achieved / (double)c->ceil : NAN;
	}
}

/* A waiting direction's pass: no rate, no queue (its running totals are kept). */
static void idle_slot(struct slot *c)
{
	c->achieved = c->delay_ms = c->drops_s = c->marks_s = 0;
	c->saturated = false;
	c->accuracy = NAN;
	c->now.backlog_bytes = c->now.backlog_packets = c->prev_backlog = 0;
	memset(&c->leaf, 0, sizeof(c->leaf));
}

static void idle_dir(struct sdir *d)
{
	idle_slot(&d->total);
	for (size_t k = 0; k < d->n; k++)
		idle_slot(&d->classes[k]);
}

static void fill_class(struct gw_snap_class *o, const struct slot *c, const char *kind)
{
	const struct gw_tc_stats *l = &c->leaf;

	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", c->name);
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	o->rate_in_force_bytes_per_s = c->rate;
	o->ceil_bytes_per_s = c->ceil;
	o->bytes = c->total.bytes;
	o->packets = c->total.packets;
	o->drops = c->total.drops;
	o->overlimits = c->total.overlimits;
	o->requeues = c->total.requeues;
	o->ecn_marks = c->total.marks;
	o->backlog_bytes = c->now.backlog_bytes;
	o->backlog_packets = c->now.backlog_packets;
	o->achieved_bytes_per_s = c->achieved;
	o->utilisation = c->rate ? c->achieved / (double)c->rate : 0;
	o->saturated = c->saturated;
	o->accuracy = c->accuracy;
	o->queue_delay_ms = c->delay_ms;
	o->drops_per_s = c->drops_s;
	o->marks_per_s = c->marks_s;
	o->x = l->x;
}

static struct gw_snapshot *build_snapshot(struct gw_sampler *s, double now)
{
	struct gw_snapshot *snap = calloc(1, sizeof(*snap));

	if (!snap || !(snap->dirs = calloc(s->n_dirs + 1, sizeof(*snap->dirs)))) {
		free(snap);
		return NULL;
	}
	atomic_init(&snap->refs, 1);
	snap->n_xdescs = gw_qdisc_xdescs(snap->xdescs, GW_SNAP_XKINDS);
	snap->unix_time = now;
	snap->interval_us = s->cfg->interval_us;
	snap->n_dirs = s->n_dirs;
	for (size_t i = 0; i < s->n_dirs; i++) {
		const struct sdir *d = &s->dirs[i];
		const struct gw_link_cfg *l = &s->cfg->links[d->link];
		struct gw_snap_dir *o = &snap->dirs[i];

		snprintf(o->link, sizeof(o->link), "%s", l->name);
		snprintf(o->interface, sizeof(o->interface), "%s", l->interface);
		snprintf(o->device, sizeof(o->device), "%s", d->device);
		snprintf(o->direction, sizeof(o->direction), "%s", gw_direction_name(d->dir));
		snprintf(o->shaper, sizeof(o->shaper), "%s", gw_kind_name(d->shaper));
		o->rate_in_force_bytes_per_s = d->total.rate;
		o->waiting = d->waiting && !d->foreign;
		if (d->foreign)
			snprintf(o->foreign_hook, sizeof(o->foreign_hook), "%s", d->hook_kind);
		fill_class(&o->total, &d->total, gw_kind_name(d->shaper));
		if (!(o->classes = calloc(d->n, sizeof(*o->classes)))) {
			snap->n_dirs = i;
			gw_snapshot_put(snap);
			return NULL;
		}
		o->n_classes = d->n;
		for (size_t k = 0; k < d->n; k++)
			fill_class(&o->classes[k], &d->classes[k], gw_kind_name(d->classes[k].kind));
	}
	return snap;
}

void gw_sampler_begin(struct gw_sampler *s)
{
	for (size_t i = 0; i < s->n_dirs; i++) {
		s->dirs[i].total.seen = false;
		for (size_t k = 0; k < s->dirs[i].n; k++)
			s->dirs[i].classes[k].seen = false;
	}
}

struct routes {
	const struct gw_sampler_route *v;
	size_t n;
};

static int route_cmp(const void *x, const void *y)
{
	const struct gw_sampler_route *a = x, *b = y;

	return a->ifindex < b->ifindex ? -1 : a->ifindex > b->ifindex;
}

static int route_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct routes *rt = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct gw_sampler_route key = { 0 };
	const struct gw_sampler_route *hit;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)))
		return 0;
	key.ifindex = t->tcm_ifindex;
	hit = bsearch(&key, rt->v, rt->n, sizeof(*rt->v), route_cmp);
	return hit ? qdisc_cb(nlh, hit->s) : 0;
}

int gw_sampler_dump_routed(struct gw_nl *nl, struct gw_sampler_route *v, size_t n)
{
	struct routes rt = { v, n };

	qsort(v, n, sizeof(*v), route_cmp);
	return gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, route_cb, &rt, NULL);
}

int gw_sampler_pass(struct gw_sampler *s, struct gw_nl *nl, double now,
		    struct gw_snapshot **out, char *err, size_t errlen)
{
	struct gw_nl_error e;
	double asked;
	int r;

	gw_sampler_begin(s);
	/* one qdisc dump for all devices */
	asked = gw_mono_now();
	r = gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, qdisc_cb, s, &e);
	if (r) {
		snprintf(err, errlen, "reading counters: %s", e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	return gw_sampler_finish(s, nl, asked, now, out, err, errlen);
}

int gw_sampler_finish(struct gw_sampler *s, struct gw_nl *nl, double mono, double now,
		      struct gw_snapshot **out, char *err, size_t errlen)
{
	double dt = s->have_prev ? mono - s->prev_mono : 0;
	struct gw_nl_error e;
	int r = 0;

	/* one class dump per classful device */
	for (size_t i = 0; i < s->n_dirs && !r; i++)
		if (gw_shaper_role(s->dirs[i].shaper) == GW_SHAPER_CLASSES && !s->dirs[i].waiting)
			r = gw_nl_dump_tc(nl, RTM_GETTCLASS, s->dirs[i].ifindex, 0, class_cb,
					  &s->dirs[i], &e);
	if (r) {
		snprintf(err, errlen, "reading counters: %s", e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	for (size_t i = 0; i < s->n_dirs; i++) {
		struct sdir *d = &s->dirs[i];

		if (d->waiting)
			idle_dir(d);	/* nothing passes a shaper that is not there */
		else if (!d->total.seen)
			snprintf(err, errlen, "link '%s' %s: gatewayd's root qdisc is missing on %s",
				 s->cfg->links[d->link].name, gw_direction_name(d->dir), d->device);
		if (!d->waiting)
			derive_dir(d, dt);
	}
	s->prev_mono = mono;
	s->have_prev = true;
	if (!(*out = build_snapshot(s, now)))
		return -ENOMEM;
	return 0;
}
