/* tests/unit/fake_kernel.h: an in-memory kernel behind gw_nl_ops, gw_monitor_ops and
 * gw_nft_ops, so that apply, verify, reload, heal and classification run in unit tests without
 * root. It models links (veth-like interfaces and the ifbs gatewayd makes), qdiscs, classes
 * and filters as the kernel keeps them: by device, handle and parent, with the rules of tc's
 * create/replace/exclusive flags, a qdisc's children going with it, and dumps that answer for
 * every device. Options are kept as the netlink attributes they were sent in and dumped back
 * as they came, so the qdisc kinds' own decoders read them; the fake knows no kind. nf_tables
 * (fake_nft.c) takes a handle's batches as transactions, whole or not at all, and keeps the
 * tables, chains, sets and rules as their messages, decoded by libnftnl. Notifications of each
 * change queue up for each monitor of their group (links, tc, nf_tables; it keeps no
 * addresses), stamped with the port id of the handle whose request made them (0: the test
 * itself, as the kernel). A handle's sibling (gw_nl_open_sibling) and monitors
 * (gw_nl_monitor) are on the same fake, so container tracking runs on it too. The netns and
 * UML suites prove the real kernel agrees. */
#ifndef GW_TEST_FAKE_KERNEL_H
#define GW_TEST_FAKE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qdisc/monitor.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"

struct fk;

struct fk *fk_new(void);
void fk_free(struct fk *k);

/* The daemon's handle: its state-changing requests are counted, logged, and may be refused.
 * Close it with gw_nl_close. */
int fk_open(struct fk *k, struct gw_nl **out);
/* Someone else's handle (a foreign tc or ip): not counted, not logged, never refused. */
int fk_open_outside(struct fk *k, struct gw_nl **out);
/* The daemon's monitor (links, tc objects and nf_tables): the notifications of every change
 * since the last read (close with gw_monitor_close). */
int fk_monitor(struct fk *k, struct gw_monitor **out);

/* An interface (kind "veth", "ifb", "" for a physical one), up, MTU 1500; its ifindex. */
int fk_link_add(struct fk *k, const char *name, const char *kind);
int fk_ifindex(const struct fk *k, const char *name);	/* 0: none */

/* Refuse the daemon's n-th state-changing request from now on (1: the next one) with -err
 * and the extended-ack text msg, once. */
void fk_refuse_nth(struct fk *k, unsigned int n, int err, const char *msg);
/* Refuse every request of the daemon that creates or changes a qdisc of tc kind kind. */
void fk_refuse_kind(struct fk *k, const char *kind, int err, const char *msg);
/* How many state-changing requests the daemon has made. */
unsigned int fk_requests(const struct fk *k);

/* The daemon's state-changing rtnetlink requests since the last fk_log_clear, one line each:
 * "qdisc add v0 e000:0 root htb", "class change v0 e000:11 e000:1 htb", "qdisc del ...",
 * "link add ifb-wan ifb"; a refused one ends in " = -errno". (nftables: fk_nft_log.) */
const char *fk_log(const struct fk *k);
void fk_log_clear(struct fk *k);	/* both logs */
/* How many lines of the log contain s. */
unsigned int fk_log_count(const struct fk *k, const char *s);

/* The whole state as sorted text (links with index and kind; objects with device, handle,
 * parent, kind and their attributes' bytes), then fk_nft_state's, to compare before and
 * after; free() it. */
char *fk_state(const struct fk *k);
/* How many tc objects there are (qdiscs, classes, filters; the kernel's defaults not). */
size_t fk_count(const struct fk *k);

/* One object as a dump returns it, decoded by the project's own parser: type GW_OBJ_QDISC
 * (handle: its handle), GW_OBJ_CLASS (its classid) or GW_OBJ_FILTER (handle: its parent).
 * -ENOENT when there is none. */
int fk_get(const struct fk *k, const char *dev, enum gw_obj_type type, uint32_t handle,
	   struct gw_tc_obj *out);

/* nftables. The daemon's batches (its handles' gw_nft_ops) are counted apart from its
 * rtnetlink requests: refuse its n-th batch from now on (1: the next one) with -err and the
 * extended-ack text msg, once; the batch is decoded, then refused whole. */
void fk_nft_refuse_nth(struct fk *k, unsigned int n, int err, const char *msg);
unsigned int fk_nft_batches(const struct fk *k);
/* Its batches since the last fk_log_clear, one line each, what each asked for: "nft add table
 * inet gatewayd, del table inet gatewayd, add table inet gatewayd, 4 chains, 9 rules, 1 set,
 * 3 elements"; a refused one ends in " = -errno". */
const char *fk_nft_log(const struct fk *k);
unsigned int fk_nft_log_count(const struct fk *k, const char *s);
/* Every table, with its sets and their elements, then its chains each followed by its rules in
 * order, as libnftnl decodes them ("\t\trule inet gatewayd egress-wan\n  [ meta load oifname
 * => reg 1 ]\n  ..."; the kernel's handles left out); free() it. */
char *fk_nft_state(const struct fk *k);
/* Someone else's `nft` (family inet), each change one transaction from a socket of its own,
 * notified as such: add table, delete table, flush table (its rules), delete the nth rule of
 * chain (from 0). -ENOENT when there is no such table or rule. */
int fk_nft_add_table(struct fk *k, const char *table);
int fk_nft_del_table(struct fk *k, const char *table);
int fk_nft_flush_table(struct fk *k, const char *table);
int fk_nft_del_rule(struct fk *k, const char *table, const char *chain, unsigned int nth);

#endif
