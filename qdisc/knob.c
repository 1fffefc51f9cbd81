/* qdisc/knob.c: the shared mechanics behind table-driven qdisc options. */
#include <errno.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include "qdisc/knob.h"

int64_t gw_knob_get(const union gw_qopts *o, const struct gw_knob *k)
{
	const char *p = (const char *)o + k->off;

	if (k->field == GW_KF_INT) {
		int v;

		memcpy(&v, p, sizeof(v));
		return v < 0 ? GW_UNSET : v;
	} else {
		int64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
}

void gw_knob_set(union gw_qopts *o, const struct gw_knob *k, int64_t v)
{
	char *p = (char *)o + k->off;

	if (k->field == GW_KF_INT) {
		int i = (int)v;

		memcpy(p, &i, sizeof(i));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}

/* Every knob that is set, and only those, goes into one TCA_OPTIONS nest. */
int gw_knobs_encode(struct nl_msg *msg, const union gw_qopts *o, const struct gw_knob *k,
		    size_t n)
{
	struct nlattr *nest = nla_nest_start(msg, TCA_OPTIONS);
	int err = 0;

	if (!nest)
		return -EMSGSIZE;
	for (size_t i = 0; i < n && !err; i++) {
		int64_t v = gw_knob_get(o, &k[i]);

		if (v == GW_UNSET)
			continue;
		switch (k[i].wire) {
		case GW_KW_U32:
			err = nla_put_u32(msg, k[i].attr, (uint32_t)v);
			break;
		case GW_KW_S32:
			err = nla_put_s32(msg, k[i].attr, (int32_t)v);
			break;
		case GW_KW_U64:
			err = nla_put_u64(msg, k[i].attr, (uint64_t)v);
			break;
		}
	}
	if (err)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int gw_knobs_decode(const struct nlattr *opts, union gw_qopts *o, const struct gw_knob *k,
		    size_t n, int maxattr)
{
	struct nlattr *tb[maxattr + 1];

	if (!opts)
		return 0;
	if (nla_parse_nested(tb, maxattr, (struct nlattr *)opts, NULL) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		const struct nlattr *a = tb[k[i].attr];
		int64_t v;

		if (!a)
			continue;
		switch (k[i].wire) {
		case GW_KW_U32:
			if (nla_len(a) < 4)
				return -EBADMSG;
			v = nla_get_u32((struct nlattr *)a);
			break;
		case GW_KW_S32:
			if (nla_len(a) < 4)
				return -EBADMSG;
			v = (int32_t)nla_get_u32((struct nlattr *)a);
			break;
		default:
			if (nla_len(a) < 8)
				return -EBADMSG;
			v = (int64_t)nla_get_u64((struct nlattr *)a);
			break;
		}
		gw_knob_set(o, &k[i], v);
	}
	return 0;
}

/* Knobs the caller left unset are the kernel's business and never differ. */
int gw_knobs_same(const union gw_qopts *want, const union gw_qopts *got,
		  const struct gw_knob *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t w = gw_knob_get(want, &k[i]), g = gw_knob_get(got, &k[i]);

		if (w == GW_UNSET)
			continue;
		if (k[i].approx ? !gw_near(w, g) : w != g)
			return 0;
	}
	return 1;
}
