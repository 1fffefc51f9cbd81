/* tests/unit/fake_clock.h: a clock for the clock seam (sys/clock.h) that moves only
 * when the test moves it: the load engine, the sink and the load test run on it, so a test
 * says how much time passed and judges what they did by then, never by how long it took. Its
 * timers are eventfds: readable, as a timerfd is, once the clock has passed their time. */
#ifndef GW_FAKE_CLOCK_H
#define GW_FAKE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sys/clock.h"

#define FAKE_CLOCK_TIMERS 64

struct fake_timer {
	int fd;			/* -1: a free slot */
	bool armed;
	int64_t due_ns, every_ns;	/* every 0: once */
};

struct fake_clock {
	struct gw_clock clock;	/* hand &fc->clock to what runs on it */
	int64_t now_ns;		/* whole nanoseconds: a tick lands where it is due, exactly */
	double wall0;		/* unix time at now 0 */
	struct fake_timer t[FAKE_CLOCK_TIMERS];
};

/* now_s: where the monotonic clock starts (the unix time is now_s + 1.7e9). */
void fake_clock_init(struct fake_clock *fc, double now_s);
double fake_clock_now(const struct fake_clock *fc);
/* Move the clock on by s (>= 0); every timer due by then turns readable, its expirations
 * counted as a timerfd counts them. */
void fake_clock_advance(struct fake_clock *fc, double s);
/* Seconds from now until the first armed timer is due (0 if one is due; -1: none armed). */
double fake_clock_next(const struct fake_clock *fc);
/* Timers open (made and not yet closed): what runs on the clock closes its own. */
size_t fake_clock_open(const struct fake_clock *fc);

#endif
