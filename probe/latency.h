/* probe/latency.h: probe samples judged against a link direction's load: idle baseline,
 * idle and loaded RTT statistics over a sliding window, induced latency and its grade. Pure
 * arithmetic on the samples it is given (no sockets, no clock): unit-tested on its own. */
#ifndef GW_LATENCY_H
#define GW_LATENCY_H

#include <stdbool.h>
#include "probe/prober.h"
#include "webui/snapshot.h"

/* What the stats sampler saw of a direction in its last pass. */
enum gw_load_state {
	GW_LOAD_UNKNOWN = 0,	/* no pass yet, or between the two bands: counted in neither */
	GW_LOAD_IDLE,		/* utilisation under 10% and no backlog */
	GW_LOAD_LOADED,		/* utilisation over 80% or a standing backlog */
};

/* The band a direction is in, from its total's utilisation and backlog over the last pass. */
enum gw_load_state gw_load_classify(double utilisation, bool backlogged);

struct gw_latency;

/* The probe rate gw_latency_new sizes its ring for (samples per second, all targets). */
#define GW_LATENCY_DEFAULT_RATE 100.0

/* window_s: how far back the percentiles look (samples older fall out). The samples live in a
 * ring of window_s x GW_LATENCY_DEFAULT_RATE entries allocated here; a faster stream only
 * shortens the window (the oldest are overwritten), memory never grows. */
struct gw_latency *gw_latency_new(double window_s);
/* The same, sized for max_rate samples per second. */
struct gw_latency *gw_latency_new_rate(double window_s, double max_rate);
/* Grow the ring for a faster stream (a reload), keeping every sample: 0 or -ENOMEM. */
int gw_latency_reserve(struct gw_latency *l, double max_rate);
/* Target index i now names another host (a reload): its baseline starts again. */
void gw_latency_forget_target(struct gw_latency *l, int target);
/* Drop every sample from the window (the baselines and the histogram stay). */
void gw_latency_clear(struct gw_latency *l);
/* Bytes the accumulator holds, for the docs and tests. */
size_t gw_latency_bytes(const struct gw_latency *l);
void gw_latency_free(struct gw_latency *l);
/* One sample (lost or not) under the given load state. A sample from a target that is down is
 * not given here at all. */
void gw_latency_add(struct gw_latency *l, const struct gw_probe_sample *s, enum gw_load_state st);
/* Statistics as of monotonic time now (samples older than the window dropped first). */
void gw_latency_summary(struct gw_latency *l, double now, struct gw_snap_latency *out);

/* DSLReports' bands on the mean induced latency: "A+" < 5 ms, "A" < 30, "B" < 60, "C" < 200,
 * "D" < 400, else "F"; "" for NAN. */
const char *gw_latency_grade(double induced_mean_ms);

#endif
