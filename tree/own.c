/* tree/own.c: telling gatewayd's own ifbs and ingress hooks from anyone else's, so
 * that it never deletes what it did not make. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include "tree/own.h"
#include "qdisc/qdisc.h"

/*
 * ifbs. A device's ifalias (IFLA_IFALIAS) is free text the kernel keeps and dumps; gatewayd
 * writes "gatewayd:PID" into every ifb it creates (qdisc/link.c sets it right after the
 * create, which takes no alias) and deletes an ifb only when it carries that mark and its kind
 * (IFLA_INFO_KIND) is ifb. Any "gatewayd:" counts, not only this pid's: one gatewayd runs per
 * network namespace (sys/instance.c), so a marked ifb that this process did not make
 * was left by one that is gone (killed), and is ours to take over or clean.
 */
void gw_own_ifb_mark(char *buf, size_t len)
{
	snprintf(buf, len, GW_OWN_IFB_MARK "%d", (int)getpid());
}

bool gw_own_ifb(const char *kind, const char *alias)
{
	return !strcmp(kind, "ifb") && !strncmp(alias, GW_OWN_IFB_MARK, strlen(GW_OWN_IFB_MARK));
}

int gw_own_ifb_del(struct gw_nl *nl, const char *name, char *what, size_t whatlen,
		   struct gw_nl_error *e)
{
	struct gw_link_info info;
	int r = gw_link_get(nl, name, &info, e);

	if (r == -ENODEV)
		return 0;
	if (r)
		return r;
	if (!gw_own_ifb(info.kind, info.alias)) {
		if (strcmp(info.kind, "ifb"))
			snprintf(what, whatlen, "a %s", info.kind[0] ? info.kind : "physical device");
		else
			snprintf(what, whatlen, "an ifb without gatewayd's mark in its alias");
		return 1;
	}
	r = gw_link_del(nl, name, e);
	return r == -ENODEV ? 0 : r;
}

/*
 * Ingress hooks. A qdisc carries no mark of its maker, and ingress and clsact both sit at
 * ffff:. What gatewayd puts there is always the same: kind "ingress", with one filter, its u32
 * redirect at prio GW_FILTER_PRIO (plan.c) to an ifb that carries gatewayd's mark. So a hook is
 * taken for gatewayd's only when it is of kind ingress and every filter on it is such a
 * redirect: a clsact is never ours, nor an ingress hook that holds anyone else's filter (a u32
 * at another prio, another classifier, a redirect to a device without our mark). Why that is sound: deleting such a hook takes
 * with it only the qdisc and gatewayd's own redirect, nothing anyone else put there (a foreign
 * filter makes the hook foreign); the one case it cannot tell, someone's empty ingress hook put
 * in place of ours, loses nothing when deleted. At start, a hook is taken for a leftover of an
 * earlier run only when it is ours by that rule and gatewayd's redirect is on it or its root
 * beside it (apply.c), since a hook someone added a moment ago is empty too.
 */
#define HOOK_TARGETS 8	/* redirects to look at; more on one hook: not a hook of ours */

struct hook_scan {
	int ifindex;
	bool found, foreign_filter;
	char kind[16];
	int target[HOOK_TARGETS];	/* where our-looking redirects send packets */
	size_t n_target;
};

static int hook_qdisc_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct hook_scan *h = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct nlattr *kind;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_ifindex != h->ifindex ||
	    t->tcm_parent != TC_H_INGRESS)
		return 0;
	h->found = true;
	kind = nlmsg_find_attr((struct nlmsghdr *)nlh, sizeof(*t), TCA_KIND);
	if (kind)
		nla_strlcpy(h->kind, kind, sizeof(h->kind));
	return 0;
}

static int hook_filter_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct hook_scan *h = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct nlattr *kind;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_ifindex != h->ifindex)
		return 0;
	struct gw_tc_obj o;
	int r;

	kind = nlmsg_find_attr((struct nlmsghdr *)nlh, sizeof(*t), TCA_KIND);
	if (TC_H_MAJ(t->tcm_info) >> 16 != GW_FILTER_PRIO || !kind || nla_strcmp(kind, "u32")) {
		h->foreign_filter = true;
		return 0;
	}
	/* a u32 at our prio: its redirect's target says whose (its hash table's own entry,
	 * which carries no action, says nothing) */
	r = gw_obj_parse(nlh, &o, NULL, 0);
	if (r == -ENOENT)
		return 0;
	if (r || h->n_target == HOOK_TARGETS)
		h->foreign_filter = true;
	else
		h->target[h->n_target++] = o.redirect_ifindex;
	return 0;
}

int gw_own_hook(struct gw_nl *nl, int ifindex, int made_ifb, enum gw_own_hook *out,
		bool *redirect, char *kind, size_t kindlen)
{
	struct hook_scan h = { .ifindex = ifindex };
	int r = gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, hook_qdisc_cb, &h, NULL);

	*out = GW_HOOK_NONE;
	*redirect = false;
	if (kind && kindlen)
		kind[0] = '\0';
	if (r)
		return r;
	if (!h.found)
		return 0;
	if (kind && kindlen)
		snprintf(kind, kindlen, "%s", h.kind);
	if (strcmp(h.kind, "ingress")) {
		*out = GW_HOOK_FOREIGN;
		return 0;
	}
	r = gw_nl_dump_tc(nl, RTM_GETTFILTER, ifindex, GW_INGRESS_HANDLE, hook_filter_cb, &h, NULL);
	if (r)
		return r;
	for (size_t i = 0; i < h.n_target && !h.foreign_filter; i++) {
		struct gw_link_info info;
		struct gw_nl_error e;

		/* made (this run put a hook there, redirecting to made_ifb): a redirect to that
		 * ifb is ours whatever its mark (replace = true lets gatewayd use an ifb it did not
		 * make), and one to a device that is gone is ours whose ifb went first (on stop,
		 * or deleted by someone): it sends nothing anywhere. A hook found at start: whose
		 * a redirect to nowhere was cannot be told, so not ours. (The kernel dumps a mirred
		 * whose device went with index 0.) */
		if (made_ifb > 0 && h.target[i] == made_ifb)
			continue;
		r = h.target[i] > 0 ? gw_link_get_index(nl, h.target[i], &info, &e) : -ENODEV;
		if ((r && (r != -ENODEV || !made_ifb)) ||
		    (!r && !gw_own_ifb(info.kind, info.alias)))
			h.foreign_filter = true;
	}
	*out = h.foreign_filter ? GW_HOOK_FOREIGN : GW_HOOK_OURS;
	*redirect = h.n_target > 0;
	return 0;
}
