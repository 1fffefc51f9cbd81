/* bench/options.h: the bench's settings, from its command line (options.c). */
#ifndef GW_BENCH_OPTIONS_H
#define GW_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "bench/queues.h"
#include "webui/benchfile.h"

#define BENCH_TCP_FLOWS 4		/* per direction, by default (--flows) */
#define BENCH_TCP_FLOWS_MAX 8

/* --profile: which load the TCP and flood phases carry. rrul (the default, flent's rrul_be):
 * TCP both ways, then a UDP flood on top; bidir: TCP both ways, no flood; upload, download:
 * TCP one way, no flood. The VoIP-like stream and the probes run in every one. */
enum bench_profile { BENCH_PROF_RRUL, BENCH_PROF_BIDIR, BENCH_PROF_UPLOAD, BENCH_PROF_DOWNLOAD,
		     BENCH_PROF_COUNT };
const char *bench_profile_name(enum bench_profile p);
/* TCP flows the profile sends that way (0 up, 1 down), with --flows n (0: the default) */
static inline int bench_profile_flows(enum bench_profile p, int n, int d)
{
	n = n > 0 ? n : BENCH_TCP_FLOWS;
	return p == BENCH_PROF_UPLOAD ? (d ? 0 : n) : p == BENCH_PROF_DOWNLOAD ? (d ? n : 0) : n;
}

enum bench_kernel { BENCH_KERNEL_AUTO, BENCH_KERNEL_HOST, BENCH_KERNEL_UML };

/* --scenario variable (scenario.c): the delay box's bottleneck changes capacity in steps,
 * and the gateway is run three ways: gatewayd with autorate, at a fixed rate, not at all. */
#define BENCH_MAX_STEPS 8
enum bench_way { BENCH_WAY_AUTORATE, BENCH_WAY_FIXED, BENCH_WAY_NONE, BENCH_WAY_COUNT };

struct bench_scenario {
	bool on;
	uint64_t cap[BENCH_MAX_STEPS][2];	/* the box's capacity per step, bytes/s: [0] up */
	size_t n_steps;
	double step_s;			/* each step's length */
	enum bench_way ways[BENCH_WAY_COUNT];
	size_t n_ways;
	/* autorate's, derived from the steps (bench_sc_defaults), bytes/s */
	uint64_t min[2], base[2], max[2];
	char ar_keys[256];		/* --autorate: more keys for the autorate blocks */
	char probe_method[16];		/* --probe-method: the gateway's probes (icmp, udp, ...) */
};

struct bench_opts {
	char rate_text[32];		/* --rate as given: "20mbit", "40mbit/10mbit" */
	uint64_t rate[2];		/* bytes/s per direction, as the config's: [0] up, [1] down */
	char dir_text[2][32];		/* each direction's rate as the config takes it */
	int64_t rtt_us;			/* base RTT the delay box adds (half each way) */
	double duration_s;		/* one qdisc's whole run, all four phases */
	enum bench_qdisc qdiscs[GW_BENCH_MAX_QUEUES];
	size_t n_qdiscs;
	struct bench_pick pick[GW_BENCH_MAX_QUEUES];	/* qdiscs[i] with its knobs: pick[i] */
	char out[4096];			/* "" = no files */
	char config[4096];		/* -c: the config whose link is benched (not with
					 * --scenario), and whose compare_dir is the default out */
	char own_link[32];		/* --link: which of its links (GW_NAME_MAX) */
	bool own;			/* its link is benched (config_link.c) */
	bool own_autorate;		/* the link had autorate, which the bench leaves out */
	bool own_nft;			/* it classifies with nftables (match rules, hosts) */
	char user_qdiscs[BENCH_QDISCS_TEXT_MAX];	/* --qdiscs as given ("" when not), which a
						 * UML guest reads again */
	enum bench_kernel kernel;
	bool in_uml;			/* we are the guest side of --kernel uml */
	bool no_delay;			/* the kernel has no netem: no added RTT */
	bool have[BENCH_Q_COUNT];		/* which qdiscs this kernel can build */
	char self[4096];		/* this binary, gatewayd-bench (a UML guest runs it again) */
	char gatewayd[4096];		/* the daemon it starts: beside it (bench_find_gatewayd) */
	int repeat;			/* --repeat: every queue this many times, interleaved */
	enum bench_profile profile;	/* --profile */
	int flows;			/* --flows: TCP flows per direction the profile loads */
	int family;			/* --family: 4 (default), 6, or 46 (both at once) */
	struct bench_scenario sc;
};

/* Direction d's rate (0 up, 1 down), bytes/s. */
static inline double bench_dir_rate(const struct bench_opts *o, int d)
{
	return (double)o->rate[d];
}

static inline bool bench_asymmetric(const struct bench_opts *o)
{
	return o->rate[0] != o->rate[1];
}

/* The command line into o (its defaults first): 0; 1 for --help (printed); or
 * -EINVAL with why on stderr. bench_usage: what it takes. */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o);
void bench_usage(FILE *f);

#endif
