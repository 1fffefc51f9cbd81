/* tests/unit/test_webui.c: the web UI's renderers (status JSON, Prometheus text, history),
 * the history query checks, health, basic auth and the server's start and stop, from a
 * synthetic snapshot: no daemon, no kernel, no root. */
#include <arpa/inet.h>
#include <crypt.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <json-c/json.h>

#include "config/config.h"
#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"
#include "tests/unit/xstats.h"
#include "webui/auth.h"
#include "webui/limit.h"
#include "webui/render.h"
#include "webui/webui.h"

#define NOW 1700000000.0
#define WEIRD "q\"uo\\te"	/* a label value with a quote and a backslash */

/* rate: bits/s, as the renderers print it (the snapshot holds bytes/s) */
static void fill_class(struct gw_snap_class *c, const char *name, const char *kind,
		       uint64_t rate, bool saturated)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	c->rate_in_force_bytes_per_s = rate / 8;
	c->ceil_bytes_per_s = rate * 2 / 8;
	c->bytes = 123456789012ULL;
	c->packets = 98765;
	c->drops = 17;
	c->overlimits = 5;
	c->requeues = 2;
	c->ecn_marks = 3;
	c->backlog_bytes = 3000;
	c->backlog_packets = 2;
	c->achieved_bytes_per_s = (saturated ? (double)rate * 0.99 : (double)rate * 0.1) / 8;
	c->utilisation = c->achieved_bytes_per_s * 8 / (double)rate;
	c->saturated = saturated;
	c->accuracy = saturated ? 0.99 : NAN;
	c->queue_delay_ms = 2.5;
	c->drops_per_s = 1.5;
	c->marks_per_s = 0.5;
	if (!strcmp(kind, "fq_codel")) {
		c->x.desc = gw_fq_codel_ops.xdesc;
		xstat_set(&c->x, "max_packet_bytes", 1514);
		xstat_set(&c->x, "new_flow_count", 42);
		xstat_set(&c->x, "memory_used_bytes", 4096);
	}
}

static void fill_cake(struct gw_snap_class *c)
{
	c->x.desc = gw_cake_ops.xdesc;
	xstat_set(&c->x, "capacity_estimate_bits_per_second", 96000000);
	xstat_set(&c->x, "memory_used_bytes", 1000);
	xstat_set(&c->x, "memory_limit_bytes", 4000000);
	c->x.n_groups = 4;
	for (int i = 0; i < 4; i++) {
		xstat_gset(&c->x, i, "threshold_bits_per_second", 1000000ULL * (uint64_t)(i + 1));
		xstat_gset(&c->x, i, "sent_bytes", 1000ULL * (uint64_t)(i + 1));
		xstat_gset(&c->x, i, "peak_delay_ms", 1500);
		xstat_gset(&c->x, i, "average_delay_ms", 700);
		xstat_gset(&c->x, i, "base_delay_ms", 100);
		xstat_gset(&c->x, i, "sparse_flows", (uint64_t)i);
	}
}

static void fill_dir(struct gw_snap_dir *d, const char *link, const char *iface,
		     const char *direction, const char *shaper, uint64_t rate, size_t n)
{
	snprintf(d->link, sizeof(d->link), "%s", link);
	snprintf(d->interface, sizeof(d->interface), "%s", iface);
	snprintf(d->device, sizeof(d->device), "%s", iface);
	snprintf(d->direction, sizeof(d->direction), "%s", direction);
	snprintf(d->shaper, sizeof(d->shaper), "%s", shaper);
	d->rate_in_force_bytes_per_s = rate / 8;
	fill_class(&d->total, "total", shaper, rate, true);
	d->classes = calloc(n, sizeof(*d->classes));
	d->n_classes = n;
}

/*
 * wan egress: htb, classes interactive (fq_codel), WEIRD (fq_codel), video (cake, 4 tins),
 * idle (fq_codel, not saturated); wan ingress: cake shaper, one queue; lan egress: tbf + fifo,
 * idle; lan ingress: htb, one fq_codel class. Allocated as the daemon does, for put to free.
 */
static struct gw_snapshot *make_snapshot(void)
{
	struct gw_snapshot *s = calloc(1, sizeof(*s));
	struct gw_snap_dir *d;

	atomic_init(&s->refs, 1);
	s->n_xdescs = gw_qdisc_xdescs(s->xdescs, GW_SNAP_XKINDS);
	s->seq = 42;
	s->unix_time = NOW - 0.5;
	s->uptime_s = 3600;
	s->interval_us = 1000000;
	s->sample_ms = 1.25;
	s->sample_lag_ms = 0.5;
	s->samples_total = 3600;
	s->late_samples_total = 1;
	s->n_dirs = 4;
	s->dirs = calloc(4, sizeof(*s->dirs));
	d = &s->dirs[0];
	fill_dir(d, "wan", "eth0", "egress", "htb", 95000000, 4);
	fill_class(&d->classes[0], "interactive", "fq_codel", 10000000, true);
	fill_class(&d->classes[1], WEIRD, "fq_codel", 20000000, true);
	fill_class(&d->classes[2], "video", "cake", 30000000, true);
	fill_cake(&d->classes[2]);
	fill_class(&d->classes[3], "idle", "fq_codel", 35000000, false);
	d = &s->dirs[1];
	fill_dir(d, "wan", "eth0", "ingress", "cake", 450000000, 1);
	snprintf(d->device, sizeof(d->device), "ifb4eth0");
	fill_class(&d->classes[0], "default", "cake", 450000000, true);
	fill_cake(&d->classes[0]);
	d = &s->dirs[2];
	fill_dir(d, "lan", "eth1", "egress", "tbf", 20000000, 1);
	fill_class(&d->classes[0], "default", "fifo", 20000000, false);
	d->total.saturated = false;
	d->total.accuracy = NAN;
	d->total.queue_delay_ms = NAN;		/* a NaN the JSON must not show */
	d = &s->dirs[3];
	fill_dir(d, "lan", "eth1", "ingress", "htb", 50000000, 1);
	fill_class(&d->classes[0], "all", "fq_codel", 50000000, true);
	return s;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		struct json_object *next = NULL;

		if (json_object_is_type(o, json_type_array))
			next = json_object_array_get_idx(o, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &next))
			return NULL;
		o = next;
	}
	return o;
}

static const char *get_str(struct json_object *o, const char *path)
{
	struct json_object *v = get(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "?";
}

static bool has_null(struct json_object *o, const char *path)
{
	const char *last = strrchr(path, '.');
	char parent[256];
	struct json_object *p, *v = NULL;

	if (!last)
		return json_object_object_get_ex(o, path, &v) && v == NULL;
	snprintf(parent, sizeof(parent), "%.*s", (int)(last - path), path);
	p = get(o, parent);
	return p && json_object_object_get_ex(p, last + 1, &v) && v == NULL;
}

static bool contains_ci(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

static void test_status_json(const struct gw_snapshot *s)
{
	struct json_object *j, *v;
	size_t len = 0;
	char *out = NULL;
	int r = gw_webui_status_json(s, NOW, &out, &len);

	if (!CHECK(r == 0 && out && strlen(out) == len, "status JSON renders (%d)", r))
		return;
	CHECK(!contains_ci(out, "nan") && !contains_ci(out, "inf"), "status JSON has no nan/inf");
	j = json_tokener_parse(out);
	if (!CHECK(j != NULL, "status JSON parses")) {
		free(out);
		return;
	}
	CHECK_EQ_INT(json_object_get_int(get(j, "schema_version")), 1, "schema_version");
	CHECK(json_object_get_boolean(get(j, "healthy")), "healthy at 0.5 s old");
	CHECK(has_null(j, "health_reason"), "health_reason null when healthy");
	CHECK_EQ_INT(json_object_get_int64(get(j, "sample.seq")), 42, "sample.seq");
	CHECK(fabs(json_object_get_double(get(j, "sample.interval_seconds")) - 1) < 1e-9,
	      "sample.interval_seconds");
	CHECK(fabs(json_object_get_double(get(j, "sample.duration_ms")) - 1.25) < 1e-9,
	      "sample.duration_ms");
	CHECK(has_null(j, "sample.last_error"), "sample.last_error null when empty");
	CHECK_EQ_INT(json_object_array_length(get(j, "links")), 2, "two links");
	CHECK_EQ_STR(get_str(j, "links.0.name"), "wan", "link 0 name");
	CHECK_EQ_STR(get_str(j, "links.1.interface"), "eth1", "link 1 interface");
	CHECK_EQ_INT(json_object_array_length(get(j, "links.0.directions")), 2, "wan: 2 directions");
	CHECK_EQ_STR(get_str(j, "links.0.directions.1.direction"), "ingress", "wan ingress");
	CHECK_EQ_STR(get_str(j, "links.0.directions.1.device"), "ifb4eth0", "ingress device");
	CHECK_EQ_STR(get_str(j, "links.0.directions.1.shaper"), "cake", "ingress shaper");
	/* the rate in force, and its name before (a deprecated alias for one release) */
	v = get(j, "links.0.directions.0");
	CHECK_EQ_INT(json_object_get_int64(get(v, "rate_in_force_bits_per_second")), 95000000,
		     "direction rate_in_force_bits_per_second");
	CHECK_EQ_INT(json_object_get_int64(get(v, "rate_bits_per_second")), 95000000,
		     "direction rate_bits_per_second: the same (deprecated alias)");
	CHECK_EQ_INT(json_object_get_int64(get(v, "total.rate_in_force_bits_per_second")),
		     95000000, "total rate_in_force_bits_per_second");
	CHECK_EQ_INT(json_object_get_int64(get(v, "total.rate_bits_per_second")), 95000000,
		     "total rate_bits_per_second: the same (deprecated alias)");
	CHECK_EQ_STR(get_str(j, "links.0.directions.0.classes.1.name"), WEIRD,
		     "quote and backslash survive in a name");
	v = get(j, "links.0.directions.0.classes.0");
	CHECK_EQ_INT(json_object_get_int64(get(v, "rate_in_force_bits_per_second")), 10000000,
		     "class rate_in_force_bits_per_second");
	CHECK_EQ_INT(json_object_get_int64(get(v, "rate_bits_per_second")), 10000000,
		     "class rate_bits_per_second: the same (deprecated alias)");
	CHECK_EQ_INT(json_object_get_int64(get(v, "ceil_bits_per_second")), 20000000,
		     "class ceil_bits_per_second");
	CHECK_EQ_INT(json_object_get_uint64(get(v, "sent_bytes")), 123456789012ULL,
		     "sent_bytes keeps 64 bits");
	CHECK_EQ_INT(json_object_get_int64(get(v, "backlog_bytes")), 3000, "backlog_bytes");
	CHECK_EQ_INT(json_object_get_int64(get(v, "backlog_packets")), 2, "backlog_packets");
	CHECK_EQ_INT(json_object_get_int64(get(v, "dropped_packets")), 17, "dropped_packets");
	CHECK_EQ_INT(json_object_get_int64(get(v, "ecn_marked_packets")), 3, "ecn_marked_packets");
	CHECK(fabs(json_object_get_double(get(v, "achieved_bits_per_second")) - 9900000) < 1,
	      "achieved_bits_per_second");
	CHECK(fabs(json_object_get_double(get(v, "accuracy")) - 0.99) < 1e-9, "accuracy 0.99");
	CHECK(json_object_get_boolean(get(v, "saturated")), "saturated true");
	CHECK(fabs(json_object_get_double(get(v, "queue_delay_ms")) - 2.5) < 1e-9, "queue_delay_ms");
	CHECK_EQ_INT(json_object_get_int(get(v, "fq_codel.max_packet_bytes")), 1514,
		     "fq_codel.max_packet_bytes");
	CHECK(has_null(j, "links.0.directions.0.classes.0.cake"), "cake null for fq_codel");
	CHECK(has_null(j, "links.0.directions.0.classes.3.accuracy"), "idle: accuracy null");
	CHECK(!json_object_get_boolean(get(j, "links.0.directions.0.classes.3.saturated")),
	      "idle: saturated false");
	CHECK(has_null(j, "links.1.directions.0.total.queue_delay_ms"), "a NaN becomes null");
	v = get(j, "links.0.directions.0.classes.2.cake");
	CHECK_EQ_INT(json_object_array_length(get(v, "tins")), 4, "cake: 4 tins");
	CHECK_EQ_INT(json_object_get_int(get(v, "tins.3.index")), 3, "tin index");
	CHECK_EQ_STR(json_object_get_string(get(v, "tins.3.name")), "Voice", "tin 3 of 4 is Voice");
	CHECK_EQ_STR(json_object_get_string(get(v, "tins.0.name")), "Bulk", "tin 0 of 4 is Bulk");
	CHECK_EQ_INT(json_object_get_int64(get(v, "tins.3.threshold_bits_per_second")), 4000000,
		     "tin threshold_bits_per_second");
	CHECK(fabs(json_object_get_double(get(v, "tins.0.peak_delay_ms")) - 1.5) < 1e-9,
	      "tin peak_delay_ms in ms");
	CHECK_EQ_INT(json_object_get_int64(get(v, "capacity_estimate_bits_per_second")), 96000000,
		     "cake capacity_estimate_bits_per_second");
	CHECK(has_null(j, "links.0.directions.0.classes.2.fq_codel"), "fq_codel null for cake");
	json_object_put(j);
	free(out);

	r = gw_webui_status_json(NULL, NOW, &out, &len);
	CHECK(r == 0 && strstr(out, "\"healthy\":false") && strstr(out, "\"sample\":null") &&
	      strstr(out, "\"links\":[]") && strstr(out, "no sample yet"),
	      "status JSON without a snapshot: %s", r ? "(failed)" : out);
	free(out);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void run_promtool(const char *text)
{
	char path[] = "/tmp/gw-metrics-XXXXXX", cmd[128];
	FILE *f;
	int fd, r;

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		printf("skip - promtool check metrics: promtool not installed (Debian prometheus)\n");
		return;
	}
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!CHECK(f != NULL, "temp file for promtool"))
		return;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <%s", path);
	r = system(cmd);
	CHECK(r == 0, "promtool check metrics passes (status %d)", r);
	unlink(path);
}

static void test_metrics(const struct gw_snapshot *s)
{
	size_t len = 0;
	char *out = NULL;
	int r = gw_webui_metrics(s, NOW, &out, &len);

	if (!CHECK(r == 0 && out && strlen(out) == len, "metrics render (%d)", r))
		return;
	CHECK(!strstr(out, "NaN") && !contains_ci(out, " nan") && !strstr(out, "Inf"),
	      "no NaN or Inf samples");
	CHECK_EQ_INT(count(out, "# TYPE gatewayd_class_sent_bytes_total counter\n"), 1,
		     "TYPE once per family");
	CHECK_EQ_INT(count(out, "# HELP gatewayd_class_sent_bytes_total "), 1,
		     "HELP once per family");
	CHECK(strstr(out, "gatewayd_class_sent_bytes_total{link=\"wan\",direction=\"egress\","
			  "class=\"interactive\",kind=\"fq_codel\"} 123456789012\n") != NULL,
	      "a counter with its labels and 64-bit value");
	CHECK(strstr(out, "class=\"q\\\"uo\\\\te\"") != NULL,
	      "label value escaped: quote and backslash");
	CHECK(strstr(out, "gatewayd_class_shaping_accuracy_ratio{link=\"wan\",direction=\"egress\","
			  "class=\"idle\"") == NULL, "no accuracy sample when not saturated");
	CHECK(strstr(out, "gatewayd_class_saturated{link=\"wan\",direction=\"egress\","
			  "class=\"idle\",kind=\"fq_codel\"} 0\n") != NULL, "saturated 0 instead");
	CHECK(strstr(out, "gatewayd_class_shaping_accuracy_ratio{link=\"wan\",direction=\"egress\","
			  "class=\"interactive\",kind=\"fq_codel\"} 0.99\n") != NULL,
	      "accuracy when saturated");
	CHECK(strstr(out, "gatewayd_class_rate_in_force_bytes_per_second{link=\"wan\","
			  "direction=\"egress\",class=\"interactive\","
			  "kind=\"fq_codel\"} 1250000\n"),
	      "the rate in force in bytes per second (base unit)");
	CHECK(strstr(out, "gatewayd_direction_rate_in_force_bytes_per_second{link=\"wan\","
			  "direction=\"egress\",kind=\"htb\"} 11875000\n"),
	      "the direction's rate in force");
	CHECK(strstr(out, "gatewayd_class_configured_rate_bytes_per_second{link=\"wan\","
			  "direction=\"egress\",class=\"interactive\","
			  "kind=\"fq_codel\"} 1250000\n"),
	      "its deprecated alias: the same value");
	CHECK(strstr(out, "gatewayd_direction_configured_rate_bytes_per_second{link=\"wan\","
			  "direction=\"egress\",kind=\"htb\"} 11875000\n"),
	      "the direction's deprecated alias: the same value");
	CHECK(strstr(out, "# HELP gatewayd_class_configured_rate_bytes_per_second Deprecated"),
	      "the alias's HELP says it is deprecated");
	CHECK(strstr(out, "gatewayd_class_queue_delay_seconds{link=\"wan\",direction=\"egress\","
			  "class=\"interactive\",kind=\"fq_codel\"} 0.0025\n"),
	      "queue delay in seconds");
	CHECK(strstr(out, "gatewayd_direction_dropped_packets_total{link=\"lan\","
			  "direction=\"ingress\",kind=\"htb\"} 17\n"), "direction total, no class label");
	CHECK(!strstr(out, "gatewayd_direction_queue_delay_seconds{link=\"lan\",direction=\"egress\""),
	      "a NaN gauge is left out");
	CHECK(strstr(out, "gatewayd_cake_tin_threshold_bytes_per_second{link=\"wan\","
			  "direction=\"egress\",class=\"video\",kind=\"cake\",tin=\"3\"} 500000\n"),
	      "cake tin with a tin label");
	CHECK(strstr(out, "gatewayd_cake_tin_peak_delay_seconds{link=\"wan\",direction=\"ingress\","
			  "class=\"default\",kind=\"cake\",tin=\"0\"} 0.0015\n"), "tin delay in seconds");
	CHECK_EQ_INT(count(out, "gatewayd_cake_tin_sent_bytes_total{"), 8, "8 tins (2 cakes x 4)");
	CHECK(strstr(out, "gatewayd_fq_codel_max_packet_bytes{link=\"wan\",direction=\"egress\","
			  "class=\"interactive\",kind=\"fq_codel\"} 1514\n"), "fq_codel extras");
	CHECK(strstr(out, "gatewayd_build_info{version=\"" GW_VERSION "\"} 1\n"), "build_info");
	CHECK(strstr(out, "\ngatewayd_up 1\n"), "up 1 when fresh");
	CHECK(strstr(out, "\ngatewayd_samples_total 3600\n"), "samples_total");
	CHECK(strstr(out, "\ngatewayd_late_samples_total 1\n"), "late_samples_total");
	CHECK(strstr(out, "\ngatewayd_sample_duration_seconds 0.00125\n"), "sample duration in s");
	CHECK(strstr(out, "\ngatewayd_sample_lag_seconds 0.0005\n"), "sample lag in s");
	CHECK(strstr(out, "\ngatewayd_last_sample_timestamp_seconds 1699999999.5\n"),
	      "timestamp to the sub-second");
	run_promtool(out);
	free(out);

	r = gw_webui_metrics(s, NOW + 10, &out, &len);
	CHECK(r == 0 && strstr(out, "\ngatewayd_up 0\n"), "up 0 when 10 intervals old");
	free(out);
	r = gw_webui_metrics(NULL, NOW, &out, &len);
	CHECK(r == 0 && strstr(out, "\ngatewayd_up 0\n") && !strstr(out, "gatewayd_class_"),
	      "no snapshot: build info and up 0 only");
	free(out);
}

/* lan waiting for its interface: present false, its directions waiting with no counters;
 * /metrics gatewayd_link_present 0 for it (1 for wan) and none of its class samples. */
static void test_waiting_link(void)
{
	struct gw_snapshot *s = make_snapshot();
	struct json_object *j = NULL;
	char *out = NULL, *m = NULL;
	size_t len = 0;

	s->dirs[2].waiting = s->dirs[3].waiting = true;
	if (CHECK(gw_webui_status_json(s, NOW, &out, &len) == 0 && (j = json_tokener_parse(out)),
		  "waiting: status JSON renders and parses")) {
		CHECK(json_object_get_boolean(get(j, "links.0.present")) &&
		      !json_object_get_boolean(get(j, "links.1.present")),
		      "waiting: wan present, lan not");
		CHECK(!json_object_get_boolean(get(j, "links.0.directions.0.waiting")) &&
		      json_object_get_boolean(get(j, "links.1.directions.0.waiting")) &&
		      json_object_get_boolean(get(j, "links.1.directions.1.waiting")),
		      "waiting: lan's two directions are waiting, wan's not");
		CHECK(has_null(j, "links.1.directions.0.total") &&
		      json_object_array_length(get(j, "links.1.directions.0.classes")) == 0 &&
		      has_null(j, "links.1.directions.1.latency") &&
		      get(j, "links.0.directions.0.total.sent_bytes") != NULL,
		      "waiting: no counters for lan (total null, classes empty), wan's as before");
		CHECK_EQ_STR(get_str(j, "links.1.directions.0.shaper"), "tbf",
			     "waiting: a waiting direction still says its shaper");
	}
	if (CHECK(gw_webui_metrics(s, NOW, &m, &len) == 0, "waiting: metrics render")) {
		CHECK(strstr(m, "# TYPE gatewayd_link_present gauge\n") &&
		      strstr(m, "\ngatewayd_link_present{link=\"wan\",interface=\"eth0\"} 1\n") &&
		      strstr(m, "\ngatewayd_link_present{link=\"lan\",interface=\"eth1\"} 0\n"),
		      "waiting: gatewayd_link_present 1 for wan, 0 for lan");
		CHECK(!strstr(m, "gatewayd_class_sent_bytes_total{link=\"lan\"") &&
		      !strstr(m, "gatewayd_direction_sent_bytes_total{link=\"lan\"") &&
		      strstr(m, "gatewayd_class_sent_bytes_total{link=\"wan\""),
		      "waiting: no class or direction samples for lan, wan's there");
		CHECK_EQ_INT(count(m, "gatewayd_link_present{"), 2, "waiting: one gatewayd_link_present per link");
	}
	json_object_put(j);
	free(out);
	free(m);
	gw_snapshot_put(s);
}

static void test_escape(void)
{
	struct gw_buf b = { 0 };
	size_t len;
	char *out = NULL;

	gw_prom_escape(&b, "a\\b\"c\nd");
	if (CHECK(gw_buf_take(&b, &out, &len) == 0, "escape renders"))
		CHECK_EQ_STR(out, "a\\\\b\\\"c\\nd", "backslash, quote, newline escaped");
	free(out);
}

static void test_buf(void)
{
	struct gw_buf b = { 0 };
	size_t len = 0;
	char *out = NULL;

	for (int i = 0; i < 10000; i++)
		gw_buf_printf(&b, "%05d,", i);
	CHECK(gw_buf_take(&b, &out, &len) == 0 && len == 60000 && !strncmp(out + 59994, "09999,", 6),
	      "buffer grows to 60000 bytes");
	free(out);
	b = (struct gw_buf){ .max = 100 };
	for (int i = 0; i < 100; i++)
		gw_buf_put(&b, "0123456789", 10);
	CHECK_EQ_INT(gw_buf_take(&b, &out, &len), -EFBIG, "a bounded buffer says -EFBIG");
	b = (struct gw_buf){ 0 };
	CHECK(gw_buf_take(&b, &out, &len) == 0 && len == 0 && out[0] == '\0',
	      "an empty buffer is an empty string");
	free(out);
}

static void test_health(const struct gw_snapshot *s)
{
	char why[128];

	CHECK(gw_webui_healthy(s, NOW, why, sizeof(why)) && !why[0], "healthy when fresh");
	CHECK(gw_webui_healthy(s, s->unix_time + 2.9, why, sizeof(why)), "healthy at 2.9 intervals");
	CHECK(!gw_webui_healthy(s, s->unix_time + 3.1, why, sizeof(why)) &&
	      strstr(why, "last sample 3.1 s ago"), "stale past 3 intervals: %s", why);
	CHECK(!gw_webui_healthy(NULL, NOW, why, sizeof(why)) && !strcmp(why, "no sample yet"),
	      "no snapshot: %s", why);
}

static int query(const char *const *kv, size_t n, struct gw_history_query *q, char *err)
{
	struct gw_query_arg a[10];

	for (size_t i = 0; i < n; i++)
		a[i] = (struct gw_query_arg){ kv[2 * i], kv[2 * i + 1] };
	return gw_webui_history_query(a, n, NOW, q, err, 160);
}

static void test_history_query(void)
{
	static const char *const good[] = { "link", "wan", "direction", "egress" };
	static const char *const ctr[] = { "link", "ctr:eth0.100@x", "direction", "egress" };
	static const char *const full[] = { "link", "wan", "direction", "ingress", "class", "bulk",
		"from", "1699999000", "to", "1699999500.5", "resolution", "minute" };
	static const struct { const char *kv[20]; size_t n; const char *why; } bad[] = {
		{ { "direction", "egress" }, 1, "'link' is required" },
		{ { "link", "wan" }, 1, "'direction' must be egress or ingress" },
		{ { "link", "wan", "direction", "up" }, 2, "'direction' must be" },
		{ { "link", "w\"an", "direction", "egress" }, 2, "'link' must be a name" },
		{ { "link", "w:an", "direction", "egress" }, 2, "'link' must be a name" },
		{ { "link", "ctr:", "direction", "egress" }, 2, "followed by an interface name" },
		{ { "link", "ctr:a/b", "direction", "egress" }, 2, "followed by an interface name" },
		{ { "link", "ctr:a:b", "direction", "egress" }, 2, "followed by an interface name" },
		{ { "link", "ctr:a b", "direction", "egress" }, 2, "followed by an interface name" },
		{ { "link", "ctr:veth0123456789ab", "direction", "egress" }, 2,
		  "followed by an interface name" },
		{ { "link", "wan", "direction", "egress", "class", "" }, 3, "'class' needs a value" },
		{ { "link", "wan", "direction", "egress", "class", NULL }, 3, "needs a value" },
		{ { "link", "wan", "direction", "egress", "from", "1e9" }, 3, "'from' must be unix" },
		{ { "link", "wan", "direction", "egress", "from", "-1" }, 3, "'from' must be unix" },
		{ { "link", "wan", "direction", "egress", "to", "inf" }, 3, "'to' must be unix" },
		{ { "link", "wan", "direction", "egress", "to", "1.2.3" }, 3, "'to' must be unix" },
		{ { "link", "wan", "direction", "egress", "to", "99999999999999" }, 3, "'to' must be" },
		{ { "link", "wan", "direction", "egress", "from", "20", "to", "10" }, 4,
		  "'from' is after 'to'" },
		{ { "link", "wan", "direction", "egress", "resolution", "hour" }, 3,
		  "'resolution' must be raw or minute" },
		{ { "link", "wan", "direction", "egress", "bogus", "1" }, 3,
		  "unknown query parameter 'bogus'" },
		{ { "link", "wan", "link", "lan", "direction", "egress" }, 3, "'link' given more" },
		{ { "link", "wan", "direction", "egress", "a", "1", "b", "1", "c", "1", "d", "1",
		    "e", "1", "f", "1" }, 8, "unknown query parameter 'a'" },
		{ { "link", "a", "link", "a", "link", "a", "link", "a", "link", "a", "link", "a",
		    "link", "a", "link", "a" }, 9, "too many query parameters" },
	};
	struct gw_history_query q;
	char err[160];

	CHECK(query(good, 2, &q, err) == 0 && !strcmp(q.link, "wan") &&
	      !strcmp(q.direction, "egress") && !strcmp(q.class_name, "total") && !q.minute &&
	      q.to == NOW && q.from == NOW - 900, "history query defaults: total, last 15 min, raw");
	CHECK(query(ctr, 2, &q, err) == 0 && !strcmp(q.link, "ctr:eth0.100@x"),
	      "a container's link: ctr: and an interface name (%s)", q.link);
	CHECK(query(full, 6, &q, err) == 0 && !strcmp(q.class_name, "bulk") && q.minute &&
	      q.from == 1699999000 && q.to == 1699999500.5, "history query, every key");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char kv0[64];
		int r = query(bad[i].kv, bad[i].n, &q, err);

		snprintf(kv0, sizeof(kv0), "%s=%s", bad[i].kv[2 * (bad[i].n - 1)],
			 bad[i].kv[2 * (bad[i].n - 1) + 1] ? bad[i].kv[2 * (bad[i].n - 1) + 1] : "");
		CHECK(r == -EINVAL && strstr(err, bad[i].why), "history query refused (...%s): %s",
		      kv0, err);
	}
}

static void test_history_json(void)
{
	struct gw_history_query q = { "wan", "egress", "total", 100, 200, false };
	struct gw_hist_point p[2] = {
		{ 150, 1, 2, 3, 0.5f, 1, 1.5f, 0, 100, 20, 25, 40, false, NAN },
		{ 151, NAN, 2, 3, 0.5f, 1, 1.5f, INFINITY, 100, NAN, NAN, NAN, false, NAN },
	};
	struct json_object *j;
	size_t len;
	char *out = NULL;
	int r = gw_webui_history_json(&q, p, 2, false, &out, &len);

	if (!CHECK(r == 0, "history JSON renders"))
		return;
	CHECK(!contains_ci(out, "nan") && !contains_ci(out, "inf"), "history: no nan/inf: %s", out);
	j = json_tokener_parse(out);
	CHECK(j && json_object_array_length(get(j, "columns")) == 12 &&
	      json_object_array_length(get(j, "points")) == 2 &&
	      json_object_array_length(get(j, "points.0")) == 12, "history: 12 columns, 2 rows");
	CHECK(j && !strcmp(get_str(j, "columns.9"), "baseline_ms") &&
	      json_object_get_double(get(j, "points.0.11")) == 40 && get(j, "points.1.9") == NULL,
	      "history: latency columns, null where the link is not probed");
	CHECK(j && get(j, "points.1.1") == NULL && json_object_get_double(get(j, "points.1.2")) == 2,
	      "history: a NaN point value is null");
	CHECK(j && !strcmp(get_str(j, "columns.2"), "rate_bits_per_second_avg"),
	      "history: columns named with units");
	json_object_put(j);
	free(out);
}

/* crypt_r as libcrypt has it, counted: the auth code in this program calls this one, so a
 * test can tell that a hash too costly to run was refused before crypt(3) ran it (and not by
 * how long the refusal took). */
static unsigned long crypt_calls;

char *crypt_r(const char *phrase, const char *setting, struct crypt_data *data)
{
	static char *(*real)(const char *, const char *, struct crypt_data *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "crypt_r");
	crypt_calls++;
	return real ? real(phrase, setting, data) : NULL;
}

/* A crypt(3) hash made here, so the test needs no openssl. */
static void make_hash(const char *password, char *out, size_t len)
{
	struct crypt_data cd;

	memset(&cd, 0, sizeof(cd));
	snprintf(out, len, "%s", crypt_r(password, "$6$gatewaydtest$", &cd));
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_auth(void)
{
	char dir[] = "/tmp/gw-auth-XXXXXX", path[64], text[512], h1[160], h2[160], err[256];
	struct gw_auth *a = NULL;
	int r;

	if (!CHECK(mkdtemp(dir) != NULL, "temp dir"))
		return;
	snprintf(path, sizeof(path), "%s/users", dir);
	make_hash("s3cret", h1, sizeof(h1));
	make_hash("other", h2, sizeof(h2));
	snprintf(text, sizeof(text), "# users\n\nadmin:%s\r\nbob:%s\n", h1, h2);
	write_file(path, text);
	r = gw_auth_load(path, &a, err, sizeof(err));
	if (CHECK(r == 0 && a, "auth file loads (%s)", r ? err : "")) {
		unsigned long calls = crypt_calls;

		CHECK(gw_auth_check(a, "admin", "s3cret") && crypt_calls > calls,
		      "right password (crypt(3) ran it: the auth code's crypt_r is the one counted)");
		CHECK(gw_auth_check(a, "admin", "s3cret"), "right password again (remembered)");
		CHECK(!gw_auth_holds(a, "s3cret"), "the remembered password is not kept in clear");
		CHECK(gw_auth_holds(a, "$5$rounds=1000$"), "but as a salted quick hash");
		CHECK(!gw_auth_check(a, "admin", "s3cre"), "wrong password");
		CHECK(!gw_auth_check(a, "admin", "s3crett"), "a longer wrong password");
		CHECK(gw_auth_check(a, "bob", "other"), "second user (CRLF line)");
		CHECK(!gw_auth_check(a, "bob", "s3cret"), "another user's password");
		CHECK(!gw_auth_check(a, "nobody", "s3cret"), "unknown user");
		CHECK(!gw_auth_check(a, "", ""), "empty user");
		CHECK(!gw_auth_check(a, "admin", NULL), "no password");
		CHECK(gw_auth_check(a, "admin", "s3cret"), "right password after wrong ones");
		CHECK(!gw_auth_holds(a, "other"), "nor bob's");
	}
	gw_auth_free(a);

	static const struct { const char *text, *msg; } bad[] = {
		{ "admin:plaintext\n", ":1: not a crypt(3) hash" },
		{ "# nobody\n", "no \"user:HASH\" line" },
		{ "\nadmin\n", ":2: expected \"user:HASH\"" },
		{ ":$6$x$y\n", ":1: user name must have 1..64 characters" },
		{ "admin:$6$abc$ def\n", ":1: not a crypt(3) hash" },
		/* regression (seen writing fuzz_auth): costs that held the start (and logins) for hours
		 * or took gigabytes were handed to crypt(3); refused now before it runs */
		{ "admin:$2b$31$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABC\n",
		  ":1: the hash's cost is above" },
		{ "admin:$6$rounds=999999999$abc$def\n", ":1: the hash's cost is above" },
		{ "admin:$5$rounds=500001$abc$def\n", ":1: the hash's cost is above" },
		{ "admin:$sha1$99999999999999999999999$abc$def\n", ":1: the hash's cost is above" },
		{ "admin:$md5,rounds=4000000$abc$def\n", ":1: the hash's cost is above" },
		{ "admin:$y$jFT$abcdefghijklmnop$def\n", ":1: the hash's cost is above" },
		{ "admin:$gy$jCT$abcdefghijklmnop$def\n", ":1: the hash's cost is above" },
		{ "admin:$7$EU..../....abcdefgh$def\n", ":1: the hash's cost is above" },
		{ "admin:$6$rounds=12x$abc$def\n", ":1: the hash's cost is not a number" },
		{ "admin:$9$abc$def\n", ":1: not a crypt(3) hash gatewayd takes" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned long calls = crypt_calls;

		write_file(path, bad[i].text);
		r = gw_auth_load(path, &a, err, sizeof(err));
		CHECK(r == -EINVAL && !a && strstr(err, bad[i].msg) && !strncmp(err, path, strlen(path)),
		      "bad auth file refused: %s", err);
		CHECK(crypt_calls == calls, "and before crypt(3) ran it (%lu calls)", crypt_calls - calls);
	}
	/* the cheap settings of each method with a cost still load */
	static const char *const cheap[] = { "$2b$04$", "$y$j75$", "$gy$j85$", "$5$rounds=1000$",
					     "$sha1$40000$", "$md5,rounds=1000$", "$1$" };
	for (size_t i = 0; i < sizeof(cheap) / sizeof(cheap[0]); i++) {
		char setting[CRYPT_GENSALT_OUTPUT_SIZE];
		struct crypt_data cd;
		const char *h;

		memset(&cd, 0, sizeof(cd));
		if (!strncmp(cheap[i], "$2b$", 4) || cheap[i][1] == 'y' || cheap[i][1] == 'g') {
			/* bcrypt's and yescrypt's salts are base-64 of a set length */
			if (!crypt_gensalt_rn(cheap[i][1] == '2' ? "$2b$" : cheap[i][1] == 'y' ?
					      "$y$" : "$gy$",
					      cheap[i][1] == '2' ? 4 : cheap[i][1] == 'y' ? 1 : 2,
					      "0123456789abcdef", 16, setting, sizeof(setting)))
				setting[0] = '\0';
		} else {
			snprintf(setting, sizeof(setting), "%sgatewayd$", cheap[i]);
		}
		h = crypt_r("pw", setting, &cd);
		snprintf(text, sizeof(text), "admin:%s\n", h ? h : "*");
		write_file(path, text);
		r = gw_auth_load(path, &a, err, sizeof(err));
		CHECK(r == 0 && a && gw_auth_check(a, "admin", "pw"), "a %s hash loads and checks "
		      "(%s: %s)", cheap[i], h ? h : "no hash", r ? err : "");
		gw_auth_free(a);
		a = NULL;
	}
	snprintf(text, sizeof(text), "admin:%s\nadmin:%s\n", h1, h2);
	write_file(path, text);
	r = gw_auth_load(path, &a, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, ":2: user listed twice"), "duplicate user: %s", err);
	unlink(path);
	r = gw_auth_load(path, &a, err, sizeof(err));
	CHECK(r == -ENOENT && strstr(err, "No such file"), "missing file: -ENOENT (%s)", err);
	r = gw_auth_load(dir, &a, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "not a regular file"), "a directory: %s", err);
	rmdir(dir);
}

static void test_snapshot_put(void)
{
	struct gw_snapshot *s = make_snapshot();

	atomic_fetch_add(&s->refs, 1);
	gw_snapshot_put(s);
	CHECK_EQ_INT(atomic_load(&s->refs), 1, "put drops one reference");
	gw_snapshot_put(s);	/* frees: ASan would see a leak or a double free */
	gw_snapshot_put(NULL);
	CHECK(1, "put frees at zero (checked under ASan) and takes NULL");
}

/* ---- the server itself, on loopback ---- */

static struct gw_snapshot *the_snapshot;

static struct gw_snapshot *src_get(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&the_snapshot->refs, 1);
	return the_snapshot;
}

static int src_history(void *ctx, const char *link, const char *direction, const char *cls,
		       double from, double to, bool minute, struct gw_hist_point *out, size_t max)
{
	(void)ctx, (void)from, (void)to, (void)minute;
	if (strcmp(link, "wan") || strcmp(direction, "egress") || strcmp(cls, "total"))
		return -ENOENT;
	for (size_t i = 0; i < 3 && i < max; i++)
		out[i] = (struct gw_hist_point){ .t = 100.0 + (double)i, .rate_bps_avg = 1e6f };
	return 3;
}

/* The daemon's listen addresses come parsed from config/; so do the tests'. */
static int listen_at(struct gw_webui_listen *l, const char *text)
{
	l->text = text;
	return gw_parse_listen(text, &l->addr, &l->len);
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* One request over a fresh connection; the reply (up to cap bytes) into buf. */
static int http_get(int port, const char *request, char *buf, size_t cap)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 5, 0 };
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
		close(fd);
		return -errno;
	}
	while (len + 1 < cap && (n = read(fd, buf + len, cap - len - 1)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return (int)len;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void test_server(void)
{
	struct gw_webui_source src = { NULL, src_get, src_history, NULL };
	char addr[32], err[256], *buf = malloc(1 << 20);
	struct gw_webui_listen listen[2];
	struct gw_webui *w = NULL, *w2 = NULL;
	int port = free_port(), fds = open_fds(), r;

	the_snapshot = make_snapshot();
	the_snapshot->unix_time = 1e300;	/* always fresh, whatever the clock says */
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	CHECK(listen_at(&listen[0], addr) == 0, "listen address %s parsed", addr);
	r = gw_webui_start(listen, 1, NULL, &src, &w, err, sizeof(err));
	if (!CHECK(r == 0 && w, "server starts on %s (%s)", addr, err))
		goto out;
	r = http_get(port, "GET /healthz HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && !strncmp(buf, "HTTP/1.", 7) && !strncmp(buf + 8, " 200 ", 5) &&
	      strstr(buf, "\r\n\r\nok\n"),
	      "GET /healthz: 200 ok");
	r = http_get(port, "GET /api/status HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, "Content-Type: application/json") &&
	      strstr(buf, "\"seq\":42"), "GET /api/status: the snapshot's JSON");
	r = http_get(port, "GET /api/status HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, "\"seq\":42"), "GET /api/status again (the cached reply)");
	r = http_get(port, "GET /metrics HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, "Content-Type: text/plain; version=0.0.4") &&
	      strstr(buf, "gatewayd_class_sent_bytes_total{"), "GET /metrics");
	r = http_get(port, "GET /api/history?link=wan&direction=egress HTTP/1.0\r\n\r\n", buf,
		     1 << 20);
	CHECK(r > 0 && strstr(buf, "200 OK") && strstr(buf, "\"points\":[[100,"),
	      "GET /api/history");
	r = http_get(port, "GET /api/history?link=wan&direction=up HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, " 400 ") && strstr(buf, "'direction' must be"),
	      "bad history query: 400 with the reason");
	r = http_get(port, "GET /api/history?link=lan&direction=egress HTTP/1.0\r\n\r\n", buf,
		     1 << 20);
	CHECK(r > 0 && strstr(buf, " 404 "), "unknown series: 404");
	r = http_get(port, "DELETE / HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, " 405 ") && strstr(buf, "Allow: GET, HEAD"), "DELETE: 405");
	r = http_get(port, "GET / HTTP/1.0\r\n\r\n", buf, 1 << 20);
	CHECK(r > 0 && strstr(buf, "<!doctype html>") &&
	      strstr(buf, "Content-Security-Policy: default-src 'none'"), "GET /: the page");

	/* the same address twice: the second server cannot bind and says why */
	r = gw_webui_start(listen, 1, NULL, &src, &w2, err, sizeof(err));
	CHECK(r == -EADDRINUSE && !w2 && strstr(err, "Address already in use"),
	      "address in use: -EADDRINUSE (%s)", err);
	gw_webui_stop(w);
	w = NULL;
	CHECK_EQ_INT(open_fds(), fds, "stop leaves no fd open");

	/* TEST-NET-1 is on no interface here: the bind fails and nothing is sent anywhere */
	listen_at(&listen[1], "192.0.2.1:80");
	r = gw_webui_start(listen, 2, NULL, &src, &w, err, sizeof(err));
	CHECK(r == -EADDRNOTAVAIL && !w && strstr(err, "192.0.2.1:80"),
	      "second address not here: -EADDRNOTAVAIL, nothing left running (%s)", err);
	listen[1].addr.ss_family = AF_UNIX;
	r = gw_webui_start(listen, 2, NULL, &src, &w, err, sizeof(err));
	CHECK(r == -EAFNOSUPPORT && !w, "second address not IP: refused, nothing left running (%s)",
	      err);
	r = gw_webui_start(listen, 1, "/nonexistent/users", &src, &w, err, sizeof(err));
	CHECK(r == -ENOENT && !w && strstr(err, "/nonexistent/users"), "missing auth file: %s", err);
	CHECK_EQ_INT(open_fds(), fds, "failed starts leave no fd open");
out:
	gw_webui_stop(w);
	gw_snapshot_put(the_snapshot);
	free(buf);
}

/* A socket the caller bound (as the daemon does for its unprivileged web process): served,
 * kept open by the caller across a stop, and served again by the next server. */
static void test_given_socket(void)
{
	struct gw_webui_source src = { NULL, src_get, src_history, NULL };
	char addr[32], err[256], *buf = malloc(1 << 16);
	struct gw_webui_listen l;
	struct gw_webui_opts o = { .auth_file = NULL };
	struct gw_webui *w = NULL;
	int port = free_port(), fd = -1, fds = open_fds(), r;

	the_snapshot = make_snapshot();
	the_snapshot->unix_time = 1e300;
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	listen_at(&l, addr);
	r = gw_webui_bind(&l, &fd, err, sizeof(err));
	if (!CHECK(r == 0 && fd >= 0, "the caller binds %s (%s)", addr, err))
		goto out;
	o.listen_fds = &fd;
	for (int round = 0; round < 2; round++) {
		r = gw_webui_start_opts(&l, 1, &o, &src, &w, err, sizeof(err));
		CHECK(r == 0 && w, "server %d on the caller's socket (%s)", round, err);
		r = http_get(port, "GET /api/status HTTP/1.0\r\n\r\n", buf, 1 << 16);
		CHECK(r > 0 && strstr(buf, "\"seq\":42"), "server %d answers on it", round);
		if (!round) {
			int other = -1;

			r = gw_webui_bind(&l, &other, err, sizeof(err));
			CHECK(r == -EADDRINUSE && strstr(err, "Address already in use"),
			      "a second bind while it is served: %s", err);
			if (other >= 0)
				close(other);
		}
		gw_webui_stop(w);
		w = NULL;
		CHECK(fcntl(fd, F_GETFD) >= 0, "the caller's socket stays open after a stop");
	}
	close(fd);
	CHECK_EQ_INT(open_fds(), fds, "nothing else left open");
out:
	gw_snapshot_put(the_snapshot);
	free(buf);
}

/* The probe's targets: one-way delays in /api/status (null when none) and in /metrics, whose
 * families appear only when a target has one. */
static void test_probe_owd(struct gw_snapshot *s)
{
	struct gw_snap_probe saved = s->probe;
	struct json_object *root, *t;
	size_t len = 0;
	char *out = NULL;

	s->probe = (struct gw_snap_probe){ .enabled = true, .interval_us = 100000, .n_targets = 2 };
	snprintf(s->probe.method, sizeof(s->probe.method), "icmp");
	snprintf(s->probe.link, sizeof(s->probe.link), "wan");
	for (int i = 0; i < 2; i++) {
		snprintf(s->probe.targets[i].host, sizeof(s->probe.targets[i].host), "192.0.2.%d",
			 i + 1);
		s->probe.targets[i].up = true;
		s->probe.targets[i].last_rtt_ms = 12.5;
		s->probe.targets[i].last_owd_up_ms = s->probe.targets[i].last_owd_down_ms = NAN;
	}
	if (CHECK(!gw_webui_status_json(s, NOW, &out, &len), "probe owd: icmp JSON renders")) {
		root = json_tokener_parse(out);
		t = root ? json_object_array_get_idx(get(root, "probe.targets"), 0) : NULL;
		CHECK(t && has_null(t, "last_owd_up_ms") && has_null(t, "last_owd_down_ms"),
		      "probe owd: icmp: last_owd_up_ms and last_owd_down_ms null");
		json_object_put(root);
	}
	free(out);
	out = NULL;
	if (CHECK(!gw_webui_metrics(s, NOW, &out, &len), "probe owd: icmp metrics render"))
		CHECK(strstr(out, "gatewayd_probe_target_last_rtt_seconds{") &&
		      !strstr(out, "owd"), "probe owd: icmp: no one-way delay families");
	free(out);
	out = NULL;
	snprintf(s->probe.method, sizeof(s->probe.method), "icmp-timestamp");
	s->probe.targets[1].last_owd_up_ms = 9.25;
	s->probe.targets[1].last_owd_down_ms = -1.5;
	if (CHECK(!gw_webui_status_json(s, NOW, &out, &len), "probe owd: JSON renders")) {
		root = json_tokener_parse(out);
		t = root ? json_object_array_get_idx(get(root, "probe.targets"), 1) : NULL;
		CHECK(t && json_object_get_double(get(t, "last_owd_up_ms")) == 9.25 &&
		      json_object_get_double(get(t, "last_owd_down_ms")) == -1.5,
		      "probe owd: the target's last one-way delays, a negative one too");
		CHECK(root && !strcmp(get_str(root, "probe.method"), "icmp-timestamp"),
		      "probe owd: method icmp-timestamp");
		json_object_put(root);
	}
	free(out);
	out = NULL;
	if (CHECK(!gw_webui_metrics(s, NOW, &out, &len), "probe owd: metrics render")) {
		CHECK(strstr(out, "gatewayd_probe_target_last_owd_up_seconds{target=\"192.0.2.2\"} "
			      "0.00925\n") && strstr(out, "gatewayd_probe_target_last_owd_down_seconds"
			      "{target=\"192.0.2.2\"} -0.0015\n"), "probe owd: both metrics, seconds");
		CHECK(!strstr(out, "owd_up_seconds{target=\"192.0.2.1\"}"),
		      "probe owd: no sample for a target without one");
		CHECK_EQ_INT(count(out, "# TYPE gatewayd_probe_target_last_owd_up_seconds gauge\n"), 1,
			     "probe owd: TYPE once");
		run_promtool(out);
	}
	free(out);
	s->probe = saved;
}

static void fill_prober(struct gw_snap_probe *p, const char *link, const char *source,
			uint64_t sent)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
	snprintf(p->method, sizeof(p->method), "icmp");
	snprintf(p->link, sizeof(p->link), "%s", link);
	snprintf(p->source, sizeof(p->source), "%s", source);
	p->interval_us = 100000;
	p->n_targets = 1;
	snprintf(p->targets[0].host, sizeof(p->targets[0].host), "192.0.2.1");	/* on both */
	p->targets[0].up = true;
	p->targets[0].sent = sent;
	p->targets[0].received = sent;
	p->targets[0].last_rtt_ms = 12.5;
	p->targets[0].last_owd_up_ms = p->targets[0].last_owd_down_ms = NAN;
}

/* One global block: `probe` as it always was, no `probes`, no link label on the targets. A
 * prober per link: `probes` lists each with its source, every target sample has its link. */
static void test_probers(struct gw_snapshot *s)
{
	struct json_object *j;
	char *out = NULL;
	size_t len = 0;

	fill_prober(&s->probe, "wan", "", 10);
	if (!CHECK(gw_webui_status_json(s, NOW, &out, &len) == 0, "status JSON with a prober"))
		return;
	j = json_tokener_parse(out);
	CHECK(j && get(j, "probe.targets.0") && !get(j, "probes") && !get(j, "probe.source"),
	      "one global block: probe, no probes, no source key");
	CHECK(strstr(out, "\"probe\":{\"method\":\"icmp\",\"link\":\"wan\",\"interval_seconds\":0.1,"
			  "\"targets\":[{\"host\":\"192.0.2.1\",") != NULL,
	      "one global block: probe's keys in their order");
	json_object_put(j);
	free(out);
	gw_webui_metrics(s, NOW, &out, &len);
	CHECK(strstr(out, "\ngatewayd_probe_target_sent_total{target=\"192.0.2.1\"} 10\n") &&
	      strstr(out, "\ngatewayd_probe_interval_seconds 0.1\n") &&
	      strstr(out, "\ngatewayd_probe_info{link=\"wan\",method=\"icmp\"} 1\n") &&
	      !strstr(out, "gatewayd_probe_target_sent_total{link="),
	      "one global block: target samples without a link label, one interval");
	free(out);

	s->probes = calloc(2, sizeof(*s->probes));
	s->n_probes = 2;
	fill_prober(&s->probes[0], "wan", "", 10);
	fill_prober(&s->probes[1], "lte", "198.51.100.10", 20);
	s->probes[1].interval_us = 50000;
	gw_webui_status_json(s, NOW, &out, &len);
	j = json_tokener_parse(out);
	CHECK(j && json_object_array_length(get(j, "probes")) == 2 &&
	      !strcmp(get_str(j, "probes.1.link"), "lte") &&
	      !strcmp(get_str(j, "probes.1.source"), "198.51.100.10") &&
	      has_null(j, "probes.0.source") &&
	      json_object_get_int64(get(j, "probes.1.targets.0.sent")) == 20 &&
	      !strcmp(get_str(j, "probe.link"), "wan") && !get(j, "probe.source"),
	      "a prober per link: probes lists both, with their sources; probe stays");
	json_object_put(j);
	free(out);
	gw_webui_metrics(s, NOW, &out, &len);
	CHECK(strstr(out, "\ngatewayd_probe_target_sent_total{link=\"wan\",target=\"192.0.2.1\"} 10\n") &&
	      strstr(out, "\ngatewayd_probe_target_sent_total{link=\"lte\",target=\"192.0.2.1\"} 20\n") &&
	      strstr(out, "\ngatewayd_probe_interval_seconds{link=\"lte\"} 0.05\n") &&
	      strstr(out, "\ngatewayd_probe_info{link=\"lte\",method=\"icmp\"} 1\n") &&
	      count(out, "# TYPE gatewayd_probe_info gauge\n") == 1 &&
	      !strstr(out, "gatewayd_probe_target_sent_total{target="),
	      "a prober per link: the same target on two links told apart by the link label");
	run_promtool(out);
	free(out);
	free(s->probes);
	s->probes = NULL;
	s->n_probes = 0;
	memset(&s->probe, 0, sizeof(s->probe));
}

static struct sockaddr_storage addr_of(const char *ip)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		ss.ss_family = AF_INET6;
		inet_pton(AF_INET6, ip, &((struct sockaddr_in6 *)&ss)->sin6_addr);
	} else {
		ss.ss_family = AF_INET;
		inet_pton(AF_INET, ip, &((struct sockaddr_in *)&ss)->sin_addr);
	}
	return ss;
}

/* Tries n connections from ip: how many the limiter lets begin (the others are ended). */
static int conns_from(struct gw_limit *l, const char *ip, int n)
{
	struct sockaddr_storage ss = addr_of(ip);
	int got = 0;

	for (int i = 0; i < n; i++) {
		if (gw_limit_conn_room(l, (struct sockaddr *)&ss) &&
		    gw_limit_conn_begin(l, (struct sockaddr *)&ss))
			got++;
		else if (!gw_limit_conn_room(l, (struct sockaddr *)&ss))
			continue;	/* refused before it was taken on: no end to come */
		else
			gw_limit_conn_end(l, (struct sockaddr *)&ss);
	}
	return got;
}

/* The server's connections per address count an IPv6 /64 as one, as failed logins do. */
static void test_conn_limit(void)
{
	struct sockaddr_storage ss;
	struct gw_limit *l;
	int one, many = 0, v4a, v4b;

	if (!CHECK(gw_limit_new(5, 30, NULL, NULL, &l) == 0, "conn limit: a limiter"))
		return;
	gw_limit_set_conn_max(l, 32);
	one = conns_from(l, "2001:db8:1:1::5", 100);
	for (int i = 0; i < 64; i++) {
		char ip[64];

		snprintf(ip, sizeof(ip), "2001:db8:1:2:%x:%x::1", i, i * 7);
		many += conns_from(l, ip, 32);
	}
	CHECK(one == 32 && many == 32,
	      "conn limit: 64 addresses of one /64, 32 each, get no more slots than one address "
	      "(%d vs %d of 32)", many, one);
	CHECK_EQ_INT(conns_from(l, "2001:db8:1:3::1", 40), 32,
		     "conn limit: the next /64 has its own");
	v4a = conns_from(l, "192.0.2.1", 40);
	v4b = conns_from(l, "192.0.2.2", 40);
	CHECK(v4a == 32 && v4b == 32, "conn limit: IPv4 per address (%d, %d)", v4a, v4b);
	CHECK_EQ_INT(conns_from(l, "::ffff:192.0.2.1", 5), 0,
		     "conn limit: IPv4-mapped IPv6 counts as its IPv4 address");
	ss = addr_of("2001:db8:1:2:ffff::9");
	CHECK_EQ_INT(gw_limit_conn_count(l, (struct sockaddr *)&ss), 32,
		     "conn limit: the /64's count");
	for (int i = 0; i < 10; i++)
		gw_limit_conn_end(l, (struct sockaddr *)&ss);
	CHECK_EQ_INT(conns_from(l, "2001:db8:1:2::77", 20), 10,
		     "conn limit: 10 ended, 10 more from anywhere in the /64");
	/* past the accept policy at once (two threads): begin counts it and says no */
	ss = addr_of("2001:db8:1:1::6");
	CHECK(!gw_limit_conn_begin(l, (struct sockaddr *)&ss) &&
	      gw_limit_conn_count(l, (struct sockaddr *)&ss) == 33,
	      "conn limit: one over (a race past room) is counted and refused");
	gw_limit_conn_end(l, (struct sockaddr *)&ss);
	for (int i = 0; i < 32; i++)
		gw_limit_conn_end(l, (struct sockaddr *)&ss);
	CHECK_EQ_INT(gw_limit_conn_count(l, (struct sockaddr *)&ss), 0,
		     "conn limit: all ended, the address forgotten");
	gw_limit_free(l);
}

int main(void)
{
	struct gw_snapshot *s = make_snapshot();

	test_status_json(s);
	test_metrics(s);
	test_probers(s);
	test_waiting_link();
	test_escape();
	test_buf();
	test_health(s);
	test_probe_owd(s);
	test_history_query();
	test_history_json();
	test_auth();
	gw_snapshot_put(s);
	test_snapshot_put();
	test_server();
	test_given_socket();
	test_conn_limit();
	return tap_done();
}
