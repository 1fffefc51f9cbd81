/* load/loadgen.h: the load generator: N TCP flows per direction to a sink (gatewayd --sink,
 * docs/load-protocol.md, or an iperf3 server), for a bounded time, with every flow's bytes
 * counted at fixed ticks so a caller can compute per-flow throughput and fairness. It is
 * driven like the prober: one fd to watch and a run function that never blocks. */
#ifndef GW_LOADGEN_H
#define GW_LOADGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "load/access.h"
#include "sys/clock.h"

#define GW_LOADGEN_MAX_FLOWS 64		/* per direction */
#define GW_LOADGEN_MIN_DURATION_S 0.5
#define GW_LOADGEN_MAX_DURATION_S 300.0
#define GW_LOADGEN_CONNECT_S 3.0	/* a flow the sink has not accepted by then has failed */

enum gw_load_phase { GW_PHASE_DOWNLOAD = 0, GW_PHASE_UPLOAD = 1, GW_PHASE_BOTH = 2 };
enum gw_flow_dir { GW_FLOW_DOWN = 0, GW_FLOW_UP = 1 };

struct gw_loadgen_opts {
	struct sockaddr_storage sink;	/* the sink's address and port */
	socklen_t sinklen;
	bool iperf3;			/* the sink is an iperf3 server: run iperf3 clients */
	enum gw_load_phase phase;
	int flows;			/* per direction, 1..GW_LOADGEN_MAX_FLOWS */
	double duration_s;		/* GW_LOADGEN_MIN_DURATION_S..GW_LOADGEN_MAX_DURATION_S */
	double ramp_s;			/* goodput is counted from here (slow start left out) */
	double tick_s;			/* byte counts every tick; 0: 0.1 s (iperf3: 0.5 s) */
	const char *ifname;		/* flows leave through this interface (NULL: routing) */
	int64_t fwmark;			/* < 0: none (native flows only; iperf3 has no such knob) */
	/* the sink's token (printable, zero-padded; all zero: none): sent in a version 2
	 * header; without one, version 1's (a sink that serves by address, or on loopback) */
	uint8_t token[GW_LOAD_TOKEN_MAX];
	int rcvlowat;			/* download flows wake us at this many bytes (SO_RCVLOWAT;
					 * 0: every segment). Counts come from the kernel's
					 * TCP_INFO either way, so ticks stay exact. */
	const struct gw_clock *clock;	/* the ticks' and the duration's; NULL: the real one */
};

struct gw_loadgen_flow {
	enum gw_flow_dir dir;
	bool accepted;			/* the sink took it (its reply, or iperf3's report) */
	char error[80];			/* why it failed; "" otherwise */
	uint64_t bytes;			/* payload so far: received, or acknowledged by the sink */
	uint16_t local_port;		/* this end's port once connecting (native flows) */
};

struct gw_loadgen;

/* Start the flows (or the iperf3 client) now. Returns 0 or -errno with a message in err. */
int gw_loadgen_new(const struct gw_loadgen_opts *o, struct gw_loadgen **out, char *err,
		   size_t errlen);
/* An iperf3 run of o (o->iperf3 taken as set) that has ended with text (len bytes, no NUL
 * needed) as the client's JSON report, read as a run reads it: what the accessors below and
 * gw_loadgen_error then say is what that report gives. For tests and the fuzzer; nothing is
 * started. Returns 0 or -errno (o refused, no memory) with a message in err. */
int gw_loadgen_iperf3_report(const struct gw_loadgen_opts *o, const char *text, size_t len,
			     struct gw_loadgen **out, char *err, size_t errlen);
/* Closes every flow at once (an RST: nothing queued outlives it) and kills an iperf3 client. */
void gw_loadgen_free(struct gw_loadgen *g);
int gw_loadgen_fd(const struct gw_loadgen *g);
/* End the run now, before its duration: a last tick, then every flow closed as at its end
 * (an iperf3 client is killed: its report is lost). */
void gw_loadgen_stop(struct gw_loadgen *g);
/* Move data, count ticks, end at the duration. 1 once finished, 0 while running, -errno. */
int gw_loadgen_run(struct gw_loadgen *g);
bool gw_loadgen_done(const struct gw_loadgen *g);
/* "" or why the whole run failed (no flow accepted, iperf3 said so...). */
const char *gw_loadgen_error(const struct gw_loadgen *g);

size_t gw_loadgen_n_flows(const struct gw_loadgen *g);
const struct gw_loadgen_flow *gw_loadgen_flow(const struct gw_loadgen *g, size_t i);
/* Flow i's smoothed RTT and its variation (us) as this end's kernel has them now: an upload's
 * are its sender's. 0, -ENOENT (no such flow, or not moving data: connecting, ended, an iperf3
 * run's) or -EAGAIN (no RTT sample yet). */
int gw_loadgen_flow_rtt(const struct gw_loadgen *g, size_t i, uint32_t *rtt_us,
			uint32_t *rttvar_us);
/* The byte-count series: tick k at time gw_loadgen_tick_time (seconds since the start), each
 * flow's cumulative bytes then. */
size_t gw_loadgen_n_ticks(const struct gw_loadgen *g);
double gw_loadgen_tick_time(const struct gw_loadgen *g, size_t k);
uint64_t gw_loadgen_tick_bytes(const struct gw_loadgen *g, size_t flow, size_t k);

/* A direction's goodput (payload bits/s summed over its flows, from ramp_s to the end), and
 * Jain's fairness index over its flows' throughputs in that window (1 = equal shares).
 * Returns 0, or -ENOENT when the phase had no such direction or no data. */
int gw_loadgen_goodput(const struct gw_loadgen *g, enum gw_flow_dir dir, double *bps,
		       double *fairness);

/* Each of dir's flows' throughput over the same window (bits/s, in flow order) into bps, at
 * most max; the count. 0 for an iperf3 run (its report has the sums only) or no window. */
size_t gw_loadgen_flow_rates(const struct gw_loadgen *g, enum gw_flow_dir dir, double *bps,
			     size_t max);

/* Jain's index (sum x)^2 / (n sum x^2) of n values; NAN for n = 0 or all zero. */
double gw_jain_index(const double *x, size_t n);

const char *gw_load_phase_name(enum gw_load_phase p);

#endif
