/* tests/unit/test_probe.c: the probe blocks of the config (global and per link), and the probe
 * packet format. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "probe/prober.h"
#include "probe/packet.h"
#include "tests/unit/tap.h"

static char err[512];

#define LINKS \
	"links = ( { name = \"wan\"; interface = \"eth0\";\n" \
	"            egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; },\n" \
	"          { name = \"lte\"; interface = \"wwan0\";\n" \
	"            egress = { shaper = \"tbf\"; rate = \"5mbit\"; }; } );\n"

static struct gw_config *load(const char *probe)
{
	char text[2048];
	struct gw_config *cfg = NULL;

	snprintf(text, sizeof(text), LINKS "%s", probe);
	err[0] = '\0';
	if (gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err)))
		return NULL;
	return cfg;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port :
		     ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void test_absent(void)
{
	struct gw_config *cfg = load("");

	if (!CHECK(cfg, "no probe block loads (%s)", err))
		return;
	CHECK(!cfg->probe.present, "no probe block: not present");
	CHECK_EQ_INT(cfg->probe.interval_us, 100000, "no probe block: interval still defaulted");
	CHECK_EQ_INT(cfg->probe.fwmark, GW_UNSET, "no probe block: fwmark unset");
	gw_config_free(cfg);
}

static void test_defaults(void)
{
	struct gw_config *cfg = load("probe = { targets = [ \"192.0.2.1\", \"2001:db8::1\" ]; };\n");
	const struct gw_probe_cfg *p;

	if (!CHECK(cfg, "minimal probe block loads (%s)", err))
		return;
	p = &cfg->probe;
	CHECK(p->present, "defaults: present");
	CHECK_EQ_INT(p->line, 5, "defaults: line of the block");
	CHECK_EQ_INT(p->method, GW_PROBE_ICMP, "defaults: icmp");
	CHECK_EQ_INT(p->n_targets, 2, "defaults: two targets");
	CHECK_EQ_STR(p->targets[0].host, "192.0.2.1", "defaults: target 1 as written");
	CHECK_EQ_INT(p->targets[0].addr.ss_family, AF_INET, "defaults: target 1 IPv4");
	CHECK_EQ_INT(p->targets[0].addrlen, sizeof(struct sockaddr_in), "defaults: v4 addrlen");
	CHECK_EQ_INT(p->targets[1].addr.ss_family, AF_INET6, "defaults: target 2 IPv6");
	CHECK_EQ_INT(p->targets[1].addrlen, sizeof(struct sockaddr_in6), "defaults: v6 addrlen");
	CHECK_EQ_INT(p->interval_us, 100000, "defaults: interval 100ms");
	CHECK_EQ_INT(p->timeout_us, 1000000, "defaults: timeout 1s");
	CHECK_EQ_INT(p->size, GW_PROBE_SIZE_DEFAULT, "defaults: size");
	CHECK_EQ_STR(p->link, "wan", "defaults: the first link");
	CHECK_EQ_INT(p->fwmark, GW_UNSET, "defaults: no fwmark");
	CHECK_EQ_STR(p->sink, "", "defaults: no sink");
	CHECK_EQ_INT(p->load_duration_us, 10000000, "defaults: load_duration 10s");
	CHECK_EQ_INT(p->load_every_us, 0, "defaults: load test on demand only");
	CHECK_EQ_INT(p->load_flows, 4, "defaults: 4 flows");
	gw_config_free(cfg);
}

static void test_full(void)
{
	struct gw_config *cfg = load(
		"probe = {\n"
		"  method = \"udp\";\n"
		"  targets = [ \"192.0.2.1\", \"192.0.2.2:7000\", \"[2001:db8::1]:7001\",\n"
		"              \"2001:db8::2\", \"[2001:db8::3]\" ];\n"
		"  interval = \"20ms\"; timeout = \"500ms\"; size = 200; link = \"lte\";\n"
		"  fwmark = 4096; sink = \"[2001:db8::9]:5201\"; load_duration = \"30s\";\n"
		"  load_every = \"21600s\"; load_flows = 8;\n"
		"};\n");
	const struct gw_probe_cfg *p;

	if (!CHECK(cfg, "full probe block loads (%s)", err))
		return;
	p = &cfg->probe;
	CHECK_EQ_INT(p->method, GW_PROBE_UDP, "full: udp");
	CHECK_EQ_INT(p->n_targets, 5, "full: five targets");
	CHECK_EQ_INT(port_of(&p->targets[0].addr), 2112, "full: default port v4");
	CHECK_EQ_INT(port_of(&p->targets[1].addr), 7000, "full: v4 port");
	CHECK_EQ_INT(port_of(&p->targets[2].addr), 7001, "full: v6 port");
	CHECK_EQ_INT(port_of(&p->targets[3].addr), 2112, "full: default port bare v6");
	CHECK_EQ_INT(port_of(&p->targets[4].addr), 2112, "full: default port bracketed v6");
	CHECK_EQ_INT(p->targets[3].line, 8, "full: target line");
	CHECK_EQ_INT(p->interval_us, 20000, "full: interval");
	CHECK_EQ_INT(p->timeout_us, 500000, "full: timeout");
	CHECK_EQ_INT(p->size, 200, "full: size");
	CHECK_EQ_STR(p->link, "lte", "full: link");
	CHECK_EQ_INT(p->fwmark, 4096, "full: fwmark");
	CHECK_EQ_STR(p->sink, "[2001:db8::9]:5201", "full: sink");
	CHECK_EQ_INT(p->sink_addr.ss_family, AF_INET6, "full: sink v6");
	CHECK_EQ_INT(port_of(&p->sink_addr), 5201, "full: sink port");
	CHECK_EQ_INT(p->load_duration_us, 30000000, "full: load_duration");
	CHECK_EQ_INT(p->load_every_us, 6LL * 3600 * 1000000, "full: load_every");
	CHECK_EQ_INT(p->load_flows, 8, "full: load_flows");
	gw_config_free(cfg);

	cfg = load("probe = { targets = \"10.0.0.1\"; load_every = \"0\"; size = \"1k\"; };\n");
	if (CHECK(cfg, "one target as a string, load_every \"0\" loads (%s)", err)) {
		CHECK_EQ_INT(cfg->probe.n_targets, 1, "string target: one");
		CHECK_EQ_INT(cfg->probe.size, 1024, "size with a unit");
		CHECK_EQ_INT(cfg->probe.load_every_us, 0, "load_every \"0\": on demand");
	}
	gw_config_free(cfg);
}

/* Each refusal names the file, the right line and what is wrong. */
static void refused(const char *probe, const char *want, const char *name)
{
	struct gw_config *cfg = load(probe);

	CHECK(!cfg && strstr(err, want), "%s refused (want \"%s\", got \"%s\")", name, want, err);
	gw_config_free(cfg);
}

static void test_refusals(void)
{
	refused("probe = { };\n", "gw.conf:5: probe: 'targets' is required", "no targets");
	refused("probe = { targets = [ ]; };\n", "gw.conf:5: probe: 'targets' must have 1..16",
		"empty targets");
	refused("probe = { targets = [ \"1.2.3.4\", \"1.2.3.5\", \"1.2.3.6\", \"1.2.3.7\", "
		"\"1.2.3.8\", \"1.2.3.9\", \"1.2.3.10\", \"1.2.3.11\", \"1.2.3.12\", \"1.2.3.13\", "
		"\"1.2.3.14\", \"1.2.3.15\", \"1.2.3.16\", \"1.2.3.17\", \"1.2.3.18\", \"1.2.3.19\", "
		"\"1.2.3.20\" ]; };\n", "must have 1..16 addresses, not 17", "17 targets");
	refused("probe = {\n targets = [ \"10.0.0.1\",\n \"example.com\" ]; };\n",
		"gw.conf:7: probe: target \"example.com\" is not an IP address", "host name");
	refused("probe = { targets = [ \"10.0.0.1:2112\" ]; };\n",
		"gw.conf:5: probe: target \"10.0.0.1:2112\" is not an IP address (icmp takes no port)",
		"icmp with a port");
	refused("probe = { method = \"udp\"; targets = [ \"10.0.0.1:0\" ]; };\n",
		"target \"10.0.0.1:0\" is not an IP address, optionally with a port", "port 0");
	refused("probe = { method = \"udp\"; targets = [ \"[::1\" ]; };\n",
		"target \"[::1\" is not", "unclosed bracket");
	refused("probe = { targets = [ 1 ]; };\n", "'targets' must be a list of strings",
		"number target");
	refused("probe = { targets = 5; };\n", "'targets' must be a list of IP addresses",
		"targets a number");
	refused("probe = { targets = [ \"10.0.0.1\",\n \"10.0.0.1\" ]; };\n",
		"gw.conf:6: probe: target \"10.0.0.1\" is the same as \"10.0.0.1\" on line 5",
		"duplicate target");
	refused("probe = { method = \"udp\"; targets = [ \"10.0.0.1\", \"10.0.0.1:2112\" ]; };\n",
		"is the same as", "duplicate target by default port");
	refused("probe = { targets = [ \"10.0.0.1\" ]; method = \"tcp\"; };\n",
		"gw.conf:5: probe: 'method' \"tcp\" is not one of \"icmp\", \"udp\"", "bad method");
	refused("probe = { targets = [ \"10.0.0.1\" ];\n interval = \"5ms\"; };\n",
		"gw.conf:6: probe: 'interval' \"5ms\" is out of range 10ms..10s", "interval too short");
	refused("probe = { targets = [ \"10.0.0.1\" ]; interval = \"11s\"; };\n",
		"'interval' \"11s\" is out of range", "interval too long");
	refused("probe = { targets = [ \"10.0.0.1\" ]; interval = 100; };\n",
		"'interval' needs a unit", "interval without unit");
	refused("probe = { targets = [ \"10.0.0.1\" ]; timeout = \"1min\"; };\n",
		"'timeout' \"1min\" is not a time", "timeout bad unit");
	refused("probe = { targets = [ \"10.0.0.1\" ]; timeout = \"20s\"; };\n",
		"'timeout' \"20s\" is out of range 10ms..10s", "timeout too long");
	refused("probe = { targets = [ \"10.0.0.1\" ]; size = 8; };\n",
		"'size' 8 is out of range 40..1472", "size too small");
	refused("probe = { targets = [ \"10.0.0.1\" ]; size = \"64k\"; };\n",
		"'size' \"64k\" is out of range", "size too big");
	refused("probe = { targets = [ \"10.0.0.1\" ];\n\n link = \"dsl\"; };\n",
		"gw.conf:7: probe: 'link' \"dsl\" is not one of the configured links", "unknown link");
	refused("probe = { targets = [ \"10.0.0.1\" ]; fwmark = -1; };\n",
		"'fwmark' -1 is out of range 0..4294967295", "negative fwmark");
	refused("probe = { targets = [ \"10.0.0.1\" ]; fwmark = 4294967296L; };\n",
		"'fwmark' 4294967296 is out of range", "fwmark too big");
	refused("probe = { targets = [ \"10.0.0.1\" ]; fwmark = \"1\"; };\n",
		"'fwmark' must be an integer", "fwmark a string");
	refused("probe = { targets = [ \"10.0.0.1\" ]; sink = \"10.0.0.2\"; };\n",
		"'sink' \"10.0.0.2\" is not an address: expected \"IP:PORT\"", "sink without port");
	refused("probe = { targets = [ \"10.0.0.1\" ]; sink = \"sink.example:5201\"; };\n",
		"'sink' \"sink.example:5201\" is not an address", "sink host name");
	refused("probe = { targets = [ \"10.0.0.1\" ]; load_duration = \"500ms\"; };\n",
		"'load_duration' \"500ms\" is out of range 1s..", "load_duration too short");
	refused("probe = { targets = [ \"10.0.0.1\" ]; load_duration = \"10min\"; };\n",
		"'load_duration' \"10min\" is not a time", "load_duration bad unit");
	refused("probe = { targets = [ \"10.0.0.1\" ]; sink = \"10.0.0.2:5201\";\n"
		" load_every = \"10s\"; };\n",
		"gw.conf:6: probe: 'load_every' \"10s\" is out of range", "load_every too often");
	refused("probe = { targets = [ \"10.0.0.1\" ];\n load_every = \"3600s\"; };\n",
		"gw.conf:6: probe: 'load_every' needs a 'sink'", "load_every without sink");
	refused("probe = { targets = [ \"10.0.0.1\" ]; load_flows = 0; };\n",
		"'load_flows' 0 is out of range 1..64", "no flows");
	refused("probe = { targets = [ \"10.0.0.1\" ]; load_flows = 65; };\n",
		"'load_flows' 65 is out of range 1..64", "65 flows");
	refused("probe = { targets = [ \"10.0.0.1\" ];\n targts = 1; };\n",
		"gw.conf:6: unknown key 'targts' in probe", "misspelt key");
	refused("probe = \"10.0.0.1\";\n", "gw.conf:5: 'probe' must be a group", "probe not a group");
}

/* A whole config's text (its own links), loaded into *out; err says why not. */
static struct gw_config *load_text(const char *text)
{
	struct gw_config *cfg = NULL;

	err[0] = '\0';
	if (gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err)))
		return NULL;
	return cfg;
}

#define WAN2(wan_probe, lte_probe) \
	"links = ( { name = \"wan\"; interface = \"eth0\";\n" \
	"            egress = { shaper = \"tbf\"; rate = \"20mbit\"; };\n" \
	"            " wan_probe " },\n" \
	"          { name = \"lte\"; interface = \"wwan0\";\n" \
	"            egress = { shaper = \"tbf\"; rate = \"5mbit\"; };\n" \
	"            " lte_probe " } );\n"

static void link_refused(const char *text, const char *want, const char *name)
{
	struct gw_config *cfg = load_text(text);

	CHECK(!cfg && strstr(err, want), "%s refused (want \"%s\", got \"%s\")", name, want, err);
	gw_config_free(cfg);
}

/* A link's own probe block: its defaults, its link, which block judges which link. */
static void test_link_blocks(void)
{
	struct gw_config *cfg = load_text(WAN2("",
		"probe = { targets = [ \"198.51.100.1\", \"198.51.100.2\" ];\n"
		"                      source = \"198.51.100.10\"; fwmark = 2; };")
		"probe = { targets = \"192.0.2.1\"; method = \"udp\"; interval = \"50ms\"; };\n");
	const struct gw_probe_cfg *p;

	if (!CHECK(cfg, "a link's own block beside the global one loads (%s)", err))
		return;
	CHECK(cfg->links[0].probe == NULL, "wan: no block of its own");
	p = cfg->links[1].probe;
	if (CHECK(p != NULL, "lte: its own block")) {
		CHECK(p->present, "link block: present");
		CHECK_EQ_INT(p->line, 6, "link block: its line");
		CHECK_EQ_STR(p->link, "lte", "link block: its link is the link");
		CHECK_EQ_INT(p->method, GW_PROBE_ICMP,
			     "link block: icmp by default, not the global's udp");
		CHECK_EQ_INT(p->interval_us, 100000, "link block: interval 100ms by default");
		CHECK_EQ_INT(p->timeout_us, 1000000, "link block: timeout 1s by default");
		CHECK_EQ_INT(p->size, GW_PROBE_SIZE_DEFAULT, "link block: size by default");
		CHECK_EQ_INT(p->n_targets, 2, "link block: two targets");
		CHECK_EQ_INT(p->fwmark, 2, "link block: fwmark");
		CHECK_EQ_STR(p->source, "198.51.100.10", "link block: source as written");
		CHECK_EQ_INT(p->source_addr.ss_family, AF_INET, "link block: source IPv4");
		CHECK_EQ_INT(p->source_addrlen, sizeof(struct sockaddr_in), "link block: source length");
		CHECK_EQ_STR(p->sink, "", "link block: no sink");
		CHECK_EQ_INT(p->load_flows, 4, "link block: load settings defaulted, unused");
	}
	CHECK_EQ_STR(cfg->probe.link, "wan", "global block: the first link, which has none of its own");
	CHECK_EQ_INT(cfg->probe.source_addrlen, 0, "global block: no source");
	CHECK(gw_config_probe_of(cfg, 0) == &cfg->probe, "wan judged by the global block");
	CHECK(gw_config_probe_of(cfg, 1) == cfg->links[1].probe, "lte judged by its own block");
	CHECK(gw_config_probe_of(cfg, 2) == NULL, "no third link");
	gw_config_free(cfg);

	/* each link its own block, no global one */
	cfg = load_text(WAN2("probe = { targets = [ \"2001:db8::1\" ]; source = \"2001:db8::10\"; };",
			     "probe = { targets = [ \"198.51.100.1\" ]; };"));
	if (CHECK(cfg, "a block per link, no global block (%s)", err)) {
		CHECK(!cfg->probe.present, "no global block");
		CHECK(gw_config_probe_of(cfg, 0) == cfg->links[0].probe &&
		      gw_config_probe_of(cfg, 1) == cfg->links[1].probe, "each link its own");
		CHECK_EQ_INT(cfg->links[0].probe->source_addr.ss_family, AF_INET6, "IPv6 source");
		CHECK_EQ_INT(cfg->links[0].probe->source_addrlen, sizeof(struct sockaddr_in6),
			     "IPv6 source length");
	}
	gw_config_free(cfg);

	/* the global block names a link; the other has none: not probed */
	cfg = load_text(WAN2("", "") "probe = { targets = \"192.0.2.1\"; link = \"lte\";\n"
			"  source = \"192.0.2.9\"; };\n");
	if (CHECK(cfg, "global block naming the second link (%s)", err)) {
		CHECK(gw_config_probe_of(cfg, 0) == NULL, "wan not probed");
		CHECK(gw_config_probe_of(cfg, 1) == &cfg->probe, "lte by the global block");
		CHECK_EQ_STR(cfg->probe.source, "192.0.2.9", "a source in the global block");
	}
	gw_config_free(cfg);

	/* the global block with a link of its own elsewhere */
	cfg = load_text(WAN2("probe = { targets = \"198.51.100.1\"; };", "") "probe = { targets = "
			"\"192.0.2.1\"; link = \"lte\"; sink = \"192.0.2.5:5201\"; };\n");
	CHECK(cfg && gw_config_probe_of(cfg, 0) == cfg->links[0].probe &&
	      gw_config_probe_of(cfg, 1) == &cfg->probe, "global block on lte, wan its own (%s)", err);
	gw_config_free(cfg);

	/* refusals, each with the file and the line */
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; };", "")
		     "probe = { targets = \"192.0.2.1\"; };\n",
		     "gw.conf:7: probe: link 'wan' (the first link, the default) has a probe block "
		     "of its own (line 3)", "the global block defaulting to a link with its own");
	link_refused(WAN2("", "probe = { targets = \"198.51.100.1\"; };")
		     "probe = { targets = \"192.0.2.1\";\n link = \"lte\"; };\n",
		     "gw.conf:8: probe: link 'lte' has a probe block of its own (line 6)",
		     "the global block naming a link with its own");
	link_refused(WAN2("", "probe = { targets = \"198.51.100.1\";\n sink = \"192.0.2.5:5201\"; };"),
		     "gw.conf:7: link 'lte' probe: 'sink' belongs in the global probe block",
		     "sink in a link's block");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; load_every = \"1h\"; };", ""),
		     "gw.conf:3: link 'wan' probe: 'load_every' belongs in the global probe block",
		     "load_every in a link's block");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; load_flows = 2; };", ""),
		     "gw.conf:3: link 'wan' probe: 'load_flows' belongs", "load_flows in a link's block");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; load_duration = \"5s\"; };", ""),
		     "gw.conf:3: link 'wan' probe: 'load_duration' belongs",
		     "load_duration in a link's block");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; link = \"lte\"; };", ""),
		     "gw.conf:3: link 'wan' probe: 'link' belongs in the global probe block (a "
		     "link's own block probes that link)", "link in a link's block");
	link_refused(WAN2("probe = { };", ""), "gw.conf:3: link 'wan' probe: 'targets' is required",
		     "a link's block without targets");
	link_refused(WAN2("probe = { targets = [ \"198.51.100.1\",\n \"bogus\" ]; };", ""),
		     "gw.conf:4: link 'wan' probe: target \"bogus\" is not", "a bad target");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; interval = \"1ms\"; };", ""),
		     "gw.conf:3: link 'wan' probe: 'interval' \"1ms\" is out of range",
		     "a link's interval out of range");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; tagets = 1; };", ""),
		     "gw.conf:3: unknown key 'tagets' in link 'wan' probe", "a misspelt key");
	link_refused(WAN2("probe = \"198.51.100.1\";", ""),
		     "gw.conf:3: link 'wan': 'probe' must be a group", "a link's probe not a group");
	link_refused(WAN2("probe = { targets = [ \"198.51.100.1\", \"2001:db8::1\" ];\n"
			  " source = \"198.51.100.10\"; };", ""),
		     "gw.conf:4: link 'wan' probe: 'source' \"198.51.100.10\" is IPv4 but target "
		     "\"2001:db8::1\" on line 3 is IPv6", "a source of the other family");
	link_refused(WAN2("probe = { targets = \"198.51.100.1\"; source = \"198.51.100.10:99\"; };",
			  ""), "gw.conf:3: link 'wan' probe: 'source' \"198.51.100.10:99\" is not an IP "
		     "address (no port)", "a source with a port");
	link_refused(WAN2("", "") "probe = { targets = \"192.0.2.1\";\n source = \"host\"; };\n",
		     "gw.conf:8: probe: 'source' \"host\" is not an IP address",
		     "a bad source in the global block");
	link_refused(WAN2("", "") "probe = { targets = \"192.0.2.1\"; source = 5; };\n",
		     "gw.conf:7: probe: 'source' must be a string", "a source not a string");
	/* a container host without links: refused, not a crash (it read links[0]) */
	link_refused("containers = ( { interfaces = \"veth*\"; egress = { rate = \"10mbit\"; }; } );\n"
		     "probe = { targets = [ \"192.0.2.1\" ]; };\n",
		     "gw.conf:2: probe: there is no link to probe", "a probe block without links");
}

static void test_pkt(void)
{
	uint8_t buf[GW_PROBE_PKT_MAX + 16];
	struct gw_probe_pkt in = {
		.type = GW_PROBE_PKT_REQUEST, .seq = 0xdeadbeef, .cookie = 0x01020304,
		.client_send_ns = 1700000000123456789ULL,
	}, out;
	int n;

	n = gw_probe_pkt_build(buf, 64, &in);
	CHECK_EQ_INT(n, 64, "pkt: a 64-byte request built");
	CHECK(!memcmp(buf, "GWPR", 4) && buf[4] == GW_PROBE_PKT_VERSION, "pkt: magic, version");
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, (size_t)n, &out), 0, "pkt: parses");
	CHECK(out.type == in.type && out.seq == in.seq && out.cookie == in.cookie &&
	      out.client_send_ns == in.client_send_ns && out.refl_recv_ns == 0 &&
	      out.refl_send_ns == 0, "pkt: fields round-trip");
	CHECK_EQ_INT(gw_probe_pkt_build(buf, GW_PROBE_PKT_HDR - 1, &in), -EINVAL,
		     "pkt: shorter than the header refused");
	CHECK_EQ_INT(gw_probe_pkt_build(buf, GW_PROBE_PKT_MAX + 1, &in), -EINVAL,
		     "pkt: longer than the maximum refused");
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, GW_PROBE_PKT_HDR - 1, &out), -EBADMSG,
		     "pkt: short parse refused");
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, GW_PROBE_PKT_MAX + 1, &out), -EMSGSIZE,
		     "pkt: long parse refused");
	buf[0] = 'X';
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, 64, &out), -EPROTO, "pkt: wrong magic refused");
	buf[0] = 'G';
	buf[4] = 9;
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, 64, &out), -EPROTONOSUPPORT,
		     "pkt: wrong version refused");
	buf[4] = GW_PROBE_PKT_VERSION;
	buf[5] = 7;
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, 64, &out), -EPROTO, "pkt: unknown type refused");
	buf[5] = GW_PROBE_PKT_REQUEST;
	n = gw_probe_pkt_reflect(buf, 64, 1000, 2500);
	CHECK_EQ_INT(n, 0, "pkt: reflected in place");
	CHECK_EQ_INT(gw_probe_pkt_parse(buf, 64, &out), 0, "pkt: reply parses");
	CHECK(out.type == GW_PROBE_PKT_REPLY && out.refl_recv_ns == 1000 &&
	      out.refl_send_ns == 2500 && out.seq == in.seq, "pkt: reply carries the stamps");
	CHECK_EQ_INT(gw_probe_pkt_reflect(buf, 64, 1, 2), -EPROTO, "pkt: a reply is not reflected");
}

/*
 * The engine against a scripted reflector on loopback (UDP, no privilege): by seq % 10,
 * 3 is never answered (lost), 5 answered twice (a duplicate), 7 held until 8's reply is out
 * (7 reordered), 9 answered after the timeout (late: stays lost), 1 held until 2's reply is
 * out but saying how long it held it (reordered, and the processing time is taken off). And a
 * stray datagram (invalid).
 */
#define ENG_N 40

struct eng {
	int seen[ENG_N];
	struct gw_probe_sample s[ENG_N];
	int bad;
};

static void eng_cb(void *ctx, const struct gw_probe_sample *smp)
{
	struct eng *e = ctx;

	if (smp->target != 0 || smp->seq >= ENG_N) {
		e->bad++;
		return;
	}
	e->seen[smp->seq]++;
	e->s[smp->seq] = *smp;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct pending {
	uint8_t buf[256];
	size_t len;
	struct sockaddr_storage to;
	socklen_t tolen;
	double due;	/* 0: free; <0: held until the next seq's reply went */
	uint64_t recv_ns;
};

static void reflect_to(int fd, struct pending *q, uint64_t recv_ns, uint64_t send_ns)
{
	gw_probe_pkt_reflect(q->buf, q->len, recv_ns, send_ns);
	sendto(fd, q->buf, q->len, 0, (struct sockaddr *)&q->to, q->tolen);
}

/* Reflected at once: the receive stamp taken before the send stamp (as two arguments of one
 * call their order is unspecified, and gcc takes the send stamp first: a reflector whose
 * clock ran backwards, by microseconds when the machine is busy). */
static void reflect_now(int fd, struct pending *q)
{
	uint64_t recv_ns = real_ns();

	reflect_to(fd, q, recv_ns, real_ns());
}

static void test_engine(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t slen = sizeof(sin);
	static struct pending q[ENG_N];
	struct eng e = { 0 };
	struct gw_probe_target_state st;
	struct gw_prober *p = NULL;
	struct gw_config *cfg;
	char text[256];
	double end;
	int rfd, i, n_lost = 0, ret;

	memset(q, 0, sizeof(q));
	rfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!CHECK(rfd >= 0 && !bind(rfd, (struct sockaddr *)&sin, sizeof(sin)) &&
		   !getsockname(rfd, (struct sockaddr *)&sin, &slen), "engine: a loopback reflector"))
		return;
	snprintf(text, sizeof(text), "probe = { method = \"udp\"; targets = [ \"127.0.0.1:%d\" ];"
		 " interval = \"10ms\"; timeout = \"100ms\"; };\n", ntohs(sin.sin_port));
	cfg = load(text);
	if (!CHECK(cfg, "engine: config loads (%s)", err)) {
		close(rfd);
		return;
	}
	ret = gw_prober_new(&cfg->probe, NULL, eng_cb, &e, &p, err, sizeof(err));
	if (!CHECK(ret == 0, "engine: prober starts (%s)", err))
		goto out;
	gw_prober_limit(p, ENG_N);
	end = now_s() + 5;
	while (!gw_prober_done(p) && now_s() < end) {
		struct pollfd pf[2] = { { gw_prober_fd(p), POLLIN, 0 }, { rfd, POLLIN, 0 } };
		struct pending in;
		struct gw_probe_pkt pkt;
		ssize_t len;

		poll(pf, 2, 2);
		gw_prober_run(p);
		for (i = 0; i < ENG_N; i++)	/* delayed replies that are due */
			if (q[i].due > 0 && now_s() >= q[i].due) {
				uint64_t t = real_ns();

				reflect_to(rfd, &q[i], t, t);
				q[i].due = 0;
			}
		in.tolen = sizeof(in.to);
		len = recvfrom(rfd, in.buf, sizeof(in.buf), 0, (struct sockaddr *)&in.to, &in.tolen);
		if (len <= 0 || gw_probe_pkt_parse(in.buf, (size_t)len, &pkt))
			continue;
		in.len = (size_t)len;
		switch (pkt.seq % 10) {
		case 3:
			break;
		case 5:
			reflect_now(rfd, &in);
			in.buf[5] = GW_PROBE_PKT_REQUEST;
			reflect_now(rfd, &in);
			break;
		case 7:
			q[pkt.seq] = in;
			q[pkt.seq].due = -1;
			break;
		case 8:
			reflect_now(rfd, &in);
			if (q[pkt.seq - 1].due < 0)
				reflect_now(rfd, &q[pkt.seq - 1]);
			q[pkt.seq - 1].due = 0;
			/* and a datagram from somewhere else entirely */
			sendto(rfd, "junk", 4, 0, (struct sockaddr *)&in.to, in.tolen);
			break;
		case 9:
			q[pkt.seq] = in;
			q[pkt.seq].due = now_s() + 0.15;
			break;
		case 1:
			q[pkt.seq] = in;
			q[pkt.seq].due = -1;
			q[pkt.seq].recv_ns = real_ns();
			break;
		case 2:
			reflect_now(rfd, &in);
			/* 1's reply, after 2's, saying how long it was held */
			if (q[pkt.seq - 1].due < 0)
				reflect_to(rfd, &q[pkt.seq - 1], q[pkt.seq - 1].recv_ns, real_ns());
			q[pkt.seq - 1].due = 0;
			break;
		default:
			reflect_now(rfd, &in);
		}
	}
	/* the last late replies, for the counters */
	end = now_s() + 2;
	for (;;) {
		bool left = false;

		for (i = 0; i < ENG_N; i++)
			left |= q[i].due > 0;
		if (!left || now_s() > end)
			break;
		poll(NULL, 0, 10);
		for (i = 0; i < ENG_N; i++)
			if (q[i].due > 0 && now_s() >= q[i].due) {
				reflect_now(rfd, &q[i]);
				q[i].due = 0;
			}
		gw_prober_run(p);
	}
	poll(NULL, 0, 20);
	gw_prober_run(p);
	CHECK(gw_prober_done(p), "engine: %d probes sent and judged", ENG_N);
	CHECK_EQ_INT(e.bad, 0, "engine: no sample for a seq never sent");
	for (i = 0; i < ENG_N; i++) {
		bool want_lost = i % 10 == 3 || i % 10 == 9;

		if (e.seen[i] != 1 || e.s[i].lost != want_lost || !e.s[i].target_up ||
		    e.s[i].reordered != (i % 10 == 7 || i % 10 == 1) ||
		    (!want_lost && !(e.s[i].rtt_ms >= 0 && e.s[i].rtt_ms < (i % 10 == 1 ? 8 : 50))))
			break;
		n_lost += e.s[i].lost;
	}
	CHECK(i == ENG_N, "engine: each probe reported once, lost/reordered/up/rtt as scripted "
	      "(first wrong: seq %d, seen %d, lost %d, reordered %d, up %d, rtt %.3f ms)", i,
	      i < ENG_N ? e.seen[i] : 0, i < ENG_N ? e.s[i].lost : 0,
	      i < ENG_N ? e.s[i].reordered : 0, i < ENG_N ? e.s[i].target_up : 0,
	      i < ENG_N ? e.s[i].rtt_ms : 0.0);
	/* the reflector's stamps give one-way delays (one clock here: not negative), and with
	 * its processing taken off the RTT, up + down is the RTT (to 1 µs) */
	for (i = 0; i < ENG_N; i++) {
		const struct gw_probe_sample *x = &e.s[i];

		if (x->lost ? !isnan(x->owd_up_ms) || !isnan(x->owd_down_ms) :
		    !(x->owd_up_ms >= 0 && x->owd_down_ms >= 0 &&
		      fabs(x->owd_up_ms + x->owd_down_ms - x->rtt_ms) < 1e-3))
			break;
	}
	CHECK(i == ENG_N, "engine: one-way delays on every reply, up + down = RTT, NAN when lost "
	      "(first wrong: seq %d, up %.6f down %.6f rtt %.6f)", i,
	      i < ENG_N ? e.s[i].owd_up_ms : 0.0, i < ENG_N ? e.s[i].owd_down_ms : 0.0,
	      i < ENG_N ? e.s[i].rtt_ms : 0.0);
	gw_prober_targets(p, &st, 1);
	CHECK(isfinite(st.last_owd_up_ms) && isfinite(st.last_owd_down_ms),
	      "engine: the target's last one-way delays kept");
	CHECK(st.sent == ENG_N && st.received == ENG_N - 8 && st.lost == 8,
	      "engine: sent %llu received %llu lost %llu", (unsigned long long)st.sent,
	      (unsigned long long)st.received, (unsigned long long)st.lost);
	CHECK_EQ_INT(st.duplicates, 4, "engine: the 4 duplicates counted, not reported");
	CHECK_EQ_INT(st.late, 4, "engine: the 4 late replies counted, their probes lost");
	CHECK_EQ_INT(st.reordered, 8, "engine: 8 reordered");
	CHECK(st.invalid >= 4, "engine: stray datagrams counted as invalid (%llu)",
	      (unsigned long long)st.invalid);
	CHECK(st.up && st.tx_stamps > 0 && st.rx_stamps > 0, "engine: up, with kernel stamps "
	      "(tx %llu rx %llu)", (unsigned long long)st.tx_stamps,
	      (unsigned long long)st.rx_stamps);
	(void)n_lost;
out:
	gw_prober_free(p);
	gw_config_free(cfg);
	close(rfd);
}

/* method = "icmp-timestamp": IPv4 targets only, no port, refusals with the target's line. */
static void test_ts_config(void)
{
	struct gw_config *cfg = load("probe = { method = \"icmp-timestamp\";\n"
				     " targets = [ \"192.0.2.1\", \"198.51.100.9\" ]; };\n");

	if (CHECK(cfg, "icmp-timestamp loads (%s)", err)) {
		CHECK_EQ_INT(cfg->probe.method, GW_PROBE_ICMP_TS, "icmp-timestamp: the method");
		CHECK_EQ_INT(cfg->probe.targets[1].addr.ss_family, AF_INET,
			     "icmp-timestamp: IPv4 target");
		CHECK_EQ_STR(gw_prober_method_name(cfg->probe.method), "icmp-timestamp",
			     "icmp-timestamp: its name");
	}
	gw_config_free(cfg);
	CHECK_EQ_STR(gw_prober_method_name(GW_PROBE_ICMP), "icmp", "method name icmp");
	CHECK_EQ_STR(gw_prober_method_name(GW_PROBE_UDP), "udp", "method name udp");
	refused("probe = { method = \"icmp-timestamp\";\n targets = [ \"192.0.2.1\",\n"
		" \"2001:db8::1\" ]; };\n",
		"gw.conf:7: probe: target \"2001:db8::1\": icmp-timestamp takes IPv4 targets only "
		"(ICMPv6 has no timestamp message)", "icmp-timestamp with an IPv6 target");
	refused("probe = { method = \"icmp-timestamp\"; targets = [ \"192.0.2.1:2112\" ]; };\n",
		"gw.conf:5: probe: target \"192.0.2.1:2112\" is not an IPv4 address "
		"(icmp-timestamp takes no port)", "icmp-timestamp with a port");
	refused("probe = { method = \"icmp-timestamp\"; targets = [ \"[2001:db8::1]\" ]; };\n",
		"is not an IPv4 address", "icmp-timestamp with a bracketed IPv6 target");
	refused("probe = { targets = [ \"10.0.0.1\" ]; method = \"icmp-ts\"; };\n",
		"'method' \"icmp-ts\" is not one of \"icmp\", \"udp\", \"icmp-timestamp\"",
		"a method that is not one");
}

/* an RFC 1071 sum over a message: 0 when its checksum is right */
static uint16_t csum_of(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A timestamp reply as the target sends it: msg is GW_PROBE_TS_LEN bytes, checksummed. */
static void ts_reply(uint8_t *msg, uint16_t ident, uint16_t seq, uint32_t orig, uint32_t recv,
		     uint32_t xmit)
{
	uint16_t c;

	memset(msg, 0, GW_PROBE_TS_LEN);
	msg[0] = 14;
	msg[4] = (uint8_t)(ident >> 8);
	msg[5] = (uint8_t)ident;
	msg[6] = (uint8_t)(seq >> 8);
	msg[7] = (uint8_t)seq;
	put32be(msg + 8, orig);
	put32be(msg + 12, recv);
	put32be(msg + 16, xmit);
	c = csum_of(msg, GW_PROBE_TS_LEN);
	msg[2] = (uint8_t)(c >> 8);
	msg[3] = (uint8_t)c;
}

#define MS_NS 1000000LL
#define DAY_MS 86400000LL

/* ICMP timestamp framing (RFC 792) and the one-way delays of a reply. */
static void test_ts_pkt(void)
{
	struct gw_probe_ts req = { .ident = 0xbeef, .seq16 = 0x1234, .originate = 45296789 }, r;
	uint8_t buf[64], msg[GW_PROBE_TS_LEN], ip[20 + GW_PROBE_TS_LEN + 4];
	/* 2023-11-14 12:34:56.789123456 UT: 45296789 ms since midnight, and 123456 ns */
	int64_t t0 = 1699965296789123456LL;
	double up, down;

	CHECK_EQ_INT(gw_probe_ts_of_ns(t0), 45296789, "ts: ms since midnight UT of a unix time");
	CHECK_EQ_INT(gw_probe_ts_of_ns(t0 - 45296789 * MS_NS - 123456 - 1), DAY_MS - 1,
		     "ts: a nanosecond before midnight is the day's last millisecond");
	CHECK_EQ_INT(gw_probe_ts_build(buf, GW_PROBE_TS_LEN - 1, &req), -EINVAL,
		     "ts: a buffer shorter than 20 bytes refused");
	CHECK_EQ_INT(gw_probe_ts_build(buf, sizeof(buf), &req), GW_PROBE_TS_LEN,
		     "ts: a request is 20 bytes");
	CHECK(buf[0] == 13 && buf[1] == 0 && buf[4] == 0xbe && buf[5] == 0xef && buf[6] == 0x12 &&
	      buf[7] == 0x34, "ts: type 13, code 0, identifier and sequence big-endian");
	CHECK(buf[8] == 0x02 && buf[9] == 0xb3 && buf[10] == 0x2c && buf[11] == 0x95 &&
	      !memcmp(buf + 12, "\0\0\0\0\0\0\0\0", 8), "ts: originate, receive and transmit 0");
	CHECK_EQ_INT(csum_of(buf, GW_PROBE_TS_LEN), 0, "ts: the request's checksum is right");
	CHECK_EQ_INT(gw_probe_ts_parse(buf, GW_PROBE_TS_LEN, false, &r), -ENOMSG,
		     "ts: a request is not a reply");

	ts_reply(msg, 0xbeef, 0x1234, 45296789, 45296795, 45296796);
	CHECK_EQ_INT(gw_probe_ts_parse(msg, sizeof(msg), false, &r), 0, "ts: a reply parses");
	CHECK(r.ident == 0xbeef && r.seq16 == 0x1234 && r.originate == 45296789 &&
	      r.receive == 45296795 && r.transmit == 45296796, "ts: the reply's fields");
	/* sent at t0, received 9 ms later: up = 45296795.5 - 45296789.123456 ms */
	gw_probe_ts_owd(&r, t0, t0 + 9 * MS_NS, &up, &down);
	CHECK(fabs(up - 6.376544) < 1e-6, "ts: owd up = receive - send (%.6f)", up);
	CHECK(fabs(down - 1.623456) < 1e-6, "ts: owd down = receive here - transmit (%.6f)", down);
	CHECK_EQ_INT(gw_probe_ts_parse(msg, sizeof(msg) - 1, false, &r), -EBADMSG,
		     "ts: a short reply refused");
	memcpy(buf, msg, sizeof(msg));
	buf[20] = 0;
	CHECK_EQ_INT(gw_probe_ts_parse(buf, sizeof(msg) + 1, false, &r), -EBADMSG,
		     "ts: a long reply refused");
	CHECK_EQ_INT(gw_probe_ts_parse(msg, 3, false, &r), -EBADMSG, "ts: 3 bytes refused");
	CHECK_EQ_INT(gw_probe_ts_parse(msg, 0, false, &r), -EBADMSG, "ts: nothing refused");
	msg[15] ^= 1;
	CHECK_EQ_INT(gw_probe_ts_parse(msg, sizeof(msg), false, &r), -EBADMSG,
		     "ts: a bad checksum refused");
	msg[15] ^= 1;
	buf[0] = 0;	/* an echo reply */
	CHECK_EQ_INT(gw_probe_ts_parse(buf, sizeof(msg), false, &r), -ENOMSG,
		     "ts: another ICMP type is not ours");
	ts_reply(buf, 1, 2, 3, 4, 5);
	buf[1] = 1;
	CHECK_EQ_INT(gw_probe_ts_parse(buf, GW_PROBE_TS_LEN, false, &r), -EBADMSG,
		     "ts: a code other than 0 refused");

	/* with the IPv4 header, as a raw socket reads it; the total length bounds the message */
	memset(ip, 0, sizeof(ip));
	ip[0] = 0x45;
	ip[3] = 20 + GW_PROBE_TS_LEN;
	ip[9] = 1;
	memcpy(ip + 20, msg, sizeof(msg));
	CHECK_EQ_INT(gw_probe_ts_parse(ip, sizeof(ip), true, &r), 0,
		     "ts: a reply after its IPv4 header (trailing bytes past the total length)");
	CHECK_EQ_INT(r.seq16, 0x1234, "ts: the reply after the IP header read right");
	ip[3] = 20 + GW_PROBE_TS_LEN + 4;
	CHECK_EQ_INT(gw_probe_ts_parse(ip, sizeof(ip), true, &r), -EBADMSG,
		     "ts: a message longer than 20 bytes in the IP packet refused");
	ip[3] = 20 + GW_PROBE_TS_LEN;
	ip[9] = 17;
	CHECK_EQ_INT(gw_probe_ts_parse(ip, sizeof(ip), true, &r), -ENOMSG,
		     "ts: not ICMP is not ours");
	ip[9] = 1;
	ip[0] = 0x4f;
	CHECK_EQ_INT(gw_probe_ts_parse(ip, sizeof(ip), true, &r), -EBADMSG,
		     "ts: an IP header longer than the packet refused");
	CHECK_EQ_INT(gw_probe_ts_parse(ip, 19, true, &r), -EBADMSG,
		     "ts: shorter than an IP header refused");

	/* across midnight UT: sent 23:59:59.999.5, received at the target 00:00:00.001, back at
	 * 00:00:00.004: a few ms each way, not minus a day */
	{
		int64_t midnight = t0 - 45296789 * MS_NS - 123456;	/* 2023-11-14 00:00 UT */
		int64_t sent = midnight - 500000, rx = midnight + 4 * MS_NS;
		struct gw_probe_ts w = { .originate = gw_probe_ts_of_ns(sent), .receive = 1,
					 .transmit = 2 };

		CHECK_EQ_INT(w.originate, DAY_MS - 1, "ts: sent in the day's last millisecond");
		gw_probe_ts_owd(&w, sent, rx, &up, &down);
		CHECK(fabs(up - 2.0) < 1e-6, "ts: up across midnight 2 ms (%.6f)", up);
		CHECK(fabs(down - 1.5) < 1e-6, "ts: down 1.5 ms (%.6f)", down);
		/* the other way: the target's clock still before midnight, ours after */
		w.receive = (uint32_t)DAY_MS - 3;
		w.transmit = (uint32_t)DAY_MS - 2;
		gw_probe_ts_owd(&w, midnight + MS_NS, midnight + 2 * MS_NS, &up, &down);
		CHECK(fabs(up + 3.5) < 1e-6 && fabs(down - 3.5) < 1e-6,
		      "ts: a target 4 ms behind across midnight: up -3.5, down 3.5 (%.3f, %.3f)",
		      up, down);
		w.receive = 0x7fffffffu;	/* beyond a day, without the high bit */
		w.transmit = GW_PROBE_TS_NONSTD | 5;
		gw_probe_ts_owd(&w, sent, rx, &up, &down);
		CHECK(isnan(up) && isnan(down), "ts: a stamp beyond a day, or non-standard: no OWD");
		w.receive = 7;
		gw_probe_ts_owd(&w, sent, rx, &up, &down);
		CHECK(isfinite(up) && isnan(down),
		      "ts: the non-standard bit on transmit only: up kept, down NAN");
	}
}

/* One-way delays of a UDP reply: the reflector's stamps against ours, signed. */
static void test_owd_udp(void)
{
	struct gw_probe_pkt r = { .type = GW_PROBE_PKT_REPLY, .refl_recv_ns = 1700000000005000000ULL,
				  .refl_send_ns = 1700000000005100000ULL };
	int64_t sent = 1700000000000000000LL;
	double up, down;

	gw_probe_pkt_owd(&r, sent, sent + 12000000, &up, &down);
	CHECK(fabs(up - 5.0) < 1e-9 && fabs(down - 6.9) < 1e-9,
	      "owd udp: up 5 ms, down 6.9 ms (%.6f, %.6f)", up, down);
	/* a reflector whose clock is 20 ms behind ours: up negative, down 20 ms more */
	r.refl_recv_ns -= 20000000;
	r.refl_send_ns -= 20000000;
	gw_probe_pkt_owd(&r, sent, sent + 12000000, &up, &down);
	CHECK(fabs(up + 15.0) < 1e-9 && fabs(down - 26.9) < 1e-9,
	      "owd udp: a clock 20 ms behind: up -15, down 26.9 (%.6f, %.6f)", up, down);
	CHECK(fabs(up + down - 11.9) < 1e-9, "owd udp: up + down = RTT - processing, whatever "
	      "the offset");
	r.refl_recv_ns = 0;
	gw_probe_pkt_owd(&r, sent, sent + 12000000, &up, &down);
	CHECK(isnan(up) && isnan(down), "owd udp: no reflector stamps, no OWD");
}

int main(void)
{
	test_absent();
	test_defaults();
	test_full();
	test_refusals();
	test_link_blocks();
	test_pkt();
	test_ts_config();
	test_ts_pkt();
	test_owd_udp();
	test_engine();
	return tap_done();
}
