/* gatewayd/ctr_registered.h: the containers gatewayd-cni registers with the daemon over the
 * control socket (docs/cni.md): kept (at most GW_CTR_REGISTERED_MAX), sampled, healed, shown
 * as links "cni:HOSTVETH"; adopted at start from the plugin's state files; cleaned up when
 * their host veth goes without a DEL. The trees are the plugin's: the daemon leaves them on
 * stop. */
#ifndef GW_CTR_REGISTERED_H
#define GW_CTR_REGISTERED_H

#include <stdbool.h>
#include <stddef.h>
#include "config/config.h"
#include "qdisc/nl.h"
#include "webui/snapshot.h"

#define GW_CTR_REGISTERED_MAX 1024		/* containers registered at once */
#define GW_CTR_REGISTERED_FILES_MAX 4096	/* state files looked at, at start */

struct gw_ctr_registered;

/* Open cfg's control socket (NULL: the default path; "": none, *out stays NULL) and adopt the
 * containers its state files name. nl is the daemon's socket (borrowed). 0, or -errno with
 * err (another gatewayd listening there: -EADDRINUSE). */
int gw_ctr_registered_new(const struct gw_config *cfg, struct gw_nl *nl,
			  struct gw_ctr_registered **out, char *err, size_t errlen);
/* Close the socket; the trees stay (the plugin's DEL removes them), and so do the state files,
 * for the next daemon. */
void gw_ctr_registered_free(struct gw_ctr_registered *c);
/* One fd for the event loop; readable: dispatch. */
int gw_ctr_registered_fd(const struct gw_ctr_registered *c);
void gw_ctr_registered_dispatch(struct gw_ctr_registered *c);
/* Sample every registered container and append its directions to snap. */
int gw_ctr_registered_sample(struct gw_ctr_registered *c, double now, struct gw_snapshot *snap);

#endif
