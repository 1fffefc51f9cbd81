/* webui/webui.h: the embedded HTTP server: the status page, /api/status, /api/history,
 * /metrics and /healthz, served from snapshots the daemon publishes. */
#ifndef GW_WEBUI_H
#define GW_WEBUI_H

#include <stddef.h>
#include <sys/socket.h>
#include "webui/snapshot.h"

#define GW_WEBUI_MAX_LISTEN 8

/* An address to listen on, parsed by the caller (the daemon's come from config/). */
struct gw_webui_listen {
	const char *text;		/* as the user wrote it: for messages */
	struct sockaddr_storage addr;
	socklen_t len;
};

struct gw_webui;

/*
 * Serve src on every listen address (127.0.0.1:9180, [::1]:9180), each from its own
 * libmicrohttpd thread, so requests never run on the caller's thread and never wait for it.
 * auth_file, when not NULL, turns on HTTP basic auth for everything but /healthz (lines
 * "user:HASH", HASH from crypt(3)). src is copied; its calls must be safe from any thread.
 * Returns 0 and *out, or -errno with one line in err ("listen 127.0.0.1:9180: Address already
 * in use", "FILE:3: not a crypt(3) hash ...") and nothing left running.
 */
int gw_webui_start(const struct gw_webui_listen *listen, size_t n_listen, const char *auth_file,
		   const struct gw_webui_source *src, struct gw_webui **out, char *err,
		   size_t errlen);

/* Close the listening sockets, finish or drop open connections, free everything. */
void gw_webui_stop(struct gw_webui *w);

#endif
