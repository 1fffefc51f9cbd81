/* qdisc/u32class.c: ingress classes. The ifb sees a packet before netfilter does, so the
 * nftables rules cannot sort it; a u32 filter on the ifb's htb root matches the same fields
 * (32-bit words at fixed offsets from the IP header) and names the class directly. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include "qdisc/nft.h"
#include "qdisc/qdisc.h"

#define U32_KEYS_MAX GW_U32_KEYS_MAX

struct u32_sel {
	struct tc_u32_sel sel;
	struct tc_u32_key keys[U32_KEYS_MAX];
};

static void key(struct u32_sel *s, int off, uint32_t mask, uint32_t val)
{
	struct tc_u32_key *k = &s->keys[s->sel.nkeys++];

	k->off = off;
	k->mask = htonl(mask);
	k->val = htonl(val & mask);
}

static void key_prefix(struct u32_sel *s, int off, const struct gw_prefix *p)
{
	for (int w = 0; w * 32 < p->len; w++) {
		int bits = p->len - w * 32 > 32 ? 32 : p->len - w * 32;
		uint32_t mask = bits == 32 ? 0xffffffffu : ~(0xffffffffu >> bits), v;

		memcpy(&v, p->addr + 4 * w, 4);
		key(s, off + 4 * w, mask, ntohl(v));
	}
}

/* A port range u32 can match in one key: a block of 2^k ports aligned on 2^k. */
static int port_mask(const struct gw_port_range *r, uint16_t *mask)
{
	uint32_t size = (uint32_t)r->hi - r->lo + 1;

	if (size & (size - 1) || r->lo & (size - 1))
		return -EINVAL;
	*mask = (uint16_t)~(size - 1);
	return 0;
}

static int fill(struct u32_sel *s, const struct gw_rule *r)
{
	bool v4 = r->family == AF_INET;
	int l4 = v4 ? 20 : 40;
	uint16_t sm = 0, dm = 0;

	memset(s, 0, sizeof(*s));
	s->sel.flags = TC_U32_TERMINAL;
	if (r->family != AF_INET && r->family != AF_INET6)
		return -EAFNOSUPPORT;
	if (r->iif[0] || r->oif[0] || r->has_mark || r->cgroup_id)
		return -EOPNOTSUPP;
	if ((r->has_sport && port_mask(&r->sport, &sm)) ||
	    (r->has_dport && port_mask(&r->dport, &dm)))
		return -EINVAL;
	if (r->has_src)
		key_prefix(s, v4 ? 12 : 8, &r->src);
	if (r->has_dst)
		key_prefix(s, v4 ? 16 : 24, &r->dst);
	if (r->dscp >= 0)
		key(s, 0, v4 ? 0x00fc0000u : 0x0fc00000u, (uint32_t)r->dscp << (v4 ? 18 : 22));
	if (r->proto >= 0)
		key(s, v4 ? 8 : 4, v4 ? 0x00ff0000u : 0x0000ff00u, (uint32_t)r->proto << (v4 ? 16 : 8));
	if ((r->has_sport || r->has_dport) && v4) {
		/* ports at a fixed offset: a 20-byte header, and the first fragment */
		key(s, 0, 0x0f000000u, 0x05000000u);
		key(s, 4, 0x00001fffu, 0);
	}
	if (r->has_sport || r->has_dport)
		key(s, l4, (r->has_sport ? (uint32_t)sm << 16 : 0) | (r->has_dport ? dm : 0),
		    ((uint32_t)r->sport.lo << 16) | r->dport.lo);
	if (s->sel.nkeys == 0)
		key(s, 0, 0, 0);	/* the whole family */
	return 0;
}

static uint32_t tc_info(unsigned int gen, int family)
{
	unsigned int prio = GW_U32_PRIO_BASE + 2 * gen + (family == AF_INET6);

	return TC_H_MAKE(prio << 16, htons(family == AF_INET6 ? ETH_P_IPV6 : ETH_P_IP));
}

static struct nl_msg *start(int type, int flags, int ifindex, unsigned int gen, int family)
{
	struct nl_msg *msg = nlmsg_alloc_size(1024);
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = ifindex,
		.tcm_parent = GW_ROOT_HANDLE,
		.tcm_info = tc_info(gen, family),
	};

	if (!msg)
		return NULL;
	if (!nlmsg_put(msg, 0, 0, type, 0, flags) ||
	    nlmsg_append(msg, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, TCA_KIND, "u32") < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int gw_u32_build(int ifindex, const struct gw_rule *r, unsigned int gen, struct nl_msg **out)
{
	struct u32_sel s;
	struct nlattr *opts;
	struct nl_msg *msg;
	int err = fill(&s, r);

	if (err)
		return err;
	msg = start(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, ifindex, gen, r->family);
	if (!msg)
		return -ENOMEM;
	if (!(opts = nla_nest_start(msg, TCA_OPTIONS)) ||
	    nla_put_u32(msg, TCA_U32_CLASSID, r->classid) < 0 ||
	    nla_put(msg, TCA_U32_SEL, (int)(sizeof(s.sel) + s.sel.nkeys * sizeof(s.keys[0])),
		    &s) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, opts);
	*out = msg;
	return 0;
}

int gw_u32_build_del(int ifindex, unsigned int gen, int family, struct nl_msg **out)
{
	*out = start(RTM_DELTFILTER, 0, ifindex, gen, family);
	return *out ? 0 : -ENOMEM;
}

int gw_u32_format(const char *dev, const struct gw_rule *r, unsigned int gen, char *buf,
		  size_t len)
{
	struct u32_sel s;
	size_t pos = 0;
	int err = fill(&s, r);

	if (err)
		return err;
	err = gw_fmt(buf, len, &pos, "tc filter add dev %s parent e000: protocol %s prio %u u32",
		     dev, r->family == AF_INET6 ? "ipv6" : "ip",
		     GW_U32_PRIO_BASE + 2 * gen + (r->family == AF_INET6));
	for (int i = 0; !err && i < s.sel.nkeys; i++)
		err = gw_fmt(buf, len, &pos, " match u32 0x%08x 0x%08x at %d",
			     ntohl(s.keys[i].val), ntohl(s.keys[i].mask), s.keys[i].off);
	if (!err)
		err = gw_fmt(buf, len, &pos, " flowid %x:%x", r->classid >> 16,
			     r->classid & 0xffff);
	return err ? err : (int)pos;
}

bool gw_u32_prio_ours(unsigned int prio)
{
	return prio >= GW_U32_PRIO_BASE && prio < GW_U32_PRIO_BASE + 4;
}

int gw_u32_parse(const struct nlmsghdr *h, struct gw_u32_got *out)
{
	struct nlattr *tb[TCA_MAX + 1], *o[TCA_U32_MAX + 1];
	const struct tcmsg *t;
	const struct tc_u32_sel *sel;
	int n;

	if (h->nlmsg_type != RTM_NEWTFILTER || h->nlmsg_len < NLMSG_LENGTH(sizeof(*t)))
		return -ENOENT;
	t = NLMSG_DATA(h);
	if (nlmsg_parse((struct nlmsghdr *)h, sizeof(*t), tb, TCA_MAX, NULL) < 0)
		return -EBADMSG;
	if (!tb[TCA_KIND] || nla_strcmp(tb[TCA_KIND], "u32") || !tb[TCA_OPTIONS])
		return -ENOENT;
	if (nla_parse_nested(o, TCA_U32_MAX, tb[TCA_OPTIONS], NULL) < 0)
		return -EBADMSG;
	if (!o[TCA_U32_SEL])
		return -ENOENT;
	n = nla_len(o[TCA_U32_SEL]);
	if (n < (int)sizeof(*sel))
		return -EBADMSG;
	sel = nla_data(o[TCA_U32_SEL]);
	if (sel->nkeys > GW_U32_KEYS_MAX ||
	    n < (int)(sizeof(*sel) + sel->nkeys * sizeof(struct tc_u32_key)))
		return -EBADMSG;
	memset(out, 0, sizeof(*out));
	out->ifindex = t->tcm_ifindex;
	out->parent = t->tcm_parent;
	out->prio = TC_H_MAJ(t->tcm_info) >> 16;
	out->family = ntohs((uint16_t)TC_H_MIN(t->tcm_info)) == ETH_P_IP ? AF_INET :
		      ntohs((uint16_t)TC_H_MIN(t->tcm_info)) == ETH_P_IPV6 ? AF_INET6 : 0;
	out->classid = o[TCA_U32_CLASSID] ? nla_get_u32(o[TCA_U32_CLASSID]) : 0;
	out->terminal = sel->flags & TC_U32_TERMINAL;
	out->nkeys = sel->nkeys;
	for (int i = 0; i < sel->nkeys; i++) {
		out->off[i] = (uint32_t)sel->keys[i].off;
		out->mask[i] = ntohl(sel->keys[i].mask);
		out->val[i] = ntohl(sel->keys[i].val);
	}
	out->actions = o[TCA_U32_ACT] != NULL;
	return 0;
}

bool gw_u32_matches(const struct gw_rule *r, const struct gw_u32_got *got)
{
	struct u32_sel s;

	if (fill(&s, r) || got->family != r->family || got->classid != r->classid ||
	    !got->terminal || got->actions || got->parent != GW_ROOT_HANDLE ||
	    got->nkeys != s.sel.nkeys ||
	    (got->prio != GW_U32_PRIO_BASE + (r->family == AF_INET6) &&
	     got->prio != GW_U32_PRIO_BASE + 2 + (r->family == AF_INET6)))
		return false;
	for (int i = 0; i < s.sel.nkeys; i++)
		if (got->off[i] != (uint32_t)s.keys[i].off || got->mask[i] != ntohl(s.keys[i].mask) ||
		    got->val[i] != ntohl(s.keys[i].val))
			return false;
	return true;
}
