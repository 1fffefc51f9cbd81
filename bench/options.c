/* bench/options.c: the bench's command line (`gatewayd --compare ...`, gatewayd-bench):
 * its options from one table, each taken by a function of its own with the message that
 * refuses it, then checked together (a queue comparison's, -c CONFIG's, the scenario's). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/config_link.h"
#include "bench/options.h"
#include "bench/queues.h"
#include "bench/repeat.h"
#include "bench/scenario.h"
#include "config/config.h"
#include "webui/benchfile.h"

const char *bench_profile_name(enum bench_profile p)
{
	static const char *const names[BENCH_PROF_COUNT] = { "rrul", "bidir", "upload",
							     "download" };

	return p < BENCH_PROF_COUNT ? names[p] : "?";
}

void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: gatewayd --compare [--rate 20mbit|DOWN/UP] [--rtt 40ms] [--duration 30s]\n"
		"                [--qdiscs fifo,fq_codel:target=2ms,cake,cake-shaper]\n"
		"                [--out DIR] [--profile rrul|bidir|upload|download] [--flows 4]\n"
		"                [--family 4|6|46]\n"
		"                [--repeat N] [--kernel auto|host|uml]\n"
		"       gatewayd --compare -c CONFIG [--link NAME] [--qdiscs fq_codel:target=2ms,...]\n"
		"                [--rtt 40ms] [--duration 30s] [--out DIR] [--repeat N] [--kernel ...]\n"
		"       gatewayd --compare --scenario variable [--steps 40/10,12/4,30/8]\n"
		"                [--step-time 20s] [--ways autorate,fixed,none] [--qdiscs fq_codel]\n"
		"                [--autorate 'KEY = VALUE; ...'] [--probe-method udp|icmp|...]\n"
		"                [--rtt 40ms] [--out DIR | -c CONFIG] [--kernel auto|host|uml]\n"
		"       gatewayd --compare-report [--out DIR] RUNDIR[=LABEL] RUNDIR[=LABEL]...\n"
		"                (saved runs side by side: gatewayd --compare-report --help)\n"
		"Builds a client - gateway - delay box - server testbed in fresh network namespaces,\n"
		"shapes the gateway with gatewayd (each queue in turn), loads it with 4+4 TCP flows\n"
		"and a UDP flood, probes latency throughout, and prints a table (and writes\n"
		"results.json and SVG plots into DIR, by default CONFIG's compare_dir or\n"
		GW_COMPARE_DIR_DEFAULT ", where the daemon's status page shows the last one).\n"
		"--duration is each queue's whole run.\n"
		"--rate DOWN/UP shapes each direction at its own rate (--rate 8mbit/4mbit: 8 down,\n"
		"4 up); one rate is both.\n"
		"--qdiscs KIND[:KNOB[:KNOB...]],...: a queue with knobs in gatewayd.conf's own\n"
		"names, KEY=VALUE, a bool's name or an enum's word: fq_codel:target=2ms:ecn,\n"
		"cake:diffserv4, fifo:limit=50 (a KEY=VALUE after a comma is one more knob of the\n"
		"queue before it); each is a column of its own, headed by its label. A bad knob\n"
		"is refused (exit 2) before anything starts, in the config's words.\n"
		"--profile: rrul (default: TCP both ways, then a UDP flood), bidir (TCP both ways),\n"
		"upload or download (TCP one way); --flows N (1 to 8, default 4) each way it loads;\n"
		"--family 6: the load, the probes and the flood over IPv6; 46: the TCP flows half\n"
		"over IPv4 and half over IPv6 (flent's rrul46), the VoIP stream over IPv6.\n"
		"-c CONFIG: the config's own link (its classes, matches and queues) at its rates,\n"
		"after the fifo at the same rates; with --qdiscs, once more per queue, that queue in\n"
		"every leaf (docs/compare.md, \"Your own tree\").\n"
		"--repeat N (1 to 20): every queue N times, in turn (each repetition's order rotated\n"
		"by one), and each figure as the median [lo, hi] over the repetitions, with box\n"
		"plots (docs/compare.md, \"Repeats\").\n"
		"--scenario variable: the delay box's capacity changes in steps (down/up Mbit/s,\n"
		"each --step-time long) under 4+4 TCP flows, and the gateway runs gatewayd with\n"
		"autorate, at the first step's rate, and not at all (results in DIR/variable\n"
		"without --out).\n"
		"--kernel auto (default) runs in a User-Mode Linux guest when this kernel lacks\n"
		"netem, fq_codel or cake; --kernel host refuses (exit 2) a queue whose kind this\n"
		"kernel lacks. Needs root and iproute2.\n");
}

/* What the command line gathers before it is checked as a whole */
struct parse {
	struct bench_opts *o;
	char qdiscs[BENCH_QDISCS_TEXT_MAX];	/* --qdiscs as given, or the default */
	char ways[64], steps[256];		/* the scenario's */
	bool qset, rset;			/* --qdiscs and --rate were given */
};

/* "gatewayd: " and the message on stderr: -EINVAL */
__attribute__((format(printf, 1, 2)))
static int refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("gatewayd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* A whole number from lo to hi, all of s, into *out. */
static bool whole(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

/* A whole number from 1 to hi into *out; else refused with want */
static int whole_in(const char *v, long hi, int *out, const char *want)
{
	if (!whole(v, 1, hi, out))
		return refuse("%s, not '%s'", want, v);
	return 0;
}

/* A time from lo to hi µs into *us; else refused with want, "--rtt: want 0 to 2s, like 40ms" */
static int time_in(const char *v, int64_t lo, int64_t hi, int64_t *us, const char *want)
{
	if (gw_parse_time(v, us) || *us < lo || *us > hi)
		return refuse("%s, not '%s'", want, v);
	return 0;
}

/* a copy of v into buf, up to len - 1 characters (longer: cut, as a path is) */
#define COPY(buf, v) snprintf(buf, sizeof(buf), "%s", v)

static int take_none(struct parse *p, const char *v)
{
	(void)p;
	(void)v;
	return 0;
}

static int take_rate(struct parse *p, const char *v)
{
	struct bench_opts *o = p->o;

	if (strlen(v) >= sizeof(o->rate_text) || bench_parse_rates(v, o->rate, o->dir_text))
		return refuse("--rate: want a rate from 100kbit to 1gbit, like 20mbit, or down/up rates like 40mbit/10mbit, not '%s'",
			      v);
	COPY(o->rate_text, v);
	p->rset = true;
	return 0;
}

static int take_rtt(struct parse *p, const char *v)
{
	return time_in(v, 0, 2000000, &p->o->rtt_us, "--rtt: want 0 to 2s, like 40ms");
}

static int take_duration(struct parse *p, const char *v)
{
	int64_t us;
	int e = time_in(v, 4000000, 3600000000LL, &us, "--duration: want 4s to 1h, like 30s");

	if (!e)
		p->o->duration_s = (double)us / 1e6;
	return e;
}

static int take_qdiscs(struct parse *p, const char *v)
{
	if (strlen(v) >= sizeof(p->qdiscs))
		return refuse("--qdiscs: longer than %zu characters", sizeof(p->qdiscs) - 1);
	COPY(p->qdiscs, v);
	p->qset = true;
	return 0;
}

static int take_scenario(struct parse *p, const char *v)
{
	if (strcmp(v, "variable"))
		return refuse("--scenario: the one there is is 'variable', not '%s'", v);
	p->o->sc.on = true;
	return 0;
}

static int take_steps(struct parse *p, const char *v)
{
	COPY(p->steps, v);
	return 0;
}

static int take_step_time(struct parse *p, const char *v)
{
	int64_t us;
	int e = time_in(v, 4000000, 120000000, &us, "--step-time: want 4s to 120s, like 20s");

	if (!e)
		p->o->sc.step_s = (double)us / 1e6;
	return e;
}

static int take_ways(struct parse *p, const char *v)
{
	COPY(p->ways, v);
	return 0;
}

/* into the generated config as they are: gatewayd's parser judges them, and the line of the
 * config with its complaint is in the run's note */
static int take_autorate(struct parse *p, const char *v)
{
	if (strlen(v) >= sizeof(p->o->sc.ar_keys) || strpbrk(v, "{}\n"))
		return refuse("--autorate: autorate keys, like 'delay_threshold = \"20ms\";', under %zu characters, without braces or newlines",
			      sizeof(p->o->sc.ar_keys));
	COPY(p->o->sc.ar_keys, v);
	return 0;
}

/* the config's probe methods: icmp, udp (to a reflector the bench runs in the server),
 * icmp-timestamp where this build's config has it */
static int take_probe_method(struct parse *p, const char *v)
{
	if (strlen(v) >= sizeof(p->o->sc.probe_method) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyz-") != strlen(v) || !*v)
		return refuse("--probe-method: a probe method of gatewayd.conf(5) (icmp, udp, ...), not '%s'",
			      v);
	COPY(p->o->sc.probe_method, v);
	return 0;
}

static int take_repeat(struct parse *p, const char *v)
{
	char want[96];

	snprintf(want, sizeof(want), "--repeat: want a whole number of repetitions from 1 to %d, like 5",
		 GW_BENCH_MAX_REPEAT);
	return whole_in(v, GW_BENCH_MAX_REPEAT, &p->o->repeat, want);
}

static int take_flows(struct parse *p, const char *v)
{
	char want[64];

	snprintf(want, sizeof(want), "--flows: want 1 to %d TCP flows per direction",
		 BENCH_TCP_FLOWS_MAX);
	return whole_in(v, BENCH_TCP_FLOWS_MAX, &p->o->flows, want);
}

static int take_profile(struct parse *p, const char *v)
{
	int k;

	for (k = 0; k < BENCH_PROF_COUNT && strcmp(v, bench_profile_name(k)); k++)
		;
	if (k == BENCH_PROF_COUNT)
		return refuse("--profile: rrul (TCP both ways, then a UDP flood), bidir, upload or download, not '%s'",
			      v);
	p->o->profile = (enum bench_profile)k;
	return 0;
}

static int take_family(struct parse *p, const char *v)
{
	if (strcmp(v, "4") && strcmp(v, "6") && strcmp(v, "46"))
		return refuse("--family: 4 (IPv4, the default), 6 (the load, probes and flood over IPv6) or 46 (the TCP flows half over each, as flent's rrul46), not '%s'",
			      v);
	p->o->family = atoi(v);
	return 0;
}

static int take_out(struct parse *p, const char *v)
{
	COPY(p->o->out, v);
	return 0;
}

static int take_config(struct parse *p, const char *v)
{
	COPY(p->o->config, v);
	return 0;
}

static int take_link(struct parse *p, const char *v)
{
	if (strlen(v) >= sizeof(p->o->own_link) || !*v)
		return refuse("--link: a link's name of the config, up to %zu characters, not '%s'",
			      sizeof(p->o->own_link) - 1, v);
	COPY(p->o->own_link, v);
	return 0;
}

static int take_kernel(struct parse *p, const char *v)
{
	static const char *const names[] = { "auto", "host", "uml" };

	for (int k = 0; k < 3; k++)
		if (!strcmp(v, names[k])) {
			p->o->kernel = (enum bench_kernel)k;
			return 0;
		}
	return refuse("--kernel: auto, host or uml, not '%s'", v);
}

static int take_in_uml(struct parse *p, const char *v)
{
	(void)v;
	p->o->in_uml = true;
	return 0;
}

static int take_help(struct parse *p, const char *v)
{
	(void)p;
	(void)v;
	bench_usage(stdout);
	return 1;
}

/* The options, each with its short name (0: none) and what takes its value. */
static const struct opt {
	const char *name;
	int has_arg, short_name;
	int (*take)(struct parse *p, const char *v);
} opts[] = {
	{ "compare", no_argument, 0, take_none },	/* (how gatewayd calls it) */
	{ "rate", required_argument, 0, take_rate },
	{ "rtt", required_argument, 0, take_rtt },
	{ "duration", required_argument, 0, take_duration },
	{ "qdiscs", required_argument, 0, take_qdiscs },
	{ "out", required_argument, 0, take_out },
	{ "config", required_argument, 'c', take_config },
	{ "link", required_argument, 0, take_link },
	{ "kernel", required_argument, 0, take_kernel },
	{ "in-uml", no_argument, 0, take_in_uml },
	{ "scenario", required_argument, 0, take_scenario },
	{ "steps", required_argument, 0, take_steps },
	{ "step-time", required_argument, 0, take_step_time },
	{ "ways", required_argument, 0, take_ways },
	{ "autorate", required_argument, 0, take_autorate },
	{ "probe-method", required_argument, 0, take_probe_method },
	{ "repeat", required_argument, 0, take_repeat },
	{ "profile", required_argument, 0, take_profile },
	{ "flows", required_argument, 0, take_flows },
	{ "family", required_argument, 0, take_family },
	{ "help", no_argument, 'h', take_help },
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

/* --qdiscs into o's picks and queues */
static int take_picks(const char *s, struct bench_opts *o)
{
	char err[512];

	if (bench_parse_qdiscs(s, o->pick, GW_BENCH_MAX_QUEUES, &o->n_qdiscs, err, sizeof(err)))
		return refuse("%s", err);
	for (size_t i = 0; i < o->n_qdiscs; i++)
		o->qdiscs[i] = o->pick[i].q;
	return 0;
}

/* -c CONFIG: its own link against the fifo, at its rates (config_link.c) */
static int check_own(struct parse *p)
{
	struct bench_opts *o = p->o;
	struct bench_pick user[GW_BENCH_MAX_QUEUES];
	size_t n_user = 0;
	char err[1024], abs[PATH_MAX];

	if (p->rset)
		return refuse("--rate and -c: the bench runs at the rates of the config's link");
	if (p->qset && bench_parse_qdiscs(p->qdiscs, user, GW_BENCH_MAX_QUEUES, &n_user, err, sizeof(err)))
		return refuse("%s", err);
	/* absolute: a UML guest reads it again, through its hostfs root */
	if (realpath(o->config, abs))
		COPY(o->config, abs);
	if (p->qset)
		COPY(o->user_qdiscs, p->qdiscs);
	o->own = true;
	if (bench_own_setup(o, user, n_user, err, sizeof(err)))
		return refuse("%s", err);
	return 0;
}

/* A queue comparison: the queues, or -c CONFIG's link; not more than the files' readers take */
static int check_queues(struct parse *p)
{
	struct bench_opts *o = p->o;
	int e = o->config[0] ? check_own(p) : take_picks(p->qdiscs, o);

	if (e)
		return e;
	/* the results file's readers take what 8 queues of an hour write, not more */
	if ((double)o->n_qdiscs * o->repeat * o->duration_s > GW_BENCH_MAX_TOTAL_S)
		return refuse("--repeat %d: %zu queues x %d x %.0f s is more than %.0f h of runs",
			      o->repeat, o->n_qdiscs, o->repeat, o->duration_s,
			      GW_BENCH_MAX_TOTAL_S / 3600);
	return 0;
}

/* The scenario: one queue in the gateway, under htb (autorate moves htb's rates), its steps
 * and ways; none of the queue comparison's load options */
static int check_scenario(struct parse *p)
{
	struct bench_opts *o = p->o;

	if (o->repeat > 1 || o->profile != BENCH_PROF_RRUL || o->flows != BENCH_TCP_FLOWS ||
	    o->family != 4)
		return refuse("--repeat, --profile, --flows and --family: a queue comparison's, not --scenario's");
	if (!p->qset)
		COPY(p->qdiscs, "fq_codel");
	if (take_picks(p->qdiscs, o))
		return -EINVAL;
	if (o->n_qdiscs != 1 || bench_queue(o->qdiscs[0])->shaper)
		return refuse("--scenario: --qdiscs names the one queue under the gateway's htb (fifo, fq_codel, cake, ...), not '%s'",
			      p->qdiscs);
	if (bench_sc_parse_steps(p->steps, &o->sc))
		return refuse("--steps: want 1 to %d steps of down/up rates, Mbit/s or with a unit, 100kbit to 1gbit each, like 40/10,12/4,30/8, not '%s'",
			      BENCH_MAX_STEPS, p->steps);
	if (o->sc.step_s * (double)o->sc.n_steps > 290)
		return refuse("--steps and --step-time: at most 290 s of steps in all");
	if (bench_sc_parse_ways(p->ways, &o->sc))
		return refuse("--ways: autorate, fixed and none, each at most once, not '%s'",
			      p->ways);
	bench_sc_defaults(&o->sc);
	return 0;
}

static void defaults(struct bench_opts *o)
{
	o->rtt_us = 40000;
	o->duration_s = 30;
	o->repeat = 1;
	o->flows = BENCH_TCP_FLOWS;
	o->family = 4;
	o->sc.step_s = 20;
	/* udp to the bench's reflector: one-way delays, so autorate judges each direction by
	 * its own (with round trips alone the upload's queue is laid on the download too) */
	COPY(o->sc.probe_method, "udp");
	COPY(o->rate_text, "20mbit");
	bench_parse_rates(o->rate_text, o->rate, o->dir_text);
}

int bench_parse_opts(int argc, char **argv, struct bench_opts *o)
{
	struct parse p = { .o = o, .qdiscs = "fifo,fq_codel,cake,cake-shaper",
			   .ways = "autorate,fixed,none", .steps = "40/10,12/4,30/8" };
	struct option lo[N_OPTS + 1];
	int c, e;

	defaults(o);
	for (size_t i = 0; i < N_OPTS; i++)
		lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL, 256 + (int)i };
	lo[N_OPTS] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "hc:", lo, NULL)) != -1) {
		for (size_t i = 0; i < N_OPTS && c < 256; i++)
			if (opts[i].short_name == c)
				c = 256 + (int)i;
		if (c < 256) {
			bench_usage(stderr);
			return -EINVAL;
		}
		if ((e = opts[c - 256].take(&p, optarg)))
			return e;
	}
	if (optind != argc) {
		bench_usage(stderr);
		return -EINVAL;
	}
	if (o->own_link[0] && (!o->config[0] || o->sc.on))
		return refuse("--link: says which link of -c CONFIG a queue comparison benches");
	return o->sc.on ? check_scenario(&p) : check_queues(&p);
}
