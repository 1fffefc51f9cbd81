/* bench/load.h: the load, generated in this process (load.c). */
#ifndef GW_BENCH_LOAD_H
#define GW_BENCH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include "bench/options.h"

struct cmp_bed;
struct cmp_result;
/* The load (TCP flows both ways, the UDP flood); t0: the run's clock (cmp_now() - t0). */
struct cmp_load;
int cmp_load_new(const struct cmp_bed *b, double t0, struct cmp_load **out, char *err,
		 size_t errlen);
void cmp_load_free(struct cmp_load *l);
/* The profile's TCP flows (flows each way it loads) from the client to the server's sink, for
 * secs. */
int cmp_load_start_tcp(struct cmp_load *l, const struct cmp_bed *b, enum cmp_profile profile,
		       int flows, double secs, char *err, size_t errlen);
/* The TCP flows end now (an RST each: nothing of theirs stays queued). */
void cmp_load_stop_tcp(struct cmp_load *l);
/* A UDP flood from the client to the server at rate bytes/s on the wire, for secs. */
void cmp_load_start_flood(struct cmp_load *l, double rate, double secs);
/* The fds to wait on (up to CMP_LOAD_FDS). */
#define CMP_LOAD_FDS 3
int cmp_load_fds(const struct cmp_load *l, int fds[CMP_LOAD_FDS]);
/* Move what is ready, send the flood's due datagrams; tick: count what arrived. Returns the
 * run time of the next send due (INFINITY: none). */
double cmp_load_run(struct cmp_load *l, bool tick);
/* "" or why a flow failed. */
const char *cmp_load_error(const struct cmp_load *l);
/* The flows' series into r->flows (appended). 0 or -ENOMEM. */
int cmp_load_flows(const struct cmp_load *l, struct cmp_result *r);

#endif
