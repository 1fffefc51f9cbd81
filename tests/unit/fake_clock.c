/* tests/unit/fake_clock.c: a clock that moves only when the test moves it (fake_clock.h). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "tests/unit/fake_clock.h"

static int64_t ns_of(double s)
{
	return s > 0 ? (int64_t)llround(s * 1e9) : 0;
}

/* The first nanosecond at which the clock reads s or later: a timer asked for a time is
 * never due before now() says that time has come (a real one never is), whatever the
 * doubles round to. */
static int64_t ns_at_least(double s)
{
	int64_t ns = ns_of(s);

	while ((double)ns / 1e9 < s)
		ns++;
	return ns;
}

static double fc_now(void *ctx)
{
	return fake_clock_now(ctx);
}

static double fc_wall(void *ctx)
{
	const struct fake_clock *fc = ctx;

	return fc->wall0 + fake_clock_now(fc);
}

static struct fake_timer *timer_of(struct fake_clock *fc, int fd)
{
	for (size_t i = 0; i < FAKE_CLOCK_TIMERS; i++)
		if (fc->t[i].fd == fd && fd >= 0)
			return &fc->t[i];
	return NULL;
}

static int fc_timer_new(void *ctx)
{
	struct fake_clock *fc = ctx;
	struct fake_timer *t = NULL;
	int fd;

	for (size_t i = 0; !t && i < FAKE_CLOCK_TIMERS; i++)
		if (fc->t[i].fd < 0)
			t = &fc->t[i];
	if (!t)
		return -EMFILE;
	if ((fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	*t = (struct fake_timer){ .fd = fd };
	return fd;
}

static int fc_timer_set(void *ctx, int fd, double first_s, double every_s)
{
	struct fake_clock *fc = ctx;
	struct fake_timer *t = timer_of(fc, fd);
	uint64_t drain;

	if (!t)
		return -EBADF;
	/* as timerfd_settime: what was due and not read is forgotten */
	while (read(fd, &drain, sizeof(drain)) > 0)
		;
	t->armed = ns_of(first_s) > 0;
	t->due_ns = ns_at_least(fake_clock_now(fc) + first_s);
	if (t->due_ns <= fc->now_ns)
		t->due_ns = fc->now_ns + 1;
	t->every_ns = ns_of(every_s);
	return 0;
}

static void fc_timer_close(void *ctx, int fd)
{
	struct fake_timer *t = timer_of(ctx, fd);

	if (t)
		*t = (struct fake_timer){ .fd = -1 };
	close(fd);
}

void fake_clock_init(struct fake_clock *fc, double now_s)
{
	memset(fc, 0, sizeof(*fc));
	for (size_t i = 0; i < FAKE_CLOCK_TIMERS; i++)
		fc->t[i].fd = -1;
	fc->now_ns = ns_of(now_s);
	fc->wall0 = 1.7e9;
	fc->clock = (struct gw_clock){ .now = fc_now, .wall = fc_wall, .timer_new = fc_timer_new,
				       .timer_set = fc_timer_set, .timer_close = fc_timer_close,
				       .ctx = fc };
}

double fake_clock_now(const struct fake_clock *fc)
{
	return (double)fc->now_ns / 1e9;
}

void fake_clock_advance(struct fake_clock *fc, double s)
{
	fc->now_ns += ns_of(s);
	for (size_t i = 0; i < FAKE_CLOCK_TIMERS; i++) {
		struct fake_timer *t = &fc->t[i];
		uint64_t n;

		if (t->fd < 0 || !t->armed || t->due_ns > fc->now_ns)
			continue;
		if (t->every_ns) {
			n = 1 + (uint64_t)((fc->now_ns - t->due_ns) / t->every_ns);
			t->due_ns += (int64_t)n * t->every_ns;
		} else {
			n = 1;
			t->armed = false;
		}
		/* an eventfd adds what is written to what waits: a timerfd's count */
		if (write(t->fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			continue;
	}
}

double fake_clock_next(const struct fake_clock *fc)
{
	int64_t best = -1;

	for (size_t i = 0; i < FAKE_CLOCK_TIMERS; i++) {
		const struct fake_timer *t = &fc->t[i];

		if (t->fd >= 0 && t->armed && (best < 0 || t->due_ns < best))
			best = t->due_ns;
	}
	if (best < 0)
		return -1;
	return best <= fc->now_ns ? 0 : (double)(best - fc->now_ns) / 1e9;
}

size_t fake_clock_open(const struct fake_clock *fc)
{
	size_t n = 0;

	for (size_t i = 0; i < FAKE_CLOCK_TIMERS; i++)
		n += fc->t[i].fd >= 0;
	return n;
}
