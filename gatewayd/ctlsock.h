/* gatewayd/ctlsock.h: the daemon's local control socket: a unix stream socket, root's peers
 * only, one bounded message and one reply line per connection, never blocking the loop
 * (docs/cni.md). What a message means is the handler's. */
#ifndef GW_CTLSOCK_H
#define GW_CTLSOCK_H

#include <stddef.h>

#define GW_CTLSOCK_CLIENTS 16		/* connections at once; more are refused ("busy") */
#define GW_CTLSOCK_DEADLINE_S 2.0	/* a client sends its whole message within this */

struct gw_ctlsock;

/* A whole message (len bytes, its blank line included) from a root peer: the reply line into
 * reply ("ok" or "error ..."; the newline is added). */
typedef void (*gw_ctlsock_handler)(void *arg, const char *msg, size_t len, char *reply,
				   size_t replylen);

/* Bind path: its directory opened (made if missing) and checked by gw_rundir_open, the socket
 * (0600) made, looked at and removed through that directory's fd, never by its path. A socket
 * file there that nobody answers on is replaced; one a live daemon answers on is -EADDRINUSE.
 * 0 or -errno with err. */
int gw_ctlsock_open(const char *path, gw_ctlsock_handler h, void *arg, struct gw_ctlsock **out,
		    char *err, size_t errlen);
/* One fd for the event loop (an epoll of the listener, clients and a timer). */
int gw_ctlsock_fd(const struct gw_ctlsock *s);
void gw_ctlsock_dispatch(struct gw_ctlsock *s);
/* The socket's directory, open for as long as s is (the plugin's state files are in it). */
int gw_ctlsock_dirfd(const struct gw_ctlsock *s);
/* Close every connection and remove the socket file (if it is still ours). */
void gw_ctlsock_close(struct gw_ctlsock *s);

#endif
