/* tests/unit/test_nft_own.c: self-healing tells gatewayd's own nf_tables changes from anyone
 * else's by the port id the kernel stamps on a transaction's notifications, also when someone
 * else's change comes the moment after gatewayd's own and both are read together. Runs
 * against the real kernel, in a network namespace of its own (root only; skipped otherwise). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "gatewayd/heal.h"
#include "tree/apply.h"
#include "qdisc/monitor.h"
#include "qdisc/nft.h"
#include "tests/unit/tap.h"

static const char conf[] =
	"links = ( { name = \"wan\"; interface = \"lo\";\n"
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"5mbit\"; prio = 0; match = { dscp = [ \"ef\" ]; }; },\n"
	"    { name = \"bulk\"; rate = \"15mbit\"; default = true; } ); }; } );\n";

/* someone else's nft command, as a user types it */
static int foreign(const char *cmd)
{
	char line[256];

	snprintf(line, sizeof(line), "nft '%s' 2>/dev/null", cmd);
	return system(line);
}

int main(void)
{
	struct gw_config *cfg = NULL;
	struct gw_applied a = { 0 };
	struct gw_monitor *m = NULL;
	struct gw_nft_error e = { 0 };
	char err[512] = "";

	if (unshare(CLONE_NEWNET) || system("nft list tables >/dev/null 2>&1")) {
		printf("skip - nf_tables ownership: needs root and nft (%s)\n", strerror(errno));
		return 0;
	}
	if (!CHECK(gw_config_load_string("t.conf", conf, &cfg, err, sizeof(err)) == 0 &&
		   cfg->owns_nft, "the config classifies (%s)", err))
		return tap_done();
	a.nft_table = true;
	if (!CHECK(gw_monitor_open(&m) == 0 && gw_monitor_nft(m), "a monitor of nf_tables"))
		return tap_done();

	/* 1. our own batch alone: not news, read right after it or later */
	CHECK(foreign("add table inet gatewayd") == 0, "someone makes table inet gatewayd");
	CHECK(gw_heal_pending(m, NULL, cfg, &a) && a.classify_stale,
	      "their table is someone else's change");
	a.classify_stale = a.heal_due = false;
	CHECK(gw_nft_remove(NULL, &e) == 0, "gatewayd deletes it (%s)", e.msg);
	CHECK(!gw_heal_absorb(m, NULL, cfg, &a) && !a.classify_stale,
	      "gatewayd's own delete, read right after it, is not news");
	CHECK(foreign("add table inet gatewayd") == 0 && gw_heal_pending(m, NULL, cfg, &a),
	      "someone makes it again: news");
	a.classify_stale = a.heal_due = false;
	CHECK(gw_nft_remove(NULL, &e) == 0, "gatewayd deletes it again (%s)", e.msg);
	CHECK(!gw_heal_pending(m, NULL, cfg, &a) && !a.classify_stale,
	      "gatewayd's own delete, read by the loop later, is not news either");

	/* 2. someone else's change the moment after ours, both read together */
	CHECK(foreign("add table inet gatewayd") == 0, "someone makes the table");
	gw_heal_pending(m, NULL, cfg, &a);
	a.classify_stale = a.heal_due = false;
	CHECK(gw_nft_remove(NULL, &e) == 0, "gatewayd deletes it (%s)", e.msg);
	CHECK(foreign("add table inet gatewayd") == 0, "at once, someone makes it again");
	CHECK(gw_heal_absorb(m, NULL, cfg, &a) && a.classify_stale,
	      "read with gatewayd's own, theirs is news (heal due, classifiers stale)");

	/* 3. someone else's change to another table is not ours to heal */
	a.classify_stale = a.heal_due = false;
	CHECK(foreign("add table inet other") == 0 &&
	      !gw_heal_pending(m, NULL, cfg, &a) && !a.classify_stale,
	      "a change to table inet other is not news");
	CHECK(!gw_nft_portid_ours(NULL, 0), "port id 0 (the kernel's own) is never ours");
	gw_nft_remove(NULL, &e);
	gw_monitor_close(m);
	gw_config_free(cfg);
	return tap_done();
}
