/* bench/options.h: the bench's settings, from its command line (options.c). */
#ifndef GW_BENCH_OPTIONS_H
#define GW_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "bench/queues.h"
#include "webui/benchfile.h"

#define CMP_TCP_FLOWS 4		/* per direction, by default (--flows) */
#define CMP_TCP_FLOWS_MAX 8

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

struct cmp_opts {
	char rate_text[32];		/* --rate as given: "20mbit", "40mbit/10mbit" */
	uint64_t rate[2];		/* bytes/s per direction, as the config's: [0] up, [1] down */
	char dir_text[2][32];		/* each direction's rate as the config takes it */
	int64_t rtt_us;			/* base RTT the delay box adds (half each way) */
	double duration_s;		/* one qdisc's whole run, all four phases */
	enum cmp_qdisc qdiscs[GW_BENCH_MAX_QUEUES];
	size_t n_qdiscs;
	struct cmp_pick pick[GW_BENCH_MAX_QUEUES];	/* qdiscs[i] with its knobs: pick[i] */
	char out[4096];			/* "" = no files */
	char config[4096];		/* -c: the config whose link is benched (not with
					 * --scenario), and whose compare_dir is the default out */
	char own_link[32];		/* --link: which of its links (GW_NAME_MAX) */
	bool own;			/* its link is benched (config_link.c) */
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

/* The command line into o (its defaults first): 0; 1 for --help (printed); or
 * -EINVAL with why on stderr. cmp_usage: what it takes. */
int cmp_parse_opts(int argc, char **argv, struct cmp_opts *o);
void cmp_usage(FILE *f);

#endif
