/* gatewayd/reload.c: in-place changes (RTM_NEW* without create flags: the kernel's "change")
 * for what differs, put back the old options if the kernel refuses any, and a verified
 * rebuild when the shape changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gatewayd/classify.h"
#include "gatewayd/reload.h"

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

static const struct gw_plan_obj *lookup(const struct gw_plan_obj **idx, size_t n,
					const struct gw_plan_obj *o)
{
	const struct gw_plan_obj **hit = bsearch(&o, idx, n, sizeof(*idx), ptr_cmp);

	return hit ? *hit : NULL;
}

/* The same links on the same devices: the facts gathered at apply time still hold. */
static bool same_links(const struct gw_config *a, const struct gw_config *b)
{
	if (a->n_links != b->n_links)
		return false;
	for (size_t i = 0; i < a->n_links; i++) {
		const struct gw_link_cfg *x = &a->links[i], *y = &b->links[i];

		if (strcmp(x->name, y->name) || strcmp(x->interface, y->interface) ||
		    x->dir[0].present != y->dir[0].present || x->dir[1].present != y->dir[1].present ||
		    (x->dir[1].present && strcmp(x->dir[1].ifb, y->dir[1].ifb)))
			return false;
	}
	return true;
}

struct diff {
	struct nl_msg **msgs;
	size_t n, creates, deletes, changes;
};

static int push(struct diff *d, struct nl_msg *m)
{
	d->msgs[d->n++] = m;
	return 0;
}

/* Deletes first (a class takes its queue with it), then changes, then creates in plan order
 * (a class before its queue). -EOPNOTSUPP: something only a rebuild can do. */
static int diff_plans(const struct gw_plan *have, const struct gw_plan *want, struct diff *d)
{
	const struct gw_plan_obj **hi = index_of(have), **wi = index_of(want);
	int r = 0;

	d->msgs = calloc(have->n + want->n + 1, sizeof(*d->msgs));
	if (!hi || !wi || !d->msgs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < have->n && !r; i++) {
		const struct gw_plan_obj *o = &have->objs[i];
		struct nl_msg *m;

		if (lookup(wi, want->n, o))
			continue;
		if (o->obj.type != GW_OBJ_CLASS || o->obj.inner) {
			/* only a class goes away alone (a leaf with it); anything else: rebuild */
			if (o->obj.type == GW_OBJ_CLASS || !o->cls[0])
				r = -EOPNOTSUPP;
			continue;
		}
		if (!(r = gw_obj_build_del(&o->obj, &m)))
			r = push(d, m), d->deletes++;
	}
	for (int pass = 0; pass < 2 && !r; pass++) {
		for (size_t i = 0; i < want->n && !r; i++) {
			const struct gw_tc_obj *w = &want->objs[i].obj;
			const struct gw_plan_obj *h = lookup(hi, have->n, &want->objs[i]);
			struct nl_msg *m;
			char why[160];
			bool covers;

			if (!h) {	/* a new class and its queue */
				if (pass == 1 && !(r = gw_obj_build(w, NLM_F_CREATE | NLM_F_EXCL, &m)))
					r = push(d, m), d->creates++;
				continue;
			}
			covers = gw_obj_matches(w, &h->obj, why, sizeof(why));
			if (pass == 1 || w->type == GW_OBJ_FILTER ||
			    (covers && gw_obj_matches(&h->obj, w, why, sizeof(why))))
				continue;
			/* a kind changed, or a knob the old config set and the new one leaves out:
			 * a change would keep the old value, only a rebuild restores the default */
			if (covers || w->kind != h->obj.kind) {
				r = -EOPNOTSUPP;
				break;
			}
			if (!(r = gw_obj_build(w, 0, &m)))
				r = push(d, m), d->changes++;
		}
	}
out:
	free(hi);
	free(wi);
	return r;
}

static void diff_free(struct diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		nlmsg_free(d->msgs[i]);
	free(d->msgs);
}

static int incremental(struct gw_nl *nl, const struct gw_config *next, struct gw_applied *a,
		       struct gw_plan *np, enum gw_reload_how *how, char *err, size_t errlen)
{
	struct gw_plan old = a->plan;
	struct gw_nl_error e = { .err = 0 };
	struct diff d = { 0 };
	int r = diff_plans(&old, np, &d);

	if (!r && d.n && (r = gw_nl_batch(nl, d.msgs, d.n, true, &e)))
		snprintf(err, errlen, "the kernel refused a change: %s (%s)",
			 e.msg[0] ? e.msg : "no message", strerror(-r));
	if (!r) {
		a->plan = *np;
		r = gw_verify(nl, next, a, err, errlen);
		/* the classifiers of next, swapped in one nft batch */
		if (!r)
			r = gw_classify_apply(nl, next, a, err, errlen);
		a->plan = old;
	}
	diff_free(&d);
	if (r) {
		gw_plan_free(np);
		/* the caller rebuilds, which also undoes whatever part of this went in */
		return r == -EOPNOTSUPP ? r : -EAGAIN;
	}
	gw_plan_free(&a->plan);
	a->plan = *np;
	*how = d.creates || d.deletes ? GW_RELOAD_CLASSES :
	       d.changes ? GW_RELOAD_IN_PLACE : GW_RELOAD_UNCHANGED;
	return 0;
}

static int rebuild(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
		   const struct gw_config *next, struct gw_applied *a, char *err, size_t errlen)
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
	if (mon)
		gw_monitor_read(mon, NULL, NULL);	/* our own events */
	return r;
}

int gw_reload(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
	      const struct gw_config *next, struct gw_applied *a, enum gw_reload_how *how,
	      char *err, size_t errlen)
{
	struct gw_plan np;
	int r;

	*how = GW_RELOAD_REBUILT;
	if (same_links(cur, next) && gw_plan_build(next, a->facts, &a->plan, &np) == 0) {
		r = incremental(nl, next, a, &np, how, err, errlen);
		if (mon)
			gw_monitor_read(mon, NULL, NULL);	/* our own events */
		if (!r)
			return 0;
		*how = GW_RELOAD_REBUILT;
	}
	return rebuild(nl, mon, cur, next, a, err, errlen);
}
