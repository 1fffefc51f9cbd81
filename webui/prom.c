/* webui/prom.c: a snapshot as Prometheus text format 0.0.4: gatewayd_ prefix, base units,
 * counters ending in _total, HELP and TYPE once per family, no NaN samples. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "webui/render.h"

/* F_U64G: an integer printed as %.10g (as the rate families always were) */
enum field_kind { F_U64, F_U64G, F_U32, F_DBL, F_BOOL };

/* One family read from a struct at an offset; scale turns the struct's unit into the base. */
struct family {
	const char *name, *type, *help;
	size_t off;
	enum field_kind kind;
	double scale;
	bool class_only;	/* not repeated for the direction totals */
};

#define CLS(f) offsetof(struct gw_snap_class, f)
/* Per class as gatewayd_class_*, per direction total as gatewayd_direction_*. */
static const struct family class_fams[] = {
	{ "sent_bytes_total", "counter", "Bytes sent since gatewayd started shaping.",
	  CLS(bytes), F_U64, 1, false },
	{ "sent_packets_total", "counter", "Packets sent since gatewayd started shaping.",
	  CLS(packets), F_U64, 1, false },
	{ "dropped_packets_total", "counter", "Packets dropped.", CLS(drops), F_U64, 1, false },
	{ "overlimits_total", "counter", "Times the shaper throttled the queue (overlimits).",
	  CLS(overlimits), F_U64, 1, false },
	{ "requeues_total", "counter", "Packets requeued.", CLS(requeues), F_U64, 1, false },
	{ "ecn_marked_packets_total", "counter", "Packets ECN-marked instead of dropped.",
	  CLS(ecn_marks), F_U64, 1, false },
	{ "backlog_bytes", "gauge", "Bytes queued now.", CLS(backlog_bytes), F_U32, 1, false },
	{ "backlog_packets", "gauge", "Packets queued now.", CLS(backlog_packets), F_U32, 1,
	  false },
	{ "rate_in_force_bytes_per_second", "gauge",
	  "The (guaranteed) rate in force: the configured one, or the one autorate set last.",
	  CLS(rate_in_force_bytes_per_s), F_U64G, 1, false },
	/* its name before: a deprecated alias, kept for one release (docs/status-api.md) */
	{ "configured_rate_bytes_per_second", "gauge",
	  "Deprecated, removed in 0.2.0: the same value as rate_in_force_bytes_per_second.",
	  CLS(rate_in_force_bytes_per_s), F_U64G, 1, false },
	{ "ceil_bytes_per_second", "gauge", "The ceil in force: the most the class may borrow up to.",
	  CLS(ceil_bytes_per_s), F_U64G, 1, true },
	{ "achieved_rate_bytes_per_second", "gauge",
	  "Rate achieved over the last sampling interval, from the shaper's byte counter.",
	  CLS(achieved_bytes_per_s), F_DBL, 1, false },
	{ "utilisation_ratio", "gauge", "Achieved rate over the rate in force.",
	  CLS(utilisation), F_DBL, 1, false },
	{ "saturated", "gauge",
	  "1 when the queue stayed backlogged the whole last interval, else 0.",
	  CLS(saturated), F_BOOL, 1, false },
	{ "shaping_accuracy_ratio", "gauge",
	  "Achieved over the rate in force while saturated; absent when not saturated.",
	  CLS(accuracy), F_DBL, 1, false },
	{ "queue_delay_seconds", "gauge",
	  "Queueing delay now: backlog over rate, or cake's own average delay.",
	  CLS(queue_delay_ms), F_DBL, 1e-3, false },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

void gw_prom_escape(struct gw_buf *b, const char *s)
{
	for (; *s; s++) {
		size_t n = strcspn(s, "\\\"\n");

		gw_buf_put(b, s, n);
		s += n;
		if (!*s)
			break;
		gw_buf_put(b, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
	}
}

static void header(struct gw_buf *b, const char *prefix, const struct family *f)
{
	gw_buf_printf(b, "# HELP %s%s %s\n# TYPE %s%s %s\n", prefix, f->name, f->help, prefix,
		      f->name, f->type);
}

/* The value line's end: " VALUE\n", or nothing at all (and false) for what must not show. */
static bool value(struct gw_buf *b, const struct family *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	uint64_t u;
	uint32_t u32;
	double d;
	bool t;

	switch (f->kind) {
	case F_U64:
	case F_U64G:
		memcpy(&u, p, sizeof(u));
		if (f->scale == 1 && f->kind == F_U64)
			gw_buf_printf(b, " %" PRIu64 "\n", u);
		else
			gw_buf_printf(b, " %.10g\n", (double)u * f->scale);
		return true;
	case F_U32:
		memcpy(&u32, p, sizeof(u32));
		if (f->scale == 1)
			gw_buf_printf(b, " %" PRIu32 "\n", u32);
		else
			gw_buf_printf(b, " %.10g\n", u32 * f->scale);
		return true;
	case F_BOOL:
		memcpy(&t, p, sizeof(t));
		gw_buf_printf(b, " %d\n", t ? 1 : 0);
		return true;
	case F_DBL:
		memcpy(&d, p, sizeof(d));
		d *= f->scale;
		if (!isfinite(d))
			break;
		gw_buf_printf(b, " %.10g\n", d);
		return true;
	}
	return false;
}

static void labels(struct gw_buf *b, const char *name, const struct gw_snap_dir *d,
		   const struct gw_snap_class *c, const char *glabel, int g)
{
	gw_buf_printf(b, "%s{link=\"", name);
	gw_prom_escape(b, d->link);
	gw_buf_put(b, "\",direction=\"", 13);
	gw_prom_escape(b, d->direction);
	if (c != &d->total) {
		gw_buf_put(b, "\",class=\"", 9);
		gw_prom_escape(b, c->name);
	}
	gw_buf_put(b, "\",kind=\"", 8);
	gw_prom_escape(b, c->kind);
	if (glabel && g >= 0)
		gw_buf_printf(b, "\",%s=\"%d", glabel, g);
	gw_buf_put(b, "\"}", 2);
}

/* A sample, unless the family says there is nothing to show (then the line is taken back). */
static void sample(struct gw_buf *b, const char *name, const struct family *f,
		   const struct gw_snap_dir *d, const struct gw_snap_class *c, const void *base)
{
	size_t mark = b->len;

	if (f->off == CLS(accuracy) && base == c && !c->saturated)
		return;
	labels(b, name, d, c, NULL, -1);
	if (!value(b, f, base) && !b->err)
		b->len = mark;
}

static void class_families(struct gw_buf *b, const struct gw_snapshot *s, bool totals)
{
	const char *prefix = totals ? "gatewayd_direction_" : "gatewayd_class_";
	char name[96];

	for (size_t i = 0; i < N(class_fams); i++) {
		const struct family *f = &class_fams[i];

		if (totals && f->class_only)
			continue;
		header(b, prefix, f);
		snprintf(name, sizeof(name), "%s%s", prefix, f->name);
		for (size_t k = 0; k < s->n_dirs; k++) {
			const struct gw_snap_dir *d = &s->dirs[k];

			if (d->waiting || d->foreign_hook[0])
				continue;	/* no counters: its link waits, or not shaped */
			if (totals)
				sample(b, name, f, d, &d->total, &d->total);
			for (size_t j = 0; !totals && j < d->n_classes; j++)
				sample(b, name, f, d, &d->classes[j], &d->classes[j]);
		}
	}
}

/* The queue behind a class; a direction's total only where it has no classes to show it. */
static const struct gw_snap_class *queue_at(const struct gw_snap_dir *d, size_t j)
{
	if (d->n_classes)
		return j < d->n_classes ? &d->classes[j] : NULL;
	return j == 0 ? &d->total : NULL;
}

/* A named value's sample: the integer as stored, or scaled into the base unit. */
static void xsample(struct gw_buf *b, const struct gw_xstat *f, const struct gw_snap_dir *d,
		    const struct gw_snap_class *c, const char *glabel, int g, uint64_t v)
{
	labels(b, f->prom, d, c, glabel, g);
	if (f->scale == 1)
		gw_buf_printf(b, " %" PRIu64 "\n", v);
	else
		gw_buf_printf(b, " %.10g\n", (double)v * f->scale);
}

static void xheader(struct gw_buf *b, const struct gw_xstat *f)
{
	gw_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->prom, f->help, f->prom, f->type);
}

/* One kind's extended statistics, a family per named value, where any queue is that kind:
 * its values, then its groups' (labelled by group). */
static void xstats_families(struct gw_buf *b, const struct gw_snapshot *s,
			    const struct gw_xstats_desc *x)
{
	const struct gw_snap_class *c;
	bool any = false, groups = false;

	for (size_t k = 0; k < s->n_dirs; k++)
		for (size_t j = 0; (c = queue_at(&s->dirs[k], j)); j++)
			if (c->x.desc == x) {
				any = true;
				groups |= c->x.n_groups > 0;
			}
	for (size_t i = 0; any && i < x->n_fields && i < GW_XSTATS_MAX; i++) {
		if (!x->fields[i].prom)
			continue;
		xheader(b, &x->fields[i]);
		for (size_t k = 0; k < s->n_dirs; k++)
			for (size_t j = 0; (c = queue_at(&s->dirs[k], j)); j++)
				if (c->x.desc == x)
					xsample(b, &x->fields[i], &s->dirs[k], c, NULL, -1,
						c->x.v[i]);
	}
	for (size_t i = 0; groups && i < x->n_group_fields && i < GW_XGROUP_FIELDS; i++) {
		if (!x->group_fields[i].prom)
			continue;
		xheader(b, &x->group_fields[i]);
		for (size_t k = 0; k < s->n_dirs; k++)
			for (size_t j = 0; (c = queue_at(&s->dirs[k], j)); j++)
				for (int g = 0; c->x.desc == x && g < c->x.n_groups &&
				     g < GW_XGROUPS_MAX; g++)
					xsample(b, &x->group_fields[i], &s->dirs[k], c,
						x->group_label, g, c->x.g[g][i]);
	}
}

/* 1 for a link whose interface is there (and so shaped), 0 while it waits for it. */
static void link_present(struct gw_buf *b, const struct gw_snapshot *s)
{
	gw_buf_printf(b, "# HELP gatewayd_link_present 1 when the link's interface exists and "
		      "is shaped, 0 while gatewayd waits for it.\n"
		      "# TYPE gatewayd_link_present gauge\n");
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_dir *d = &s->dirs[k];
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(s->dirs[j].link, d->link);
		if (seen)
			continue;
		gw_buf_printf(b, "gatewayd_link_present{link=\"");
		gw_prom_escape(b, d->link);
		gw_buf_printf(b, "\",interface=\"");
		gw_prom_escape(b, d->interface);
		gw_buf_printf(b, "\"} %d\n", d->waiting ? 0 : 1);
	}
}

/* Who a registered container is: one series per link "cni:HOSTVETH", to join on link. */
static void cni_info(struct gw_buf *b, const struct gw_snapshot *s)
{
	bool head = false;

	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_dir *d = &s->dirs[k];
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(s->dirs[j].link, d->link);
		if (seen || !d->cni.present)
			continue;
		if (!head)
			gw_buf_printf(b, "# HELP gatewayd_cni_container_info A container gatewayd-cni "
				      "registered: its id, network namespace, CNI network and "
				      "interfaces.\n# TYPE gatewayd_cni_container_info gauge\n");
		head = true;
		gw_buf_printf(b, "gatewayd_cni_container_info{link=\"");
		gw_prom_escape(b, d->link);
		gw_buf_printf(b, "\",container_id=\"");
		gw_prom_escape(b, d->cni.id);
		gw_buf_printf(b, "\",netns=\"");
		gw_prom_escape(b, d->cni.netns);
		gw_buf_printf(b, "\",network=\"");
		gw_prom_escape(b, d->cni.network);
		gw_buf_printf(b, "\",interface=\"");
		gw_prom_escape(b, d->interface);
		gw_buf_printf(b, "\",ifname=\"");
		gw_prom_escape(b, d->cni.ifname);
		gw_buf_printf(b, "\"} 1\n");
	}
}

static void direction_info(struct gw_buf *b, const struct gw_snapshot *s)
{
	gw_buf_printf(b, "# HELP gatewayd_direction_info Where each link direction is shaped."
		      "\n# TYPE gatewayd_direction_info gauge\n");
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_dir *d = &s->dirs[k];

		gw_buf_printf(b, "gatewayd_direction_info{link=\"");
		gw_prom_escape(b, d->link);
		gw_buf_printf(b, "\",direction=\"");
		gw_prom_escape(b, d->direction);
		gw_buf_printf(b, "\",interface=\"");
		gw_prom_escape(b, d->interface);
		gw_buf_printf(b, "\",device=\"");
		gw_prom_escape(b, d->device);
		gw_buf_printf(b, "\",shaper=\"");
		gw_prom_escape(b, d->shaper);
		gw_buf_printf(b, "\"} 1\n");
	}
}

/* digits: 10 for measurements, 15 for unix timestamps (to the microsecond) */
static void gauge(struct gw_buf *b, const char *name, const char *help, double v, int digits)
{
	if (isfinite(v))
		gw_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n%s %.*g\n", name, help, name,
			      name, digits, v);
}

static void counter(struct gw_buf *b, const char *name, const char *help, uint64_t v)
{
	gw_buf_printf(b, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", name, help, name,
		      name, v);
}

static void sampler_health(struct gw_buf *b, const struct gw_snapshot *s, double now)
{
	gw_buf_printf(b, "# HELP gatewayd_build_info gatewayd's version.\n"
		      "# TYPE gatewayd_build_info gauge\ngatewayd_build_info{version=\"");
	gw_prom_escape(b, GW_VERSION);
	gw_buf_printf(b, "\"} 1\n");
	gauge(b, "gatewayd_up", "1 when the last sample is at most 3 intervals old, else 0.",
	      gw_webui_healthy(s, now, NULL, 0), 10);
	if (!s)
		return;
	gauge(b, "gatewayd_last_sample_timestamp_seconds", "When the last sample read the kernel.",
	      s->unix_time, 15);
	gauge(b, "gatewayd_start_time_seconds", "When gatewayd started.",
	      s->unix_time - s->uptime_s, 15);
	gauge(b, "gatewayd_sample_interval_seconds", "The configured sampling interval.",
	      (double)s->interval_us / 1e6, 10);
	gauge(b, "gatewayd_sample_duration_seconds", "How long the last sampling pass took.",
	      s->sample_ms / 1e3, 10);
	gauge(b, "gatewayd_sample_lag_seconds", "How late the last sampling pass started.",
	      s->sample_lag_ms / 1e3, 10);
	counter(b, "gatewayd_samples_total", "Sampling passes.", s->samples_total);
	counter(b, "gatewayd_late_samples_total", "Sampling passes that started late.",
		s->late_samples_total);
	gauge(b, "gatewayd_sample_error", "1 when the last pass reported an error (see "
	      "last_error in /api/status), else 0.", s->last_error[0] ? 1 : 0, 10);
	if (!s->web.present)
		return;
	counter(b, "gatewayd_web_restarts_total", "Web processes started after the first.",
		s->web.restarts);
	gw_buf_printf(b, "# HELP gatewayd_web_down_seconds_total Seconds without a web process.\n"
		      "# TYPE gatewayd_web_down_seconds_total counter\n"
		      "gatewayd_web_down_seconds_total %.3f\n", s->web.down_s);
	counter(b, "gatewayd_web_dropped_snapshots_total", "Snapshots not sent to the web "
		"process because it had not read the one before.", s->web.dropped);
}

/* NAME{link="..",direction=".."[,EXTRA] VALUE: EXTRA is the rest of the label set, already
 * escaped (state, quantile, le). Nothing for a value that is not finite. */
static void dir_sample(struct gw_buf *b, const char *name, const struct gw_snap_dir *d,
		       const char *extra, double v)
{
	if (!isfinite(v))
		return;
	gw_buf_printf(b, "%s{link=\"", name);
	gw_prom_escape(b, d->link);
	gw_buf_put(b, "\",direction=\"", 13);
	gw_prom_escape(b, d->direction);
	gw_buf_printf(b, "\"%s%s} %.10g\n", extra[0] ? "," : "", extra, v);
}

static void fam(struct gw_buf *b, const char *name, const char *type, const char *help)
{
	gw_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Every reply since start, whatever the load: one histogram per probed direction. */
static void rtt_histogram(struct gw_buf *b, const struct gw_snapshot *s)
{
	static const double bounds[GW_SNAP_RTT_BUCKETS] = GW_SNAP_RTT_BOUNDS;
	char le[48];

	fam(b, "gatewayd_probe_rtt_seconds", "histogram",
	    "Round-trip times of every probe reply since gatewayd started, whatever the load.");
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_latency *l = &s->dirs[k].latency;

		if (!l->present)
			continue;
		for (int i = 0; i < GW_SNAP_RTT_BUCKETS; i++) {
			snprintf(le, sizeof(le), "le=\"%g\"", bounds[i]);
			dir_sample(b, "gatewayd_probe_rtt_seconds_bucket", &s->dirs[k], le,
				   (double)l->hist_le[i]);
		}
		dir_sample(b, "gatewayd_probe_rtt_seconds_bucket", &s->dirs[k], "le=\"+Inf\"",
			   (double)l->hist_count);
		dir_sample(b, "gatewayd_probe_rtt_seconds_sum", &s->dirs[k], "", l->hist_sum_s);
		dir_sample(b, "gatewayd_probe_rtt_seconds_count", &s->dirs[k], "",
			   (double)l->hist_count);
	}
}

/* One gauge family over the probed directions, per load state where by_state. */
static void latency_gauge(struct gw_buf *b, const struct gw_snapshot *s, const char *name,
			  const char *help, size_t off, double scale, bool by_state)
{
	static const char *const states[] = { "idle", "loaded" };

	fam(b, name, "gauge", help);
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_latency *l = &s->dirs[k].latency;

		if (!l->present)
			continue;
		for (int st = 0; st < (by_state ? 2 : 1); st++) {
			const struct gw_snap_rtt *r = st ? &l->loaded : &l->idle;
			const char *base = by_state ? (const char *)r : (const char *)l;
			char extra[32] = "";
			double v;

			memcpy(&v, base + off, sizeof(v));
			if (by_state)
				snprintf(extra, sizeof(extra), "state=\"%s\"", states[st]);
			dir_sample(b, name, &s->dirs[k], extra, v * scale);
		}
	}
}

#define RTT(f) offsetof(struct gw_snap_rtt, f)
#define LAT(f) offsetof(struct gw_snap_latency, f)

static void latency_families(struct gw_buf *b, const struct gw_snapshot *s)
{
	bool any = false;

	for (size_t k = 0; k < s->n_dirs; k++)
		any = any || s->dirs[k].latency.present;
	if (!any)
		return;
	rtt_histogram(b, s);
	latency_gauge(b, s, "gatewayd_probe_baseline_seconds",
		      "Idle baseline RTT: rises slowly, falls fast (as cake-autorate's).", LAT(baseline_ms),
		      1e-3, false);
	/* quantiles as names, not a quantile label: that label belongs to summaries */
	latency_gauge(b, s, "gatewayd_probe_window_rtt_p50_seconds",
		      "Median RTT over the prober's window, by the direction's load.", RTT(p50_ms),
		      1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_window_rtt_p90_seconds",
		      "90th percentile RTT over the prober's window, by load.", RTT(p90_ms), 1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_window_rtt_p99_seconds",
		      "99th percentile RTT over the prober's window, by load.", RTT(p99_ms), 1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_window_rtt_min_seconds",
		      "Lowest RTT over the prober's window, by load.", RTT(min_ms), 1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_window_rtt_mean_seconds",
		      "Mean RTT over the prober's window, by load.", RTT(mean_ms), 1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_jitter_seconds",
		      "Mean |RTT(n) - RTT(n-1)| of consecutive replies (IPDV) over the window, by load.",
		      RTT(jitter_ms), 1e-3, true);
	latency_gauge(b, s, "gatewayd_probe_loss_ratio",
		      "Probes lost over the window, by load (targets marked down excluded).",
		      RTT(loss), 1, true);
	fam(b, "gatewayd_probe_window_samples", "gauge",
	    "Probes judged over the window, by load.");
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_latency *l = &s->dirs[k].latency;

		if (!l->present)
			continue;
		dir_sample(b, "gatewayd_probe_window_samples", &s->dirs[k], "state=\"idle\"",
			   (double)l->idle.samples);
		dir_sample(b, "gatewayd_probe_window_samples", &s->dirs[k], "state=\"loaded\"",
			   (double)l->loaded.samples);
	}
	latency_gauge(b, s, "gatewayd_probe_induced_latency_p50_seconds",
		      "Latency the load adds: loaded median RTT minus the idle baseline.",
		      LAT(induced_p50_ms), 1e-3, false);
	latency_gauge(b, s, "gatewayd_probe_induced_latency_p99_seconds",
		      "Latency the load adds: loaded p99 RTT minus the idle baseline.",
		      LAT(induced_p99_ms), 1e-3, false);
	latency_gauge(b, s, "gatewayd_probe_induced_latency_mean_seconds",
		      "Mean latency the load adds (what the grade is computed on).",
		      LAT(induced_mean_ms), 1e-3, false);
	fam(b, "gatewayd_probe_grade", "gauge",
	    "1 for the direction's bufferbloat grade (DSLReports bands on the mean induced latency).");
	for (size_t k = 0; k < s->n_dirs; k++) {
		const struct gw_snap_latency *l = &s->dirs[k].latency;
		char extra[32];

		if (!l->present || !l->grade[0])
			continue;
		snprintf(extra, sizeof(extra), "grade=\"%.3s\"", l->grade);
		dir_sample(b, "gatewayd_probe_grade", &s->dirs[k], extra, 1);
	}
}

/* A target's gauge in ms (which 6: last RTT, 7 and 8: last one-way delay up and down). */
static double target_ms(const struct gw_snap_target *t, int which)
{
	return which == 6 ? t->last_rtt_ms : which == 7 ? t->last_owd_up_ms : t->last_owd_down_ms;
}

/* The probers the families walk: every link's where the snapshot lists them (each sample
 * then has a link label), else the one global block's (no link label, as it always was). */
static size_t probers(const struct gw_snapshot *s, const struct gw_snap_probe **out,
		      bool *by_link)
{
	*by_link = s->probes && s->n_probes;
	*out = *by_link ? s->probes : &s->probe;
	if (!*by_link)
		return 1;
	return s->n_probes < GW_SNAP_MAX_PROBES ? s->n_probes : GW_SNAP_MAX_PROBES;
}

/* Per target: NAME{target="host"} VALUE, or NAME{link="link",target="host"} VALUE. The one-way
 * delays' families appear only when a target has one (an icmp prober's output is what it was
 * before they existed). */
static void target_fam(struct gw_buf *b, const struct gw_snapshot *s, const char *name,
		       const char *type, const char *help, int which)
{
	const struct gw_snap_probe *ps;
	bool by_link;
	size_t np = probers(s, &ps, &by_link);
	bool any = which < 7;

	for (size_t k = 0; k < np && !any; k++) {
		size_t n = ps[k].n_targets < N(ps[k].targets) ? ps[k].n_targets : N(ps[k].targets);

		for (size_t i = 0; i < n && !any; i++)
			any = isfinite(target_ms(&ps[k].targets[i], which));
	}
	if (!any)
		return;
	fam(b, name, type, help);
	for (size_t k = 0; k < np; k++) {
		const struct gw_snap_probe *p = &ps[k];
		size_t n = p->n_targets < N(p->targets) ? p->n_targets : N(p->targets);

		for (size_t i = 0; i < n; i++) {
			const struct gw_snap_target *t = &p->targets[i];
			const uint64_t c[] = { t->up, t->sent, t->received, t->lost, t->duplicates,
					       t->reordered };

			if (which >= 6 && !isfinite(target_ms(t, which)))
				continue;
			gw_buf_printf(b, "%s{", name);
			if (by_link) {
				gw_buf_printf(b, "link=\"");
				gw_prom_escape(b, p->link);
				gw_buf_printf(b, "\",");
			}
			gw_buf_printf(b, "target=\"");
			gw_prom_escape(b, t->host);
			if (which >= 6)
				gw_buf_printf(b, "\"} %.10g\n", target_ms(t, which) / 1e3);
			else
				gw_buf_printf(b, "\"} %" PRIu64 "\n", c[which]);
		}
	}
}

static void probe_families(struct gw_buf *b, const struct gw_snapshot *s)
{
	const struct gw_snap_probe *ps;
	bool by_link;
	size_t np;

	if (!s->probe.enabled)
		return;
	np = probers(s, &ps, &by_link);
	gw_buf_printf(b, "# HELP gatewayd_probe_info The latency prober's settings.\n"
		      "# TYPE gatewayd_probe_info gauge\n");
	for (size_t k = 0; k < np; k++) {
		gw_buf_printf(b, "gatewayd_probe_info{link=\"");
		gw_prom_escape(b, ps[k].link);
		gw_buf_printf(b, "\",method=\"");
		gw_prom_escape(b, ps[k].method);
		gw_buf_printf(b, "\"} 1\n");
	}
	if (!by_link) {
		gauge(b, "gatewayd_probe_interval_seconds", "Time between probes to one target.",
		      (double)s->probe.interval_us / 1e6, 10);
	} else {
		fam(b, "gatewayd_probe_interval_seconds", "gauge",
		    "Time between probes to one target.");
		for (size_t k = 0; k < np; k++) {
			gw_buf_printf(b, "gatewayd_probe_interval_seconds{link=\"");
			gw_prom_escape(b, ps[k].link);
			gw_buf_printf(b, "\"} %.10g\n", (double)ps[k].interval_us / 1e6);
		}
	}
	target_fam(b, s, "gatewayd_probe_target_up", "gauge",
		   "1 while the target answers, 0 once it is marked down (its losses are not the link's).", 0);
	target_fam(b, s, "gatewayd_probe_target_sent_total", "counter", "Probes sent to the target.", 1);
	target_fam(b, s, "gatewayd_probe_target_received_total", "counter",
		   "Replies received from the target in time.", 2);
	target_fam(b, s, "gatewayd_probe_target_lost_total", "counter",
		   "Probes to the target that timed out.", 3);
	target_fam(b, s, "gatewayd_probe_target_duplicates_total", "counter",
		   "Duplicate replies from the target.", 4);
	target_fam(b, s, "gatewayd_probe_target_reordered_total", "counter",
		   "Replies that arrived after the reply to a later probe.", 5);
	target_fam(b, s, "gatewayd_probe_target_last_rtt_seconds", "gauge",
		   "The target's last RTT.", 6);
	target_fam(b, s, "gatewayd_probe_target_last_owd_up_seconds", "gauge",
		   "The target's last one-way delay towards it, up to the offset between the two clocks.", 7);
	target_fam(b, s, "gatewayd_probe_target_last_owd_down_seconds", "gauge",
		   "The target's last one-way delay back from it, up to the offset between the two clocks.", 8);
}

/* The last active load test, per direction ("download", "upload", "both"). */
static void loadtest_families(struct gw_buf *b, const struct gw_snapshot *s)
{
	const struct gw_snap_loadtest *t = &s->loadtest;
	size_t n = t->n_dirs < N(t->dirs) ? t->n_dirs : N(t->dirs);
	static const struct {
		const char *name, *help;
		size_t off;
		double scale;
	} f[] = {
		{ "gatewayd_loadtest_goodput_bytes_per_second", "The load test flows' goodput.",
		  offsetof(struct gw_snap_load_dir, goodput_bps), 0.125 },
		{ "gatewayd_loadtest_loaded_rtt_p99_seconds", "p99 RTT during the load test.",
		  offsetof(struct gw_snap_load_dir, loaded_p99_ms), 1e-3 },
		{ "gatewayd_loadtest_induced_latency_mean_seconds",
		  "Mean latency the load test added over the idle RTT.",
		  offsetof(struct gw_snap_load_dir, induced_mean_ms), 1e-3 },
	};

	if (!t->present)
		return;
	gauge(b, "gatewayd_loadtest_running", "1 while an active load test runs.", t->running, 10);
	gauge(b, "gatewayd_loadtest_last_finished_timestamp_seconds",
	      "When the last load test finished.", t->finished_unix > 0 ? t->finished_unix : NAN,
	      15);
	for (size_t i = 0; i < N(f); i++) {
		fam(b, f[i].name, "gauge", f[i].help);
		for (size_t k = 0; k < n; k++) {
			double v;

			memcpy(&v, (const char *)&t->dirs[k] + f[i].off, sizeof(v));
			if (!isfinite(v))
				continue;
			gw_buf_printf(b, "%s{direction=\"", f[i].name);
			gw_prom_escape(b, t->dirs[k].direction);
			gw_buf_printf(b, "\"} %.10g\n", v * f[i].scale);
		}
	}
}

/* The directions autorate moves: the rate in force, its bounds, and the changes by reason. */
static void autorate_families(struct gw_buf *b, const struct gw_snapshot *s)
{
	static const char *const reasons[GW_SNAP_AR_REASONS] = GW_SNAP_AR_REASON_NAMES;
	static const struct {
		const char *name, *help;
		size_t off;
	} g[] = {
		{ "gatewayd_autorate_rate_bytes_per_second",
		  "The rate autorate shapes the direction to now.",
		  offsetof(struct gw_snap_autorate, rate_bytes_per_s) },
		{ "gatewayd_autorate_min_rate_bytes_per_second", "Autorate's lower bound.",
		  offsetof(struct gw_snap_autorate, min_bytes_per_s) },
		{ "gatewayd_autorate_base_rate_bytes_per_second",
		  "Autorate's base, where an idle link returns to.",
		  offsetof(struct gw_snap_autorate, base_bytes_per_s) },
		{ "gatewayd_autorate_max_rate_bytes_per_second", "Autorate's upper bound.",
		  offsetof(struct gw_snap_autorate, max_bytes_per_s) },
	};
	bool any = false;
	char extra[32];

	for (size_t k = 0; k < s->n_dirs; k++)
		any = any || s->dirs[k].autorate.present;
	if (!any)
		return;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		fam(b, g[i].name, "gauge", g[i].help);
		for (size_t k = 0; k < s->n_dirs; k++) {
			const struct gw_snap_autorate *a = &s->dirs[k].autorate;
			uint64_t v;

			if (!a->present)
				continue;
			memcpy(&v, (const char *)a + g[i].off, sizeof(v));
			dir_sample(b, g[i].name, &s->dirs[k], "", (double)v);
		}
	}
	fam(b, "gatewayd_autorate_changes_total", "counter",
	    "Rate changes autorate made, by reason: bloat (cut), load (raised), idle (to base), "
	    "queue (eased under a standing queue).");
	for (size_t k = 0; k < s->n_dirs; k++)
		for (int r = 0; r < GW_SNAP_AR_REASONS && s->dirs[k].autorate.present; r++) {
			snprintf(extra, sizeof(extra), "reason=\"%s\"", reasons[r]);
			dir_sample(b, "gatewayd_autorate_changes_total", &s->dirs[k], extra,
				   (double)s->dirs[k].autorate.changes[r]);
		}
	fam(b, "gatewayd_autorate_refused_total", "counter",
	    "Rate changes the kernel refused (the old rate stayed).");
	for (size_t k = 0; k < s->n_dirs; k++)
		if (s->dirs[k].autorate.present)
			dir_sample(b, "gatewayd_autorate_refused_total", &s->dirs[k], "",
				   (double)s->dirs[k].autorate.refused);
}

int gw_webui_metrics(const struct gw_snapshot *s, double now, char **out, size_t *len)
{
	struct gw_buf b = { 0 };

	sampler_health(&b, s, now);
	if (s && s->n_dirs) {
		link_present(&b, s);
		direction_info(&b, s);
		cni_info(&b, s);
		class_families(&b, s, true);
		class_families(&b, s, false);
		for (size_t i = 0; i < s->n_xdescs && i < GW_SNAP_XKINDS; i++)
			xstats_families(&b, s, s->xdescs[i]);
		latency_families(&b, s);
		autorate_families(&b, s);
	}
	if (s) {
		probe_families(&b, s);
		loadtest_families(&b, s);
	}
	return gw_buf_take(&b, out, len);
}
