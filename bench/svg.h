/* bench/svg.h: the plots, each an SVG file of its own (svg.c): a run's (latency CDF, latency
 * over time, each flow's rate), the varying-link scenario's, and a report's (CDF lines, box
 * plots). */
#ifndef GW_BENCH_SVG_H
#define GW_BENCH_SVG_H

#include <stddef.h>

struct bench_box;
struct bench_opts;
struct bench_result;
struct bench_sc_run;

/* A run's plots: the probes' latency as a CDF and over time, one line per run of r; each
 * flow's rate over one run. 0 or -errno. */
int bench_svg_cdf(const char *path, const struct bench_opts *o, struct bench_result *r, size_t n);
int bench_svg_timeline(const char *path, const struct bench_opts *o, struct bench_result *r,
		       size_t n);
int bench_svg_flows(const char *path, const struct bench_opts *o, const struct bench_result *r);
/* The varying-link scenario's: a way's rates (capacity, shaper, goodput) over the steps; every
 * way's latency over time. */
int bench_svg_sc_rates(const char *path, const struct bench_opts *o, const struct bench_sc_run *x);
int bench_svg_sc_rtt(const char *path, const struct bench_opts *o, const struct bench_sc_run *runs,
		     size_t n);

/* A report's plots. A line of a CDF: the sorted values x, drawn as the fraction at
 * most x; colour and dash pattern by index (dash 0: solid). */
struct bench_svg_cdfline {
	const char *name;
	const double *x;
	size_t n;
	int color, dash;
};
int bench_svg_cdf_lines(const char *path, const char *title, const char *xlabel,
			const struct bench_svg_cdfline *l, size_t n);

/* A column of a box plot: its label (two lines: the run, the queue) and k boxes (k of the
 * chart: e.g. up and down), values scaled by the chart's scale. */
struct bench_svg_boxcol {
	const char *line1, *line2;
	const struct bench_box *box[2];
	const double *marks[2];		/* values marked on each box (a repeated run's
					 * figures); NAN ones are not drawn */
	size_t n_marks[2];
};
int bench_svg_boxes(const char *path, const char *title, const char *ylabel, double scale,
		    const char *const *kinds, size_t k, const struct bench_svg_boxcol *c, size_t n);

#endif
