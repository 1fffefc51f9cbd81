/* tests/unit/test_scenario.c: the varying-link scenario's options and arithmetic on made-up
 * runs (no root, no kernel): --steps and --ways, autorate's bounds from the steps, per step
 * the induced latency whole and settled, goodput shares, the time to recover after a drop,
 * the acceptance's verdicts, and results.json read back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/scenario_results.h"
#include "bench/scenario_stats.h"
#include "bench/svg.h"
#include "sys/grow.h"
#include "tests/unit/tap.h"

static void test_options(void)
{
	struct bench_scenario sc = { 0 };
	char w[64];

	CHECK(bench_sc_parse_steps("40/10,12/4,30/8", &sc) == 0 && sc.n_steps == 3,
	      "the default steps parse");
	CHECK(sc.cap[0][1] == 5000000 && sc.cap[0][0] == 1250000 && sc.cap[1][1] == 1500000 &&
	      sc.cap[2][0] == 1000000, "down/up in Mbit/s, into bytes/s, [0] up, [1] down");
	CHECK(bench_sc_parse_steps("12mbit/4000kbit,2.5/0.5", &sc) == 0 &&
	      sc.cap[0][1] == 1500000 && sc.cap[0][0] == 500000 && sc.cap[1][1] == 312500 &&
	      sc.cap[1][0] == 62500,
	      "rates with units, and fractions of Mbit/s");
	CHECK(bench_sc_parse_steps("40", &sc) < 0, "a step without its upload rate is refused");
	CHECK(bench_sc_parse_steps("40/10,twelve/4", &sc) < 0, "a step that is no rate is refused");
	CHECK(bench_sc_parse_steps("0.05/10", &sc) < 0, "under 100 kbit is refused");
	CHECK(bench_sc_parse_steps("2000/10", &sc) < 0, "over 1 gbit is refused");
	CHECK(bench_sc_parse_steps("1/1,1/1,1/1,1/1,1/1,1/1,1/1,1/1,1/1", &sc) < 0,
	      "more than %d steps are refused", BENCH_MAX_STEPS);
	CHECK(bench_sc_parse_steps("", &sc) < 0, "no step is refused");
	snprintf(w, sizeof(w), "none,autorate");
	CHECK(bench_sc_parse_ways(w, &sc) == 0 && sc.n_ways == 2 && sc.ways[0] == BENCH_WAY_NONE &&
	      sc.ways[1] == BENCH_WAY_AUTORATE, "ways in the order given");
	snprintf(w, sizeof(w), "fixed,fixed");
	CHECK(bench_sc_parse_ways(w, &sc) < 0, "a way twice is refused");
	snprintf(w, sizeof(w), "fast");
	CHECK(bench_sc_parse_ways(w, &sc) < 0, "an unknown way is refused");
	CHECK_EQ_STR(bench_way_name(BENCH_WAY_FIXED), "fixed", "the fixed way's name");

	bench_sc_parse_steps("40/10,12/4,30/8", &sc);
	bench_sc_defaults(&sc);
	CHECK(sc.base[1] == 5000000 && sc.base[0] == 1250000, "base: the first step's rates");
	CHECK(sc.min[1] == 750000 && sc.min[0] == 250000, "min: half the lowest step's");
	CHECK(sc.max[1] == 6250000 && sc.max[0] == 1562500, "max: a quarter over the highest");
}

static void add_sample(struct bench_result *r, double t, double rtt, int ph)
{
	if (gw_grow(&r->samples, &r->cap_samples, r->n_samples, sizeof(*r->samples), 256))
		abort();
	r->samples[r->n_samples++] = (struct bench_sample){ .t = (float)t, .rtt_ms = (float)rtt,
							    .phase = (uint8_t)ph };
}

static struct bench_flow *add_flow(struct bench_result *r, const char *name, bool up, size_t n)
{
	struct bench_flow *fl = &r->flows[r->n_flows++];

	snprintf(fl->name, sizeof(fl->name), "%s", name);
	fl->up = up;
	fl->n = n;
	fl->t = calloc(n, sizeof(double));
	fl->secs = calloc(n, sizeof(double));
	fl->rate = calloc(n, sizeof(double));
	if (!fl->t || !fl->secs || !fl->rate)
		abort();
	return fl;
}

/* Steps 40/10 and 12/4 of 10 s, starting at 5 s after 4 s idle (40 ms). Step 1: 45 ms, 30
 * Mbit/s down and 9 up. Step 2: extra ms for its first 2 s, then 50 ms (fixed: always the
 * extra); 10 down and 3.6 up. The box at 95% of its capacity, the shaper at the capacity. */
static void make_run(struct bench_sc_run *x, const struct bench_opts *o, enum bench_way w,
		     double extra)
{
	memset(x, 0, sizeof(*x));
	x->way = w;
	x->ran = true;
	x->r.clients_started = 4;
	for (int k = 0; k < 2; k++) {
		x->st[k].start = 5 + 10 * k;
		x->st[k].end = 15 + 10 * k;
	}
	x->end = 25;
	for (double t = 0; t < 25; t += 0.05) {
		int ph = t < 5 ? 0 : t < 15 ? 1 : 2;
		double rtt = ph == 0 ? 40 : ph == 1 ? 45 :
			     (w == BENCH_WAY_FIXED || t < 17) ? 40 + extra : 50;

		add_sample(&x->r, t, t > 4 && t < 5 ? 41 : rtt, ph);
	}
	struct bench_flow *up = add_flow(&x->r, "up1", true, 40), *down = add_flow(&x->r, "down1", false, 40);

	for (size_t i = 0; i < 40; i++) {
		double t = 5.5 + 0.5 * (double)i;

		up->t[i] = down->t[i] = t;
		up->secs[i] = down->secs[i] = 0.5;
		up->rate[i] = (t <= 15 ? 9 : 3.6) * 1e6 / 8;
		down->rate[i] = (t <= 15 ? 30 : 10) * 1e6 / 8;
	}
	uint64_t bytes[2] = { 0, 0 }, busy = 0;

	for (int i = 0; i <= 250; i++) {
		double t = i * 0.1;
		int k = t < 15 ? 0 : 1;
		struct bench_tick p = { .t = (float)t };

		for (int d = 0; d < 2; d++) {
			p.cap[d] = o->sc.cap[k][d];
			if (t >= 5)
				bytes[d] += (uint64_t)((double)p.cap[d] * 0.95 * 0.1);
			p.bytes[d] = bytes[d];
			p.shaper[d] = w == BENCH_WAY_NONE ? 0 :
				      w == BENCH_WAY_FIXED ? o->sc.base[d] : p.cap[d];
			p.backlog_bytes[d] = d ? 15000 : 5000;
		}
		busy += t < 15 ? 50 : 90;	/* per tick of 100: half, then 90% busy */
		p.cpu_total = (uint64_t)i * 100;
		p.cpu_busy = busy;
		if (gw_grow(&x->r.ticks, &x->r.cap_ticks, x->r.n_ticks, sizeof(*x->r.ticks), 64))
			abort();
		x->r.ticks[x->r.n_ticks++] = p;
	}
}

static double jget(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	}
	return o ? json_object_get_double(o) : NAN;
}

static void test_derive(void)
{
	struct bench_opts o = { .rtt_us = 40000 };
	struct bench_sc_run runs[3];
	struct bench_sc_verdict v;
	const struct bench_sc_step *s1, *s2;

	bench_sc_parse_steps("40/10,12/4", &o.sc);
	o.sc.step_s = 10;
	bench_sc_defaults(&o.sc);
	o.qdiscs[0] = 1;
	make_run(&runs[0], &o, BENCH_WAY_AUTORATE, 200);
	make_run(&runs[1], &o, BENCH_WAY_FIXED, 150);
	make_run(&runs[2], &o, BENCH_WAY_NONE, 150);
	for (int i = 0; i < 3; i++)
		bench_sc_derive(&o, &runs[i]);
	s1 = &runs[0].st[0];
	s2 = &runs[0].st[1];
	CHECK(fabs(runs[0].baseline_ms - 40) < 1e-3, "the baseline: idle p50 before the load (%.2f)",
	      runs[0].baseline_ms);
	CHECK(fabs(s1->ind_settled[1] - 5) < 1e-3 && fabs(s1->ind_all[0] - 5) < 1e-3,
	      "step 1: 5 ms induced");
	CHECK(!s1->drop && isnan(s1->recover_s), "step 1 is no drop: no recovery time");
	CHECK(s2->drop, "40/10 -> 12/4 is a drop");
	CHECK(fabs(s2->ind_all[1] - 200) < 1e-3, "step 2 whole: its first 2 s of 200 ms in p95 (%.1f)",
	      s2->ind_all[1]);
	CHECK(fabs(s2->ind_settled[1] - 10) < 1e-3 && fabs(s2->ind_settled[2] - 10) < 1e-3,
	      "step 2 from 3 s on: 10 ms (%.1f)", s2->ind_settled[1]);
	CHECK(s2->recover_s > 2.85 && s2->recover_s < 3.05,
	      "recovery: the first 1 s window under 15 ms ends 3 s into the step (%.2f)", s2->recover_s);
	CHECK(isinf(runs[1].st[1].recover_s), "the fixed rate never recovers in the step");
	CHECK(fabs(s1->share[1] - 0.75) < 0.01 && fabs(s1->share[0] - 0.9) < 0.01,
	      "step 1 goodput: 75%% down, 90%% up (%.3f, %.3f)", s1->share[1], s1->share[0]);
	CHECK(fabs(s2->share[1] - 10.0 / 12) < 0.01 && fabs(s2->share[0] - 0.9) < 0.01,
	      "step 2 goodput: shares of its own capacity (%.3f, %.3f)", s2->share[1], s2->share[0]);
	CHECK(fabs(s2->achieved[1] / 1.5e6 - 0.95) < 0.01, "the box's rate from its counter (%.3f)",
	      s2->achieved[1] / 1.5e6);
	CHECK(fabs(s2->shaper[1] - 1.5e6) < 1 && isnan(runs[2].st[1].shaper[1]),
	      "the shaper's mean rate, bytes/s; none without a shaper");
	CHECK(fabs(s2->peak_queue_ms[1] - 15000 * 1000 / 1.5e6) < 0.01,
	      "the box's queue in ms at the step's capacity (%.2f)", s2->peak_queue_ms[1]);

	CHECK(fabs(s1->cpu_busy - 0.5) < 0.01 && s2->cpu_busy > 0.85,
	      "the bench's CPU busy over each step's settled part (%.2f, %.2f)", s1->cpu_busy,
	      s2->cpu_busy);

	bench_sc_judge(&o, runs, 3, &v);
	CHECK(v.latency == 1, "autorate's latency passes: %s", v.why_latency);
	CHECK(v.goodput == 0, "autorate's goodput fails on 75%% down in step 1: %s", v.why_goodput);
	CHECK(v.fixed == 1 && strstr(v.why_fixed, "step 2 150.0 ms") && !strstr(v.why_fixed, "step 1"),
	      "the fixed rate judged in the step below it alone: %s", v.why_fixed);
	runs[1].st[1].ind_settled[1] = 99;
	bench_sc_judge(&o, runs, 3, &v);
	CHECK(v.fixed == 0, "99 ms below its rate fails the fixed rate's check");
	runs[0].ran = false;
	bench_sc_judge(&o, runs, 3, &v);
	CHECK(v.latency < 0 && v.goodput < 0, "no autorate run: not judged");
	runs[0].ran = true;
	runs[1].st[1].ind_settled[1] = 150;

	char dir[] = "/tmp/test_scenario.XXXXXX", path[300];
	struct json_object *j;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/results.json", dir);
	char err[256] = "";

	bench_sc_judge(&o, runs, 3, &v);
	CHECK(bench_sc_write_json(path, &o, runs, 3, &v, "host", err, sizeof(err)) == 0,
	      "results.json written %s", err);
	j = json_object_from_file(path);
	CHECK(j != NULL, "results.json parses back");
	struct json_object *schema = NULL, *pass = NULL, *acc = NULL;

	json_object_object_get_ex(j, "schema", &schema);
	CHECK_EQ_STR(schema ? json_object_get_string(schema) : "", "gatewayd-compare-scenario",
		     "its schema");
	CHECK(jget(j, "config.steps_bps.1.down") == 12e6 && jget(j, "config.autorate.min_bps.up") == 2e6,
	      "the steps and autorate's bounds");
	CHECK(fabs(jget(j, "runs.0.steps.1.induced_ms.settled.p95") - 10) < 1e-3 &&
	      fabs(jget(j, "runs.0.steps.1.recovery_s") - s2->recover_s) < 1e-3,
	      "a step's figures as derived");
	CHECK(isnan(jget(j, "runs.0.steps.0.recovery_s")), "no recovery time on a step that is no drop");
	if (json_object_object_get_ex(j, "acceptance", &acc) &&
	    json_object_object_get_ex(acc, "autorate_goodput", &acc))
		json_object_object_get_ex(acc, "pass", &pass);
	CHECK(pass && !json_object_get_boolean(pass), "acceptance: autorate's goodput false");
	json_object_put(j);
	snprintf(path, sizeof(path), "%s/rates-autorate.svg", dir);
	CHECK(bench_svg_sc_rates(path, &o, &runs[0]) == 0 && access(path, R_OK) == 0,
	      "the rates plot written");
	unlink(path);
	snprintf(path, sizeof(path), "%s/rtt.svg", dir);
	CHECK(bench_svg_sc_rtt(path, &o, runs, 3) == 0 && access(path, R_OK) == 0, "the RTT plot written");
	unlink(path);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	unlink(path);
	rmdir(dir);
	for (int i = 0; i < 3; i++)
		bench_sc_run_free(&runs[i]);
}

int main(void)
{
	test_options();
	test_derive();
	return tap_done();
}
