/* tree/apply.h: putting the plan into the kernel all or nothing, checking it, and taking
 * out exactly what gatewayd put in. */
#ifndef GW_APPLY_H
#define GW_APPLY_H

#include "tree/plan.h"
#include "qdisc/nl.h"

/* A device gatewayd shapes, with what it found there and what it made. */
struct gw_dev {
	char name[IFNAMSIZ];
	int ifindex;
	size_t link;
	bool is_ifb;
	bool ifb_created;	/* gatewayd made this ifb and deletes it on stop */
	bool ifb_existed;	/* the ifb was there before this apply (a tree to adopt?) */
	bool root;		/* gatewayd owns the root qdisc (E000:) */
	bool ingress;		/* gatewayd owns the ingress hook (ffff:) */
	bool leftover_root;	/* our root from an earlier run was there */
	bool old_ingress;	/* an ingress hook was there where gatewayd wants one */
	bool foreign_root;	/* a root qdisc not ours and not the kernel default was there */
	bool foreign_ingress;	/* an ingress hook not ours (tree/own.c) was there */
	char hook_kind[16];	/* the kind of the hook found there, "" for none */
	struct nl_msg **saved;	/* that foreign tree, to put back if apply fails */
	size_t n_saved;
};

struct gw_applied {
	struct gw_plan plan;
	struct gw_link_facts *facts;
	struct gw_dev *devs;
	size_t n_devs;
	double seconds;		/* time the kernel took to take the tree */
	bool adopted;		/* the tree was already there and was kept (changed in place) */
	bool nft_table;		/* gatewayd's nft table is in force (tree/classify.c) */
	unsigned int u32_gen;	/* which prio pair holds the ingress classifiers (0 or 1) */
	bool classify_stale;	/* someone else touched our nft table or ifb filters since
				 * they were put in (gatewayd/heal.c puts them back) */
	bool heal_due;		/* a change by someone else came while gatewayd made its own:
				 * the tree is to be looked at again (gatewayd/heal.c) */
};

/* Apply cfg: the tree of its links whose interfaces are there; a link whose interface is
 * missing waits (facts[i].absent, no devices, no objects), unless it is required. On failure everything is as it was before and err says what the kernel refused,
 * naming the link, direction, object, tc command and the kernel's message. prev (may be
 * NULL): the plan that ran before, whose class handles are kept (see gw_plan_build). */
int gw_apply(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_plan *prev,
	     struct gw_applied *out, char *err, size_t errlen);
/* gw_apply that asks stop(arg) between its steps and between chunks of its batch; true stops
 * it: what it made is undone as on a failure, and it returns -EINTR with err empty, or holding
 * "; and while undoing it: ..." when the undo fell short. stop NULL: gw_apply. An adopted tree
 * (a->adopted) is not asked about: it was there before. */
typedef bool (*gw_apply_stop_fn)(void *arg);
int gw_apply_stoppable(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_plan *prev,
		       struct gw_applied *out, gw_apply_stop_fn stop, void *arg, char *err,
		       size_t errlen);
/* For a reload that adds links: prepare link i of cfg as an apply would (look its devices up
 * into a->facts[i], append them to a->devs, create a missing ifb, refuse a foreign root unless
 * replace). Whatever it made is undone by gw_apply_undo on a's devices. */
int gw_apply_prepare_link(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
			  size_t i, char *err, size_t errlen);
/* Remove what gatewayd made on a's devices (roots, hooks, created ifbs, as flagged) and put
 * back the foreign trees it had saved; a failure is appended to err. */
void gw_apply_undo(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen);
enum gw_obj_state { GW_OBJ_SAME, GW_OBJ_DIFFERS, GW_OBJ_MISSING };

/* Read the tree back and judge each planned object into state[i] (may be NULL); 0 when all
 * match the plan, -EPROTO with the first difference in err. */
int gw_readback(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		enum gw_obj_state *state, char *err, size_t errlen);
/* gw_readback that also copies each object read back that differs (state GW_OBJ_DIFFERS)
 * into got[i] (got: a->plan.n of them, or NULL), to say what differs and to mend it. */
int gw_readback_got(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		    enum gw_obj_state *state, struct gw_tc_obj *got, char *err, size_t errlen);
/* Read the tree back and compare with the plan; 0 or -EPROTO with the first difference. */
int gw_verify(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
	      char *err, size_t errlen);
/* Remove what gatewayd created (roots under its handle, its ingress hooks, its ifbs). Returns
 * the number of objects it could not remove (each reported through err once). */
int gw_remove(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen);
/* How many of cfg's links wait for their interface in a. */
size_t gw_applied_waiting(const struct gw_config *cfg, const struct gw_applied *a);
/* Is ifindex one of the devices a shapes (an interface or an ifb of its tree)? */
bool gw_applied_ours(const struct gw_applied *a, int ifindex);
void gw_applied_free(struct gw_applied *a);

#endif
