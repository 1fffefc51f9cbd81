/* tests/unit/test_fake_own.c: against the in-memory kernel, gatewayd removes only what it made:
 * its ifb carries its mark and goes on remove; a clsact put in place of its ingress hook stays;
 * a device that took its ifb's name stays; a foreign clsact found at apply leaves the link's
 * ingress out of the plan (no ifb, no hook) and its egress shaped; an ifb without the mark under
 * the ifb's name is refused unless replace = true. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "tree/apply.h"
#include "tree/own.h"
#include "qdisc/link.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

#define CONF \
	"links = ( { name = \"wan\"; interface = \"v0\"; %s\n" \
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; child = { kind = \"fifo\"; }; };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"10mbit\"; child = { kind = \"fifo\"; }; }; } );\n"

static struct gw_config *load(const char *extra)
{
	struct gw_config *cfg = NULL;
	char text[1024], err[512];

	snprintf(text, sizeof(text), CONF, extra);
	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	return cfg;
}

/* Someone else's tc, one raw request: a qdisc of kind at ffff: (add) or none there (del). */
static int outside_hook(struct fk *k, const char *kind, bool del)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = fk_ifindex(k, "v0"),
			   .tcm_handle = GW_INGRESS_HANDLE, .tcm_parent = TC_H_INGRESS };
	struct nl_msg *m = nlmsg_alloc_simple(del ? RTM_DELQDISC : RTM_NEWQDISC,
					      del ? 0 : NLM_F_CREATE | NLM_F_EXCL);
	struct gw_nl *out;
	int r = -ENOMEM;

	if (m && nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) == 0 &&
	    (del || nla_put_string(m, TCA_KIND, kind) == 0) && fk_open_outside(k, &out) == 0) {
		r = gw_nl_batch(out, &m, 1, true, NULL);
		gw_nl_close(out);
	}
	nlmsg_free(m);
	return r;
}

static bool has(struct fk *k, const char *s)
{
	char *st = fk_state(k);
	bool r = st && strstr(st, s);

	free(st);
	return r;
}

static void test_own_ifb_and_hook(void)
{
	struct gw_config *cfg = load("");
	struct fk *k = fk_new();
	struct gw_link_info info;
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "", mark[32];

	fk_link_add(k, "v0", "veth");
	if (!CHECK(cfg && !fk_open(k, &nl) && gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0,
		   "own: applies (%s)", err))
		return;
	gw_own_ifb_mark(mark, sizeof(mark));
	CHECK(gw_link_get(nl, "ifb-wan", &info, NULL) == 0 && !strcmp(info.alias, mark) &&
	      !strncmp(mark, "gatewayd:", 9), "own: ifb-wan carries the mark %s (got '%s')", mark,
	      info.alias);
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && fk_count(k) == 0 &&
	      !fk_ifindex(k, "ifb-wan"), "own: remove takes its hook, root and ifb");
	gw_applied_free(&a);

	/* a clsact in place of the hook: it stays; the rest of ours goes */
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "clsact: applies again (%s)", err);
	CHECK(outside_hook(k, NULL, true) == 0 && outside_hook(k, "clsact", false) == 0 &&
	      has(k, "clsact"), "clsact: a foreign tc puts a clsact in place of the hook");
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && has(k, "clsact") && fk_count(k) == 1 &&
	      !fk_ifindex(k, "ifb-wan"), "clsact: remove leaves the clsact, takes the rest");
	gw_applied_free(&a);

	/* found at apply: the link's egress is shaped, its ingress not (no ifb, no hook) */
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0 && a.facts[0].ingress_foreign &&
	      !strcmp(a.facts[0].hook_kind, "clsact") && !fk_ifindex(k, "ifb-wan") &&
	      fk_get(k, "v0", GW_OBJ_QDISC, GW_ROOT_HANDLE, NULL) == 0,
	      "clsact at apply: egress shaped, ingress left out, no ifb (%s)", err);
	CHECK(gw_verify(nl, cfg, &a, err, sizeof(err)) == 0, "clsact at apply: verify agrees (%s)", err);
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && has(k, "clsact") && fk_count(k) == 1,
	      "clsact at apply: remove leaves the clsact");
	gw_applied_free(&a);
	outside_hook(k, NULL, true);

	/* the ifb's name taken by a veth while it runs: the veth stays */
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "veth: applies (%s)", err);
	{
		struct gw_nl *out;

		if (!fk_open_outside(k, &out)) {
			gw_link_del(out, "ifb-wan", NULL);
			gw_nl_close(out);
		}
	}
	fk_link_add(k, "ifb-wan", "veth");
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && fk_ifindex(k, "ifb-wan") &&
	      gw_link_get(nl, "ifb-wan", &info, NULL) == 0 && !strcmp(info.kind, "veth"),
	      "veth: remove leaves the veth named like the ifb");
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
}

static void test_unmarked_ifb(void)
{
	struct gw_config *cfg = load(""), *rcfg = load("replace = true;");
	struct fk *k = fk_new();
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "";

	fk_link_add(k, "v0", "veth");
	fk_link_add(k, "ifb-wan", "ifb");	/* someone else's: no mark */
	if (!CHECK(cfg && rcfg && !fk_open(k, &nl), "unmarked: config and kernel"))
		return;
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == -EEXIST &&
	      strstr(err, "ifb ifb-wan exists and gatewayd did not create it") &&
	      strstr(err, "replace = true") && fk_count(k) == 0 && fk_ifindex(k, "ifb-wan"),
	      "unmarked: refused, saying why, nothing touched (%s)", err);
	CHECK(gw_apply(nl, rcfg, NULL, &a, err, sizeof(err)) == 0 && !a.devs[1].ifb_created,
	      "unmarked, replace = true: used, not taken for ours (%s)", err);
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && fk_count(k) == 0 &&
	      fk_ifindex(k, "ifb-wan"), "unmarked, replace = true: remove leaves it, empty");
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
	gw_config_free(rcfg);
}

int main(void)
{
	test_own_ifb_and_hook();
	test_unmarked_ifb();
	return tap_done();
}
