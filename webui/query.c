/* webui/query.c: /api/history's query string, checked key by key before anything is looked up. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webui/render.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define CTR_PREFIX "ctr:"	/* a container's link: "ctr:" and its interface's name */
#define IFNAME_MAX 15
#define MINUTE_SPAN 86400.0	/* resolution=minute defaults to the last 24 hours */
#define TIME_MAX 1e11		/* unix seconds; the year 5138 */

static const char *const keys[] = { "link", "direction", "class", "from", "to", "resolution" };
enum { K_LINK, K_DIRECTION, K_CLASS, K_FROM, K_TO, K_RESOLUTION, K_N };

/* The config's names: [A-Za-z0-9_-], 1..31 characters. */
static int copy_name(const char *key, const char *v, char *out, size_t outlen, char *err,
		     size_t errlen)
{
	size_t n = strlen(v);

	if (n >= outlen || strspn(v, NAME_CHARS) != n) {
		snprintf(err, errlen, "'%s' must be a name of 1..%zu letters, digits, '_' or '-'",
			 key, outlen - 1);
		return -EINVAL;
	}
	memcpy(out, v, n + 1);
	return 0;
}

/* 'link': a config's name, or a container's "ctr:IFNAME" (an interface name is 1..15
 * printable characters other than '/' and ':'). */
static int copy_link(const char *v, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t p = strlen(CTR_PREFIX), n = strlen(v);
	bool ok = n > p && n - p <= IFNAME_MAX && n < outlen;

	if (strncmp(v, CTR_PREFIX, p))
		return copy_name("link", v, out, outlen, err, errlen);
	for (size_t i = p; ok && i < n; i++)
		ok = v[i] > ' ' && v[i] <= '~' && v[i] != '/' && v[i] != ':';
	if (!ok) {
		snprintf(err, errlen, "'link' \"ctr:\" must be followed by an interface name "
			 "(1..%d printable characters, no '/' or ':')", IFNAME_MAX);
		return -EINVAL;
	}
	memcpy(out, v, n + 1);
	return 0;
}

/* Plain decimal unix seconds: no sign, exponent, hex, inf or nan. */
static int parse_time(const char *key, const char *v, double *out, char *err, size_t errlen)
{
	size_t n = strlen(v);
	const char *dot = strchr(v, '.');
	char *end;
	double t;

	if (strspn(v, "0123456789.") != n || (dot && strchr(dot + 1, '.')) || v[0] == '.')
		goto bad;
	errno = 0;
	t = strtod(v, &end);
	if (errno || *end || !isfinite(t) || t > TIME_MAX)
		goto bad;
	*out = t;
	return 0;
bad:
	snprintf(err, errlen, "'%s' must be unix seconds, e.g. 1700000000 or 1700000000.5", key);
	return -EINVAL;
}

static int key_index(const char *k)
{
	for (int i = 0; i < K_N; i++)
		if (!strcmp(k, keys[i]))
			return i;
	return -1;
}

/* Each key known, given once, with a bounded value; vals[] indexed by key. */
static int collect(const struct gw_query_arg *args, size_t n, const char **vals, char *err,
		   size_t errlen)
{
	if (n > GW_QUERY_MAX_ARGS) {
		snprintf(err, errlen, "too many query parameters: at most %d", GW_QUERY_MAX_ARGS);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		int k = key_index(args[i].key ? args[i].key : "");

		if (k < 0) {
			snprintf(err, errlen, "unknown query parameter '%.32s': expected link, "
				 "direction, class, from, to or resolution", args[i].key);
			return -EINVAL;
		}
		if (vals[k]) {
			snprintf(err, errlen, "'%s' given more than once", keys[k]);
			return -EINVAL;
		}
		if (!args[i].value || !args[i].value[0] ||
		    strlen(args[i].value) > GW_QUERY_VALUE_MAX) {
			snprintf(err, errlen, "'%s' needs a value of 1..%d characters", keys[k],
				 GW_QUERY_VALUE_MAX);
			return -EINVAL;
		}
		vals[k] = args[i].value;
	}
	return 0;
}

static int check_enums(const char **vals, struct gw_history_query *q, char *err, size_t errlen)
{
	if (!vals[K_DIRECTION] || (strcmp(vals[K_DIRECTION], "egress") &&
				   strcmp(vals[K_DIRECTION], "ingress"))) {
		snprintf(err, errlen, "'direction' must be egress or ingress");
		return -EINVAL;
	}
	snprintf(q->direction, sizeof(q->direction), "%s", vals[K_DIRECTION]);
	if (vals[K_RESOLUTION] && strcmp(vals[K_RESOLUTION], "raw") &&
	    strcmp(vals[K_RESOLUTION], "minute")) {
		snprintf(err, errlen, "'resolution' must be raw or minute");
		return -EINVAL;
	}
	q->minute = vals[K_RESOLUTION] && !strcmp(vals[K_RESOLUTION], "minute");
	return 0;
}

int gw_webui_history_query(const struct gw_query_arg *args, size_t n, double now,
			   struct gw_history_query *q, char *err, size_t errlen)
{
	const char *vals[K_N] = { NULL };
	int r;

	memset(q, 0, sizeof(*q));
	if ((r = collect(args, n, vals, err, errlen)))
		return r;
	if (!vals[K_LINK]) {
		snprintf(err, errlen, "'link' is required");
		return -EINVAL;
	}
	if ((r = copy_link(vals[K_LINK], q->link, sizeof(q->link), err, errlen)) ||
	    (r = copy_name("class", vals[K_CLASS] ? vals[K_CLASS] : "total", q->class_name,
			   sizeof(q->class_name), err, errlen)) ||
	    (r = check_enums(vals, q, err, errlen)))
		return r;
	q->to = now;
	if (vals[K_TO] && (r = parse_time("to", vals[K_TO], &q->to, err, errlen)))
		return r;
	q->from = q->to - (q->minute ? MINUTE_SPAN : GW_HIST_RAW_SPAN);
	if (q->from < 0)
		q->from = 0;
	if (vals[K_FROM] && (r = parse_time("from", vals[K_FROM], &q->from, err, errlen)))
		return r;
	if (q->from > q->to) {
		snprintf(err, errlen, "'from' is after 'to'");
		return -EINVAL;
	}
	return 0;
}
