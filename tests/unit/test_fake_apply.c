/* tests/unit/test_fake_apply.c: gw_apply against the in-memory kernel: a multi-class htb tree
 * with ingress through an ifb goes in and reads back; refused at any one of its requests, it
 * puts back exactly what was there (a foreign root and ingress hook it replaced included) and
 * says what the kernel said; a foreign root where replace is false is not touched; stopped
 * (--oneshot's ^C) at any point, it does the same. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "tree/apply.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

#define TREE_CONF \
	"links = ( { name = \"wan\"; interface = \"v0\"; %s\n" \
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n" \
	"    { name = \"voice\"; rate = \"2mbit\"; prio = 0; },\n" \
	"    { name = \"web\"; rate = \"8mbit\"; ceil = \"20mbit\"; prio = 1; },\n" \
	"    { name = \"bulk\"; rate = \"10mbit\"; ceil = \"20mbit\"; default = true;\n" \
	"      child = { kind = \"fifo\"; limit = 300; }; } ); };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"40mbit\"; classes = (\n" \
	"    { name = \"bulk\"; rate = \"30mbit\"; ceil = \"40mbit\"; default = true; },\n" \
	"    { name = \"game\"; rate = \"10mbit\"; ceil = \"40mbit\"; } ); }; } );\n"

static struct gw_config *load(const char *link_extra)
{
	struct gw_config *cfg = NULL;
	char text[2048], err[512];

	snprintf(text, sizeof(text), TREE_CONF, link_extra);
	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	return cfg;
}

/* Someone else's tc: a pfifo root 1: on v0, an ingress hook with a u32 rule of its own. */
static void foreign_tree(struct fk *k, bool say)
{
	struct gw_tc_obj root = { .type = GW_OBJ_QDISC, .kind = GW_KIND_FIFO,
				  .ifindex = fk_ifindex(k, "v0"), .handle = 0x10000,
				  .parent = TC_H_ROOT };
	struct gw_tc_obj hook = { .type = GW_OBJ_QDISC, .kind = GW_KIND_INGRESS,
				  .ifindex = root.ifindex, .handle = GW_INGRESS_HANDLE,
				  .parent = TC_H_INGRESS };
	struct gw_tc_obj rule = { .type = GW_OBJ_FILTER, .ifindex = root.ifindex,
				  .parent = GW_INGRESS_HANDLE, .redirect_ifindex = 99 };
	struct nl_msg *m[3] = { NULL, NULL, NULL };
	struct gw_nl *out;

	gw_qopts_init(GW_KIND_FIFO, &root.q);
	root.q.fifo.limit = 77;
	gw_qopts_init(GW_KIND_INGRESS, &hook.q);
	if (fk_open_outside(k, &out) || gw_obj_build(&root, NLM_F_CREATE | NLM_F_REPLACE, &m[0]) ||
	    gw_obj_build(&hook, NLM_F_CREATE | NLM_F_EXCL, &m[1]) ||
	    gw_obj_build(&rule, NLM_F_CREATE | NLM_F_EXCL, &m[2]))
		return;
	if (gw_nl_batch(out, m, 3, true, NULL) || fk_count(k) != 3 || say)
		CHECK(fk_count(k) == 3, "setup: a foreign root, ingress hook and rule on v0");
	for (int i = 0; i < 3; i++)
		nlmsg_free(m[i]);
	gw_nl_close(out);
}

static struct fk *kernel(bool foreign)
{
	static bool said;

	struct fk *k = fk_new();

	fk_link_add(k, "v0", "veth");
	fk_link_add(k, "v9", "veth");	/* not shaped: nothing may touch it */
	if (foreign)
		foreign_tree(k, !said);
	said |= foreign;
	return k;
}

static void test_tree(void)
{
	struct gw_config *cfg = load("");
	struct fk *k = kernel(false);
	struct gw_applied a;
	struct gw_tc_obj o;
	struct gw_nl *nl;
	char err[1024] = "";
	int ifb, r;

	if (!CHECK(cfg && k && !fk_open(k, &nl), "tree: config and kernel"))
		return;
	r = gw_apply(nl, cfg, NULL, &a, err, sizeof(err));
	if (!CHECK(r == 0, "tree: applies (%s)", err))
		return;
	ifb = fk_ifindex(k, "ifb-wan");
	CHECK(ifb > 0 && fk_log_count(k, "link add ifb-wan ifb") == 1, "tree: ifb-wan created");
	CHECK(a.n_devs == 2 && a.devs[1].is_ifb && a.devs[1].ifb_created, "tree: two devices, the ifb ours");
	CHECK_EQ_INT(fk_count(k), a.plan.n, "tree: the kernel holds exactly the plan's objects");
	CHECK(fk_get(k, "v0", GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0 && o.kind == GW_KIND_HTB &&
	      o.parent == TC_H_ROOT && o.q.htb.defcls == 0x12, "tree: v0's root is htb e000: default 12");
	CHECK(fk_get(k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &o) == 0 &&
	      o.cls.rate == 1000000 && o.cls.ceil == 2500000, "tree: class web reads back 8/20 mbit");
	CHECK(fk_get(k, "v0", GW_OBJ_QDISC, GW_HANDLE(GW_LEAF_MAJOR_BASE + 2, 0), &o) == 0 &&
	      o.kind == GW_KIND_FIFO && o.q.fifo.limit == 300 &&
	      o.parent == GW_HANDLE(GW_ROOT_MAJOR, 0x12), "tree: bulk's fifo limit 300 under e000:12");
	CHECK(fk_get(k, "v0", GW_OBJ_QDISC, GW_INGRESS_HANDLE, &o) == 0 && o.kind == GW_KIND_INGRESS,
	      "tree: ingress hook on v0");
	CHECK(fk_get(k, "v0", GW_OBJ_FILTER, GW_INGRESS_HANDLE, &o) == 0 && o.redirect_ifindex == ifb,
	      "tree: v0's ingress redirects to ifb-wan (%d)", ifb);
	CHECK(fk_get(k, "ifb-wan", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &o) == 0 &&
	      o.cls.rate == 1250000, "tree: ifb-wan class game reads back 10 mbit");
	CHECK(fk_log_count(k, " v9 ") == 0, "tree: v9 was not touched");
	CHECK(gw_verify(nl, cfg, &a, err, sizeof(err)) == 0, "tree: verify agrees (%s)", err);
	CHECK(gw_remove(nl, &a, err, sizeof(err)) == 0 && fk_count(k) == 0 && !fk_ifindex(k, "ifb-wan"),
	      "tree: remove leaves nothing, the ifb deleted");
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
}

/* The same apply refused at each of its requests in turn. */
static void test_refused(void)
{
	struct gw_config *cfg = load("replace = true;");
	struct fk *k = kernel(true);
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "", *before;
	unsigned int total, bad_state = 0, bad_msg = 0, applied = 0;

	if (!CHECK(cfg && k && !fk_open(k, &nl), "refused: config and kernel"))
		return;
	/* classification is test_fake_nft's: its best-effort deletes of the ingress filters' old
	 * generation (none: nothing matches) are no requests an apply fails on */
	cfg->owns_nft = false;
	before = fk_state(k);
	if (!CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "refused: replaces the foreign tree (%s)", err))
		return;
	total = fk_requests(k);
	CHECK(fk_get(k, "v0", GW_OBJ_QDISC, 0x10000, NULL) == -ENOENT, "refused: the foreign root went");
	gw_remove(nl, &a, err, sizeof(err));
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	CHECK(total > 16, "refused: the apply makes %u requests", total);

	for (unsigned int n = 1; n <= total; n++) {
		char msg[64], *after;

		k = kernel(true);
		fk_open(k, &nl);
		snprintf(msg, sizeof(msg), "fake: no to request %u", n);
		fk_refuse_nth(k, n, -ENOBUFS, msg);
		err[0] = '\0';
		if (gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0) {
			applied++;
			gw_applied_free(&a);
		}
		after = fk_state(k);
		if (!after || strcmp(before, after)) {
			if (!bad_state++)
				printf("# refused at %u: before\n%s# after\n%s# %s\n", n, before,
				       after ? after : "", err);
		}
		/* the old hook's delete before the batch may fail (the batch then says whether the
		 * tree went in): the kernel's message is then the one that made the apply fail */
		if (!strstr(err, fk_log_count(k, "qdisc del v0 0:0 ingress  = -105") ?
			    ": Exclusivity flag on, cannot modify (" : msg) && !bad_msg++)
			printf("# refused at %u: %s\n%s", n, err, fk_log(k));
		free(after);
		gw_nl_close(nl);
		fk_free(k);
	}
	CHECK_EQ_INT(applied, 0, "refused: no apply succeeds with a request refused");
	CHECK_EQ_INT(bad_state, 0, "refused: at each request, the foreign tree is back exactly as it was");
	CHECK_EQ_INT(bad_msg, 0, "refused: at each request, the error carries the kernel's message");

	/* the message names what was refused: a class, in tc's words (requests: the ifb, its
	 * mark, the old hook's delete, the root, then the top class) */
	k = kernel(true);
	fk_open(k, &nl);
	fk_refuse_nth(k, 5, -EINVAL, "fake: quantum of class is big");
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "link 'wan'") && strstr(err, "tc class add dev v0") &&
	      strstr(err, "fake: quantum of class is big"), "refused: err names link, tc command, message: %s", err);
	gw_nl_close(nl);
	fk_free(k);
	free(before);
	gw_config_free(cfg);
}

static void test_no_replace(void)
{
	struct gw_config *cfg = load("");
	struct fk *k = kernel(true);
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "", *before, *after;
	int r;

	if (!CHECK(cfg && k && !fk_open(k, &nl), "no replace: config and kernel"))
		return;
	before = fk_state(k);
	r = gw_apply(nl, cfg, NULL, &a, err, sizeof(err));
	after = fk_state(k);
	CHECK(r == -EEXIST && strstr(err, "did not create") && strstr(err, "replace = true"),
	      "no replace: refused, saying how to allow it: %s", err);
	CHECK(fk_requests(k) == 0 && !strcmp(before, after), "no replace: the foreign tree untouched, nothing sent");
	free(before);
	free(after);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
}

/* A kernel without a kind answers as the host's does without fq_codel. */
static void test_unknown_kind(void)
{
	struct gw_config *cfg = load("");
	struct fk *k = kernel(false);
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "";

	if (!CHECK(cfg && k && !fk_open(k, &nl), "unknown kind: config and kernel"))
		return;
	fk_refuse_kind(k, "pfifo", -ENOENT, "Specified qdisc kind is unknown");
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == -ENOENT &&
	      strstr(err, "Specified qdisc kind is unknown") && strstr(err, "pfifo limit 300"),
	      "unknown kind: refused with the kernel's words: %s", err);
	CHECK(fk_count(k) == 0 && !fk_ifindex(k, "ifb-wan"), "unknown kind: nothing left, the ifb gone");
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
}

/* gatewayd killed and started again: its tree is there; kept as it is, or changed in place
 * into a new config's plan, with the ifb taken over, not made again. */
static void test_adopt(void)
{
	struct gw_config *cfg = load(""), *slower = NULL;
	struct fk *k = kernel(false);
	struct gw_applied a, b;
	struct gw_tc_obj o;
	struct gw_nl *nl;
	char err[1024] = "", text[2048], *before, *after;

	snprintf(text, sizeof(text), TREE_CONF, "");
	*strstr(text, "8mbit") = '7';	/* web at 7mbit */
	if (gw_config_load_string("t.conf", text, &slower, err, sizeof(err)))
		printf("# %s\n", err);
	if (!CHECK(cfg && slower && k && !fk_open(k, &nl), "adopt: configs and kernel"))
		return;
	/* what adopting sends to the tree, without the classifiers' (test_fake_nft's) */
	cfg->owns_nft = slower->owns_nft = false;
	CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "adopt: first run applies (%s)", err);
	gw_applied_free(&a);	/* killed: nothing removed */
	before = fk_state(k);
	fk_log_clear(k);
	CHECK(gw_apply(nl, cfg, NULL, &b, err, sizeof(err)) == 0 && b.adopted,
	      "adopt: the same config again adopts the tree (%s)", err);
	after = fk_state(k);
	CHECK(!fk_log(k)[0] && !strcmp(before, after), "adopt: nothing sent, nothing changed");
	gw_applied_free(&b);
	free(after);
	CHECK(gw_apply(nl, slower, NULL, &b, err, sizeof(err)) == 0 && b.adopted,
	      "adopt: a config with web slower adopts too (%s)", err);
	if (fk_get(k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &o))
		o.cls.rate = 0;
	CHECK(fk_log_count(k, "class change v0 e000:11") == 1 && fk_log_count(k, " del ") == 0 &&
	      fk_log_count(k, " add ") == 0 && o.cls.rate == 875000,
	      "adopt: by one change of web's class, to 7 mbit");
	CHECK(gw_remove(nl, &b, err, sizeof(err)) == 0 && fk_count(k) == 0 && !fk_ifindex(k, "ifb-wan"),
	      "adopt: the adopted ifb is ours to remove");
	gw_applied_free(&b);
	free(before);
	gw_nl_close(nl);
	fk_free(k);
	gw_config_free(cfg);
	gw_config_free(slower);
}

struct stop_at {
	struct fk *k;
	unsigned int after;	/* requests the kernel has seen before stop says yes */
	unsigned int asked;
};

static bool stop_at(void *arg)
{
	struct stop_at *s = arg;

	s->asked++;
	return fk_requests(s->k) >= s->after;
}

/* --oneshot's ^C: stopped at any point, the apply undoes what it made, foreign tree back. */
static void test_stopped(void)
{
	struct gw_config *cfg = load("replace = true;");
	struct fk *k = kernel(true);
	struct stop_at s = { .after = ~0u };
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "", *before;
	unsigned int total, bad = 0, stopped = 0;
	int r;

	if (!CHECK(cfg && k && !fk_open(k, &nl), "stopped: config and kernel"))
		return;
	before = fk_state(k);
	s.k = k;
	r = gw_apply_stoppable(nl, cfg, NULL, &a, stop_at, &s, err, sizeof(err));
	CHECK(r == 0 && s.asked >= 3, "stopped: never told to stop, it applies (asked %u times)",
	      s.asked);
	total = fk_requests(k);
	gw_remove(nl, &a, err, sizeof(err));
	gw_applied_free(&a);
	gw_nl_close(nl);
	fk_free(k);
	for (unsigned int n = 0; n < total; n++) {
		char *after;

		k = kernel(true);
		fk_open(k, &nl);
		s = (struct stop_at){ .k = k, .after = n };
		strcpy(err, "not cleared");
		r = gw_apply_stoppable(nl, cfg, NULL, &a, stop_at, &s, err, sizeof(err));
		if (r == 0)
			gw_applied_free(&a);
		stopped += r == -EINTR;
		after = fk_state(k);
		if (r == -EINTR && (!after || strcmp(before, after) || err[0]) && !bad++)
			printf("# stopped after %u requests: err '%s'; before\n%s# after\n%s", n, err,
			       before, after ? after : "");
		free(after);
		gw_nl_close(nl);
		fk_free(k);
	}
	CHECK(stopped > 2, "stopped: %u of %u points stop the apply", stopped, total);
	CHECK_EQ_INT(bad, 0, "stopped: at each, -EINTR, err empty, the foreign tree back exactly");
	free(before);
	gw_config_free(cfg);
}

int main(void)
{
	test_tree();
	test_refused();
	test_no_replace();
	test_unknown_kind();
	test_adopt();
	test_stopped();
	return tap_done();
}
