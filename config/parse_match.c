/* config/parse_match.c: a class's `match` (which packets go into it) and a direction's `hosts`
 * (one class per address of a subnet). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "config/parse.h"
#include "qdisc/qdisc.h"

static const char *const match_keys[] = {
	"src", "dst", "proto", "sport", "dport", "dscp", "iif", "oif", "mark", "cgroup", NULL
};
static const char *const hosts_keys[] = { "subnet", "rate", "ceil", "child", NULL };

/* Keys a packet on the ifb cannot be judged by, and why (gatewayd.conf(5), MATCH, Ingress). */
static const struct {
	const char *key;
	const char *why;
} ingress_refused[] = {
	{ "cgroup", "only local processes have a cgroup, and ingress traffic comes from the "
		    "network" },
	{ "oif", "the output interface is chosen by routing, after the ifb has shaped the packet" },
	{ "iif", "every packet there came in through this link's interface" },
	{ "mark", "marks are set by netfilter, which runs after the ifb" },
};

int gw_parse_prefix(const char *s, struct gw_prefix *out)
{
	char buf[64], *slash, *end;
	unsigned long len;
	int bits;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, out->addr) == 1) {
		out->family = AF_INET;
		bits = 32;
	} else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
		out->family = AF_INET6;
		bits = 128;
	} else {
		return -EINVAL;
	}
	len = (unsigned long)bits;
	if (slash) {
		if (!slash[1] || slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno || *end || len > (unsigned long)bits)
			return -EINVAL;
	}
	out->len = (uint8_t)len;
	/* host bits set: a typo more often than not; refuse rather than guess */
	for (int i = out->len; i < bits; i++)
		if (out->addr[i / 8] & (0x80 >> (i % 8)))
			return -ERANGE;
	return 0;
}

int gw_parse_dscp(const char *s, int *out)
{
	static const struct {
		const char *name;
		int v;
	} names[] = { { "be", 0 }, { "df", 0 }, { "ef", 46 }, { "va", 44 }, { "le", 1 } };
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].v;
			return 0;
		}
	/* csN: class selector N (0..7); afXY: assured forwarding class X (1..4), drop Y (1..3) */
	if (!strncmp(s, "cs", 2) && s[2] >= '0' && s[2] <= '7' && !s[3]) {
		*out = (s[2] - '0') << 3;
		return 0;
	}
	if (!strncmp(s, "af", 2) && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3' &&
	    !s[4]) {
		*out = ((s[2] - '0') << 3) | ((s[3] - '0') << 1);
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0 || v > 63)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* The elements of key: itself, or those of an array or list. */
static int elems(const config_setting_t *s, const config_setting_t **v, int *n)
{
	int t = config_setting_type(s);

	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
		v[0] = s;
		*n = 1;
		return 0;
	}
	*n = config_setting_length(s);
	if (*n < 1 || *n > GW_MATCH_LIST_MAX)
		return -ERANGE;
	for (int i = 0; i < *n; i++)
		v[i] = config_setting_get_elem(s, (unsigned int)i);
	return 0;
}

struct mctx {
	struct cfg_parser *p;
	const char *where;
	const config_setting_t *key;
	const char *name;
};

static int list_error(struct mctx *m)
{
	return cfg_error(m->p, m->key, m->where, "'%s' must have 1..%d values", m->name,
			 GW_MATCH_LIST_MAX);
}

static int parse_prefixes(struct mctx *m, struct gw_prefix *out, uint8_t *n)
{
	const config_setting_t *v[GW_MATCH_LIST_MAX];
	int k, r;

	if (elems(m->key, v, &k))
		return list_error(m);
	for (int i = 0; i < k; i++) {
		const char *s = config_setting_get_string(v[i]);

		if (!s)
			return cfg_error(m->p, v[i], m->where, "'%s' must be an address or prefix "
					 "string, e.g. \"10.0.0.0/8\" or \"fd00::/64\"", m->name);
		r = gw_parse_prefix(s, &out[i]);
		if (r == -ERANGE)
			return cfg_error(m->p, v[i], m->where, "'%s' \"%.50s\" has bits set past "
					 "its prefix length", m->name, s);
		if (r)
			return cfg_error(m->p, v[i], m->where, "'%s' \"%.50s\" is not an IPv4 or "
					 "IPv6 address or prefix", m->name, s);
	}
	*n = (uint8_t)k;
	return 0;
}

static int parse_port(const char *s, uint16_t *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 65535)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

static int parse_ports(struct mctx *m, struct gw_port_range *out, uint8_t *n)
{
	const config_setting_t *v[GW_MATCH_LIST_MAX];
	int k;

	if (elems(m->key, v, &k))
		return list_error(m);
	for (int i = 0; i < k; i++) {
		int t = config_setting_type(v[i]);
		char buf[32], *dash;
		const char *s;

		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			long long x = config_setting_get_int64(v[i]);

			if (x < 0 || x > 65535)
				return cfg_error(m->p, v[i], m->where, "'%s' %lld is not a port "
						 "(0..65535)", m->name, x);
			out[i].lo = out[i].hi = (uint16_t)x;
			continue;
		}
		s = config_setting_get_string(v[i]);
		if (!s || strlen(s) >= sizeof(buf))
			goto bad;
		snprintf(buf, sizeof(buf), "%s", s);
		dash = strchr(buf, '-');
		if (dash)
			*dash = '\0';
		if (parse_port(buf, &out[i].lo) ||
		    parse_port(dash ? dash + 1 : buf, &out[i].hi))
			goto bad;
		if (out[i].lo > out[i].hi)
			return cfg_error(m->p, v[i], m->where, "'%s' \"%s\": the range is "
					 "backwards", m->name, s);
		continue;
bad:
		return cfg_error(m->p, v[i], m->where, "'%s' must be a port, a range \"a-b\" or a "
				 "list of them, with ports 0..65535", m->name);
	}
	*n = (uint8_t)k;
	return 0;
}

static int parse_dscps(struct mctx *m, uint8_t *out, uint8_t *n)
{
	const config_setting_t *v[GW_MATCH_LIST_MAX];
	int k, d;

	if (elems(m->key, v, &k))
		return list_error(m);
	for (int i = 0; i < k; i++) {
		int t = config_setting_type(v[i]);
		const char *s = config_setting_get_string(v[i]);

		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			long long x = config_setting_get_int64(v[i]);

			if (x < 0 || x > 63)
				return cfg_error(m->p, v[i], m->where, "'dscp' %lld is out of range "
						 "0..63", x);
			d = (int)x;
		} else if (!s || gw_parse_dscp(s, &d)) {
			return cfg_error(m->p, v[i], m->where, "'dscp' %s%.20s%s is not a DSCP: "
					 "use a number 0..63 or a name (ef, va, le, be, cs0..cs7, "
					 "af11..af43)", s ? "\"" : "", s ? s : "value", s ? "\"" : "");
		}
		out[i] = (uint8_t)d;
	}
	*n = (uint8_t)k;
	return 0;
}

static int parse_ifnames(struct mctx *m, char (*out)[IFNAMSIZ], uint8_t *n)
{
	const config_setting_t *v[GW_MATCH_LIST_MAX];
	int k;

	if (elems(m->key, v, &k))
		return list_error(m);
	for (int i = 0; i < k; i++) {
		const char *s = config_setting_get_string(v[i]);

		if (!s || !cfg_valid_ifname(s))
			return cfg_error(m->p, v[i], m->where, "'%s' must be an interface name "
					 "(1..15 characters, no '/', ':' or spaces) or a list of them",
					 m->name);
		snprintf(out[i], IFNAMSIZ, "%s", s);
	}
	*n = (uint8_t)k;
	return 0;
}

static int parse_proto(struct mctx *m, int *out)
{
	static const struct {
		const char *name;
		int v;
	} names[] = { { "tcp", 6 }, { "udp", 17 }, { "icmp", 1 }, { "icmpv6", 58 },
		      { "sctp", 132 }, { "udplite", 136 }, { "dccp", 33 } };
	int t = config_setting_type(m->key);
	const char *s = config_setting_get_string(m->key);

	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
		long long x = config_setting_get_int64(m->key);

		if (x < 0 || x > 255)
			return cfg_error(m->p, m->key, m->where, "'proto' %lld is out of range 0..255",
					 x);
		*out = (int)x;
		return 0;
	}
	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].v;
			return 0;
		}
	return cfg_error(m->p, m->key, m->where, "'proto' must be \"tcp\", \"udp\", \"icmp\", "
			 "\"icmpv6\", \"sctp\", \"udplite\", \"dccp\" or a number 0..255");
}

/* mark = 16; or mark = "0x10/0xff"; */
static int parse_mark(struct mctx *m, struct gw_match *g)
{
	int t = config_setting_type(m->key);
	const char *s = config_setting_get_string(m->key);
	unsigned long long v, mask = 0xffffffffULL;
	char *end;

	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
		long long x = config_setting_get_int64(m->key);

		if (x < 0 || x > 0xffffffffLL)
			goto bad;
		v = (unsigned long long)x;
	} else {
		if (!s || *s < '0' || *s > '9')
			goto bad;
		errno = 0;
		v = strtoull(s, &end, 0);
		if (errno || (*end && *end != '/'))
			goto bad;
		if (*end == '/') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			mask = strtoull(end + 1, &end, 0);
			if (errno || *end || mask > 0xffffffffULL || mask == 0)
				goto bad;
		}
		if (v > 0xffffffffULL)
			goto bad;
	}
	if (v & ~mask)
		return cfg_error(m->p, m->key, m->where, "'mark' value 0x%llx has bits outside "
				 "its mask 0x%llx", v, mask);
	g->has_mark = true;
	g->mark = (uint32_t)v;
	g->mark_mask = (uint32_t)mask;
	return 0;
bad:
	return cfg_error(m->p, m->key, m->where, "'mark' must be an integer 0..0xffffffff or a "
			 "string \"VALUE/MASK\", e.g. \"0x10/0xf0\"");
}

/* A path below the cgroup v2 root, as systemd names them: "system.slice/nginx.service". */
static int parse_cgroup(struct mctx *m, struct gw_match *g)
{
	const char *s = config_setting_get_string(m->key);

	if (!s)
		return cfg_error(m->p, m->key, m->where, "'cgroup' must be a string, a path below "
				 "the cgroup v2 root, e.g. \"system.slice/nginx.service\"");
	while (*s == '/')
		s++;
	if (!*s || strlen(s) >= GW_CGROUP_PATH_MAX || strstr(s, "..") ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@:/\\") !=
	    strlen(s))
		return cfg_error(m->p, m->key, m->where, "'cgroup' \"%.60s\" is not a cgroup path "
				 "(below the cgroup v2 root, no \"..\", at most %d characters)", s,
				 GW_CGROUP_PATH_MAX - 1);
	snprintf(g->cgroup, sizeof(g->cgroup), "%s", s);
	/* "a/b/" names the same cgroup as "a/b" */
	for (size_t n = strlen(g->cgroup); n && g->cgroup[n - 1] == '/'; n--)
		g->cgroup[n - 1] = '\0';
	return 0;
}

static bool has_family(const struct gw_prefix *v, int n, int family)
{
	for (int i = 0; i < n; i++)
		if (v[i].family == family)
			return true;
	return false;
}

/* What the keys say together: ports need a protocol that has them, ICMP its own family. */
static int check_group(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       const struct gw_match *g)
{
	bool v4 = true, v6 = true;
	unsigned long rules = 1;

	if (g->n_src) {
		v4 = has_family(g->src, g->n_src, AF_INET);
		v6 = has_family(g->src, g->n_src, AF_INET6);
	}
	if (g->n_dst) {
		v4 = v4 && has_family(g->dst, g->n_dst, AF_INET);
		v6 = v6 && has_family(g->dst, g->n_dst, AF_INET6);
	}
	if (!v4 && !v6)
		return cfg_error(p, config_setting_get_member(grp, "dst"), where, "'src' and 'dst' "
				 "have no address family in common: no packet can match");
	if ((g->n_sport || g->n_dport) && g->proto != 6 && g->proto != 17 && g->proto != 132 &&
	    g->proto != 136 && g->proto != 33)
		return cfg_error(p, config_setting_get_member(grp, g->n_sport ? "sport" : "dport"),
				 where, "'%s' needs 'proto' = \"tcp\" or \"udp\" (or sctp, udplite, "
				 "dccp): ports mean nothing without it", g->n_sport ? "sport" : "dport");
	if (g->proto == 1 && !v4)
		return cfg_error(p, config_setting_get_member(grp, "proto"), where, "'proto' "
				 "\"icmp\" is IPv4's; with IPv6 addresses use \"icmpv6\"");
	if (g->proto == 58 && !v6)
		return cfg_error(p, config_setting_get_member(grp, "proto"), where, "'proto' "
				 "\"icmpv6\" is IPv6's; with IPv4 addresses use \"icmp\"");
	rules *= g->n_src ? g->n_src : 1;
	rules *= g->n_dst ? g->n_dst : 1;
	rules *= g->n_sport ? g->n_sport : 1;
	rules *= g->n_dport ? g->n_dport : 1;
	rules *= g->n_dscp ? g->n_dscp : 1;
	rules *= g->n_iif ? g->n_iif : 1;
	rules *= g->n_oif ? g->n_oif : 1;
	if (rules > GW_MATCH_RULES_MAX)
		return cfg_error(p, grp, where, "this match group expands into %lu rules (the "
				 "product of its lists' lengths), more than %d: split it into "
				 "several groups", rules, GW_MATCH_RULES_MAX);
	return 0;
}

static int parse_key(struct mctx *m, struct gw_match *g)
{
	const char *k = m->name;

	if (!strcmp(k, "src"))
		return parse_prefixes(m, g->src, &g->n_src);
	if (!strcmp(k, "dst"))
		return parse_prefixes(m, g->dst, &g->n_dst);
	if (!strcmp(k, "sport"))
		return parse_ports(m, g->sport, &g->n_sport);
	if (!strcmp(k, "dport"))
		return parse_ports(m, g->dport, &g->n_dport);
	if (!strcmp(k, "dscp"))
		return parse_dscps(m, g->dscp, &g->n_dscp);
	if (!strcmp(k, "iif"))
		return parse_ifnames(m, g->iif, &g->n_iif);
	if (!strcmp(k, "oif"))
		return parse_ifnames(m, g->oif, &g->n_oif);
	if (!strcmp(k, "proto"))
		return parse_proto(m, &g->proto);
	if (!strcmp(k, "mark"))
		return parse_mark(m, g);
	return parse_cgroup(m, g);
}

static int parse_group(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       enum gw_direction d, struct gw_match *g)
{
	int n = config_setting_length(grp), r;

	memset(g, 0, sizeof(*g));
	g->proto = -1;
	g->line = (int)config_setting_source_line(grp);
	if ((r = cfg_check_keys(p, grp, where, match_keys)))
		return r;
	if (n == 0)
		return cfg_error(p, grp, where, "an empty match group would match every packet; "
				 "to make a class the catch-all, set default = true");
	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(grp, (unsigned int)i);
		struct mctx m = { p, where, s, config_setting_name(s) };

		if (d == GW_DIR_INGRESS)
			for (size_t k = 0; k < sizeof(ingress_refused) / sizeof(ingress_refused[0]);
			     k++)
				if (!strcmp(m.name, ingress_refused[k].key))
					return cfg_error(p, s, where, "'%s' cannot be matched at "
							 "ingress: %s", m.name,
							 ingress_refused[k].why);
		if ((r = parse_key(&m, g)))
			return r;
	}
	return check_group(p, grp, where, g);
}

int cfg_parse_match(struct cfg_parser *p, const config_setting_t *cls, const char *cwhere,
		    enum gw_direction d, struct gw_class_cfg *c)
{
	const config_setting_t *s = config_setting_get_member(cls, "match");
	char where[CFG_WHERE_MAX + 8];
	int n, r;

	if (!s)
		return 0;
	snprintf(where, sizeof(where), "%s match", cwhere);
	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		n = 1;
	} else if (config_setting_type(s) == CONFIG_TYPE_LIST) {
		n = config_setting_length(s);
		if (n < 1 || n > GW_MATCH_GROUPS_MAX)
			return cfg_error(p, s, where, "'match' must have 1..%d groups",
					 GW_MATCH_GROUPS_MAX);
	} else {
		return cfg_error(p, s, where, "'match' must be a group { ... } or a list of groups "
				 "( { ... }, { ... } ), any of which matches");
	}
	c->match = calloc((size_t)n, sizeof(*c->match));
	if (!c->match)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = n == 1 && config_setting_type(s) == CONFIG_TYPE_GROUP ?
					    s : config_setting_get_elem(s, (unsigned int)i);

		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return cfg_error(p, g, where, "'match' element %d must be a group { ... }",
					 i + 1);
		if ((r = parse_group(p, g, where, d, &c->match[i])))
			return r;
		c->n_match = (size_t)i + 1;
	}
	return 0;
}

/* How many host classes a subnet makes: every address, less IPv4's network and broadcast
 * addresses where a prefix has them (/30 and shorter). */
static uint64_t subnet_hosts(const struct gw_prefix *s)
{
	int host_bits = (s->family == AF_INET ? 32 : 128) - s->len;

	if (host_bits > 20)
		return UINT64_MAX;
	if (s->family == AF_INET && host_bits >= 2)
		return (1ULL << host_bits) - 2;
	return 1ULL << host_bits;
}

static int parse_hosts_body(struct cfg_parser *p, const config_setting_t *g, const char *where,
			    const struct gw_dir_cfg *dir, struct gw_hosts_cfg *h)
{
	config_setting_t *c = NULL;
	char cwhere[CFG_WHERE_MAX + 24];
	const char *sub;
	uint64_t n;
	int r;

	if ((r = cfg_check_keys(p, g, where, hosts_keys)))
		return r;
	r = cfg_get_string(p, g, "subnet", where, CFG_STRING_MAX, &sub);
	if (r <= 0)
		return r ? r : cfg_missing(p, g, where, "subnet");
	r = gw_parse_prefix(sub, &h->subnet);
	if (r)
		return cfg_error(p, config_setting_get_member(g, "subnet"), where, "'subnet' "
				 "\"%s\" is not %s", sub, r == -ERANGE ? "a network address (bits "
				 "are set past its prefix length)" : "an IPv4 or IPv6 prefix");
	n = subnet_hosts(&h->subnet);
	if (n > GW_HOSTS_MAX)
		return cfg_error(p, config_setting_get_member(g, "subnet"), where, "'subnet' %s has "
				 "more than %d addresses (at most a /22 for IPv4, /118 for IPv6); "
				 "for fairness among many hosts use a cake child with flow_mode "
				 "\"dual-srchost\" or \"dual-dsthost\"", sub, GW_HOSTS_MAX);
	h->n = (size_t)n;
	if ((r = cfg_parse_rate_ceil(p, g, where, dir->rate, &h->rate, &h->ceil)))
		return r;
	if (h->rate > h->ceil || h->ceil > dir->rate)
		return cfg_error(p, g, where, "per-host rate <= ceil <= the direction's rate is "
				 "needed");
	cfg_child_init(&h->child, GW_KIND_FQ_CODEL);
	if ((r = cfg_get_group(p, g, "child", where, &c)) <= 0)
		return r;
	snprintf(cwhere, sizeof(cwhere), "%s child", where);
	return cfg_parse_child(p, c, cwhere, GW_KIND_HTB, &h->child);
}

/* The n-th address of the subnet (counting from 1 past the network address for IPv4 subnets
 * that have one). */
static void nth_addr(const struct gw_hosts_cfg *h, uint64_t i, struct gw_prefix *out)
{
	int bytes = h->subnet.family == AF_INET ? 4 : 16;
	uint64_t off = i + (h->subnet.family == AF_INET && h->subnet.len <= 30 ? 1 : 0);
	unsigned int carry = 0;

	*out = h->subnet;
	out->len = (uint8_t)(bytes * 8);
	/* big-endian addition; off fits the host bits, so nothing carries into the prefix */
	for (int b = bytes - 1; b >= 0 && (off || carry); b--, off >>= 8) {
		unsigned int v = out->addr[b] + (unsigned int)(off & 0xff) + carry;

		out->addr[b] = (uint8_t)v;
		carry = v >> 8;
	}
}

static int expand_hosts(struct cfg_parser *p, const config_setting_t *g, const char *where,
			struct gw_dir_cfg *dir)
{
	struct gw_hosts_cfg *h = &dir->hosts;
	uint64_t sum = h->rate * h->n;
	bool synth = dir->n_classes == 0;
	size_t total = dir->n_classes + h->n + synth;
	struct gw_class_cfg *v;
	char a[32], b[32];

	for (size_t i = 0; i < dir->n_classes; i++)
		sum += dir->classes[i].rate;
	if (sum > dir->rate) {
		gw_format_rate(sum, a, sizeof(a));
		gw_format_rate(dir->rate, b, sizeof(b));
		return cfg_error(p, config_setting_get_member(g, "rate"), where, "%zu hosts at this "
				 "rate%s add up to %s, above the direction's rate %s", h->n,
				 dir->n_classes ? " and the classes" : "", a, b);
	}
	if (total > GW_MAX_CLASSES)
		return cfg_error(p, g, where, "too many classes with the hosts (%zu, at most %d)",
				 total, GW_MAX_CLASSES);
	v = realloc(dir->classes, total * sizeof(*v));
	if (!v)
		return -ENOMEM;
	dir->classes = v;
	if (synth) {
		/* the rest of the line, for addresses outside the subnet */
		gw_class_default(&v[dir->n_classes++],
				 dir->rate - sum > GW_MIN_RATE ? dir->rate - sum : GW_MIN_RATE,
				 dir->rate, &dir->child, dir->line);
		cfg_child_init(&dir->child, GW_KIND_NONE);
	}
	h->first = dir->n_classes;
	for (size_t i = 0; i < h->n; i++) {
		struct gw_class_cfg *c = &v[dir->n_classes++];
		char addr[INET6_ADDRSTRLEN];

		memset(c, 0, sizeof(*c));
		nth_addr(h, i, &c->host_addr);
		inet_ntop(h->subnet.family, c->host_addr.addr, addr, sizeof(addr));
		if (strlen(addr) + 2 < sizeof(c->name))
			snprintf(c->name, sizeof(c->name), "h-%s", addr);
		else	/* a long IPv6 address: its place in the subnet ('#' is no class name's) */
			snprintf(c->name, sizeof(c->name), "h-#%zu", i);
		c->rate = h->rate;
		c->ceil = h->ceil;
		c->prio = c->quantum = c->burst = c->cburst = GW_UNSET;
		c->child = h->child;
		c->host = true;
		c->line = h->line;
	}
	return 0;
}

int cfg_parse_hosts(struct cfg_parser *p, const config_setting_t *grp, const char *dwhere,
		    enum gw_direction d, struct gw_dir_cfg *dir)
{
	config_setting_t *g = NULL;
	char where[CFG_WHERE_MAX + 8];
	int r;

	if ((r = cfg_get_group(p, grp, "hosts", dwhere, &g)) <= 0)
		return r;
	snprintf(where, sizeof(where), "%s hosts", dwhere);
	if (d == GW_DIR_INGRESS)
		return cfg_error(p, g, dwhere, "'hosts' is for egress: shape each host's download "
				 "on the egress of the interface that faces the hosts (the LAN), "
				 "and its upload on the egress of the WAN");
	if (gw_shaper_role(dir->shaper) != GW_SHAPER_CLASSES)
		return cfg_error(p, g, dwhere, "'hosts' needs shaper \"htb\" (one class per host); "
				 "for fairness alone, a cake child with flow_mode \"dual-srchost\" "
				 "or \"dual-dsthost\" needs no hosts");
	dir->hosts.present = true;
	dir->hosts.line = (int)config_setting_source_line(g);
	if ((r = parse_hosts_body(p, g, where, dir, &dir->hosts)))
		return r;
	return expand_hosts(p, g, where, dir);
}
