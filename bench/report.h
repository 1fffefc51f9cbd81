/* bench/report.h: what `gatewayd --compare-report` shares between its files: the report's
 * plots (svg.c; box plots' figures from percentile.c). Saved runs are read back by the one
 * reader of results.json, webui/benchfile.c. Not a public API. */
#ifndef GW_COMPARE_REPORT_H
#define GW_COMPARE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/percentile.h"

#define REP_MAX_RUNS 16		/* run directories on one command line */
#define REP_MIN_RUNS 2
#define REP_MAX_COLS 32		/* run x queue columns in one report: the plots' legends */
#define REP_LABEL_MAX 32

/* svg.c: the report's plots. A line of a CDF: the sorted values x, drawn as the fraction at
 * most x; colour and dash pattern by index (dash 0: solid). */
struct cmp_svg_cdfline {
	const char *name;
	const double *x;
	size_t n;
	int color, dash;
};
int cmp_svg_cdf_lines(const char *path, const char *title, const char *xlabel,
		      const struct cmp_svg_cdfline *l, size_t n);

/* A column of a box plot: its label (two lines: the run, the queue) and k boxes (k of the
 * chart: e.g. up and down), values scaled by the chart's scale. */
struct cmp_svg_boxcol {
	const char *line1, *line2;
	const struct cmp_box *box[2];
	const double *marks[2];		/* values marked on each box (a repeated run's
					 * figures); NAN ones are not drawn */
	size_t n_marks[2];
};
int cmp_svg_boxes(const char *path, const char *title, const char *ylabel, double scale,
		  const char *const *kinds, size_t k, const struct cmp_svg_boxcol *c, size_t n);

#endif
