/* qdisc/diff.c: what differs between a planned object and the one the kernel reports back, in
 * tc's words ("rate 5mbit, expected 20mbit"), judged as gw_obj_matches judges it. */
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "qdisc/qdisc.h"

struct diff {
	char *buf;
	size_t len, pos;
	int n;
};

static void say(struct diff *d, const char *what, const char *got, const char *want)
{
	gw_fmt(d->buf, d->len, &d->pos, "%s%s %s, expected %s", d->n ? ", " : "", what, got,
	       want);
	d->n++;
}

static void say_rate(struct diff *d, const char *what, uint64_t got, uint64_t want)
{
	char g[32], w[32];

	if (got == want)
		return;
	gw_format_rate(got, g, sizeof(g));
	gw_format_rate(want, w, sizeof(w));
	say(d, what, g, w);
}

/* A value gatewayd set (want not GW_UNSET) read back otherwise; near: a size the kernel keeps
 * as a time, so it comes back rounded and only a real difference counts. */
static void say_int(struct diff *d, const char *what, int64_t got, int64_t want, bool near)
{
	char g[32], w[32];

	if (want == GW_UNSET || (near ? gw_near(want, got) : want == got))
		return;
	if (got == GW_UNSET)
		snprintf(g, sizeof(g), "unset");
	else
		snprintf(g, sizeof(g), "%lld", (long long)got);
	snprintf(w, sizeof(w), "%lld", (long long)want);
	say(d, what, g, w);
}

static void class_diff(struct diff *d, const struct gw_tc_obj *want, const struct gw_tc_obj *got)
{
	const struct gw_htb_class_opts *w = &want->cls, *g = &got->cls;

	say_rate(d, "rate", g->rate, w->rate);
	say_rate(d, "ceil", g->ceil, w->ceil);
	say_int(d, "burst", g->burst, w->burst, true);
	say_int(d, "cburst", g->cburst, w->cburst, true);
	/* htb keeps an inner class's quantum and prio to itself: they mean nothing read back */
	if (!want->inner) {
		say_int(d, "prio", g->prio, w->prio, false);
		say_int(d, "quantum", g->quantum, w->quantum, false);
	}
}

/* A qdisc's options as its kind prints them, "pfifo limit 100". */
static void qdisc_words(const struct gw_tc_obj *o, char *buf, size_t len)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(o->kind);
	const char *name = ops ? gw_kind_tc_name(ops, &o->q) : NULL;
	size_t pos = 0;
	char opts[384] = "";

	if (ops && gw_kind_format(ops, opts, sizeof(opts), &o->q) < 0)
		opts[0] = '\0';
	buf[0] = '\0';
	gw_fmt(buf, len, &pos, "%s%s", name ? name : gw_kind_name(o->kind), opts);
}

static void qdisc_diff(struct diff *d, const struct gw_tc_obj *want, const struct gw_tc_obj *got)
{
	char g[448], w[448];

	if (want->kind != got->kind ||
	    !gw_kind_same(gw_qdisc_ops(want->kind), &want->q, &got->q)) {
		qdisc_words(got, g, sizeof(g));
		qdisc_words(want, w, sizeof(w));
		say(d, "it is", g, w);
	}
	if (want->stab.set && (!got->stab.set || got->stab_overhead != want->stab_overhead)) {
		if (got->stab.set)
			snprintf(g, sizeof(g), "overhead %d", got->stab_overhead);
		else
			snprintf(g, sizeof(g), "none");
		snprintf(w, sizeof(w), "overhead %d", want->stab_overhead);
		say(d, "size table", g, w);
	}
}

static void handle_words(uint32_t h, char *buf, size_t len)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

int gw_obj_diff(const struct gw_tc_obj *want, const struct gw_tc_obj *got, char *buf, size_t len)
{
	struct diff d = { .buf = buf, .len = len };
	char g[32], w[32];

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!got) {
		gw_fmt(buf, len, &d.pos, "deleted");
		return 1;
	}
	if (want->type != got->type) {
		gw_fmt(buf, len, &d.pos, "another kind of object");
		return 1;
	}
	/* the kernel reports a class hung directly on its qdisc as a child of "root" */
	if (want->parent != got->parent &&
	    !(want->type == GW_OBJ_CLASS && got->parent == TC_H_ROOT &&
	      want->parent == TC_H_MAJ(want->handle))) {
		handle_words(got->parent, g, sizeof(g));
		handle_words(want->parent, w, sizeof(w));
		say(&d, "parent", g, w);
	}
	switch (want->type) {
	case GW_OBJ_QDISC:
		qdisc_diff(&d, want, got);
		break;
	case GW_OBJ_CLASS:
		class_diff(&d, want, got);
		break;
	default:
		if (want->redirect_ifindex != got->redirect_ifindex) {
			snprintf(g, sizeof(g), "ifindex %d", got->redirect_ifindex);
			snprintf(w, sizeof(w), "ifindex %d", want->redirect_ifindex);
			say(&d, "redirects to", g, w);
		}
		break;
	}
	return d.n;
}
