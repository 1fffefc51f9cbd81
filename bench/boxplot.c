/* bench/boxplot.c: a box plot's figures of a set of values: quartiles, whiskers at
 * the 5th and 95th percentiles, and the extremes, by the nearest rank the bench's table uses. */
#include <math.h>
#include <stdlib.h>
#include "bench/bench.h"
#include "bench/report.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void cmp_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
}

void cmp_box_of(double *v, size_t n, struct cmp_box *b)
{
	b->n = n;
	if (!n) {
		b->min = b->p5 = b->q1 = b->median = b->q3 = b->p95 = b->max = NAN;
		return;
	}
	qsort(v, n, sizeof(*v), cmp_dbl);
	/* nearest rank, as cmp_percentile takes the table's p50 and p95: the box's median and
	 * upper whisker are the table's figures, not an interpolation of their own */
	b->min = v[0];
	b->p5 = cmp_percentile(v, n, 5);
	b->q1 = cmp_percentile(v, n, 25);
	b->median = cmp_percentile(v, n, 50);
	b->q3 = cmp_percentile(v, n, 75);
	b->p95 = cmp_percentile(v, n, 95);
	b->max = v[n - 1];
}
