/* tests/unit/test_fake_retune.c: gw_retune against the in-memory kernel: htb's top class and
 * every class changed in proportion in one batch, cake's bandwidth by one qdisc change (tbf's
 * is the netns suite's: the fake has no tbf class), nothing created, deleted or replaced, the
 * plan updated so the read-back finds the tree as planned; a refusal leaves the kernel and the
 * plan as they were. */
#include <errno.h>
#include <stdlib.h>
#include <linux/pkt_sched.h>
#include "tree/retune.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

#define MBIT(x) ((uint64_t)(x) * 125000)

static const char conf[] =
	"links = ( { name = \"wan\"; interface = \"v0\";\n"
	"  egress = { shaper = \"htb\"; rate = \"40mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"4mbit\"; ceil = \"40mbit\"; prio = 0; },\n"
	"    { name = \"web\"; rate = \"16mbit\"; ceil = \"20mbit\"; burst = 30000; },\n"
	"    { name = \"bulk\"; rate = \"20mbit\"; ceil = \"40mbit\"; default = true;\n"
	"      child = { kind = \"fifo\"; limit = 300; }; } );\n"
	"    autorate = { min = \"4mbit\"; max = \"80mbit\"; }; };\n"
	"  ingress = { shaper = \"cake\"; rate = \"50mbit\";\n"
	"    autorate = { min = \"5mbit\"; max = \"100mbit\"; }; }; },\n"
	" { name = \"lte\"; interface = \"v1\";\n"
	"  egress = { shaper = \"cake\"; rate = \"10mbit\"; }; } );\n"
	"probe = { targets = [ \"192.0.2.1\" ]; };\n";

static struct fk *running(struct gw_config **cfg, struct gw_nl **nl, struct gw_applied *a)
{
	struct fk *k = fk_new();
	char err[1024] = "";

	fk_link_add(k, "v0", "veth");
	fk_link_add(k, "v1", "veth");
	if (gw_config_load_string("t.conf", conf, cfg, err, sizeof(err))) {
		printf("# config: %s\n", err);
		return NULL;
	}
	if (fk_open(k, nl) || gw_apply(*nl, *cfg, NULL, a, err, sizeof(err))) {
		printf("# apply: %s\n", err);
		return NULL;
	}
	fk_log_clear(k);
	return k;
}

static void check_class(struct fk *k, uint32_t minor, uint64_t rate, uint64_t ceil,
			int64_t burst, const char *name)
{
	struct gw_tc_obj o;

	if (!CHECK(fk_get(k, "v0", GW_OBJ_CLASS, GW_HANDLE(0xe000, minor), &o) == 0,
		   "%s: the class is there", name))
		return;
	CHECK(o.cls.rate == rate && o.cls.ceil == ceil, "%s: rate %llu ceil %llu (got %llu %llu)",
	      name, (unsigned long long)rate, (unsigned long long)ceil,
	      (unsigned long long)o.cls.rate, (unsigned long long)o.cls.ceil);
	if (burst >= 0)
		CHECK(o.cls.burst > burst - 200 && o.cls.burst < burst + 200,
		      "%s: burst about %lld (got %lld)", name, (long long)burst,
		      (long long)o.cls.burst);
}

static void test_htb(void)
{
	struct gw_config *cfg = NULL;
	struct gw_applied a;
	struct gw_nl *nl;
	struct fk *k = running(&cfg, &nl, &a);
	char err[1024] = "", *before;
	size_t n = 0, count;

	if (!CHECK(k != NULL, "htb: the running tree"))
		return;
	count = fk_count(k);
	before = fk_state(k);
	CHECK(gw_retune(nl, cfg, &a, 0, GW_DIR_EGRESS, MBIT(20), &n, err, sizeof(err)) == 0,
	      "htb: retuned to 20mbit (%s)", err);
	CHECK_EQ_INT(n, 4, "htb: four requests: the top class and three classes");
	CHECK_EQ_INT(fk_log_count(k, "class change"), 4, "htb: all four class changes");
	CHECK(fk_log_count(k, "qdisc") == 0 && fk_log_count(k, " add ") == 0 &&
	      fk_log_count(k, " del ") == 0, "htb: no qdisc touched, nothing added or deleted");
	CHECK_EQ_INT(fk_count(k), count, "htb: the same objects");
	check_class(k, 1, MBIT(20), MBIT(20), 2500, "htb top");
	check_class(k, 0x10, MBIT(2), MBIT(20), 1514, "htb voice (1 ms at its rate, a packet)");
	check_class(k, 0x11, MBIT(8), MBIT(10), 30000, "htb web (its own burst kept)");
	check_class(k, 0x12, MBIT(10), MBIT(20), -1, "htb bulk");
	CHECK_EQ_INT(gw_retune_rate(&a, 0, GW_DIR_EGRESS), MBIT(20), "htb: the plan's rate");
	CHECK(gw_verify(nl, cfg, &a, err, sizeof(err)) == 0, "htb: the read-back finds the plan "
	      "(%s)", err);
	/* the leaves are what they were */
	{
		char *after = fk_state(k);
		const char *leaf = "1002:";

		CHECK(strstr(before, leaf) && strstr(after, leaf), "htb: the fifo leaf is there");
		free(after);
	}
	/* back up to 80mbit: the ratio to the configured 40 again */
	CHECK(gw_retune(nl, cfg, &a, 0, GW_DIR_EGRESS, MBIT(80), NULL, err, sizeof(err)) == 0,
	      "htb: retuned to 80mbit");
	check_class(k, 0x11, MBIT(32), MBIT(40), 30000, "htb web at 80");
	/* a refusal of the third request: the plan and the kernel as they were */
	free(before);
	before = fk_state(k);
	fk_log_clear(k);
	fk_refuse_nth(k, 3, -EINVAL, "rate too odd");
	CHECK(gw_retune(nl, cfg, &a, 0, GW_DIR_EGRESS, MBIT(30), NULL, err, sizeof(err)) ==
	      -EINVAL, "htb refused: -EINVAL");
	CHECK(strstr(err, "link 'wan' egress class web on v0: the kernel refused `tc class")
	      && strstr(err, "rate too odd"), "htb refused: the object, its command and the "
	      "kernel's message (%s)", err);
	CHECK_EQ_INT(gw_retune_rate(&a, 0, GW_DIR_EGRESS), MBIT(80), "htb refused: the plan's "
		     "rate kept");
	{
		char *after = fk_state(k);

		CHECK(!strcmp(before, after), "htb refused: the kernel's objects as they were");
		free(after);
	}
	CHECK(gw_verify(nl, cfg, &a, err, sizeof(err)) == 0, "htb refused: the read-back finds "
	      "the plan");
	free(before);
	gw_remove(nl, &a, err, sizeof(err));
	gw_applied_free(&a);
	gw_nl_close(nl);
	gw_config_free(cfg);
	fk_free(k);
}

static void test_cake_tbf(void)
{
	struct gw_config *cfg = NULL;
	struct gw_applied a;
	struct gw_nl *nl;
	struct fk *k = running(&cfg, &nl, &a);
	char err[1024] = "";
	struct gw_tc_obj o;
	size_t n = 0, count;

	if (!CHECK(k != NULL, "cake: the running tree"))
		return;
	count = fk_count(k);
	CHECK(gw_retune(nl, cfg, &a, 0, GW_DIR_INGRESS, MBIT(12), &n, err, sizeof(err)) == 0,
	      "cake: retuned (%s)", err);
	CHECK(n == 1 && fk_log_count(k, "qdisc change ifb-wan e000:") == 1,
	      "cake: one qdisc change");
	CHECK(fk_get(k, "ifb-wan", GW_OBJ_QDISC, GW_ROOT_HANDLE, &o) == 0 &&
	      o.q.cake.bandwidth == (int64_t)MBIT(12), "cake: its bandwidth 12mbit");
	fk_log_clear(k);
	CHECK(gw_retune(nl, cfg, &a, 1, GW_DIR_EGRESS, MBIT(5), &n, err, sizeof(err)) == 0,
	      "cake egress: retuned (%s)", err);
	CHECK(n == 1 && fk_log_count(k, "qdisc change v1 e000:") == 1, "cake egress: one qdisc "
	      "change");
	CHECK_EQ_INT(fk_count(k), count, "cake: the same objects");
	CHECK(gw_verify(nl, cfg, &a, err, sizeof(err)) == 0, "cake: the read-back finds the "
	      "plan (%s)", err);
	CHECK(gw_retune(nl, cfg, &a, 1, GW_DIR_INGRESS, MBIT(5), &n, err, sizeof(err)) == -ENOENT,
	      "a direction not shaped: -ENOENT");
	gw_remove(nl, &a, err, sizeof(err));
	gw_applied_free(&a);
	gw_nl_close(nl);
	gw_config_free(cfg);
	fk_free(k);
}

int main(void)
{
	test_htb();
	test_cake_tbf();
	return tap_done();
}
