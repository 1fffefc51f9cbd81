/* qdisc/ingress.c: the ingress hook qdisc (ffff:), where the redirect to an ifb hangs. */
#include "qdisc/qdisc.h"

static const char *ingress_tc_kind(const union gw_qopts *o)
{
	(void)o;
	return "ingress";
}

static void ingress_init(union gw_qopts *o)
{
	(void)o;
}

static int ingress_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	(void)msg;
	(void)o;
	return 0;
}

static int ingress_decode(const struct nlattr *opts, union gw_qopts *o)
{
	(void)opts;
	(void)o;
	return 0;
}

static int ingress_format(char *buf, size_t len, const union gw_qopts *o)
{
	(void)o;
	if (len)
		buf[0] = '\0';
	return 0;
}

static int ingress_same(const union gw_qopts *want, const union gw_qopts *got)
{
	(void)want;
	(void)got;
	return 1;
}

const struct gw_qdisc_ops gw_ingress_ops = {
	.name = "ingress",
	.module = "sch_ingress",
	.tc_kind = ingress_tc_kind,
	.init = ingress_init,
	.encode = ingress_encode,
	.decode = ingress_decode,
	.format = ingress_format,
	.same = ingress_same,
	.hook = true,
};
