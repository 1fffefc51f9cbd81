/* qdisc/fifo.c: pfifo (limit in packets) and bfifo (limit in bytes), the "dumb" queue. */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include "qdisc/qdisc.h"

static const char *fifo_tc_kind(const union gw_qopts *o)
{
	return o->fifo.bytes ? "bfifo" : "pfifo";
}

static void fifo_init(union gw_qopts *o)
{
	o->fifo.limit = GW_UNSET;
	o->fifo.bytes = false;
}

static int fifo_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	struct tc_fifo_qopt q = { 0 };

	/* Without options the kernel sizes the queue from the device's txqueuelen. */
	if (o->fifo.limit == GW_UNSET)
		return 0;
	q.limit = (uint32_t)o->fifo.limit;
	return nla_put(msg, TCA_OPTIONS, sizeof(q), &q) < 0 ? -EMSGSIZE : 0;
}

static int fifo_decode(const struct nlattr *opts, union gw_qopts *o)
{
	struct tc_fifo_qopt q;

	if (!opts)
		return 0;
	if (nla_len(opts) < (int)sizeof(q))
		return -EBADMSG;
	memcpy(&q, nla_data(opts), sizeof(q));
	o->fifo.limit = q.limit;
	return 0;
}

static int fifo_format(char *buf, size_t len, const union gw_qopts *o)
{
	size_t pos = 0;

	buf[0] = '\0';
	if (o->fifo.limit != GW_UNSET &&
	    gw_fmt(buf, len, &pos, " limit %lld", (long long)o->fifo.limit))
		return -ENOSPC;
	return (int)pos;
}

static int fifo_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return want->fifo.bytes == got->fifo.bytes &&
	       (want->fifo.limit == GW_UNSET || want->fifo.limit == got->fifo.limit);
}

const struct gw_qdisc_ops gw_fifo_ops = {
	.kind = GW_KIND_FIFO,
	.name = "fifo",
	.module = "sch_fifo",
	.tc_kind = fifo_tc_kind,
	.init = fifo_init,
	.encode = fifo_encode,
	.decode = fifo_decode,
	.format = fifo_format,
	.same = fifo_same,
};
