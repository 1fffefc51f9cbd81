/* config/parse_child.c: a `child = { kind = ...; }` group into a struct gw_child. */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "config/parse.h"

#define PACKETS_MAX 1000000

typedef int (*child_parse_fn)(struct cfg_parser *p, const config_setting_t *grp,
			      const char *where, struct gw_child *c);

struct child_kind {
	const char *name;
	enum gw_kind kind;
	const char *const *keys;
	child_parse_fn parse;
};

static const char *const fifo_keys[] = { "kind", "limit", NULL };
static const char *const fq_codel_keys[] = {
	"kind", "limit", "flows", "target", "interval", "quantum", "ecn", "ce_threshold",
	"memory_limit", NULL
};
static const char *const cake_keys[] = {
	"kind", "bandwidth", "diffserv", "flow_mode", "nat", "wash", "split_gso", "ingress",
	"ack_filter", "rtt", NULL
};

void cfg_child_init(struct gw_child *c, enum gw_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	if (kind == GW_KIND_FIFO) {
		c->opts.fifo.limit = GW_UNSET;
	} else if (kind == GW_KIND_FQ_CODEL) {
		struct gw_fq_codel_opts *o = &c->opts.fq_codel;

		o->limit = o->flows = o->target_us = o->interval_us = GW_UNSET;
		o->quantum = o->ce_threshold_us = o->memory_limit = GW_UNSET;
		o->ecn = -1;
	} else if (kind == GW_KIND_CAKE) {
		struct gw_cake_opts *o = &c->opts.cake;

		o->bandwidth = o->rtt_us = o->overhead = o->mpu = GW_UNSET;
		o->diffserv = o->flow_mode = o->ack_filter = o->atm = -1;
		o->nat = o->wash = o->split_gso = o->ingress = -1;
	}
}

/* An integer is a packet count (pfifo); a string is a size in bytes (bfifo). */
static int parse_fifo(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		      struct gw_child *c)
{
	const config_setting_t *s = config_setting_get_member(grp, "limit");
	struct gw_fifo_opts *o = &c->opts.fifo;
	int ret;

	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		ret = cfg_get_size(p, grp, "limit", where, 1, 1LL << 30, &o->limit);
		o->bytes = true;
		return ret < 0 ? ret : 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
		return cfg_error(p, s, where, "'limit' must be an integer (packets) or a size "
				 "string (bytes, e.g. \"256k\")");
	ret = cfg_get_int(p, grp, "limit", where, 1, PACKETS_MAX, &o->limit);
	return ret < 0 ? ret : 0;
}

static int parse_fq_codel(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			  struct gw_child *c)
{
	struct gw_fq_codel_opts *o = &c->opts.fq_codel;
	bool ecn;
	int ret;

	if ((ret = cfg_get_int(p, grp, "limit", where, 1, PACKETS_MAX, &o->limit)) < 0 ||
	    (ret = cfg_get_int(p, grp, "flows", where, 1, 65536, &o->flows)) < 0 ||
	    (ret = cfg_get_time(p, grp, "target", where, 1, 1000000, &o->target_us)) < 0 ||
	    (ret = cfg_get_time(p, grp, "interval", where, 1000, 10000000, &o->interval_us)) < 0 ||
	    (ret = cfg_get_size(p, grp, "quantum", where, 64, 1 << 20, &o->quantum)) < 0 ||
	    (ret = cfg_get_time(p, grp, "ce_threshold", where, 1, 1000000,
				&o->ce_threshold_us)) < 0 ||
	    (ret = cfg_get_size(p, grp, "memory_limit", where, 4096, 2LL << 30,
				&o->memory_limit)) < 0 ||
	    (ret = cfg_get_bool(p, grp, "ecn", where, &ecn)) < 0)
		return ret;
	if (ret)
		o->ecn = ecn;
	/* CoDel's interval is the window it watches target in: a shorter one never drops sanely. */
	if (o->target_us != GW_UNSET && o->interval_us != GW_UNSET &&
	    o->interval_us <= o->target_us) {
		char t[32], i[32];

		gw_format_time(o->target_us, t, sizeof(t));
		gw_format_time(o->interval_us, i, sizeof(i));
		return cfg_error(p, config_setting_get_member(grp, "interval"), where,
				 "'interval' %s must be longer than 'target' %s", i, t);
	}
	return 0;
}

static const struct cfg_enum diffserv_names[] = {
	{ "besteffort", CAKE_DIFFSERV_BESTEFFORT },
	{ "diffserv3", CAKE_DIFFSERV_DIFFSERV3 },
	{ "diffserv4", CAKE_DIFFSERV_DIFFSERV4 },
	{ "diffserv8", CAKE_DIFFSERV_DIFFSERV8 },
	{ "precedence", CAKE_DIFFSERV_PRECEDENCE },
	{ NULL, 0 }
};

static const struct cfg_enum flow_mode_names[] = {
	{ "flowblind", CAKE_FLOW_NONE },
	{ "srchost", CAKE_FLOW_SRC_IP },
	{ "dsthost", CAKE_FLOW_DST_IP },
	{ "hosts", CAKE_FLOW_HOSTS },
	{ "flows", CAKE_FLOW_FLOWS },
	{ "dual-srchost", CAKE_FLOW_DUAL_SRC },
	{ "dual-dsthost", CAKE_FLOW_DUAL_DST },
	{ "triple-isolate", CAKE_FLOW_TRIPLE },
	{ NULL, 0 }
};

/* bandwidth: a rate, or "unlimited" (0), which is how cake spells "do not shape". */
static int parse_cake_bandwidth(struct cfg_parser *p, const config_setting_t *grp,
				const char *where, int64_t *out)
{
	const config_setting_t *s = config_setting_get_member(grp, "bandwidth");
	uint64_t v;
	int ret;

	if (s && config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(s), "unlimited") == 0) {
		*out = 0;
		return 0;
	}
	ret = cfg_get_rate(p, grp, "bandwidth", where, GW_MIN_RATE, GW_MAX_RATE, &v);
	if (ret > 0)
		*out = (int64_t)v;
	return ret < 0 ? ret : 0;
}

/* ack_filter: true/false, or "aggressive" for cake's third mode. */
static int parse_cake_ack_filter(struct cfg_parser *p, const config_setting_t *grp,
				 const char *where, int *out)
{
	const config_setting_t *s = config_setting_get_member(grp, "ack_filter");

	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		*out = config_setting_get_bool(s) ? CAKE_ACK_FILTER : CAKE_ACK_NONE;
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(s), "aggressive") == 0) {
		*out = CAKE_ACK_AGGRESSIVE;
		return 0;
	}
	return cfg_error(p, s, where, "'ack_filter' must be true, false or \"aggressive\"");
}

static int get_flag(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		    const char *where, int *out)
{
	bool v;
	int ret = cfg_get_bool(p, grp, key, where, &v);

	if (ret > 0)
		*out = v;
	return ret < 0 ? ret : 0;
}

static int parse_cake(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		      struct gw_child *c)
{
	struct gw_cake_opts *o = &c->opts.cake;
	int ret;

	if ((ret = parse_cake_bandwidth(p, grp, where, &o->bandwidth)) < 0 ||
	    (ret = cfg_get_enum(p, grp, "diffserv", where, diffserv_names, &o->diffserv)) < 0 ||
	    (ret = cfg_get_enum(p, grp, "flow_mode", where, flow_mode_names,
				&o->flow_mode)) < 0 ||
	    (ret = get_flag(p, grp, "nat", where, &o->nat)) < 0 ||
	    (ret = get_flag(p, grp, "wash", where, &o->wash)) < 0 ||
	    (ret = get_flag(p, grp, "split_gso", where, &o->split_gso)) < 0 ||
	    (ret = get_flag(p, grp, "ingress", where, &o->ingress)) < 0 ||
	    (ret = parse_cake_ack_filter(p, grp, where, &o->ack_filter)) < 0 ||
	    (ret = cfg_get_time(p, grp, "rtt", where, 1, 3600LL * 1000000, &o->rtt_us)) < 0)
		return ret;
	return 0;
}

static const struct child_kind child_kinds[] = {
	{ "fifo", GW_KIND_FIFO, fifo_keys, parse_fifo },
	{ "fq_codel", GW_KIND_FQ_CODEL, fq_codel_keys, parse_fq_codel },
	{ "cake", GW_KIND_CAKE, cake_keys, parse_cake },
	{ NULL, GW_KIND_NONE, NULL, NULL }
};

static bool has_key(const char *const *keys, const char *key)
{
	for (; *keys; keys++)
		if (strcmp(*keys, key) == 0)
			return true;
	return false;
}

/* A knob of another kind is a likelier mistake than a typo: name the kinds it belongs to. */
static int check_child_keys(struct cfg_parser *p, const config_setting_t *grp,
			    const char *where, const struct child_kind *ck)
{
	int i, n = config_setting_length(grp);

	for (i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, (unsigned int)i);
		const char *key = config_setting_name(m);
		const struct child_kind *o;
		char owners[64] = "";
		size_t len = 0;

		if (has_key(ck->keys, key))
			continue;
		for (o = child_kinds; o->name; o++)
			if (has_key(o->keys, key))
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
			    const char *where, enum gw_kind shaper, const struct gw_child *c)
{
	const config_setting_t *bw = config_setting_get_member(grp, "bandwidth");

	if (shaper == GW_KIND_CAKE && c->kind != GW_KIND_CAKE)
		return cfg_error(p, config_setting_get_member(grp, "kind"), where,
				 "'kind' must be \"cake\" under shaper cake: the child block "
				 "only carries cake's own settings");
	if (c->kind != GW_KIND_CAKE || !bw)
		return 0;
	if (shaper == GW_KIND_CAKE)
		return cfg_error(p, bw, where, "'bandwidth' is not allowed here: the direction's "
				 "'rate' is cake's bandwidth");
	if (c->opts.cake.bandwidth > 0)
		return cfg_error(p, bw, where, "cake 'bandwidth' must be \"unlimited\" or left out "
				 "under %s: the outer shaper already limits the rate, and a "
				 "shaping cake child is non-work-conserving (htb skips the class)",
				 shaper == GW_KIND_HTB ? "htb" : "tbf");
	return 0;
}

int cfg_parse_child(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		    enum gw_kind shaper, struct gw_child *out)
{
	static const struct cfg_enum kind_names[] = {
		{ "fifo", 0 }, { "fq_codel", 1 }, { "cake", 2 }, { NULL, 0 }
	};
	const struct child_kind *ck;
	int ret, idx;

	ret = cfg_get_enum(p, grp, "kind", where, kind_names, &idx);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return cfg_missing(p, grp, where, "kind");
	ck = &child_kinds[idx];
	ret = check_child_keys(p, grp, where, ck);
	if (ret)
		return ret;
	cfg_child_init(out, ck->kind);
	out->line = (int)config_setting_source_line(grp);
	ret = ck->parse(p, grp, where, out);
	if (ret)
		return ret;
	return check_child_fits(p, grp, where, shaper, out);
}
