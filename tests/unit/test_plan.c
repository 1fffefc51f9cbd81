/* tests/unit/test_plan.c: the derived values (burst, quantum, tbf queue, slow-link CoDel, size
 * table overhead) and the shape of the plan the config turns into. */
#include <errno.h>
#include <net/if_arp.h>
#include <linux/pkt_sched.h>
#include <stdlib.h>
#include "tree/plan.h"
#include "tests/unit/tap.h"

static const struct gw_sizing none = { .set = false };

static void test_derive(void)
{
	struct gw_sizing atm = { .set = true, .overhead = 40, .linklayer = GW_LL_ATM };
	union gw_qopts q;
	struct gw_fq_codel_opts f;

	CHECK_EQ_INT(gw_derive_burst(125000000, &none, 1500), 125000, "burst: 1 gbit -> 1 ms = 125000 B");
	CHECK_EQ_INT(gw_derive_burst(125000, &none, 1500), 1514, "burst: 1 mbit -> one 1514 B packet");
	CHECK_EQ_INT(gw_derive_burst(125000, &atm, 1500), 1749, "burst: ATM floor is the cell-rounded MTU");
	CHECK_EQ_INT(gw_derive_burst(125000, &none, 9000), 9014, "burst: follows the device MTU");
	CHECK_EQ_INT(gw_derive_quantum(12500000, &none, 1500), 60000, "quantum: 100 mbit -> capped 60000");
	CHECK_EQ_INT(gw_derive_quantum(1250000, &none, 1500), 12500, "quantum: 10 mbit -> rate/100");
	CHECK_EQ_INT(gw_derive_quantum(62500, &none, 1500), 1514, "quantum: 500 kbit -> one packet");
	CHECK_EQ_INT(gw_derive_tbf_limit(2500000, 2500, GW_UNSET), 52500, "tbf limit: 20 ms at 20 mbit + burst");
	CHECK_EQ_INT(gw_derive_tbf_limit(2500000, 2500, 5000), 15000, "tbf limit: 5 ms latency");
	/* fq_codel's own plan_leaf: sqm's slow-link CoDel */
	gw_qopts_init(GW_KIND_FQ_CODEL, &q);
	gw_fq_codel_ops.plan_leaf(&q, 125000, &none);	/* 1 mbit: 33 cells take 14 ms */
	f = q.fq_codel;
	CHECK(f.target_us == 13992 && f.interval_us == 108992, "codel: 1 mbit -> target 13.992 ms, interval 108.992 ms");
	gw_qopts_init(GW_KIND_FQ_CODEL, &q);
	gw_fq_codel_ops.plan_leaf(&q, 2500000, &none);
	f = q.fq_codel;
	CHECK(f.target_us == GW_UNSET && f.interval_us == GW_UNSET, "codel: 20 mbit keeps the kernel's 5 ms");
	gw_qopts_init(GW_KIND_FQ_CODEL, &q);
	q.fq_codel.target_us = 3000;
	gw_fq_codel_ops.plan_leaf(&q, 125000, &none);
	f = q.fq_codel;
	CHECK(f.target_us == 3000 && f.interval_us == GW_UNSET, "codel: a user's target is left alone");
	CHECK_EQ_INT(gw_derive_stab_overhead(&atm, ARPHRD_ETHER), 26, "stab overhead: 40 from IP is 26 from the frame");
	CHECK_EQ_INT(gw_derive_stab_overhead(&atm, ARPHRD_PPP), 40, "stab overhead: no header on ppp");
}

static struct gw_config *load(const char *text)
{
	struct gw_config *cfg = NULL;
	char err[512];

	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	return cfg;
}

static void facts(struct gw_link_facts *f, int ifindex, int ifb)
{
	memset(f, 0, sizeof(*f));
	f->dev.ifindex = ifindex;
	f->dev.mtu = 1500;
	f->dev.arptype = ARPHRD_ETHER;
	f->ifb.ifindex = ifb;
	f->ifb.mtu = 1500;
	f->ifb.arptype = ARPHRD_ETHER;
}

static void test_plan_htb(void)
{
	struct gw_config *cfg = load(
		"links = ( { name = \"wan\"; interface = \"eth0\"; linklayer = \"docsis\";\n"
		"  egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
		"    { name = \"voice\"; rate = \"1mbit\"; prio = 0; },\n"
		"    { name = \"bulk\"; rate = \"90mbit\"; default = true; child = { kind = \"cake\"; }; } ); };\n"
		"  ingress = { shaper = \"cake\"; rate = \"200mbit\"; ifb = \"ifb9\"; }; } );\n");
	struct gw_link_facts f;
	struct gw_plan p;
	const struct gw_plan_obj *o;

	if (!CHECK(cfg != NULL, "plan: config loads"))
		return;
	facts(&f, 2, 9);
	CHECK(gw_plan_build(cfg, &f, NULL, &p) == 0, "plan: builds");
	CHECK_EQ_INT(p.n, 9, "plan: root, top, 2 x (class, leaf), hook, redirect, ifb root");
	o = p.objs;
	CHECK(o[0].obj.kind == GW_KIND_HTB && o[0].obj.handle == GW_ROOT_HANDLE &&
	      o[0].obj.parent == TC_H_ROOT && o[0].obj.q.htb.defcls == 0x11,
	      "plan: htb root e000: with the default class 0x11");
	CHECK(o[0].obj.stab.set && o[0].obj.stab_overhead == 4 && o[0].obj.stab.mpu == 64,
	      "plan: docsis sizing -> stab overhead 18 - 14 = 4, mpu 64");
	CHECK(o[1].obj.type == GW_OBJ_CLASS && o[1].obj.handle == GW_HANDLE(0xE000, 1) &&
	      o[1].obj.cls.rate == 12500000 && o[1].obj.cls.ceil == 12500000,
	      "plan: top class e000:1 at the link rate");
	CHECK(o[2].obj.handle == GW_HANDLE(0xE000, 0x10) && o[2].obj.cls.ceil == 12500000 &&
	      o[2].obj.cls.prio == 0 && o[2].obj.cls.burst == 1518,
	      "plan: voice class: ceil defaults to the link rate, burst one docsis packet (1518)");
	CHECK(o[3].obj.kind == GW_KIND_FQ_CODEL && o[3].obj.parent == GW_HANDLE(0xE000, 0x10) &&
	      o[3].obj.handle == GW_HANDLE(0x1000, 0) && o[3].obj.q.fq_codel.target_us == 13992,
	      "plan: voice gets fq_codel by default, target raised for its 1 mbit");
	CHECK(o[5].obj.kind == GW_KIND_CAKE && o[5].obj.q.cake.bandwidth == GW_UNSET &&
	      o[5].obj.q.cake.overhead == 18 && o[5].obj.q.cake.mpu == 64,
	      "plan: cake child unlimited, with the link's overhead as cake counts it");
	CHECK(o[6].obj.kind == GW_KIND_INGRESS && o[6].obj.ifindex == 2 &&
	      o[7].obj.type == GW_OBJ_FILTER && o[7].obj.redirect_ifindex == 9,
	      "plan: ingress hook and redirect to the ifb on the interface");
	CHECK(o[8].obj.kind == GW_KIND_CAKE && o[8].obj.ifindex == 9 &&
	      o[8].obj.parent == TC_H_ROOT && o[8].obj.q.cake.bandwidth == 25000000,
	      "plan: cake shapes the ifb at the ingress rate");
	CHECK(strcmp(o[2].what, "egress class voice") == 0 && strcmp(o[8].what, "ingress root") == 0,
	      "plan: objects carry names for error messages");
	CHECK(o[0].shaper_rate == 12500000 && o[8].shaper_rate == 25000000,
	      "plan: each direction's root carries the rate it shapes to (what the sampler shows)");
	CHECK(!o[1].shaper_rate && !o[2].shaper_rate && !o[3].shaper_rate && !o[5].shaper_rate &&
	      !o[6].shaper_rate && !o[7].shaper_rate,
	      "plan: no other object carries a shaper's rate (an htb class's is its cls.rate)");
	gw_plan_free(&p);
	gw_config_free(cfg);
}

static void test_plan_tbf(void)
{
	struct gw_config *cfg = load(
		"links = ( { name = \"c1\"; interface = \"veth1\";\n"
		"  egress = { shaper = \"tbf\"; rate = \"10mbit\"; latency = \"5ms\";\n"
		"             child = { kind = \"fifo\"; limit = 20; }; }; } );\n");
	struct gw_link_facts f;
	struct gw_plan p;

	if (!CHECK(cfg != NULL, "plan tbf: config loads"))
		return;
	facts(&f, 5, 0);
	CHECK(gw_plan_build(cfg, &f, NULL, &p) == 0 && p.n == 2, "plan tbf: root and child");
	CHECK(p.objs[0].obj.q.tbf.rate == 1250000 && p.objs[0].obj.q.tbf.burst == 1514 &&
	      p.objs[0].obj.q.tbf.limit == 6250 + 1514, "plan tbf: burst one packet, 5 ms queue + burst");
	CHECK(!p.objs[0].obj.stab.set, "plan tbf: no size table without link-layer keys");
	CHECK(p.objs[0].shaper_rate == 1250000 && !p.objs[1].shaper_rate,
	      "plan tbf: the root carries the direction's rate, its child none");
	CHECK(p.objs[1].obj.parent == GW_HANDLE(0xE000, 1) && p.objs[1].obj.q.fifo.limit == 20,
	      "plan tbf: the child hangs on tbf's class e000:1");
	gw_plan_free(&p);
	gw_config_free(cfg);
}

static void test_slots(void)
{
	struct gw_config *c1 = load(
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
		"    { name = \"a\"; rate = \"10mbit\"; },\n"
		"    { name = \"b\"; rate = \"10mbit\"; default = true; },\n"
		"    { name = \"c\"; rate = \"10mbit\"; } ); }; } );\n");
	struct gw_config *c2 = load(
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
		"    { name = \"d\"; rate = \"10mbit\"; },\n"
		"    { name = \"c\"; rate = \"20mbit\"; default = true; },\n"
		"    { name = \"a\"; rate = \"10mbit\"; } ); }; } );\n");
	struct gw_link_facts f;
	struct gw_plan p1, p2;
	uint32_t s[3];

	if (!CHECK(c1 && c2, "slots: configs load"))
		return;
	facts(&f, 2, 0);
	gw_plan_build(c1, &f, NULL, &p1);
	gw_plan_slots(&p1, 0, GW_DIR_EGRESS, s, 3);
	CHECK(s[0] == 0 && s[1] == 1 && s[2] == 2, "slots: a fresh plan numbers classes in order");
	gw_plan_build(c2, &f, &p1, &p2);
	gw_plan_slots(&p2, 0, GW_DIR_EGRESS, s, 3);
	CHECK(s[0] == 3 && s[1] == 2 && s[2] == 0,
	      "slots: c and a keep theirs, d takes one the old plan did not use (got %u %u %u)",
	      s[0], s[1], s[2]);
	CHECK(p2.objs[0].obj.q.htb.defcls == GW_LEAF_MINOR_BASE + 2,
	      "slots: the default class id follows its slot");
	gw_plan_free(&p1);
	gw_plan_free(&p2);
	gw_config_free(c1);
	gw_config_free(c2);
}

int main(void)
{
	test_derive();
	test_plan_htb();
	test_plan_tbf();
	test_slots();
	return tap_done();
}
