/* sys/clock.c: the clocks the daemon reads, as seconds in a double, and the real
 * clock behind the clock seam (timerfds on CLOCK_MONOTONIC). */
#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "sys/clock.h"

static double now_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double gw_mono_now(void)
{
	return now_of(CLOCK_MONOTONIC);
}

double gw_wall_now(void)
{
	return now_of(CLOCK_REALTIME);
}

static double real_now(void *ctx)
{
	(void)ctx;
	return gw_mono_now();
}

static double real_wall(void *ctx)
{
	(void)ctx;
	return gw_wall_now();
}

static int real_timer_new(void *ctx)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	(void)ctx;
	return fd < 0 ? -errno : fd;
}

/* seconds as a timespec, to the nanosecond below */
static struct timespec ts_of(double s)
{
	int64_t ns = s > 0 ? (int64_t)(s * 1e9) : 0;

	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000),
				  .tv_nsec = (long)(ns % 1000000000) };
}

static int real_timer_set(void *ctx, int fd, double first_s, double every_s)
{
	struct itimerspec its = { .it_value = ts_of(first_s), .it_interval = ts_of(every_s) };

	(void)ctx;
	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

static void real_timer_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

const struct gw_clock gw_clock_real = {
	.now = real_now, .wall = real_wall, .timer_new = real_timer_new,
	.timer_set = real_timer_set, .timer_close = real_timer_close,
};

const struct gw_clock *gw_clock_or_real(const struct gw_clock *c)
{
	return c ? c : &gw_clock_real;
}

double gw_clock_now(const struct gw_clock *c)
{
	c = gw_clock_or_real(c);
	return c->now(c->ctx);
}

double gw_clock_wall(const struct gw_clock *c)
{
	c = gw_clock_or_real(c);
	return c->wall(c->ctx);
}

int gw_clock_timer(const struct gw_clock *c)
{
	c = gw_clock_or_real(c);
	return c->timer_new(c->ctx);
}

int gw_clock_arm(const struct gw_clock *c, int fd, double first_s, double every_s)
{
	c = gw_clock_or_real(c);
	return c->timer_set(c->ctx, fd, first_s, every_s);
}

void gw_clock_timer_close(const struct gw_clock *c, int *fd)
{
	c = gw_clock_or_real(c);
	if (*fd >= 0)
		c->timer_close(c->ctx, *fd);
	*fd = -1;
}
