/* tests/unit/fake_nft.c: the in-memory nf_tables of fake_nft.h. Its rules follow
 * net/netfilter/nf_tables_api.c and nfnetlink.c where gatewayd depends on them: a batch is
 * one transaction, taken whole or not at all; a table added where it is stays as it is unless
 * NLM_F_EXCL; deleting a table takes its rules, sets and chains with it; a chain or set needs
 * its table, a rule its chain and the sets and chains its expressions name (a set also by the
 * id its transaction gave it); NLM_F_APPEND puts a rule last in its chain, without it first;
 * a delete of rules names a table, maybe a chain, maybe a handle. It leaves out what gatewayd
 * never asks: rule positions, element deletes, objects, flowtables, the loop and hook checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
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
#include "qdisc/nl.h"
#include "tests/unit/fake_nft.h"

#define MSG_TYPE(t) ((uint16_t)((NFNL_SUBSYS_NFTABLES << 8) | (t)))

struct obj {
	uint16_t type;		/* NFT_MSG_NEWTABLE, NEWCHAIN, NEWSET, NEWSETELEM or NEWRULE */
	uint32_t family;
	char table[NFT_TABLE_MAXNAMELEN];
	char name[NFT_NAME_MAXLEN];	/* a chain's or set's; a rule's chain; elements' set */
	uint32_t set_id;	/* a set's NFTA_SET_ID, valid in the transaction that made it */
	bool fresh;		/* made by the transaction under way */
	uint64_t handle;	/* a rule's, numbered as the kernel numbers them */
	struct nlmsghdr *msg;	/* the message that made it, as sent */
};

struct state {
	struct obj *v;
	size_t n;
	uint64_t next_handle;
};

struct fkn {
	struct state s;
	uint32_t gen;
};

/* One transaction: the state it makes (a copy until it commits), its notifications. */
struct txn {
	struct state s;
	struct nlmsghdr **ev;
	size_t n_ev;
	char *msg;
	char tables[512];	/* what it asked, for the log */
	unsigned int chains, sets, elems, rules, other;
};

struct fkn *fkn_new(void)
{
	return calloc(1, sizeof(struct fkn));
}

static void state_free(struct state *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].msg);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void fkn_free(struct fkn *n)
{
	if (!n)
		return;
	state_free(&n->s);
	free(n);
}

static struct nlmsghdr *msg_dup(const struct nlmsghdr *h)
{
	struct nlmsghdr *c = malloc(h->nlmsg_len);

	if (c)
		memcpy(c, h, h->nlmsg_len);
	return c;
}

static int state_copy(struct state *dst, const struct state *src)
{
	*dst = (struct state){ .next_handle = src->next_handle };
	if (src->n && !(dst->v = calloc(src->n, sizeof(*dst->v))))
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++, dst->n++) {
		dst->v[i] = src->v[i];
		dst->v[i].fresh = false;
		if (!(dst->v[i].msg = msg_dup(src->v[i].msg))) {
			state_free(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

static int refuse(struct txn *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, GW_EXTACK_MAX, fmt, ap);
	va_end(ap);
	return err;
}

/* The notification of obj's message as type (a NEW or DEL type); the sender is stamped later. */
static int event(struct txn *t, const struct nlmsghdr *h, uint16_t type)
{
	struct nlmsghdr *c = msg_dup(h);
	void *n = realloc(t->ev, (t->n_ev + 1) * sizeof(*t->ev));

	if (!c || !n) {
		free(c);
		return -ENOMEM;
	}
	t->ev = n;
	c->nlmsg_type = MSG_TYPE(type);
	c->nlmsg_flags = 0;
	c->nlmsg_seq = 0;
	c->nlmsg_pid = 0;
	t->ev[t->n_ev++] = c;
	return 0;
}

static ssize_t find(const struct state *s, uint16_t type, uint32_t family, const char *table,
		    const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].type == type && s->v[i].family == family &&
		    !strcmp(s->v[i].table, table) && !strcmp(s->v[i].name, name))
			return (ssize_t)i;
	return -1;
}

/* Insert a copy of h as a new object at pos, and its notification. */
static int add_at(struct txn *t, size_t pos, const struct obj *o, const struct nlmsghdr *h)
{
	void *n = realloc(t->s.v, (t->s.n + 1) * sizeof(*t->s.v));
	struct obj x = *o;

	if (!n)
		return -ENOMEM;
	t->s.v = n;
	if (!(x.msg = msg_dup(h)))
		return -ENOMEM;
	x.fresh = true;
	memmove(&t->s.v[pos + 1], &t->s.v[pos], (t->s.n - pos) * sizeof(*t->s.v));
	t->s.v[pos] = x;
	t->s.n++;
	return event(t, h, o->type);
}

static void remove_at(struct state *s, size_t i)
{
	free(s->v[i].msg);
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->n--;
}

/* Delete the objects of one type in a table (of one name unless name is NULL), announcing
 * each when ann is its DEL type (0: none, as elements go with their set). */
static int remove_where(struct txn *t, uint16_t type, uint32_t family, const char *table,
			const char *name, uint16_t ann)
{
	for (size_t i = t->s.n; i-- > 0;) {
		struct obj *o = &t->s.v[i];
		int r;

		if (o->type != type || o->family != family || strcmp(o->table, table) ||
		    (name && strcmp(o->name, name)))
			continue;
		if (ann && (r = event(t, o->msg, ann)))
			return r;
		remove_at(&t->s, i);
	}
	return 0;
}

static bool table_there(const struct txn *t, uint32_t family, const char *table)
{
	return find(&t->s, NFT_MSG_NEWTABLE, family, table, "") >= 0;
}

static const char *family_name(uint32_t f)
{
	switch (f) {
	case NFPROTO_INET: return "inet";
	case NFPROTO_IPV4: return "ip";
	case NFPROTO_IPV6: return "ip6";
	case NFPROTO_BRIDGE: return "bridge";
	case NFPROTO_NETDEV: return "netdev";
	default: return "?";
	}
}

static void note_table(struct txn *t, const char *op, uint32_t family, const char *table)
{
	size_t pos = strlen(t->tables);

	snprintf(t->tables + pos, sizeof(t->tables) - pos, "%s%s table %s %s", pos ? ", " : "",
		 op, family_name(family), table);
}

/* ---- the messages ---- */

static int table_msg(struct txn *t, const struct nlmsghdr *h, bool del)
{
	struct nftnl_table *tb = nftnl_table_alloc();
	struct obj o = { .type = NFT_MSG_NEWTABLE };
	int r = 0;

	if (!tb)
		return -ENOMEM;
	if (nftnl_table_nlmsg_parse(h, tb) < 0 || !nftnl_table_is_set(tb, NFTNL_TABLE_NAME)) {
		r = refuse(t, -EINVAL, "fake kernel: a table without a name");
		goto out;
	}
	o.family = nftnl_table_get_u32(tb, NFTNL_TABLE_FAMILY);
	snprintf(o.table, sizeof(o.table), "%s", nftnl_table_get_str(tb, NFTNL_TABLE_NAME));
	note_table(t, del ? "del" : "add", o.family, o.table);
	if (del) {
		if (!table_there(t, o.family, o.table))
			r = refuse(t, -ENOENT, "fake kernel: no table %s %s", family_name(o.family),
				   o.table);
		/* what the kernel's flush does before the table goes: rules, sets, chains */
		else if (!(r = remove_where(t, NFT_MSG_NEWRULE, o.family, o.table, NULL,
					      NFT_MSG_DELRULE)) &&
			 !(r = remove_where(t, NFT_MSG_NEWSETELEM, o.family, o.table, NULL, 0)) &&
			 !(r = remove_where(t, NFT_MSG_NEWSET, o.family, o.table, NULL,
					    NFT_MSG_DELSET)) &&
			 !(r = remove_where(t, NFT_MSG_NEWCHAIN, o.family, o.table, NULL,
					    NFT_MSG_DELCHAIN)))
			r = remove_where(t, NFT_MSG_NEWTABLE, o.family, o.table, NULL,
					 NFT_MSG_DELTABLE);
	} else if (table_there(t, o.family, o.table)) {
		/* the same flags: nothing to update, and no notification */
		if (h->nlmsg_flags & NLM_F_EXCL)
			r = refuse(t, -EEXIST, "fake kernel: table %s %s exists",
				   family_name(o.family), o.table);
	} else {
		r = add_at(t, t->s.n, &o, h);
	}
out:
	nftnl_table_free(tb);
	return r;
}

static int chain_msg(struct txn *t, const struct nlmsghdr *h)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct obj o = { .type = NFT_MSG_NEWCHAIN };
	int r = 0;

	t->chains++;
	if (!c)
		return -ENOMEM;
	if (nftnl_chain_nlmsg_parse(h, c) < 0 || !nftnl_chain_is_set(c, NFTNL_CHAIN_TABLE) ||
	    !nftnl_chain_is_set(c, NFTNL_CHAIN_NAME)) {
		r = refuse(t, -EINVAL, "fake kernel: a chain without its table or name");
		goto out;
	}
	o.family = nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY);
	snprintf(o.table, sizeof(o.table), "%s", nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE));
	snprintf(o.name, sizeof(o.name), "%s", nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
	if (!table_there(t, o.family, o.table))
		r = refuse(t, -ENOENT, "fake kernel: chain %s: no table %s", o.name, o.table);
	else if (find(&t->s, NFT_MSG_NEWCHAIN, o.family, o.table, o.name) >= 0)
		r = h->nlmsg_flags & NLM_F_EXCL ?
		    refuse(t, -EEXIST, "fake kernel: chain %s exists", o.name) :
		    refuse(t, -EOPNOTSUPP, "fake kernel: updating a chain is not modelled");
	else
		r = add_at(t, t->s.n, &o, h);
out:
	nftnl_chain_free(c);
	return r;
}

static int set_msg(struct txn *t, const struct nlmsghdr *h)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct obj o = { .type = NFT_MSG_NEWSET };
	int r = 0;

	t->sets++;
	if (!s)
		return -ENOMEM;
	if (nftnl_set_nlmsg_parse(h, s) < 0 || !nftnl_set_is_set(s, NFTNL_SET_TABLE) ||
	    !nftnl_set_is_set(s, NFTNL_SET_NAME)) {
		r = refuse(t, -EINVAL, "fake kernel: a set without its table or name");
		goto out;
	}
	o.family = nftnl_set_get_u32(s, NFTNL_SET_FAMILY);
	snprintf(o.table, sizeof(o.table), "%s", nftnl_set_get_str(s, NFTNL_SET_TABLE));
	snprintf(o.name, sizeof(o.name), "%s", nftnl_set_get_str(s, NFTNL_SET_NAME));
	if (nftnl_set_is_set(s, NFTNL_SET_ID))
		o.set_id = nftnl_set_get_u32(s, NFTNL_SET_ID);
	if (!table_there(t, o.family, o.table))
		r = refuse(t, -ENOENT, "fake kernel: set %s: no table %s", o.name, o.table);
	else if (find(&t->s, NFT_MSG_NEWSET, o.family, o.table, o.name) >= 0)
		r = h->nlmsg_flags & NLM_F_EXCL ?
		    refuse(t, -EEXIST, "fake kernel: set %s exists", o.name) : 0;
	else
		r = add_at(t, t->s.n, &o, h);
out:
	nftnl_set_free(s);
	return r;
}

/* A set of table by name, or else by the id its own transaction gave it. */
static const struct obj *set_of(const struct txn *t, uint32_t family, const char *table,
				const char *name, bool by_id, uint32_t id)
{
	ssize_t i = name ? find(&t->s, NFT_MSG_NEWSET, family, table, name) : -1;

	if (i >= 0)
		return &t->s.v[i];
	for (size_t k = 0; by_id && k < t->s.n; k++)
		if (t->s.v[k].type == NFT_MSG_NEWSET && t->s.v[k].fresh &&
		    t->s.v[k].family == family && !strcmp(t->s.v[k].table, table) &&
		    t->s.v[k].set_id == id)
			return &t->s.v[k];
	return NULL;
}

/* libnftnl 1.2's parser wants each element's nest typed NFTA_LIST_ELEM, while its builder
 * numbers them 1, 2, ... and the kernel takes any type there (nla_for_each_nested): it parses
 * a copy so renumbered. */
static int parse_elems(const struct nlmsghdr *h, struct nftnl_set *s)
{
	struct nlmsghdr *c = msg_dup(h);
	struct nlattr *a, *e;
	int r;

	if (!c)
		return -1;
	mnl_attr_for_each(a, c, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == NFTA_SET_ELEM_LIST_ELEMENTS)
			mnl_attr_for_each_nested(e, a)
				e->nla_type = (uint16_t)((e->nla_type & ~NLA_TYPE_MASK) |
							 NFTA_LIST_ELEM);
	r = nftnl_set_elems_nlmsg_parse(c, s);
	free(c);
	return r;
}

static int count_elem(struct nftnl_set_elem *e, void *arg)
{
	(void)e;
	(*(unsigned int *)arg)++;
	return 0;
}

static int elems_msg(struct txn *t, const struct nlmsghdr *h)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct obj o = { .type = NFT_MSG_NEWSETELEM };
	const struct obj *set;
	int r = 0;

	if (!s)
		return -ENOMEM;
	if (parse_elems(h, s) < 0 || !nftnl_set_is_set(s, NFTNL_SET_TABLE)) {
		r = refuse(t, -EINVAL, "fake kernel: elements without their table");
		goto out;
	}
	nftnl_set_elem_foreach(s, count_elem, &t->elems);
	o.family = nftnl_set_get_u32(s, NFTNL_SET_FAMILY);
	snprintf(o.table, sizeof(o.table), "%s", nftnl_set_get_str(s, NFTNL_SET_TABLE));
	set = set_of(t, o.family, o.table, nftnl_set_get_str(s, NFTNL_SET_NAME),
		     nftnl_set_is_set(s, NFTNL_SET_ID), nftnl_set_get_u32(s, NFTNL_SET_ID));
	if (!set) {
		r = refuse(t, -ENOENT, "fake kernel: elements of a set that is not there");
		goto out;
	}
	snprintf(o.name, sizeof(o.name), "%s", set->name);
	r = add_at(t, t->s.n, &o, h);
out:
	nftnl_set_free(s);
	return r;
}

struct rule_ctx {
	struct txn *t;
	uint32_t family;
	const char *table;
	int err;
};

/* What a rule's expressions name must be there: the sets it looks up, the chains it jumps to. */
static int check_expr(struct nftnl_expr *e, void *arg)
{
	struct rule_ctx *c = arg;
	const char *kind = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

	if (!strcmp(kind, "lookup") &&
	    !set_of(c->t, c->family, c->table, nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET),
		    nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_SET_ID),
		    nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SET_ID)))
		c->err = refuse(c->t, -ENOENT, "fake kernel: lookup of set %s, which is not there",
				nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET));
	if (!strcmp(kind, "immediate") && nftnl_expr_is_set(e, NFTNL_EXPR_IMM_CHAIN) &&
	    find(&c->t->s, NFT_MSG_NEWCHAIN, c->family, c->table,
		 nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN)) < 0)
		c->err = refuse(c->t, -ENOENT, "fake kernel: a jump to chain %s, which is not there",
				nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN));
	return c->err;
}

/* Where a rule goes in the array: after the chain's last rule, or before its first. */
static size_t rule_pos(const struct txn *t, const struct obj *o, bool append)
{
	size_t pos = t->s.n;

	for (size_t i = 0; i < t->s.n; i++) {
		const struct obj *x = &t->s.v[i];

		if (x->type != NFT_MSG_NEWRULE || x->family != o->family ||
		    strcmp(x->table, o->table) || strcmp(x->name, o->name))
			continue;
		if (!append)
			return i;
		pos = i + 1;
	}
	return pos;
}

static int rule_msg(struct txn *t, const struct nlmsghdr *h, bool del)
{
	struct nftnl_rule *rl = nftnl_rule_alloc();
	struct obj o = { .type = NFT_MSG_NEWRULE };
	struct rule_ctx c = { .t = t };
	bool chain;
	int r = 0;

	t->rules++;
	if (!rl)
		return -ENOMEM;
	if (nftnl_rule_nlmsg_parse(h, rl) < 0 || !nftnl_rule_is_set(rl, NFTNL_RULE_TABLE)) {
		r = refuse(t, -EINVAL, "fake kernel: a rule without its table");
		goto out;
	}
	o.family = nftnl_rule_get_u32(rl, NFTNL_RULE_FAMILY);
	snprintf(o.table, sizeof(o.table), "%s", nftnl_rule_get_str(rl, NFTNL_RULE_TABLE));
	if ((chain = nftnl_rule_is_set(rl, NFTNL_RULE_CHAIN)))
		snprintf(o.name, sizeof(o.name), "%s", nftnl_rule_get_str(rl, NFTNL_RULE_CHAIN));
	if (!table_there(t, o.family, o.table)) {
		r = refuse(t, -ENOENT, "fake kernel: rule: no table %s", o.table);
	} else if ((chain || !del) && find(&t->s, NFT_MSG_NEWCHAIN, o.family, o.table, o.name) < 0) {
		r = refuse(t, -ENOENT, "fake kernel: rule: no chain %s", o.name);
	} else if (del) {
		bool handle = nftnl_rule_is_set(rl, NFTNL_RULE_HANDLE), found = false;
		uint64_t hd = handle ? nftnl_rule_get_u64(rl, NFTNL_RULE_HANDLE) : 0;

		for (size_t i = t->s.n; i-- > 0 && !r;) {
			struct obj *x = &t->s.v[i];

			if (x->type != NFT_MSG_NEWRULE || x->family != o.family ||
			    strcmp(x->table, o.table) || (chain && strcmp(x->name, o.name)) ||
			    (handle && x->handle != hd))
				continue;
			found = true;
			if (!(r = event(t, x->msg, NFT_MSG_DELRULE)))
				remove_at(&t->s, i);
		}
		if (!r && handle && !found)
			r = refuse(t, -ENOENT, "fake kernel: no rule of handle %llu",
				   (unsigned long long)hd);
	} else {
		c.family = o.family;
		c.table = o.table;
		nftnl_expr_foreach(rl, check_expr, &c);
		o.handle = ++t->s.next_handle;
		r = c.err ? c.err : add_at(t, rule_pos(t, &o, h->nlmsg_flags & NLM_F_APPEND), &o, h);
	}
out:
	nftnl_rule_free(rl);
	return r;
}

static int one(struct txn *t, const struct nlmsghdr *h)
{
	if (NFNL_SUBSYS_ID(h->nlmsg_type) != NFNL_SUBSYS_NFTABLES)
		return refuse(t, -EINVAL, "fake kernel: a message of another subsystem in the batch");
	switch (NFNL_MSG_TYPE(h->nlmsg_type)) {
	case NFT_MSG_NEWTABLE: return table_msg(t, h, false);
	case NFT_MSG_DELTABLE: return table_msg(t, h, true);
	case NFT_MSG_NEWCHAIN: return chain_msg(t, h);
	case NFT_MSG_NEWSET: return set_msg(t, h);
	case NFT_MSG_NEWSETELEM: return elems_msg(t, h);
	case NFT_MSG_NEWRULE: return rule_msg(t, h, false);
	case NFT_MSG_DELRULE: return rule_msg(t, h, true);
	default:
		t->other++;
		return refuse(t, -EOPNOTSUPP, "fake kernel: nf_tables message %u not modelled",
			      NFNL_MSG_TYPE(h->nlmsg_type));
	}
}

/* ---- transactions ---- */

static void txn_free(struct txn *t)
{
	state_free(&t->s);
	for (size_t i = 0; i < t->n_ev; i++)
		free(t->ev[i]);
	free(t->ev);
}

static void summary(const struct txn *t, char *what, size_t len)
{
	size_t pos = (size_t)snprintf(what, len, "%s", t->tables);
	const struct { unsigned int n; const char *one, *many; } c[] = {
		{ t->chains, "chain", "chains" }, { t->rules, "rule", "rules" },
		{ t->sets, "set", "sets" }, { t->elems, "element", "elements" },
		{ t->other, "other", "others" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]) && pos < len; i++)
		if (c[i].n)
			pos += (size_t)snprintf(what + pos, len - pos, "%s%u %s", pos ? ", " : "",
						c[i].n, c[i].n == 1 ? c[i].one : c[i].many);
}

/* The end of a transaction the kernel announces: its generation. */
static void newgen(struct fkn *n, fkn_notify_fn notify, void *arg)
{
	char buf[8192];
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	n->gen++;
	h->nlmsg_type = MSG_TYPE(NFT_MSG_NEWGEN);
	g = mnl_nlmsg_put_extra_header(h, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons((uint16_t)n->gen);
	mnl_attr_put_u32(h, NFTA_GEN_ID, htonl(n->gen));
	notify(arg, h);
}

/* The batch's frame: BEGIN of nf_tables first, END last, its numbers as b says them. */
static int frame(const struct gw_nft_batch *b, struct txn *t)
{
	const struct nlmsghdr *h = b->buf, *last = NULL;
	int left = (int)b->len;
	size_t acks = 0;

	if (!NLMSG_OK(h, left) || h->nlmsg_type != NFNL_MSG_BATCH_BEGIN ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nfgenmsg)))
		return refuse(t, -EINVAL, "fake kernel: a batch must begin with NFNL_MSG_BATCH_BEGIN");
	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_seq < b->seq0 || h->nlmsg_seq >= b->seq)
			return refuse(t, -EPROTO, "fake kernel: sequence number %u outside [%u, %u)",
				      h->nlmsg_seq, b->seq0, b->seq);
		acks += !!(h->nlmsg_flags & NLM_F_ACK);
		last = h;
	}
	if (left || last->nlmsg_type != NFNL_MSG_BATCH_END)
		return refuse(t, -EINVAL, "fake kernel: a batch must end with NFNL_MSG_BATCH_END");
	if (acks != b->acks)
		return refuse(t, -EPROTO, "fake kernel: %zu messages ask for an ack, the batch says %zu",
			      acks, b->acks);
	{
		const struct nfgenmsg *g = NLMSG_DATA(b->buf);
		uint16_t res = ntohs(g->res_id);

		if (res != NFNL_SUBSYS_NFTABLES && res != NFNL_SUBSYS_NONE)
			return refuse(t, -EINVAL, "fake kernel: a batch for subsystem %u", res);
	}
	return 0;
}

int fkn_batch(struct fkn *n, const struct gw_nft_batch *b, int refuse_err, char *msg,
	      char *what, size_t whatlen, fkn_notify_fn notify, void *arg)
{
	char later[GW_EXTACK_MAX], words[GW_EXTACK_MAX];
	struct txn t = { .msg = msg };
	int left = (int)b->len, r;

	if (what && whatlen)
		what[0] = '\0';
	/* a batch that is not one (a bug of the builder) is refused as that, first */
	snprintf(words, sizeof(words), "%s", refuse_err ? msg : "");
	if ((r = frame(b, &t)) || (r = state_copy(&t.s, &n->s)))
		return r;
	snprintf(msg, GW_EXTACK_MAX, "%s", words);
	if (refuse_err)
		t.msg = later;	/* the refusal's own words stand, whatever else is found */
	/* every message is looked at, as the kernel does; the first refusal is the answer */
	for (const struct nlmsghdr *h = b->buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		int e;

		if (h->nlmsg_type == NFNL_MSG_BATCH_BEGIN || h->nlmsg_type == NFNL_MSG_BATCH_END)
			continue;
		if ((e = one(&t, h)) && !r) {
			r = e;
			t.msg = later;	/* the first refusal's words are the answer's */
		}
	}
	if (what && whatlen)
		summary(&t, what, whatlen);
	if (refuse_err)
		r = refuse_err;	/* msg holds the words to refuse it with */
	if (!r) {
		struct state old = n->s;

		n->s = t.s;
		t.s = old;
		for (size_t i = 0; i < t.n_ev; i++)
			notify(arg, t.ev[i]);
		newgen(n, notify, arg);
	}
	txn_free(&t);
	return r;
}

/* ---- someone else's nft ---- */

struct own_batch {
	char buf[8192];
	struct mnl_nlmsg_batch *b;
	uint32_t seq;
};

static struct nlmsghdr *own_hdr(struct own_batch *o, uint16_t type)
{
	struct nlmsghdr *h = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(o->b), type,
						   NFPROTO_INET, NLM_F_ACK, o->seq++);

	return h;
}

/* One message between BEGIN and END, sent as a transaction of its own. */
static int send_own(struct fkn *n, struct own_batch *o, fkn_notify_fn notify, void *arg)
{
	char msg[GW_EXTACK_MAX];
	struct gw_nft_batch b;

	mnl_nlmsg_batch_next(o->b);
	nftnl_batch_end(mnl_nlmsg_batch_current(o->b), o->seq++);
	mnl_nlmsg_batch_next(o->b);
	b = (struct gw_nft_batch){ .buf = mnl_nlmsg_batch_head(o->b),
				   .len = mnl_nlmsg_batch_size(o->b), .seq0 = 1, .seq = o->seq,
				   .acks = 1 };
	return fkn_batch(n, &b, 0, msg, NULL, 0, notify, arg);
}

static int own_begin(struct own_batch *o)
{
	o->seq = 1;
	if (!(o->b = mnl_nlmsg_batch_start(o->buf, sizeof(o->buf))))
		return -ENOMEM;
	nftnl_batch_begin(mnl_nlmsg_batch_current(o->b), o->seq++);
	mnl_nlmsg_batch_next(o->b);
	return 0;
}

static int own_table(struct fkn *n, const char *table, uint16_t type, fkn_notify_fn notify,
		     void *arg)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct own_batch o;
	int r;

	if (!t || (r = own_begin(&o))) {
		nftnl_table_free(t);
		return -ENOMEM;
	}
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, table);
	nftnl_table_nlmsg_build_payload(own_hdr(&o, type), t);
	r = send_own(n, &o, notify, arg);
	mnl_nlmsg_batch_stop(o.b);
	nftnl_table_free(t);
	return r;
}

int fkn_add_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg)
{
	return own_table(n, table, NFT_MSG_NEWTABLE, notify, arg);
}

int fkn_del_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg)
{
	return own_table(n, table, NFT_MSG_DELTABLE, notify, arg);
}

/* A delete of rules: the table's (chain NULL), or one rule by its handle. */
static int own_delrule(struct fkn *n, const char *table, const char *chain, uint64_t handle,
		       fkn_notify_fn notify, void *arg)
{
	struct nftnl_rule *rl = nftnl_rule_alloc();
	struct own_batch o;
	int r;

	if (!rl || (r = own_begin(&o))) {
		nftnl_rule_free(rl);
		return -ENOMEM;
	}
	nftnl_rule_set_u32(rl, NFTNL_RULE_FAMILY, NFPROTO_INET);
	nftnl_rule_set_str(rl, NFTNL_RULE_TABLE, table);
	if (chain) {
		nftnl_rule_set_str(rl, NFTNL_RULE_CHAIN, chain);
		nftnl_rule_set_u64(rl, NFTNL_RULE_HANDLE, handle);
	}
	nftnl_rule_nlmsg_build_payload(own_hdr(&o, NFT_MSG_DELRULE), rl);
	r = send_own(n, &o, notify, arg);
	mnl_nlmsg_batch_stop(o.b);
	nftnl_rule_free(rl);
	return r;
}

int fkn_flush_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg)
{
	return own_delrule(n, table, NULL, 0, notify, arg);
}

int fkn_del_rule(struct fkn *n, const char *table, const char *chain, unsigned int nth,
		 fkn_notify_fn notify, void *arg)
{
	for (size_t i = 0; i < n->s.n; i++) {
		const struct obj *o = &n->s.v[i];

		if (o->type != NFT_MSG_NEWRULE || o->family != NFPROTO_INET ||
		    strcmp(o->table, table) || strcmp(o->name, chain) || nth--)
			continue;
		return own_delrule(n, table, chain, o->handle, notify, arg);
	}
	return -ENOENT;
}

/* ---- the state as text ---- */

static int print_elem(struct nftnl_set_elem *e, void *arg)
{
	char buf[512];

	nftnl_set_elem_snprintf(buf, sizeof(buf), e, NFTNL_OUTPUT_DEFAULT, 0);
	fprintf(arg, "\t\t%s\n", buf);
	return 0;
}

static void print_set(FILE *f, const struct state *s, const struct obj *set)
{
	struct nftnl_set *x = nftnl_set_alloc();

	if (!x || nftnl_set_nlmsg_parse(set->msg, x) < 0) {
		fprintf(f, "\tset %s: unreadable\n", set->name);
		nftnl_set_free(x);
		return;
	}
	fprintf(f, "\tset %s flags 0x%x key type %u len %u", set->name,
		nftnl_set_get_u32(x, NFTNL_SET_FLAGS), nftnl_set_get_u32(x, NFTNL_SET_KEY_TYPE),
		nftnl_set_get_u32(x, NFTNL_SET_KEY_LEN));
	if (nftnl_set_is_set(x, NFTNL_SET_DATA_TYPE))
		fprintf(f, " data type %u len %u", nftnl_set_get_u32(x, NFTNL_SET_DATA_TYPE),
			nftnl_set_get_u32(x, NFTNL_SET_DATA_LEN));
	fputc('\n', f);
	nftnl_set_free(x);
	for (size_t i = 0; i < s->n; i++) {
		const struct obj *o = &s->v[i];
		struct nftnl_set *e;

		if (o->type != NFT_MSG_NEWSETELEM || o->family != set->family ||
		    strcmp(o->table, set->table) || strcmp(o->name, set->name))
			continue;
		if ((e = nftnl_set_alloc()) && parse_elems(o->msg, e) >= 0)
			nftnl_set_elem_foreach(e, print_elem, f);
		nftnl_set_free(e);
	}
}

/* libnftnl's text of a chain or rule; the rule's says its expressions one a line */
static void print_nftnl(FILE *f, const struct obj *o)
{
	char buf[8192] = "";

	if (o->type == NFT_MSG_NEWCHAIN) {
		struct nftnl_chain *c = nftnl_chain_alloc();

		if (c && nftnl_chain_nlmsg_parse(o->msg, c) >= 0)
			nftnl_chain_snprintf(buf, sizeof(buf), c, NFTNL_OUTPUT_DEFAULT, 0);
		nftnl_chain_free(c);
		fprintf(f, "\tchain %s\n", buf[0] ? buf : "unreadable");
	} else {
		struct nftnl_rule *r = nftnl_rule_alloc();

		if (r && nftnl_rule_nlmsg_parse(o->msg, r) >= 0)
			nftnl_rule_snprintf(buf, sizeof(buf), r, NFTNL_OUTPUT_DEFAULT, 0);
		nftnl_rule_free(r);
		fprintf(f, "\t\trule %s", buf[0] ? buf : "unreadable\n");
	}
}

char *fkn_text(const struct fkn *n)
{
	const struct state *s = &n->s;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct obj *t = &s->v[i];

		if (t->type != NFT_MSG_NEWTABLE)
			continue;
		fprintf(f, "table %s %s\n", family_name(t->family), t->table);
		for (size_t k = 0; k < s->n; k++)
			if (s->v[k].type == NFT_MSG_NEWSET && s->v[k].family == t->family &&
			    !strcmp(s->v[k].table, t->table))
				print_set(f, s, &s->v[k]);
		for (size_t k = 0; k < s->n; k++) {
			const struct obj *c = &s->v[k];

			if (c->type != NFT_MSG_NEWCHAIN || c->family != t->family ||
			    strcmp(c->table, t->table))
				continue;
			print_nftnl(f, c);
			for (size_t m = 0; m < s->n; m++)
				if (s->v[m].type == NFT_MSG_NEWRULE && s->v[m].family == t->family &&
				    !strcmp(s->v[m].table, t->table) && !strcmp(s->v[m].name, c->name))
					print_nftnl(f, &s->v[m]);
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}
