/* tests/unit/fake_kernel.c: the in-memory kernel of fake_kernel.h. Its rules follow
 * net/sched/sch_api.c and cls_api.c where gatewayd depends on them (which flags create,
 * replace or change; what a missing parent or a taken handle answers; that a qdisc takes its
 * classes, filters and leaves with it; that a batch's chunk is taken whole before the first
 * ack is read), and leave out what gatewayd never asks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "qdisc/nft.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/fake_nft.h"

#define FK_MAX_EVENTS 4096	/* more pending than this: lost, as a full socket loses them */
/* nf_tables' group among a monitor's groups: a bit no RTMGRP_ uses */
#define FK_GRP_NFT (1u << 31)

/* A log of requests, one line each. */
struct fk_log {
	char *text;
	size_t len;
};

struct fk_link {
	int ifindex;
	char name[IFNAMSIZ];
	char kind[16];
	char alias[64];		/* IFLA_IFALIAS: set by a change, never by the create */
	unsigned int flags, mtu;
};

struct fk_obj {
	int type;		/* RTM_NEWQDISC, RTM_NEWTCLASS or RTM_NEWTFILTER */
	int ifindex;
	uint32_t handle, parent, info;
	char kind[16];
	void *attrs;		/* the request's attributes, as sent */
	size_t len;
};

struct fk_rule {
	char kind[16];
	int err;
	char msg[GW_EXTACK_MAX];
};

/* A monitor: the notifications of its groups since it was last read. */
struct fk_mon {
	struct fk *k;		/* NULL once the kernel is gone */
	unsigned int groups;
	struct nl_msg **events;
	size_t n_events;
	bool lost;
};

struct fk {
	struct fk_link *links;
	size_t n_links;
	int next_ifindex;
	struct fk_obj *objs;
	size_t n_objs;
	unsigned int requests, refuse_at;
	int refuse_err;
	char refuse_msg[GW_EXTACK_MAX];
	struct fk_rule *rules;
	size_t n_rules;
	struct fk_log log;		/* rtnetlink requests */
	struct fkn *nft;		/* nf_tables (fake_nft.c) */
	unsigned int nft_batches, nft_refuse_at;
	int nft_refuse_err;
	char nft_refuse_msg[GW_EXTACK_MAX];
	struct fk_log nft_log;		/* nf_tables batches */
	struct fk_mon **mons;
	size_t n_mons;
	uint32_t next_portid;	/* each handle's own, as the kernel gives sockets theirs */
	uint32_t sender;	/* the port id of the request being processed; 0: the kernel */
};

/* One handle: whose requests these are. */
struct fk_handle {
	struct fk *k;
	bool outside;
	uint32_t portid;
};

struct fk *fk_new(void)
{
	struct fk *k = calloc(1, sizeof(*k));

	if (k && !(k->nft = fkn_new())) {
		free(k);
		return NULL;
	}
	if (k)
		k->next_ifindex = 2;	/* 1 is lo */
	return k;
}

static void drop_events(struct fk_mon *m)
{
	for (size_t i = 0; i < m->n_events; i++)
		nlmsg_free(m->events[i]);
	m->n_events = 0;
}

void fk_free(struct fk *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_objs; i++)
		free(k->objs[i].attrs);
	for (size_t i = 0; i < k->n_mons; i++)
		k->mons[i]->k = NULL;
	free(k->mons);
	free(k->objs);
	free(k->links);
	free(k->rules);
	free(k->log.text);
	free(k->nft_log.text);
	fkn_free(k->nft);
	free(k);
}

/* ---- links ---- */

static struct fk_link *link_by_index(const struct fk *k, int ifindex)
{
	for (size_t i = 0; i < k->n_links; i++)
		if (k->links[i].ifindex == ifindex)
			return &k->links[i];
	return NULL;
}

static struct fk_link *link_by_name(const struct fk *k, const char *name)
{
	for (size_t i = 0; i < k->n_links; i++)
		if (!strcmp(k->links[i].name, name))
			return &k->links[i];
	return NULL;
}

int fk_ifindex(const struct fk *k, const char *name)
{
	const struct fk_link *l = link_by_name(k, name);

	return l ? l->ifindex : 0;
}

static const char *dev_name(const struct fk *k, int ifindex)
{
	const struct fk_link *l = link_by_index(k, ifindex);

	return l ? l->name : "?";
}

/* ---- messages the fake sends: dump entries and notifications ---- */

static struct nl_msg *link_msg(const struct fk_link *l, int type)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = l->ifindex,
				 .ifi_type = ARPHRD_ETHER, .ifi_flags = l->flags };
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);
	struct nlattr *info;

	if (!m)
		return NULL;
	if (nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, IFLA_IFNAME, l->name) < 0 || nla_put_u32(m, IFLA_MTU, l->mtu) < 0)
		goto fail;
	if (l->alias[0] && nla_put_string(m, IFLA_IFALIAS, l->alias) < 0)
		goto fail;
	if (l->kind[0]) {
		if (!(info = nla_nest_start(m, IFLA_LINKINFO)) ||
		    nla_put_string(m, IFLA_INFO_KIND, l->kind) < 0)
			goto fail;
		nla_nest_end(m, info);
	}
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

/* A tc object as a dump gives it: the kernel reports a class hung on its qdisc as a child
 * of "root". type: the object's (or RTM_DEL* for a notification of its end). */
static struct nl_msg *obj_msg(const struct fk_obj *o, int type)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = o->ifindex,
			   .tcm_handle = o->handle, .tcm_parent = o->parent, .tcm_info = o->info };
	struct nl_msg *m = nlmsg_alloc_size(o->len + 1024);

	if (!m)
		return NULL;
	if (o->type == RTM_NEWTCLASS && TC_H_MIN(o->parent) == 0)
		t.tcm_parent = TC_H_ROOT;
	if (!nlmsg_put(m, 0, 0, type, 0, 0) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0)
		goto fail;
	if (o->len) {
		void *p = nlmsg_reserve(m, o->len, NLMSG_ALIGNTO);

		if (!p)
			goto fail;
		memcpy(p, o->attrs, o->len);
	} else if (nla_put_string(m, TCA_KIND, o->kind) < 0) {
		goto fail;
	}
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

static unsigned int group_of(int type)
{
	if (NFNL_SUBSYS_ID(type) == NFNL_SUBSYS_NFTABLES)
		return FK_GRP_NFT;
	if (type == RTM_NEWLINK || type == RTM_DELLINK)
		return RTMGRP_LINK;
	return type >= RTM_NEWQDISC && type <= RTM_DELTFILTER ? RTMGRP_TC : 0;
}

/* Queue m for every monitor of its group. */
static void notify(struct fk *k, struct nl_msg *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < k->n_mons; i++) {
		struct fk_mon *mon = k->mons[i];
		struct nl_msg *copy;
		void *n;

		if (!(mon->groups & group_of(nlmsg_hdr(m)->nlmsg_type)))
			continue;
		if (mon->n_events >= FK_MAX_EVENTS || !(copy = nlmsg_convert(nlmsg_hdr(m))) ||
		    !(n = realloc(mon->events, (mon->n_events + 1) * sizeof(*mon->events)))) {
			if (mon->n_events < FK_MAX_EVENTS && copy)
				nlmsg_free(copy);
			mon->lost = true;
			continue;
		}
		/* the kernel stamps a change's events with its sender's port id */
		nlmsg_hdr(copy)->nlmsg_pid = k->sender;
		mon->events = n;
		mon->events[mon->n_events++] = copy;
	}
	nlmsg_free(m);
}

/* ---- tc objects ---- */

static struct fk_obj *find_obj(const struct fk *k, int type, int ifindex, uint32_t handle)
{
	for (size_t i = 0; i < k->n_objs; i++)
		if (k->objs[i].type == type && k->objs[i].ifindex == ifindex &&
		    k->objs[i].handle == handle)
			return &k->objs[i];
	return NULL;
}

/* The qdisc at a place: root, ingress, or the leaf of class parent. */
static struct fk_obj *qdisc_at(const struct fk *k, int ifindex, uint32_t parent)
{
	for (size_t i = 0; i < k->n_objs; i++)
		if (k->objs[i].type == RTM_NEWQDISC && k->objs[i].ifindex == ifindex &&
		    k->objs[i].parent == parent)
			return &k->objs[i];
	return NULL;
}

static void remove_at(struct fk *k, size_t i)
{
	free(k->objs[i].attrs);
	memmove(&k->objs[i], &k->objs[i + 1], (k->n_objs - i - 1) * sizeof(*k->objs));
	k->n_objs--;
}

static void destroy_qdisc(struct fk *k, int ifindex, uint32_t handle);

/* A class and its leaf qdisc. */
static void destroy_class(struct fk *k, int ifindex, uint32_t classid)
{
	struct fk_obj *leaf = qdisc_at(k, ifindex, classid);

	if (leaf)
		destroy_qdisc(k, ifindex, leaf->handle);
	for (size_t i = 0; i < k->n_objs; i++)
		if (k->objs[i].type == RTM_NEWTCLASS && k->objs[i].ifindex == ifindex &&
		    k->objs[i].handle == classid) {
			remove_at(k, i);
			break;
		}
}

/* A qdisc with everything under it: its classes (and their leaves) and filters. */
static void destroy_qdisc(struct fk *k, int ifindex, uint32_t handle)
{
	bool again = true;

	while (again) {
		again = false;
		for (size_t i = 0; i < k->n_objs && !again; i++) {
			struct fk_obj *o = &k->objs[i];

			if (o->ifindex != ifindex)
				continue;
			if (o->type == RTM_NEWTCLASS && TC_H_MAJ(o->handle) == TC_H_MAJ(handle)) {
				destroy_class(k, ifindex, o->handle);
				again = true;
			} else if (o->type == RTM_NEWTFILTER &&
				   TC_H_MAJ(o->parent) == TC_H_MAJ(handle)) {
				remove_at(k, i);
				again = true;
			}
		}
	}
	for (size_t i = 0; i < k->n_objs; i++)
		if (k->objs[i].type == RTM_NEWQDISC && k->objs[i].ifindex == ifindex &&
		    k->objs[i].handle == handle) {
			remove_at(k, i);
			break;
		}
}

static int set_attrs(struct fk_obj *o, const struct nlmsghdr *h)
{
	size_t off = NLMSG_LENGTH(sizeof(struct tcmsg));
	size_t len = h->nlmsg_len > off ? h->nlmsg_len - off : 0;
	void *p = len ? malloc(len) : NULL;

	if (len && !p)
		return -ENOMEM;
	if (len)
		memcpy(p, (const char *)h + NLMSG_ALIGN(off), len);
	free(o->attrs);
	o->attrs = p;
	o->len = len;
	return 0;
}

static struct fk_obj *add_obj(struct fk *k, int type, int ifindex, uint32_t handle,
			      uint32_t parent, uint32_t info, const char *kind,
			      const struct nlmsghdr *h)
{
	void *n = realloc(k->objs, (k->n_objs + 1) * sizeof(*k->objs));
	struct fk_obj *o;

	if (!n)
		return NULL;
	k->objs = n;
	o = &k->objs[k->n_objs];
	*o = (struct fk_obj){ .type = type, .ifindex = ifindex, .handle = handle,
			      .parent = parent, .info = info };
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	if (set_attrs(o, h))
		return NULL;
	k->n_objs++;
	return o;
}

struct req {
	struct fk *k;
	const struct nlmsghdr *h;
	const struct tcmsg *t;
	char kind[16];
	char *msg;		/* the extended ack */
};

static int refuse(struct req *r, int err, const char *msg)
{
	snprintf(r->msg, GW_EXTACK_MAX, "%s", msg);
	return err;
}

/* An object the request names that exists already: refused under NLM_F_EXCL with the
 * kernel's words for it, else changed in place and announced. */
static int change_in_place(struct req *r, struct fk_obj *o, int flags, int type,
			   const char *exists)
{
	if (flags & NLM_F_EXCL)
		return refuse(r, -EEXIST, exists);
	if (set_attrs(o, r->h))
		return -ENOMEM;
	notify(r->k, obj_msg(o, type));
	return 0;
}

/* A class or filter request: o (NULL: none such) changed in place, or refused where there is
 * none and the request does not create; 1: go on and create it. */
static int change_or_create(struct req *r, struct fk_obj *o, int flags, int type,
			    const char *exists, const char *absent)
{
	if (o)
		return change_in_place(r, o, flags, type, exists);
	if (!(flags & NLM_F_CREATE))
		return refuse(r, -ENOENT, absent);
	return 1;
}

static uint32_t free_major(const struct fk *k, int ifindex)
{
	for (uint32_t maj = 0x8001;; maj++)
		if (!find_obj(k, RTM_NEWQDISC, ifindex, maj << 16))
			return maj << 16;
}

static int create_qdisc(struct req *r, uint32_t clid, struct fk_obj *old)
{
	uint32_t handle = r->t->tcm_handle ? r->t->tcm_handle : free_major(r->k, r->t->tcm_ifindex);
	struct fk_obj *o;

	if (!(r->h->nlmsg_flags & NLM_F_CREATE))
		return refuse(r, -ENOENT, "Qdisc not found. To create specify NLM_F_CREATE flag");
	if (!r->kind[0])
		return refuse(r, -EINVAL, "Specified qdisc kind is unknown");
	if (old)
		destroy_qdisc(r->k, old->ifindex, old->handle);
	if (!(o = add_obj(r->k, RTM_NEWQDISC, r->t->tcm_ifindex, handle, clid, 0, r->kind, r->h)))
		return -ENOMEM;
	notify(r->k, obj_msg(o, RTM_NEWQDISC));
	return 0;
}

static int new_qdisc(struct req *r)
{
	uint32_t clid = r->t->tcm_parent, handle = r->t->tcm_handle;
	int flags = r->h->nlmsg_flags, ifindex = r->t->tcm_ifindex;
	struct fk_obj *q = NULL;

	if (clid && clid != TC_H_ROOT && clid != TC_H_INGRESS) {
		if (!find_obj(r->k, RTM_NEWQDISC, ifindex, TC_H_MAJ(clid)))
			return refuse(r, -ENOENT, "Failed to find specified qdisc");
		if (TC_H_MIN(clid) && !find_obj(r->k, RTM_NEWTCLASS, ifindex, clid))
			return refuse(r, -ENOENT, "Specified class not found");
	}
	if (clid) {
		q = qdisc_at(r->k, ifindex, clid);	/* NULL: the kernel's default */
		if (!q || !handle || q->handle != handle) {
			if (handle) {
				struct fk_obj *other;

				if (q && !(flags & NLM_F_REPLACE))
					return refuse(r, -EEXIST, "NLM_F_REPLACE needed to override");
				if (TC_H_MIN(handle))
					return refuse(r, -EINVAL, "Invalid minor handle");
				if (!(other = find_obj(r->k, RTM_NEWQDISC, ifindex, handle)))
					return create_qdisc(r, clid, q);
				if (flags & NLM_F_EXCL)
					return refuse(r, -EEXIST, "Exclusivity flag on, cannot override");
				return refuse(r, -EOPNOTSUPP, "fake kernel: grafting a qdisc elsewhere is not modelled");
			}
			if (!q || ((flags & NLM_F_CREATE) && (flags & NLM_F_REPLACE) &&
				   ((flags & NLM_F_EXCL) || (r->kind[0] && strcmp(r->kind, q->kind)))))
				return create_qdisc(r, clid, q);
		}
	} else {
		if (!handle)
			return refuse(r, -EINVAL, "Handle cannot be zero");
		q = find_obj(r->k, RTM_NEWQDISC, ifindex, handle);
	}
	/* a change of the qdisc's parameters */
	if (!q)
		return refuse(r, -ENOENT, "Specified qdisc not found");
	if (!(flags & NLM_F_EXCL) && r->kind[0] && strcmp(r->kind, q->kind))
		return refuse(r, -EINVAL, "Invalid qdisc name");
	return change_in_place(r, q, flags, RTM_NEWQDISC, "Exclusivity flag on, cannot modify");
}

static int del_qdisc(struct req *r)
{
	uint32_t clid = r->t->tcm_parent, handle = r->t->tcm_handle;
	int ifindex = r->t->tcm_ifindex;
	struct fk_obj *q;
	struct nl_msg *gone;

	if (!clid)
		return refuse(r, -EINVAL, "Classid cannot be zero");
	if (clid != TC_H_ROOT && clid != TC_H_INGRESS) {
		if (!find_obj(r->k, RTM_NEWQDISC, ifindex, TC_H_MAJ(clid)))
			return refuse(r, -ENOENT, "Failed to find qdisc with specified classid");
		if (!find_obj(r->k, RTM_NEWTCLASS, ifindex, clid))
			return refuse(r, -ENOENT, "Specified class not found");
	}
	q = qdisc_at(r->k, ifindex, clid);
	if (!q && clid == TC_H_INGRESS)
		return refuse(r, -ENOENT, "Cannot find specified qdisc on specified device");
	/* elsewhere the kernel's default (handle 0) sits there */
	if (handle && (q ? q->handle : 0) != handle)
		return refuse(r, -EINVAL, "Invalid handle");
	if (!q)
		return refuse(r, -ENOENT, "Cannot delete qdisc with handle of zero");
	if (r->kind[0] && strcmp(r->kind, q->kind))
		return refuse(r, -EINVAL, "Invalid qdisc name");
	gone = obj_msg(q, RTM_DELQDISC);
	destroy_qdisc(r->k, ifindex, q->handle);
	notify(r->k, gone);
	return 0;
}

static int tclass(struct req *r, bool del)
{
	int ifindex = r->t->tcm_ifindex, flags = r->h->nlmsg_flags, ret;
	uint32_t clid = r->t->tcm_handle, parent = r->t->tcm_parent;
	struct fk_obj *q = find_obj(r->k, RTM_NEWQDISC, ifindex, TC_H_MAJ(clid));
	struct fk_obj *cl = find_obj(r->k, RTM_NEWTCLASS, ifindex, clid);
	struct nl_msg *gone;
	char kind[16];

	if (!q)
		return refuse(r, -ENOENT, "Specified qdisc not found");
	/* the pointers above move when an object is added or removed */
	snprintf(kind, sizeof(kind), "%s", q->kind);
	if (del) {
		if (!cl)
			return refuse(r, -ENOENT, "Specified class not found");
		for (size_t i = 0; i < r->k->n_objs; i++)
			if (r->k->objs[i].type == RTM_NEWTCLASS && r->k->objs[i].ifindex == ifindex &&
			    r->k->objs[i].parent == clid)
				return refuse(r, -EBUSY, "Class has children");
		gone = obj_msg(cl, RTM_DELTCLASS);
		destroy_class(r->k, ifindex, clid);
		notify(r->k, gone);
		return 0;
	}
	ret = change_or_create(r, cl, flags, RTM_NEWTCLASS, "Class already exists",
			       "Specified class not found");
	if (ret != 1)
		return ret;
	/* a leaf that gets a child becomes an inner class: its queue goes */
	if (TC_H_MIN(parent) && find_obj(r->k, RTM_NEWTCLASS, ifindex, parent)) {
		struct fk_obj *leaf = qdisc_at(r->k, ifindex, parent);

		if (leaf)
			destroy_qdisc(r->k, ifindex, leaf->handle);
	}
	if (!(cl = add_obj(r->k, RTM_NEWTCLASS, ifindex, clid, parent, 0, kind, r->h)))
		return -ENOMEM;
	notify(r->k, obj_msg(cl, RTM_NEWTCLASS));
	return 0;
}

static bool same_chain(const struct fk_obj *o, int ifindex, uint32_t parent, uint32_t prio)
{
	return o->type == RTM_NEWTFILTER && o->ifindex == ifindex && o->parent == parent &&
	       (!prio || TC_H_MAJ(o->info) == prio);
}

static int tfilter(struct req *r, bool del)
{
	int ifindex = r->t->tcm_ifindex, flags = r->h->nlmsg_flags, ret;
	uint32_t parent = r->t->tcm_parent, prio = TC_H_MAJ(r->t->tcm_info);
	uint32_t handle = r->t->tcm_handle;
	struct fk_obj *f = NULL;
	size_t in_chain = 0;

	if (!find_obj(r->k, RTM_NEWQDISC, ifindex, TC_H_MAJ(parent)))
		return refuse(r, -EINVAL, "Parent Qdisc doesn't exists");
	for (size_t i = 0; i < r->k->n_objs; i++) {
		struct fk_obj *o = &r->k->objs[i];

		if (!same_chain(o, ifindex, parent, prio))
			continue;
		in_chain++;
		if (handle && o->handle == handle)
			f = o;
	}
	if (del) {
		if (!in_chain || (handle && !f))
			return refuse(r, -ENOENT, "Filter with specified priority/protocol not found");
		for (size_t i = r->k->n_objs; i-- > 0;) {
			struct fk_obj *o = &r->k->objs[i];

			if (same_chain(o, ifindex, parent, prio) && (!handle || o->handle == handle)) {
				notify(r->k, obj_msg(o, RTM_DELTFILTER));
				remove_at(r->k, i);
			}
		}
		return 0;
	}
	ret = change_or_create(r, f, flags, RTM_NEWTFILTER, "Filter already exists",
			       "Filter with specified priority/protocol not found");
	if (ret != 1)
		return ret;
	/* u32 numbers its rules in hash table 800: */
	if (!handle)
		handle = 0x80000800u + (uint32_t)in_chain;
	if (!(f = add_obj(r->k, RTM_NEWTFILTER, ifindex, handle, parent, r->t->tcm_info,
			  r->kind, r->h)))
		return -ENOMEM;
	notify(r->k, obj_msg(f, RTM_NEWTFILTER));
	return 0;
}

static void link_names(const struct nlmsghdr *h, char *name, char *kind)
{
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];

	name[0] = kind[0] = '\0';
	if (nlmsg_parse((struct nlmsghdr *)h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0)
		return;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(name, tb[IFLA_IFNAME], IFNAMSIZ);
	if (tb[IFLA_LINKINFO] && !nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) &&
	    li[IFLA_INFO_KIND])
		nla_strlcpy(kind, li[IFLA_INFO_KIND], 16);
}

/* The link a request names, by index or else by name. */
static struct fk_link *link_of(const struct fk *k, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = nlmsg_data(h);
	char name[IFNAMSIZ], kind[16];

	if (ifi->ifi_index)
		return link_by_index(k, ifi->ifi_index);
	link_names(h, name, kind);
	return name[0] ? link_by_name(k, name) : NULL;
}

static int add_link(struct fk *k, const char *name, const char *kind, unsigned int flags)
{
	void *n = realloc(k->links, (k->n_links + 1) * sizeof(*k->links));
	struct fk_link *l;

	if (!n)
		return -ENOMEM;
	k->links = n;
	l = &k->links[k->n_links++];
	memset(l, 0, sizeof(*l));
	l->ifindex = k->next_ifindex++;
	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	l->flags = flags;
	l->mtu = 1500;
	notify(k, link_msg(l, RTM_NEWLINK));
	return l->ifindex;
}

int fk_link_add(struct fk *k, const char *name, const char *kind)
{
	return add_link(k, name, kind, IFF_UP | IFF_RUNNING);
}

/* A change: only the alias is modelled (gatewayd marks its ifbs so). */
static int change_link(struct req *r)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct fk_link *l = link_of(r->k, r->h);

	if (!l)
		return -ENODEV;
	if (nlmsg_parse((struct nlmsghdr *)r->h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 ||
	    !tb[IFLA_IFALIAS])
		return refuse(r, -EOPNOTSUPP, "fake kernel: changing a link is not modelled");
	nla_strlcpy(l->alias, tb[IFLA_IFALIAS], sizeof(l->alias));
	notify(r->k, link_msg(l, RTM_NEWLINK));
	return 0;
}

static int new_link(struct req *r)
{
	const struct ifinfomsg *ifi = nlmsg_data(r->h);
	char name[IFNAMSIZ], kind[16];
	int ifindex;

	if (!(r->h->nlmsg_flags & NLM_F_CREATE))
		return change_link(r);
	link_names(r->h, name, kind);
	if (!name[0])
		return refuse(r, -EINVAL, "fake kernel: a new link needs a name");
	if (link_by_name(r->k, name))
		return -EEXIST;
	ifindex = add_link(r->k, name, kind, ifi->ifi_flags & ifi->ifi_change);
	return ifindex < 0 ? ifindex : 0;
}

static int del_link(struct req *r)
{
	struct fk_link *l = link_of(r->k, r->h);
	int ifindex;

	if (!l)
		return -ENODEV;
	ifindex = l->ifindex;
	notify(r->k, link_msg(l, RTM_DELLINK));
	for (size_t i = r->k->n_objs; i-- > 0;)
		if (r->k->objs[i].ifindex == ifindex)
			remove_at(r->k, i);
	memmove(l, l + 1, (size_t)(r->k->links + r->k->n_links - l - 1) * sizeof(*l));
	r->k->n_links--;
	return 0;
}

/* ---- the daemon's requests: counting, refusing, logging ---- */

static bool changes_state(int type)
{
	return type == RTM_NEWQDISC || type == RTM_DELQDISC || type == RTM_NEWTCLASS ||
	       type == RTM_DELTCLASS || type == RTM_NEWTFILTER || type == RTM_DELTFILTER ||
	       type == RTM_NEWLINK || type == RTM_DELLINK;
}

static void log_line(struct fk_log *log, const char *line)
{
	size_t n = strlen(line);
	char *p = realloc(log->text, log->len + n + 2);

	if (!p)
		return;
	log->text = p;
	memcpy(log->text + log->len, line, n);
	log->len += n;
	log->text[log->len++] = '\n';
	log->text[log->len] = '\0';
}

static void fmt_handle(char *buf, size_t len, uint32_t h)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (h == TC_H_INGRESS)
		snprintf(buf, len, "ingress");
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

static void log_request(struct fk *k, const struct nlmsghdr *h, const char *kind, int err)
{
	static const char *const what[] = { "qdisc", "class", "filter" };
	char line[256], hd[16], pa[16];
	int flags = h->nlmsg_flags;
	bool del = h->nlmsg_type == RTM_DELQDISC || h->nlmsg_type == RTM_DELTCLASS ||
		   h->nlmsg_type == RTM_DELTFILTER || h->nlmsg_type == RTM_DELLINK;
	const char *op = del ? "del" : !(flags & NLM_F_CREATE) ? "change" :
			 (flags & NLM_F_REPLACE) ? "replace" : (flags & NLM_F_EXCL) ? "add" :
			 "create";
	size_t pos;

	if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
		char name[IFNAMSIZ], lkind[16];

		link_names(h, name, lkind);
		pos = (size_t)snprintf(line, sizeof(line), "link %s %s %s", op, name, lkind);
	} else {
		const struct tcmsg *t = nlmsg_data(h);

		fmt_handle(hd, sizeof(hd), t->tcm_handle);
		fmt_handle(pa, sizeof(pa), t->tcm_parent);
		pos = (size_t)snprintf(line, sizeof(line), "%s %s %s %s %s %s",
				       what[(h->nlmsg_type - RTM_NEWQDISC) / 4], op,
				       dev_name(k, t->tcm_ifindex), hd, pa, kind);
	}
	if (err && pos < sizeof(line))
		snprintf(line + pos, sizeof(line) - pos, " = %d", err);
	log_line(&k->log, line);
}

static int process(struct fk_handle *hd, const struct nlmsghdr *h, char *msg)
{
	struct fk *k = hd->k;
	struct req r = { .k = k, .h = h, .msg = msg };
	bool tc = h->nlmsg_type >= RTM_NEWQDISC && h->nlmsg_type <= RTM_GETTFILTER;
	int err = 0;

	msg[0] = '\0';
	if (!changes_state(h->nlmsg_type))
		return refuse(&r, -EOPNOTSUPP, "fake kernel: request not modelled");
	if (h->nlmsg_len < NLMSG_LENGTH(tc ? sizeof(struct tcmsg) : sizeof(struct ifinfomsg)))
		return -EINVAL;
	if (tc) {
		struct nlattr *tb[TCA_MAX + 1];

		r.t = nlmsg_data(h);
		if (nlmsg_parse((struct nlmsghdr *)h, sizeof(*r.t), tb, TCA_MAX, NULL) < 0)
			return refuse(&r, -EINVAL, "fake kernel: bad attributes");
		if (tb[TCA_KIND])
			nla_strlcpy(r.kind, tb[TCA_KIND], sizeof(r.kind));
	}
	if (!hd->outside) {
		k->requests++;
		if (k->refuse_at && k->requests == k->refuse_at) {
			k->refuse_at = 0;
			err = refuse(&r, k->refuse_err, k->refuse_msg);
		}
		for (size_t i = 0; !err && i < k->n_rules; i++)
			if (h->nlmsg_type == RTM_NEWQDISC && !strcmp(r.kind, k->rules[i].kind))
				err = refuse(&r, k->rules[i].err, k->rules[i].msg);
	}
	if (!err && tc && !link_by_index(k, r.t->tcm_ifindex))
		err = -ENODEV;
	k->sender = hd->portid;
	if (!err) {
		switch (h->nlmsg_type) {
		case RTM_NEWQDISC: err = new_qdisc(&r); break;
		case RTM_DELQDISC: err = del_qdisc(&r); break;
		case RTM_NEWTCLASS: err = tclass(&r, false); break;
		case RTM_DELTCLASS: err = tclass(&r, true); break;
		case RTM_NEWTFILTER: err = tfilter(&r, false); break;
		case RTM_DELTFILTER: err = tfilter(&r, true); break;
		case RTM_NEWLINK: err = new_link(&r); break;
		default: err = del_link(&r); break;
		}
	}
	k->sender = 0;
	if (!hd->outside)
		log_request(k, h, r.kind, err);
	return err;
}

static int fk_batch(void *priv, struct nl_msg *const *msgs, size_t n, bool stop,
		    struct gw_nl_error *e)
{
	struct gw_nl_error first = { .err = 0 };
	char msg[GW_EXTACK_MAX];
	size_t i = 0;

	/* the real loop sends chunks and reads their acks: a chunk is taken whole */
	while (i < n) {
		size_t k = 0, bytes = 0;

		while (i + k < n && k < GW_NL_CHUNK_MSGS &&
		       bytes + NLMSG_ALIGN(nlmsg_hdr(msgs[i + k])->nlmsg_len) <= GW_NL_CHUNK_BYTES)
			bytes += NLMSG_ALIGN(nlmsg_hdr(msgs[i + k++])->nlmsg_len);
		if (!k) {
			if (!first.err)
				first = (struct gw_nl_error){ .index = i, .err = -EMSGSIZE };
			break;
		}
		for (size_t j = i; j < i + k; j++) {
			int err = process(priv, nlmsg_hdr(msgs[j]), msg);

			if (err && !first.err) {
				first.index = j;
				first.err = err;
				snprintf(first.msg, sizeof(first.msg), "%s", msg);
			}
		}
		i += k;
		if (stop && first.err)
			break;
	}
	if (e)
		*e = first;
	return first.err;
}

/* ---- dumps and gets ---- */

static int reply(struct nl_msg *m, gw_nl_cb cb, void *arg)
{
	int r;

	if (!m)
		return -ENOMEM;
	r = cb ? cb(nlmsg_hdr(m), arg) : 0;
	nlmsg_free(m);
	return r;
}

/* The kernel's own root on a device that has none of ours: handle 0. */
static struct nl_msg *default_root(const struct fk_link *l)
{
	struct fk_obj o = { .type = RTM_NEWQDISC, .ifindex = l->ifindex, .parent = TC_H_ROOT };

	snprintf(o.kind, sizeof(o.kind), "%s", strcmp(l->kind, "ifb") ? "noqueue" : "pfifo_fast");
	return obj_msg(&o, RTM_NEWQDISC);
}

static int dump_tc(struct fk *k, const struct nlmsghdr *h, gw_nl_cb cb, void *arg)
{
	const struct tcmsg *t = nlmsg_data(h);
	int r = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*t)))
		return -EINVAL;
	/* qdiscs: every device's (without strict checking the kernel does not filter) */
	if (h->nlmsg_type == RTM_GETQDISC)
		for (size_t i = 0; i < k->n_links && !r; i++)
			if (!qdisc_at(k, k->links[i].ifindex, TC_H_ROOT))
				r = reply(default_root(&k->links[i]), cb, arg);
	for (size_t i = 0; i < k->n_objs && !r; i++) {
		const struct fk_obj *o = &k->objs[i];

		if (o->type != h->nlmsg_type - 2)
			continue;
		if (o->type == RTM_NEWTCLASS && o->ifindex != t->tcm_ifindex)
			continue;
		if (o->type == RTM_NEWTFILTER &&
		    (o->ifindex != t->tcm_ifindex || TC_H_MAJ(o->parent) != TC_H_MAJ(t->tcm_parent) ||
		     (TC_H_MIN(t->tcm_parent) && o->parent != t->tcm_parent)))
			continue;
		r = reply(obj_msg(o, o->type), cb, arg);
	}
	return r;
}

static int get_link(struct fk *k, const struct nlmsghdr *h, bool dump, gw_nl_cb cb, void *arg)
{
	const struct fk_link *l;
	int r = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return -EINVAL;
	if (dump) {
		for (size_t i = 0; i < k->n_links && !r; i++)
			r = reply(link_msg(&k->links[i], RTM_NEWLINK), cb, arg);
		return r;
	}
	if (!(l = link_of(k, h)))
		return -ENODEV;
	return reply(link_msg(l, RTM_NEWLINK), cb, arg);
}

static int fk_request(void *priv, struct nl_msg *m, gw_nl_cb cb, void *arg,
		      struct gw_nl_error *e)
{
	struct fk_handle *hd = priv;
	struct nlmsghdr *h = nlmsg_hdr(m);
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && (h->nlmsg_type & 3) == 2;
	char msg[GW_EXTACK_MAX] = "";
	int err;

	switch (h->nlmsg_type) {
	case RTM_GETLINK:
		err = get_link(hd->k, h, dump, cb, arg);
		break;
	case RTM_GETQDISC:
	case RTM_GETTCLASS:
	case RTM_GETTFILTER:
		err = dump ? dump_tc(hd->k, h, cb, arg) : -EOPNOTSUPP;
		break;
	default:
		err = process(hd, h, msg);
		break;
	}
	if (e) {
		e->index = 0;
		e->err = err;
		snprintf(e->msg, sizeof(e->msg), "%s", msg);
	}
	return err;
}

static void fk_close(void *priv)
{
	free(priv);
}

static int open_handle(struct fk *k, bool outside, struct gw_nl **out);
static int open_monitor(struct fk *k, unsigned int groups, struct gw_monitor **out);

static int fk_sibling(void *priv, struct gw_nl **out)
{
	struct fk_handle *hd = priv;

	return open_handle(hd->k, hd->outside, out);
}

/* (the fake keeps no addresses: an address group's monitor stays quiet) */
static int fk_mon_groups(void *priv, unsigned int groups, bool all_nsid, struct gw_monitor **out)
{
	struct fk_handle *hd = priv;

	(void)all_nsid;
	return open_monitor(hd->k, groups, out);
}

static uint32_t fk_portid(void *priv)
{
	return ((const struct fk_handle *)priv)->portid;
}

/* ---- nf_tables, behind the handle as the kernel's is behind its socket ---- */

static void nft_notify(void *arg, const struct nlmsghdr *h)
{
	notify(arg, nlmsg_convert((struct nlmsghdr *)h));
}

/* The daemon's batches are counted, logged and may be refused; the kernel stamps their
 * notifications with the handle's port id, as tc's. */
static int fk_nft_batch(void *priv, const struct gw_nft_batch *b, struct gw_nft_error *e)
{
	struct fk_handle *hd = priv;
	struct fk *k = hd->k;
	char what[512], line[600];
	int refuse_err = 0, r;

	if (!hd->outside && ++k->nft_batches == k->nft_refuse_at) {
		k->nft_refuse_at = 0;
		refuse_err = k->nft_refuse_err;
		snprintf(e->msg, sizeof(e->msg), "%s", k->nft_refuse_msg);
	}
	k->sender = hd->portid;
	r = fkn_batch(k->nft, b, refuse_err, e->msg, what, sizeof(what), nft_notify, k);
	k->sender = 0;
	if (!hd->outside) {
		snprintf(line, sizeof(line), r ? "nft %s = %d" : "nft %s", what, r);
		log_line(&k->nft_log, line);
	}
	return r;
}

static bool fk_nft_ours(void *priv, uint32_t portid)
{
	return portid == ((const struct fk_handle *)priv)->portid;
}

static const struct gw_nft_ops fk_nft_ops = { .batch = fk_nft_batch, .ours = fk_nft_ours };

static const struct gw_nl_ops fk_ops = {
	.portid = fk_portid,
	.batch = fk_batch,
	.request = fk_request,
	.close = fk_close,
	.open_sibling = fk_sibling,
	.monitor = fk_mon_groups,
	.nft = &fk_nft_ops,
};

static int open_handle(struct fk *k, bool outside, struct gw_nl **out)
{
	struct fk_handle *hd = calloc(1, sizeof(*hd));
	int r;

	if (!hd)
		return -ENOMEM;
	hd->k = k;
	hd->outside = outside;
	hd->portid = ++k->next_portid;
	if ((r = gw_nl_open_ops(&fk_ops, hd, out)))
		free(hd);
	return r;
}

int fk_open(struct fk *k, struct gw_nl **out)
{
	return open_handle(k, false, out);
}

int fk_open_outside(struct fk *k, struct gw_nl **out)
{
	return open_handle(k, true, out);
}

/* ---- the monitor ---- */

static int mon_read(void *priv, gw_nl_cb cb, void *arg)
{
	struct fk_mon *m = priv;
	bool lost = m->lost;

	for (size_t i = 0; i < m->n_events; i++)
		if (cb)
			cb(nlmsg_hdr(m->events[i]), arg);
	drop_events(m);
	m->lost = false;
	return lost ? -ENOBUFS : 0;
}

static void mon_close(void *priv)
{
	struct fk_mon *m = priv;
	struct fk *k = m->k;

	for (size_t i = 0; k && i < k->n_mons; i++)
		if (k->mons[i] == m) {
			k->mons[i] = k->mons[--k->n_mons];
			break;
		}
	drop_events(m);
	free(m->events);
	free(m);
}

static bool mon_nft(void *priv)
{
	return ((const struct fk_mon *)priv)->groups & FK_GRP_NFT;
}

static const struct gw_monitor_ops fk_mon_ops = { .read = mon_read, .close = mon_close,
						  .nft = mon_nft };

static int open_monitor(struct fk *k, unsigned int groups, struct gw_monitor **out)
{
	struct fk_mon *m = calloc(1, sizeof(*m));
	void *n = realloc(k->mons, (k->n_mons + 1) * sizeof(*k->mons));
	int r;

	if (n)
		k->mons = n;
	if (!m || !n) {
		free(m);
		return -ENOMEM;
	}
	m->k = k;
	m->groups = groups;
	k->mons[k->n_mons++] = m;
	if ((r = gw_monitor_open_ops(&fk_mon_ops, m, out)))
		mon_close(m);
	return r;
}

int fk_monitor(struct fk *k, struct gw_monitor **out)
{
	return open_monitor(k, RTMGRP_LINK | RTMGRP_TC | FK_GRP_NFT, out);
}

/* ---- what tests ask ---- */

void fk_refuse_nth(struct fk *k, unsigned int n, int err, const char *msg)
{
	k->refuse_at = k->requests + n;
	k->refuse_err = err;
	snprintf(k->refuse_msg, sizeof(k->refuse_msg), "%s", msg);
}

void fk_refuse_kind(struct fk *k, const char *kind, int err, const char *msg)
{
	void *n = realloc(k->rules, (k->n_rules + 1) * sizeof(*k->rules));

	if (!n)
		return;
	k->rules = n;
	snprintf(k->rules[k->n_rules].kind, sizeof(k->rules[0].kind), "%s", kind);
	k->rules[k->n_rules].err = err;
	snprintf(k->rules[k->n_rules].msg, sizeof(k->rules[0].msg), "%s", msg);
	k->n_rules++;
}

unsigned int fk_requests(const struct fk *k)
{
	return k->requests;
}

const char *fk_log(const struct fk *k)
{
	return k->log.text ? k->log.text : "";
}

void fk_log_clear(struct fk *k)
{
	k->log.len = k->nft_log.len = 0;
	if (k->log.text)
		k->log.text[0] = '\0';
	if (k->nft_log.text)
		k->nft_log.text[0] = '\0';
}

static unsigned int count_lines(const char *p, const char *s)
{
	unsigned int n = 0;

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (memmem(p, len, s, strlen(s)))
			n++;
		p += len + (end ? 1 : 0);
	}
	return n;
}

unsigned int fk_log_count(const struct fk *k, const char *s)
{
	return count_lines(fk_log(k), s);
}

/* ---- nf_tables, as tests ask ---- */

void fk_nft_refuse_nth(struct fk *k, unsigned int n, int err, const char *msg)
{
	k->nft_refuse_at = k->nft_batches + n;
	k->nft_refuse_err = err;
	snprintf(k->nft_refuse_msg, sizeof(k->nft_refuse_msg), "%s", msg);
}

unsigned int fk_nft_batches(const struct fk *k)
{
	return k->nft_batches;
}

const char *fk_nft_log(const struct fk *k)
{
	return k->nft_log.text ? k->nft_log.text : "";
}

unsigned int fk_nft_log_count(const struct fk *k, const char *s)
{
	return count_lines(fk_nft_log(k), s);
}

char *fk_nft_state(const struct fk *k)
{
	return fkn_text(k->nft);
}

/* Someone else's nft: a socket of its own, so a port id no handle has. */
static int outside_nft(struct fk *k, int (*fn)(struct fkn *, const char *, fkn_notify_fn,
					       void *), const char *table)
{
	int r;

	k->sender = ++k->next_portid;
	r = fn(k->nft, table, nft_notify, k);
	k->sender = 0;
	return r;
}

int fk_nft_add_table(struct fk *k, const char *table)
{
	return outside_nft(k, fkn_add_table, table);
}

int fk_nft_del_table(struct fk *k, const char *table)
{
	return outside_nft(k, fkn_del_table, table);
}

int fk_nft_flush_table(struct fk *k, const char *table)
{
	return outside_nft(k, fkn_flush_table, table);
}

int fk_nft_del_rule(struct fk *k, const char *table, const char *chain, unsigned int nth)
{
	int r;

	k->sender = ++k->next_portid;
	r = fkn_del_rule(k->nft, table, chain, nth, nft_notify, k);
	k->sender = 0;
	return r;
}

size_t fk_count(const struct fk *k)
{
	return k->n_objs;
}

static int line_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

char *fk_state(const struct fk *k)
{
	size_t n = k->n_links + k->n_objs, total = 1;
	char **lines = calloc(n + 1, sizeof(*lines)), *out = NULL, *nft;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < k->n_links; i++) {
		const struct fk_link *l = &k->links[i];

		if (asprintf(&lines[i], "link %s %d %s", l->name, l->ifindex, l->kind) < 0)
			lines[i] = NULL;
	}
	for (size_t i = 0; i < k->n_objs; i++) {
		const struct fk_obj *o = &k->objs[i];
		char hd[16], pa[16], *hex = malloc(o->len * 2 + 1), **l = &lines[k->n_links + i];

		fmt_handle(hd, sizeof(hd), o->handle);
		fmt_handle(pa, sizeof(pa), o->parent);
		for (size_t b = 0; hex && b < o->len; b++)
			sprintf(hex + 2 * b, "%02x", ((const unsigned char *)o->attrs)[b]);
		if (hex)
			hex[o->len * 2] = '\0';
		if (!hex || asprintf(l, "%s %s %s parent %s info %x %s %s",
				     o->type == RTM_NEWQDISC ? "qdisc" : o->type == RTM_NEWTCLASS ?
				     "class" : "filter", dev_name(k, o->ifindex), hd, pa, o->info,
				     o->kind, hex) < 0)
			*l = NULL;
		free(hex);
	}
	for (size_t i = 0; i < n; i++)
		total += lines[i] ? strlen(lines[i]) + 1 : 0;
	qsort(lines, n, sizeof(*lines), line_cmp);
	/* then nf_tables, in its own order (a chain's rules are in order) */
	if (!(nft = fkn_text(k->nft)))
		total = 0;
	if (total && (out = malloc(total + strlen(nft))))
		out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (out && lines[i]) {
			strcat(out, lines[i]);
			strcat(out, "\n");
		}
		free(lines[i]);
	}
	if (out)
		strcat(out, nft);
	free(nft);
	free(lines);
	return out;
}

int fk_get(const struct fk *k, const char *dev, enum gw_obj_type type, uint32_t handle,
	   struct gw_tc_obj *out)
{
	static const int types[] = { RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER };
	int ifindex = fk_ifindex(k, dev);
	struct gw_tc_obj ignored;

	if (!out)
		out = &ignored;

	for (size_t i = 0; i < k->n_objs; i++) {
		const struct fk_obj *o = &k->objs[i];
		struct nl_msg *m;
		int r;

		if (o->type != types[type] || o->ifindex != ifindex ||
		    (type == GW_OBJ_FILTER ? o->parent : o->handle) != handle)
			continue;
		if (!(m = obj_msg(o, o->type)))
			return -ENOMEM;
		r = gw_obj_parse(nlmsg_hdr(m), out, NULL, 0);
		nlmsg_free(m);
		return r;
	}
	return -ENOENT;
}
