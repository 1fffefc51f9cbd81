/* sys/ctlsock.h: a local control socket: a unix stream socket, root's peers only, one bounded
 * message and one reply line per connection, never blocking the loop. What a message is (its
 * bound, where it ends) and what it means are the caller's: the daemon's registrations of CNI
 * containers (tree/ctr_registration.h, docs/cni.md). */
#ifndef GW_CTLSOCK_H
#define GW_CTLSOCK_H

#include <stddef.h>

#define GW_CTLSOCK_CLIENTS 16		/* connections at once; more are refused ("busy") */
#define GW_CTLSOCK_DEADLINE_S 2.0	/* a client sends its whole message within this */
#define GW_CTLSOCK_REPLY_MAX 512	/* one reply line, bytes with its newline */

struct gw_ctlsock;

/* What the socket's messages are. */
struct gw_ctlsock_proto {
	size_t msg_max;		/* one message's bytes, at most (longer: refused) */
	/* Where a message ends in text (len bytes so far): its length, 0 while not whole. */
	size_t (*complete)(const char *text, size_t len);
	/* A whole message (len bytes, NUL-terminated) from a root peer: the reply line into
	 * reply ("ok" or "error ..."; the newline is added; replylen GW_CTLSOCK_REPLY_MAX). */
	void (*handle)(void *arg, const char *msg, size_t len, char *reply, size_t replylen);
};

/* Bind path: its directory opened (made if missing) and checked by gw_rundir_open, the socket
 * (0600) made, looked at and removed through that directory's fd, never by its path. A socket
 * file there that nobody answers on is replaced; one a live daemon answers on is -EADDRINUSE.
 * 0 or -errno with err. */
int gw_ctlsock_open(const char *path, const struct gw_ctlsock_proto *proto, void *arg,
		    struct gw_ctlsock **out, char *err, size_t errlen);
/* One fd for the event loop (an epoll of the listener, clients and a timer). */
int gw_ctlsock_fd(const struct gw_ctlsock *s);
void gw_ctlsock_dispatch(struct gw_ctlsock *s);
/* The socket's directory, open for as long as s is (the plugin's state files are in it). */
int gw_ctlsock_dirfd(const struct gw_ctlsock *s);
/* Close every connection and remove the socket file (if it is still ours). */
void gw_ctlsock_close(struct gw_ctlsock *s);

#endif
