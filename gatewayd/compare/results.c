/* gatewayd/compare/results.c: results.json, as docs/compare-schema.md describes it (version 1):
 * the settings, and per queue the derived figures plus the raw samples they came from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <json-c/json.h>
#include "gatewayd/compare/bench.h"

#define CMP_SCHEMA_VERSION 1

static struct json_object *num(double v)
{
	return isnan(v) || isinf(v) ? NULL : json_object_new_double(round(v * 1000) / 1000);
}

static struct json_object *pair(double up, double down)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "up", num(up));
	json_object_object_add(o, "down", num(down));
	return o;
}

static struct json_object *pct(const struct cmp_pct *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "p50", num(p->p50));
	json_object_object_add(o, "p95", num(p->p95));
	json_object_object_add(o, "p99", num(p->p99));
	json_object_object_add(o, "mean", num(p->mean));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)p->n));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)p->lost));
	return o;
}

static struct json_object *run_json(const struct cmp_result *r)
{
	struct json_object *o = json_object_new_object(), *lat, *ind, *a, *pq;

	json_object_object_add(o, "qdisc", json_object_new_string(cmp_qdisc_name(r->q)));
	json_object_object_add(o, "ran", json_object_new_boolean(r->ran));
	json_object_object_add(o, "note", json_object_new_string(r->note));
	if (!r->ran)
		return o;
	struct json_object *phases = json_object_new_array();

	/* each run's own: the load phases begin when the load reaches the gateway */
	for (int p = 0; p < CMP_PH_COUNT; p++) {
		struct json_object *ph = json_object_new_object();

		json_object_object_add(ph, "name", json_object_new_string(cmp_phase_name(p)));
		json_object_object_add(ph, "start_s", num(r->phase_start[p]));
		json_object_object_add(ph, "end_s", num(r->phase_start[p + 1]));
		json_object_array_add(phases, ph);
	}
	json_object_object_add(o, "phases", phases);
	json_object_object_add(o, "clients_started_s", num(r->clients_started));
	json_object_object_add(o, "goodput_bps", pair(r->goodput_bps[0], r->goodput_bps[1]));
	json_object_object_add(o, "shaper_accuracy", pair(r->accuracy[0], r->accuracy[1]));
	lat = json_object_new_object();
	json_object_object_add(lat, "baseline", num(r->baseline_ms));
	json_object_object_add(lat, "idle", pct(&r->idle));
	json_object_object_add(lat, "loaded", pct(&r->loaded));
	ind = json_object_new_object();
	json_object_object_add(ind, "p50", num(r->induced_p50));
	json_object_object_add(ind, "p95", num(r->induced_p95));
	json_object_object_add(ind, "p99", num(r->induced_p99));
	json_object_object_add(ind, "mean", num(r->induced_mean));
	json_object_object_add(lat, "induced", ind);
	json_object_object_add(o, "latency_ms", lat);
	json_object_object_add(o, "grade", json_object_new_string(r->grade ? r->grade : ""));
	a = json_object_new_object();
	json_object_object_add(a, "up", json_object_new_int64((int64_t)r->drops[0]));
	json_object_object_add(a, "down", json_object_new_int64((int64_t)r->drops[1]));
	json_object_object_add(o, "drops", a);
	a = json_object_new_object();
	json_object_object_add(a, "up", json_object_new_int64((int64_t)r->marks[0]));
	json_object_object_add(a, "down", json_object_new_int64((int64_t)r->marks[1]));
	json_object_object_add(o, "ecn_marks", a);
	pq = json_object_new_object();
	for (int d = 0; d < 2; d++) {
		a = json_object_new_object();
		json_object_object_add(a, "packets", json_object_new_int64(r->peak_pkts[d]));
		json_object_object_add(a, "ms", num(r->peak_ms[d]));
		json_object_object_add(pq, d ? "down" : "up", a);
	}
	json_object_object_add(o, "peak_queue", pq);
	json_object_object_add(o, "jain_fairness", num(r->jain));
	json_object_object_add(o, "cpu_busy", num(r->cpu_busy));

	struct json_object *flows = json_object_new_array();

	for (size_t i = 0; i < r->n_flows; i++) {
		const struct cmp_flow *f = &r->flows[i];
		struct json_object *fo = json_object_new_object(), *ser = json_object_new_array();

		json_object_object_add(fo, "name", json_object_new_string(f->name));
		json_object_object_add(fo, "direction", json_object_new_string(f->up ? "up" : "down"));
		json_object_object_add(fo, "protocol", json_object_new_string(f->udp ? "udp" : "tcp"));
		json_object_object_add(fo, "mean_bps", num(f->mean_mbps * 1e6));
		for (size_t k = 0; k < f->n; k++) {
			struct json_object *pt = json_object_new_array();

			json_object_array_add(pt, num(f->t[k]));
			json_object_array_add(pt, num(f->mbps[k] * 1e6));
			json_object_array_add(ser, pt);
		}
		json_object_object_add(fo, "series", ser);
		json_object_array_add(flows, fo);
	}
	json_object_object_add(o, "flows", flows);

	struct json_object *samples = json_object_new_array();

	for (size_t i = 0; i < r->n_samples; i++) {
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, num(r->samples[i].t));
		json_object_array_add(pt, num(r->samples[i].rtt_ms));
		json_object_array_add(pt, json_object_new_int(r->samples[i].phase));
		json_object_array_add(samples, pt);
	}
	json_object_object_add(o, "samples", samples);

	struct json_object *queue = json_object_new_array();

	for (size_t i = 0; i < r->n_qpoints; i++) {
		const struct cmp_qpoint *q = &r->qpoints[i];
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, num(q->t));
		json_object_array_add(pt, json_object_new_int64(q->backlog_bytes[0]));
		json_object_array_add(pt, json_object_new_int64(q->qlen[0]));
		json_object_array_add(pt, json_object_new_int64(q->backlog_bytes[1]));
		json_object_array_add(pt, json_object_new_int64(q->qlen[1]));
		json_object_array_add(pt, json_object_new_int64((int64_t)q->shaper_bytes[0]));
		json_object_array_add(pt, json_object_new_int64((int64_t)q->shaper_bytes[1]));
		json_object_array_add(queue, pt);
	}
	json_object_object_add(o, "queue", queue);
	return o;
}

int cmp_write_json(const char *path, const struct cmp_opts *o, struct cmp_result *r, size_t n,
		   const char *kernel_used, char *err, size_t errlen)
{
	struct json_object *root = json_object_new_object(), *cfg, *phases, *runs;
	struct utsname u;
	char tmp[4200];
	int ret = 0;

	if (!root) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_object_add(root, "schema", json_object_new_string("gatewayd-compare"));
	json_object_object_add(root, "version", json_object_new_int(CMP_SCHEMA_VERSION));
	json_object_object_add(root, "gatewayd_version", json_object_new_string(GW_VERSION));
	json_object_object_add(root, "generated_unix", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(root, "kernel", json_object_new_string(kernel_used));
	json_object_object_add(root, "kernel_release",
			       json_object_new_string(uname(&u) == 0 ? u.release : ""));
	cfg = json_object_new_object();
	json_object_object_add(cfg, "rate_bps", json_object_new_int64((int64_t)o->rate_bps));
	json_object_object_add(cfg, "rtt_ms", num(o->no_delay ? 0 : o->rtt_us / 1000.0));
	json_object_object_add(cfg, "netem", json_object_new_boolean(!o->no_delay));
	json_object_object_add(cfg, "duration_s", num(o->duration_s));
	json_object_object_add(cfg, "probe_hz", json_object_new_int(CMP_PROBE_HZ));
	json_object_object_add(cfg, "tcp_flows_per_direction", json_object_new_int(CMP_TCP_FLOWS));
	json_object_object_add(cfg, "udp_flood_bps", json_object_new_int64((int64_t)(o->rate_bps * CMP_FLOOD_FACTOR)));
	phases = json_object_new_array();
	for (int p = 0; p < CMP_PH_COUNT && n; p++) {
		struct json_object *ph = json_object_new_object();

		json_object_object_add(ph, "name", json_object_new_string(cmp_phase_name(p)));
		/* the schedule as planned (each run's own, as it happened, is in the run) */
		for (size_t i = 0; i < n; i++)
			if (r[i].ran) {
				json_object_object_add(ph, "start_s", num(r[i].phase_start[p]));
				json_object_object_add(ph, "end_s", num(r[i].phase_start[p + 1]));
				break;
			}
		json_object_array_add(phases, ph);
	}
	json_object_object_add(cfg, "phases", phases);
	json_object_object_add(root, "config", cfg);
	runs = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(runs, run_json(&r[i]));
	json_object_object_add(root, "runs", runs);
	/* written beside and renamed: a reader never sees half a file */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_object_to_file_ext(tmp, root, JSON_C_TO_STRING_PLAIN) < 0 ||
	    rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		ret = -EIO;
	}
	json_object_put(root);
	return ret;
}
