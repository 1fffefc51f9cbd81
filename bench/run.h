/* bench/run.h: one queue's run (run.c): what it measured, raw, and the figures derived
 * from it. */
#ifndef GW_BENCH_RUN_H
#define GW_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "webui/benchfile.h"

#define BENCH_MAX_FLOWS (2 * BENCH_TCP_FLOWS_MAX + 1)	/* + the UDP flood */

#define BENCH_PROBE_HZ 20
/* the UDP probes are a VoIP-like stream: a G.711 packet every 20 ms (160 bytes of voice and a
 * 12-byte RTP header), isochronous, judged by its own delay, jitter and loss */
#define BENCH_VOIP_HZ 50
#define BENCH_VOIP_PAYLOAD 172
#define BENCH_TICK_S 0.1		/* queue and counter sampling */
#define BENCH_FLOOD_FACTOR 1.25	/* the UDP flood's rate, against the shaped rate */
/* slow start (and, at a few mbit, the first queue filling) is left out of goodput, accuracy
 * and fairness: GW_BENCH_RAMP_SHARE of the TCP phase, at least GW_BENCH_RAMP_S (stats.c, and
 * the saved runs' reader, webui/benchfile.c) */
#define BENCH_CPU_SATURATED 0.95	/* busier than this under load: the figures are the CPU's */

enum bench_phase { BENCH_PH_IDLE1, BENCH_PH_TCP, BENCH_PH_FLOOD, BENCH_PH_IDLE2, BENCH_PH_COUNT };
const char *bench_phase_name(enum bench_phase p);

struct bench_sample {
	float t;			/* seconds since the run started */
	float rtt_ms;			/* NAN when lost */
	uint8_t phase;
};

/* A UDP probe through the reflector the bench runs in the server (gatewayd --reflect): its
 * round trip and the one-way delays the reflector's stamps give, each NAN when lost. The
 * namespaces share the machine's clock, so the one-way delays are absolute here. */
enum { BENCH_UDP_RTT, BENCH_UDP_UP, BENCH_UDP_DOWN, BENCH_UDP_N };
#define BENCH_REFLECT_PORT 2112
struct bench_usample {
	float t;			/* sent, seconds since the run started */
	float ms[BENCH_UDP_N];
	uint8_t phase;
};

/* One tick (BENCH_TICK_S) of the bottleneck's counters (measure.c): a queue's run reads the
 * gateway's shaper and queue; the varying-link scenario the delay box's bottleneck, its
 * capacity, and the gateway's shaper rate. [0] up (the gateway's egress), [1] down (its ifb). */
struct bench_tick {
	float t;			/* run time */
	uint64_t bytes[2];		/* sent by the bottleneck */
	uint32_t backlog_bytes[2];	/* bytes in its queue */
	uint32_t qlen[2];		/* packets in it (a queue's run) */
	uint64_t shaper[2];		/* the scenario: the gateway's shaper rate, bytes/s; 0: none */
	uint64_t cap[2];		/* the scenario: the box's capacity now, bytes/s */
	uint64_t cpu_busy, cpu_total;	/* /proc/stat's first line, in ticks */
};

struct bench_flow {
	char name[16];			/* "up1".."up4", "down1".."down4", "udp" */
	bool up;
	bool udp;
	int family;			/* 4 or 6: the IP version it ran over */
	double *rate;			/* per interval, bytes/s: received, or acknowledged by the
					 * receiver (TCP); counted at the server (the flood) */
	double *t;			/* interval end, seconds since the run started */
	double *secs;			/* interval length */
	size_t n;
	double mean;			/* bytes/s, over the TCP window (after the first second) */
	/* TCP: the sender's smoothed RTT and its variation (tcpi_rtt, tcpi_rttvar), read by the
	 * flow's sender every tick (the client for an upload, the sink for a download): what
	 * queueing the bulk flow itself sees, beside what the sparse probes see */
	double *rtt_t;			/* when read, seconds since the run started */
	double *rtt_ms, *rttvar_ms;
	size_t n_rtt;
};

/* One qdisc or class of the gateway's tree as the kernel reports it (read back once a run,
 * after gatewayd applied it): what results.json's `qdiscs` and the flent file's EGRESS_INFO
 * and INGRESS_INFO say. */
#define BENCH_MAX_TC 40	/* a few classes each way */
struct bench_tc {
	bool cls;			/* an htb class, else a qdisc */
	bool down;			/* on the ifb (ingress), else on the WAN side */
	char kind[16];			/* tc's name: "htb", "fq_codel", "pfifo" */
	uint32_t handle, parent;
	char opts[256];			/* tc's words for its parameters */
	char line[384];			/* the whole `tc qdisc add ...` that re-creates it */
};

/* The bulk TCP flows' own RTT, one direction, over the loaded window (bench_derive). */
struct bench_tcprtt {
	struct bench_pct rtt;		/* every flow's every tick together (lost: 0) */
	double induced_p50, induced_p95, induced_p99, induced_mean;	/* less the baseline */
	double rttvar_mean;		/* ms */
	size_t flows;			/* the flows with a sample in the window */
};

struct bench_result {
	enum bench_qdisc q;
	char label[GW_BENCH_LABEL_MAX];	/* the queue with its knobs ("" : the queue's name) */
	char knobs[BENCH_KNOBS_MAX];	/* its bench_pick's */
	int repeat;			/* which repetition, 0-based (--repeat) */
	int queue;			/* its place in --qdiscs, 0-based */
	bool ran;
	bool own;			/* the config's own link (-c), not the bench's tree */
	char note[256];			/* why skipped, or what went wrong */
	double phase_start[BENCH_PH_COUNT + 1];	/* seconds since the run's start */
	double setup_s, total_s;		/* set-up before the first phase; the whole run */
	double clients_started;			/* when the TCP flows were started; the idle
						 * figures count only probes sent before */
	double t0_unix;				/* the run's t = 0, wall clock (for flent) */
	struct bench_tc tc[BENCH_MAX_TC];		/* the gateway's tree, read back */
	size_t n_tc;

	struct bench_sample *samples;
	size_t n_samples, cap_samples;
	struct bench_usample *usamples;
	size_t n_usamples, cap_usamples;
	struct bench_tick *ticks;
	size_t n_ticks, cap_ticks;
	struct bench_flow flows[BENCH_MAX_FLOWS];
	size_t n_flows;

	/* derived */
	double goodput[2];		/* TCP goodput, bytes/s, receiver side, over the TCP window */
	double accuracy[2];		/* shaper's bytes / configured rate over the TCP window */
	struct bench_pct idle, loaded;
	double baseline_ms;		/* idle p50 before the load */
	/* the UDP probes' round trip, one way up, one way down: as the ICMP figures are */
	struct bench_lat {
		struct bench_pct idle, loaded;
		double baseline_ms, induced_p50, induced_p95, induced_p99, induced_mean;
		/* under load: the mean |D| of consecutive replies' delays (D as RFC 3550's
		 * interarrival jitter takes it; its running estimate tends to this mean) */
		double jitter_ms;
	} udp[BENCH_UDP_N];
	double induced_p50, induced_p95, induced_p99, induced_mean;
	const char *grade;
	uint64_t drops[2], marks[2];
	uint32_t peak_pkts[2];
	double peak_ms[2];
	/* a queue that reports each of its tins' delay (cake): per direction, over the load
	 * phases, the most its peak delay read and the mean of its average delay, sampled every
	 * tick; n_tins[d] 0 for any other queue */
#define BENCH_MAX_TINS 8
	int n_tins[2];
	struct bench_tin {
		char name[16];			/* "Best effort"; "tin 5" where cake names none */
		double peak_ms, avg_ms;
		double avg_sum_ms;		/* (the mean's sum and count) */
		size_t n;
	} tins[2][BENCH_MAX_TINS];
	double jain;
	double cpu_busy;		/* share of the CPUs busy over the TCP window, 0..1 */
	struct bench_tcprtt tcp_rtt[2];	/* [0] the uploads, [1] the downloads */
	double tcp_rtt_window[2];	/* its window: the goodput's start to idle2's */
};

struct bench_bed;
/* One queue's run. Returns 0, -EINTR when interrupted, or -errno. */
int bench_run_one(struct bench_bed *b, const struct bench_opts *o, struct bench_result *r,
		  int sigfd);
void bench_result_free(struct bench_result *r);
/* gatewayd -c conf in the gateway, once it logged that its tree is applied and verified: its
 * pid, or -errno with why in note. */
pid_t bench_start_gatewayd(struct bench_bed *b, const struct bench_opts *o, const char *conf,
			   const char *log, char *note, size_t notelen);

#endif
