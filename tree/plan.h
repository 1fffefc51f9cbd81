/* tree/plan.h: the desired tree, derived from the config and the interfaces' facts. */
#ifndef GW_PLAN_H
#define GW_PLAN_H

#include "config/config.h"
#include "qdisc/link.h"
#include "qdisc/qdisc.h"

#define GW_DEFAULT_MTU 1500
#define GW_TBF_LATENCY_US 20000	/* tbf queue when the config gives no latency */

/* What the planner needs to know of a link's devices (zeroes for a dry run without them). */
struct gw_link_facts {
	struct gw_link_info dev;	/* the interface */
	struct gw_link_info ifb;	/* its ifb, when the link shapes ingress */
	bool absent;			/* the interface is not there: the link waits for it
					 * and the plan has none of its objects */
	bool ingress_foreign;		/* an ingress hook gatewayd did not make is on the
					 * interface and the link has no replace = true: the
					 * plan has none of its ingress objects, no ifb */
	char hook_kind[16];		/* then: that hook's kind ("clsact", "ingress") */
};

struct gw_plan_obj {
	struct gw_tc_obj obj;
	size_t link;		/* index into cfg->links */
	char link_name[GW_NAME_MAX];
	char cls[GW_NAME_MAX];	/* a class and its leaf: the class's name; "" otherwise */
	uint32_t slot;		/* a class and its leaf: handles e000:(10+slot), (1000+slot): */
	enum gw_direction dir;
	uint64_t shaper_rate;	/* a direction's shaper (its root): the rate it shapes to, bytes/s;
				 * 0 on every other object */
	const char *dev;	/* interface name the object lives on */
	char what[GW_NAME_MAX + 48];	/* "egress class bulk", "ingress redirect"... */
};

struct gw_plan {
	struct gw_plan_obj *objs;	/* in creation order: parents before children */
	size_t n;
};

#define GW_MAX_SLOT (0xE000u - GW_LEAF_MAJOR_BASE)	/* leaf majors stay below the root's */

/* prev (may be NULL): the plan running now. A class keeps its slot (and so its handles) from
 * prev by name, so a reload can add and remove classes one by one; new classes get slots prev
 * did not use. */
int gw_plan_build(const struct gw_config *cfg, const struct gw_link_facts *facts,
		  const struct gw_plan *prev, struct gw_plan *out);
/* Does the plan hold objects of link (index into cfg->links)? Not when it waits. */
bool gw_plan_has_link(const struct gw_plan *p, size_t link);
/* The slots of a direction's classes, in config order (n of them). */
void gw_plan_slots(const struct gw_plan *p, size_t link, enum gw_direction dir, uint32_t *out,
		   size_t n);
void gw_plan_free(struct gw_plan *p);

/* Derived values (documented in gatewayd.conf(5)); rates in bytes/s, sizes in bytes. */
uint64_t gw_derive_burst(uint64_t rate, const struct gw_sizing *s, unsigned int mtu);
int64_t gw_derive_quantum(uint64_t rate, const struct gw_sizing *s, unsigned int mtu);
int64_t gw_derive_tbf_limit(uint64_t rate, int64_t burst, int64_t latency_us);
/* Size-table overhead: the config counts from the IP packet, the kernel from skb->len. */
int32_t gw_derive_stab_overhead(const struct gw_sizing *s, unsigned short arptype);

#endif
