/* webui/snapshot.h: what the status page, /api/status and /metrics show, as plain data. The
 * daemon builds one snapshot per sampling interval and never changes it after publishing; the
 * HTTP side only reads it (and drops its reference when done). */
#ifndef GW_WEBUI_SNAPSHOT_H
#define GW_WEBUI_SNAPSHOT_H

#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qdisc/kind.h"

#define GW_SNAP_NAME 32
#define GW_SNAP_XKINDS 16	/* kinds with extended statistics a snapshot can name */

/* A class (an htb leaf, or the one queue of a tbf/cake direction), or a direction's total. */
struct gw_snap_class {
	char name[GW_SNAP_NAME];	/* the config's class name; "total" for the direction */
	char kind[16];			/* qdisc kind of its queue: "fifo", "fq_codel", "cake", or
					 * the shaper's kind for a total */
	/* rates are bytes/s, as planned; the renderers turn them into bits where they print */
	uint64_t rate_in_force_bytes_per_s;	/* the rate in force: the plan's, which autorate
						 * moves (the config's where it does not run) */
	uint64_t ceil_bytes_per_s;	/* the ceil in force (= rate where there is none) */

	/* counters since gatewayd started shaping (wraps and resets already folded in) */
	uint64_t bytes, packets, drops, overlimits, requeues, ecn_marks;
	/* gauges, now */
	uint32_t backlog_bytes, backlog_packets;

	/* derived over the last interval */
	double achieved_bytes_per_s;	/* from the byte counter the shaper charges */
	double utilisation;		/* achieved / rate in force, 0.. */
	bool saturated;			/* the queue stayed backlogged the whole interval */
	double accuracy;		/* achieved / rate in force when saturated, else NAN */
	double queue_delay_ms;		/* backlog / rate; cake: its own average delay */
	double drops_per_s, marks_per_s;

	/* its queue's extended statistics, named by its kind's descriptor (desc NULL: none) */
	struct gw_xstats x;
};

/* RTT statistics of one load state (idle or loaded) over the prober's window. */
struct gw_snap_rtt {
	uint64_t samples, lost;		/* probes judged in this state; lost among them */
	double loss;			/* lost / samples, 0..1; NAN when none */
	double min_ms, p50_ms, p90_ms, p99_ms, mean_ms;	/* NAN when no replies */
	double jitter_ms;		/* mean |IPDV| between consecutive replies; NAN if < 2 */
};

/* Upper bounds (seconds) of the RTT histogram's buckets, for /metrics; +Inf is implied. */
#define GW_SNAP_RTT_BUCKETS 14
#define GW_SNAP_RTT_BOUNDS { 0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, \
			     0.15, 0.2, 0.4, 1.0, 2.0 }

/* Latency of a link, judged against one direction's load. */
struct gw_snap_latency {
	bool present;			/* the prober runs on this link */
	double baseline_ms;		/* idle baseline: rises slowly, falls fast; NAN before one */
	struct gw_snap_rtt idle, loaded;
	double induced_p50_ms, induced_p99_ms, induced_mean_ms;	/* loaded - baseline; NAN */
	char grade[4];			/* "A+" .. "F" on the mean induced latency; "" if none */
	/* the loaded replies judged in this pass alone (what the history keeps); NAN if none */
	double pass_loaded_p50_ms, pass_loaded_p99_ms;
	/* every reply since start, whatever the load, for the histogram */
	uint64_t hist_count;		/* replies */
	double hist_sum_s;
	uint64_t hist_le[GW_SNAP_RTT_BUCKETS];	/* cumulative: replies with rtt <= bound */
};

/* A direction's autorate (gatewayd/autorate.c): the rate it shapes to now and why it moved. */
#define GW_SNAP_AR_REASONS 4	/* the reasons, in this order: */
#define GW_SNAP_AR_REASON_NAMES { "bloat", "load", "idle", "queue" }

struct gw_snap_autorate {
	bool present;			/* autorate runs in this direction */
	uint64_t rate_bytes_per_s;	/* in force now */
	uint64_t min_bytes_per_s, base_bytes_per_s, max_bytes_per_s;
	char state[12];			/* "idle", "steady", "loaded", "bloated", "hold" */
	char last_reason[8];		/* one of the reasons; "" before the first change */
	double last_change_unix;	/* 0 before the first change */
	uint64_t changes[GW_SNAP_AR_REASONS];
	uint64_t refused;		/* changes the kernel refused */
	double threshold_ms;		/* what a sample's delay over baseline is held against */
};

/* A container gatewayd-cni registered (docs/cni.md): who it is. A netns path longer
 * than GW_SNAP_CNI_NETNS - 1 is shown cut. */
#define GW_SNAP_CNI_ID 256
#define GW_SNAP_CNI_NETNS 256
struct gw_snap_cni {
	bool present;			/* false: not a registered container */
	char id[GW_SNAP_CNI_ID];	/* CNI_CONTAINERID */
	char netns[GW_SNAP_CNI_NETNS];	/* CNI_NETNS */
	char network[130];		/* the CNI network's name */
	char ifname[IFNAMSIZ];		/* CNI_IFNAME, inside the container */
};

struct gw_snap_dir {
	char link[GW_SNAP_NAME];	/* the config's link name */
	char interface[IFNAMSIZ];	/* the link's interface */
	char device[IFNAMSIZ];		/* where the shaper sits: the interface, or the ifb */
	char direction[8];		/* "egress" or "ingress" */
	char shaper[8];			/* "htb", "tbf", "cake" */
	uint64_t rate_in_force_bytes_per_s;	/* the shaper's, as the class's above */
	bool waiting;			/* the link's interface is not there: nothing is shaped,
					 * total and classes hold no counters of this pass */
	char foreign_hook[16];		/* ingress: the kind of a hook gatewayd did not create
					 * that keeps this direction unshaped (no counters, as
					 * waiting), "" when none */
	struct gw_snap_class total;	/* the shaper's root qdisc */
	struct gw_snap_class *classes;
	size_t n_classes;
	struct gw_snap_latency latency;
	struct gw_snap_autorate autorate;
	struct gw_snap_cni cni;		/* links "cni:HOSTVETH" only */
};

struct gw_snap_target {
	char host[64];
	bool up;
	uint64_t sent, received, lost, duplicates, reordered;
	double last_rtt_ms;		/* NAN before the first reply */
	double last_reply_unix;		/* 0 before the first reply */
	double last_owd_up_ms, last_owd_down_ms;	/* the last reply's one-way delays; NAN
							 * when none (icmp, no reply yet) */
};

/* One direction of an active load test. */
#define GW_SNAP_LOAD_FLOWS 64		/* per direction: the load engine's bound */

struct gw_snap_load_dir {
	char direction[12];		/* "download", "upload" */
	double goodput_bps;		/* the flows' payload, bits/s, over the loaded part */
	double idle_p50_ms, loaded_p50_ms, loaded_p99_ms;
	double induced_mean_ms, induced_p99_ms;
	char grade[4];
	/* goodput per direction ("both": each share; goodput_bps is their sum); NAN: none */
	double down_bps, up_bps;
	double fairness;		/* Jain's index over the flows (both: the lower of the two) */
	int flows;			/* flows the sink accepted */
	uint64_t loaded_samples, loaded_lost;	/* probes judged loaded in this phase */
	/* each flow's goodput, bits/s, over the same window (none for an iperf3 sink) */
	size_t n_down_flows, n_up_flows;
	double down_flow_bps[GW_SNAP_LOAD_FLOWS], up_flow_bps[GW_SNAP_LOAD_FLOWS];
};

struct gw_snap_loadtest {
	bool present;			/* a test ran or runs */
	bool running;
	double started_unix, finished_unix;	/* finished 0 while running */
	char sink[64];
	char error[128];		/* "" when it went well */
	size_t n_dirs;
	struct gw_snap_load_dir dirs[3];	/* download, upload, both */
	char phase[12];			/* running: "idle", "download", "upload", "both", "gap",
					 * "settle"; "" when finished */
	int flows;			/* configured flows per direction */
	double phase_s;			/* configured seconds per load phase */
};

#define GW_SNAP_MAX_PROBES 64	/* probers a snapshot lists: one per link at most */

struct gw_snap_probe {
	bool enabled;
	char method[16];		/* "icmp", "udp", "icmp-timestamp" */
	char link[GW_SNAP_NAME];
	char source[64];		/* "" or the address probes are sent from */
	int64_t interval_us;
	size_t n_targets;
	struct gw_snap_target targets[16];
};

/* The web process, as the daemon sees it (webui/webchild.c): it fills this in each
 * snapshot it sends. */
struct gw_snap_web {
	bool present;			/* the page is served by a web process */
	int pid;			/* 0: none runs now */
	uint64_t restarts;		/* processes started after the first */
	double down_s;			/* seconds without one, all told */
	uint64_t dropped;		/* snapshots not sent: the process had not read the last */
};

struct gw_snapshot {
	atomic_int refs;
	uint64_t seq;			/* sampling pass number, from 1 */
	double unix_time;		/* when the pass read the kernel */
	double uptime_s;
	int64_t interval_us;
	/* sampling health: how long a pass took and how late it started */
	double sample_ms, sample_lag_ms;
	uint64_t samples_total, late_samples_total;
	char last_error[256];		/* "" when the last pass and the last reload were fine */
	struct gw_snap_dir *dirs;
	size_t n_dirs;
	/* every kind's extended statistics' descriptor, in the registry's order: what the
	 * renderers walk (a class's x.desc is one of them) */
	const struct gw_xstats_desc *xdescs[GW_SNAP_XKINDS];
	size_t n_xdescs;
	struct gw_snap_probe probe;	/* the global probe block's (else the first link's) */
	/* every prober, one per probed link in the links' order, probe's among them; NULL (0)
	 * unless a link has a probe block of its own or a block sets a source, so a config with
	 * one global block renders as it always did */
	struct gw_snap_probe *probes;
	size_t n_probes;
	struct gw_snap_loadtest loadtest;
	struct gw_snap_web web;
};

/* History: per class and direction total, bounded rings fixed at start-up. */
struct gw_hist_point {
	double t;			/* unix time, end of the bucket */
	float rate_bps_min, rate_bps_avg, rate_bps_max;
	float delay_ms_min, delay_ms_avg, delay_ms_max;
	float drops_per_s_avg;
	float backlog_bytes_avg;
	/* direction totals of a probed link only (NAN elsewhere and where none fell) */
	float baseline_ms, loaded_p50_ms, loaded_p99_ms;
	/* autorate: the series keeps the shaper's rate, bits/s (NAN where none fell) */
	bool has_shaper;
	float shaper_bps;
};

/* What the daemon offers the HTTP side. Both calls are safe from any thread. */
struct gw_webui_source {
	void *ctx;
	/* The newest snapshot with a reference taken (NULL before the first pass). */
	struct gw_snapshot *(*get)(void *ctx);
	/* Points of one series between from and to (unix seconds) at resolution "raw" (the
	 * sampling interval, last 15 minutes) or "minute" (last 24 hours), oldest first; at most
	 * max points written; returns the count or -errno (-ENOENT: no such series). class may
	 * be "total" for the direction's total. */
	int (*history)(void *ctx, const char *link, const char *direction, const char *class_name,
		       double from, double to, bool minute, struct gw_hist_point *out, size_t max);
	/* The last `gatewayd --compare` in the daemon's compare_dir. name NULL: a summary of its
	 * results.json as JSON (no samples; webui/status-schema.md); else one plot's file name,
	 * "latency-cdf.svg", "latency-time.svg" or "flows-QDISC.svg". Returns 0 and a malloc'd
	 * *body of *len bytes, or -errno and one line in err: -ENOENT no comparison there (or no
	 * such plot), -EFBIG the file is over its bound, -EBADMSG results.json is malformed,
	 * another -errno it could not be read. NULL when the source has none. */
	int (*compare)(void *ctx, const char *name, char **body, size_t *len, char *err,
		       size_t errlen);
};

void gw_snapshot_put(struct gw_snapshot *s);	/* drop a reference; frees at zero */
/* The newest snapshot, *cur under lock: the producer hands snap (its one reference) over and
 * the one it replaces is put; a reader takes *cur with a reference of its own (or NULL). The
 * lock is held only to swap or copy the pointer: a slow reader never holds up the producer. */
void gw_snapshot_publish(pthread_mutex_t *lock, struct gw_snapshot **cur, struct gw_snapshot *snap);
struct gw_snapshot *gw_snapshot_take(pthread_mutex_t *lock, struct gw_snapshot *const *cur);

#endif
