/* qdisc/qdisc.h: one ops table per qdisc kind, the tc objects gatewayd plans, and the netlink
 * encoding/decoding of both. Nothing here logs, reads the config or keeps global state. */
#ifndef GW_QDISC_H
#define GW_QDISC_H

#include <stddef.h>
#include <stdint.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include "qdisc/model.h"

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

struct gw_qdisc_ops {
	enum gw_kind kind;
	const char *name;	/* the config's name */
	const char *module;	/* kernel module that provides it */
	/* the kernel's kind string for these options (fifo: pfifo or bfifo) */
	const char *(*tc_kind)(const union gw_qopts *o);
	void (*init)(union gw_qopts *o);
	/* Append TCA_OPTIONS for the set knobs only. Returns 0 or -errno. */
	int (*encode)(struct nl_msg *msg, const union gw_qopts *o);
	/* Parse the kernel's TCA_OPTIONS (may be NULL) back into options. */
	int (*decode)(const struct nlattr *opts, union gw_qopts *o);
	/* tc(8) arguments after the kind ("limit 1000"); returns the length written or -errno. */
	int (*format)(char *buf, size_t len, const union gw_qopts *o);
	/* Do two option sets mean the same kernel state? (the knobs that were set in want) */
	int (*same)(const union gw_qopts *want, const union gw_qopts *got);
	/* Decode the kind's extended statistics (TCA_STATS_APP); NULL: it has none. The
	 * argument is struct gw_tc_stats (qdisc/stats.h). */
	int (*xstats)(const struct nlattr *app, struct gw_tc_stats *out);
};

/* registry.c */
const struct gw_qdisc_ops *gw_qdisc_ops(enum gw_kind kind);
const struct gw_qdisc_ops *gw_qdisc_ops_by_name(const char *name);	/* config name */
const struct gw_qdisc_ops *gw_qdisc_ops_by_tc_kind(const char *tc_kind);	/* kernel name */
const char *gw_kind_name(enum gw_kind kind);
void gw_qopts_init(enum gw_kind kind, union gw_qopts *o);

/* per kind (one file each) */
extern const struct gw_qdisc_ops gw_fifo_ops, gw_fq_codel_ops, gw_cake_ops, gw_htb_ops,
	gw_tbf_ops, gw_ingress_ops;

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
