/* config/parse_util.c: typed, bounded look-ups in libconfig groups, and their error messages. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config/parse.h"

static void verror(struct cfg_parser *p, const char *file, int line, const char *where,
		   const char *fmt, va_list ap)
{
	size_t n;
	char *c;
	int w;

	if (!p->err || !p->errlen)
		return;
	/* Only the root group has no line; what it lacks is best looked for from the top. */
	if (line < 1)
		line = 1;
	w = snprintf(p->err, p->errlen, "%s:%d: %s%s", file ? file : p->name, line,
		     where ? where : "", where ? ": " : "");
	n = w < 0 ? 0 : (size_t)w;
	if (n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	/* Values are echoed back; a "\n" in one must not break the one-line promise. */
	for (c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

int cfg_error_at(struct cfg_parser *p, const char *file, int line, const char *where,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(p, file, line, where, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cfg_error(struct cfg_parser *p, const config_setting_t *s, const char *where,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(p, s ? config_setting_source_file(s) : NULL,
	       s ? (int)config_setting_source_line(s) : 0, where, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cfg_missing(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		const char *key)
{
	return cfg_error(p, grp, where, "'%s' is required", key);
}

static const char *type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group { ... }";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a number with a decimal point";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array [ ... ]";
	case CONFIG_TYPE_LIST:
		return "a list ( ... )";
	}
	return "nothing";
}

int cfg_check_keys(struct cfg_parser *p, const config_setting_t *grp, const char *what,
		   const char *const *keys)
{
	int i, n = config_setting_length(grp);

	for (i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, (unsigned int)i);
		const char *const *k;

		for (k = keys; *k; k++)
			if (strcmp(*k, config_setting_name(m)) == 0)
				break;
		if (!*k)
			return cfg_error(p, m, NULL, "unknown key '%s' %s%s", config_setting_name(m),
					 what ? "in " : "at the top level", what ? what : "");
	}
	return 0;
}

bool cfg_valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= GW_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* What the kernel's dev_valid_name() takes, less control characters we could not print. */
bool cfg_valid_ifname(const char *s)
{
	size_t n = strlen(s);
	const char *c;

	if (n < 1 || n >= IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (c = s; *c; c++)
		if (*c == '/' || *c == ':' || *c == ' ' || (unsigned char)*c < 0x20 ||
		    *c == 0x7f)
			return false;
	return true;
}

/* grp's member key when it has this type (an integer: either width), for the typed look-ups
 * below: 1 and *out, 0 when absent, -EINVAL ("'KEY' must be WHAT, not ...") when not. */
static int member_of_type(struct cfg_parser *p, const config_setting_t *grp, const char *key,
			  const char *where, int type, const char *what, config_setting_t **out)
{
	config_setting_t *s = config_setting_get_member(grp, key);
	int t;

	if (!s)
		return 0;
	t = config_setting_type(s);
	if (t == CONFIG_TYPE_INT64)
		t = CONFIG_TYPE_INT;
	if (t != type)
		return cfg_error(p, s, where, "'%s' must be %s, not %s", key, what, type_name(s));
	*out = s;
	return 1;
}

int cfg_get_string(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		   const char *where, size_t maxlen, const char **out)
{
	config_setting_t *s = NULL;
	const char *v;
	int ret = member_of_type(p, grp, key, where, CONFIG_TYPE_STRING, "a string", &s);

	if (ret <= 0)
		return ret;
	v = config_setting_get_string(s);
	if (strlen(v) > maxlen)
		return cfg_error(p, s, where, "'%s' is too long (at most %zu characters)", key,
				 maxlen);
	*out = v;
	return 1;
}

int cfg_get_abs_path(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		     char **out)
{
	const char *v = NULL;
	int ret = cfg_get_string(p, grp, key, NULL, CFG_ABS_PATH_MAX, &v);

	if (ret <= 0)
		return ret;
	if (v[0] != '/')
		return cfg_error(p, config_setting_get_member(grp, key), NULL,
				 "'%s' \"%.64s\" must be an absolute path", key, v);
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

int cfg_get_int(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		const char *where, int64_t min, int64_t max, int64_t *out)
{
	config_setting_t *s = NULL;
	int ret = member_of_type(p, grp, key, where, CONFIG_TYPE_INT, "an integer", &s);
	int64_t v;

	if (ret <= 0)
		return ret;
	v = config_setting_get_int64(s);
	if (v < min || v > max)
		return cfg_error(p, s, where, "'%s' %" PRId64 " is out of range %" PRId64 "..%"
				 PRId64, key, v, min, max);
	*out = v;
	return 1;
}

int cfg_get_bool(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, bool *out)
{
	config_setting_t *s = NULL;
	int ret = member_of_type(p, grp, key, where, CONFIG_TYPE_BOOL, "true or false", &s);

	if (ret == 1)
		*out = config_setting_get_bool(s);
	return ret;
}

/* Rates, times and sizes are written as strings; this is the shared part of their look-up. */
static int get_unit_string(struct cfg_parser *p, const config_setting_t *s, const char *key,
			   const char *where, bool int_ok, const char *example, const char **out)
{
	int type = config_setting_type(s);

	if (type == CONFIG_TYPE_STRING) {
		*out = config_setting_get_string(s);
		return 1;
	}
	if (int_ok && (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64))
		return 0;
	if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 || type == CONFIG_TYPE_FLOAT)
		return cfg_error(p, s, where, "'%s' needs a unit: write it as a string, e.g. \"%s\"",
				 key, example);
	return cfg_error(p, s, where, "'%s' must be %sa string with a unit, e.g. \"%s\", not %s",
			 key, int_ok ? "bytes or " : "", example, type_name(s));
}

static int parse_time(const char *s, uint64_t *v)
{
	int64_t t;
	int ret = gw_parse_time(s, &t);

	*v = (uint64_t)t;
	return ret;
}

static int parse_size(const char *s, uint64_t *v)
{
	int64_t b;
	int ret = gw_parse_size(s, &b);

	*v = (uint64_t)b;
	return ret;
}

static void format_time(uint64_t v, char *buf, size_t len)
{
	gw_format_time((int64_t)v, buf, len);
}

static void format_size(uint64_t v, char *buf, size_t len)
{
	gw_format_size((int64_t)v, buf, len);
}

/* One quantity written with a unit: how its strings parse and print, and what to say. */
struct unit_key {
	const char *example;	/* "needs a unit: ... e.g. EXAMPLE" */
	const char *not_one;	/* "'KEY' \"VALUE\" is not NOT_ONE" */
	bool bytes_ok;		/* a bare integer is a count of bytes */
	int (*parse)(const char *s, uint64_t *v);
	void (*format)(uint64_t v, char *buf, size_t len);
};

static const struct unit_key rate_key = {
	"20mbit", "a rate: expected a number and a unit (bit, kbit, mbit, gbit, tbit, "
	"kibit..tibit, bps..tbps), e.g. \"20mbit\"", false, gw_parse_rate, gw_format_rate,
};
static const struct unit_key time_key = {
	"5ms", "a time: expected a number and a unit (us, ms, s), e.g. \"5ms\"", false,
	parse_time, format_time,
};
static const struct unit_key size_key = {
	"64k", "a size: expected bytes, or a number and a unit (b, k, m, g), e.g. \"64k\"", true,
	parse_size, format_size,
};

/* The look-up behind cfg_get_rate, _time and _size; min and max are >= 0 for all three. */
static int get_unit_value(struct cfg_parser *p, const config_setting_t *grp, const char *key,
			  const char *where, const struct unit_key *u, uint64_t min, uint64_t max,
			  uint64_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, key);
	const char *str = NULL;
	char b[32], c[32], val[48];
	bool bad;
	uint64_t v;
	int ret;

	if (!s)
		return 0;
	ret = get_unit_string(p, s, key, where, u->bytes_ok, u->example, &str);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		int64_t n = config_setting_get_int64(s);

		snprintf(val, sizeof(val), "%" PRId64, n);
		bad = n < 0;
		v = (uint64_t)n;
	} else {
		ret = u->parse(str, &v);
		if (ret == -EINVAL)
			return cfg_error(p, s, where, "'%s' \"%.40s\" is not %s", key, str,
					 u->not_one);
		snprintf(val, sizeof(val), "\"%.40s\"", str);
		bad = ret != 0;
	}
	if (bad || v < min || v > max) {
		u->format(min, b, sizeof(b));
		u->format(max, c, sizeof(c));
		return cfg_error(p, s, where, "'%s' %s is out of range %s..%s", key, val, b, c);
	}
	*out = v;
	return 1;
}

int cfg_get_rate(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, uint64_t min, uint64_t max, uint64_t *out)
{
	return get_unit_value(p, grp, key, where, &rate_key, min, max, out);
}

static int get_signed(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		      const char *where, const struct unit_key *u, int64_t min, int64_t max,
		      int64_t *out)
{
	uint64_t v;
	int ret = get_unit_value(p, grp, key, where, u, (uint64_t)min, (uint64_t)max, &v);

	if (ret == 1)
		*out = (int64_t)v;
	return ret;
}

int cfg_get_time(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, int64_t min, int64_t max, int64_t *out)
{
	return get_signed(p, grp, key, where, &time_key, min, max, out);
}

int cfg_get_size(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, int64_t min, int64_t max, int64_t *out)
{
	return get_signed(p, grp, key, where, &size_key, min, max, out);
}

int cfg_get_enum(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, const struct cfg_enum *names, int *out)
{
	config_setting_t *s = NULL;
	const struct cfg_enum *e;
	char list[256] = "";
	const char *v;
	size_t n = 0;
	int ret = member_of_type(p, grp, key, where, CONFIG_TYPE_STRING, "a string", &s);

	if (ret <= 0)
		return ret;
	v = config_setting_get_string(s);
	for (e = names; e->name; e++) {
		if (strcmp(e->name, v) == 0) {
			*out = e->value;
			return 1;
		}
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s\"%s\"",
					      e == names ? "" : ", ", e->name);
	}
	return cfg_error(p, s, where, "'%s' \"%.40s\" is not one of %s", key, v, list);
}

int cfg_get_ifname(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		   const char *where, char *out)
{
	const char *v;
	int ret = cfg_get_string(p, grp, key, where, IFNAMSIZ - 1, &v);

	if (ret <= 0)
		return ret;
	if (!cfg_valid_ifname(v))
		return cfg_error(p, config_setting_get_member(grp, key), where,
				 "'%s' \"%s\" is not a valid interface name (1..15 characters, "
				 "no '/', ':' or spaces, not \".\" or \"..\")", key, v);
	snprintf(out, IFNAMSIZ, "%s", v);
	return 1;
}

int cfg_parse_named(struct cfg_parser *p, const config_setting_t *grp, const char *at_index,
		    const char *what, const char *const *keys, char *name, char *where)
{
	const char *v;
	int ret = cfg_get_string(p, grp, "name", at_index, GW_NAME_MAX - 1, &v);

	if (ret <= 0)
		return ret ? ret : cfg_missing(p, grp, at_index, "name");
	if (!cfg_valid_name(v))
		return cfg_error(p, config_setting_get_member(grp, "name"), at_index,
				 "'name' \"%s\" may only have letters, digits, '_' and '-'", v);
	snprintf(name, GW_NAME_MAX, "%s", v);
	snprintf(where, CFG_WHERE_MAX, "%s '%s'", what, name);
	return cfg_check_keys(p, grp, where, keys);
}

int cfg_parse_rate_ceil(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			uint64_t ceil_default, uint64_t *rate, uint64_t *ceil)
{
	int ret = cfg_get_rate(p, grp, "rate", where, GW_MIN_RATE, GW_MAX_RATE, rate);

	if (ret <= 0)
		return ret ? ret : cfg_missing(p, grp, where, "rate");
	*ceil = ceil_default ? ceil_default : *rate;
	ret = cfg_get_rate(p, grp, "ceil", where, GW_MIN_RATE, GW_MAX_RATE, ceil);
	return ret < 0 ? ret : 0;
}

int cfg_get_group(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		  const char *where, config_setting_t **out)
{
	return member_of_type(p, grp, key, where, CONFIG_TYPE_GROUP, "a group { ... }", out);
}

int cfg_count(struct cfg_parser *p, const config_setting_t *s, const char *where, const char *key,
	      int max, const char *noun)
{
	int n = config_setting_length(s);

	if (n < 1 || n > max)
		return cfg_error(p, s, where, "'%s' must have 1..%d %s, not %d", key, max, noun, n);
	return n;
}

int cfg_get_group_list(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		       const char *where, config_setting_t **out)
{
	config_setting_t *s = NULL;
	char what[CFG_WHERE_MAX];
	int i, n, ret;

	snprintf(what, sizeof(what), "a list of groups, %s = ( { ... }, { ... } )", key);
	ret = member_of_type(p, grp, key, where, CONFIG_TYPE_LIST, what, &s);
	if (ret <= 0)
		return ret;
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);

		if (config_setting_type(e) != CONFIG_TYPE_GROUP)
			return cfg_error(p, e, where, "'%s' element %d must be a group { ... }, "
					 "not %s", key, i + 1, type_name(e));
	}
	*out = s;
	return 1;
}
