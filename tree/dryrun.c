/* tree/dryrun.c: print the plan as runnable commands, touching nothing. Interfaces that
 * exist lend their MTU and type to the derived values; absent ones are assumed ethernet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if_arp.h>
#include <linux/pkt_sched.h>
#include "tree/classify.h"
#include "tree/dryrun.h"
#include "tree/plan.h"

static void facts_for(struct gw_nl *nl, const char *name, struct gw_link_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!nl || gw_link_get(nl, name, info, NULL)) {
		memset(info, 0, sizeof(*info));
		info->mtu = GW_DEFAULT_MTU;
		info->arptype = ARPHRD_ETHER;
	}
}

int gw_dryrun(FILE *out, struct gw_nl *nl, const struct gw_config *cfg, char *err,
	      size_t errlen)
{
	struct gw_link_facts *facts = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*facts));
	struct gw_plan plan;
	char line[2048];
	int r;

	if (!facts)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_links; i++) {
		facts_for(nl, cfg->links[i].interface, &facts[i].dev);
		facts_for(nl, cfg->links[i].dir[GW_DIR_INGRESS].ifb, &facts[i].ifb);
	}
	r = gw_plan_build(cfg, facts, NULL, &plan);
	free(facts);
	if (r) {
		snprintf(err, errlen, "planning: %s", strerror(-r));
		return r;
	}
	fprintf(out, "# gatewayd %s: the tree for %s, as tc commands\n", GW_VERSION, cfg->file);
	/* containers have no tree until an interface matches: said, not guessed */
	for (size_t i = 0; i < cfg->n_containers; i++)
		fprintf(out, "# container entry #%zu (line %d): a tree per matching interface, made when "
			"it appears (ifb gwc-IFINDEX for ingress)\n", i + 1, cfg->containers[i].line);
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_dir_cfg *in = &cfg->links[i].dir[GW_DIR_INGRESS];

		if (in->present)
			fprintf(out, "ip link add name %s up type ifb\n", in->ifb);
		if (cfg->links[i].sizing.set && cfg->links[i].sizing.linklayer == GW_LL_PTM)
			fprintf(out, "# link '%s': tc's size table has no ptm; gatewayd's own table also "
				"counts the 65/64 encoding, the commands below do not\n",
				cfg->links[i].name);
	}
	for (size_t i = 0; i < plan.n && !r; i++) {
		const struct gw_plan_obj *p = &plan.objs[i];

		r = gw_obj_format_tc(&p->obj, p->dev, cfg->links[p->link].dir[GW_DIR_INGRESS].ifb,
				     line, sizeof(line));
		if (r) {
			snprintf(err, errlen, "formatting link '%s' %s: %s",
				 cfg->links[p->link].name, p->what, strerror(-r));
			break;
		}
		/* roots replace the kernel's default qdisc, as gatewayd itself does */
		if (p->obj.parent == TC_H_ROOT && !strncmp(line, "tc qdisc add ", 13))
			fprintf(out, "tc qdisc replace %s\n", line + 13);
		else
			fprintf(out, "%s\n", line);
	}
	if (!r)
		r = gw_classify_dryrun(out, cfg, &plan, err, errlen);
	gw_plan_free(&plan);
	return r;
}
