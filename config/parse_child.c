/* config/parse_child.c: a `child = { kind = ...; }` group into a struct gw_child. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/parse.h"
#include "qdisc/qdisc.h"

/* The kind's words with a config name, as cfg_get_enum takes them. */
static size_t enum_names(const struct gw_key *k, struct cfg_enum *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < k->n_words && n + 1 < max; i++)
		if (k->words[i].name)
			out[n++] = (struct cfg_enum){ k->words[i].name, (int)k->words[i].value };
	out[n] = (struct cfg_enum){ NULL, 0 };
	return n;
}

/* A word by its config name, for a string where a rate or a bool also goes. */
static const struct gw_key_word *named_word(const struct gw_key *k, const config_setting_t *s)
{
	const char *v;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return NULL;
	v = config_setting_get_string(s);
	for (size_t i = 0; i < k->n_words; i++)
		if (k->words[i].name && strcmp(k->words[i].name, v) == 0)
			return &k->words[i];
	return NULL;
}

/* true/false, or one of the key's named words ("aggressive"). */
static int get_bool_key(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			const struct gw_key *k, int64_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, k->name);
	const struct gw_key_word *w;
	struct cfg_enum names[16];
	char list[128] = "";
	size_t n, len = 0;
	bool b;
	int ret;

	if (!s)
		return 0;
	n = enum_names(k, names, 16);
	if (!n || config_setting_type(s) == CONFIG_TYPE_BOOL) {
		if ((ret = cfg_get_bool(p, grp, k->name, where, &b)) > 0)
			*out = b;
		return ret;
	}
	if ((w = named_word(k, s))) {
		*out = w->value;
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s\"%s\"",
					i + 1 < n ? ", " : " or ", names[i].name);
	return cfg_error(p, s, where, "'%s' must be true, false%s", k->name, list);
}

/* An integer in min..max, or a size string in 1..max2 that also sets the alt knob. */
static int get_count_or_size(struct cfg_parser *p, const config_setting_t *grp,
			     const char *where, const struct gw_key *k, int64_t *out, bool *alt)
{
	const config_setting_t *s = config_setting_get_member(grp, k->name);

	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		*alt = true;
		return cfg_get_size(p, grp, k->name, where, 1, k->max2, out);
	}
	if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
		return cfg_error(p, s, where, "'%s' must be an integer (packets) or a size "
				 "string (bytes, e.g. \"256k\")", k->name);
	return cfg_get_int(p, grp, k->name, where, k->min, k->max, out);
}

/* One key of the kind's table: 1 set, 0 absent, -EINVAL with the message written. */
static int parse_key(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		     const struct gw_qdisc_ops *ops, size_t i, struct gw_child *c)
{
	const struct gw_key *k = &ops->keys[i];
	const config_setting_t *s = config_setting_get_member(grp, k->name);
	const struct gw_key_word *w;
	struct cfg_enum names[24];
	int64_t v = GW_UNSET;
	bool alt = false;
	uint64_t r;
	int e, ret;

	switch (k->unit) {
	case GW_KU_COUNT:
		ret = cfg_get_int(p, grp, k->name, where, k->min, k->max, &v);
		break;
	case GW_KU_SIZE:
		ret = cfg_get_size(p, grp, k->name, where, k->min, k->max, &v);
		break;
	case GW_KU_TIME:
		ret = cfg_get_time(p, grp, k->name, where, k->min, k->max, &v);
		break;
	case GW_KU_RATE:
		if (s && (w = named_word(k, s))) {
			v = w->value;
			ret = 1;
			break;
		}
		ret = cfg_get_rate(p, grp, k->name, where, (uint64_t)k->min, (uint64_t)k->max, &r);
		v = (int64_t)r;
		break;
	case GW_KU_BOOL:
		ret = get_bool_key(p, grp, where, k, &v);
		break;
	case GW_KU_ENUM:
		enum_names(k, names, 24);
		ret = cfg_get_enum(p, grp, k->name, where, names, &e);
		v = e;
		break;
	case GW_KU_COUNT_OR_SIZE:
		ret = get_count_or_size(p, grp, where, k, &v, &alt);
		break;
	default:
		return -EINVAL;
	}
	if (ret <= 0)
		return ret;
	gw_key_set(&c->opts, k, v);
	if (alt && (size_t)k->alt < ops->n_keys)
		gw_key_set(&c->opts, &ops->keys[k->alt], 1);
	return 1;
}

static int parse_keys(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		      const struct gw_qdisc_ops *ops, struct gw_child *c)
{
	for (size_t i = 0; i < ops->n_keys; i++) {
		int ret;

		if (ops->keys[i].name && (ret = parse_key(p, grp, where, ops, i, c)) < 0)
			return ret;
	}
	return 0;
}

void cfg_child_init(struct gw_child *c, enum gw_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	gw_qopts_init(kind, &c->opts);
}

static bool has_key(const struct gw_qdisc_ops *ops, const char *key)
{
	if (strcmp(key, "kind") == 0)
		return true;
	for (size_t i = 0; i < ops->n_keys; i++)
		if (ops->keys[i].name && strcmp(ops->keys[i].name, key) == 0)
			return true;
	return false;
}

/* A knob of another kind is a likelier mistake than a typo: name the kinds it belongs to. */
static int check_child_keys(struct cfg_parser *p, const config_setting_t *grp,
			    const char *where, const struct gw_qdisc_ops *ck)
{
	int i, n = config_setting_length(grp);

	for (i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, (unsigned int)i);
		const char *key = config_setting_name(m);
		const struct gw_qdisc_ops *o;
		char owners[96] = "";
		size_t len = 0;

		if (has_key(ck, key))
			continue;
		for (size_t k = 0; (o = gw_qdisc_leaf(k)); k++)
			if (has_key(o, key) && len < sizeof(owners))
				len += (size_t)snprintf(owners + len, sizeof(owners) - len, "%s%s",
							len ? " and " : "", o->name);
		if (!len)
			return cfg_error(p, m, NULL, "unknown key '%s' in %s", key, where);
		return cfg_error(p, m, where, "'%s' is a %s setting, not valid for kind \"%s\"",
				 key, owners, ck->name);
	}
	return 0;
}

/* What the shaper above the child allows of it; see gatewayd.conf(5). */
static int check_child_fits(struct cfg_parser *p, const config_setting_t *grp,
			    const char *where, const struct gw_qdisc_ops *shaper,
			    const struct gw_qdisc_ops *ops, const struct gw_child *c)
{
	const char *key = NULL;
	char msg[256] = "";

	/* a shaper that is its own queue takes only its own settings from the child block */
	if (shaper && shaper->shaper == GW_SHAPER_SELF && ops != shaper)
		return cfg_error(p, config_setting_get_member(grp, "kind"), where,
				 "'kind' must be \"%s\" under shaper %s: the child block "
				 "only carries %s's own settings", shaper->name, shaper->name,
				 shaper->name);
	if (!ops->check || !ops->check(&c->opts, shaper, &key, msg, sizeof(msg)))
		return 0;
	return cfg_error(p, key ? config_setting_get_member(grp, key) : grp, where, "%s", msg);
}

int cfg_parse_child(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		    enum gw_kind shaper, struct gw_child *out)
{
	struct cfg_enum kind_names[GW_KIND_MAX + 1];
	const struct gw_qdisc_ops *ops;
	size_t n = 0;
	int ret, idx;

	while (n < GW_KIND_MAX && (ops = gw_qdisc_leaf(n))) {
		kind_names[n] = (struct cfg_enum){ ops->name, (int)n };
		n++;
	}
	kind_names[n] = (struct cfg_enum){ NULL, 0 };
	ret = cfg_get_enum(p, grp, "kind", where, kind_names, &idx);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return cfg_missing(p, grp, where, "kind");
	ops = gw_qdisc_leaf((size_t)idx);
	ret = check_child_keys(p, grp, where, ops);
	if (ret)
		return ret;
	cfg_child_init(out, gw_qdisc_kind(ops));
	out->line = (int)config_setting_source_line(grp);
	ret = parse_keys(p, grp, where, ops, out);
	if (ret)
		return ret;
	return check_child_fits(p, grp, where, gw_qdisc_ops(shaper), ops, out);
}

/* A child group written as libconfig text, `child = { kind = "..."; ... };`, for a caller whose
 * own input is not a libconfig file (the CNI plugin's JSON): the same kinds, keys, ranges and
 * checks as a config file's child, the message without the text's FILE:LINE. */
int gw_child_parse_text(const char *text, const char *where, enum gw_kind shaper,
			struct gw_child *out, char *err, size_t errlen)
{
	struct cfg_parser p = { "-", err, errlen };
	config_setting_t *grp;
	config_t c;
	int ret;

	config_init(&c);
	if (config_read_string(&c, text) != CONFIG_TRUE) {
		snprintf(err, errlen, "%s: %s", where, config_error_text(&c));
		ret = -EINVAL;
	} else if (!(grp = config_lookup(&c, "child")) ||
		   config_setting_type(grp) != CONFIG_TYPE_GROUP) {
		snprintf(err, errlen, "%s: not a group", where);
		ret = -EINVAL;
	} else {
		ret = cfg_parse_child(&p, grp, where, shaper, out);
		out->line = 0;
	}
	config_destroy(&c);
	/* "-:LINE: " goes: the line is one of the text, not of the caller's input */
	if (ret && err && errlen && !strncmp(err, "-:", 2)) {
		char *rest = strstr(err, ": ");

		if (rest)
			memmove(err, rest + 2, strlen(rest + 2) + 1);
	}
	return ret;
}
