/* bench/repeat.h: `--compare --repeat N`: each figure's median over the repetitions
 * with a distribution-free confidence interval, the pairs of queues apart beyond them, the
 * table and the box plots of a repeated run. Not a public API. */
#ifndef GW_BENCH_REPEAT_H
#define GW_BENCH_REPEAT_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_REPEAT_LEVEL 0.95	/* the coverage an interval is chosen for */
/* --repeat's bounds, GW_BENCH_MAX_REPEAT and GW_BENCH_MAX_TOTAL_S, are the results file's
 * (webui/benchfile.h) */

/* The median of n figures and an interval for it: [x(k), x(n+1-k)] of the figures sorted,
 * which holds the median of the figures' distribution with probability
 * 1 - 2 P(Binomial(n, 1/2) <= k - 1), whatever that distribution (the order-statistic
 * interval for a median). k is the largest whose coverage is at least BENCH_REPEAT_LEVEL;
 * below 6 figures none is, and the interval is the range (k = 1) with the coverage it has
 * (75% for 3). */
struct bench_ci {
	size_t n;		/* figures that were numbers (NAN ones are left out) */
	double median;		/* the middle one; the mean of the two middle ones for even n */
	double lo, hi;		/* NAN when n is 0 */
	size_t k;		/* the rank of lo from below and of hi from above; 0 when n is 0 */
	double coverage;	/* the probability above; 0 for n < 2 */
};

/* The interval of v's n values (NAN ones skipped; v is not changed). */
void bench_ci_of(const double *v, size_t n, struct bench_ci *ci);
/* 1 - 2 P(Binomial(n, 1/2) <= k - 1): how often [x(k), x(n+1-k)] holds the median. */
double bench_ci_coverage(size_t n, size_t k);
/* Both have an interval (n >= 2) and the two do not overlap. */
bool bench_ci_apart(const struct bench_ci *a, const struct bench_ci *b);

/* results.json's `summary` of a repeated run (docs/compare-schema.md) from its `runs` (as
 * results.c writes them: `label`, `qdisc`, `ran`, `repeat` and the figures): per label in
 * the order first run, each figure's interval, and per figure the pairs of labels apart
 * beyond their intervals and those not. NULL when out of memory. */
struct json_object;
struct json_object *bench_summary_json(struct json_object *runs, int repetitions);

/* The bench's table of a repeated run (median [lo, hi] per label), the interval's coverage
 * and a line per figure of which pairs differ beyond the intervals, to stdout. */
struct bench_opts;
struct bench_result;
void bench_repeat_table(const struct bench_opts *o, const struct bench_result *r, size_t n);

/* The sentence that says what [lo, hi] is for n repetitions (its coverage, honestly). */
void bench_repeat_interval_text(int n, char *buf, size_t len);
/* A summary figure ({n, median, lo, hi}) as the table prints it: "18.07 [17.90, 18.20]",
 * the median alone for one figure, "-" for none; a count's median ("997", "997.5"). */
void bench_repeat_cell(char *buf, size_t len, struct json_object *fig, double scale, int dec);
void bench_repeat_count(char *buf, size_t len, struct json_object *fig);
/* A row of the table (webui/benchrows.h) in a repeated run's: the cell of one `summary`
 * queue q, as above; the grade row's is the median induced mean's grade ("-" for none),
 * headed BENCH_REPEAT_GRADE_ROW. */
struct gw_bench_row;
void bench_repeat_row_cell(const struct gw_bench_row *row, struct json_object *q, char *buf,
			   size_t len);
#define BENCH_REPEAT_GRADE_ROW "grade (median induced mean)"

/* box-induced.svg and box-goodput.svg in dir, from its results.json (as report.html reads it):
 * a box per label over the pooled samples of its repetitions, each repetition's own figure
 * marked. 0, or -errno with err. */
int bench_repeat_plots(const char *dir, char *err, size_t errlen);
#define BENCH_BOX_INDUCED "box-induced.svg"
#define BENCH_BOX_GOODPUT "box-goodput.svg"

#endif
