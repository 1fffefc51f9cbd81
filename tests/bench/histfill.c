/* tests/bench/histfill.c: what the web process's history costs with every ring full, for the
 * memory benchmarks (tests/bench/rest.sh, rss.sh), measured without a day's wait and without a
 * knob in the daemon: a history of SERIES series at INTERVAL_S made from the daemon's own
 * history.c, filled with 24 h 15 min of points ending now, and the memory it took.
 *   histfill [-p PASSES] SERIES INTERVAL_S idle|busy
 * idle pushes zeros (classes at rest); busy gives every series a rate of 0.5 to 1.5 times its
 * own mean (1 kbit/s .. 1 gbit/s), a queue delay of 0.5 to 16 ms, drops in half the passes
 * and a backlog of 1 to 64 KB, each drawn anew in every pass (white noise, which packs worse
 * than real traffic). The 24 h take 3 passes a minute (a minute's min/avg/max of 3 random
 * values vary more than those of 60: its points pack no better than a real day's), then 15
 * minutes at the interval. -p PASSES: only PASSES passes at the interval (a history that
 * young: what the web process holds at rest after as many). Prints one line of key=value:
 * series, interval_s, mode, passes, seconds (the fill's CPU time), bytes_at_start
 * (gw_history_bytes), packed_bytes (gw_history_packed_bytes) and rss_kb (what VmRSS grew by
 * from before the history was made, malloc tuned as the web process tunes it). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "webui/history.h"
#include "sys/memtune.h"

/* passes in each of the 1440 minutes before the raw ring's 15 minutes */
#define FILL_PER_MINUTE 3

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double uni(uint64_t *s)
{
	return (double)(rng(s) >> 11) / 9007199254740992.0;
}

static double logu(uint64_t *s, double lo, double hi)
{
	return exp2(lo + (hi - lo) * uni(s));
}

/* One pass at t: every series' figures, as the mode says. */
static void pass(struct gw_history *h, double t, bool busy, uint64_t *s)
{
	size_t n = gw_history_series(h);

	gw_history_pass(h, t);
	for (size_t i = 0; i < n; i++) {
		double mean = exp2(10 + (double)(i * 2654435761u % 1000) / 1000 * 20);

		if (busy)
			gw_history_push(h, i, mean * (0.5 + uni(s)), logu(s, -1, 4),
					rng(s) % 2 ? 0 : logu(s, 0, 6), logu(s, 10, 16));
		else
			gw_history_push(h, i, 0, 0, 0, 0);
	}
}

/* 24 h 15 min of passes ending before now (or only the last `only` at the interval); the
 * passes pushed. */
static long fill(struct gw_history *h, bool busy, double now, double interval_s, long only)
{
	long raw = (long)(GW_HIST_RAW_SECONDS / interval_s), day = GW_HIST_MINUTES * FILL_PER_MINUTE;
	double t = now - (only >= 0 ? (double)only * interval_s :
			  GW_HIST_MINUTES * 60.0 + (double)raw * interval_s);
	uint64_t s = 88172645463325252ull;
	long k, n = only >= 0 ? only : day + raw;

	for (k = 0; k < n; k++) {
		pass(h, t, busy, &s);
		t += only < 0 && k < day ? 60.0 / FILL_PER_MINUTE : interval_s;
	}
	return k;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int usage(void)
{
	fprintf(stderr, "usage: histfill [-p PASSES] SERIES INTERVAL_S idle|busy\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct gw_history *h;
	long only = -1, before, passes;
	unsigned long series;
	double interval_s, t0;
	char *end;
	bool busy;
	int c;

	while ((c = getopt(argc, argv, "p:")) != -1) {
		if (c != 'p')
			return usage();
		only = strtol(optarg, &end, 10);
		if (*end || only < 0)
			return usage();
	}
	if (argc - optind != 3)
		return usage();
	series = strtoul(argv[optind], &end, 10);
	if (*end || series < 1 || series > 1000000)
		return usage();
	interval_s = strtod(argv[optind + 1], &end);
	if (*end || !(interval_s >= 0.01 && interval_s <= 3600))
		return usage();
	if (!strcmp(argv[optind + 2], "busy"))
		busy = true;
	else if (!strcmp(argv[optind + 2], "idle"))
		busy = false;
	else
		return usage();
	/* the web process's malloc, so that what stays mapped is what stays there */
	gw_malloc_tune(true);
	before = rss_kb();
	if (!(h = gw_history_new(series, (int64_t)llround(interval_s * 1e6)))) {
		fprintf(stderr, "histfill: %s\n", strerror(ENOMEM));
		return 1;
	}
	t0 = (double)clock() / CLOCKS_PER_SEC;
	passes = fill(h, busy, (double)time(NULL), interval_s, only);
	printf("series=%lu interval_s=%g mode=%s passes=%ld seconds=%.1f bytes_at_start=%zu "
	       "packed_bytes=%zu rss_kb=%ld\n", series, interval_s, busy ? "busy" : "idle", passes,
	       (double)clock() / CLOCKS_PER_SEC - t0, gw_history_bytes(h),
	       gw_history_packed_bytes(h), rss_kb() - before);
	gw_history_free(h);
	return 0;
}
