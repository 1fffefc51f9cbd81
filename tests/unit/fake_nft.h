/* tests/unit/fake_nft.h: the in-memory kernel's nf_tables (fake_nft.c), for fake_kernel.c,
 * which puts it behind gw_nft_ops and its own public API (fake_kernel.h). It keeps tables,
 * chains, sets with their elements and rules as the messages that made them, decodes them with
 * libnftnl as the kernel's nf_tables would parse them, and takes a transaction whole or not at
 * all. It knows nothing of links, handles or monitors: notifications go to a callback. */
#ifndef GW_TEST_FAKE_NFT_H
#define GW_TEST_FAKE_NFT_H

#include <stddef.h>
#include <linux/netlink.h>
#include "qdisc/nft.h"

struct fkn;

/* One notification, in the order the kernel sends them: each object the transaction made or
 * deleted, then NFT_MSG_NEWGEN. The callee copies it. */
typedef void (*fkn_notify_fn)(void *arg, const struct nlmsghdr *h);

struct fkn *fkn_new(void);
void fkn_free(struct fkn *n);

/* Take the transaction b: 0, its notifications sent; or -errno with the reason in msg
 * (GW_EXTACK_MAX bytes) and nothing changed. refuse_err non-zero: decoded, then refused with
 * it and the words msg already holds (a test's refusal). what (whatlen bytes) says what it
 * asked for, one line ("add table inet gatewayd, del table inet gatewayd, add table inet
 * gatewayd, 4 chains, 9 rules, 1 set, 3 elements"). */
int fkn_batch(struct fkn *n, const struct gw_nft_batch *b, int refuse_err, char *msg,
	      char *what, size_t whatlen, fkn_notify_fn notify, void *arg);

/* What someone else's `nft` does, each one transaction through fkn_batch (family inet):
 * `add table`, `delete table`, `flush table`, and `delete rule ... handle H` of the nth rule
 * of chain (from 0). -ENOENT when there is no such table or rule. */
int fkn_add_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg);
int fkn_del_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg);
int fkn_flush_table(struct fkn *n, const char *table, fkn_notify_fn notify, void *arg);
int fkn_del_rule(struct fkn *n, const char *table, const char *chain, unsigned int nth,
		 fkn_notify_fn notify, void *arg);

/* The whole state as `nft list ruleset` orders it, each object as libnftnl decodes it (rules
 * and elements in libnftnl's own text), without the handles the kernel gives them, so that a
 * table made again reads the same; free() it. */
char *fkn_text(const struct fkn *n);

#endif
