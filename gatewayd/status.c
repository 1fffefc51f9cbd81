/* gatewayd/status.c: the newest snapshot and the sampler behind it, swapped under a lock
 * held only to swap a pointer (the web process gets each snapshot over its socket). */
#include <errno.h>
#include <string.h>
#include "gatewayd/status.h"

int gw_status_init(struct gw_status *st, struct gw_sampler *sampler, double start_mono)
{
	memset(st, 0, sizeof(*st));
	st->sampler = sampler;
	st->start_mono = start_mono;
	return -pthread_mutex_init(&st->lock, NULL);
}

void gw_status_destroy(struct gw_status *st)
{
	if (st->cur)
		gw_snapshot_put(st->cur);
	st->cur = NULL;
	pthread_mutex_destroy(&st->lock);
}

void gw_status_publish(struct gw_status *st, struct gw_snapshot *snap)
{
	gw_snapshot_publish(&st->lock, &st->cur, snap);
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
