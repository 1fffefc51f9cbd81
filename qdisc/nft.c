/* qdisc/nft.c: gatewayd's nftables table, built as one nfnetlink batch (libnftnl messages,
 * libmnl socket) and printed as the `nft -f` text that makes the same table. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>
#include "qdisc/nft.h"
#include "qdisc/nl.h"

#define FWD_CHAIN "gw-forward"
#define OUT_CHAIN "gw-output"
#define HOOK_PRIO (-150)		/* mangle: before filter chains, as tc users expect */
#define MSG_ROOM (64 * 1024)		/* the most one message of ours takes */
#define ELEMS_PER_MSG 256
#define NFT_TIMEOUT_MS 10000
/* nft's own data type numbers, so that `nft list` prints the maps by type */
#define NFT_TYPE_IPADDR 7
#define NFT_TYPE_IP6ADDR 8
#define NFT_TYPE_CLASSID 23

struct batch {
	char *buf;
	size_t len, cap;
	uint32_t seq0, seq;
	size_t acks;		/* messages that ask for one */
	int err;
};

static struct nlmsghdr *room(struct batch *b)
{
	if (b->err)
		return NULL;
	if (b->cap - b->len < MSG_ROOM) {
		size_t cap = b->cap ? b->cap * 2 : 4 * MSG_ROOM;
		char *n = realloc(b->buf, cap);

		if (!n) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->buf = n;
		b->cap = cap;
	}
	memset(b->buf + b->len, 0, MSG_ROOM);
	return (struct nlmsghdr *)(b->buf + b->len);
}

static void done(struct batch *b, struct nlmsghdr *nlh, bool ack)
{
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
	b->acks += ack;
}

static struct nlmsghdr *hdr(struct batch *b, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = room(b);

	if (!nlh)
		return NULL;
	return nftnl_nlmsg_build_hdr((char *)nlh, type, NFPROTO_INET, flags | NLM_F_ACK,
				     b->seq++);
}

/* expressions */
static void ex_add(struct nftnl_rule *r, struct nftnl_expr *e, int *err)
{
	if (!e)
		*err = -ENOMEM;
	else
		nftnl_rule_add_expr(r, e);
}

static void meta_load(struct nftnl_rule *r, uint32_t key, int *err)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	}
	ex_add(r, e, err);
}

static void cmp(struct nftnl_rule *r, uint32_t op, const void *data, uint32_t len, int *err)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	ex_add(r, e, err);
}

static void payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len, int *err)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	}
	ex_add(r, e, err);
}

static void bitwise(struct nftnl_rule *r, const void *mask, uint32_t len, int *err)
{
	static const uint8_t zero[16];
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	}
	ex_add(r, e, err);
}

static void verdict(struct nftnl_rule *r, int v, const char *chain, int *err)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)v);
		if (chain)
			nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain);
	}
	ex_add(r, e, err);
}

/* priority = classid, then leave the link's chain: the first class that matches wins */
static void set_class(struct nftnl_rule *r, uint32_t classid, bool load, int *err)
{
	struct nftnl_expr *e;

	if (load) {
		e = nftnl_expr_alloc("immediate");
		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
			nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &classid, sizeof(classid));
		}
		ex_add(r, e, err);
	}
	e = nftnl_expr_alloc("meta");
	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_PRIORITY);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_SREG, NFT_REG_1);
	}
	ex_add(r, e, err);
	verdict(r, NFT_RETURN, NULL, err);
}

static void match_family(struct nftnl_rule *r, int family, int *err)
{
	uint8_t v = family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6;

	meta_load(r, NFT_META_NFPROTO, err);
	cmp(r, NFT_CMP_EQ, &v, 1, err);
}

static void match_ifname(struct nftnl_rule *r, uint32_t key, const char *name, int *err)
{
	char buf[IFNAMSIZ] = { 0 };

	strncpy(buf, name, IFNAMSIZ - 1);
	meta_load(r, key, err);
	cmp(r, NFT_CMP_EQ, buf, IFNAMSIZ, err);
}

/* As nft does it: a byte-aligned prefix loads only its bytes; any other loads the whole
 * address and masks it. */
static void match_prefix(struct nftnl_rule *r, const struct gw_prefix *p, bool dst, int *err)
{
	uint32_t off = p->family == AF_INET ? (dst ? 16 : 12) : (dst ? 24 : 8);
	uint32_t bytes = p->len % 8 ? (p->family == AF_INET ? 4 : 16) : p->len / 8u;
	uint8_t mask[16] = { 0 };

	if (!bytes)
		return;	/* /0: any address of the family, which the family match says */
	payload(r, NFT_PAYLOAD_NETWORK_HEADER, off, bytes, err);
	if (p->len % 8) {
		memset(mask, 0xff, p->len / 8u);
		mask[p->len / 8u] = (uint8_t)(0xff << (8 - p->len % 8));
		bitwise(r, mask, bytes, err);
	}
	cmp(r, NFT_CMP_EQ, p->addr, bytes, err);
}

static void match_port(struct nftnl_rule *r, const struct gw_port_range *pr, bool dst, int *err)
{
	uint16_t lo = htons(pr->lo), hi = htons(pr->hi);

	payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, dst ? 2 : 0, 2, err);
	if (pr->lo == pr->hi) {
		cmp(r, NFT_CMP_EQ, &lo, 2, err);
		return;
	}
	cmp(r, NFT_CMP_GTE, &lo, 2, err);	/* network order compares as numbers */
	cmp(r, NFT_CMP_LTE, &hi, 2, err);
}

static void match_dscp(struct nftnl_rule *r, int family, int dscp, int *err)
{
	if (family == AF_INET) {
		uint8_t m = 0xfc, v = (uint8_t)(dscp << 2);

		payload(r, NFT_PAYLOAD_NETWORK_HEADER, 1, 1, err);
		bitwise(r, &m, 1, err);
		cmp(r, NFT_CMP_EQ, &v, 1, err);
	} else {	/* the traffic class straddles the first two bytes */
		uint8_t m[2] = { 0x0f, 0xc0 }, v[2] = { (uint8_t)(dscp >> 2),
							(uint8_t)((dscp & 3) << 6) };

		payload(r, NFT_PAYLOAD_NETWORK_HEADER, 0, 2, err);
		bitwise(r, m, 2, err);
		cmp(r, NFT_CMP_EQ, v, 2, err);
	}
}

static void match_cgroup(struct nftnl_rule *r, const struct gw_rule *g, int *err)
{
	struct nftnl_expr *e = nftnl_expr_alloc("socket");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_KEY, NFT_SOCKET_CGROUPV2);
		nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_SOCKET_LEVEL, g->cgroup_level);
	}
	ex_add(r, e, err);
	cmp(r, NFT_CMP_EQ, &g->cgroup_id, sizeof(g->cgroup_id), err);
}

/* In the order nft itself emits the text form's expressions, so both list the same. */
static void rule_exprs(struct nftnl_rule *r, const struct gw_rule *g, int *err)
{
	if (g->iif[0])
		match_ifname(r, NFT_META_IIFNAME, g->iif, err);
	if (g->oif[0])
		match_ifname(r, NFT_META_OIFNAME, g->oif, err);
	if (g->family)
		match_family(r, g->family, err);
	if (g->has_src)
		match_prefix(r, &g->src, false, err);
	if (g->has_dst)
		match_prefix(r, &g->dst, true, err);
	if (g->dscp >= 0)
		match_dscp(r, g->family, g->dscp, err);
	if (g->proto >= 0) {
		uint8_t p = (uint8_t)g->proto;

		meta_load(r, NFT_META_L4PROTO, err);
		cmp(r, NFT_CMP_EQ, &p, 1, err);
	}
	if (g->has_sport)
		match_port(r, &g->sport, false, err);
	if (g->has_dport)
		match_port(r, &g->dport, true, err);
	if (g->has_mark) {
		meta_load(r, NFT_META_MARK, err);
		if (g->mark_mask != UINT32_MAX)
			bitwise(r, &g->mark_mask, 4, err);
		cmp(r, NFT_CMP_EQ, &g->mark, 4, err);
	}
	if (g->cgroup_id)
		match_cgroup(r, g, err);
	set_class(r, g->classid, true, err);
}

/* messages */
static void put_table(struct batch *b, uint16_t type)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t) {
		b->err = -ENOMEM;
		return;
	}
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, GW_NFT_TABLE);
	if ((nlh = hdr(b, type, type == NFT_MSG_NEWTABLE ? NLM_F_CREATE : 0))) {
		nftnl_table_nlmsg_build_payload(nlh, t);
		done(b, nlh, true);
	}
	nftnl_table_free(t);
}

static void put_chain(struct batch *b, const char *name, int hook)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (!c) {
		b->err = -ENOMEM;
		return;
	}
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_INET);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, GW_NFT_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	if (hook >= 0) {
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, (uint32_t)hook);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, HOOK_PRIO);
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	}
	if ((nlh = hdr(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_EXCL))) {
		nftnl_chain_nlmsg_build_payload(nlh, c);
		done(b, nlh, true);
	}
	nftnl_chain_free(c);
}

static struct nftnl_rule *new_rule(struct batch *b, const char *chain)
{
	struct nftnl_rule *r = nftnl_rule_alloc();

	if (!r) {
		b->err = -ENOMEM;
		return NULL;
	}
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, GW_NFT_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	return r;
}

static void put_rule(struct batch *b, struct nftnl_rule *r, int err)
{
	struct nlmsghdr *nlh;

	if (err && !b->err)
		b->err = err;
	if (!b->err && (nlh = hdr(b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND))) {
		nftnl_rule_nlmsg_build_payload(nlh, r);
		done(b, nlh, true);
	}
	nftnl_rule_free(r);
}

static void jump_rule(struct batch *b, const char *from, const char *oif, const char *to)
{
	struct nftnl_rule *r = new_rule(b, from);
	int err = 0;

	if (!r)
		return;
	match_ifname(r, NFT_META_OIFNAME, oif, &err);
	verdict(r, NFT_JUMP, to, &err);
	put_rule(b, r, err);
}

static void hosts_name(const struct gw_nft_chain *c, char *buf, size_t len)
{
	snprintf(buf, len, "hosts%s", c->name + strlen("egress"));
}

static void local_name(const struct gw_nft_chain *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s-local", c->name);
}

static bool has_cgroup(const struct gw_nft_chain *c)
{
	for (size_t i = 0; i < c->n_rules; i++)
		if (c->rules[i].cgroup_id)
			return true;
	return false;
}

static struct nftnl_set *hosts_set(struct batch *b, const char *name, uint32_t id)
{
	struct nftnl_set *s = nftnl_set_alloc();

	if (!s) {
		b->err = -ENOMEM;
		return NULL;
	}
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_INET);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, GW_NFT_TABLE);
	nftnl_set_set_str(s, NFTNL_SET_NAME, name);
	nftnl_set_set_u32(s, NFTNL_SET_ID, id);
	return s;
}

/* nft keeps the byte order of a set's keys and data in its user data; without it, `nft list`
 * would print the host-order class ids byte-swapped. */
#define NFT_UDATA_KEYBYTEORDER 0
#define NFT_UDATA_DATABYTEORDER 1
#define NFT_BYTEORDER_HOST 1
#define NFT_BYTEORDER_BIG 2

static void set_udata(struct batch *b, struct nftnl_set *s)
{
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(64);

	if (!u) {
		b->err = -ENOMEM;
		return;
	}
	if (nftnl_udata_put_u32(u, NFT_UDATA_KEYBYTEORDER, NFT_BYTEORDER_BIG) &&
	    nftnl_udata_put_u32(u, NFT_UDATA_DATABYTEORDER, NFT_BYTEORDER_HOST))
		nftnl_set_set_data(s, NFTNL_SET_USERDATA, nftnl_udata_buf_data(u),
				   nftnl_udata_buf_len(u));
	nftnl_udata_buf_free(u);
}

/* The hosts map: the set, then its elements, ELEMS_PER_MSG to a message. */
static void put_hosts_map(struct batch *b, const struct gw_nft_chain *c, uint32_t id)
{
	bool v4 = c->hosts[0].family == AF_INET;
	uint32_t klen = v4 ? 4 : 16;
	char name[GW_NFT_NAME_MAX];
	struct nftnl_set *s;
	struct nlmsghdr *nlh;

	hosts_name(c, name, sizeof(name));
	if (!(s = hosts_set(b, name, id)))
		return;
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_MAP);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, v4 ? NFT_TYPE_IPADDR : NFT_TYPE_IP6ADDR);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, klen);
	nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, NFT_TYPE_CLASSID);
	nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, 4);
	set_udata(b, s);
	if ((nlh = hdr(b, NFT_MSG_NEWSET, NLM_F_CREATE | NLM_F_EXCL))) {
		nftnl_set_nlmsg_build_payload(nlh, s);
		done(b, nlh, true);
	}
	nftnl_set_free(s);
	for (size_t i = 0; i < c->n_hosts && !b->err; i += ELEMS_PER_MSG) {
		if (!(s = hosts_set(b, name, id)))
			return;
		for (size_t k = i; k < c->n_hosts && k < i + ELEMS_PER_MSG; k++) {
			struct nftnl_set_elem *e = nftnl_set_elem_alloc();

			if (!e) {
				b->err = -ENOMEM;
				break;
			}
			nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, c->hosts[k].addr, klen);
			nftnl_set_elem_set(e, NFTNL_SET_ELEM_DATA, &c->hosts[k].classid, 4);
			nftnl_set_elem_add(s, e);
		}
		if (!b->err && (nlh = hdr(b, NFT_MSG_NEWSETELEM, NLM_F_CREATE | NLM_F_EXCL))) {
			nftnl_set_elems_nlmsg_build_payload(nlh, s);
			done(b, nlh, true);
		}
		nftnl_set_free(s);
	}
}

/* meta priority set ip saddr map @hosts-L return (and daddr) */
static void hosts_rules(struct batch *b, const struct gw_nft_chain *c, const char *chain,
			uint32_t id)
{
	int fam = c->hosts[0].family;
	char name[GW_NFT_NAME_MAX];

	hosts_name(c, name, sizeof(name));
	for (int dst = 0; dst < 2 && !b->err; dst++) {
		struct nftnl_rule *r = new_rule(b, chain);
		struct nftnl_expr *e;
		int err = 0;

		if (!r)
			return;
		match_family(r, fam, &err);
		payload(r, NFT_PAYLOAD_NETWORK_HEADER, fam == AF_INET ? (dst ? 16 : 12) :
			(dst ? 24 : 8), fam == AF_INET ? 4 : 16, &err);
		e = nftnl_expr_alloc("lookup");
		if (e) {
			nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
			nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_1);
			nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, name);
			nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SET_ID, id);
		}
		ex_add(r, e, &err);
		set_class(r, 0, false, &err);
		put_rule(b, r, err);
	}
}

static void put_link_chain(struct batch *b, const struct gw_nft_chain *c, const char *name,
			   bool local, uint32_t set_id)
{
	put_chain(b, name, -1);
	for (size_t i = 0; i < c->n_rules && !b->err; i++) {
		struct nftnl_rule *r;
		int err = 0;

		/* the socket match is valid only where local sockets are: output */
		if (c->rules[i].cgroup_id && !local)
			continue;
		if (!(r = new_rule(b, name)))
			return;
		rule_exprs(r, &c->rules[i], &err);
		put_rule(b, r, err);
	}
	if (c->n_hosts)
		hosts_rules(b, c, name, set_id);
}

static void build(struct batch *b, const struct gw_nft_ruleset *rs)
{
	char name[GW_NFT_NAME_MAX + 8];

	nftnl_batch_begin(room(b) ? b->buf + b->len : NULL, b->seq++);
	if (b->err)
		return;
	b->len += NLMSG_ALIGN(((struct nlmsghdr *)(b->buf + b->len))->nlmsg_len);
	/* add (a no-op if it is there) then delete: the delete never fails on a missing table */
	put_table(b, NFT_MSG_NEWTABLE);
	put_table(b, NFT_MSG_DELTABLE);
	if (rs && rs->n) {
		put_table(b, NFT_MSG_NEWTABLE);
		for (size_t i = 0; i < rs->n; i++) {
			const struct gw_nft_chain *c = &rs->chains[i];

			if (c->n_hosts)
				put_hosts_map(b, c, (uint32_t)i + 1);
			put_link_chain(b, c, c->name, false, (uint32_t)i + 1);
			if (has_cgroup(c)) {
				local_name(c, name, sizeof(name));
				put_link_chain(b, c, name, true, (uint32_t)i + 1);
			}
		}
		put_chain(b, FWD_CHAIN, NF_INET_FORWARD);
		put_chain(b, OUT_CHAIN, NF_INET_LOCAL_OUT);
		for (size_t i = 0; i < rs->n; i++) {
			const struct gw_nft_chain *c = &rs->chains[i];

			local_name(c, name, sizeof(name));
			jump_rule(b, FWD_CHAIN, c->oif, c->name);
			jump_rule(b, OUT_CHAIN, c->oif, has_cgroup(c) ? name : c->name);
		}
	}
	if (room(b)) {
		nftnl_batch_end(b->buf + b->len, b->seq++);
		b->len += NLMSG_ALIGN(((struct nlmsghdr *)(b->buf + b->len))->nlmsg_len);
	}
}

void gw_nft_acks(const void *buf, size_t len, uint32_t seq0, uint32_t seq, size_t *got,
		 int *first, char *msg, size_t msglen)
{
	int left = len > INT_MAX ? INT_MAX : (int)len;

	/* NLMSG_OK, not libmnl's mnl_nlmsg_ok: that one compares (int)nlmsg_len with the length
	 * left, so a length past 2 GiB passes as negative and the walk leaves the buffer */
	for (const struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		char text[GW_EXTACK_MAX];
		int r;

		if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_seq < seq0 || h->nlmsg_seq >= seq)
			continue;
		(*got)++;
		r = gw_nl_parse_error(h, h->nlmsg_len, text, sizeof(text));
		if (r && !*first) {
			/* an ack's error is a negative errno; anything else is not an answer */
			*first = r > 0 || r < -4095 ? -EBADMSG : r;
			if (msg && msglen)
				snprintf(msg, msglen, "%s", text);
		}
	}
}

/* Collect one reply per message that asked for an ack; the first error wins. A failed batch
 * still answers every message, but a batch the kernel refuses whole (no nf_tables) answers
 * only its first: after an error, wait briefly for the rest. */
static int collect(struct mnl_socket *nl, const struct gw_nft_batch *b, struct gw_nft_error *e)
{
	char *rbuf = malloc(MNL_SOCKET_BUFFER_SIZE * 4);
	size_t got = 0;
	int first = 0, fd = mnl_socket_get_fd(nl);

	if (!rbuf)
		return -ENOMEM;
	while (got < b->acks) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n = recv(fd, rbuf, MNL_SOCKET_BUFFER_SIZE * 4, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			int pr = poll(&p, 1, first ? 100 : NFT_TIMEOUT_MS);

			if (pr == 0) {
				first = first ? first : -ETIMEDOUT;
				break;
			}
			continue;
		}
		if (n < 0) {
			first = first ? first : -errno;
			break;
		}
		gw_nft_acks(rbuf, (size_t)n, b->seq0, b->seq, &got, &first, e->msg,
			    sizeof(e->msg));
	}
	free(rbuf);
	return first;
}

/* The port ids of the sockets the last batches went from. The kernel stamps a transaction's
 * notifications with the port id of the socket that sent it, so self-healing can tell this
 * process's own nf_tables changes from anyone else's even when both are read together. Each
 * batch opens a socket of its own; autobinding gives it the process's pid while that is free
 * (another process's autobind never takes it), so this holds one id in practice. */
#define OWN_IDS 8
static uint32_t own_ids[OWN_IDS];
static unsigned int own_next;

static void note_own(struct mnl_socket *nl)
{
	uint32_t id = mnl_socket_get_portid(nl);

	for (unsigned int i = 0; i < OWN_IDS; i++)
		if (own_ids[i] == id)
			return;
	own_ids[own_next++ % OWN_IDS] = id;
}

static bool real_ours(void *priv, uint32_t portid)
{
	(void)priv;
	for (unsigned int i = 0; portid && i < OWN_IDS; i++)
		if (own_ids[i] == portid)
			return true;
	return false;
}

static int real_batch(void *priv, const struct gw_nft_batch *b, struct gw_nft_error *e)
{
	struct mnl_socket *nl;
	int one = 1, size, r;

	(void)priv;
	nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		mnl_socket_close(nl);
		return r;
	}
	note_own(nl);
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	/* the batch goes in one sendmsg: room for it, and for its acks */
	size = (int)(b->len + 65536);
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	size = (int)(b->acks * 64 + 65536);
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (mnl_socket_sendto(nl, b->buf, b->len) < 0)
		r = -errno;
	else
		r = collect(nl, b, e);
	mnl_socket_close(nl);
	return r;
}

static const struct gw_nft_ops real_ops = { .batch = real_batch, .ours = real_ours };

/* nl's nftables, or the host's */
static const struct gw_nft_ops *ops_of(const struct gw_nl *nl, void **priv)
{
	const struct gw_nft_ops *ops = gw_nl_nft(nl, priv);

	if (ops)
		return ops;
	*priv = NULL;
	return &real_ops;
}

static int run(struct gw_nl *nl, const struct gw_nft_ruleset *rs, struct gw_nft_error *e)
{
	struct batch b = { .seq0 = (uint32_t)time(NULL) };
	struct gw_nft_error mine = { 0 };
	void *priv;
	const struct gw_nft_ops *ops = ops_of(nl, &priv);
	int r;

	b.seq = b.seq0;
	build(&b, rs);
	if (!(r = b.err)) {
		struct gw_nft_batch tx = { .buf = b.buf, .len = b.len, .seq0 = b.seq0,
					   .seq = b.seq, .acks = b.acks };

		r = ops->batch(priv, &tx, &mine);
	}
	free(b.buf);
	mine.err = r;
	if (e)
		*e = mine;
	return r;
}

int gw_nft_apply(struct gw_nl *nl, const struct gw_nft_ruleset *rs, struct gw_nft_error *e)
{
	return run(nl, rs, e);
}

int gw_nft_remove(struct gw_nl *nl, struct gw_nft_error *e)
{
	return run(nl, NULL, e);
}

bool gw_nft_portid_ours(const struct gw_nl *nl, uint32_t portid)
{
	void *priv;
	const struct gw_nft_ops *ops = ops_of(nl, &priv);

	return portid && ops->ours(priv, portid);
}

size_t gw_nft_batch_size(const struct gw_nft_ruleset *rs)
{
	struct batch b = { 0 };
	size_t n;

	build(&b, rs);
	n = b.err ? 0 : b.len;
	free(b.buf);
	return n;
}

/* text */
static void fmt_rule(FILE *o, const struct gw_rule *g)
{
	const char *ip = g->family == AF_INET6 ? "ip6" : "ip";
	char a[64];

	fputs("\t\t", o);
	if (g->iif[0])
		fprintf(o, "iifname \"%s\" ", g->iif);
	if (g->oif[0])
		fprintf(o, "oifname \"%s\" ", g->oif);
	if (g->family && !g->has_src && !g->has_dst && g->dscp < 0)
		fprintf(o, "meta nfproto %s ", g->family == AF_INET ? "ipv4" : "ipv6");
	if (g->has_src) {
		gw_format_prefix(&g->src, a, sizeof(a));
		fprintf(o, "%s saddr %s ", ip, a);
	}
	if (g->has_dst) {
		gw_format_prefix(&g->dst, a, sizeof(a));
		fprintf(o, "%s daddr %s ", ip, a);
	}
	if (g->dscp >= 0)
		fprintf(o, "%s dscp %d ", ip, g->dscp);
	if (g->proto >= 0)
		fprintf(o, "meta l4proto %d ", g->proto);
	if (g->has_sport)
		fprintf(o, g->sport.lo == g->sport.hi ? "th sport %u " : "th sport %u-%u ",
			g->sport.lo, g->sport.hi);
	if (g->has_dport)
		fprintf(o, g->dport.lo == g->dport.hi ? "th dport %u " : "th dport %u-%u ",
			g->dport.lo, g->dport.hi);
	if (g->has_mark) {
		if (g->mark_mask != UINT32_MAX)
			fprintf(o, "meta mark & 0x%08x == 0x%08x ", g->mark_mask, g->mark);
		else
			fprintf(o, "meta mark 0x%08x ", g->mark);
	}
	if (g->cgroup_id)
		fprintf(o, "socket cgroupv2 level %u \"%s\" ", g->cgroup_level, g->cgroup);
	fprintf(o, "meta priority set %x:%x return\n", g->classid >> 16, g->classid & 0xffff);
}

static void fmt_link_chain(FILE *o, const struct gw_nft_chain *c, const char *name, bool local)
{
	char hosts[GW_NFT_NAME_MAX];

	fprintf(o, "\tchain %s {\n", name);
	for (size_t i = 0; i < c->n_rules; i++)
		if (local || !c->rules[i].cgroup_id)
			fmt_rule(o, &c->rules[i]);
	hosts_name(c, hosts, sizeof(hosts));
	if (c->n_hosts) {
		const char *ip = c->hosts[0].family == AF_INET ? "ip" : "ip6";

		fprintf(o, "\t\tmeta priority set %s saddr map @%s return\n", ip, hosts);
		fprintf(o, "\t\tmeta priority set %s daddr map @%s return\n", ip, hosts);
	}
	fputs("\t}\n", o);
}

int gw_nft_format(FILE *o, const struct gw_nft_ruleset *rs)
{
	char name[GW_NFT_NAME_MAX + 8];

	/* the same replace-in-one-transaction as gatewayd's own batch */
	fprintf(o, "table inet %s\ndelete table inet %s\n", GW_NFT_TABLE, GW_NFT_TABLE);
	if (!rs || !rs->n)
		return 0;
	fprintf(o, "table inet %s {\n", GW_NFT_TABLE);
	for (size_t i = 0; i < rs->n; i++) {
		const struct gw_nft_chain *c = &rs->chains[i];

		if (c->n_hosts) {
			bool v4 = c->hosts[0].family == AF_INET;

			hosts_name(c, name, sizeof(name));
			fprintf(o, "\tmap %s {\n\t\ttype %s : classid\n\t\telements = {", name,
				v4 ? "ipv4_addr" : "ipv6_addr");
			for (size_t k = 0; k < c->n_hosts; k++) {
				char a[64];

				inet_ntop(c->hosts[k].family, c->hosts[k].addr, a, sizeof(a));
				fprintf(o, "%s%s : %x:%x", k ? ",\n\t\t\t" : " ", a,
					c->hosts[k].classid >> 16, c->hosts[k].classid & 0xffff);
			}
			fputs(" }\n\t}\n", o);
		}
		fmt_link_chain(o, c, c->name, false);
		if (has_cgroup(c)) {
			local_name(c, name, sizeof(name));
			fmt_link_chain(o, c, name, true);
		}
	}
	fprintf(o, "\tchain %s {\n\t\ttype filter hook forward priority mangle; policy accept;\n",
		FWD_CHAIN);
	for (size_t i = 0; i < rs->n; i++)
		fprintf(o, "\t\toifname \"%s\" jump %s\n", rs->chains[i].oif, rs->chains[i].name);
	fprintf(o, "\t}\n\tchain %s {\n\t\ttype filter hook output priority mangle; policy "
		"accept;\n", OUT_CHAIN);
	for (size_t i = 0; i < rs->n; i++) {
		local_name(&rs->chains[i], name, sizeof(name));
		fprintf(o, "\t\toifname \"%s\" jump %s\n", rs->chains[i].oif,
			has_cgroup(&rs->chains[i]) ? name : rs->chains[i].name);
	}
	fputs("\t}\n}\n", o);
	return ferror(o) ? -EIO : 0;
}
