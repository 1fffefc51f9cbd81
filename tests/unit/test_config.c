/* tests/unit/test_config.c: config text to struct gw_config, field by field, and every refusal. */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_sched.h>

#include "config/config.h"
#include "tests/unit/tap.h"

static char err[512];

static struct gw_config *load_ok(const char *name, const char *text)
{
	struct gw_config *cfg = NULL;
	int ret = gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err));

	CHECK(ret == 0 && cfg, "%s: loads (ret %d, \"%s\")", name, ret, err);
	return ret ? NULL : cfg;
}

static void check_fq_codel_unset(const struct gw_child *c, const char *name)
{
	const struct gw_fq_codel_opts *o = &c->opts.fq_codel;

	CHECK(c->kind == GW_KIND_FQ_CODEL && c->line == 0, "%s: fq_codel, defaulted", name);
	CHECK(o->limit == GW_UNSET && o->flows == GW_UNSET && o->target_us == GW_UNSET &&
	      o->interval_us == GW_UNSET && o->quantum == GW_UNSET &&
	      o->ce_threshold_us == GW_UNSET && o->memory_limit == GW_UNSET && o->ecn == -1,
	      "%s: every fq_codel knob unset", name);
}

static void check_cake_unset(const struct gw_cake_opts *o, const char *name)
{
	CHECK(o->bandwidth == GW_UNSET && o->diffserv == -1 && o->flow_mode == -1 &&
	      o->nat == -1 && o->wash == -1 && o->split_gso == -1 && o->ingress == -1 &&
	      o->ack_filter == -1 && o->rtt_us == GW_UNSET, "%s: every cake knob unset", name);
	CHECK(o->atm == -1 && o->overhead == GW_UNSET && o->mpu == GW_UNSET,
	      "%s: cake's overhead keys left for the daemon", name);
}

static void test_minimal(void)
{
	struct gw_config *cfg = load_ok("minimal",
		"links = (\n"
		"  { name = \"wan\"; interface = \"eth0\";\n"
		"    egress = { shaper = \"tbf\"; rate = \"20mbit\"; };\n"
		"  }\n"
		");\n");
	const struct gw_link_cfg *l;
	const struct gw_dir_cfg *e;

	if (!cfg)
		return;
	CHECK_EQ_STR(cfg->file, "gw.conf", "minimal: file name kept");
	CHECK_EQ_INT(cfg->n_listen, 1, "minimal: one listen address by default");
	CHECK_EQ_STR(cfg->listen[0], "127.0.0.1:9180", "minimal: default listen");
	CHECK_EQ_INT(cfg->interval_us, 1000000, "minimal: default interval 1s");
	CHECK(cfg->auth_file == NULL, "minimal: no auth_file by default");
	CHECK_EQ_INT(cfg->n_links, 1, "minimal: one link");
	l = &cfg->links[0];
	CHECK_EQ_STR(l->name, "wan", "minimal: link name");
	CHECK_EQ_STR(l->interface, "eth0", "minimal: interface");
	CHECK_EQ_INT(l->line, 2, "minimal: link line");
	CHECK(!l->sizing.set && l->sizing.overhead == 0 && l->sizing.mpu == 0,
	      "minimal: no sizing");
	CHECK(!l->replace, "minimal: replace defaults to false");
	CHECK(!l->required, "minimal: required defaults to false (a missing interface waits)");
	e = &l->dir[GW_DIR_EGRESS];
	CHECK(e->present && e->shaper == GW_KIND_TBF, "minimal: egress tbf");
	CHECK_EQ_INT(e->rate, 2500000, "minimal: 20mbit in bytes/s");
	CHECK_EQ_INT(e->burst, GW_UNSET, "minimal: burst unset");
	CHECK_EQ_INT(e->latency_us, GW_UNSET, "minimal: latency unset");
	CHECK(e->classes == NULL && e->n_classes == 0, "minimal: no classes");
	CHECK_EQ_INT(e->line, 3, "minimal: egress line");
	check_fq_codel_unset(&e->child, "minimal tbf child");
	CHECK(!l->dir[GW_DIR_INGRESS].present, "minimal: no ingress");
	CHECK_EQ_INT(l->dir[GW_DIR_INGRESS].child.kind, GW_KIND_NONE, "minimal: ingress child none");
	gw_config_free(cfg);
}

static void check_class(const struct gw_class_cfg *c, const char *name, uint64_t rate,
			uint64_t ceil, int64_t prio, bool def, int line)
{
	CHECK_EQ_STR(c->name, name, "class name");
	CHECK_EQ_INT(c->rate, rate, "class rate");
	CHECK_EQ_INT(c->ceil, ceil, "class ceil");
	CHECK_EQ_INT(c->prio, prio, "class prio");
	CHECK_EQ_INT(c->is_default, def, "class default");
	CHECK_EQ_INT(c->line, line, "class line");
}

static void test_htb_classes(void)
{
	struct gw_config *cfg = load_ok("htb",
		"listen = [ \"127.0.0.1:9180\", \"[::1]:9181\" ];\n"
		"interval = \"250ms\";\n"
		"links = ( { name = \"office-1\"; interface = \"enp2s0\"; replace = true; required = true;\n"
		"  egress = { shaper = \"htb\"; rate = \"100mbit\"; burst = \"32k\"; classes = (\n"
		"    { name = \"voice\"; rate = \"10mbit\"; ceil = \"20mbit\"; prio = 0;\n"
		"      quantum = 1514; burst = \"15k\"; cburst = 3000;\n"
		"      child = { kind = \"fq_codel\"; limit = 1000; flows = 64; target = \"2ms\";\n"
		"        interval = \"40ms\"; quantum = 300; ecn = false; ce_threshold = \"1ms\";\n"
		"        memory_limit = \"4m\"; }; },\n"
		"    { name = \"bulk\"; rate = \"90mbit\"; default = true; }\n"
		"  ); };\n"
		"} );\n");
	const struct gw_dir_cfg *e;
	const struct gw_fq_codel_opts *o;
	const struct gw_class_cfg *c;

	if (!cfg)
		return;
	CHECK_EQ_INT(cfg->n_listen, 2, "htb: two listen addresses");
	CHECK_EQ_STR(cfg->listen[0], "127.0.0.1:9180", "htb: listen 0");
	CHECK_EQ_STR(cfg->listen[1], "[::1]:9181", "htb: listen 1");
	CHECK_EQ_INT(cfg->interval_us, 250000, "htb: interval");
	CHECK(cfg->links[0].replace, "htb: replace = true");
	CHECK(cfg->links[0].required, "htb: required = true");
	e = &cfg->links[0].dir[GW_DIR_EGRESS];
	CHECK(e->shaper == GW_KIND_HTB && e->rate == 12500000, "htb: shaper and rate");
	CHECK_EQ_INT(e->burst, 32768, "htb: burst");
	CHECK_EQ_INT(e->n_classes, 2, "htb: two classes");
	CHECK_EQ_INT(e->child.kind, GW_KIND_NONE, "htb: no direction child with classes");
	c = &e->classes[0];
	check_class(c, "voice", 1250000, 2500000, 0, false, 5);
	CHECK(c->quantum == 1514 && c->burst == 15360 && c->cburst == 3000,
	      "htb: voice quantum, burst, cburst");
	o = &c->child.opts.fq_codel;
	CHECK(c->child.kind == GW_KIND_FQ_CODEL && c->child.line == 7, "htb: voice child fq_codel");
	CHECK(o->limit == 1000 && o->flows == 64 && o->target_us == 2000 &&
	      o->interval_us == 40000 && o->quantum == 300 && o->ecn == 0 &&
	      o->ce_threshold_us == 1000 && o->memory_limit == 4 << 20, "htb: fq_codel knobs");
	c = &e->classes[1];
	check_class(c, "bulk", 11250000, 12500000, GW_UNSET, true, 10);
	CHECK(c->quantum == GW_UNSET && c->burst == GW_UNSET && c->cburst == GW_UNSET,
	      "htb: bulk sizes unset");
	check_fq_codel_unset(&c->child, "htb bulk child");
	gw_config_free(cfg);
}

static void test_auth_file(void)
{
	struct gw_config *cfg = load_ok("auth_file",
		"auth_file = \"/etc/gatewayd/users\";\n"
		"tls_cert = \"/etc/gatewayd/tls.crt\"; tls_key = \"/etc/gatewayd/tls.key\";\n"
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n");

	if (!cfg)
		return;
	CHECK(cfg->auth_file && !strcmp(cfg->auth_file, "/etc/gatewayd/users"),
	      "auth_file kept as written");
	CHECK(cfg->tls_cert && !strcmp(cfg->tls_cert, "/etc/gatewayd/tls.crt") &&
	      cfg->tls_key && !strcmp(cfg->tls_key, "/etc/gatewayd/tls.key"),
	      "tls_cert and tls_key kept as written");
	CHECK(!cfg->auth_plain_http, "auth_plain_http is false by default");
	CHECK(cfg->auth_fail_limit == 5 && cfg->auth_fail_backoff_us == 60000000LL,
	      "failed logins: 5, then 60 s, by default");
	CHECK(cfg->http_memory_max == 16u << 20, "http_memory_max is 16 MiB by default");
	CHECK(cfg->n_allowed_hosts == 0, "allowed_hosts absent: none (the defaults apply)");
	CHECK(!cfg->keep_on_stop, "keep_on_stop is false by default");
	CHECK(cfg->compare_dir == NULL, "compare_dir absent: NULL (the default applies)");
	gw_config_free(cfg);	/* frees it too: ASan would see a leak */
	cfg = load_ok("auth_plain_http",
		"auth_file = \"/etc/gatewayd/users\"; auth_plain_http = true;\n"
		"allowed_hosts = [ \"router.lan\", \"gw\" ];\n"
		"auth_fail_limit = 10; auth_fail_backoff = \"300s\"; http_memory_max = \"8m\";\n"
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n");
	if (!cfg)
		return;
	CHECK(cfg->auth_plain_http && !cfg->tls_cert, "auth over plain HTTP when said");
	CHECK(cfg->n_allowed_hosts == 2 && !strcmp(cfg->allowed_hosts[1], "gw"),
	      "allowed_hosts kept");
	CHECK(cfg->auth_fail_limit == 10 && cfg->auth_fail_backoff_us == 300000000LL &&
	      cfg->http_memory_max == 8u << 20, "failed-login and memory settings kept");
	gw_config_free(cfg);
	cfg = load_ok("compare_dir",
		"compare_dir = \"/srv/cmp\";\n"
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n");
	if (!cfg)
		return;
	CHECK(cfg->compare_dir && !strcmp(cfg->compare_dir, "/srv/cmp"), "compare_dir kept as written");
	gw_config_free(cfg);
}

static void test_keep_on_stop(void)
{
	struct gw_config *cfg = load_ok("keep_on_stop",
		"keep_on_stop = true;\n"
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"tbf\"; rate = \"20mbit\"; }; } );\n");

	if (!cfg)
		return;
	CHECK(cfg->keep_on_stop, "keep_on_stop = true is kept");
	gw_config_free(cfg);
}

static void test_htb_no_classes(void)
{
	struct gw_config *cfg = load_ok("htb without classes",
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"htb\"; rate = \"1gbit\"; child = { kind = \"fifo\"; }; };\n"
		"  ingress = { shaper = \"htb\"; rate = \"1gbit\"; classes = (); };\n"
		"} );\n");
	const struct gw_dir_cfg *e, *i;

	if (!cfg)
		return;
	e = &cfg->links[0].dir[GW_DIR_EGRESS];
	i = &cfg->links[0].dir[GW_DIR_INGRESS];
	CHECK(e->n_classes == 0 && e->classes == NULL, "htb without classes: none");
	CHECK(e->child.kind == GW_KIND_FIFO && e->child.opts.fifo.limit == GW_UNSET &&
	      !e->child.opts.fifo.bytes && e->child.line == 2, "htb without classes: fifo child");
	CHECK(i->n_classes == 0, "htb with an empty class list: none");
	check_fq_codel_unset(&i->child, "htb empty classes child");
	CHECK_EQ_STR(i->ifb, "ifb-wan", "default ifb name");
	gw_config_free(cfg);
}

static void test_presets(void)
{
	static const struct {
		const char *ll;
		enum gw_linklayer want;
		int overhead, mpu;
	} p[] = {
		{ "ethernet", GW_LL_ETHERNET, 0, 0 },
		{ "atm", GW_LL_ATM, 0, 0 },
		{ "ptm", GW_LL_PTM, 0, 0 },
		{ "docsis", GW_LL_ETHERNET, 18, 64 },
		{ "ethernet-full", GW_LL_ETHERNET, 38, 84 },
		{ "pppoe-ptm", GW_LL_PTM, 27, 0 },
		{ "bridged-ptm", GW_LL_PTM, 19, 0 },
		{ "pppoe-vcmux", GW_LL_ATM, 32, 0 },
		{ "pppoe-llcsnap", GW_LL_ATM, 40, 0 },
		{ "pppoa-vcmux", GW_LL_ATM, 10, 0 },
		{ "pppoa-llc", GW_LL_ATM, 14, 0 },
		{ "bridged-vcmux", GW_LL_ATM, 24, 0 },
		{ "bridged-llcsnap", GW_LL_ATM, 32, 0 },
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		struct gw_config *cfg;
		const struct gw_sizing *s;

		snprintf(text, sizeof(text), "links = ( { name = \"wan\"; interface = \"eth0\"; "
			 "linklayer = \"%s\"; egress = { shaper = \"cake\"; rate = \"10mbit\"; }; "
			 "} );", p[i].ll);
		cfg = load_ok(p[i].ll, text);
		if (!cfg)
			continue;
		s = &cfg->links[0].sizing;
		CHECK(s->set && s->linklayer == p[i].want && s->overhead == p[i].overhead &&
		      s->mpu == p[i].mpu, "preset %s: linklayer %d overhead %d mpu %d", p[i].ll,
		      s->linklayer, s->overhead, s->mpu);
		gw_config_free(cfg);
	}
}

static void test_sizing_overrides(void)
{
	struct gw_config *cfg = load_ok("sizing",
		"links = (\n"
		" { name = \"a\"; interface = \"eth0\"; linklayer = \"pppoe-llcsnap\"; overhead = 44;\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\"; }; },\n"
		" { name = \"b\"; interface = \"eth1\"; linklayer = \"docsis\"; mpu = 0;\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\"; }; },\n"
		" { name = \"c\"; interface = \"eth2\"; overhead = -4;\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\"; }; },\n"
		" { name = \"d\"; interface = \"eth3\"; mpu = 64;\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\"; }; }\n"
		");\n");
	const struct gw_link_cfg *l;

	if (!cfg)
		return;
	l = cfg->links;
	CHECK(l[0].sizing.set && l[0].sizing.linklayer == GW_LL_ATM &&
	      l[0].sizing.overhead == 44 && l[0].sizing.mpu == 0,
	      "explicit overhead overrides the preset's");
	CHECK(l[1].sizing.set && l[1].sizing.overhead == 18 && l[1].sizing.mpu == 0,
	      "explicit mpu overrides the preset's");
	CHECK(l[2].sizing.set && l[2].sizing.linklayer == GW_LL_ETHERNET &&
	      l[2].sizing.overhead == -4 && l[2].sizing.mpu == 0, "overhead alone sets sizing");
	CHECK(l[3].sizing.set && l[3].sizing.overhead == 0 && l[3].sizing.mpu == 64,
	      "mpu alone sets sizing");
	gw_config_free(cfg);
}

static void test_cake(void)
{
	struct gw_config *cfg = load_ok("cake",
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		"  egress = { shaper = \"cake\"; rate = \"19mbit\"; };\n"
		"  ingress = { shaper = \"cake\"; rate = \"90mbit\"; ifb = \"ifb0\";\n"
		"    child = { kind = \"cake\"; diffserv = \"diffserv4\"; flow_mode = \"dual-dsthost\";\n"
		"      nat = true; wash = false; split_gso = true; ingress = true;\n"
		"      ack_filter = \"aggressive\"; rtt = \"100ms\"; }; };\n"
		"} );\n");
	const struct gw_dir_cfg *e, *i;
	const struct gw_cake_opts *o;

	if (!cfg)
		return;
	e = &cfg->links[0].dir[GW_DIR_EGRESS];
	i = &cfg->links[0].dir[GW_DIR_INGRESS];
	CHECK(e->shaper == GW_KIND_CAKE && e->rate == 2375000, "cake: egress shaper");
	CHECK(e->child.kind == GW_KIND_CAKE && e->child.line == 0, "cake: default child is cake");
	check_cake_unset(&e->child.opts.cake, "cake egress");
	CHECK_EQ_STR(i->ifb, "ifb0", "cake: explicit ifb");
	o = &i->child.opts.cake;
	CHECK(i->child.kind == GW_KIND_CAKE && i->child.line == 4, "cake: ingress child");
	CHECK_EQ_INT(o->diffserv, CAKE_DIFFSERV_DIFFSERV4, "cake: diffserv4");
	CHECK_EQ_INT(o->flow_mode, CAKE_FLOW_DUAL_DST, "cake: dual-dsthost");
	CHECK(o->nat == 1 && o->wash == 0 && o->split_gso == 1 && o->ingress == 1,
	      "cake: flags");
	CHECK_EQ_INT(o->ack_filter, CAKE_ACK_AGGRESSIVE, "cake: ack_filter aggressive");
	CHECK_EQ_INT(o->rtt_us, 100000, "cake: rtt");
	CHECK_EQ_INT(o->bandwidth, GW_UNSET, "cake: bandwidth unset");
	CHECK(o->atm == -1 && o->overhead == GW_UNSET && o->mpu == GW_UNSET,
	      "cake: overhead keys unset");
	gw_config_free(cfg);
}

static void test_cake_enums(void)
{
	static const struct {
		const char *key, *value;
		int want;
	} e[] = {
		{ "diffserv", "\"besteffort\"", CAKE_DIFFSERV_BESTEFFORT },
		{ "diffserv", "\"diffserv3\"", CAKE_DIFFSERV_DIFFSERV3 },
		{ "diffserv", "\"diffserv8\"", CAKE_DIFFSERV_DIFFSERV8 },
		{ "diffserv", "\"precedence\"", CAKE_DIFFSERV_PRECEDENCE },
		{ "flow_mode", "\"flowblind\"", CAKE_FLOW_NONE },
		{ "flow_mode", "\"srchost\"", CAKE_FLOW_SRC_IP },
		{ "flow_mode", "\"dsthost\"", CAKE_FLOW_DST_IP },
		{ "flow_mode", "\"hosts\"", CAKE_FLOW_HOSTS },
		{ "flow_mode", "\"flows\"", CAKE_FLOW_FLOWS },
		{ "flow_mode", "\"dual-srchost\"", CAKE_FLOW_DUAL_SRC },
		{ "flow_mode", "\"triple-isolate\"", CAKE_FLOW_TRIPLE },
		{ "ack_filter", "true", CAKE_ACK_FILTER },
		{ "ack_filter", "false", CAKE_ACK_NONE },
		{ "bandwidth", "\"unlimited\"", 0 },
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		struct gw_config *cfg;
		const struct gw_cake_opts *o;
		long long got;

		snprintf(text, sizeof(text), "links = ( { name = \"wan\"; interface = \"eth0\"; "
			 "egress = { shaper = \"tbf\"; rate = \"10mbit\"; child = { kind = \"cake\"; "
			 "%s = %s; }; }; } );", e[i].key, e[i].value);
		cfg = load_ok(e[i].value, text);
		if (!cfg)
			continue;
		o = &cfg->links[0].dir[GW_DIR_EGRESS].child.opts.cake;
		got = !strcmp(e[i].key, "diffserv") ? o->diffserv :
		      !strcmp(e[i].key, "flow_mode") ? o->flow_mode :
		      !strcmp(e[i].key, "ack_filter") ? o->ack_filter : o->bandwidth;
		CHECK(got == e[i].want, "cake %s = %s -> %d (got %lld)", e[i].key, e[i].value,
		      e[i].want, got);
		gw_config_free(cfg);
	}
}

static void test_fifo_and_ints(void)
{
	struct gw_config *cfg = load_ok("fifo",
		"links = (\n"
		" { name = \"a\"; interface = \"eth0\";\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\"; burst = 20000; latency = \"50ms\";\n"
		"     child = { kind = \"fifo\"; limit = 100; }; };\n"
		"   ingress = { shaper = \"tbf\"; rate = \"10mbit\";\n"
		"     child = { kind = \"fifo\"; limit = \"64k\"; }; }; },\n"
		" { name = \"b\"; interface = \"eth1\";\n"
		"   egress = { shaper = \"tbf\"; rate = \"10mbit\";\n"
		"     child = { kind = \"fq_codel\"; limit = 1000000L; memory_limit = 2147483648L; }; }; }\n"
		");\n");
	const struct gw_link_cfg *l;

	if (!cfg)
		return;
	l = cfg->links;
	CHECK(l[0].dir[0].burst == 20000 && l[0].dir[0].latency_us == 50000,
	      "tbf burst and latency");
	CHECK(l[0].dir[0].child.kind == GW_KIND_FIFO && l[0].dir[0].child.opts.fifo.limit == 100 &&
	      !l[0].dir[0].child.opts.fifo.bytes, "fifo limit in packets: pfifo");
	CHECK(l[0].dir[1].child.opts.fifo.limit == 65536 && l[0].dir[1].child.opts.fifo.bytes,
	      "fifo limit as a size: bfifo");
	CHECK(l[1].dir[0].child.opts.fq_codel.limit == 1000000 &&
	      l[1].dir[0].child.opts.fq_codel.memory_limit == 2147483648LL,
	      "64-bit integers with L are read whole");
	CHECK_EQ_STR(l[1].dir[1].ifb, "", "no ifb without ingress");
	gw_config_free(cfg);
}

static void test_ifb_default_truncated(void)
{
	struct gw_config *cfg = load_ok("long link name",
		"listen = \"[::]:80\";\n"
		"links = ( { name = \"a-very-long-link-name\"; interface = \"eth0\";\n"
		"  ingress = { shaper = \"htb\"; rate = \"10mbit\"; }; } );\n");

	if (!cfg)
		return;
	CHECK_EQ_STR(cfg->links[0].dir[GW_DIR_INGRESS].ifb, "ifb-a-very-long",
		     "default ifb cut to 15 characters");
	CHECK(!cfg->links[0].dir[GW_DIR_EGRESS].present, "ingress only");
	CHECK_EQ_STR(cfg->listen[0], "[::]:80", "one IPv6 listen string");
	gw_config_free(cfg);
}

/* Tens of thousands of classes: the uniqueness check must stay fast. */
static void test_many_classes(void)
{
	size_t cap = (size_t)GW_MAX_CLASSES * 48 + 1024, n = 0;
	char *text = malloc(cap);
	struct gw_config *cfg;
	int i;

	if (!CHECK(text != NULL, "many classes: buffer"))
		return;
	n += (size_t)snprintf(text + n, cap - n, "links = ( { name = \"w\"; interface = \"e\";\n"
			      "egress = { shaper = \"htb\"; rate = \"1gbit\"; classes = (\n");
	for (i = 0; i < GW_MAX_CLASSES; i++)
		n += (size_t)snprintf(text + n, cap - n, "{ name = \"c%d\"; rate = \"8kbit\";%s },\n",
				      i, i == GW_MAX_CLASSES - 1 ? " default = true;" : "");
	text[n - 2] = ' ';	/* no comma after the last */
	snprintf(text + n, cap - n, "); }; } );\n");
	cfg = load_ok("many classes", text);
	if (cfg) {
		CHECK_EQ_INT(cfg->links[0].dir[0].n_classes, GW_MAX_CLASSES, "many classes: all");
		CHECK_EQ_INT(cfg->links[0].dir[0].classes[GW_MAX_CLASSES - 1].is_default, 1,
			     "many classes: last is default");
		gw_config_free(cfg);
	}
	/* The same with a repeated name near the end. */
	memcpy(strstr(text, "\"c49998\""), "\"c49997\"", 8);
	cfg = (struct gw_config *)text;
	CHECK(gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err)) == -EINVAL &&
	      cfg == NULL && strstr(err, "gw.conf:50001: class 'c49997': name already used by "
				    "the class on line 50000"), "many classes: duplicate found (%s)",
	      err);
	free(text);
}

struct bad {
	int line;
	const char *msg;
	const char *text;
};

#define LINK "links = ( { name = \"wan\"; interface = \"eth0\";\n"
#define EGRESS(shaper, rest) "egress = { shaper = \"" shaper "\"; rate = \"100mbit\"; " rest "};\n"
#define HTB LINK "egress = { shaper = \"htb\"; rate = \"100mbit\"; classes = (\n"
#define DEF "{ name = \"def\"; rate = \"1mbit\"; default = true; },\n"
#define CEND "); }; } );\n"
#define TBF_CHILD LINK "egress = { shaper = \"tbf\"; rate = \"100mbit\";\n"
#define CHEND "}; } );\n"

#define X16 "xxxxxxxxxxxxxxxx"
#define X256 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16
#define LONG4K X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256 X256

static const struct bad bad[] = {
	/* Syntax, as libconfig reports it. */
	{ 3, "syntax error", "listen = \"127.0.0.1:9180\";\n\nlinks = ( { name = ; } );\n" },
	{ 2, "duplicate setting name", "interval = \"1s\";\ninterval = \"2s\";\n" },
	{ 2, "syntax error", "links = ( { name = \"unterminated; } );\n" },
	/* The top level. */
	{ 1, "unknown key 'foo' at the top level", "foo = 1;\n" LINK EGRESS("tbf", "") "} );" },
	{ 2, "unknown key 'tunnels' at the top level",
	  "interval = \"1s\";\ntunnels = ();\n" },
	{ 1, "'links' is required", "interval = \"1s\";\n" },
	{ 1, "keep_on_stop", "keep_on_stop = \"yes\";\n" LINK EGRESS("tbf", "") "} );" },
	{ 1, "'links' is required", "" },
	{ 2, "'links' must have 1..64 links, not 0", "\nlinks = ();\n" },
	{ 1, "'links' must be a list of groups", "links = { name = \"wan\"; };\n" },
	{ 1, "'links' element 1 must be a group", "links = ( 1 );\n" },
	{ 1, "'interval' needs a unit: write it as a string, e.g. \"5ms\"",
	  "interval = 1;\n" LINK EGRESS("tbf", "") "} );" },
	{ 1, "'interval' \"50ms\" is out of range 100ms..60s",
	  "interval = \"50ms\";\n" LINK EGRESS("tbf", "") "} );" },
	{ 1, "'interval' \"61s\" is out of range", "interval = \"61s\";\n" },
	{ 1, "'interval' \"1x\" is not a time", "interval = \"1x\";\n" },
	{ 1, "'listen' \"localhost:80\" is not an address", "listen = \"localhost:80\";\n" },
	{ 1, "IPv6 in brackets", "listen = \"::1:9180\";\n" },
	{ 1, "'listen' must be a string or a list of strings", "listen = 9180;\n" },
	{ 2, "'listen' must be a string or a list of strings", "listen = (\n 9180 );\n" },
	{ 1, "'listen' must have 1..8 addresses, not 9",
	  "listen = [\"1.1.1.1:1\", \"1.1.1.1:2\", \"1.1.1.1:3\", \"1.1.1.1:4\", \"1.1.1.1:5\","
	  "\"1.1.1.1:6\", \"1.1.1.1:7\", \"1.1.1.1:8\", \"1.1.1.1:9\"];\n" },
	{ 1, "'listen' must have 1..8 addresses, not 0", "listen = [];\n" },
	{ 1, "'listen' \"[0::1]:80\" is the same address as \"[::1]:80\"",
	  "listen = [\"[::1]:80\", \"[0::1]:80\"];\n" },
	{ 2, "'auth_file' \"users\" must be an absolute path",
	  "interval = \"1s\";\nauth_file = \"users\";\n" LINK EGRESS("tbf", "") "} );" },
	{ 1, "'auth_file' \"\" must be an absolute path", "auth_file = \"\";\n" },
	{ 2, "'auth_file' without 'tls_cert' and 'tls_key' sends passwords in clear text: add "
	  "TLS, or say 'auth_plain_http = true'",
	  "interval = \"1s\";\nauth_file = \"/etc/u\";\n" LINK EGRESS("tbf", "") "} );" },
	{ 1, "'tls_cert' and 'tls_key' go together", "tls_cert = \"/etc/c\";\n" LINK
	  EGRESS("tbf", "") "} );" },
	{ 1, "'tls_key' \"k\" must be an absolute path", "tls_key = \"k\";\n" },
	{ 1, "'allowed_hosts' entry 2 is not a host name",
	  "allowed_hosts = [ \"gw.lan\", \"evil/x\" ];\n" },
	{ 1, "'allowed_hosts' must be a list of host names", "allowed_hosts = \"gw\";\n" },
	{ 1, "'auth_fail_limit' 0 is out of range 1..1000", "auth_fail_limit = 0;\n" },
	{ 1, "'http_memory_max' \"1k\" is out of range", "http_memory_max = \"1k\";\n" },
	{ 1, "'auth_file' must be a string, not an integer", "auth_file = 1;\n" },
	{ 1, "'compare_dir' \"cmp\" must be an absolute path", "compare_dir = \"cmp\";\n" },
	{ 1, "'compare_dir' must be a string, not an integer", "compare_dir = 1;\n" },
	{ 1, "'auth_file' is too long (at most 4095 characters)", "auth_file = \"/" LONG4K "\";\n" },
	/* Integers libconfig 1.5 would silently cut to 32 bits. */
	{ 2, "integer 4294967297 is too large", LINK "overhead = 4294967297;\n" EGRESS("tbf", "")
	  "} );" },
	{ 3, "integer 0x100000000 is too large", "# 99999999999 in a comment is fine\n"
	  "interval = \"99999999999s\";\nfoo = 0x100000000;\n" },
	{ 1, "integer -2147483649 is too large", "a = -2147483649;\n" },
	/* Links. */
	{ 1, "link #1: 'name' is required", "links = ( { interface = \"eth0\"; } );\n" },
	{ 1, "link #1: 'name' \"w an\" may only have letters, digits, '_' and '-'",
	  "links = ( { name = \"w an\"; } );\n" },
	{ 1, "link #1: 'name' is too long (at most 31 characters)",
	  "links = ( { name = \"abcdefghijabcdefghijabcdefghij12\"; } );\n" },
	{ 1, "link #1: 'name' must be a string, not an integer", "links = ( { name = 1; } );\n" },
	{ 4, "link 'wan': name already used by the link on line 1",
	  LINK EGRESS("tbf", "") "},\n{ name = \"wan\"; interface = \"eth1\";\n"
	  EGRESS("tbf", "") "} );" },
	{ 2, "link 'wan': 'interface' is required", "links = (\n{ name = \"wan\"; } );\n" },
	{ 1, "'interface' \"eth0:1\" is not a valid interface name",
	  "links = ( { name = \"wan\"; interface = \"eth0:1\"; } );\n" },
	{ 1, "'interface' \".\" is not a valid interface name",
	  "links = ( { name = \"wan\"; interface = \".\"; } );\n" },
	{ 1, "'interface' \"a/b\" is not a valid interface name",
	  "links = ( { name = \"wan\"; interface = \"a/b\"; } );\n" },
	{ 1, "'interface' \"a b\" is not a valid interface name",
	  "links = ( { name = \"wan\"; interface = \"a b\"; } );\n" },
	{ 1, "'interface' is too long (at most 15 characters)",
	  "links = ( { name = \"wan\"; interface = \"eth0123456789012\"; } );\n" },
	{ 5, "link 'lan': interface \"eth0\" is already shaped by link 'wan'",
	  LINK EGRESS("tbf", "") "},\n{ name = \"lan\";\n interface = \"eth0\";\n"
	  EGRESS("tbf", "") "} );" },
	{ 2, "unknown key 'rate' in link 'wan'", LINK "rate = \"20mbit\";\n} );" },
	{ 2, "link 'wan': 'overhead' 300 is out of range -64..256", LINK "overhead = 300;\n} );" },
	{ 2, "link 'wan': 'overhead' must be an integer, not a string",
	  LINK "overhead = \"18\";\n} );" },
	{ 2, "link 'wan': 'mpu' -1 is out of range 0..256", LINK "mpu = -1;\n} );" },
	{ 2, "link 'wan': 'linklayer' \"adsl\" is not one of \"ethernet\", \"atm\"",
	  LINK "linklayer = \"adsl\";\n} );" },
	{ 2, "link 'wan': 'replace' must be true or false, not a string",
	  LINK "replace = \"yes\";\n} );" },
	{ 2, "link 'wan': 'required' must be true or false, not an integer",
	  LINK "required = 1;\n} );" },
	{ 1, "link 'wan': nothing to shape: give 'egress', 'ingress' or both", LINK "} );" },
	{ 2, "link 'wan': 'egress' must be a group { ... }, not a string",
	  LINK "egress = \"htb\";\n} );" },
	/* Directions. */
	{ 2, "link 'wan' egress: 'shaper' is required", LINK "egress = { rate = \"1mbit\"; };\n} );" },
	{ 2, "link 'wan' egress: 'shaper' \"hfsc\" is not one of \"htb\", \"tbf\", \"cake\"",
	  LINK "egress = { shaper = \"hfsc\"; };\n} );" },
	{ 2, "link 'wan' ingress: 'rate' is required", LINK "ingress = { shaper = \"htb\"; };\n} );" },
	{ 3, "link 'wan' egress: 'rate' needs a unit: write it as a string, e.g. \"20mbit\"",
	  LINK "egress = { shaper = \"htb\";\n rate = 20; };\n} );" },
	{ 2, "'rate' needs a unit", LINK "egress = { shaper = \"htb\"; rate = 1.5; };\n} );" },
	{ 2, "'rate' \"20\" is not a rate", LINK "egress = { shaper = \"htb\"; rate = \"20\"; };\n} );" },
	{ 2, "'rate' \"1bit\" is out of range 8kbit..100tbit",
	  LINK "egress = { shaper = \"htb\"; rate = \"1bit\"; };\n} );" },
	{ 2, "'rate' \"200tbit\" is out of range 8kbit..100tbit",
	  LINK "egress = { shaper = \"htb\"; rate = \"200tbit\"; };\n} );" },
	{ 2, "link 'wan' egress: 'burst' is not valid with shaper cake (only with htb and tbf)",
	  LINK EGRESS("cake", "burst = \"10k\";") "} );" },
	{ 2, "link 'wan' egress: 'latency' is not valid with shaper htb (only with tbf)",
	  LINK EGRESS("htb", "latency = \"10ms\";") "} );" },
	{ 2, "link 'wan' egress: 'classes' is not valid with shaper tbf (only with htb)",
	  LINK EGRESS("tbf", "classes = ();") "} );" },
	{ 2, "link 'wan' egress: 'ifb' is only valid in ingress",
	  LINK EGRESS("htb", "ifb = \"ifb0\";") "} );" },
	{ 2, "'latency' \"0.5ms\" is out of range 1ms..10s",
	  LINK EGRESS("tbf", "latency = \"0.5ms\";") "} );" },
	{ 2, "'burst' \"100m\" is out of range 1..64m", LINK EGRESS("tbf", "burst = \"100m\";") "} );" },
	{ 2, "'burst' 0 is out of range 1..64m", LINK EGRESS("htb", "burst = 0;") "} );" },
	{ 2, "unknown key 'ceil' in link 'wan' egress", LINK EGRESS("htb", "ceil = \"1mbit\";") "} );" },
	{ 2, "link 'wan' ingress: 'ifb' \"ifb/0\" is not a valid interface name",
	  LINK "ingress = { shaper = \"htb\"; rate = \"1mbit\"; ifb = \"ifb/0\"; };\n} );" },
	{ 2, "link 'wan' ingress: ifb \"eth0\" is the interface of link 'wan'",
	  LINK "ingress = { shaper = \"htb\"; rate = \"1mbit\"; ifb = \"eth0\"; };\n} );" },
	{ 2, "link 'wan' ingress: ifb \"gwc-7\": names starting with \"gwc-\" are reserved",
	  LINK "ingress = { shaper = \"htb\"; rate = \"1mbit\"; ifb = \"gwc-7\"; };\n} );" },
	{ 1, "link 'wan': interface \"gwc-12\": names starting with \"gwc-\" are reserved",
	  "links = ( { name = \"wan\"; interface = \"gwc-12\";\n"
	  "egress = { shaper = \"tbf\"; rate = \"1mbit\"; }; } );\n" },
	{ 3, "link 'long-name-ab' ingress: ifb \"ifb-long-name-a\" is already used by link "
	  "'long-name-aa' (the default",
	  "links = ( { name = \"long-name-aa\"; interface = \"eth0\"; ingress = { shaper = \"htb\"; "
	  "rate = \"1mbit\"; }; },\n{ name = \"long-name-ab\"; interface = \"eth1\";\n"
	  "ingress = { shaper = \"htb\"; rate = \"1mbit\"; }; } );\n" },
	{ 3, "link 'b' ingress: ifb \"ifb0\" is already used by link 'a'",
	  "links = ( { name = \"a\"; interface = \"eth0\"; ingress = { shaper = \"htb\"; "
	  "rate = \"1mbit\"; ifb = \"ifb0\"; }; },\n{ name = \"b\"; interface = \"eth1\";\n"
	  "ingress = { shaper = \"htb\"; rate = \"1mbit\"; ifb = \"ifb0\"; }; } );\n" },
	{ 2, "link 'b': interface \"ifb-a\" is the ifb device of link 'a'",
	  "links = ( { name = \"a\"; interface = \"eth0\"; ingress = { shaper = \"htb\"; "
	  "rate = \"1mbit\"; }; },\n{ name = \"b\"; interface = \"ifb-a\"; egress = { shaper = "
	  "\"htb\"; rate = \"1mbit\"; }; } );\n" },
	{ 3, "link 'b' ingress: ifb \"eth0\" is the interface of link 'a'",
	  "links = ( { name = \"a\"; interface = \"eth0\"; egress = { shaper = \"htb\"; "
	  "rate = \"1mbit\"; }; },\n{ name = \"b\"; interface = \"eth1\"; ingress = { shaper = "
	  "\"htb\"; rate = \"1mbit\";\nifb = \"eth0\"; }; } );\n" },
	{ 5, "link 'wan' egress: 'child' is for an htb direction without classes",
	  HTB "{ name = \"def\"; rate = \"1mbit\"; default = true; }\n"
	  ");\n child = { kind = \"fifo\"; }; }; } );\n" },
	{ 2, "link 'wan' egress: 'classes' must be a list of groups",
	  LINK EGRESS("htb", "classes = { name = \"a\"; };") "} );" },
	/* Classes. */
	{ 3, "link 'wan' egress class #1: 'name' is required", HTB "{ rate = \"1mbit\"; }\n" CEND },
	{ 4, "link 'wan' egress class #2: 'name' \"b.c\" may only have letters",
	  HTB DEF "{ name = \"b.c\"; }\n" CEND },
	{ 4, "class 'bulk': 'rate' is required", HTB DEF "{ name = \"bulk\"; }\n" CEND },
	{ 4, "class 'bulk': rate 90mbit is above ceil 50mbit",
	  HTB DEF "{ name = \"bulk\"; rate = \"90mbit\"; ceil = \"50mbit\"; }\n" CEND },
	{ 4, "class 'bulk': rate 200mbit is above ceil 100mbit (the direction's rate)",
	  HTB DEF "{ name = \"bulk\"; rate = \"200mbit\"; }\n" CEND },
	{ 5, "class 'bulk': ceil 200mbit is above the direction's rate 100mbit",
	  HTB DEF "{ name = \"bulk\"; rate = \"90mbit\";\n ceil = \"200mbit\"; }\n" CEND },
	{ 2, "link 'wan' egress: the classes' rates add up to 101mbit, above the direction's "
	  "rate 100mbit", HTB DEF "{ name = \"bulk\"; rate = \"100mbit\"; }\n" CEND },
	{ 2, "no class has default = true: unclassified traffic would bypass the shaper",
	  HTB "{ name = \"a\"; rate = \"1mbit\"; },\n{ name = \"b\"; rate = \"1mbit\"; }\n" CEND },
	{ 5, "classes 'def' (line 3) and 'b' (line 4) both have default = true",
	  HTB DEF "{ name = \"b\"; rate = \"1mbit\";\n default = true; }\n" CEND },
	{ 5, "class 'a': name already used by the class on line 3",
	  HTB "{ name = \"a\"; rate = \"1mbit\"; default = true; },\n{ name = \"b\"; "
	  "rate = \"1mbit\"; },\n{ name = \"a\"; rate = \"1mbit\"; }\n" CEND },
	{ 4, "class 'x': 'prio' 8 is out of range 0..7",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; prio = 8; }\n" CEND },
	{ 4, "class 'x': 'quantum' 100 is out of range 256..1m",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; quantum = 100; }\n" CEND },
	{ 4, "class 'x': 'burst' \"65m\" is out of range 1..64m",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; burst = \"65m\"; }\n" CEND },
	{ 4, "class 'x': 'cburst' 0 is out of range 1..64m",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; cburst = 0; }\n" CEND },
	{ 4, "class 'x': 'cburst' \"1.5\" is not a size",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; cburst = \"1.5\"; }\n" CEND },
	{ 4, "class 'x': 'default' must be true or false, not an integer",
	  HTB DEF "{ name = \"x\"; rate = \"1mbit\"; default = 1; }\n" CEND },
	{ 4, "unknown key 'matches' in class 'bulk'",
	  HTB DEF "{ name = \"bulk\"; rate = \"1mbit\"; matches = { dscp = 46; }; }\n" CEND },
	{ 3, "class 'a': 'ceil' \"fast\" is not a rate",
	  HTB "{ name = \"a\"; rate = \"1mbit\"; ceil = \"fast\"; }\n" CEND },
	/* Children. */
	{ 3, "link 'wan' egress child: 'kind' is required", TBF_CHILD "child = { };\n" CHEND },
	{ 3, "link 'wan' egress child: 'kind' \"hfsc\" is not one of \"fifo\", \"fq_codel\", "
	  "\"cake\", \"sfq\", \"pie\"", TBF_CHILD "child = { kind = \"hfsc\"; };\n" CHEND },
	{ 4, "link 'wan' egress child: 'rtt' is a cake setting, not valid for kind \"fq_codel\"",
	  TBF_CHILD "child = { kind = \"fq_codel\";\n rtt = \"100ms\"; };\n" CHEND },
	{ 3, "'limit' is a fifo and fq_codel and sfq and pie setting, not valid for kind \"cake\"",
	  TBF_CHILD "child = { kind = \"cake\"; limit = 100; };\n" CHEND },
	{ 3, "'target' is a fq_codel and pie setting, not valid for kind \"fifo\"",
	  TBF_CHILD "child = { kind = \"fifo\"; target = \"5ms\"; };\n" CHEND },
	{ 4, "unknown key 'foo' in class 'bulk' child",
	  HTB DEF "{ name = \"bulk\"; rate = \"1mbit\"; child = { kind = \"fifo\"; foo = 1; }; }\n"
	  CEND },
	{ 3, "link 'wan' egress child: 'limit' 0 is out of range 1..1000000",
	  TBF_CHILD "child = { kind = \"fifo\"; limit = 0; };\n" CHEND },
	{ 3, "'limit' \"2g\" is out of range 1..1g",
	  TBF_CHILD "child = { kind = \"fifo\"; limit = \"2g\"; };\n" CHEND },
	{ 3, "'limit' must be an integer (packets) or a size string (bytes",
	  TBF_CHILD "child = { kind = \"fifo\"; limit = true; };\n" CHEND },
	{ 3, "'target' \"2s\" is out of range 1us..1s",
	  TBF_CHILD "child = { kind = \"fq_codel\"; target = \"2s\"; };\n" CHEND },
	{ 4, "'interval' 5ms must be longer than 'target' 10ms",
	  TBF_CHILD "child = { kind = \"fq_codel\"; target = \"10ms\";\n interval = \"5ms\"; };\n"
	  CHEND },
	{ 3, "'interval' \"20s\" is out of range 1ms..10s",
	  TBF_CHILD "child = { kind = \"fq_codel\"; interval = \"20s\"; };\n" CHEND },
	{ 3, "'flows' 0 is out of range 1..65536",
	  TBF_CHILD "child = { kind = \"fq_codel\"; flows = 0; };\n" CHEND },
	{ 3, "'quantum' 32 is out of range 64..1m",
	  TBF_CHILD "child = { kind = \"fq_codel\"; quantum = 32; };\n" CHEND },
	{ 3, "'memory_limit' \"1k\" is out of range 4k..2g",
	  TBF_CHILD "child = { kind = \"fq_codel\"; memory_limit = \"1k\"; };\n" CHEND },
	{ 3, "'ecn' must be true or false, not an integer",
	  TBF_CHILD "child = { kind = \"fq_codel\"; ecn = 1; };\n" CHEND },
	{ 3, "'limit' must be an integer, not a string",
	  TBF_CHILD "child = { kind = \"fq_codel\"; limit = \"10k\"; };\n" CHEND },
	{ 3, "'ce_threshold' needs a unit",
	  TBF_CHILD "child = { kind = \"fq_codel\"; ce_threshold = 5; };\n" CHEND },
	{ 3, "'kind' must be \"cake\" under shaper cake",
	  LINK "egress = { shaper = \"cake\"; rate = \"1mbit\";\nchild = { kind = \"fq_codel\"; }; };\n"
	  "} );" },
	{ 4, "'bandwidth' is not allowed here: the direction's 'rate' is cake's bandwidth",
	  LINK "egress = { shaper = \"cake\"; rate = \"1mbit\";\nchild = { kind = \"cake\";\n"
	  "bandwidth = \"1mbit\"; }; };\n} );" },
	{ 4, "class 'bulk' child: cake 'bandwidth' must be \"unlimited\" or left out under htb",
	  HTB DEF "{ name = \"bulk\"; rate = \"1mbit\"; child = { kind = \"cake\"; "
	  "bandwidth = \"1mbit\"; }; }\n" CEND },
	{ 3, "non-work-conserving",
	  TBF_CHILD "child = { kind = \"cake\"; bandwidth = \"50mbit\"; };\n" CHEND },
	{ 3, "'diffserv' \"diffserv5\" is not one of \"besteffort\"",
	  TBF_CHILD "child = { kind = \"cake\"; diffserv = \"diffserv5\"; };\n" CHEND },
	{ 3, "'flow_mode' \"dual\" is not one of",
	  TBF_CHILD "child = { kind = \"cake\"; flow_mode = \"dual\"; };\n" CHEND },
	{ 3, "'ack_filter' must be true, false or \"aggressive\"",
	  TBF_CHILD "child = { kind = \"cake\"; ack_filter = \"yes\"; };\n" CHEND },
	{ 3, "'rtt' \"2h\" is not a time",
	  TBF_CHILD "child = { kind = \"cake\"; rtt = \"2h\"; };\n" CHEND },
	{ 3, "'rtt' \"3601s\" is out of range 1us..3600s",
	  TBF_CHILD "child = { kind = \"cake\"; rtt = \"3601s\"; };\n" CHEND },
	{ 3, "'bandwidth' needs a unit",
	  TBF_CHILD "child = { kind = \"cake\"; bandwidth = 100; };\n" CHEND },
	{ 3, "'nat' must be true or false, not a string",
	  TBF_CHILD "child = { kind = \"cake\"; nat = \"true\"; };\n" CHEND },
	{ 3, "'child' must be a group { ... }, not a string", TBF_CHILD "child = \"fq_codel\";\n" CHEND },
	{ 3, "'kind' must be a string, not a group",
	  TBF_CHILD "child = { kind = { }; };\n" CHEND },
	/* Echoed values cannot break the one-line message. */
	{ 1, "'name' \"a?b\" may only have", "links = ( { name = \"a\\nb\"; } );\n" },
	/* The first error wins, in file order. */
	{ 2, "link 'wan' egress: 'rate' is required",
	  LINK "egress = { shaper = \"tbf\"; };\ningress = { shaper = \"x\"; };\n} );" },
};

static void check_bad(size_t i)
{
	const struct bad *b = &bad[i];
	struct gw_config *cfg = (struct gw_config *)&cfg;
	char prefix[32];
	int ret;

	err[0] = '\0';
	ret = gw_config_load_string("gw.conf", b->text, &cfg, err, sizeof(err));
	snprintf(prefix, sizeof(prefix), "gw.conf:%d: ", b->line);
	CHECK(ret == -EINVAL && cfg == NULL && strncmp(err, prefix, strlen(prefix)) == 0,
	      "invalid #%zu: -EINVAL at line %d (ret %d, \"%s\")", i + 1, b->line, ret, err);
	CHECK(strstr(err, b->msg) != NULL && !strchr(err, '\n'),
	      "invalid #%zu: says \"%s\" (got \"%s\")", i + 1, b->msg, err);
}

static void test_too_many_links(void)
{
	char *text = malloc(16384);
	struct gw_config *cfg;
	size_t n = 0;
	int i;

	if (!text)
		return;
	n += (size_t)snprintf(text, 16384, "links = (\n");
	for (i = 0; i <= GW_MAX_LINKS; i++)
		n += (size_t)snprintf(text + n, 16384 - n, "%s{ name = \"l%d\"; interface = \"e%d\"; "
				      "egress = { shaper = \"tbf\"; rate = \"1mbit\"; }; }\n",
				      i ? "," : "", i, i);
	snprintf(text + n, 16384 - n, ");\n");
	CHECK(gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "gw.conf:1: 'links' must have 1..64 links, not 65"),
	      "65 links refused (%s)", err);
	free(text);
}

static void test_too_many_classes(void)
{
	size_t cap = (size_t)(GW_MAX_CLASSES + 1) * 32 + 256, n = 0;
	char *text = malloc(cap);
	struct gw_config *cfg;
	int i;

	if (!text)
		return;
	n += (size_t)snprintf(text, cap, HTB);
	for (i = 0; i <= GW_MAX_CLASSES; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s{ name = \"c%d\"; }", i ? "," : "", i);
	snprintf(text + n, cap - n, "\n" CEND);
	CHECK(gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "gw.conf:2: link 'wan' egress: 50001 classes is too many (at most 50000)"),
	      "50001 classes refused (%s)", err);
	free(text);
}

static void test_files(void)
{
	static const char *const examples[] = {
		"config/examples/home-router.conf",
		"config/examples/office-router.conf",
		"config/examples/container-host.conf",
		"config/examples/dual-wan.conf",
		"config/examples/lte-router.conf",
	};
	char dir[] = "/tmp/gw-test-XXXXXX", path[64], inc[64];
	struct gw_config *cfg;
	size_t i;
	FILE *f;
	int ret;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		ret = gw_config_load(examples[i], &cfg, err, sizeof(err));
		CHECK(ret == 0 && cfg && cfg->n_links > 0, "example %s is valid (%s)", examples[i],
		      err);
		if (!ret)
			CHECK_EQ_STR(cfg->file, examples[i], "example keeps its path");
		for (size_t k = 0; !ret && k < cfg->n_listen; k++) {
			const struct sockaddr_storage *a = &cfg->listen_addr[k];
			bool lo = a->ss_family == AF_INET ?
				(ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127 :
				IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);

			if (!lo)
				CHECK(cfg->auth_file && cfg->tls_cert && cfg->tls_key,
				      "example %s listens on %s: with auth_file and TLS", examples[i],
				      cfg->listen[k]);
		}
		gw_config_free(cfg);
	}
	ret = gw_config_load("config/examples/no-such.conf", &cfg, err, sizeof(err));
	CHECK(ret == -ENOENT && cfg == NULL && strstr(err, "no-such.conf: cannot open"),
	      "missing file: -ENOENT (%s)", err);

	if (!CHECK(mkdtemp(dir) != NULL, "temporary directory"))
		return;
	/* @include is relative to the including file, and errors name the included file. */
	snprintf(inc, sizeof(inc), "%s/links.inc", dir);
	snprintf(path, sizeof(path), "%s/gw.conf", dir);
	f = fopen(inc, "w");
	fputs("links = ( { name = \"wan\"; interface = \"eth0\";\n"
	      "egress = { shaper = \"tbf\"; rate = \"5\"; }; } );\n", f);
	fclose(f);
	f = fopen(path, "w");
	fputs("interval = \"2s\";\n@include \"links.inc\"\n", f);
	fclose(f);
	ret = gw_config_load(path, &cfg, err, sizeof(err));
	CHECK(ret == -EINVAL && strstr(err, "links.inc:2: link 'wan' egress: 'rate' \"5\""),
	      "error in an included file names it (%s)", err);
	f = fopen(path, "w");
	fputs("interval = \"2s\";\0links = ();\n", f);
	fwrite("x\0y", 1, 3, f);
	fclose(f);
	ret = gw_config_load(path, &cfg, err, sizeof(err));
	CHECK(ret == -EINVAL && strstr(err, "contains a NUL byte"), "NUL byte refused (%s)", err);
	unlink(inc);
	unlink(path);
	rmdir(dir);
}

static void test_no_err_buffer(void)
{
	struct gw_config *cfg;

	CHECK(gw_config_load_string("x", "links = ();", &cfg, NULL, 0) == -EINVAL && !cfg,
	      "no error buffer: still refused");
	CHECK(gw_config_load("/nonexistent/gw.conf", &cfg, NULL, 0) == -ENOENT,
	      "no error buffer: missing file");
	gw_config_free(NULL);
	CHECK_EQ_STR(gw_direction_name(GW_DIR_EGRESS), "egress", "direction name egress");
	CHECK_EQ_STR(gw_direction_name(GW_DIR_INGRESS), "ingress", "direction name ingress");
}

int main(void)
{
	size_t i;

	test_minimal();
	test_htb_classes();
	test_htb_no_classes();
	test_auth_file();
	test_keep_on_stop();
	test_presets();
	test_sizing_overrides();
	test_cake();
	test_cake_enums();
	test_fifo_and_ints();
	test_ifb_default_truncated();
	test_many_classes();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad(i);
	CHECK(sizeof(bad) / sizeof(bad[0]) >= 50, "at least 50 invalid configs (%zu)",
	      sizeof(bad) / sizeof(bad[0]));
	test_too_many_links();
	test_too_many_classes();
	test_files();
	test_no_err_buffer();
	return tap_done();
}
