/* tests/unit/test_flent.c: the bench's flent data file (bench/flent.c) on a made-up
 * run: its name, gzip, format version 4, rrul_be's series names, raw values in flent's shape,
 * the series interpolated onto x_values as flent's aggregator does, the computed sums and
 * averages, and the metadata (flent's keys and gatewayd's); results.json's `metadata`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <zlib.h>
#include "bench/flent.h"
#include "bench/options.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/stats.h"
#include "bench/sysinfo.h"
#include "bench/testbed.h"
#include "sys/grow.h"
#include "tests/unit/tap.h"

#define T0 1796187650.25	/* 2026-12-02 05:00:50.25 UTC */

static struct bench_flow *add_flow(struct bench_result *r, const char *name, bool up, bool udp,
				   size_t n, double start, double mbps)
{
	struct bench_flow *fl = &r->flows[r->n_flows++];

	snprintf(fl->name, sizeof(fl->name), "%s", name);
	fl->up = up;
	fl->udp = udp;
	fl->n = n;
	fl->t = calloc(n, sizeof(double));
	fl->secs = calloc(n, sizeof(double));
	fl->rate = calloc(n, sizeof(double));
	for (size_t k = 0; k < n; k++) {
		fl->t[k] = start + 0.5 * (double)(k + 1);
		fl->secs[k] = 0.5;
		fl->rate[k] = mbps * 1e6 / 8;
	}
	return fl;
}

/* 20 s: idle 0-3 (40 ms), TCP 3-11 and flood 11-17 (240 ms, probe 100 lost), idle2; flows
 * up 4 x 4.5 Mbit/s, down 2 + 3 x 4.5, from t = 3.5 every 0.5 s to 17; the flood at 25 */
static void make_run(struct bench_result *r)
{
	static const double ph[] = { 0, 3, 11, 17, 20 };

	memset(r, 0, sizeof(*r));
	r->q = 1;	/* fq_codel */
	r->ran = true;
	r->t0_unix = T0;
	memcpy(r->phase_start, ph, sizeof(ph));
	r->clients_started = 2.5;
	for (int i = 0; i < 400; i++) {
		float t = i * 0.05f;
		int p = t < 3 ? 0 : t < 11 ? 1 : t < 17 ? 2 : 3;

		if (gw_grow(&r->samples, &r->cap_samples, r->n_samples, sizeof(*r->samples), 256))
			abort();
		r->samples[r->n_samples++] = (struct bench_sample){ .t = t, .phase = (uint8_t)p,
			.rtt_ms = i == 100 ? NAN : p == 1 || p == 2 ? 240.5f : 40.25f };
	}
	for (int f = 0; f < 8; f++) {
		char name[16];

		snprintf(name, sizeof(name), "%s%d", f < 4 ? "up" : "down", f % 4 + 1);
		add_flow(r, name, f < 4, false, 28, 3, f == 4 ? 2 : 4.5);
	}
	add_flow(r, "udp-flood", true, true, 13, 11, 25);
	r->cap_ticks = 201;
	r->ticks = calloc(r->cap_ticks, sizeof(*r->ticks));
	for (int i = 0; i <= 200; i++)
		r->ticks[r->n_ticks++] = (struct bench_tick){ .t = (float)(i * 0.1) };
	/* the tree as the kernel would report it */
	r->tc[r->n_tc++] = (struct bench_tc){ .kind = "htb", .handle = 0x10000,
		.parent = 0xFFFFFFFF,
		.opts = " default 10 r2q 10", .line = "tc qdisc add dev g1 root handle 1: htb default 10 r2q 10" };
	r->tc[r->n_tc++] = (struct bench_tc){ .kind = "fq_codel", .handle = 0x100000,
		.parent = 0x10010, .opts = " limit 10240p target 5ms ecn drop_batch 64",
		.line = "tc qdisc add dev g1 parent 1:10 handle 10: fq_codel limit 10240p target 5ms ecn drop_batch 64" };
	r->tc[r->n_tc++] = (struct bench_tc){ .cls = true, .kind = "htb", .handle = 0x10010,
		.parent = 0x10001, .opts = " rate 20mbit ceil 20mbit" };
	r->tc[r->n_tc++] = (struct bench_tc){ .down = true, .kind = "cake", .handle = 0x10000,
		.parent = 0xFFFFFFFF, .opts = " bandwidth unlimited diffserv3 rtt 100ms" };
}

static void make_si(struct bench_sysinfo *si)
{
	memset(si, 0, sizeof(*si));
	snprintf(si->hostname, sizeof(si->hostname), "bench");
	snprintf(si->kernel_name, sizeof(si->kernel_name), "Linux");
	snprintf(si->kernel_release, sizeof(si->kernel_release), "6.1.0-uml");
	si->sysctl[0].name = "net.ipv4.tcp_congestion_control";
	snprintf(si->sysctl[0].client, sizeof(si->sysctl[0].client), "cubic");
	snprintf(si->sysctl[0].server, sizeof(si->sysctl[0].server), "bbr");
	si->sysctl[1].name = "net.ipv4.tcp_ecn";
	snprintf(si->sysctl[1].client, sizeof(si->sysctl[1].client), "1");
	snprintf(si->sysctl[1].server, sizeof(si->sysctl[1].server), "1");
	si->sysctl[2].name = "net.ipv4.tcp_rmem";
	snprintf(si->sysctl[2].client, sizeof(si->sysctl[2].client), "4096 131072 6291456");
	si->n_sysctl = 3;
	si->ifs[si->n_ifs++] = (struct bench_ifinfo){ "gateway", BENCH_GW_WAN, 1, 1, 0, -1 };
}

static struct json_object *load_gz(const char *path, unsigned char magic[2])
{
	gzFile gz;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int got;
	FILE *f = fopen(path, "rb");

	magic[0] = magic[1] = 0;
	if (f) {
		if (fread(magic, 1, 2, f) != 2)
			magic[0] = 0;
		fclose(f);
	}
	if (!(gz = gzopen(path, "rb")))
		return NULL;
	do {
		if (gw_grow(&buf, &cap, n, 1, 65536 + n))
			abort();
		got = gzread(gz, buf + n, (unsigned)(cap - n - 1));
		if (got > 0)
			n += (size_t)got;
	} while (got > 0);
	gzclose(gz);
	buf[n] = 0;
	struct json_object *o = json_tokener_parse(buf);

	free(buf);
	return o;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && o; k = strtok_r(NULL, "/", &save)) {
		struct json_object *next = NULL;

		if (json_object_is_type(o, json_type_array))
			next = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &next))
			next = NULL;
		o = next;
	}
	return o;
}

static double dbl(struct json_object *o, const char *path)
{
	struct json_object *v = get(o, path);

	return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

static const char *str(struct json_object *o, const char *path)
{
	struct json_object *v = get(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "(none)";
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

static void test_file(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20, .rtt_us = 40000 };
	struct bench_result r;
	struct bench_sysinfo si;
	char dir[] = "/tmp/gwflent-unit.XXXXXX", name[256], path[512], err[128];
	unsigned char magic[2];

	snprintf(o.rate_text, sizeof(o.rate_text), "20mbit");
	make_run(&r);
	make_si(&si);
	bench_derive(&o, &r);
	CHECK(mkdtemp(dir) != NULL, "scratch dir");
	CHECK(bench_write_flent(dir, &o, &r, "uml", &si, name, sizeof(name), err, sizeof(err)) == 0,
	      "flent file written (%s)", err);
	CHECK_EQ_STR(name, "rrul_be-2026-12-02T050050.250000.fq_codel.flent.gz",
		     "named as flent names it: test-time.title.flent.gz");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct json_object *f = load_gz(path, magic), *m = get(f, "metadata"), *v;

	CHECK(f != NULL, "it gunzips and parses as JSON");
	CHECK(magic[0] == 0x1f && magic[1] == 0x8b, "gzip, as the .gz says");
	snprintf(path, sizeof(path), "%s/%s.tmp", dir, name);
	CHECK(access(path, F_OK) != 0, "no temporary file left");
	CHECK(dbl(f, "version") == 4, "format version 4 (flent 2.1's)");
	CHECK_EQ_STR(str(m, "NAME"), "rrul_be", "NAME: the rrul_be test");
	CHECK_EQ_STR(str(m, "TITLE"), "fq_codel", "TITLE: the queue");
	CHECK_EQ_STR(str(m, "TIME"), "2026-12-02T05:00:50.250000Z", "TIME in flent's UTC form");
	CHECK_EQ_STR(str(m, "T0"), "2026-12-02T05:00:50.250000Z", "T0: the run's t = 0");
	CHECK_EQ_STR(str(m, "DATA_FILENAME"), name, "DATA_FILENAME: the file's own name");
	CHECK(dbl(m, "LENGTH") == 14 && dbl(m, "TOTAL_LENGTH") == 20 && dbl(m, "DELAY") == 3 &&
	      near(dbl(m, "STEP_SIZE"), 0.2), "LENGTH 14 (the load), TOTAL_LENGTH 20, DELAY 3, STEP_SIZE 0.2");
	CHECK_EQ_STR(str(m, "HOST"), BENCH_IP_SERVER, "HOST: the server");
	CHECK_EQ_STR(str(m, "HOSTS/0"), BENCH_IP_SERVER, "HOSTS");
	CHECK_EQ_STR(str(m, "LOCAL_HOST"), "bench", "LOCAL_HOST");
	CHECK_EQ_STR(str(m, "KERNEL_RELEASE"), "6.1.0-uml", "KERNEL_RELEASE");
	CHECK_EQ_STR(str(m, "SYSCTLS/net.ipv4.tcp_congestion_control"), "cubic",
		     "SYSCTLS: the client's congestion control");
	v = get(m, "SYSCTLS/net.ipv4.tcp_ecn");
	CHECK(v && json_object_is_type(v, json_type_int) && json_object_get_int(v) == 1,
	      "SYSCTLS: tcp_ecn as a number, as flent records it");
	CHECK_EQ_STR(str(m, "SYSCTLS/net.ipv4.tcp_rmem"), "4096 131072 6291456", "a list stays text");
	CHECK_EQ_STR(str(m, "REMOTE_METADATA/" BENCH_IP_SERVER "/SYSCTLS/net.ipv4.tcp_congestion_control"),
		     "bbr", "the server's in REMOTE_METADATA");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/iface"), BENCH_GW_WAN, "EGRESS_INFO: the WAN side");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/name"), "fq_codel", "its qdiscs, by tc's kind");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/id"), "10:", "id as tc prints it");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/parent"), "1:10", "parent");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/0/parent"), "root", "the root's parent: root");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/params/target"), "5ms", "params: key and value");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/params/ecn"), "", "params: a flag has no value");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/qdiscs/1/params/drop_batch"), "64", "params: after a flag");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/classes/0/params/rate"), "20mbit", "classes");
	CHECK_EQ_STR(str(m, "EGRESS_INFO/tc/1"), r.tc[1].line, "the tc commands");
	v = get(m, "EGRESS_INFO/offloads/large-receive-offload");
	CHECK(v == NULL && json_object_get_boolean(get(m, "EGRESS_INFO/offloads/tcp-segmentation-offload")) &&
	      !json_object_get_boolean(get(m, "EGRESS_INFO/offloads/generic-receive-offload")),
	      "offloads by ethtool's names, the unknown left out");
	CHECK_EQ_STR(str(m, "INGRESS_INFO/qdiscs/0/params/bandwidth"), "unlimited",
		     "INGRESS_INFO: the ifb's, cake's bandwidth unlimited");
	CHECK_EQ_STR(str(m, "GATEWAYD_VERSION"), GW_VERSION, "GATEWAYD_VERSION");
	CHECK_EQ_STR(str(m, "GATEWAYD_KERNEL"), "uml", "GATEWAYD_KERNEL");
	CHECK_EQ_STR(str(m, "GATEWAYD_QDISC"), "fq_codel", "GATEWAYD_QDISC");
	CHECK_EQ_STR(str(m, "GATEWAYD_PHASES/2/name"), "flood", "GATEWAYD_PHASES");

	/* the series */
	static const char *const names[] = { "TCP upload BE", "TCP upload BE2", "TCP upload BE3",
		"TCP upload BE4", "TCP download BE", "TCP download BE2", "TCP download BE3",
		"TCP download BE4", "UDP upload", "Ping (ms) ICMP", "TCP upload avg",
		"TCP upload sum", "TCP download avg", "TCP download sum", "TCP totals",
		"Ping (ms) avg" };
	size_t nx = json_object_array_length(get(f, "x_values")), good = 0;

	CHECK(nx == 100, "x_values: every 0.2 s to the last point, 19.95 s (%zu)", nx);
	CHECK(near(dbl(f, "x_values/35"), 7), "x_values are step multiples");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[64];

		snprintf(p, sizeof(p), "results/%s", names[i]);
		struct json_object *a = get(f, p);

		snprintf(p, sizeof(p), "raw_values/%s", names[i]);
		good += a && json_object_array_length(a) == nx && get(f, p) &&
			get(m, "SERIES_META") && json_object_object_get_ex(get(m, "SERIES_META"), names[i], NULL);
	}
	CHECK(good == 16 && json_object_object_length(get(f, "results")) == 16,
	      "rrul_be's 16 series in results, raw_values and SERIES_META, each as long as x_values (%zu)", good);
	CHECK(json_object_array_length(get(f, "raw_values/TCP upload BE")) == 28 &&
	      near(dbl(f, "raw_values/TCP upload BE/0/t"), T0 + 3.5) &&
	      near(dbl(f, "raw_values/TCP upload BE/0/val"), 4.5) &&
	      near(dbl(f, "raw_values/TCP upload BE/0/dur"), 0.5),
	      "a flow's raw values: t absolute, val in Mbit/s, dur");
	CHECK(near(dbl(f, "raw_values/TCP download BE/3/val"), 2), "down1 is TCP download BE");
	CHECK(json_object_array_length(get(f, "raw_values/Ping (ms) ICMP")) == 399 &&
	      near(dbl(f, "raw_values/Ping (ms) ICMP/0/t"), T0) &&
	      near(dbl(f, "raw_values/Ping (ms) ICMP/100/t"), T0 + 5.05) &&
	      near(dbl(f, "raw_values/Ping (ms) ICMP/100/val"), 240.5),
	      "pings: the replies only (the lost one left out, as flent's ping has it)");
	CHECK(json_object_array_length(get(f, "raw_values/TCP upload sum")) == 0,
	      "a computed series has no raw values, as flent keeps it");
	CHECK(get(f, "results/TCP upload BE/16") == NULL && near(dbl(f, "results/TCP upload BE/17"), 4.5) &&
	      near(dbl(f, "results/TCP upload BE/18"), 4.5),
	      "interpolated: nothing before the first point but within half a step of it");
	CHECK(near(dbl(f, "results/Ping (ms) ICMP/25"), 240.5) && near(dbl(f, "results/Ping (ms) ICMP/10"), 40.25),
	      "pings interpolated, across the lost one");
	CHECK(get(f, "results/TCP upload BE/85") == NULL && near(dbl(f, "results/TCP upload BE/84"), 4.5),
	      "the last point not repeated (flent's rule)");
	CHECK(near(dbl(f, "results/TCP upload sum/50"), 18) && near(dbl(f, "results/TCP download sum/50"), 15.5) &&
	      near(dbl(f, "results/TCP totals/50"), 33.5) && near(dbl(f, "results/TCP upload avg/50"), 4.5) &&
	      near(dbl(f, "results/Ping (ms) avg/50"), 240.5),
	      "sums and averages at each step, as flent computes them");
	CHECK(near(dbl(m, "SERIES_META/TCP upload sum/MEAN_VALUE"), r.goodput[0] * 8 / 1e6) &&
	      near(dbl(m, "SERIES_META/TCP download sum/MEAN_VALUE"), r.goodput[1] * 8 / 1e6),
	      "MEAN_VALUE of the sums: the goodput results.json has (%.3f, %.3f)",
	      dbl(m, "SERIES_META/TCP upload sum/MEAN_VALUE"), r.goodput[0] * 8 / 1e6);
	CHECK(near(dbl(m, "SERIES_META/UDP upload/MEAN_VALUE"), 25), "the flood's mean");
	CHECK_EQ_STR(str(m, "SERIES_META/Ping (ms) ICMP/UNITS"), "ms", "units: ms");
	CHECK_EQ_STR(str(m, "SERIES_META/TCP totals/UNITS"), "Mbits/s", "units: Mbits/s");
	double mean = 0;

	for (size_t i = 0; i < r.n_samples; i++)
		if (!isnan(r.samples[i].rtt_ms))
			mean += r.samples[i].rtt_ms;
	mean /= 399;
	CHECK(fabs(dbl(m, "SERIES_META/Ping (ms) ICMP/MEAN_VALUE") - mean) < 1e-3,
	      "the pings' MEAN_VALUE: over every reply, as ping's own");
	json_object_put(f);

	/* results.json: the same metadata, and the flent file's name per run */
	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(bench_write_json(path, &o, &r, 1, "uml", &si, err, sizeof(err)) == 0, "results.json written");
	struct json_object *j = json_object_from_file(path);

	CHECK_EQ_STR(str(j, "metadata/congestion_control/server"), "bbr", "results.json: congestion control");
	CHECK(dbl(j, "metadata/tcp_ecn/client") == 1, "results.json: the ECN sysctl");
	CHECK_EQ_STR(str(j, "metadata/kernel"), "uml", "results.json: host or UML");
	CHECK_EQ_STR(str(j, "metadata/gatewayd_version"), GW_VERSION, "results.json: gatewayd's version");
	CHECK(json_object_get_boolean(get(j, "metadata/offloads/0/offloads/tcp-segmentation-offload")),
	      "results.json: offloads");
	CHECK_EQ_STR(str(j, "runs/0/qdiscs/1/params"), "limit 10240p target 5ms ecn drop_batch 64",
		     "results.json: the kernel's qdisc parameters");
	CHECK_EQ_STR(str(j, "runs/0/qdiscs/3/direction"), "down", "results.json: per direction");
	CHECK_EQ_STR(str(j, "runs/0/flent_file"), name, "results.json: the run's flent file");
	CHECK(near(dbl(j, "runs/0/t0_unix"), T0), "results.json: t0_unix");
	json_object_put(j);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0, "scratch removed");
	bench_result_free(&r);
}

/* A busy guest's flows report every 0.6 s, not 0.5: flent's aggregator (no value more than 5
 * steps from the next point) must still give every step between the first and last a value,
 * or the sums have holes and the plots' smoothed lines break. */
static void test_late_intervals(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20, .rtt_us = 40000 };
	struct bench_result r;
	char dir[] = "/tmp/gwflent-unit.XXXXXX", name[256], path[512], err[128];
	unsigned char magic[2];
	size_t holes = 0, n = 0;

	snprintf(o.rate_text, sizeof(o.rate_text), "20mbit");
	make_run(&r);
	for (size_t i = 0; i < r.n_flows; i++)
		for (size_t k = 0; k < r.flows[i].n; k++) {
			r.flows[i].t[k] = 3 + 0.6 * (double)(k + 1);
			r.flows[i].secs[k] = 0.6;
		}
	bench_derive(&o, &r);
	CHECK(mkdtemp(dir) && bench_write_flent(dir, &o, &r, "uml", NULL, name, sizeof(name), err,
						 sizeof(err)) == 0, "late intervals: written (%s)", err);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct json_object *f = load_gz(path, magic), *sum = get(f, "results/TCP upload sum");

	for (size_t k = 0; sum && k < json_object_array_length(sum); k++) {
		double t = 0.2 * (double)k;

		if (t > 3.6 + 0.1 && t < 3 + 0.6 * 28 - 0.1) {
			n++;
			holes += json_object_array_get_idx(sum, k) == NULL;
		}
	}
	CHECK(n > 60 && holes == 0, "late intervals: TCP upload sum has a value at every step (%zu of %zu empty)",
	      holes, n);
	CHECK_EQ_STR(str(f, "metadata/LOCAL_HOST"), "", "no sysinfo: empty, not missing");
	json_object_put(f);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0, "scratch removed");
	bench_result_free(&r);
}

/* A TCP flow's sender's RTT reads as flent's socket stats: "NAME::tcp_rtt" and "::tcp_rtt_var"
 * on x_values, raw points {t, tcp_rtt, tcp_rtt_var} among the flow's own, in time order. */
static void test_rtt(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20, .rtt_us = 40000 };
	struct bench_result r;
	struct bench_flow *fl;
	char dir[] = "/tmp/gwflent-unit.XXXXXX", name[256], path[512], err[128];
	unsigned char magic[2];

	snprintf(o.rate_text, sizeof(o.rate_text), "20mbit");
	make_run(&r);
	fl = &r.flows[0];	/* up1: TCP upload BE */
	fl->n_rtt = 100;
	fl->rtt_t = calloc(100, sizeof(double));
	fl->rtt_ms = calloc(100, sizeof(double));
	fl->rttvar_ms = calloc(100, sizeof(double));
	if (!fl->rtt_t || !fl->rtt_ms || !fl->rttvar_ms)
		abort();
	for (size_t k = 0; k < 100; k++) {
		fl->rtt_t[k] = 3.55 + 0.1 * (double)k;	/* 3.55 .. 13.45 */
		fl->rtt_ms[k] = 100 + (double)k;
		fl->rttvar_ms[k] = 5;
	}
	bench_derive(&o, &r);
	CHECK(mkdtemp(dir) && bench_write_flent(dir, &o, &r, "uml", NULL, name, sizeof(name), err,
						 sizeof(err)) == 0, "with RTT reads: written (%s)", err);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct json_object *f = load_gz(path, magic);
	struct json_object *rtt = get(f, "results/TCP upload BE::tcp_rtt");
	struct json_object *raw = get(f, "raw_values/TCP upload BE");

	CHECK(rtt && json_object_array_length(rtt) == json_object_array_length(get(f, "x_values")) &&
	      get(f, "results/TCP upload BE::tcp_rtt_var") &&
	      json_object_object_length(get(f, "results")) == 18,
	      "results: TCP upload BE::tcp_rtt and ::tcp_rtt_var on x_values, beside rrul_be's 16");
	/* step 25 is t = 5.0, between the reads at 4.95 (114 ms) and 5.05 (115) */
	CHECK(near(dbl(f, "results/TCP upload BE::tcp_rtt/25"), 114.5) &&
	      near(dbl(f, "results/TCP upload BE::tcp_rtt_var/25"), 5) &&
	      get(f, "results/TCP upload BE::tcp_rtt/10") == NULL,
	      "interpolated as the rest (%.3f at 5.0 s; none before the first read)",
	      dbl(f, "results/TCP upload BE::tcp_rtt/25"));
	CHECK(!get(f, "results/TCP upload BE2::tcp_rtt"), "a flow without reads has none");
	size_t vals = 0, rtts = 0, ordered = 1;
	double last = 0;

	for (size_t i = 0; raw && i < json_object_array_length(raw); i++) {
		struct json_object *p = json_object_array_get_idx(raw, i);
		double t = dbl(p, "t");

		vals += json_object_object_get_ex(p, "val", NULL);
		rtts += json_object_object_get_ex(p, "tcp_rtt", NULL) &&
			json_object_object_get_ex(p, "tcp_rtt_var", NULL);
		ordered &= t >= last;
		last = t;
	}
	CHECK(raw && json_object_array_length(raw) == 128 && vals == 28 && rtts == 100 && ordered,
	      "raw values: the 28 goodput points and the 100 reads, in time order (%zu, %zu, %zu)",
	      vals, rtts, ordered);
	CHECK(near(dbl(raw, "0/t"), T0 + 3.5) && near(dbl(raw, "0/val"), 4.5) &&
	      near(dbl(raw, "1/t"), T0 + 3.55) && near(dbl(raw, "1/tcp_rtt"), 100) &&
	      near(dbl(raw, "1/tcp_rtt_var"), 5) && !get(raw, "1/val") && near(dbl(raw, "2/t"), T0 + 3.65),
	      "the first interval's end (3.5 s), then the reads (3.55 s: 100 ms, no val)");
	json_object_put(f);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0, "scratch removed");
	bench_result_free(&r);
}


/* The other loads as their own flent tests: --profile bidir with 3 flows each way as
 * rrul_be_nflows ("TCP upload BE::1".., its stream counts in TEST_PARAMETERS), upload and
 * download with 2 as tcp_nup and tcp_ndown ("TCP upload::1".., only their own direction's
 * computed series), and --family 6's pings to the server's IPv6 address. */
static void test_profiles(void)
{
	static const struct {
		enum bench_profile prof;
		int flows, family, n_up, n_down;
		const char *test, *first, *last, *up_streams, *down_streams;
		size_t n_results;
	} c[] = {
		{ BENCH_PROF_BIDIR, 3, 4, 3, 3, "rrul_be_nflows", "TCP upload BE::1",
		  "TCP download BE::3", "3", "3", 6 + 1 + 6 },
		{ BENCH_PROF_UPLOAD, 2, 6, 2, 0, "tcp_nup", "TCP upload::1", "TCP upload::2", "2",
		  NULL, 2 + 1 + 2 },
		{ BENCH_PROF_DOWNLOAD, 2, 4, 0, 2, "tcp_ndown", "TCP download::1",
		  "TCP download::2", NULL, "2", 2 + 1 + 2 },
		{ BENCH_PROF_RRUL, 4, 46, 4, 4, "rrul_be", "TCP upload BE", "TCP download BE4",
		  NULL, NULL, 8 + 1 + 1 + 6 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20, .rtt_us = 40000,
					.profile = c[i].prof, .flows = c[i].flows,
					.family = c[i].family };
		char dir[] = "/tmp/gwflent-unit.XXXXXX", name[256], path[512], err[128], want[64];
		struct bench_result r;
		unsigned char magic[2];
		int k[2] = { 0, 0 };

		snprintf(o.rate_text, sizeof(o.rate_text), "20mbit");
		memset(&r, 0, sizeof(r));
		make_run(&r);
		/* the run's flows as the profile makes them: n_up and n_down TCP, the flood with
		 * rrul alone */
		for (size_t j = 0; j < r.n_flows; j++) {
			struct bench_flow *f = &r.flows[j];
			int d = f->up ? 0 : 1;

			if (f->udp ? c[i].prof != BENCH_PROF_RRUL :
			    ++k[d] > (d ? c[i].n_down : c[i].n_up)) {
				free(f->t);
				free(f->secs);
				free(f->rate);
				memmove(f, f + 1, (r.n_flows - j - 1) * sizeof(*f));
				memset(&r.flows[--r.n_flows], 0, sizeof(*f));
				j--;
			}
		}
		bench_derive(&o, &r);
		CHECK(mkdtemp(dir) &&
		      bench_write_flent(dir, &o, &r, "uml", NULL, name, sizeof(name), err,
					sizeof(err)) == 0,
		      "%s: written (%s)", c[i].test, err);
		snprintf(want, sizeof(want), "%s-2026-12-02T", c[i].test);
		CHECK(!strncmp(name, want, strlen(want)), "%s: the file named by its test (%s)",
		      c[i].test, name);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		struct json_object *f = load_gz(path, magic), *m = get(f, "metadata");

		CHECK(!strcmp(str(m, "NAME"), c[i].test), "%s: NAME (%s)", c[i].test, str(m, "NAME"));
		snprintf(path, sizeof(path), "results/%s", c[i].first);
		CHECK(get(f, path) != NULL, "%s: its first flow is '%s'", c[i].test, c[i].first);
		snprintf(path, sizeof(path), "results/%s", c[i].last);
		CHECK(get(f, path) != NULL, "%s: its last flow is '%s'", c[i].test, c[i].last);
		CHECK(json_object_object_length(get(f, "results")) == (int)c[i].n_results,
		      "%s: %zu series: the flows, the pings and the test's computed ones (%d)",
		      c[i].test, c[i].n_results, json_object_object_length(get(f, "results")));
		CHECK((c[i].n_up > 0) == (get(f, "results/TCP upload sum") != NULL) &&
		      (c[i].n_down > 0) == (get(f, "results/TCP download sum") != NULL),
		      "%s: a direction's sum only where the test has it", c[i].test);
		CHECK(c[i].up_streams ? !strcmp(str(m, "TEST_PARAMETERS/upload_streams"), c[i].up_streams) :
		      !get(m, "TEST_PARAMETERS/upload_streams"),
		      "%s: upload_streams %s", c[i].test, c[i].up_streams ? c[i].up_streams : "absent");
		CHECK(c[i].down_streams ? !strcmp(str(m, "TEST_PARAMETERS/download_streams"), c[i].down_streams) :
		      !get(m, "TEST_PARAMETERS/download_streams"),
		      "%s: download_streams %s", c[i].test, c[i].down_streams ? c[i].down_streams : "absent");
		CHECK(!strcmp(str(m, "HOST"),
			      c[i].family == 6 ? BENCH_IP6_SERVER : BENCH_IP_SERVER) &&
		      dbl(m, "IP_VERSION") == (c[i].family == 6 ? 6 : 4) &&
		      dbl(m, "GATEWAYD_IP_FAMILY") == c[i].family,
		      "%s: HOST %s, IP_VERSION %g (--family %d)", c[i].test, str(m, "HOST"),
		      dbl(m, "IP_VERSION"), c[i].family);
		CHECK(!strcmp(str(m, "GATEWAYD_PROFILE"), bench_profile_name(c[i].prof)) &&
		      dbl(m, "GATEWAYD_TCP_FLOWS_UP") == c[i].n_up &&
		      dbl(m, "GATEWAYD_TCP_FLOWS_DOWN") == c[i].n_down &&
		      strstr(str(m, "NOTE"), bench_profile_name(c[i].prof)),
		      "%s: the profile and its flows in gatewayd's own metadata (%s)", c[i].test,
		      str(m, "NOTE"));
		json_object_put(f);
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		CHECK(system(path) == 0, "scratch removed");
		bench_result_free(&r);
	}
}

int main(void)
{
	setenv("TZ", "UTC", 1);	/* the file name has the local time, as flent's */
	test_file();
	test_late_intervals();
	test_rtt();
	test_profiles();
	return tap_done();
}
