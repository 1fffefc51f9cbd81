/* sys/clock.h: the clocks the daemon reads, as seconds in a double, and the clock
 * seam of what runs on time (the load engine, the sink, the load test). */
#ifndef GW_CLOCK_H
#define GW_CLOCK_H

double gw_mono_now(void);	/* CLOCK_MONOTONIC */
double gw_wall_now(void);	/* CLOCK_REALTIME: unix time */

/*
 * A clock and its timers: the real one (gw_clock_real), or a test's that moves only when the
 * test moves it (tests/unit/fake_clock.h), so what a module does at a time is tested without
 * waiting for it. A timer is an fd, non-blocking and close-on-exec, that turns readable when
 * it is due and is read as a timerfd is (8 bytes: the expirations since the last read), so a
 * module keeps it in its epoll set whichever clock it runs on.
 */
struct gw_clock {
	double (*now)(void *ctx);	/* seconds, on CLOCK_MONOTONIC's scale */
	double (*wall)(void *ctx);	/* unix time */
	int (*timer_new)(void *ctx);	/* a disarmed timer's fd, or -errno */
	/* due first_s from now (0: disarmed), then every every_s (0: once). 0 or -errno */
	int (*timer_set)(void *ctx, int fd, double first_s, double every_s);
	void (*timer_close)(void *ctx, int fd);
	void *ctx;
};

extern const struct gw_clock gw_clock_real;

/* The same through a clock: c, or the real one where c is NULL. */
const struct gw_clock *gw_clock_or_real(const struct gw_clock *c);
double gw_clock_now(const struct gw_clock *c);
double gw_clock_wall(const struct gw_clock *c);
int gw_clock_timer(const struct gw_clock *c);
int gw_clock_arm(const struct gw_clock *c, int fd, double first_s, double every_s);
/* Closes *fd (if >= 0) and sets it to -1. */
void gw_clock_timer_close(const struct gw_clock *c, int *fd);

#endif
