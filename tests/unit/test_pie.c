/* tests/unit/test_pie.c: the pie kind from its own file alone: found by name, its config keys
 * and their refusals, only the set attributes on the wire, read back (tupdate in jiffies), its
 * tc words, and its statistics in the common shape and by name in /api/status and /metrics. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <json-c/json.h>
#include "config/config.h"
#include "qdisc/qdisc.h"
#include "qdisc/stats.h"
#include "tests/unit/kind_test.h"
#include "tests/unit/stats_msgs.h"
#include "tests/unit/tap.h"
#include "webui/render.h"

static const struct gw_qdisc_ops *pie;
static enum gw_kind kind;
#define PARENT GW_HANDLE(0xE000, 0x10)	/* where the kind's leaf hangs */

#define CONF(child) KT_CONF("htb", "pie", child)

/* Build o and split its TCA_OPTIONS nest into t; the count of attributes in it, or -1. */
static int wire(const struct gw_tc_obj *o, struct nlattr **t, struct nl_msg **m)
{
	struct nlattr *tb[TCA_MAX + 1], *a;
	int rem, n = 0;

	if (gw_obj_build(o, NLM_F_CREATE, m) ||
	    nlmsg_parse(nlmsg_hdr(*m), sizeof(struct tcmsg), tb, TCA_MAX, NULL) < 0 ||
	    !tb[TCA_OPTIONS] || strcmp(nla_get_string(tb[TCA_KIND]), "pie") ||
	    nla_parse_nested(t, TCA_PIE_MAX, tb[TCA_OPTIONS], NULL) < 0)
		return -1;
	nla_for_each_nested(a, tb[TCA_OPTIONS], rem)
		n++;
	return n;
}

static void test_defaults(void)
{
	struct gw_config *cfg = kt_load(CONF(""), 0);
	struct nlattr *t[TCA_PIE_MAX + 1];
	struct nl_msg *m = NULL;
	struct gw_tc_obj o;
	char buf[256];

	if (!cfg)
		return;
	CHECK(cfg->links[0].dir[0].child.kind == kind, "config: kind = \"pie\" is pie");
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	for (size_t i = 0; i < pie->n_keys; i++)
		CHECK(o.q.knob[i] == GW_UNSET, "unset: knob %zu (%s) is GW_UNSET", i,
		      pie->keys[i].name);
	CHECK(gw_obj_build(&o, NLM_F_CREATE, &m) == 0 &&
	      !nlmsg_find_attr(nlmsg_hdr(m), sizeof(struct tcmsg), TCA_OPTIONS),
	      "nothing set: no options at all (every kernel default)");
	nlmsg_free(m);
	(void)t;
	CHECK(gw_kind_format(pie, buf, sizeof(buf), &o.q) == 0 && !buf[0], "nothing set: no tc words");
	gw_config_free(cfg);
}

static void test_set(void)
{
	struct gw_config *cfg = kt_load(CONF("limit = 500; target = \"10ms\"; tupdate = \"30ms\";\n"
					  " alpha = 3; beta = 25; ecn = true; bytemode = false;\n"
					  " dq_rate_estimator = true;"), 0);
	struct nlattr *t[TCA_PIE_MAX + 1];
	struct gw_tc_obj o, got;
	struct nl_msg *m = NULL;
	char buf[512];

	if (!cfg)
		return;
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	CHECK_EQ_INT(wire(&o, t, &m), 8, "set: eight attributes");
	CHECK(nla_get_u32(t[TCA_PIE_LIMIT]) == 500 && nla_get_u32(t[TCA_PIE_TARGET]) == 10000 &&
	      nla_get_u32(t[TCA_PIE_TUPDATE]) == 30000 && nla_get_u32(t[TCA_PIE_ALPHA]) == 3 &&
	      nla_get_u32(t[TCA_PIE_BETA]) == 25 && nla_get_u32(t[TCA_PIE_ECN]) == 1 &&
	      nla_get_u32(t[TCA_PIE_BYTEMODE]) == 0 &&
	      nla_get_u32(t[TCA_PIE_DQ_RATE_ESTIMATOR]) == 1,
	      "set: every attribute as tc-pie(8) sends it (times in us)");
	CHECK(gw_obj_parse(nlmsg_hdr(m), &got, NULL, 0) == 0 && got.kind == kind,
	      "set: parses back as pie");
	CHECK(gw_kind_same(pie, &o.q, &got.q), "set: read back is the same");
	got.q.knob[2] = 40000;	/* tupdate 30 ms read back as 4 jiffies at HZ=100 */
	CHECK(gw_kind_same(pie, &o.q, &got.q), "tupdate: a jiffy's rounding is the same");
	got.q.knob[2] = 60000;
	CHECK(!gw_kind_same(pie, &o.q, &got.q), "tupdate: 60 ms is not");
	got.q.knob[2] = 30000;
	got.q.knob[3] = 2;
	CHECK(!gw_kind_same(pie, &o.q, &got.q), "alpha: another value differs");
	nlmsg_free(m);
	gw_obj_format_tc(&o, "eth0", NULL, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "tc qdisc add dev eth0 parent e000:10 handle 1000: pie limit 500 target "
		     "10ms tupdate 30ms alpha 3 beta 25 ecn nobytemode dq_rate_estimator",
		     "tc words: tc-pie(8)'s");
	gw_config_free(cfg);

	cfg = kt_load(CONF("ecn = false;"), 0);
	if (!cfg)
		return;
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	CHECK(wire(&o, t, &m) == 1 && nla_get_u32(t[TCA_PIE_ECN]) == 0,
	      "ecn false: sent as 0, alone");
	nlmsg_free(m);
	gw_kind_format(pie, buf, sizeof(buf), &o.q);
	CHECK_EQ_STR(buf, " noecn", "ecn false: noecn");
	gw_config_free(cfg);
}

static const struct kt_bad bad[] = {
	{ "limit = 0;", "'limit' 0 is out of range 1..1000000" },
	{ "target = \"2s\";", "'target' \"2s\" is out of range 1us..1s" },
	{ "tupdate = \"500us\";", "'tupdate' \"500us\" is out of range 1ms..1s" },
	{ "alpha = 33;", "'alpha' 33 is out of range 0..32" },
	{ "beta = -1;", "'beta' -1 is out of range 0..32" },
	{ "ecn = \"yes\";", "'ecn' must be true or false" },
	{ "rtt = \"5ms\";", "'rtt' is a cake setting, not valid for kind \"pie\"" },
	{ "tupdates = 1;", "unknown key 'tupdates' in link 'wan' egress child" },
};

static void test_refusals(void)
{
	kt_refusals("htb", "pie", bad, sizeof(bad) / sizeof(bad[0]));
}

static void fill_pie(struct nl_msg *m)
{
	struct tc_pie_xstats x = {
		.prob = 1ULL << 62, .delay = 12345, .avg_dq_rate = 1250000, .dq_rate_estimating = 1,
		.packets_in = 1000, .dropped = 7, .overlimit = 2, .maxq = 40, .ecn_mark = 5
	};

	nla_put(m, TCA_STATS_APP, sizeof(x), &x);
}

static uint64_t xval(const struct gw_xstats *x, const char *name)
{
	int i = gw_xstat_index(x->desc->fields, x->desc->n_fields, name);

	CHECK(i >= 0, "stats: pie has '%s'", name);
	return i >= 0 ? x->v[i] : 0;
}

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void test_stats(void)
{
	struct nl_msg *m = dumped("pie", 0x10000000, fill_pie);
	struct gw_snapshot snap = { 0 };
	struct gw_snap_dir dir = { 0 };
	struct gw_snap_class cls[1] = { 0 };
	struct json_object *root, *c, *p;
	struct gw_tc_stats s;
	char *out = NULL;
	size_t len;

	CHECK(gw_stats_parse(nlmsg_hdr(m), &s) == 0 && s.kind == kind && s.x.desc == pie->xdesc,
	      "stats: a pie with its xstats parses");
	nlmsg_free(m);
	CHECK(s.ecn_marks == 5 && s.has_delay && s.delay_us == 12345 && s.qlen == 7,
	      "stats: the common shape: ECN marks, its own delay, the queue");
	CHECK(xval(&s.x, "packets_in") == 1000 && xval(&s.x, "dropped_packets") == 7 &&
	      xval(&s.x, "overlimit_packets") == 2 && xval(&s.x, "max_queue_packets") == 40 &&
	      xval(&s.x, "drop_probability") == 1ULL << 62, "stats: its values by name");

	/* rendered by name, with nothing in webui/ knowing pie */
	atomic_init(&snap.refs, 1);
	snap.n_xdescs = gw_qdisc_xdescs(snap.xdescs, GW_SNAP_XKINDS);
	snap.dirs = &dir;
	snap.n_dirs = 1;
	snprintf(dir.link, sizeof(dir.link), "wan");
	snprintf(dir.direction, sizeof(dir.direction), "egress");
	snprintf(dir.shaper, sizeof(dir.shaper), "htb");
	dir.classes = cls;
	dir.n_classes = 1;
	snprintf(cls[0].name, sizeof(cls[0].name), "bulk");
	snprintf(cls[0].kind, sizeof(cls[0].kind), "pie");
	cls[0].accuracy = NAN;
	cls[0].x = s.x;
	CHECK(gw_webui_status_json(&snap, 1700000000.0, &out, &len) == 0, "JSON renders");
	root = json_tokener_parse(out);
	c = json_object_array_get_idx(jget(json_object_array_get_idx(
		jget(json_object_array_get_idx(jget(root, "links"), 0), "directions"), 0),
		"classes"), 0);
	p = jget(c, "pie");
	CHECK(p && json_object_get_int64(jget(p, "packets_in")) == 1000 &&
	      json_object_get_int64(jget(p, "ecn_marked_packets")) == 5,
	      "JSON: the class's \"pie\" object, its counters by name");
	CHECK(p && fabs(json_object_get_double(jget(p, "drop_probability")) - 0.25) < 1e-6 &&
	      fabs(json_object_get_double(jget(p, "queue_delay_ms")) - 12.345) < 1e-6,
	      "JSON: drop probability 0.25 and delay 12.345 ms, scaled as the kind says");
	CHECK(jget(c, "fq_codel") == NULL && json_object_object_get_ex(c, "fq_codel", NULL) &&
	      json_object_object_get_ex(c, "cake", NULL) && !json_object_object_get_ex(c, "sfq", NULL),
	      "JSON: fq_codel and cake null as always; no other kind's key");
	json_object_put(root);
	free(out);
	CHECK(gw_webui_metrics(&snap, 1700000000.0, &out, &len) == 0, "metrics render");
	CHECK(out && strstr(out, "# HELP gatewayd_pie_packets_in_total Packets pie took in.\n"
			    "# TYPE gatewayd_pie_packets_in_total counter\n"
			    "gatewayd_pie_packets_in_total{link=\"wan\",direction=\"egress\","
			    "class=\"bulk\",kind=\"pie\"} 1000\n"),
	      "metrics: gatewayd_pie_packets_in_total with HELP and TYPE");
	CHECK(out && strstr(out, "gatewayd_pie_queue_delay_seconds{link=\"wan\",direction="
			    "\"egress\",class=\"bulk\",kind=\"pie\"} 0.012345\n") &&
	      strstr(out, "kind=\"pie\"} 0.25\n"), "metrics: delay in seconds, probability 0.25");
	CHECK(out && !strstr(out, "dq_rate_estimating"), "metrics: JSON-only values stay out");
	free(out);
}

int main(void)
{
	pie = kt_registry("pie", "sch_pie", &kind);
	test_defaults();
	test_set();
	test_refusals();
	test_stats();
	return tap_done();
}
