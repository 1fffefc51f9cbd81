/* webui/json.c: a snapshot as /api/status JSON and history points as /api/history JSON (json-c;
 * the schema is webui/status-schema.md). NaN and infinities become null, never "nan". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "webui/render.h"

#define SCHEMA_VERSION 1

/* A JSON writer: every creation or insertion that fails sets err, checked once at the end. */
struct jw {
	int err;
};

static struct json_object *jw_obj(struct jw *w, struct json_object *parent, const char *key,
				  struct json_object *o)
{
	if (!o) {
		w->err = -ENOMEM;
		return NULL;
	}
	if (parent && (json_object_is_type(parent, json_type_array) ?
		       json_object_array_add(parent, o) : json_object_object_add(parent, key, o))) {
		json_object_put(o);
		w->err = -ENOMEM;
		return NULL;
	}
	return o;
}

static void jw_null(struct jw *w, struct json_object *o, const char *key)
{
	if (o && json_object_object_add(o, key, NULL))
		w->err = -ENOMEM;
}

static void jw_u64(struct jw *w, struct json_object *o, const char *key, uint64_t v)
{
	if (o)
		jw_obj(w, o, key, json_object_new_uint64(v));
}

static void jw_bool(struct jw *w, struct json_object *o, const char *key, bool v)
{
	if (o)
		jw_obj(w, o, key, json_object_new_boolean(v));
}

/* A string, or null for NULL and "". */
static void jw_str(struct jw *w, struct json_object *o, const char *key, const char *v)
{
	if (!o)
		return;
	if (!v || !v[0])
		jw_null(w, o, key);
	else
		jw_obj(w, o, key, json_object_new_string(v));
}

/* A number with digits enough for the figure (not json-c's 17), or null when not finite. */
static void jw_num(struct jw *w, struct json_object *o, const char *key, double v, int digits)
{
	char s[40];

	if (!o)
		return;
	if (!isfinite(v)) {
		jw_null(w, o, key);
		return;
	}
	snprintf(s, sizeof(s), "%.*g", digits, v);
	jw_obj(w, o, key, json_object_new_double_s(v, s));
}

/* Hand over the serialised text as a malloc'd string. */
static int jw_finish(struct jw *w, struct json_object *root, char **out, size_t *len)
{
	const char *s;
	size_t n = 0;
	int r = w->err;

	if (!r && root) {
		s = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE, &n);
		if (!s || !(*out = malloc(n + 1))) {
			r = -ENOMEM;
		} else {
			memcpy(*out, s, n + 1);
			*len = n;
		}
	} else if (!r) {
		r = -ENOMEM;
	}
	json_object_put(root);
	return r;
}

/* A named value: the integer as stored, or a number in the unit JSON shows it in. */
static void add_xvalue(struct jw *w, struct json_object *o, const struct gw_xstat *f,
		       uint64_t v)
{
	if (f->json_scale == 1)
		jw_u64(w, o, f->json, v);
	else
		jw_num(w, o, f->json, (double)v * f->json_scale, 6);
}

/* One kind's extended statistics as the class's object under the kind's key: its values, then
 * its groups (cake's tins) as an array; null where the queue is another kind and the key is
 * in every class. */
static void add_xstats(struct jw *w, struct json_object *c, const struct gw_xstats_desc *d,
		       const struct gw_snap_class *k)
{
	struct json_object *o, *groups;

	if (k->x.desc != d) {
		if (d->json_always)
			jw_null(w, c, d->json);
		return;
	}
	o = jw_obj(w, c, d->json, json_object_new_object());
	for (size_t i = 0; i < d->n_fields && i < GW_XSTATS_MAX; i++)
		add_xvalue(w, o, &d->fields[i], k->x.v[i]);
	if (!d->group_json)
		return;
	groups = o ? jw_obj(w, o, d->group_json, json_object_new_array()) : NULL;
	for (int g = 0; groups && g < k->x.n_groups && g < GW_XGROUPS_MAX; g++) {
		struct json_object *e = jw_obj(w, groups, NULL, json_object_new_object());

		const char *name = d->group_name ? d->group_name(g, k->x.n_groups) : NULL;

		if (d->group_index_json)
			jw_u64(w, e, d->group_index_json, (uint64_t)g);
		if (name)
			jw_str(w, e, "name", name);
		for (size_t i = 0; i < d->n_group_fields && i < GW_XGROUP_FIELDS; i++)
			add_xvalue(w, e, &d->group_fields[i], k->x.g[g][i]);
	}
}

static void add_class(struct jw *w, struct json_object *parent, const char *key,
		      const struct gw_snapshot *s, const struct gw_snap_class *k)
{
	struct json_object *c = jw_obj(w, parent, key, json_object_new_object());

	if (!c)
		return;
	jw_str(w, c, "name", k->name);
	jw_str(w, c, "kind", k->kind);
	jw_u64(w, c, "rate_in_force_bits_per_second", k->rate_in_force_bytes_per_s * 8);
	/* its name before: a deprecated alias, kept for one release (status-schema.md) */
	jw_u64(w, c, "rate_bits_per_second", k->rate_in_force_bytes_per_s * 8);
	jw_u64(w, c, "ceil_bits_per_second", k->ceil_bytes_per_s * 8);
	jw_u64(w, c, "sent_bytes", k->bytes);
	jw_u64(w, c, "sent_packets", k->packets);
	jw_u64(w, c, "dropped_packets", k->drops);
	jw_u64(w, c, "overlimits", k->overlimits);
	jw_u64(w, c, "requeues", k->requeues);
	jw_u64(w, c, "ecn_marked_packets", k->ecn_marks);
	jw_u64(w, c, "backlog_bytes", k->backlog_bytes);
	jw_u64(w, c, "backlog_packets", k->backlog_packets);
	jw_num(w, c, "achieved_bits_per_second", k->achieved_bytes_per_s * 8, 10);
	jw_num(w, c, "utilisation", k->utilisation, 6);
	jw_bool(w, c, "saturated", k->saturated);
	jw_num(w, c, "accuracy", k->saturated ? k->accuracy : NAN, 6);
	jw_num(w, c, "queue_delay_ms", k->queue_delay_ms, 6);
	jw_num(w, c, "drops_per_second", k->drops_per_s, 6);
	jw_num(w, c, "ecn_marks_per_second", k->marks_per_s, 6);
	for (size_t i = 0; i < s->n_xdescs && i < GW_SNAP_XKINDS; i++)
		add_xstats(w, c, s->xdescs[i], k);
}

static void add_rtt(struct jw *w, struct json_object *parent, const char *key,
		    const struct gw_snap_rtt *r)
{
	struct json_object *o = jw_obj(w, parent, key, json_object_new_object());

	jw_u64(w, o, "samples", r->samples);
	jw_u64(w, o, "lost", r->lost);
	jw_num(w, o, "loss", r->loss, 6);
	jw_num(w, o, "min_ms", r->min_ms, 6);
	jw_num(w, o, "p50_ms", r->p50_ms, 6);
	jw_num(w, o, "p90_ms", r->p90_ms, 6);
	jw_num(w, o, "p99_ms", r->p99_ms, 6);
	jw_num(w, o, "mean_ms", r->mean_ms, 6);
	jw_num(w, o, "jitter_ms", r->jitter_ms, 6);
}

/* The prober's figures for a direction of the probed link; null elsewhere. */
static void add_latency(struct jw *w, struct json_object *dir, const struct gw_snap_latency *l)
{
	struct json_object *o;

	if (!l->present) {
		jw_null(w, dir, "latency");
		return;
	}
	o = jw_obj(w, dir, "latency", json_object_new_object());
	jw_num(w, o, "baseline_ms", l->baseline_ms, 6);
	if (o) {
		add_rtt(w, o, "idle", &l->idle);
		add_rtt(w, o, "loaded", &l->loaded);
	}
	jw_num(w, o, "induced_p50_ms", l->induced_p50_ms, 6);
	jw_num(w, o, "induced_p99_ms", l->induced_p99_ms, 6);
	jw_num(w, o, "induced_mean_ms", l->induced_mean_ms, 6);
	jw_str(w, o, "grade", l->grade);
	jw_u64(w, o, "replies_total", l->hist_count);
	jw_num(w, o, "interval_loaded_p50_ms", l->pass_loaded_p50_ms, 6);
	jw_num(w, o, "interval_loaded_p99_ms", l->pass_loaded_p99_ms, 6);
}

/* The direction's autorate: its rate now, bounds, state and changes by reason; null when off. */
static void add_autorate(struct jw *w, struct json_object *dir, const struct gw_snap_autorate *a)
{
	static const char *const reasons[GW_SNAP_AR_REASONS] = GW_SNAP_AR_REASON_NAMES;
	struct json_object *o, *c;

	if (!a->present) {
		jw_null(w, dir, "autorate");
		return;
	}
	o = jw_obj(w, dir, "autorate", json_object_new_object());
	jw_u64(w, o, "rate_bits_per_second", a->rate_bytes_per_s * 8);
	jw_u64(w, o, "min_bits_per_second", a->min_bytes_per_s * 8);
	jw_u64(w, o, "base_bits_per_second", a->base_bytes_per_s * 8);
	jw_u64(w, o, "max_bits_per_second", a->max_bytes_per_s * 8);
	jw_str(w, o, "state", a->state);
	jw_num(w, o, "threshold_ms", a->threshold_ms, 6);
	jw_str(w, o, "last_reason", a->last_reason);
	if (a->last_change_unix > 0)
		jw_num(w, o, "last_change_unix", a->last_change_unix, 15);
	else
		jw_null(w, o, "last_change_unix");
	c = o ? jw_obj(w, o, "changes", json_object_new_object()) : NULL;
	for (int i = 0; c && i < GW_SNAP_AR_REASONS; i++)
		jw_u64(w, c, reasons[i], a->changes[i]);
	jw_u64(w, o, "refused_total", a->refused);
}

static void add_dir(struct jw *w, struct json_object *dirs, const struct gw_snapshot *s,
		    const struct gw_snap_dir *d)
{
	struct json_object *o = jw_obj(w, dirs, NULL, json_object_new_object()), *classes;

	if (!o)
		return;
	jw_str(w, o, "direction", d->direction);
	jw_str(w, o, "device", d->device);
	jw_str(w, o, "shaper", d->shaper);
	jw_u64(w, o, "rate_in_force_bits_per_second", d->rate_in_force_bytes_per_s * 8);
	jw_u64(w, o, "rate_bits_per_second", d->rate_in_force_bytes_per_s * 8);	/* deprecated */
	jw_bool(w, o, "waiting", d->waiting);
	if (d->foreign_hook[0])
		jw_str(w, o, "foreign_hook", d->foreign_hook);
	else
		jw_null(w, o, "foreign_hook");
	if (d->waiting || d->foreign_hook[0]) {
		/* nothing shaped, so nothing counted: no class objects at all */
		jw_null(w, o, "total");
		jw_obj(w, o, "classes", json_object_new_array());
		jw_null(w, o, "latency");
		return;
	}
	add_class(w, o, "total", s, &d->total);
	classes = jw_obj(w, o, "classes", json_object_new_array());
	for (size_t i = 0; classes && i < d->n_classes; i++)
		add_class(w, classes, NULL, s, &d->classes[i]);
	add_latency(w, o, &d->latency);
	add_autorate(w, o, &d->autorate);
}

/* A container gatewayd-cni registered: who it is (only on its links, "cni:HOSTVETH"). */
static void add_cni(struct jw *w, struct json_object *link, const struct gw_snap_cni *c)
{
	struct json_object *o;

	if (!c->present || !link)
		return;
	o = jw_obj(w, link, "cni", json_object_new_object());
	jw_str(w, o, "container_id", c->id);
	jw_str(w, o, "netns", c->netns);
	jw_str(w, o, "network", c->network);
	jw_str(w, o, "ifname", c->ifname);
}

/* Links in the order they first appear, each with its directions. */
static void add_links(struct jw *w, struct json_object *root, const struct gw_snapshot *s)
{
	struct json_object *links = jw_obj(w, root, "links", json_object_new_array());

	for (size_t i = 0; links && s && i < s->n_dirs; i++) {
		const struct gw_snap_dir *d = &s->dirs[i];
		struct json_object *l, *dirs;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(s->dirs[j].link, d->link);
		if (seen)
			continue;
		l = jw_obj(w, links, NULL, json_object_new_object());
		jw_str(w, l, "name", d->link);
		jw_str(w, l, "interface", d->interface);
		jw_bool(w, l, "present", !d->waiting);
		add_cni(w, l, &d->cni);
		dirs = l ? jw_obj(w, l, "directions", json_object_new_array()) : NULL;
		for (size_t j = i; dirs && j < s->n_dirs; j++)
			if (!strcmp(s->dirs[j].link, d->link))
				add_dir(w, dirs, s, &s->dirs[j]);
	}
}

static void add_sample(struct jw *w, struct json_object *root, const struct gw_snapshot *s)
{
	struct json_object *o;

	if (!s) {
		jw_null(w, root, "sample");
		return;
	}
	o = jw_obj(w, root, "sample", json_object_new_object());
	jw_u64(w, o, "seq", s->seq);
	jw_num(w, o, "time_unix_seconds", s->unix_time, 15);
	jw_num(w, o, "uptime_seconds", s->uptime_s, 10);
	jw_num(w, o, "interval_seconds", (double)s->interval_us / 1e6, 10);
	jw_num(w, o, "duration_ms", s->sample_ms, 6);
	jw_num(w, o, "lag_ms", s->sample_lag_ms, 6);
	jw_u64(w, o, "samples_total", s->samples_total);
	jw_u64(w, o, "late_samples_total", s->late_samples_total);
	jw_str(w, o, "last_error", s->last_error);
}

/* The web process that serves this (docs/status-api.md): absent when none does. */
static void add_web(struct jw *w, struct json_object *root, const struct gw_snapshot *s)
{
	struct json_object *o;

	if (!s || !s->web.present)
		return;
	o = jw_obj(w, root, "web", json_object_new_object());
	jw_u64(w, o, "pid", s->web.pid > 0 ? (uint64_t)s->web.pid : 0);
	jw_u64(w, o, "restarts", s->web.restarts);
	jw_num(w, o, "down_s", s->web.down_s, 6);
	jw_u64(w, o, "dropped", s->web.dropped);
}

static void add_target(struct jw *w, struct json_object *arr, const struct gw_snap_target *t)
{
	struct json_object *o = jw_obj(w, arr, NULL, json_object_new_object());

	jw_str(w, o, "host", t->host);
	jw_bool(w, o, "up", t->up);
	jw_u64(w, o, "sent", t->sent);
	jw_u64(w, o, "received", t->received);
	jw_u64(w, o, "lost", t->lost);
	jw_u64(w, o, "duplicates", t->duplicates);
	jw_u64(w, o, "reordered", t->reordered);
	jw_num(w, o, "last_rtt_ms", t->last_rtt_ms, 6);
	jw_num(w, o, "last_reply_unix_seconds", t->last_reply_unix > 0 ? t->last_reply_unix : NAN,
	       15);
	jw_num(w, o, "last_owd_up_ms", t->last_owd_up_ms, 6);
	jw_num(w, o, "last_owd_down_ms", t->last_owd_down_ms, 6);
}

/* One prober's settings and targets under key of parent (NULL: into an array); `source` only
 * in `probes`' entries, so `probe` stays what it always was. */
static void add_prober(struct jw *w, struct json_object *parent, const char *key,
		       const struct gw_snap_probe *p, bool with_source)
{
	struct json_object *o = jw_obj(w, parent, key, json_object_new_object()), *arr;
	size_t n = p->n_targets;

	jw_str(w, o, "method", p->method);
	jw_str(w, o, "link", p->link);
	if (with_source)
		jw_str(w, o, "source", p->source[0] ? p->source : NULL);
	jw_num(w, o, "interval_seconds", (double)p->interval_us / 1e6, 10);
	arr = o ? jw_obj(w, o, "targets", json_object_new_array()) : NULL;
	for (size_t i = 0; arr && i < n && i < sizeof(p->targets) / sizeof(p->targets[0]); i++)
		add_target(w, arr, &p->targets[i]);
}

static void add_probe(struct jw *w, struct json_object *root, const struct gw_snapshot *s)
{
	struct json_object *arr;

	if (!s || !s->probe.enabled) {
		jw_null(w, root, "probe");
		return;
	}
	add_prober(w, root, "probe", &s->probe, false);
	/* one per probed link, where the config has more to say than one global block */
	if (!s->probes || !s->n_probes)
		return;
	arr = jw_obj(w, root, "probes", json_object_new_array());
	for (size_t i = 0; arr && i < s->n_probes && i < GW_SNAP_MAX_PROBES; i++)
		add_prober(w, arr, NULL, &s->probes[i], true);
}

/* One number into an array row, null when not finite. */
static void jw_arr_num(struct jw *w, struct json_object *row, double v, int digits)
{
	char s[40];

	if (!isfinite(v)) {
		if (json_object_array_add(row, NULL))
			w->err = -ENOMEM;
		return;
	}
	snprintf(s, sizeof(s), "%.*g", digits, v);
	jw_obj(w, row, NULL, json_object_new_double_s(v, s));
}

/* A load test's per-flow goodputs: an array, empty when there are none. */
static void add_flow_rates(struct jw *w, struct json_object *o, const char *key, const double *v,
			   size_t n)
{
	struct json_object *arr = jw_obj(w, o, key, json_object_new_array());

	for (size_t i = 0; arr && i < n && i < GW_SNAP_LOAD_FLOWS; i++)
		jw_arr_num(w, arr, v[i], 10);
}

static void add_load_dir(struct jw *w, struct json_object *arr, const struct gw_snap_load_dir *d)
{
	struct json_object *o = jw_obj(w, arr, NULL, json_object_new_object());

	jw_str(w, o, "direction", d->direction);
	jw_num(w, o, "goodput_bits_per_second", d->goodput_bps, 10);
	jw_num(w, o, "idle_p50_ms", d->idle_p50_ms, 6);
	jw_num(w, o, "loaded_p50_ms", d->loaded_p50_ms, 6);
	jw_num(w, o, "loaded_p99_ms", d->loaded_p99_ms, 6);
	jw_num(w, o, "induced_mean_ms", d->induced_mean_ms, 6);
	jw_num(w, o, "induced_p99_ms", d->induced_p99_ms, 6);
	jw_str(w, o, "grade", d->grade);
	/* the load test's own additions (load/loadtest.c) */
	jw_num(w, o, "download_bits_per_second", d->down_bps, 10);
	jw_num(w, o, "upload_bits_per_second", d->up_bps, 10);
	jw_num(w, o, "fairness", d->fairness, 4);
	jw_u64(w, o, "flows", d->flows > 0 ? (uint64_t)d->flows : 0);
	jw_u64(w, o, "loaded_samples", d->loaded_samples);
	jw_u64(w, o, "loaded_lost", d->loaded_lost);
	add_flow_rates(w, o, "download_flow_bits_per_second", d->down_flow_bps, d->n_down_flows);
	add_flow_rates(w, o, "upload_flow_bits_per_second", d->up_flow_bps, d->n_up_flows);
}

/* The last (or running) active load test; null when none ran. */
static void add_loadtest(struct jw *w, struct json_object *root, const struct gw_snapshot *s)
{
	const struct gw_snap_loadtest *t = s ? &s->loadtest : NULL;
	struct json_object *o, *arr;

	if (!t || !t->present) {
		jw_null(w, root, "loadtest");
		return;
	}
	o = jw_obj(w, root, "loadtest", json_object_new_object());
	jw_bool(w, o, "running", t->running);
	jw_num(w, o, "started_unix_seconds", t->started_unix > 0 ? t->started_unix : NAN, 15);
	jw_num(w, o, "finished_unix_seconds", t->finished_unix > 0 ? t->finished_unix : NAN, 15);
	jw_str(w, o, "sink", t->sink);
	jw_str(w, o, "error", t->error);
	jw_str(w, o, "phase", t->running ? t->phase : NULL);
	jw_u64(w, o, "flows_per_direction", t->flows > 0 ? (uint64_t)t->flows : 0);
	jw_num(w, o, "phase_seconds", t->phase_s, 6);
	arr = o ? jw_obj(w, o, "directions", json_object_new_array()) : NULL;
	for (size_t i = 0; arr && i < t->n_dirs && i < sizeof(t->dirs) / sizeof(t->dirs[0]); i++)
		add_load_dir(w, arr, &t->dirs[i]);
}

int gw_webui_status_json(const struct gw_snapshot *s, double now, char **out, size_t *len)
{
	struct jw w = { 0 };
	struct json_object *root = json_object_new_object();
	char why[128];
	bool ok = gw_webui_healthy(s, now, why, sizeof(why));

	if (!root)
		return -ENOMEM;
	jw_u64(&w, root, "schema_version", SCHEMA_VERSION);
	jw_str(&w, root, "gatewayd_version", GW_VERSION);
	jw_bool(&w, root, "healthy", ok);
	jw_str(&w, root, "health_reason", ok ? NULL : why);
	add_sample(&w, root, s);
	add_links(&w, root, s);
	add_probe(&w, root, s);
	add_loadtest(&w, root, s);
	add_web(&w, root, s);
	return jw_finish(&w, root, out, len);
}

static const char *const hist_columns[] = {
	"time_unix_seconds",
	"rate_bits_per_second_min", "rate_bits_per_second_avg", "rate_bits_per_second_max",
	"queue_delay_ms_min", "queue_delay_ms_avg", "queue_delay_ms_max",
	"drops_per_second_avg", "backlog_bytes_avg",
	"baseline_ms", "loaded_p50_ms", "loaded_p99_ms",
};

static void add_point(struct jw *w, struct json_object *pts, const struct gw_hist_point *p,
		      bool shaper)
{
	struct json_object *row = jw_obj(w, pts, NULL, json_object_new_array_ext(13));
	const double v[] = { p->rate_bps_min, p->rate_bps_avg, p->rate_bps_max, p->delay_ms_min,
			     p->delay_ms_avg, p->delay_ms_max, p->drops_per_s_avg,
			     p->backlog_bytes_avg, p->baseline_ms, p->loaded_p50_ms,
			     p->loaded_p99_ms };

	if (!row)
		return;
	jw_arr_num(w, row, p->t, 15);
	/* floats carry about 7 digits; more would be noise */
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		jw_arr_num(w, row, v[i], 7);
	if (shaper)
		jw_arr_num(w, row, p->shaper_bps, 7);
}

int gw_webui_history_json(const struct gw_history_query *q, const struct gw_hist_point *pts,
			  size_t n, bool truncated, char **out, size_t *len)
{
	struct jw w = { 0 };
	struct json_object *root = json_object_new_object(), *cols, *arr;
	/* a direction autorate moves: one more column, the shaper's rate */
	bool shaper = n && pts[0].has_shaper;

	if (!root)
		return -ENOMEM;
	jw_str(&w, root, "link", q->link);
	jw_str(&w, root, "direction", q->direction);
	jw_str(&w, root, "class", q->class_name);
	jw_str(&w, root, "resolution", q->minute ? "minute" : "raw");
	jw_num(&w, root, "from_unix_seconds", q->from, 15);
	jw_num(&w, root, "to_unix_seconds", q->to, 15);
	jw_bool(&w, root, "truncated", truncated);
	cols = jw_obj(&w, root, "columns", json_object_new_array());
	for (size_t i = 0; cols && i < sizeof(hist_columns) / sizeof(hist_columns[0]); i++)
		jw_obj(&w, cols, NULL, json_object_new_string(hist_columns[i]));
	if (cols && shaper)
		jw_obj(&w, cols, NULL, json_object_new_string("shaper_rate_bits_per_second"));
	arr = jw_obj(&w, root, "points", json_object_new_array_ext((int)n));
	for (size_t i = 0; arr && i < n && !w.err; i++)
		add_point(&w, arr, &pts[i], shaper);
	return jw_finish(&w, root, out, len);
}
