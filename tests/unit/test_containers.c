/* tests/unit/test_containers.c: the `containers` config (values, defaults, every refusal with
 * its line) and the matching rules gatewayd/ctr_followed.c applies to an interface. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "gatewayd/ctr_followed.h"
#include "tests/unit/tap.h"

static char err[512];

static struct gw_config *load(const char *text, int *ret)
{
	struct gw_config *cfg = NULL;

	*ret = gw_config_load_string("c.conf", text, &cfg, err, sizeof(err));
	return cfg;
}

static void test_full(void)
{
	int ret;
	struct gw_config *cfg = load(
		"containers = (\n"
		"  { interfaces = \"veth*\"; netns = \"web-*\"; address = \"10.0.0.0/24\";\n"
		"    egress = { rate = \"10mbit\"; ceil = \"20mbit\";\n"
		"               child = { kind = \"fifo\"; limit = 100; }; };\n"
		"    ingress = { rate = \"5mbit\"; };\n"
		"  },\n"
		"  { interfaces = [ \"cali*\", \"tap?\" ]; netns = \"/run/docker/netns/*\";\n"
		"    address = \"fd00:1::/64\"; ingress = { rate = \"1mbit\"; }; }\n"
		");\n", &ret);
	const struct gw_ctr_cfg *c;

	CHECK(ret == 0 && cfg, "full: loads without links (ret %d, \"%s\")", ret, err);
	if (!cfg)
		return;
	CHECK_EQ_INT(cfg->n_links, 0, "full: no links needed beside containers");
	CHECK_EQ_INT(cfg->n_containers, 2, "full: two entries");
	c = &cfg->containers[0];
	CHECK_EQ_INT(c->line, 2, "full: entry line");
	CHECK_EQ_INT(c->n_globs, 1, "full: one pattern");
	CHECK_EQ_STR(c->globs[0], "veth*", "full: pattern");
	CHECK_EQ_STR(c->netns, "web-*", "full: netns");
	CHECK(c->has_address && c->family == AF_INET && c->prefix_len == 24 &&
	      c->addr[0] == 10 && c->addr[3] == 0, "full: address 10.0.0.0/24");
	CHECK(c->dir[GW_DIR_EGRESS].present && c->dir[GW_DIR_EGRESS].rate == 1250000 &&
	      c->dir[GW_DIR_EGRESS].ceil == 2500000, "full: egress rate and ceil in bytes/s");
	CHECK(c->dir[GW_DIR_EGRESS].child.kind == GW_KIND_FIFO &&
	      c->dir[GW_DIR_EGRESS].child.opts.fifo.limit == 100, "full: egress child fifo 100");
	CHECK_EQ_INT(c->dir[GW_DIR_EGRESS].line, 3, "full: egress line");
	CHECK(c->dir[GW_DIR_INGRESS].present && c->dir[GW_DIR_INGRESS].rate == 625000 &&
	      c->dir[GW_DIR_INGRESS].ceil == 625000, "full: ingress ceil defaults to rate");
	CHECK(c->dir[GW_DIR_INGRESS].child.kind == GW_KIND_FQ_CODEL &&
	      c->dir[GW_DIR_INGRESS].child.opts.fq_codel.target_us == GW_UNSET,
	      "full: default child is fq_codel with the kernel's defaults");
	c = &cfg->containers[1];
	CHECK(c->n_globs == 2 && !strcmp(c->globs[1], "tap?"), "full: a list of patterns");
	CHECK(c->family == AF_INET6 && c->prefix_len == 64 && c->addr[0] == 0xfd,
	      "full: IPv6 prefix");
	CHECK(!c->dir[GW_DIR_EGRESS].present, "full: egress absent");
	gw_config_free(cfg);
}

static void test_with_links(void)
{
	int ret;
	struct gw_config *cfg = load(
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"            egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n"
		"containers = ( { interfaces = \"veth*\"; address = \"10.1.2.3\";\n"
		"                 egress = { rate = \"1mbit\"; }; } );\n", &ret);

	CHECK(ret == 0 && cfg, "links and containers together (\"%s\")", err);
	if (!cfg)
		return;
	CHECK(cfg->n_links == 1 && cfg->n_containers == 1, "both kept");
	CHECK(cfg->containers[0].prefix_len == 32 && cfg->containers[0].netns[0] == '\0',
	      "a bare address is a /32; no netns means any");
	gw_config_free(cfg);
}

static void test_refusals(void)
{
	static const struct {
		const char *text;
		const char *want;	/* "c.conf:LINE: ..." prefix */
	} cases[] = {
		{ "containers = ( { egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'interfaces' is required" },
		{ "containers = ( { interfaces = \"veth*\"; } );",
		  "c.conf:1: container #1: nothing to shape" },
		{ "containers = (\n{ interfaces = \"veth*\";\n egress = { ceil = \"1mbit\"; }; } );",
		  "c.conf:3: container #1 egress: 'rate' is required" },
		{ "containers = ( { interfaces = \"veth*\";\n egress = { rate = \"2mbit\";\n"
		  " ceil = \"1mbit\"; }; } );",
		  "c.conf:3: container #1 egress: rate 2mbit is above ceil 1mbit" },
		{ "containers = ( { interfaces = \"ve th\"; egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'interfaces' \"ve th\" is not an interface name pattern" },
		{ "containers = ( { interfaces = [ ]; egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'interfaces' must have 1..16 patterns, not 0" },
		{ "containers = ( { interfaces = 5; egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'interfaces' must be a string or a list of strings" },
		{ "containers = ( { interfaces = \"veth*\";\n address = \"10.0.0.5/24\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:2: container #1: 'address' \"10.0.0.5/24\" has bits set past the /24" },
		{ "containers = ( { interfaces = \"veth*\"; address = \"10.0.0.0/33\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'address' \"10.0.0.0/33\": the prefix length must be 0..32" },
		{ "containers = ( { interfaces = \"veth*\"; address = \"web\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'address' \"web\" is not an IPv4 or IPv6 prefix" },
		{ "containers = ( { interfaces = \"veth*\"; netns = \"a/b\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'netns' \"a/b\" must be a name in /run/netns" },
		{ "containers = ( { interfaces = \"veth*\"; netns = \"\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: container #1: 'netns' \"\" is not a namespace name" },
		{ "containers = ( { interfaces = \"veth*\";\n egress = { rate = \"1mbit\";\n"
		  " shaper = \"tbf\"; }; } );",
		  "c.conf:3: unknown key 'shaper' in container #1 egress" },
		{ "containers = ( { interfaces = \"veth*\"; name = \"x\";\n"
		  " egress = { rate = \"1mbit\"; }; } );",
		  "c.conf:1: unknown key 'name' in container #1" },
		{ "containers = ( { interfaces = \"veth*\";\n egress = { rate = \"1mbit\";\n"
		  " child = { kind = \"cake\"; bandwidth = \"1mbit\"; }; }; } );",
		  "c.conf:3: container #1 egress child:" },
		{ "containers = ( { interfaces = \"veth*\";\n egress = { rate = \"1mbit\";\n"
		  " child = { kind = \"hfsc\"; }; }; } );",
		  "c.conf:3: container #1 egress child: 'kind' \"hfsc\"" },
		{ "containers = ( );", "c.conf:1: 'containers' must have 1..64 entries, not 0" },
		{ "containers = { interfaces = \"veth*\"; };", "c.conf:1: 'containers' must be a list" },
		{ "listen = \"127.0.0.1:9180\";", "c.conf:1: 'links' is required" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;
		struct gw_config *cfg = load(cases[i].text, &ret);

		CHECK(ret == -EINVAL && !cfg && !strncmp(err, cases[i].want, strlen(cases[i].want)),
		      "refused with \"%s\" (ret %d, got \"%s\")", cases[i].want, ret, err);
		gw_config_free(cfg);
	}
}

static void test_matching(void)
{
	int ret;
	struct gw_config *cfg = load(
		"links = ( { name = \"wan\"; interface = \"veth-wan\";\n"
		"            egress = { shaper = \"tbf\"; rate = \"20mbit\"; };\n"
		"            ingress = { shaper = \"tbf\"; rate = \"20mbit\"; ifb = \"vethifb\"; }; } );\n"
		"containers = ( { interfaces = [ \"veth*\", \"cali?x\" ]; netns = \"web-*\";\n"
		"                 address = \"10.1.0.0/16\"; egress = { rate = \"1mbit\"; }; },\n"
		"               { interfaces = \"tap*\"; netns = \"/run/docker/netns/*\";\n"
		"                 address = \"fd00:1:2::/48\";\n"
		"                 egress = { rate = \"1mbit\"; ceil = \"2mbit\"; };\n"
		"                 ingress = { rate = \"3mbit\"; }; } );\n", &ret);
	const struct gw_ctr_cfg *r, *r6;
	uint8_t a4[4], a6[16];
	char buf[300];
	struct gw_plink l = { .ifindex = 7, .peer_nsid = -1 };
	struct gw_ctr_synth s;

	CHECK(ret == 0 && cfg, "matching config loads (\"%s\")", err);
	if (!cfg)
		return;
	r = &cfg->containers[0];
	r6 = &cfg->containers[1];
	CHECK(gw_ctr_followed_name_matches(r, "veth1234") && gw_ctr_followed_name_matches(r, "caliAx") &&
	      !gw_ctr_followed_name_matches(r, "caliABx") && !gw_ctr_followed_name_matches(r, "eth0") &&
	      !gw_ctr_followed_name_matches(r, "tap0"), "name patterns: veth*, cali?x");
	inet_pton(AF_INET, "10.1.255.3", a4);
	CHECK(gw_ctr_followed_prefix_has(r, AF_INET, a4), "10.1.255.3 is in 10.1.0.0/16");
	inet_pton(AF_INET, "10.2.0.1", a4);
	CHECK(!gw_ctr_followed_prefix_has(r, AF_INET, a4), "10.2.0.1 is not");
	inet_pton(AF_INET6, "fd00:1:2:ffff::1", a6);
	CHECK(gw_ctr_followed_prefix_has(r6, AF_INET6, a6) && !gw_ctr_followed_prefix_has(r, AF_INET6, a6),
	      "fd00:1:2:ffff::1 is in fd00:1:2::/48, and not in an IPv4 prefix");
	inet_pton(AF_INET6, "fd00:1:3::1", a6);
	CHECK(!gw_ctr_followed_prefix_has(r6, AF_INET6, a6), "fd00:1:3::1 is not in fd00:1:2::/48");
	gw_ctr_followed_netns_pattern(r, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "/run/netns/web-*", "a netns name is looked for in /run/netns");
	gw_ctr_followed_netns_pattern(r6, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "/run/docker/netns/*", "an absolute netns pattern is taken as it is");
	gw_ctr_ifb_name(2147483647, buf, sizeof(buf));
	CHECK(!strcmp(buf, "gwc-2147483647") && strlen(buf) < IFNAMSIZ,
	      "the largest ifindex still makes an ifb name that fits (%s)", buf);
	snprintf(l.name, sizeof(l.name), "veth-wan");
	CHECK(gw_ctr_followed_excluded(cfg, &l), "a configured link's interface is never a container");
	snprintf(l.name, sizeof(l.name), "vethifb");
	CHECK(gw_ctr_followed_excluded(cfg, &l), "nor its ifb");
	snprintf(l.name, sizeof(l.name), "gwc-12");
	CHECK(gw_ctr_followed_excluded(cfg, &l), "nor a container ifb");
	snprintf(l.name, sizeof(l.name), "veth9");
	snprintf(l.kind, sizeof(l.kind), "ifb");
	CHECK(gw_ctr_followed_excluded(cfg, &l), "nor any ifb");
	snprintf(l.kind, sizeof(l.kind), "veth");
	CHECK(!gw_ctr_followed_excluded(cfg, &l), "a veth is a candidate");
	l.flags = IFF_LOOPBACK;
	CHECK(gw_ctr_followed_excluded(cfg, &l), "loopback never is");

	gw_ctr_synthesize(cfg, r6, "tap0", 42, &s);
	CHECK(s.cfg.n_links == 1 && s.cfg.links == &s.link, "one link, in the synthesized config");
	CHECK_EQ_STR(s.link.name, "ctr:tap0", "the link is named after the interface");
	CHECK_EQ_STR(s.link.interface, "tap0", "on that interface");
	CHECK(s.link.dir[GW_DIR_EGRESS].shaper == GW_KIND_HTB &&
	      s.link.dir[GW_DIR_EGRESS].rate == 250000 &&
	      s.link.dir[GW_DIR_EGRESS].n_classes == 1 &&
	      s.link.dir[GW_DIR_EGRESS].classes[0].rate == 125000 &&
	      s.link.dir[GW_DIR_EGRESS].classes[0].ceil == 250000 &&
	      s.link.dir[GW_DIR_EGRESS].classes[0].is_default,
	      "egress: htb at the cap (ceil), one default class at rate..ceil");
	CHECK(s.link.dir[GW_DIR_EGRESS].classes[0].child.kind == GW_KIND_FQ_CODEL,
	      "the class's queue is the entry's child (fq_codel by default)");
	CHECK(s.link.dir[GW_DIR_INGRESS].present && s.link.dir[GW_DIR_INGRESS].rate == 375000 &&
	      !strcmp(s.link.dir[GW_DIR_INGRESS].ifb, "gwc-42"),
	      "ingress: through ifb gwc-IFINDEX at its cap");
	gw_ctr_synthesize(cfg, r, "veth1", 3, &s);
	CHECK(!s.link.dir[GW_DIR_INGRESS].present, "an egress-only entry shapes no ingress");
	gw_config_free(cfg);
}

int main(void)
{
	test_full();
	test_with_links();
	test_refusals();
	test_matching();
	return tap_done();
}
