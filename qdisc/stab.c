/* qdisc/stab.c: link-layer accounting for htb and tbf through a size table (TCA_STAB).
 * The kernel adds the table's overhead to skb->len, then, when a table is present, looks the
 * sum up in it: one cell per byte of wire size, so every lookup is exact up to 2047 bytes. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "qdisc/qdisc.h"

#define STAB_TSIZE 2048

/* Size on the wire of a frame of n bytes (n already includes the overhead). */
static uint32_t wire_adjust(const struct gw_sizing *s, uint32_t n)
{
	if (s->mpu > 0 && n < (uint32_t)s->mpu)
		n = (uint32_t)s->mpu;
	switch (s->linklayer) {
	case GW_LL_ATM:
		return (n + 47) / 48 * 53;	/* 48-byte payload per 53-byte cell */
	case GW_LL_PTM:
		return (n * 65 + 63) / 64;	/* 64/65 encoding */
	default:
		return n;
	}
}

uint32_t gw_wire_size(const struct gw_sizing *s, uint32_t l3_len)
{
	int64_t n;

	if (!s->set)
		return l3_len + 14;	/* a plain ethernet header, no compensation */
	n = (int64_t)l3_len + s->overhead;
	return wire_adjust(s, n < 1 ? 1 : (uint32_t)n);
}

/* A table is needed only where a linear overhead is not enough. */
static int needs_table(const struct gw_sizing *s)
{
	return s->mpu > 0 || s->linklayer != GW_LL_ETHERNET;
}

int gw_stab_encode(struct nl_msg *msg, const struct gw_sizing *s, int32_t skb_overhead)
{
	struct tc_sizespec spec = { 0 };
	struct nlattr *nest;
	uint16_t *data = NULL;
	int err = 0;

	if (!s->set)
		return 0;
	spec.overhead = skb_overhead;
	spec.mpu = (uint32_t)(s->mpu > 0 ? s->mpu : 0);
	spec.linklayer = s->linklayer == GW_LL_ATM ? TC_LINKLAYER_ATM : TC_LINKLAYER_ETHERNET;
	if (needs_table(s)) {
		spec.tsize = STAB_TSIZE;
		data = calloc(STAB_TSIZE, sizeof(*data));
		if (!data)
			return -ENOMEM;
		for (uint32_t i = 0; i < STAB_TSIZE; i++) {
			uint32_t w = wire_adjust(s, i ? i : 1);

			data[i] = w > UINT16_MAX ? UINT16_MAX : (uint16_t)w;
		}
	}
	nest = nla_nest_start(msg, TCA_STAB);
	if (!nest || nla_put(msg, TCA_STAB_BASE, sizeof(spec), &spec) < 0 ||
	    (data && nla_put(msg, TCA_STAB_DATA, STAB_TSIZE * sizeof(*data), data) < 0))
		err = -EMSGSIZE;
	else
		nla_nest_end(msg, nest);
	free(data);
	return err;
}

int gw_stab_format(char *buf, size_t len, const struct gw_sizing *s, int32_t skb_overhead)
{
	static const char *const ll[] = { "ethernet", "atm", "ptm" };
	size_t pos = 0;

	buf[0] = '\0';
	if (!s->set)
		return 0;
	/* tc's own table has no ptm; ptm is ethernet with 65/64 accounting, as close as tc gets */
	if (gw_fmt(buf, len, &pos, " stab overhead %d", skb_overhead) ||
	    (s->mpu > 0 && gw_fmt(buf, len, &pos, " mpu %d", s->mpu)) ||
	    (s->linklayer != GW_LL_PTM &&
	     gw_fmt(buf, len, &pos, " linklayer %s", ll[s->linklayer])))
		return -ENOSPC;
	return (int)pos;
}
