/* tests/unit/test_cni.c: gatewayd-cni's parsing: the CNI_* environment, the network config
 * with runtimeConfig and prevResult as runtimes write them, and the spec's error codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cni/cni.h"
#include "qdisc/qdisc.h"
#include "tap.h"

/* ---- the environment ---- */

struct envtab {
	const char *cmd, *id, *netns, *ifname;
};

static const char *tab_get(const char *name, void *arg)
{
	const struct envtab *t = arg;

	if (!strcmp(name, "CNI_COMMAND"))
		return t->cmd;
	if (!strcmp(name, "CNI_CONTAINERID"))
		return t->id;
	if (!strcmp(name, "CNI_NETNS"))
		return t->netns;
	if (!strcmp(name, "CNI_IFNAME"))
		return t->ifname;
	return NULL;
}

static int env(const char *cmd, const char *id, const char *netns, const char *ifname,
	       struct gw_cni_env *out, struct gw_cni_error *e)
{
	struct envtab t = { cmd, id, netns, ifname };

	memset(e, 0, sizeof(*e));
	return gw_cni_env_read(tab_get, &t, out, e);
}

static void test_env(void)
{
	struct gw_cni_env v;
	struct gw_cni_error e;

	CHECK(env("ADD", "abc123", "/run/netns/x", "eth0", &v, &e) == 0 && v.cmd == GW_CNI_ADD &&
	      !strcmp(v.container_id, "abc123") && !strcmp(v.netns, "/run/netns/x") &&
	      !strcmp(v.ifname, "eth0"), "env: a valid ADD");
	CHECK(env("VERSION", NULL, NULL, NULL, &v, &e) == 0 && v.cmd == GW_CNI_VERSION,
	      "env: VERSION needs nothing else");
	CHECK(env("DEL", "abc", NULL, "eth0", &v, &e) == 0 && !v.netns[0],
	      "env: DEL without CNI_NETNS (the namespace is gone) is accepted");
	CHECK(env("ADD", "abc", NULL, NULL, &v, &e) != 0 && e.code == GW_CNI_E_ENV &&
	      strstr(e.details, "CNI_NETNS") && strstr(e.details, "CNI_IFNAME") &&
	      !strstr(e.details, "CNI_CONTAINERID"), "env: the missing variables named, code 4 (%s)",
	      e.details);
	CHECK(env("CHECK", "abc", "", "eth0", &v, &e) != 0 && e.code == GW_CNI_E_ENV,
	      "env: CHECK with an empty CNI_NETNS: code 4");
	CHECK(env("GC", "abc", "/run/netns/x", "eth0", &v, &e) != 0 && e.code == GW_CNI_E_ENV &&
	      strstr(e.msg, "CNI_COMMAND"), "env: an unknown command: code 4");
	CHECK(env(NULL, "abc", "/run/netns/x", "eth0", &v, &e) != 0 && e.code == GW_CNI_E_ENV,
	      "env: no CNI_COMMAND: code 4");
	CHECK(env("ADD", "-abc", "/run/netns/x", "eth0", &v, &e) != 0 &&
	      strstr(e.msg, "CNI_CONTAINERID"), "env: a container id must start alphanumeric");
	CHECK(env("ADD", "ab;c", "/run/netns/x", "eth0", &v, &e) != 0,
	      "env: no ';' in a container id");
	CHECK(env("ADD", "a_b.c-9", "/run/netns/x", "eth0", &v, &e) == 0,
	      "env: '_', '.' and '-' in a container id");
	CHECK(env("ADD", "abc", "run/netns/x", "eth0", &v, &e) != 0 && strstr(e.msg, "CNI_NETNS"),
	      "env: a relative CNI_NETNS: code 4");
	CHECK(env("ADD", "abc", "/run/netns/x\n", "eth0", &v, &e) != 0,
	      "env: a control character in CNI_NETNS");
	CHECK(env("ADD", "abc", "/run/netns/x", "eth0:1", &v, &e) != 0 &&
	      strstr(e.msg, "CNI_IFNAME"), "env: ':' in CNI_IFNAME: code 4");
	CHECK(env("ADD", "abc", "/run/netns/x", "0123456789abcdef", &v, &e) != 0,
	      "env: a 16-character CNI_IFNAME");
	CHECK(env("ADD", "abc", "/run/netns/x", "..", &v, &e) != 0, "env: CNI_IFNAME \"..\"");
	CHECK(env("ADD", "abc", "/run/netns/x", "e th0", &v, &e) != 0, "env: a space in CNI_IFNAME");
	CHECK(gw_ctr_reg_valid_ifname("0123456789abcde"), "env: a 15-character name is fine");
}

/* ---- the network config ---- */

#define PREV ",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[" \
	"{\"name\":\"cni0\",\"mac\":\"aa:bb:cc:dd:ee:01\"}," \
	"{\"name\":\"veth1234\",\"mac\":\"aa:bb:cc:dd:ee:02\"}," \
	"{\"name\":\"eth0\",\"mac\":\"aa:bb:cc:dd:ee:03\",\"sandbox\":\"/run/netns/c1\"}]," \
	"\"ips\":[{\"interface\":2,\"address\":\"10.88.0.2/16\",\"gateway\":\"10.88.0.1\"}]}"

static int parse(const char *text, enum gw_cni_cmd cmd, struct gw_cni_conf *c,
		 struct gw_cni_error *e)
{
	memset(e, 0, sizeof(*e));
	return gw_cni_conf_parse(text, strlen(text), cmd, c, e);
}

/* The config with runtimeConfig.bandwidth bw (a JSON object's inside). */
static int parse_bw(const char *bw, struct gw_cni_conf *c, struct gw_cni_error *e)
{
	char text[8192];

	snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\","
		 "\"type\":\"gatewayd-cni\",\"capabilities\":{\"bandwidth\":true},"
		 "\"runtimeConfig\":{\"bandwidth\":{%s}}" PREV "}", bw);
	return parse(text, GW_CNI_ADD, c, e);
}

static void test_kubelet(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;

	/* kubernetes.io/ingress-bandwidth: 20M, egress-bandwidth: 10M, as kubelet (dockershim)
	 * wrote it: bursts math.MaxInt32 */
	CHECK(parse_bw("\"ingressRate\":20000000,\"ingressBurst\":2147483647,"
		       "\"egressRate\":10000000,\"egressBurst\":2147483647", &c, &e) == 0,
	      "kubelet's runtimeConfig is taken (%s %s)", e.msg, e.details);
	CHECK_EQ_INT(c.ingress.rate, 2500000, "ingressRate 20000000 bits/s is 2500000 bytes/s");
	CHECK_EQ_INT(c.egress.rate, 1250000, "egressRate 10000000 bits/s is 1250000 bytes/s");
	CHECK(c.ingress.burst == GW_UNSET && c.egress.burst == GW_UNSET,
	      "kubelet's MaxInt32 burst means none given: derived");
	CHECK(c.queue.kind == GW_KIND_FQ_CODEL, "no queue: fq_codel");
	CHECK(c.prev != NULL && c.n_host_ifaces == 2 && !strcmp(c.host_ifaces[0], "cni0") &&
	      !strcmp(c.host_ifaces[1], "veth1234"),
	      "prevResult's host interfaces: those without a sandbox");
	CHECK_EQ_STR(c.version, "1.0.0", "cniVersion kept");
	CHECK_EQ_STR(c.name, "net1", "the network's name kept");
	gw_cni_conf_free(&c);
	/* containerd's CRI plugin: math.MaxUint32; CRI-O: math.MaxUint32*8-1 */
	CHECK(parse_bw("\"ingressRate\":20000000,\"ingressBurst\":4294967295,"
		       "\"egressRate\":20000000,\"egressBurst\":34359738359", &c, &e) == 0 &&
	      c.ingress.burst == GW_UNSET && c.egress.burst == GW_UNSET,
	      "containerd's and CRI-O's bursts: none given");
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"ingressRate\":20000000,\"ingressBurst\":34359738360", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "4 GB"),
	      "a burst of 4 GB is refused, as the reference plugin does: code 7");
	/* containerd sends the other direction as zeroes when only one annotation is given */
	CHECK(parse_bw("\"ingressRate\":0,\"ingressBurst\":0,\"egressRate\":5000000,"
		       "\"egressBurst\":4294967295", &c, &e) == 0 && c.ingress.rate == 0 &&
	      c.egress.rate == 625000 && gw_cni_shapes(&c), "zeroes: that direction unlimited");
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"ingressRate\":8000000,\"ingressBurst\":80000", &c, &e) == 0 &&
	      c.ingress.burst == 10000 && c.egress.rate == 0,
	      "a burst below the runtimes' markers is honoured: 80000 bits = 10000 bytes");
	gw_cni_conf_free(&c);
}

static void test_ranges(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;

	CHECK(parse_bw("\"ingressRate\":7999,\"ingressBurst\":100000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "ingressRate"),
	      "a rate under 8000 bits/s: code 7 (%s)", e.details);
	CHECK(parse_bw("\"egressRate\":100000000000008,\"egressBurst\":100000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG, "a rate a byte/s over 100 Tbit/s: code 7");
	CHECK(parse_bw("\"egressRate\":18446744073709551615,\"egressBurst\":100000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG, "a rate of 2^64-1: code 7");
	CHECK(parse_bw("\"egressRate\":-1000000,\"egressBurst\":100000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "negative"), "a negative rate: code 7");
	CHECK(parse_bw("\"egressRate\":1.5e7,\"egressBurst\":100000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG, "a rate that is not a whole number: code 7");
	CHECK(parse_bw("\"egressRate\":\"20M\"", &c, &e) != 0 && e.code == GW_CNI_E_CONFIG,
	      "a rate as a string: code 7");
	CHECK(parse_bw("\"egressBurst\":100000", &c, &e) != 0 && e.code == GW_CNI_E_CONFIG &&
	      strstr(e.details, "egressRate"), "a burst without a rate: code 7");
	CHECK(parse_bw("\"egressRate\":20000000,\"egressBurst\":8000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG, "a burst under one full-size packet: code 7");
	/* 1 Mbit/s for 2^31-2 bits is 2147 s of burst, beyond htb's 274 s */
	CHECK(parse_bw("\"egressRate\":1000000,\"egressBurst\":2147483646", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "274"),
	      "a burst htb cannot hold: code 7");
	CHECK(parse_bw("\"egressRate\":20000000,\"egressBurst\":20000000", &c, &e) == 0 &&
	      c.egress.burst == 2500000, "a second of burst at 20 Mbit/s is honoured");
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"ingressRate\":20000000,\"ingressBurst\":1000000,\"unshapedSubnets\":[]",
		       &c, &e) == 0 && !c.n_subnets, "an empty unshapedSubnets is nothing to refuse");
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"ingressRate\":20000000,\"ingresBurst\":1000000", &c, &e) != 0 &&
	      e.code == GW_CNI_E_FIELD && strstr(e.details, "ingresBurst") &&
	      strstr(e.details, "1000000"), "a misspelt bandwidth key: code 2, key and value");
}

/* unshapedSubnets, shapedSubnets: CIDRs of both families, one list or the other, bounded. */
static void test_subnets(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;
	char big[2048], text[4096];
	size_t pos;

	CHECK(parse_bw("\"ingressRate\":20000000,\"unshapedSubnets\":[\"10.0.0.0/8\","
		       "\"fd00:db8:abcd:1234:e000::/68\"]", &c, &e) == 0 && c.n_subnets == 2 &&
	      !c.subnets_shaped && c.subnets[0].family == AF_INET && c.subnets[0].len == 8 &&
	      c.subnets[1].family == AF_INET6 && c.subnets[1].len == 68,
	      "unshapedSubnets: an IPv4 and an IPv6 subnet (%s)", e.details);
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"egressRate\":20000000,\"shapedSubnets\":[\"192.168.7.9/24\"]", &c,
		       &e) == 0 && c.n_subnets == 1 && c.subnets_shaped && c.subnets[0].addr[3] == 0 &&
	      c.subnets[0].addr[2] == 7, "shapedSubnets: host bits masked off, as net.ParseCIDR does");
	gw_cni_conf_free(&c);
	CHECK(parse_bw("\"ingressRate\":20000000,\"unshapedSubnets\":[\"10.0.0.0/8\"],"
		       "\"shapedSubnets\":[\"10.1.0.0/16\"]", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "cannot both"),
	      "both given: code 7 (%s)", e.details);
	CHECK(parse_bw("\"ingressRate\":20000000,\"unshapedSubnets\":[\"10.0.0.0/8\"],"
		       "\"shapedSubnets\":[]", &c, &e) == 0 && c.n_subnets == 1,
	      "both keys, one of them empty: fine");
	gw_cni_conf_free(&c);
	const char *bad[] = { "\"hello\"", "\"10.0.0.0\"", "\"10.0.0.0/33\"", "\"fd00::/129\"",
			      "\"10.0.0.0/8x\"", "\"10.0.0.0/\"", "8", "null", "[\"10.0.0.0/8\"]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "\"ingressRate\":20000000,\"unshapedSubnets\":"
			 "[\"10.0.0.0/8\",%s]", bad[i]);
		CHECK(parse_bw(text, &c, &e) != 0 && e.code == GW_CNI_E_CONFIG &&
		      strstr(e.details, "bad subnet"), "a bad subnet, %s: code 7 (%s)", bad[i],
		      e.details);
	}
	CHECK(parse_bw("\"ingressRate\":20000000,\"unshapedSubnets\":\"10.0.0.0/8\"", &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "list"), "not a list: code 7");
	pos = 0;
	for (int i = 0; i <= GW_CTR_SUBNETS_MAX; i++)
		pos += (size_t)snprintf(big + pos, sizeof(big) - pos, "%s\"10.%d.0.0/16\"",
					i ? "," : "", i);
	snprintf(text, sizeof(text), "\"ingressRate\":20000000,\"shapedSubnets\":[%s]", big);
	CHECK(parse_bw(text, &c, &e) != 0 && e.code == GW_CNI_E_CONFIG &&
	      strstr(e.details, "more than 64"), "65 subnets: code 7 (%s)", e.details);
	/* the network's own, and runtimeConfig's over them */
	snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":"
		 "\"gatewayd-cni\",\"ingressRate\":20000000,\"unshapedSubnets\":"
		 "[\"10.0.0.0/8\",\"10.1.0.0/16\"]" PREV "}");
	CHECK(parse(text, GW_CNI_ADD, &c, &e) == 0 && c.n_subnets == 2 && !c.subnets_shaped,
	      "unshapedSubnets in the network config (%s)", e.details);
	gw_cni_conf_free(&c);
	snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":"
		 "\"gatewayd-cni\",\"ingressRate\":20000000,\"unshapedSubnets\":"
		 "[\"10.0.0.0/8\",\"10.1.0.0/16\"],\"runtimeConfig\":{\"bandwidth\":"
		 "{\"shapedSubnets\":[\"fd00::/8\"]}}" PREV "}");
	CHECK(parse(text, GW_CNI_ADD, &c, &e) == 0 && c.n_subnets == 1 && c.subnets_shaped &&
	      c.subnets[0].family == AF_INET6, "runtimeConfig's shapedSubnets replace the network's");
	gw_cni_conf_free(&c);
	snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":"
		 "\"gatewayd-cni\",\"ingressRate\":20000000,\"unshapedSubnets\":"
		 "[\"10.0.0.0/8\"],\"shapedSubnets\":[\"10.0.0.0/8\"]" PREV "}");
	CHECK(parse(text, GW_CNI_ADD, &c, &e) != 0 && e.code == GW_CNI_E_CONFIG,
	      "both in the network config: code 7");
}

static void test_defaults(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;
	const char *text =
		"{\"cniVersion\":\"0.4.0\",\"name\":\"net1\",\"type\":\"gatewayd-cni\","
		"\"ingressRate\":50000000,\"ingressBurst\":400000,\"egressRate\":30000000,"
		"\"queue\":{\"kind\":\"fifo\",\"limit\":200},"
		"\"runtimeConfig\":{\"portMappings\":[],\"bandwidth\":{\"egressRate\":10000000,"
		"\"egressBurst\":2147483647}}" PREV "}";

	CHECK(parse(text, GW_CNI_ADD, &c, &e) == 0, "defaults and runtimeConfig (%s %s)", e.msg,
	      e.details);
	CHECK(c.ingress.rate == 6250000 && c.ingress.burst == 50000,
	      "the network's default where the runtime gives none");
	CHECK(c.egress.rate == 1250000 && c.egress.burst == GW_UNSET,
	      "the runtime's limit over the default");
	CHECK(c.queue.kind == GW_KIND_FIFO &&
	      c.queue.opts.fifo.limit == 200, "queue fifo, limit 200, through config/'s parser");
	gw_cni_conf_free(&c);
}

static void test_queue(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;
	char text[1024];
	const char *bad[] = {
		"{\"kind\":\"tbf\"}",			/* not a leaf */
		"{\"kind\":\"fifo\",\"target\":\"5ms\"}",	/* another kind's key */
		"{\"kind\":\"fq_codel\",\"target\":\"5 ms\\\"; x = 1; \"}",
		"{\"kind\":\"fq_codel\",\"limit\":0}",	/* out of its range */
		"{\"kind\":\"fq_codel\",\"ecn\":\"yes\"}",
		"{\"kind\":\"fq_codel\",\"limit\":[1]}",
		"{\"Kind\":\"fq_codel\"}",
		"\"fq_codel\"",
	};

	snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"n\","
		 "\"queue\":{\"kind\":\"fq_codel\",\"target\":\"2ms\",\"interval\":\"50ms\","
		 "\"ecn\":false,\"limit\":2048}" PREV "}");
	CHECK(parse(text, GW_CNI_ADD, &c, &e) == 0 && c.queue.kind == GW_KIND_FQ_CODEL &&
	      c.queue.opts.fq_codel.target_us == 2000 &&
	      c.queue.opts.fq_codel.interval_us == 50000 && c.queue.opts.fq_codel.ecn == 0 &&
	      c.queue.opts.fq_codel.limit == 2048, "fq_codel's knobs from JSON (%s)", e.details);
	gw_cni_conf_free(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\"cniVersion\":\"1.0.0\",\"name\":\"n\","
			 "\"queue\":%s" PREV "}", bad[i]);
		CHECK(parse(text, GW_CNI_ADD, &c, &e) != 0 && e.code == GW_CNI_E_CONFIG,
		      "queue %s: code 7 (%s)", bad[i], e.details);
	}
}

static void test_codes(void)
{
	struct gw_cni_conf c;
	struct gw_cni_error e;
	static const char *const garbled[] = {
		"{\"cniVersion\":\"1.0.0\",\"name\":\"n\"",	/* cut short */
		"{\"cniVersion\":\"1.0.0\",\"name\":\"n\"} {}",	/* two documents */
		"{'cniVersion':'1.0.0'}",
		"",
		"[1, 2]",
		"{\"cniVersion\":\"1.0.0\",\"name\":\"n\",}",
	};
	char big[64];

	for (size_t i = 0; i < sizeof(garbled) / sizeof(garbled[0]); i++)
		CHECK(parse(garbled[i], GW_CNI_ADD, &c, &e) != 0 && e.code == GW_CNI_E_DECODE,
		      "malformed JSON %zu: code 6 (%s)", i, e.details);
	CHECK(gw_cni_conf_parse("{\"a\":\"\0\"}", 9, GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_DECODE, "a NUL byte: code 6");
	CHECK(gw_cni_conf_parse(big, GW_CNI_STDIN_MAX + 1, GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_IO, "over 1 MiB: refused before parsing");
	CHECK(parse("{\"cniVersion\":\"9.9.9\",\"name\":\"n\"" PREV "}", GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_VERSION && strstr(e.details, "9.9.9"),
	      "an unknown cniVersion: code 1");
	CHECK(parse("{\"cniVersion\":\"0.2.0\",\"name\":\"n\"}", GW_CNI_DEL, &c, &e) != 0 &&
	      e.code == GW_CNI_E_VERSION, "0.2.0 (no chaining): code 1");
	CHECK(parse("{\"name\":\"n\"" PREV "}", GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "cniVersion"),
	      "no cniVersion: code 7");
	CHECK(parse("{\"cniVersion\":1,\"name\":\"n\"}", GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_DECODE, "a cniVersion that is not a string: code 6");
	CHECK(parse("{\"cniVersion\":\"0.3.1\",\"name\":\"n\"" PREV "}", GW_CNI_CHECK, &c, &e) != 0 &&
	      e.code == GW_CNI_E_VERSION, "CHECK under 0.3.1: code 1");
	CHECK(parse("{\"cniVersion\":\"0.4.0\",\"name\":\"n\"" PREV "}", GW_CNI_CHECK, &c, &e) == 0,
	      "CHECK under 0.4.0");
	gw_cni_conf_free(&c);
	CHECK(parse("{\"cniVersion\":\"0.3.1\",\"name\":\"n\"" PREV "}", GW_CNI_ADD, &c, &e) == 0,
	      "ADD under 0.3.1");
	gw_cni_conf_free(&c);
	CHECK(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"ipMasq\":true" PREV "}",
		    GW_CNI_ADD, &c, &e) != 0 && e.code == GW_CNI_E_FIELD &&
	      strstr(e.details, "ipMasq") && strstr(e.details, "true"),
	      "an unknown field: code 2 with its key and value (%s)", e.details);
	CHECK(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}", GW_CNI_ADD, &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG && strstr(e.details, "prevResult"),
	      "ADD without prevResult: code 7");
	CHECK(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}", GW_CNI_DEL, &c, &e) == 0 &&
	      !c.prev, "DEL without prevResult");
	gw_cni_conf_free(&c);
	CHECK(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"a b\"}", GW_CNI_DEL, &c, &e) != 0 &&
	      e.code == GW_CNI_E_CONFIG, "a network name with a space: code 7");
	CHECK(parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":{\"interfaces\":"
		    "[{\"mac\":\"x\"}]}}", GW_CNI_ADD, &c, &e) != 0 && e.code == GW_CNI_E_DECODE,
	      "a prevResult interface without a name: code 6");
	CHECK(gw_cni_version_cmp("0.4.0", "1.0.0") < 0 && gw_cni_version_cmp("1.0.0", "0.3.0") > 0 &&
	      !gw_cni_version_cmp("0.3.1", "0.3.1"), "versions compare in the spec's order");
}

static void test_names(void)
{
	char a[IFNAMSIZ], b[IFNAMSIZ], c[IFNAMSIZ], m1[64], m2[64];

	gw_cni_ifb_name("net1", "abc", "eth0", a, sizeof(a));
	gw_cni_ifb_name("net1", "abc", "eth0", b, sizeof(b));
	gw_cni_ifb_name("net1", "abd", "eth0", c, sizeof(c));
	CHECK(strlen(a) == 15 && !strncmp(a, GW_CNI_IFB_PREFIX, 4) && !strcmp(a, b) && strcmp(a, c),
	      "ifb names: 15 characters, the same for the same key, another for another (%s %s)",
	      a, c);
	gw_cni_ifb_name("net1a", "bc", "eth0", b, sizeof(b));
	CHECK(strcmp(a, b) != 0, "ifb names: the parts of the key do not run together");
	gw_cni_ifb_mark("net1", "abc", "eth0", m1, sizeof(m1));
	gw_cni_ifb_mark("net1", "abc", "eth1", m2, sizeof(m2));
	CHECK(!strncmp(m1, "gatewayd:", 9) && strlen(m1) == 29 && strcmp(m1, m2),
	      "the ifb's mark: gatewayd's prefix, one per key (%s)", m1);
}

int main(void)
{
	test_env();
	test_kubelet();
	test_ranges();
	test_subnets();
	test_defaults();
	test_queue();
	test_codes();
	test_names();
	return tap_done();
}
