/* webui/benchrows.h: the bench's table, one list of rows for every place that prints it: the
 * bench's own table and --compare-report's (gatewayd-bench, bench/table.c), report.html
 * (bench/html.c) and the status page (/api/compare, webui/lastcmp.c, and the page's script). */
#ifndef GW_BENCHROWS_H
#define GW_BENCHROWS_H

#include <stdbool.h>
#include <stddef.h>

enum gw_bench_row_kind {
	GW_BENCH_ROW_NUM,	/* a figure, scaled, with decimals: "9.52" */
	GW_BENCH_ROW_PAIR,	/* two counts: "3/283" */
	GW_BENCH_ROW_GRADE,	/* the grade: "A+" */
};

struct gw_bench_row {
	const char *label;		/* "goodput up (Mbit/s)", as the table heads the row */
	enum gw_bench_row_kind kind;
	const char *path, *path2;	/* the figure in a run of results.json ("goodput_bps.up");
					 * a pair's two */
	double scale;			/* into the unit printed: bits/s to Mbit/s, 1e-6 */
	int dec;			/* decimals printed */
	bool page;			/* the status page shows it too */
};

extern const struct gw_bench_row gw_bench_rows[];
extern const size_t gw_bench_n_rows;

/* What the peak backlog and TCP RTT rows are, under every table of them (the terminal's, the
 * report's, report.html's): the one is the whole qdisc's, the other the bulk flows' own. */
#define GW_BENCH_ROWS_KEY \
	"peak backlog: the whole qdisc's at its fullest, every flow's packets together (the flood's\n" \
	"among them), in ms at the direction's rate; behind an FQ queue a flow waits for its own\n" \
	"alone. TCP RTT: the bulk flows' own (their senders' smoothed RTT, every tick, under load);\n" \
	"TCP induced: the same less the idle baseline.\n"

/* A run's cell of row, from its figures (results.json's run, or what the reader kept of it):
 * "9.52", "3/283", "A+"; "-" where the figures lack it (a file older than the figure);
 * "skipped" for fig NULL (the run did not run). */
struct json_object;
void gw_bench_cell(const struct gw_bench_row *row, struct json_object *fig, char *buf,
		   size_t len);

#endif
