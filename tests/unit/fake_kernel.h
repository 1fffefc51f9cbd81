/* tests/unit/fake_kernel.h: an in-memory kernel behind gw_nl_ops and gw_monitor_ops, so that
 * apply, verify, reload and heal run in unit tests without root. It models links (veth-like
 * interfaces and the ifbs gatewayd makes), qdiscs, classes and filters as the kernel keeps
 * them: by device, handle and parent, with the rules of tc's create/replace/exclusive flags,
 * a qdisc's children going with it, and dumps that answer for every device. Options are kept
 * as the netlink attributes they were sent in and dumped back as they came, so the qdisc
 * kinds' own decoders read them; the fake knows no kind. Notifications of each change queue
 * up for each monitor of their group (links, tc; it keeps no addresses), stamped with the port
 * id of the handle whose request made them (0: the test itself, as the kernel). A handle's sibling
 * (gw_nl_open_sibling) and monitors (gw_nl_monitor) are on the same fake, so container
 * tracking runs on it too. The netns and UML suites prove the real kernel agrees. */
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
/* The daemon's monitor (links and tc objects): the notifications of every change since the
 * last read (close with gw_monitor_close). */
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

/* The daemon's state-changing requests since the last fk_log_clear, one line each:
 * "qdisc add v0 e000:0 root htb", "class change v0 e000:11 e000:1 htb", "qdisc del ...",
 * "link add ifb-wan ifb"; a refused one ends in " = -errno". */
const char *fk_log(const struct fk *k);
void fk_log_clear(struct fk *k);
/* How many lines of the log contain s. */
unsigned int fk_log_count(const struct fk *k, const char *s);

/* The whole state as sorted text (links with index and kind; objects with device, handle,
 * parent, kind and their attributes' bytes), to compare before and after; free() it. */
char *fk_state(const struct fk *k);
/* How many tc objects there are (qdiscs, classes, filters; the kernel's defaults not). */
size_t fk_count(const struct fk *k);

/* One object as a dump returns it, decoded by the project's own parser: type GW_OBJ_QDISC
 * (handle: its handle), GW_OBJ_CLASS (its classid) or GW_OBJ_FILTER (handle: its parent).
 * -ENOENT when there is none. */
int fk_get(const struct fk *k, const char *dev, enum gw_obj_type type, uint32_t handle,
	   struct gw_tc_obj *out);

#endif
