/* webui/snapshot.c: a snapshot's life after it is built: published, taken, put. */
#include <stdlib.h>
#include "webui/snapshot.h"

void gw_snapshot_put(struct gw_snapshot *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (size_t i = 0; i < s->n_dirs; i++)
		free(s->dirs[i].classes);
	free(s->dirs);
	free(s->probes);
	free(s);
}

void gw_snapshot_publish(pthread_mutex_t *lock, struct gw_snapshot **cur, struct gw_snapshot *snap)
{
	struct gw_snapshot *old;

	pthread_mutex_lock(lock);
	old = *cur;
	*cur = snap;
	pthread_mutex_unlock(lock);
	gw_snapshot_put(old);
}

struct gw_snapshot *gw_snapshot_take(pthread_mutex_t *lock, struct gw_snapshot *const *cur)
{
	struct gw_snapshot *s;

	pthread_mutex_lock(lock);
	s = *cur;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(lock);
	return s;
}
