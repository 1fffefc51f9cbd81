/* gatewayd/status.h: the sampling loop's output, handed to the HTTP side: the newest snapshot
 * (swapped under a lock, read with a reference) and the history behind it. */
#ifndef GW_STATUS_H
#define GW_STATUS_H

#include <pthread.h>
#include "gatewayd/cnictr.h"
#include "gatewayd/containers.h"
#include "webui/lastcmp.h"
#include "gatewayd/sampler.h"
#include "webui/snapshot.h"

struct gw_status {
	pthread_mutex_t lock;
	struct gw_snapshot *cur;
	struct gw_sampler *sampler;
	struct gw_ctr *ctr;		/* containers' history comes from here; NULL: none */
	struct gw_cnictr *cni;		/* and registered ("cni:") containers' */
	double start_mono;
	uint64_t samples, late;
	char reload_error[256];	/* "last reload failed: ..." until a reload succeeds */
	char last_sample_error[256];	/* the last pass's problem, logged once */
	struct gw_snap_loadtest loadtest;	/* the running or last load test (loop.c) */
	struct gw_lastcmp lastcmp;	/* the last --compare, in compare_dir (no directory
					 * until gw_lastcmp_set_dir) */
};

int gw_status_init(struct gw_status *st, struct gw_sampler *sampler, double start_mono);
void gw_status_destroy(struct gw_status *st);
/* Take over snap (its one reference) as the newest. */
void gw_status_publish(struct gw_status *st, struct gw_snapshot *snap);
/* A reload rebuilt the tree: the new sampler in, the old one returned for freeing. */
struct gw_sampler *gw_status_swap_sampler(struct gw_status *st, struct gw_sampler *s);
/* The containers followed (their links' history), or NULL before they go. */
void gw_status_set_ctr(struct gw_status *st, struct gw_ctr *ctr);
void gw_status_set_cni(struct gw_status *st, struct gw_cnictr *cni);
/* The source the web UI reads from. */
struct gw_webui_source gw_status_source(struct gw_status *st);

#endif
