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

#define GW_WEBUI_MAX_HOSTS 16
#define GW_WEBUI_MEMORY_DEFAULT (16u << 20)

typedef void (*gw_webui_log_cb)(void *ctx, int level, const char *msg);

/* What a server is, beside its addresses; zero for every default. */
struct gw_webui_opts {
	const char *auth_file;		/* NULL: no basic auth */
	const char *tls_cert, *tls_key;	/* PEM files, both or neither: HTTPS instead of HTTP */
	/* Host header names answered (IP literals always are); none: "localhost" and the
	 * machine's hostname; "*": any. Others get 421. */
	const char *const *allowed_hosts;
	size_t n_allowed_hosts;
	unsigned int auth_fail_limit;	/* failed logins from one address before 429; 0: 5 */
	double auth_fail_backoff_s;	/* how long the 429s last; 0: 60 s */
	size_t memory_max;		/* bytes replies in flight may hold, then 503; 0: 16 MiB */
	gw_webui_log_cb log;		/* failed logins, rate-limited; NULL: not logged */
	void *log_ctx;
	double log_window_s;		/* the rate limit's window (tests); 0: a minute */
	/* Sockets the caller bound and listens on (gw_webui_bind), one per listen address in
	 * order, kept by the caller (the server serves a copy); NULL: the server binds its own.
	 * A process without the right to bind (an unprivileged web process) serves these. */
	const int *listen_fds;
	/* The auth file, the certificate and the key already open, in that order (-1: that one
	 * is not set), read from offset 0 instead of opening the paths, which then only name
	 * them: a web process that may not open them itself serves the daemon's. NULL: the
	 * paths are opened (not through a link; a FIFO is refused). */
	const int *file_fds;
};

/* Bind and listen on l as the server would (non-blocking, close-on-exec): 0 and *fd, or
 * -errno with err ("listen 127.0.0.1:80: Permission denied"). */
int gw_webui_bind(const struct gw_webui_listen *l, int *fd, char *err, size_t errlen);

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

/* The same with every option. */
int gw_webui_start_opts(const struct gw_webui_listen *listen, size_t n_listen,
			const struct gw_webui_opts *opts, const struct gw_webui_source *src,
			struct gw_webui **out, char *err, size_t errlen);

/* A reload that keeps the addresses, the files and the Host names: opts' limits (memory_max,
 * the failed-login limit and back-off, the log window) taken over at once. */
void gw_webui_set_limits(struct gw_webui *w, const struct gw_webui_opts *opts);

/* Close the listening sockets, finish or drop open connections, free everything. */
void gw_webui_stop(struct gw_webui *w);

#endif
