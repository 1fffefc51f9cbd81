/* tests/unit/test_sfq.c: the sfq kind from its own file alone: found by name, its config keys
 * and their refusals, its struct on the wire (zero where unset), read back, its tc words, and
 * its extended statistics by name. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "config/config.h"
#include "qdisc/qdisc.h"
#include "qdisc/stats.h"
#include "tests/unit/kind_test.h"
#include "tests/unit/stats_msgs.h"
#include "tests/unit/tap.h"

static const struct gw_qdisc_ops *sfq;
static enum gw_kind kind;
#define PARENT GW_HANDLE(0xE000, 1)	/* where the kind's leaf hangs */

#define CONF(child) KT_CONF("tbf", "sfq", child)

static int wire(const struct gw_tc_obj *o, struct tc_sfq_qopt_v1 *q, struct nl_msg **m)
{
	struct nlattr *tb[TCA_MAX + 1];

	if (gw_obj_build(o, NLM_F_CREATE, m) ||
	    nlmsg_parse(nlmsg_hdr(*m), sizeof(struct tcmsg), tb, TCA_MAX, NULL) < 0 ||
	    !tb[TCA_OPTIONS] || nla_len(tb[TCA_OPTIONS]) != (int)sizeof(*q))
		return -1;
	memcpy(q, nla_data(tb[TCA_OPTIONS]), sizeof(*q));
	return strcmp(nla_get_string(tb[TCA_KIND]), "sfq") ? -1 : 0;
}

static void test_defaults(void)
{
	struct gw_config *cfg = kt_load(CONF(""), 0);
	struct tc_sfq_qopt_v1 q, zero;
	struct gw_tc_obj o;
	struct nl_msg *m = NULL;
	char buf[256];

	if (!cfg)
		return;
	CHECK(cfg->links[0].dir[0].child.kind == kind, "config: kind = \"sfq\" is sfq");
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	for (size_t i = 0; i < sfq->n_keys; i++)
		CHECK(o.q.knob[i] == GW_UNSET, "unset: knob %zu (%s) is GW_UNSET", i,
		      sfq->keys[i].name);
	memset(&zero, 0, sizeof(zero));
	CHECK(wire(&o, &q, &m) == 0 && !memcmp(&q, &zero, sizeof(q)),
	      "nothing set: a tc_sfq_qopt_v1 of zeros (every kernel default stays)");
	nlmsg_free(m);
	CHECK(gw_kind_format(sfq, buf, sizeof(buf), &o.q) == 0 && !buf[0], "nothing set: no tc words");
	gw_config_free(cfg);
}

static void test_set(void)
{
	struct gw_config *cfg = kt_load(CONF("limit = 3000; perturb = \"10s\"; quantum = 1514;\n"
					  " divisor = 2048; flows = 256; depth = 64; headdrop = true;"), 0);
	struct tc_sfq_qopt_v1 q;
	struct gw_tc_obj o, got;
	struct nl_msg *m = NULL;
	char buf[512];

	if (!cfg)
		return;
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	CHECK(wire(&o, &q, &m) == 0, "set: builds a tc_sfq_qopt_v1");
	CHECK(q.v0.limit == 3000 && q.v0.perturb_period == 10 && q.v0.quantum == 1514 &&
	      q.v0.divisor == 2048 && q.v0.flows == 256 && q.depth == 64 && q.headdrop == 1,
	      "set: every field on the wire (perturb in seconds)");
	CHECK(gw_obj_parse(nlmsg_hdr(m), &got, NULL, 0) == 0 && got.kind == kind,
	      "set: parses back as sfq");
	CHECK(gw_kind_same(sfq, &o.q, &got.q), "set: read back is the same");
	got.q.knob[4] = 128;	/* another flows */
	CHECK(!gw_kind_same(sfq, &o.q, &got.q), "set: another flows value differs");
	nlmsg_free(m);
	gw_obj_format_tc(&o, "eth0", NULL, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "tc qdisc add dev eth0 parent e000:1 handle 1000: sfq limit 3000 quantum "
		     "1514 divisor 2048 flows 256 depth 64 headdrop perturb 10",
		     "tc words: tc-sfq(8)'s, perturb in seconds");
	gw_config_free(cfg);

	/* headdrop false is tail drop, the default: sent as 0, no word */
	cfg = kt_load(CONF("headdrop = false;"), 0);
	if (!cfg)
		return;
	o = kt_obj(&cfg->links[0].dir[0].child, PARENT);
	CHECK(wire(&o, &q, &m) == 0 && q.headdrop == 0, "headdrop false: 0 on the wire");
	nlmsg_free(m);
	CHECK(gw_kind_format(sfq, buf, sizeof(buf), &o.q) == 0, "headdrop false: no tc word");
	gw_config_free(cfg);
}

static const struct kt_bad bad[] = {
	{ "divisor = 1000;", "gw.conf:3: link 'wan' egress child: 'divisor' 1000 must be a power "
	  "of two" },
	{ "perturb = \"1500ms\";", "gw.conf:3: link 'wan' egress child: 'perturb' must be whole "
	  "seconds" },
	{ "perturb = \"7200s\";", "'perturb' \"7200s\" is out of range 1s..3600s" },
	{ "depth = 200;", "'depth' 200 is out of range 1..127" },
	{ "limit = 1;", "'limit' 1 is out of range 2..8306816" },
	{ "limit = 20000;", "'limit' 20000 is more than 'depth' x 'flows' (127 x 128)" },
	{ "limit = 300; depth = 10; flows = 20;", "'limit' 300 is more than 'depth' x 'flows' "
	  "(10 x 20)" },
	{ "limit = 50; flows = 64;", "'flows' 64 is more than 'limit' 50" },
	{ "headdrop = 1;", "'headdrop' must be true or false" },
	{ "rtt = \"5ms\";", "'rtt' is a cake setting, not valid for kind \"sfq\"" },
	{ "perturbation = 1;", "unknown key 'perturbation' in link 'wan' egress child" },
};

static void test_refusals(void)
{
	kt_refusals("tbf", "sfq", bad, sizeof(bad) / sizeof(bad[0]));
}

static void fill_sfq(struct nl_msg *m)
{
	struct tc_sfq_xstats x = { .allot = 1514 };

	nla_put(m, TCA_STATS_APP, sizeof(x), &x);
}

static void test_stats(void)
{
	struct nl_msg *m = dumped("sfq", 0x10000000, NULL);
	struct gw_tc_stats s;
	int i;

	CHECK(gw_stats_parse(nlmsg_hdr(m), &s) == 0 && s.kind == kind, "stats: an sfq parses");
	CHECK(s.qlen == 7 && s.backlog_bytes == 10598 && s.drops == 12 && !s.x.desc,
	      "stats: the common counters; the kernel sends no qdisc xstats for sfq");
	nlmsg_free(m);
	m = dumped("sfq", 0x10000000, fill_sfq);
	CHECK(gw_stats_parse(nlmsg_hdr(m), &s) == 0 && s.x.desc == sfq->xdesc,
	      "stats: xstats decoded where they come");
	i = gw_xstat_index(sfq->xdesc->fields, sfq->xdesc->n_fields, "allot_bytes");
	CHECK(i >= 0 && s.x.v[i] == 1514, "stats: allot by name");
	CHECK_EQ_STR(sfq->xdesc->json, "sfq", "stats: JSON key sfq");
	CHECK(!sfq->xdesc->json_always, "stats: no null sfq key in other kinds' classes");
	nlmsg_free(m);
}

int main(void)
{
	sfq = kt_registry("sfq", "sch_sfq", &kind);
	test_defaults();
	test_set();
	test_refusals();
	test_stats();
	return tap_done();
}
