/* tests/unit/test_fake_links.c: links whose interface is not there, against the in-memory
 * kernel: a link missing at start waits (the others applied, nothing of its own made), is
 * shaped once its interface appears and waits again (its ifb deleted) each time it goes; the
 * other link's objects are never touched; an interface that comes with a foreign root is said
 * and waited on; a required link missing at start fails the apply as before; the sampler shows a waiting link's directions as waiting. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "gatewayd/heal.h"
#include "qdisc/link.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

/* wan (v0) is always there; lan (v1) comes and goes, shaped both ways (ingress via ifb-lan) */
#define CONF(LAN_REQUIRED) \
	"links = ( { name = \"wan\"; interface = \"v0\";\n" \
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n" \
	"    { name = \"voice\"; rate = \"2mbit\"; prio = 0; },\n" \
	"    { name = \"bulk\"; rate = \"18mbit\"; ceil = \"20mbit\"; default = true;\n" \
	"      child = { kind = \"fifo\"; limit = 300; }; } ); }; },\n" \
	"  { name = \"lan\"; interface = \"v1\"" LAN_REQUIRED ";\n" \
	"  egress = { shaper = \"htb\"; rate = \"50mbit\"; classes = (\n" \
	"    { name = \"a\"; rate = \"10mbit\"; },\n" \
	"    { name = \"b\"; rate = \"40mbit\"; default = true; } ); };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"40mbit\"; }; } );\n"

struct rig {
	struct fk *k;
	struct gw_config *cfg;
	struct gw_nl *nl, *out;	/* gatewayd's; a foreign ip's */
	struct gw_monitor *mon;
	struct gw_applied a;
	struct gw_sampler *s;
};

/* The rig with only v0 there; lan required or not. Returns gw_apply's result. */
static int rig_up(struct rig *g, bool required, char *err, size_t errlen)
{
	const char *text = required ? CONF("; required = true") : CONF("");
	int r;

	memset(g, 0, sizeof(*g));
	if (gw_config_load_string("t.conf", text, &g->cfg, err, errlen))
		return -EINVAL;
	g->k = fk_new();
	fk_link_add(g->k, "v0", "veth");
	if (fk_open(g->k, &g->nl) || fk_open_outside(g->k, &g->out) || fk_monitor(g->k, &g->mon))
		return -EIO;
	if ((r = gw_apply(g->nl, g->cfg, NULL, &g->a, err, errlen)))
		return r;
	if (gw_sampler_new(g->cfg, &g->a, &g->s))
		return -ENOMEM;
	gw_monitor_read(g->mon, NULL, NULL);
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

/* wan's objects as the kernel holds them (its state lines name v0) */
static char *wan_state(const struct rig *g)
{
	char *all = fk_state(g->k), *out = calloc(1, strlen(all) + 1), *line, *save = NULL;

	for (line = strtok_r(all, "\n", &save); out && line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, " v0 ") || strstr(line, "v0 ") == line) {
			strcat(out, line);
			strcat(out, "\n");
		}
	free(all);
	return out;
}

static bool lan_shaped(const struct rig *g)
{
	struct gw_tc_obj o;

	return fk_get(g->k, "v1", GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0 &&
	       fk_get(g->k, "v1", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, GW_LEAF_MINOR_BASE + 1), &o) == 0 &&
	       fk_get(g->k, "v1", GW_OBJ_FILTER, GW_INGRESS_HANDLE, &o) == 0 &&
	       o.redirect_ifindex == fk_ifindex(g->k, "ifb-lan") && o.redirect_ifindex > 0 &&
	       fk_get(g->k, "ifb-lan", GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0;
}

static size_t lan_objects(const struct gw_applied *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->plan.n; i++)
		n += a->plan.objs[i].link == 1;
	return n;
}

/* The sampler's snapshot: how many of lan's directions are waiting, and of wan's. */
static int snap_waiting(struct rig *g, int *wan_waiting)
{
	struct gw_snapshot *snap = NULL;
	char err[256] = "";
	int n = 0;

	*wan_waiting = -1;
	if (gw_sampler_pass(g->s, g->nl, 1e9, &snap, err, sizeof(err)))
		return -1;
	*wan_waiting = 0;
	for (size_t i = 0; i < snap->n_dirs; i++) {
		if (!strcmp(snap->dirs[i].link, "lan"))
			n += snap->dirs[i].waiting;
		else
			*wan_waiting += snap->dirs[i].waiting;
	}
	gw_snapshot_put(snap);
	return n;
}

static void test_waiting_at_start(void)
{
	char err[1024] = "", *wan0, *wan1;
	struct rig g;
	int r, wan_w;

	r = rig_up(&g, false, err, sizeof(err));
	if (!CHECK(r == 0, "start: applied with lan's interface missing (%d: %s)", r, err)) {
		rig_down(&g);
		return;
	}
	CHECK(g.a.facts[1].absent && !g.a.facts[0].absent && lan_objects(&g.a) == 0 &&
	      gw_plan_has_link(&g.a.plan, 0) && !gw_plan_has_link(&g.a.plan, 1),
	      "start: lan waits, with no objects in the plan; wan is planned");
	CHECK(gw_applied_waiting(g.cfg, &g.a) == 1, "start: one link waiting");
	CHECK(fk_ifindex(g.k, "ifb-lan") == 0, "start: no ifb made for the waiting link");
	CHECK(gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0, "start: wan's tree reads back (%s)", err);
	CHECK(snap_waiting(&g, &wan_w) == 2 && wan_w == 0,
	      "start: the snapshot lists lan's two directions as waiting, wan's not");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 0 && !fk_log(g.k)[0], "start: nothing to heal while lan waits (%d: %s)", r, err);

	wan0 = wan_state(&g);
	fk_link_add(g.k, "v1", "veth");
	CHECK(gw_heal_pending(g.mon, g.nl, g.cfg, &g.a), "appears: v1's notification is one to act on");
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 1 && strstr(err, "link 'lan': interface v1 is there") && strstr(err, "shaped again"),
	      "appears: heal shapes lan and says so (%d: %s)", r, err);
	CHECK(lan_shaped(&g) && !g.a.facts[1].absent && lan_objects(&g.a) > 0,
	      "appears: lan's root, classes, redirect and ifb tree are in");
	CHECK(gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0, "appears: the whole tree reads back (%s)", err);
	wan1 = wan_state(&g);
	CHECK(!strcmp(wan0, wan1) && fk_log_count(g.k, " v0 ") == 0,
	      "appears: wan's objects were not touched (no request for v0)");
	CHECK(snap_waiting(&g, &wan_w) == 0 && wan_w == 0, "appears: no direction waits any more");
	free(wan0);
	free(wan1);
	CHECK(gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err)) == 0, "appears: a second heal finds it intact");
	rig_down(&g);
}

static void test_reconnects(void)
{
	char err[1024] = "", *wan0;
	unsigned int back = 0, waited = 0, kept = 0, ifbs_gone = 0;
	int r, prev = 0;
	struct rig g;

	r = rig_up(&g, false, err, sizeof(err));
	if (!CHECK(r == 0, "reconnect: the rig (%s)", err)) {
		rig_down(&g);
		return;
	}
	fk_link_add(g.k, "v1", "veth");
	gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
	gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	wan0 = wan_state(&g);
	for (int i = 0; i < 20; i++) {
		char *w;

		gw_link_del(g.out, "v1", NULL);
		gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
		r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
		waited += r == 3 && g.a.facts[1].absent && lan_objects(&g.a) == 0 &&
			  strstr(err, "interface v1 is gone; waiting for it");
		ifbs_gone += fk_ifindex(g.k, "ifb-lan") == 0;
		fk_link_add(g.k, "v1", "veth");
		gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
		r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
		back += r == 1 && lan_shaped(&g) && fk_ifindex(g.k, "v1") != prev &&
			gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0;
		prev = fk_ifindex(g.k, "v1");
		w = wan_state(&g);
		kept += !strcmp(w, wan0);
		free(w);
	}
	CHECK(waited == 20, "reconnect: each time v1 goes, lan waits with no objects (%u of 20)", waited);
	CHECK(ifbs_gone == 20, "reconnect: ... and the ifb gatewayd made for it is deleted (%u of 20)",
	      ifbs_gone);
	CHECK(back == 20, "reconnect: each time v1 comes back (a new index), lan is shaped (%u of 20)",
	      back);
	CHECK(kept == 20, "reconnect: wan's objects stay as they were throughout (%u of 20)", kept);
	free(wan0);
	/* gone and back between two looks: made again under the new index in one heal */
	fk_log_clear(g.k);
	gw_link_del(g.out, "v1", NULL);
	fk_link_add(g.k, "v1", "veth");
	gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 1 && strstr(err, "came back") && lan_shaped(&g) &&
	      gw_verify(g.nl, g.cfg, &g.a, err, sizeof(err)) == 0,
	      "reconnect: deleted and created before the heal: shaped at once (%d: %s)", r, err);
	CHECK(gw_remove(g.nl, &g.a, err, sizeof(err)) == 0 && fk_count(g.k) == 0 &&
	      fk_ifindex(g.k, "ifb-lan") == 0, "reconnect: stop removes every object and the ifb");
	rig_down(&g);
}

/* The interface comes with a root someone else put there (replace is false): said, not
 * shaped, nothing left of an attempt; shaped once that root goes. */
static void test_foreign_root(void)
{
	struct gw_tc_obj root = { .type = GW_OBJ_QDISC, .kind = GW_KIND_FIFO, .handle = 0x10000,
				  .parent = TC_H_ROOT };
	char err[1024] = "";
	struct nl_msg *m;
	struct rig g;
	int r;

	r = rig_up(&g, false, err, sizeof(err));
	if (!CHECK(r == 0, "foreign: the rig (%s)", err)) {
		rig_down(&g);
		return;
	}
	fk_link_add(g.k, "v1", "veth");
	gw_qopts_init(GW_KIND_FIFO, &root.q);
	root.ifindex = fk_ifindex(g.k, "v1");
	CHECK(gw_obj_build(&root, NLM_F_CREATE | NLM_F_REPLACE, &m) == 0 &&
	      gw_nl_batch(g.out, &m, 1, true, NULL) == 0, "foreign: v1 comes with a pfifo 1: root");
	nlmsg_free(m);
	gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == -EEXIST && strstr(err, "replace = true"),
	      "foreign: heal says why lan cannot be shaped (%d: %s)", r, err);
	CHECK(g.a.facts[1].absent && lan_objects(&g.a) == 0 && fk_ifindex(g.k, "ifb-lan") == 0 &&
	      fk_get(g.k, "v1", GW_OBJ_QDISC, 0x10000, NULL) == 0,
	      "foreign: lan still waits, its ifb made and deleted again, the foreign root kept");
	CHECK(gw_obj_build_del(&root, &m) == 0 && gw_nl_batch(g.out, &m, 1, true, NULL) == 0,
	      "foreign: the foreign root goes");
	nlmsg_free(m);
	gw_heal_pending(g.mon, g.nl, g.cfg, &g.a);
	r = gw_heal(g.nl, g.mon, g.cfg, &g.a, g.s, err, sizeof(err));
	CHECK(r == 1 && lan_shaped(&g), "foreign: then lan is shaped (%d: %s)", r, err);
	rig_down(&g);
}

static void test_required(void)
{
	char err[1024] = "";
	struct rig g;
	int r = rig_up(&g, true, err, sizeof(err));

	CHECK(r == -ENODEV && strstr(err, "link 'lan': interface v1: no such interface"),
	      "required: a required link's interface missing fails the apply (%d: %s)", r, err);
	CHECK(fk_count(g.k) == 0 && fk_ifindex(g.k, "ifb-lan") == 0,
	      "required: ... and nothing was left in the kernel");
	rig_down(&g);
}

int main(void)
{
	test_waiting_at_start();
	test_reconnects();
	test_foreign_root();
	test_required();
	return tap_done();
}
