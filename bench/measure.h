/* bench/measure.h: one run's measuring on the testbed, the loop a queue's run (run.c) and the
 * varying-link scenario (scenario.c) share: the probes, the load, the counters read every
 * tick, until the run's own schedule, given as callbacks, says it is over. */
#ifndef GW_BENCH_MEASURE_H
#define GW_BENCH_MEASURE_H

#include <stdbool.h>
#include <sys/types.h>

struct bench_bed;
struct bench_opts;
struct bench_result;
struct bench_tick;
struct bench_load;
struct gw_nl;
struct gw_prober;
struct bench_measure;

/* What a run does in the loop; arg is the run's own. */
struct bench_measure_ops {
	/* the phase (results.json's samples[].phase) of a probe sent at run time t */
	int (*phase)(void *arg, double t);
	/* a tick's counters into k: the bottleneck's, the gateway's (the loop fills in the time
	 * and the CPU's); not 0: no tick this time (the counters could not be read) */
	int (*sample)(void *arg, struct bench_tick *k);
	/* The run's schedule at run time t, before the tick's counters are read (tick: a tick is
	 * due now) and after (tick: they were read): start and stop the load, move its phases or
	 * steps, print progress. *wake: the next time it must run (the loop wakes at each tick in
	 * any case); *end: when the run ends. 0, or -errno with why in the result's note.
	 * Either may be NULL. */
	int (*before)(void *arg, struct bench_measure *m, double t, bool tick, double *wake,
		      double *end);
	int (*after)(void *arg, struct bench_measure *m, double t, bool tick, double *wake,
		     double *end);
	/* the loop is over (NULL: nothing to do) */
	void (*done)(void *arg, struct bench_measure *m);
};

struct bench_measure {
	/* the caller's */
	struct bench_bed *b;
	const struct bench_opts *o;
	struct bench_result *r;		/* its samples, ticks, flows and note */
	const struct bench_measure_ops *ops;
	void *arg;
	int sigfd;			/* SIGINT, SIGTERM, SIGHUP: -EINTR */
	bool voip;			/* the VoIP-like UDP stream too, to the server's reflector */
	double drain_s;			/* after the loop: the last replies' time to come back */
	bool last_tick;			/* one more tick once they have */
	/* the loop's */
	struct gw_prober *pr[2];
	struct bench_load *ld;
	double t0;			/* the run's t = 0, bench_now()'s */
	double last_rtt;		/* the last ICMP reply's RTT, for progress lines */
};

/* The probers (from the client's namespace) and the load made, half a second of probes first
 * (the path's ARP entries), the loop until the schedule's end, the last replies, the flows'
 * series into the result; everything made here freed again. 0, -EINTR when interrupted, or
 * -errno with why in the result's note. */
int bench_measure_run(struct bench_measure *m);

/* The gateway's daemon: gatewayd -c conf started there (bench_start_gatewayd), and its
 * netlink socket and devices (g1, the ifb) opened in the gateway's namespace. 0, or -errno
 * with why in note (the daemon stopped again). */
int bench_gw_up(struct bench_bed *b, const struct bench_opts *o, const char *conf, const char *log,
		pid_t *pid, struct gw_nl **nl, int ifidx[2], char *note, size_t notelen);
/* Stopped (SIGTERM, reaped) and its socket closed; a daemon that did not stop cleanly is
 * said in note unless failed (the run had failed already). */
void bench_gw_down(pid_t pid, struct gw_nl *nl, const char *log, bool failed, char *note,
		   size_t notelen);

/* SIGINT, SIGTERM or SIGHUP read from the signalfd? */
bool bench_interrupted(int sigfd);

/* The bottleneck's rate each way over the last n ticks (ticks' bytes), bytes/s into out; 0
 * with fewer ticks. */
void bench_tick_rate(const struct bench_result *r, size_t n, double out[2]);
/* Has the load reached the bottleneck since run time since: a quarter of rate[d] (bytes/s)
 * over the last 0.3 s, one way or the other? */
bool bench_load_seen(const struct bench_result *r, const double rate[2], double since);
/* The first tick at or after lo and the last at or before hi (NULL where none). */
void bench_tick_window(const struct bench_result *r, double lo, double hi,
		       const struct bench_tick **a, const struct bench_tick **b);
/* The share of the CPUs busy from tick a to tick b, 0..1; NAN without both or time between. */
double bench_tick_cpu(const struct bench_tick *a, const struct bench_tick *b);

#endif
