/* bench/percentile.h: sorting figures and their nearest-rank percentiles, the one helper the
 * whole bench takes them with: a set's p50, p95, p99 and mean (its table), a box plot's
 * figures (its report and repeated runs). */
#ifndef GW_BENCH_PERCENTILE_H
#define GW_BENCH_PERCENTILE_H

#include <stddef.h>

/* A set's figures: ms for the bench's latencies; NAN when no value */
struct bench_pct {
	double p50, p95, p99, mean;
	size_t n, lost;		/* values taken (lost ones included), and the lost ones */
};

/* A box plot's figures of n values: nearest-rank percentiles, as the table takes them (so
 * the median is the table's p50 and the upper whisker its p95); NAN when n is 0. */
struct bench_box {
	size_t n;
	double min, p5, q1, median, q3, p95, max;
};

/* Sorts v (n values, no NAN) from the least. */
void bench_sort(double *v, size_t n);
/* Sorts n pairs (x[i], y[i]) by x, a stable insertion sort: for a series nearly in order
 * already (probes by their send time, whose replies come back about in it). */
void bench_sort_pairs(double *x, double *y, size_t n);
/* The p-th percentile (0..100) of n sorted values by nearest rank; NAN for none. */
double bench_percentile(const double *sorted, size_t n, double p);
/* v's n values (no NAN; their mean summed in the order given), then sorted: out's p50, p95,
 * p99 and mean, out->n = n + lost, out->lost = lost. */
void bench_pct_of(double *v, size_t n, size_t lost, struct bench_pct *out);
/* Sorts v (n values, no NAN) and fills b. */
void bench_box_of(double *v, size_t n, struct bench_box *b);

#endif
