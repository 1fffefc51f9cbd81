/* tests/unit/test_fake_heal.c: gw_heal_pending and gw_heal against the in-memory kernel, with
 * a foreign tc and ip acting from outside: a deleted leaf and a foreign change to a class are
 * put back (only that link's tree, the other link's untouched); a foreign root where replace
 * is false is left alone until it goes; a required link's deleted interface is a cause to wait
 * for until it is back (a link that is not required waits without one: test_fake_links.c). */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "gatewayd/heal.h"
#include "tree/reload.h"
#include "tree/retune.h"
#include "qdisc/link.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

static const char *conf =
	"links = ( { name = \"wan\"; interface = \"v0\";\n"
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"2mbit\"; prio = 0; },\n"
	"    { name = \"web\"; rate = \"8mbit\"; ceil = \"20mbit\"; prio = 1; },\n"
	"    { name = \"bulk\"; rate = \"10mbit\"; ceil = \"20mbit\"; default = true;\n"
	"      child = { kind = \"fifo\"; limit = 300; }; } ); }; },\n"
	"  { name = \"lan\"; interface = \"v1\"; required = true;\n"
	"  egress = { shaper = \"htb\"; rate = \"50mbit\"; };\n"
	"  ingress = { shaper = \"htb\"; rate = \"40mbit\"; }; } );\n";

struct rig {
	struct fk *k;
	struct gw_config *cfg;
	struct gw_nl *nl, *out;	/* gatewayd's; a foreign tc's */
	struct gw_monitor *mon;
	struct gw_applied a;
	struct gw_sampler *s;
};

static int rig_up(struct rig *g)
{
	char err[1024] = "";

	memset(g, 0, sizeof(*g));
	if (gw_config_load_string("t.conf", conf, &g->cfg, err, sizeof(err))) {
		printf("# %s\n", err);
		return -EINVAL;
	}
	g->k = fk_new();
	fk_link_add(g->k, "v0", "veth");
	fk_link_add(g->k, "v1", "veth");
	if (fk_open(g->k, &g->nl) || fk_open_outside(g->k, &g->out) ||
	    gw_apply(g->nl, g->cfg, NULL, &g->a, err, sizeof(err)) ||
	    fk_monitor(g->k, &g->mon) || gw_sampler_new(g->cfg, &g->a, &g->s)) {
		printf("# %s\n", err);
		return -EIO;
	}
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

/* The foreign tc: one request. */
static int outside(struct rig *g, const struct gw_tc_obj *o, int flags, bool del)
{
	struct nl_msg *m;
	int r = del ? gw_obj_build_del(o, &m) : gw_obj_build(o, flags, &m);

	if (r)
		return r;
	r = gw_nl_batch(g->out, &m, 1, true, NULL);
	nlmsg_free(m);
	return r;
}

static void test_leaf_deleted(void)
{
	struct gw_tc_obj leaf = { .type = GW_OBJ_QDISC, .handle = GW_HANDLE(GW_LEAF_MAJOR_BASE + 1, 0),
				  .parent = GW_HANDLE(GW_ROOT_MAJOR, 0x11) };
	char err[1024] = "", *before, *after;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "leaf: the running tree"))
		return;
	before = fk_state(g.k);
	leaf.ifindex = fk_ifindex(g.k, "v0");
	CHECK(outside(&g, &leaf, 0, true) == 0 && fk_get(g.k, "v0", GW_OBJ_QDISC, leaf.handle, NULL) == -ENOENT,
	      "leaf: a foreign tc deletes web's leaf");
	CHECK(gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == -EPROTO && strstr(err, "not in the kernel"),
	      "leaf: verify sees it missing: %s", err);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == 4 && strstr(err, "qdisc of class web (1001:) on v0: not there"),
	      "leaf: heal puts it back in place, saying which (%d: %s)", r, err);
	CHECK(fk_log_count(g.k, "qdisc replace v0 1001:0 e000:11") == 1 && fk_log_count(g.k, " ") == 1,
	      "leaf: one request: the leaf made again under its class (%s)", fk_log(g.k));
	CHECK(!strcmp(before, after), "leaf: the kernel holds the tree as applied, byte for byte");
	CHECK(fk_log_count(g.k, " v1 ") == 0 && fk_log_count(g.k, " ifb-lan ") == 0,
	      "leaf: the other link's tree was not touched");
	CHECK(gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0, "leaf: verify agrees (%s)", err);
	CHECK(gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err)) == 0, "leaf: a second heal finds it intact");
	free(before);
	free(after);
	rig_down(&g);
}

static void test_foreign_change(void)
{
	char err[1024] = "", *before, *after;
	struct gw_tc_obj cls;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "change: the running tree"))
		return;
	before = fk_state(g.k);
	fk_get(g.k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &cls);
	cls.parent = GW_HANDLE(GW_ROOT_MAJOR, GW_TOP_MINOR);
	cls.cls.rate = 100000;
	CHECK(outside(&g, &cls, 0, false) == 0, "change: a foreign tc changes web's rate");
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "change: a foreign class change is an event to act on");
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "change: ... once");
	for (int i = 0; i < 5000; i++)
		outside(&g, &cls, 0, false);
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "change: but 5000 of them overflow the monitor: lost events mean look");
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "change: ... once");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == 4 && !strcmp(before, after), "change: heal puts the planned rate back (%d: %s)", r, err);
	CHECK(strstr(err, "egress class web (e000:11) on v0: rate 800kbit, expected 8mbit") != NULL,
	      "change: ... saying what differed: %s", err);
	CHECK(fk_log_count(g.k, " ") == 1 && fk_log_count(g.k, "class change v0 e000:11") == 1,
	      "change: in place, one class change request (%s)", fk_log(g.k));
	CHECK(!gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "change: heal's own request is no event to act on");
	CHECK(fk_log_count(g.k, " v1 ") == 0, "change: the other link's tree was not touched");
	free(before);
	free(after);
	rig_down(&g);
}

static void test_foreign_root(void)
{
	struct gw_tc_obj root = { .type = GW_OBJ_QDISC, .kind = GW_KIND_FIFO, .handle = 0x10000,
				  .parent = TC_H_ROOT };
	char err[1024] = "", *before, *after;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "foreign root: the running tree"))
		return;
	gw_qopts_init(GW_KIND_FIFO, &root.q);
	root.ifindex = fk_ifindex(g.k, "v0");
	CHECK(outside(&g, &root, NLM_F_CREATE | NLM_F_REPLACE, false) == 0,
	      "foreign root: a foreign tc replaces v0's root with pfifo 1:");
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "foreign root: the monitor's event is one to act on");
	before = fk_state(g.k);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == -EEXIST && strstr(err, "did not create") && strstr(err, "replace = true"),
	      "foreign root: replace is false: heal refuses, saying why (%d: %s)", r, err);
	CHECK(!strcmp(before, after) && !fk_log(g.k)[0],
	      "foreign root: nothing sent, the foreign root and the other link's tree untouched");
	CHECK(gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err)) == -EEXIST && !fk_log(g.k)[0],
	      "foreign root: asked again, the same");
	CHECK(outside(&g, &root, 0, true) == 0 && gw_heal_pending(g.mon, g.nl, g.cfg, &g.a),
	      "foreign root: the foreign tc deletes it: an event to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 1 && gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0,
	      "foreign root: then heal restores the tree (%d: %s)", r, err);
	CHECK(fk_log_count(g.k, " v1 ") == 0, "foreign root: the other link's tree was never touched");
	free(before);
	free(after);
	rig_down(&g);
}

static void test_interface_gone(void)
{
	char err[1024] = "";
	struct gw_tc_obj o;
	struct rig g;
	int r, old;

	if (!CHECK(rig_up(&g) == 0, "interface: the running tree"))
		return;
	old = fk_ifindex(g.k, "v1");
	CHECK(gw_link_del(g.out, "v1", NULL) == 0 && gw_heal_pending(g.mon, g.nl, g.cfg, &g.a),
	      "interface: v1 deleted from outside: an event to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == -ENODEV && strstr(err, "interface v1: no such interface") && !fk_log(g.k)[0],
	      "interface: heal waits for it, sending nothing (%d: %s)", r, err);
	fk_link_add(g.k, "v1", "veth");
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "interface: v1 back: an event to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 1 && gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0,
	      "interface: heal restores the tree (%d: %s)", r, err);
	CHECK(fk_ifindex(g.k, "v1") != old && fk_get(g.k, "v1", GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0 &&
	      fk_get(g.k, "v1", GW_OBJ_FILTER, GW_INGRESS_HANDLE, &o) == 0 &&
	      o.redirect_ifindex == fk_ifindex(g.k, "ifb-lan"),
	      "interface: the new v1 has its root and its redirect to ifb-lan");
	rig_down(&g);
}

/* A leaf swapped for another tc kind under its own handle (bfifo for pfifo), then one of the
 * same kind with another limit, then the ingress redirect deleted: each put back in place,
 * said, and nothing else touched. */
static void test_leaf_kind_and_redirect(void)
{
	struct gw_tc_obj leaf, f;
	char err[1024] = "", *before, *after;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "kind: the running tree"))
		return;
	before = fk_state(g.k);
	fk_get(g.k, "v0", GW_OBJ_QDISC, GW_HANDLE(GW_LEAF_MAJOR_BASE + 2, 0), &leaf);
	CHECK(outside(&g, &leaf, 0, true) == 0, "kind: a foreign tc deletes bulk's pfifo");
	leaf.q.fifo.bytes = true;
	leaf.q.fifo.limit = 30000;
	CHECK(outside(&g, &leaf, NLM_F_CREATE | NLM_F_EXCL, false) == 0,
	      "kind: ... and puts a bfifo under the same handle");
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "kind: an event to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == 4 && strstr(err, "it is bfifo limit 30000, expected pfifo limit 300"),
	      "kind: put back in place, saying what it found (%d: %s)", r, err);
	CHECK(!strcmp(before, after), "kind: the tree as applied");
	CHECK(fk_log_count(g.k, "qdisc del v0 1002:0") == 1 && fk_log_count(g.k, " ") == 2,
	      "kind: deleted and made again, nothing else (%s)", fk_log(g.k));
	free(after);

	fk_log_clear(g.k);
	leaf.q.fifo.bytes = false;
	leaf.q.fifo.limit = 5;
	CHECK(outside(&g, &leaf, 0, false) == 0 && gw_heal_pending(g.mon, g.nl, g.cfg, &g.a),
	      "limit: a foreign tc changes bulk's pfifo to limit 5");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == 4 && strstr(err, "it is pfifo limit 5, expected pfifo limit 300") &&
	      !strcmp(before, after), "limit: changed back in place (%d: %s)", r, err);
	CHECK(fk_log_count(g.k, " ") == 1, "limit: one request (%s)", fk_log(g.k));
	free(after);

	fk_log_clear(g.k);
	CHECK(fk_get(g.k, "v1", GW_OBJ_FILTER, GW_INGRESS_HANDLE, &f) == 0 &&
	      outside(&g, &f, 0, true) == 0 && gw_heal_pending(g.mon, g.nl, g.cfg, &g.a),
	      "redirect: a foreign tc deletes lan's ingress redirect: an event to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	after = fk_state(g.k);
	CHECK(r == 4 && strstr(err, "ingress redirect on v1: not there") && !strcmp(before, after),
	      "redirect: made again in place (%d: %s)", r, err);
	CHECK(fk_log_count(g.k, " v0 ") == 0 && fk_log_count(g.k, "filter add v1") == 1,
	      "redirect: only the filter was sent (%s)", fk_log(g.k));
	free(after);
	free(before);
	rig_down(&g);
}

/* gatewayd's own changes are not news: autorate's rate, a reload's; a foreign change made
 * while a reload makes its own is kept and healed after it, and the reload's rate stays. */
static void test_own_changes(void)
{
	char err[1024] = "", *text;
	struct gw_config *next = NULL;
	struct gw_reload_done done;
	struct gw_tc_obj cls;
	struct rig g;
	int r;

	if (!CHECK(rig_up(&g) == 0, "own: the running tree"))
		return;

	/* a reload that makes web 6mbit; before it, a foreign tc changes voice */
	text = strdup(conf);
	memcpy(strstr(text, "\"8mbit\""), "\"6mbit\"", 7);
	CHECK(gw_config_load_string("t.conf", text, &next, err, sizeof(err)) == 0, "own: the new config (%s)", err);
	fk_get(g.k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x10), &cls);
	cls.parent = GW_HANDLE(GW_ROOT_MAJOR, GW_TOP_MINOR);
	cls.cls.rate = 50000;
	CHECK(outside(&g, &cls, 0, false) == 0, "own: a foreign tc changes voice's rate");
	r = gw_reload(g.nl, NULL, g.cfg, next, &g.a, &done, err, sizeof(err));
	CHECK(r == 0, "own: the reload (%d: %s)", r, err);
	gw_reload_done_free(&done);
	CHECK(gw_heal_absorb(g.mon, g.nl, next, &g.a),
	      "own: read after the reload, the foreign change is still there to act on");
	r = gw_heal(g.nl, g.mon, next, &g.a, g.s, err, sizeof(err));
	CHECK(r == 4 && strstr(err, "class voice") && !strstr(err, "class web"),
	      "own: heal puts voice back, and only voice (%d: %s)", r, err);
	CHECK(fk_get(g.k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &cls) == 0 &&
	      cls.cls.rate == 750000, "own: web keeps the reload's 6mbit (%llu B/s)",
	      (unsigned long long)cls.cls.rate);
	CHECK(!gw_heal_pending(g.mon, g.nl, next, &g.a) && !g.a.heal_due,
	      "own: nothing left to act on");
	CHECK(gw_retune(g.nl, next, &g.a, 0, GW_DIR_EGRESS, 1250000, NULL, err, sizeof(err)) == 0,
	      "own: autorate's retune moves wan egress to 10mbit (%s)", err);
	CHECK(!gw_heal_pending(g.mon, g.nl, next, &g.a), "own: its class changes are no event to act on");
	r = gw_heal(g.nl, g.mon, next, &g.a, g.s, err, sizeof(err));
	CHECK(r == 0, "own: and a heal check finds the tree as the plan, which follows it (%d: %s)", r, err);
	free(text);
	rig_down(&g);
	gw_config_free(next);
}

int main(void)
{
	test_leaf_deleted();
	test_foreign_change();
	test_foreign_root();
	test_interface_gone();
	test_leaf_kind_and_redirect();
	test_own_changes();
	return tap_done();
}
