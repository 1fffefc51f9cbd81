/* tree/ctr_tree.c: the one-link config a container's interface is shaped by (htb, one
 * class per direction, the AQM leaf under it, ingress through an ifb; with subnets, a second
 * class that does not limit and the u32 filters that sort into the two). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree/ctr_tree.h"

void gw_ctr_ifb_name(int ifindex, char *buf, size_t len)
{
	snprintf(buf, len, GW_CTR_IFB_PREFIX "%d", ifindex);
}

/* htb with one class: the top class at the cap (ceil), the class assured rate and capped at
 * ceil, the entry's child under it. Ingress goes through "gwc-IFINDEX". */
void gw_ctr_synthesize(const struct gw_config *main_cfg, const struct gw_ctr_cfg *r,
		       const char *ifname, int ifindex, struct gw_ctr_synth *out)
{
	memset(out, 0, sizeof(*out));
	out->cfg.file = main_cfg->file;
	out->cfg.interval_us = main_cfg->interval_us;
	out->cfg.links = &out->link;
	out->cfg.n_links = 1;
	snprintf(out->link.name, sizeof(out->link.name), GW_CTR_LINK_PREFIX "%s", ifname);
	snprintf(out->link.interface, sizeof(out->link.interface), "%s", ifname);
	/* a container's veth gone before its tree went in is a failure, not a link to wait for */
	out->link.required = true;
	out->link.line = r->line;
	for (int d = 0; d < 2; d++) {
		const struct gw_ctr_dir_cfg *rd = &r->dir[d];
		struct gw_dir_cfg *dir = &out->link.dir[d];
		struct gw_class_cfg *c = &out->cls[d][0];

		if (!rd->present)
			continue;
		dir->present = true;
		dir->shaper = GW_KIND_HTB;
		dir->rate = rd->ceil;
		dir->burst = GW_UNSET;
		dir->latency_us = GW_UNSET;
		dir->classes = c;
		dir->n_classes = 1;
		dir->child.kind = GW_KIND_NONE;
		dir->line = rd->line;
		gw_class_default(c, rd->rate, rd->ceil, &rd->child, rd->line);
		if (d == GW_DIR_INGRESS)
			gw_ctr_ifb_name(ifindex, dir->ifb, sizeof(dir->ifb));
	}
}

int gw_ctr_subnets(struct gw_ctr_synth *s, const struct gw_prefix *v, size_t n,
		   bool listed_shaped)
{
	struct gw_match *match;

	if (n > GW_CTR_SUBNETS_MAX)
		n = GW_CTR_SUBNETS_MAX;
	if (!n)
		return 0;
	if (!(match = calloc(2 * GW_CTR_MATCH_GROUPS, sizeof(*match))))
		return -ENOMEM;
	free(s->match);
	s->match = match;
	for (int d = 0; d < 2; d++) {
		struct gw_dir_cfg *dir = &s->link.dir[d];
		struct gw_class_cfg *lim = &s->cls[d][0], *free_cls = &s->cls[d][1];
		struct gw_class_cfg *listed = listed_shaped ? lim : free_cls;
		struct gw_match *groups = &match[d * GW_CTR_MATCH_GROUPS];

		if (!dir->present)
			continue;
		gw_class_default(free_cls, GW_CTR_UNSHAPED_RATE, GW_CTR_UNSHAPED_RATE, &lim->child,
				 lim->line);
		snprintf(lim->name, sizeof(lim->name), "shaped");
		snprintf(free_cls->name, sizeof(free_cls->name), "unshaped");
		lim->is_default = !listed_shaped;
		free_cls->is_default = !lim->is_default;
		/* the top class lets the unlimited one through; the limited one still has the
		 * burst it was given */
		dir->rate = GW_CTR_UNSHAPED_RATE;
		dir->burst = GW_UNSET;
		dir->n_classes = 2;
		for (size_t i = 0; i < n; i++) {
			struct gw_match *m = &groups[i / GW_MATCH_LIST_MAX];

			m->proto = -1;
			m->line = lim->line;
			/* the remote end: the sender of what goes into the container (the host
			 * end's egress), the receiver of what comes out of it (the ifb) */
			if (d == GW_DIR_EGRESS)
				m->src[m->n_src++] = v[i];
			else
				m->dst[m->n_dst++] = v[i];
		}
		listed->match = groups;
		listed->n_match = (n + GW_MATCH_LIST_MAX - 1) / GW_MATCH_LIST_MAX;
	}
	s->cfg.classify_u32 = true;
	return 0;
}

void gw_ctr_synth_free(struct gw_ctr_synth *s)
{
	free(s->match);
	s->match = NULL;
}
