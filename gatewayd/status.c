/* gatewayd/status.c: publishing snapshots to the HTTP threads. The lock is held only to swap
 * or copy a pointer, so a slow HTTP client can never hold up a sampling pass. */
#include <errno.h>
#include <string.h>
#include "gatewayd/status.h"
#include "gatewayd/tree/ctrreg.h"

int gw_status_init(struct gw_status *st, struct gw_sampler *sampler, double start_mono)
{
	memset(st, 0, sizeof(*st));
	st->sampler = sampler;
	st->start_mono = start_mono;
	if (gw_lastcmp_init(&st->lastcmp, NULL))
		return -ENOMEM;
	return -pthread_mutex_init(&st->lock, NULL);
}

void gw_status_destroy(struct gw_status *st)
{
	if (st->cur)
		gw_snapshot_put(st->cur);
	st->cur = NULL;
	gw_lastcmp_destroy(&st->lastcmp);
	pthread_mutex_destroy(&st->lock);
}

void gw_status_publish(struct gw_status *st, struct gw_snapshot *snap)
{
	gw_snapshot_publish(&st->lock, &st->cur, snap);
}

static struct gw_snapshot *status_get(void *ctx)
{
	struct gw_status *st = ctx;

	return gw_snapshot_take(&st->lock, &st->cur);
}

static int status_history(void *ctx, const char *link, const char *direction,
			  const char *class_name, double from, double to, bool minute,
			  struct gw_hist_point *out, size_t max)
{
	struct gw_status *st = ctx;
	int series;

	/* a reload may replace the sampler: hold the lock while using it */
	pthread_mutex_lock(&st->lock);
	if (!strncmp(link, GW_CTR_LINK_PREFIX, strlen(GW_CTR_LINK_PREFIX))) {
		series = st->ctr ? gw_ctr_history(st->ctr, link, direction, class_name, from, to,
						  minute, out, max) : -ENOENT;
		pthread_mutex_unlock(&st->lock);
		return series;
	}
	if (!strncmp(link, GW_CTR_REG_LINK_PREFIX, strlen(GW_CTR_REG_LINK_PREFIX))) {
		series = st->cni ? gw_cnictr_history(st->cni, link, direction, class_name, from,
						     to, minute, out, max) : -ENOENT;
		pthread_mutex_unlock(&st->lock);
		return series;
	}
	series = gw_sampler_history_query(st->sampler, link, direction, class_name, from, to,
					  minute, out, max);
	pthread_mutex_unlock(&st->lock);
	return series;
}

struct gw_sampler *gw_status_swap_sampler(struct gw_status *st, struct gw_sampler *s)
{
	struct gw_sampler *old;

	pthread_mutex_lock(&st->lock);
	old = st->sampler;
	st->sampler = s;
	pthread_mutex_unlock(&st->lock);
	return old;
}

void gw_status_set_ctr(struct gw_status *st, struct gw_ctr *ctr)
{
	pthread_mutex_lock(&st->lock);
	st->ctr = ctr;
	pthread_mutex_unlock(&st->lock);
}

void gw_status_set_cni(struct gw_status *st, struct gw_cnictr *cni)
{
	pthread_mutex_lock(&st->lock);
	st->cni = cni;
	pthread_mutex_unlock(&st->lock);
}

static int status_compare(void *ctx, const char *name, char **body, size_t *len, char *err,
			  size_t errlen)
{
	struct gw_status *st = ctx;

	return gw_lastcmp_read(&st->lastcmp, name, body, len, err, errlen);
}

struct gw_webui_source gw_status_source(struct gw_status *st)
{
	return (struct gw_webui_source){ .ctx = st, .get = status_get, .history = status_history,
					 .compare = status_compare };
}
