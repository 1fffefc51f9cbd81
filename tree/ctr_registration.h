/* tree/ctr_registration.h: a CNI container's registration, as the plugin (cni/) sends it
 * to the daemon over the control socket and keeps it in its state file: the message's text
 * form (encode, decode with every field checked), and the tree it stands for, so the plugin
 * and the daemon build that tree, its ifb's name and its mark the same way. docs/cni.md is
 * the protocol. */
#ifndef GW_TREE_CTR_REGISTRATION_H
#define GW_TREE_CTR_REGISTRATION_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sys/ctlsock.h"
#include "tree/apply.h"
#include "tree/ctr_tree.h"

#define GW_CTR_REG_MAGIC "gatewayd-control"
#define GW_CTR_REG_VERSION 2		/* the newest spoken; 1 is still read and written */
#define GW_CTR_REG_MAX 8192		/* one message (and one state file), bytes */
#define GW_CTR_REG_REPLY_MAX GW_CTLSOCK_REPLY_MAX	/* one reply line, with its newline */
#define GW_CTR_REG_ID_MAX 255		/* as CNI_CONTAINERID */
#define GW_CTR_REG_NETNS_MAX 1023
#define GW_CTR_REG_NAME_MAX 128		/* the network's name */
#define GW_CTR_REG_QUEUE_MAX 2048	/* the queue as libconfig text */

#define GW_CTR_REG_IFB_PREFIX "gwn-"
#define GW_CTR_REG_IFB_MARK "gatewayd:cni:"
#define GW_CTR_REG_LINK_PREFIX "cni:"	/* link names in the snapshot: "cni:" + the host end */

enum gw_ctr_reg_op { GW_CTR_REG_REGISTER = 1, GW_CTR_REG_UNREGISTER = 2 };

/*
 * The bounds of one direction's limit, the same on both sides: gatewayd-cni holds its network
 * config to them (once its bits are bytes) and the daemon every registration it is sent or
 * adopts, so the daemon takes nothing the plugin would refuse. Rate: 0 (none) or GW_MIN_RATE
 * to GW_MAX_RATE bytes/s (8 kbit/s to 100 Tbit/s). Burst: GW_UNSET (derived) or
 * GW_CTR_BURST_MIN to GW_CTR_BURST_MAX bytes, and no longer at the rate than htb keeps a
 * bucket (2^32 ticks of 64 ns: about 274 s).
 */
#define GW_CTR_BURST_MIN 1500LL		/* one full-size packet */
#define GW_CTR_BURST_MAX 268435455LL	/* 2^31 - 2 bits: below the runtimes' "no burst" */
enum gw_ctr_limit_fault {
	GW_CTR_LIMIT_OK,
	GW_CTR_LIMIT_RATE,		/* rate out of range */
	GW_CTR_LIMIT_BURST_NO_RATE,	/* a burst, and rate 0 */
	GW_CTR_LIMIT_BURST_SMALL,	/* under GW_CTR_BURST_MIN */
	GW_CTR_LIMIT_BURST_BIG,		/* over GW_CTR_BURST_MAX */
	GW_CTR_LIMIT_BURST_LONG,	/* more than htb can hold at the rate */
};
enum gw_ctr_limit_fault gw_ctr_limit_check(uint64_t rate, int64_t burst);

/* One direction's limit, as runtimeConfig.bandwidth means it: bytes/s (0: none), and the
 * burst in bytes (GW_UNSET: derived). */
struct gw_ctr_reg_limit {
	uint64_t rate;
	int64_t burst;
};

struct gw_ctr_reg {
	enum gw_ctr_reg_op op;
	char id[GW_CTR_REG_ID_MAX + 1];		/* CNI_CONTAINERID */
	char netns[GW_CTR_REG_NETNS_MAX + 1];	/* CNI_NETNS ("" for unregister without one) */
	char network[GW_CTR_REG_NAME_MAX + 1];	/* the network config's name */
	char ifname[IFNAMSIZ];			/* CNI_IFNAME, inside the container */
	/* register only: */
	char host_if[IFNAMSIZ];			/* the host end, shaped */
	int host_ifindex;
	uint64_t host_netns;			/* inode of the namespace the host end is in */
	char ifb[IFNAMSIZ];			/* "" when egress is not limited */
	/* ingress: into the container (the host end's egress); egress: out of it (through
	 * the ifb), as the reference bandwidth plugin means them */
	struct gw_ctr_reg_limit ingress, egress;
	char queue[GW_CTR_REG_QUEUE_MAX];	/* "child = { ... };" or "" for fq_codel */
	/* unshapedSubnets (subnets_shaped false) or shapedSubnets (true); a message with
	 * subnets is version 2, one without version 1 (what a daemon before them reads) */
	struct gw_prefix subnets[GW_CTR_SUBNETS_MAX];
	size_t n_subnets;
	bool subnets_shaped;
};

/* The ifb of (network, container, interface), "gwn-" and 11 hex digits of a hash of the
 * three, and the ifalias that marks it as that one's, "gatewayd:cni:" and 16. */
void gw_ctr_reg_ifb_name(const char *network, const char *id, const char *ifname, char *buf,
			 size_t len);
void gw_ctr_reg_ifb_mark(const char *network, const char *id, const char *ifname, char *buf,
			 size_t len);

/* Checks of single values (the decoder's, for the plugin's own too). */
bool gw_ctr_reg_valid_id(const char *s, size_t max);	/* [A-Za-z0-9_.-], 1..max */
bool gw_ctr_reg_valid_ifname(const char *s);

/* The message as text into buf (NUL-terminated): its length, or -ENOSPC. */
int gw_ctr_reg_encode(const struct gw_ctr_reg *m, char *buf, size_t len);
/* len bytes of text (a whole message, its blank line included) into out: 0, or -EINVAL
 * (-EPROTONOSUPPORT for another version) with what is wrong in err. Never reads past len. */
int gw_ctr_reg_decode(const char *text, size_t len, struct gw_ctr_reg *out, char *err,
		      size_t errlen);
/* Where a message ends: the length up to and with its blank line, 0 when not there yet. */
size_t gw_ctr_reg_complete(const char *text, size_t len);

/* Same container (network, id, interface)? */
bool gw_ctr_reg_same(const struct gw_ctr_reg *a, const struct gw_ctr_reg *b);

/* The tree a registration stands for, on m->host_if (m->host_ifindex): 0, or -EINVAL with
 * err (the queue text is parsed here), -ENOMEM. Then, either way, gw_ctr_synth_free(s). */
int gw_ctr_reg_synth(const struct gw_ctr_reg *m, struct gw_ctr_synth *s, char *err,
		     size_t errlen);

/* What an apply of s would have recorded for the host end and the ifb, without making
 * anything (the devices and the plan from the kernel's facts now): to read back a tree that
 * someone else applied. 0; -ENOENT with err when the host end or the ifb (with mark) is
 * missing; -EEXIST when the ifb's name is someone else's; -errno. */
int gw_ctr_reg_planned(struct gw_nl *nl, const struct gw_ctr_synth *s, const char *mark,
		       struct gw_applied *a, char *err, size_t errlen);
/* The tree of s read back and held against a's plan (gw_verify), then its subnets' u32
 * filters (gw_classify_verify): 0, -EPROTO with the first difference in err, -errno. */
int gw_ctr_reg_verify(struct gw_nl *nl, const struct gw_ctr_synth *s, const struct gw_applied *a,
		      char *err, size_t errlen);

#endif
