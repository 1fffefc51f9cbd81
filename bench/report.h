/* bench/report.h: what `gatewayd --compare-report` shares between its files: a saved
 * run read back (rdresults.c), box-plot statistics (boxplot.c), the report's plots (svg.c).
 * Not a public API. */
#ifndef GW_COMPARE_REPORT_H
#define GW_COMPARE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REP_MAX_RUNS 16		/* run directories on one command line */
#define REP_MIN_RUNS 2
#define REP_MAX_QUEUES 160	/* runs[] in one results.json: 8 queues x 20 repetitions */
#define REP_MAX_COLS 32		/* run x queue columns in one report: the plots' legends */
#define REP_LABEL_MAX 32
#define REP_QLABEL_MAX 96	/* a queue's label with its knobs (the bench's CMP_LABEL_MAX) */
#define REP_FILE_MAX (32u << 20)	/* one results.json; a 1 h run of 8 queues is ~30 MB */
#define REP_MAX_SAMPLES 1000000	/* probes in one queue's run (1 h at 20/s is 72,000) */
#define REP_MAX_FLOWS 32
#define REP_MAX_POINTS 100000	/* one flow's series */
#define REP_SCHEMA "gatewayd-compare"
#define REP_SCHEMA_VERSION 1	/* the results.json version this build reads */

/* A box plot's figures of n values: nearest-rank percentiles, as the bench's table takes
 * them (so the median is the table's p50 and the upper whisker its p95); NAN when n is 0. */
struct cmp_box {
	size_t n;
	double min, p5, q1, median, q3, p95, max;
};

/* Sorts v (n values, no NAN) and fills b. */
void cmp_box_of(double *v, size_t n, struct cmp_box *b);

/* One queue of one saved run: a column of the report. */
/* The rows of the bench's table after its two headings, as paths into a results.json run's
 * figures, in the unit the terminal prints them (--compare-report's table and report.html
 * both print these; rdresults.c holds them): numbers, then pairs "a/b". */
struct rep_num_row {
	const char *label, *path;
	double scale;
	int dec;
};
struct rep_pair_row {
	const char *label, *a, *b;
};
/* What the peak backlog and TCP RTT rows are, under every table of them (the terminal's, the
 * report's, report.html's): the one is the whole qdisc's, the other the bulk flows' own. */
#define REP_ROWS_KEY \
	"peak backlog: the whole qdisc's at its fullest, every flow's packets together (the flood's\n" \
	"among them), in ms at the direction's rate; behind an FQ queue a flow waits for its own\n" \
	"alone. TCP RTT: the bulk flows' own (their senders' smoothed RTT, every tick, under load);\n" \
	"TCP induced: the same less the idle baseline.\n"
extern const struct rep_num_row rep_num_rows[];
extern const size_t rep_n_num_rows;
extern const struct rep_pair_row rep_pair_rows[];
extern const size_t rep_n_pair_rows;
/* obj's value at a dotted path ("latency_ms.idle.p50"), NULL when absent or null. */
struct json_object;
struct json_object *rep_at(struct json_object *obj, const char *path);

struct rep_col {
	char qdisc[24];
	char label[REP_QLABEL_MAX];	/* runs[].label (the queue with its knobs), else qdisc */
	int repeat;			/* runs[].repeat (--repeat), 0-based; -1 when absent */
	int queue;			/* runs[].position: its place in --qdiscs; -1 when absent */
	bool ran;
	char note[256];
	struct json_object *fig;	/* the run's figures (results.json's, by reference) */
	double *rtt;			/* loaded RTTs (tcp and flood phases, replies), sorted */
	size_t n_rtt;
	double *induced;		/* the same less the run's baseline, sorted */
	size_t n_induced;
	double *good[2];		/* [0] up, [1] down: the direction's goodput, bits/s,
					 * per 0.5 s interval of the TCP window, sorted */
	size_t n_good[2];
	struct cmp_box box_induced, box_good[2];
	struct json_object *qdiscs;	/* runs[].qdiscs, the tree read back (by reference) */
};

/* One saved run: its directory, label, settings and queues. */
struct rep_run {
	char dir[4096];
	char label[REP_LABEL_MAX + 1];
	struct json_object *config;	/* results.json's `config`, by reference */
	int64_t rate_bps, generated_unix;
	int64_t rate_bps_down, rate_bps_up;	/* each direction's; older files: rate_bps both */
	double rtt_ms, duration_s;
	bool netem;
	char kernel[16], kernel_release[80], version[40];
	struct json_object *meta;	/* results.json's `metadata` (by reference), or NULL */
	struct json_object *summary;	/* its `summary` (a repeated run, by reference), or NULL */
	int repetitions;		/* config.repeat; 1 when absent */
	struct rep_col col[REP_MAX_QUEUES];
	size_t n_cols;
};

/* Reads dir/results.json into r (dir and label are the caller's). 0, or -errno with
 * "PATH: what is wrong" in err: missing, too big, not JSON (with its line), another file's
 * schema, a version this build does not read, a field missing or of the wrong type. */
int rep_read_run(struct rep_run *r, char *err, size_t errlen);
/* The same from text already read (len bytes, NUL-terminated); path names it in errors. */
int rep_parse_run(struct rep_run *r, const char *path, const char *text, size_t len, char *err,
		  size_t errlen);
void rep_run_free(struct rep_run *r);

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
