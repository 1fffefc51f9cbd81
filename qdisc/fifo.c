/* qdisc/fifo.c: pfifo (limit in packets) and bfifo (limit in bytes), the "dumb" queue. */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include "qdisc/knob.h"

#define PACKETS_MAX 1000000

/* An integer limit is a packet count (pfifo); a size string is bytes (bfifo) and sets bytes. */
static const struct gw_key fifo_keys[] = {
	{ .name = "limit", .unit = GW_KU_COUNT_OR_SIZE, .min = 1, .max = PACKETS_MAX,
	  .max2 = 1LL << 30, .alt = 1, .tc = "limit", .dflt = "the device's txqueuelen",
	  GW_KEY_AT(fifo.limit, GW_KF_INT64) },
	{ .unit = GW_KU_BOOL, GW_KEY_AT(fifo.bytes, GW_KF_BOOL) },
};
#define N_KEYS GW_KEYS_N(fifo_keys)

static const char *fifo_tc_kind(const union gw_qopts *o)
{
	return o->fifo.bytes ? "bfifo" : "pfifo";
}

/* fifo answers to two kernel names; bfifo's limit is in bytes */
static int fifo_tc_kind_in(const char *tc_kind, union gw_qopts *o)
{
	bool b = strcmp(tc_kind, "bfifo") == 0;

	if (!b && strcmp(tc_kind, "pfifo") != 0)
		return 0;
	if (o)
		o->fifo.bytes = b;
	return 1;
}

static void fifo_init(union gw_qopts *o)
{
	gw_keys_init(o, fifo_keys, N_KEYS);
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
	return gw_keys_format(buf, len, o, fifo_keys, N_KEYS);
}

static int fifo_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return want->fifo.bytes == got->fifo.bytes &&
	       (want->fifo.limit == GW_UNSET || want->fifo.limit == got->fifo.limit);
}

const struct gw_qdisc_ops gw_fifo_ops = {
	.name = "fifo",
	.module = "sch_fifo",
	.tc_kind = fifo_tc_kind,
	.tc_kind_in = fifo_tc_kind_in,
	.init = fifo_init,
	.encode = fifo_encode,
	.decode = fifo_decode,
	.format = fifo_format,
	.same = fifo_same,
	.keys = fifo_keys,
	.n_keys = N_KEYS,
	.leaf = true,
	.bench = "limit = 1000;",	/* the dumb router: a deep tail-drop queue */
};
