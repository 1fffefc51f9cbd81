/* tests/unit/test_fake_nft.c: classification against the in-memory kernel. An apply with match
 * blocks and hosts puts table inet gatewayd in, rule for rule what nft itself compiles from
 * the same rules' text, and the ingress filters on the ifb; someone else's nft deleting a
 * rule, flushing or deleting the table, or another program's batch deleting it, is healed
 * back to the same table and nothing of the tree is touched, also by the retry after the
 * kernel refused the heal's batch (a change to another table is no news); an apply or a
 * reload whose nft batch, or any one of its tc requests, is refused leaves the tree and the
 * table exactly as they were. */
#include <errno.h>
#include <stdlib.h>
#include "gatewayd/heal.h"
#include "tree/reload.h"
#include "qdisc/nft.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

/* wan: dscp (both families), a destination prefix that is not whole bytes with a port and a
 * port range, an IPv6 source with a source port, an input interface with a masked mark, a
 * plain mark; ingress on its ifb by u32. lan: two hosts in a map. */
static const char conf_a[] =
	"links = (\n"
	"  { name = \"wan\"; interface = \"v0\";\n"
	"    egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"      { name = \"voice\"; rate = \"2mbit\"; prio = 0; match = { dscp = \"ef\"; }; },\n"
	"      { name = \"web\"; rate = \"8mbit\"; ceil = \"20mbit\";\n"
	"        match = { proto = \"tcp\"; dport = ( 443, \"8000-8099\" ); dst = \"192.0.2.0/25\"; }; },\n"
	"      { name = \"ssh\"; rate = \"1mbit\"; match = (\n"
	"        { proto = \"tcp\"; sport = 22; src = \"2001:db8::/32\"; },\n"
	"        { mark = \"0x10/0xff\"; iif = \"v1\"; }, { mark = 7; } ); },\n"
	"      { name = \"bulk\"; rate = \"9mbit\"; default = true; } ); };\n"
	"    ingress = { shaper = \"htb\"; rate = \"40mbit\"; classes = (\n"
	"      { name = \"game\"; rate = \"10mbit\"; match = { proto = \"udp\"; sport = 3074; }; },\n"
	"      { name = \"bulk\"; rate = \"30mbit\"; default = true; } ); }; },\n"
	"  { name = \"lan\"; interface = \"v1\";\n"
	"    egress = { shaper = \"htb\"; rate = \"30mbit\";\n"
	"      hosts = { subnet = \"10.77.1.8/30\"; rate = \"3mbit\"; }; }; } );\n";

/* The reload's: voice by cs5, web's range gone, a new class, six hosts. */
static const char conf_b[] =
	"links = (\n"
	"  { name = \"wan\"; interface = \"v0\";\n"
	"    egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"      { name = \"voice\"; rate = \"2mbit\"; prio = 0; match = { dscp = \"cs5\"; }; },\n"
	"      { name = \"web\"; rate = \"8mbit\"; ceil = \"20mbit\";\n"
	"        match = { proto = \"tcp\"; dport = 443; dst = \"192.0.2.0/25\"; }; },\n"
	"      { name = \"ssh\"; rate = \"1mbit\"; match = (\n"
	"        { proto = \"tcp\"; sport = 22; src = \"2001:db8::/32\"; },\n"
	"        { mark = \"0x10/0xff\"; iif = \"v1\"; }, { mark = 7; } ); },\n"
	"      { name = \"game\"; rate = \"1mbit\"; match = { proto = \"udp\"; dport = 3074; }; },\n"
	"      { name = \"bulk\"; rate = \"8mbit\"; default = true; } ); };\n"
	"    ingress = { shaper = \"htb\"; rate = \"40mbit\"; classes = (\n"
	"      { name = \"game\"; rate = \"10mbit\"; match = { proto = \"udp\"; sport = 3074; }; },\n"
	"      { name = \"bulk\"; rate = \"30mbit\"; default = true; } ); }; },\n"
	"  { name = \"lan\"; interface = \"v1\";\n"
	"    egress = { shaper = \"htb\"; rate = \"30mbit\";\n"
	"      hosts = { subnet = \"10.77.1.8/29\"; rate = \"3mbit\"; }; }; } );\n";

/*
 * conf_a's table as the fake decodes gatewayd's batch. The rules' expressions are what
 * `nft --debug=netlink -f` (nftables 1.0.6) printed for the `gatewayd --dry-run` text of
 * conf_a (each rule's text above it): nft's own compile of the same rules, not gatewayd's;
 * the map's elements are what it printed for the map. The set and chain lines are libnftnl's
 * and the fake's words for them.
 */
static const char table_a[] =
	"table inet gatewayd\n"
	"\tset hosts-lan flags 0x8 key type 7 len 4 data type 23 len 4\n"
	/* 10.77.1.9 : e000:11, 10.77.1.10 : e000:12 */
	"\t\telement 09014d0a  : e0000011 0 [end]\n"
	"\t\telement 0a014d0a  : e0000012 0 [end]\n"
	"\tchain inet gatewayd egress-wan use 0\n"
	/* ip dscp 46 meta priority set e000:10 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000002 ]\n"
	"  [ payload load 1b @ network header + 1 => reg 1 ]\n"
	"  [ bitwise reg 1 = ( reg 1 & 0x000000fc ) ^ 0x00000000 ]\n"
	"  [ cmp eq reg 1 0x000000b8 ]\n"
	"  [ immediate reg 1 0xe0000010 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* ip6 dscp 46 meta priority set e000:10 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x0000000a ]\n"
	"  [ payload load 2b @ network header + 0 => reg 1 ]\n"
	"  [ bitwise reg 1 = ( reg 1 & 0x0000c00f ) ^ 0x00000000 ]\n"
	"  [ cmp eq reg 1 0x0000800b ]\n"
	"  [ immediate reg 1 0xe0000010 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* ip daddr 192.0.2.0/25 meta l4proto 6 th dport 443 meta priority set e000:11 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000002 ]\n"
	"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
	"  [ bitwise reg 1 = ( reg 1 & 0x80ffffff ) ^ 0x00000000 ]\n"
	"  [ cmp eq reg 1 0x000200c0 ]\n"
	"  [ meta load l4proto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000006 ]\n"
	"  [ payload load 2b @ transport header + 2 => reg 1 ]\n"
	"  [ cmp eq reg 1 0x0000bb01 ]\n"
	"  [ immediate reg 1 0xe0000011 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* ip daddr 192.0.2.0/25 meta l4proto 6 th dport 8000-8099 meta priority set e000:11
	 * return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000002 ]\n"
	"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
	"  [ bitwise reg 1 = ( reg 1 & 0x80ffffff ) ^ 0x00000000 ]\n"
	"  [ cmp eq reg 1 0x000200c0 ]\n"
	"  [ meta load l4proto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000006 ]\n"
	"  [ payload load 2b @ transport header + 2 => reg 1 ]\n"
	"  [ cmp gte reg 1 0x0000401f ]\n"
	"  [ cmp lte reg 1 0x0000a31f ]\n"
	"  [ immediate reg 1 0xe0000011 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* ip6 saddr 2001:db8::/32 meta l4proto 6 th sport 22 meta priority set e000:12 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x0000000a ]\n"
	"  [ payload load 4b @ network header + 8 => reg 1 ]\n"
	"  [ cmp eq reg 1 0xb80d0120 ]\n"
	"  [ meta load l4proto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000006 ]\n"
	"  [ payload load 2b @ transport header + 0 => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00001600 ]\n"
	"  [ immediate reg 1 0xe0000012 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* iifname "v1" meta mark & 0x000000ff == 0x00000010 meta priority set e000:12 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load iifname => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00003176 0x00000000 0x00000000 0x00000000 ]\n"
	"  [ meta load mark => reg 1 ]\n"
	"  [ bitwise reg 1 = ( reg 1 & 0x000000ff ) ^ 0x00000000 ]\n"
	"  [ cmp eq reg 1 0x00000010 ]\n"
	"  [ immediate reg 1 0xe0000012 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* meta mark 0x00000007 meta priority set e000:12 return */
	"\t\trule inet gatewayd egress-wan\n"
	"  [ meta load mark => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000007 ]\n"
	"  [ immediate reg 1 0xe0000012 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	"\tchain inet gatewayd egress-lan use 0\n"
	/* meta priority set ip saddr map @hosts-lan return */
	"\t\trule inet gatewayd egress-lan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000002 ]\n"
	"  [ payload load 4b @ network header + 12 => reg 1 ]\n"
	"  [ lookup reg 1 set hosts-lan dreg 1 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* meta priority set ip daddr map @hosts-lan return */
	"\t\trule inet gatewayd egress-lan\n"
	"  [ meta load nfproto => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00000002 ]\n"
	"  [ payload load 4b @ network header + 16 => reg 1 ]\n"
	"  [ lookup reg 1 set hosts-lan dreg 1 ]\n"
	"  [ meta set priority with reg 1 ]\n"
	"  [ immediate reg 0 return ]\n"
	/* type filter hook forward priority mangle; policy accept; */
	"\tchain inet gatewayd gw-forward use 0 type filter hook forward prio -150 policy accept "
	"packets 0 bytes 0\n"
	/* oifname "v0" jump egress-wan */
	"\t\trule inet gatewayd gw-forward\n"
	"  [ meta load oifname => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00003076 0x00000000 0x00000000 0x00000000 ]\n"
	"  [ immediate reg 0 jump -> egress-wan ]\n"
	/* oifname "v1" jump egress-lan */
	"\t\trule inet gatewayd gw-forward\n"
	"  [ meta load oifname => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00003176 0x00000000 0x00000000 0x00000000 ]\n"
	"  [ immediate reg 0 jump -> egress-lan ]\n"
	/* type filter hook output priority mangle; policy accept; */
	"\tchain inet gatewayd gw-output use 0 type filter hook output prio -150 policy accept "
	"packets 0 bytes 0\n"
	"\t\trule inet gatewayd gw-output\n"
	"  [ meta load oifname => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00003076 0x00000000 0x00000000 0x00000000 ]\n"
	"  [ immediate reg 0 jump -> egress-wan ]\n"
	"\t\trule inet gatewayd gw-output\n"
	"  [ meta load oifname => reg 1 ]\n"
	"  [ cmp eq reg 1 0x00003176 0x00000000 0x00000000 0x00000000 ]\n"
	"  [ immediate reg 0 jump -> egress-lan ]\n";

/* One batch: the table replaced whole (add, delete, add and fill). */
#define BATCH_A "nft add table inet gatewayd, del table inet gatewayd, add table inet gatewayd, " \
		"4 chains, 13 rules, 1 set, 2 elements"

struct rig {
	struct fk *k;
	struct gw_config *cfg;
	struct gw_nl *nl, *out;	/* gatewayd's; another program's */
	struct gw_monitor *mon;
	struct gw_applied a;
	struct gw_sampler *s;
	bool own_news;		/* the apply's own notifications were taken for news */
};

static struct gw_config *load(const char *text)
{
	struct gw_config *cfg = NULL;
	char err[512];

	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	return cfg;
}

static struct fk *kernel(void)
{
	struct fk *k = fk_new();

	fk_link_add(k, "v0", "veth");
	fk_link_add(k, "v1", "veth");
	return k;
}

/* conf_a applied, its own notifications read, the logs cleared. */
static int rig_up(struct rig *g)
{
	char err[1024] = "";

	memset(g, 0, sizeof(*g));
	if (!(g->cfg = load(conf_a)) || !(g->k = kernel()) || fk_open(g->k, &g->nl) ||
	    fk_open_outside(g->k, &g->out) || fk_monitor(g->k, &g->mon) ||
	    gw_apply(g->nl, g->cfg, NULL, &g->a, err, sizeof(err)) ||
	    gw_sampler_new(g->cfg, &g->a, &g->s)) {
		printf("# %s\n", err);
		return -EIO;
	}
	g->own_news = gw_heal_pending(g->mon, g->nl, g->cfg, &g->a) || g->a.classify_stale;
	fk_log_clear(g->k);
	return 0;
}

static void rig_down(struct rig *g)
{
	gw_sampler_free(g->s);
	gw_applied_free(&g->a);
	gw_monitor_close(g->mon);
	gw_nl_close(g->nl);
	gw_nl_close(g->out);
	fk_free(g->k);
	gw_config_free(g->cfg);
}

/* Does the fake's table read as want? Says the difference when not, unless what is NULL. */
static bool table_is(const struct fk *k, const char *want, const char *what)
{
	char *got = fk_nft_state(k);
	bool same = got && !strcmp(got, want);

	if (!same && what)
		printf("# %s: the table reads\n%s# expected\n%s", what, got ? got : "(none)\n", want);
	free(got);
	return same;
}

static void test_apply(void)
{
	char err[1024] = "";
	struct rig g;

	if (!CHECK(rig_up(&g) == 0, "apply: conf_a applies"))
		return;
	CHECK(table_is(g.k, table_a, "apply") && g.a.nft_table,
	      "apply: table inet gatewayd holds what nft compiles from the same rules");
	CHECK_EQ_INT(fk_nft_batches(g.k), 1, "apply: in one batch");
	CHECK(fk_get(g.k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x12), NULL) == 0 &&
	      fk_get(g.k, "v1", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x12), NULL) == 0,
	      "apply: the classes the rules name are there (wan's ssh, lan's second host)");
	CHECK(gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0, "apply: verify agrees (%s)", err);
	CHECK(!g.own_news, "apply: its own notifications (tree and table) are no news");
	CHECK(gw_remove(g.nl, &g.a, err, sizeof(err)) == 0 && !g.a.nft_table &&
	      table_is(g.k, "", "remove") && fk_count(g.k) == 0,
	      "remove: the table goes with the tree (%s)", err);
	if (!CHECK(!strcmp(fk_nft_log(g.k), "nft add table inet gatewayd, del table inet "
			   "gatewayd\n"), "remove: the table deleted in one batch"))
		printf("# sent:\n%s", fk_nft_log(g.k));
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a) && !g.a.classify_stale,
	      "remove: gatewayd's own delete is no news");
	rig_down(&g);
}

/* The first rig_up's apply, as the log shows it, and the ingress filters. */
static void test_apply_sent(void)
{
	struct gw_config *cfg = load(conf_a);
	struct fk *k = kernel();
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "";

	if (!CHECK(cfg && k && !fk_open(k, &nl), "sent: config and kernel"))
		return;
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "sent: applies (%s)", err);
	if (!CHECK(!strcmp(fk_nft_log(k), BATCH_A "\n"), "sent: the table replaced whole, in one "
		   "batch"))
		printf("# sent:\n%s", fk_nft_log(k));
	/* game's sport 3074, IPv4 and IPv6 */
	if (!CHECK(fk_log_count(k, "filter add ifb-wan 0:0 e000:0 u32") == 2,
		   "sent: ingress: two u32 filters on ifb-wan"))
		printf("# sent:\n%s", fk_log(k));
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
}

/* Someone else's change to the table is news, and heal puts the table back whole. */
static void heal_case(const char *name, int (*change)(struct rig *g))
{
	char err[1024] = "";
	unsigned int batches;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "%s: the running tree", name))
		return;
	batches = fk_nft_batches(g.k);
	CHECK(change(&g) == 0 && !table_is(g.k, table_a, NULL),
	      "%s: the table changed", name);
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a) && g.a.classify_stale,
	      "%s: news, the classifiers stale", name);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 2 && strstr(err, "changed from outside"), "%s: heal puts them back (%d: %s)",
	      name, r, err);
	CHECK(table_is(g.k, table_a, name) && g.a.nft_table, "%s: the table as it was", name);
	if (!CHECK(fk_nft_batches(g.k) == batches + 1 && fk_log_count(g.k, "qdisc ") == 0 &&
		   fk_log_count(g.k, "class ") == 0, "%s: one batch; no qdisc or class touched", name))
		printf("# sent:\n%s%s", fk_log(g.k), fk_nft_log(g.k));
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a) && !g.a.classify_stale,
	      "%s: heal's own batch is no news", name);
	rig_down(&g);
}

static int del_rule(struct rig *g)
{
	return fk_nft_del_rule(g->k, "gatewayd", "egress-wan", 2);
}

static int flush(struct rig *g)
{
	return fk_nft_flush_table(g->k, "gatewayd");
}

static int del_table(struct rig *g)
{
	return fk_nft_del_table(g->k, "gatewayd");
}

/* another program's batch through the seam (gatewayd's own code, someone else's socket) */
static int other_program(struct rig *g)
{
	return gw_nft_remove(g->out, NULL);
}

/* A heal whose batch the kernel refuses says so, and the loop's retry puts the table back. */
static void test_heal_refused(void)
{
	char err[1024] = "";
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "heal refused: the running tree"))
		return;
	CHECK(del_rule(&g) == 0 && gw_heal_pending(g.mon, g.nl, g.cfg, &g.a),
	      "heal refused: a rule deleted: news");
	fk_nft_refuse_nth(g.k, 1, -ENOMEM, "fake: not now");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == -ENOMEM && strstr(err, "fake: not now") && !table_is(g.k, table_a, NULL),
	      "heal refused: fails with the kernel's words, the table still short (%d: %s)", r,
	      err);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 2 && table_is(g.k, table_a, "heal retried"),
	      "heal refused: the retry puts the table back (%d: %s)", r, err);
	rig_down(&g);
}

static void test_other_table(void)
{
	char *before, *after;
	unsigned int batches;
	struct rig g;

	if (!CHECK(rig_up(&g) == 0, "other table: the running tree"))
		return;
	before = fk_state(g.k);
	batches = fk_nft_batches(g.k);
	CHECK(fk_nft_add_table(g.k, "other") == 0 && fk_nft_del_table(g.k, "other") == 0,
	      "other table: someone makes table inet other, then deletes it");
	after = fk_state(g.k);
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a) && !g.a.classify_stale,
	      "other table: no news");
	CHECK(before && after && !strcmp(before, after) && fk_nft_batches(g.k) == batches,
	      "other table: gatewayd's table untouched, nothing sent");
	free(before);
	free(after);
	rig_down(&g);
}

/* What a refusal left: everything as before, refused with the kernel's words; or, when the
 * refused request was one gatewayd makes at its best (a delete of a generation of ingress
 * filters, before the new one goes in or after the table), the change in force and the table
 * it makes (whole_nft). 0 when it is one of those; *spared counts the second. (A reload's
 * refused delete of the old generation leaves those filters beside the new ones until the
 * next reload: nothing retries it.) */
static int judge(const char *name, unsigned int n, struct fk *k, int r, const char *err,
		 const char *msg, const char *before, const char *whole_nft, unsigned int *spared)
{
	char *after = fk_state(k), *nft = fk_nft_state(k);
	int bad;

	if (fk_log_count(k, "filter del ifb-wan 0:0 e000:0 u32 = -28") == 1) {
		bad = r != 0 || !nft || strcmp(nft, whole_nft);
		*spared += !bad;
	} else {
		bad = r == 0 || !after || strcmp(after, before) || !strstr(err, msg);
	}
	if (bad)
		printf("# %s: refused at %u (%d: %s); before\n%s# after\n%s# sent\n%s%s", name, n,
		       r, err, before, after ? after : "", fk_log(k), fk_nft_log(k));
	free(after);
	free(nft);
	return bad;
}

/* An apply refused at its nft batch, or at any one of its tc requests: nothing of it is left,
 * and a table an earlier run left is as it was. */
static void test_apply_refused(void)
{
	struct gw_config *cfg = load(conf_a);
	unsigned int total, bad = 0, spared = 0;
	char err[1024] = "", *before, *whole;
	struct gw_applied a;
	struct gw_nl *nl;
	struct fk *k = kernel();
	int r;

	if (!CHECK(cfg && k && !fk_open(k, &nl), "apply refused: config and kernel"))
		return;
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "apply refused: unrefused, it "
	      "applies (%s)", err);
	total = fk_requests(k);
	whole = fk_nft_state(k);
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);

	k = kernel();
	fk_open(k, &nl);
	fk_nft_add_table(k, "gatewayd");	/* an earlier run's, empty */
	before = fk_state(k);
	fk_nft_refuse_nth(k, 1, -ENOBUFS, "fake: no room for the table");
	r = gw_apply(nl, cfg, NULL, &a, err, sizeof(err));
	CHECK(r == -ENOBUFS && strstr(err, "the kernel refused gatewayd's nftables table (inet "
				      "gatewayd): fake: no room for the table"),
	      "apply refused: the batch refused, said with the kernel's words (%d: %s)", r, err);
	CHECK(!judge("apply refused", 0, k, r, err, "fake: no room", before, "", &spared),
	      "apply refused: the tree taken out, the earlier table as it was");
	CHECK(fk_nft_log_count(k, " = -105") == 1, "apply refused: one batch, refused");
	free(before);
	gw_nl_close(nl);
	fk_free(k);

	for (unsigned int n = 1; n <= total; n++) {
		char msg[64];

		k = kernel();
		fk_open(k, &nl);
		before = fk_state(k);
		snprintf(msg, sizeof(msg), "fake: no to request %u", n);
		fk_refuse_nth(k, n, -ENOSPC, msg);
		err[0] = '\0';
		if (!(r = gw_apply(nl, cfg, NULL, &a, err, sizeof(err))))
			gw_applied_free(&a);
		bad += judge("apply refused", n, k, r, err, msg, before, whole, &spared);
		free(before);
		gw_nl_close(nl);
		fk_free(k);
	}
	CHECK_EQ_INT(bad, 0, "apply refused: at each tc request, nothing left and the error "
		     "says the kernel's words, or, a filter generation's delete refused, all in force");
	CHECK(spared == 4, "apply refused: %u of %u refusals were such deletes", spared, total);
	free(whole);
	gw_config_free(cfg);
}

/* conf_a running; a reload to conf_b refused at its nft batch (nth 0) or its nth tc request. */
static int reload_refused(struct gw_config *b, unsigned int n, char **whole,
			  unsigned int *total, unsigned int *spared)
{
	struct gw_reload_done done;
	char err[1024] = "", msg[64], *before;
	bool reference = !*whole;	/* unrefused, for what it makes */
	unsigned int sent;
	struct rig g;
	int r, bad;

	if (rig_up(&g))
		return 1;
	before = fk_state(g.k);
	sent = fk_requests(g.k);
	snprintf(msg, sizeof(msg), "fake: no to request %u", n);
	if (!reference && n)
		fk_refuse_nth(g.k, n, -ENOSPC, msg);
	else if (!reference)
		fk_nft_refuse_nth(g.k, 1, -ENOSPC, msg);
	r = gw_reload(g.nl, g.mon, g.cfg, b, &g.a, &done, err, sizeof(err));
	if (!r)
		gw_reload_done_free(&done);
	if (reference) {
		*whole = fk_nft_state(g.k);
		*total = fk_requests(g.k) - sent;
		bad = r != 0 || fk_nft_batches(g.k) != 2;
		if (bad)
			printf("# the unrefused reload: %d: %s\n", r, err);
	} else {
		bad = judge("reload refused", n, g.k, r, err, msg, before, *whole, spared);
		/* refused, what runs is conf_a's and reads back so */
		if (r && gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) && ++bad)
			printf("# reload refused at %u: conf_a does not verify: %s\n", n, err);
		if (r && !table_is(g.k, table_a, "reload refused") && ++bad)
			printf("# reload refused at %u\n", n);
	}
	free(before);
	rig_down(&g);
	return bad;
}

/* A reload refused at its nft batch, or at any one of its tc requests: the running tree and
 * table exactly as they were. */
static void test_reload_refused(void)
{
	struct gw_config *b = load(conf_b);
	unsigned int total = 0, bad = 0, spared = 0;
	char *whole = NULL;

	if (!CHECK(b && reload_refused(b, 0, &whole, &total, &spared) == 0 && whole,
		   "reload refused: unrefused, conf_a reloads to conf_b"))
		return;
	/* ip dscp 40 (cs5): what nft compiles the IPv4 half to; six hosts in the map */
	CHECK(strstr(whole, "  [ cmp eq reg 1 0x000000a0 ]\n  [ immediate reg 1 0xe0000010 ]\n") &&
	      strstr(whole, "element 0e014d0a  : e0000016 0 [end]") && !strstr(whole, "0x000000b8"),
	      "reload refused: unrefused, the table is conf_b's");
	CHECK(reload_refused(b, 0, &whole, &total, &spared) == 0,
	      "reload refused: at its nft batch, the tree and the table as they were");
	for (unsigned int n = 1; n <= total; n++)
		bad += reload_refused(b, n, &whole, &total, &spared);
	CHECK_EQ_INT(bad, 0, "reload refused: at each tc request, the tree and the table as they "
		     "were and the error says the kernel's words, or, a filter generation's delete "
		     "refused, all in force");
	CHECK(total > 10 && spared == 4, "reload refused: %u of %u refusals were such deletes",
	      spared, total);
	free(whole);
	gw_config_free(b);
}

int main(void)
{
	test_apply();
	test_apply_sent();
	heal_case("rule deleted", del_rule);
	heal_case("table flushed", flush);
	heal_case("table deleted", del_table);
	heal_case("another program's batch", other_program);
	test_heal_refused();
	test_other_table();
	test_apply_refused();
	test_reload_refused();
	return tap_done();
}
