/* webui/histfeed.c: the web process's history, fed from the snapshots it is sent, its
 * series found by name and carried over by name when the set of them changes. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "webui/histfeed.h"
#include "sys/log.h"

/* One direction of the snapshots the history was made for. */
struct fdir {
	char link[GW_SNAP_NAME];
	char direction[8];
	size_t first;			/* its total's series; class k's is first + 1 + k */
	size_t n;
	char (*names)[GW_SNAP_NAME];	/* the classes' names, in the snapshot's order */
	bool lat, shaper;		/* its total keeps latency, the shaper's rate */
};

struct layout {
	struct fdir *d;
	size_t n_dirs, n_series;
};

struct gw_histfeed {
	/* h and l are replaced by the feeding thread (which alone writes them) under the lock;
	 * queries read them under it */
	pthread_mutex_t lock;
	struct gw_history *h;
	struct layout l;
	int64_t interval_us;
};

static void layout_free(struct layout *l)
{
	for (size_t i = 0; l->d && i < l->n_dirs; i++)
		free(l->d[i].names);
	free(l->d);
	memset(l, 0, sizeof(*l));
}

static int layout_make(const struct gw_snapshot *s, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	if (s->n_dirs && !(l->d = calloc(s->n_dirs, sizeof(*l->d))))
		return -ENOMEM;
	l->n_dirs = s->n_dirs;
	for (size_t i = 0; i < s->n_dirs; i++) {
		const struct gw_snap_dir *sd = &s->dirs[i];
		struct fdir *d = &l->d[i];

		memcpy(d->link, sd->link, sizeof(d->link));
		memcpy(d->direction, sd->direction, sizeof(d->direction));
		d->link[sizeof(d->link) - 1] = d->direction[sizeof(d->direction) - 1] = '\0';
		d->first = l->n_series;
		d->n = sd->n_classes;
		if (d->n && !(d->names = calloc(d->n, sizeof(*d->names)))) {
			layout_free(l);
			return -ENOMEM;
		}
		for (size_t k = 0; k < d->n; k++) {
			memcpy(d->names[k], sd->classes[k].name, GW_SNAP_NAME);
			d->names[k][GW_SNAP_NAME - 1] = '\0';
		}
		l->n_series += 1 + d->n;
	}
	return 0;
}

static bool same_dir(const struct fdir *d, const char *link, const char *direction)
{
	return !strncmp(d->link, link, sizeof(d->link)) &&
	       !strncmp(d->direction, direction, sizeof(d->direction));
}

/* Whether s has the series l was made for, in the same order. */
static bool same_layout(const struct layout *l, const struct gw_snapshot *s)
{
	if (l->n_dirs != s->n_dirs)
		return false;
	for (size_t i = 0; i < l->n_dirs; i++) {
		const struct fdir *d = &l->d[i];
		const struct gw_snap_dir *sd = &s->dirs[i];

		if (!same_dir(d, sd->link, sd->direction) || d->n != sd->n_classes)
			return false;
		for (size_t k = 0; k < d->n; k++)
			if (strncmp(d->names[k], sd->classes[k].name, GW_SNAP_NAME))
				return false;
	}
	return true;
}

/* The direction named so, looked for at hint first (a set of series that changed keeps most
 * of its order), or NULL. */
static const struct fdir *find_dir(const struct layout *l, const char *link,
				   const char *direction, size_t hint)
{
	if (hint < l->n_dirs && same_dir(&l->d[hint], link, direction))
		return &l->d[hint];
	for (size_t i = 0; i < l->n_dirs; i++)
		if (same_dir(&l->d[i], link, direction))
			return &l->d[i];
	return NULL;
}

static long find_class(const struct fdir *d, const char *name, size_t hint)
{
	if (hint < d->n && !strncmp(d->names[hint], name, GW_SNAP_NAME))
		return (long)(d->first + 1 + hint);
	for (size_t k = 0; k < d->n; k++)
		if (!strncmp(d->names[k], name, GW_SNAP_NAME))
			return (long)(d->first + 1 + k);
	return -1;
}

/* The history keeps latency for d's total (and the shaper's rate): -ENOSPC past
 * GW_HIST_LAT_MAX is not an error (as the sampler, those points are not kept). */
static int track(struct gw_history *h, struct fdir *d, bool lat, bool shaper)
{
	int r = 0;

	if (shaper && !d->shaper && !(r = gw_history_track_shaper(h, d->first)))
		d->shaper = d->lat = true;
	else if (lat && !d->lat && !(r = gw_history_track_latency(h, d->first)))
		d->lat = true;
	return r == -ENOSPC ? 0 : r;
}

/* A history for s's series, with the points of the one before carried over by name. */
static int rebuild(struct gw_histfeed *f, const struct gw_snapshot *s)
{
	struct gw_history *h, *old;
	struct layout l, oldl;
	long *map = NULL;
	int r;

	if ((r = layout_make(s, &l)))
		return r;
	if (!(h = gw_history_new(l.n_series, s->interval_us)) ||
	    !(map = malloc((l.n_series ? l.n_series : 1) * sizeof(*map)))) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < l.n_series; i++)
		map[i] = -1;
	for (size_t i = 0; i < l.n_dirs; i++) {
		struct fdir *d = &l.d[i];
		const struct fdir *od = find_dir(&f->l, d->link, d->direction, i);
		const struct gw_snap_dir *sd = &s->dirs[i];

		if ((r = track(h, d, sd->latency.present || (od && od->lat),
			       sd->autorate.present || (od && od->shaper))))
			goto fail;
		if (!od)
			continue;
		map[d->first] = (long)od->first;
		for (size_t k = 0; k < d->n; k++)
			map[d->first + 1 + k] = find_class(od, d->names[k], k);
	}
	gw_log(GW_LOG_DEBUG, "history: %zu bytes", gw_history_bytes(h));
	if (f->h && f->interval_us == s->interval_us)
		gw_history_carry(h, f->h, map);
	free(map);
	pthread_mutex_lock(&f->lock);
	old = f->h;
	oldl = f->l;
	f->h = h;
	f->l = l;
	f->interval_us = s->interval_us;
	pthread_mutex_unlock(&f->lock);
	gw_history_free(old);
	layout_free(&oldl);
	return 0;
fail:
	free(map);
	gw_history_free(h);
	layout_free(&l);
	return r;
}

static void push_class(struct gw_history *h, size_t series, const struct gw_snap_class *c)
{
	/* bits/s, as the sampler pushed them: the 16-bit points are rounded in the unit
	 * /api/history shows */
	gw_history_push(h, series, c->achieved_bytes_per_s * 8, c->queue_delay_ms,
			c->drops_per_s, c->backlog_bytes);
}

int gw_histfeed_push(struct gw_histfeed *f, const struct gw_snapshot *s)
{
	int r;

	if ((!f->h || !same_layout(&f->l, s) || f->interval_us != s->interval_us) &&
	    (r = rebuild(f, s)))
		return r;
	gw_history_pass(f->h, s->unix_time);
	for (size_t i = 0; i < s->n_dirs; i++) {
		const struct gw_snap_dir *sd = &s->dirs[i];
		struct fdir *d = &f->l.d[i];

		/* a probe or autorate block a reload added: kept from now on */
		if ((sd->latency.present && !d->lat) || (sd->autorate.present && !d->shaper))
			track(f->h, d, sd->latency.present, sd->autorate.present);
		push_class(f->h, d->first, &sd->total);
		for (size_t k = 0; k < d->n; k++)
			push_class(f->h, d->first + 1 + k, &sd->classes[k]);
		if (sd->latency.present)
			gw_history_push_latency(f->h, d->first, sd->latency.baseline_ms,
						sd->latency.pass_loaded_p50_ms,
						sd->latency.pass_loaded_p99_ms);
		if (sd->autorate.present)
			gw_history_push_shaper(f->h, d->first,
					       (double)sd->autorate.rate_bytes_per_s * 8);
	}
	return 0;
}

int gw_histfeed_query(struct gw_histfeed *f, const char *link, const char *direction,
		      const char *class_name, double from, double to, bool minute,
		      struct gw_hist_point *out, size_t max)
{
	const struct fdir *d;
	long series = -1;
	int r = -ENOENT;

	pthread_mutex_lock(&f->lock);
	d = f->h ? find_dir(&f->l, link, direction, 0) : NULL;
	if (d)
		series = !strcmp(class_name, "total") ? (long)d->first : find_class(d, class_name, 0);
	if (series >= 0)
		r = gw_history_query(f->h, (size_t)series, from, to, minute, out, max);
	pthread_mutex_unlock(&f->lock);
	return r;
}

size_t gw_histfeed_series(struct gw_histfeed *f)
{
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = f->l.n_series;
	pthread_mutex_unlock(&f->lock);
	return n;
}

int gw_histfeed_new(struct gw_histfeed **out)
{
	struct gw_histfeed *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	if (pthread_mutex_init(&f->lock, NULL)) {
		free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void gw_histfeed_free(struct gw_histfeed *f)
{
	if (!f)
		return;
	gw_history_free(f->h);
	layout_free(&f->l);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
