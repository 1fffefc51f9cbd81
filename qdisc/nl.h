/* qdisc/nl.h: the rtnetlink socket. libnl-3 builds and parses messages; the send/receive loop
 * is ours so that thousands of requests go out many per sendmsg (pipelined) and every error
 * comes back with the kernel's extended-ack text. */
#ifndef GW_QDISC_NL_H
#define GW_QDISC_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <netlink/msg.h>

#define GW_EXTACK_MAX 256

struct gw_nl;
struct gw_nl_error;
struct gw_monitor;
struct gw_nft_ops;

/* Called for every reply message of a dump or request; non-zero stops with that value. */
typedef int (*gw_nl_cb)(const struct nlmsghdr *nlh, void *arg);

/*
 * The kernel seam: every request gatewayd makes of rtnetlink goes through these two calls
 * (link.c, peer.c and the dumps below are built on them). gw_nl_open gives the real socket;
 * gw_nl_open_ops another implementation, such as the unit tests' in-memory kernel. priv is
 * the implementation's own; close (may be NULL) is called with it by gw_nl_close.
 */
struct gw_nl_ops {
	int (*batch)(void *priv, struct nl_msg *const *msgs, size_t n, bool stop,
		     struct gw_nl_error *e);
	int (*request)(void *priv, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		       struct gw_nl_error *e);
	int (*set_strict)(void *priv);	/* NULL: nothing to set */
	void (*close)(void *priv);
	/* gw_nl_open_sibling and gw_nl_monitor on this kernel (NULL: real sockets) */
	int (*open_sibling)(void *priv, struct gw_nl **out);
	int (*monitor)(void *priv, unsigned int groups, bool all_nsid, struct gw_monitor **out);
	/* the port id the kernel stamps on the notifications of this handle's requests
	 * (NULL: 0, which is the kernel's own) */
	uint32_t (*portid)(void *priv);
	/* nftables on this kernel, called with priv (qdisc/nft.h; NULL: the host's nf_tables) */
	const struct gw_nft_ops *nft;
};

/* Requests per sendmsg, and so how many the kernel has taken before the first ack of a
 * batch is read (a batch with stop still goes on to the end of the failing chunk). */
#define GW_NL_CHUNK_BYTES (64 * 1024)
#define GW_NL_CHUNK_MSGS 256

struct gw_nl_error {
	size_t index;		/* which request of the batch */
	int err;		/* -errno */
	char msg[GW_EXTACK_MAX];	/* the kernel's extended ack, "" when it gave none */
};

int gw_nl_open(struct gw_nl **out);
int gw_nl_open_ops(const struct gw_nl_ops *ops, void *priv, struct gw_nl **out);
/* Another handle to the kernel nl talks to (container tracking's strict look-ups). */
int gw_nl_open_sibling(struct gw_nl *nl, struct gw_nl **out);
/* gw_monitor_open_groups on the kernel nl talks to. */
int gw_nl_monitor(struct gw_nl *nl, unsigned int groups, bool all_nsid, struct gw_monitor **out);
void gw_nl_close(struct gw_nl *nl);
/* nl's nftables seam and its priv; NULL: the host's nf_tables (nl NULL too). */
const struct gw_nft_ops *gw_nl_nft(const struct gw_nl *nl, void **priv);
/* The socket's netlink port id: the kernel's tc notifications of a request carry its sender's
 * port id in nlmsg_pid, so self-healing tells its own changes from anyone else's. */
uint32_t gw_nl_portid(const struct gw_nl *nl);	/* 0 for NULL */
/* A heartbeat of long operations on the real socket: fn(arg) is called before each receive
 * (every ack chunk of a batch, every buffer of a dump), so a caller that must show it is alive
 * while a tree of thousands of objects goes in (the daemon: systemd's watchdog) can. fn NULL:
 * none. Not inherited by gw_nl_open_sibling's handles; the ops seam's kernels never call it. */
typedef void (*gw_nl_progress_fn)(void *arg);
void gw_nl_set_progress(struct gw_nl *nl, gw_nl_progress_fn fn, void *arg);
/* Strict checking of dump requests (NETLINK_GET_STRICT_CHK): the kernel then honours filters
 * in a dump's header and attributes such as IFA_TARGET_NETNSID. */
int gw_nl_set_strict(struct gw_nl *nl);

/*
 * Send n requests, as many per sendmsg as fit, each with NLM_F_ACK, then collect the acks.
 * Returns 0 when all were acknowledged; otherwise the first failure's -errno, with its index and
 * message in *e (e may be NULL). With stop, nothing after the failing chunk is sent.
 */
int gw_nl_batch(struct gw_nl *nl, struct nl_msg *const *msgs, size_t n, bool stop,
		struct gw_nl_error *e);

/* Send one request (NLM_F_DUMP or not) and pass every reply to cb until the kernel is done.
 * A dump reaches cb only whole: one the kernel marks NLM_F_DUMP_INTR is read again, up to
 * GW_NL_DUMP_TRIES times, then -EAGAIN (a dump larger than GW_NL_DUMP_MAX: -EMSGSIZE). */
#define GW_NL_DUMP_TRIES 5
#define GW_NL_DUMP_MAX (64u * 1024 * 1024)
int gw_nl_request(struct gw_nl *nl, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		  struct gw_nl_error *e);

/* Dump tc objects of one interface: type RTM_GETQDISC, RTM_GETTCLASS or RTM_GETTFILTER
 * (filters: of parent). */
int gw_nl_dump_tc(struct gw_nl *nl, int type, int ifindex, uint32_t parent, gw_nl_cb cb,
		  void *arg, struct gw_nl_error *e);

/* Extract the extended-ack message from an NLMSG_ERROR message (testable without a kernel). */
int gw_nl_parse_error(const struct nlmsghdr *nlh, size_t len, char *msg, size_t msglen);

#endif
