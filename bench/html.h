/* bench/html.h: report.html, a run's (or a report's runs') one self-contained page.
 * Not a public API. */
#ifndef GW_BENCH_HTML_H
#define GW_BENCH_HTML_H

#include <stddef.h>
#include "webui/benchfile.h"

#define BENCH_HTML_NAME "report.html"
#define BENCH_HTML_SVG_MAX (8u << 20)	/* one plot embedded; the bench's are ~100 KB each */

/* Writes dir/report.html over runs (read back by webui/benchfile.c), embedding the plots named in
 * plots (files in dir; one that is missing, too big or holds anything but drawing is left
 * out, with a line saying so on the page). On the page the table is the element of id
 * "figures" and the i-th plot's frame "plot<i>", where a reader (or a test) finds them. 0, or
 * -errno with "PATH: what" in err. */
int bench_html_write(const char *dir, const struct gw_bench_file *runs, size_t n,
		     const char *const *plots, size_t n_plots, char *err, size_t errlen);

/* report.html of one bench run directory, from its results.json and its plots
 * (latency-cdf.svg, latency-time.svg, flows-QUEUE.svg): at the end of a run, and for
 * `--compare-report --html-only DIR` over an old one. 0, or -errno with err. */
int bench_html_run_dir(const char *dir, char *err, size_t errlen);

#endif
