/* webui/prom.c: a snapshot as Prometheus text format 0.0.4: gatewayd_ prefix, base units,
 * counters ending in _total, HELP and TYPE once per family, no NaN samples. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "webui/render.h"

enum field_kind { F_U64, F_U32, F_DBL, F_BOOL };

/* One family read from a struct at an offset; scale turns the struct's unit into the base. */
struct family {
	const char *name, *type, *help;
	size_t off;
	enum field_kind kind;
	double scale;
	bool class_only;	/* not repeated for the direction totals */
};

#define CLS(f) offsetof(struct gw_snap_class, f)
#define FQ(f) offsetof(struct gw_snap_class, fq_codel.f)
#define CAKE(f) offsetof(struct gw_snap_class, cake.f)
#define TIN(f) offsetof(struct gw_snap_tin, f)

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
	{ "configured_rate_bytes_per_second", "gauge", "Configured (guaranteed) rate.",
	  CLS(rate_bps), F_U64, 0.125, false },
	{ "ceil_bytes_per_second", "gauge", "Configured ceil: the most the class may borrow up to.",
	  CLS(ceil_bps), F_U64, 0.125, true },
	{ "achieved_rate_bytes_per_second", "gauge",
	  "Rate achieved over the last sampling interval, from the shaper's byte counter.",
	  CLS(achieved_bps), F_DBL, 0.125, false },
	{ "utilisation_ratio", "gauge", "Achieved rate over configured rate.",
	  CLS(utilisation), F_DBL, 1, false },
	{ "saturated", "gauge",
	  "1 when the queue stayed backlogged the whole last interval, else 0.",
	  CLS(saturated), F_BOOL, 1, false },
	{ "shaping_accuracy_ratio", "gauge",
	  "Achieved over configured rate while saturated; absent when not saturated.",
	  CLS(accuracy), F_DBL, 1, false },
	{ "queue_delay_seconds", "gauge",
	  "Queueing delay now: backlog over rate, or cake's own average delay.",
	  CLS(queue_delay_ms), F_DBL, 1e-3, false },
};

static const struct family fq_codel_fams[] = {
	{ "gatewayd_fq_codel_max_packet_bytes", "gauge", "Largest packet fq_codel has seen.",
	  FQ(maxpacket), F_U32, 1, false },
	{ "gatewayd_fq_codel_drop_overlimit_packets_total", "counter",
	  "Packets fq_codel dropped because its limit was reached.", FQ(drop_overlimit), F_U32,
	  1, false },
	{ "gatewayd_fq_codel_new_flows_total", "counter", "Flows fq_codel saw start.",
	  FQ(new_flow_count), F_U32, 1, false },
	{ "gatewayd_fq_codel_ecn_marked_packets_total", "counter", "Packets fq_codel ECN-marked.",
	  FQ(ecn_mark), F_U32, 1, false },
	{ "gatewayd_fq_codel_ce_threshold_marked_packets_total", "counter",
	  "Packets fq_codel CE-marked above ce_threshold.", FQ(ce_mark), F_U32, 1, false },
	{ "gatewayd_fq_codel_new_flow_queues", "gauge", "Flows in fq_codel's new-flows list now.",
	  FQ(new_flows_len), F_U32, 1, false },
	{ "gatewayd_fq_codel_old_flow_queues", "gauge", "Flows in fq_codel's old-flows list now.",
	  FQ(old_flows_len), F_U32, 1, false },
	{ "gatewayd_fq_codel_memory_used_bytes", "gauge", "Memory fq_codel's packets use now.",
	  FQ(memory_usage), F_U32, 1, false },
};

static const struct family cake_fams[] = {
	{ "gatewayd_cake_capacity_estimate_bytes_per_second", "gauge",
	  "cake's estimate of the link capacity.", CAKE(capacity_estimate_bps), F_U64, 0.125,
	  false },
	{ "gatewayd_cake_memory_used_bytes", "gauge", "Memory cake uses now.", CAKE(memory_used),
	  F_U32, 1, false },
	{ "gatewayd_cake_memory_limit_bytes", "gauge", "cake's memory limit.", CAKE(memory_limit),
	  F_U32, 1, false },
};

static const struct family tin_fams[] = {
	{ "gatewayd_cake_tin_threshold_bytes_per_second", "gauge", "The tin's bandwidth share.",
	  TIN(threshold_bps), F_U64, 0.125, false },
	{ "gatewayd_cake_tin_sent_bytes_total", "counter", "Bytes the tin sent.",
	  TIN(sent_bytes), F_U64, 1, false },
	{ "gatewayd_cake_tin_sent_packets_total", "counter", "Packets the tin sent.",
	  TIN(sent_packets), F_U64, 1, false },
	{ "gatewayd_cake_tin_dropped_packets_total", "counter", "Packets the tin dropped.",
	  TIN(dropped_packets), F_U64, 1, false },
	{ "gatewayd_cake_tin_ecn_marked_packets_total", "counter", "Packets the tin ECN-marked.",
	  TIN(ecn_marked_packets), F_U64, 1, false },
	{ "gatewayd_cake_tin_ack_dropped_packets_total", "counter",
	  "ACKs the tin's ACK filter dropped.", TIN(ack_drops), F_U64, 1, false },
	{ "gatewayd_cake_tin_backlog_bytes", "gauge", "Bytes queued in the tin now.",
	  TIN(backlog_bytes), F_U32, 1, false },
	{ "gatewayd_cake_tin_peak_delay_seconds", "gauge", "The tin's peak queueing delay.",
	  TIN(peak_delay_us), F_U32, 1e-6, false },
	{ "gatewayd_cake_tin_average_delay_seconds", "gauge", "The tin's average queueing delay.",
	  TIN(avg_delay_us), F_U32, 1e-6, false },
	{ "gatewayd_cake_tin_base_delay_seconds", "gauge", "The tin's base (minimum) delay.",
	  TIN(base_delay_us), F_U32, 1e-6, false },
	{ "gatewayd_cake_tin_sparse_flows", "gauge", "Sparse flows in the tin now.",
	  TIN(sparse_flows), F_U32, 1, false },
	{ "gatewayd_cake_tin_bulk_flows", "gauge", "Bulk flows in the tin now.", TIN(bulk_flows),
	  F_U32, 1, false },
	{ "gatewayd_cake_tin_unresponsive_flows", "gauge", "Unresponsive flows in the tin now.",
	  TIN(unresponsive_flows), F_U32, 1, false },
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
		memcpy(&u, p, sizeof(u));
		if (f->scale == 1)
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
		   const struct gw_snap_class *c, int tin)
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
	if (tin >= 0)
		gw_buf_printf(b, "\",tin=\"%d", tin);
	gw_buf_put(b, "\"}", 2);
}

/* A sample, unless the family says there is nothing to show (then the line is taken back). */
static void sample(struct gw_buf *b, const char *name, const struct family *f,
		   const struct gw_snap_dir *d, const struct gw_snap_class *c, int tin,
		   const void *base)
{
	size_t mark = b->len;

	if (f->off == CLS(accuracy) && base == c && !c->saturated)
		return;
	labels(b, name, d, c, tin);
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

			if (totals)
				sample(b, name, f, d, &d->total, -1, &d->total);
			for (size_t j = 0; !totals && j < d->n_classes; j++)
				sample(b, name, f, d, &d->classes[j], -1, &d->classes[j]);
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

static void extra_families(struct gw_buf *b, const struct gw_snapshot *s,
			   const struct family *fams, size_t n, bool cake)
{
	const struct gw_snap_class *c;
	bool any = false;

	for (size_t k = 0; k < s->n_dirs && !any; k++)
		for (size_t j = 0; (c = queue_at(&s->dirs[k], j)) && !any; j++)
			any = cake ? c->has_cake : c->has_fq_codel;
	for (size_t i = 0; any && i < n; i++) {
		header(b, "", &fams[i]);
		for (size_t k = 0; k < s->n_dirs; k++)
			for (size_t j = 0; (c = queue_at(&s->dirs[k], j)); j++)
				if (cake ? c->has_cake : c->has_fq_codel)
					sample(b, fams[i].name, &fams[i], &s->dirs[k], c, -1, c);
	}
}

static void tin_families(struct gw_buf *b, const struct gw_snapshot *s)
{
	const struct gw_snap_class *c;
	bool any = false;

	for (size_t k = 0; k < s->n_dirs && !any; k++)
		for (size_t j = 0; (c = queue_at(&s->dirs[k], j)) && !any; j++)
			any = c->has_cake && c->cake.n_tins > 0;
	for (size_t i = 0; any && i < N(tin_fams); i++) {
		header(b, "", &tin_fams[i]);
		for (size_t k = 0; k < s->n_dirs; k++)
			for (size_t j = 0; (c = queue_at(&s->dirs[k], j)); j++)
				for (int t = 0; c->has_cake && t < c->cake.n_tins &&
				     t < GW_SNAP_TINS; t++)
					sample(b, tin_fams[i].name, &tin_fams[i], &s->dirs[k], c, t,
					       &c->cake.tins[t]);
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
}

int gw_webui_metrics(const struct gw_snapshot *s, double now, char **out, size_t *len)
{
	struct gw_buf b = { 0 };

	sampler_health(&b, s, now);
	if (s && s->n_dirs) {
		direction_info(&b, s);
		class_families(&b, s, true);
		class_families(&b, s, false);
		extra_families(&b, s, fq_codel_fams, N(fq_codel_fams), false);
		extra_families(&b, s, cake_fams, N(cake_fams), true);
		tin_families(&b, s);
	}
	return gw_buf_take(&b, out, len);
}
