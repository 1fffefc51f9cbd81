/* tests/unit/test_unconfigured.c: `unconfigured = true`, and the package's default config. */
#include <errno.h>
#include <string.h>

#include "config/config.h"
#include "tests/unit/tap.h"

/* the file the Debian package installs as /etc/gatewayd/gatewayd.conf (run from the repo) */
#define PACKAGE_CONF "debian/gatewayd.conf"

static char err[512];

static void test_alone(void)
{
	struct gw_config *cfg = NULL;
	int ret = gw_config_load_string("gw.conf", "unconfigured = true;\n", &cfg, err,
					sizeof(err));

	CHECK(ret == 0 && cfg, "unconfigured alone loads (ret %d, \"%s\")", ret, err);
	if (!cfg)
		return;
	CHECK(cfg->unconfigured, "unconfigured = true is kept");
	CHECK(cfg->n_links == 0 && !cfg->links && cfg->n_containers == 0,
	      "unconfigured: no links, no containers");
	CHECK_EQ_STR(cfg->listen[0], "127.0.0.1:9180", "unconfigured: the default listen");
	gw_config_free(cfg);
}

static void test_package_default(void)
{
	struct gw_config *cfg = NULL;
	int ret = gw_config_load(PACKAGE_CONF, &cfg, err, sizeof(err));

	CHECK(ret == 0 && cfg, "%s loads (ret %d, \"%s\")", PACKAGE_CONF, ret, err);
	if (!cfg)
		return;
	CHECK(cfg->unconfigured && cfg->n_links == 0 && cfg->n_containers == 0,
	      "%s shapes nothing", PACKAGE_CONF);
	CHECK(cfg->n_listen == 1 && !strcmp(cfg->listen[0], "127.0.0.1:9180"),
	      "%s: the page on 127.0.0.1:9180 only", PACKAGE_CONF);
	gw_config_free(cfg);
}

static const struct {
	const char *text, *msg;
} bad[] = {
	/* false changes nothing: links are required as before */
	{ "unconfigured = false;\n", "gw.conf:1: 'links' is required" },
	{ "unconfigured = 1;\n", "gw.conf:1: 'unconfigured' must be true or false" },
	{ "\nunconfigured = true;\nlinks = ( { name = \"wan\"; interface = \"eth0\";\n"
	  "  egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n",
	  "gw.conf:2: 'unconfigured = true' is for a file with no links and no containers: "
	  "remove it" },
	{ "unconfigured = true;\nlinks = ();\n",
	  "gw.conf:1: 'unconfigured = true' is for a file with no links and no containers" },
	{ "unconfigured = true;\ncontainers = ( { interfaces = \"veth*\";\n"
	  "  egress = { rate = \"1mbit\"; }; } );\n",
	  "gw.conf:1: 'unconfigured = true' is for a file with no links and no containers" },
};

static void test_refused(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gw_config *cfg = NULL;
		int ret;

		err[0] = '\0';
		ret = gw_config_load_string("gw.conf", bad[i].text, &cfg, err, sizeof(err));
		CHECK(ret == -EINVAL && !cfg && !strncmp(err, bad[i].msg, strlen(bad[i].msg)),
		      "refused #%zu: \"%s\" (got ret %d, \"%s\")", i + 1, bad[i].msg, ret, err);
		gw_config_free(cfg);
	}
}

int main(void)
{
	test_alone();
	test_package_default();
	test_refused();
	return tap_done();
}
