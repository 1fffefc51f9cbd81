/* tree/verify.c: read the tree back from the kernel and hold it against the plan; and the
 * clean removal of everything gatewayd owns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "tree/apply.h"
#include "tree/classify.h"
#include "tree/own.h"
#include "sys/log.h"
#include "sys/grow.h"

struct readback {
	struct gw_tc_obj *v;
	size_t n, cap;
	const struct gw_applied *a;
	int err;
};

bool gw_applied_ours(const struct gw_applied *a, int ifindex)
{
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].ifindex == ifindex)
			return true;
	return false;
}

static int rb_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct readback *rb = arg;
	struct gw_tc_obj o;
	int r = gw_obj_parse(nlh, &o, NULL, 0);

	if (r == -ENOENT)
		return 0;	/* a kind gatewayd does not model: not one of its objects */
	if (r)
		return r;
	if (!gw_applied_ours(rb->a, o.ifindex))
		return 0;
	if (o.type == GW_OBJ_FILTER)
		o.handle = 0;	/* the kernel numbers filters; the plan leaves it to it */
	if (gw_grow(&rb->v, &rb->cap, rb->n, sizeof(*rb->v), 64))
		return -ENOMEM;
	rb->v[rb->n++] = o;
	return 0;
}

static int key_cmp(const struct gw_tc_obj *x, const struct gw_tc_obj *y)
{
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->handle != y->handle)
		return x->handle < y->handle ? -1 : 1;
	return 0;
}

static int obj_cmp(const void *x, const void *y)
{
	return key_cmp(x, y);
}

static int read_tree(struct gw_nl *nl, const struct gw_applied *a, struct readback *rb)
{
	int r = gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, rb_cb, rb, NULL);

	for (size_t i = 0; i < a->n_devs && !r; i++) {
		r = gw_nl_dump_tc(nl, RTM_GETTCLASS, a->devs[i].ifindex, 0, rb_cb, rb, NULL);
		if (!r && !a->devs[i].is_ifb && a->devs[i].ingress)
			r = gw_nl_dump_tc(nl, RTM_GETTFILTER, a->devs[i].ifindex,
					  GW_INGRESS_HANDLE, rb_cb, rb, NULL);
	}
	return r;
}

/* Read the tree back and judge each planned object: GW_OBJ_SAME, GW_OBJ_DIFFERS or
 * GW_OBJ_MISSING into state[i] (state may be NULL), and what differs as read into got_out[i]
 * (may be NULL). Returns 0 when all are the same, -EPROTO with the first difference in err,
 * or another -errno when the tree could not be read. */
int gw_readback(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		enum gw_obj_state *state, char *err, size_t errlen)
{
	return gw_readback_got(nl, cfg, a, state, NULL, err, errlen);
}

int gw_readback_got(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		    enum gw_obj_state *state, struct gw_tc_obj *got_out, char *err, size_t errlen)
{
	struct readback rb = { .a = a };
	int r = read_tree(nl, a, &rb), first = 0;

	if (r) {
		snprintf(err, errlen, "reading the tree back: %s", strerror(-r));
		free(rb.v);
		return r;
	}
	/* nothing read back (the devices are gone): qsort and bsearch must not see NULL */
	if (rb.n)
		qsort(rb.v, rb.n, sizeof(*rb.v), obj_cmp);
	for (size_t i = 0; i < a->plan.n; i++) {
		const struct gw_plan_obj *p = &a->plan.objs[i];
		struct gw_tc_obj key = p->obj;
		const struct gw_tc_obj *got;
		enum gw_obj_state s = GW_OBJ_SAME;
		char why[160];

		if (key.type == GW_OBJ_FILTER)
			key.handle = 0;
		got = rb.n ? bsearch(&key, rb.v, rb.n, sizeof(*rb.v), obj_cmp) : NULL;
		if (!got) {
			snprintf(why, sizeof(why), "it is not in the kernel");
			s = GW_OBJ_MISSING;
		} else if (!gw_obj_matches(&key, got, why, sizeof(why))) {
			s = GW_OBJ_DIFFERS;
		}
		if (state)
			state[i] = s;
		if (got_out && s == GW_OBJ_DIFFERS)
			got_out[i] = *got;
		if (s != GW_OBJ_SAME && !first) {
			snprintf(err, errlen, "link '%s' %s on %s: read back from the kernel: %s",
				 cfg->links[p->link].name, p->what, p->dev, why);
			first = -EPROTO;
		}
	}
	free(rb.v);
	return first;
}

int gw_verify(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
	      char *err, size_t errlen)
{
	return gw_readback(nl, cfg, a, NULL, err, errlen);
}

/* Delete one qdisc of ours; "already gone" is not a failure. */
static int remove_qdisc(struct gw_nl *nl, const struct gw_dev *d, uint32_t handle,
			uint32_t parent, const char *what, char *err, size_t errlen)
{
	struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .ifindex = d->ifindex, .handle = handle,
			       .parent = parent };
	struct gw_nl_error e;
	struct nl_msg *m;
	int r = gw_obj_build_del(&o, &m);

	if (r)
		return r;
	r = gw_nl_batch(nl, &m, 1, false, &e);
	nlmsg_free(m);
	if (!r || r == -ENOENT || r == -EINVAL || r == -ENODEV)
		return 0;
	snprintf(err, errlen, "removing the %s of %s: %s", what, d->name,
		 e.msg[0] ? e.msg : strerror(-r));
	return r;
}

/* Is the hook on d the one gatewayd made (own.c says how it can tell)? Said once when not. */
static bool hook_ours(struct gw_nl *nl, const struct gw_applied *a, const struct gw_dev *d)
{
	enum gw_own_hook h;
	bool redirect;
	char kind[16];
	int ifb = -1;	/* made, its ifb not known: only a redirect to nowhere is ours */

	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].is_ifb && a->devs[i].link == d->link && a->devs[i].ifindex > 0)
			ifb = a->devs[i].ifindex;
	if (gw_own_hook(nl, d->ifindex, ifb, &h, &redirect, kind, sizeof(kind)))
		return true;	/* not readable (the device is going): the delete says */
	if (h == GW_HOOK_FOREIGN)
		gw_log(GW_LOG_WARNING, "left the ingress hook of %s in place: it is %s %s that "
		       "gatewayd did not create", d->name, strcmp(kind, "ingress") ? "a" : "an",
		       strcmp(kind, "ingress") ? kind : "ingress qdisc holding filters");
	return h == GW_HOOK_OURS;
}

int gw_remove(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen)
{
	int failed = 0;

	/* classification first: no rule may name a class that is going away */
	if (a->nft_table && gw_classify_remove(nl, a, err, errlen))
		failed++;

	for (size_t i = a->n_devs; i-- > 0;) {
		struct gw_dev *d = &a->devs[i];
		struct gw_nl_error e;
		int r;

		/* the kernel refuses the delete unless the root still carries our handle */
		if (d->root && !d->ifb_created &&
		    remove_qdisc(nl, d, GW_ROOT_HANDLE, TC_H_ROOT, "root qdisc", err, errlen))
			failed++;
		/* ffff: is whoever's hook sits there now, not necessarily the one we made */
		if (d->ingress && hook_ours(nl, a, d) &&
		    remove_qdisc(nl, d, GW_INGRESS_HANDLE, TC_H_INGRESS, "ingress hook", err, errlen))
			failed++;
		/* deleting the ifb takes its qdiscs with it; only if it is still ours */
		if (d->ifb_created) {
			char what[64];

			r = gw_own_ifb_del(nl, d->name, what, sizeof(what), &e);
			if (r == 1)
				gw_log(GW_LOG_WARNING, "left %s in place: it is %s, not gatewayd's",
				       d->name, what);
			else if (r) {
				snprintf(err, errlen, "deleting ifb %s: %s", d->name,
					 e.msg[0] ? e.msg : strerror(-r));
				failed++;
			}
		}
		d->root = d->ingress = d->ifb_created = false;
	}
	return failed;
}

size_t gw_applied_waiting(const struct gw_config *cfg, const struct gw_applied *a)
{
	size_t n = 0;

	for (size_t i = 0; a->facts && i < cfg->n_links; i++)
		n += a->facts[i].absent;
	return n;
}

void gw_applied_free(struct gw_applied *a)
{
	for (size_t i = 0; i < a->n_devs; i++) {
		for (size_t k = 0; k < a->devs[i].n_saved; k++)
			nlmsg_free(a->devs[i].saved[k]);
		free(a->devs[i].saved);
	}
	free(a->devs);
	free(a->facts);
	gw_plan_free(&a->plan);
	memset(a, 0, sizeof(*a));
}
