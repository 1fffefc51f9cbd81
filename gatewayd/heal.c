/* gatewayd/heal.c: self-healing. A rebuild is remove-what-is-left-of-ours, then a fresh,
 * verified apply, so it has the same all-or-nothing guarantee as start-up. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include "tree/classify.h"
#include "gatewayd/heal.h"
#include "sys/log.h"
#include "tree/heal_inplace.h"
#include "tree/reload.h"
#include "tree/own.h"
#include "qdisc/nft.h"

struct scan {
	const struct gw_config *cfg;
	const struct gw_applied *a;
	const struct gw_nl *nl;	/* gatewayd's handle: its kernel's nf_tables too */
	uint32_t own;		/* gatewayd's rtnetlink port id: its own requests' events */
	bool relevant;
	bool classify;		/* our nft table or an ingress filter of ours changed */
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

/* Does an nf_tables notification concern table inet gatewayd? Every object's message (table,
 * chain, rule, set, element, object, flowtable) names its table in attribute 1. */
static bool our_nft(const struct nlmsghdr *nlh)
{
	const struct nfgenmsg *g = nlmsg_data(nlh);
	unsigned int type = NFNL_MSG_TYPE(nlh->nlmsg_type);
	struct nlattr *tb[2];

	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES || type == NFT_MSG_NEWGEN ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)) || g->nfgen_family != NFPROTO_INET)
		return false;
	if (nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*g), tb, 1, NULL) || !tb[1])
		return false;
	return nla_len(tb[1]) >= (int)sizeof(GW_NFT_TABLE) &&
	       !strncmp(nla_data(tb[1]), GW_NFT_TABLE, sizeof(GW_NFT_TABLE));
}

/* Does any link classify at ingress (u32 filters of ours on its ifb)? */
static bool ingress_rules(const struct gw_config *cfg)
{
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_dir_cfg *d = &cfg->links[i].dir[GW_DIR_INGRESS];

		for (size_t k = 0; d->present && k < d->n_classes; k++)
			if (d->classes[k].n_match)
				return true;
	}
	return false;
}

static int scan_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct scan *s = arg;

	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) == NFNL_SUBSYS_NFTABLES) {
		/* a transaction's events carry the port id of the socket that sent it: our own
		 * batches' (a reload's, a heal's) are not news, anyone else's are, even one
		 * made in the moment after ours and read with it */
		if (nlh->nlmsg_pid && gw_nft_portid_ours(s->nl, nlh->nlmsg_pid))
			return 0;
		if (s->cfg->owns_nft && s->a->nft_table && our_nft(nlh))
			s->relevant = s->classify = true;
		return 0;
	}
	/* the kernel stamps a tc change's events with the port id of the socket that asked for
	 * it (and, since Linux 6.3, a link's made or deleted): ours (a reload, autorate's rate,
	 * a heal, our ifbs) are not news, anyone else's are, even those that came while ours
	 * were being made */
	if (nlh->nlmsg_pid && nlh->nlmsg_pid == s->own)
		return 0;
	switch (nlh->nlmsg_type) {
	case RTM_NEWTFILTER:
	case RTM_DELTFILTER: {
		const struct tcmsg *t = nlmsg_data(nlh);

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) ||
		    !gw_applied_ours(s->a, t->tcm_ifindex))
			break;
		/* the ingress redirect, on the interface's hook: part of the tree */
		if (t->tcm_parent == GW_INGRESS_HANDLE)
			s->relevant = true;
		/* an ingress classifier on one of our ifbs: only ours are there */
		if (t->tcm_parent == TC_H_MAKE(GW_ROOT_HANDLE, 0) && s->cfg->owns_nft &&
		    ingress_rules(s->cfg))
			s->relevant = s->classify = true;
		break;
	}
	case RTM_NEWQDISC:
	case RTM_DELQDISC:
	case RTM_NEWTCLASS:
	case RTM_DELTCLASS: {
		/* roots, hooks, classes and leaves: a read-back says whether it matters */
		const struct tcmsg *t = nlmsg_data(nlh);

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*t)) &&
		    gw_applied_ours(s->a, t->tcm_ifindex))
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

bool gw_heal_pending(struct gw_monitor *m, struct gw_nl *nl, const struct gw_config *cfg,
		     struct gw_applied *a)
{
	struct scan s = { .cfg = cfg, .a = a, .nl = nl, .own = gw_nl_portid(nl) };

	if (gw_monitor_read(m, scan_cb, &s)) {
		/* events were lost: check it all */
		a->classify_stale = cfg->owns_nft && (a->nft_table || ingress_rules(cfg));
		return true;
	}
	if (s.classify)
		a->classify_stale = true;
	return s.relevant;
}

bool gw_heal_absorb(struct gw_monitor *m, struct gw_nl *nl, const struct gw_config *cfg,
		    struct gw_applied *a)
{
	struct scan s = { .cfg = cfg, .a = a, .nl = nl, .own = gw_nl_portid(nl) };

	/* lost events: the tree is read back (the classifiers are not put in again for it:
	 * most of what overflowed was our own) */
	if (gw_monitor_read(m, scan_cb, &s) || s.relevant)
		a->heal_due = true;
	if (s.classify)
		a->classify_stale = true;
	return a->heal_due;
}

/* The root qdisc of each device, from one dump. */
struct roots {
	const struct gw_config *cfg;
	const int *ifindex;	/* per link: its interface */
	uint32_t *handle;	/* per link: its root's handle, 0 for the kernel's default */
	char (*kind)[16];
};

static int roots_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct roots *r = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct nlattr *kind;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_parent != TC_H_ROOT)
		return 0;
	for (size_t i = 0; i < r->cfg->n_links; i++) {
		if (r->ifindex[i] != t->tcm_ifindex)
			continue;
		r->handle[i] = t->tcm_handle;
		kind = nlmsg_find_attr((struct nlmsghdr *)nlh, sizeof(*t), TCA_KIND);
		if (kind)
			nla_strlcpy(r->kind[i], kind, sizeof(r->kind[i]));
	}
	return 0;
}

/* Why a rebuild cannot succeed now, found by looking only: an interface that is gone, or a
 * root qdisc someone else put where the link does not allow replacing it. Then nothing of
 * ours is taken away (the other links and directions keep shaping) and nothing is created
 * only to be deleted again. 0: nothing stands in the way that looking can see. */
static int blocked(struct gw_nl *nl, const struct gw_config *cfg, bool *stuck, char *err,
		   size_t errlen)
{
	size_t n = cfg->n_links + 1;
	int *ifindex = calloc(n, sizeof(*ifindex));
	struct roots r = { .cfg = cfg, .ifindex = ifindex, .handle = calloc(n, sizeof(uint32_t)),
			   .kind = calloc(n, sizeof(*r.kind)) };
	int ret = 0;

	if (!ifindex || !r.handle || !r.kind)
		goto out;
	/* every link is looked at (the others may still be healed); err has the first cause */
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];
		struct gw_link_info info;
		struct gw_nl_error e;
		int why = 0;

		if (gw_link_get(nl, l->interface, &info, &e) == -ENODEV) {
			if (!l->required) {
				stuck[i] = true;	/* it waits for its interface */
				continue;
			}
			if (!ret)
				snprintf(err, errlen, "link '%s': interface %s: no such interface",
					 l->name, l->interface);
			why = -ENODEV;
		}
		ifindex[i] = why ? 0 : info.ifindex;
		/* the ifb's name taken by another kind of device */
		if (!why && l->dir[GW_DIR_INGRESS].present &&
		    gw_link_get(nl, l->dir[GW_DIR_INGRESS].ifb, &info, &e) == 0 &&
		    strcmp(info.kind, "ifb")) {
			if (!ret)
				snprintf(err, errlen,
					 "link '%s': %s exists and is not an ifb device (it is %s)",
					 l->name, l->dir[GW_DIR_INGRESS].ifb,
					 info.kind[0] ? info.kind : "a physical device");
			why = -EEXIST;
		}
		/* an ifb of that name someone else made: the words prepare_devs uses */
		if (!why && l->dir[GW_DIR_INGRESS].present && !l->replace &&
		    gw_link_get(nl, l->dir[GW_DIR_INGRESS].ifb, &info, &e) == 0 &&
		    !gw_own_ifb(info.kind, info.alias)) {
			if (!ret)
				snprintf(err, errlen, "link '%s': ifb %s exists and gatewayd did not "
					 "create it (its alias has no \"%s\" mark); set replace = true "
					 "in the link to let gatewayd use it", l->name,
					 l->dir[GW_DIR_INGRESS].ifb, GW_OWN_IFB_MARK);
			why = -EEXIST;
		}
		stuck[i] = why != 0;
		ret = ret ? ret : why;
	}
	if (gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, roots_cb, &r, NULL))
		goto out;
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		if (stuck[i] || l->replace || !l->dir[GW_DIR_EGRESS].present || !r.handle[i] ||
		    r.handle[i] == GW_ROOT_HANDLE)
			continue;
		/* the words gw_apply uses for the same refusal */
		if (!ret)
			snprintf(err, errlen,
				 "link '%s': %s already has a root qdisc %s that gatewayd did not create; set replace = true in the link to let gatewayd replace it",
				 l->name, l->interface, r.kind[i]);
		stuck[i] = true;
		ret = ret ? ret : -EEXIST;
	}
out:
	free(ifindex);
	free(r.handle);
	free(r.kind);
	return ret;
}

/* Remove what is left of the links redo names (their devices are contiguous in a). */
static void remove_links(struct gw_nl *nl, struct gw_applied *a, const bool *redo, char *err,
			 size_t errlen)
{
	for (size_t k = 0; k < a->n_devs;) {
		struct gw_applied one = { .devs = &a->devs[k], .n_devs = 0 };

		while (k + one.n_devs < a->n_devs && a->devs[k + one.n_devs].link == a->devs[k].link)
			one.n_devs++;
		if (redo[a->devs[k].link])
			gw_remove(nl, &one, err, errlen);
		k += one.n_devs;
	}
}

/* What differs is mended in place where it can be (gw_heal_inplace: a class's rate, a leaf, the
 * redirect), not in the links that are stuck. 4 when it was (found says what was found),
 * -errno when the links must be made again. */
static int mend(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		const bool *stuck, char *found, size_t foundlen)
{
	enum gw_obj_state *state = calloc(a->plan.n + 1, sizeof(*state));
	struct gw_tc_obj *got = calloc(a->plan.n + 1, sizeof(*got));
	char why[256], refused[512] = "";
	int r = -ENOMEM;

	if (!state || !got)
		goto out;
	r = gw_readback_got(nl, cfg, a, state, got, why, sizeof(why));
	if (r != -EPROTO)
		goto out;
	/* no read-back to confirm: the plan is what start-up verified the kernel keeps as
	 * planned, and a change that comes meanwhile has its own notification */
	r = gw_heal_inplace(nl, cfg, a, state, got, stuck, found, foundlen, refused,
			    sizeof(refused));
	r = r > 0 ? 4 : r ? r : -EAGAIN;
	if (refused[0])
		gw_log(GW_LOG_WARNING, "mending in place: %s; making the link again instead",
		       refused);
out:
	free(state);
	free(got);
	return r;
}

/* Only the links whose objects do not all read back as planned are made again (not those
 * stuck, which wait for their cause to go); the others keep their objects and counters. What
 * can be is mended in place first (4, err says what was found). 1 when making the links again
 * restored them, -errno when the whole tree must be rebuilt instead. */
static int heal_links(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		      struct gw_sampler *s, const bool *stuck, char *err, size_t errlen)
{
	enum gw_obj_state *state = calloc(a->plan.n + 1, sizeof(*state));
	bool *redo = calloc(cfg->n_links + 1, sizeof(*redo));
	struct gw_reload_done done;
	size_t n_redo = 0;
	char why[256];
	int r = -ENOMEM;

	if (!state || !redo)
		goto out;
	if ((r = mend(nl, cfg, a, stuck, err, errlen)) == 4)
		goto out;
	r = gw_readback(nl, cfg, a, state, why, sizeof(why));
	if (r != -EPROTO)
		goto out;
	for (size_t i = 0; i < a->plan.n; i++) {
		size_t l = a->plan.objs[i].link;

		if (state[i] != GW_OBJ_SAME && !redo[l] && !stuck[l]) {
			redo[l] = true;
			n_redo++;
		}
	}
	r = -EAGAIN;
	if (!n_redo || n_redo == cfg->n_links)
		goto out;	/* nothing to tell apart: the whole tree, as at start-up */
	/* what is left of those links' objects goes first */
	remove_links(nl, a, redo, err, errlen);
	r = gw_reload_redo(nl, cfg, a, redo, stuck, &done, err, errlen);
	if (!r) {
		gw_sampler_refresh(s, a, done.fresh);
		gw_reload_done_free(&done);
		r = 1;
	}
out:
	free(state);
	free(redo);
	return r;
}

/* Say what became of link i, whose interface came, went or came back, into msg. */
static void say_presence(const struct gw_config *cfg, const struct gw_applied *a, size_t i,
			 bool was, char *msg, size_t len)
{
	const struct gw_link_cfg *l = &cfg->links[i];
	size_t pos = strlen(msg);

	if (pos >= len)
		return;
	if (a->facts[i].absent)
		snprintf(msg + pos, len - pos, "%slink '%s': interface %s is gone; waiting for it%s%s%s",
			 pos ? "; " : "", l->name, l->interface,
			 l->dir[GW_DIR_INGRESS].present ? " (its ifb " : "",
			 l->dir[GW_DIR_INGRESS].present ? l->dir[GW_DIR_INGRESS].ifb : "",
			 l->dir[GW_DIR_INGRESS].present ? " deleted until then)" : "");
	else
		snprintf(msg + pos, len - pos, "%slink '%s': interface %s %s (index %d): shaped again",
			 pos ? "; " : "", l->name, l->interface, was ? "came back" : "is there",
			 a->facts[i].dev.ifindex);
}

/* A link whose interface came, went, or came back under another index since a was made: what
 * is left of its objects goes and it is made again from what is there now (its interface gone:
 * it waits, no objects, its ifb deleted); the other links' objects and counters are kept.
 * Required links are not looked at: their interface gone is a cause to wait for (blocked()).
 * 0: no change; 1: links came (msg says which); 3: links only went; -errno: failed, what was
 * left of those links is gone and the read-back after finds them to rebuild. */
static int presence(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		    struct gw_sampler *s, char *msg, size_t len)
{
	bool *redo = calloc(2 * cfg->n_links + 1, sizeof(*redo)), *was = redo + cfg->n_links;
	struct gw_reload_done done;
	bool came = false;
	size_t n = 0;
	char ignored[512] = "";
	int r;

	if (!redo || !a->facts)
		return redo ? 0 : -ENOMEM;
	for (size_t i = 0; i < cfg->n_links; i++) {
		struct gw_link_info info;
		struct gw_nl_error e;
		int g = gw_link_get(nl, cfg->links[i].interface, &info, &e);

		was[i] = !a->facts[i].absent;
		if (cfg->links[i].required || (g && g != -ENODEV))
			continue;
		redo[i] = was[i] != (g == 0) || (g == 0 && info.ifindex != a->facts[i].dev.ifindex);
		n += redo[i];
	}
	if (!n) {
		free(redo);
		return 0;
	}
	remove_links(nl, a, redo, ignored, sizeof(ignored));
	r = gw_reload_redo(nl, cfg, a, redo, NULL, &done, msg, len);
	if (!r) {
		gw_sampler_refresh(s, a, done.fresh);
		gw_reload_done_free(&done);
		msg[0] = '\0';
		for (size_t i = 0; i < cfg->n_links; i++) {
			if (!redo[i])
				continue;
			say_presence(cfg, a, i, was[i], msg, len);
			came |= !a->facts[i].absent;
		}
	}
	free(redo);
	return r ? r : came ? 1 : 3;
}

/* One read-back (why: the first difference), and what it found mended in place at once when
 * that can be (mend): the usual foreign change (a class, a leaf, the redirect) costs one dump
 * of the tree, however many classes it has. 4 when mended (found says what), 0 when the tree
 * is whole, -EPROTO or another -errno when the slower path is to look. */
static int check(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a, bool mend,
		 char *why, size_t whylen, char *found, size_t foundlen)
{
	enum gw_obj_state *state = calloc(a->plan.n + 1, sizeof(*state));
	struct gw_tc_obj *got = mend ? calloc(a->plan.n + 1, sizeof(*got)) : NULL;
	char refused[512] = "";
	int r = -ENOMEM;

	if (state && (got || !mend))
		r = gw_readback_got(nl, cfg, a, state, got, why, whylen);
	if (r == -EPROTO && mend) {
		int n = gw_heal_inplace(nl, cfg, a, state, got, NULL, found, foundlen, refused,
					sizeof(refused));

		r = n > 0 ? 4 : -EPROTO;
		if (refused[0])
			gw_log(GW_LOG_WARNING, "mending in place: %s; making the link again "
			       "instead", refused);
	}
	free(state);
	free(got);
	return r;
}

int gw_heal(struct gw_nl *nl, struct gw_monitor *m, const struct gw_config *cfg,
	    struct gw_applied *a, struct gw_sampler *s, char *err, size_t errlen)
{
	struct gw_applied fresh;
	char why[512] = "", moved[1024] = "";
	bool *stuck;
	int r, p;

	/* interfaces that came or went first: the read-back below judges the tree they leave */
	a->heal_due = false;	/* looked at now; what comes while we mend is read apart */
	if ((p = presence(nl, cfg, a, s, moved, sizeof(moved))) != 0)
		gw_heal_absorb(m, nl, cfg, a);	/* our own events, and anyone else's */
	if (p > 0)
		a->classify_stale = false;	/* the redo put every classifier in anew */
	/* nothing of ours to read back is whole too: every link waits; links that came or went
	 * are judged by the slower path, which says so */
	r = a->n_devs || !a->plan.n ? check(nl, cfg, a, p == 0, why, sizeof(why), err, errlen) :
	    -EPROTO;
	if (r == 4) {
		gw_heal_absorb(m, nl, cfg, a);	/* our own events, and anyone else's */
		return 4;
	}
	if (r == 0) {
		/* shaped, or waiting on as before because its interface cannot be shaped yet (a
		 * foreign root on it): that is a cause, said and retried as any other */
		if (p != 0) {
			snprintf(err, errlen, "%s", moved[0] ? moved : strerror(-p));
			return p;
		}
		if (!a->classify_stale)
			return 0;
		/* the tree is whole but our classifiers were touched: put them back whole
		 * (the table swapped in one batch, the filters a new generation) */
		a->classify_stale = false;
		r = gw_classify_apply(nl, cfg, a, err, errlen);
		gw_heal_absorb(m, nl, cfg, a);	/* our own events, and anyone else's */
		if (r) {
			/* still to put back: the retry finds the tree whole and must not take
			 * that for done */
			a->classify_stale = true;
			return r;
		}
		snprintf(err, errlen, "gatewayd's classifiers (nft table inet %s, ingress filters) "
			 "were changed from outside", GW_NFT_TABLE);
		return 2;
	}
	if (!(stuck = calloc(cfg->n_links + 1, sizeof(*stuck))))
		return -ENOMEM;
	if ((r = blocked(nl, cfg, stuck, err, errlen))) {
		char ignored[512];

		/* the other links are made again now if they need it; the stuck ones wait */
		int h = a->n_devs ? heal_links(nl, cfg, a, s, stuck, ignored, sizeof(ignored)) : 0;

		if (h == 1 || h == 4)
			gw_heal_absorb(m, nl, cfg, a);
		if (h == 1)
			gw_log(GW_LOG_WARNING, "restored the tree of the links that could be; "
			       "waiting: %s", err);
		if (h == 4)
			gw_log(GW_LOG_WARNING, "changed from outside: %s; put back in place in the "
			       "links that could be; waiting: %s", ignored, err);
		free(stuck);
		return r;
	}
	if (p < 0)
		moved[0] = '\0';	/* the read-back's cause is the one to say */
	r = a->n_devs ? heal_links(nl, cfg, a, s, stuck, err, errlen) : -EAGAIN;
	free(stuck);
	if (r == 4) {
		gw_heal_absorb(m, nl, cfg, a);	/* our own events, and anyone else's */
		if (moved[0]) {
			char found[1024];

			snprintf(found, sizeof(found), "%s", err);
			snprintf(err, errlen, "%s; %s", moved, found);
		}
		return 4;
	}
	if (r != 1) {
		/* what is left of ours goes first; a foreign tree that took our place is not
		 * ours to remove, and the apply will refuse it unless the config says replace */
		gw_remove(nl, a, err, errlen);
		r = gw_apply(nl, cfg, &a->plan, &fresh, err, errlen);
	}
	if (r == 0) {
		gw_applied_free(a);
		*a = fresh;
		gw_sampler_rebind(s, a);
	}
	/* our own requests raised notifications of their own: they are not news; anyone
	 * else's that came meanwhile are, and bring another look */
	gw_heal_absorb(m, nl, cfg, a);
	if (r < 0)
		return r;
	snprintf(err, errlen, "%s%s%s", moved, moved[0] ? "; " : "",
		 why[0] ? why : "the tree was incomplete");
	return 1;
}

bool gw_heal_retry_note(struct gw_heal_retry *h, int r, const char *err, double now)
{
	bool same = h->broken && !strcmp(err, h->cause);

	if (r >= 0) {
		memset(h, 0, sizeof(*h));
		return false;
	}
	/* the same cause again: wait twice as long; a new one starts from the shortest wait */
	h->wait = same ? h->wait * 2 : GW_HEAL_RETRY_MIN_S;
	if (h->wait > GW_HEAL_RETRY_MAX_S)
		h->wait = GW_HEAL_RETRY_MAX_S;
	h->next = now + h->wait;
	h->broken = true;
	snprintf(h->cause, sizeof(h->cause), "%s", err);
	return !same;
}

bool gw_heal_retry_due(const struct gw_heal_retry *h, double now)
{
	return h->broken && now >= h->next;
}
