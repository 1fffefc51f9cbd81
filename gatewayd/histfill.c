/* gatewayd/histfill.c: a bench knob (GATEWAYD_BENCH_FILL_HISTORY): fill the history rings
 * with 24 h 15 min of points before the first pass, so the daemon's memory can be measured
 * with every ring full without waiting a day. Not a feature: nothing else calls it. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "gatewayd/history.h"

/* passes in each of the 1440 minutes before the raw ring's 15 minutes: fewer than a real
 * day's, so the fill takes seconds; a minute's min/avg/max of 3 random values vary more
 * than those of 60, so its points pack no better than a real day's */
#define FILL_PER_MINUTE 3

static uint64_t fill_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double fill_uni(uint64_t *s)
{
	return (double)(fill_rng(s) >> 11) / 9007199254740992.0;
}

static double fill_logu(uint64_t *s, double lo, double hi)
{
	return exp2(lo + (hi - lo) * fill_uni(s));
}

int gw_history_bench_fill(struct gw_history *h, const char *mode, double now,
			  double interval_s)
{
	size_t n = gw_history_series(h);
	int raw = (int)(GW_HIST_RAW_SECONDS / interval_s), passes = 0;
	double t = now - GW_HIST_MINUTES * 60.0 - raw * interval_s;
	uint64_t s = 88172645463325252ull;
	bool busy;

	if (!strcmp(mode, "busy"))
		busy = true;
	else if (!strcmp(mode, "idle"))
		busy = false;
	else
		return -EINVAL;
	for (int k = 0; k < GW_HIST_MINUTES * FILL_PER_MINUTE + raw; k++, passes++) {
		gw_history_pass(h, t);
		/* busy: every series carries traffic: its rate 0.5..1.5 x its own mean (1 kbit/s
		 * .. 1 gbit/s), a queue delay of 0.5..16 ms, drops in half the passes, a backlog
		 * of 1 KB .. 64 KB, each drawn anew in every pass (no two points alike) */
		for (size_t i = 0; i < n; i++) {
			double mean = exp2(10 + (double)(i * 2654435761u % 1000) / 1000 * 20);

			if (busy)
				gw_history_push(h, i, mean * (0.5 + fill_uni(&s)),
						fill_logu(&s, -1, 4),
						fill_rng(&s) % 2 ? 0 : fill_logu(&s, 0, 6),
						fill_logu(&s, 10, 16));
			else
				gw_history_push(h, i, 0, 0, 0, 0);
		}
		t += k < GW_HIST_MINUTES * FILL_PER_MINUTE ? 60.0 / FILL_PER_MINUTE : interval_s;
	}
	return passes;
}
