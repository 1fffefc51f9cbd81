/* qdisc/ingress.c: the ingress hook qdisc (ffff:), where the redirect to an ifb hangs. It has
 * no options: the registry's defaults send none and read none back. */
#include "qdisc/qdisc.h"

const struct gw_qdisc_ops gw_ingress_ops = {
	.name = "ingress",
	.module = "sch_ingress",
	.hook = true,
};
