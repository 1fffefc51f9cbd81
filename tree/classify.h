/* tree/classify.h: the classes' `match` blocks and `hosts` turned into classifiers, with
 * the class ids of the plan: the nftables table for egress (qdisc/nft.c) and u32 filters on
 * the ifbs for ingress; put in force after the tree, removed with it. */
#ifndef GW_CLASSIFY_H
#define GW_CLASSIFY_H

#include <stdio.h>
#include "config/config.h"
#include "tree/plan.h"
#include "qdisc/nft.h"

struct gw_applied;
struct gw_nl;

#define GW_U32_FILTERS_MAX 4096	/* per ingress direction */

struct gw_ingress_rules {
	size_t link;
	struct gw_rule *rules;		/* in class order */
	size_t n;
	bool on_iface;			/* on the link's interface (egress, classify_u32), not
					 * its ifb */
};

struct gw_classify {
	struct gw_nft_ruleset nft;	/* egress; empty when nothing is matched */
	struct gw_ingress_rules *in;
	size_t n_in;
};

/* From cfg and the plan's class slots. With resolve, cgroup paths become cgroup ids (they
 * must exist); without (dry run), rules keep the paths with a stand-in id. -errno with a
 * message naming the class on failure. */
int gw_classify_build(const struct gw_config *cfg, const struct gw_plan *plan, bool resolve,
		      struct gw_classify *out, char *err, size_t errlen);
void gw_classify_free(struct gw_classify *c);

/* Put cfg's classifiers in force for the tree a holds (a->plan): the ingress filters made
 * before the old ones go, then the nft table swapped in one batch. On failure nothing of the
 * new classifiers is left and err has the kernel's message. */
int gw_classify_apply(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		      char *err, size_t errlen);
/* For a classify_u32 config: are the u32 filters on each device of a the ones cfg's classes
 * make (either generation), and no other filter of gatewayd's priorities there? 0; -EPROTO
 * with the first difference in err as a tc command; -errno when they could not be read. */
int gw_classify_verify(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		       char *err, size_t errlen);
/* Remove gatewayd's nft table from nl's kernel (the ifb filters go with the ifb). Returns 0 or
 * -errno. */
int gw_classify_remove(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen);

/* --dry-run: the ingress filters as tc commands and the table as `nft -f` input. */
int gw_classify_dryrun(FILE *out, const struct gw_config *cfg, const struct gw_plan *plan,
		       char *err, size_t errlen);

#endif
