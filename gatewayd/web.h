/* gatewayd/web.h: the daemon's side of its web process: the page's settings from the config,
 * the listening sockets bound, the auth and TLS files opened and checked, the process started
 * (webui/webchild.c), each pass's snapshot sent with what the daemon knows of the process,
 * and a reload's settings applied or refused. */
#ifndef GW_WEB_H
#define GW_WEB_H

#include <stdbool.h>
#include "config/config.h"
#include "sys/secret.h"
#include "webui/webchild.h"
#include "webui/snapshot.h"

struct gw_web {
	struct gw_webchild *c;		/* NULL: no page (its sockets could not be bound) */
	int fds[GW_WEBUI_MAX_LISTEN];	/* the listening sockets, bound here, kept for restarts */
	size_t n_fds;
	struct gw_wire_settings *ws;	/* what the process serves (or will, once not parked) */
	/* the auth file, the certificate and the key, open and signed: handed to every web
	 * process, which may not open them itself; their bytes are not kept here */
	struct gw_secret files[GW_WEBPROC_FILES];
	bool parked;			/* the files failed at start: no process until a reload */
};

/*
 * Bind cfg's listen addresses, open and check its auth and TLS files (sys/secret.h),
 * and start the web process's launcher and the process (before the daemon gives up its
 * capabilities: the launcher keeps what it takes to give a web process a user of its own).
 * Files that fail are logged and the page waits for a reload that mends them (0: the
 * launcher runs). -errno with err: no page at all (shaping goes on).
 */
int gw_web_start(struct gw_web *w, const struct gw_config *cfg, double now, char *err,
		     size_t errlen);
/* The pass's snapshot: its web section filled in, then sent (never blocking). */
void gw_web_send(struct gw_web *w, struct gw_snapshot *s, double now);
/*
 * A reload's settings: the same listen addresses, Host names and files (path and signature,
 * a file not opened again when neither changed) as now: sent to the process as they are (0).
 * Anything else is opened and checked here first: refused with err (-errno, the old page
 * serves on), or served by a new web process (1), which takes the files as fds; the old one
 * goes (killed a second later if it has not), and the history it kept with it. New
 * addresses are bound first.
 */
int gw_web_reload(struct gw_web *w, const struct gw_config *cfg, double now, char *err,
		      size_t errlen);
void gw_web_stop(struct gw_web *w);

#endif
