/* gatewayd/reload.c: in-place changes (RTM_NEW* without create flags: the kernel's "change")
 * for what differs, put back the old options if the kernel refuses any, and a verified
 * rebuild when the shape changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gatewayd/reload.h"

bool gw_reload_same_shape(const struct gw_plan *old, const struct gw_plan *next)
{
	if (old->n != next->n)
		return false;
	for (size_t i = 0; i < old->n; i++) {
		const struct gw_tc_obj *o = &old->objs[i].obj, *n = &next->objs[i].obj;

		if (o->type != n->type || o->kind != n->kind || o->handle != n->handle ||
		    o->parent != n->parent || o->ifindex != n->ifindex ||
		    o->stab.set != n->stab.set || (o->type == GW_OBJ_QDISC &&
		    o->kind == GW_KIND_FIFO && o->q.fifo.bytes != n->q.fifo.bytes))
			return false;
	}
	return true;
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

/* Send every object of want that differs from have, as a change. */
static int change(struct gw_nl *nl, const struct gw_plan *have, const struct gw_plan *want,
		  size_t *changed, struct gw_nl_error *e)
{
	struct nl_msg **msgs = calloc(want->n + 1, sizeof(*msgs));
	size_t n = 0;
	int r = 0;

	if (!msgs)
		return -ENOMEM;
	for (size_t i = 0; i < want->n && !r; i++) {
		const struct gw_tc_obj *w = &want->objs[i].obj, *h = &have->objs[i].obj;
		char why[160];
		bool covers = gw_obj_matches(w, h, why, sizeof(why));

		if (w->type == GW_OBJ_FILTER || (covers && gw_obj_matches(h, w, why, sizeof(why))))
			continue;
		/* a knob the old config set and the new one leaves out: a change would keep the
		 * old value, only a rebuild brings back the kernel's default */
		if (covers) {
			r = -EOPNOTSUPP;
			break;
		}
		r = gw_obj_build(w, 0, &msgs[n]);
		if (!r)
			n++;
	}
	if (!r && n)
		r = gw_nl_batch(nl, msgs, n, true, e);
	for (size_t i = 0; i < n; i++)
		nlmsg_free(msgs[i]);
	free(msgs);
	*changed = n;
	return r;
}

static int in_place(struct gw_nl *nl, const struct gw_config *next, struct gw_applied *a,
		    struct gw_plan *np, enum gw_reload_how *how, char *err, size_t errlen)
{
	struct gw_plan old = a->plan;
	struct gw_nl_error e = { .err = 0 };
	size_t n = 0, undo;
	int r = change(nl, &old, np, &n, &e);

	if (!r) {
		a->plan = *np;
		r = gw_verify(nl, next, a, err, errlen);
		a->plan = old;
	} else if (r != -EOPNOTSUPP) {
		snprintf(err, errlen, "the kernel refused a change: %s (%s)",
			 e.msg[0] ? e.msg : "no message", strerror(-r));
	}
	if (r) {
		change(nl, np, &old, &undo, NULL);	/* every changed object back as it was */
		gw_plan_free(np);
		return r;
	}
	gw_plan_free(&a->plan);
	a->plan = *np;
	*how = n ? GW_RELOAD_IN_PLACE : GW_RELOAD_UNCHANGED;
	return 0;
}

static int rebuild(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
		   const struct gw_config *next, struct gw_applied *a, char *err, size_t errlen)
{
	struct gw_applied fresh;
	char ignored[256];
	int r;

	gw_remove(nl, a, ignored, sizeof(ignored));
	r = gw_apply(nl, next, &fresh, err, errlen);
	if (r) {
		/* put the running config's tree back, as a start-up would */
		if (gw_apply(nl, cur, &fresh, ignored, sizeof(ignored)) == 0) {
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
	if (same_links(cur, next) && gw_plan_build(next, a->facts, &np) == 0) {
		if (gw_reload_same_shape(&a->plan, &np)) {
			r = in_place(nl, next, a, &np, how, err, errlen);
			if (mon)
				gw_monitor_read(mon, NULL, NULL);
			/* a qdisc that cannot change (or a knob to unset) needs a rebuild */
			if (r != -EOPNOTSUPP)
				return r;
		} else {
			gw_plan_free(&np);
		}
	}
	return rebuild(nl, mon, cur, next, a, err, errlen);
}
