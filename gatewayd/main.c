/* gatewayd/main.c: arguments, start-up, the event loop and a clean shutdown. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "config/config.h"
#include "tree/apply.h"
#include "config/systemd_dropin.h"
#include "tree/dryrun.h"
#include "tree/kinds.h"
#include "sys/log.h"
#include "sys/memtune.h"
#include "load/loadtest.h"
#include "gatewayd/loop.h"
#include "sys/instance.h"
#include "sys/notify.h"
#include "sys/privdrop.h"
#include "probe/cli.h"
#include "probe/reflector.h"
#include "gatewayd/sampler.h"
#include "load/sink.h"
#include "gatewayd/web.h"
#include "webui/webui.h"
#include "sys/signals.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gatewayd -c FILE [--check | --dry-run | --oneshot | --probe COUNT] [-v]\n"
		"       gatewayd --reflect ADDR:PORT [--reflect-rate N] [--reflect-total N]\n"
		"       gatewayd --sink ADDR:PORT [--token-file F] [--allow PREFIX,...]\n"
		"  -c, --config FILE  the configuration (see gatewayd.conf(5))\n"
		"      --check        validate the file (and the kernel's qdisc kinds) and exit\n"
		"      --dry-run      print the tree as tc commands and exit, touching nothing\n"
		"      --oneshot      apply and verify the tree, then exit leaving it in place\n"
		"      --no-kind-probe  do not ask the kernel for the config's qdisc kinds first\n"
		"                     (the apply says what it lacks instead)\n"
		"      --probe COUNT  only probe the config's targets COUNT times (0: until ^C),\n"
		"                     a line per sample and a summary; shapes nothing\n"
		"      --reflect ADDR:PORT  answer UDP probes (no -c); e.g. [::]:2112\n"
		"      --reflect-rate N  answer at most N probes a second from one address (an\n"
		"                        IPv6 /64)\n"
		"      --reflect-total N  and at most N a second in all (default 50 x the rate)\n"
		"      --load-test    one load test to the probe block's sink, a table; shapes nothing\n"
		"      --sink ADDR:PORT  serve as a load-test sink (no -c; repeatable, up to 4)\n"
		"      --token-file F    the sink serves clients with the token in F...\n"
		"      --allow LIST      ...or from these prefixes (beyond loopback: one is needed)\n"
		"      --max-per-address N  the sink's connections from one address (default 32)\n"
		"      --systemd-dropin  print the unit's address and bind allow lists for the config\n"
		"  -v, --verbose      log debug lines\n"
		"      --compare ...  the fifo vs fq_codel vs cake bench (gatewayd --compare --help)\n"
		"      --compare-report [--out DIR] RUNDIR...  saved runs of the bench side by side\n"
		"      --version      print the version\n"
		"  -h, --help         this text\n"
		"Runs in the foreground; SIGTERM or SIGINT removes what it created and exits 0.\n");
}

/* `--compare` and `--compare-report` are gatewayd-bench's: run it with the same arguments,
 * found beside this binary (the build tree) or in ../libexec/gatewayd/ (installed). The
 * daemon holds no bench code. Returns only when it cannot run it. */
static int run_bench(char **argv)
{
	static const char *const where[] = { "", "../libexec/gatewayd/" };
	char self[PATH_MAX] = "", path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0 || !(slash = strrchr(self, '/'))) {
		fprintf(stderr, "gatewayd: /proc/self/exe: %s: cannot find gatewayd-bench\n",
			n < 0 ? strerror(errno) : "no path");
		return EXIT_RUNTIME;
	}
	slash[1] = 0;	/* the directory, with its '/' */
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "%s%sgatewayd-bench", self, where[i]);
		if (access(path, X_OK) == 0) {
			argv[0] = path;
			execv(path, argv);
			fprintf(stderr, "gatewayd: cannot run %s: %s\n", path, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	fprintf(stderr, "gatewayd: the comparison bench is not installed: no gatewayd-bench in %s "
		"or %s../libexec/gatewayd/ (`make all` builds it beside gatewayd, `make install` "
		"puts it in libexec/gatewayd/)\n", self, self);
	return EXIT_USAGE;
}

/* Room for the status server's connections (2048) beside netlink and timers: systemd and
 * shells start us with a soft limit of 1024 and a far higher hard one. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096 && rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* A file the daemon reads again later (a reload, a load test) that its user cannot read: said
 * now, while the fix is easy, rather than at the reload that fails. */
static void warn_unreadable(const char *what, const char *path)
{
	if (!path || !path[0] || access(path, R_OK) == 0 || errno != EACCES)
		return;
	gw_log(GW_LOG_WARNING, "%s %s: not readable by uid %u, which gatewayd runs as now: a "
	       "reload (or a load test) that reads it will fail; make it readable by that user "
	       "(e.g. chgrp %s FILE; chmod g+r FILE; gatewayd(8) PRIVILEGES)", what, path,
	       (unsigned)getuid(), GW_DAEMON_USER);
}

/* Root gone: the two capabilities kept, as user gatewayd (gw_become_daemon_user). -errno when
 * the daemon must stop (logged). */
static int drop_root(const struct gw_config *cfg, char *err, size_t errlen)
{
	bool was_root = geteuid() == 0;
	int r = gw_become_daemon_user(GW_DAEMON_USER, err, errlen);

	if (r < 0) {
		gw_log(GW_LOG_ERR, "giving up root and capabilities: %s; stopping", err);
		return r;
	}
	if (r)
		gw_log(GW_LOG_WARNING, "privileges: %s", err);
	if (!was_root || geteuid() == 0)
		return 0;
	gw_log(GW_LOG_INFO, "running as user %s (uid %u) with CAP_NET_ADMIN and CAP_NET_RAW alone",
	       GW_DAEMON_USER, (unsigned)geteuid());
	warn_unreadable("the config", cfg->file);
	warn_unreadable("auth_file", cfg->auth_file);
	warn_unreadable("tls_cert", cfg->tls_cert);
	warn_unreadable("tls_key", cfg->tls_key);
	warn_unreadable("sink_token_file", cfg->probe.sink_token_file);
	return 0;
}

/* Sample and serve until told to stop. A reload may replace *cfgp. */
static int serve(struct gw_config **cfgp, struct gw_nl *nl, struct gw_applied *a, int sfd)
{
	struct gw_config *cfg = *cfgp;
	struct gw_loop_ctx ctx = { .sfd = sfd, .cfg = cfg, .nl = nl, .applied = a };
	struct gw_web web;
	char err[512], more[64] = "";
	size_t waiting;
	int r;

	gw_malloc_tune(false);	/* before the launcher's fork: it and the web process inherit it */
	if ((r = gw_sampler_new(cfg, a, &ctx.st.sampler)))
		return r;
	ctx.st.start_mono = gw_mono_now();
	/* shaping is the job; a page that cannot be served is an error, not a reason to stop.
	 * The page is served by a process of its own, unprivileged (webui/webchild.c),
	 * started before the capabilities go (what restarts it keeps what that takes). */
	if (gw_web_start(&web, cfg, gw_mono_now(), err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "status page: %s; shaping goes on without it", err);
	} else {
		gw_log(GW_LOG_INFO, "status page on %s://%s/", cfg->tls_cert ? "https" : "http",
		       cfg->listen[0]);
		ctx.web = &web;
	}
	/* containers there now are shaped before we say we are ready */
	if (cfg->n_containers && (r = gw_ctr_followed_new(cfg, nl, &ctx.ctr)))
		gw_log(GW_LOG_ERR, "containers: %s; they are not shaped", strerror(-r));
	else if (ctx.ctr)
		gw_log(GW_LOG_INFO, "following containers: %zu shaped now",
		       gw_ctr_followed_count(ctx.ctr));
	/* containers gatewayd-cni shaped: registered from now on, and those there adopted */
	if (gw_ctr_registered_new(cfg, nl, &ctx.cni, err, sizeof(err)))
		gw_log(GW_LOG_WARNING, "control socket: %s; containers gatewayd-cni shapes are not "
		       "watched by this gatewayd", err);
	if (cfg->unconfigured)
		gw_log(GW_LOG_INFO, "unconfigured = true: nothing is shaped until the file has "
		       "links or containers (gatewayd.conf(5)) and is reloaded");
	/* started: the tree applied, the page bound, the launcher forked, the kinds probed; from
	 * here on rtnetlink, nftables and the probes' raw sockets are all it needs, as a user of
	 * its own */
	if ((r = drop_root(cfg, err, sizeof(err))) < 0)
		goto stop;
	waiting = gw_applied_waiting(cfg, a);
	if (waiting)
		snprintf(more, sizeof(more), "; %zu waiting for %s interface", waiting,
			 waiting == 1 ? "its" : "their");
	gw_notifyf("READY=1\nSTATUS=shaping %zu link%s, %zu objects%s", cfg->n_links - waiting,
		   cfg->n_links - waiting == 1 ? "" : "s", a->plan.n, more);
	if ((r = gw_monitor_open(&ctx.mon)))
		gw_log(GW_LOG_ERR, "link and qdisc notifications: %s; no self-healing",
		       strerror(-r));
	r = gw_loop_run(&ctx);
stop:
	gw_ctr_followed_free(ctx.ctr);	/* every container tree and ifb goes */
	gw_ctr_registered_free(ctx.cni);	/* the plugin's trees stay: its DEL removes them */
	gw_monitor_close(ctx.mon);
	if (ctx.web)
		gw_web_stop(ctx.web);
	gw_sampler_free(ctx.st.sampler);	/* a reload may have replaced the first one */
	*cfgp = ctx.cfg;
	return r;
}

/* --oneshot: SIGINT, SIGTERM and SIGHUP are held (blocked) from before the first change to the
 * kernel until the tree is complete and verified, or rolled back; one that came meanwhile is
 * found pending then. Blocked, a second one merges into the first and cannot cut a rollback
 * short; still blocked at exit, they are discarded with the process. */
static int oneshot_hold(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	return sigprocmask(SIG_BLOCK, set, NULL) < 0 ? -errno : 0;
}

/* The held signal that came, lowest number first, or 0. */
static int oneshot_pending(const sigset_t *held)
{
	sigset_t p;

	if (sigpending(&p) < 0)
		return 0;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(held, s) == 1 && sigismember(&p, s) == 1)
			return s;
	return 0;
}

/* gw_apply_stoppable's question: has one of the held signals come? */
static bool oneshot_stop(void *held)
{
	return oneshot_pending(held) != 0;
}

/* --oneshot was told to stop by sig while it applied. r -EINTR: the apply stopped and undid
 * what it made, err holds what the undo could not do (or is empty); r 0: the tree is complete
 * but the signal came before the last look, so it goes too. Either way what was there before
 * is back: exit 128 + the signal's number, as a shell reports a process a signal ended. A tree
 * that was already in place (adopted) stays: there is nothing else to go back to. */
static int oneshot_interrupted(struct gw_nl *nl, struct gw_applied *a, int r, int sig,
			       char *err, size_t errlen)
{
	if (r == 0 && a->adopted) {
		gw_log(GW_LOG_WARNING, "interrupted by SIG%s; the tree was already in place (adopted, "
		       "verified) and stays", sigabbrev_np(sig));
		return EXIT_OK;
	}
	if (r == 0) {
		err[0] = '\0';
		gw_apply_undo(nl, a, err, errlen);
	}
	if (err[0]) {
		gw_log(GW_LOG_ERR, "interrupted by SIG%s before the tree was complete; restoring "
		       "what was there before did not complete%s", sigabbrev_np(sig), err);
		return EXIT_RUNTIME;
	}
	gw_log(GW_LOG_ERR, "interrupted by SIG%s before the tree was complete and verified: "
	       "removed it and restored what was there before", sigabbrev_np(sig));
	return 128 + sig;
}

/* Before anything is looked at: a second daemon would take the first's tree for a leftover to
 * adopt, and its ifbs for its own. As root: this makes /run/gatewayd, the service user's
 * (sys/rundir.c), and the lock is held across the later change of uid. 0 or -errno (logged). */
static int take_instance_lock(struct gw_lock *lock)
{
	struct gw_lock_holder holder;
	char err[512];
	int r = gw_lock_take(GW_LOCK_INSTANCE, lock, &holder, err, sizeof(err));

	if (r == -EBUSY && holder.pid > 0)
		gw_log(GW_LOG_ERR, "another gatewayd (pid %d, uid %u%s) runs in this "
		       "network namespace (its lock: %s); one per namespace",
		       (int)holder.pid, (unsigned)holder.uid, holder.uid_from_file ?
		       " as the lock file's owner" : "", err);
	else if (r == -EBUSY)
		gw_log(GW_LOG_ERR, "another gatewayd runs in this network namespace (its pid "
		       "could not be read; its lock: %s); one per namespace", err);
	else if (r)
		gw_log(GW_LOG_ERR, "the one-instance lock: %s", err);
	return r;
}

static void say_applied(const struct gw_config *cfg, const struct gw_applied *a)
{
	gw_log(GW_LOG_INFO, "applied and verified %zu objects on %zu device%s in %.2f ms%s",
	       a->plan.n, a->n_devs, a->n_devs == 1 ? "" : "s", a->seconds * 1000,
	       a->adopted && a->plan.n ?
	       " (the tree was already in place: adopted, not rebuilt)" : "");
	for (size_t i = 0; i < cfg->n_links; i++)
		if (a->facts[i].absent)
			gw_log(GW_LOG_WARNING, "link '%s': interface %s does not exist; waiting "
			       "for it", cfg->links[i].name, cfg->links[i].interface);
}

/* The daemon stops: what it made goes, unless the config keeps it. EXIT_OK or EXIT_RUNTIME. */
static int unshape(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a)
{
	char err[2048] = "";

	if (cfg->keep_on_stop) {
		/* the next start adopts it */
		gw_log(GW_LOG_INFO, "keep_on_stop: the tree stays in the kernel");
		return EXIT_OK;
	}
	if (gw_remove(nl, a, err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "%s", err);
		return EXIT_RUNTIME;
	}
	gw_log(GW_LOG_INFO, "removed everything gatewayd created");
	return EXIT_OK;
}

/* Apply *cfgp's tree, verified, and then (oneshot false) shape and serve until told to stop,
 * or (oneshot) exit leaving it in place. An exit status. */
static int apply_and_run(struct gw_config **cfgp, bool oneshot)
{
	char err[2048] = "";
	struct gw_applied applied;
	struct gw_nl *nl;
	sigset_t held;
	int sfd = -1, r, rc = EXIT_OK, sig;
	struct gw_lock lock;

	if (!oneshot)
		raise_fd_limit();
	/* signals are blocked before the tree exists, so a SIGTERM cannot strand it */
	/* SIGUSR1: a load test now */
	if (!oneshot && (sfd = gw_signalfd(SIGTERM, SIGINT, SIGHUP, SIGUSR1, 0)) < 0) {
		gw_log(GW_LOG_ERR, "signalfd: %s", strerror(-sfd));
		return EXIT_RUNTIME;
	}
	if (take_instance_lock(&lock)) {
		close(sfd);
		return EXIT_RUNTIME;
	}
	if (oneshot && (r = oneshot_hold(&held))) {
		gw_log(GW_LOG_ERR, "blocking signals: %s", strerror(-r));
		gw_lock_release(&lock);
		return EXIT_RUNTIME;
	}
	if ((r = gw_nl_open(&nl))) {
		gw_log(GW_LOG_ERR, "opening rtnetlink: %s", strerror(-r));
		gw_lock_release(&lock);
		return EXIT_RUNTIME;
	}
	r = gw_apply_stoppable(nl, *cfgp, NULL, &applied, oneshot ? oneshot_stop : NULL, &held,
			       err, sizeof(err));
	/* after this look the tree is complete and verified: a later signal leaves it in place */
	if (oneshot && (r == 0 || r == -EINTR) && (sig = oneshot_pending(&held))) {
		rc = oneshot_interrupted(nl, &applied, r, sig, err, sizeof(err));
		if (r == 0)
			gw_applied_free(&applied);
		gw_nl_close(nl);
		gw_lock_release(&lock);
		return rc;
	}
	if (r) {
		gw_log(GW_LOG_ERR, "%s", err);
		gw_log(GW_LOG_ERR, "nothing was applied; every device is as it was");
		gw_nl_close(nl);
		gw_lock_release(&lock);
		return EXIT_RUNTIME;
	}
	say_applied(*cfgp, &applied);
	if (!oneshot && (r = serve(cfgp, nl, &applied, sfd))) {
		gw_log(GW_LOG_ERR, "%s", strerror(-r));
		rc = EXIT_RUNTIME;
	}
	if (!oneshot && unshape(nl, *cfgp, &applied))
		rc = EXIT_RUNTIME;
	gw_applied_free(&applied);
	gw_nl_close(nl);
	if (sfd >= 0)
		close(sfd);
	/* the last: a next start may adopt only once nothing of ours runs */
	gw_lock_release(&lock);
	return rc;
}

/* --check and --dry-run: a link whose interface is not there now waits for it when run, which
 * is said as a warning; a required one stops the start, an error. nl NULL: not looked at.
 * Returns how many required links lack their interface. */
static size_t missing_interfaces(const struct gw_config *cfg, struct gw_nl *nl)
{
	size_t errors = 0;

	for (size_t i = 0; nl && i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];
		struct gw_link_info info;
		struct gw_nl_error e;

		if (gw_link_get(nl, l->interface, &info, &e) != -ENODEV)
			continue;
		errors += l->required;
		fprintf(stderr, "%s:%d: %s: link '%s': interface %s does not exist%s\n", cfg->file,
			l->line, l->required ? "error" : "warning", l->name, l->interface,
			l->required ? " (the link is required: gatewayd would stop at start)" :
			"; gatewayd waits for it and shapes it when it appears");
	}
	return errors;
}

/* ---- the command line: its modes and options, in tables ---- */

/* What the command line said. */
struct cmdline {
	int mode;			/* an index into modes[] */
	const char *file;		/* -c FILE */
	bool kind_probe;		/* not --no-kind-probe */
	unsigned long long probe_count;	/* --probe COUNT */
	const char *reflect;		/* --reflect ADDR:PORT */
	double reflect_rate, reflect_total;
	const char *sinks[GW_SINK_MAX_LISTEN + 1];	/* --sink ADDR:PORT, repeated */
	size_t n_sinks;
	struct gw_sink_opts sink;
};

/* A mode run with -c FILE's config (the caller frees *cfg after: a reload may replace it),
 * or without one (*cfg NULL). Returns an exit status. */
typedef int (*mode_fn)(const struct cmdline *cl, struct gw_config **cfg);

/* The qdisc kinds the config names, asked of the kernel first (not with --no-kind-probe: the
 * caller knows the kinds are there, as the bench that probed them once, or wants the kernel's
 * own refusal at the apply, a test of it). False when one is missing (said). */
static bool kinds_there(const struct cmdline *cl, const struct gw_config *cfg, bool *probed)
{
	char err[2048];

	*probed = false;
	if (cl->kind_probe && gw_kinds_check(cfg, probed, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return false;
	}
	return true;
}

static int run_daemon(const struct cmdline *cl, struct gw_config **cfg)
{
	bool probed;

	return kinds_there(cl, *cfg, &probed) ? apply_and_run(cfg, false) : EXIT_USAGE;
}

static int run_oneshot(const struct cmdline *cl, struct gw_config **cfg)
{
	bool probed;

	return kinds_there(cl, *cfg, &probed) ? apply_and_run(cfg, true) : EXIT_USAGE;
}

static int run_check(const struct cmdline *cl, struct gw_config **cfg)
{
	const struct gw_config *c = *cfg;
	struct gw_nl *nl = NULL;
	size_t missing;
	bool probed;

	if (!kinds_there(cl, c, &probed))
		return EXIT_USAGE;
	gw_nl_open(&nl);
	missing = missing_interfaces(c, nl);
	gw_nl_close(nl);
	if (missing)
		return EXIT_RUNTIME;
	printf("%s: ok (%zu link%s)%s\n", c->file, c->n_links, c->n_links == 1 ? "" : "s",
	       probed ? "" : !cl->kind_probe ? "; qdisc kinds not probed (--no-kind-probe)" :
	       "; qdisc kinds not probed (that needs CAP_SYS_ADMIN for a private network "
	       "namespace)");
	return EXIT_OK;
}

static int run_dry_run(const struct cmdline *cl, struct gw_config **cfg)
{
	struct gw_nl *nl = NULL;
	char err[2048] = "";
	size_t missing;
	int r;

	(void)cl;
	gw_nl_open(&nl);	/* only to read MTUs; without it defaults are assumed */
	missing = missing_interfaces(*cfg, nl);
	r = gw_dryrun(stdout, nl, *cfg, err, sizeof(err));
	gw_nl_close(nl);
	if (r)
		fprintf(stderr, "%s\n", err);
	return r || missing ? EXIT_RUNTIME : EXIT_OK;
}

static int run_probe(const struct cmdline *cl, struct gw_config **cfg)
{
	char err[2048] = "";
	int r = gw_probe_cli(*cfg, cl->probe_count, stdout, err, sizeof(err));

	if (r)
		fprintf(stderr, "%s\n", err);
	return r ? (r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME) : EXIT_OK;
}

static int run_load_test(const struct cmdline *cl, struct gw_config **cfg)
{
	(void)cl;
	return gw_loadtest_main(*cfg);
}

/* --systemd-dropin: what the generator writes; a config that needs more room than any real
 * one is an error, not a cut list. */
static int run_dropin(const struct cmdline *cl, struct gw_config **cfg)
{
	char *buf = NULL;
	int r = -ENOSPC;

	(void)cl;
	for (size_t len = 16384; r == -ENOSPC && len <= (1u << 20); len *= 4) {
		char *b = realloc(buf, len);

		if (!b) {
			r = -ENOMEM;
			break;
		}
		buf = b;
		r = gw_systemd_dropin_render(*cfg, buf, len);
	}
	if (r)
		fprintf(stderr, "%s: the drop-in: %s\n", (*cfg)->file, strerror(-r));
	else
		fputs(buf, stdout);
	free(buf);
	return r ? EXIT_RUNTIME : EXIT_OK;
}

static int run_reflect(const struct cmdline *cl, struct gw_config **cfg)
{
	struct gw_reflect_stats st;
	char err[256] = "";
	int r = gw_reflect_run(cl->reflect, cl->reflect_rate, cl->reflect_total, stderr, &st, err,
			       sizeof(err));

	(void)cfg;
	if (r)
		fprintf(stderr, "%s\n", err);
	return r ? (r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME) : EXIT_OK;
}

static int run_sink(const struct cmdline *cl, struct gw_config **cfg)
{
	(void)cfg;
	return gw_sink_main(cl->sinks, cl->n_sinks, &cl->sink);
}

/* --compare and --compare-report: the comparison bench, a program of its own (run_bench). */
static int run_compare(int argc, char **argv)
{
	(void)argc;
	return run_bench(argv);
}

enum { MODE_RUN, MODE_CHECK, MODE_DRY_RUN, MODE_ONESHOT, MODE_PROBE, MODE_LOAD_TEST, MODE_DROPIN,
       MODE_REFLECT, MODE_SINK, MODE_COMPARE, MODE_COMPARE_REPORT, N_MODES };

/* The modes: the option that selects one (the daemon: -c FILE alone), whether it runs on a
 * config, and what runs it; a mode with argv_fn takes the whole command line as its own. */
static const struct mode {
	const char *option;
	bool config;
	mode_fn fn;
	int (*argv_fn)(int argc, char **argv);
} modes[N_MODES] = {
	[MODE_RUN] = { "-c FILE", true, run_daemon, NULL },
	[MODE_CHECK] = { "--check", true, run_check, NULL },
	[MODE_DRY_RUN] = { "--dry-run", true, run_dry_run, NULL },
	[MODE_ONESHOT] = { "--oneshot", true, run_oneshot, NULL },
	[MODE_PROBE] = { "--probe", true, run_probe, NULL },
	[MODE_LOAD_TEST] = { "--load-test", true, run_load_test, NULL },
	[MODE_DROPIN] = { "--systemd-dropin", true, run_dropin, NULL },
	[MODE_REFLECT] = { "--reflect", false, run_reflect, NULL },
	[MODE_SINK] = { "--sink", false, run_sink, NULL },
	[MODE_COMPARE] = { "--compare", false, NULL, run_compare },
	[MODE_COMPARE_REPORT] = { "--compare-report", false, NULL, run_compare },
};

/* An option's action: 0, -EINVAL (a bad value, said), or 1: done, exit 0 (--help). */
typedef int (*opt_fn)(struct cmdline *cl, const char *arg);

static int set_file(struct cmdline *cl, const char *arg)
{
	cl->file = arg;
	return 0;
}

static int set_verbose(struct cmdline *cl, const char *arg)
{
	(void)cl;
	(void)arg;
	gw_log_set_verbose(1);
	return 0;
}

static int set_no_kind_probe(struct cmdline *cl, const char *arg)
{
	(void)arg;
	cl->kind_probe = false;
	return 0;
}

static int print_version(struct cmdline *cl, const char *arg)
{
	(void)cl;
	(void)arg;
	printf("gatewayd %s\n", GW_VERSION);
	return 1;
}

static int print_help(struct cmdline *cl, const char *arg)
{
	(void)cl;
	(void)arg;
	usage(stdout);
	return 1;
}

static int set_probe_count(struct cmdline *cl, const char *arg)
{
	char *end;

	errno = 0;
	cl->probe_count = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || cl->probe_count > 100000000ULL) {
		fprintf(stderr, "--probe \"%s\": expected a count of probes, 0..100000000\n", arg);
		return -EINVAL;
	}
	return 0;
}

/* A whole number in lo..hi for an option, or a message and -EINVAL. */
static int parse_int_opt(const char *name, const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s \"%s\": expected a whole number, %ld..%ld\n", name, s, lo, hi);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

static int set_reflect(struct cmdline *cl, const char *arg)
{
	cl->reflect = arg;
	return 0;
}

static int set_reflect_rate(struct cmdline *cl, const char *arg)
{
	int v, r = parse_int_opt("--reflect-rate", arg, 1, GW_REFLECT_RATE_MAX, &v);

	cl->reflect_rate = v;
	return r;
}

static int set_reflect_total(struct cmdline *cl, const char *arg)
{
	int v, r = parse_int_opt("--reflect-total", arg, 1, GW_REFLECT_RATE_MAX, &v);

	cl->reflect_total = v;
	return r;
}

static int add_sink(struct cmdline *cl, const char *arg)
{
	if (cl->n_sinks < GW_SINK_MAX_LISTEN + 1)	/* one too many: the sink says so */
		cl->sinks[cl->n_sinks++] = arg;
	return 0;
}

static int set_token_file(struct cmdline *cl, const char *arg)
{
	cl->sink.token_file = arg;
	return 0;
}

static int set_allow(struct cmdline *cl, const char *arg)
{
	cl->sink.allow = arg;
	return 0;
}

static int set_max_per_address(struct cmdline *cl, const char *arg)
{
	return parse_int_opt("--max-per-address", arg, 1, GW_SINK_MAX_CONNS,
			     &cl->sink.max_per_addr);
}

#define ANY_MODE (-1)

/* The options: the mode each selects (the last one given wins) or whose value it sets
 * (ANY_MODE: any mode's). A value for another mode than the one selected is a usage error. */
static const struct opt {
	const char *name;
	char short_name;
	int has_arg;
	int mode;
	bool selects;
	opt_fn fn;
} opts[] = {
	{ "config", 'c', required_argument, ANY_MODE, false, set_file },
	{ "verbose", 'v', no_argument, ANY_MODE, false, set_verbose },
	{ "version", 0, no_argument, ANY_MODE, false, print_version },
	{ "help", 'h', no_argument, ANY_MODE, false, print_help },
	{ "no-kind-probe", 0, no_argument, ANY_MODE, false, set_no_kind_probe },
	{ "check", 0, no_argument, MODE_CHECK, true, NULL },
	{ "dry-run", 0, no_argument, MODE_DRY_RUN, true, NULL },
	{ "oneshot", 0, no_argument, MODE_ONESHOT, true, NULL },
	{ "probe", 0, required_argument, MODE_PROBE, true, set_probe_count },
	{ "load-test", 0, no_argument, MODE_LOAD_TEST, true, NULL },
	{ "systemd-dropin", 0, no_argument, MODE_DROPIN, true, NULL },
	{ "reflect", 0, required_argument, MODE_REFLECT, true, set_reflect },
	{ "reflect-rate", 0, required_argument, MODE_REFLECT, false, set_reflect_rate },
	{ "reflect-total", 0, required_argument, MODE_REFLECT, false, set_reflect_total },
	{ "sink", 0, required_argument, MODE_SINK, true, add_sink },
	{ "token-file", 0, required_argument, MODE_SINK, false, set_token_file },
	{ "allow", 0, required_argument, MODE_SINK, false, set_allow },
	{ "max-per-address", 0, required_argument, MODE_SINK, false, set_max_per_address },
};

#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

/* The option getopt_long returned c for: a short name, or 256 + its index. */
static const struct opt *opt_of(int c)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (c == 256 + (int)i || (opts[i].short_name && c == opts[i].short_name))
			return &opts[i];
	return NULL;
}

/* argv into cl by the tables: 0; 1 when an option said all there is (--help, --version);
 * -EINVAL on a usage error (said). */
static int parse_cmdline(int argc, char **argv, struct cmdline *cl)
{
	struct option lo[N_OPTS + 1] = { { NULL, 0, NULL, 0 } };
	unsigned int valued = 0;	/* bit m: a value of mode m's own was given */
	int c, r;

	for (size_t i = 0; i < N_OPTS; i++)
		lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL, 256 + (int)i };
	while ((c = getopt_long(argc, argv, "c:vh", lo, NULL)) != -1) {
		const struct opt *o = opt_of(c);

		if (!o) {
			usage(stderr);
			return -EINVAL;
		}
		if (o->selects)
			cl->mode = o->mode;
		if (o->fn && o->mode != ANY_MODE)
			valued |= 1u << o->mode;
		if (o->fn && (r = o->fn(cl, optarg)))
			return r;
	}
	/* one mode, with values of its own only, a config where it runs on one and none else */
	if (optind != argc || (valued & ~(1u << cl->mode)) ||
	    !cl->file != !modes[cl->mode].config) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cmdline cl = { .mode = MODE_RUN, .kind_probe = true };
	struct gw_config *cfg = NULL;
	char err[2048] = "";
	int r;

	/* a mode whose options are its own (the bench's) takes the whole command line */
	for (int i = 1; i < argc; i++)
		for (size_t m = 0; m < N_MODES; m++)
			if (modes[m].argv_fn && !strcmp(argv[i], modes[m].option))
				return modes[m].argv_fn(argc, argv);
	if ((r = parse_cmdline(argc, argv, &cl)))
		return r < 0 ? EXIT_USAGE : EXIT_OK;
	if (modes[cl.mode].config && gw_config_load(cl.file, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	r = modes[cl.mode].fn(&cl, &cfg);
	gw_config_free(cfg);
	return r;
}
