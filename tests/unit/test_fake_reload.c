/* tests/unit/test_fake_reload.c: gw_reload against the in-memory kernel: a class's new rate is
 * one change request (no delete and create), a class or link added or removed is only that,
 * and a reload the kernel refuses at any of its requests is undone object by object to
 * exactly the running tree, with the kernel's message. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "tree/reload.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

struct shape {
	const char *web, *voice;	/* rates */
	bool game, no_voice, lan;
};

static struct gw_config *load(const struct shape *s)
{
	struct gw_config *cfg = NULL;
	char text[4096], err[512];

	snprintf(text, sizeof(text),
		 "links = ( { name = \"wan\"; interface = \"v0\";\n"
		 "  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
		 "    %s%s%s\n"
		 "    { name = \"web\"; rate = \"%s\"; ceil = \"20mbit\"; prio = 1; },\n"
		 "    { name = \"bulk\"; rate = \"10mbit\"; ceil = \"20mbit\"; default = true;\n"
		 "      child = { kind = \"fifo\"; limit = 300; }; }%s ); };\n"
		 "  ingress = { shaper = \"htb\"; rate = \"40mbit\"; classes = (\n"
		 "    { name = \"bulk\"; rate = \"30mbit\"; ceil = \"40mbit\"; default = true; } ); }; }\n"
		 "%s );\n",
		 s->no_voice ? "" : "{ name = \"voice\"; rate = \"", s->no_voice ? "" :
		 s->voice ? s->voice : "2mbit", s->no_voice ? "" : "\"; prio = 0; },", s->web,
		 s->game ? ",\n    { name = \"game\"; rate = \"1mbit\"; ceil = \"20mbit\"; }" : "",
		 s->lan ? ", { name = \"lan\"; interface = \"v1\";\n"
			  "  egress = { shaper = \"htb\"; rate = \"50mbit\"; }; }" : "");
	if (gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	else	/* classification is test_fake_nft's; here its best-effort deletes of the ingress
		 * filters' old generation (none: nothing matches) would join the requests counted */
		cfg->owns_nft = false;
	return cfg;
}

static unsigned int lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A kernel holding cur's tree, applied; the log cleared. */
static struct fk *running(const struct gw_config *cur, struct gw_nl **nl, struct gw_applied *a)
{
	struct fk *k = fk_new();
	char err[1024] = "";

	fk_link_add(k, "v0", "veth");
	fk_link_add(k, "v1", "veth");
	if (fk_open(k, nl) || gw_apply(*nl, cur, NULL, a, err, sizeof(err))) {
		printf("# apply: %s\n", err);
		return NULL;
	}
	fk_log_clear(k);
	return k;
}

/* Reload cur to next; 0 and the log of what it sent, checked against the new plan. */
static int reload(const struct shape *from, const struct shape *to, const char *name,
		  struct fk **kp, struct gw_reload_done *done)
{
	struct gw_config *cur = load(from), *next = load(to);
	struct gw_applied a;
	struct gw_nl *nl;
	char err[1024] = "";
	int r = -EINVAL;

	*kp = cur && next ? running(cur, &nl, &a) : NULL;
	if (!CHECK(*kp != NULL, "%s: the running tree", name))
		goto out;
	r = gw_reload(nl, NULL, cur, next, &a, done, err, sizeof(err));
	CHECK(r == 0, "%s: reloads (%s)", name, err);
	if (!r)
		CHECK(gw_verify(nl, next, &a, err, sizeof(err)) == 0 && fk_count(*kp) == a.plan.n,
		      "%s: the kernel holds the new plan (%s)", name, err);
	printf("# %s sent:\n%s", name, fk_log(*kp));
	gw_applied_free(&a);
	gw_nl_close(nl);
out:
	gw_config_free(cur);
	gw_config_free(next);
	return r;
}

static void test_rate(void)
{
	struct shape from = { .web = "8mbit" }, to = { .web = "6mbit" };
	struct gw_reload_done done;
	struct gw_tc_obj o;
	struct fk *k;

	if (reload(&from, &to, "rate", &k, &done))
		goto out;
	CHECK(done.how == GW_RELOAD_IN_PLACE && done.changed == 1, "rate: changed in place, one object (%s)",
	      done.summary);
	CHECK(lines(fk_log(k)) == 1 && fk_log_count(k, "class change v0 e000:11 e000:1 htb") == 1,
	      "rate: one change request for class web, no delete, no create");
	if (fk_get(k, "v0", GW_OBJ_CLASS, GW_HANDLE(GW_ROOT_MAJOR, 0x11), &o))
		o.cls.rate = 0;
	CHECK(o.cls.rate == 750000, "rate: web reads back 6 mbit (%llu B/s)", (unsigned long long)o.cls.rate);
	gw_reload_done_free(&done);
out:
	fk_free(k);
}

/* voice at 2 mbit has CoDel's target raised for the slow link; at 3 mbit the kernel's own
 * applies again: the leaf must lose the knob, which only replacing it does (comparing the
 * two plans once read a knob set against one unset as "near": an overflow) */
static void test_derived_unset(void)
{
	struct shape from = { .web = "7mbit" }, to = { .web = "7mbit", .voice = "3mbit" };
	struct gw_reload_done done;
	struct gw_tc_obj o;
	struct fk *k;

	if (reload(&from, &to, "derived knob unset", &k, &done))
		goto out;
	if (fk_get(k, "v0", GW_OBJ_QDISC, GW_HANDLE(GW_LEAF_MAJOR_BASE, 0), &o))
		o.q.fq_codel.target_us = 0;
	CHECK(done.replaced == 1 && fk_log_count(k, "qdisc del v0 1000:0 e000:10") == 1 &&
	      fk_log_count(k, "qdisc add v0 1000:0 e000:10 fq_codel") == 1,
	      "derived knob unset: voice's leaf replaced (%s)", done.summary);
	CHECK(o.q.fq_codel.target_us == GW_UNSET, "derived knob unset: its target is the kernel's again");
	gw_reload_done_free(&done);
out:
	fk_free(k);
}

static void test_class_added(void)
{
	struct shape from = { .web = "7mbit" }, to = { .web = "7mbit", .game = true };
	struct gw_reload_done done;
	struct fk *k;

	if (reload(&from, &to, "class added", &k, &done))
		goto out;
	CHECK(done.how == GW_RELOAD_CLASSES && done.created == 2 && done.deleted == 0 &&
	      done.changed == 0, "class added: two objects created (%s)", done.summary);
	CHECK(lines(fk_log(k)) == 2 && fk_log_count(k, "class add v0 e000:13 e000:1 htb") == 1 &&
	      fk_log_count(k, "qdisc add v0 1003:0 e000:13") == 1,
	      "class added: the class and its leaf, nothing else");
	gw_reload_done_free(&done);
out:
	fk_free(k);
}

static void test_class_removed(void)
{
	struct shape from = { .web = "8mbit" }, to = { .web = "8mbit", .no_voice = true };
	struct gw_reload_done done;
	struct fk *k;

	if (reload(&from, &to, "class removed", &k, &done))
		goto out;
	CHECK(done.deleted == 1 && done.created == 0, "class removed: one object deleted (%s)", done.summary);
	CHECK(lines(fk_log(k)) == 1 && fk_log_count(k, "class del v0 e000:10") == 1,
	      "class removed: its class deleted (the leaf goes with it), nothing else");
	gw_reload_done_free(&done);
out:
	fk_free(k);
}

static void test_links(void)
{
	struct shape one = { .web = "8mbit" }, two = { .web = "8mbit", .lan = true };
	struct gw_reload_done done;
	struct fk *k;

	if (!reload(&one, &two, "link added", &k, &done)) {
		CHECK(done.links_added == 1 && done.links_removed == 0, "link added: one (%s)", done.summary);
		CHECK(lines(fk_log(k)) > 0 && fk_log_count(k, " v1 ") == lines(fk_log(k)) &&
		      fk_log_count(k, " del ") == 0, "link added: only v1's objects created");
		gw_reload_done_free(&done);
	}
	fk_free(k);
	if (!reload(&two, &one, "link removed", &k, &done)) {
		CHECK(done.links_removed == 1 && done.links_added == 0, "link removed: one (%s)", done.summary);
		CHECK(lines(fk_log(k)) == 1 && fk_log_count(k, "qdisc del v1 e000:0 root") == 1,
		      "link removed: only v1's root deleted (its tree goes with it)");
		gw_reload_done_free(&done);
	}
	fk_free(k);
}

/* A reload of changes, creates and deletes, refused at each of its requests in turn. */
static void test_refused(void)
{
	struct shape from = { .web = "8mbit" },
		     to = { .web = "6mbit", .voice = "3mbit", .game = true, .lan = true };
	struct gw_config *cur = load(&from), *next = load(&to);
	struct gw_reload_done done;
	unsigned int total = 0, bad_state = 0, bad_msg = 0, rebuilt = 0, reloaded = 0;
	struct fk *k;

	if (!CHECK(cur && next, "refused: configs"))
		return;
	if (!reload(&from, &to, "refused (unrefused)", &k, &done))
		gw_reload_done_free(&done);
	total = lines(fk_log(k));
	fk_free(k);
	CHECK(total >= 6, "refused: the reload makes %u requests", total);
	for (unsigned int n = 1; n <= total; n++) {
		struct gw_applied a;
		struct gw_nl *nl;
		char err[1024] = "", msg[64], *before, *after;

		if (!(k = running(cur, &nl, &a)))
			break;
		before = fk_state(k);
		snprintf(msg, sizeof(msg), "fake: no to request %u", n);
		fk_refuse_nth(k, n, -ENOSPC, msg);
		if (gw_reload(nl, NULL, cur, next, &a, &done, err, sizeof(err)) == 0) {
			reloaded++;
			gw_reload_done_free(&done);
		}
		after = fk_state(k);
		if (strcmp(before, after) && !bad_state++)
			printf("# refused at %u: before\n%s# after\n%s# sent\n%s", n, before, after, fk_log(k));
		if (!strstr(err, msg) && !bad_msg++)
			printf("# refused at %u: %s\n", n, err);
		/* undone object by object: the running tree (v0's) not deleted whole, nothing of
		 * it replaced */
		rebuilt += fk_log_count(k, "qdisc del v0 e000:0 root") +
			   fk_log_count(k, "qdisc replace v0 ") + fk_log_count(k, "qdisc replace ifb-wan ");
		if (gw_verify(nl, cur, &a, err, sizeof(err)) && !bad_state++)
			printf("# refused at %u: the running state does not verify: %s\n", n, err);
		free(before);
		free(after);
		gw_applied_free(&a);
		gw_nl_close(nl);
		fk_free(k);
	}
	CHECK_EQ_INT(reloaded, 0, "refused: no reload succeeds with a request refused");
	CHECK_EQ_INT(bad_state, 0, "refused: at each request, the running tree is back exactly and verifies");
	CHECK_EQ_INT(bad_msg, 0, "refused: at each request, the error carries the kernel's message");
	CHECK_EQ_INT(rebuilt, 0, "refused: undone object by object, no tree rebuilt");
	gw_config_free(cur);
	gw_config_free(next);
}

int main(void)
{
	test_rate();
	test_derived_unset();
	test_class_added();
	test_class_removed();
	test_links();
	test_refused();
	return tap_done();
}
