/* gatewayd/loop.c: one thread, one epoll: a signalfd and a periodic timerfd. Nothing here
 * sleeps; a sampling pass is two or three netlink dumps. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "gatewayd/log.h"
#include "gatewayd/heal.h"
#include "gatewayd/reload.h"
#include "gatewayd/loop.h"
#include "gatewayd/notify.h"

double gw_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double gw_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s%s %s %s %.1f/%.1f Mbit/s",
					i ? "; " : "", d->link, d->direction, d->shaper,
					d->total.achieved_bps / 1e6, (double)d->rate_bps / 1e6);
	}
	gw_notify(line);
}

/* One pass; the loop's own health (duration, lateness) goes into the snapshot. */
static void sample(const struct gw_config *cfg, struct gw_nl *nl, struct gw_status *st,
		   uint64_t expirations, double due, struct gw_ctr *ctr)
{
	char err[256] = "";
	struct gw_snapshot *snap;
	double t0 = gw_mono_now();
	int r;

	st->samples++;
	/* more than one expiry means a whole interval went by without a pass */
	if (expirations > 1 || t0 - due > cfg->interval_us / 1e6 / 2)
		st->late++;
	r = gw_sampler_pass(st->sampler, nl, t0, gw_wall_now(), &snap, err, sizeof(err));
	if (r) {
		gw_log(GW_LOG_ERR, "sampling: %s", err);
		return;
	}
	/* the containers' directions go after the configured links' */
	if (ctr && (r = gw_ctr_sample(ctr, t0, snap->unix_time, snap)))
		gw_log(GW_LOG_ERR, "sampling containers: %s", strerror(-r));
	/* a standing problem is logged when it starts, not every interval */
	if (err[0] && strcmp(err, st->last_sample_error))
		gw_log(GW_LOG_WARNING, "%s", err);
	snprintf(st->last_sample_error, sizeof(st->last_sample_error), "%s", err);
	snap->seq = st->samples;
	snap->uptime_s = t0 - st->start_mono;
	snap->sample_ms = (gw_mono_now() - t0) * 1000;
	snap->sample_lag_ms = (t0 - due) * 1000;
	snap->samples_total = st->samples;
	snap->late_samples_total = st->late;
	snprintf(snap->last_error, sizeof(snap->last_error), "%s", err[0] ? err : st->reload_error);
	notify_status(snap);
	gw_status_publish(st, snap);
}

enum { SIG_NONE, SIG_STOP, SIG_RELOAD };

static int on_signal(int sfd)
{
	struct signalfd_siginfo si;
	int what = SIG_NONE;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			what = SIG_RELOAD;
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
	bool listen = cur->n_listen != next->n_listen ||
		      (cur->auth_file == NULL) != (next->auth_file == NULL) ||
		      (cur->auth_file && strcmp(cur->auth_file, next->auth_file));

	for (size_t i = 0; !listen && i < cur->n_listen; i++)
		listen = strcmp(cur->listen[i], next->listen[i]) != 0;
	if (listen)
		gw_log(GW_LOG_WARNING, "reload: listen and auth_file changes take effect at restart");
	if (cur->interval_us != next->interval_us) {
		gw_log(GW_LOG_WARNING, "reload: an interval change takes effect at restart");
		next->interval_us = cur->interval_us;
	}
}

/* SIGHUP: a new config, all or nothing; the old one stays on any failure. */
static void reload(struct gw_loop_ctx *c)
{
	static const char *const how_words[] = {
		[GW_RELOAD_UNCHANGED] = "nothing to change",
		[GW_RELOAD_IN_PLACE] = "changed in place",
		[GW_RELOAD_CLASSES] = "classes added or removed in place",
		[GW_RELOAD_REBUILT] = "rebuilt",
	};
	struct gw_status *st = c->st;
	struct gw_config *next;
	enum gw_reload_how how;
	char err[1024] = "";
	int r;

	gw_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)(gw_mono_now() * 1e6));
	/* no kind probe here: it forks, and the HTTP threads make a fork unsafe; a missing
	 * kind is refused by the kernel during the reload, which then puts everything back */
	r = gw_config_load(c->cfg->file, &next, err, sizeof(err));
	if (!r) {
		keep_fixed(c->cfg, next);
		r = gw_reload(c->nl, c->mon, c->cfg, next, c->applied, &how, err, sizeof(err));
		if (r)
			gw_config_free(next);
	}
	if (r) {
		gw_log(GW_LOG_ERR, "reload: %s; still running the previous config", err);
		snprintf(st->reload_error, sizeof(st->reload_error), "last reload failed: %s", err);
		gw_notify("READY=1");
		return;
	}
	if (how == GW_RELOAD_REBUILT || how == GW_RELOAD_CLASSES) {
		struct gw_sampler *s;

		if (gw_sampler_new(next, c->applied, &s) == 0)
			gw_sampler_free(gw_status_swap_sampler(st, s));
	} else {
		pthread_mutex_lock(&st->lock);
		gw_sampler_retarget(st->sampler, next);
		pthread_mutex_unlock(&st->lock);
	}
	gw_config_free(c->cfg);
	c->cfg = next;
	if (c->ctr)
		gw_ctr_reload(c->ctr, next);
	st->reload_error[0] = '\0';
	gw_log(GW_LOG_INFO, "reloaded %s: %s", next->file, how_words[how]);
	gw_notify("READY=1");
}

/* The loop's file descriptors; -1 where one is not used. */
struct fds {
	int ep, sample, watchdog, monitor, heal;
};

static int watch(struct fds *f, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (fd < 0)
		return 0;
	return epoll_ctl(f->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* A heal check shortly after the first of a burst of events (one check for many). */
static void arm_heal(int hfd)
{
	struct itimerspec its = { .it_value.tv_nsec = 20 * 1000 * 1000 };

	timerfd_settime(hfd, 0, &its, NULL);
}

static void heal(struct gw_loop_ctx *c, bool *broken, char *last, size_t lastlen)
{
	char err[1024] = "";
	double t0 = gw_mono_now();
	int r = gw_heal(c->nl, c->mon, c->cfg, c->applied, c->st->sampler, err, sizeof(err));

	if (r == 1)
		gw_log(GW_LOG_WARNING, "%s; restored the tree in %.1f ms", err,
		       (gw_mono_now() - t0) * 1000);
	/* one line per failure, not one per retry */
	if (r < 0 && strcmp(err, last))
		gw_log(GW_LOG_ERR, "restoring the tree: %s; will retry", err);
	snprintf(last, lastlen, "%s", r < 0 ? err : "");
	*broken = r < 0;
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
	/* systemd's watchdog is fed from this loop, so a stuck loop is a restarted daemon */
	if (wd_us)
		f->watchdog = fds[3] = timer_open((int64_t)wd_us);
	if (c->mon)
		f->monitor = fds[4] = gw_monitor_fd(c->mon);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]) && !r; i++) {
		bool wanted = i == 0 || i == 1 || i == 2 || (i == 3 && wd_us) || (i == 4 && c->mon);

		if (wanted)
			r = fds[i] < 0 ? fds[i] : watch(f, fds[i]);
	}
	if (!r && c->ctr)
		r = watch(f, gw_ctr_fd(c->ctr));
	return r;
}

int gw_loop_run(struct gw_loop_ctx *c)
{
	struct fds f = { .ep = -1, .sample = -1, .watchdog = -1, .monitor = -1, .heal = -1 };
	double interval = c->cfg->interval_us / 1e6, next_due = gw_mono_now();
	char last[1024] = "";
	bool broken = false;
	int r = loop_open(&f, c);

	if (r)
		goto out;
	for (;;) {
		struct epoll_event got[5];
		int n = epoll_wait(f.ep, got, 5, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		for (int i = 0; i < n; i++) {
			int fd = got[i].data.fd;
			uint64_t exp = 0;

			if (fd == c->sfd) {
				int what = on_signal(c->sfd);

				if (what == SIG_STOP)
					goto out;
				if (what == SIG_RELOAD)
					reload(c);
			}
			if (c->ctr && fd == gw_ctr_fd(c->ctr)) {
				gw_ctr_dispatch(c->ctr);
				continue;
			}
			if (fd == f.monitor && gw_heal_pending(c->mon, c->cfg, c->applied))
				arm_heal(f.heal);
			if (fd != c->sfd && fd != f.monitor && read(fd, &exp, sizeof(exp)) != sizeof(exp))
				continue;
			if (fd == f.watchdog)
				gw_notify("WATCHDOG=1");
			if (fd == f.heal)
				heal(c, &broken, last, sizeof(last));
			if (fd == f.sample) {
				sample(c->cfg, c->nl, c->st, exp, next_due, c->ctr);
				next_due += interval * (double)exp;
				/* keep trying while broken (until the interface is back), and catch
				 * what no event announced: a pass that found a root missing */
				if (broken || c->st->last_sample_error[0])
					arm_heal(f.heal);
			}
		}
	}
out:
	/* the monitor's fd belongs to the monitor */
	if (f.sample >= 0)
		close(f.sample);
	if (f.watchdog >= 0)
		close(f.watchdog);
	if (f.heal >= 0)
		close(f.heal);
	if (f.ep >= 0)
		close(f.ep);
	return r;
}
