/* bench/bench.h: what the comparison bench's files share (compare*.c, svg.c): the
 * options, the testbed, one run's raw samples and its derived figures. Not a public API. */
#ifndef GW_COMPARE_INT_H
#define GW_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "bench/percentile.h"

#define CMP_MAX_QDISCS 8
#define CMP_TCP_FLOWS 4		/* per direction, by default (--flows) */
#define CMP_TCP_FLOWS_MAX 8
#define CMP_MAX_FLOWS (2 * CMP_TCP_FLOWS_MAX + 1)	/* + the UDP flood */

/* --profile: which load the TCP and flood phases carry. rrul (the default, flent's rrul_be):
 * TCP both ways, then a UDP flood on top; bidir: TCP both ways, no flood; upload, download:
 * TCP one way, no flood. The VoIP-like stream and the probes run in every one. */
enum cmp_profile { CMP_PROF_RRUL, CMP_PROF_BIDIR, CMP_PROF_UPLOAD, CMP_PROF_DOWNLOAD,
		   CMP_PROF_COUNT };
const char *cmp_profile_name(enum cmp_profile p);
/* TCP flows the profile sends that way (0 up, 1 down), with --flows n (0: the default) */
static inline int cmp_profile_flows(enum cmp_profile p, int n, int d)
{
	n = n > 0 ? n : CMP_TCP_FLOWS;
	return p == CMP_PROF_UPLOAD ? (d ? 0 : n) : p == CMP_PROF_DOWNLOAD ? (d ? n : 0) : n;
}
#define CMP_PROBE_HZ 20
/* the UDP probes are a VoIP-like stream: a G.711 packet every 20 ms (160 bytes of voice and a
 * 12-byte RTP header), isochronous, judged by its own delay, jitter and loss */
#define CMP_VOIP_HZ 50
#define CMP_VOIP_PAYLOAD 172
#define CMP_TICK_S 0.1		/* queue and counter sampling */
#define CMP_FLOOD_FACTOR 1.25	/* the UDP flood's rate, against the shaped rate */
/* slow start (and, at a few mbit, the first queue filling): left out of goodput, accuracy
 * and fairness: the first 40% of the TCP phase, at least a second (stats.c; the saved runs'
 * reader, rdresults.c, takes the same window) */
#define CMP_RAMP_S 1.0
#define CMP_RAMP_SHARE 0.4
#define CMP_CPU_SATURATED 0.95	/* busier than this under load: the figures are the CPU's */

enum cmp_kernel { CMP_KERNEL_AUTO, CMP_KERNEL_HOST, CMP_KERNEL_UML };

/* --scenario variable (scenario.c): the delay box's bottleneck changes capacity in steps,
 * and the gateway is run three ways: gatewayd with autorate, at a fixed rate, not at all. */
#define CMP_MAX_STEPS 8
enum cmp_way { CMP_WAY_AUTORATE, CMP_WAY_FIXED, CMP_WAY_NONE, CMP_WAY_COUNT };

struct cmp_scenario {
	bool on;
	uint64_t cap[CMP_MAX_STEPS][2];	/* the box's capacity per step, bytes/s: [0] up */
	size_t n_steps;
	double step_s;			/* each step's length */
	enum cmp_way ways[CMP_WAY_COUNT];
	size_t n_ways;
	/* autorate's, derived from the steps (cmp_sc_defaults), bytes/s */
	uint64_t min[2], base[2], max[2];
	char ar_keys[256];		/* --autorate: more keys for the autorate blocks */
	char probe_method[16];		/* --probe-method: the gateway's probes (icmp, udp, ...) */
};

/* The qdiscs a run can compare: every leaf kind the registry has, as a child under gatewayd's
 * htb, then every kind that shapes by itself, as the root ("cake-shaper"). A queue is its
 * index in that list (cmp_queue()). */
enum cmp_qdisc { CMP_Q_COUNT = 16 };

struct gw_qdisc_ops;
struct cmp_queue {
	char name[24];			/* "fq_codel", "cake-shaper" */
	const struct gw_qdisc_ops *ops;	/* the child's kind, or the shaper's */
	bool shaper;			/* it shapes by itself, at the root */
};
/* The q-th queue, NULL past the last. */
const struct cmp_queue *cmp_queue(enum cmp_qdisc q);

/* One queue of --qdiscs as given: its kind, its knobs (qspec.c). */
#define CMP_LABEL_MAX 96
#define CMP_KNOBS_MAX 320
#define CMP_QDISCS_TEXT_MAX 1024	/* --qdiscs' whole text */
struct cmp_pick {
	enum cmp_qdisc q;
	char label[CMP_LABEL_MAX];	/* "fq_codel:target=2ms:quantum=300": its column */
	char knobs[CMP_KNOBS_MAX];	/* the child block's keys, libconfig text: `target =
					 * "2ms"; quantum = 300L;` ("" for none) */
	/* -c CONFIG (owntree.c): the run is the config's own link, as written or with q in
	 * every leaf; conf is the daemon's whole config (malloc'd). NULL: the bench's tree */
	bool own;
	char *conf;
	uint32_t needs;			/* the queues (bits by enum cmp_qdisc) whose kinds the
					 * run's tree needs; 0: q's alone */
};

enum cmp_phase { CMP_PH_IDLE1, CMP_PH_TCP, CMP_PH_FLOOD, CMP_PH_IDLE2, CMP_PH_COUNT };

struct cmp_opts {
	char rate_text[32];		/* --rate as given: "20mbit", "40mbit/10mbit" */
	uint64_t rate[2];		/* bytes/s per direction, as the config's: [0] up, [1] down */
	char dir_text[2][32];		/* each direction's rate as the config takes it */
	int64_t rtt_us;			/* base RTT the delay box adds (half each way) */
	double duration_s;		/* one qdisc's whole run, all four phases */
	enum cmp_qdisc qdiscs[CMP_MAX_QDISCS];
	size_t n_qdiscs;
	struct cmp_pick pick[CMP_MAX_QDISCS];	/* qdiscs[i] with its knobs: pick[i] */
	char out[4096];			/* "" = no files */
	char config[4096];		/* -c: the config whose link is benched (not with
					 * --scenario), and whose compare_dir is the default out */
	char own_link[32];		/* --link: which of its links (GW_NAME_MAX) */
	bool own;			/* its link is benched (owntree.c) */
	bool own_autorate;		/* the link had autorate, which the bench leaves out */
	bool own_nft;			/* it classifies with nftables (match rules, hosts) */
	char user_qdiscs[CMP_QDISCS_TEXT_MAX];	/* --qdiscs as given ("" when not), which a
						 * UML guest reads again */
	enum cmp_kernel kernel;
	bool in_uml;			/* we are the guest side of --kernel uml */
	bool no_delay;			/* the kernel has no netem: no added RTT */
	bool have[CMP_Q_COUNT];		/* which qdiscs this kernel can build */
	char self[4096];		/* this binary, gatewayd-bench (a UML guest runs it again) */
	char gatewayd[4096];		/* the daemon it starts: beside it (cmp_find_gatewayd) */
	int repeat;			/* --repeat: every queue this many times, interleaved */
	enum cmp_profile profile;	/* --profile */
	int flows;			/* --flows: TCP flows per direction the profile loads */
	int family;			/* --family: 4 (default), 6, or 46 (both at once) */
	struct cmp_scenario sc;
};

/* Direction d's rate (0 up, 1 down), bytes/s. */
static inline double cmp_dir_rate(const struct cmp_opts *o, int d)
{
	return (double)o->rate[d];
}

static inline bool cmp_asymmetric(const struct cmp_opts *o)
{
	return o->rate[0] != o->rate[1];
}

/* The four namespaces and their addresses. */
struct cmp_bed {
	char ns[4][32];			/* client, gateway, delay, server */
	bool made[4];
	int fd[4];			/* open netns fds, -1 when not */
	int home;			/* the netns we started in */
	int family;			/* AF_INET, or AF_INET6 (--family 6): the load's, the
					 * probes' and the flood's addresses */
	bool dual;			/* --family 46: both paths, the TCP flows half over each
					 * (family AF_INET: the flood, the ICMP probes), the VoIP
					 * stream over IPv6 */
	char tmp[256];			/* scratch dir: configs, logs */
};
enum { CMP_NS_CLIENT, CMP_NS_GW, CMP_NS_DELAY, CMP_NS_SERVER };

#define CMP_IP_CLIENT "10.77.1.2"
#define CMP_IP_SERVER "10.77.3.2"
#define CMP_IP6_SERVER "fd77:3::2"	/* --family 6 (a ULA of the bench's own) */
/* The server's address in the bed's family, as text, or with port as a sockaddr (its length
 * returned). */
const char *cmp_server_ip(const struct cmp_bed *b);
socklen_t cmp_server_addr(const struct cmp_bed *b, int port, struct sockaddr_storage *ss);
/* The same in a family of its own (AF_INET, AF_INET6). */
socklen_t cmp_server_addr_in(int family, int port, struct sockaddr_storage *ss);
#define CMP_GW_WAN "g1"		/* the gateway's side towards the delay box and server */
#define CMP_GW_IFB "ifb-cmp"

struct cmp_sample {
	float t;			/* seconds since the run started */
	float rtt_ms;			/* NAN when lost */
	uint8_t phase;
};

/* A UDP probe through the reflector the bench runs in the server (gatewayd --reflect): its
 * round trip and the one-way delays the reflector's stamps give, each NAN when lost. The
 * namespaces share the machine's clock, so the one-way delays are absolute here. */
enum { CMP_UDP_RTT, CMP_UDP_UP, CMP_UDP_DOWN, CMP_UDP_N };
#define CMP_REFLECT_PORT 2112
struct cmp_usample {
	float t;			/* sent, seconds since the run started */
	float ms[CMP_UDP_N];
	uint8_t phase;
};

/* One tick (CMP_TICK_S) of the bottleneck's counters (measure.c): a queue's run reads the
 * gateway's shaper and queue; the varying-link scenario the delay box's bottleneck, its
 * capacity, and the gateway's shaper rate. [0] up (the gateway's egress), [1] down (its ifb). */
struct cmp_tick {
	float t;			/* run time */
	uint64_t bytes[2];		/* sent by the bottleneck */
	uint32_t backlog_bytes[2];	/* bytes in its queue */
	uint32_t qlen[2];		/* packets in it (a queue's run) */
	uint64_t shaper[2];		/* the scenario: the gateway's shaper rate, bytes/s; 0: none */
	uint64_t cap[2];		/* the scenario: the box's capacity now, bytes/s */
	uint64_t cpu_busy, cpu_total;	/* /proc/stat's first line, in ticks */
};

struct cmp_flow {
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
#define CMP_MAX_TC 40	/* a few classes each way */
struct cmp_tc {
	bool cls;			/* an htb class, else a qdisc */
	bool down;			/* on the ifb (ingress), else on the WAN side */
	char kind[16];			/* tc's name: "htb", "fq_codel", "pfifo" */
	uint32_t handle, parent;
	char opts[256];			/* tc's words for its parameters */
	char line[384];			/* the whole `tc qdisc add ...` that re-creates it */
};

/* The testbed's settings that the figures depend on, read once (sysinfo.c): what flent
 * records as SYSCTLS and offloads, for results.json's `metadata` and the flent files. */
#define CMP_MAX_SYSCTL 16
#define CMP_MAX_IFS 5
struct cmp_sysinfo {
	char hostname[65], kernel_name[65], kernel_release[65];
	struct cmp_sysctl {
		const char *name;	/* "net.ipv4.tcp_ecn" */
		char client[64], server[64];	/* "" when the namespace has none */
	} sysctl[CMP_MAX_SYSCTL];
	size_t n_sysctl;
	struct cmp_ifinfo {
		const char *ns, *name;	/* "gateway", "g1" */
		int tso, gso, gro, lro;	/* 1 on, 0 off, -1 unknown */
	} ifs[CMP_MAX_IFS];
	size_t n_ifs;
};

/* The bulk TCP flows' own RTT, one direction, over the loaded window (cmp_derive). */
struct cmp_tcprtt {
	struct cmp_pct rtt;		/* every flow's every tick together (lost: 0) */
	double induced_p50, induced_p95, induced_p99, induced_mean;	/* less the baseline */
	double rttvar_mean;		/* ms */
	size_t flows;			/* the flows with a sample in the window */
};

struct cmp_result {
	enum cmp_qdisc q;
	char label[CMP_LABEL_MAX];	/* the queue with its knobs ("" : the queue's name) */
	char knobs[CMP_KNOBS_MAX];	/* its cmp_pick's */
	int repeat;			/* which repetition, 0-based (--repeat) */
	int queue;			/* its place in --qdiscs, 0-based */
	bool ran;
	bool own;			/* the config's own link (-c), not the bench's tree */
	char note[256];			/* why skipped, or what went wrong */
	double phase_start[CMP_PH_COUNT + 1];	/* seconds since the run's start */
	double setup_s, total_s;		/* set-up before the first phase; the whole run */
	double clients_started;			/* when the TCP flows were started; the idle
						 * figures count only probes sent before */
	double t0_unix;				/* the run's t = 0, wall clock (for flent) */
	struct cmp_tc tc[CMP_MAX_TC];		/* the gateway's tree, read back */
	size_t n_tc;

	struct cmp_sample *samples;
	size_t n_samples, cap_samples;
	struct cmp_usample *usamples;
	size_t n_usamples, cap_usamples;
	struct cmp_tick *ticks;
	size_t n_ticks, cap_ticks;
	struct cmp_flow flows[CMP_MAX_FLOWS];
	size_t n_flows;

	/* derived */
	double goodput[2];		/* TCP goodput, bytes/s, receiver side, over the TCP window */
	double accuracy[2];		/* shaper's bytes / configured rate over the TCP window */
	struct cmp_pct idle, loaded;
	double baseline_ms;		/* idle p50 before the load */
	/* the UDP probes' round trip, one way up, one way down: as the ICMP figures are */
	struct cmp_lat {
		struct cmp_pct idle, loaded;
		double baseline_ms, induced_p50, induced_p95, induced_p99, induced_mean;
		/* under load: the mean |D| of consecutive replies' delays (D as RFC 3550's
		 * interarrival jitter takes it; its running estimate tends to this mean) */
		double jitter_ms;
	} udp[CMP_UDP_N];
	double induced_p50, induced_p95, induced_p99, induced_mean;
	const char *grade;
	uint64_t drops[2], marks[2];
	uint32_t peak_pkts[2];
	double peak_ms[2];
	/* a queue that reports each of its tins' delay (cake): per direction, over the load
	 * phases, the most its peak delay read and the mean of its average delay, sampled every
	 * tick; n_tins[d] 0 for any other queue */
#define CMP_MAX_TINS 8
	int n_tins[2];
	struct cmp_tin {
		char name[16];			/* "Best effort"; "tin 5" where cake names none */
		double peak_ms, avg_ms;
		double avg_sum_ms;		/* (the mean's sum and count) */
		size_t n;
	} tins[2][CMP_MAX_TINS];
	double jain;
	double cpu_busy;		/* share of the CPUs busy over the TCP window, 0..1 */
	struct cmp_tcprtt tcp_rtt[2];	/* [0] the uploads, [1] the downloads */
	double tcp_rtt_window[2];	/* its window: the goodput's start to idle2's */
};

/* options.c: the command line into o (its defaults first): 0; 1 for --help (printed); or
 * -EINVAL with why on stderr. cmp_usage: what it takes. */
int cmp_parse_opts(int argc, char **argv, struct cmp_opts *o);
#include <stdio.h>
void cmp_usage(FILE *f);

/* compare.c */
const char *cmp_qdisc_name(enum cmp_qdisc q);
const char *cmp_phase_name(enum cmp_phase p);

/* qspec.c: --qdiscs: queues (at most max) with their knobs, `fq_codel:target=2ms:quantum=300`
 * (a KEY=VALUE after a comma is one more knob of the queue before it), each checked both ways
 * by the config's child parser. 0, or -EINVAL with the message in err. */
int cmp_parse_qdiscs(const char *list, struct cmp_pick *out, size_t max, size_t *n, char *err,
		     size_t errlen);
/* --rate: "20mbit" (both ways) or "40mbit/10mbit" (down/up), 100kbit..1gbit each: bytes/s
 * into rate ([0] up, [1] down), each one's text into text. 0 or -EINVAL. */
int cmp_parse_rates(const char *s, uint64_t rate[2], char text[2][32]);
/* owntree.c: -c CONFIG: o->pick becomes the dumb fifo at the config's link's rates, the link
 * as written, and the link with each of user's queues in every leaf; o's rates become the
 * link's. 0, or -EINVAL with "FILE:LINE: ..." in err. cmp_own_free frees the picks' configs. */
int cmp_own_setup(struct cmp_opts *o, const struct cmp_pick *user, size_t n_user, char *err,
		  size_t errlen);
void cmp_own_free(struct cmp_opts *o);
/* The child block's settings of queue x with the user's knobs, and the kind's bench settings
 * the knobs do not override (on the ifb, its ingress ones too): `kind = "fifo"; limit = 1000;` */
void cmp_child_text(const struct cmp_queue *x, const char *knobs, bool ingress, char *buf,
		    size_t len);
/* A run's column: its label, or its queue's name. */
const char *cmp_result_label(const struct cmp_result *r);
/* The label as a file name part: fq_codel:target=2ms is "fq_codel_target-2ms". */
void cmp_label_file(const struct cmp_result *r, char *buf, size_t len);

/* compare_bed.c: namespaces, spawning inside them, cleanup */
int cmp_bed_up(struct cmp_bed *b, const struct cmp_opts *o, char *err, size_t errlen);
void cmp_bed_down(struct cmp_bed *b);
/* Run argv in namespace ns (-1: ours), stdout/stderr to outfile (NULL: /dev/null). The child
 * dies with us (PDEATHSIG). Returns its pid or -errno. */
pid_t cmp_spawn(const struct cmp_bed *b, int ns, char *const argv[], const char *outfile);
/* SIGTERM every child still running, SIGKILL what is left a second later. */
void cmp_kill_all(void);
/* Wait for pid at most timeout_s; then SIGTERM, and SIGKILL a second later. Exit status or
 * -ETIMEDOUT when it had to be killed. */
int cmp_reap(pid_t pid, double timeout_s);
/* `TOOL -n NS -b FILE` (ip or tc) with the given lines, waited for. 0 or -errno, the
 * command's complaint in err. */
int cmp_bed_batch(struct cmp_bed *b, int ns, const char *tool, const char *lines, char *err,
		  size_t errlen);
/* Enter namespace ns (-1: home) in this thread. */
int cmp_enter(const struct cmp_bed *b, int ns);
double cmp_now(void);

/* compare_run.c: one qdisc's run. Returns 0, -EINTR when interrupted, or -errno. */
int cmp_run_one(struct cmp_bed *b, const struct cmp_opts *o, struct cmp_result *r, int sigfd);
void cmp_result_free(struct cmp_result *r);
/* gatewayd -c conf in the gateway, once it logged that its tree is applied and verified: its
 * pid, or -errno with why in note. */
pid_t cmp_start_gatewayd(struct cmp_bed *b, const struct cmp_opts *o, const char *conf,
			 const char *log, char *note, size_t notelen);
/* gatewayd --reflect in the server on CMP_REFLECT_PORT, once it says it answers: 0, or -errno
 * with why in err (testbed.c). */
int cmp_start_reflector(struct cmp_bed *b, const struct cmp_opts *o, char *err, size_t errlen);
/* SIGINT, SIGTERM or SIGHUP read from the signalfd? */
bool cmp_interrupted(int sigfd);

/* compare_stats.c */
void cmp_derive(const struct cmp_opts *o, struct cmp_result *r);
/* The TCP flows of direction up (true: the uploads) over [lo, hi], run time: their RTT ticks
 * together, and the same less baseline_ms (the probes' idle p50). */
void cmp_tcp_rtt_of(const struct cmp_result *r, bool up, double lo, double hi,
		    double baseline_ms, struct cmp_tcprtt *out);
const char *cmp_grade(double induced_mean_ms);
/* Which probes a percentile set is of: the ICMP ones (k < 0) or the UDP ones' figure k (round
 * trip, one way up, down), sent in phases ph_lo to ph_hi and at run time lo to before hi;
 * ms: times compared to the ms, as results.json has them, so a reader counts the same ones */
struct cmp_probe_sel {
	int k, ph_lo, ph_hi;
	double lo, hi;
	bool ms;
};
void cmp_probe_pct(const struct cmp_result *r, const struct cmp_probe_sel *sel,
		   struct cmp_pct *out);
/* A flow's mean receiver rate over the intervals that lie in [lo, hi], weighted by their
 * length, bytes/s; NAN for none. */
double cmp_flow_mean(const struct cmp_flow *f, double lo, double hi);

/* compare_load.c: the load, generated in this process (TCP flows both ways, the UDP flood);
 * t0: the run's clock (cmp_now() - t0). */
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

/* compare_out.c: results.json; si may be NULL (no `metadata`). With o->repeat > 1, r holds
 * every repetition (runs[].repeat) and the file a `summary` (repeat.c). */
int cmp_write_json(const char *path, const struct cmp_opts *o, struct cmp_result *r, size_t n,
		   const char *kernel_used, const struct cmp_sysinfo *si, char *err,
		   size_t errlen);

/* sysinfo.c: the testbed's sysctls and offloads (from inside its namespaces); the gateway's
 * tree as the kernel reports it, from nl (a socket in the gateway's namespace). */
void cmp_sysinfo_read(const struct cmp_bed *b, struct cmp_sysinfo *si);
struct gw_nl;
int cmp_read_tree(struct gw_nl *nl, const int ifidx[2], struct cmp_result *r);
/* A sysctl's value as JSON: a number where it is one. Offloads by flent's names. */
struct json_object;
struct json_object *cmp_json_sysval(const char *v);
struct json_object *cmp_offloads_json(const struct cmp_ifinfo *f);
/* "1:10", "root" for a parent; "10:" for a handle */
void cmp_tc_id(char *buf, size_t len, uint32_t id, bool handle);

/* results.c: one run as results.json's runs[] has it; the same without its samples, series
 * and tree (its name, label, place, note and figures: what a table needs); its figures alone
 * (what a table prints, gw_bench_rows' paths) */
struct json_object *cmp_run_json(const struct cmp_opts *o, const struct cmp_result *r,
				 bool repeated);
struct json_object *cmp_run_summary_json(const struct cmp_result *r, bool repeated);
/* results.c: the ICMP probes as results.json has them ([t, rtt or null, phase] each); a
 * flow's series ([t, bits/s] each interval) */
struct json_object *cmp_samples_json(const struct cmp_result *r);
struct json_object *cmp_series_json(const struct cmp_flow *f);
/* results.c: the ticks, [t, then ncol (at most 16) counters row gives] each */
struct json_object *cmp_ticks_json(const struct cmp_result *r, size_t ncol,
				   void (*row)(const struct cmp_tick *k, int64_t *v));
struct json_object *cmp_figures_json(const struct cmp_result *r);
/* results.c: a results file's top (schema, version, gatewayd's version, the time, the kernel
 * that ran it: "host" or "uml", and its release); NULL when out of memory */
struct json_object *cmp_file_json(const char *schema, int version, const char *kernel);
/* results.c: a figure as results.json writes it: 3 decimals, null (NULL) when not finite */
struct json_object *cmp_json_num(double v);
/* results.c: two figures as {"up", "down"}; a percentile set as {p50, p95, p99, mean, samples,
 * lost} */
struct json_object *cmp_json_pair(double up, double down);
struct json_object *cmp_json_pct(const struct cmp_pct *p);

/* flent.c: flent's test of the run's load (--profile, --flows): rrul_be, rrul_be_nflows,
 * tcp_nup or tcp_ndown */
const char *cmp_flent_test(const struct cmp_opts *o);
/* flent.c: the name flent gives the run's file: TEST-TIME.LABEL.flent.gz */
void cmp_flent_name(const struct cmp_opts *o, const struct cmp_result *r, char *buf,
		    size_t len);
/* flent.c: one run as flent's own data file (format version 4, its test's), written in
 * dir under the name flent gives it; its file name into name. 0 or -errno (err says). */
int cmp_write_flent(const char *dir, const struct cmp_opts *o, const struct cmp_result *r,
		    const char *kernel_used, const struct cmp_sysinfo *si, char *name,
		    size_t namelen, char *err, size_t errlen);

/* svg.c: the plots */
int cmp_svg_cdf(const char *path, const struct cmp_opts *o, struct cmp_result *r, size_t n);
int cmp_svg_timeline(const char *path, const struct cmp_opts *o, struct cmp_result *r, size_t n);
int cmp_svg_flows(const char *path, const struct cmp_opts *o, const struct cmp_result *r);

#endif
