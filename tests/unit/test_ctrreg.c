/* tests/unit/test_ctrreg.c: the registration message gatewayd-cni sends the daemon (and keeps
 * in its state file): encode and decode agree, every field is checked, every refusal says why,
 * and the decoder never reads past the length it is given. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "tree/ctr_registration.h"
#include "qdisc/qdisc.h"
#include "tap.h"

static void sample_reg(struct gw_ctr_reg *m)
{
	memset(m, 0, sizeof(*m));
	m->op = GW_CTR_REG_REGISTER;
	snprintf(m->id, sizeof(m->id), "0123abcd-e_f.9");
	snprintf(m->netns, sizeof(m->netns), "/run/netns/cni-1234");
	snprintf(m->network, sizeof(m->network), "podman-net");
	snprintf(m->ifname, sizeof(m->ifname), "eth0");
	snprintf(m->host_if, sizeof(m->host_if), "veth1234abcd");
	m->host_ifindex = 42;
	m->host_netns = 4026531840ULL;
	gw_ctr_reg_ifb_name(m->network, m->id, m->ifname, m->ifb, sizeof(m->ifb));
	m->ingress.rate = 2500000;
	m->ingress.burst = 81920;
	m->egress.rate = 1250000;
	m->egress.burst = GW_UNSET;
	snprintf(m->queue, sizeof(m->queue), "child = { kind = \"fifo\"; limit = 100; };");
}

static int dec(const char *text, struct gw_ctr_reg *out, char *err, size_t errlen)
{
	err[0] = '\0';
	return gw_ctr_reg_decode(text, strlen(text), out, err, errlen);
}

static void test_round_trip(void)
{
	struct gw_ctr_reg m, back;
	char text[GW_CTR_REG_MAX + 1], err[300];
	int n, r;

	sample_reg(&m);
	n = gw_ctr_reg_encode(&m, text, sizeof(text));
	CHECK(n > 0 && (size_t)n == strlen(text), "register encodes (%d bytes)", n);
	CHECK(!strncmp(text, "gatewayd-control 1\nop register\n", 31), "its first lines");
	CHECK_EQ_INT(gw_ctr_reg_complete(text, (size_t)n), n, "complete: the whole message");
	CHECK_EQ_INT(gw_ctr_reg_complete(text, (size_t)n - 1), 0, "complete: not without its end");
	r = dec(text, &back, err, sizeof(err));
	CHECK_EQ_INT(r, 0, err);
	CHECK(back.op == m.op && !strcmp(back.id, m.id) && !strcmp(back.netns, m.netns) &&
	      !strcmp(back.network, m.network) && !strcmp(back.ifname, m.ifname) &&
	      !strcmp(back.host_if, m.host_if) && back.host_ifindex == 42 &&
	      back.host_netns == m.host_netns && !strcmp(back.ifb, m.ifb) &&
	      back.ingress.rate == m.ingress.rate && back.ingress.burst == 81920 &&
	      back.egress.rate == m.egress.rate && back.egress.burst == GW_UNSET &&
	      !strcmp(back.queue, m.queue), "register: every field back as it was");
	CHECK(gw_ctr_reg_same(&m, &back), "the same container");

	m.op = GW_CTR_REG_UNREGISTER;
	m.netns[0] = '\0';
	n = gw_ctr_reg_encode(&m, text, sizeof(text));
	r = dec(text, &back, err, sizeof(err));
	CHECK(n > 0 && r == 0 && back.op == GW_CTR_REG_UNREGISTER && !strcmp(back.id, m.id) &&
	      !back.host_if[0] && !back.netns[0], "unregister (no netns): round trip (%s)", err);
	CHECK(!strstr(text, "host_if") && !strstr(text, "rate"), "unregister carries only names");
	CHECK_EQ_INT(gw_ctr_reg_encode(&m, text, 10), -ENOSPC, "encode into too small: -ENOSPC");
}

static void test_names(void)
{
	char a[IFNAMSIZ], b[IFNAMSIZ], ma[64], mb[64];

	gw_ctr_reg_ifb_name("net", "id", "eth0", a, sizeof(a));
	gw_ctr_reg_ifb_name("net", "id", "eth0", b, sizeof(b));
	CHECK(!strcmp(a, b) && strlen(a) == 15 && !strncmp(a, "gwn-", 4),
	      "ifb name: gwn- and 11 hex digits, the same each time (%s)", a);
	gw_ctr_reg_ifb_name("ne", "tid", "eth0", b, sizeof(b));
	CHECK(strcmp(a, b), "(net, id) and (ne, tid) get different ifbs");
	gw_ctr_reg_ifb_mark("net", "id", "eth0", ma, sizeof(ma));
	gw_ctr_reg_ifb_mark("net", "id", "eth1", mb, sizeof(mb));
	CHECK(!strncmp(ma, "gatewayd:cni:", 13) && strlen(ma) == 29 && strcmp(ma, mb),
	      "mark: gatewayd:cni: and 16 hex digits, one per interface (%s)", ma);
	CHECK(gw_ctr_reg_valid_id("a1-b_c.d", 255) && !gw_ctr_reg_valid_id("-a", 255) &&
	      !gw_ctr_reg_valid_id("a/b", 255) && !gw_ctr_reg_valid_id("", 255) &&
	      !gw_ctr_reg_valid_id("abc", 2), "ids: alphanumeric first, then [A-Za-z0-9_.-]");
	CHECK(gw_ctr_reg_valid_ifname("eth0") && !gw_ctr_reg_valid_ifname("a b") &&
	      !gw_ctr_reg_valid_ifname("..") && !gw_ctr_reg_valid_ifname("0123456789abcdef") &&
	      !gw_ctr_reg_valid_ifname("a:b"), "interface names as the kernel takes them");
}

/* The sample registration as text with one line replaced (key "" appends line instead). */
static void variant(char *out, size_t len, const char *key, const char *line)
{
	struct gw_ctr_reg m;
	char text[GW_CTR_REG_MAX + 1], *p, *nl;
	size_t klen = strlen(key);

	sample_reg(&m);
	gw_ctr_reg_encode(&m, text, sizeof(text));
	p = text;
	out[0] = '\0';
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (nl == p) {		/* the blank line: append here */
			if (!klen && line)
				snprintf(out + strlen(out), len - strlen(out), "%s\n", line);
			snprintf(out + strlen(out), len - strlen(out), "\n");
			break;
		}
		if (klen && !strncmp(p, key, klen) && p[klen] == ' ') {
			if (line)
				snprintf(out + strlen(out), len - strlen(out), "%s\n", line);
		} else {
			snprintf(out + strlen(out), len - strlen(out), "%.*s\n", (int)(nl - p), p);
		}
		p = nl + 1;
	}
}

static void refused(const char *name, const char *key, const char *line, const char *want)
{
	char text[GW_CTR_REG_MAX + 64], err[300];
	struct gw_ctr_reg m;
	int r;

	variant(text, sizeof(text), key, line);
	r = dec(text, &m, err, sizeof(err));
	CHECK(r < 0 && strstr(err, want), "%s: refused (%d, \"%s\")", name, r, err);
}

static void test_refusals(void)
{
	char err[300], big[GW_CTR_REG_MAX + 64];
	struct gw_ctr_reg m;
	int r;

	refused("unknown key", "", "colour blue", "unknown key \"colour\"");
	refused("a key twice", "", "id again", "id given twice");
	refused("no op", "op", NULL, "op is missing");
	refused("bad op", "op", "op restart", "neither register nor unregister");
	refused("no id", "id", NULL, "id is missing");
	refused("id with a slash", "id", "id ../etc", "not a container id");
	refused("no network", "network", NULL, "network is missing");
	refused("no netns for register", "netns", NULL, "netns is missing");
	refused("relative netns", "netns", "netns run/x", "not an absolute path");
	refused("interface name too long", "host_if", "host_if abcdefghijklmnopq",
		"not an interface name");
	refused("ifindex 0", "host_ifindex", "host_ifindex 0", "not an interface index");
	refused("ifindex not a number", "host_ifindex", "host_ifindex 4x", "not an interface index");
	refused("host_netns missing", "host_netns", NULL, "host_netns is missing");
	refused("rate too high", "ingress_rate", "ingress_rate 99999999999999999",
		"ingress_rate 99999999999999999 bytes/s: out of range");
	refused("rate negative", "egress_rate", "egress_rate -1",
		"egress_rate: not a whole number");
	refused("burst too small", "ingress_burst", "ingress_burst 100",
		"ingress_burst 100 bytes: out of range");
	/* the plugin's own bounds (gw_ctr_limit_check), which the daemon took beyond before */
	refused("a registration of 1 B/s", "ingress_rate", "ingress_rate 1",
		"ingress_rate 1 bytes/s: out of range: 0 for none, or 1000 to 12500000000000 "
		"bytes/s (8 kbit/s to 100 Tbit/s), as gatewayd-cni takes them");
	refused("999 B/s", "egress_rate", "egress_rate 999", "egress_rate 999 bytes/s: out of");
	refused("a rate over 100 Tbit/s", "ingress_rate", "ingress_rate 12500000000001",
		"out of range");
	refused("a burst of 4 GiB", "ingress_burst", "ingress_burst 4294967295",
		"ingress_burst 4294967295 bytes: out of range: \"-\" or 1500 to 268435455 bytes");
	refused("a burst just above the plugin's largest", "ingress_burst",
		"ingress_burst 268435456", "out of range");
	refused("a burst htb cannot hold at the rate (2.5 MB/s for 1000 s)", "ingress_burst",
		"ingress_burst 2500000000", "out of range");
	refused("someone else's ifb", "ifb", "ifb eth1", "ifb: egress is limited, so it must be");
	refused("no ifb for a limited egress", "ifb", NULL, "ifb: egress is limited");
	refused("a queue that is not one", "queue", "queue child = { kind = \"nope\"; };",
		"queue:");
	refused("a line without a value", "", "novalue", "not \"key value\"");
	refused("a control byte", "", "id\tx", "not printable ASCII");

	r = dec("gatewayd-control 1\nop register\nid a\nnetwork n\nifname eth0\nnetns /x\n"
		"host_if v\nhost_ifindex 3\nhost_netns 1\ningress_rate 0\ningress_burst -\n"
		"egress_rate 0\negress_burst -\n\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "nothing is limited"), "no rate at all: refused (%s)",
	      err);
	r = dec("gatewayd-control 1\nop register\nid a\nnetwork n\nifname eth0\nnetns /x\n"
		"host_if v\nhost_ifindex 3\nhost_netns 1\ningress_rate 1000\ningress_burst -\n"
		"egress_rate 0\negress_burst 9000\n\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "a burst without its rate"), "burst without rate: "
	      "refused (%s)", err);
	r = dec("gatewayd-control 1\nop register\nid a\nnetwork n\nifname eth0\nnetns /x\n"
		"host_if v\nhost_ifindex 3\nhost_netns 1\ningress_rate 1000\ningress_burst -\n"
		"egress_rate 0\negress_burst -\n\n", &m, err, sizeof(err));
	CHECK(r == 0 && m.ingress.rate == 1000, "the lowest rate, 1000 bytes/s: taken (%s)", err);
	r = dec("gatewayd-control 1\nop register\nid a\nnetwork n\nifname eth0\nnetns /x\n"
		"host_if v\nhost_ifindex 3\nhost_netns 1\ningress_rate 1000\ningress_burst 300000\n"
		"egress_rate 0\negress_burst -\n\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "ingress_burst 300000 bytes lasts more than 274 s at "
				     "ingress_rate 1000 bytes/s"),
	      "300 s of burst at 1000 bytes/s: refused (%s)", err);
	r = dec("gatewayd-control 1\nop register\nid a\nnetwork n\nifname eth0\nnetns /x\n"
		"host_if v\nhost_ifindex 3\nhost_netns 1\ningress_rate 12500000000000\n"
		"ingress_burst 268435455\negress_rate 0\negress_burst -\n\n", &m, err, sizeof(err));
	CHECK(r == 0 && m.ingress.burst == 268435455,
	      "the highest rate and the largest burst: taken (%s)", err);
	for (int fault = GW_CTR_LIMIT_OK; fault <= GW_CTR_LIMIT_BURST_LONG; fault++) {
		static const struct { uint64_t rate; int64_t burst; } v[] = {
			{ 1000, GW_UNSET }, { 999, GW_UNSET }, { 0, 1500 }, { 1000, 1499 },
			{ 12500000000000ULL, 268435456 }, { 1000, 274878 },
		};

		CHECK(gw_ctr_limit_check(v[fault].rate, v[fault].burst) ==
		      (enum gw_ctr_limit_fault)fault, "gw_ctr_limit_check: fault %d", fault);
	}
	CHECK_EQ_INT(gw_ctr_limit_check(1000, 274877), GW_CTR_LIMIT_OK,
		     "274,877 bytes at 1000 bytes/s: the longest bucket htb keeps");
	r = dec("gatewayd-control 1\nop unregister\nid a\nnetwork n\nifname eth0\nhost_if v\n\n",
		&m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "host_if: not a key of unregister"),
	      "unregister with a register key: refused (%s)", err);
	r = dec("gatewayd-control 3\nop unregister\nid a\nnetwork n\nifname eth0\n\n", &m, err,
		sizeof(err));
	CHECK(r == -EPROTONOSUPPORT && strstr(err, "version 3 is not spoken here"),
	      "version 3: -EPROTONOSUPPORT (%s)", err);
	r = dec("gatewayd-control 0\nop unregister\nid a\nnetwork n\nifname eth0\n\n", &m, err,
		sizeof(err));
	CHECK(r == -EPROTONOSUPPORT, "version 0: -EPROTONOSUPPORT (%s)", err);
	r = dec("hello\n\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "not a gatewayd control message"), "not one: refused");
	r = dec("\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL, "an empty message: refused (%s)", err);
	CHECK_EQ_INT(gw_ctr_reg_complete("\n", 1), 1, "an empty message is complete");
	r = dec("gatewayd-control 1\nop unregister\nid a\nnetwork n\nifname eth0\n\nmore", &m,
		err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "after the blank line"), "bytes after the end: refused");
	r = dec("gatewayd-control 1\nop unregister\nid a\n", &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "incomplete"), "no blank line: refused (%s)", err);
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	r = gw_ctr_reg_decode(big, sizeof(big) - 1, &m, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "longer than"), "over 8 KiB: refused (%s)", err);
}

/* Every prefix of a message, as separate heap blocks of exactly that size: ASan sees a read
 * past the length. None decodes but the whole. */
static void test_prefixes(void)
{
	struct gw_ctr_reg m, out;
	char text[GW_CTR_REG_MAX + 1], err[300];
	int n, bad = 0;

	sample_reg(&m);
	n = gw_ctr_reg_encode(&m, text, sizeof(text));
	for (int len = 0; len < n; len++) {
		char *p = malloc(len ? (size_t)len : 1);

		memcpy(p, text, (size_t)len);
		if (gw_ctr_reg_decode(p, (size_t)len, &out, err, sizeof(err)) == 0)
			bad++;
		free(p);
	}
	CHECK_EQ_INT(bad, 0, "no prefix of a registration decodes");
}

/* unshapedSubnets and shapedSubnets: version 2 only when there are some; the tree they make. */
static void test_subnets(void)
{
	struct gw_ctr_reg m, back;
	struct gw_ctr_synth s;
	char text[GW_CTR_REG_MAX + 1], err[300], *line;
	int n, r;

	sample_reg(&m);
	gw_parse_prefix("10.1.2.0/24", &m.subnets[0]);
	gw_parse_prefix("fd00:db8:abcd:1234:e000::/68", &m.subnets[1]);
	m.n_subnets = 2;
	n = gw_ctr_reg_encode(&m, text, sizeof(text));
	CHECK(n > 0 && !strncmp(text, "gatewayd-control 2\n", 19) &&
	      strstr(text, "\nunshaped_subnets 10.1.2.0/24 fd00:db8:abcd:1234:e000::/68\n"),
	      "with subnets: version 2, one line of them");
	r = dec(text, &back, err, sizeof(err));
	CHECK(r == 0 && back.n_subnets == 2 && !back.subnets_shaped &&
	      !memcmp(back.subnets, m.subnets, 2 * sizeof(m.subnets[0])),
	      "unshaped_subnets: back as they were (%s)", err);
	m.subnets_shaped = true;
	gw_ctr_reg_encode(&m, text, sizeof(text));
	r = dec(text, &back, err, sizeof(err));
	CHECK(r == 0 && back.subnets_shaped && back.n_subnets == 2, "shaped_subnets: round trip");
	/* version 1 does not know the key: what an older plugin's state file holds stays valid,
	 * and a version 1 message cannot carry subnets */
	memcpy(text, "gatewayd-control 1", 18);
	r = dec(text, &back, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "unknown key \"shaped_subnets\" in version 1"),
	      "subnets in version 1: refused (%s)", err);
	sample_reg(&m);
	gw_ctr_reg_encode(&m, text, sizeof(text));
	CHECK(!strncmp(text, "gatewayd-control 1\n", 19), "without subnets: still version 1");
	memcpy(text, "gatewayd-control 2", 18);
	CHECK(dec(text, &back, err, sizeof(err)) == 0 && !back.n_subnets,
	      "version 2 without subnets decodes");
	/* a bad one, both, none */
	line = strstr(text, "queue ");
	snprintf(line, sizeof(text) - (size_t)(line - text), "unshaped_subnets 10.1.2.3/24\n\n");
	CHECK(dec(text, &back, err, sizeof(err)) == -EINVAL && strstr(err, "10.1.2.3/24"),
	      "host bits set: refused (%s)", err);
	snprintf(line, sizeof(text) - (size_t)(line - text), "unshaped_subnets 10.0.0.0/8\n"
		 "shaped_subnets 10.1.0.0/16\n\n");
	CHECK(dec(text, &back, err, sizeof(err)) == -EINVAL && strstr(err, "one or the other"),
	      "both: refused (%s)", err);
	snprintf(line, sizeof(text) - (size_t)(line - text), "shaped_subnets \n\n");
	CHECK(dec(text, &back, err, sizeof(err)) == -EINVAL && strstr(err, "no subnet"),
	      "an empty list: refused (%s)", err);
	{
		size_t pos = (size_t)(line - text);

		pos += (size_t)snprintf(text + pos, sizeof(text) - pos, "shaped_subnets");
		for (int i = 0; i <= GW_CTR_SUBNETS_MAX; i++)
			pos += (size_t)snprintf(text + pos, sizeof(text) - pos, " 10.%d.0.0/16", i);
		snprintf(text + pos, sizeof(text) - pos, "\n\n");
		CHECK(dec(text, &back, err, sizeof(err)) == -EINVAL && strstr(err, "more than 64"),
		      "65 subnets: refused (%s)", err);
	}

	/* the tree: two classes a direction, the listed one matched on the remote address */
	sample_reg(&m);
	gw_parse_prefix("10.1.2.0/24", &m.subnets[0]);
	m.n_subnets = 1;
	CHECK(gw_ctr_reg_synth(&m, &s, err, sizeof(err)) == 0, "synth with subnets");
	CHECK(s.cfg.classify_u32 && s.link.dir[0].n_classes == 2 && s.link.dir[1].n_classes == 2 &&
	      s.link.dir[0].rate == GW_CTR_UNSHAPED_RATE, "two classes a direction, top at 100 Gbit/s");
	CHECK(s.cls[0][0].is_default && !s.cls[0][1].is_default && s.cls[0][0].rate == 2500000 &&
	      s.cls[0][0].burst == 81920 && s.cls[0][1].rate == GW_CTR_UNSHAPED_RATE &&
	      s.cls[0][1].n_match == 1 && s.cls[0][1].match[0].n_src == 1 &&
	      !s.cls[0][1].match[0].n_dst && s.cls[0][1].match[0].proto == -1,
	      "unshaped: the limited class is the default; into the container the source is matched");
	CHECK(s.cls[1][1].match[0].n_dst == 1 && !s.cls[1][1].match[0].n_src,
	      "out of the container (the ifb) the destination is matched");
	gw_ctr_synth_free(&s);
	m.subnets_shaped = true;
	m.n_subnets = GW_CTR_SUBNETS_MAX;
	for (int i = 0; i < GW_CTR_SUBNETS_MAX; i++)
		gw_parse_prefix(i % 2 ? "fd00::/8" : "10.0.0.0/8", &m.subnets[i]);
	CHECK(gw_ctr_reg_synth(&m, &s, err, sizeof(err)) == 0 && !s.cls[0][0].is_default &&
	      s.cls[0][1].is_default && s.cls[0][0].n_match == 4 && !s.cls[0][1].n_match &&
	      s.cls[0][0].match[3].n_src == 16, "shaped: the other way round, 64 in 4 groups");
	gw_ctr_synth_free(&s);
	sample_reg(&m);
	CHECK(gw_ctr_reg_synth(&m, &s, err, sizeof(err)) == 0 && !s.match && !s.cfg.classify_u32 &&
	      s.link.dir[0].n_classes == 1, "no subnets: one class a direction, nothing allocated");
}

int main(void)
{
	test_round_trip();
	test_subnets();
	test_names();
	test_refusals();
	test_prefixes();
	return tap_done();
}
