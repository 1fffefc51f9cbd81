/* bench/scenario_results.c: the varying-link scenario's results.json (schema
 * `gatewayd-compare-scenario`, docs/compare.md): the settings, per way and step the figures,
 * the acceptance's verdicts, and the raw probes, ticks and flows they came from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/queues.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/scenario_results.h"

#define SC_SCHEMA_VERSION 1

/* two rates (bytes/s) as the file has them: {"up", "down"} in bits/s */
static struct json_object *bits_pair(uint64_t up, uint64_t down)
{
	return bench_json_pair((double)up * 8, (double)down * 8);
}

static struct json_object *ind(const double v[3])
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "p50", bench_json_num(v[0]));
	json_object_object_add(o, "p95", bench_json_num(v[1]));
	json_object_object_add(o, "p99", bench_json_num(v[2]));
	return o;
}

static struct json_object *step_json(const struct bench_sc_step *st)
{
	struct json_object *o = json_object_new_object(), *a;

	json_object_object_add(o, "start_s", bench_json_num(st->start));
	json_object_object_add(o, "end_s", bench_json_num(st->end));
	json_object_object_add(o, "capacity_bps", bits_pair(st->cap[0], st->cap[1]));
	json_object_object_add(o, "drop", json_object_new_boolean(st->drop));
	a = json_object_new_object();
	json_object_object_add(a, "whole", bench_json_pct(&st->all));
	json_object_object_add(a, "settled", bench_json_pct(&st->settled));
	json_object_object_add(o, "rtt_ms", a);
	a = json_object_new_object();
	json_object_object_add(a, "whole", ind(st->ind_all));
	json_object_object_add(a, "settled", ind(st->ind_settled));
	json_object_object_add(o, "induced_ms", a);
	json_object_object_add(o, "goodput_bps", bench_json_pair(st->goodput[0] * 8, st->goodput[1] * 8));
	json_object_object_add(o, "goodput_share", bench_json_pair(st->share[0], st->share[1]));
	json_object_object_add(o, "achieved_bps", bench_json_pair(st->achieved[0] * 8, st->achieved[1] * 8));
	json_object_object_add(o, "shaper_bps", bench_json_pair(st->shaper[0] * 8, st->shaper[1] * 8));
	json_object_object_add(o, "peak_queue_ms", bench_json_pair(st->peak_queue_ms[0], st->peak_queue_ms[1]));
	json_object_object_add(o, "cpu_busy", bench_json_num(st->cpu_busy));
	if (st->drop) {
		json_object_object_add(o, "recovered", json_object_new_boolean(!isinf(st->recover_s)));
		json_object_object_add(o, "recovery_s", bench_json_num(st->recover_s));
	}
	return o;
}

/* a tick: [t, capacity up, down, shaper up, down, box sent up, down, box backlog up, down] */
static void tick_row(const struct bench_tick *k, int64_t *v)
{
	for (int d = 0; d < 2; d++) {
		v[d] = (int64_t)k->cap[d] * 8;
		v[2 + d] = (int64_t)k->shaper[d] * 8;
		v[4 + d] = (int64_t)k->bytes[d];
		v[6 + d] = k->backlog_bytes[d];
	}
}

static struct json_object *run_json(const struct bench_opts *o, const struct bench_sc_run *x)
{
	struct json_object *j = json_object_new_object(), *a;

	json_object_object_add(j, "way", json_object_new_string(bench_way_name(x->way)));
	json_object_object_add(j, "ran", json_object_new_boolean(x->ran));
	json_object_object_add(j, "note", json_object_new_string(x->note));
	if (!x->ran)
		return j;
	json_object_object_add(j, "baseline_ms", bench_json_num(x->baseline_ms));
	json_object_object_add(j, "idle_rtt_ms", bench_json_pct(&x->idle));
	json_object_object_add(j, "shaper_changes", json_object_new_int64((int64_t)x->changes));
	a = json_object_new_array();
	for (size_t k = 0; k < o->sc.n_steps; k++)
		json_object_array_add(a, step_json(&x->st[k]));
	json_object_object_add(j, "steps", a);

	json_object_object_add(j, "samples", bench_samples_json(&x->r));
	json_object_object_add(j, "ticks", bench_ticks_json(&x->r, 8, tick_row));
	a = json_object_new_array();
	for (size_t i = 0; i < x->r.n_flows; i++) {
		const struct bench_flow *f = &x->r.flows[i];
		struct json_object *fo = json_object_new_object();

		json_object_object_add(fo, "name", json_object_new_string(f->name));
		json_object_object_add(fo, "direction", json_object_new_string(f->up ? "up" : "down"));
		json_object_object_add(fo, "series", bench_series_json(f));
		json_object_array_add(a, fo);
	}
	json_object_object_add(j, "flows", a);
	return j;
}

static struct json_object *verdict(int v, const char *why)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "pass", v < 0 ? NULL : json_object_new_boolean(v > 0));
	json_object_object_add(o, "figures", json_object_new_string(why));
	return o;
}

static struct json_object *config_json(const struct bench_opts *o)
{
	const struct bench_scenario *sc = &o->sc;
	struct json_object *c = json_object_new_object(), *a, *ar;

	json_object_object_add(c, "scenario", json_object_new_string("variable"));
	a = json_object_new_array();
	for (size_t k = 0; k < sc->n_steps; k++)
		json_object_array_add(a, bits_pair(sc->cap[k][0], sc->cap[k][1]));
	json_object_object_add(c, "steps_bps", a);
	json_object_object_add(c, "step_s", bench_json_num(sc->step_s));
	json_object_object_add(c, "settle_s", bench_json_num(BENCH_SC_SETTLE_S));
	json_object_object_add(c, "idle_s", bench_json_num(BENCH_SC_IDLE_S));
	json_object_object_add(c, "rtt_ms", bench_json_num(o->no_delay ? 0 : o->rtt_us / 1000.0));
	json_object_object_add(c, "netem", json_object_new_boolean(!o->no_delay));
	json_object_object_add(c, "probe_hz", json_object_new_int(BENCH_PROBE_HZ));
	json_object_object_add(c, "tcp_flows_per_direction", json_object_new_int(BENCH_TCP_FLOWS));
	json_object_object_add(c, "box_fifo_bytes", json_object_new_int(BENCH_SC_BOX_FIFO));
	json_object_object_add(c, "queue", json_object_new_string(bench_qdisc_name(o->qdiscs[0])));
	ar = json_object_new_object();
	json_object_object_add(ar, "min_bps", bits_pair(sc->min[0], sc->min[1]));
	json_object_object_add(ar, "base_bps", bits_pair(sc->base[0], sc->base[1]));
	json_object_object_add(ar, "max_bps", bits_pair(sc->max[0], sc->max[1]));
	json_object_object_add(ar, "keys", json_object_new_string(sc->ar_keys));
	json_object_object_add(c, "autorate", ar);
	json_object_object_add(c, "probe_method", json_object_new_string(sc->probe_method));
	json_object_object_add(c, "fixed_bps", bits_pair(sc->base[0], sc->base[1]));
	a = json_object_new_object();
	json_object_object_add(a, "induced_p95_ms", bench_json_num(BENCH_SC_BOUND_MS));
	json_object_object_add(a, "goodput_share", bench_json_num(BENCH_SC_SHARE));
	json_object_object_add(a, "fixed_induced_p95_ms", bench_json_num(BENCH_SC_FIXED_MS));
	json_object_object_add(a, "recovery_window_s", bench_json_num(BENCH_SC_WINDOW_S));
	json_object_object_add(c, "bounds", a);
	return c;
}

int bench_sc_write_json(const char *path, const struct bench_opts *o,
			const struct bench_sc_run *runs, size_t n, const struct bench_sc_verdict *v,
			const char *kernel, char *err, size_t errlen)
{
	struct json_object *root = bench_file_json("gatewayd-compare-scenario", SC_SCHEMA_VERSION,
						   kernel), *a;
	int ret;

	if (!root) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_object_add(root, "config", config_json(o));
	a = json_object_new_object();
	json_object_object_add(a, "autorate_latency", verdict(v->latency, v->why_latency));
	json_object_object_add(a, "autorate_goodput", verdict(v->goodput, v->why_goodput));
	json_object_object_add(a, "fixed_latency", verdict(v->fixed, v->why_fixed));
	json_object_object_add(root, "acceptance", a);
	a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, run_json(o, &runs[i]));
	json_object_object_add(root, "runs", a);
	ret = bench_out_json(path, root, err, errlen);
	json_object_put(root);
	return ret;
}
