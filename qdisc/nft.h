/* qdisc/nft.h: classification. On egress, gatewayd's own nftables table (`inet gatewayd`),
 * built and replaced in one atomic batch (libnftnl + libmnl), whose rules set the skb priority
 * to a class id (htb takes a packet whose priority names one of its leaf classes straight into
 * that class). On ingress, which the ifb reaches before netfilter, u32 filters on the ifb's htb
 * root carry the same matches. Nothing here logs, reads the config or keeps global state. */
#ifndef GW_QDISC_NFT_H
#define GW_QDISC_NFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <netlink/msg.h>
#include "qdisc/model.h"

#define GW_NFT_TABLE "gatewayd"
#define GW_NFT_NAME_MAX 64
#define GW_U32_PRIO_BASE 10u	/* ingress classifiers: prio 10/11 (IPv4/IPv6), or 12/13 */

/* One rule: every field that is set must match; the packet then goes into classid. A match
 * group of the config expands into one rule per combination of its lists' values. */
struct gw_rule {
	uint32_t classid;
	uint8_t family;		/* 0: either, AF_INET or AF_INET6 */
	bool has_src, has_dst, has_sport, has_dport, has_mark;
	struct gw_prefix src, dst;
	struct gw_port_range sport, dport;
	int proto;		/* -1: any */
	int dscp;		/* -1: any */
	char iif[IFNAMSIZ], oif[IFNAMSIZ];	/* "": any */
	uint32_t mark, mark_mask;
	uint64_t cgroup_id;	/* 0: none; else the cgroup v2 inode at cgroup_level */
	uint32_t cgroup_level;
	const char *cgroup;	/* its path, for the text form */
};

/* An address that is a host's class (`hosts`). */
struct gw_nft_host {
	uint8_t family;
	uint8_t addr[16];
	uint32_t classid;
};

/* One link's egress classification: its own chain, entered from the forward hook for routed
 * traffic and from the output hook for local traffic (cgroup rules only see the latter). */
struct gw_nft_chain {
	char name[GW_NFT_NAME_MAX];	/* "egress-wan" */
	char oif[IFNAMSIZ];		/* the link's interface */
	struct gw_rule *rules;		/* in class order: the first match wins */
	size_t n_rules;
	struct gw_nft_host *hosts;	/* matched on source, then destination address */
	size_t n_hosts;
};

struct gw_nft_ruleset {
	struct gw_nft_chain *chains;
	size_t n;
};

struct gw_nft_error {
	int err;			/* -errno */
	char msg[256];			/* the kernel's extended ack, or "" */
};

/* One nfnetlink transaction as it goes on the wire: BATCH_BEGIN, the messages, BATCH_END. */
struct gw_nft_batch {
	const void *buf;
	size_t len;
	uint32_t seq0, seq;		/* its messages' sequence numbers: [seq0, seq) */
	size_t acks;			/* how many of them ask for an ack */
};

/*
 * The kernel seam for nftables, as gw_nl_ops is rtnetlink's. The batch is built above it, so
 * every kernel reads the same bytes; below it are only the two things that differ between the
 * host's nf_tables and the unit tests' in-memory kernel (tests/unit/fake_kernel.c). A gw_nl
 * handle carries it (gw_nl_ops.nft, with that handle's priv): the table lives in the network
 * namespace whose tree the handle shapes. NULL there, or no handle, is the host's nf_tables:
 * a netfilter socket of its own per batch. Nothing reads the table back: a change someone else
 * makes comes as a notification (heal.c), and the table is then replaced whole.
 */
struct gw_nft_ops {
	/* Send b and collect its acks: 0, or the first refusal's -errno with the kernel's
	 * extended ack (or "") in e->msg. All of it is in force afterwards, or none of it. */
	int (*batch)(void *priv, const struct gw_nft_batch *b, struct gw_nft_error *e);
	/* Was portid (a notification's nlmsg_pid) the sender of one of gatewayd's batches on
	 * this kernel? The kernel stamps a transaction's notifications with it. */
	bool (*ours)(void *priv, uint32_t portid);
};

struct gw_nl;

/* Replace table inet gatewayd with rs in one transaction (add, delete, add and fill: an empty
 * rs just deletes it), on nl's kernel. Either all of it is in force afterwards or nothing
 * changed. */
int gw_nft_apply(struct gw_nl *nl, const struct gw_nft_ruleset *rs, struct gw_nft_error *e);
/* Delete the table; 0 also when it was not there. */
int gw_nft_remove(struct gw_nl *nl, struct gw_nft_error *e);
/* Was portid (a notification's nlmsg_pid) the sender of one of this process's last batches on
 * nl's kernel (gw_nft_apply, gw_nft_remove)? Those notifications are its own changes. 0 is
 * never. */
bool gw_nft_portid_ours(const struct gw_nl *nl, uint32_t portid);
/* The same ruleset as `nft -f` takes it (a "table inet gatewayd { ... }" block). */
int gw_nft_format(FILE *out, const struct gw_nft_ruleset *rs);
/* The replies to a batch in one receive buffer (buf, len bytes), as the batch reads them:
 * each ack (NLMSG_ERROR) whose sequence number is in [seq0, seq) counts in *got; the first
 * failing one, while *first is 0, sets *first (-errno; an error that is not one is -EBADMSG)
 * and msg (the kernel's extended ack, or ""; msg may be NULL). */
void gw_nft_acks(const void *buf, size_t len, uint32_t seq0, uint32_t seq, size_t *got,
		 int *first, char *msg, size_t msglen);
/* The number of messages, sets elements and bytes the batch would take (for tests). */
size_t gw_nft_batch_size(const struct gw_nft_ruleset *rs);

/* Ingress: a u32 filter (RTM_NEWTFILTER, create-exclusive) for rule r on the ifb's htb root
 * (parent E000:), at prio GW_U32_PRIO_BASE + 2 * gen + (IPv6 ? 1 : 0). r->family must be
 * AF_INET or AF_INET6; only addresses, proto, ports and dscp are matched (IPv4 ports: headers
 * without options; IPv6 ports: no extension headers). */
int gw_u32_build(int ifindex, const struct gw_rule *r, unsigned int gen, struct nl_msg **out);
/* Delete every filter of one generation and family (its whole u32 instance). */
int gw_u32_build_del(int ifindex, unsigned int gen, int family, struct nl_msg **out);
/* "tc filter add dev IFB parent e000: protocol ip prio 10 u32 match ... flowid e000:10" */
int gw_u32_format(const char *dev, const struct gw_rule *r, unsigned int gen, char *buf,
		  size_t len);

/* A classifier read back from a filter dump (RTM_NEWTFILTER): a u32 rule with a selector and
 * a class id, as gw_u32_build makes them. */
#define GW_U32_KEYS_MAX 16
struct gw_u32_got {
	int ifindex;
	uint32_t parent;
	unsigned int prio;
	int family;			/* AF_INET, AF_INET6, 0 for another protocol */
	uint32_t classid;
	bool terminal;
	int nkeys;
	uint32_t off[GW_U32_KEYS_MAX], mask[GW_U32_KEYS_MAX], val[GW_U32_KEYS_MAX];
	bool actions;			/* it carries actions (gatewayd's never do) */
};
/* One dumped filter into out: 0; -ENOENT when it is not a u32 rule with a selector (the
 * hash-table nodes u32 dumps beside its rules, other kinds); -EBADMSG. */
int gw_u32_parse(const struct nlmsghdr *h, struct gw_u32_got *out);
/* Is got what gw_u32_build(ifindex, r, gen) makes, for either generation? */
bool gw_u32_matches(const struct gw_rule *r, const struct gw_u32_got *got);
/* Is prio one of gatewayd's classifier priorities (both generations, both families)? */
bool gw_u32_prio_ours(unsigned int prio);

#endif
