/* config/parse_dir.c: a link's `egress` or `ingress` group into a struct gw_dir_cfg. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/parse.h"
#include "qdisc/qdisc.h"

#define TBF_LATENCY_MIN 1000LL		/* 1ms */
#define TBF_LATENCY_MAX 10000000LL	/* 10s */
#define BURST_MAX (64LL << 20)

static const char *const dir_keys[] = {
	"shaper", "rate", "burst", "latency", "classes", "child", "ifb", "hosts", "autorate", NULL
};

/* Keys only some shapers take: those whose role is in roles (a bit per gw_shaper_role). */
#define ROLE(r) (1u << (r))
static const struct {
	const char *key;
	unsigned int roles;
} shaper_keys[] = {
	{ "burst", ROLE(GW_SHAPER_CLASSES) | ROLE(GW_SHAPER_BUCKET) },
	{ "latency", ROLE(GW_SHAPER_BUCKET) },
	{ "classes", ROLE(GW_SHAPER_CLASSES) },
};

/* "htb and tbf": the shapers whose role is in roles, in the config's order. */
static void shapers_with(unsigned int roles, char *buf, size_t len)
{
	const struct gw_qdisc_ops *ops;
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; (ops = gw_qdisc_shaper(i)) && n < len; i++)
		if (roles & ROLE(ops->shaper))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " and " : "", ops->name);
}

static int check_shaper_keys(struct cfg_parser *p, const config_setting_t *grp,
			     const char *where, enum gw_direction d, enum gw_kind shaper)
{
	const config_setting_t *s;
	size_t i;

	for (i = 0; i < sizeof(shaper_keys) / sizeof(shaper_keys[0]); i++) {
		char only[64];

		s = config_setting_get_member(grp, shaper_keys[i].key);
		if (!s || (shaper_keys[i].roles & ROLE(gw_shaper_role(shaper))))
			continue;
		shapers_with(shaper_keys[i].roles, only, sizeof(only));
		return cfg_error(p, s, where, "'%s' is not valid with shaper %s (only with %s)",
				 shaper_keys[i].key, gw_kind_name(shaper), only);
	}
	s = config_setting_get_member(grp, "ifb");
	if (s && d != GW_DIR_INGRESS)
		return cfg_error(p, s, where, "'ifb' is only valid in ingress");
	return 0;
}

/* The ifb device that ingress traffic is redirected through: given, or "ifb-" + link name. */
static int parse_ifb(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		     const char *link_name, struct gw_dir_cfg *dir)
{
	int ret = cfg_get_ifname(p, grp, "ifb", where, dir->ifb);

	if (ret == 0)
		snprintf(dir->ifb, sizeof(dir->ifb), "ifb-%s", link_name);
	return ret < 0 ? ret : 0;
}

/* The leaf under tbf, under cake (its own knobs), or under htb's lone default class. */
static int parse_dir_child(struct cfg_parser *p, const config_setting_t *grp,
			   const char *where, struct gw_dir_cfg *dir)
{
	config_setting_t *c = NULL;
	char cwhere[CFG_WHERE_MAX + 8];
	int ret;

	ret = cfg_get_group(p, grp, "child", where, &c);
	if (ret < 0)
		return ret;
	if (ret && dir->n_classes)
		return cfg_error(p, c, where, "'child' is for an htb direction without classes; "
				 "give each class its own 'child'");
	if (ret == 0 && dir->n_classes)
		return 0;	/* each class has its own; dir->child stays GW_KIND_NONE */
	if (ret == 0) {
		/* a shaper that is its own queue takes its own defaults */
		cfg_child_init(&dir->child, gw_shaper_role(dir->shaper) == GW_SHAPER_SELF ?
			       dir->shaper : GW_KIND_FQ_CODEL);
		return 0;
	}
	snprintf(cwhere, sizeof(cwhere), "%s child", where);
	return cfg_parse_child(p, c, cwhere, dir->shaper, &dir->child);
}

static void dir_init(struct gw_dir_cfg *dir)
{
	memset(dir, 0, sizeof(*dir));
	dir->shaper = GW_KIND_NONE;
	dir->burst = GW_UNSET;
	dir->latency_us = GW_UNSET;
}

static int parse_dir_body(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			  enum gw_direction d, struct gw_dir_cfg *dir)
{
	struct cfg_enum shaper_names[GW_KIND_MAX + 1];
	const struct gw_qdisc_ops *ops;
	config_setting_t *classes = NULL;
	int ret, shaper;
	size_t n;

	ret = cfg_check_keys(p, grp, where, dir_keys);
	if (ret)
		return ret;
	for (n = 0; n < GW_KIND_MAX && (ops = gw_qdisc_shaper(n)); n++)
		shaper_names[n] = (struct cfg_enum){ ops->name, (int)gw_qdisc_kind(ops) };
	shaper_names[n] = (struct cfg_enum){ NULL, 0 };
	ret = cfg_get_enum(p, grp, "shaper", where, shaper_names, &shaper);
	if (ret <= 0)
		return ret ? ret : cfg_missing(p, grp, where, "shaper");
	dir->shaper = (enum gw_kind)shaper;
	ret = check_shaper_keys(p, grp, where, d, dir->shaper);
	if (ret)
		return ret;
	ret = cfg_get_rate(p, grp, "rate", where, GW_MIN_RATE, GW_MAX_RATE, &dir->rate);
	if (ret <= 0)
		return ret ? ret : cfg_missing(p, grp, where, "rate");
	if ((ret = cfg_get_size(p, grp, "burst", where, 1, BURST_MAX, &dir->burst)) < 0 ||
	    (ret = cfg_get_time(p, grp, "latency", where, TBF_LATENCY_MIN, TBF_LATENCY_MAX,
				&dir->latency_us)) < 0 ||
	    (ret = cfg_get_group_list(p, grp, "classes", where, &classes)) < 0)
		return ret;
	if (classes) {
		ret = cfg_parse_classes(p, classes, where, d, dir);
		if (ret)
			return ret;
	}
	ret = parse_dir_child(p, grp, where, dir);
	if (ret)
		return ret;
	ret = cfg_parse_hosts(p, grp, where, d, dir);
	if (ret)
		return ret;
	return cfg_parse_autorate(p, grp, where, dir);
}

int cfg_parse_dir(struct cfg_parser *p, const config_setting_t *grp, const char *link_name,
		  enum gw_direction d, struct gw_dir_cfg *dir)
{
	const char *dname = gw_direction_name(d);
	char where[CFG_WHERE_MAX];
	config_setting_t *g = NULL;
	int ret;

	dir_init(dir);
	snprintf(where, sizeof(where), "link '%s'", link_name);
	ret = cfg_get_group(p, grp, dname, where, &g);
	if (ret <= 0)
		return ret;
	snprintf(where, sizeof(where), "link '%s' %s", link_name, dname);
	dir->present = true;
	dir->line = (int)config_setting_source_line(g);
	ret = parse_dir_body(p, g, where, d, dir);
	if (ret)
		return ret;
	if (d == GW_DIR_INGRESS)
		return parse_ifb(p, g, where, link_name, dir);
	return 0;
}
