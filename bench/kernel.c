/* bench/kernel.c: which kernel runs the bench: this one's netem, ifb and queue kinds tried in
 * a namespace of a child's, --kernel's promise kept, and, when this kernel lacks what the
 * runs need (or --kernel uml), a User-Mode Linux guest started through bench/uml/gatewayd-uml
 * that runs this same program again with the same settings. Where the programs it runs are:
 * the daemon it measures, the UML helper. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/kernel.h"
#include "bench/options.h"
#include "bench/queues.h"
#include "bench/scenario.h"
#include "qdisc/qdisc.h"

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

/* The child's tries, a byte each: [0] netem, [1] ifb, [2 + q] queue q's kind */
static void probe_child(int fd)
{
	static char *const netem[] = { "tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:",
				       "netem", NULL };
	static char *const ifb[] = { "ip", "link", "add", "ifbprobe", "type", "ifb", NULL };
	const struct bench_queue *x;
	char got[2 + BENCH_Q_COUNT] = { 0 }, handle[16];

	if (unshare(CLONE_NEWNET) < 0)
		_exit(255);
	got[0] = run_quiet(netem) == 0;
	got[1] = run_quiet(ifb) == 0;
	for (int q = 0; (x = bench_queue((enum bench_qdisc)q)); q++) {
		union gw_qopts opts;
		char *try[] = { "tc", "qdisc", "replace", "dev", "lo", "root", "handle", handle,
				NULL, NULL };

		gw_qopts_init(gw_qdisc_kind(x->ops), &opts);
		try[8] = (char *)gw_kind_tc_name(x->ops, &opts);	/* fifo: pfifo */
		snprintf(handle, sizeof(handle), "%d:", q + 2);
		got[2 + q] = run_quiet(try) == 0;
	}
	_exit(write(fd, got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 254);
}

int bench_kernel_probe(struct bench_kernel_has *k)
{
	char got[2 + BENCH_Q_COUNT];
	int status, fds[2];
	pid_t p;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((p = fork()) == 0)
		probe_child(fds[1]);
	close(fds[1]);
	if (p < 0 || read(fds[0], got, sizeof(got)) != (ssize_t)sizeof(got)) {
		close(fds[0]);
		if (p > 0)
			waitpid(p, &status, 0);
		return -1;
	}
	close(fds[0]);
	if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	k->netem = got[0];
	k->ifb = got[1];
	for (int q = 0; q < BENCH_Q_COUNT; q++)
		k->queue[q] = got[2 + q];
	return 0;
}

uint32_t bench_pick_needs(const struct bench_opts *o, size_t i)
{
	return o->pick[i].needs ? o->pick[i].needs : 1u << o->qdiscs[i];
}

/* Run i's kinds this kernel lacks, each once, onto buf (after sep, then ", "): true if any */
static bool lacking(const struct bench_opts *o, size_t i, const struct bench_kernel_has *k,
		    char *buf, size_t len, const char *sep)
{
	bool any = false;

	for (int q = 0; q < BENCH_Q_COUNT; q++) {
		if (!(bench_pick_needs(o, i) & (1u << q)) || k->queue[q])
			continue;
		const char *kind = bench_queue((enum bench_qdisc)q)->ops->name;
		size_t n = strlen(buf);

		any = true;
		if (!strstr(buf, kind) && n < len)
			snprintf(buf + n, len - n, "%s%s", n ? sep : sep[0] == ' ' ? " " : "", kind);
	}
	return any;
}

int bench_kernel_check(const struct bench_opts *o, const struct bench_kernel_has *k, char *missing,
		       size_t len, bool *full)
{
	char lacks[128] = "", asked[BENCH_QDISCS_TEXT_MAX] = "";

	/* full: netem, ifb and the kind of every queue asked for */
	*full = k->netem && k->ifb;
	snprintf(missing, len, "%s", k->netem ? "" : " netem");
	for (size_t i = 0; i < o->n_qdiscs; i++)
		*full &= !lacking(o, i, k, missing, len, " ");
	if (!k->ifb && strlen(missing) < len)
		snprintf(missing + strlen(missing), len - strlen(missing), " ifb");
	/* --kernel host is a promise: a queue it cannot build is refused before anything starts
	 * (auto moves to User-Mode Linux, or runs what it can where that is missing) */
	if (o->kernel != BENCH_KERNEL_HOST)
		return 0;
	for (size_t i = 0; i < o->n_qdiscs; i++)
		if (lacking(o, i, k, lacks, sizeof(lacks), ", ") && strlen(asked) < sizeof(asked))
			snprintf(asked + strlen(asked), sizeof(asked) - strlen(asked), "%s%s",
				 asked[0] ? "," : "", o->pick[i].label);
	if (!lacks[0])
		return 0;
	fprintf(stderr, "gatewayd: --kernel host: this kernel has no %s (%s %s): leave those out, or let --kernel auto or uml run the bench in User-Mode Linux\n",
		lacks, o->own ? "the runs" : "--qdiscs", asked);
	return 2;
}

/* The first of rel (paths from self's directory) that is there to run, into out */
static bool find_beside(const char *self, const char *const *rel, size_t n, char *out,
			size_t len)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", self);
	dirname(dir);
	for (size_t i = 0; i < n; i++)
		if (snprintf(out, len, "%.*s/%s", (int)(len - 40), dir, rel[i]) < (int)len &&
		    access(out, X_OK) == 0)
			return true;
	return false;
}

bool bench_find_gatewayd(const char *self, char *out, size_t len)
{
	static const char *const rel[] = { "gatewayd", "../../sbin/gatewayd" };

	return find_beside(self, rel, 2, out, len);
}

/* The UML helper: next to the binary (installed: libexec/gatewayd/, the build tree:
 * ../bench/uml/), or where GATEWAYD_UML says. */
static bool find_uml_helper(const char *self, char *out, size_t len)
{
	static const char *const rel[] = { "gatewayd-uml", "../libexec/gatewayd/gatewayd-uml",
					   "../bench/uml/gatewayd-uml" };
	const char *env = getenv("GATEWAYD_UML");

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) == 0;
	}
	return find_beside(self, rel, 3, out, len);
}

/* The helper's command line and the guest's bench's, with the texts they point to */
struct uml_argv {
	char *argv[56];
	int n;
	char dur[32], tmo[32], rtt[32], q[BENCH_QDISCS_TEXT_MAX], steps[256], stept[32];
	char ways[64], nrep[16], nflows[16];
};

static void arg(struct uml_argv *a, const char *s)
{
	a->argv[a->n++] = (char *)s;
}

static void arg2(struct uml_argv *a, const char *s, const char *v)
{
	arg(a, s);
	arg(a, v);
}

/* gatewayd-uml's own options: how long the guest may take, its modules, network, output */
static void helper_args(struct uml_argv *a, const struct bench_opts *o, const char *helper)
{
	const char *net = getenv("GATEWAYD_UML_NET");

	/* each run, its set-up and tear-down (slow in a one-CPU guest), and the boot */
	if (o->sc.on)
		snprintf(a->tmo, sizeof(a->tmo), "%.0f", (double)o->sc.n_ways * (BENCH_SC_IDLE_S +
			 30 + o->sc.step_s * (double)o->sc.n_steps) + 60);
	else
		snprintf(a->tmo, sizeof(a->tmo), "%.0f",
			 o->n_qdiscs * o->repeat * (o->duration_s + 20) + 60);
	arg(a, helper);
	arg2(a, "--timeout", a->tmo);
	/* IPv6 is a module of linux.uml's, which nothing loads before the testbed's sysctls
	 * want it: at boot, and only for a run that uses it (a guest without it sends no
	 * router solicitation or DAD of its own into the other tests' counts) */
	if (o->family != 4)
		arg2(a, "--modules", "ipv6");
	/* the guest's own network, so the status page is read from this host (relay.c);
	 * GATEWAYD_UML_NET=0 makes no tap device. Not for the scenario yet: booted with
	 * --net, its guest command failed at once in 3 runs of 3 here (status 1, no output;
	 * not under strace or set -x), which the queue comparison never did */
	if (!o->sc.on && (!net || strcmp(net, "0")) && access("/dev/net/tun", R_OK | W_OK) == 0)
		arg(a, "--net");
	if (o->out[0])
		arg2(a, "--visible", o->out);
	arg(a, "--");
}

/* the scenario's settings, as the guest's bench reads them again */
static void scenario_args(struct uml_argv *a, const struct bench_opts *o)
{
	for (size_t k = 0; k < o->sc.n_steps; k++) {
		size_t l = strlen(a->steps);

		snprintf(a->steps + l, sizeof(a->steps) - l, "%s%llukbit/%llukbit", k ? "," : "",
			 (unsigned long long)(o->sc.cap[k][1] * 8 / 1000),
			 (unsigned long long)(o->sc.cap[k][0] * 8 / 1000));
	}
	for (size_t k = 0; k < o->sc.n_ways; k++) {
		size_t l = strlen(a->ways);

		snprintf(a->ways + l, sizeof(a->ways) - l, "%s%s", k ? "," : "",
			 bench_way_name(o->sc.ways[k]));
	}
	snprintf(a->stept, sizeof(a->stept), "%.3fs", o->sc.step_s);
	arg2(a, "--scenario", "variable");
	arg2(a, "--steps", a->steps);
	arg2(a, "--step-time", a->stept);
	arg2(a, "--ways", a->ways);
	if (o->sc.ar_keys[0])
		arg2(a, "--autorate", o->sc.ar_keys);
	arg2(a, "--probe-method", o->sc.probe_method);
}

/* the load's settings, where they are not the defaults */
static void load_args(struct uml_argv *a, const struct bench_opts *o)
{
	if (o->repeat > 1) {
		snprintf(a->nrep, sizeof(a->nrep), "%d", o->repeat);
		arg2(a, "--repeat", a->nrep);
	}
	if (o->profile != BENCH_PROF_RRUL)
		arg2(a, "--profile", bench_profile_name(o->profile));
	if (o->flows != BENCH_TCP_FLOWS) {
		snprintf(a->nflows, sizeof(a->nflows), "%d", o->flows);
		arg2(a, "--flows", a->nflows);
	}
	if (o->family != 4)
		arg2(a, "--family", o->family == 6 ? "6" : "46");
}

/* The bench in the guest: this program, the same settings, this kernel's promise */
static void guest_args(struct uml_argv *a, const struct bench_opts *o)
{
	snprintf(a->dur, sizeof(a->dur), "%.3fs", o->duration_s);
	snprintf(a->rtt, sizeof(a->rtt), "%lldus", (long long)o->rtt_us);
	for (size_t k = 0; k < o->n_qdiscs; k++) {
		size_t l = strlen(a->q);

		/* with their knobs, as the guest's --qdiscs reads them again */
		snprintf(a->q + l, sizeof(a->q) - l, "%s%s", k ? "," : "", o->pick[k].label);
	}
	arg(a, o->self);
	arg(a, "--compare");
	arg(a, "--in-uml");
	arg2(a, "--kernel", "host");
	if (o->own) {
		/* the guest reads the config again (its root is the host's) and makes the same
		 * runs: the rates are the link's, --qdiscs the user's own */
		arg2(a, "-c", o->config);
		arg2(a, "--link", o->own_link);
	} else {
		arg2(a, "--rate", o->rate_text);
	}
	arg2(a, "--rtt", a->rtt);
	arg2(a, "--duration", a->dur);
	if (!o->own || o->user_qdiscs[0])
		arg2(a, "--qdiscs", o->own ? o->user_qdiscs : a->q);
	load_args(a, o);
	if (o->out[0])
		arg2(a, "--out", o->out);
	if (o->sc.on)
		scenario_args(a, o);
}

static int exec_in_uml(const struct bench_opts *o, const char *helper)
{
	static struct uml_argv a;	/* (execv's, or the process's end) */

	memset(&a, 0, sizeof(a));
	helper_args(&a, o, helper);
	guest_args(&a, o);
	a.argv[a.n] = NULL;
	fflush(stdout);
	execv(helper, a.argv);
	fprintf(stderr, "gatewayd: cannot run %s: %s\n", helper, strerror(errno));
	return 1;
}

int bench_kernel_choose(const struct bench_opts *o, bool full, const char *missing)
{
	const char *linux_uml = getenv("UML_LINUX");	/* as the helper reads it */
	char helper[PATH_MAX];

	if (o->kernel == BENCH_KERNEL_HOST || (o->kernel == BENCH_KERNEL_AUTO && full))
		return -1;
	if (!linux_uml || !*linux_uml)
		linux_uml = "/usr/bin/linux.uml";
	if (find_uml_helper(o->self, helper, sizeof(helper)) && access(linux_uml, X_OK) == 0) {
		if (o->own && o->own_nft)
			printf("note: link %s classifies with nftables, which needs the inet family in the guest's kernel (Debian's linux.uml has none: its runs then fail to apply; see docs/compare.md)\n",
			       o->own_link);
		if (o->kernel == BENCH_KERNEL_UML)
			printf("--kernel uml: running the comparison inside User-Mode Linux (%s)\n",
			       helper);
		else
			printf("this kernel has no%s: running the comparison inside User-Mode Linux instead (--kernel uml; %s)\n",
			       missing, helper);
		return exec_in_uml(o, helper);
	}
	if (o->kernel == BENCH_KERNEL_UML) {
		fprintf(stderr, "gatewayd: --kernel uml: no %s (apt-get install user-mode-linux) or no gatewayd-uml helper next to %s\n",
			linux_uml, o->self);
		return 1;
	}
	printf("this kernel has no%s, and User-Mode Linux is not available (no /usr/bin/linux.uml or gatewayd-uml helper): running what this kernel can\n",
	       missing);
	return -1;
}
