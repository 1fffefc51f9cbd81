/* config/parse_link.c: one `links` entry into a struct gw_link_cfg, and the links' uniqueness. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/parse.h"

static const char *const link_keys[] = {
	"name", "interface", "overhead", "mpu", "linklayer", "replace", "required", "egress", "ingress",
	"probe", NULL
};

/*
 * Presets name a link technology and set all three sizing values; explicit overhead and mpu
 * override theirs. The numbers are what the man page documents: change both together.
 */
static const struct {
	const char *name;
	enum gw_linklayer ll;
	int32_t overhead;
	int32_t mpu;
} presets[] = {
	{ "ethernet", GW_LL_ETHERNET, 0, 0 },
	{ "atm", GW_LL_ATM, 0, 0 },
	{ "ptm", GW_LL_PTM, 0, 0 },
	{ "docsis", GW_LL_ETHERNET, 18, 64 },
	{ "ethernet-full", GW_LL_ETHERNET, 38, 84 },
	{ "pppoe-ptm", GW_LL_PTM, 27, 0 },
	{ "bridged-ptm", GW_LL_PTM, 19, 0 },
	{ "pppoe-vcmux", GW_LL_ATM, 32, 0 },
	{ "pppoe-llcsnap", GW_LL_ATM, 40, 0 },
	{ "pppoa-vcmux", GW_LL_ATM, 10, 0 },
	{ "pppoa-llc", GW_LL_ATM, 14, 0 },
	{ "bridged-vcmux", GW_LL_ATM, 24, 0 },
	{ "bridged-llcsnap", GW_LL_ATM, 32, 0 },
};

#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

static int parse_sizing(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			struct gw_sizing *sz)
{
	struct cfg_enum names[N_PRESETS + 1];
	int64_t overhead, mpu;
	int ret, idx;
	size_t i;

	memset(sz, 0, sizeof(*sz));
	sz->linklayer = GW_LL_ETHERNET;
	for (i = 0; i < N_PRESETS; i++)
		names[i] = (struct cfg_enum){ presets[i].name, (int)i };
	names[N_PRESETS] = (struct cfg_enum){ NULL, 0 };
	ret = cfg_get_enum(p, grp, "linklayer", where, names, &idx);
	if (ret < 0)
		return ret;
	if (ret) {
		sz->set = true;
		sz->linklayer = presets[idx].ll;
		sz->overhead = presets[idx].overhead;
		sz->mpu = presets[idx].mpu;
	}
	if ((ret = cfg_get_int(p, grp, "overhead", where, -64, 256, &overhead)) < 0)
		return ret;
	if (ret) {
		sz->set = true;
		sz->overhead = (int32_t)overhead;
	}
	if ((ret = cfg_get_int(p, grp, "mpu", where, 0, 256, &mpu)) < 0)
		return ret;
	if (ret) {
		sz->set = true;
		sz->mpu = (int32_t)mpu;
	}
	return 0;
}

static int parse_link_ids(struct cfg_parser *p, const config_setting_t *grp, size_t index,
			  struct gw_link_cfg *link)
{
	char at_index[CFG_WHERE_MAX], where[CFG_WHERE_MAX];
	int ret;

	snprintf(at_index, sizeof(at_index), "link #%zu", index + 1);
	ret = cfg_parse_named(p, grp, at_index, "link", link_keys, link->name, where);
	if (ret)
		return ret;
	ret = cfg_get_ifname(p, grp, "interface", where, link->interface);
	if (ret <= 0)
		return ret ? ret : cfg_missing(p, grp, where, "interface");
	return 0;
}

int cfg_parse_link(struct cfg_parser *p, const config_setting_t *grp, size_t index,
		   struct gw_link_cfg *link)
{
	char where[CFG_WHERE_MAX];
	int ret;

	link->line = (int)config_setting_source_line(grp);
	ret = parse_link_ids(p, grp, index, link);
	if (ret)
		return ret;
	snprintf(where, sizeof(where), "link '%s'", link->name);
	if ((ret = parse_sizing(p, grp, where, &link->sizing)) < 0 ||
	    (ret = cfg_get_bool(p, grp, "replace", where, &link->replace)) < 0 ||
	    (ret = cfg_get_bool(p, grp, "required", where, &link->required)) < 0 ||
	    (ret = cfg_parse_dir(p, grp, link->name, GW_DIR_EGRESS,
				 &link->dir[GW_DIR_EGRESS])) < 0 ||
	    (ret = cfg_parse_dir(p, grp, link->name, GW_DIR_INGRESS,
				 &link->dir[GW_DIR_INGRESS])) < 0 ||
	    (ret = cfg_parse_link_probe(p, grp, link)) < 0)
		return ret;
	if (!link->dir[GW_DIR_EGRESS].present && !link->dir[GW_DIR_INGRESS].present)
		return cfg_error(p, grp, where, "nothing to shape: give 'egress', 'ingress' or both");
	return 0;
}

/* The ifb setting if the user wrote one, else the ingress group it defaulted in. */
static const config_setting_t *ifb_setting(const config_setting_t *link_grp, bool *given)
{
	const config_setting_t *in = config_setting_get_member(link_grp, "ingress");
	const config_setting_t *s = config_setting_get_member(in, "ifb");

	*given = s != NULL;
	return s ? s : in;
}

/* Link i against the links before it: names, interfaces and ifb devices never overlap. */
static int check_link_pair(struct cfg_parser *p, const config_setting_t *gi,
			   const struct gw_link_cfg *a, const struct gw_link_cfg *b)
{
	bool a_in = a->dir[GW_DIR_INGRESS].present, b_in = b->dir[GW_DIR_INGRESS].present;
	const char *a_ifb = a->dir[GW_DIR_INGRESS].ifb, *b_ifb = b->dir[GW_DIR_INGRESS].ifb;
	char where[CFG_WHERE_MAX];
	bool given = false;

	snprintf(where, sizeof(where), "link '%s'", a->name);
	if (a != b && !strcmp(a->name, b->name))
		return cfg_error(p, config_setting_get_member(gi, "name"), where,
				 "name already used by the link on line %d", b->line);
	if (a != b && !strcmp(a->interface, b->interface))
		return cfg_error(p, config_setting_get_member(gi, "interface"), where,
				 "interface \"%s\" is already shaped by link '%s'", a->interface,
				 b->name);
	if (a != b && b_in && !strcmp(a->interface, b_ifb))
		return cfg_error(p, config_setting_get_member(gi, "interface"), where,
				 "interface \"%s\" is the ifb device of link '%s'", a->interface,
				 b->name);
	/* container ifbs are "gwc-" + an index (gatewayd/ctr_followed.c): a link's device by that
	 * name would be taken for one, and deleted by the container tracker at start */
	if (a == b && !strncmp(a->interface, GW_CTR_RESERVED_PREFIX,
			       sizeof(GW_CTR_RESERVED_PREFIX) - 1))
		return cfg_error(p, config_setting_get_member(gi, "interface"), where,
				 "interface \"%s\": names starting with \"%s\" are reserved for "
				 "the ifbs of shaped containers", a->interface, GW_CTR_RESERVED_PREFIX);
	if (!a_in)
		return 0;
	snprintf(where, sizeof(where), "link '%s' ingress", a->name);
	if (a == b && !strncmp(a_ifb, GW_CTR_RESERVED_PREFIX, sizeof(GW_CTR_RESERVED_PREFIX) - 1))
		return cfg_error(p, ifb_setting(gi, &given), where,
				 "ifb \"%s\": names starting with \"%s\" are reserved for the "
				 "ifbs of shaped containers", a_ifb, GW_CTR_RESERVED_PREFIX);
	if (!strcmp(a_ifb, b->interface))
		return cfg_error(p, ifb_setting(gi, &given), where, "ifb \"%s\" is the interface "
				 "of link '%s'", a_ifb, b->name);
	if (a != b && b_in && !strcmp(a_ifb, b_ifb)) {
		const config_setting_t *s = ifb_setting(gi, &given);

		return cfg_error(p, s, where, "ifb \"%s\" is already used by link '%s'%s", a_ifb,
				 b->name, given ? "" : " (the default, \"ifb-\" and the link name "
				 "cut to 15 characters; set 'ifb' to choose another)");
	}
	return 0;
}

int cfg_check_links(struct cfg_parser *p, const config_setting_t *list,
		    const struct gw_link_cfg *links, size_t n)
{
	size_t i, j;
	int ret;

	for (i = 0; i < n; i++) {
		const config_setting_t *gi = config_setting_get_elem(list, (unsigned int)i);

		for (j = 0; j <= i; j++) {
			ret = check_link_pair(p, gi, &links[i], &links[j]);
			if (ret)
				return ret;
		}
	}
	return 0;
}
