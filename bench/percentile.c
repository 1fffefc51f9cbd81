/* bench/percentile.c: sorting figures and their nearest-rank percentiles (bench/percentile.h):
 * a set's p50, p95, p99 and mean; a box plot's quartiles, whiskers at the 5th and 95th
 * percentiles, and extremes, by the same nearest rank the table uses. */
#include <math.h>
#include <stdlib.h>
#include "bench/percentile.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_sort(double *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), by_value);
}

void bench_sort_pairs(double *x, double *y, size_t n)
{
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && x[b - 1] > x[b]; b--) {
			double tx = x[b], ty = y[b];

			x[b] = x[b - 1];
			y[b] = y[b - 1];
			x[b - 1] = tx;
			y[b - 1] = ty;
		}
}

double bench_percentile(const double *sorted, size_t n, double p)
{
	size_t i;

	if (!n)
		return NAN;
	i = (size_t)ceil(p / 100.0 * (double)n);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return sorted[i - 1];
}

void bench_pct_of(double *v, size_t n, size_t lost, struct bench_pct *out)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->n = n + lost;
	out->lost = lost;
	out->p50 = out->p95 = out->p99 = out->mean = NAN;
	if (!n)
		return;
	bench_sort(v, n);
	out->p50 = bench_percentile(v, n, 50);
	out->p95 = bench_percentile(v, n, 95);
	out->p99 = bench_percentile(v, n, 99);
	out->mean = sum / (double)n;
}

void bench_box_of(double *v, size_t n, struct bench_box *b)
{
	b->n = n;
	if (!n) {
		b->min = b->p5 = b->q1 = b->median = b->q3 = b->p95 = b->max = NAN;
		return;
	}
	bench_sort(v, n);
	/* nearest rank, as the table's p50 and p95 are taken: the box's median and upper
	 * whisker are the table's figures, not an interpolation of their own */
	b->min = v[0];
	b->p5 = bench_percentile(v, n, 5);
	b->q1 = bench_percentile(v, n, 25);
	b->median = bench_percentile(v, n, 50);
	b->q3 = bench_percentile(v, n, 75);
	b->p95 = bench_percentile(v, n, 95);
	b->max = v[n - 1];
}
