/* gatewayd/status.h: the sampling loop's state between passes: the newest snapshot, the
 * sampler behind it, the pass counts and the errors the next snapshot carries. */
#ifndef GW_STATUS_H
#define GW_STATUS_H

#include <pthread.h>
#include "gatewayd/sampler.h"
#include "webui/snapshot.h"

struct gw_status {
	pthread_mutex_t lock;
	struct gw_snapshot *cur;
	struct gw_sampler *sampler;
	double start_mono;
	uint64_t samples, late;
	char reload_error[256];	/* "last reload failed: ..." until a reload succeeds */
	char last_sample_error[256];	/* the last pass's problem, logged once */
	struct gw_snap_loadtest loadtest;	/* the running or last load test (loop.c) */
};

int gw_status_init(struct gw_status *st, struct gw_sampler *sampler, double start_mono);
void gw_status_destroy(struct gw_status *st);
/* Take over snap (its one reference) as the newest. */
void gw_status_publish(struct gw_status *st, struct gw_snapshot *snap);
/* A reload rebuilt the tree: the new sampler in, the old one returned for freeing. */
struct gw_sampler *gw_status_swap_sampler(struct gw_status *st, struct gw_sampler *s);

#endif
