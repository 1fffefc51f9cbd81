/* qdisc/qdisc.h: one ops table per qdisc kind, the tc objects gatewayd plans, and the netlink
 * encoding/decoding of both. Nothing here logs, reads the config or keeps global state. */
#ifndef GW_QDISC_H
#define GW_QDISC_H

#include <stddef.h>
#include <stdint.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include "qdisc/model.h"
#include "qdisc/kind.h"

/* gatewayd's handles: root E000:, htb top class E000:1, leaf classes E000:(10+i), leaf qdiscs
 * (1000+i): (so up to 50,000 classes never meet the root's major). */
#define GW_ROOT_MAJOR 0xE000u
#define GW_ROOT_HANDLE (GW_ROOT_MAJOR << 16)
#define GW_TOP_MINOR 0x1u
#define GW_LEAF_MINOR_BASE 0x10u
#define GW_LEAF_MAJOR_BASE 0x1000u
#define GW_INGRESS_HANDLE 0xFFFF0000u
#define GW_FILTER_PRIO 49152u	/* the u32 redirect's priority on ingress ffff: */

#define GW_HANDLE(maj, min) (((uint32_t)(maj) << 16) | ((uint32_t)(min) & 0xFFFFu))

enum gw_obj_type { GW_OBJ_QDISC, GW_OBJ_CLASS, GW_OBJ_FILTER };

struct gw_tc_stats;
struct gw_qdisc_ops;

/* What a kind does as a direction's shaper (the root of its tree). */
enum gw_shaper_role {
	GW_SHAPER_NONE = 0,	/* not a shaper: a leaf, or the ingress hook */
	GW_SHAPER_CLASSES,	/* classful (htb): a class per config class, each with its own
				 * counters and its own leaf qdisc */
	GW_SHAPER_BUCKET,	/* one bucket (tbf): one leaf under it, whose counters are the
				 * class's (the bucket's class has none) */
	GW_SHAPER_SELF,		/* shapes by itself (cake): the root is the queue and holds its
				 * counters; the direction's child block carries its settings */
};

/* What the plan gives a direction's shaper. */
struct gw_shape {
	uint64_t rate;		/* bytes/s */
	int64_t burst;		/* bucket: bytes */
	int64_t limit;		/* bucket: bytes of queue */
	uint32_t defcls;	/* classes: the default class's minor */
};

/* One kernel object: a qdisc, an htb class, or the u32 redirect filter on ingress. */
struct gw_tc_obj {
	enum gw_obj_type type;
	enum gw_kind kind;	/* qdisc: its kind; class: GW_KIND_HTB; filter: GW_KIND_NONE */
	int ifindex;
	uint32_t handle;	/* filter: 0 (kernel assigns) */
	uint32_t parent;
	union gw_qopts q;	/* qdisc options */
	struct gw_htb_class_opts cls;	/* class options */
	struct gw_sizing stab;	/* root qdiscs: the size table (set=false: none) */
	int32_t stab_overhead;	/* overhead relative to the skb (L2 frame), for the table */
	int redirect_ifindex;	/* filter: mirred egress redirect target */
	bool inner;		/* class with children: htb sets its quantum only while it is a
				 * leaf, so a read-back quantum means nothing */
};

/* A kind's check of a child's options as a whole (after each key passed its own range):
 * returns 0, or -EINVAL with the message in msg and the config key it is about in *key. The
 * shaper is the direction's (the child sits under it). */
typedef int (*gw_child_check_fn)(const union gw_qopts *o, const struct gw_qdisc_ops *shaper,
				 const char **key, char *msg, size_t len);

struct gw_qdisc_ops {
	const char *name;	/* the config's name */
	const char *module;	/* kernel module that provides it */
	/*
	 * The option calls below may be left NULL: the registry's gw_kind_*() then works from
	 * the kind's key table (keys, n_keys, maxattr), and a kind without one has no options.
	 */
	/* the kernel's kind string for these options (fifo: pfifo or bfifo); NULL: name */
	const char *(*tc_kind)(const union gw_qopts *o);
	/* Does the kind answer to the kernel's kind string (and, o not NULL, set the options
	 * the string implies)? NULL: to its name alone. */
	int (*tc_kind_in)(const char *tc_kind, union gw_qopts *o);
	void (*init)(union gw_qopts *o);
	/* Append TCA_OPTIONS for the set knobs only. Returns 0 or -errno. */
	int (*encode)(struct nl_msg *msg, const union gw_qopts *o);
	/* Parse the kernel's TCA_OPTIONS (may be NULL) back into options. */
	int (*decode)(const struct nlattr *opts, union gw_qopts *o);
	/* tc(8) arguments after the kind ("limit 1000"); returns the length written or -errno. */
	int (*format)(char *buf, size_t len, const union gw_qopts *o);
	/* Do two option sets mean the same kernel state? (the knobs that were set in want) */
	int (*same)(const union gw_qopts *want, const union gw_qopts *got);
	/* Decode the kind's extended statistics (TCA_STATS_APP) into the common shape and its
	 * named values (xdesc); NULL: it has none. out is struct gw_tc_stats (qdisc/stats.h). */
	int (*xstats)(const struct nlattr *app, struct gw_tc_stats *out);
	const struct gw_xstats_desc *xdesc;
	/* The kind's knobs (qdisc/kind.h): its config keys, tc words and attributes. */
	const struct gw_key *keys;
	size_t n_keys;
	int maxattr;		/* the highest TCA_<KIND>_* attribute the keys' decoder reads */
	bool leaf;		/* a child kind the config may name */
	gw_child_check_fn check;	/* NULL: the keys' own ranges are all */
	enum gw_shaper_role shaper;	/* GW_SHAPER_NONE: a leaf or the hook only */
	/* As a direction's shaper: take the plan's rate (and bucket, default class). */
	void (*set_shape)(union gw_qopts *o, const struct gw_shape *sh);
	/* As a leaf that shapes traffic of rate bytes/s on a link of sizing s: fill what the
	 * config leaves to gatewayd (fq_codel: target for slow links; cake: the overhead). */
	void (*plan_leaf)(union gw_qopts *o, uint64_t rate, const struct gw_sizing *s);
	bool hook;		/* the ingress hook: handle ffff:, parent ingress */
	/* the kernel cannot change its options in place (htb: default class, size table;
	 * some kinds have no change operation at all): a leaf is replaced, a root rebuilt */
	bool no_change;
	/* the child settings gatewayd --compare runs it with ("" for its defaults), and on an
	 * ingress ifb */
	const char *bench, *bench_ingress;
};

/* registry.c */
const struct gw_qdisc_ops *gw_qdisc_ops(enum gw_kind kind);
enum gw_kind gw_qdisc_kind(const struct gw_qdisc_ops *ops);	/* GW_KIND_NONE: not listed */
const struct gw_qdisc_ops *gw_qdisc_ops_by_name(const char *name);	/* config name */
const struct gw_qdisc_ops *gw_qdisc_ops_by_tc_kind(const char *tc_kind);	/* kernel name */
const char *gw_kind_name(enum gw_kind kind);
void gw_qopts_init(enum gw_kind kind, union gw_qopts *o);
/* A kind's option calls, its own or, where it has none, its key table's (see gw_qdisc_ops). */
const char *gw_kind_tc_name(const struct gw_qdisc_ops *ops, const union gw_qopts *o);
int gw_kind_encode(const struct gw_qdisc_ops *ops, struct nl_msg *msg, const union gw_qopts *o);
int gw_kind_decode(const struct gw_qdisc_ops *ops, const struct nlattr *opts, union gw_qopts *o);
int gw_kind_format(const struct gw_qdisc_ops *ops, char *buf, size_t len,
		   const union gw_qopts *o);
int gw_kind_same(const struct gw_qdisc_ops *ops, const union gw_qopts *want,
		 const union gw_qopts *got);
/* The leaf kinds a config may name, in registry order: the i-th, or NULL past the last. */
const struct gw_qdisc_ops *gw_qdisc_leaf(size_t i);
/* The extended statistics' descriptors of every kind that has them, in registry order (what
 * the renderers walk); returns the count. */
size_t gw_qdisc_xdescs(const struct gw_xstats_desc **out, size_t max);
/* The shapers, in the order the config lists them: the i-th, or NULL past the last. */
const struct gw_qdisc_ops *gw_qdisc_shaper(size_t i);
/* A kind's role as a shaper (GW_SHAPER_NONE for none or an unknown kind). */
enum gw_shaper_role gw_shaper_role(enum gw_kind kind);

/* per kind (one file each) */
extern const struct gw_qdisc_ops gw_fifo_ops, gw_fq_codel_ops, gw_cake_ops, gw_htb_ops,
	gw_tbf_ops, gw_ingress_ops;

/* knob.c: a key's value in a kind's options, as int64 (GW_UNSET when not set) */
int64_t gw_key_get(const union gw_qopts *o, const struct gw_key *k);
void gw_key_set(union gw_qopts *o, const struct gw_key *k, int64_t v);
/* The key's word for value v, or NULL. */
const struct gw_key_word *gw_key_word(const struct gw_key *k, int64_t v);

/* htb.c: classes */
int gw_htb_class_encode(struct nl_msg *msg, const struct gw_htb_class_opts *c);
int gw_htb_class_decode(const struct nlattr *opts, struct gw_htb_class_opts *c);
int gw_htb_class_format(char *buf, size_t len, const struct gw_htb_class_opts *c);
uint32_t gw_ticks_from_bytes(uint64_t bytes, uint64_t rate);	/* psched ticks to send */
uint64_t gw_bytes_from_ticks(uint32_t ticks, uint64_t rate);

/* stab.c: link-layer size table */
int gw_stab_encode(struct nl_msg *msg, const struct gw_sizing *s, int32_t skb_overhead);
int gw_stab_format(char *buf, size_t len, const struct gw_sizing *s, int32_t skb_overhead);
uint32_t gw_wire_size(const struct gw_sizing *s, uint32_t l3_len);	/* bytes on the wire */

/* filter.c: the ingress match-all u32 + mirred redirect */
int gw_redirect_encode(struct nl_msg *msg, int target_ifindex);
int gw_redirect_decode(const struct nlattr *opts, int *target_ifindex);

/* msg.c: whole requests and replies */
/* Build RTM_NEW{QDISC,TCLASS,TFILTER} (flags: NLM_F_CREATE|... chosen by the caller). */
int gw_obj_build(const struct gw_tc_obj *obj, int nlm_flags, struct nl_msg **out);
/* The flags that create a planned object: a root replaces what sits there (the kernel's
 * default, or a foreign tree the caller was allowed to replace), everything else is created
 * exclusively, so that a handle already taken is refused rather than changed. */
int gw_obj_create_flags(const struct gw_tc_obj *obj);
/* Build RTM_DEL{QDISC,...} for obj. */
int gw_obj_build_del(const struct gw_tc_obj *obj, struct nl_msg **out);
/* Parse one RTM_NEW{QDISC,TCLASS,TFILTER} message (as dumped) into obj; -ENOENT for a kind
 * gatewayd does not model (its kind string is copied into other_kind). */
int gw_obj_parse(const struct nlmsghdr *nlh, struct gw_tc_obj *obj, char *other_kind, size_t len);
/* Turn a dumped RTM_NEW* message into a request that re-creates the object (in place). */
int gw_obj_dump_to_request(struct nlmsghdr *nlh);
/* "tc qdisc add dev eth0 root handle e000: htb default 10" and friends. */
int gw_obj_format_tc(const struct gw_tc_obj *obj, const char *ifname, const char *ifb_name,
		     char *buf, size_t len);
/* Do the planned object and the one read back match (kind, handle, parent, set knobs)? On a
 * mismatch, describe it in why. */
int gw_obj_matches(const struct gw_tc_obj *want, const struct gw_tc_obj *got, char *why,
		   size_t len);

/* What differs between a planned object and the one read back (got NULL: it is not there), in
 * tc's words, "rate 5mbit, expected 20mbit, ceil ..."; only what gatewayd set counts, and a
 * size the kernel rounds only beyond gw_near. Returns how many attributes differ (0: none, as
 * gw_obj_matches would say); buf is "" then. diff.c */
int gw_obj_diff(const struct gw_tc_obj *want, const struct gw_tc_obj *got, char *buf, size_t len);

/* The kernel keeps buckets as times, so byte sizes come back rounded: 1% and a byte. The
 * difference is taken wide: either side may be GW_UNSET (INT64_MIN), which is near nothing
 * set (a reload whose derived target went from set to unset compares the two plans so). */
static inline int gw_near(int64_t want, int64_t got)
{
	__int128 d = (__int128)want - got;

	return (d < 0 ? -d : d) <= want / 100 + 1;
}

/* fmt.c: bounded appends for format() */
int gw_fmt(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
