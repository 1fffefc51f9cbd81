/* tests/unit/test_cmpreport.c: --compare-report's parts without a bench: the box plots'
 * statistics, a saved run read back by the one reader of results.json (webui/benchfile.c;
 * tests/unit/cmpreport/good, written so every box is known), with its samples and without
 * (the status page's), and the reader's refusals of missing, foreign, broken and mistyped
 * files. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/percentile.h"
#include "webui/benchfile.h"
#include "tests/unit/tap.h"

#define FIX "tests/unit/cmpreport"

static void test_box(void)
{
	double v[100], one = 7, rev[5] = { 5, 4, 3, 2, 1 };
	struct bench_box b;

	for (int i = 0; i < 100; i++)
		v[i] = 100 - i;	/* out of order: the statistics sort */
	bench_box_of(v, 100, &b);
	CHECK(b.n == 100 && b.min == 1 && b.max == 100, "box of 1..100: n, min, max");
	CHECK(b.p5 == 5 && b.q1 == 25 && b.median == 50 && b.q3 == 75 && b.p95 == 95,
	      "box of 1..100: p5 %g q1 %g median %g q3 %g p95 %g (nearest rank)", b.p5, b.q1,
	      b.median, b.q3, b.p95);
	bench_box_of(rev, 5, &b);
	CHECK(b.min == 1 && b.p5 == 1 && b.q1 == 2 && b.median == 3 && b.q3 == 4 && b.p95 == 5 &&
	      b.max == 5, "box of 5 values: 1 1 2 3 4 5 5 (got %g %g %g %g %g %g %g)", b.min, b.p5,
	      b.q1, b.median, b.q3, b.p95, b.max);
	bench_box_of(&one, 1, &b);
	CHECK(b.n == 1 && b.min == 7 && b.median == 7 && b.max == 7, "a single value is the box");
	bench_box_of(NULL, 0, &b);
	CHECK(b.n == 0 && isnan(b.median) && isnan(b.min) && isnan(b.p95), "no value: NAN box");
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = malloc(1 << 20);

	*len = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (buf)
		buf[*len] = 0;
	if (f)
		fclose(f);
	return buf;
}

static void test_good(void)
{
	struct gw_bench_file r;
	char err[1024] = "";
	struct json_object *v;

	memset(&r, 0, sizeof(r));
	snprintf(r.dir, sizeof(r.dir), FIX "/good");
	CHECK(gw_bench_file_read(&r, GW_BENCH_SAMPLES, err, sizeof(err)) == 0, "good/results.json is read (%s)", err);
	CHECK(r.n_cols == 2 && !strcmp(r.col[0].qdisc, "fifo") && r.col[0].ran &&
	      !strcmp(r.col[1].qdisc, "cake") && !r.col[1].ran, "two queues: fifo ran, cake did not");
	CHECK_EQ_STR(r.col[1].note, "skipped: this kernel has no cake", "the skipped queue's note");
	CHECK(r.rate[1] == 1250000 && r.duration_s == 5 && !r.netem && r.rtt_ms == 0,
	      "its settings: 10 mbit, 5 s, no netem");
	CHECK_EQ_STR(r.kernel, "host", "kernel");
	CHECK_EQ_STR(r.kernel_release, "6.18.0-test", "kernel release");
	/* 20 replies in the loaded phases, 11..30 ms, one lost; the idle and idle2 ones are not */
	bench_sort(r.col[0].rtt, r.col[0].n_rtt);
	CHECK(r.col[0].n_rtt == 20 && r.col[0].rtt[0] == 11 && r.col[0].rtt[19] == 30,
	      "the loaded RTTs: 20 of them, 11 to 30 ms (%zu)", r.col[0].n_rtt);
	/* the boxes as the report makes them of what the reader took */
	struct bench_box box[4];

	bench_box_of(r.col[0].induced, r.col[0].n_induced, &box[0]);
	for (int d = 0; d < 2; d++)
		bench_box_of(r.col[0].good[d], r.col[0].n_good[d], &box[1 + d]);
	bench_box_of(r.col[1].induced, r.col[1].n_induced, &box[3]);
	const struct bench_box *b = &box[0];

	CHECK(b->n == 20 && b->min == 1 && b->p5 == 1 && b->q1 == 5 && b->median == 10 &&
	      b->q3 == 15 && b->p95 == 19 && b->max == 20,
	      "induced box: 1 1 5 10 15 19 20 ms (got %g %g %g %g %g %g %g)", b->min, b->p5, b->q1,
	      b->median, b->q3, b->p95, b->max);
	v = json_object_object_get(json_object_object_get(json_object_object_get(
		r.col[0].fig, "latency_ms"), "induced"), "p50");
	CHECK(v && b->median == json_object_get_double(v),
	      "its median is the table's induced p50");
	v = json_object_object_get(json_object_object_get(json_object_object_get(
		r.col[0].fig, "latency_ms"), "induced"), "p95");
	CHECK(v && b->p95 == json_object_get_double(v), "its upper whisker the table's p95");
	/* the TCP window: tcp 1.0..4.0 s, less 40% (1.2 s): the intervals ending 3.0, 3.5, 4.0 */
	b = &box[1];
	CHECK(b->n == 3 && b->min == 2e6 && b->median == 3e6 && b->max == 4e6,
	      "goodput up: 2, 3, 4 Mbit/s, the two TCP flows summed, the flood not (n %zu, %g..%g)",
	      b->n, b->min, b->max);
	b = &box[2];
	CHECK(b->n == 3 && b->min == 5e6 && b->median == 6e6 && b->max == 7e6,
	      "goodput down: 5, 6, 7 Mbit/s (n %zu, median %g)", b->n, b->median);
	CHECK(box[3].n == 0 && !r.col[1].fig, "the skipped queue has no figures");
	gw_bench_file_free(&r);
	/* the status page's reading: the figures alone, no sample taken out */
	CHECK(gw_bench_file_read(&r, 0, err, sizeof(err)) == 0 && r.col[0].fig &&
	      !r.col[0].rtt && !r.col[0].good[0] && r.col[0].n_rtt == 0,
	      "without GW_BENCH_SAMPLES: the figures, no samples (%s)", err);
	gw_bench_file_free(&r);
}

/* The reader's message for FIX/name contains want. */
static void refuses_file(const char *name, const char *want)
{
	struct gw_bench_file r;
	char path[256], err[1024] = "";
	size_t len;
	char *text;
	int e;

	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), FIX "/%s", name);
	text = slurp(path, &len);
	e = gw_bench_file_parse(&r, path, text, len, GW_BENCH_SAMPLES, err, sizeof(err));
	CHECK(e == -EINVAL && strstr(err, want) && !strncmp(err, path, strlen(path)),
	      "%s is refused: \"%s\" (want \"%s\")", name, err, want);
	free(text);
}

/* root with one value changed (key path as "runs.0.latency_ms.baseline"; NULL val: the key
 * removed). */
static void change(struct json_object *root, const char *path, struct json_object *val)
{
	struct json_object *o = root;
	const char *p = path;
	char key[64];

	for (;;) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		if (!p[n])
			break;
		o = json_object_is_type(o, json_type_array) ?
		    json_object_array_get_idx(o, (size_t)atoi(key)) : json_object_object_get(o, key);
		p += n + 1;
	}
	if (json_object_is_type(o, json_type_array))
		json_object_array_put_idx(o, (size_t)atoi(key), val);
	else if (val)
		json_object_object_add(o, key, val);
	else
		json_object_object_del(o, key);
}

/* The good file with one value changed, read with flags: the reader's answer, its message in
 * err. */
static int read_changed(const char *path, struct json_object *val, unsigned flags, char *err,
			size_t errlen)
{
	size_t len;
	char *text = slurp(FIX "/good/results.json", &len);
	struct json_object *root = json_tokener_parse(text);
	struct gw_bench_file r;
	int e;

	change(root, path, val);
	const char *s = json_object_to_json_string(root);

	memset(&r, 0, sizeof(r));
	e = gw_bench_file_parse(&r, "x/results.json", s, strlen(s), flags, err, errlen);
	if (!e)
		gw_bench_file_free(&r);
	json_object_put(root);
	free(text);
	return e;
}

/* The good file with one value changed is refused with want in the message. */
static void refuses_changed(const char *path, struct json_object *val, const char *want)
{
	char err[1024] = "";
	int e = read_changed(path, val, GW_BENCH_SAMPLES, err, sizeof(err));

	CHECK(e == -EINVAL && strstr(err, want), "%s changed: refused with \"%s\" (want \"%s\")",
	      path, err, want);
}

/* The good file with one value changed is read without samples (the status page's reading). */
static void samples_only(const char *path, struct json_object *val)
{
	char err[1024] = "";

	CHECK(read_changed(path, val, 0, err, sizeof(err)) == 0,
	      "%s changed: the figures alone are read (%s)", path, err);
}

/* A newer file: columns labelled with their knobs, each direction's rate (--rate 8mbit/4mbit);
 * the good file (older: neither) heads its columns by qdisc and has rate_bps both ways. */
static void test_labels_rates(void)
{
	size_t len;
	char *text = slurp(FIX "/good/results.json", &len), err[1024] = "";
	struct json_object *root = json_tokener_parse(text);
	struct gw_bench_file r;

	memset(&r, 0, sizeof(r));
	CHECK(gw_bench_file_parse(&r, "x/results.json", text, len, GW_BENCH_SAMPLES, err, sizeof(err)) == 0,
	      "the older file is read (%s)", err);
	CHECK_EQ_STR(r.col[0].label, "fifo", "no runs[].label: the column is its qdisc");
	CHECK(r.rate[1] == 1250000 && r.rate[0] == 1250000,
	      "no rate_bps_down/_up: rate_bps both ways (%lld/%lld bytes/s)", (long long)r.rate[1],
	      (long long)r.rate[0]);
	gw_bench_file_free(&r);

	change(root, "runs.0.label", json_object_new_string("fifo:limit=50"));
	change(root, "config.rate_bps", json_object_new_int64(8000000));
	change(root, "config.rate_bps_down", json_object_new_int64(8000000));
	change(root, "config.rate_bps_up", json_object_new_int64(4000000));
	const char *s = json_object_to_json_string(root);

	memset(&r, 0, sizeof(r));
	CHECK(gw_bench_file_parse(&r, "x/results.json", s, strlen(s), GW_BENCH_SAMPLES, err, sizeof(err)) == 0,
	      "the newer file is read (%s)", err);
	CHECK_EQ_STR(r.col[0].label, "fifo:limit=50", "runs[].label heads the column");
	CHECK_EQ_STR(r.col[0].qdisc, "fifo", "runs[].qdisc stays the queue's name");
	CHECK_EQ_STR(r.col[1].label, "cake", "a run without a label: its qdisc");
	CHECK(r.rate[1] == 1000000 && r.rate[0] == 500000,
	      "each direction's rate: 8 mbit down, 4 mbit up (%lld/%lld bytes/s)",
	      (long long)r.rate[1], (long long)r.rate[0]);
	gw_bench_file_free(&r);
	json_object_put(root);
	free(text);
	refuses_changed("runs.0.label", json_object_new_int(3),
			"runs[0].label: want a string, not an integer");
	refuses_changed("config.rate_bps_up", json_object_new_int(0),
			"config.rate_bps_up: 0 is no rate");
	refuses_changed("config.rate_bps_down", json_object_new_string("8mbit"),
			"config.rate_bps_down: want an integer, not a string");
}

static void test_refusals(void)
{
	struct gw_bench_file r;
	char err[1024] = "", big[] = "/tmp/cmpreport-unit-XXXXXX";

	memset(&r, 0, sizeof(r));
	snprintf(r.dir, sizeof(r.dir), FIX "/no-such-run");
	CHECK(gw_bench_file_read(&r, GW_BENCH_SAMPLES, err, sizeof(err)) == -ENOENT &&
	      strstr(err, FIX "/no-such-run/results.json: missing"), "a missing file: %s", err);
	if (mkdtemp(big)) {
		char f[300];
		int g;

		snprintf(f, sizeof(f), "%s/results.json", big);
		g = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		/* sparse: the size alone is refused, nothing is read */
		CHECK(g >= 0 && ftruncate(g, (off_t)GW_BENCH_FILE_MAX + 1) == 0, "a 32 MiB + 1 file");
		snprintf(r.dir, sizeof(r.dir), "%s", big);
		CHECK(gw_bench_file_read(&r, GW_BENCH_SAMPLES, err, sizeof(err)) == -EFBIG && strstr(err, "larger than"),
		      "too big: %s", err);
		if (g >= 0)
			close(g);
		unlink(f);
		/* a directory where the file should be */
		CHECK(mkdir(f, 0700) == 0 && gw_bench_file_read(&r, GW_BENCH_SAMPLES, err, sizeof(err)) == -EINVAL &&
		      strstr(err, "not a regular file"), "a directory as results.json: %s", err);
		rmdir(f);
		rmdir(big);
	}
	refuses_file("bad-syntax.json", "bad-syntax.json:3: not JSON");
	refuses_file("bad-truncated.json", "not JSON: the text ends inside its value");
	refuses_file("bad-trailing.json", "not JSON: more after the value");
	refuses_file("bad-nan.json", "not JSON");
	refuses_file("bad-top.json", "not a results file of gatewayd --compare (the top is an array");
	refuses_file("bad-schema.json", "schema \"something-else\", not \"gatewayd-compare\"");
	refuses_file("bad-scenario.json", "a --scenario variable run");
	refuses_file("bad-version.json", "results version 2: this gatewayd reads version 1");
	refuses_changed("config.rate_bps", json_object_new_string("10mbit"),
			"config.rate_bps: want an integer, not a string");
	refuses_changed("config.rate_bps", json_object_new_int(0), "config.rate_bps: 0 is no rate");
	refuses_changed("runs.0.grade", NULL, "runs[0].grade: missing");
	refuses_changed("runs.0.latency_ms.loaded.p50", json_object_new_string("20"),
			"runs[0].latency_ms.loaded.p50: want a number or null, not a string");
	refuses_changed("runs.0.drops.up", json_object_new_double(1.5),
			"runs[0].drops.up: want an integer, not a fractional number");
	refuses_changed("runs.0.qdisc", json_object_new_string("../etc"),
			"runs[0]: qdisc: \"../etc\" is no queue's name");
	refuses_changed("runs.0.samples.3", json_object_new_string("x"),
			"runs[0].samples: [3]: want [time, RTT or null, phase]");
	samples_only("runs.0.samples.3", json_object_new_string("x"));
	samples_only("runs.0.flows.0.direction", json_object_new_string("sideways"));
	refuses_changed("runs.0.flows.0.direction", json_object_new_string("sideways"),
			"runs[0].flows[0]: direction: want \"up\" or \"down\"");
	refuses_changed("runs.0.phases.1.name", json_object_new_string("warmup"),
			"runs[0].phases: no tcp phase followed by a flood phase");
	refuses_changed("runs", json_object_new_array(), "runs: empty");
	refuses_changed("kernel", json_object_new_int(1), "kernel: want a string, not an integer");
	refuses_changed("runs.1.ran", json_object_new_string("no"),
			"runs[1].ran: want true or false, not a string");
}

int main(void)
{
	test_box();
	test_good();
	test_refusals();
	test_labels_rates();
	return tap_done();
}
