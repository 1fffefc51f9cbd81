/* tests/unit/kind_test.h: what every kind's own unit test starts with: the kind found in the
 * registry, a config loaded from text, a leaf object made from a parsed child. */
#ifndef GW_TESTS_KIND_TEST_H
#define GW_TESTS_KIND_TEST_H

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "config/config.h"
#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"

/* The kind by its config name, with an index of its own, found again by its kernel name, a
 * leaf, from module; exits when it is not registered at all. */
static inline const struct gw_qdisc_ops *kt_registry(const char *name, const char *module,
						     enum gw_kind *kind)
{
	const struct gw_qdisc_ops *ops = gw_qdisc_ops_by_name(name);

	CHECK(ops != NULL, "registry: %s by name", name);
	if (!ops)
		exit(tap_done() | 1);
	*kind = gw_qdisc_kind(ops);
	CHECK(*kind != GW_KIND_NONE && gw_qdisc_ops(*kind) == ops, "registry: %s has an index",
	      name);
	CHECK(gw_qdisc_ops_by_tc_kind(name) == ops && ops->leaf, "registry: a leaf, kernel name %s",
	      name);
	CHECK(!strcmp(ops->module, module), "module %s (%s)", module, ops->module);
	return ops;
}

/* A config of one link whose egress SHAPER has a child of KIND with the settings CHILD. */
#define KT_CONF(shaper, kind, child) \
	"links = ( { name = \"wan\"; interface = \"eth0\";\n" \
	"  egress = { shaper = \"" shaper "\"; rate = \"10mbit\";\n" \
	"    child = { kind = \"" kind "\"; " child " }; }; } );\n"

static char kt_err[512];	/* the last kt_load's message */

/* text loaded as a config file: NULL unless it loads, and a check that it ends with want
 * (0 or -errno); kt_err keeps the message. */
static inline struct gw_config *kt_load(const char *text, int want)
{
	struct gw_config *cfg = NULL;
	int r = gw_config_load_string("gw.conf", text, &cfg, kt_err, sizeof(kt_err));

	CHECK(r == want, "config loads with %d (got %d, \"%s\")", want, r, kt_err);
	return r ? NULL : cfg;
}

/* The leaf qdisc a parsed child becomes under parent. */
static inline struct gw_tc_obj kt_obj(const struct gw_child *c, uint32_t parent)
{
	struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .kind = c->kind, .ifindex = 7,
			       .handle = GW_HANDLE(0x1000, 0), .parent = parent };

	o.q = c->opts;
	return o;
}

/* A child's settings the config must refuse, and the message it must say. */
struct kt_bad {
	const char *child, *msg;
};

/* Each of bad[] loaded as the settings of a child of kind under shaper (KT_CONF) is refused
 * with its message. */
static inline void kt_refusals(const char *shaper, const char *kind, const struct kt_bad *bad,
			       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char text[512];

		snprintf(text, sizeof(text), KT_CONF("%s", "%s", "%s"), shaper, kind, bad[i].child);
		kt_load(text, -EINVAL);
		CHECK(strstr(kt_err, bad[i].msg) != NULL, "refused: %s says \"%s\" (got \"%s\")",
		      bad[i].child, bad[i].msg, kt_err);
	}
}

#endif
