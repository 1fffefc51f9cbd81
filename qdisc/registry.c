/* qdisc/registry.c: the one place that maps a kind to its ops table. A kind is its index here;
 * adding one is its file and its line below. */
#include <string.h>
#include "qdisc/knob.h"
#include "qdisc/qdisc.h"

extern const struct gw_qdisc_ops gw_sfq_ops, gw_pie_ops;

static const struct gw_qdisc_ops *const registry[GW_KIND_MAX] = {
	[GW_KIND_FIFO] = &gw_fifo_ops,
	[GW_KIND_FQ_CODEL] = &gw_fq_codel_ops,
	[GW_KIND_CAKE] = &gw_cake_ops,
	[GW_KIND_HTB] = &gw_htb_ops,
	[GW_KIND_TBF] = &gw_tbf_ops,
	[GW_KIND_INGRESS] = &gw_ingress_ops,
	&gw_sfq_ops,
	&gw_pie_ops,
};

const struct gw_qdisc_ops *gw_qdisc_ops(enum gw_kind kind)
{
	if ((unsigned)kind >= GW_KIND_MAX)
		return NULL;
	return registry[kind];
}

enum gw_kind gw_qdisc_kind(const struct gw_qdisc_ops *ops)
{
	for (int k = 1; ops && k < GW_KIND_MAX; k++)
		if (registry[k] == ops)
			return (enum gw_kind)k;
	return GW_KIND_NONE;
}

const struct gw_qdisc_ops *gw_qdisc_ops_by_name(const char *name)
{
	for (int k = 0; k < GW_KIND_MAX; k++)
		if (registry[k] && strcmp(registry[k]->name, name) == 0)
			return registry[k];
	return NULL;
}

const struct gw_qdisc_ops *gw_qdisc_ops_by_tc_kind(const char *tc_kind)
{
	for (int k = 0; k < GW_KIND_MAX; k++) {
		const struct gw_qdisc_ops *ops = registry[k];

		if (ops && (ops->tc_kind_in ? ops->tc_kind_in(tc_kind, NULL) :
			    strcmp(ops->name, tc_kind) == 0))
			return ops;
	}
	return NULL;
}

const struct gw_qdisc_ops *gw_qdisc_leaf(size_t i)
{
	for (int k = 0; k < GW_KIND_MAX; k++)
		if (registry[k] && registry[k]->leaf && i-- == 0)
			return registry[k];
	return NULL;
}

size_t gw_qdisc_xdescs(const struct gw_xstats_desc **out, size_t max)
{
	size_t n = 0;

	for (int k = 0; k < GW_KIND_MAX && n < max; k++)
		if (registry[k] && registry[k]->xdesc)
			out[n++] = registry[k]->xdesc;
	return n;
}

const struct gw_qdisc_ops *gw_qdisc_shaper(size_t i)
{
	/* the config's order, which its messages list */
	static const enum gw_kind shapers[] = { GW_KIND_HTB, GW_KIND_TBF, GW_KIND_CAKE };

	return i < sizeof(shapers) / sizeof(shapers[0]) ? registry[shapers[i]] : NULL;
}

enum gw_shaper_role gw_shaper_role(enum gw_kind kind)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(kind);

	return ops ? ops->shaper : GW_SHAPER_NONE;
}

const char *gw_kind_name(enum gw_kind kind)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(kind);

	return ops ? ops->name : "none";
}

void gw_qopts_init(enum gw_kind kind, union gw_qopts *o)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(kind);

	memset(o, 0, sizeof(*o));
	if (ops && ops->init)
		ops->init(o);
	else if (ops)
		gw_keys_init(o, ops->keys, ops->n_keys);
}

const char *gw_kind_tc_name(const struct gw_qdisc_ops *ops, const union gw_qopts *o)
{
	return ops->tc_kind ? ops->tc_kind(o) : ops->name;
}

/* A kind without options (the ingress hook) sends no TCA_OPTIONS at all. */
int gw_kind_encode(const struct gw_qdisc_ops *ops, struct nl_msg *msg, const union gw_qopts *o)
{
	if (ops->encode)
		return ops->encode(msg, o);
	return ops->n_keys ? gw_keys_encode(msg, o, ops->keys, ops->n_keys) : 0;
}

int gw_kind_decode(const struct gw_qdisc_ops *ops, const struct nlattr *opts, union gw_qopts *o)
{
	if (ops->decode)
		return ops->decode(opts, o);
	return ops->n_keys ? gw_keys_decode(opts, o, ops->keys, ops->n_keys, ops->maxattr) : 0;
}

int gw_kind_format(const struct gw_qdisc_ops *ops, char *buf, size_t len,
		   const union gw_qopts *o)
{
	return ops->format ? ops->format(buf, len, o) :
			     gw_keys_format(buf, len, o, ops->keys, ops->n_keys);
}

int gw_kind_same(const struct gw_qdisc_ops *ops, const union gw_qopts *want,
		 const union gw_qopts *got)
{
	return ops->same ? ops->same(want, got) : gw_keys_same(want, got, ops->keys, ops->n_keys);
}
