/* tree/reload.c: the running plan against the new one, tree by tree, in one pipelined
 * batch: deletes, then changes (RTM_NEW* without create flags: the kernel's "change"), then
 * creates in plan order. Links are matched by name, interface and ifb; a kept link's devices
 * and facts carry over, an added (or changed) link's are prepared as start-up would, a removed
 * link's ifb is deleted once the rest is verified. What the kernel refuses is undone by
 * reading the running tree back and putting back what differs; failing that, a verified whole
 * rebuild. Healing uses the same path to make some links again and keep the others. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "tree/classify.h"
#include "tree/reload.h"
#include "tree/own.h"
#include "sys/log.h"

/* Objects are the same object when type, device and handle are (filters: device and parent). */
static int key_cmp(const struct gw_tc_obj *x, const struct gw_tc_obj *y)
{
	uint32_t hx = x->type == GW_OBJ_FILTER ? x->parent : x->handle;
	uint32_t hy = y->type == GW_OBJ_FILTER ? y->parent : y->handle;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return hx < hy ? -1 : hx > hy;
}

static int ptr_cmp(const void *x, const void *y)
{
	return key_cmp(&(*(const struct gw_plan_obj *const *)x)->obj,
		       &(*(const struct gw_plan_obj *const *)y)->obj);
}

/* A sorted index of a plan's objects, for finding an object's counterpart. */
static const struct gw_plan_obj **index_of(const struct gw_plan *p)
{
	const struct gw_plan_obj **v = calloc(p->n + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->n; i++)
		v[i] = &p->objs[i];
	qsort(v, p->n, sizeof(*v), ptr_cmp);
	return v;
}

static const struct gw_plan_obj *lookup_obj(const struct gw_plan_obj **idx, size_t n,
					    const struct gw_tc_obj *o)
{
	struct gw_plan_obj key = { .obj = *o };
	const struct gw_plan_obj *k = &key, **hit;

	hit = n ? bsearch(&k, idx, n, sizeof(*idx), ptr_cmp) : NULL;
	return hit ? *hit : NULL;
}

/* A tree: a device's root qdisc and what hangs below it, or an interface's ingress hook and
 * its redirect. */
static bool in_ingress(const struct gw_tc_obj *o)
{
	return o->type == GW_OBJ_FILTER || o->parent == TC_H_INGRESS;
}

static bool is_top(const struct gw_tc_obj *o)
{
	return o->type == GW_OBJ_QDISC && (o->parent == TC_H_ROOT || o->parent == TC_H_INGRESS);
}

enum tree_state { T_KEEP, T_NEW, T_GONE, T_REBUILD };

struct tree {
	int ifindex;
	bool ingress;
	enum tree_state st;
	const struct gw_plan_obj *top;	/* the running top (T_KEEP, T_GONE, T_REBUILD) */
	const char *dev;
};

enum op { OP_NONE, OP_CHANGE, OP_REPLACE, OP_CREATE };

struct diff {
	const struct gw_plan *have, *want;
	const struct gw_plan_obj **hi, **wi;
	struct tree *trees;
	size_t n_trees;
	enum op *wop;		/* per object of want */
	bool *hdel;		/* per object of have: delete it alone */
	struct nl_msg **msgs;
	const struct gw_plan_obj **what;	/* per message: its object */
	bool *from_want;			/* ... of the new plan (else the running one) */
	size_t n;
};

static struct tree *tree_of(struct diff *d, const struct gw_tc_obj *o)
{
	for (size_t i = 0; i < d->n_trees; i++)
		if (d->trees[i].ifindex == o->ifindex && d->trees[i].ingress == in_ingress(o))
			return &d->trees[i];
	return NULL;
}

static void find_trees(struct diff *d)
{
	for (size_t i = 0; i < d->have->n; i++) {
		const struct gw_plan_obj *h = &d->have->objs[i];

		if (is_top(&h->obj))
			d->trees[d->n_trees++] = (struct tree){ h->obj.ifindex, in_ingress(&h->obj),
				lookup_obj(d->wi, d->want->n, &h->obj) ? T_KEEP : T_GONE, h, h->dev };
	}
	for (size_t i = 0; i < d->want->n; i++) {
		const struct gw_plan_obj *w = &d->want->objs[i];

		if (is_top(&w->obj) && !tree_of(d, &w->obj))
			d->trees[d->n_trees++] = (struct tree){ w->obj.ifindex, in_ingress(&w->obj),
				T_NEW, NULL, w->dev };
	}
}

static const char *tc_kind(const struct gw_tc_obj *o)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(o->kind);

	return ops ? gw_kind_tc_name(ops, &o->q) : "";
}

/* What an object both plans have needs; T_REBUILD in *t when only recreating its tree will do. */
static enum op classify(const struct gw_tc_obj *w, const struct gw_tc_obj *h, struct tree *t)
{
	char why[160];
	bool covers = gw_obj_matches(w, h, why, sizeof(why));

	if (covers && gw_obj_matches(h, w, why, sizeof(why)))
		return OP_NONE;
	if (w->type == GW_OBJ_QDISC &&
	    (w->kind != h->kind || strcmp(tc_kind(w), tc_kind(h)) || covers)) {
		/* a kind changed, or a knob the old config set and the new one leaves out: a
		 * change would keep the old value; a leaf is replaced alone, a top is not */
		if (!is_top(w))
			return OP_REPLACE;
		t->st = T_REBUILD;
		return OP_NONE;
	}
	/* a kind the kernel cannot change in place: a leaf is replaced alone, a top rebuilt
	 * (htb: the default class and the size table are fixed at creation) */
	if (w->type == GW_OBJ_QDISC && gw_qdisc_ops(w->kind) && gw_qdisc_ops(w->kind)->no_change) {
		if (!is_top(w))
			return OP_REPLACE;
		t->st = T_REBUILD;
		return OP_NONE;
	}
	/* a filter's target, or a class that lost a knob */
	if (w->type == GW_OBJ_FILTER || covers) {
		t->st = T_REBUILD;
		return OP_NONE;
	}
	return OP_CHANGE;
}

/* Decide each tree's fate and each object's operation. */
static void plan_ops(struct diff *d)
{
	for (size_t i = 0; i < d->have->n; i++) {
		const struct gw_plan_obj *h = &d->have->objs[i];
		struct tree *t = tree_of(d, &h->obj);
		struct gw_tc_obj cls = { .type = GW_OBJ_CLASS, .ifindex = h->obj.ifindex,
					 .handle = h->obj.parent };

		if (!t || t->st != T_KEEP || lookup_obj(d->wi, d->want->n, &h->obj))
			continue;
		if (h->obj.type == GW_OBJ_CLASS && !h->obj.inner)
			d->hdel[i] = true;	/* its leaf goes with it */
		else if (!(h->obj.type == GW_OBJ_QDISC && h->cls[0] &&
			   !lookup_obj(d->wi, d->want->n, &cls)))
			t->st = T_REBUILD;
	}
	for (size_t i = 0; i < d->want->n; i++) {
		const struct gw_plan_obj *w = &d->want->objs[i];
		const struct gw_plan_obj *h = lookup_obj(d->hi, d->have->n, &w->obj);
		struct tree *t = tree_of(d, &w->obj);

		if (t && t->st == T_KEEP)
			d->wop[i] = h ? classify(&w->obj, &h->obj, t) : OP_CREATE;
	}
	/* a tree recreated: its top goes (with everything under it), all its objects are new */
	for (size_t i = 0; i < d->want->n; i++) {
		struct tree *t = tree_of(d, &d->want->objs[i].obj);

		if (t && (t->st == T_NEW || t->st == T_REBUILD))
			d->wop[i] = OP_CREATE;
	}
}

/* r: what building *m for o returned (m is read only after the call that set it) */
static int emit(struct diff *d, int r, struct nl_msg **m, const struct gw_plan_obj *o)
{
	if (r)
		return r;
	d->what[d->n] = o;
	d->from_want[d->n] = o >= d->want->objs && o < d->want->objs + d->want->n;
	d->msgs[d->n++] = *m;
	return 0;
}

static int build_batch(struct diff *d, struct gw_reload_done *done)
{
	int r = 0;

	for (size_t i = 0; i < d->n_trees && !r; i++) {
		struct nl_msg *m;

		if (d->trees[i].st != T_GONE && d->trees[i].st != T_REBUILD)
			continue;
		r = emit(d, gw_obj_build_del(&d->trees[i].top->obj, &m), &m, d->trees[i].top);
		done->trees += d->trees[i].st == T_REBUILD;
	}
	for (size_t i = 0; i < d->have->n && !r; i++) {
		struct tree *t = tree_of(d, &d->have->objs[i].obj);
		struct nl_msg *m;

		if (t->st != T_KEEP)	/* the tree turned out to need recreating after all */
			d->hdel[i] = false;
		if (d->hdel[i] && !(r = emit(d, gw_obj_build_del(&d->have->objs[i].obj, &m), &m,
					     &d->have->objs[i])))
			done->deleted++;
	}
	for (size_t i = 0; i < d->want->n && !r; i++) {
		const struct gw_plan_obj *h;
		struct nl_msg *m;

		if (d->wop[i] != OP_REPLACE)
			continue;
		h = lookup_obj(d->hi, d->have->n, &d->want->objs[i].obj);
		if (!(r = emit(d, gw_obj_build_del(&h->obj, &m), &m, h)))
			done->replaced++;
	}
	for (size_t i = 0; i < d->want->n && !r; i++) {
		struct nl_msg *m;

		if (d->wop[i] == OP_CHANGE &&
		    !(r = emit(d, gw_obj_build(&d->want->objs[i].obj, 0, &m), &m, &d->want->objs[i])))
			done->changed++;
	}
	for (size_t i = 0; i < d->want->n && !r; i++) {
		const struct gw_tc_obj *w = &d->want->objs[i].obj;
		struct nl_msg *m;

		if (d->wop[i] != OP_CREATE && d->wop[i] != OP_REPLACE)
			continue;
		done->fresh[i] = true;
		if (!(r = emit(d, gw_obj_build(w, gw_obj_create_flags(w), &m), &m, &d->want->objs[i])))
			done->created += d->wop[i] == OP_CREATE;
	}
	return r;
}

static void diff_free(struct diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		nlmsg_free(d->msgs[i]);
	free(d->msgs);
	free(d->what);
	free(d->from_want);
	free(d->hi);
	free(d->wi);
	free(d->trees);
	free(d->wop);
	free(d->hdel);
}

static int diff_plans(const struct gw_plan *have, const struct gw_plan *want, struct diff *d,
		      struct gw_reload_done *done)
{
	size_t n = have->n + want->n + 1;

	*d = (struct diff){ .have = have, .want = want };
	d->hi = index_of(have);
	d->wi = index_of(want);
	d->trees = calloc(n, sizeof(*d->trees));
	d->wop = calloc(n, sizeof(*d->wop));
	d->hdel = calloc(n, sizeof(*d->hdel));
	d->msgs = calloc(n * 2, sizeof(*d->msgs));
	d->what = calloc(n * 2, sizeof(*d->what));
	d->from_want = calloc(n * 2, sizeof(*d->from_want));
	done->fresh = calloc(n, sizeof(*done->fresh));
	if (!d->hi || !d->wi || !d->trees || !d->wop || !d->hdel || !d->msgs || !d->what ||
	    !d->from_want || !done->fresh)
		return -ENOMEM;
	find_trees(d);
	plan_ops(d);
	return build_batch(d, done);
}

/* Send requests whatever the kernel answers (each is judged by the read-back after). */
static void send_all(struct gw_nl *nl, struct nl_msg **v, size_t *n)
{
	if (*n)
		gw_nl_batch(nl, v, *n, false, NULL);
	for (size_t i = 0; i < *n; i++)
		nlmsg_free(v[i]);
	*n = 0;
}

static void push_obj(struct nl_msg **v, size_t *n, const struct gw_tc_obj *o, int flags,
		     bool del)
{
	struct nl_msg *m;

	if (!(del ? gw_obj_build_del(o, &m) : gw_obj_build(o, flags, &m)))
		v[(*n)++] = m;
}

/* After a batch the kernel refused (or a read-back that differs): take out what it may have
 * put in, then read the running tree back and put back each object that is missing or
 * differs. 0 when the running tree reads back whole. */
static int undo(struct gw_nl *nl, const struct gw_config *cur, const struct gw_applied *a,
		struct diff *d)
{
	size_t n = 0;
	struct nl_msg **v = calloc(2 * (d->have->n + d->want->n) + 1, sizeof(*v));
	enum gw_obj_state *state = calloc(d->have->n + 1, sizeof(*state));
	char why[256];
	int r = -ENOMEM;

	if (!v || !state)
		goto out;
	for (size_t i = 0; i < d->want->n; i++) {
		const struct gw_tc_obj *w = &d->want->objs[i].obj;
		struct tree *t = tree_of(d, w);

		if (d->wop[i] == OP_CREATE && t && t->st == T_KEEP && w->type == GW_OBJ_CLASS)
			push_obj(v, &n, w, 0, true);	/* a new class, with its leaf */
	}
	for (size_t i = 0; i < d->n_trees; i++)
		if (d->trees[i].st == T_REBUILD)	/* holds the old tree or part of the new */
			push_obj(v, &n, &d->trees[i].top->obj, 0, true);
	send_all(nl, v, &n);
	r = gw_readback(nl, cur, a, state, why, sizeof(why));
	if (r != -EPROTO)
		goto out;
	for (size_t i = 0; i < d->have->n; i++) {
		const struct gw_tc_obj *h = &d->have->objs[i].obj;
		int flags = gw_obj_create_flags(h);

		if (state[i] == GW_OBJ_DIFFERS && h->type == GW_OBJ_QDISC && !is_top(h)) {
			push_obj(v, &n, h, 0, true);	/* a leaf of another kind: replaced back */
			state[i] = GW_OBJ_MISSING;
		}
		if (state[i] != GW_OBJ_SAME)
			push_obj(v, &n, h, state[i] == GW_OBJ_MISSING ? flags : 0, false);
	}
	send_all(nl, v, &n);
	r = gw_verify(nl, cur, a, why, sizeof(why));
out:
	free(v);
	free(state);
	return r;
}

/* The refused request, as the start-up says it: link, object, device, tc command, message. */
static void describe(const struct diff *d, const struct gw_config *cur,
		     const struct gw_config *next, const struct gw_nl_error *e, char *err,
		     size_t errlen)
{
	const struct gw_plan_obj *p = e->index < d->n ? d->what[e->index] : NULL;
	const struct gw_config *cfg = p && d->from_want[e->index] ? next : cur;
	char cmd[512] = "";

	if (!p) {
		snprintf(err, errlen, "the kernel refused a change: %s (%s)",
			 e->msg[0] ? e->msg : "no message", strerror(-e->err));
		return;
	}
	gw_obj_format_tc(&p->obj, p->dev, cfg->links[p->link].dir[GW_DIR_INGRESS].ifb, cmd,
			 sizeof(cmd));
	snprintf(err, errlen, "link '%s' %s on %s: the kernel refused `%s`: %s (%s)",
		 cfg->links[p->link].name, p->what, p->dev, cmd, e->msg[0] ? e->msg : "no message",
		 strerror(-e->err));
}

/* The new state being built: a kept link's devices first (copies of a's), then the added
 * links' devices, prepared fresh. */
struct staged {
	struct gw_applied n;
	size_t n_kept;
	size_t *origin;		/* per kept device: its index in a->devs */
	bool *kept_link;	/* per link of cur: next keeps it */
	const bool *redo;	/* healing: per link, made again (its remains already removed) */
	const bool *stuck;	/* healing: per link, left as it is and not checked */
};

static bool link_same(const struct gw_link_cfg *x, const struct gw_link_cfg *y)
{
	return !strcmp(x->name, y->name) && !strcmp(x->interface, y->interface) &&
	       x->dir[0].present == y->dir[0].present && x->dir[1].present == y->dir[1].present &&
	       (!x->dir[1].present || !strcmp(x->dir[1].ifb, y->dir[1].ifb));
}

static size_t kept_from(const struct gw_config *cur, const struct gw_link_cfg *y)
{
	for (size_t i = 0; i < cur->n_links; i++)
		if (link_same(&cur->links[i], y))
			return i;
	return SIZE_MAX;
}

static void copy_kept(const struct gw_applied *a, struct staged *s, size_t j, size_t i)
{
	s->kept_link[i] = true;
	s->n.facts[j] = a->facts[i];
	for (size_t k = 0; k < a->n_devs; k++) {
		struct gw_dev *d;

		if (a->devs[k].link != i)
			continue;
		d = &s->n.devs[s->n.n_devs++];
		*d = a->devs[k];	/* its saved tree stays a's until the commit */
		d->link = j;
		s->origin[s->n_kept++] = k;
	}
}

static void staged_free(struct staged *s, struct gw_applied *a, bool committed)
{
	/* kept devices' saved trees: a's until the commit, the new state's after */
	for (size_t k = 0; k < s->n_kept; k++) {
		if (committed) {
			a->devs[s->origin[k]].saved = NULL;
			a->devs[s->origin[k]].n_saved = 0;
		} else {
			s->n.devs[k].saved = NULL;
			s->n.devs[k].n_saved = 0;
		}
	}
	if (!committed)
		gw_applied_free(&s->n);
	free(s->origin);
	free(s->kept_link);
}

/* The added links' devices: gw_apply's own preparation, undone on failure. */
static int prepare_added(struct gw_nl *nl, const struct gw_config *next, struct staged *s,
			 const bool *added, struct gw_reload_done *done, char *err, size_t errlen)
{
	struct gw_applied tmp;
	int r = 0;

	for (size_t j = 0; j < next->n_links && !r; j++) {
		if (!added[j])
			continue;
		r = gw_apply_prepare_link(nl, next, &s->n, j, err, errlen);
		done->links_added++;
	}
	if (!r) {
		/* from here on the added devices may hold our objects */
		for (size_t k = s->n_kept; k < s->n.n_devs; k++) {
			struct gw_dev *d = &s->n.devs[k];

			d->root = true;
			d->ingress = !d->is_ifb && next->links[d->link].dir[GW_DIR_INGRESS].present &&
				     !s->n.facts[d->link].ingress_foreign;
		}
		return 0;
	}
	/* nothing of the tree went in yet: only the ifbs it created go */
	tmp = (struct gw_applied){ .devs = s->n.devs + s->n_kept,
				   .n_devs = s->n.n_devs - s->n_kept };
	gw_apply_undo(nl, &tmp, err, errlen);
	return r;
}

static int stage(struct gw_nl *nl, const struct gw_config *cur, const struct gw_config *next,
		 const struct gw_applied *a, const bool *redo, struct staged *s,
		 struct gw_reload_done *done, char *err, size_t errlen)
{
	bool *added = calloc(next->n_links + 1, sizeof(*added));
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->redo = redo;
	s->n.facts = calloc(next->n_links + 1, sizeof(*s->n.facts));
	s->n.devs = calloc(a->n_devs + 1, sizeof(*s->n.devs));
	s->origin = calloc(a->n_devs + 1, sizeof(*s->origin));
	s->kept_link = calloc(cur->n_links + 1, sizeof(*s->kept_link));
	if (!added || !s->n.facts || !s->n.devs || !s->origin || !s->kept_link) {
		free(added);
		return -ENOMEM;
	}
	for (size_t j = 0; j < next->n_links; j++) {
		size_t i = redo ? (redo[j] ? SIZE_MAX : j) : kept_from(cur, &next->links[j]);

		/* a link waiting for its interface is looked for again, as a new one is; so is one
		 * whose ingress a foreign hook held (the config may say replace now) */
		if (i != SIZE_MAX && a->facts && (a->facts[i].absent || a->facts[i].ingress_foreign))
			i = SIZE_MAX;
		if (i == SIZE_MAX)
			added[j] = true;
		else
			copy_kept(a, s, j, i);
	}
	for (size_t i = 0; i < cur->n_links; i++)
		done->links_removed += !s->kept_link[i];
	r = prepare_added(nl, next, s, added, done, err, errlen);
	free(added);
	return r;
}

/* Before the batch, as gw_apply does: an added device's leftover root of ours and an ingress
 * hook being replaced go; failures do not matter, the batch says whether the tree went in. */
static void clear_added(struct gw_nl *nl, const struct gw_applied *a, struct staged *s)
{
	for (size_t k = s->n_kept; k < s->n.n_devs; k++) {
		const struct gw_dev *d = &s->n.devs[k];
		struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .ifindex = d->ifindex };
		struct nl_msg *m;

		bool running = gw_applied_ours(a, d->ifindex);

		/* a device of the running tree (an interface that stays while its link changes,
		 * an ifb kept): the batch changes its objects, they are not cleared; but for a
		 * foreign ingress hook that replace = true now lets go */
		if (running && !d->foreign_ingress)
			continue;
		if (d->leftover_root && !running) {
			o.handle = GW_ROOT_HANDLE;
			o.parent = TC_H_ROOT;
			if (!gw_obj_build_del(&o, &m)) {
				gw_nl_batch(nl, &m, 1, false, NULL);
				nlmsg_free(m);
			}
		}
		if (d->old_ingress) {
			o.handle = 0;
			o.parent = TC_H_INGRESS;
			if (!gw_obj_build_del(&o, &m)) {
				gw_nl_batch(nl, &m, 1, false, NULL);
				nlmsg_free(m);
			}
		}
	}
}

/* A removed link's ifb, once the rest is in: deleting it takes its qdiscs with it. */
static void delete_gone_ifbs(struct gw_nl *nl, struct gw_applied *a, const struct staged *s)
{
	for (size_t k = 0; k < a->n_devs; k++) {
		struct gw_dev *d = &a->devs[k];
		struct gw_nl_error e;

		bool used = false;

		for (size_t j = 0; j < s->n.n_devs; j++)
			used |= !strcmp(s->n.devs[j].name, d->name);
		char what[64];

		if (s->kept_link[d->link] || !d->ifb_created || s->redo || used)
			continue;
		if (gw_own_ifb_del(nl, d->name, what, sizeof(what), &e) == 1)
			gw_log(GW_LOG_WARNING, "left %s in place: it is %s, not gatewayd's",
			       d->name, what);
		d->ifb_created = false;
	}
}

static bool named(const struct gw_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_links; i++)
		if (!strcmp(cfg->links[i].name, name))
			return true;
	return false;
}

static void summarize(const struct gw_config *cur, const struct gw_config *next,
		      const struct staged *s, struct gw_reload_done *d)
{
	size_t pos = 0, len = sizeof(d->summary);

	if (d->links_added || d->links_removed || d->created || d->deleted || d->replaced ||
	    d->trees)
		d->how = GW_RELOAD_CLASSES;
	else
		d->how = d->changed ? GW_RELOAD_IN_PLACE : GW_RELOAD_UNCHANGED;
	if (d->how == GW_RELOAD_UNCHANGED) {
		snprintf(d->summary, len, "nothing to change");
		return;
	}
	if (d->how == GW_RELOAD_IN_PLACE) {
		snprintf(d->summary, len, "changed in place (%u objects)", d->changed);
		return;
	}
	pos += (size_t)snprintf(d->summary, len, "in place, the rest kept:");
	for (size_t j = 0; j < next->n_links && pos < len; j++)
		if (kept_from(cur, &next->links[j]) == SIZE_MAX)
			pos += (size_t)snprintf(d->summary + pos, len - pos, " link %s %s;",
						next->links[j].name,
						named(cur, next->links[j].name) ? "changed" : "added");
	for (size_t i = 0; i < cur->n_links && pos < len; i++)
		if (!s->kept_link[i] && !named(next, cur->links[i].name))
			pos += (size_t)snprintf(d->summary + pos, len - pos, " link %s removed;",
						cur->links[i].name);
	if (pos < len)
		snprintf(d->summary + pos, len - pos,
			 " %u changed, %u created, %u deleted, %u queues replaced, %u trees recreated",
			 d->changed, d->created, d->deleted, d->replaced, d->trees);
}

/* The plan without the objects of the links redo names (redo NULL: the plan itself). */
static int plan_without(const struct gw_plan *p, const bool *redo, struct gw_plan *out)
{
	if (!redo) {
		*out = *p;
		return 0;
	}
	out->n = 0;
	if (!(out->objs = calloc(p->n + 1, sizeof(*out->objs))))
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (!redo[p->objs[i].link])
			out->objs[out->n++] = p->objs[i];
	return 0;
}

/* Read the new state back, but for the links healing leaves stuck, and only what this reload
 * sent (wop[i] not OP_NONE; wop NULL: all): an object it left as it was and that differs now
 * was changed by someone else, which is no reason to refuse the new config; self-healing
 * sees that change's own notification and puts it back after. */
static int verify_staged(struct gw_nl *nl, const struct gw_config *cfg, struct staged *s,
			 const enum op *wop, char *err, size_t errlen)
{
	struct gw_applied v = s->n;
	int r;

	if (!s->stuck && !wop)
		return gw_verify(nl, cfg, &s->n, err, errlen);
	v.plan.n = 0;
	if (!(v.plan.objs = calloc(s->n.plan.n + 1, sizeof(*v.plan.objs))))
		return -ENOMEM;
	for (size_t i = 0; i < s->n.plan.n; i++)
		if (!(s->stuck && s->stuck[s->n.plan.objs[i].link]) && (!wop || wop[i] != OP_NONE))
			v.plan.objs[v.plan.n++] = s->n.plan.objs[i];
	r = gw_verify(nl, cfg, &v, err, errlen);
	free(v.plan.objs);
	return r;
}

/* Everything short of a whole rebuild. *rebuild: only a whole rebuild will do (what this put
 * in is out again). Otherwise a -errno means refused with the running tree whole (err says
 * what the kernel refused), or refused before anything was touched. */
static int partial(struct gw_nl *nl, const struct gw_config *cur, const struct gw_config *next,
		   struct gw_applied *a, const bool *redo, const bool *stuck,
		   struct gw_reload_done *done, bool *rebuild, char *err, size_t errlen)
{
	struct gw_nl_error e = { .err = 0 };
	struct gw_plan have = { 0 };
	struct diff d = { 0 };
	struct staged s;
	int r = stage(nl, cur, next, a, redo, &s, done, err, errlen);

	s.stuck = stuck;
	*rebuild = r == -EOPNOTSUPP || redo;
	if (!r && (r = gw_plan_build(next, s.n.facts, &a->plan, &s.n.plan)))
		snprintf(err, errlen, "planning: %s", strerror(-r));
	/* healing: the links made again have nothing left to compare with */
	if (!r && (r = plan_without(&a->plan, redo, &have)))
		snprintf(err, errlen, "planning: %s", strerror(-r));
	if (!r)
		r = diff_plans(&have, &s.n.plan, &d, done);
	if (!r) {
		clear_added(nl, a, &s);
		if (d.n && (r = gw_nl_batch(nl, d.msgs, d.n, true, &e)))
			describe(&d, cur, next, &e, err, errlen);
		if (!r)
			r = verify_staged(nl, next, &s, d.wop, err, errlen);
		/* next's classifiers for the new tree: ifb filters beside the old ones, then the
		 * nft table swapped in one batch; on failure the old ones stay */
		if (!r) {
			s.n.u32_gen = a->u32_gen;
			s.n.nft_table = a->nft_table;
			r = gw_classify_apply(nl, next, &s.n, err, errlen);
		}
		if (r) {
			struct gw_applied tmp = { .devs = s.n.devs + s.n_kept,
						  .n_devs = s.n.n_devs - s.n_kept };
			char ignored[256] = "";

			/* a device the running tree holds is put back by undo(), not emptied */
			for (size_t k = 0; k < tmp.n_devs; k++)
				if (gw_applied_ours(a, tmp.devs[k].ifindex))
					tmp.devs[k].root = tmp.devs[k].ingress =
						tmp.devs[k].ifb_created = false;
			gw_apply_undo(nl, &tmp, ignored, sizeof(ignored));
			/* the running tree whole again: refused, and nothing else touched */
			if (!redo)
				*rebuild = undo(nl, cur, a, &d) != 0;
		}
	}
	diff_free(&d);
	if (redo)
		free(have.objs);
	if (r) {
		staged_free(&s, a, false);
		return r;
	}
	delete_gone_ifbs(nl, a, &s);
	summarize(cur, next, &s, done);
	s.n.seconds = a->seconds;
	staged_free(&s, a, true);
	gw_applied_free(a);
	*a = s.n;
	return 0;
}

int gw_reload_redo(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		   const bool *redo, const bool *stuck, struct gw_reload_done *done, char *err,
		   size_t errlen)
{
	bool whole;
	int r;

	memset(done, 0, sizeof(*done));
	r = partial(nl, cfg, cfg, a, redo, stuck, done, &whole, err, errlen);
	if (r)
		gw_reload_done_free(done);
	return r;
}

static int rebuild(struct gw_nl *nl, const struct gw_config *cur, const struct gw_config *next,
		   struct gw_applied *a, char *err, size_t errlen)
{
	struct gw_applied fresh;
	char ignored[256];
	int r;

	gw_remove(nl, a, ignored, sizeof(ignored));
	r = gw_apply(nl, next, &a->plan, &fresh, err, errlen);
	if (r) {
		/* put the running config's tree back, as a start-up would */
		if (gw_apply(nl, cur, &a->plan, &fresh, ignored, sizeof(ignored)) == 0) {
			gw_applied_free(a);
			*a = fresh;
		}
	} else {
		gw_applied_free(a);
		*a = fresh;
	}
	return r;
}

void gw_reload_done_free(struct gw_reload_done *done)
{
	free(done->fresh);
	done->fresh = NULL;
}

int gw_reload(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
	      const struct gw_config *next, struct gw_applied *a, struct gw_reload_done *done,
	      char *err, size_t errlen)
{
	char why[512] = "";
	bool whole;
	int r;

	memset(done, 0, sizeof(*done));
	r = partial(nl, cur, next, a, NULL, NULL, done, &whole, why, sizeof(why));
	if (mon)
		gw_monitor_read(mon, NULL, NULL);	/* our own events */
	if (!r)
		return 0;
	if (!whole) {
		snprintf(err, errlen, "%s", why[0] ? why : strerror(-r));
		gw_reload_done_free(done);
		return r;
	}
	gw_reload_done_free(done);
	memset(done, 0, sizeof(*done));
	done->how = GW_RELOAD_REBUILT;
	snprintf(done->summary, sizeof(done->summary), "rebuilt%s%s%s", why[0] ? " (" : "", why,
		 why[0] ? ")" : "");
	r = rebuild(nl, cur, next, a, err, errlen);
	if (mon)
		gw_monitor_read(mon, NULL, NULL);
	return r;
}
