/* bench/compare.c: `gatewayd --compare`: the options, which kernel runs the bench (this
 * one, or a User-Mode Linux guest when this one lacks netem, fq_codel or cake), the runs one
 * qdisc after another, the table, and the files in --out. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>
#include "config/config.h"
#include "bench/compare.h"
#include "bench/html.h"
#include "bench/outfile.h"
#include "bench/bench.h"
#include "bench/relay.h"
#include "bench/repeat.h"
#include "bench/report.h"
#include "bench/scenario.h"
#include "bench/table.h"
#include "sys/signals.h"
#include "qdisc/qdisc.h"
#include "webui/benchrows.h"

static const char *const phnames[CMP_PH_COUNT] = { "idle", "tcp", "flood", "idle2" };

static struct cmp_queue queues[CMP_Q_COUNT];
static size_t n_queues;

/* From the registry, once: its leaves, then its shapers that are their own queue. */
static void list_queues(void)
{
	const struct gw_qdisc_ops *ops;

	if (n_queues)
		return;
	for (size_t i = 0; (ops = gw_qdisc_leaf(i)) && n_queues < CMP_Q_COUNT; i++) {
		snprintf(queues[n_queues].name, sizeof(queues[n_queues].name), "%s", ops->name);
		queues[n_queues++].ops = ops;
	}
	for (size_t i = 0; (ops = gw_qdisc_shaper(i)) && n_queues < CMP_Q_COUNT; i++)
		if (ops->shaper == GW_SHAPER_SELF) {
			snprintf(queues[n_queues].name, sizeof(queues[n_queues].name), "%s-shaper",
				 ops->name);
			queues[n_queues].ops = ops;
			queues[n_queues++].shaper = true;
		}
}

const struct cmp_queue *cmp_queue(enum cmp_qdisc q)
{
	list_queues();
	return (size_t)q < n_queues ? &queues[q] : NULL;
}

const char *cmp_qdisc_name(enum cmp_qdisc q)
{
	const struct cmp_queue *x = cmp_queue(q);

	return x ? x->name : "?";
}

const char *cmp_profile_name(enum cmp_profile p)
{
	static const char *const names[CMP_PROF_COUNT] = { "rrul", "bidir", "upload", "download" };

	return p < CMP_PROF_COUNT ? names[p] : "?";
}

const char *cmp_phase_name(enum cmp_phase p)
{
	return p < CMP_PH_COUNT ? phnames[p] : "?";
}

static void usage(FILE *f)
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

static int parse_qdiscs(const char *s, struct cmp_opts *o)
{
	char err[512];

	if (cmp_parse_qdiscs(s, o->pick, CMP_MAX_QDISCS, &o->n_qdiscs, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->n_qdiscs; i++)
		o->qdiscs[i] = o->pick[i].q;
	return 0;
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

static int parse_opts(int argc, char **argv, struct cmp_opts *o)
{
	static const struct option opts[] = {
		{ "compare", no_argument, NULL, 'C' },
		{ "rate", required_argument, NULL, 'r' },
		{ "rtt", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "qdiscs", required_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'c' },
		{ "link", required_argument, NULL, 'L' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "in-uml", no_argument, NULL, 'U' },
		{ "scenario", required_argument, NULL, 'S' },
		{ "steps", required_argument, NULL, 's' },
		{ "step-time", required_argument, NULL, 'T' },
		{ "ways", required_argument, NULL, 'w' },
		{ "autorate", required_argument, NULL, 'A' },
		{ "probe-method", required_argument, NULL, 'M' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "profile", required_argument, NULL, 'P' },
		{ "flows", required_argument, NULL, 'F' },
		{ "family", required_argument, NULL, '6' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char qbuf[CMP_QDISCS_TEXT_MAX] = "fifo,fq_codel,cake,cake-shaper", wbuf[64] = "autorate,fixed,none";
	char steps[256] = "40/10,12/4,30/8";
	bool qset = false, rset = false;
	int64_t us;
	int c;

	o->rtt_us = 40000;
	o->duration_s = 30;
	o->repeat = 1;
	o->flows = CMP_TCP_FLOWS;
	o->family = 4;
	o->sc.step_s = 20;
	/* udp to the bench's reflector: one-way delays, so autorate judges each direction by
	 * its own (with round trips alone the upload's queue is laid on the download too) */
	snprintf(o->sc.probe_method, sizeof(o->sc.probe_method), "udp");
	snprintf(o->rate_text, sizeof(o->rate_text), "20mbit");
	cmp_parse_rates(o->rate_text, o->rate, o->dir_text);
	optind = 1;
	while ((c = getopt_long(argc, argv, "hc:", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			break;
		case 'r':
			if (strlen(optarg) >= sizeof(o->rate_text) ||
			    cmp_parse_rates(optarg, o->rate, o->dir_text)) {
				fprintf(stderr, "gatewayd: --rate: want a rate from 100kbit to 1gbit, like 20mbit, or down/up rates like 40mbit/10mbit, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			snprintf(o->rate_text, sizeof(o->rate_text), "%s", optarg);
			rset = true;
			break;
		case 't':
			if (gw_parse_time(optarg, &us) || us < 0 || us > 2000000) {
				fprintf(stderr, "gatewayd: --rtt: want 0 to 2s, like 40ms, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->rtt_us = us;
			break;
		case 'd':
			if (gw_parse_time(optarg, &us) || us < 4000000 || us > 3600000000LL) {
				fprintf(stderr, "gatewayd: --duration: want 4s to 1h, like 30s, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->duration_s = (double)us / 1e6;
			break;
		case 'q':
			if (strlen(optarg) >= sizeof(qbuf)) {
				fprintf(stderr, "gatewayd: --qdiscs: longer than %zu characters\n",
					sizeof(qbuf) - 1);
				return -EINVAL;
			}
			snprintf(qbuf, sizeof(qbuf), "%s", optarg);
			qset = true;
			break;
		case 'S':
			if (strcmp(optarg, "variable")) {
				fprintf(stderr, "gatewayd: --scenario: the one there is is 'variable', not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->sc.on = true;
			break;
		case 's':
			snprintf(steps, sizeof(steps), "%s", optarg);
			break;
		case 'T':
			if (gw_parse_time(optarg, &us) || us < 4000000 || us > 120000000) {
				fprintf(stderr, "gatewayd: --step-time: want 4s to 120s, like 20s, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->sc.step_s = (double)us / 1e6;
			break;
		case 'w':
			snprintf(wbuf, sizeof(wbuf), "%s", optarg);
			break;
		case 'A':
			/* into the generated config as they are: gatewayd's parser judges them,
			 * and the line of the config with its complaint is in the run's note */
			if (strlen(optarg) >= sizeof(o->sc.ar_keys) || strpbrk(optarg, "{}\n")) {
				fprintf(stderr, "gatewayd: --autorate: autorate keys, like 'delay_threshold = \"20ms\";', under %zu characters, without braces or newlines\n",
					sizeof(o->sc.ar_keys));
				return -EINVAL;
			}
			snprintf(o->sc.ar_keys, sizeof(o->sc.ar_keys), "%s", optarg);
			break;
		case 'M':
			/* the config's probe methods: icmp, udp (to a reflector the bench runs in
			 * the server), icmp-timestamp where this build's config has it */
			if (strlen(optarg) >= sizeof(o->sc.probe_method) ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz-") != strlen(optarg) || !*optarg) {
				fprintf(stderr, "gatewayd: --probe-method: a probe method of gatewayd.conf(5) (icmp, udp, ...), not '%s'\n",
					optarg);
				return -EINVAL;
			}
			snprintf(o->sc.probe_method, sizeof(o->sc.probe_method), "%s", optarg);
			break;
		case 'R':
			if (!whole(optarg, 1, CMP_REPEAT_MAX, &o->repeat)) {
				fprintf(stderr, "gatewayd: --repeat: want a whole number of repetitions from 1 to %d, like 5, not '%s'\n",
					CMP_REPEAT_MAX, optarg);
				return -EINVAL;
			}
			break;
		case 'P': {
			int p;

			for (p = 0; p < CMP_PROF_COUNT && strcmp(optarg, cmp_profile_name(p)); p++)
				;
			if (p == CMP_PROF_COUNT) {
				fprintf(stderr, "gatewayd: --profile: rrul (TCP both ways, then a UDP flood), bidir, upload or download, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->profile = (enum cmp_profile)p;
			break;
		}
		case 'F':
			if (!whole(optarg, 1, CMP_TCP_FLOWS_MAX, &o->flows)) {
				fprintf(stderr, "gatewayd: --flows: want 1 to %d TCP flows per direction, not '%s'\n",
					CMP_TCP_FLOWS_MAX, optarg);
				return -EINVAL;
			}
			break;
		case '6':
			if (strcmp(optarg, "4") && strcmp(optarg, "6") && strcmp(optarg, "46")) {
				fprintf(stderr, "gatewayd: --family: 4 (IPv4, the default), 6 (the load, probes and flood over IPv6) or 46 (the TCP flows half over each, as flent's rrul46), not '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->family = atoi(optarg);
			break;
		case 'o':
			snprintf(o->out, sizeof(o->out), "%s", optarg);
			break;
		case 'c':
			snprintf(o->config, sizeof(o->config), "%s", optarg);
			break;
		case 'L':
			if (strlen(optarg) >= sizeof(o->own_link) || !*optarg) {
				fprintf(stderr, "gatewayd: --link: a link's name of the config, up to %zu characters, not '%s'\n",
					sizeof(o->own_link) - 1, optarg);
				return -EINVAL;
			}
			snprintf(o->own_link, sizeof(o->own_link), "%s", optarg);
			break;
		case 'k':
			if (!strcmp(optarg, "auto"))
				o->kernel = CMP_KERNEL_AUTO;
			else if (!strcmp(optarg, "host"))
				o->kernel = CMP_KERNEL_HOST;
			else if (!strcmp(optarg, "uml"))
				o->kernel = CMP_KERNEL_UML;
			else {
				fprintf(stderr, "gatewayd: --kernel: auto, host or uml, not '%s'\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'U':
			o->in_uml = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -EINVAL;
	}
	if (o->own_link[0] && (!o->config[0] || o->sc.on)) {
		fprintf(stderr, "gatewayd: --link: says which link of -c CONFIG a queue comparison benches\n");
		return -EINVAL;
	}
	if (!o->sc.on && o->config[0]) {
		/* -c CONFIG: its own link against the fifo, at its rates (owntree.c) */
		struct cmp_pick user[CMP_MAX_QDISCS];
		size_t n_user = 0;
		char err[1024], abs[PATH_MAX];

		if (rset) {
			fprintf(stderr, "gatewayd: --rate and -c: the bench runs at the rates of the config's link\n");
			return -EINVAL;
		}
		if (qset && cmp_parse_qdiscs(qbuf, user, CMP_MAX_QDISCS, &n_user, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			return -EINVAL;
		}
		/* absolute: a UML guest reads it again, through its hostfs root */
		if (realpath(o->config, abs))
			snprintf(o->config, sizeof(o->config), "%s", abs);
		if (qset)
			snprintf(o->user_qdiscs, sizeof(o->user_qdiscs), "%s", qbuf);
		o->own = true;
		if (cmp_own_setup(o, user, n_user, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			return -EINVAL;
		}
	} else if (!o->sc.on && parse_qdiscs(qbuf, o))
		return -EINVAL;
	if (!o->sc.on) {
		/* the results file's readers take what 8 queues of an hour write, not more */
		if ((double)o->n_qdiscs * o->repeat * o->duration_s > CMP_REPEAT_TOTAL_S) {
			fprintf(stderr, "gatewayd: --repeat %d: %zu queues x %d x %.0f s is more than %.0f h of runs\n",
				o->repeat, o->n_qdiscs, o->repeat, o->duration_s,
				CMP_REPEAT_TOTAL_S / 3600);
			return -EINVAL;
		}
		return 0;
	}
	if (o->repeat > 1 || o->profile != CMP_PROF_RRUL || o->flows != CMP_TCP_FLOWS ||
	    o->family != 4) {
		fprintf(stderr, "gatewayd: --repeat, --profile, --flows and --family: a queue comparison's, not --scenario's\n");
		return -EINVAL;
	}
	/* the scenario: one queue in the gateway, under htb (autorate moves htb's rates) */
	if (!qset)
		snprintf(qbuf, sizeof(qbuf), "fq_codel");
	const char *given = qbuf;

	if (parse_qdiscs(qbuf, o))
		return -EINVAL;
	if (o->n_qdiscs != 1 || cmp_queue(o->qdiscs[0])->shaper) {
		fprintf(stderr, "gatewayd: --scenario: --qdiscs names the one queue under the gateway's htb (fifo, fq_codel, cake, ...), not '%s'\n",
			given);
		return -EINVAL;
	}
	if (cmp_sc_parse_steps(steps, &o->sc)) {
		fprintf(stderr, "gatewayd: --steps: want 1 to %d steps of down/up rates, Mbit/s or with a unit, 100kbit to 1gbit each, like 40/10,12/4,30/8, not '%s'\n",
			CMP_MAX_STEPS, steps);
		return -EINVAL;
	}
	if (o->sc.step_s * (double)o->sc.n_steps > 290) {
		fprintf(stderr, "gatewayd: --steps and --step-time: at most 290 s of steps in all\n");
		return -EINVAL;
	}
	if (cmp_sc_parse_ways(wbuf, &o->sc)) {
		fprintf(stderr, "gatewayd: --ways: autorate, fixed and none, each at most once, not '%s'\n",
			wbuf);
		return -EINVAL;
	}
	cmp_sc_defaults(&o->sc);
	return 0;
}

/* Run argv, quietly, and return its exit status (or -1). */
static int run_quiet(char *const argv[])
{
	int status;
	pid_t p = fork();

	if (p == 0) {
		/* quiet or not at all (and _FORTIFY_SOURCE wants freopen's result looked at) */
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &status, 0) != p)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* What this kernel has: netem, ifb, and each queue's kind: tried on the loopback of a
 * namespace of our own (a child's), so nothing the user has is touched. The child answers a
 * byte per try through a pipe: [0] netem, [1] ifb, [2 + q] queue q's kind. -1 when the probe
 * cannot run (not root?). */
#define PROBE_N (2 + CMP_Q_COUNT)
static int probe_kernel(bool *ok)
{
	int status, fds[2];
	pid_t p;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((p = fork()) == 0) {
		static char *const netem[] = { "tc", "qdisc", "add", "dev", "lo", "root", "handle",
					       "1:", "netem", NULL };
		static char *const ifb[] = { "ip", "link", "add", "ifbprobe", "type", "ifb", NULL };
		const struct cmp_queue *x;
		char got[PROBE_N] = { 0 }, handle[16];

		if (unshare(CLONE_NEWNET) < 0)
			_exit(255);
		got[0] = run_quiet(netem) == 0;
		got[1] = run_quiet(ifb) == 0;
		for (int q = 0; (x = cmp_queue((enum cmp_qdisc)q)); q++) {
			union gw_qopts opts;
			char *try[] = { "tc", "qdisc", "replace", "dev", "lo", "root", "handle",
					handle, NULL, NULL };

			gw_qopts_init(gw_qdisc_kind(x->ops), &opts);
			try[8] = (char *)gw_kind_tc_name(x->ops, &opts);	/* fifo: pfifo */
			snprintf(handle, sizeof(handle), "%d:", q + 2);
			got[2 + q] = run_quiet(try) == 0;
		}
		_exit(write(fds[1], got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 254);
	}
	close(fds[1]);
	if (p < 0 || read(fds[0], ok, PROBE_N) != PROBE_N) {
		close(fds[0]);
		if (p > 0)
			waitpid(p, &status, 0);
		return -1;
	}
	close(fds[0]);
	if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

/* The UML helper: next to the binary (installed: ../libexec/gatewayd/, the build tree:
 * ../bench/uml/), or where GATEWAYD_UML says. */
static bool find_uml_helper(const char *self, char *out, size_t len)
{
	char dir[PATH_MAX];
	const char *env = getenv("GATEWAYD_UML");
	static const char *const rel[] = { "gatewayd-uml", "../libexec/gatewayd/gatewayd-uml",
					   "../bench/uml/gatewayd-uml" };

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) == 0;
	}
	snprintf(dir, sizeof(dir), "%s", self);
	dirname(dir);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if (snprintf(out, len, "%.*s/%s", (int)(len - 40), dir, rel[i]) < (int)len &&
		    access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* The daemon the bench starts in its gateway (and as its reflector): beside this binary (the
 * build tree), else ../../sbin/gatewayd from libexec/gatewayd/ where `make install` puts it. */
static bool find_gatewayd(const char *self, char *out, size_t len)
{
	static const char *const rel[] = { "gatewayd", "../../sbin/gatewayd" };
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", self);
	dirname(dir);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (snprintf(out, len, "%.*s/%s", (int)(len - 40), dir, rel[i]) < (int)len &&
		    access(out, X_OK) == 0)
			return true;
	return false;
}

static int exec_in_uml(const struct cmp_opts *o, const char *helper)
{
	char dur[32], tmo[32], rtt[32], q[CMP_QDISCS_TEXT_MAX] = "", steps[256] = "", stept[32];
	char ways[64] = "", nrep[16], nflows[16];
	char *argv[56];
	int i = 0;

	snprintf(dur, sizeof(dur), "%.3fs", o->duration_s);
	snprintf(rtt, sizeof(rtt), "%lldus", (long long)o->rtt_us);
	/* each run, its set-up and tear-down (slow in a one-CPU guest), and the boot */
	if (o->sc.on)
		snprintf(tmo, sizeof(tmo), "%.0f", (double)o->sc.n_ways * (CMP_SC_IDLE_S + 30 +
			 o->sc.step_s * (double)o->sc.n_steps) + 60);
	else
		snprintf(tmo, sizeof(tmo), "%.0f", o->n_qdiscs * o->repeat * (o->duration_s + 20) + 60);
	for (size_t k = 0; k < o->sc.n_steps; k++) {
		size_t l = strlen(steps);

		snprintf(steps + l, sizeof(steps) - l, "%s%llukbit/%llukbit", k ? "," : "",
			 (unsigned long long)(o->sc.cap[k][1] * 8 / 1000),
			 (unsigned long long)(o->sc.cap[k][0] * 8 / 1000));
	}
	for (size_t k = 0; k < o->sc.n_ways; k++) {
		size_t l = strlen(ways);

		snprintf(ways + l, sizeof(ways) - l, "%s%s", k ? "," : "", cmp_way_name(o->sc.ways[k]));
	}
	snprintf(stept, sizeof(stept), "%.3fs", o->sc.step_s);
	for (size_t k = 0; k < o->n_qdiscs; k++) {
		size_t l = strlen(q);

		/* with their knobs, as the guest's --qdiscs reads them again */
		snprintf(q + l, sizeof(q) - l, "%s%s", k ? "," : "", o->pick[k].label);
	}
	argv[i++] = (char *)helper;
	argv[i++] = "--timeout";
	argv[i++] = tmo;
	/* IPv6 is a module of linux.uml's, which nothing loads before the testbed's sysctls
	 * want it: at boot, and only for a run that uses it (a guest without it sends no
	 * router solicitation or DAD of its own into the other tests' counts) */
	if (o->family != 4) {
		argv[i++] = "--modules";
		argv[i++] = "ipv6";
	}
	/* the guest's own network, so the status page is read from this host (relay.c);
	 * GATEWAYD_UML_NET=0 makes no tap device. Not for the scenario yet: booted with
	 * --net, its guest command failed at once in 3 runs of 3 here (status 1, no output;
	 * not under strace or set -x), which the queue comparison never did */
	const char *net = getenv("GATEWAYD_UML_NET");

	if (!o->sc.on && (!net || strcmp(net, "0")) && access("/dev/net/tun", R_OK | W_OK) == 0)
		argv[i++] = "--net";
	if (o->out[0]) {
		argv[i++] = "--visible";
		argv[i++] = (char *)o->out;
	}
	argv[i++] = "--";
	argv[i++] = (char *)o->self;
	argv[i++] = "--compare";
	argv[i++] = "--in-uml";
	argv[i++] = "--kernel";
	argv[i++] = "host";
	if (o->own) {
		/* the guest reads the config again (its root is the host's) and makes the same
		 * runs: the rates are the link's, --qdiscs the user's own */
		argv[i++] = "-c";
		argv[i++] = (char *)o->config;
		argv[i++] = "--link";
		argv[i++] = (char *)o->own_link;
	} else {
		argv[i++] = "--rate";
		argv[i++] = (char *)o->rate_text;
	}
	argv[i++] = "--rtt";
	argv[i++] = rtt;
	argv[i++] = "--duration";
	argv[i++] = dur;
	if (!o->own || o->user_qdiscs[0]) {
		argv[i++] = "--qdiscs";
		argv[i++] = o->own ? (char *)o->user_qdiscs : q;
	}
	if (o->repeat > 1) {
		snprintf(nrep, sizeof(nrep), "%d", o->repeat);
		argv[i++] = "--repeat";
		argv[i++] = nrep;
	}
	/* the load's settings, where they are not the defaults */
	if (o->profile != CMP_PROF_RRUL) {
		argv[i++] = "--profile";
		argv[i++] = (char *)cmp_profile_name(o->profile);
	}
	if (o->flows != CMP_TCP_FLOWS) {
		snprintf(nflows, sizeof(nflows), "%d", o->flows);
		argv[i++] = "--flows";
		argv[i++] = nflows;
	}
	if (o->family != 4) {
		argv[i++] = "--family";
		argv[i++] = o->family == 6 ? "6" : "46";
	}
	if (o->out[0]) {
		argv[i++] = "--out";
		argv[i++] = (char *)o->out;
	}
	if (o->sc.on) {
		argv[i++] = "--scenario";
		argv[i++] = "variable";
		argv[i++] = "--steps";
		argv[i++] = steps;
		argv[i++] = "--step-time";
		argv[i++] = stept;
		argv[i++] = "--ways";
		argv[i++] = ways;
		if (o->sc.ar_keys[0]) {
			argv[i++] = "--autorate";
			argv[i++] = (char *)o->sc.ar_keys;
		}
		argv[i++] = "--probe-method";
		argv[i++] = (char *)o->sc.probe_method;
	}
	argv[i] = NULL;
	fflush(stdout);
	execv(helper, argv);
	fprintf(stderr, "gatewayd: cannot run %s: %s\n", helper, strerror(errno));
	return 1;
}

/* The table of one run per queue: a column each, printed from each run's figures as
 * results.json has them (bench/table.c). */
static void print_rows(const struct cmp_result *r, size_t n)
{
	const char **label = calloc(n + 1, sizeof(*label));
	struct json_object **fig = calloc(n + 1, sizeof(*fig));

	for (size_t i = 0; label && fig && i < n; i++) {
		label[i] = cmp_result_label(&r[i]);
		fig[i] = r[i].ran ? cmp_figures_json(&r[i]) : NULL;
	}
	if (label && fig)
		cmp_table_print(NULL, label, fig, n, 13);
	else
		printf("(no table: out of memory)\n");
	for (size_t i = 0; fig && i < n; i++)
		json_object_put(fig[i]);
	free(label);
	free(fig);
}

static void print_table(const struct cmp_opts *o, const struct cmp_result *r, size_t n)
{
	char rates[80];

	if (cmp_asymmetric(o))
		snprintf(rates, sizeof(rates), "%s down, %s up", o->dir_text[1], o->dir_text[0]);
	else
		snprintf(rates, sizeof(rates), "%s each way", o->rate_text);
	char load[64];
	int up = cmp_profile_flows(o->profile, o->flows, 0);
	int down = cmp_profile_flows(o->profile, o->flows, 1);

	if (up && down)
		snprintf(load, sizeof(load), "%d+%d TCP", up, down);
	else
		snprintf(load, sizeof(load), "%d TCP %s", up + down, up ? "up" : "down");
	printf("\n%s, base RTT %.1f ms%s; %.0f s per queue: idle, %s%s, idle (--profile %s)\n",
	       rates, o->no_delay ? 0.0 : o->rtt_us / 1000.0,
	       o->no_delay ? " (no netem: no added delay)" : "", o->duration_s, load,
	       o->profile == CMP_PROF_RRUL ? ", TCP + UDP flood" : "", cmp_profile_name(o->profile));
	if (o->repeat > 1)
		cmp_repeat_table(o, r, n);
	else
		print_rows(r, n);
	for (size_t i = 0; i < n; i++)
		if (r[i].note[0] && o->repeat > 1)
			printf("note: %s (repetition %d): %s\n", cmp_result_label(&r[i]),
			       r[i].repeat + 1, r[i].note);
		else if (r[i].note[0])
			printf("note: %s: %s\n", cmp_result_label(&r[i]), r[i].note);
	fputs(GW_BENCH_ROWS_KEY, stdout);
	/* cake's own view of its queue: each tin's delay under load */
	for (size_t i = 0; i < n && o->repeat <= 1; i++)
		for (int d = 0; r[i].ran && d < 2; d++) {
			if (!r[i].n_tins[d])
				continue;
			printf("%s's tins %s (peak/average delay under load):", cmp_result_label(&r[i]),
			       d ? "down" : "up");
			for (int g = 0; g < r[i].n_tins[d]; g++)
				printf("%s %s %.1f/%.1f ms", g ? "," : "", r[i].tins[d][g].name,
				       r[i].tins[d][g].peak_ms, r[i].tins[d][g].avg_ms);
			printf("\n");
		}
	for (size_t i = 0; i < n; i++)
		if (r[i].ran && r[i].cpu_busy >= CMP_CPU_SATURATED) {
			printf("note: the bench's CPU was %.0f%% busy under load%s: goodput and latency then measure the CPU as much as the queue; a lower --rate, or a quieter machine, gives the queue's own figures\n",
			       r[i].cpu_busy * 100, o->in_uml ? " (one CPU in the UML guest)" : "");
			break;
		}
}

/* Directories made here are 0755 whatever the umask: the daemon's web process (another user)
 * reads compare_dir through them. Through the new directory's fd, not its name: whoever may
 * write beside it could have put a link there meanwhile. */
static int mkdir_one(const char *dir)
{
	int fd, r = 0;

	if (mkdir(dir, 0755) < 0)
		return errno == EEXIST ? 0 : -errno;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fchmod(fd, 0755) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int mkdir_p(const char *path)
{
	char tmp[4200];
	int r;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if ((r = mkdir_one(tmp)))
				return r;
			*p = '/';
		}
	return mkdir_one(tmp);
}

/* A run's flows plot: flows-LABEL.svg; repeated, flows-LABEL-repK.svg (K from 1). */
static void flows_path(const struct cmp_opts *o, const struct cmp_result *r, char *buf,
		       size_t len)
{
	char name[256];

	/* (the precisions: out is at most 4095, a label's file name under CMP_LABEL_MAX) */
	cmp_label_file(r, name, sizeof(name));
	if (o->repeat > 1)
		snprintf(buf, len, "%.4000s/flows-%.150s-rep%d.svg", o->out, name,
			 r->repeat % 100 + 1);
	else
		snprintf(buf, len, "%.4000s/flows-%.150s.svg", o->out, name);
}

static int write_outputs(const struct cmp_opts *o, struct cmp_result *r, size_t n,
			 const char *kernel, const struct cmp_sysinfo *si)
{
	char path[4200], err[4600], name[256];
	int bad = 0, nflent = 0;
	/* the CDF and the timeline: the first repetition's (the box plots have them all) */
	size_t first = o->repeat > 1 ? (size_t)o->n_qdiscs : n;

	/* each file whole or not at all, 0644 for the daemon's web process (outfile.c) */
	snprintf(path, sizeof(path), "%s/results.json", o->out);
	if (cmp_write_json(path, o, r, n, kernel, si, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	snprintf(path, sizeof(path), "%s/latency-cdf.svg", o->out);
	bad += cmp_svg_cdf(path, o, r, first) != 0;
	snprintf(path, sizeof(path), "%s/latency-time.svg", o->out);
	bad += cmp_svg_timeline(path, o, r, first) != 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].ran)
			continue;
		flows_path(o, &r[i], path, sizeof(path));
		bad += cmp_svg_flows(path, o, &r[i]) != 0;
		/* and flent's own file of the queue's run, for flent and its users' scripts */
		if (cmp_write_flent(o->out, o, &r[i], kernel, si, name, sizeof(name), err,
				    sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			bad++;
		} else
			nflent++;
	}
	/* a repeated run's box plots, from results.json as it was written */
	if (!bad && o->repeat > 1 && cmp_repeat_plots(o->out, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	/* and the page a person reads, from results.json as it was written */
	if (!bad && cmp_html_run_dir(o->out, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	if (!cmp_out_failed(bad, o->out))
		printf("results: %s/results.json, report.html, latency-cdf.svg, latency-time.svg, %sflows-*.svg, %s-*.flent.gz (%d, for flent)\n",
		       o->out, o->repeat > 1 ? CMP_BOX_INDUCED ", " CMP_BOX_GOODPUT ", " : "",
		       cmp_flent_test(o), nflent);
	return bad ? -EIO : 0;
}

/* The queues pick i's tree needs (bits by enum cmp_qdisc). */
static uint32_t pick_needs(const struct cmp_opts *o, size_t i)
{
	return o->pick[i].needs ? o->pick[i].needs : 1u << o->qdiscs[i];
}

static int run_all(struct cmp_opts *o, const char *kernel)
{
	/* every queue's every repetition, in the order they run: repetition by repetition, each
	 * in --qdiscs' order rotated by its number (fifo, fq_codel, cake; then fq_codel, cake,
	 * fifo; ...), so no queue always runs in the same place or after the same one. Found
	 * with --qdiscs fifo,fq_codel,fq_codel,cake --repeat 3 in UML: the fq_codel right after
	 * the fifo read induced p50 1.38-1.42 ms in every repetition, the one after it
	 * 1.56-1.66 ms, and the intervals rightly called two identical queues apart */
	size_t nr = o->n_qdiscs * (size_t)(o->repeat > 1 ? o->repeat : 1);
	struct cmp_result *r = calloc(nr ? nr : 1, sizeof(*r));
	struct cmp_bed bed = { .home = -1 };
	struct cmp_sysinfo si;
	char err[512];
	int sfd, rc = 0, done = 0;

	if (!r) {
		fprintf(stderr, "gatewayd: out of memory\n");
		return 1;
	}
	if ((sfd = gw_signalfd(SIGINT, SIGTERM, SIGHUP, 0)) < 0) {
		fprintf(stderr, "gatewayd: signalfd: %s\n", strerror(-sfd));
		free(r);
		return 1;
	}
	for (int i = 0; i < 4; i++)
		bed.fd[i] = -1;
	/* the server answers the UDP probes (gatewayd --reflect), for each way's delay */
	if (cmp_bed_up(&bed, o, err, sizeof(err)) || cmp_start_reflector(&bed, o, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: building the testbed: %s\n", err);
		cmp_bed_down(&bed);
		close(sfd);
		free(r);
		return 1;
	}
	cmp_sysinfo_read(&bed, &si);
	printf("testbed: namespaces %s (client), %s (gateway), %s (delay box), %s (server)\n",
	       bed.ns[0], bed.ns[1], bed.ns[2], bed.ns[3]);
	pid_t relay = cmp_relay_page(&bed, o->in_uml);	/* relay.c: from the host, in UML */

	if (o->own)
		printf("-c %s: link %s at %s down, %s up, against the fifo at the same rates%s%s\n",
		       o->config, o->own_link, o->dir_text[1], o->dir_text[0],
		       o->n_qdiscs > 2 ? ", and with each --qdiscs queue in every leaf" : "",
		       o->own_autorate ? "; its autorate is left out (the bench's line does not vary: --scenario variable measures autorate)" : "");
	for (size_t j = 0; j < nr && rc != 130; j++) {
		struct cmp_result *x = &r[j];
		size_t i = (j % o->n_qdiscs + j / o->n_qdiscs) % o->n_qdiscs;
		char rep[48] = "";

		x->q = o->qdiscs[i];
		x->repeat = (int)(j / o->n_qdiscs);
		x->queue = (int)i;
		snprintf(x->label, sizeof(x->label), "%s", o->pick[i].label);
		snprintf(x->knobs, sizeof(x->knobs), "%s", o->pick[i].knobs);
		if (o->repeat > 1) {
			snprintf(rep, sizeof(rep), " (repetition %d/%d)", x->repeat + 1, o->repeat);
			if (j % o->n_qdiscs == 0)
				printf("repetition %d of %d\n", x->repeat + 1, o->repeat);
		}
		int lacks = -1;

		for (int q = 0; q < CMP_Q_COUNT && lacks < 0; q++)
			if ((pick_needs(o, i) & (1u << q)) && !o->have[q])
				lacks = q;
		x->own = o->pick[i].own;
		if (lacks >= 0) {
			snprintf(x->note, sizeof(x->note), "skipped: this kernel has no %s",
				 cmp_queue((enum cmp_qdisc)lacks)->ops->name);
			if (!x->repeat)
				printf("%s: %s\n", cmp_result_label(x), x->note);
			continue;
		}
		int e = cmp_run_one(&bed, o, x, sfd);

		if (e == -EINTR) {
			printf("\ninterrupted: removing the testbed\n");
			rc = 130;
			break;
		}
		if (e || !x->ran) {
			x->ran = false;
			printf("%s%s: failed: %s\n", cmp_result_label(x), rep, x->note);
			rc = 1;
			continue;
		}
		cmp_derive(o, x);
		printf("%s%s: done in %.1f s (set-up %.1f s, measuring %.1f s, the rest tear-down)\n",
		       cmp_result_label(x), rep, x->total_s, x->setup_s,
		       x->phase_start[CMP_PH_COUNT]);
		done++;
	}
	cmp_relay_stop(relay);
	cmp_bed_down(&bed);
	close(sfd);
	if (rc != 130) {
		print_table(o, r, nr);
		if (o->out[0] && done && write_outputs(o, r, nr, kernel, &si))
			rc = 1;
	}
	for (size_t i = 0; i < nr; i++)
		cmp_result_free(&r[i]);
	free(r);
	return rc;
}

static int compare_main(int argc, char **argv, struct cmp_opts *op)
{
	struct cmp_opts o;
	char helper[PATH_MAX];
	bool ok[PROBE_N] = { false };
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* progress lines show as they come, even in UML */
	r = parse_opts(argc, argv, op);
	o = *op;
	if (r)
		return r > 0 ? 0 : 2;
	bool out_given = o.out[0] != 0 || o.in_uml;
	if (readlink("/proc/self/exe", o.self, sizeof(o.self) - 1) < 0) {
		fprintf(stderr, "gatewayd: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	if (!find_gatewayd(o.self, o.gatewayd, sizeof(o.gatewayd))) {
		fprintf(stderr, "gatewayd: no gatewayd beside %s or in ../../sbin/ from it: the bench starts the daemon it measures\n",
			o.self);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "gatewayd: --compare needs root (network namespaces, qdiscs)\n");
		return 1;
	}
	if (probe_kernel(ok) < 0) {
		fprintf(stderr, "gatewayd: cannot make a network namespace to test the kernel in\n");
		return 1;
	}
	/* full: netem, ifb and the kind of every queue asked for */
	bool full = ok[0] && ok[1];
	char missing[128] = "";
	size_t n = (size_t)snprintf(missing, sizeof(missing), "%s", ok[0] ? "" : " netem");

	for (size_t i = 0; i < o.n_qdiscs; i++)
		for (int q = 0; q < CMP_Q_COUNT; q++) {
			if (!(pick_needs(&o, i) & (1u << q)) || ok[2 + q])
				continue;
			const char *kind = cmp_queue((enum cmp_qdisc)q)->ops->name;

			full = false;
			if (!strstr(missing, kind) && n < sizeof(missing))
				n += (size_t)snprintf(missing + n, sizeof(missing) - n, " %s", kind);
		}
	if (!ok[1] && n < sizeof(missing))
		snprintf(missing + n, sizeof(missing) - n, " ifb");
	/* --kernel host is a promise: a queue it cannot build is refused before anything starts
	 * (auto moves to User-Mode Linux, or runs what it can where that is missing) */
	if (o.kernel == CMP_KERNEL_HOST) {
		char lacks[128] = "", asked[CMP_QDISCS_TEXT_MAX] = "";
		size_t nl = 0, na = 0;

		for (size_t i = 0; i < o.n_qdiscs; i++) {
			bool lacking = false;

			for (int q = 0; q < CMP_Q_COUNT; q++) {
				if (!(pick_needs(&o, i) & (1u << q)) || ok[2 + q])
					continue;
				const char *kind = cmp_queue((enum cmp_qdisc)q)->ops->name;

				lacking = true;
				if (!strstr(lacks, kind) && nl < sizeof(lacks))
					nl += (size_t)snprintf(lacks + nl, sizeof(lacks) - nl, "%s%s",
							       nl ? ", " : "", kind);
			}
			if (lacking && na < sizeof(asked))
				na += (size_t)snprintf(asked + na, sizeof(asked) - na, "%s%s",
						       na ? "," : "", o.pick[i].label);
		}
		if (nl) {
			fprintf(stderr, "gatewayd: --kernel host: this kernel has no %s (%s %s): leave those out, or let --kernel auto or uml run the bench in User-Mode Linux\n",
				lacks, o.own ? "the runs" : "--qdiscs", asked);
			return 2;
		}
	}
	/* no --out: where a running daemon's status page looks: compare_dir of the config
	 * given with -c, else compare_dir's default */
	if (!o.out[0] && o.config[0]) {
		struct gw_config *cfg = NULL;
		char err[512];

		if (gw_config_load(o.config, &cfg, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			return 2;
		}
		snprintf(o.out, sizeof(o.out), "%s",
			 cfg->compare_dir ? cfg->compare_dir : GW_COMPARE_DIR_DEFAULT);
		gw_config_free(cfg);
	}
	if (!o.out[0])
		snprintf(o.out, sizeof(o.out), "%s", GW_COMPARE_DIR_DEFAULT);
	/* the scenario's files beside, not over, the queue comparison the status page shows */
	if (o.sc.on && !out_given) {
		size_t l = strlen(o.out);

		snprintf(o.out + l, sizeof(o.out) - l, "/variable");
	}
	if (o.out[0]) {
		char abs[PATH_MAX], err[PATH_MAX + 256];
		int dfd;

		if ((r = mkdir_p(o.out)) || !realpath(o.out, abs)) {
			fprintf(stderr, "gatewayd: --out %s: %s\n", o.out, strerror(r ? -r : errno));
			return 1;
		}
		snprintf(o.out, sizeof(o.out), "%s", abs);
		/* before the bench runs: the files are written through it as root, so it must be
		 * the caller's own and writable by no one else (outfile.c); readable by all, as
		 * the daemon's web process reads compare_dir as another user */
		if ((dfd = cmp_out_dir_open(o.out, err, sizeof(err))) < 0) {
			fprintf(stderr, "gatewayd: --out %s\n", err);
			return 1;
		}
		fchmod(dfd, 0755);
		close(dfd);
	}
	if (o.kernel == CMP_KERNEL_UML || (o.kernel == CMP_KERNEL_AUTO && !full)) {
		const char *linux_uml = getenv("UML_LINUX");	/* as the helper reads it */

		if (!linux_uml || !*linux_uml)
			linux_uml = "/usr/bin/linux.uml";
		if (find_uml_helper(o.self, helper, sizeof(helper)) && access(linux_uml, X_OK) == 0) {
			if (o.own && o.own_nft)
				printf("note: link %s classifies with nftables, which needs the inet family in the guest's kernel (Debian's linux.uml has none: its runs then fail to apply; see docs/compare.md)\n",
				       o.own_link);
			if (o.kernel == CMP_KERNEL_UML)
				printf("--kernel uml: running the comparison inside User-Mode Linux (%s)\n",
				       helper);
			else
				printf("this kernel has no%s: running the comparison inside User-Mode Linux instead (--kernel uml; %s)\n",
				       missing, helper);
			return exec_in_uml(&o, helper);
		}
		if (o.kernel == CMP_KERNEL_UML) {
			fprintf(stderr, "gatewayd: --kernel uml: no %s (apt-get install user-mode-linux) or no gatewayd-uml helper next to %s\n",
				linux_uml, o.self);
			return 1;
		}
		printf("this kernel has no%s, and User-Mode Linux is not available (no /usr/bin/linux.uml or gatewayd-uml helper): running what this kernel can\n",
		       missing);
	}
	if (!ok[1]) {
		fprintf(stderr, "gatewayd: this kernel has no ifb device: the download direction cannot be shaped\n");
		return 1;
	}
	o.no_delay = !ok[0];
	if (o.no_delay)
		printf("no netem: the delay box adds no delay (the RTT is the namespaces' own)\n");
	for (int q = 0; q < CMP_Q_COUNT; q++)
		o.have[q] = ok[2 + q];
	if (o.sc.on)
		return cmp_sc_main(&o, o.in_uml ? "uml" : "host");
	return run_all(&o, o.in_uml ? "uml" : "host");
}

int gw_compare_main(int argc, char **argv)
{
	struct cmp_opts o;
	int r;

	memset(&o, 0, sizeof(o));
	r = compare_main(argc, argv, &o);
	cmp_own_free(&o);
	return r;
}
