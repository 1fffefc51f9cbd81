/* qdisc/knob.c: the shared mechanics behind table-driven qdisc options. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include "qdisc/knob.h"

int64_t gw_key_get(const union gw_qopts *o, const struct gw_key *k)
{
	const char *p = (const char *)o + k->off;

	if (k->field == GW_KF_INT) {
		int v;

		memcpy(&v, p, sizeof(v));
		return v < 0 ? GW_UNSET : v;
	} else if (k->field == GW_KF_BOOL) {
		bool v;

		memcpy(&v, p, sizeof(v));
		return v ? 1 : GW_UNSET;
	} else {
		int64_t v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
}

void gw_key_set(union gw_qopts *o, const struct gw_key *k, int64_t v)
{
	char *p = (char *)o + k->off;

	if (k->field == GW_KF_INT) {
		int i = v == GW_UNSET ? -1 : (int)v;

		memcpy(p, &i, sizeof(i));
	} else if (k->field == GW_KF_BOOL) {
		bool b = v != GW_UNSET && v != 0;

		memcpy(p, &b, sizeof(b));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}

const struct gw_key_word *gw_key_word(const struct gw_key *k, int64_t v)
{
	for (size_t i = 0; i < k->n_words; i++)
		if (k->words[i].value == v)
			return &k->words[i];
	return NULL;
}

void gw_keys_init(union gw_qopts *o, const struct gw_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gw_key_set(o, &k[i], GW_UNSET);
}

int gw_key_put(struct nl_msg *msg, const struct gw_key *k, int64_t v)
{
	int err = 0;

	switch (k->wire) {
	case GW_KW_U32:
		err = nla_put_u32(msg, k->attr, (uint32_t)v);
		break;
	case GW_KW_S32:
		err = nla_put_s32(msg, k->attr, (int32_t)v);
		break;
	case GW_KW_U64:
		err = nla_put_u64(msg, k->attr, (uint64_t)v);
		break;
	case GW_KW_U8:
		err = nla_put_u8(msg, k->attr, (uint8_t)v);
		break;
	case GW_KW_NONE:
		break;
	}
	return err ? -EMSGSIZE : 0;
}

int gw_keys_encode(struct nl_msg *msg, const union gw_qopts *o, const struct gw_key *k,
		   size_t n)
{
	struct nlattr *nest = nla_nest_start(msg, TCA_OPTIONS);
	int err = 0;

	if (!nest)
		return -EMSGSIZE;
	for (size_t i = 0; i < n && !err; i++) {
		int64_t v = gw_key_get(o, &k[i]);

		if (v != GW_UNSET && k[i].attr)
			err = gw_key_put(msg, &k[i], v);
	}
	if (err)
		return err;
	nla_nest_end(msg, nest);
	return 0;
}

int gw_keys_decode(const struct nlattr *opts, union gw_qopts *o, const struct gw_key *k,
		   size_t n, int maxattr)
{
	struct nlattr *tb[maxattr + 1];

	if (!opts)
		return 0;
	if (nla_parse_nested(tb, maxattr, (struct nlattr *)opts, NULL) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		const struct nlattr *a = k[i].attr > 0 && k[i].attr <= maxattr ? tb[k[i].attr] : NULL;
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
		case GW_KW_U8:
			if (nla_len(a) < 1)
				return -EBADMSG;
			v = nla_get_u8((struct nlattr *)a);
			break;
		case GW_KW_U64:
			if (nla_len(a) < 8)
				return -EBADMSG;
			v = (int64_t)nla_get_u64((struct nlattr *)a);
			break;
		default:
			continue;
		}
		gw_key_set(o, &k[i], v);
	}
	return 0;
}

int gw_keys_same(const union gw_qopts *want, const union gw_qopts *got, const struct gw_key *k,
		 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t w = gw_key_get(want, &k[i]), g = gw_key_get(got, &k[i]);

		if (w == GW_UNSET)
			continue;
		if (k[i].approx ? !gw_near(w, g) : w != g)
			return 0;
	}
	return 1;
}

static int format_one(char *buf, size_t len, size_t *pos, const struct gw_key *k, int64_t v)
{
	const struct gw_key_word *w = gw_key_word(k, v);
	char t[32];

	if (w && w->tc)
		return gw_fmt(buf, len, pos, " %s", w->tc);
	if (!k->tc)
		return 0;
	switch (k->unit) {
	case GW_KU_TIME:
		gw_format_time(v, t, sizeof(t));
		break;
	case GW_KU_RATE:
		gw_format_rate((uint64_t)v, t, sizeof(t));
		break;
	default:
		snprintf(t, sizeof(t), "%lld", (long long)v);
		break;
	}
	return gw_fmt(buf, len, pos, " %s %s", k->tc, t);
}

int gw_keys_format(char *buf, size_t len, const union gw_qopts *o, const struct gw_key *k,
		   size_t n)
{
	size_t pos = 0;
	int err = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int64_t v = gw_key_get(o, &k[i]);

		if (v != GW_UNSET)
			err |= format_one(buf, len, &pos, &k[i], v);
	}
	return err ? -ENOSPC : (int)pos;
}
