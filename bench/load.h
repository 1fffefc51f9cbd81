/* bench/load.h: the load, generated in this process (load.c). */
#ifndef GW_BENCH_LOAD_H
#define GW_BENCH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include "bench/options.h"

struct bench_bed;
struct bench_result;
/* The load (TCP flows both ways, the UDP flood); t0: the run's clock (bench_now() - t0). */
struct bench_load;
int bench_load_new(const struct bench_bed *b, double t0, struct bench_load **out, char *err,
		   size_t errlen);
void bench_load_free(struct bench_load *l);
/* The profile's TCP flows (flows each way it loads) from the client to the server's sink, for
 * secs. */
int bench_load_start_tcp(struct bench_load *l, const struct bench_bed *b,
			 enum bench_profile profile, int flows, double secs, char *err,
			 size_t errlen);
/* The TCP flows end now (an RST each: nothing of theirs stays queued). */
void bench_load_stop_tcp(struct bench_load *l);
/* A UDP flood from the client to the server at rate bytes/s on the wire, for secs. */
void bench_load_start_flood(struct bench_load *l, double rate, double secs);
/* The fds to wait on (up to BENCH_LOAD_FDS). */
#define BENCH_LOAD_FDS 3
int bench_load_fds(const struct bench_load *l, int fds[BENCH_LOAD_FDS]);
/* Move what is ready, send the flood's due datagrams; tick: count what arrived. Returns the
 * run time of the next send due (INFINITY: none). */
double bench_load_run(struct bench_load *l, bool tick);
/* "" or why a flow failed. */
const char *bench_load_error(const struct bench_load *l);
/* The flows' series into r->flows (appended). 0 or -ENOMEM. */
int bench_load_flows(const struct bench_load *l, struct bench_result *r);

#endif
