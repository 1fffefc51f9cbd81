/* tree/heal_inplace.c: mending the running tree in place, object by object, where someone
 * else changed or deleted part of it: cheaper than making a link again (its other objects and
 * their counters stay, and 10,000 classes are not created anew for one changed rate). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "tree/heal_inplace.h"

/* A qdisc that is the root of a device's tree or its ingress hook. */
static bool is_top(const struct gw_tc_obj *o)
{
	return o->type == GW_OBJ_QDISC && (o->parent == TC_H_ROOT || o->parent == TC_H_INGRESS);
}

/* The tc kind's own name ("pfifo", "bfifo"): the kernel changes a qdisc in place only as the
 * kind it is. */
static bool same_tc_kind(const struct gw_tc_obj *w, const struct gw_tc_obj *g)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(w->kind);

	return w->kind == g->kind && ops && !strcmp(gw_kind_tc_name(ops, &w->q),
						     gw_kind_tc_name(ops, &g->q));
}

void gw_heal_inplace_say(const struct gw_plan_obj *p, const struct gw_tc_obj *got, char *buf,
		 size_t len)
{
	const struct gw_tc_obj *o = &p->obj;
	char diff[512], h[24] = "";

	if (o->type != GW_OBJ_FILTER)
		snprintf(h, sizeof(h), " (%x:%x)", o->handle >> 16, o->handle & 0xFFFF);
	if (o->type == GW_OBJ_QDISC)
		snprintf(h, sizeof(h), " (%x:)", o->handle >> 16);
	if (!got)
		snprintf(diff, sizeof(diff), "not there (deleted, or replaced under another "
			 "handle)");
	else if (!gw_obj_diff(o, got, diff, sizeof(diff)))
		snprintf(diff, sizeof(diff), "differs from the plan");
	snprintf(buf, len, "%s%s on %s: %s", p->what, h, p->dev, diff);
}

/* Which objects can be mended in place: -EAGAIN when one cannot, else how many differ. */
static int judge(const struct gw_applied *a, const enum gw_obj_state *state,
		 const struct gw_tc_obj *got, const bool *skip)
{
	int n = 0;

	for (size_t i = 0; i < a->plan.n; i++) {
		const struct gw_plan_obj *p = &a->plan.objs[i];

		if (state[i] == GW_OBJ_SAME || (skip && skip[p->link]))
			continue;
		/* a root changed as the kind it is (options, size table) is changed back; gone
		 * or of another kind, its whole tree went with it */
		if (is_top(&p->obj) && (state[i] == GW_OBJ_MISSING ||
					p->obj.kind == GW_KIND_INGRESS ||
					!same_tc_kind(&p->obj, &got[i])))
			return -EAGAIN;
		n++;
	}
	return n;
}

static int push(struct nl_msg **v, size_t *n, const struct gw_plan_obj **what,
		const struct gw_plan_obj *p, const struct gw_tc_obj *o, int flags, bool del)
{
	int r = del ? gw_obj_build_del(o, &v[*n]) : gw_obj_build(o, flags, &v[*n]);

	if (!r)
		what[(*n)++] = p;
	return r;
}

static void say_found(const struct gw_applied *a, const enum gw_obj_state *state,
		      const struct gw_tc_obj *got, const bool *skip, int n, char *found,
		      size_t foundlen)
{
	size_t pos = 0;
	int said = 0;

	found[0] = '\0';
	for (size_t i = 0; i < a->plan.n && said < GW_HEAL_INPLACE_SAY_MAX; i++) {
		const struct gw_plan_obj *p = &a->plan.objs[i];
		char one[768];

		if (state[i] == GW_OBJ_SAME || (skip && skip[p->link]))
			continue;
		gw_heal_inplace_say(p, state[i] == GW_OBJ_DIFFERS ? &got[i] : NULL, one,
				    sizeof(one));
		gw_fmt(found, foundlen, &pos, "%s%s", said++ ? "; " : "", one);
	}
	if (n > said)
		gw_fmt(found, foundlen, &pos, "; and %d more", n - said);
}

int gw_heal_inplace(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
	    const enum gw_obj_state *state, const struct gw_tc_obj *got, const bool *skip,
	    char *found, size_t foundlen, char *err, size_t errlen)
{
	int n = judge(a, state, got, skip), r = 0;
	struct nl_msg **v;
	const struct gw_plan_obj **what;
	struct gw_nl_error e;
	size_t nd = 0, nv = 0;

	if (n <= 0)
		return n;
	say_found(a, state, got, skip, n, found, foundlen);
	v = calloc(2 * (size_t)n + 1, sizeof(*v));
	what = calloc(2 * (size_t)n + 1, sizeof(*what));
	if (!v || !what) {
		r = -ENOMEM;
		goto out;
	}
	/* first what must go before ours can be put back: a leaf of another tc kind under our
	 * handle (the kernel changes a qdisc only as its own kind), whatever sits at the
	 * redirect's priority */
	for (size_t i = 0; i < a->plan.n && !r; i++) {
		const struct gw_plan_obj *p = &a->plan.objs[i];

		if (state[i] == GW_OBJ_SAME || (skip && skip[p->link]))
			continue;
		if (p->obj.type == GW_OBJ_FILTER ||
		    (state[i] == GW_OBJ_DIFFERS && p->obj.type == GW_OBJ_QDISC &&
		     !is_top(&p->obj) && !same_tc_kind(&p->obj, &got[i])))
			r = push(v, &nd, what, p, &p->obj, 0, true);
	}
	if (!r && nd)
		gw_nl_batch(nl, v, nd, false, NULL);	/* gone already is as good */
	for (size_t i = 0; i < a->plan.n && !r; i++) {
		const struct gw_plan_obj *p = &a->plan.objs[i];
		const struct gw_tc_obj *o = &p->obj;
		bool remade;
		int flags;

		if (state[i] == GW_OBJ_SAME || (skip && skip[p->link]))
			continue;
		remade = state[i] == GW_OBJ_MISSING || o->type == GW_OBJ_FILTER ||
			 (o->type == GW_OBJ_QDISC && !is_top(o) && !same_tc_kind(o, &got[i]));
		/* a leaf made again takes its class back from whatever the kernel or someone
		 * else put there (a default pfifo, a foreign qdisc under another handle) */
		flags = !remade ? 0 : o->type == GW_OBJ_QDISC ? NLM_F_CREATE | NLM_F_REPLACE :
			gw_obj_create_flags(o);
		r = push(v + nd, &nv, what + nd, p, o, flags, false);
	}
	if (!r && nv && (r = gw_nl_batch(nl, v + nd, nv, true, &e))) {
		const struct gw_plan_obj *p = e.index < nv ? what[nd + e.index] : NULL;
		char cmd[512] = "";

		if (p)
			gw_obj_format_tc(&p->obj, p->dev, cfg->links[p->link].dir[GW_DIR_INGRESS].ifb,
					 cmd, sizeof(cmd));
		snprintf(err, errlen, "link '%s' %s on %s: the kernel refused `%s`: %s",
			 p ? cfg->links[p->link].name : "?", p ? p->what : "an object",
			 p ? p->dev : "?", cmd, e.msg[0] ? e.msg : strerror(-r));
	}
out:
	for (size_t i = 0; v && i < nd + nv; i++)
		nlmsg_free(v[i]);
	free(v);
	free(what);
	return r ? r : n;
}
