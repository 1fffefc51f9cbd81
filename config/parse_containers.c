/* config/parse_containers.c: `containers = ( { interfaces = "veth*"; ... } );` into struct
 * gw_ctr_cfg: which interfaces (name, the namespace behind them, an address there) and
 * the limit each one gets in each direction. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/parse.h"

static const char *const ctr_keys[] = {
	"interfaces", "netns", "address", "egress", "ingress", NULL
};
static const char *const ctr_dir_keys[] = { "rate", "ceil", "child", NULL };

/* A name pattern: what an interface name may hold, plus fnmatch's * ? [ ]. */
static bool valid_glob(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= GW_CTR_GLOB_MAX)
		return false;
	for (const char *c = s; *c; c++)
		if (*c == '/' || *c == ':' || *c == ' ' || (unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

static int add_glob(struct cfg_parser *p, const config_setting_t *s, const char *where,
		    struct gw_ctr_cfg *c)
{
	const char *v = config_setting_get_string(s);

	if (!v)
		return cfg_error(p, s, where, "'interfaces' must be a string or a list of strings, "
				 "e.g. \"veth*\"");
	if (!valid_glob(v))
		return cfg_error(p, s, where, "'interfaces' \"%.40s\" is not an interface name "
				 "pattern (1..%d characters, no '/', ':' or spaces)", v,
				 GW_CTR_GLOB_MAX - 1);
	snprintf(c->globs[c->n_globs++], GW_CTR_GLOB_MAX, "%s", v);
	return 0;
}

/* interfaces = "veth*"; or interfaces = [ "veth*", "cali*" ]; */
static int parse_globs(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       struct gw_ctr_cfg *c)
{
	const config_setting_t *s = config_setting_get_member(grp, "interfaces");
	int n, ret;

	if (!s)
		return cfg_missing(p, grp, where, "interfaces");
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return add_glob(p, s, where, c);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return cfg_error(p, s, where, "'interfaces' must be a string or a list of strings, "
				 "e.g. \"veth*\"");
	if ((n = cfg_count(p, s, where, "interfaces", GW_CTR_MAX_GLOBS, "patterns")) < 0)
		return n;
	for (int i = 0; i < n; i++) {
		ret = add_glob(p, config_setting_get_elem(s, (unsigned int)i), where, c);
		if (ret)
			return ret;
	}
	return 0;
}

/* netns = "web-*" (a name under /run/netns, as `ip netns` makes them) or an absolute path
 * pattern such as "/run/docker/netns/[0-9a-f]*" (Docker names its namespaces so). */
static int parse_netns(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       struct gw_ctr_cfg *c)
{
	const config_setting_t *s;
	const char *v;
	int ret = cfg_get_string(p, grp, "netns", where, GW_CTR_NETNS_MAX - 1, &v);

	if (ret <= 0)
		return ret;
	s = config_setting_get_member(grp, "netns");
	if (!v[0] || !strcmp(v, ".") || !strcmp(v, ".."))
		return cfg_error(p, s, where, "'netns' \"%s\" is not a namespace name", v);
	if (strchr(v, '/') && v[0] != '/')
		return cfg_error(p, s, where, "'netns' \"%.64s\" must be a name in /run/netns "
				 "(no '/') or an absolute path", v);
	for (const char *ch = v; *ch; ch++)
		if ((unsigned char)*ch < 0x20 || *ch == 0x7f)
			return cfg_error(p, s, where, "'netns' has a control character");
	snprintf(c->netns, sizeof(c->netns), "%s", v);
	return 0;
}

/* The prefix's bits past len must be zero: "10.0.0.5/24" is most likely a typo. */
static bool host_bits_clear(const uint8_t *a, int bytes, int len)
{
	for (int i = 0; i < bytes; i++) {
		int keep = len - i * 8;
		uint8_t mask = keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));

		if (a[i] & ~mask)
			return false;
	}
	return true;
}

/* address = "10.0.0.0/24" or "fd00::/64"; a bare address is a /32 or /128. */
static int parse_address(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			 struct gw_ctr_cfg *c)
{
	char buf[64], *slash, *end;
	const config_setting_t *s;
	const char *v;
	int ret = cfg_get_string(p, grp, "address", where, sizeof(buf) - 1, &v);
	long len;

	if (ret <= 0)
		return ret;
	s = config_setting_get_member(grp, "address");
	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, c->addr) == 1)
		c->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, c->addr) == 1)
		c->family = AF_INET6;
	else
		return cfg_error(p, s, where, "'address' \"%s\" is not an IPv4 or IPv6 prefix, e.g. "
				 "\"10.0.0.0/24\" or \"fd00:1::/64\"", v);
	len = c->family == AF_INET ? 32 : 128;
	if (slash) {
		errno = 0;
		len = strtol(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || len < 0 || len > (c->family == AF_INET ? 32 : 128))
			return cfg_error(p, s, where, "'address' \"%s\": the prefix length must be "
					 "0..%d", v, c->family == AF_INET ? 32 : 128);
	}
	c->prefix_len = (int)len;
	if (!host_bits_clear(c->addr, c->family == AF_INET ? 4 : 16, c->prefix_len))
		return cfg_error(p, s, where, "'address' \"%s\" has bits set past the /%d prefix "
				 "length (write the network, e.g. \"10.0.0.0/24\")", v, c->prefix_len);
	c->has_address = true;
	snprintf(c->address, sizeof(c->address), "%s", v);
	return 0;
}

static int parse_ctr_dir(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			 enum gw_direction d, struct gw_ctr_dir_cfg *dir)
{
	char dwhere[CFG_WHERE_MAX], cwhere[CFG_WHERE_MAX + 8];
	config_setting_t *g = NULL, *child = NULL;
	int ret;

	memset(dir, 0, sizeof(*dir));
	ret = cfg_get_group(p, grp, gw_direction_name(d), where, &g);
	if (ret <= 0)
		return ret;
	snprintf(dwhere, sizeof(dwhere), "%s %s", where, gw_direction_name(d));
	dir->present = true;
	dir->line = (int)config_setting_source_line(g);
	if ((ret = cfg_check_keys(p, g, dwhere, ctr_dir_keys)))
		return ret;
	if ((ret = cfg_parse_rate_ceil(p, g, dwhere, 0, &dir->rate, &dir->ceil)))
		return ret;
	if (dir->ceil < dir->rate) {
		char r[32], c[32];

		gw_format_rate(dir->rate, r, sizeof(r));
		gw_format_rate(dir->ceil, c, sizeof(c));
		return cfg_error(p, config_setting_get_member(g, "ceil"), dwhere,
				 "rate %s is above ceil %s", r, c);
	}
	if ((ret = cfg_get_group(p, g, "child", dwhere, &child)) < 0)
		return ret;
	if (!ret) {
		/* an AQM by default, not a bare token bucket's tail-drop queue */
		cfg_child_init(&dir->child, GW_KIND_FQ_CODEL);
		return 0;
	}
	snprintf(cwhere, sizeof(cwhere), "%s child", dwhere);
	return cfg_parse_child(p, child, cwhere, GW_KIND_HTB, &dir->child);
}

static int parse_container(struct cfg_parser *p, const config_setting_t *grp, size_t index,
			   struct gw_ctr_cfg *c)
{
	char where[CFG_WHERE_MAX];
	int ret;

	snprintf(where, sizeof(where), "container #%zu", index + 1);
	c->line = (int)config_setting_source_line(grp);
	if ((ret = cfg_check_keys(p, grp, where, ctr_keys)) ||
	    (ret = parse_globs(p, grp, where, c)) ||
	    (ret = parse_netns(p, grp, where, c)) ||
	    (ret = parse_address(p, grp, where, c)) ||
	    (ret = parse_ctr_dir(p, grp, where, GW_DIR_EGRESS, &c->dir[GW_DIR_EGRESS])) ||
	    (ret = parse_ctr_dir(p, grp, where, GW_DIR_INGRESS, &c->dir[GW_DIR_INGRESS])))
		return ret;
	if (!c->dir[GW_DIR_EGRESS].present && !c->dir[GW_DIR_INGRESS].present)
		return cfg_error(p, grp, where, "nothing to shape: give 'egress', 'ingress' or both");
	return 0;
}

int cfg_parse_containers(struct cfg_parser *p, const config_setting_t *root,
			 struct gw_config *cfg)
{
	config_setting_t *list = NULL;
	int n, ret;

	ret = cfg_get_group_list(p, root, "containers", NULL, &list);
	if (ret <= 0)
		return ret;
	if ((n = cfg_count(p, list, NULL, "containers", GW_MAX_CONTAINER_RULES, "entries")) < 0)
		return n;
	cfg->containers = calloc((size_t)n, sizeof(*cfg->containers));
	if (!cfg->containers)
		return -ENOMEM;
	cfg->n_containers = (size_t)n;
	for (int i = 0; i < n; i++) {
		ret = parse_container(p, config_setting_get_elem(list, (unsigned int)i), (size_t)i,
				      &cfg->containers[i]);
		if (ret)
			return ret;
	}
	return 0;
}
