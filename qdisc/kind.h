/* qdisc/kind.h: what a qdisc kind declares about itself as plain data: its config keys and the
 * names of its extended statistics. config/ parses children from the first, webui/ renders the
 * second, and neither needs to know which kind it holds. */
#ifndef GW_QDISC_KIND_H
#define GW_QDISC_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a key's value is written in the config and printed for tc. */
enum gw_key_unit {
	GW_KU_COUNT,		/* an integer */
	GW_KU_SIZE,		/* bytes: 1500, "64k" */
	GW_KU_TIME,		/* microseconds: "5ms" */
	GW_KU_RATE,		/* bytes/s: "20mbit" */
	GW_KU_BOOL,		/* true/false, stored 1/0 */
	GW_KU_ENUM,		/* one of words[] by name */
	/* an integer (range min..max) or a size string (1..max2 bytes), which sets knob alt */
	GW_KU_COUNT_OR_SIZE,
};

enum gw_key_wire { GW_KW_NONE, GW_KW_U32, GW_KW_S32, GW_KW_U64, GW_KW_U8 };
/* int64_t (GW_UNSET), int (-1 unset) or bool (false reads as unset) */
enum gw_key_field { GW_KF_INT64, GW_KF_INT, GW_KF_BOOL };

/* One value a key can take by name: the config's word and tc's word for it. */
struct gw_key_word {
	const char *name;	/* in the config (NULL: only tc prints it) */
	int64_t value;
	const char *tc;		/* tc(8)'s word for the value, printed alone */
};

/*
 * One knob of a kind. Its value lives at off in the kind's options (union gw_qopts); unset is
 * GW_UNSET (field INT64) or -1 (field INT). A knob without a config name is set by the plan
 * (cake's overhead from the link's sizing); one without a tc word is not printed.
 */
struct gw_key {
	const char *name;	/* the config's key; NULL: not a config key */
	enum gw_key_unit unit;
	int64_t min, max;	/* the config's range, in the unit's base */
	int64_t max2;		/* COUNT_OR_SIZE: the size form's maximum */
	int alt;		/* COUNT_OR_SIZE: index of the knob the size form sets to 1 */
	const struct gw_key_word *words;	/* ENUM: the names; BOOL/RATE: extra words
						 * (ack_filter "aggressive", "unlimited"); the
						 * tc words of BOOL's 0 and 1; NULL-name ends */
	size_t n_words;
	const char *tc;		/* tc's word before the value ("limit"), NULL: words only */
	const char *dflt;	/* the kernel's default, as the man page says it (documentation) */
	int attr;		/* netlink attribute in TCA_OPTIONS, 0: the kind encodes it itself */
	enum gw_key_wire wire;
	size_t off;		/* offsetof(union gw_qopts, ...) */
	enum gw_key_field field;
	bool approx;		/* a time the kernel keeps in its own units: compare with gw_near */
};

#define GW_KEYS_N(tbl) (sizeof(tbl) / sizeof((tbl)[0]))

/* One named extended statistic of a kind, with how JSON and Prometheus show it. */
struct gw_xstat {
	const char *json;	/* key in the kind's JSON object */
	const char *prom;	/* Prometheus family (gatewayd_...), NULL: JSON only */
	const char *type;	/* "counter" or "gauge" */
	const char *help;
	double scale;		/* Prometheus value = stored value * scale */
	double json_scale;	/* 1: JSON shows the integer; else a number, stored * json_scale */
};

#define GW_XSTATS_MAX 16	/* values of one kind, besides its groups */
#define GW_XGROUPS_MAX 8	/* groups (cake's tins) */
#define GW_XGROUP_FIELDS 16	/* values of one group */

/*
 * The extended statistics of a kind: values, and optionally an array of groups of values
 * (cake's tins), each an object in JSON's group array and a label on its Prometheus samples.
 */
struct gw_xstats_desc {
	const char *json;	/* the class's JSON key for the kind's object ("fq_codel") */
	bool json_always;	/* the key is in every class, null where the queue is another kind */
	const struct gw_xstat *fields;
	size_t n_fields;
	const char *group_json;	/* "tins", NULL: no groups */
	const char *group_label;	/* "tin" */
	const char *group_index_json;	/* "index": the group's number in its object */
	/* The name of group g of n, as the kind's own tools call it ("Best effort"), put in the
	 * group's object as "name"; NULL (or a NULL answer): unnamed. */
	const char *(*group_name)(int g, int n);
	const struct gw_xstat *group_fields;
	size_t n_group_fields;
};

/* The values of one kind's extended statistics, as the descriptor names them. */
struct gw_xstats {
	const struct gw_xstats_desc *desc;	/* NULL: the queue has none */
	uint64_t v[GW_XSTATS_MAX];
	int n_groups;
	uint64_t g[GW_XGROUPS_MAX][GW_XGROUP_FIELDS];
};

/* The index of a named value in d (or in its groups' fields), or -1. */
static inline int gw_xstat_index(const struct gw_xstat *f, size_t n, const char *json)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].json && __builtin_strcmp(f[i].json, json) == 0)
			return (int)i;
	return -1;
}

#endif
