/* load/loadtest.h: the active load test: probe the link idle, then saturate it with TCP
 * flows to the configured sink (download, upload, both) while probing, and judge the latency
 * each phase induced. Driven like the prober: one fd, a run function that never blocks. Used
 * by `gatewayd --load-test` and by the daemon (SIGUSR1, the probe block's load_every). */
#ifndef GW_LOADTEST_H
#define GW_LOADTEST_H

#include <stddef.h>
#include "config/config.h"
#include "probe/prober.h"
#include "sys/clock.h"
#include "webui/snapshot.h"

#define GW_LOADTEST_IDLE_S 2.0		/* the idle phase, at least (10 probe intervals) */
#define GW_LOADTEST_GAP_S 1.0		/* between phases: queues drain */
#define GW_LOADTEST_RAMP_S 1.0		/* a phase's start left out (slow start), at most */

struct gw_loadtest;

/* The probe block's sink as the load engine takes it: "IP:PORT" (a gatewayd sink) or
 * "iperf3:IP:PORT" (an iperf3 server). 0 or -EINVAL. */
int gw_loadtest_sink(const char *sink, struct sockaddr_storage *addr, socklen_t *len,
		     bool *iperf3);

/* Start a test now with cfg's probe block (copied: cfg may go after this). -EINVAL with a
 * message when there is no sink (a load test never picks a target by itself), or -errno. */
int gw_loadtest_new(const struct gw_config *cfg, struct gw_loadtest **out, char *err,
		    size_t errlen);
/* The same, with no prober of its own: the caller hands it every probe sample of cfg's probe
 * block through gw_loadtest_sample (the daemon's prober, which keeps running: a test of its
 * own beside it would put twice the probes on the link it measures). */
int gw_loadtest_new_fed(const struct gw_config *cfg, struct gw_loadtest **out, char *err,
			size_t errlen);
/* gw_loadtest_new_fed on clk (NULL: the real clock): its phases, the engine's ticks and the
 * samples' sent_mono all on that clock (a test's, which moves only when the test says). */
int gw_loadtest_new_clock(const struct gw_config *cfg, const struct gw_clock *clk,
			  struct gw_loadtest **out, char *err, size_t errlen);
/* A probe sample for a test made by gw_loadtest_new_fed (ctx: the test); a gw_probe_cb. */
void gw_loadtest_sample(void *ctx, const struct gw_probe_sample *s);
void gw_loadtest_free(struct gw_loadtest *t);	/* stops everything at once */
int gw_loadtest_fd(const struct gw_loadtest *t);
/* Whatever is due. 1 once finished (results final), 0 while running, -errno. */
int gw_loadtest_run(struct gw_loadtest *t);
/* The results so far (running: phases done have their goodput; latency comes at the end). */
void gw_loadtest_result(const struct gw_loadtest *t, struct gw_snap_loadtest *out);
/* Total seconds a test with this config takes, for messages and bounds. */
double gw_loadtest_seconds(const struct gw_config *cfg);

/* `gatewayd -c FILE --load-test`: run one, print a table. Returns the exit status (0 ok,
 * 1 the test failed, 2 no sink configured). */
int gw_loadtest_main(const struct gw_config *cfg);

#endif
