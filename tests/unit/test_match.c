/* tests/unit/test_match.c: `match` and `hosts` from config text, every refusal with its line,
 * and what they become: rules with the plan's class ids, u32 filters, the nft text; and how
 * the nft batch reads the kernel's acks (gw_nft_acks). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>

#include "config/config.h"
#include "tree/classify.h"
#include "tree/ctr_tree.h"
#include "tree/plan.h"
#include "qdisc/nft.h"
#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"

static char err[1024];

#define LINK "links = ( { name = \"wan\"; interface = \"eth0\";\n"
#define EG "egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
#define IN "ingress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
#define DEF "{ name = \"def\"; rate = \"1mbit\"; default = true; },\n"
#define END "); }; } );\n"

static struct gw_config *load(const char *text)
{
	struct gw_config *cfg = NULL;

	err[0] = '\0';
	if (gw_config_load_string("m.conf", text, &cfg, err, sizeof(err)))
		return NULL;
	return cfg;
}

static void test_values(void)
{
	struct gw_prefix p;
	char buf[64];
	int d;

	CHECK(gw_parse_prefix("10.1.0.0/16", &p) == 0 && p.family == AF_INET && p.len == 16,
	      "prefix 10.1.0.0/16");
	CHECK(gw_parse_prefix("fd00::1", &p) == 0 && p.family == AF_INET6 && p.len == 128,
	      "bare IPv6 address is a /128");
	CHECK_EQ_INT(gw_parse_prefix("10.1.0.1/16", &p), -ERANGE, "host bits set refused");
	CHECK_EQ_INT(gw_parse_prefix("10.1.0.0/33", &p), -EINVAL, "/33 refused");
	CHECK_EQ_INT(gw_parse_prefix("10.1.0.0/", &p), -EINVAL, "empty length refused");
	CHECK_EQ_INT(gw_parse_prefix("eth0", &p), -EINVAL, "a name is no prefix");
	gw_parse_prefix("fd00:1::/48", &p);
	gw_format_prefix(&p, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "fd00:1::/48", "prefix formats back");
	CHECK(gw_parse_dscp("ef", &d) == 0 && d == 46, "dscp ef = 46");
	CHECK(gw_parse_dscp("cs1", &d) == 0 && d == 8, "dscp cs1 = 8");
	CHECK(gw_parse_dscp("af41", &d) == 0 && d == 34, "dscp af41 = 34");
	CHECK(gw_parse_dscp("af13", &d) == 0 && d == 14, "dscp af13 = 14");
	CHECK(gw_parse_dscp("le", &d) == 0 && d == 1, "dscp le = 1");
	CHECK(gw_parse_dscp("63", &d) == 0 && d == 63, "dscp 63");
	CHECK(gw_parse_dscp("64", &d) != 0, "dscp 64 refused");
	CHECK(gw_parse_dscp("af51", &d) != 0, "dscp af51 refused");
	CHECK(gw_parse_dscp("cs8", &d) != 0, "dscp cs8 refused");
}

static void test_parse(void)
{
	struct gw_config *cfg = load(LINK EG DEF
		"{ name = \"voice\"; rate = \"10mbit\"; match = ( { dscp = [\"ef\", \"cs5\"]; },\n"
		"  { src = [\"10.0.0.0/8\", \"fd00::/64\"]; proto = \"udp\"; dport = \"5060-5061\";\n"
		"    sport = ( 1000, \"2000-2100\" ); iif = \"lan0\"; oif = [\"eth0\"]; mark = \"0x10/0xf0\";\n"
		"    cgroup = \"/system.slice/voip.service/\"; } ); }\n" END);
	const struct gw_class_cfg *c;
	const struct gw_match *m;

	CHECK(cfg != NULL, "a full match parses (\"%s\")", err);
	if (!cfg)
		return;
	c = &cfg->links[0].dir[GW_DIR_EGRESS].classes[1];
	CHECK_EQ_INT(c->n_match, 2, "two groups");
	m = &c->match[0];
	CHECK(m->n_dscp == 2 && m->dscp[0] == 46 && m->dscp[1] == 40 && m->proto == -1,
	      "group 1: dscp ef, cs5; any proto");
	m = &c->match[1];
	CHECK(m->n_src == 2 && m->src[0].family == AF_INET && m->src[1].family == AF_INET6,
	      "group 2: both families of source");
	CHECK(m->proto == 17 && m->n_dport == 1 && m->dport[0].lo == 5060 && m->dport[0].hi == 5061,
	      "udp dport 5060-5061");
	CHECK(m->n_sport == 2 && m->sport[0].lo == 1000 && m->sport[0].hi == 1000 &&
	      m->sport[1].lo == 2000 && m->sport[1].hi == 2100, "sport list of a port and a range");
	CHECK(!strcmp(m->iif[0], "lan0") && !strcmp(m->oif[0], "eth0"), "iif, oif");
	CHECK(m->has_mark && m->mark == 0x10 && m->mark_mask == 0xf0, "mark value/mask");
	CHECK_EQ_STR(m->cgroup, "system.slice/voip.service", "cgroup path without the slashes");
	CHECK(m->line == 5, "group line (got %d)", m->line);
	gw_config_free(cfg);
}

static const struct {
	int line;
	const char *msg;
	const char *text;
} invalid[] = {
	{ 4, "unknown key 'port' in class 'x' match",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { port = 80; }; }\n" END },
	{ 4, "unknown key 'sourceport' in class 'x' match",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = ( { dscp = 1; }, { sourceport = 80; } ); }\n" END },
	{ 4, "'dport' needs 'proto' = \"tcp\" or \"udp\"",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dport = 80; }; }\n" END },
	{ 4, "'dscp' \"xx\" is not a DSCP",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dscp = \"xx\"; }; }\n" END },
	{ 4, "'dscp' 64 is out of range 0..63",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dscp = 64; }; }\n" END },
	{ 4, "'src' \"10.0.0.1/8\" has bits set past its prefix length",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { src = \"10.0.0.1/8\"; }; }\n" END },
	{ 4, "'dst' \"example.com\" is not an IPv4 or IPv6 address or prefix",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dst = \"example.com\"; }; }\n" END },
	{ 4, "'src' and 'dst' have no address family in common",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { src = \"10.0.0.0/8\"; dst = \"fd00::/8\"; }; }\n" END },
	{ 4, "'proto' \"icmp\" is IPv4's",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { proto = \"icmp\"; dst = \"fd00::/8\"; }; }\n" END },
	{ 4, "'proto' must be \"tcp\"",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { proto = \"gre\"; }; }\n" END },
	{ 4, "'dport' \"90-80\": the range is backwards",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { proto = \"tcp\"; dport = \"90-80\"; }; }\n" END },
	{ 4, "'sport' must be a port, a range",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { proto = \"tcp\"; sport = \"http\"; }; }\n" END },
	{ 4, "'mark' value 0x11 has bits outside its mask 0xf0",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { mark = \"0x11/0xf0\"; }; }\n" END },
	{ 4, "'cgroup' \"a/../b\" is not a cgroup path",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { cgroup = \"a/../b\"; }; }\n" END },
	{ 4, "'iif' must be an interface name",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { iif = \"a/b\"; }; }\n" END },
	{ 4, "an empty match group would match every packet",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { }; }\n" END },
	{ 4, "'match' must be a group { ... } or a list of groups",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = 5; }\n" END },
	{ 4, "'dscp' must have 1..16 values",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dscp = [ 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 ]; }; }\n" END },
	{ 4, "expands into 81 rules",
	  LINK EG DEF "{ name = \"x\"; rate = \"1mbit\"; match = { dscp = [1,2,3]; src = [\"10.0.0.1\", \"10.0.0.2\", \"10.0.0.3\"]; iif = [\"a\",\"b\",\"c\"]; oif = [\"a\",\"b\",\"c\"]; }; }\n" END },
	/* ingress: what the ifb cannot know */
	{ 4, "'cgroup' cannot be matched at ingress: only local processes have a cgroup",
	  LINK IN DEF "{ name = \"x\"; rate = \"1mbit\"; match = { cgroup = \"a\"; }; }\n" END },
	{ 4, "'oif' cannot be matched at ingress",
	  LINK IN DEF "{ name = \"x\"; rate = \"1mbit\"; match = { oif = \"eth1\"; }; }\n" END },
	{ 4, "'mark' cannot be matched at ingress: marks are set by netfilter",
	  LINK IN DEF "{ name = \"x\"; rate = \"1mbit\"; match = { mark = 1; }; }\n" END },
	{ 4, "'iif' cannot be matched at ingress",
	  LINK IN DEF "{ name = \"x\"; rate = \"1mbit\"; match = { iif = \"eth0\"; }; }\n" END },
	/* hosts */
	{ 3, "'hosts' is for egress",
	  LINK "ingress = { shaper = \"htb\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.0/24\"; rate = \"100kbit\"; }; }; } );\n" },
	{ 3, "'hosts' needs shaper \"htb\"",
	  LINK "egress = { shaper = \"tbf\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.0/24\"; rate = \"100kbit\"; }; }; } );\n" },
	{ 3, "'subnet' 10.0.0.0/21 has more than 1024 addresses",
	  LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.0/21\"; rate = \"8kbit\"; }; }; } );\n" },
	{ 4, "254 hosts at this rate add up to 254mbit, above the direction's rate 100mbit",
	  LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.0/24\";\n rate = \"1mbit\"; }; }; } );\n" },
	{ 3, "'subnet' \"10.0.0.1/24\" is not a network address",
	  LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.1/24\"; rate = \"1mbit\"; }; }; } );\n" },
	{ 3, "unknown key 'per_host' in link 'wan' egress hosts",
	  LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n hosts = { subnet = \"10.0.0.0/30\"; per_host = 1; }; }; } );\n" },
};

static void test_invalid(void)
{
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct gw_config *cfg = load(invalid[i].text);
		char want[32];

		snprintf(want, sizeof(want), "m.conf:%d: ", invalid[i].line);
		CHECK(!cfg && !strncmp(err, want, strlen(want)) && strstr(err, invalid[i].msg),
		      "refused #%zu at line %d: \"%s\" (got \"%s\")", i + 1, invalid[i].line,
		      invalid[i].msg, err);
		gw_config_free(cfg);
	}
}

static void test_hosts(void)
{
	struct gw_config *cfg = load(LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n"
				     " hosts = { subnet = \"192.168.7.0/30\"; rate = \"10mbit\";"
				     " ceil = \"50mbit\"; child = { kind = \"fifo\"; }; }; }; } );\n");
	const struct gw_dir_cfg *d;

	CHECK(cfg != NULL, "hosts /30 parses (\"%s\")", err);
	if (!cfg)
		return;
	d = &cfg->links[0].dir[GW_DIR_EGRESS];
	CHECK_EQ_INT(d->n_classes, 3, "a default class and 2 hosts (no network/broadcast)");
	CHECK(d->classes[0].is_default && d->classes[0].rate == 80000000 / 8,
	      "default class gets the rest: 80mbit");
	CHECK_EQ_STR(d->classes[1].name, "h-192.168.7.1", "first host's class name");
	CHECK_EQ_STR(d->classes[2].name, "h-192.168.7.2", "second host's class name");
	CHECK(d->classes[2].host && d->classes[2].ceil == 50000000 / 8 &&
	      d->classes[2].child.kind == GW_KIND_FIFO, "host class: rate, ceil, child");
	CHECK(d->hosts.first == 1 && d->hosts.n == 2, "hosts range recorded");
	gw_config_free(cfg);

	cfg = load(LINK "egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n" DEF
		   "{ name = \"x\"; rate = \"1mbit\"; match = { dscp = \"ef\"; }; } );\n"
		   " hosts = { subnet = \"10.1.0.0/22\"; rate = \"90kbit\"; }; }; } );\n");
	CHECK(cfg != NULL, "hosts /22 beside classes (\"%s\")", err);
	if (cfg) {
		d = &cfg->links[0].dir[GW_DIR_EGRESS];
		CHECK_EQ_INT(d->n_classes, 2 + 1022, "1022 host classes after the 2 classes");
		CHECK_EQ_STR(d->classes[2 + 256].name, "h-10.1.1.1", "carry into the third byte");
		CHECK_EQ_STR(d->classes[d->n_classes - 1].name, "h-10.1.3.254", "last host");
	}
	gw_config_free(cfg);
	cfg = load(LINK "egress = { shaper = \"htb\"; rate = \"100mbit\";\n"
		   " hosts = { subnet = \"fd00:aaaa:bbbb:cccc:dddd:eeee:ffff:0/126\"; rate = \"1mbit\"; }; }; } );\n");
	CHECK(cfg && cfg->links[0].dir[0].n_classes == 5 &&
	      !strcmp(cfg->links[0].dir[0].classes[4].name, "h-#3"),
	      "IPv6 /126: 4 hosts, long addresses named by place (\"%s\")", err);
	gw_config_free(cfg);
}

static struct gw_plan plan_of(const struct gw_config *cfg)
{
	struct gw_link_facts f[2];
	struct gw_plan p;

	memset(f, 0, sizeof(f));
	for (int i = 0; i < 2; i++) {
		f[i].dev.mtu = f[i].ifb.mtu = 1500;
		f[i].dev.ifindex = 2 + i;
		f[i].ifb.ifindex = 10 + i;
	}
	if (gw_plan_build(cfg, f, NULL, &p))
		memset(&p, 0, sizeof(p));
	return p;
}

static void test_rules(void)
{
	struct gw_config *cfg = load(LINK EG DEF
		"{ name = \"a\"; rate = \"1mbit\"; match = { proto = \"tcp\"; dport = [80, 443]; }; },\n"
		"{ name = \"b\"; rate = \"1mbit\"; match = { dscp = \"ef\"; }; },\n"
		"{ name = \"c\"; rate = \"1mbit\"; match = { src = [\"10.0.0.0/8\", \"fd00::/8\"]; dst = \"10.1.0.0/16\"; }; }\n"
		");\n hosts = { subnet = \"10.9.9.0/30\"; rate = \"1mbit\"; }; };\n"
		IN DEF "{ name = \"a\"; rate = \"1mbit\"; match = { proto = \"tcp\"; sport = \"1024-2047\"; }; }\n"
		"); }; } );\n");
	struct gw_classify c;
	struct gw_plan p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(cfg != NULL, "classify config parses (\"%s\")", err);
	if (!cfg)
		return;
	p = plan_of(cfg);
	CHECK(gw_classify_build(cfg, &p, false, &c, err, sizeof(err)) == 0, "rules built (%s)", err);
	CHECK_EQ_INT(c.nft.n, 1, "one egress chain");
	/* a: 2 ports; b: dscp needs a family: 2; c: (10/8 x 10.1/16) only, fd00::/8 has no v4 dst */
	CHECK_EQ_INT(c.nft.chains[0].n_rules, 2 + 2 + 1, "rules in the chain");
	CHECK(c.nft.chains[0].rules[0].classid == 0xE0000011u &&
	      c.nft.chains[0].rules[4].classid == 0xE0000013u, "class ids from the plan's slots");
	CHECK(c.nft.chains[0].rules[2].family == AF_INET && c.nft.chains[0].rules[3].family ==
	      AF_INET6, "dscp rule in both families");
	CHECK_EQ_INT(c.nft.chains[0].n_hosts, 2, "two hosts in the map");
	CHECK_EQ_INT(c.n_in, 1, "one ingress rule set");
	/* 1024-2047 is one aligned block; two families */
	CHECK_EQ_INT(c.n_in ? c.in[0].n : 0, 2, "ingress: one u32 filter per family");
	if (c.n_in && c.in[0].n) {
		char line[512];

		gw_u32_format("ifb-wan", &c.in[0].rules[0], 0, line, sizeof(line));
		CHECK(strstr(line, "protocol ip prio 10 u32") &&
		      strstr(line, "match u32 0x04000000 0xfc000000 at 20") &&
		      strstr(line, "match u32 0x05000000 0x0f000000 at 0") &&
		      strstr(line, "flowid e000:11"), "u32 text: sport block, IHL 5 (%s)", line);
	}
	f = open_memstream(&text, &len);
	gw_nft_format(f, &c.nft);
	fclose(f);
	CHECK(text && strstr(text, "\t\tmeta l4proto 6 th dport 443 meta priority set e000:11 return\n"),
	      "nft text: port rule");
	CHECK(text && strstr(text, "\t\tip6 dscp 46 meta priority set e000:12 return\n"),
	      "nft text: IPv6 dscp rule");
	CHECK(text && strstr(text, "meta priority set ip daddr map @hosts-wan return"),
	      "nft text: hosts map by destination");
	CHECK(text && strstr(text, "delete table inet gatewayd\n"), "nft text: replaces the table");
	CHECK(gw_nft_batch_size(&c.nft) > 0, "the batch builds (%zu bytes)",
	      gw_nft_batch_size(&c.nft));
	free(text);
	gw_classify_free(&c);
	gw_plan_free(&p);
	gw_config_free(cfg);
}

static void test_u32(void)
{
	struct gw_rule r = { .classid = 0xE0000015u, .family = AF_INET6, .proto = -1, .dscp = -1 };
	struct nl_msg *m = NULL;
	char line[512];

	gw_parse_prefix("fd00:1:2:3::/64", &r.src);
	r.has_src = true;
	gw_u32_format("ifb0", &r, 1, line, sizeof(line));
	CHECK(strstr(line, "protocol ipv6 prio 13 u32 match u32 0xfd000001 0xffffffff at 8 "
			   "match u32 0x00020003 0xffffffff at 12 flowid e000:15") != NULL,
	      "u32: an IPv6 /64 is two words at 8 and 12, generation 1 at prio 13 (%s)", line);
	r.family = AF_INET;
	gw_parse_prefix("10.1.16.0/20", &r.src);
	r.dscp = 46;
	gw_u32_format("ifb0", &r, 0, line, sizeof(line));
	CHECK(strstr(line, "prio 10 u32 match u32 0x0a011000 0xfffff000 at 12 "
			   "match u32 0x00b80000 0x00fc0000 at 0 flowid") != NULL,
	      "u32: an IPv4 /20 and dscp ef (%s)", line);
	r.has_dport = true;
	r.proto = 6;
	r.dport = (struct gw_port_range){ 1000, 2000 };
	CHECK_EQ_INT(gw_u32_build(3, &r, 0, &m), -EINVAL, "u32: a range that is no aligned block");
	r.dport = (struct gw_port_range){ 1024, 2047 };
	CHECK(gw_u32_build(3, &r, 0, &m) == 0 && m, "u32: an aligned block builds");
	if (m)
		nlmsg_free(m);
	snprintf(r.iif, sizeof(r.iif), "eth0");
	CHECK_EQ_INT(gw_u32_build(3, &r, 0, &m), -EOPNOTSUPP, "u32: no interface match");
}

/* A filter as gw_u32_build makes it, read back as a dump gives it (gw_u32_parse), held
 * against its rule (gw_u32_matches); and a container's tree with subnets classified by u32 on
 * both devices (classify_u32). */
static void test_u32_readback(void)
{
	struct gw_rule r = { .classid = 0xE0000011u, .family = AF_INET, .proto = -1, .dscp = -1 };
	struct gw_rule other;
	struct gw_u32_got got;
	struct nl_msg *m = NULL;
	struct gw_ctr_synth s;
	struct gw_ctr_cfg cc;
	struct gw_config main_cfg = { .file = (char *)"t" };
	struct gw_classify c;
	struct gw_plan p;
	struct gw_prefix subs[3];

	gw_parse_prefix("10.1.2.0/24", &r.src);
	r.has_src = true;
	CHECK(gw_u32_build(7, &r, 1, &m) == 0 && gw_u32_parse(nlmsg_hdr(m), &got) == 0,
	      "u32 read back: a built filter parses");
	CHECK(got.ifindex == 7 && got.prio == GW_U32_PRIO_BASE + 2 && got.family == AF_INET &&
	      got.classid == r.classid && got.nkeys == 1 && got.off[0] == 12 &&
	      got.mask[0] == 0xffffff00u && got.val[0] == 0x0a010200u && !got.actions,
	      "u32 read back: prio, family, class, the key (src at 12)");
	CHECK(gw_u32_matches(&r, &got), "u32 read back: matches its rule (either generation)");
	other = r;
	other.classid = 0xE0000010u;
	CHECK(!gw_u32_matches(&other, &got), "u32 read back: another class does not match");
	other = r;
	gw_parse_prefix("10.1.3.0/24", &other.src);
	CHECK(!gw_u32_matches(&other, &got), "u32 read back: another subnet does not match");
	other = r;
	other.has_src = false;
	other.has_dst = true;
	other.dst = r.src;
	CHECK(!gw_u32_matches(&other, &got), "u32 read back: the destination is another key");
	nlmsg_free(m);
	m = nlmsg_alloc_size(1024);
	{
		struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = 7,
				   .tcm_parent = GW_INGRESS_HANDLE,
				   .tcm_info = TC_H_MAKE(GW_FILTER_PRIO << 16, htons(ETH_P_ALL)) };

		nlmsg_put(m, 0, 0, RTM_NEWTFILTER, 0, 0);
		nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO);
		nla_put_string(m, TCA_KIND, "u32");
		gw_redirect_encode(m, 9);
	}
	CHECK(gw_u32_parse(nlmsg_hdr(m), &got) == 0 && got.actions && !gw_u32_prio_ours(got.prio),
	      "u32 read back: the redirect carries an action, at a prio not the classifiers'");
	nlmsg_free(m);

	memset(&cc, 0, sizeof(cc));
	for (int d = 0; d < 2; d++) {
		cc.dir[d].present = true;
		cc.dir[d].rate = cc.dir[d].ceil = 250000;
		cc.dir[d].child.kind = GW_KIND_FIFO;
		gw_qopts_init(GW_KIND_FIFO, &cc.dir[d].child.opts);
	}
	gw_ctr_synthesize(&main_cfg, &cc, "veth9", 2, &s);
	gw_parse_prefix("10.1.2.0/24", &subs[0]);
	gw_parse_prefix("fd00::/8", &subs[1]);
	gw_parse_prefix("192.168.0.0/16", &subs[2]);
	CHECK(gw_ctr_subnets(&s, subs, 3, false) == 0 && s.match, "subnets: the groups allocated");
	p = plan_of(&s.cfg);
	CHECK(gw_classify_build(&s.cfg, &p, true, &c, err, sizeof(err)) == 0 && c.nft.n == 0 &&
	      c.n_in == 2, "a container with subnets: two u32 sets, no nft (%s)", err);
	if (c.n_in == 2) {
		CHECK(c.in[0].on_iface && !c.in[1].on_iface && c.in[0].n == 3 && c.in[1].n == 3,
		      "one set on the interface, one on the ifb, a filter per subnet");
		CHECK(c.in[0].rules[0].has_src && !c.in[0].rules[0].has_dst &&
		      c.in[1].rules[0].has_dst && !c.in[1].rules[0].has_src &&
		      c.in[0].rules[1].family == AF_INET6 && c.in[0].rules[0].classid == 0xE0000011u,
		      "into the container the source, out of it the destination, to the unlimited class");
	}
	gw_classify_free(&c);
	gw_plan_free(&p);
	gw_ctr_synth_free(&s);
}

/* An ack of seq carrying error and, when text, an extended-ack message, at p; its length. */
static size_t put_ack(char *p, uint32_t seq, int error, const char *text)
{
	struct nlmsghdr *h = (struct nlmsghdr *)p;
	struct nlmsgerr *e = NLMSG_DATA(h);
	size_t len = NLMSG_LENGTH(sizeof(*e));

	memset(p, 0, NLMSG_SPACE(sizeof(*e)) + 64);
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_seq = seq;
	h->nlmsg_flags = NLM_F_CAPPED;
	e->error = error;
	e->msg.nlmsg_len = NLMSG_HDRLEN;
	if (text) {
		struct nlattr *a = (struct nlattr *)(p + len);

		h->nlmsg_flags |= NLM_F_ACK_TLVS;
		a->nla_type = NLMSGERR_ATTR_MSG;
		a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(text) + 1);
		memcpy(a + 1, text, strlen(text) + 1);
		len += NLA_ALIGN(a->nla_len);
	}
	h->nlmsg_len = (uint32_t)len;
	return NLMSG_ALIGN(len);
}

static void test_acks(void)
{
	char buf[1024], msg[GW_EXTACK_MAX], *exact;
	size_t len = 0, got = 0;
	int first = 0;

	len += put_ack(buf + len, 99, -EPERM, "not this batch's");
	len += put_ack(buf + len, 100, 0, NULL);
	len += put_ack(buf + len, 101, -EOPNOTSUPP, "Hook not supported");
	len += put_ack(buf + len, 102, -ENOENT, "a later one");
	gw_nft_acks(buf, len, 100, 103, &got, &first, msg, sizeof(msg));
	CHECK_EQ_INT(got, 3, "acks: the batch's three counted, the other one skipped");
	CHECK_EQ_INT(first, -EOPNOTSUPP, "acks: the first error kept");
	CHECK_EQ_STR(msg, "Hook not supported", "acks: with the kernel's message");
	/* an error that is no -errno is not taken as one */
	got = 0;
	first = 0;
	len = put_ack(buf, 7, 5, NULL);
	gw_nft_acks(buf, len, 7, 8, &got, &first, NULL, 0);
	CHECK(got == 1 && first == -EBADMSG, "acks: a positive error is -EBADMSG (got %zu, %d)",
	      got, first);
	/* regression (fuzz_nft): a length past 2 GiB passed libmnl's mnl_nlmsg_ok as negative,
	 * and the walk left the buffer; here an exactly sized copy, so ASan sees a read past */
	len = put_ack(buf, 7, -EPERM, NULL);
	memset(buf + len, 0xab, 16);
	((struct nlmsghdr *)(buf + len))->nlmsg_len = 0xabababffu;
	exact = malloc(len + 16);
	memcpy(exact, buf, len + 16);
	got = 0;
	first = 0;
	gw_nft_acks(exact, len + 16, 7, 8, &got, &first, msg, sizeof(msg));
	CHECK(got == 1 && first == -EPERM, "acks: a message longer than the buffer ends the walk "
	      "(got %zu, %d)", got, first);
	free(exact);
}

int main(void)
{
	test_values();
	test_parse();
	test_invalid();
	test_hosts();
	test_rules();
	test_u32();
	test_u32_readback();
	test_acks();
	return tap_done();
}
