/* bench/repeat.c: a repeated bench's statistics: each figure's median over the
 * repetitions with its order-statistic interval, which queues differ beyond the intervals, the
 * table that shows them and the box plots over the repetitions. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/repeat.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/stats.h"
#include "bench/svg.h"
#include "webui/benchfile.h"
#include "webui/benchrows.h"

#define MAX_LABELS 16	/* the bench runs at most GW_BENCH_MAX_QUEUES */

double bench_ci_coverage(size_t n, size_t k)
{
	double below = 0, c = 1;	/* C(n, i), exact in a double up to n = 1000 */

	if (n < 2 || k < 1 || 2 * k > n + 1)
		return 0;
	for (size_t i = 0; i < k; i++) {
		below += c;
		c = c * (double)(n - i) / (double)(i + 1);
	}
	return 1 - 2 * below / pow(2, (double)n);
}

void bench_ci_of(const double *v, size_t n, struct bench_ci *ci)
{
	double *x = malloc((n ? n : 1) * sizeof(*x));
	size_t m = 0;

	memset(ci, 0, sizeof(*ci));
	ci->median = ci->lo = ci->hi = NAN;
	if (!x)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			x[m++] = v[i];
	ci->n = m;
	if (m) {
		bench_sort(x, m);
		ci->median = m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
		/* the narrowest interval that still holds the median often enough; below 6
		 * figures none does, and the range is the best there is */
		ci->k = 1;
		while (2 * (ci->k + 1) <= m + 1 && bench_ci_coverage(m, ci->k + 1) >= BENCH_REPEAT_LEVEL)
			ci->k++;
		ci->lo = x[ci->k - 1];
		ci->hi = x[m - ci->k];
		ci->coverage = bench_ci_coverage(m, ci->k);
	}
	free(x);
}

bool bench_ci_apart(const struct bench_ci *a, const struct bench_ci *b)
{
	return a->n >= 2 && b->n >= 2 && (a->hi < b->lo || b->hi < a->lo);
}

static const char *run_label(struct json_object *run)
{
	struct json_object *v;

	if (json_object_object_get_ex(run, "label", &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (json_object_object_get_ex(run, "qdisc", &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "?";
}

/* runs[].position: the queue's place in --qdiscs (a repeated file's); -1 without */
static int run_queue(struct json_object *run)
{
	struct json_object *v;

	if (json_object_object_get_ex(run, "position", &v) && json_object_is_type(v, json_type_int))
		return (int)json_object_get_int64(v);
	return -1;
}

/* A column of the summary: the runs of one queue of --qdiscs (its place and its label: the
 * same label twice, `--qdiscs fifo,fifo`, is two columns, "fifo (1)" and "fifo (2)"). */
struct qgroup {
	const char *label;
	int queue;
	char column[GW_BENCH_LABEL_MAX + 16];
};

static bool in_group(struct json_object *run, const struct qgroup *g)
{
	return run_queue(run) == g->queue && !strcmp(run_label(run), g->label);
}

/* Names each group's column: its label, with its place in --qdiscs where another has it. */
static void name_groups(struct qgroup *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool twice = false;

		for (size_t j = 0; j < n; j++)
			twice |= j != i && !strcmp(g[i].label, g[j].label);
		if (twice)
			snprintf(g[i].column, sizeof(g[i].column), "%.*s (%d)", GW_BENCH_LABEL_MAX, g[i].label,
				 g[i].queue + 1);
		else
			snprintf(g[i].column, sizeof(g[i].column), "%.*s", GW_BENCH_LABEL_MAX, g[i].label);
	}
}

static bool run_ran(struct json_object *run)
{
	struct json_object *v;

	return json_object_object_get_ex(run, "ran", &v) && json_object_get_boolean(v);
}

/* Every figure the summary has: each number row's of the table, then both of each pair's. */
static size_t n_figures(void)
{
	size_t n = 0;

	for (size_t r = 0; r < gw_bench_n_rows; r++)
		n += gw_bench_rows[r].kind == GW_BENCH_ROW_NUM ? 1 :
		     gw_bench_rows[r].kind == GW_BENCH_ROW_PAIR ? 2 : 0;
	return n;
}

static const char *figure_path(size_t f)
{
	for (size_t r = 0; r < gw_bench_n_rows; r++) {
		const struct gw_bench_row *row = &gw_bench_rows[r];
		size_t k = row->kind == GW_BENCH_ROW_NUM ? 1 : row->kind == GW_BENCH_ROW_PAIR ? 2 : 0;

		if (f < k)
			return f ? row->path2 : row->path;
		f -= k;
	}
	return NULL;
}

/* The interval of figure path over the runs of group g that ran. */
static void label_ci(struct json_object *runs, const struct qgroup *g, const char *path,
		     struct bench_ci *ci)
{
	size_t n = json_object_array_length(runs), m = 0;
	double *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v) {
		bench_ci_of(NULL, 0, ci);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i), *x;

		if (!in_group(run, g) || !run_ran(run))
			continue;
		x = gw_bench_at(run, path);
		v[m++] = x && (json_object_is_type(x, json_type_double) ||
			       json_object_is_type(x, json_type_int)) ? json_object_get_double(x) : NAN;
	}
	bench_ci_of(v, m, ci);
	free(v);
}

static struct json_object *ci_json(const struct bench_ci *ci)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)ci->n));
	json_object_object_add(o, "median", bench_json_num(ci->median));
	json_object_object_add(o, "lo", bench_json_num(ci->lo));
	json_object_object_add(o, "hi", bench_json_num(ci->hi));
	json_object_object_add(o, "k", json_object_new_int64((int64_t)ci->k));
	json_object_object_add(o, "coverage", json_object_new_double(round(ci->coverage * 1e4) / 1e4));
	return o;
}

/* The groups in the order they first ran (at most max). */
static size_t groups_of(struct json_object *runs, struct qgroup *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		struct json_object *run = json_object_array_get_idx(runs, i);
		size_t k = 0;

		while (k < n && !in_group(run, &out[k]))
			k++;
		if (k == n && n < max) {
			out[n].label = run_label(run);
			out[n++].queue = run_queue(run);
		}
	}
	name_groups(out, n);
	return n;
}

static struct json_object *pair_json(const char *a, const char *b)
{
	struct json_object *p = json_object_new_array();

	json_object_array_add(p, json_object_new_string(a));
	json_object_array_add(p, json_object_new_string(b));
	return p;
}

struct json_object *bench_summary_json(struct json_object *runs, int repetitions)
{
	struct json_object *s = json_object_new_object(), *qs = json_object_new_array();
	struct json_object *diffs = json_object_new_array();
	struct qgroup labels[MAX_LABELS];
	size_t nl = groups_of(runs, labels, MAX_LABELS);
	struct bench_ci *ci = calloc(nl * n_figures() + 1, sizeof(*ci));

	if (!s || !qs || !diffs || !ci) {
		json_object_put(s);
		json_object_put(qs);
		json_object_put(diffs);
		free(ci);
		return NULL;
	}
	json_object_object_add(s, "repetitions", json_object_new_int(repetitions));
	json_object_object_add(s, "level", json_object_new_double(BENCH_REPEAT_LEVEL));
	for (size_t l = 0; l < nl; l++) {
		struct json_object *q = json_object_new_object(), *figs = json_object_new_object();
		size_t ran = 0, all = 0;

		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			struct json_object *run = json_object_array_get_idx(runs, i), *v;

			if (!in_group(run, &labels[l]))
				continue;
			all++;
			ran += run_ran(run);
			if (all == 1 && json_object_object_get_ex(run, "qdisc", &v))
				json_object_object_add(q, "qdisc", json_object_get(v));
		}
		json_object_object_add(q, "label", json_object_new_string(labels[l].label));
		if (labels[l].queue >= 0)
			json_object_object_add(q, "position", json_object_new_int(labels[l].queue));
		json_object_object_add(q, "column", json_object_new_string(labels[l].column));
		json_object_object_add(q, "runs", json_object_new_int64((int64_t)all));
		json_object_object_add(q, "ran", json_object_new_int64((int64_t)ran));
		for (size_t f = 0; f < n_figures(); f++) {
			struct bench_ci *c = &ci[l * n_figures() + f];

			label_ci(runs, &labels[l], figure_path(f), c);
			json_object_object_add(figs, figure_path(f), ci_json(c));
		}
		json_object_object_add(q, "figures", figs);
		/* the grade of the median induced mean, as a run's is of its own */
		label_ci(runs, &labels[l], "latency_ms.induced.mean", &ci[l * n_figures() + n_figures()]);
		const char *g = bench_grade(ci[l * n_figures() + n_figures()].median);

		json_object_object_add(q, "grade", *g ? json_object_new_string(g) : NULL);
		json_object_array_add(qs, q);
	}
	json_object_object_add(s, "queues", qs);
	/* the headline figures: which pairs are apart beyond their intervals, which are not
	 * (a pair where either has no interval is in neither) */
	for (size_t f = 0; f < gw_bench_n_rows && gw_bench_rows[f].kind == GW_BENCH_ROW_NUM; f++) {
		struct json_object *d = json_object_new_object(), *ap = json_object_new_array();
		struct json_object *ov = json_object_new_array();

		for (size_t a = 0; a < nl; a++)
			for (size_t b = a + 1; b < nl; b++) {
				const struct bench_ci *x = &ci[a * n_figures() + f], *y = &ci[b * n_figures() + f];

				if (x->n < 2 || y->n < 2)
					continue;
				json_object_array_add(bench_ci_apart(x, y) ? ap : ov,
						      pair_json(labels[a].column, labels[b].column));
			}
		json_object_object_add(d, "figure", json_object_new_string(gw_bench_rows[f].path));
		json_object_object_add(d, "row", json_object_new_string(gw_bench_rows[f].label));
		json_object_object_add(d, "apart", ap);
		json_object_object_add(d, "overlap", ov);
		json_object_array_add(diffs, d);
	}
	json_object_object_add(s, "differences", diffs);
	free(ci);
	return s;
}

/* 1st, 2nd, 3rd, 4th... */
static const char *ordinal(size_t k, char *buf, size_t len)
{
	static const char *const th[] = { "th", "st", "nd", "rd" };

	snprintf(buf, len, "%zu%s", k, (k % 100) / 10 == 1 || k % 10 > 3 ? "th" : th[k % 10]);
	return buf;
}

void bench_repeat_interval_text(int n, char *buf, size_t len)
{
	double one[GW_BENCH_MAX_REPEAT], cov;
	struct bench_ci ci;
	char o[16];

	if (n > GW_BENCH_MAX_REPEAT)
		n = GW_BENCH_MAX_REPEAT;
	for (int i = 0; i < n; i++)
		one[i] = i;
	bench_ci_of(one, (size_t)(n > 0 ? n : 0), &ci);
	cov = ci.coverage * 100;
	if (cov >= BENCH_REPEAT_LEVEL * 100)
		snprintf(buf, len, "median [lo, hi] of %d repetitions of each queue, run in turn: lo and hi are the %s smallest and the %s largest figure, a 95%% confidence interval for the median whatever the figures' distribution (%.1f%% exactly)",
			 n, ordinal(ci.k, o, sizeof(o)), o, cov);
	else
		snprintf(buf, len, "median [lo, hi] of %d repetitions of each queue, run in turn: [lo, hi] is their range, which holds the median with %.1f%% confidence whatever the figures' distribution (not 95%%: that needs 6 repetitions or more)",
			 n, cov);
}

void bench_repeat_cell(char *buf, size_t len, struct json_object *fig, double scale, int dec)
{
	struct json_object *m = gw_bench_at(fig, "median"), *lo = gw_bench_at(fig, "lo"), *hi = gw_bench_at(fig, "hi");
	struct json_object *k = gw_bench_at(fig, "n");

	if (!m || !json_object_is_type(fig, json_type_object))
		snprintf(buf, len, "-");
	else if (json_object_get_int64(k) < 2 || !lo || !hi)
		snprintf(buf, len, "%.*f", dec, json_object_get_double(m) * scale);
	else
		snprintf(buf, len, "%.*f [%.*f, %.*f]", dec, json_object_get_double(m) * scale, dec,
			 json_object_get_double(lo) * scale, dec, json_object_get_double(hi) * scale);
}

void bench_repeat_count(char *buf, size_t len, struct json_object *fig)
{
	struct json_object *m = json_object_is_type(fig, json_type_object) ?
				gw_bench_at(fig, "median") : NULL;
	double v = m ? json_object_get_double(m) : NAN;

	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v == floor(v) ? "%.0f" : "%.1f", v);
}

void bench_repeat_row_cell(const struct gw_bench_row *row, struct json_object *q, char *buf,
			   size_t len)
{
	struct json_object *figs = gw_bench_at(q, "figures"), *g;
	char x[40], y[40];

	if (!json_object_is_type(figs, json_type_object))
		figs = NULL;
	switch (row->kind) {
	case GW_BENCH_ROW_NUM:
		bench_repeat_cell(buf, len, figs ? json_object_object_get(figs, row->path) : NULL,
				  row->scale, row->dec);
		break;
	case GW_BENCH_ROW_PAIR:
		bench_repeat_count(x, sizeof(x), figs ? json_object_object_get(figs, row->path) : NULL);
		bench_repeat_count(y, sizeof(y), figs ? json_object_object_get(figs, row->path2) : NULL);
		snprintf(buf, len, "%s/%s", x, y);
		break;
	case GW_BENCH_ROW_GRADE:
		g = gw_bench_at(q, "grade");
		snprintf(buf, len, "%s", g ? json_object_get_string(g) : "-");
		break;
	}
}

#define COLW 24

static void print_summary(struct json_object *s, int n)
{
	struct json_object *qs = gw_bench_at(s, "queues"), *diffs = gw_bench_at(s, "differences");
	size_t nq = json_object_array_length(qs);
	char b[320];

	bench_repeat_interval_text(n, b, sizeof(b));
	printf("%s\n", b);
	printf("%-26s", "");
	for (size_t i = 0; i < nq; i++)
		printf(" %*s", COLW, json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, i), "column")));
	printf("\n");
	for (size_t r = 0; r < gw_bench_n_rows; r++) {
		const struct gw_bench_row *row = &gw_bench_rows[r];

		printf("%-26s", row->kind == GW_BENCH_ROW_GRADE ? BENCH_REPEAT_GRADE_ROW : row->label);
		for (size_t i = 0; i < nq; i++) {
			struct json_object *q = json_object_array_get_idx(qs, i);

			if (row->kind != GW_BENCH_ROW_GRADE && !json_object_get_int64(gw_bench_at(q, "ran")))
				snprintf(b, sizeof(b), "skipped");
			else
				bench_repeat_row_cell(row, q, b, sizeof(b));
			printf(" %*s", COLW, b);
		}
		printf("\n");
	}
	if (nq < 2)
		return;
	printf("beyond the intervals (two intervals apart) or not (overlapping), per figure:\n");
	for (size_t f = 0; f < json_object_array_length(diffs); f++) {
		struct json_object *d = json_object_array_get_idx(diffs, f);
		static const char *const what[2] = { "apart", "overlap" };

		printf("  %s:", json_object_get_string(gw_bench_at(d, "row")));
		for (int w = 0; w < 2; w++) {
			struct json_object *a = gw_bench_at(d, what[w]);
			size_t np = json_object_array_length(a);

			printf("%s %s: ", w ? ";" : "", w ? "overlapping" : "apart");
			if (!np)
				printf("none");
			for (size_t p = 0; p < np; p++) {
				struct json_object *pr = json_object_array_get_idx(a, p);

				printf("%s%s vs %s", p ? ", " : "",
				       json_object_get_string(json_object_array_get_idx(pr, 0)),
				       json_object_get_string(json_object_array_get_idx(pr, 1)));
			}
		}
		printf("\n");
	}
	/* what a range's "apart" is worth: for two queues that are the same, n figures of one
	 * all below (or above) all n of the other happen 2 / C(2n, n) of the time */
	if (n < 6) {
		double c = 1;

		for (int i = 1; i <= n; i++)
			c = c * (double)(n + i) / i;
		printf("(with ranges of %d repetitions, two queues that are the same are apart by chance %.1f%% of the time per figure: more repetitions, or --repeat 6 and over, for 95%% intervals)\n",
		       n, 200 / c);
	}
}

void bench_repeat_table(const struct bench_opts *o, const struct bench_result *r, size_t n)
{
	struct json_object *runs = json_object_new_array(), *s;

	for (size_t i = 0; i < n && runs; i++)
		json_object_array_add(runs, bench_run_summary_json(&r[i], true));
	if (!runs || !(s = bench_summary_json(runs, o->repeat))) {
		printf("(no table: out of memory)\n");
		json_object_put(runs);
		return;
	}
	print_summary(s, o->repeat);
	json_object_put(s);
	json_object_put(runs);
}

/* A box per label over the pooled values of its repetitions (induced: every loaded probe less
 * its own run's baseline; goodput: every 0.5 s interval of each TCP window), each
 * repetition's own figure marked on it. */
int bench_repeat_plots(const char *dir, char *err, size_t errlen)
{
	static struct gw_bench_file run;	/* big: not on the stack */
	static const char *const ind_kind[] = { "induced" }, *const dirs[] = { "up", "down" };
	static const char *const ind_fig = "latency_ms.induced.p50";
	static const char *const good_fig[2] = { "goodput_bps.up", "goodput_bps.down" };
	struct qgroup labels[MAX_LABELS];
	struct bench_box ib[MAX_LABELS], gb[MAX_LABELS][2];
	struct bench_svg_boxcol ic[MAX_LABELS], gc[MAX_LABELS];
	double *pool[3] = { NULL, NULL, NULL };
	static double marks[MAX_LABELS][3][GW_BENCH_MAX_RUNS];
	size_t nl = 0, np[3], total[3] = { 0, 0, 0 };
	char path[4200];
	int e = 0;

	snprintf(path, sizeof(path), "%s", dir);

	memset(&run, 0, sizeof(run));
	snprintf(run.dir, sizeof(run.dir), "%s", dir);
	if ((e = gw_bench_file_read(&run, GW_BENCH_SAMPLES, err, errlen)))
		return e;
	for (size_t k = 0; k < run.n_cols; k++) {
		total[0] += run.col[k].n_induced;
		total[1] += run.col[k].n_good[0];
		total[2] += run.col[k].n_good[1];
	}
	for (int w = 0; w < 3; w++)
		if (!(pool[w] = malloc((total[w] + 1) * sizeof(double))))
			e = -ENOMEM;
	for (size_t k = 0; k < run.n_cols && !e; k++) {
		size_t l = 0;

		while (l < nl && (strcmp(labels[l].label, run.col[k].label) ||
				  labels[l].queue != run.col[k].queue))
			l++;
		if (l == nl && nl < MAX_LABELS) {
			labels[nl].label = run.col[k].label;
			labels[nl++].queue = run.col[k].queue;
		}
	}
	name_groups(labels, nl);
	memset(gb, 0, sizeof(gb));
	memset(ib, 0, sizeof(ib));
	for (size_t l = 0; l < nl && !e; l++) {
		size_t nm = 0;

		np[0] = np[1] = np[2] = 0;
		for (size_t k = 0; k < run.n_cols; k++) {
			const struct gw_bench_col *c = &run.col[k];

			if (strcmp(c->label, labels[l].label) || c->queue != labels[l].queue || !c->ran)
				continue;
			memcpy(pool[0] + np[0], c->induced, c->n_induced * sizeof(double));
			np[0] += c->n_induced;
			for (int d = 0; d < 2; d++) {
				memcpy(pool[1 + d] + np[1 + d], c->good[d], c->n_good[d] * sizeof(double));
				np[1 + d] += c->n_good[d];
			}
			struct json_object *v = gw_bench_at(c->fig, ind_fig);

			marks[l][0][nm] = v ? json_object_get_double(v) : NAN;
			for (int d = 0; d < 2; d++) {
				v = gw_bench_at(c->fig, good_fig[d]);
				marks[l][1 + d][nm] = v ? json_object_get_double(v) : NAN;
			}
			nm++;
		}
		bench_box_of(pool[0], np[0], &ib[l]);
		bench_box_of(pool[1], np[1], &gb[l][0]);
		bench_box_of(pool[2], np[2], &gb[l][1]);
		ic[l] = (struct bench_svg_boxcol){ labels[l].column, "", { &ib[l], NULL },
						   { marks[l][0], NULL }, { nm, 0 } };
		gc[l] = (struct bench_svg_boxcol){ labels[l].column, "", { &gb[l][0], &gb[l][1] },
						   { marks[l][1], marks[l][2] }, { nm, nm } };
	}
	if (!e) {
		snprintf(path, sizeof(path), "%s/" BENCH_BOX_INDUCED, dir);
		e = bench_svg_boxes(path, "Induced latency under load, every repetition's probes (RTT less its idle median)",
				    "induced latency (ms)", 1, ind_kind, 1, ic, nl);
	}
	if (!e) {
		snprintf(path, sizeof(path), "%s/" BENCH_BOX_GOODPUT, dir);
		e = bench_svg_boxes(path, "Goodput per 0.5 s of every repetition's TCP window",
				    "goodput (Mbit/s)", 1e-6, dirs, 2, gc, nl);
	}
	if (e)
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
	for (int w = 0; w < 3; w++)
		free(pool[w]);
	gw_bench_file_free(&run);
	return e;
}
