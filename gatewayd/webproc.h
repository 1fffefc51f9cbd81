/* gatewayd/webproc.h: the daemon's side of its web process: the listening sockets bound, the
 * settings checked, the process started (gatewayd/webchild.c), each pass's snapshot sent with
 * what the daemon knows of the process, and a reload's settings applied or refused. */
#ifndef GW_WEBPROC_H
#define GW_WEBPROC_H

#include <stdbool.h>
#include "config/config.h"
#include "gatewayd/webchild.h"
#include "webui/conf.h"
#include "webui/snapshot.h"

struct gw_webproc {
	struct gw_webchild *c;		/* NULL: no page (its sockets could not be bound) */
	int fds[GW_WEBUI_MAX_LISTEN];	/* the listening sockets, bound here, kept for restarts */
	size_t n_fds;
	struct conf conf;		/* the settings as last read and checked here */
	bool have_conf;
};

/*
 * Bind cfg's listen addresses, read and check its auth and TLS files, and start the web
 * process (before the daemon gives up its capabilities: the process's launcher keeps what it
 * takes to make web processes nobody). 0, or -errno with err: no page then (shaping goes on).
 */
int gw_webproc_start(struct gw_webproc *w, const struct gw_config *cfg, double now, char *err,
		     size_t errlen);
/* The pass's snapshot: its web section filled in, then sent (never blocking). */
void gw_webproc_send(struct gw_webproc *w, struct gw_snapshot *s, double now);
/*
 * A reload's settings: the same listen addresses, Host names and files (path and contents)
 * as now: sent to the process as they are (0). Anything else is read and checked here first:
 * refused with err (-errno, the old settings serve on), or served by a new web process (1),
 * so files only root can read are read as root; the history the old one kept goes with it.
 * New addresses are bound first.
 */
int gw_webproc_reload(struct gw_webproc *w, const struct gw_config *cfg, double now, char *err,
		      size_t errlen);
void gw_webproc_stop(struct gw_webproc *w);

#endif
