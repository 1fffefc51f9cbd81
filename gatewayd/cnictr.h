/* gatewayd/cnictr.h: the containers gatewayd-cni registers with the daemon over the control
 * socket (docs/cni.md): kept (at most GW_CNICTR_MAX), sampled, healed, shown as links
 * "cni:HOSTVETH"; adopted at start from the plugin's state files; cleaned up when their host
 * veth goes without a DEL. The trees are the plugin's: the daemon leaves them on stop. */
#ifndef GW_CNICTR_H
#define GW_CNICTR_H

#include <stdbool.h>
#include <stddef.h>
#include "config/config.h"
#include "qdisc/nl.h"
#include "webui/snapshot.h"

#define GW_CNICTR_MAX 1024		/* containers registered at once */
#define GW_CNICTR_FILES_MAX 4096	/* state files looked at, at start */

struct gw_cnictr;

/* Open cfg's control socket (NULL: the default path; "": none, *out stays NULL) and adopt the
 * containers its state files name. nl is the daemon's socket (borrowed). 0, or -errno with
 * err (another gatewayd listening there: -EADDRINUSE). */
int gw_cnictr_new(const struct gw_config *cfg, struct gw_nl *nl, struct gw_cnictr **out,
		  char *err, size_t errlen);
/* Close the socket; the trees stay (the plugin's DEL removes them), and so do the state files,
 * for the next daemon. */
void gw_cnictr_free(struct gw_cnictr *c);
/* One fd for the event loop; readable: dispatch. */
int gw_cnictr_fd(const struct gw_cnictr *c);
void gw_cnictr_dispatch(struct gw_cnictr *c);
/* Sample every registered container and append its directions to snap. */
int gw_cnictr_sample(struct gw_cnictr *c, double now, struct gw_snapshot *snap);

#endif
