/* webui/http.c: the HTTP server: one libmicrohttpd daemon (own thread) per listen address,
 * read-only routes, bounded connections, requests and reply memory, a Host check, optional
 * TLS and basic auth with failed logins limited per address. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <strings.h>
#include <json-c/json.h>
#include <microhttpd.h>

#include "webui/assets.h"
#include "webui/auth.h"
#include "webui/conf.h"
#include "webui/guard.h"
#include "webui/limit.h"
#include "webui/render.h"
#include "webui/webui.h"

#define CONN_LIMIT_TOTAL 2048	/* shared out between the listen addresses; idle ones time out */
#define CONN_LIMIT_PER_IP 32	/* per address, an IPv6 /64 as one (webui/limit.c) */
#define HTTP_THREADS 2
#define CONN_TIMEOUT_S 10	/* idle; the guard bounds slow trickles */
#define CONN_MEMORY 16384	/* request line and headers must fit: larger gets 4xx */
#define URL_MAX 1024
#define BODY_MAX 1024		/* a GET with a body bigger than this is dropped unanswered */
#define LISTEN_BACKLOG 512	/* a burst of LAN clients waits in the kernel, not in SYN retries */
#define SEND_BUFFER 65536	/* per connection (the kernel doubles it): 1 ms of 500 Mbit/s */
#define REALM "gatewayd"

#define TEXT "text/plain; charset=utf-8"
#define JSON "application/json"
#define SVG "image/svg+xml"
#define METRICS "text/plain; version=0.0.4; charset=utf-8"
#define CSP "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " \
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/* A rendered snapshot kept while the snapshot is the newest: most requests only queue it. */
struct cached {
	struct MHD_Response *resp;
	unsigned int code;
	uint64_t seq;
	double t;
	bool healthy;
};

typedef int (*render_fn)(const struct gw_snapshot *s, double now, char **out, size_t *len);

struct gw_webui {
	struct gw_webui_source src;
	struct gw_auth *auth;		/* conf.auth: the request path reads it here */
	struct gw_guard *guard;
	struct gw_limit *limit;		/* NULL: failed logins are not limited */
	struct conf conf;
	size_t memory_max;		/* 0: unbounded */
	size_t inflight;		/* bytes of rendered replies alive (atomic) */
	struct MHD_Daemon *mhd[GW_WEBUI_MAX_LISTEN];
	size_t n_mhd;
	struct MHD_Response **assets;	/* one per embedded file, built once */
	pthread_mutex_t lock;		/* the caches */
	struct cached status, metrics;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Headers every reply carries; the CSP matters for the page, costs nothing elsewhere. */
static int common_headers(struct MHD_Response *r, const char *type, bool no_store)
{
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES ||
	    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") != MHD_YES ||
	    MHD_add_response_header(r, "Content-Security-Policy", CSP) != MHD_YES ||
	    MHD_add_response_header(r, "X-Frame-Options", "DENY") != MHD_YES ||
	    MHD_add_response_header(r, "Referrer-Policy", "no-referrer") != MHD_YES ||
	    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
				    no_store ? "no-store" : "no-cache") != MHD_YES)
		return -ENOMEM;
	return 0;
}

static struct MHD_Response *text_response(const char *body, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_MUST_COPY);

	if (r && common_headers(r, type, true)) {
		MHD_destroy_response(r);
		return NULL;
	}
	return r;
}

/* Queue a reply made for this one request, and let go of it (MHD keeps it until sent). */
static enum MHD_Result send_once(struct MHD_Connection *c, unsigned int code,
				 struct MHD_Response *r)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;	/* out of memory: MHD closes the connection */
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned int code, const char *body)
{
	return send_once(c, code, text_response(body, TEXT));
}

static enum MHD_Result send_405(struct MHD_Connection *c)
{
	struct MHD_Response *r = text_response("method not allowed: only GET and HEAD\n", TEXT);

	if (r && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES) {
		MHD_destroy_response(r);
		r = NULL;
	}
	return send_once(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
}

static enum MHD_Result send_401(struct MHD_Connection *c)
{
	struct MHD_Response *r = text_response("authentication required\n", TEXT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
#if MHD_VERSION >= 0x00097701
	ret = MHD_queue_basic_auth_required_response3(c, REALM, MHD_YES, r);
#else
	ret = MHD_queue_basic_auth_fail_response(c, REALM, r);
#endif
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_429(struct MHD_Connection *c, double wait)
{
	struct MHD_Response *r = text_response("too many failed logins from this address; try "
					       "again later\n", TEXT);
	char after[24];

	snprintf(after, sizeof(after), "%.0f", wait < 1 ? 1 : ceil(wait));
	if (r && MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, after) != MHD_YES) {
		MHD_destroy_response(r);
		r = NULL;
	}
	return send_once(c, MHD_HTTP_TOO_MANY_REQUESTS, r);
}

enum login { LOGIN_OK, LOGIN_NONE, LOGIN_BAD };

/*
 * The credentials the request carries, checked. The decoded password is wiped before it is
 * freed, and so is the header it came from (base64 is clear text), so neither lingers in
 * libmicrohttpd's connection memory. *user gets the name for a log line (bounded).
 */
static enum login check_login(struct gw_webui *w, struct MHD_Connection *c, char *user_out,
			      size_t user_len)
{
	const char *hdr = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_AUTHORIZATION);
	enum login how;
#if MHD_VERSION >= 0x00097701
	struct MHD_BasicAuthInfo *bi = MHD_basic_auth_get_username_password3(c);

	how = !bi ? LOGIN_NONE : bi->password && gw_auth_check(w->auth, bi->username,
			bi->password) ? LOGIN_OK : LOGIN_BAD;
	snprintf(user_out, user_len, "%s", bi && bi->username ? bi->username : "");
	if (bi) {
		if (bi->password)
			explicit_bzero(bi->password, bi->password_len);
		MHD_free(bi);
	}
#else
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);

	how = !user ? LOGIN_NONE : pass && gw_auth_check(w->auth, user, pass) ? LOGIN_OK
	    : LOGIN_BAD;
	snprintf(user_out, user_len, "%s", user ? user : "");
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
#endif
	if (hdr)
		explicit_bzero((char *)hdr, strlen(hdr));
	if (how == LOGIN_NONE && hdr)
		how = LOGIN_BAD;	/* an Authorization header that is not Basic user:pass */
	return how;
}

static const struct sockaddr *client_addr(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	return ci ? ci->client_addr : NULL;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Basic auth with failed logins limited per address: an address past the limit gets 429 at
 * once, without a crypt (so a guesser costs nothing and learns nothing); a failure below it
 * is answered after a delay that grows, the connection suspended meanwhile (the server's
 * threads go on with other clients). Returns MHD_YES with *done false when the request may
 * go on to its route.
 */
static enum MHD_Result login(struct gw_webui *w, struct MHD_Connection *c, void **req_cls,
			     void *delayed, bool *done)
{
	const struct sockaddr *sa = client_addr(c);
	char user[GW_AUTH_NAME_MAX + 1];
	double now = mono_now(), wait;
	enum login how;

	*done = true;
	if (w->limit && sa && (wait = gw_limit_blocked(w->limit, sa, now)) > 0) {
		gw_limit_refused(w->limit, sa, wait, now);
		return send_429(c, wait);
	}
	how = check_login(w, c, user, sizeof(user));
	if (how == LOGIN_OK) {
		if (w->limit && sa)
			gw_limit_ok(w->limit, sa);
		*done = false;
		return MHD_YES;
	}
	if (how == LOGIN_NONE || !w->limit || !sa)
		return send_401(c);
	wait = gw_limit_failed(w->limit, sa, user, now);
	if (wait > 0 && !gw_limit_defer(w->limit, c, wait)) {
		*req_cls = delayed;	/* resumed: the handler is called again, and says 401 */
		return MHD_YES;
	}
	return send_401(c);
}

/* Whether the Host header names this server: an IP literal (a rebinding attack needs a
 * name), or one of the allowed names; no Host (HTTP/1.0) is let through. */
static bool host_ok(struct gw_webui *w, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	char name[256], addr[16];
	const char *end;
	size_t n;

	if (!w->conf.host_check || !h)
		return true;
	if (h[0] == '[') {
		if (!(end = strchr(h, ']')) || (n = (size_t)(end - h - 1)) >= sizeof(name))
			return false;
		memcpy(name, h + 1, n);
		name[n] = '\0';
		return inet_pton(AF_INET6, name, addr) == 1;
	}
	n = strcspn(h, ":");
	if (n >= sizeof(name))
		return false;
	memcpy(name, h, n);
	name[n] = '\0';
	if (n && name[n - 1] == '.')
		name[--n] = '\0';	/* "localhost." is localhost */
	if (inet_pton(AF_INET, name, addr) == 1 || w->conf.any_host)
		return true;
	for (size_t i = 0; i < w->conf.n_hosts; i++)
		if (!strcasecmp(name, w->conf.hosts[i]))
			return true;
	return false;
}

/* A rendered body, counted in w->inflight from its rendering until MHD lets it go. */
struct tracked {
	struct gw_webui *w;
	char *body;
	size_t len;
};

static void tracked_free(void *cls)
{
	struct tracked *t = cls;

	__atomic_sub_fetch(&t->w->inflight, t->len, __ATOMIC_RELAXED);
	free(t->body);
	free(t);
}

/* Whether more bytes of replies fit beside those in flight (past it: 503). */
static bool memory_room(struct gw_webui *w, size_t more)
{
	size_t max = __atomic_load_n(&w->memory_max, __ATOMIC_RELAXED);	/* a reload sets it */

	return !max || __atomic_load_n(&w->inflight, __ATOMIC_RELAXED) + more <= max;
}

static enum MHD_Result send_503_busy(struct MHD_Connection *c)
{
	struct MHD_Response *r = text_response("busy: the replies in flight hold all the memory "
					       "they may (http_memory_max); try again\n", TEXT);

	if (r && MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1") != MHD_YES) {
		MHD_destroy_response(r);
		r = NULL;
	}
	return send_once(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
}

/* A reply around a malloc'd body, freed by MHD when sent (or here when it cannot be); NULL
 * with *full when it does not fit in w->memory_max. */
static struct MHD_Response *body_response(struct gw_webui *w, char *body, size_t len,
					  const char *type, bool *full)
{
	struct tracked *t = malloc(sizeof(*t));
	struct MHD_Response *r;

	*full = false;
	if (!t || !memory_room(w, len)) {
		*full = t != NULL;
		free(t);
		free(body);
		return NULL;
	}
	*t = (struct tracked){ w, body, len };
	__atomic_add_fetch(&w->inflight, len, __ATOMIC_RELAXED);
	r = MHD_create_response_from_buffer_with_free_callback_cls(len, body, tracked_free, t);
	if (!r) {
		tracked_free(t);
		return NULL;
	}
	if (common_headers(r, type, true)) {
		MHD_destroy_response(r);
		return NULL;
	}
	return r;
}

static enum MHD_Result send_body(struct gw_webui *w, struct MHD_Connection *c, unsigned int code,
				 char *body, size_t len, const char *type)
{
	bool full;
	struct MHD_Response *r = body_response(w, body, len, type, &full);

	return full ? send_503_busy(c) : send_once(c, code, r);
}

static enum MHD_Result serve_asset(struct gw_webui *w, struct MHD_Connection *c, size_t i)
{
	return MHD_queue_response(c, MHD_HTTP_OK, w->assets[i]);
}

/* Render (outside the lock), then keep the reply for the requests that follow. */
static enum MHD_Result render_and_cache(struct gw_webui *w, struct MHD_Connection *c,
					struct cached *slot, render_fn render, const char *type,
					const struct gw_snapshot *s, double now, struct cached key)
{
	struct MHD_Response *r, *old;
	enum MHD_Result ret;
	size_t len = 0;
	char *body;
	bool full;

	if (!memory_room(w, 0))
		return send_503_busy(c);
	if (render(s, now, &body, &len))
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	if (!(r = body_response(w, body, len, type, &full)))
		return full ? send_503_busy(c) : MHD_NO;
	pthread_mutex_lock(&w->lock);
	ret = MHD_queue_response(c, key.code, r);
	old = slot->resp;
	*slot = key;
	slot->resp = r;
	pthread_mutex_unlock(&w->lock);
	if (old)
		MHD_destroy_response(old);
	return ret;
}

/* /api/status and /metrics: one rendering per snapshot (and health verdict), shared. */
static enum MHD_Result serve_snapshot(struct gw_webui *w, struct MHD_Connection *c,
				      struct cached *slot, render_fn render, const char *type,
				      bool no_snapshot_is_503)
{
	struct gw_snapshot *s = w->src.get ? w->src.get(w->src.ctx) : NULL;
	double now = wall_now();
	struct cached key = {
		.seq = s ? s->seq : 0, .t = s ? s->unix_time : 0,
		.healthy = gw_webui_healthy(s, now, NULL, 0),
		.code = !s && no_snapshot_is_503 ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK,
	};
	enum MHD_Result ret;

	pthread_mutex_lock(&w->lock);
	if (slot->resp && slot->seq == key.seq && slot->t == key.t &&
	    slot->healthy == key.healthy && slot->code == key.code) {
		ret = MHD_queue_response(c, slot->code, slot->resp);
		pthread_mutex_unlock(&w->lock);
		gw_snapshot_put(s);
		return ret;
	}
	pthread_mutex_unlock(&w->lock);
	ret = render_and_cache(w, c, slot, render, type, s, now, key);
	gw_snapshot_put(s);
	return ret;
}

static enum MHD_Result serve_healthz(struct gw_webui *w, struct MHD_Connection *c)
{
	struct gw_snapshot *s = w->src.get ? w->src.get(w->src.ctx) : NULL;
	char why[160], body[192];
	bool ok = gw_webui_healthy(s, wall_now(), why, sizeof(why));

	gw_snapshot_put(s);
	if (ok)
		return send_text(c, MHD_HTTP_OK, "ok\n");
	snprintf(body, sizeof(body), "%s\n", why);
	return send_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, body);
}

struct args {
	struct gw_query_arg a[GW_QUERY_MAX_ARGS + 1];
	size_t n;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct args *args = cls;

	(void)kind;
	if (args->n > GW_QUERY_MAX_ARGS)
		return MHD_NO;		/* one past the bound is enough to refuse */
	args->a[args->n++] = (struct gw_query_arg){ key, value };
	return MHD_YES;
}

static enum MHD_Result serve_history(struct gw_webui *w, struct MHD_Connection *c)
{
	struct gw_history_query q;
	struct gw_hist_point *pts;
	struct args args = { .n = 0 };
	char err[160], msg[176], *body;
	size_t len;
	int n, r;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	if (gw_webui_history_query(args.a, args.n, wall_now(), &q, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "%s\n", err);
		return send_text(c, MHD_HTTP_BAD_REQUEST, msg);
	}
	if (!w->src.history)
		return send_text(c, MHD_HTTP_NOT_FOUND, "no history\n");
	if (!memory_room(w, 0))
		return send_503_busy(c);
	pts = malloc(GW_HIST_MAX_POINTS * sizeof(*pts));
	if (!pts)
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	n = w->src.history(w->src.ctx, q.link, q.direction, q.class_name, q.from, q.to,
			   q.minute, pts, GW_HIST_MAX_POINTS);
	if (n < 0) {
		free(pts);
		if (n == -ENOENT)
			return send_text(c, MHD_HTTP_NOT_FOUND,
					 "no such link, direction or class\n");
		snprintf(err, sizeof(err), "history: %s\n", strerror(-n));
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err);
	}
	if (n > GW_HIST_MAX_POINTS)
		n = GW_HIST_MAX_POINTS;
	r = gw_webui_history_json(&q, pts, (size_t)n, n == GW_HIST_MAX_POINTS, &body, &len);
	free(pts);
	if (r)
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return send_body(w, c, MHD_HTTP_OK, body, len, JSON);
}

/* {"error": msg} */
static enum MHD_Result send_json_error(struct gw_webui *w, struct MHD_Connection *c,
				       unsigned int code, const char *msg)
{
	json_object *o = json_object_new_object();
	const char *s;
	char *body = NULL;
	size_t len = 0;

	if (o) {
		json_object_object_add(o, "error", json_object_new_string(msg));
		s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE, &len);
		body = s ? strdup(s) : NULL;
		json_object_put(o);
	}
	if (!body)
		return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return send_body(w, c, code, body, len, JSON);
}

/* /api/compare (name NULL) and /compare/NAME.svg: the daemon reads, this only answers. */
static enum MHD_Result serve_compare(struct gw_webui *w, struct MHD_Connection *c,
				     const char *name)
{
	char err[512], msg[560], *body = NULL;
	unsigned int code;
	size_t len = 0;
	int r;

	if (name && (strchr(name, '/') || name[0] == '.' || strlen(name) > 64))
		return send_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
	if (!w->src.compare) {
		if (name)
			return send_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
		return send_json_error(w, c, MHD_HTTP_NOT_FOUND, "this server keeps no comparisons");
	}
	err[0] = 0;
	r = w->src.compare(w->src.ctx, name, &body, &len, err, sizeof(err));
	if (!r)
		return send_body(w, c, MHD_HTTP_OK, body, len, name ? SVG : JSON);
	code = r == -ENOENT ? MHD_HTTP_NOT_FOUND
	     : r == -EFBIG || r == -EBADMSG ? MHD_HTTP_INTERNAL_SERVER_ERROR
	     : MHD_HTTP_SERVICE_UNAVAILABLE;
	if (!err[0])
		snprintf(err, sizeof(err), "%s", strerror(-r));
	if (!name)
		return send_json_error(w, c, code, err);
	snprintf(msg, sizeof(msg), "%s\n", err);
	return send_text(c, code, msg);
}

static enum MHD_Result route(struct gw_webui *w, struct MHD_Connection *c, const char *url)
{
	if (strcmp(url, "/api/history") &&
	    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > 0)
		return send_text(c, MHD_HTTP_BAD_REQUEST,
				 "only /api/history takes query parameters\n");
	for (size_t i = 0; i < gw_webui_n_assets; i++)
		if (!strcmp(url, gw_webui_assets[i].path))
			return serve_asset(w, c, i);
	if (!strcmp(url, "/api/status"))
		return serve_snapshot(w, c, &w->status, gw_webui_status_json, JSON, true);
	if (!strcmp(url, "/metrics"))
		return serve_snapshot(w, c, &w->metrics, gw_webui_metrics, METRICS, false);
	if (!strcmp(url, "/api/history"))
		return serve_history(w, c);
	if (!strcmp(url, "/healthz"))
		return serve_healthz(w, c);
	if (!strcmp(url, "/api/compare"))
		return serve_compare(w, c, NULL);
	if (!strncmp(url, "/compare/", 9))
		return serve_compare(w, c, url + 9);
	return send_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

/*
 * Called once with the header complete, then again with any body, then once more at its end.
 * A GET is answered on the last call: answering earlier makes libmicrohttpd close the
 * connection (the body might still be coming), and keep-alive matters for scrapers.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **req_cls)
{
	static char started, with_body, delayed;	/* *req_cls: the request's state */
	struct gw_webui *w = cls;
	enum MHD_Result ret;
	bool done;

	(void)version;
	(void)upload_data;
	if (!*req_cls) {
		*req_cls = &started;
		gw_guard_request(w->guard, c, true);
		if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
			return send_405(c);
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a GET has no business with a body: drop a big one, refuse a small one */
		if (*upload_data_size > BODY_MAX || *req_cls == &with_body)
			return MHD_NO;
		*upload_data_size = 0;
		*req_cls = &with_body;
		return MHD_YES;
	}
	if (*req_cls == &delayed)
		return send_401(c);	/* a failed login's answer, after its delay */
	if (*req_cls == &with_body)
		return send_text(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n");
	if (strlen(url) > URL_MAX)
		return send_text(c, MHD_HTTP_URI_TOO_LONG, "URL too long\n");
	if (!host_ok(w, c))
		return send_text(c, MHD_HTTP_MISDIRECTED_REQUEST, "this server does not answer to "
				 "that Host name (allowed_hosts in gatewayd.conf(5))\n");
	if (w->auth && strcmp(url, "/healthz")) {
		ret = login(w, c, req_cls, &delayed, &done);
		if (done)
			return ret;
	}
	return route(w, c, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct gw_webui *w = cls;

	(void)toe;
	*req_cls = NULL;
	gw_guard_request(w->guard, c, false);
}

/*
 * Connections per address: libmicrohttpd's own limit (MHD_OPTION_PER_IP_CONNECTION_LIMIT)
 * counts exact addresses, so one IPv6 host, with a /64 to itself, could take every slot. The
 * limiter counts them as it counts failed logins (gw_limit_conn_*): refused before they are
 * taken on (the accept policy), and, should two threads' accepts have passed it at once, shut
 * down as they start, so the bound holds.
 */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct gw_webui *w = cls;

	(void)len;
	return !w->limit || gw_limit_conn_room(w->limit, sa) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct gw_webui *w = cls;
	const union MHD_ConnectionInfo *a, *fd;

	gw_guard_notify(w->guard, c, socket_context, code);
	if (!w->limit ||
	    !(a = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) ||
	    !a->client_addr)
		return;
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		gw_limit_conn_end(w->limit, a->client_addr);
	} else if (code == MHD_CONNECTION_NOTIFY_STARTED &&
		   !gw_limit_conn_begin(w->limit, a->client_addr) &&
		   (fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD))) {
		shutdown(fd->connect_fd, SHUT_RDWR);
	}
}

/* Our own listening socket, so a bind failure comes back as its errno, not just "failed". */
static int listen_on(const struct gw_webui_listen *l, int *fd_out, bool *v6)
{
	int fd, one = 1, sndbuf = SEND_BUFFER, r;

	if (l->addr.ss_family != AF_INET && l->addr.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	*v6 = l->addr.ss_family == AF_INET6;
	fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* an IPv6 address means IPv6 only: "[::]:80" and "0.0.0.0:80" can both be listed; the
	 * send buffer (the connections inherit it) is bounded, so a client that never reads
	 * holds its reply here, counted in memory_max, not megabytes of kernel memory each */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0 ||
	    (*v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)&l->addr, l->len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}

int gw_webui_bind(const struct gw_webui_listen *l, int *fd, char *err, size_t errlen)
{
	bool v6;
	int r = listen_on(l, fd, &v6);

	if (r)
		snprintf(err, errlen, "listen %s: %s", l->text ? l->text : "?", strerror(-r));
	return r;
}

#define N_SERVER_OPTIONS 7

/* The bounds and hooks of every server (tests/fuzz/fuzz_http.c runs its own with these too). */
static void server_options(struct gw_webui *w, unsigned int limit,
			   struct MHD_OptionItem o[N_SERVER_OPTIONS])
{
	const struct MHD_OptionItem v[N_SERVER_OPTIONS] = {
		{ MHD_OPTION_CONNECTION_LIMIT, limit, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, CONN_TIMEOUT_S, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, NULL },
		/* two-argument options: the function as the value, its argument as the pointer */
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, w },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, w },
		{ MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	memcpy(o, v, sizeof(v));
}

static int start_one(struct gw_webui *w, const struct gw_webui_listen *l, int given,
		     unsigned int limit, char *err, size_t errlen)
{
	struct MHD_OptionItem opts[N_SERVER_OPTIONS];
	struct MHD_Daemon *d;
	bool v6 = l->addr.ss_family == AF_INET6;
	int fd = given, mhd_fd, r;

	if (given < 0 && (r = listen_on(l, &fd, &v6))) {
		snprintf(err, errlen, "listen %s: %s", l->text, strerror(-r));
		return r;
	}
	/* libmicrohttpd shuts a listening socket down when it stops, and a copy shares that
	 * state: the caller's socket is listened on again (a no-op on one still listening) */
	if (given >= 0 && listen(given, LISTEN_BACKLOG) < 0) {
		r = -errno;
		snprintf(err, errlen, "listen %s: %s", l->text, strerror(-r));
		return r;
	}
	/*
	 * MHD closes the socket it is given when it stops, and whether it does when it fails to
	 * start is not documented: it gets a copy, so closing ours is right either way (a
	 * socket the caller gave stays the caller's).
	 */
	mhd_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (given < 0)
		close(fd);
	if (mhd_fd < 0) {
		r = -errno;
		snprintf(err, errlen, "listen %s: %s", l->text, strerror(-r));
		return r;
	}
	/* two threads per address: on two cores one thread left half the machine idle while
	 * the kernel copied a large /metrics reply (10,400 -> 13,100 req/s, p99 5.2 -> 2.3 ms
	 * at 100 classes) */
	server_options(w, limit, opts);
	/* suspend/resume: a failed login's answer waits without holding a thread; TLS with
	 * libmicrohttpd's own GnuTLS, the PEM text in memory for the server's life */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			     MHD_ALLOW_SUSPEND_RESUME | (v6 ? MHD_USE_IPv6 : 0) |
			     (w->conf.cert_pem ? MHD_USE_TLS : 0), 0, on_accept,
			     w, on_request, w,
			     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)mhd_fd,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)HTTP_THREADS,
			     MHD_OPTION_ARRAY, opts,
			     w->conf.cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
			     w->conf.cert_pem,
			     MHD_OPTION_HTTPS_MEM_KEY, w->conf.key_pem,
			     MHD_OPTION_END);
	if (!d) {
		snprintf(err, errlen, "listen %s: libmicrohttpd could not start a server on it%s",
			 l->text, w->conf.cert_pem ? " (is tls_key the key of tls_cert, both PEM?)"
			 : "");
		return -EIO;
	}
	w->mhd[w->n_mhd++] = d;
	return 0;
}

/* The page's files as replies built once and shared by every request. */
static int build_assets(struct gw_webui *w)
{
	w->assets = calloc(gw_webui_n_assets, sizeof(*w->assets));
	if (!w->assets)
		return -ENOMEM;
	for (size_t i = 0; i < gw_webui_n_assets; i++) {
		const struct gw_webui_asset *a = &gw_webui_assets[i];

		w->assets[i] = MHD_create_response_from_buffer(a->len, (void *)a->data,
							       MHD_RESPMEM_PERSISTENT);
		if (!w->assets[i] || common_headers(w->assets[i], a->content_type, false))
			return -ENOMEM;
	}
	return 0;
}

/* The servers of w->conf, every address or none. */
static int start_servers(struct gw_webui *w, char *err, size_t errlen)
{
	int r;

	gw_limit_hold(w->limit);
	w->auth = w->conf.auth;
	for (size_t i = 0; i < w->conf.n_listen; i++)
		if ((r = start_one(w, &w->conf.listen[i], w->conf.fds[i],
				   CONN_LIMIT_TOTAL / (unsigned int)w->conf.n_listen, err, errlen)))
			return r;
	return 0;
}

static void stop_servers(struct gw_webui *w)
{
	/* libmicrohttpd must not stop with a suspended connection: resume every delayed 401 */
	if (w->limit)
		gw_limit_release(w->limit);
	for (size_t i = 0; i < w->n_mhd; i++)
		MHD_stop_daemon(w->mhd[i]);	/* closes the listening socket too */
	w->n_mhd = 0;
}

static const struct gw_webui_opts no_opts;

static void set_limits(struct gw_webui *w, const struct gw_webui_opts *o)
{
	__atomic_store_n(&w->memory_max, o->memory_max ? o->memory_max : GW_WEBUI_MEMORY_DEFAULT,
			 __ATOMIC_RELAXED);
	gw_limit_set(w->limit, o->auth_fail_limit, o->auth_fail_backoff_s);
	gw_limit_set_log_window(w->limit, o->log_window_s);
}

int gw_webui_start(const struct gw_webui_listen *listen, size_t n_listen, const char *auth_file,
		   const struct gw_webui_source *src, struct gw_webui **out, char *err,
		   size_t errlen)
{
	struct gw_webui_opts o = no_opts;

	o.auth_file = auth_file;
	return gw_webui_start_opts(listen, n_listen, &o, src, out, err, errlen);
}

int gw_webui_start_opts(const struct gw_webui_listen *listen, size_t n_listen,
			const struct gw_webui_opts *opts, const struct gw_webui_source *src,
			struct gw_webui **out, char *err, size_t errlen)
{
	struct gw_webui *w;
	char ebuf[256];
	int r;

	*out = NULL;
	if (!err || !errlen) {
		err = ebuf;
		errlen = sizeof(ebuf);
	}
	err[0] = '\0';
	if (!opts)
		opts = &no_opts;
	if (!src || !src->get || !listen || n_listen < 1 || n_listen > GW_WEBUI_MAX_LISTEN) {
		snprintf(err, errlen, "web UI: 1..%d listen addresses and a source needed",
			 GW_WEBUI_MAX_LISTEN);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || (r = -pthread_mutex_init(&w->lock, NULL))) {
		free(w);
		snprintf(err, errlen, "web UI: out of memory");
		return -ENOMEM;
	}
	w->src = *src;
	if ((r = gw_webui_conf_load(&w->conf, listen, n_listen, opts, err, errlen)))
		goto fail;
	if ((r = build_assets(w)) || (r = gw_guard_start(&w->guard)) ||
	    (r = gw_limit_new(opts->auth_fail_limit, opts->auth_fail_backoff_s, opts->log,
			      opts->log_ctx, &w->limit))) {
		snprintf(err, errlen, "web UI: %s", strerror(-r));
		goto fail;
	}
	gw_limit_set_conn_max(w->limit, CONN_LIMIT_PER_IP);
	set_limits(w, opts);
	if ((r = start_servers(w, err, errlen)))
		goto fail;
	*out = w;
	return 0;
fail:
	gw_webui_stop(w);
	return r;
}

void gw_webui_set_limits(struct gw_webui *w, const struct gw_webui_opts *o)
{
	set_limits(w, o);
}

void gw_webui_stop(struct gw_webui *w)
{
	if (!w)
		return;
	stop_servers(w);
	gw_guard_stop(w->guard);
	for (size_t i = 0; w->assets && i < gw_webui_n_assets; i++)
		if (w->assets[i])
			MHD_destroy_response(w->assets[i]);
	free(w->assets);
	if (w->status.resp)
		MHD_destroy_response(w->status.resp);
	if (w->metrics.resp)
		MHD_destroy_response(w->metrics.resp);
	gw_limit_free(w->limit);
	gw_webui_conf_free(&w->conf);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
