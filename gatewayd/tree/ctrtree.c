/* gatewayd/tree/ctrtree.c: the one-link config a container's interface is shaped by (htb, one
 * class per direction, the AQM leaf under it, ingress through an ifb). */
#include <stdio.h>
#include <string.h>
#include "gatewayd/tree/ctrtree.h"

void gw_ctr_ifb_name(int ifindex, char *buf, size_t len)
{
	snprintf(buf, len, GW_CTR_IFB_PREFIX "%d", ifindex);
}

/* htb with one class: the top class at the cap (ceil), the class assured rate and capped at
 * ceil, the entry's child under it. Ingress goes through "gwc-IFINDEX". */
void gw_ctr_synthesize(const struct gw_config *main_cfg, const struct gw_container_cfg *r,
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
		struct gw_class_cfg *c = &out->cls[d];

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
