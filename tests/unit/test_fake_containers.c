/* tests/unit/test_fake_containers.c: container tracking against the in-memory kernel: an
 * interface there at start and one that appears later are shaped (the one-class htb tree and
 * the ifb), one the kernel refuses is left with nothing of ours, one that goes is forgotten
 * with its ifb, and a name no entry matches is never touched. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "gatewayd/ctr_followed.h"
#include "qdisc/link.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

static const char *conf =
	"containers = ( { interfaces = \"veth*\";\n"
	"  egress = { rate = \"10mbit\"; ceil = \"20mbit\"; child = { kind = \"fifo\"; limit = 100; }; };\n"
	"  ingress = { rate = \"5mbit\"; }; } );\n";

static bool shaped(struct gw_ctr_followed *c, const char *ifname)
{
	char link[64];

	snprintf(link, sizeof(link), GW_CTR_LINK_PREFIX "%s", ifname);
	return gw_ctr_followed_has(c, link);
}

static bool tree_on(const struct fk *k, const char *dev, uint64_t ceil)
{
	struct gw_tc_obj o;

	return fk_get(k, dev, GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0 && o.kind == GW_KIND_HTB &&
	       fk_get(k, dev, GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, GW_LEAF_MINOR_BASE), &o) == 0 &&
	       o.cls.ceil == ceil;
}

int main(void)
{
	struct gw_config *cfg = NULL;
	struct fk *k = fk_new();
	struct gw_nl *nl, *out;
	struct gw_ctr_followed *c;
	struct gw_tc_obj o;
	char err[512] = "", ifb[IFNAMSIZ], ifb2[IFNAMSIZ], *before, *after;
	int v1, v2;

	if (gw_config_load_string("t.conf", conf, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	if (!CHECK(cfg && k && !fk_open(k, &nl) && !fk_open_outside(k, &out), "config and kernel"))
		return tap_done();
	v1 = fk_link_add(k, "veth1", "veth");
	fk_link_add(k, "eth5", "veth");
	if (!CHECK(gw_ctr_followed_new(cfg, nl, &c) == 0, "tracking starts"))
		return tap_done();
	gw_ctr_ifb_name(v1, ifb, sizeof(ifb));
	CHECK(shaped(c, "veth1") && tree_on(k, "veth1", 2500000) && tree_on(k, ifb, 625000),
	      "veth1, there at start, is shaped: htb capped at 20 mbit, ingress through %s", ifb);
	CHECK(fk_get(k, "veth1", GW_OBJ_QDISC, GW_HANDLE(GW_LEAF_MAJOR_BASE, 0), &o) == 0 &&
	      o.kind == GW_KIND_FIFO && o.q.fifo.limit == 100, "veth1's class has the entry's fifo");
	CHECK(!shaped(c, "eth5") && fk_log_count(k, " eth5 ") == 0, "eth5 matches no entry: untouched");

	v2 = fk_link_add(k, "veth2", "veth");
	gw_ctr_followed_dispatch(c);
	gw_ctr_ifb_name(v2, ifb2, sizeof(ifb2));
	CHECK(shaped(c, "veth2") && tree_on(k, "veth2", 2500000) && fk_ifindex(k, ifb2),
	      "veth2, appearing later, is shaped when its notification is read");

	CHECK(gw_link_del(out, "veth2", NULL) == 0, "veth2 deleted from outside");
	gw_ctr_followed_dispatch(c);
	CHECK(!shaped(c, "veth2") && !fk_ifindex(k, ifb2), "veth2 is forgotten and its ifb deleted");

	before = fk_state(k);
	fk_refuse_nth(k, 3, -ENOMEM, "fake: no memory for the class");
	fk_link_add(k, "veth3", "veth");
	after = fk_state(k);	/* before the dispatch: veth3 is there, nothing of ours */
	gw_ctr_followed_dispatch(c);
	free(before);
	before = fk_state(k);
	CHECK(!shaped(c, "veth3") && !strcmp(before, after) && fk_log_count(k, " = -12") == 1,
	      "veth3's apply refused: not shaped, and nothing of ours left on it (ifb included)");
	free(before);
	free(after);

	gw_ctr_followed_free(c);
	CHECK(fk_count(k) == 0 && !fk_ifindex(k, ifb), "stopping takes every container's tree and ifb away");
	gw_nl_close(nl);
	gw_nl_close(out);
	fk_free(k);
	gw_config_free(cfg);
	return tap_done();
}
