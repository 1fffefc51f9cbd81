/* config/parse_autorate.c: a direction's `autorate` group into a struct gw_autorate_cfg, and
 * the rules it must keep with the rest of the config. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/parse.h"
#include "qdisc/qdisc.h"

/* Defaults and bounds; gatewayd.conf(5) quotes them: change both together. */
#define AR_THRESHOLD_DEFAULT 10000LL		/* 10ms */
#define AR_THRESHOLD_MIN 1000LL			/* 1ms */
#define AR_THRESHOLD_MAX 1000000LL		/* 1s */
#define AR_WINDOW_DEFAULT 6
#define AR_WINDOW_MAX 64
#define AR_BLOAT_DEFAULT 3
#define AR_CUT_DEFAULT 0.9
#define AR_CUT_MIN 0.5
#define AR_CUT_MAX 0.99
#define AR_RAISE_DEFAULT 1.04
#define AR_RAISE_MIN 1.001
#define AR_RAISE_MAX 1.5
#define AR_LOAD_DEFAULT 0.75
#define AR_LOAD_MIN 0.1
#define AR_LOAD_MAX 1.0
#define AR_HOLD_DEFAULT 500000LL		/* 500ms */
#define AR_HOLD_MIN 0LL
#define AR_HOLD_MAX 60000000LL			/* 1 min */
#define AR_RAISE_EVERY_DEFAULT 200000LL		/* 200ms */
#define AR_RAISE_EVERY_MIN 10000LL		/* 10ms */
#define AR_RAISE_EVERY_MAX 60000000LL		/* 1 min */
#define AR_IDLE_DEFAULT 5000000LL		/* 5s */
#define AR_IDLE_MIN 100000LL			/* 100ms */
#define AR_IDLE_MAX 3600000000LL		/* 1 h */

static const char *const ar_keys[] = {
	"min", "base", "max", "delay_threshold", "bloat_samples", "window", "cut", "raise",
	"load_threshold", "hold", "raise_every", "idle_after", NULL
};

/* A plain number within [min, max]: 1 when there (and set), 0 when absent, or -EINVAL. */
static int get_factor(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		      const char *where, double min, double max, double *out)
{
	const config_setting_t *s = config_setting_get_member(grp, key);
	double v;

	if (!s)
		return 0;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(s);
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(s);
		break;
	default:
		return cfg_error(p, s, where, "'%s' must be a number, e.g. %g", key, min);
	}
	if (!(v >= min && v <= max))	/* NaN too */
		return cfg_error(p, s, where, "'%s' %g is out of range %g..%g", key, v, min, max);
	*out = v;
	return 1;
}

static void ar_defaults(struct gw_autorate_cfg *a)
{
	memset(a, 0, sizeof(*a));
	a->delay_threshold_us = AR_THRESHOLD_DEFAULT;
	a->window = AR_WINDOW_DEFAULT;
	a->bloat_samples = AR_BLOAT_DEFAULT;
	a->cut = AR_CUT_DEFAULT;
	a->raise = AR_RAISE_DEFAULT;
	a->load_threshold = AR_LOAD_DEFAULT;
	a->hold_us = AR_HOLD_DEFAULT;
	a->raise_every_us = AR_RAISE_EVERY_DEFAULT;
	a->idle_after_us = AR_IDLE_DEFAULT;
}

static int ar_rates(struct cfg_parser *p, const config_setting_t *g, const char *where,
		    const struct gw_dir_cfg *dir, struct gw_autorate_cfg *a)
{
	char r[32], x[32];
	int ret;

	if ((ret = cfg_get_rate(p, g, "min", where, GW_MIN_RATE, GW_MAX_RATE, &a->min)) <= 0)
		return ret ? ret : cfg_missing(p, g, where, "min");
	if ((ret = cfg_get_rate(p, g, "max", where, GW_MIN_RATE, GW_MAX_RATE, &a->max)) <= 0)
		return ret ? ret : cfg_missing(p, g, where, "max");
	a->base = dir->rate;
	if ((ret = cfg_get_rate(p, g, "base", where, GW_MIN_RATE, GW_MAX_RATE, &a->base)) < 0)
		return ret;
	gw_format_rate(a->min, r, sizeof(r));
	gw_format_rate(a->max, x, sizeof(x));
	if (a->min > a->max)
		return cfg_error(p, config_setting_get_member(g, "min"), where,
				 "'min' %s is above 'max' %s", r, x);
	if (a->base < a->min || a->base > a->max) {
		char b[32];

		gw_format_rate(a->base, b, sizeof(b));
		return cfg_error(p, ret ? config_setting_get_member(g, "base") : g, where,
				 "%s %s is not within 'min' %s and 'max' %s",
				 ret ? "'base'" : "the base (the direction's 'rate')", b, r, x);
	}
	if (dir->rate < a->min || dir->rate > a->max) {
		char b[32];

		gw_format_rate(dir->rate, b, sizeof(b));
		return cfg_error(p, g, where, "the direction's 'rate' %s, where autorate starts, "
				 "is not within 'min' %s and 'max' %s", b, r, x);
	}
	return 0;
}

static int ar_knobs(struct cfg_parser *p, const config_setting_t *g, const char *where,
		    struct gw_autorate_cfg *a)
{
	int64_t win = a->window, k = a->bloat_samples;
	int ret;

	if ((ret = cfg_get_time(p, g, "delay_threshold", where, AR_THRESHOLD_MIN,
				AR_THRESHOLD_MAX, &a->delay_threshold_us)) < 0 ||
	    (ret = cfg_get_int(p, g, "window", where, 1, AR_WINDOW_MAX, &win)) < 0 ||
	    (ret = cfg_get_int(p, g, "bloat_samples", where, 1, AR_WINDOW_MAX, &k)) < 0 ||
	    (ret = get_factor(p, g, "cut", where, AR_CUT_MIN, AR_CUT_MAX, &a->cut)) < 0 ||
	    (ret = get_factor(p, g, "raise", where, AR_RAISE_MIN, AR_RAISE_MAX, &a->raise)) < 0 ||
	    (ret = get_factor(p, g, "load_threshold", where, AR_LOAD_MIN, AR_LOAD_MAX,
			      &a->load_threshold)) < 0 ||
	    (ret = cfg_get_time(p, g, "hold", where, AR_HOLD_MIN, AR_HOLD_MAX, &a->hold_us)) < 0 ||
	    (ret = cfg_get_time(p, g, "raise_every", where, AR_RAISE_EVERY_MIN,
				AR_RAISE_EVERY_MAX, &a->raise_every_us)) < 0 ||
	    (ret = cfg_get_time(p, g, "idle_after", where, AR_IDLE_MIN, AR_IDLE_MAX,
				&a->idle_after_us)) < 0)
		return ret;
	if (k > win)
		return cfg_error(p, config_setting_get_member(g, config_setting_get_member(g,
				 "bloat_samples") ? "bloat_samples" : "window"), where,
				 "'bloat_samples' %lld is more than 'window' %lld",
				 (long long)k, (long long)win);
	a->window = (int)win;
	a->bloat_samples = (int)k;
	return 0;
}

/* tbf's change keeps its child but sets a fifo child's limit to tbf's own (the kernel's
 * tbf_change calls fifo_set_limit): a rate change would rewrite the leaf. */
static int ar_shaper(struct cfg_parser *p, const config_setting_t *g, const char *where,
		     const struct gw_dir_cfg *dir)
{
	if (gw_shaper_role(dir->shaper) == GW_SHAPER_BUCKET && dir->child.kind == GW_KIND_FIFO)
		return cfg_error(p, g, where, "autorate cannot move tbf's rate over a fifo child: "
				 "the kernel's tbf change sets the fifo's limit to tbf's own; use "
				 "another child, or htb");
	return 0;
}

int cfg_parse_autorate(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       struct gw_dir_cfg *dir)
{
	struct gw_autorate_cfg *a = &dir->autorate;
	char awhere[CFG_WHERE_MAX + 12];
	config_setting_t *g = NULL;
	int ret;

	ar_defaults(a);
	ret = cfg_get_group(p, grp, "autorate", where, &g);
	if (ret <= 0)
		return ret;
	snprintf(awhere, sizeof(awhere), "%s autorate", where);
	a->present = true;
	a->line = (int)config_setting_source_line(g);
	if ((ret = cfg_check_keys(p, g, awhere, ar_keys)) ||
	    (ret = ar_rates(p, g, awhere, dir, a)) ||
	    (ret = ar_knobs(p, g, awhere, a)))
		return ret;
	return ar_shaper(p, g, awhere, dir);
}

int cfg_check_autorate(struct cfg_parser *p, const struct gw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		for (int d = 0; d < 2; d++) {
			const struct gw_autorate_cfg *a = &l->dir[d].autorate;
			char where[CFG_WHERE_MAX];

			if (!l->dir[d].present || !a->present)
				continue;
			snprintf(where, sizeof(where), "link '%s' %s autorate", l->name,
				 gw_direction_name((enum gw_direction)d));
			if (!cfg->probe.present)
				return cfg_error_at(p, cfg->file, a->line, where, "autorate needs "
						    "probes: add a 'probe' block with targets past "
						    "the bottleneck");
			if (strcmp(cfg->probe.link, l->name))
				return cfg_error_at(p, cfg->file, a->line, where, "autorate needs "
						    "the probes on this link, and they are on link "
						    "'%s' (set the probe block's 'link')",
						    cfg->probe.link);
		}
	}
	return 0;
}
