/* gatewayd/heal.c: self-healing. A rebuild is remove-what-is-left-of-ours, then a fresh,
 * verified apply, so it has the same all-or-nothing guarantee as start-up. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "gatewayd/heal.h"

struct scan {
	const struct gw_config *cfg;
	const struct gw_applied *a;
	bool relevant;
};

static bool our_name(const struct gw_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		if (!strcmp(l->interface, name) ||
		    (l->dir[GW_DIR_INGRESS].present && !strcmp(l->dir[GW_DIR_INGRESS].ifb, name)))
			return true;
	}
	return false;
}

static bool our_ifindex(const struct gw_applied *a, int ifindex)
{
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].ifindex == ifindex)
			return true;
	return false;
}

static int scan_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct scan *s = arg;

	switch (nlh->nlmsg_type) {
	case RTM_NEWQDISC:
	case RTM_DELQDISC: {
		const struct tcmsg *t = nlmsg_data(nlh);

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*t)) && our_ifindex(s->a, t->tcm_ifindex) &&
		    (t->tcm_parent == TC_H_ROOT || t->tcm_parent == TC_H_INGRESS))
			s->relevant = true;
		break;
	}
	case RTM_NEWLINK:
	case RTM_DELLINK: {
		struct nlattr *tb[IFLA_MAX + 1];
		char name[IFNAMSIZ] = "";

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg)) &&
		    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX,
				NULL) == 0 && tb[IFLA_IFNAME]) {
			nla_strlcpy(name, tb[IFLA_IFNAME], sizeof(name));
			if (our_name(s->cfg, name))
				s->relevant = true;
		}
		break;
	}
	default:
		break;
	}
	return 0;
}

bool gw_heal_pending(struct gw_monitor *m, const struct gw_config *cfg,
		     const struct gw_applied *a)
{
	struct scan s = { .cfg = cfg, .a = a };

	if (gw_monitor_read(m, scan_cb, &s))
		return true;	/* events were lost */
	return s.relevant;
}

int gw_heal(struct gw_nl *nl, struct gw_monitor *m, const struct gw_config *cfg,
	    struct gw_applied *a, struct gw_sampler *s, char *err, size_t errlen)
{
	struct gw_applied fresh;
	char why[512] = "";
	int r;

	if (a->n_devs && gw_verify(nl, cfg, a, why, sizeof(why)) == 0)
		return 0;
	/* what is left of ours goes first; a foreign tree that took our place is not ours to
	 * remove, and the apply will refuse it unless the config says replace */
	gw_remove(nl, a, err, errlen);
	r = gw_apply(nl, cfg, &a->plan, &fresh, err, errlen);
	/* our own requests raised notifications of their own: they are not news */
	gw_monitor_read(m, NULL, NULL);
	if (r)
		return r;
	gw_applied_free(a);
	*a = fresh;
	gw_sampler_rebind(s, a);
	snprintf(err, errlen, "%s", why[0] ? why : "the tree was incomplete");
	return 1;
}
