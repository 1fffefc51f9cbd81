/* tree/plan.c: config + interface facts -> the ordered list of tc objects to create. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "tree/plan.h"
#include "sys/grow.h"

struct builder {
	const struct gw_config *cfg;
	const struct gw_plan *prev;
	struct gw_plan *p;
	size_t cap;
	size_t link;
	enum gw_direction dir;
	const char *dev;
	int ifindex;
	const struct gw_link_info *info;
};

static struct gw_plan_obj *add(struct builder *b, enum gw_obj_type type, enum gw_kind kind,
			       uint32_t handle, uint32_t parent, const char *role, const char *name)
{
	struct gw_plan_obj *o;

	if (gw_grow(&b->p->objs, &b->cap, b->p->n, sizeof(*o), 16))
		return NULL;
	o = &b->p->objs[b->p->n++];
	memset(o, 0, sizeof(*o));
	o->obj.type = type;
	o->obj.kind = kind;
	o->obj.ifindex = b->ifindex;
	o->obj.handle = handle;
	o->obj.parent = parent;
	if (type == GW_OBJ_QDISC)
		gw_qopts_init(kind, &o->obj.q);
	o->link = b->link;
	snprintf(o->link_name, sizeof(o->link_name), "%s", b->cfg->links[b->link].name);
	o->dir = b->dir;
	o->dev = b->dev;
	snprintf(o->what, sizeof(o->what), "%s %s%s%s", gw_direction_name(b->dir), role,
		 name ? " " : "", name ? name : "");
	return o;
}

/* A leaf qdisc under handle parent; its kind fills what it derives from the rate and the
 * link's sizing (qdisc/<kind>.c plan_leaf). */
static int add_leaf(struct builder *b, const struct gw_child *c, uint64_t rate,
		    uint32_t handle, uint32_t parent, const char *cls, uint32_t slot)
{
	const struct gw_sizing *s = &b->cfg->links[b->link].sizing;
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(c->kind);
	struct gw_plan_obj *o = add(b, GW_OBJ_QDISC, c->kind, handle, parent,
				    "qdisc of class", cls);

	if (!o)
		return -ENOMEM;
	snprintf(o->cls, sizeof(o->cls), "%s", cls);
	o->slot = slot;
	o->obj.q = c->opts;
	if (ops && ops->plan_leaf)
		ops->plan_leaf(&o->obj.q, rate, s);
	return 0;
}

static void set_shape(struct gw_plan_obj *o, const struct gw_shape *sh)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(o->obj.kind);

	o->shaper_rate = sh->rate;
	if (ops && ops->set_shape)
		ops->set_shape(&o->obj.q, sh);
}

struct named_slot {
	const char *name;
	uint32_t slot;
};

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct named_slot *)x)->name, ((const struct named_slot *)y)->name);
}

/* Slots for this direction's classes: a class prev knew keeps its slot, a new one gets the
 * lowest slot that neither prev nor a kept class uses (so a handle is never reused within one
 * reload), or, if prev used them all, the lowest a kept class does not. */
static int assign_slots(struct builder *b, const struct gw_class_cfg *cls, size_t n,
			uint32_t *slot)
{
	const char *link = b->cfg->links[b->link].name;
	struct named_slot *known = calloc(b->prev ? b->prev->n + 1 : 1, sizeof(*known));
	uint8_t *used = calloc(GW_MAX_SLOT, 2);	/* [0]: prev's, [1]: kept */
	size_t nk = 0, next = 0;

	if (!known || !used) {
		free(known);
		free(used);
		return -ENOMEM;
	}
	for (size_t i = 0; b->prev && i < b->prev->n; i++) {
		const struct gw_plan_obj *o = &b->prev->objs[i];

		if (o->obj.type == GW_OBJ_CLASS && !o->obj.inner && o->dir == b->dir &&
		    !strcmp(o->link_name, link) && o->slot < GW_MAX_SLOT) {
			known[nk++] = (struct named_slot){ o->cls, o->slot };
			used[2 * o->slot] = 1;
		}
	}
	qsort(known, nk, sizeof(*known), by_name);
	for (size_t k = 0; k < n; k++) {
		struct named_slot key = { cls[k].name, 0 }, *hit;

		hit = nk ? bsearch(&key, known, nk, sizeof(*known), by_name) : NULL;
		slot[k] = hit ? hit->slot : UINT32_MAX;
		if (hit)
			used[2 * hit->slot + 1] = 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		next = 0;
		for (size_t k = 0; k < n; k++) {
			if (slot[k] != UINT32_MAX)
				continue;
			while (next < GW_MAX_SLOT && (used[2 * next + 1] || (!pass && used[2 * next])))
				next++;
			if (next == GW_MAX_SLOT)
				break;
			slot[k] = (uint32_t)next;
			used[2 * next + 1] = 1;
		}
	}
	free(known);
	free(used);
	for (size_t k = 0; k < n; k++)
		if (slot[k] == UINT32_MAX)
			return -ENOSPC;
	return 0;
}

static void root_stab(struct builder *b, struct gw_plan_obj *root)
{
	const struct gw_sizing *s = &b->cfg->links[b->link].sizing;

	root->obj.stab = *s;
	root->obj.stab_overhead = gw_derive_stab_overhead(s, b->info->arptype);
}

static int plan_htb_objs(struct builder *b, const struct gw_dir_cfg *d,
			 const struct gw_class_cfg *cls, size_t n, const uint32_t *slot,
			 size_t def);

static int plan_htb(struct builder *b, const struct gw_dir_cfg *d)
{
	struct gw_class_cfg single;
	const struct gw_class_cfg *cls = d->classes;
	size_t n = d->n_classes, def = 0;
	uint32_t *slot;
	int err;

	if (!n) {	/* no classes: one default class at the full rate */
		gw_class_default(&single, d->rate, d->rate, &d->child, 0);
		cls = &single;
		n = 1;
	}
	slot = calloc(n, sizeof(*slot));
	if (!slot || (err = assign_slots(b, cls, n, slot))) {
		free(slot);
		return slot ? err : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (cls[i].is_default)
			def = i;
	err = plan_htb_objs(b, d, cls, n, slot, def);
	free(slot);
	return err;
}

static int plan_htb_objs(struct builder *b, const struct gw_dir_cfg *d,
			 const struct gw_class_cfg *cls, size_t n, const uint32_t *slot, size_t def)
{
	const struct gw_sizing *s = &b->cfg->links[b->link].sizing;
	unsigned int mtu = b->info->mtu;
	struct gw_plan_obj *o;

	if (!(o = add(b, GW_OBJ_QDISC, d->shaper, GW_ROOT_HANDLE, TC_H_ROOT, "root", NULL)))
		return -ENOMEM;
	set_shape(o, &(struct gw_shape){ .rate = d->rate,
					 .defcls = GW_LEAF_MINOR_BASE + slot[def] });
	root_stab(b, o);
	if (!(o = add(b, GW_OBJ_CLASS, d->shaper, GW_HANDLE(GW_ROOT_MAJOR, GW_TOP_MINOR),
		      GW_ROOT_HANDLE, "top class", NULL)))
		return -ENOMEM;
	o->obj.cls.rate = o->obj.cls.ceil = d->rate;
	o->obj.cls.burst = o->obj.cls.cburst =
		d->burst != GW_UNSET ? d->burst : (int64_t)gw_derive_burst(d->rate, s, mtu);
	o->obj.cls.quantum = gw_derive_quantum(d->rate, s, mtu);
	o->obj.cls.prio = GW_UNSET;
	o->obj.inner = true;
	for (size_t i = 0; i < n; i++) {
		const struct gw_class_cfg *c = &cls[i];
		uint32_t minor = GW_LEAF_MINOR_BASE + slot[i];

		if (!(o = add(b, GW_OBJ_CLASS, d->shaper, GW_HANDLE(GW_ROOT_MAJOR, minor),
			      GW_HANDLE(GW_ROOT_MAJOR, GW_TOP_MINOR), "class", c->name)))
			return -ENOMEM;
		snprintf(o->cls, sizeof(o->cls), "%s", c->name);
		o->slot = slot[i];
		o->obj.cls.rate = c->rate;
		o->obj.cls.ceil = c->ceil;
		o->obj.cls.prio = c->prio;
		o->obj.cls.burst = c->burst != GW_UNSET ? c->burst :
				   (int64_t)gw_derive_burst(c->rate, s, mtu);
		o->obj.cls.cburst = c->cburst != GW_UNSET ? c->cburst :
				    (int64_t)gw_derive_burst(c->ceil, s, mtu);
		o->obj.cls.quantum = c->quantum != GW_UNSET ? c->quantum :
				     gw_derive_quantum(c->rate, s, mtu);
		if (add_leaf(b, &c->child, c->rate, GW_HANDLE(GW_LEAF_MAJOR_BASE + slot[i], 0),
			     GW_HANDLE(GW_ROOT_MAJOR, minor), c->name, slot[i]))
			return -ENOMEM;
	}
	return 0;
}

static int plan_tbf(struct builder *b, const struct gw_dir_cfg *d)
{
	const struct gw_sizing *s = &b->cfg->links[b->link].sizing;
	struct gw_plan_obj *o = add(b, GW_OBJ_QDISC, d->shaper, GW_ROOT_HANDLE, TC_H_ROOT,
				    "root", NULL);
	struct gw_shape sh = { .rate = d->rate };

	if (!o)
		return -ENOMEM;
	sh.burst = d->burst != GW_UNSET ? d->burst :
		   (int64_t)gw_derive_burst(d->rate, s, b->info->mtu);
	sh.limit = gw_derive_tbf_limit(d->rate, sh.burst, d->latency_us);
	set_shape(o, &sh);
	root_stab(b, o);
	return add_leaf(b, &d->child, d->rate, GW_HANDLE(GW_LEAF_MAJOR_BASE, 0),
			GW_HANDLE(GW_ROOT_MAJOR, 1), "default", 0);
}

/* A shaper that is its own queue: the root, with the direction's child settings as its own. */
static int plan_self(struct builder *b, const struct gw_dir_cfg *d)
{
	struct gw_child c = d->child;
	struct gw_plan_obj *o;

	if (c.kind != d->shaper) {
		c.kind = d->shaper;
		gw_qopts_init(d->shaper, &c.opts);
	}
	if (add_leaf(b, &c, d->rate, GW_ROOT_HANDLE, TC_H_ROOT, "shaper", 0))
		return -ENOMEM;
	o = &b->p->objs[b->p->n - 1];
	set_shape(o, &(struct gw_shape){ .rate = d->rate });
	snprintf(o->what, sizeof(o->what), "%s root", gw_direction_name(b->dir));
	return 0;
}

static int plan_dir(struct builder *b, const struct gw_dir_cfg *d)
{
	switch (gw_shaper_role(d->shaper)) {
	case GW_SHAPER_CLASSES:
		return plan_htb(b, d);
	case GW_SHAPER_BUCKET:
		return plan_tbf(b, d);
	case GW_SHAPER_SELF:
		return plan_self(b, d);
	default:
		return -EINVAL;
	}
}

/* Ingress: the hook and the redirect on the interface, the shaper on the ifb. */
static int plan_ingress(struct builder *b, const struct gw_link_cfg *l,
			const struct gw_link_facts *f)
{
	struct gw_plan_obj *o;

	b->dir = GW_DIR_INGRESS;
	b->dev = l->interface;
	b->ifindex = f->dev.ifindex;
	b->info = &f->dev;
	if (!add(b, GW_OBJ_QDISC, GW_KIND_INGRESS, GW_INGRESS_HANDLE, TC_H_INGRESS, "hook",
		 NULL))
		return -ENOMEM;
	if (!(o = add(b, GW_OBJ_FILTER, GW_KIND_NONE, 0, GW_INGRESS_HANDLE, "redirect",
		      NULL)))
		return -ENOMEM;
	o->obj.redirect_ifindex = f->ifb.ifindex;
	b->dev = l->dir[GW_DIR_INGRESS].ifb;
	b->ifindex = f->ifb.ifindex;
	b->info = &f->ifb;
	return plan_dir(b, &l->dir[GW_DIR_INGRESS]);
}

int gw_plan_build(const struct gw_config *cfg, const struct gw_link_facts *facts,
		  const struct gw_plan *prev, struct gw_plan *out)
{
	struct builder b = { .cfg = cfg, .prev = prev, .p = out };
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < cfg->n_links && !err; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		b.link = i;
		if (facts[i].absent)
			continue;	/* waiting for its interface: nothing to make yet */
		if (l->dir[GW_DIR_EGRESS].present) {
			b.dir = GW_DIR_EGRESS;
			b.dev = l->interface;
			b.ifindex = facts[i].dev.ifindex;
			b.info = &facts[i].dev;
			err = plan_dir(&b, &l->dir[GW_DIR_EGRESS]);
		}
		/* someone else's ingress hook: that direction is left unshaped (apply.c) */
		if (!err && l->dir[GW_DIR_INGRESS].present && !facts[i].ingress_foreign)
			err = plan_ingress(&b, l, &facts[i]);
	}
	if (err)
		gw_plan_free(out);
	return err;
}

bool gw_plan_has_link(const struct gw_plan *p, size_t link)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->objs[i].link == link)
			return true;
	return false;
}

void gw_plan_slots(const struct gw_plan *p, size_t link, enum gw_direction dir, uint32_t *out,
		   size_t n)
{
	size_t k = 0;

	/* the plan lists a direction's classes in config order */
	for (size_t i = 0; i < p->n && k < n; i++) {
		const struct gw_plan_obj *o = &p->objs[i];

		if (o->link == link && o->dir == dir && o->obj.type == GW_OBJ_CLASS && !o->obj.inner)
			out[k++] = o->slot;
	}
	while (k < n)	/* tbf and cake: one queue, slot 0 */
		out[k++] = 0;
}

void gw_plan_free(struct gw_plan *p)
{
	free(p->objs);
	p->objs = NULL;
	p->n = 0;
}
