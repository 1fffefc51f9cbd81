/* gatewayd/web.c: the daemon's side of its web process: the page's settings taken from the
 * config, its listening sockets bound, its auth and TLS files opened and checked, the process
 * started through webui/webchild.c, and each pass's snapshot sent with what the daemon knows
 * of the process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sys/log.h"
#include "gatewayd/web.h"
#include "webui/auth.h"
#include "webui/conf.h"
#include "webui/webui.h"

static void web_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	gw_log(level <= 3 ? GW_LOG_ERR : level == 4 ? GW_LOG_WARNING : GW_LOG_INFO, "%s", msg);
}

/* dst[cap] from src (NULL: ""): false when it does not fit */
static bool put(char *dst, size_t cap, const char *src)
{
	return (size_t)snprintf(dst, cap, "%s", src ? src : "") < cap;
}

/* The same as the web process's settings frame (compare_dir: the default where the config has
 * none). 0, or -ENAMETOOLONG when a value is longer than the frame carries. */
static int wire_settings(const struct gw_config *cfg, struct gw_wire_settings *ws)
{
	bool ok = true;

	memset(ws, 0, sizeof(*ws));
	ws->n_listen = cfg->n_listen < GW_WEBUI_MAX_LISTEN ? cfg->n_listen : GW_WEBUI_MAX_LISTEN;
	for (size_t i = 0; i < ws->n_listen; i++) {
		ok &= put(ws->listen_text[i], sizeof(ws->listen_text[i]), cfg->listen[i]);
		ws->listen_addr[i] = cfg->listen_addr[i];
		ws->listen_len[i] = cfg->listen_addrlen[i];
	}
	ok &= put(ws->auth_file, sizeof(ws->auth_file), cfg->auth_file);
	ok &= put(ws->tls_cert, sizeof(ws->tls_cert), cfg->tls_cert);
	ok &= put(ws->tls_key, sizeof(ws->tls_key), cfg->tls_key);
	ws->n_allowed_hosts = cfg->n_allowed_hosts < GW_WEBUI_MAX_HOSTS ? cfg->n_allowed_hosts
									 : GW_WEBUI_MAX_HOSTS;
	for (size_t i = 0; i < ws->n_allowed_hosts; i++)
		ok &= put(ws->allowed_hosts[i], sizeof(ws->allowed_hosts[i]),
			  cfg->allowed_hosts[i]);
	ws->auth_fail_limit = cfg->auth_fail_limit;
	ws->auth_fail_backoff_s = (double)cfg->auth_fail_backoff_us / 1e6;
	ws->memory_max = cfg->http_memory_max;
	ok &= put(ws->compare_dir, sizeof(ws->compare_dir),
		  cfg->compare_dir ? cfg->compare_dir : GW_COMPARE_DIR_DEFAULT);
	ws->interval_us = cfg->interval_us;
	return ok ? 0 : -ENAMETOOLONG;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Bind every address of listen: 0 and fds, or -errno with err and none left open. */
static int bind_all(const struct gw_webui_listen *listen, size_t n, int *fds, char *err,
		    size_t errlen)
{
	int r;

	for (size_t i = 0; i < n; i++)
		fds[i] = -1;
	for (size_t i = 0; i < n; i++)
		if ((r = gw_webui_bind(&listen[i], &fds[i], err, errlen))) {
			close_fds(fds, i);
			return r;
		}
	return 0;
}

static void files_close(struct gw_secret *f)
{
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		gw_secret_close(&f[i]);
}

static void files_fds(const struct gw_secret *f, int *fds)
{
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		fds[i] = f[i].fd;
}

/* The paths of ws's files, in the order of gw_webchild's. */
static const char *path_of(const struct gw_wire_settings *ws, int i)
{
	const char *p = i == 0 ? ws->auth_file : i == 1 ? ws->tls_cert : ws->tls_key;

	return p[0] ? p : NULL;
}

/*
 * Open ws's files (sys/secret.h: no link, no FIFO, a regular file others cannot
 * read, bounded). A file of old's at the same path whose signature has not changed is not
 * opened again (the daemon, no longer root after its start, may not be able to): its fd is
 * duplicated. 0 and out, or -errno with err (nothing left open).
 */
static int files_open(const struct gw_wire_settings *ws, const struct gw_wire_settings *old_ws,
		      const struct gw_secret *old, struct gw_secret *out, char *err,
		      size_t errlen)
{
	static const char *const what[] = { "auth_file", "tls_cert", "tls_key" };
	static const size_t max[] = { GW_AUTH_FILE_MAX, GW_WEBUI_PEM_MAX, GW_WEBUI_PEM_MAX };
	int r;

	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		out[i] = GW_SECRET_NONE;
	for (int i = 0; i < GW_WEBPROC_FILES; i++) {
		const char *p = path_of(ws, i), *was = old_ws ? path_of(old_ws, i) : NULL;
		struct gw_secret_sig now;

		if (!p)
			continue;
		if (was && old[i].fd >= 0 && !strcmp(p, was) && !gw_secret_stat(p, &now) &&
		    gw_secret_sig_same(&now, &old[i].sig)) {
			out[i].sig = old[i].sig;
			if ((out[i].fd = fcntl(old[i].fd, F_DUPFD_CLOEXEC, 3)) >= 0)
				continue;
			r = -errno;
			snprintf(err, errlen, "%s %s: %s", what[i], p, strerror(-r));
			goto fail;
		}
		/* a certificate is public; the users' hashes and the key are not */
		if ((r = gw_secret_open(p, what[i], max[i], i == 1 ? GW_SECRET_PUBLIC : 0, &out[i],
					err, errlen)))
			goto fail;
	}
	return 0;
fail:
	files_close(out);
	return r;
}

/* Whether the files were all kept (the same fds' files, by signature). */
static bool files_same(const struct gw_secret *a, const struct gw_secret *b)
{
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		if ((a[i].fd >= 0) != (b[i].fd >= 0) ||
		    (a[i].fd >= 0 && !gw_secret_sig_same(&a[i].sig, &b[i].sig)))
			return false;
	return true;
}

/*
 * What the web process will make of ws and files (through its own reading of ws,
 * gw_wire_settings_opts), read and checked here (the users' hashes parsed, the PEM files
 * looked at) and then let go of: the daemon keeps the files' fds and signatures, never the
 * key's bytes. 0 or -errno with err.
 */
static int files_check(const struct gw_wire_settings *ws, const struct gw_secret *files,
		       char *err, size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;
	size_t n = gw_wire_settings_opts(ws, listen, &o, hosts);
	int fds[GW_WEBPROC_FILES], r;
	struct conf c;

	files_fds(files, fds);
	o.file_fds = fds;
	o.log = web_log;
	if ((r = gw_webui_conf_load(&c, listen, n, &o, err, errlen)))
		return r;
	gw_webui_conf_free(&c);	/* wipes the key */
	return 0;
}

/* Whether a and b make the same server: addresses, files (paths) and Host names. */
static bool same_page(const struct gw_wire_settings *a, const struct gw_wire_settings *b)
{
	if (a->n_listen != b->n_listen || a->n_allowed_hosts != b->n_allowed_hosts ||
	    strcmp(a->auth_file, b->auth_file) || strcmp(a->tls_cert, b->tls_cert) ||
	    strcmp(a->tls_key, b->tls_key))
		return false;
	for (size_t i = 0; i < a->n_listen; i++)
		if (a->listen_len[i] != b->listen_len[i] ||
		    memcmp(&a->listen_addr[i], &b->listen_addr[i], a->listen_len[i]))
			return false;
	for (size_t i = 0; i < a->n_allowed_hosts; i++)
		if (strcmp(a->allowed_hosts[i], b->allowed_hosts[i]))
			return false;
	return true;
}

static bool same_listen(const struct gw_wire_settings *a, const struct gw_wire_settings *b)
{
	if (a->n_listen != b->n_listen)
		return false;
	for (size_t i = 0; i < a->n_listen; i++)
		if (a->listen_len[i] != b->listen_len[i] ||
		    memcmp(&a->listen_addr[i], &b->listen_addr[i], a->listen_len[i]))
			return false;
	return true;
}

int gw_web_start(struct gw_web *w, const struct gw_config *cfg, double now, char *err,
		     size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;
	int files[GW_WEBPROC_FILES];
	char e[512];
	size_t n;
	int r;

	memset(w, 0, sizeof(*w));
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		w->files[i] = GW_SECRET_NONE;
	if (!(w->ws = calloc(1, sizeof(*w->ws)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((r = wire_settings(cfg, w->ws))) {
		snprintf(err, errlen, "a listen address, path or Host name is too long");
		goto fail;
	}
	n = gw_wire_settings_opts(w->ws, listen, &o, hosts);
	if ((r = bind_all(listen, n, w->fds, err, errlen)))
		goto fail;
	w->n_fds = n;
	/* files that cannot be served are said now: the launcher starts, and the page with it
	 * once a reload mends them (never a page without the auth it was given) */
	w->parked = files_open(w->ws, NULL, NULL, w->files, e, sizeof(e)) ||
		    files_check(w->ws, w->files, e, sizeof(e));
	if (w->parked) {
		gw_log(GW_LOG_ERR, "status page: %s; not served until a reload mends it", e);
		files_close(w->files);
	}
	files_fds(w->files, files);
	if ((r = gw_webchild_start(w->ws, w->fds, n, files, w->parked, now, &w->c, err,
				   errlen))) {
		close_fds(w->fds, n);
		w->n_fds = 0;
		files_close(w->files);
		goto fail;
	}
	return 0;
fail:
	free(w->ws);
	w->ws = NULL;
	return r;
}

void gw_web_send(struct gw_web *w, struct gw_snapshot *s, double now)
{
	struct gw_webchild_stats st;

	if (!w->c)
		return;
	gw_webchild_stats(w->c, now, &st);
	s->web = (struct gw_snap_web){ .present = true, .pid = (int)st.pid,
				       .restarts = st.restarts, .down_s = st.down_s,
				       .dropped = st.dropped };
	gw_webchild_send(w->c, s);
}

int gw_web_reload(struct gw_web *w, const struct gw_config *cfg, double now, char *err,
		      size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_secret files[GW_WEBPROC_FILES];
	struct gw_wire_settings *ws;
	struct gw_webui_opts o;
	int fds[GW_WEBUI_MAX_LISTEN], ffds[GW_WEBPROC_FILES], r;
	size_t n;
	bool moved;

	if (!w->c)
		return 0;	/* no page since start: said then */
	if (!(ws = calloc(1, sizeof(*ws)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((r = wire_settings(cfg, ws))) {
		snprintf(err, errlen, "a listen address, path or Host name is too long");
		goto out;
	}
	/* opened before anything else is decided: a file that cannot be opened now refuses the
	 * reload (the page goes on as it was) */
	if ((r = files_open(ws, w->ws, w->files, files, err, errlen)))
		goto out;
	if (!w->parked && same_page(ws, w->ws) && files_same(files, w->files)) {
		files_close(files);
		*w->ws = *ws;
		gw_webchild_settings(w->c, ws);	/* the rest: limits, compare_dir */
		goto out;
	}
	/* read and checked here: what the new process will serve */
	if ((r = files_check(ws, files, err, errlen))) {
		files_close(files);
		goto out;
	}
	moved = !same_listen(ws, w->ws);
	n = gw_wire_settings_opts(ws, listen, &o, hosts);
	if (moved && (r = bind_all(listen, n, fds, err, errlen))) {
		files_close(files);
		goto out;
	}
	if (moved) {
		close_fds(w->fds, w->n_fds);
		memcpy(w->fds, fds, n * sizeof(*fds));
		w->n_fds = n;
	}
	files_close(w->files);
	memcpy(w->files, files, sizeof(files));
	*w->ws = *ws;
	w->parked = false;
	files_fds(w->files, ffds);
	gw_webchild_replace(w->c, w->ws, w->fds, w->n_fds, ffds, now);
	r = 1;
out:
	free(ws);
	return r;
}

void gw_web_stop(struct gw_web *w)
{
	gw_webchild_stop(w->c);
	w->c = NULL;
	close_fds(w->fds, w->n_fds);
	w->n_fds = 0;
	files_close(w->files);
	free(w->ws);
	w->ws = NULL;
}
