/* qdisc/msg.c: whole tc requests for planned objects, parsing dumped objects back, and the
 * equivalent tc(8) command line of each. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include "qdisc/qdisc.h"

static int msg_type(enum gw_obj_type t, int del)
{
	switch (t) {
	case GW_OBJ_QDISC:
		return del ? RTM_DELQDISC : RTM_NEWQDISC;
	case GW_OBJ_CLASS:
		return del ? RTM_DELTCLASS : RTM_NEWTCLASS;
	default:
		return del ? RTM_DELTFILTER : RTM_NEWTFILTER;
	}
}

static const char *obj_tc_kind(const struct gw_tc_obj *obj)
{
	const struct gw_qdisc_ops *ops;

	switch (obj->type) {
	case GW_OBJ_QDISC:
		ops = gw_qdisc_ops(obj->kind);
		return ops ? gw_kind_tc_name(ops, &obj->q) : NULL;
	case GW_OBJ_CLASS:
		return "htb";
	default:
		return "u32";
	}
}

static struct nl_msg *msg_start(const struct gw_tc_obj *obj, int type, int flags)
{
	/* a size table is 4 KiB; everything else fits in one */
	size_t size = obj->stab.set ? 8192 : 1024;
	struct nl_msg *msg = nlmsg_alloc_size(size);
	struct tcmsg tcm = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = obj->ifindex,
		.tcm_handle = obj->handle,
		.tcm_parent = obj->parent,
	};

	if (!msg)
		return NULL;
	if (obj->type == GW_OBJ_FILTER)
		tcm.tcm_info = TC_H_MAKE(GW_FILTER_PRIO << 16, htons(ETH_P_ALL));
	if (!nlmsg_put(msg, 0, 0, type, 0, flags) ||
	    nlmsg_append(msg, &tcm, sizeof(tcm), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int gw_obj_build(const struct gw_tc_obj *obj, int nlm_flags, struct nl_msg **out)
{
	const char *kind = obj_tc_kind(obj);
	struct nl_msg *msg;
	int err;

	if (!kind)
		return -EINVAL;
	msg = msg_start(obj, msg_type(obj->type, 0), nlm_flags);
	if (!msg)
		return -ENOMEM;
	err = nla_put_string(msg, TCA_KIND, kind) < 0 ? -EMSGSIZE : 0;
	if (!err && obj->type == GW_OBJ_QDISC) {
		err = gw_kind_encode(gw_qdisc_ops(obj->kind), msg, &obj->q);
		if (!err)
			err = gw_stab_encode(msg, &obj->stab, obj->stab_overhead);
	} else if (!err && obj->type == GW_OBJ_CLASS) {
		err = gw_htb_class_encode(msg, &obj->cls);
	} else if (!err) {
		err = gw_redirect_encode(msg, obj->redirect_ifindex);
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	*out = msg;
	return 0;
}

int gw_obj_create_flags(const struct gw_tc_obj *obj)
{
	return NLM_F_CREATE | (obj->parent == TC_H_ROOT ? NLM_F_REPLACE : NLM_F_EXCL);
}

int gw_obj_build_del(const struct gw_tc_obj *obj, struct nl_msg **out)
{
	struct nl_msg *msg = msg_start(obj, msg_type(obj->type, 1), 0);

	if (!msg)
		return -ENOMEM;
	*out = msg;
	return 0;
}

static int parse_stab(struct nlattr *a, struct gw_tc_obj *obj)
{
	struct nlattr *tb[TCA_STAB_MAX + 1];
	struct tc_sizespec s;

	if (nla_parse_nested(tb, TCA_STAB_MAX, a, NULL) < 0 || !tb[TCA_STAB_BASE] ||
	    nla_len(tb[TCA_STAB_BASE]) < (int)sizeof(s))
		return -EBADMSG;
	memcpy(&s, nla_data(tb[TCA_STAB_BASE]), sizeof(s));
	obj->stab.set = true;
	obj->stab_overhead = s.overhead;
	obj->stab.mpu = (int32_t)s.mpu;
	obj->stab.linklayer = s.linklayer == TC_LINKLAYER_ATM ? GW_LL_ATM : GW_LL_ETHERNET;
	return 0;
}

int gw_obj_parse(const struct nlmsghdr *nlh, struct gw_tc_obj *obj, char *other_kind, size_t len)
{
	struct nlattr *tb[TCA_MAX + 1];
	const struct gw_qdisc_ops *ops;
	const struct tcmsg *tcm;
	char kind[IFNAMSIZ] = "";

	memset(obj, 0, sizeof(*obj));
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*tcm)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*tcm), tb, TCA_MAX, NULL) < 0)
		return -EBADMSG;
	tcm = nlmsg_data(nlh);
	obj->ifindex = tcm->tcm_ifindex;
	obj->handle = tcm->tcm_handle;
	obj->parent = tcm->tcm_parent;
	if (tb[TCA_KIND])
		nla_strlcpy(kind, tb[TCA_KIND], sizeof(kind));
	if (other_kind && len)
		snprintf(other_kind, len, "%s", kind);
	switch (nlh->nlmsg_type) {
	case RTM_NEWQDISC:
		obj->type = GW_OBJ_QDISC;
		if (!(ops = gw_qdisc_ops_by_tc_kind(kind)))
			return -ENOENT;
		obj->kind = gw_qdisc_kind(ops);
		gw_qopts_init(obj->kind, &obj->q);
		if (ops->tc_kind_in)
			ops->tc_kind_in(kind, &obj->q);
		if (tb[TCA_STAB] && parse_stab(tb[TCA_STAB], obj))
			return -EBADMSG;
		return gw_kind_decode(ops, tb[TCA_OPTIONS], &obj->q);
	case RTM_NEWTCLASS:
		obj->type = GW_OBJ_CLASS;
		if (strcmp(kind, "htb") != 0)
			return -ENOENT;
		obj->kind = GW_KIND_HTB;
		return gw_htb_class_decode(tb[TCA_OPTIONS], &obj->cls);
	case RTM_NEWTFILTER:
		obj->type = GW_OBJ_FILTER;
		if (strcmp(kind, "u32") != 0)
			return -ENOENT;
		return gw_redirect_decode(tb[TCA_OPTIONS], &obj->redirect_ifindex);
	default:
		return -EBADMSG;
	}
}

static int fmt_parent(char *buf, size_t len, size_t *pos, uint32_t parent)
{
	if (parent == TC_H_ROOT)
		return gw_fmt(buf, len, pos, " root");
	return gw_fmt(buf, len, pos, " parent %x:%x", TC_H_MAJ(parent) >> 16, TC_H_MIN(parent));
}

int gw_obj_format_tc(const struct gw_tc_obj *obj, const char *ifname, const char *ifb_name,
		     char *buf, size_t len)
{
	char opts[512];
	size_t pos = 0;
	int err = 0, n;

	buf[0] = '\0';
	if (obj->type == GW_OBJ_QDISC && obj->kind == GW_KIND_INGRESS)
		return gw_fmt(buf, len, &pos, "tc qdisc add dev %s ingress", ifname);
	if (obj->type == GW_OBJ_FILTER)
		return gw_fmt(buf, len, &pos,
			      "tc filter add dev %s parent ffff: protocol all prio %u u32 match u32 0 0 action mirred egress redirect dev %s",
			      ifname, GW_FILTER_PRIO, ifb_name);
	if (obj->type == GW_OBJ_CLASS) {
		n = gw_htb_class_format(opts, sizeof(opts), &obj->cls);
		if (n < 0)
			return n;
		err |= gw_fmt(buf, len, &pos, "tc class add dev %s", ifname);
		err |= fmt_parent(buf, len, &pos, obj->parent);
		err |= gw_fmt(buf, len, &pos, " classid %x:%x htb%s", TC_H_MAJ(obj->handle) >> 16,
			      TC_H_MIN(obj->handle), opts);
		return err ? -ENOSPC : 0;
	}
	err |= gw_fmt(buf, len, &pos, "tc qdisc add dev %s", ifname);
	err |= fmt_parent(buf, len, &pos, obj->parent);
	err |= gw_fmt(buf, len, &pos, " handle %x:", TC_H_MAJ(obj->handle) >> 16);
	if (gw_stab_format(opts, sizeof(opts), &obj->stab, obj->stab_overhead) < 0)
		return -ENOSPC;
	err |= gw_fmt(buf, len, &pos, "%s", opts);
	n = gw_kind_format(gw_qdisc_ops(obj->kind), opts, sizeof(opts), &obj->q);
	if (n < 0)
		return n;
	err |= gw_fmt(buf, len, &pos, " %s%s", obj_tc_kind(obj), opts);
	return err ? -ENOSPC : 0;
}

static int class_matches(const struct gw_htb_class_opts *w, const struct gw_htb_class_opts *g,
			 bool inner)
{
	return w->rate == g->rate && w->ceil == g->ceil &&
	       (w->prio == GW_UNSET || inner || w->prio == g->prio) &&
	       (w->quantum == GW_UNSET || inner || w->quantum == g->quantum) &&
	       (w->burst == GW_UNSET || gw_near(w->burst, g->burst)) &&
	       (w->cburst == GW_UNSET || gw_near(w->cburst, g->cburst));
}

int gw_obj_matches(const struct gw_tc_obj *want, const struct gw_tc_obj *got, char *why,
		   size_t len)
{
	if (want->type != got->type || want->kind != got->kind) {
		snprintf(why, len, "kind is %s, planned %s", gw_kind_name(got->kind),
			 gw_kind_name(want->kind));
		return 0;
	}
	/* the kernel reports a class hung directly on its qdisc as a child of "root" */
	if (want->parent != got->parent &&
	    !(want->type == GW_OBJ_CLASS && got->parent == TC_H_ROOT &&
	      want->parent == TC_H_MAJ(want->handle))) {
		snprintf(why, len, "parent is %x:%x, planned %x:%x", got->parent >> 16,
			 got->parent & 0xFFFF, want->parent >> 16, want->parent & 0xFFFF);
		return 0;
	}
	switch (want->type) {
	case GW_OBJ_QDISC:
		if (!gw_kind_same(gw_qdisc_ops(want->kind), &want->q, &got->q)) {
			snprintf(why, len, "%s options differ from the plan", gw_kind_name(want->kind));
			return 0;
		}
		if (want->stab.set && (!got->stab.set || got->stab_overhead != want->stab_overhead)) {
			snprintf(why, len, "size table (link-layer overhead) missing or different");
			return 0;
		}
		return 1;
	case GW_OBJ_CLASS:
		if (!class_matches(&want->cls, &got->cls, want->inner)) {
			snprintf(why, len, "class rate %llu ceil %llu B/s, planned %llu/%llu",
				 (unsigned long long)got->cls.rate, (unsigned long long)got->cls.ceil,
				 (unsigned long long)want->cls.rate,
				 (unsigned long long)want->cls.ceil);
			return 0;
		}
		return 1;
	default:
		if (want->redirect_ifindex != got->redirect_ifindex) {
			snprintf(why, len, "redirects to ifindex %d, planned %d",
				 got->redirect_ifindex, want->redirect_ifindex);
			return 0;
		}
		return 1;
	}
}

/* htb reports its version as 3.17 but takes only the major number back. */
static int htb_dump_fixup(struct nlattr *options)
{
	struct nlattr *opts[TCA_HTB_MAX + 1];
	struct tc_htb_glob g;

	if (nla_parse_nested(opts, TCA_HTB_MAX, options, NULL) < 0 ||
	    !opts[TCA_HTB_INIT] || nla_len(opts[TCA_HTB_INIT]) < (int)sizeof(g))
		return -EBADMSG;
	memcpy(&g, nla_data(opts[TCA_HTB_INIT]), sizeof(g));
	g.version >>= 16;
	memcpy(nla_data(opts[TCA_HTB_INIT]), &g, sizeof(g));
	return 0;
}

/* u32 reports whether the rule sits in hardware in its flags, which it refuses as input. */
static int u32_dump_fixup(struct nlattr *options)
{
	struct nlattr *opts[TCA_U32_MAX + 1];
	uint32_t flags;

	if (nla_parse_nested(opts, TCA_U32_MAX, options, NULL) < 0)
		return -EBADMSG;
	if (!opts[TCA_U32_FLAGS] || nla_len(opts[TCA_U32_FLAGS]) < 4)
		return 0;
	memcpy(&flags, nla_data(opts[TCA_U32_FLAGS]), sizeof(flags));
	flags &= ~(uint32_t)(TCA_CLS_FLAGS_IN_HW | TCA_CLS_FLAGS_NOT_IN_HW);
	memcpy(nla_data(opts[TCA_U32_FLAGS]), &flags, sizeof(flags));
	return 0;
}

/* A dumped object made into a request that re-creates it, where dump and request differ. */
int gw_obj_dump_to_request(struct nlmsghdr *nlh)
{
	struct nlattr *tb[TCA_MAX + 1];

	if (nlh->nlmsg_type != RTM_NEWQDISC && nlh->nlmsg_type != RTM_NEWTFILTER)
		return 0;
	if (nlmsg_parse(nlh, sizeof(struct tcmsg), tb, TCA_MAX, NULL) < 0)
		return -EBADMSG;
	if (!tb[TCA_KIND] || !tb[TCA_OPTIONS])
		return 0;
	if (nlh->nlmsg_type == RTM_NEWQDISC && nla_strcmp(tb[TCA_KIND], "htb") == 0)
		return htb_dump_fixup(tb[TCA_OPTIONS]);
	if (nlh->nlmsg_type == RTM_NEWTFILTER && nla_strcmp(tb[TCA_KIND], "u32") == 0)
		return u32_dump_fixup(tb[TCA_OPTIONS]);
	return 0;
}
