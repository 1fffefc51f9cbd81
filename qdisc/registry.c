/* qdisc/registry.c: the one place that maps a kind to its ops table. */
#include <string.h>
#include "qdisc/qdisc.h"

static const struct gw_qdisc_ops *const registry[GW_KIND_COUNT] = {
	[GW_KIND_FIFO] = &gw_fifo_ops,
	[GW_KIND_FQ_CODEL] = &gw_fq_codel_ops,
	[GW_KIND_CAKE] = &gw_cake_ops,
	[GW_KIND_HTB] = &gw_htb_ops,
	[GW_KIND_TBF] = &gw_tbf_ops,
	[GW_KIND_INGRESS] = &gw_ingress_ops,
};

const struct gw_qdisc_ops *gw_qdisc_ops(enum gw_kind kind)
{
	if ((unsigned)kind >= GW_KIND_COUNT)
		return NULL;
	return registry[kind];
}

const struct gw_qdisc_ops *gw_qdisc_ops_by_name(const char *name)
{
	for (int k = 0; k < GW_KIND_COUNT; k++)
		if (registry[k] && strcmp(registry[k]->name, name) == 0)
			return registry[k];
	return NULL;
}

const struct gw_qdisc_ops *gw_qdisc_ops_by_tc_kind(const char *tc_kind)
{
	/* fifo answers to two kernel names; every other kind to its own name */
	if (strcmp(tc_kind, "pfifo") == 0 || strcmp(tc_kind, "bfifo") == 0)
		return &gw_fifo_ops;
	return gw_qdisc_ops_by_name(tc_kind);
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
}
