/* gatewayd/loop.c: one thread, one epoll: a signalfd, a periodic timerfd, and the prober's fd.
 * Nothing here sleeps; a sampling pass is two or three netlink dumps. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "sys/log.h"
#include "gatewayd/heal.h"
#include "load/loadtest.h"
#include "tree/reload.h"
#include "gatewayd/web.h"
#include "gatewayd/loop.h"
#include "config/systemd_dropin.h"
#include "sys/notify.h"
#include "sys/fd.h"

/* A periodic timer whose first expiry is right away. */
static int timer_open(int64_t interval_us)
{
	struct itimerspec its = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	its.it_interval.tv_sec = interval_us / 1000000;
	its.it_interval.tv_nsec = (interval_us % 1000000) * 1000;
	its.it_value.tv_nsec = 1000;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* systemctl status shows what is shaped and how full it is. */
static void notify_status(const struct gw_snapshot *snap)
{
	char line[400];
	size_t pos = 0;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	pos += (size_t)snprintf(line, sizeof(line), "STATUS=");
	for (size_t i = 0; i < snap->n_dirs && pos < sizeof(line); i++) {
		const struct gw_snap_dir *d = &snap->dirs[i];

		if (d->waiting) {
			pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s%s %s waiting for %s",
						i ? "; " : "", d->link, d->direction, d->interface);
			continue;
		}
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s%s %s %s %.1f/%.1f Mbit/s",
					i ? "; " : "", d->link, d->direction, d->shaper,
					d->total.achieved_bytes_per_s * 8 / 1e6,
					(double)d->rate_in_force_bytes_per_s * 8 / 1e6);
	}
	gw_notify(line);
}

/* One pass; the loop's own health (duration, lateness) goes into the snapshot. */
static void sample(struct gw_loop_ctx *c, uint64_t expirations, double due)
{
	struct gw_loop_state *st = &c->st;
	char err[256] = "";
	struct gw_snapshot *snap;
	double t0 = gw_mono_now();
	int r;

	st->samples++;
	/* more than one expiry means a whole interval went by without a pass */
	if (expirations > 1 || t0 - due > c->cfg->interval_us / 1e6 / 2)
		st->late++;
	r = gw_sampler_pass(st->sampler, c->nl, gw_wall_now(), &snap, err, sizeof(err));
	if (r) {
		gw_log(GW_LOG_ERR, "sampling: %s", err);
		return;
	}
	/* the containers' directions go after the configured links' */
	if (c->ctr && (r = gw_ctr_followed_sample(c->ctr, snap->unix_time, snap)))
		gw_log(GW_LOG_ERR, "sampling containers: %s", strerror(-r));
	if (c->cni && (r = gw_ctr_registered_sample(c->cni, snap->unix_time, snap)))
		gw_log(GW_LOG_ERR, "sampling cni containers: %s", strerror(-r));
	/* a standing problem is logged when it starts, not every interval */
	if (err[0] && strcmp(err, st->last_sample_error))
		gw_log(GW_LOG_WARNING, "%s", err);
	snprintf(st->last_sample_error, sizeof(st->last_sample_error), "%s", err);
	if (c->lat)
		gw_probe_links_pass(c->lat, snap, t0);
	/* the pass's achieved rates step autorate; its section shows the rates after */
	gw_autorate_pass(c->ar, snap, t0);
	snap->seq = st->samples;
	snap->uptime_s = t0 - st->start_mono;
	snap->sample_ms = (gw_mono_now() - t0) * 1000;
	snap->sample_lag_ms = (t0 - due) * 1000;
	snap->samples_total = st->samples;
	snap->late_samples_total = st->late;
	snprintf(snap->last_error, sizeof(snap->last_error), "%s", err[0] ? err :
		 st->reload_error[0] || !c->lat ? st->reload_error : gw_probe_links_error(c->lat));
	snap->loadtest = st->loadtest;
	notify_status(snap);
	if (c->web)
		gw_web_send(c->web, snap, gw_mono_now());	/* it takes a reference to keep it */
	gw_snapshot_put(snap);
}

enum { SIG_NONE = 0, SIG_STOP = 1, SIG_RELOAD = 2, SIG_LOADTEST = 4 };

static int on_signal(int sfd)
{
	struct signalfd_siginfo si;
	int what = SIG_NONE;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			what |= SIG_RELOAD;
			continue;
		}
		if (si.ssi_signo == SIGUSR1) {
			what |= SIG_LOADTEST;
			continue;
		}
		gw_log(GW_LOG_INFO, "signal %u: stopping", si.ssi_signo);
		gw_notify("STOPPING=1");
		return SIG_STOP;
	}
	return what;
}

/* Settings the running daemon cannot take over: said, and the running values kept. */
static void keep_fixed(const struct gw_config *cur, struct gw_config *next)
{
	/* under systemd, the unit's IPAddressAllow=/SocketBindAllow= came from the config at the
	 * last daemon-reload (gatewayd-generator): new targets would go unanswered unsaid */
	if (getenv("INVOCATION_ID") && gw_systemd_dropin_changed(cur, next))
		gw_log(GW_LOG_WARNING, "reload: the listen addresses, probe targets or sink changed: "
		       "gatewayd.service's address allow lists follow at `systemctl daemon-reload` "
		       "and a restart");
	if (cur->interval_us != next->interval_us) {
		gw_log(GW_LOG_WARNING, "reload: an interval change takes effect at restart");
		next->interval_us = cur->interval_us;
	}
}

/* The status page onto cfg's listen, auth, TLS and Host settings (err NULL: going back to
 * the running config after a refused reload; a failure is then only logged). */
static int reload_web(struct gw_loop_ctx *c, const struct gw_config *cfg, char *err,
		      size_t errlen)
{
	char e[512], msg[560];
	int r;

	if (!c->web)
		return 0;
	r = gw_web_reload(c->web, cfg, gw_mono_now(), e, sizeof(e));
	if (r == 1)
		gw_log(GW_LOG_INFO, "reload: status page restarted on %s://%s/%s (a new web "
		       "process: its history starts again)", cfg->tls_cert ? "https" : "http",
		       cfg->listen[0], cfg->auth_file ? " with basic auth" : "");
	if (r >= 0)
		return 0;
	snprintf(msg, sizeof(msg), "status page: %s", e);
	if (err)
		snprintf(err, errlen, "%s", msg);
	else
		gw_log(GW_LOG_ERR, "reload: %s", msg);
	return r;
}

/* SIGHUP: a new config, all or nothing; the old one stays on any failure. */
static void reload(struct gw_loop_ctx *c)
{
	struct gw_loop_state *st = &c->st;
	struct gw_reload_done done;
	struct gw_config *next;
	char err[1024] = "";
	int r;

	gw_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)(gw_mono_now() * 1e6));
	/* no kind probe here: it forks, and the HTTP threads make a fork unsafe; a missing
	 * kind is refused by the kernel during the reload, which then puts everything back */
	r = gw_config_load(c->cfg->file, &next, err, sizeof(err));
	if (!r) {
		keep_fixed(c->cfg, next);
		/* the page first: new addresses, auth or TLS files are served, or the reload
		 * is refused, never the old ones kept in silence */
		r = reload_web(c, next, err, sizeof(err));
		/* no monitor: its events are read below, where anyone else's are kept */
		if (!r && (r = gw_reload(c->nl, NULL, c->cfg, next, c->applied, &done, err,
					 sizeof(err)))) {
			gw_heal_absorb(c->mon, c->nl, c->cfg, c->applied);
			reload_web(c, c->cfg, NULL, 0);
		}
		if (r)
			gw_config_free(next);
	}
	if (r) {
		/* a file only root may read: the daemon no longer is (gatewayd(8) PRIVILEGES);
		 * a secret file's own error says so already */
		if (r == -EACCES && geteuid() != 0 && !strstr(err, "gatewayd runs as")) {
			size_t len = strlen(err);

			snprintf(err + len, sizeof(err) - len, " (gatewayd runs as uid %u: the "
				 "files it reads must be readable by that user)", (unsigned)geteuid());
		}
		gw_log(GW_LOG_ERR, "reload: %s; still running the previous config", err);
		snprintf(st->reload_error, sizeof(st->reload_error), "last reload failed: %s", err);
		gw_notify("READY=1");
		return;
	}
	if (done.how == GW_RELOAD_REBUILT || done.how == GW_RELOAD_CLASSES) {
		struct gw_sampler *s;

		/* a sampler for the new tree, with the history and totals of what carried on */
		if (gw_sampler_new(next, c->applied, &s) == 0) {
			gw_sampler_carry(s, st->sampler, c->applied, done.fresh);
			gw_sampler_free(st->sampler);
			st->sampler = s;
		}
	} else {
		gw_sampler_retarget(st->sampler, next, c->applied);
	}
	gw_reload_done_free(&done);
	if (c->lat)
		gw_probe_links_reload(c->lat, next);
	if (c->ctr && !next->n_containers) {
		/* the last entry went: so do every container tree and ifb (closing its fd takes
		 * it out of the loop's epoll) */
		size_t n = gw_ctr_followed_count(c->ctr);

		gw_ctr_followed_free(c->ctr);
		c->ctr = NULL;
		gw_log(GW_LOG_INFO, "reload: no containers entry any more; %zu container tree%s "
		       "removed", n, n == 1 ? "" : "s");
	}
	/* before the old config goes: autorate compares the two */
	if (c->ar && gw_autorate_reload(c->ar, next))
		gw_log(GW_LOG_ERR, "reload: autorate: %s; rates stay as configured", strerror(ENOMEM));
	gw_config_free(c->cfg);
	c->cfg = next;
	/* the reload's own events pass; a foreign change made meanwhile is healed after it */
	gw_heal_absorb(c->mon, c->nl, c->cfg, c->applied);
	if (c->ctr)
		gw_ctr_followed_reload(c->ctr, next);
	st->reload_error[0] = '\0';
	gw_log(GW_LOG_INFO, "reloaded %s: %s", next->file, done.summary);
	gw_notify("READY=1");
}

/* The loop's file descriptors; -1 where one is not used. */
struct fds {
	int ep, sample, watchdog, monitor, heal, probe;
	int load_every, load_test;	/* the load-test schedule's timer, a running test's fd */
	int web, web_pid;		/* the web process's socket in the epoll (while a frame
					 * waits), and the process it was for */
};

static int watch(struct fds *f, int fd);

/* ---- the active load test (load/loadtest.c): SIGUSR1 or load_every; one at a time ---- */

/* Arm (or disarm, at 0) the schedule: the first test one period after start or reload. */
static void load_schedule(struct fds *f, int64_t every_us, int64_t *armed_us)
{
	struct itimerspec its = { 0 };

	if (every_us == *armed_us)
		return;
	if (f->load_every < 0) {
		f->load_every = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (f->load_every < 0 || watch(f, f->load_every)) {
			gw_log(GW_LOG_ERR, "load-test schedule: %s", strerror(errno));
			return;
		}
	}
	its.it_interval.tv_sec = its.it_value.tv_sec = every_us / 1000000;
	its.it_interval.tv_nsec = its.it_value.tv_nsec = (every_us % 1000000) * 1000;
	timerfd_settime(f->load_every, 0, &its, NULL);
	*armed_us = every_us;
	if (every_us)
		gw_log(GW_LOG_INFO, "load test every %.0f s", (double)every_us / 1e6);
}

static void load_start(struct gw_loop_ctx *c, struct fds *f, struct gw_loadtest **lt,
		       const char *why)
{
	/* the daemon's prober is the test's: the same probe block, and one stream of probes on
	 * the link rather than two (the test starts its own only when the daemon's is not up) */
	bool fed = gw_probe_links_running(c->lat);
	char err[512];

	if (*lt) {
		gw_log(GW_LOG_WARNING, "load test (%s) skipped: one is running", why);
		return;
	}
	if ((fed ? gw_loadtest_new_fed : gw_loadtest_new)(c->cfg, lt, err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "load test (%s): %s", why, err);
		*lt = NULL;
		return;
	}
	f->load_test = gw_loadtest_fd(*lt);
	if (watch(f, f->load_test)) {
		gw_log(GW_LOG_ERR, "load test (%s): epoll: %s", why, strerror(errno));
		gw_loadtest_free(*lt);
		*lt = NULL;
		f->load_test = -1;
		return;
	}
	if (fed)
		gw_probe_links_tap(c->lat, gw_loadtest_sample, *lt);
	gw_log(GW_LOG_INFO, "load test (%s): sink %s, %d flows, %.0f s per direction, about %.0f s; "
	       "latency from %s", why, c->cfg->probe.sink, c->cfg->probe.load_flows,
	       (double)c->cfg->probe.load_duration_us / 1e6, gw_loadtest_seconds(c->cfg),
	       fed ? "the daemon's probes" : "probes of its own (the daemon's prober is not running)");
	gw_loadtest_result(*lt, &c->st.loadtest);
}

static void load_run(struct gw_loop_ctx *c, struct fds *f, struct gw_loadtest **lt)
{
	struct gw_snap_loadtest *r = &c->st.loadtest;
	int ret = gw_loadtest_run(*lt);

	gw_loadtest_result(*lt, r);
	if (ret == 0)
		return;
	epoll_ctl(f->ep, EPOLL_CTL_DEL, f->load_test, NULL);
	gw_probe_links_tap(c->lat, NULL, NULL);
	gw_loadtest_free(*lt);
	*lt = NULL;
	f->load_test = -1;
	for (size_t i = 0; i < r->n_dirs; i++)
		gw_log(GW_LOG_INFO, "load test %s: goodput %.2f Mbit/s, loaded p50 %.1f ms p99 %.1f "
		       "ms, induced mean %.1f ms, grade %s", r->dirs[i].direction,
		       r->dirs[i].goodput_bps / 1e6, r->dirs[i].loaded_p50_ms, r->dirs[i].loaded_p99_ms,
		       r->dirs[i].induced_mean_ms, r->dirs[i].grade[0] ? r->dirs[i].grade : "-");
	if (r->error[0] || ret < 0)
		gw_log(GW_LOG_ERR, "load test failed: %s", r->error[0] ? r->error : strerror(-ret));
}

static int watch(struct fds *f, int fd)
{
	if (fd < 0)
		return 0;
	return gw_epoll_set(f->ep, EPOLL_CTL_ADD, fd, EPOLLIN, (epoll_data_t){ .fd = fd });
}

/* A heal check shortly after the first of a burst of events (one check for many). A check
 * already due is not put off: a stream of foreign changes is healed in batches, not never. */
static void arm_heal(int hfd)
{
	struct itimerspec its = { .it_value.tv_nsec = 20 * 1000 * 1000 }, cur;

	if (timerfd_gettime(hfd, &cur) == 0 && (cur.it_value.tv_sec || cur.it_value.tv_nsec))
		return;
	timerfd_settime(hfd, 0, &its, NULL);
}

/* Each link's interface as the running tree has it: its index, 0 while it waits. */
static void link_ifindexes(const struct gw_loop_ctx *c, int *out)
{
	for (size_t i = 0; i < c->cfg->n_links && i < GW_MAX_LINKS; i++)
		out[i] = !c->applied->facts ? -1 : c->applied->facts[i].absent ? 0 :
			 c->applied->facts[i].dev.ifindex;
}

static void heal(struct gw_loop_ctx *c, struct gw_heal_retry *retry)
{
	char err[1024] = "";
	double t0 = gw_mono_now();
	int before[GW_MAX_LINKS], after[GW_MAX_LINKS];
	int r;

	link_ifindexes(c, before);
	r = gw_heal(c->nl, c->mon, c->cfg, c->applied, c->st.sampler, err, sizeof(err));
	link_ifindexes(c, after);
	/* a link's interface came, went or is another one now: its prober follows it */
	for (size_t i = 0; c->lat && i < c->cfg->n_links && i < GW_MAX_LINKS; i++)
		if (before[i] != after[i])
			gw_probe_links_relink(c->lat, c->cfg->links[i].name, after[i] > 0);

	if (r == 1 || r == 2)
		gw_log(GW_LOG_WARNING, "%s; restored %s in %.1f ms", err,
		       r == 1 ? "the tree" : "them", (gw_mono_now() - t0) * 1000);
	if (r == 4)	/* someone else's changes, mended in place: what was found, in one line */
		gw_log(GW_LOG_WARNING, "changed from outside: %s; put back in place in %.1f ms",
		       err, (gw_mono_now() - t0) * 1000);
	if (r == 3)	/* links whose interface went: they wait */
		gw_log(GW_LOG_WARNING, "%s", err);
	/* one line per cause, not one per retry; retries back off while the cause stays */
	if (gw_heal_retry_note(retry, r, err, gw_mono_now()) && r < 0)
		gw_log(GW_LOG_ERR, "restoring the tree: %s; will retry on any change of the link "
		       "or its qdiscs, and every %.0f to %.0f s", err, GW_HEAL_RETRY_MIN_S,
		       GW_HEAL_RETRY_MAX_S);
}

/* After a reload that brought the first containers entry: follow them from now on, as a start
 * with that config would have (the ones there now shaped at once). */
static void follow_containers(struct gw_loop_ctx *c, struct fds *f)
{
	int r;

	if (c->ctr || !c->cfg->n_containers)
		return;
	if ((r = gw_ctr_followed_new(c->cfg, c->nl, &c->ctr)) ||
	    (r = watch(f, gw_ctr_followed_fd(c->ctr)))) {
		gw_log(GW_LOG_ERR, "reload: containers: %s; they are not shaped", strerror(-r));
		gw_ctr_followed_free(c->ctr);
		c->ctr = NULL;
		return;
	}
	gw_log(GW_LOG_INFO, "reload: following containers: %zu shaped now",
	       gw_ctr_followed_count(c->ctr));
}

static void watchdog_kick(void *arg)
{
	(void)arg;
	gw_watchdog_kick();
}

/* Every fd of the loop, or the first failure's own errno (a sandbox's EPERM stays EPERM). */
static int loop_open(struct fds *f, const struct gw_loop_ctx *c)
{
	uint64_t wd_us = gw_watchdog_period_us();
	int fds[] = { c->sfd, -1, -1, -1, -1 }, r = 0;

	f->ep = epoll_create1(EPOLL_CLOEXEC);
	if (f->ep < 0)
		return -errno;
	f->sample = fds[1] = timer_open(c->cfg->interval_us);
	f->heal = fds[2] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (f->heal < 0)
		f->heal = fds[2] = -errno;
	/* systemd's watchdog is fed from this loop, so a stuck loop is a restarted daemon; and
	 * from inside the netlink exchanges of a long reload or heal, which hold the loop */
	if (wd_us) {
		f->watchdog = fds[3] = timer_open((int64_t)wd_us);
		gw_nl_set_progress(c->nl, watchdog_kick, NULL);
	}
	if (c->mon)
		f->monitor = fds[4] = gw_monitor_fd(c->mon);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]) && !r; i++) {
		bool wanted = i == 0 || i == 1 || i == 2 || (i == 3 && wd_us) || (i == 4 && c->mon);

		if (wanted)
			r = fds[i] < 0 ? fds[i] : watch(f, fds[i]);
	}
	/* the prober: one fd for its life, whatever reloads do to it */
	if (!r && c->lat)
		r = watch(f, f->probe = gw_probe_links_fd(c->lat));
	if (!r && c->ctr)
		r = watch(f, gw_ctr_followed_fd(c->ctr));
	if (!r && c->cni)
		r = watch(f, gw_ctr_registered_fd(c->cni));
	/* the web process's launcher: its deaths are heard there */
	if (!r && c->web && gw_webchild_launcher_fd(c->web->c) >= 0)
		r = watch(f, gw_webchild_launcher_fd(c->web->c));
	return r;
}

/* The web process's socket in the epoll while a frame waits to be written, and only then (a
 * dead one's socket would answer EPOLLHUP until the launcher's word of it is read); a new
 * process has a new socket, which may have the old one's number. */
static void web_sync(struct fds *f, const struct gw_loop_ctx *c)
{
	struct gw_webchild_stats st = { .pid = 0 };
	int fd = c->web ? gw_webchild_fd(c->web->c) : -1;

	if (fd >= 0 && !gw_webchild_pending(c->web->c))
		fd = -1;
	if (c->web)
		gw_webchild_stats(c->web->c, 0, &st);
	if (fd == f->web && st.pid == f->web_pid)
		return;
	if (f->web >= 0)	/* gone already if its socket was closed */
		epoll_ctl(f->ep, EPOLL_CTL_DEL, f->web, NULL);
	f->web = -1;
	if (fd >= 0 && gw_epoll_set(f->ep, EPOLL_CTL_ADD, fd, EPOLLOUT,
				    (epoll_data_t){ .fd = fd }) == 0) {
		f->web = fd;
		f->web_pid = st.pid;
	}
}

/* How long the loop may sleep: until the web process is to be started again, else ever. */
static int web_timeout_ms(const struct gw_loop_ctx *c)
{
	double at = c->web ? gw_webchild_next_start(c->web->c) : -1, now = gw_mono_now();

	if (at < 0)
		return -1;
	return at <= now ? 0 : (int)((at - now) * 1000) + 1;
}

/* What the loop keeps from one wake to the next, beside the context. */
struct run {
	struct fds f;
	struct gw_heal_retry retry;
	struct gw_loadtest *lt;		/* the running load test; NULL: none */
	int64_t load_every;		/* the schedule's period armed now (0: none) */
	double interval, next_due;	/* the passes': seconds, and when the next is due */
};

/* The keep-alive first: not after a sampling pass or a reload of the same wake. Its events
 * are marked done (INT_MIN: no fd is that). */
static void pet_watchdog(const struct fds *f, struct epoll_event *got, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t exp;

		if (got[i].data.fd != f->watchdog || f->watchdog < 0)
			continue;
		if (read(f->watchdog, &exp, sizeof(exp)) == sizeof(exp))
			gw_watchdog_pet();
		got[i].data.fd = INT_MIN;
	}
}

/* The signals that came: true when one says stop. */
static bool on_signals(struct gw_loop_ctx *c, struct run *r)
{
	int what = on_signal(c->sfd);

	if (what & SIG_STOP)
		return true;
	if (what & SIG_RELOAD) {
		reload(c);
		follow_containers(c, &r->f);
		load_schedule(&r->f, c->cfg->probe.load_every_us, &r->load_every);
	}
	if (what & SIG_LOADTEST)
		load_start(c, &r->f, &r->lt, "SIGUSR1");
	return false;
}

/* The sampling timer expired exp times: a pass. */
static void on_sample_timer(struct gw_loop_ctx *c, struct run *r, uint64_t exp)
{
	sample(c, exp, r->next_due);
	r->next_due += r->interval * (double)exp;
	/* keep trying while broken (backing off), and catch what no event announced: a pass
	 * that found a root missing, a waiting link's interface when there are no
	 * notifications to say it came */
	if (gw_heal_retry_due(&r->retry, gw_mono_now()) ||
	    (!r->retry.broken && c->st.last_sample_error[0]) ||
	    (!c->mon && gw_applied_waiting(c->cfg, c->applied)))
		arm_heal(r->f.heal);
}

/* One fd the epoll said is ready; true when the loop is to stop. */
static bool on_fd(struct gw_loop_ctx *c, struct run *r, int fd)
{
	struct fds *f = &r->f;
	uint64_t exp = 0;

	if (c->web && (fd == f->web || fd == gw_webchild_launcher_fd(c->web->c)))
		return false;	/* polled on every wake */
	if (fd == c->sfd) {
		if (on_signals(c, r))
			return true;
	} else if (fd == f->load_test && r->lt) {
		load_run(c, f, &r->lt);
		return false;
	} else if (c->ctr && fd == gw_ctr_followed_fd(c->ctr)) {
		gw_ctr_followed_dispatch(c->ctr);
		return false;
	} else if (c->cni && fd == gw_ctr_registered_fd(c->cni)) {
		gw_ctr_registered_dispatch(c->cni);
		return false;
	} else if (fd == f->monitor) {
		if (gw_heal_pending(c->mon, c->nl, c->cfg, c->applied))
			arm_heal(f->heal);
	} else if (fd == f->probe) {
		gw_probe_links_run(c->lat);
		return false;
	} else if (read(fd, &exp, sizeof(exp)) != sizeof(exp)) {
		return false;	/* a timer: not expired after all */
	}
	if (fd == f->load_every)
		load_start(c, f, &r->lt, "scheduled");
	if (fd == f->heal)
		heal(c, &r->retry);
	/* someone else's change came while we made our own (a reload, a heal); while healing
	 * fails, the retries' back-off decides (what a failed try undid raised events of its
	 * own) */
	if (c->applied->heal_due) {
		c->applied->heal_due = false;
		if (!r->retry.broken)
			arm_heal(f->heal);
	}
	if (fd == f->sample)
		on_sample_timer(c, r, exp);
	return false;
}

/* The probers and autorate made, every fd in the epoll, the load tests scheduled. */
static int run_open(struct gw_loop_ctx *c, struct run *r)
{
	int ret = gw_probe_links_new(c->cfg, &c->lat);

	if (!ret && !(ret = gw_autorate_new(c->cfg, c->nl, c->applied, &c->st.sampler, &c->ar)))
		gw_probe_links_on_sample(c->lat, gw_autorate_sample, c->ar);
	if (!ret)
		ret = loop_open(&r->f, c);
	if (!ret)
		load_schedule(&r->f, c->cfg->probe.load_every_us, &r->load_every);
	return ret;
}

static void run_close(struct gw_loop_ctx *c, struct run *r)
{
	if (c->lat)
		gw_probe_links_tap(c->lat, NULL, NULL);
	gw_loadtest_free(r->lt);	/* its flows and probes stop at once */
	gw_fd_close(&r->f.load_every);
	/* the monitor's fd belongs to the monitor */
	gw_fd_close(&r->f.sample);
	gw_fd_close(&r->f.watchdog);
	gw_fd_close(&r->f.heal);
	gw_fd_close(&r->f.ep);
	gw_probe_links_free(c->lat);
	c->lat = NULL;
	gw_autorate_free(c->ar);
	c->ar = NULL;
}

int gw_loop_run(struct gw_loop_ctx *c)
{
	struct run r = { .f = { .ep = -1, .sample = -1, .watchdog = -1, .monitor = -1, .heal = -1,
				.probe = -1, .load_every = -1, .load_test = -1, .web = -1 },
			 .interval = c->cfg->interval_us / 1e6, .next_due = gw_mono_now() };
	bool stop = false;
	int ret = run_open(c, &r);

	while (!ret && !stop) {
		struct epoll_event got[8];
		int n;

		web_sync(&r.f, c);
		n = epoll_wait(r.f.ep, got, 8, web_timeout_ms(c));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		gw_watchdog_woke();
		/* the web process: a frame goes on being written, a death is heard, a restart
		 * is due; nothing of it waits */
		if (c->web)
			gw_webchild_poll(c->web->c, gw_mono_now());
		pet_watchdog(&r.f, got, n);
		for (int i = 0; i < n && !stop; i++)
			stop = on_fd(c, &r, got[i].data.fd);
	}
	run_close(c, &r);
	return ret;
}
