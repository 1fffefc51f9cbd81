/* bench/report.c: `gatewayd --compare-report [--out DIR] RUNDIR[=LABEL]...`: saved
 * runs of --compare side by side: one table (stdout, and report.json in DIR) with every run's
 * queues as columns and every run's settings in its header, a warning where they differ, and
 * plots across the runs: the loaded RTT's CDF, box plots of induced latency and goodput. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/html.h"
#include "bench/outfile.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/report.h"
#include "bench/results.h"
#include "bench/svg.h"
#include "bench/table.h"
#include "webui/benchfile.h"
#include "webui/benchrows.h"

#define BENCH_REPORT_OUT_VERSION 1
#define LABEL_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+@:-"

static const char *const plot_names[] = { "report-latency-cdf.svg", "report-box-induced.svg",
					  "report-box-goodput.svg" };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gatewayd --compare-report [--out DIR] RUNDIR[=LABEL] RUNDIR[=LABEL]...\n"
		"Lays %d to %d saved runs of gatewayd --compare (each RUNDIR holds its\n"
		"results.json) side by side: one table on stdout, every run's queues as columns\n"
		"headed by the run's label (LABEL, else RUNDIR's name: at most %d of A-Z a-z 0-9\n"
		". _ + @ : -) and its settings, with a warning where the runs' settings differ.\n"
		"--out DIR also writes report.json and the plots across the runs there:\n"
		"report-latency-cdf.svg, report-box-induced.svg, report-box-goodput.svg,\n"
		"and report.html, one self-contained page with the table, plots and settings.\n"
		"--html-only RUNDIR writes (again) RUNDIR/report.html of one saved run.\n"
		"Exit status 2 when a run directory or its results.json is missing or bad.\n",
		BENCH_REPORT_MIN_RUNS, BENCH_REPORT_MAX_RUNS, BENCH_REPORT_LABEL_MAX);
}

static bool label_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= BENCH_REPORT_LABEL_MAX && strspn(s, LABEL_CHARS) == n;
}

/* ARG as DIR=LABEL, or DIR alone (also a directory whose name holds a '='), labelled after
 * the directory's own name. */
static int parse_run_arg(const char *arg, struct gw_bench_file *r)
{
	char dir[4096], real[PATH_MAX];
	const char *eq = strrchr(arg, '='), *label = NULL, *base;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", arg);
	if (eq && stat(arg, &st) < 0) {
		dir[eq - arg] = 0;
		label = eq + 1;
	}
	if (!dir[0] || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(dir, real)) {
		fprintf(stderr, "gatewayd: --compare-report: %s: %s\n", dir[0] ? dir : arg,
			!dir[0] ? "no directory before '='" :
			errno == ENOENT || S_ISDIR(st.st_mode) ? "no such directory" :
			"not a directory");
		return -EINVAL;
	}
	snprintf(r->dir, sizeof(r->dir), "%s", real);
	if (!label) {
		base = strrchr(real, '/');
		label = base && base[1] ? base + 1 : real;
	}
	if (!label_ok(label)) {
		fprintf(stderr, "gatewayd: --compare-report: %s: '%s' is no label (1 to %d of A-Z a-z 0-9 . _ + @ : -): give one as %s=LABEL\n",
			dir, label, BENCH_REPORT_LABEL_MAX, dir);
		return -EINVAL;
	}
	snprintf(r->label, sizeof(r->label), "%s", label);
	return 0;
}

/* The config's settings (every key but the phases, which differ from run to run) that are
 * not the same in every run: their names into diff (a JSON array), a line each into warn. */
static void settings_differ(struct gw_bench_file *runs, size_t n, struct json_object *diff,
			    struct json_object *warn)
{
	struct json_object *keys = json_object_new_object();
	static const char *const top[] = { "kernel", "kernel_release", "gatewayd_version" };

	/* the settings beside config: which kernel ran it, and which gatewayd */
	for (size_t t = 0; t < 3; t++) {
		char line[2048];
		size_t l = 0;
		bool same = true;

		for (size_t i = 0; i < n; i++) {
			const char *v = t == 0 ? runs[i].kernel : t == 1 ? runs[i].kernel_release :
					runs[i].version;
			const char *v0 = t == 0 ? runs[0].kernel : t == 1 ? runs[0].kernel_release :
					 runs[0].version;

			same &= !strcmp(v, v0);
			if (l < sizeof(line))
				l += (size_t)snprintf(line + l, sizeof(line) - l, "%s%s %s",
						      i ? ", " : "", runs[i].label, v);
		}
		if (!same) {
			char w[2200];

			json_object_array_add(diff, json_object_new_string(top[t]));
			snprintf(w, sizeof(w), "%s: %s", top[t], line);
			json_object_array_add(warn, json_object_new_string(w));
		}
	}
	for (size_t i = 0; i < n; i++) {
		json_object_object_foreach(runs[i].config, ck, cv) {
			(void)cv;
			if (strcmp(ck, "phases") && json_object_object_length(keys) < 64)
				json_object_object_add(keys, ck, NULL);
		}
	}
	json_object_object_foreach(keys, k, unused) {
		char line[2048];
		size_t l = 0;
		bool same = true;

		(void)unused;
		for (size_t i = 0; i < n; i++) {
			struct json_object *v = NULL;
			const char *s;

			json_object_object_get_ex(runs[i].config, k, &v);
			s = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "(none)";
			/* each object's text is in a buffer of its own: the first run's stays */
			struct json_object *v0 = NULL;

			json_object_object_get_ex(runs[0].config, k, &v0);
			same &= !strcmp(s, v0 ? json_object_to_json_string_ext(v0, JSON_C_TO_STRING_PLAIN) :
					"(none)");
			if (l < sizeof(line))
				l += (size_t)snprintf(line + l, sizeof(line) - l, "%s%s %s",
						      i ? ", " : "", runs[i].label, s);
		}
		if (!same) {
			char w[2200];

			json_object_array_add(diff, json_object_new_string(k));
			snprintf(w, sizeof(w), "config.%s: %s", k, line);
			json_object_array_add(warn, json_object_new_string(w));
		}
	}
	json_object_put(keys);
}

/* Each run's settings in a line, and a warning where they differ. */
static void print_settings(struct gw_bench_file *runs, size_t n, struct json_object *warn)
{
	for (size_t i = 0; i < n; i++) {
		char rate[80], when[32];
		time_t g = (time_t)runs[i].generated_unix;
		struct tm tm;

		bench_rate_text(rate, sizeof(rate), runs[i].rate[1] * 8, false);
		if (runs[i].rate[0] != runs[i].rate[1]) {
			size_t l = strlen(rate);

			snprintf(rate + l, sizeof(rate) - l, " down, ");
			l = strlen(rate);
			bench_rate_text(rate + l, sizeof(rate) - l, runs[i].rate[0] * 8, false);
			l = strlen(rate);
			snprintf(rate + l, sizeof(rate) - l, " up,");
		} else {
			snprintf(rate + strlen(rate), sizeof(rate) - strlen(rate), " each way,");
		}
		if (!gmtime_r(&g, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm))
			snprintf(when, sizeof(when), "?");
		printf("%s: %s base RTT %.1f ms%s; %.0f s per queue; kernel %s %s; gatewayd %s; %s; %s\n",
		       runs[i].label, rate, runs[i].rtt_ms, runs[i].netem ? "" : " (no netem)",
		       runs[i].duration_s, runs[i].kernel, runs[i].kernel_release, runs[i].version,
		       when, runs[i].dir);
	}
	if (json_object_array_length(warn)) {
		printf("warning: the runs' settings differ, so their figures compare unlike runs:\n");
		for (size_t i = 0; i < json_object_array_length(warn); i++)
			printf("warning:   %s\n", json_object_get_string(json_object_array_get_idx(warn, i)));
	}
	printf("\n");
}

/* The table: every run's queues as columns (bench/table.c), headed by the run's label and
 * the queue's, as wide as the widest; the notes under it. */
static void print_table(struct gw_bench_file *runs, size_t n, struct json_object *warn)
{
	const char *top[BENCH_REPORT_MAX_COLS], *label[BENCH_REPORT_MAX_COLS];
	struct json_object *fig[BENCH_REPORT_MAX_COLS];
	size_t nc = 0;
	int w = 13;

	print_settings(runs, n, warn);
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(runs[i].label) > w)
			w = (int)strlen(runs[i].label);
		for (size_t k = 0; k < runs[i].n_cols && nc < BENCH_REPORT_MAX_COLS; k++, nc++) {
			const struct gw_bench_col *c = &runs[i].col[k];

			if ((int)strlen(c->label) > w)
				w = (int)strlen(c->label);
			top[nc] = runs[i].label;
			label[nc] = c->label;
			fig[nc] = c->ran ? c->fig : NULL;
		}
	}
	bench_table_print(top, label, fig, nc, w);
	fputs(GW_BENCH_ROWS_KEY, stdout);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].n_cols; k++)
			if (runs[i].col[k].note[0])
				printf("note: %s %s: %s\n", runs[i].label, runs[i].col[k].label,
				       runs[i].col[k].note);
}

/* Each column's box figures, by its place across the runs: [0] induced latency, [1 + d]
 * goodput direction d. */
static struct bench_box boxes[BENCH_REPORT_MAX_COLS][3];

/* The boxes, and each column's RTTs sorted for the CDF. */
static void make_boxes(struct gw_bench_file *runs, size_t n)
{
	size_t nc = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].n_cols && nc < BENCH_REPORT_MAX_COLS; k++, nc++) {
			struct gw_bench_col *c = &runs[i].col[k];

			bench_sort(c->rtt, c->n_rtt);
			bench_box_of(c->induced, c->n_induced, &boxes[nc][0]);
			for (int d = 0; d < 2; d++)
				bench_box_of(c->good[d], c->n_good[d], &boxes[nc][1 + d]);
		}
}

static struct json_object *box_json(const struct bench_box *b)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "samples", json_object_new_int64((int64_t)b->n));
	json_object_object_add(o, "min", bench_json_num(b->min));
	json_object_object_add(o, "p5", bench_json_num(b->p5));
	json_object_object_add(o, "q1", bench_json_num(b->q1));
	json_object_object_add(o, "median", bench_json_num(b->median));
	json_object_object_add(o, "q3", bench_json_num(b->q3));
	json_object_object_add(o, "p95", bench_json_num(b->p95));
	json_object_object_add(o, "max", bench_json_num(b->max));
	return o;
}

static int write_json(const char *out, struct gw_bench_file *runs, size_t n, struct json_object *diff,
		      struct json_object *warn)
{
	struct json_object *root = json_object_new_object(), *ra = json_object_new_array();
	struct json_object *ca = json_object_new_array(), *pa = json_object_new_array();
	char path[4200], err[4600];
	size_t nc = 0;
	int ret;

	json_object_object_add(root, "schema", json_object_new_string("gatewayd-compare-report"));
	json_object_object_add(root, "version", json_object_new_int(BENCH_REPORT_OUT_VERSION));
	json_object_object_add(root, "gatewayd_version", json_object_new_string(GW_VERSION));
	json_object_object_add(root, "generated_unix", json_object_new_int64((int64_t)time(NULL)));
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "label", json_object_new_string(runs[i].label));
		json_object_object_add(r, "dir", json_object_new_string(runs[i].dir));
		json_object_object_add(r, "gatewayd_version", json_object_new_string(runs[i].version));
		json_object_object_add(r, "generated_unix", json_object_new_int64(runs[i].generated_unix));
		json_object_object_add(r, "kernel", json_object_new_string(runs[i].kernel));
		json_object_object_add(r, "kernel_release",
				       json_object_new_string(runs[i].kernel_release));
		json_object_object_add(r, "config", json_object_get(runs[i].config));
		json_object_array_add(ra, r);
		for (size_t k = 0; k < runs[i].n_cols && nc < BENCH_REPORT_MAX_COLS; k++, nc++) {
			const struct gw_bench_col *c = &runs[i].col[k];
			struct json_object *o = json_object_new_object(), *b, *g;

			json_object_object_add(o, "run", json_object_new_string(runs[i].label));
			json_object_object_add(o, "qdisc", json_object_new_string(c->qdisc));
			json_object_object_add(o, "label", json_object_new_string(c->label));
			json_object_object_add(o, "ran", json_object_new_boolean(c->ran));
			json_object_object_add(o, "note", json_object_new_string(c->note));
			if (c->ran) {
				json_object_object_add(o, "figures", json_object_get(c->fig));
				b = json_object_new_object();
				json_object_object_add(b, "induced_ms", box_json(&boxes[nc][0]));
				g = json_object_new_object();
				json_object_object_add(g, "up", box_json(&boxes[nc][1]));
				json_object_object_add(g, "down", box_json(&boxes[nc][2]));
				json_object_object_add(b, "goodput_bps", g);
				json_object_object_add(o, "box", b);
				json_object_object_add(o, "loaded_rtt_samples",
						       json_object_new_int64((int64_t)c->n_rtt));
			}
			json_object_array_add(ca, o);
		}
	}
	json_object_object_add(root, "runs", ra);
	json_object_object_add(root, "settings_differ", json_object_get(diff));
	json_object_object_add(root, "warnings", json_object_get(warn));
	json_object_object_add(root, "columns", ca);
	for (size_t i = 0; i < sizeof(plot_names) / sizeof(plot_names[0]); i++)
		json_object_array_add(pa, json_object_new_string(plot_names[i]));
	json_object_object_add(root, "plots", pa);
	snprintf(path, sizeof(path), "%s/report.json", out);
	/* whole or not at all: a reader never sees half a file, a full disk keeps the last */
	if ((ret = bench_out_json(path, root, err, sizeof(err))))
		fprintf(stderr, "gatewayd: %s\n", err);
	json_object_put(root);
	return ret;
}

static int write_plots(const char *out, struct gw_bench_file *runs, size_t n)
{
	struct bench_svg_cdfline lines[BENCH_REPORT_MAX_COLS];
	struct bench_svg_boxcol ind[BENCH_REPORT_MAX_COLS], good[BENCH_REPORT_MAX_COLS];
	char names[BENCH_REPORT_MAX_COLS][BENCH_REPORT_LABEL_MAX + GW_BENCH_LABEL_MAX + 2];
	char path[4200];
	static const char *const induced_kind[] = { "induced" }, *const dirs[] = { "up", "down" };
	size_t nl = 0, nc = 0;
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].n_cols && nc < BENCH_REPORT_MAX_COLS; k++, nc++) {
			const struct gw_bench_col *c = &runs[i].col[k];

			snprintf(names[nc], sizeof(names[nc]), "%s %s", runs[i].label, c->label);
			ind[nc] = (struct bench_svg_boxcol){ .line1 = runs[i].label,
							     .line2 = c->label,
							     .box = { &boxes[nc][0], NULL } };
			good[nc] = (struct bench_svg_boxcol){ .line1 = runs[i].label,
							      .line2 = c->label,
							      .box = { &boxes[nc][1], &boxes[nc][2] } };
			if (c->ran)
				lines[nl++] = (struct bench_svg_cdfline){ names[nc], c->rtt,
									  c->n_rtt, (int)nc, (int)i };
		}
	snprintf(path, sizeof(path), "%s/%s", out, plot_names[0]);
	bad += bench_svg_cdf_lines(path, "RTT under load: cumulative distribution, every run's queues",
				   "round-trip time (ms, log scale)", lines, nl) != 0;
	snprintf(path, sizeof(path), "%s/%s", out, plot_names[1]);
	bad += bench_svg_boxes(path, "Induced latency under load (RTT less the idle median)",
			       "induced latency (ms)", 1, induced_kind, 1, ind, nc) != 0;
	snprintf(path, sizeof(path), "%s/%s", out, plot_names[2]);
	bad += bench_svg_boxes(path, "Goodput per 0.5 s of the TCP window, each direction",
			       "goodput (Mbit/s)", 1e-6, dirs, 2, good, nc) != 0;
	if (bad)
		fprintf(stderr, "gatewayd: %d plot%s could not be written in %s\n", bad,
			bad == 1 ? "" : "s", out);
	return bad ? -EIO : 0;
}

/* --out made if need be, as its real path into real: the caller's own directory, writable by
 * no one else (outfile.c), since the files are written through it as root. 0, or -errno
 * said on stderr. */
static int out_dir(const char *out, char *real, size_t reallen)
{
	char abs[PATH_MAX], err[PATH_MAX + 256];
	int r, fd;

	if ((r = bench_out_mkdir(out)) || !realpath(out, abs)) {
		r = r ? r : -errno;
		fprintf(stderr, "gatewayd: --out %s: %s\n", out, strerror(-r));
		return r;
	}
	if ((fd = bench_out_dir_open(abs, err, sizeof(err))) < 0) {
		fprintf(stderr, "gatewayd: --out %s\n", err);
		return fd;
	}
	close(fd);
	snprintf(real, reallen, "%s", abs);
	return 0;
}

static int parse_opts(int argc, char **argv, char *out, size_t outlen, bool *html_only)
{
	static const struct option opts[] = {
		{ "compare-report", no_argument, NULL, 'R' },
		{ "html-only", no_argument, NULL, 'H' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			break;
		case 'H':
			*html_only = true;
			break;
		case 'o':
			if (!*optarg || strlen(optarg) >= outlen) {
				fprintf(stderr, "gatewayd: --out: want a directory, not '%s'\n", optarg);
				return -EINVAL;
			}
			snprintf(out, outlen, "%s", optarg);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	return 0;
}

/* --html-only RUNDIR: one saved run's report.html, written in its own directory */
static int html_only_main(struct gw_bench_file *runs, size_t n, const char *out)
{
	char err[1024];

	if (n != 1 || out[0]) {
		fprintf(stderr, "gatewayd: --compare-report --html-only: want one run directory%s, not %zu\n",
			out[0] ? " and no --out (the page goes into it)" : "", n);
		return 2;
	}
	int e = bench_html_run_dir(runs[0].dir, err, sizeof(err));

	if (e) {	/* 2 for a bad run directory, as the report's; 1 when it cannot write */
		fprintf(stderr, "gatewayd: --compare-report --html-only: %s\n", err);
		return e == -EIO ? 1 : 2;
	}
	printf("report: %s/%s\n", runs[0].dir, BENCH_HTML_NAME);
	return 0;
}

int bench_report_main(int argc, char **argv)
{
	static struct gw_bench_file runs[BENCH_REPORT_MAX_RUNS];	/* big: not on the stack */
	struct json_object *diff, *warn;
	char out[4096] = "", err[1024], real[PATH_MAX];
	size_t n = 0, cols = 0;
	bool html_only = false;
	int r, rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((r = parse_opts(argc, argv, out, sizeof(out), &html_only)))
		return r > 0 ? 0 : 2;
	/* --compare-report itself may come anywhere before the runs */
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "--compare-report"))
			argv[i] = NULL;
	for (int i = optind; i < argc; i++) {
		if (!argv[i])
			continue;
		if (n == BENCH_REPORT_MAX_RUNS) {
			fprintf(stderr, "gatewayd: --compare-report: at most %d runs\n", BENCH_REPORT_MAX_RUNS);
			goto usage_err;
		}
		memset(&runs[n], 0, sizeof(runs[n]));
		if (parse_run_arg(argv[i], &runs[n]))
			goto usage_err;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(runs[k].label, runs[n].label)) {
				fprintf(stderr, "gatewayd: --compare-report: two runs are labelled '%s' (%s and %s): give them labels as RUNDIR=LABEL\n",
					runs[n].label, runs[k].dir, runs[n].dir);
				goto usage_err;
			}
		n++;
	}
	if (html_only)
		return html_only_main(runs, n, out);
	if (n < BENCH_REPORT_MIN_RUNS) {
		fprintf(stderr, "gatewayd: --compare-report: want %d to %d run directories, not %zu\n",
			BENCH_REPORT_MIN_RUNS, BENCH_REPORT_MAX_RUNS, n);
		usage(stderr);
		goto usage_err;
	}
	for (size_t i = 0; i < n; i++) {
		if (gw_bench_file_read(&runs[i], GW_BENCH_SAMPLES, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: --compare-report: %s\n", err);
			n = i;
			goto usage_err;
		}
		cols += runs[i].n_cols;
	}
	if (cols > BENCH_REPORT_MAX_COLS) {
		fprintf(stderr, "gatewayd: --compare-report: %zu queues in all, more than the %d one report lays side by side\n",
			cols, BENCH_REPORT_MAX_COLS);
		goto usage_err;
	}
	/* refused before anything is printed: not a directory of the caller's own */
	if (out[0] && out_dir(out, real, sizeof(real))) {
		for (size_t i = 0; i < n; i++)
			gw_bench_file_free(&runs[i]);
		return 1;
	}
	make_boxes(runs, n);
	diff = json_object_new_array();
	warn = json_object_new_array();
	settings_differ(runs, n, diff, warn);
	print_table(runs, n, warn);
	if (out[0]) {
		if (write_json(real, runs, n, diff, warn) | write_plots(real, runs, n)) {
			rc = 1;
		} else if (bench_html_write(real, runs, n, plot_names, 3, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			rc = 1;
		} else {
			printf("report: %s/report.json, %s, %s, %s, %s\n", real, plot_names[0],
			       plot_names[1], plot_names[2], BENCH_HTML_NAME);
		}
	}
	json_object_put(diff);
	json_object_put(warn);
	for (size_t i = 0; i < n; i++)
		gw_bench_file_free(&runs[i]);
	return rc;
usage_err:
	for (size_t i = 0; i < n; i++)
		gw_bench_file_free(&runs[i]);
	return 2;
}
