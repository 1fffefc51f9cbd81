/* gatewayd/ctr_followed.h: limits that follow containers. gatewayd watches link notifications;
 * an interface that matches a `containers` entry gets its own tree, made by the same plan,
 * apply and verify as a configured link (a one-link config synthesized for it, named
 * "ctr:IFNAME"), and loses it when it goes away. */
#ifndef GW_CTR_FOLLOWED_H
#define GW_CTR_FOLLOWED_H

#include <stdbool.h>
#include <stddef.h>
#include "config/config.h"
#include "qdisc/nl.h"
#include "qdisc/peer.h"
#include "tree/ctr_tree.h"
#include "webui/snapshot.h"

#define GW_CTR_FOLLOWED_MAX 4096			/* interfaces shaped or waiting at once */

struct gw_ctr_followed;

/* Open the notification sockets and shape every matching interface already there. nl is the
 * daemon's socket for tc requests (borrowed). Returns 0 or -errno. */
int gw_ctr_followed_new(const struct gw_config *cfg, struct gw_nl *nl,
			struct gw_ctr_followed **out);
/* Remove every container tree and ifb, close everything. */
void gw_ctr_followed_free(struct gw_ctr_followed *c);
/* One fd for the event loop (an epoll of its own sockets and timer); readable: dispatch. */
int gw_ctr_followed_fd(const struct gw_ctr_followed *c);
void gw_ctr_followed_dispatch(struct gw_ctr_followed *c);
/* A new config took over (cfg stays valid until the next reload): trees follow its entries. */
void gw_ctr_followed_reload(struct gw_ctr_followed *c, const struct gw_config *cfg);
/* Sample every container tree and append its directions to snap (one sampling pass). */
int gw_ctr_followed_sample(struct gw_ctr_followed *c, double now, struct gw_snapshot *snap);
size_t gw_ctr_followed_count(const struct gw_ctr_followed *c);
/* Whether a container's link ("ctr:IFNAME") is followed (shaped and sampled). */
bool gw_ctr_followed_has(struct gw_ctr_followed *c, const char *link);

/* The parts with no kernel in them, for unit tests. */
/* Does name match one of the entry's patterns? */
bool gw_ctr_followed_name_matches(const struct gw_ctr_cfg *r, const char *name);
/* Is addr (family AF_INET/AF_INET6, network order) inside the entry's prefix? */
bool gw_ctr_followed_prefix_has(const struct gw_ctr_cfg *r, int family, const void *addr);
/* The file pattern of the entry's netns: "/run/netns/NAME" or the path as given. */
void gw_ctr_followed_netns_pattern(const struct gw_ctr_cfg *r, char *buf, size_t len);
/* Interfaces never taken as containers: loopback, ifbs, a configured link's devices. */
bool gw_ctr_followed_excluded(const struct gw_config *cfg, const struct gw_plink *l);

/* gw_ctr_synthesize and gw_ctr_ifb_name: tree/ctr_tree.h */

#endif
