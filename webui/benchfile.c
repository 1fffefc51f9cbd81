/* webui/benchfile.c: a bench run's results.json read back (webui/benchfile.h): bounded in size
 * and depth, parsed strictly (json-c), every field the table, the report and the status page
 * use checked for its type, and, when asked, the samples the report's box plots and CDFs need
 * taken out. Runs in gatewayd-bench (its report) and in the web process (/api/compare). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "webui/benchfile.h"
#include "webui/readfile.h"

struct json_object *gw_bench_at(struct json_object *obj, const char *path)
{
	char key[64];

	while (obj && *path) {
		size_t n = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)(n < sizeof(key) ? n : sizeof(key) - 1), path);
		if (!json_object_object_get_ex(obj, key, &obj))
			return NULL;
		path += n + (path[n] == '.');
	}
	return obj;
}


enum want { W_NUM = 1, W_NULL = 2, W_INT = 4, W_STR = 8, W_BOOL = 16, W_OBJ = 32, W_ARR = 64 };

struct rd {
	unsigned flags;			/* GW_BENCH_SAMPLES */
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct rd *c, const char *where, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s%s%s", c->path, where ? where : "", where ? ": " : "",
		 what);
	return -EINVAL;
}

static const char *type_name(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

static bool is(struct json_object *v, unsigned want)
{
	enum json_type t = json_object_get_type(v);

	if (t == json_type_null)
		return want & W_NULL;
	if (t == json_type_int)
		return want & (W_INT | W_NUM);
	if (t == json_type_double)
		return (want & W_NUM) && isfinite(json_object_get_double(v));
	return (t == json_type_string && (want & W_STR)) ||
	       (t == json_type_boolean && (want & W_BOOL)) ||
	       (t == json_type_object && (want & W_OBJ)) || (t == json_type_array && (want & W_ARR));
}

static const char *want_name(unsigned want)
{
	switch (want) {
	case W_NUM: return "a number";
	case W_NUM | W_NULL: return "a number or null";
	case W_INT: return "an integer";
	case W_STR: return "a string";
	case W_BOOL: return "true or false";
	case W_OBJ: return "an object";
	case W_ARR: return "an array";
	}
	return "another type";
}

/* obj[key] of the wanted type into *out; where names obj ("" at the top). */
static int get(struct rd *c, struct json_object *obj, const char *where, const char *key,
	       unsigned want, struct json_object **out)
{
	char at[160];
	struct json_object *v = NULL;

	snprintf(at, sizeof(at), "%s%s%s", where, *where ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, &v))
		return bad(c, at, "missing");
	if (!is(v, want))
		return bad(c, at, "want %s, not %s", want_name(want), type_name(v));
	*out = v;
	return 0;
}

static int get_num(struct rd *c, struct json_object *obj, const char *where, const char *key,
		   bool null_ok, double *out)
{
	struct json_object *v;
	int e = get(c, obj, where, key, W_NUM | (null_ok ? W_NULL : 0), &v);

	if (!e)
		*out = v ? json_object_get_double(v) : NAN;
	return e;
}

static int get_str(struct rd *c, struct json_object *obj, const char *where, const char *key,
		   char *buf, size_t len)
{
	struct json_object *v;
	int e = get(c, obj, where, key, W_STR, &v);

	if (e)
		return e;
	if ((size_t)json_object_get_string_len(v) >= len)
		return bad(c, where, "%s: longer than %zu characters", key, len - 1);
	snprintf(buf, len, "%s", json_object_get_string(v));
	return 0;
}

/* a[i], an object, into *out; its place ("runs[0].flows[2]": where, key, i) into at. */
static int get_elem(struct rd *c, struct json_object *a, size_t i, const char *where,
		    const char *key, char *at, size_t atlen, struct json_object **out)
{
	snprintf(at, atlen, "%s.%s[%zu]", where, key, i);
	*out = json_object_array_get_idx(a, i);
	if (!is(*out, W_OBJ))
		return bad(c, at, "want an object, not %s", type_name(*out));
	return 0;
}

/* Each of keys in obj[key] (an object) of the wanted type. */
static int check_keys(struct rd *c, struct json_object *obj, const char *where, const char *key,
		      const char *const *keys, unsigned want)
{
	struct json_object *o, *v;
	char at[160];
	int e;

	if ((e = get(c, obj, where, key, W_OBJ, &o)))
		return e;
	snprintf(at, sizeof(at), "%s.%s", where, key);
	for (size_t i = 0; keys[i]; i++)
		if ((e = get(c, o, at, keys[i], want, &v)))
			return e;
	return 0;
}

static const char *const updown[] = { "up", "down", NULL };
static const char *const pcts[] = { "p50", "p95", "p99", "mean", NULL };

/* The figures the table shows, as the bench wrote them. */
static int check_figures(struct rd *c, struct json_object *run, const char *w)
{
	static const char *const counts[] = { "samples", "lost", NULL };
	struct json_object *lat, *pq, *v;
	char at[160];
	double x;
	int e;

	if ((e = check_keys(c, run, w, "goodput_bps", updown, W_NUM | W_NULL)) ||
	    (e = check_keys(c, run, w, "shaper_accuracy", updown, W_NUM | W_NULL)) ||
	    (e = check_keys(c, run, w, "drops", updown, W_INT)) ||
	    (e = check_keys(c, run, w, "ecn_marks", updown, W_INT)) ||
	    (e = get_num(c, run, w, "jain_fairness", true, &x)) ||
	    (e = get_num(c, run, w, "cpu_busy", true, &x)) ||
	    (e = get(c, run, w, "grade", W_STR, &v)) ||
	    (e = get(c, run, w, "latency_ms", W_OBJ, &lat)) ||
	    (e = get(c, run, w, "peak_queue", W_OBJ, &pq)))
		return e;
	snprintf(at, sizeof(at), "%s.latency_ms", w);
	if ((e = get_num(c, lat, at, "baseline", true, &x)) ||
	    (e = check_keys(c, lat, at, "idle", pcts, W_NUM | W_NULL)) ||
	    (e = check_keys(c, lat, at, "idle", counts, W_INT)) ||
	    (e = check_keys(c, lat, at, "loaded", pcts, W_NUM | W_NULL)) ||
	    (e = check_keys(c, lat, at, "loaded", counts, W_INT)) ||
	    (e = check_keys(c, lat, at, "induced", pcts, W_NUM | W_NULL)))
		return e;
	/* the UDP probes' figures, in files that have them, as strictly as latency_ms */
	if (json_object_object_get_ex(run, "udp_latency_ms", &v)) {
		static const char *const ways[] = { "rtt", "up", "down" };
		struct json_object *u;

		for (int k = 0; k < 3; k++) {
			snprintf(at, sizeof(at), "%s.udp_latency_ms", w);
			if ((e = get(c, v, at, ways[k], W_OBJ, &u)))
				return e;
			snprintf(at, sizeof(at), "%s.udp_latency_ms.%s", w, ways[k]);
			if ((e = get_num(c, u, at, "baseline", true, &x)) ||
			    (e = check_keys(c, u, at, "idle", pcts, W_NUM | W_NULL)) ||
			    (e = check_keys(c, u, at, "loaded", pcts, W_NUM | W_NULL)) ||
			    (e = check_keys(c, u, at, "loaded", counts, W_INT)) ||
			    (e = check_keys(c, u, at, "induced", pcts, W_NUM | W_NULL)) ||
			    (e = get_num(c, u, at, "jitter", true, &x)))
				return e;
		}
	}
	/* the bulk flows' RTT: optional (older runs lack it), but what is there is checked as
	 * the rest is, so the table never prints a figure of the wrong type */
	if (json_object_object_get_ex(run, "tcp_rtt", NULL)) {
		static const char *const figs[] = { "p50_ms", "p95_ms", "p99_ms", "mean_ms",
						    "induced_p50_ms", "induced_p95_ms",
						    "induced_p99_ms", "induced_mean_ms", NULL };
		static const char *const n[] = { "samples", NULL };
		struct json_object *t;

		if ((e = get(c, run, w, "tcp_rtt", W_OBJ, &t)))
			return e;
		snprintf(at, sizeof(at), "%s.tcp_rtt", w);
		for (int d = 0; d < 2; d++)
			if ((e = check_keys(c, t, at, updown[d], figs, W_NUM | W_NULL)) ||
			    (e = check_keys(c, t, at, updown[d], n, W_INT)))
				return e;
	}
	for (int d = 0; d < 2; d++) {
		struct json_object *o;

		snprintf(at, sizeof(at), "%s.peak_queue", w);
		if ((e = get(c, pq, at, updown[d], W_OBJ, &o)))
			return e;
		snprintf(at, sizeof(at), "%s.peak_queue.%s", w, updown[d]);
		if ((e = get(c, o, at, "packets", W_INT, &v)) ||
		    (e = get_num(c, o, at, "ms", true, &x)))
			return e;
	}
	return 0;
}

/* The probes: loaded RTTs for the CDF, and the same less the baseline for the box. */
static int read_samples(struct rd *c, struct json_object *run, const char *w, size_t n_phases,
			double baseline, struct gw_bench_col *col)
{
	struct json_object *a;
	char at[160];
	size_t n;
	int e;

	if ((e = get(c, run, w, "samples", W_ARR, &a)))
		return e;
	snprintf(at, sizeof(at), "%s.samples", w);
	if ((n = json_object_array_length(a)) > GW_BENCH_MAX_SAMPLES)
		return bad(c, at, "%zu probes, more than %d", n, GW_BENCH_MAX_SAMPLES);
	col->rtt = malloc((n + 1) * sizeof(double));
	col->induced = malloc((n + 1) * sizeof(double));
	if (!col->rtt || !col->induced)
		return bad(c, at, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i), *t, *rtt, *ph;
		int64_t p;

		if (!is(s, W_ARR) || json_object_array_length(s) != 3 ||
		    !is(t = json_object_array_get_idx(s, 0), W_NUM) ||
		    !is(rtt = json_object_array_get_idx(s, 1), W_NUM | W_NULL) ||
		    !is(ph = json_object_array_get_idx(s, 2), W_INT))
			return bad(c, at, "[%zu]: want [time, RTT or null, phase]", i);
		p = json_object_get_int64(ph);
		if (p < 0 || (size_t)p >= n_phases)
			return bad(c, at, "[%zu]: phase %lld, not one of config.phases' %zu", i,
				   (long long)p, n_phases);
		/* the loaded phases, as the table's loaded and induced figures take them */
		if ((p != 1 && p != 2) || !rtt)
			continue;
		col->rtt[col->n_rtt++] = json_object_get_double(rtt);
		if (!isnan(baseline))
			col->induced[col->n_induced++] = json_object_get_double(rtt) - baseline;
	}
	return 0;
}

/* The run's TCP window, from its own phases (tcp, then flood). */
static int tcp_window(struct rd *c, struct json_object *run, const char *w, double *lo,
		      double *hi)
{
	struct json_object *a, *ph, *v;
	double tcp = NAN, flood = NAN;
	char at[160];
	int e;

	if ((e = get(c, run, w, "phases", W_ARR, &a)))
		return e;
	for (size_t i = 0; i < json_object_array_length(a) && i < 16; i++) {
		double s;

		if ((e = get_elem(c, a, i, w, "phases", at, sizeof(at), &ph)) ||
		    (e = get(c, ph, at, "name", W_STR, &v)) ||
		    (e = get_num(c, ph, at, "start_s", false, &s)))
			return e;
		if (!strcmp(json_object_get_string(v), "tcp"))
			tcp = s;
		else if (!strcmp(json_object_get_string(v), "flood"))
			flood = s;
	}
	snprintf(at, sizeof(at), "%s.phases", w);
	if (isnan(tcp) || isnan(flood) || flood < tcp)
		return bad(c, at, "no tcp phase followed by a flood phase");
	*lo = tcp + fmax(GW_BENCH_RAMP_S, GW_BENCH_RAMP_SHARE * (flood - tcp));
	*hi = flood;
	return 0;
}

/* Each direction's goodput per 0.5 s interval of the TCP window: the sum over its TCP flows
 * of the k-th interval each has in the window (a direction's flows are read together, so
 * their intervals are the same ones), as the table's goodput is the sum of their means. */
static int read_flows(struct rd *c, struct json_object *run, const char *w, struct gw_bench_col *col)
{
	struct json_object *a, *f, *v, *ser;
	size_t nf, nk[2] = { SIZE_MAX, SIZE_MAX };
	double lo = 0, hi = 0;
	char at[160];
	int e;

	if ((e = tcp_window(c, run, w, &lo, &hi)) || (e = get(c, run, w, "flows", W_ARR, &a)))
		return e;
	if ((nf = json_object_array_length(a)) > GW_BENCH_MAX_FLOWS)
		return bad(c, w, "flows: %zu, more than %d", nf, GW_BENCH_MAX_FLOWS);
	size_t most = 0;	/* the longest series: room for every interval it has */

	for (size_t i = 0; i < nf; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(a, i), "series", &ser) &&
		    is(ser, W_ARR))
			most = json_object_array_length(ser) > most ? json_object_array_length(ser) :
								      most;
	for (int d = 0; d < 2; d++) {
		col->good[d] = calloc((most > GW_BENCH_MAX_POINTS ? GW_BENCH_MAX_POINTS : most) + 1,
				      sizeof(double));
		if (!col->good[d])
			return bad(c, w, "out of memory");
	}
	for (size_t i = 0; i < nf; i++) {
		char dir[16], proto[16];
		size_t n, k = 0;
		int d;

		if ((e = get_elem(c, a, i, w, "flows", at, sizeof(at), &f)) ||
		    (e = get(c, f, at, "name", W_STR, &v)) ||
		    (e = get_str(c, f, at, "direction", dir, sizeof(dir))) ||
		    (e = get_str(c, f, at, "protocol", proto, sizeof(proto))) ||
		    (e = get(c, f, at, "series", W_ARR, &ser)))
			return e;
		if (strcmp(dir, "up") && strcmp(dir, "down"))
			return bad(c, at, "direction: want \"up\" or \"down\", not \"%s\"", dir);
		if (strcmp(proto, "tcp") && strcmp(proto, "udp"))
			return bad(c, at, "protocol: want \"tcp\" or \"udp\", not \"%s\"", proto);
		if ((n = json_object_array_length(ser)) > GW_BENCH_MAX_POINTS)
			return bad(c, at, "series: %zu intervals, more than %d", n, GW_BENCH_MAX_POINTS);
		d = strcmp(dir, "up") ? 1 : 0;
		double prev = NAN;

		for (size_t j = 0; j < n; j++) {
			struct json_object *p = json_object_array_get_idx(ser, j), *t, *bps;
			double end, start;

			if (!is(p, W_ARR) || json_object_array_length(p) != 2 ||
			    !is(t = json_object_array_get_idx(p, 0), W_NUM) ||
			    !is(bps = json_object_array_get_idx(p, 1), W_NUM | W_NULL))
				return bad(c, at, "series[%zu]: want [time, bits/s or null]", j);
			end = json_object_get_double(t);
			start = isnan(prev) ? end - GW_BENCH_SERIES_S : prev;
			prev = end;
			if (strcmp(proto, "tcp") || !bps || start < lo - 0.01 || end > hi + 0.01)
				continue;
			col->good[d][k++] += json_object_get_double(bps);
		}
		if (!strcmp(proto, "tcp") && k < nk[d])
			nk[d] = k;
	}
	for (int d = 0; d < 2; d++) {
		/* the intervals every flow of the direction has */
		col->n_good[d] = nk[d] == SIZE_MAX ? 0 : nk[d];
	}
	return 0;
}

/* The name --compare gives a queue: a kind's (lower case, digits, '_'), maybe "-shaper". */
static bool queue_name_ok(const char *q)
{
	size_t n = strlen(q);

	if (n > 7 && !strcmp(q + n - 7, "-shaper"))
		n -= 7;
	if (!n)
		return false;
	for (size_t k = 0; k < n; k++)
		if (!((q[k] >= 'a' && q[k] <= 'z') || (q[k] >= '0' && q[k] <= '9') || q[k] == '_'))
			return false;
	return true;
}

/* An optional rate of config (absent: *out as it is), a positive integer when present. */
static int get_rate(struct rd *c, struct json_object *cfg, const char *key, int64_t *out)
{
	struct json_object *v;
	char at[48];
	int e;

	if (!json_object_object_get_ex(cfg, key, NULL))
		return 0;
	if ((e = get(c, cfg, "config", key, W_INT, &v)))
		return e;
	if ((*out = json_object_get_int64(v)) <= 0) {
		snprintf(at, sizeof(at), "config.%s", key);
		return bad(c, at, "%lld is no rate", (long long)*out);
	}
	return 0;
}

/* An optional integer of obj (absent: *out as it is) from lo to hi; what says what it is. */
static int get_opt_int(struct rd *c, struct json_object *obj, const char *where, const char *key,
		       int64_t lo, int64_t hi, const char *what, int *out)
{
	struct json_object *v;
	char at[160];
	int e;

	if (!json_object_object_get_ex(obj, key, NULL))
		return 0;
	if ((e = get(c, obj, where, key, W_INT, &v)))
		return e;
	if (json_object_get_int64(v) < lo || json_object_get_int64(v) > hi) {
		snprintf(at, sizeof(at), "%s.%s", where, key);
		return bad(c, at, "%lld is no %s", (long long)json_object_get_int64(v), what);
	}
	*out = (int)json_object_get_int64(v);
	return 0;
}

/* A run's name, label, place and note: what a column shows even when it did not run. */
static int read_head(struct rd *c, struct json_object *run, const char *w,
		     struct gw_bench_col *col)
{
	struct json_object *v;
	char tree[16] = "";
	int e;

	if (!is(run, W_OBJ))
		return bad(c, w, "want an object, not %s", type_name(run));
	if ((e = get_str(c, run, w, "qdisc", col->qdisc, sizeof(col->qdisc))) ||
	    (e = get(c, run, w, "ran", W_BOOL, &v)))
		return e;
	col->ran = json_object_get_boolean(v);
	if (!queue_name_ok(col->qdisc))
		return bad(c, w, "qdisc: \"%s\" is no queue's name", col->qdisc);
	/* label: the queue with its knobs (newer files); older ones head the column by qdisc;
	 * any text (report.html escapes it; file names take it through a safe set) */
	snprintf(col->label, sizeof(col->label), "%s", col->qdisc);
	if (json_object_object_get_ex(run, "label", NULL) &&
	    ((e = get_str(c, run, w, "label", col->label, sizeof(col->label)))))
		return e;
	/* which repetition (--repeat) and which of --qdiscs: older and unrepeated files have
	 * neither */
	col->repeat = col->queue = -1;
	if ((e = get_opt_int(c, run, w, "repeat", 0, 999, "repetition", &col->repeat)) ||
	    (e = get_opt_int(c, run, w, "position", 0, GW_BENCH_MAX_RUNS - 1,
			     "place in --qdiscs", &col->queue)))
		return e;
	/* the tree: "config" the link of -c CONFIG, "bench" the bench's own (older: none) */
	if (json_object_object_get_ex(run, "tree", NULL) &&
	    (e = get_str(c, run, w, "tree", tree, sizeof(tree))))
		return e;
	col->own = !strcmp(tree, "config");
	if ((e = get_str(c, run, w, "note", col->note, sizeof(col->note))))
		return e;
	if (json_object_object_get_ex(run, "qdiscs", &v) && is(v, W_ARR))
		col->qdiscs = json_object_get(v);
	return 0;
}

/* The figures of a run that ran, checked and kept by reference (the rest of the file, samples
 * and all, is freed). */
static int take_figures(struct rd *c, struct json_object *run, const char *w,
			struct gw_bench_col *col)
{
	static const char *const fig_keys[] = { "goodput_bps", "shaper_accuracy", "latency_ms",
						"grade", "drops", "ecn_marks", "peak_queue",
						"jain_fairness", "cpu_busy", "udp_latency_ms", "tcp_rtt", NULL };
	struct json_object *v;
	int e;

	if ((e = check_figures(c, run, w)))
		return e;
	col->fig = json_object_new_object();
	if (!col->fig)
		return bad(c, w, "out of memory");
	for (size_t k = 0; fig_keys[k]; k++) {
		/* tcp_rtt is absent from older runs: left out, not null */
		if (!json_object_object_get_ex(run, fig_keys[k], &v) && !strcmp(fig_keys[k], "tcp_rtt"))
			continue;
		json_object_object_add(col->fig, fig_keys[k], json_object_get(v));
	}
	return 0;
}

static int read_run(struct rd *c, struct json_object *run, size_t i, size_t n_phases,
		    struct gw_bench_col *col)
{
	struct json_object *v;
	char w[32];
	int e;

	snprintf(w, sizeof(w), "runs[%zu]", i);
	if ((e = read_head(c, run, w, col)) || !col->ran || (e = take_figures(c, run, w, col)) ||
	    !(c->flags & GW_BENCH_SAMPLES))
		return e;
	v = gw_bench_at(col->fig, "latency_ms.baseline");
	if ((e = read_samples(c, run, w, n_phases, v ? json_object_get_double(v) : NAN, col)) ||
	    (e = read_flows(c, run, w, col)))
		return e;
	return 0;
}

/* What the file is and where it ran: its schema and version, gatewayd's version, the time, the
 * kernel. */
static int read_header(struct rd *c, struct json_object *root, struct gw_bench_file *r)
{
	struct json_object *v;
	char schema[64];
	int e;

	if (!is(root, W_OBJ))
		return bad(c, NULL, "not a results file of gatewayd --compare (the top is %s, not an object)",
			   type_name(root));
	if (!json_object_object_get_ex(root, "schema", &v) || !is(v, W_STR))
		return bad(c, NULL, "not a results file of gatewayd --compare (no \"schema\")");
	snprintf(schema, sizeof(schema), "%s", json_object_get_string(v));
	if (!strcmp(schema, GW_BENCH_SCHEMA "-scenario"))
		return bad(c, NULL, "a --scenario variable run (schema \"%s\"): --compare-report lays queue comparisons side by side",
			   schema);
	if (strcmp(schema, GW_BENCH_SCHEMA))
		return bad(c, NULL, "not a results file of gatewayd --compare (schema \"%s\", not \"%s\")",
			   schema, GW_BENCH_SCHEMA);
	if ((e = get(c, root, "", "version", W_INT, &v)))
		return e;
	if (json_object_get_int64(v) != GW_BENCH_SCHEMA_VERSION)
		return bad(c, NULL, "results version %lld: this gatewayd reads version %d",
			   (long long)json_object_get_int64(v), GW_BENCH_SCHEMA_VERSION);
	if ((e = get_str(c, root, "", "gatewayd_version", r->version, sizeof(r->version))) ||
	    (e = get(c, root, "", "generated_unix", W_INT, &v)))
		return e;
	r->generated_unix = json_object_get_int64(v);
	if ((e = get_str(c, root, "", "kernel", r->kernel, sizeof(r->kernel))) ||
	    (e = get_str(c, root, "", "kernel_release", r->kernel_release,
			 sizeof(r->kernel_release))))
		return e;
	return 0;
}

/* The bench's settings: the rates, the RTT, the duration, netem, the phases (their count into
 * n_phases) and the repetitions. */
static int read_config(struct rd *c, struct json_object *cfg, struct gw_bench_file *r,
		       size_t *n_phases)
{
	struct json_object *v;
	int64_t bps, down, up;
	int e;

	if ((e = get(c, cfg, "config", "rate_bps", W_INT, &v)))
		return e;
	if ((bps = json_object_get_int64(v)) <= 0)
		return bad(c, "config.rate_bps", "%lld is no rate", (long long)bps);
	/* each direction's rate (--rate DOWN/UP); older files have rate_bps alone, both ways */
	down = up = bps;
	if ((e = get_rate(c, cfg, "rate_bps_down", &down)) ||
	    (e = get_rate(c, cfg, "rate_bps_up", &up)))
		return e;
	r->rate[0] = up / 8;
	r->rate[1] = down / 8;
	if ((e = get_num(c, cfg, "config", "rtt_ms", false, &r->rtt_ms)) ||
	    (e = get_num(c, cfg, "config", "duration_s", false, &r->duration_s)) ||
	    (e = get(c, cfg, "config", "netem", W_BOOL, &v)))
		return e;
	r->netem = json_object_get_boolean(v);
	if ((e = get(c, cfg, "config", "phases", W_ARR, &v)))
		return e;
	*n_phases = json_object_array_length(v);
	/* a repeated run (--repeat): how many; report.html shows its medians and intervals */
	r->repetitions = 1;
	return get_opt_int(c, cfg, "config", "repeat", 1, 1000, "count of repetitions",
			   &r->repetitions);
}

static int read_top(struct rd *c, struct json_object *root, struct gw_bench_file *r)
{
	struct json_object *v, *cfg, *runs;
	size_t n_phases = 0;
	int e;

	if ((e = read_header(c, root, r)) || (e = get(c, root, "", "config", W_OBJ, &cfg)) ||
	    (e = read_config(c, cfg, r, &n_phases)) || (e = get(c, root, "", "runs", W_ARR, &runs)))
		return e;
	if (!(r->n_cols = json_object_array_length(runs)))
		return bad(c, "runs", "empty: no queue ran");
	if (r->n_cols > GW_BENCH_MAX_RUNS)
		return bad(c, "runs", "%zu queues, more than %d", r->n_cols, GW_BENCH_MAX_RUNS);
	for (size_t i = 0; i < r->n_cols; i++)
		if ((e = read_run(c, json_object_array_get_idx(runs, i), i, n_phases, &r->col[i])))
			return e;
	r->config = json_object_get(cfg);
	if (json_object_object_get_ex(root, "summary", &v) && is(v, W_OBJ))
		r->summary = json_object_get(v);
	/* where it ran (older files have none): report.html shows it */
	if (json_object_object_get_ex(root, "metadata", &v) && is(v, W_OBJ))
		r->meta = json_object_get(v);
	return 0;
}

/* json-c takes NaN and Infinity even in strict mode; JSON has neither (the bench writes null),
 * so a file with one anywhere is no file of ours. Depth is the tokener's bound. */
static bool all_finite(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_double:
		return isfinite(json_object_get_double(v));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!all_finite(json_object_array_get_idx(v, i)))
				return false;
		return true;
	case json_type_object: {
		json_object_object_foreach(v, k, x) {
			(void)k;
			if (!all_finite(x))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

int gw_bench_file_parse(struct gw_bench_file *r, const char *path, const char *text, size_t len,
			unsigned flags, char *err, size_t errlen)
{
	struct rd c = { .flags = flags, .path = path, .err = err, .errlen = errlen };
	struct json_tokener *tok = json_tokener_new_ex(GW_BENCH_JSON_DEPTH);
	struct json_object *root;
	size_t end, line = 1;
	int e;

	if (len > GW_BENCH_FILE_MAX) {
		json_tokener_free(tok);
		return bad(&c, NULL, "larger than the 32 MiB a results file may have");
	}
	if (!tok)
		return bad(&c, NULL, "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	for (size_t i = 0; i < end && i < len; i++)
		line += text[i] == '\n';
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		json_tokener_free(tok);
		json_object_put(root);
		if (je == json_tokener_continue)
			return bad(&c, NULL, "not JSON: the text ends inside its value (line %zu)",
				   line);
		snprintf(err, errlen, "%s:%zu: not JSON: %s", path, line,
			 json_tokener_error_desc(je));
		return -EINVAL;
	}
	json_tokener_free(tok);
	for (; end < len; end++)	/* after the value, white space alone */
		if (!strchr(" \t\r\n", text[end])) {
			json_object_put(root);
			snprintf(err, errlen, "%s:%zu: not JSON: more after the value", path, line);
			return -EINVAL;
		}
	if (!all_finite(root)) {
		json_object_put(root);
		return bad(&c, NULL, "not JSON: NaN or Infinity, which JSON has not (null is)");
	}
	e = read_top(&c, root, r);
	json_object_put(root);
	if (e)
		gw_bench_file_free(r);
	return e;
}

int gw_bench_file_read(struct gw_bench_file *r, unsigned flags, char *err, size_t errlen)
{
	char path[4200], *text = NULL;
	struct stat st;
	size_t got = 0;
	int fd, e;

	snprintf(path, sizeof(path), "%s/results.json", r->dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		e = -errno;
		if (e == -ENOENT)
			snprintf(err, errlen, "%s: missing: not a run directory of gatewayd --compare --out",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	e = gw_webui_read_file(fd, GW_BENCH_FILE_MAX, &st, &text, &got);
	close(fd);
	if (e) {
		snprintf(err, errlen, "%s: %s", path,
			 e == -EFBIG ? "larger than the 32 MiB a results file may have" :
			 e == -EINVAL ? "not a regular file" :
			 e == -EAGAIN ? "changed while read" : strerror(-e));
		return e;
	}
	e = gw_bench_file_parse(r, path, text, got, flags, err, errlen);
	free(text);
	return e;
}

void gw_bench_file_free(struct gw_bench_file *r)
{
	for (size_t i = 0; i < GW_BENCH_MAX_RUNS; i++) {
		struct gw_bench_col *c = &r->col[i];

		json_object_put(c->fig);
		json_object_put(c->qdiscs);
		free(c->rtt);
		free(c->induced);
		free(c->good[0]);
		free(c->good[1]);
		memset(c, 0, sizeof(*c));
	}
	json_object_put(r->config);
	r->config = NULL;
	json_object_put(r->meta);
	r->meta = NULL;
	json_object_put(r->summary);
	r->summary = NULL;
	r->n_cols = 0;
}

void gw_bench_label_file(const char *label, char *buf, size_t len)
{
	snprintf(buf, len, "%s", label);
	for (char *c = buf; *c; c++)
		if (*c == '=')
			*c = '-';
		else if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			   (*c >= '0' && *c <= '9') || strchr("._+-", *c)))
			*c = '_';
}
