/* gatewayd/webproc.c: the daemon's side of its web process: sockets, settings, snapshots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gatewayd/sys/log.h"
#include "gatewayd/web.h"
#include "gatewayd/webproc.h"

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

/* The same addresses in the same order: the sockets bound for them serve on. */
static bool same_listen(const struct gw_webproc *w, const struct gw_webui_listen *listen,
			size_t n)
{
	if (!w->have_conf || w->conf.n_listen != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (w->conf.listen[i].len != listen[i].len ||
		    memcmp(&w->conf.listen[i].addr, &listen[i].addr, listen[i].len))
			return false;
	return true;
}

int gw_webproc_start(struct gw_webproc *w, const struct gw_config *cfg, double now, char *err,
		     size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	struct gw_wire_settings *ws = calloc(1, sizeof(*ws));
	struct gw_webui_opts o;
	size_t n = gw_web_settings(cfg, listen, &o);
	char e[512];
	int r;

	memset(w, 0, sizeof(*w));
	if (!ws) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((r = gw_web_wire_settings(cfg, ws))) {
		snprintf(err, errlen, "a listen address, path or Host name is too long");
		goto out;
	}
	if ((r = bind_all(listen, n, w->fds, err, errlen)))
		goto out;
	w->n_fds = n;
	o.listen_fds = w->fds;
	/* files the web process cannot read are said now; it starts all the same, so that a
	 * reload that mends them is served */
	if (gw_webui_conf_load(&w->conf, listen, n, &o, e, sizeof(e)))
		gw_log(GW_LOG_ERR, "status page: %s", e);
	else
		w->have_conf = true;
	if ((r = gw_webchild_start(ws, w->fds, n, now, &w->c, err, errlen))) {
		close_fds(w->fds, n);
		w->n_fds = 0;
		if (w->have_conf)
			gw_webui_conf_free(&w->conf);
		w->have_conf = false;
	}
out:
	free(ws);
	return r;
}

void gw_webproc_send(struct gw_webproc *w, struct gw_snapshot *s, double now)
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

int gw_webproc_reload(struct gw_webproc *w, const struct gw_config *cfg, double now, char *err,
		      size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	struct gw_wire_settings *ws;
	struct gw_webui_opts o;
	size_t n = gw_web_settings(cfg, listen, &o);
	int fds[GW_WEBUI_MAX_LISTEN], r;
	bool moved;
	struct conf next;

	if (!w->c)
		return 0;	/* no page since start: said then */
	if (!(ws = calloc(1, sizeof(*ws)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((r = gw_web_wire_settings(cfg, ws))) {
		snprintf(err, errlen, "a listen address, path or Host name is too long");
		goto out;
	}
	moved = !same_listen(w, listen, n);
	o.listen_fds = moved ? NULL : w->fds;
	if (!moved && gw_webui_conf_same(&w->conf, listen, n, &o)) {
		gw_webchild_settings(w->c, ws);	/* the rest: limits, compare_dir */
		goto out;
	}
	/* read and checked here, as root: what the new process will serve */
	if ((r = gw_webui_conf_load(&next, listen, n, &o, err, errlen)))
		goto out;
	if (moved && (r = bind_all(listen, n, fds, err, errlen))) {
		gw_webui_conf_free(&next);
		goto out;
	}
	if (moved) {
		close_fds(w->fds, w->n_fds);
		memcpy(w->fds, fds, n * sizeof(*fds));
		w->n_fds = n;
		for (size_t i = 0; i < GW_WEBUI_MAX_LISTEN; i++)
			next.fds[i] = i < n ? fds[i] : -1;
	}
	if (w->have_conf)
		gw_webui_conf_free(&w->conf);
	w->conf = next;
	w->have_conf = true;
	gw_webchild_listen(w->c, ws, w->fds, w->n_fds, now);
	r = 1;
out:
	free(ws);
	return r;
}

void gw_webproc_stop(struct gw_webproc *w)
{
	gw_webchild_stop(w->c);
	w->c = NULL;
	close_fds(w->fds, w->n_fds);
	w->n_fds = 0;
	if (w->have_conf)
		gw_webui_conf_free(&w->conf);
	w->have_conf = false;
}
