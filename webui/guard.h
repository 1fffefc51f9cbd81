/* webui/guard.h: deadlines libmicrohttpd does not have: its timeout restarts on every byte, so
 * a client that trickles a header (or reads a reply) one byte a second would hold a connection
 * forever. The guard watches each connection and shuts down the ones past their deadline. */
#ifndef GW_WEBUI_GUARD_H
#define GW_WEBUI_GUARD_H

#include <stdbool.h>
#include <microhttpd.h>

/* from connecting (or the last reply) to a full header; then from the header to the reply sent */
#define GW_GUARD_HEADER_SECONDS 10.0
#define GW_GUARD_REQUEST_SECONDS 30.0

struct gw_guard;

int gw_guard_start(struct gw_guard **out);
void gw_guard_stop(struct gw_guard *g);	/* after every MHD daemon using it has stopped */

/* MHD_OPTION_NOTIFY_CONNECTION's callback; cls is the guard. */
void gw_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		     enum MHD_ConnectionNotificationCode code);
/* A request's header is complete (started) or its reply is done (!started). */
void gw_guard_request(struct gw_guard *g, struct MHD_Connection *c, bool started);

#endif
