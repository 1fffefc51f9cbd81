/* tests/unit/test_cmpknobs.c: --compare's --qdiscs knobs and --rate DOWN/UP (no root, no
 * kernel): the grammar, the labels, the child text the bench's config gets, the config
 * parser's own refusals and messages, and results.json's label and rates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/queues.h"
#include "bench/results.h"
#include "bench/run.h"
#include "tests/unit/tap.h"
#include "webui/benchfile.h"

static struct bench_pick picks[GW_BENCH_MAX_QUEUES];
static size_t n;
static char err[512];

static int parse(const char *s)
{
	err[0] = 0;
	return bench_parse_qdiscs(s, picks, GW_BENCH_MAX_QUEUES, &n, err, sizeof(err));
}

static void good(const char *s, size_t want_n, const char *labels, const char *knobs0)
{
	char got[1024] = "";

	if (!CHECK(parse(s) == 0, "'%s' is taken (%s)", s, err))
		return;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(got);

		snprintf(got + l, sizeof(got) - l, "%s%s", i ? "," : "", picks[i].label);
	}
	CHECK(n == want_n, "'%s': %zu queues (got %zu)", s, want_n, n);
	CHECK_EQ_STR(got, labels, "its labels");
	CHECK_EQ_STR(picks[0].knobs, knobs0, "the first queue's knobs as config text");
}

/* refused, the message naming what is wrong */
static void bad(const char *s, const char *want)
{
	if (getenv("SHOW"))
		printf("# %s -> %s\n", s, (parse(s), err));
	CHECK(parse(s) == -EINVAL && strstr(err, want), "'%s' is refused: \"%s\" (got \"%s\")", s,
	      want, err);
}

static void test_grammar(void)
{
	good("fifo,fq_codel,cake,cake-shaper", 4, "fifo,fq_codel,cake,cake-shaper", "");
	CHECK(picks[1].q == 1 && !strcmp(bench_qdisc_name(picks[3].q), "cake-shaper") &&
	      !picks[3].knobs[0],
	      "plain names: the queues of the list, no knobs");
	good("fq_codel:target=2ms:quantum=300", 1, "fq_codel:target=2ms:quantum=300",
	     "target = \"2ms\"; quantum = 300L;");
	/* the issue's own spelling: a KEY=VALUE after a comma goes with the queue before it */
	good("fifo,fq_codel:target=2ms,quantum=300,cake:diffserv4", 3,
	     "fifo,fq_codel:target=2ms:quantum=300,cake:diffserv4", "");
	CHECK_EQ_STR(picks[1].knobs, "target = \"2ms\"; quantum = 300L;", "fq_codel's two knobs");
	CHECK_EQ_STR(picks[2].knobs, "diffserv = \"diffserv4\";",
		     "cake:diffserv4 is diffserv = \"diffserv4\" (a word of one of its keys)");
	good("fq_codel:ecn,cake:nat:flow_mode=dual-srchost", 2,
	     "fq_codel:ecn,cake:nat:flow_mode=dual-srchost", "ecn = true;");
	CHECK_EQ_STR(picks[1].knobs, "nat = true; flow_mode = \"dual-srchost\";",
		     "a bool key's name alone is true; a word with a '-' is a string");
	good("fq_codel:target=2ms,fq_codel:target=10ms", 2, "fq_codel:target=2ms,fq_codel:target=10ms",
	     "target = \"2ms\";");
	good("fq_codel:ecn=false:memory_limit=4m", 1, "fq_codel:ecn=false:memory_limit=4m",
	     "ecn = false; memory_limit = \"4m\";");
	good("cake-shaper:diffserv4:rtt=20ms", 1, "cake-shaper:diffserv4:rtt=20ms",
	     "diffserv = \"diffserv4\"; rtt = \"20ms\";");
	good("sfq:perturb=10s,pie:target=15ms:ecn", 2, "sfq:perturb=10s,pie:target=15ms:ecn",
	     "perturb = \"10s\";");
	good("fifo:limit=100", 1, "fifo:limit=100", "limit = 100L;");

	/* the config parser's own messages, with --qdiscs QUEUE for FILE:LINE */
	bad("fq_codel:target=0ms", "--qdiscs fq_codel:target=0ms: 'target'");
	bad("fq_codel:target=5000", "'target' needs a unit: write it as a string, e.g. \"5ms\"");
	bad("fq_codel:tagret=2ms", "unknown key 'tagret'");
	bad("cake:target=2ms", "'target' is a fq_codel and pie setting, not valid for kind \"cake\"");
	bad("fq_codel:quantum=abc", "'quantum'");
	bad("cake:diffserv=diffserv9", "'diffserv'");
	bad("fq_codel:interval=1ms:target=5ms", "interval");
	bad("fifo:limit=0", "'limit'");
	bad("fq_codel:ecn=maybe", "'ecn' must be true or false, not a string");
	/* the grammar's own */
	bad("foo", "unknown qdisc 'foo' (fifo, fq_codel, cake");
	bad("fq_codel:target=2ms,foo", "unknown qdisc 'foo'");
	bad("quantum=300,fifo", "'quantum=300' is a knob, and a queue's name comes first");
	bad("cake:diffserv9", "'diffserv9' is neither KEY=VALUE nor a word of cake's settings");
	bad("fq_codel::ecn", "an empty knob");
	bad("fq_codel:", "an empty knob");
	bad("fq_codel:target=2ms:target=3ms", "'target' is given twice");
	bad("fq_codel:target=\"2ms\"", "a value letters, digits");
	bad("fq_codel:target=2ms;limit=1", "a value letters, digits");
	bad("fq_codel:Target=2ms", "a key is lower-case");
	bad("fq_codel:target=", "(and not empty)");
	bad("fq_codel:target=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "is too long");
	bad("", "no queue named");
	bad(",", "no queue named");
	bad("fifo,fifo,fifo,fifo,fifo,fifo,fifo,fifo,fifo", "at most 8 queues");
	char big[BENCH_QDISCS_TEXT_MAX + 8];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	bad(big, "longer than");
	bad("fq_codel:limit=1:flows=2:target=1ms:interval=100ms:quantum=300:ecn:ce_threshold=1ms:memory_limit=4m",
	    "too many knobs");
}

static void test_child_text(void)
{
	char buf[BENCH_KNOBS_MAX + 128];

	CHECK(parse("fifo,fifo:limit=50,cake:diffserv4,cake:ingress=false") == 0, "parsed (%s)", err);
	bench_child_text(bench_queue(picks[0].q), picks[0].knobs, false, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "kind = \"fifo\"; limit = 1000;", "fifo: the bench's own deep queue");
	bench_child_text(bench_queue(picks[1].q), picks[1].knobs, false, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "kind = \"fifo\"; limit = 50L;", "fifo:limit=50 takes the bench's place");
	bench_child_text(bench_queue(picks[2].q), picks[2].knobs, true, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "kind = \"cake\"; diffserv = \"diffserv4\"; ingress = true;",
		     "cake on the ifb: the knob and the bench's ingress setting");
	bench_child_text(bench_queue(picks[3].q), picks[3].knobs, true, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "kind = \"cake\"; ingress = false;", "a knob over the bench's ingress one");
}

static void test_rates(void)
{
	uint64_t bps[2];	/* bytes/s, as the config's rates */
	char text[2][32];

	CHECK(bench_parse_rates("20mbit", bps, text) == 0 && bps[0] == 2500000 &&
	      bps[1] == 2500000 && !strcmp(text[0], "20mbit") && !strcmp(text[1], "20mbit"),
	      "one rate: both ways");
	CHECK(bench_parse_rates("40mbit/10mbit", bps, text) == 0 && bps[1] == 5000000 &&
	      bps[0] == 1250000 && !strcmp(text[1], "40mbit") && !strcmp(text[0], "10mbit"),
	      "DOWN/UP: [1] down 40 Mbit/s, [0] up 10 (%llu/%llu bytes/s)",
	      (unsigned long long)bps[1], (unsigned long long)bps[0]);
	CHECK(bench_parse_rates("1gbit/100kbit", bps, text) == 0 && bps[1] == 125000000 &&
	      bps[0] == 12500, "the bounds themselves are taken");
	const char *no[] = { "", "/", "20mbit/", "/20mbit", "20mbit/10mbit/5mbit", "99kbit",
			     "20mbit/99kbit", "1.1gbit", "fast", "20mbit/fast",
			     "99999999999999999999gbit" };

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(bench_parse_rates(no[i], bps, text) == -EINVAL, "'%s' is not a rate", no[i]);
}

static void test_results(void)
{
	struct bench_opts o;
	struct bench_result r[2];
	/* in a directory of its own: the bench writes only in one no one else may write in */
	char dir[] = "/tmp/test_cmpknobs.XXXXXX", path[64], file[64], e[4600];
	struct json_object *root, *cfg, *runs, *v;
	bool made = mkdtemp(dir) != NULL;

	memset(&o, 0, sizeof(o));
	memset(r, 0, sizeof(r));
	CHECK(bench_parse_rates("40mbit/10mbit", o.rate, o.dir_text) == 0 &&
	      o.rate[1] == 5000000 && o.rate[0] == 1250000, "rates, in bytes/s");
	o.duration_s = 10;
	r[0].q = 1;
	snprintf(r[0].label, sizeof(r[0].label), "fq_codel:target=2ms");
	r[1].q = 0;
	CHECK_EQ_STR(bench_result_label(&r[1]), "fifo", "no label: the queue's name");
	bench_label_file(&r[0], file, sizeof(file));
	CHECK_EQ_STR(file, "fq_codel_target-2ms", "the label as a file name: no ':' or '='");
	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(made && bench_write_json(path, &o, r, 2, "host", NULL, e, sizeof(e)) == 0,
	      "written (%s)", e);
	root = json_object_from_file(path);
	unlink(path);
	rmdir(dir);
	if (!CHECK(root != NULL, "results.json parses"))
		return;
	json_object_object_get_ex(root, "config", &cfg);
	json_object_object_get_ex(cfg, "rate_bps", &v);
	CHECK_EQ_INT(json_object_get_int64(v), 40000000, "rate_bps: the down rate");
	json_object_object_get_ex(cfg, "rate_bps_down", &v);
	CHECK_EQ_INT(json_object_get_int64(v), 40000000, "rate_bps_down");
	json_object_object_get_ex(cfg, "rate_bps_up", &v);
	CHECK_EQ_INT(json_object_get_int64(v), 10000000, "rate_bps_up");
	json_object_object_get_ex(cfg, "udp_flood_bps", &v);
	CHECK_EQ_INT(json_object_get_int64(v), 12500000, "the flood (upward): 1.25 x the up rate");
	json_object_object_get_ex(root, "runs", &runs);
	json_object_object_get_ex(json_object_array_get_idx(runs, 0), "qdisc", &v);
	CHECK_EQ_STR(json_object_get_string(v), "fq_codel", "a run's qdisc: the queue's name");
	json_object_object_get_ex(json_object_array_get_idx(runs, 0), "label", &v);
	CHECK_EQ_STR(json_object_get_string(v), "fq_codel:target=2ms", "its label: with the knobs");
	json_object_object_get_ex(json_object_array_get_idx(runs, 1), "label", &v);
	CHECK_EQ_STR(json_object_get_string(v), "fifo", "without knobs: the name");
	json_object_put(root);
}

int main(void)
{
	test_grammar();
	test_child_text();
	test_rates();
	test_results();
	return tap_done();
}
