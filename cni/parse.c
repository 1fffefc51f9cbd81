/* cni/parse.c: the network config a runtime writes on the plugin's stdin (JSON, with
 * prevResult and runtimeConfig) into struct gw_cni_conf: versions, rates and bursts in range,
 * the queue through config/'s own child parser, unknown fields refused. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cni/cni.h"
#include "config/config.h"
#include "tree/ctr_registration.h"
#include "qdisc/qdisc.h"

const char *const gw_cni_versions[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", NULL };

static int version_index(const char *v)
{
	for (int i = 0; gw_cni_versions[i]; i++)
		if (!strcmp(v, gw_cni_versions[i]))
			return i;
	return -1;
}

bool gw_cni_version_supported(const char *v)
{
	return version_index(v) >= 0;
}

int gw_cni_version_cmp(const char *a, const char *b)
{
	return version_index(a) - version_index(b);
}

/* the names and the mark are the registration's (tree/ctr_registration.c): the daemon finds
 * them again the same way */
void gw_cni_ifb_name(const char *network, const char *id, const char *ifname, char *buf,
		     size_t len)
{
	gw_ctr_reg_ifb_name(network, id, ifname, buf, len);
}

void gw_cni_ifb_mark(const char *network, const char *id, const char *ifname, char *buf,
		     size_t len)
{
	gw_ctr_reg_ifb_mark(network, id, ifname, buf, len);
}

bool gw_cni_shapes(const struct gw_cni_conf *c)
{
	return c->ingress.rate || c->egress.rate;
}

void gw_cni_conf_free(struct gw_cni_conf *c)
{
	if (c->root)
		json_object_put(c->root);
	c->root = c->prev = NULL;
}

/* A value for a message: its JSON, cut short. */
static const char *show(struct json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int unsupported(struct gw_cni_error *e, const char *where, const char *key,
		       struct json_object *v)
{
	return gw_cni_fail(e, GW_CNI_E_FIELD, "unsupported field in the network configuration",
			   "%s%s\"%.64s\": %.200s", where, where[0] ? "." : "", key, show(v));
}

static int check_keys(struct json_object *o, const char *where, const char *const *keys,
		      struct gw_cni_error *e)
{
	json_object_object_foreach(o, key, v) {
		size_t i;

		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i])
			return unsupported(e, where, key, v);
	}
	return 0;
}

/* A non-negative integer, as the reference plugin's uint64 fields take it. 1 present (0 is
 * present too), 0 absent, -EINVAL. */
static int get_u64(struct json_object *o, const char *where, const char *key, uint64_t *out,
		   struct gw_cni_error *e)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_get_type(v) == json_type_null)
		return 0;
	if (json_object_get_type(v) != json_type_int)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s.%s must be a whole number, not %.64s", where, key, show(v));
	if (json_object_get_int64(v) < 0)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s.%s must not be negative (%.64s)", where, key, show(v));
	*out = json_object_get_uint64(v);
	return 1;
}

/* One direction of one source (the runtime's bandwidth, or the network's defaults): rate in
 * bits/s and burst in bits into bytes. *given (may be NULL): the source sets this direction. */
static int get_limit(struct json_object *o, const char *where, const char *dir,
		     struct gw_cni_limit *out, bool *given, struct gw_cni_error *e)
{
	char rkey[32], bkey[32];
	uint64_t rate = 0, burst = 0;
	int r;

	snprintf(rkey, sizeof(rkey), "%sRate", dir);
	snprintf(bkey, sizeof(bkey), "%sBurst", dir);
	if ((r = get_u64(o, where, rkey, &rate, e)) < 0 || (r = get_u64(o, where, bkey, &burst, e)) < 0)
		return r;
	if (given)
		*given = false;
	/* 0 is "no limit" in the reference plugin, and what runtimes send for an absent one */
	if (!rate && !burst)
		return 0;
	if (!rate)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s.%s is set, so %s must be too", where, bkey, rkey);
	out->rate = rate / 8;
	out->burst = GW_UNSET;
	if (given)
		*given = true;
	/* the runtimes' "no burst" markers (up to 4 GB): derived */
	if (burst && burst < GW_CNI_BURST_ANY)
		out->burst = (int64_t)(burst / 8);
	/* in bytes, the bounds the daemon holds a registration to (tree/ctr_registration.c) */
	switch (gw_ctr_limit_check(out->rate, out->burst)) {
	case GW_CTR_LIMIT_OK:
		if (burst < GW_CNI_BURST_TOO_BIG)
			return 0;
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "burst out of range",
				   "%s.%s %" PRIu64 " bits: a burst cannot be 4 GB or more", where,
				   bkey, burst);
	case GW_CTR_LIMIT_RATE:
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "rate out of range",
				   "%s.%s %" PRIu64 " is out of range %llu..%llu bits/s", where,
				   rkey, rate, GW_MIN_RATE * 8, GW_MAX_RATE * 8);
	case GW_CTR_LIMIT_BURST_SMALL:
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "burst out of range",
				   "%s.%s %" PRIu64 " bits is less than one full-size packet "
				   "(%llu bits)", where, bkey, burst, GW_CNI_BURST_MIN);
	case GW_CTR_LIMIT_BURST_LONG:
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "burst out of range",
				   "%s.%s %" PRIu64 " bits lasts more than 274 s at %s %" PRIu64
				   " bits/s, longer than htb can hold", where, bkey, burst, rkey,
				   rate);
	case GW_CTR_LIMIT_BURST_BIG:		/* under GW_CNI_BURST_ANY bits: never */
	case GW_CTR_LIMIT_BURST_NO_RATE:	/* the rate is there: never */
		break;
	}
	return gw_cni_fail(e, GW_CNI_E_CONFIG, "burst out of range", "%s.%s %" PRIu64 " bits",
			   where, bkey, burst);
}

/* The plugin's bits and the registration's bytes name the same bounds. */
_Static_assert(GW_CNI_BURST_MIN / 8 == GW_CTR_BURST_MIN, "one packet of burst");
_Static_assert((GW_CNI_BURST_ANY - 1) / 8 == GW_CTR_BURST_MAX, "the largest burst given");

/* One of unshapedSubnets and shapedSubnets in o (1 given, 0 absent, null or empty), into
 * c's list; the reference plugin's net.ParseCIDR takes an address with its length and masks
 * off the host bits, so does this. */
static int get_subnets(struct json_object *o, const char *where, const char *key,
		       struct gw_cni_conf *c, struct gw_cni_error *e)
{
	struct json_object *v;
	size_t n;

	if (!json_object_object_get_ex(o, key, &v) || json_object_get_type(v) == json_type_null)
		return 0;
	if (json_object_get_type(v) != json_type_array)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s%s%s must be a list of subnets, not %.64s", where,
				   where[0] ? "." : "", key, show(v));
	n = json_object_array_length(v);
	if (!n)
		return 0;
	if (n > GW_CTR_SUBNETS_MAX)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s%s%s has %zu subnets, more than %d", where, where[0] ? "." : "",
				   key, n, GW_CTR_SUBNETS_MAX);
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(v, i);
		struct gw_prefix *p = &c->subnets[i];
		const char *s = json_object_get_type(x) == json_type_string ?
				json_object_get_string(x) : NULL;
		int r = s && strchr(s, '/') && json_object_get_string_len(x) < 64 ?
			gw_parse_prefix(s, p) : -EINVAL;
		int bits = p->family == AF_INET ? 32 : 128;

		if (r && r != -ERANGE)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "%s%s%s: bad subnet %.64s: not an IPv4 or IPv6 address "
					   "with a prefix length (\"10.1.0.0/16\", \"fd00::/64\")",
					   where, where[0] ? "." : "", key, show(x));
		for (int b = p->len; b < bits; b++)
			p->addr[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	}
	c->n_subnets = n;
	c->subnets_shaped = !strcmp(key, "shapedSubnets");
	return 1;
}

/* Both lists of one source (the network config, or runtimeConfig.bandwidth): at most one of
 * them may hold subnets. 1 when one does (it replaces what c had), 0 when neither. */
static int parse_subnets(struct json_object *o, const char *where, struct gw_cni_conf *c,
			 struct gw_cni_error *e)
{
	int u, sh;

	if ((u = get_subnets(o, where, "unshapedSubnets", c, e)) < 0)
		return u;
	if ((sh = get_subnets(o, where, "shapedSubnets", c, e)) < 0)
		return sh;
	if (u && sh)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "%s%sunshapedSubnets and shapedSubnets cannot both be given: the "
				   "first leaves the listed subnets unshaped, the second shapes "
				   "only them", where, where[0] ? "." : "");
	return u || sh;
}

static const char *const bw_keys[] = { "ingressRate", "ingressBurst", "egressRate",
				       "egressBurst", "unshapedSubnets", "shapedSubnets", NULL };

/* runtimeConfig.bandwidth over the network's defaults, direction by direction. */
static int parse_limits(struct json_object *root, struct gw_cni_conf *c, struct gw_cni_error *e)
{
	struct json_object *rc, *bw = NULL;
	struct gw_cni_limit rt_in = { 0, GW_UNSET }, rt_out = { 0, GW_UNSET };
	bool r_in = false, r_out = false;
	int r;

	if ((r = get_limit(root, "config", "ingress", &c->ingress, NULL, e)) ||
	    (r = get_limit(root, "config", "egress", &c->egress, NULL, e)) ||
	    (r = parse_subnets(root, "", c, e)) < 0)
		return r;
	if (!json_object_object_get_ex(root, "runtimeConfig", &rc) ||
	    json_object_get_type(rc) == json_type_null)
		return 0;
	if (json_object_get_type(rc) != json_type_object)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "runtimeConfig is not an object", NULL);
	/* other capabilities' keys are for other plugins of the chain */
	if (!json_object_object_get_ex(rc, "bandwidth", &bw) ||
	    json_object_get_type(bw) == json_type_null)
		return 0;
	if (json_object_get_type(bw) != json_type_object)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "runtimeConfig.bandwidth is not an object",
				   NULL);
	if ((r = check_keys(bw, "runtimeConfig.bandwidth", bw_keys, e)))
		return r;
	/* the runtime's subnets, when it gives any, replace the network's */
	if ((r = parse_subnets(bw, "runtimeConfig.bandwidth", c, e)) < 0)
		return r;
	if ((r = get_limit(bw, "runtimeConfig.bandwidth", "ingress", &rt_in, &r_in, e)) ||
	    (r = get_limit(bw, "runtimeConfig.bandwidth", "egress", &rt_out, &r_out, e)))
		return r;
	if (r_in)
		c->ingress = rt_in;
	if (r_out)
		c->egress = rt_out;
	return 0;
}

/* "queue": { "kind": "fq_codel", "target": "5ms", ... } as libconfig text for config/. */
static int queue_text(struct json_object *q, char *buf, size_t len, struct gw_cni_error *e)
{
	size_t pos, n = 0;

	pos = (size_t)snprintf(buf, len, "child = {");
	json_object_object_foreach(q, key, v) {
		const char *s;
		int w;

		if (++n > GW_CNI_QUEUE_KEYS)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "queue has more than %d keys", GW_CNI_QUEUE_KEYS);
		if (!key[0] || strlen(key) > 32)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "queue: a key must be 1..32 characters");
		for (s = key; *s; s++)
			if (!(islower((unsigned char)*s) || *s == '_' ||
			      (s > key && isdigit((unsigned char)*s))))
				return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
						   "queue: \"%.32s\" is not a queue setting", key);
		switch (json_object_get_type(v)) {
		case json_type_boolean:
			w = snprintf(buf + pos, len - pos, " %s = %s;", key,
				     json_object_get_boolean(v) ? "true" : "false");
			break;
		case json_type_int:
			w = snprintf(buf + pos, len - pos, " %s = %" PRId64 "L;", key,
				     json_object_get_int64(v));
			break;
		case json_type_string:
			s = json_object_get_string(v);
			if (json_object_get_string_len(v) > 64)
				return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
						   "queue.%s is longer than 64 characters", key);
			/* the words and units the queue keys take: nothing to escape */
			for (const char *ch = s; *ch; ch++)
				if (!isalnum((unsigned char)*ch) && !strchr("._-+", *ch))
					return gw_cni_fail(e, GW_CNI_E_CONFIG,
							   "invalid network config",
							   "queue.%s \"%.64s\": only letters, digits "
							   "and . _ - + may be in a value", key, s);
			w = snprintf(buf + pos, len - pos, " %s = \"%s\";", key, s);
			break;
		default:
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "queue.%s must be a string, a whole number or true/false, "
					   "not %.64s", key, show(v));
		}
		if (w < 0 || (size_t)w >= len - pos)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "queue is too long");
		pos += (size_t)w;
	}
	if (pos + 4 > len)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config", "queue is too long");
	snprintf(buf + pos, len - pos, " };");
	return 0;
}

static int parse_queue(struct json_object *root, struct gw_cni_conf *c, struct gw_cni_error *e)
{
	char text[GW_CNI_QUEUE_TEXT], err[512] = "";
	struct json_object *q;
	int r;

	memset(&c->queue, 0, sizeof(c->queue));
	if (!json_object_object_get_ex(root, "queue", &q) ||
	    json_object_get_type(q) == json_type_null) {
		/* the AQM behind every limit, as a container entry of the daemon's config gets */
		c->queue.kind = GW_KIND_FQ_CODEL;
		gw_qopts_init(GW_KIND_FQ_CODEL, &c->queue.opts);
		return 0;
	}
	if (json_object_get_type(q) != json_type_object)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "queue must be an object, e.g. {\"kind\": \"fq_codel\"}");
	if ((r = queue_text(q, text, sizeof(text), e)))
		return r;
	if (gw_child_parse_text(text, "queue", GW_KIND_HTB, &c->queue, err, sizeof(err)))
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config", "%s", err);
	/* the daemon is told the queue in the same words (tree/ctr_registration.c) */
	snprintf(c->queue_text, sizeof(c->queue_text), "%s", text);
	return 0;
}

/* "controlSocket": where the daemon listens (its directory holds the state files); "" for no
 * daemon to tell. An absolute path of printable characters that a sockaddr_un holds. */
static int parse_socket(struct json_object *root, struct gw_cni_conf *c, struct gw_cni_error *e)
{
	struct json_object *v;
	const char *s;

	snprintf(c->control_socket, sizeof(c->control_socket), "%s", GW_CNI_CONTROL_SOCKET);
	if (!json_object_object_get_ex(root, "controlSocket", &v) ||
	    json_object_get_type(v) == json_type_null)
		return 0;
	if (json_object_get_type(v) != json_type_string)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "failed to decode the network config",
				   "\"controlSocket\" must be a string, not %.64s", show(v));
	s = json_object_get_string(v);
	if (!s[0]) {
		c->control_socket[0] = '\0';
		return 0;
	}
	if (s[0] != '/' || strlen(s) >= sizeof(c->control_socket) || strstr(s, "/../") ||
	    strchr(s, '\n'))
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "controlSocket must be \"\" or an absolute path of at most %zu "
				   "characters", sizeof(c->control_socket) - 1);
	for (const char *ch = s; *ch; ch++)
		if ((unsigned char)*ch < 0x20 || (unsigned char)*ch >= 0x7f)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "controlSocket: only printable characters");
	snprintf(c->control_socket, sizeof(c->control_socket), "%s", s);
	return 0;
}

/* prevResult: what the runtime passes on from the plugin before; its host interfaces (those
 * without a sandbox) are where the container's host end must be. */
static int parse_prev(struct json_object *root, enum gw_cni_cmd cmd, struct gw_cni_conf *c,
		      struct gw_cni_error *e)
{
	struct json_object *p, *ifs;
	size_t n;

	if (!json_object_object_get_ex(root, "prevResult", &p) ||
	    json_object_get_type(p) == json_type_null) {
		if (cmd == GW_CNI_ADD || cmd == GW_CNI_CHECK)
			return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
					   "no prevResult: gatewayd-cni is chained after the plugin "
					   "that makes the container's interface");
		return 0;
	}
	if (json_object_get_type(p) != json_type_object)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "prevResult is not an object", NULL);
	c->prev = p;
	if (!json_object_object_get_ex(p, "interfaces", &ifs) ||
	    json_object_get_type(ifs) == json_type_null)
		return 0;
	if (json_object_get_type(ifs) != json_type_array)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "prevResult.interfaces is not an array",
				   NULL);
	n = json_object_array_length(ifs);
	if (n > GW_CNI_HOST_IFACES)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "prevResult has %zu interfaces, more than %d", n,
				   GW_CNI_HOST_IFACES);
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(ifs, i), *name, *sb;
		const char *s;

		if (json_object_get_type(f) != json_type_object ||
		    !json_object_object_get_ex(f, "name", &name) ||
		    json_object_get_type(name) != json_type_string)
			return gw_cni_fail(e, GW_CNI_E_DECODE, "prevResult.interfaces: an entry "
					   "without a name", "%.200s", show(f));
		if (json_object_object_get_ex(f, "sandbox", &sb) &&
		    json_object_get_type(sb) == json_type_string && json_object_get_string_len(sb))
			continue;
		s = json_object_get_string(name);
		if (!gw_ctr_reg_valid_ifname(s))
			continue;	/* not an interface of ours to shape, whatever it is */
		snprintf(c->host_ifaces[c->n_host_ifaces++], IFNAMSIZ, "%s", s);
	}
	return 0;
}

static const char *const top_keys[] = {
	"cniVersion", "name", "type", "capabilities", "args", "runtimeConfig", "prevResult",
	"ingressRate", "ingressBurst", "egressRate", "egressBurst", "unshapedSubnets",
	"shapedSubnets", "queue", "controlSocket", NULL
};

static int get_string(struct json_object *root, const char *key, struct json_object **v,
		      struct gw_cni_error *e)
{
	if (!json_object_object_get_ex(root, key, v) || json_object_get_type(*v) == json_type_null)
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "\"%s\" is required", key);
	if (json_object_get_type(*v) != json_type_string)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "failed to decode the network config",
				   "\"%s\" must be a string, not %.64s", key, show(*v));
	return 0;
}

static int parse_root(struct json_object *root, enum gw_cni_cmd cmd, struct gw_cni_conf *c,
		      struct gw_cni_error *e)
{
	struct json_object *v;
	const char *s;
	int r;

	if (json_object_get_type(root) != json_type_object)
		return gw_cni_fail(e, GW_CNI_E_DECODE, "failed to decode the network config",
				   "it is not a JSON object");
	if ((r = get_string(root, "cniVersion", &v, e)))
		return r;
	s = json_object_get_string(v);
	if (!gw_cni_version_supported(s))
		return gw_cni_fail(e, GW_CNI_E_VERSION, "incompatible CNI versions",
				   "config is \"%.32s\", plugin supports [\"0.3.0\" \"0.3.1\" "
				   "\"0.4.0\" \"1.0.0\"]", s);
	snprintf(c->version, sizeof(c->version), "%s", s);
	if (cmd == GW_CNI_VERSION)
		return 0;
	if (cmd == GW_CNI_CHECK && gw_cni_version_cmp(c->version, "0.4.0") < 0)
		return gw_cni_fail(e, GW_CNI_E_VERSION, "config version does not allow CHECK",
				   "CHECK came with cniVersion %s; it is in the spec from 0.4.0 on",
				   c->version);
	if ((r = check_keys(root, "", top_keys, e)))
		return r;
	if ((r = get_string(root, "name", &v, e)))
		return r;
	s = json_object_get_string(v);
	if (!gw_ctr_reg_valid_id(s, GW_CNI_NAME_MAX))
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config",
				   "name \"%.64s\" must be 1..%d characters, an alphanumeric one "
				   "then alphanumerics, '_', '.' or '-'", s, GW_CNI_NAME_MAX);
	snprintf(c->name, sizeof(c->name), "%s", s);
	if ((r = parse_limits(root, c, e)) || (r = parse_queue(root, c, e)) ||
	    (r = parse_socket(root, c, e)))
		return r;
	return parse_prev(root, cmd, c, e);
}

int gw_cni_conf_parse(const char *text, size_t len, enum gw_cni_cmd cmd,
		      struct gw_cni_conf *out, struct gw_cni_error *e)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error je;
	size_t used;
	int r;

	memset(out, 0, sizeof(*out));
	out->ingress.burst = out->egress.burst = GW_UNSET;
	if (len > GW_CNI_STDIN_MAX)
		return gw_cni_fail(e, GW_CNI_E_IO, "the network config is too long",
				   "%zu bytes, more than %d", len, GW_CNI_STDIN_MAX);
	if (memchr(text, '\0', len))
		return gw_cni_fail(e, GW_CNI_E_DECODE, "failed to decode the network config",
				   "it holds a NUL byte");
	if (!(tok = json_tokener_new_ex(GW_CNI_JSON_DEPTH)))
		return gw_cni_fail(e, GW_CNI_E_IO, "out of memory", NULL);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* a whole document: one value, then only white space */
	while (root && used < len && isspace((unsigned char)text[used]))
		used++;
	if (!root || je != json_tokener_success || used != len) {
		if (root)
			json_object_put(root);
		return gw_cni_fail(e, GW_CNI_E_DECODE, "failed to decode the network config",
				   "not one JSON document: %s at byte %zu",
				   je == json_tokener_continue ? "it ends early" :
				   je != json_tokener_success ? json_tokener_error_desc(je) :
				   "text after it", used);
	}
	out->root = root;
	if ((r = parse_root(root, cmd, out, e)))
		gw_cni_conf_free(out);
	return r;
}
