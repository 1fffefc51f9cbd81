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
		   uint64_t expirations, double due)
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
	if (err[0])
		gw_log(GW_LOG_WARNING, "%s", err);
	snap->seq = st->samples;
	snap->uptime_s = t0 - st->start_mono;
	snap->sample_ms = (gw_mono_now() - t0) * 1000;
	snap->sample_lag_ms = (t0 - due) * 1000;
	snap->samples_total = st->samples;
	snap->late_samples_total = st->late;
	snprintf(snap->last_error, sizeof(snap->last_error), "%s", err);
	notify_status(snap);
	gw_status_publish(st, snap);
}

/* A signal that ends the run returns 1; SIGHUP is logged and ignored for now. */
static int on_signal(int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			gw_log(GW_LOG_WARNING,
			       "SIGHUP: reloading is not supported by this version; restart gatewayd to apply a changed config");
			continue;
		}
		gw_log(GW_LOG_INFO, "signal %u: stopping", si.ssi_signo);
		gw_notify("STOPPING=1");
		return 1;
	}
	return 0;
}

int gw_loop_run(int sfd, const struct gw_config *cfg, struct gw_nl *nl, struct gw_status *st)
{
	struct epoll_event ev = { .events = EPOLLIN };
	double interval = cfg->interval_us / 1e6, next_due;
	int ep = epoll_create1(EPOLL_CLOEXEC), tfd = timer_open(cfg->interval_us), r = 0;
	uint64_t wd_us = gw_watchdog_period_us();
	/* systemd's watchdog is fed from this loop, so a stuck loop is a restarted daemon */
	int wfd = wd_us ? timer_open((int64_t)wd_us) : -1;

	if (ep < 0 || tfd < 0 || (wd_us && wfd < 0)) {
		r = ep < 0 ? -errno : tfd < 0 ? tfd : wfd;
		goto out;
	}
	ev.data.fd = sfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) < 0)
		goto fail;
	ev.data.fd = tfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0)
		goto fail;
	ev.data.fd = wfd;
	if (wfd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, wfd, &ev) < 0)
		goto fail;
	next_due = gw_mono_now();
	for (;;) {
		struct epoll_event got[3];
		int n = epoll_wait(ep, got, 3, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		for (int i = 0; i < n; i++) {
			uint64_t exp = 0;

			if (got[i].data.fd == sfd && on_signal(sfd))
				goto out;
			if (got[i].data.fd == wfd && read(wfd, &exp, sizeof(exp)) == sizeof(exp)) {
				gw_notify("WATCHDOG=1");
				continue;
			}
			if (got[i].data.fd != tfd || read(tfd, &exp, sizeof(exp)) != sizeof(exp))
				continue;
			sample(cfg, nl, st, exp, next_due);
			next_due += interval * (double)exp;
		}
	}
fail:
	r = -errno;
out:
	if (wfd >= 0)
		close(wfd);
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	return r;
}
