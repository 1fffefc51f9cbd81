/* webui/limit.h: limits per client address (an IPv6 /64 as one): failed logins counted,
 * answered later and later, then refused (429) for a back-off, logged at a bounded rate; and
 * the connections open at once. */
#ifndef GW_WEBUI_LIMIT_H
#define GW_WEBUI_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <microhttpd.h>

#define GW_LIMIT_ADDRS 1024		/* addresses remembered; the least recent goes first */
#define GW_LIMIT_LOG_PER_MINUTE 10	/* failed-login lines; the rest are counted */
#define GW_LIMIT_DELAY_MAX 2.0		/* seconds: the longest wait before a 401 */

/* level as syslog's (3 error, 4 warning, 6 info); msg one line without a newline */
typedef void (*gw_webui_log_fn)(void *ctx, int level, const char *msg);

struct gw_limit;

int gw_limit_new(unsigned int fail_limit, double backoff_s, gw_webui_log_fn log, void *log_ctx,
		 struct gw_limit **out);
void gw_limit_free(struct gw_limit *l);	/* after gw_limit_release and the servers' stop */
void gw_limit_set(struct gw_limit *l, unsigned int fail_limit, double backoff_s);
/* GW_LIMIT_LOG_PER_MINUTE lines per window seconds (0: 60); tests shorten it. */
void gw_limit_set_log_window(struct gw_limit *l, double window_s);

/* Seconds sa must still wait before its credentials are looked at again; 0: go on. */
double gw_limit_blocked(struct gw_limit *l, const struct sockaddr *sa, double now);
/* A wrong user or password from sa (user as sent, for the log): the seconds to wait before
 * its 401 goes out (0: at once). The fail_limit-th failure starts the back-off: the next
 * requests from sa get 429. */
double gw_limit_failed(struct gw_limit *l, const struct sockaddr *sa, const char *user,
		       double now);
void gw_limit_ok(struct gw_limit *l, const struct sockaddr *sa);
/* sa was answered 429 (logged like a failure, at the same bounded rate). */
void gw_limit_refused(struct gw_limit *l, const struct sockaddr *sa, double wait, double now);

/* Suspend c (from inside its request handler; the server has MHD_ALLOW_SUSPEND_RESUME) and
 * resume it after delay seconds, from the limiter's own thread: no server thread sleeps.
 * -EAGAIN while released (answer at once), -ENOMEM. */
int gw_limit_defer(struct gw_limit *l, struct MHD_Connection *c, double delay);
/* Resume every suspended connection now and defer none until gw_limit_hold: before the
 * servers stop (libmicrohttpd must not stop with a suspended connection). */
void gw_limit_release(struct gw_limit *l);
void gw_limit_hold(struct gw_limit *l);

/*
 * Connections open at once per address, counted as failed logins are (an IPv6 /64, which one
 * host has to itself, is one address; an IPv4-mapped address is its IPv4 one), in a table of
 * GW_LIMIT_CONN_ADDRS addresses, more than the server's connections all told. max 0: no bound.
 * room: whether sa may open one more (the server's accept policy, before it takes it on).
 * begin: one more from sa, counted; false when that is over max (or the table is full): the
 * caller ends it. end: one fewer (for every begin, counted or not). Thread-safe.
 */
#define GW_LIMIT_CONN_ADDRS 4096
void gw_limit_set_conn_max(struct gw_limit *l, unsigned int max);
bool gw_limit_conn_room(struct gw_limit *l, const struct sockaddr *sa);
bool gw_limit_conn_begin(struct gw_limit *l, const struct sockaddr *sa);
void gw_limit_conn_end(struct gw_limit *l, const struct sockaddr *sa);
/* How many connections sa's address (its /64) has open now. */
unsigned int gw_limit_conn_count(struct gw_limit *l, const struct sockaddr *sa);

/* "10.0.0.5" or "fd00::5" into buf (for messages). */
void gw_limit_addr_text(const struct sockaddr *sa, char *buf, size_t len);

#endif
