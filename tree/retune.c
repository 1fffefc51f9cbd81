/* tree/retune.c: one direction's rate moved in place: change requests for the objects
 * that carry it, sent as one batch, and the applied plan updated to match. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree/retune.h"

uint64_t gw_retune_rate(const struct gw_applied *a, size_t link, enum gw_direction d)
{
	for (size_t i = 0; i < a->plan.n; i++) {
		const struct gw_plan_obj *o = &a->plan.objs[i];

		if (o->link == link && o->dir == d && o->shaper_rate)
			return o->shaper_rate;
	}
	return 0;
}

/* x scaled by rate / cfg_rate, never under the least rate the kernel takes from us */
static uint64_t scale(uint64_t x, uint64_t rate, uint64_t cfg_rate)
{
	unsigned __int128 v = (unsigned __int128)x * rate / (cfg_rate ? cfg_rate : 1);

	return v < GW_MIN_RATE ? GW_MIN_RATE : (uint64_t)v;
}

/* The objects' new values, as gw_plan_build would make them for a config at rate. Returns
 * whether o carries the rate on the wire (a request goes for it). */
static bool retuned(const struct gw_config *cfg, const struct gw_applied *a,
		    struct gw_plan_obj *o, uint64_t rate, size_t *k)
{
	const struct gw_link_cfg *l = &cfg->links[o->link];
	const struct gw_dir_cfg *dc = &l->dir[o->dir];
	const struct gw_sizing *s = &l->sizing;
	const struct gw_link_facts *f = &a->facts[o->link];
	unsigned int mtu = o->dir == GW_DIR_EGRESS ? f->dev.mtu : f->ifb.mtu;
	struct gw_class_cfg single;
	const struct gw_class_cfg *c;
	const struct gw_qdisc_ops *ops;
	struct gw_shape sh = { .rate = rate };

	if (o->shaper_rate) {
		o->shaper_rate = rate;
		if (gw_shaper_role(dc->shaper) == GW_SHAPER_CLASSES)
			return false;	/* htb's rates are its classes' */
		if (gw_shaper_role(dc->shaper) == GW_SHAPER_BUCKET) {
			sh.burst = dc->burst != GW_UNSET ? dc->burst :
				   (int64_t)gw_derive_burst(rate, s, mtu);
			sh.limit = gw_derive_tbf_limit(rate, sh.burst, dc->latency_us);
		}
		ops = gw_qdisc_ops(o->obj.kind);
		if (ops && ops->set_shape)
			ops->set_shape(&o->obj.q, &sh);
		return true;
	}
	if (o->obj.type != GW_OBJ_CLASS)
		return false;
	if (o->obj.inner) {	/* the top class: the whole rate */
		o->obj.cls.rate = o->obj.cls.ceil = rate;
		o->obj.cls.burst = o->obj.cls.cburst = dc->burst != GW_UNSET ? dc->burst :
			(int64_t)gw_derive_burst(rate, s, mtu);
		o->obj.cls.quantum = gw_derive_quantum(rate, s, mtu);
		return true;
	}
	/* the plan lists a direction's classes in config order */
	if (dc->n_classes) {
		if (*k >= dc->n_classes)
			return false;
		c = &dc->classes[(*k)++];
	} else {
		gw_class_default(&single, dc->rate, dc->rate, &dc->child, 0);
		c = &single;
	}
	o->obj.cls.rate = scale(c->rate, rate, dc->rate);
	o->obj.cls.ceil = scale(c->ceil, rate, dc->rate);
	o->obj.cls.burst = c->burst != GW_UNSET ? c->burst :
			   (int64_t)gw_derive_burst(o->obj.cls.rate, s, mtu);
	o->obj.cls.cburst = c->cburst != GW_UNSET ? c->cburst :
			    (int64_t)gw_derive_burst(o->obj.cls.ceil, s, mtu);
	o->obj.cls.quantum = c->quantum != GW_UNSET ? c->quantum :
			     gw_derive_quantum(o->obj.cls.rate, s, mtu);
	return true;
}

static void free_msgs(struct nl_msg **m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nlmsg_free(m[i]);
}

/* Requests (changes: no create flags) for objs[idx[0..n)] */
static int build(const struct gw_plan_obj *objs, const size_t *idx, size_t n, struct nl_msg **m)
{
	for (size_t i = 0; i < n; i++) {
		int r = gw_obj_build(&objs[idx[i]].obj, 0, &m[i]);

		if (r) {
			free_msgs(m, i);
			return r;
		}
	}
	return 0;
}

static void describe(const struct gw_config *cfg, const struct gw_plan_obj *o,
		     const struct gw_nl_error *e, char *err, size_t errlen)
{
	char cmd[512] = "";

	gw_obj_format_tc(&o->obj, o->dev, cfg->links[o->link].dir[GW_DIR_INGRESS].ifb, cmd,
			 sizeof(cmd));
	snprintf(err, errlen, "link '%s' %s on %s: the kernel refused `%s`: %s (%s)",
		 cfg->links[o->link].name, o->what, o->dev, cmd, e->msg[0] ? e->msg : "no message",
		 strerror(-e->err));
}

int gw_retune(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a, size_t link,
	      enum gw_direction d, uint64_t rate, size_t *n_msgs, char *err, size_t errlen)
{
	struct gw_plan_obj *want = NULL;
	struct nl_msg **m = NULL;
	size_t *idx = NULL, n = 0, k = 0;
	struct gw_nl_error e = { .err = 0 };
	int r = -ENOMEM;

	if (link >= cfg->n_links || !cfg->links[link].dir[d].present || !gw_retune_rate(a, link, d))
		return -ENOENT;
	want = calloc(a->plan.n + 1, sizeof(*want));
	idx = calloc(a->plan.n + 1, sizeof(*idx));
	m = calloc(a->plan.n + 1, sizeof(*m));
	if (!want || !idx || !m) {
		snprintf(err, errlen, "retune: %s", strerror(ENOMEM));
		goto out;
	}
	memcpy(want, a->plan.objs, a->plan.n * sizeof(*want));
	for (size_t i = 0; i < a->plan.n; i++)
		if (want[i].link == link && want[i].dir == d && retuned(cfg, a, &want[i], rate, &k))
			idx[n++] = i;
	if ((r = build(want, idx, n, m))) {
		snprintf(err, errlen, "retune: building the requests: %s", strerror(-r));
		goto out;
	}
	r = n ? gw_nl_batch(nl, m, n, true, &e) : 0;
	free_msgs(m, n);
	if (r) {
		describe(cfg, &want[idx[e.index < n ? e.index : 0]], &e, err, errlen);
		/* what went before the refusal (and after it in its chunk) took: send it all
		 * back as the plan has it, whatever the kernel says */
		if (!build(a->plan.objs, idx, n, m)) {
			gw_nl_batch(nl, m, n, false, NULL);
			free_msgs(m, n);
		}
		goto out;
	}
	memcpy(a->plan.objs, want, a->plan.n * sizeof(*want));
	if (n_msgs)
		*n_msgs = n;
out:
	free(want);
	free(idx);
	free(m);
	return r;
}
