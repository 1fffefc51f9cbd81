/* webui/lastcmp.c: the last comparison for the status page (the web process). results.json
 * (its schema in docs/compare-schema.md) is read with a bound, parsed and checked by the
 * bench's own reader (webui/benchfile.c), and cut down to what the page shows: per queue the
 * figures, the page's rows of the bench's table (webui/benchrows.c) as the terminal prints
 * them, the run's settings and time, no samples. Plots are served by known names only, so no
 * request names another file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "webui/benchfile.h"
#include "webui/benchrows.h"
#include "webui/lastcmp.h"
#include "webui/readfile.h"

#define MAX_RUNS GW_BENCH_MAX_QUEUES	/* the first repetition's runs: one per --qdiscs */

int gw_lastcmp_init(struct gw_lastcmp *lc, const char *dir)
{
	memset(lc, 0, sizeof(*lc));
	snprintf(lc->dir, sizeof(lc->dir), "%s", dir ? dir : "");
	return -pthread_mutex_init(&lc->lock, NULL);
}

void gw_lastcmp_destroy(struct gw_lastcmp *lc)
{
	free(lc->summary);
	lc->summary = NULL;
	pthread_mutex_destroy(&lc->lock);
}

void gw_lastcmp_set_dir(struct gw_lastcmp *lc, const char *dir)
{
	pthread_mutex_lock(&lc->lock);
	if (strcmp(lc->dir, dir ? dir : "")) {
		snprintf(lc->dir, sizeof(lc->dir), "%s", dir ? dir : "");
		free(lc->summary);
		lc->summary = NULL;
	}
	pthread_mutex_unlock(&lc->lock);
}

/* The plots --compare writes, and nothing else: flows-LABEL.svg, LABEL a queue's name and
 * then nothing or its knobs in a file name's characters (no '/', nothing hidden). */
static bool known_plot(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(name, "latency-cdf.svg") || !strcmp(name, "latency-time.svg"))
		return true;
	if (n < 11 || n > 10 + GW_BENCH_LABEL_MAX - 1 || strncmp(name, "flows-", 6) ||
	    strcmp(name + n - 4, ".svg"))
		return false;
	if (name[6] < 'a' || name[6] > 'z')
		return false;
	for (size_t q = 7; q < n - 4; q++)
		if (!((name[q] >= 'a' && name[q] <= 'z') || (name[q] >= 'A' && name[q] <= 'Z') ||
		      (name[q] >= '0' && name[q] <= '9') || strchr("._+-", name[q])))
			return false;
	return true;
}

/* Read dir/name whole, at most max bytes; st gets what was read (for the cache). */
static int read_bounded(const char *dir, const char *name, size_t max, char **out, size_t *len,
			struct stat *st, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	int fd, e;

	if (!dir[0]) {
		snprintf(err, errlen, "no compare_dir configured");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENOTDIR)
			snprintf(err, errlen, "no comparison has run yet: no %s (run gatewayd --compare)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOTDIR ? -ENOENT : e == ELOOP ? -EACCES : -e;
	}
	e = -gw_webui_read_file(fd, max, st, out, len);
	close(fd);
	if (e == EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (e == EFBIG)
		snprintf(err, errlen, "%s: %lld bytes, over the %zu this page reads", path,
			 (long long)st->st_size, max);
	else if (e == EAGAIN)	/* grew while read: not a renamed file */
		snprintf(err, errlen, "%s: changed while read", path);
	else if (e == ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (e)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	return e == EINVAL ? -EACCES : -e;
}

/* A double written with 10 significant digits: the file's figures carry 3 decimals (an RTT of
 * 1038.234 ms, which 6 digits cut to 1038.23) and goodputs of up to 10 digits. */
static json_object *num_sig(double v)
{
	char t[32];

	snprintf(t, sizeof(t), "%.10g", v);
	return json_object_new_double_s(v, t);
}

/* A number (or null) copied from src's key; absent is null. false: neither. */
static bool copy_num(json_object *src, const char *key, json_object *dst, const char *as)
{
	json_object *v = NULL;

	if (!src || !json_object_object_get_ex(src, key, &v) || !v) {
		json_object_object_add(dst, as ? as : key, NULL);
		return true;
	}
	if (json_object_is_type(v, json_type_int))
		json_object_object_add(dst, as ? as : key,
				       json_object_new_int64(json_object_get_int64(v)));
	else if (json_object_is_type(v, json_type_double) && isfinite(json_object_get_double(v)))
		json_object_object_add(dst, as ? as : key,
				       num_sig(json_object_get_double(v)));
	else
		return false;
	return true;
}

/* {key: {k1: n, k2: n, ...}} with only the named members, each a number or null. */
static bool copy_group(json_object *src, const char *key, json_object *dst,
		       const char *const *names)
{
	json_object *g = NULL, *o;

	if (src && json_object_object_get_ex(src, key, &g) && g &&
	    !json_object_is_type(g, json_type_object))
		return false;
	o = json_object_new_object();
	json_object_object_add(dst, key, o);
	for (; *names; names++)
		if (!copy_num(g, *names, o, NULL))
			return false;
	return true;
}

static const char *const updown[] = { "up", "down", NULL };
static const char *const stats[] = { "p50", "p95", "p99", "mean", "samples", "lost", NULL };
static const char *const induced[] = { "p50", "p95", "p99", "mean", NULL };

/* A run's label (its queue and knobs: "fq_codel:target=2ms"; a config's own tree: its link's
 * name, "home+sfq"), or the queue's name where it is not the queue followed by knobs (not a
 * safe name, for a config's tree): the page shows it and names a plot after it. */
static const char *run_label(const struct gw_bench_col *c)
{
	size_t n = c->own ? 0 : strlen(c->qdisc);
	const char *l = c->label;

	if (!l[0] || strncmp(l, c->qdisc, n) || (n && l[n] && l[n] != ':'))
		return c->qdisc;
	for (const char *p = l + n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._+-:=", *p)))
			return c->qdisc;
	return l;
}

/* The page's rows of the bench's table: their labels, and which is the grade */
static json_object *page_rows(void)
{
	json_object *a = json_object_new_array();

	for (size_t r = 0; r < gw_bench_n_rows; r++) {
		json_object *o;

		if (!gw_bench_rows[r].page)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "label", json_object_new_string(gw_bench_rows[r].label));
		json_object_object_add(o, "kind", json_object_new_string(
			gw_bench_rows[r].kind == GW_BENCH_ROW_GRADE ? "grade" :
			gw_bench_rows[r].kind == GW_BENCH_ROW_PAIR ? "pair" : "number"));
		json_object_array_add(a, o);
	}
	return a;
}

/* A run's cells of the page's rows, as the bench's table prints them */
static json_object *page_cells(const struct gw_bench_col *c)
{
	json_object *a = json_object_new_array();
	char cell[64];

	for (size_t r = 0; r < gw_bench_n_rows; r++)
		if (gw_bench_rows[r].page) {
			gw_bench_cell(&gw_bench_rows[r], c->ran ? c->fig : NULL, cell, sizeof(cell));
			json_object_array_add(a, json_object_new_string(cell));
		}
	return a;
}

static bool summarize_run(const struct gw_bench_col *c, json_object *out)
{
	json_object *lat = gw_bench_at(c->fig, "latency_ms"), *g = gw_bench_at(c->fig, "grade");
	json_object *l;

	json_object_object_add(out, "qdisc", json_object_new_string(c->qdisc));
	json_object_object_add(out, "label", json_object_new_string(run_label(c)));
	if (c->own)
		json_object_object_add(out, "tree", json_object_new_string("config"));
	json_object_object_add(out, "ran", json_object_new_boolean(c->ran));
	json_object_object_add(out, "note", json_object_new_string(c->note));
	if (!c->ran)
		return true;
	json_object_object_add(out, "grade", g && json_object_get_string_len(g) <= 3 ?
			       json_object_new_string(json_object_get_string(g)) : NULL);
	json_object_object_add(out, "cells", page_cells(c));
	l = json_object_new_object();
	/* (the reader checked each of them: numbers, or null where a figure may be) */
	return copy_group(c->fig, "goodput_bps", out, updown) &&
	       copy_group(c->fig, "shaper_accuracy", out, updown) &&
	       copy_group(c->fig, "drops", out, updown) &&
	       copy_group(c->fig, "ecn_marks", out, updown) &&
	       copy_num(c->fig, "jain_fairness", out, NULL) && copy_num(c->fig, "cpu_busy", out, NULL) &&
	       !json_object_object_add(out, "latency_ms", l) && copy_num(lat, "baseline", l, NULL) &&
	       copy_group(lat, "idle", l, stats) && copy_group(lat, "loaded", l, stats) &&
	       copy_group(lat, "induced", l, induced);
}

/* The plots there are: the CDF, the timeline, each run's flows (a repeated run's first
 * repetition's, flows-LABEL-rep1.svg), by the names the bench gives them. */
static void add_plots(json_object *root, const struct gw_bench_col *const *runs, size_t n,
		      const char *dir)
{
	json_object *plots = json_object_new_array();
	char name[GW_BENCH_LABEL_MAX + 16], file[GW_BENCH_LABEL_MAX];
	struct stat st;
	int dfd = dir[0] ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	json_object_object_add(root, "plots", plots);
	if (dfd < 0)
		return;
	for (size_t i = 0; i < 2 + n; i++) {
		if (i < 2) {
			snprintf(name, sizeof(name), "%s", i ? "latency-time.svg" : "latency-cdf.svg");
		} else {
			if (!runs[i - 2]->ran)
				continue;
			gw_bench_label_file(run_label(runs[i - 2]), file, sizeof(file));
			snprintf(name, sizeof(name), runs[i - 2]->repeat >= 0 ? "flows-%s-rep1.svg" :
				 "flows-%s.svg", file);
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			json_object_array_add(plots, json_object_new_string(name));
	}
	close(dfd);
}

/* The file's settings, as the page shows them: a figure the file lacks is null */
static bool summarize_config(const struct gw_bench_file *f, json_object *root)
{
	json_object *o = json_object_new_object(), *v;

	json_object_object_add(root, "config", o);
	/* rate_bps_down/_up: each direction's (--rate DOWN/UP); null in files older than them */
	if (!copy_num(f->config, "rate_bps", o, NULL) ||
	    !copy_num(f->config, "rate_bps_down", o, NULL) ||
	    !copy_num(f->config, "rate_bps_up", o, NULL) || !copy_num(f->config, "rtt_ms", o, NULL) ||
	    !copy_num(f->config, "duration_s", o, NULL) || !copy_num(f->config, "probe_hz", o, NULL) ||
	    !copy_num(f->config, "tcp_flows_per_direction", o, NULL) ||
	    !copy_num(f->config, "udp_flood_bps", o, NULL))
		return false;
	if (json_object_object_get_ex(f->config, "netem", &v) &&
	    json_object_is_type(v, json_type_boolean))
		json_object_object_add(o, "netem", json_object_new_boolean(json_object_get_boolean(v)));
	return true;
}

/* The summary of a file read: its time, settings and runs (a repeated run's first
 * repetition's), the page's rows, the plots. */
static int summarize(const struct gw_bench_file *f, const char *dir, double mtime,
		     json_object *root, char *err, size_t errlen)
{
	const struct gw_bench_col *runs[MAX_RUNS];
	size_t n = 0;
	json_object *a;

	for (size_t i = 0; i < f->n_cols; i++) {
		if (f->col[i].repeat > 0)
			continue;
		if (n == MAX_RUNS) {
			snprintf(err, errlen, "results.json: more than %d queues in a repetition",
				 MAX_RUNS);
			return -EBADMSG;
		}
		runs[n++] = &f->col[i];
	}
	json_object_object_add(root, "schema", json_object_new_string("gatewayd-compare-summary"));
	json_object_object_add(root, "generated_unix", json_object_new_int64(f->generated_unix));
	json_object_object_add(root, "file_mtime_unix", json_object_new_int64((int64_t)mtime));
	json_object_object_add(root, "gatewayd_version", json_object_new_string(f->version));
	json_object_object_add(root, "kernel", json_object_new_string(f->kernel));
	json_object_object_add(root, "kernel_release", json_object_new_string(f->kernel_release));
	if (!n || !summarize_config(f, root)) {
		snprintf(err, errlen, "results.json: %s", n ? "config's figures are not numbers" :
			 "no run of the first repetition");
		return -EBADMSG;
	}
	json_object_object_add(root, "rows", page_rows());
	json_object_object_add(root, "runs", a = json_object_new_array());
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_array_add(a, o);
		if (!summarize_run(runs[i], o)) {
			snprintf(err, errlen, "results.json: a run's figures are not numbers");
			return -EBADMSG;
		}
	}
	add_plots(root, runs, n, dir);
	return 0;
}

int gw_lastcmp_summarize(const char *text, size_t len, const char *dir, double mtime,
			 char **out, size_t *outlen, char *err, size_t errlen)
{
	struct gw_bench_file *f = calloc(1, sizeof(*f));	/* big: not on a thread's stack */
	json_object *root = json_object_new_object();
	char path[PATH_MAX + 16];
	const char *s;
	int r;

	*out = NULL;
	if (!f || !root) {
		free(f);
		json_object_put(root);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s%sresults.json", dir, dir[0] ? "/" : "");
	r = gw_bench_file_parse(f, path, text, len, 0, err, errlen);
	if (r)
		r = r == -ENOMEM ? r : -EBADMSG;
	else
		r = summarize(f, dir, mtime, root, err, errlen);
	if (!r) {
		s = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE, outlen);
		*out = s ? strdup(s) : NULL;
		r = *out ? 0 : -ENOMEM;
		if (r)
			snprintf(err, errlen, "out of memory");
	}
	json_object_put(root);
	gw_bench_file_free(f);
	free(f);
	return r;
}

static int read_summary(struct gw_lastcmp *lc, char **body, size_t *len, char *err,
			size_t errlen)
{
	char path[PATH_MAX + 16], *text = NULL, *sum = NULL;
	size_t tlen = 0, slen = 0;
	struct stat st;
	int r;

	/* held throughout: one reading at a time, and the cache stays whole */
	pthread_mutex_lock(&lc->lock);
	snprintf(path, sizeof(path), "%s/results.json", lc->dir);
	if (lc->summary && stat(path, &st) == 0 && st.st_dev == lc->dev && st.st_ino == lc->ino &&
	    st.st_size == lc->size && st.st_mtim.tv_sec == lc->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == lc->mtime.tv_nsec)
		goto copy;
	free(lc->summary);
	lc->summary = NULL;
	r = read_bounded(lc->dir, "results.json", GW_BENCH_FILE_MAX, &text, &tlen, &st, err,
			 errlen);
	if (!r)
		r = gw_lastcmp_summarize(text, tlen, lc->dir,
					 (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9, &sum,
					 &slen, err, errlen);
	free(text);
	if (r) {
		pthread_mutex_unlock(&lc->lock);
		return r;
	}
	lc->summary = sum;
	lc->len = slen;
	lc->dev = st.st_dev;
	lc->ino = st.st_ino;
	lc->size = st.st_size;
	lc->mtime = st.st_mtim;
copy:
	*body = malloc(lc->len ? lc->len : 1);
	if (*body)
		memcpy(*body, lc->summary, lc->len);
	*len = lc->len;
	pthread_mutex_unlock(&lc->lock);
	if (!*body) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int gw_lastcmp_read(struct gw_lastcmp *lc, const char *name, char **body, size_t *len,
		    char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!name)
		return read_summary(lc, body, len, err, errlen);
	if (!known_plot(name)) {
		snprintf(err, errlen, "no such plot");
		return -ENOENT;
	}
	pthread_mutex_lock(&lc->lock);
	snprintf(dir, sizeof(dir), "%s", lc->dir);
	pthread_mutex_unlock(&lc->lock);
	return read_bounded(dir, name, GW_LASTCMP_SVG_MAX, body, len, &st, err, errlen);
}
