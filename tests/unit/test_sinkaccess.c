/* tests/unit/test_sinkaccess.c: who the sink and the reflector serve: the version 2 header and
 * its token, the token file, the allow-list, the per-address token buckets, the rate-limited
 * log; and a token-holding load engine against a sink that wants it, over loopback, both on a
 * fake clock (fake_clock.h). */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "load/access.h"
#include "config/config.h"
#include "load/loadgen.h"
#include "load/loadtest.h"
#include "load/sink.h"
#include "probe/ratelimit.h"
#include "sys/ratelog.h"
#include "tests/unit/fake_clock.h"
#include "tests/unit/tap.h"

static const char TOKEN[] = "s3cr3t-t0ken-for-the-sink";

static void test_header_v2(void)
{
	struct gw_load_hdr h = { .version = 2, .mode = GW_LOAD_MODE_UPLOAD, .duration_ms = 1000 };
	struct gw_load_hdr got;
	uint8_t b[GW_LOAD_HDR_MAX], want[GW_LOAD_HDR2_LEN] = { 0 };
	size_t n;
	bool waits = true;

	memcpy(h.token, TOKEN, strlen(TOKEN));
	n = gw_load_hdr_build(b, &h);
	CHECK_EQ_INT(n, 76, "v2 header: 76 bytes");
	memcpy(want, "GWLT\x02\x01\x00\x00\x00\x00\x03\xe8", 12);
	memcpy(want + 12, TOKEN, strlen(TOKEN));
	CHECK(memcmp(b, want, sizeof(want)) == 0,
	      "v2 header: the documented bytes (v1's twelve with version 2, the token, zeros)");
	CHECK(gw_load_hdr_parse(b, n, &got) == 0 && got.version == 2 && got.mode == 1 &&
	      got.duration_ms == 1000 && !memcmp(got.token, h.token, GW_LOAD_TOKEN_MAX),
	      "v2 header: round trip with its token");
	for (size_t i = 0; i < n; i++)
		waits &= gw_load_hdr_parse(b, i, &got) == -EAGAIN;
	CHECK(waits, "v2 header: every prefix of the 76 bytes waits for more");
	CHECK_EQ_INT(gw_load_hdr_len(2), 76, "v2: its length from its version byte");
	CHECK_EQ_INT(gw_load_hdr_len(1), 12, "v1: its length");
	b[5] = 9;
	CHECK(gw_load_hdr_parse(b, 12, &got) == -EINVAL,
	      "v2 header: a bad mode refused at its twelfth byte, before the token");
	b[5] = 1;
	b[12 + 3] = ' ';
	CHECK(gw_load_hdr_parse(b, n, &got) == -EINVAL, "v2 header: a space in the token refused");
	b[12 + 3] = TOKEN[3];
	b[75] = 'x';
	CHECK(gw_load_hdr_parse(b, n, &got) == -EINVAL,
	      "v2 header: a byte after the token's zero padding refused");
	memset(b + 12, 0, 64);
	CHECK(gw_load_hdr_parse(b, n, &got) == 0 && got.token[0] == 0,
	      "v2 header: an empty token field parses (and serves no sink that wants one)");
	h.version = 1;
	CHECK_EQ_INT(gw_load_hdr_build(b, &h), 12, "v1 header: still 12 bytes");
	CHECK(gw_load_hdr_parse(b, 12, &got) == 0 && got.token[0] == 0, "v1 header: no token");
}

/* A token file as it should be: its owner's alone (a secret file others may read is refused) */
static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	fchmod(fileno(f), 0600);
	return fclose(f);
}

static void test_token_file(void)
{
	char dir[] = "/tmp/gw-sinkaccess.XXXXXX", path[64], err[256];
	uint8_t tok[GW_LOAD_TOKEN_MAX], other[GW_LOAD_TOKEN_MAX] = { 0 };
	static const struct {
		const char *text;
		bool ok;
		const char *what;
	} cases[] = {
		{ "s3cr3t-t0ken-for-the-sink\n", true, "one line" },
		{ "s3cr3t-t0ken-for-the-sink", true, "without its newline" },
		{ "s3cr3t-t0ken-for-the-sink\r\n\n\n", true, "blank lines after it" },
		{ "short-token\n", false, "11 characters (too short)" },
		{ "s3cr3t token for the sink\n", false, "spaces in it" },
		{ "s3cr3t-t0ken-for-the-sink\nsecond\n", false, "a second line" },
		{ "", false, "an empty file" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false,
		  "65 characters (too long)" },
	};

	if (!CHECK(mkdtemp(dir) != NULL, "a scratch directory"))
		return;
	snprintf(path, sizeof(path), "%s/token", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		write_file(path, cases[i].text);
		err[0] = '\0';
		r = gw_load_token_read(path, tok, err, sizeof(err));
		CHECK(cases[i].ok ? r == 0 : r < 0 && strstr(err, path),
		      "token file, %s: %s (%s)", cases[i].what, cases[i].ok ? "taken" : "refused",
		      err);
	}
	write_file(path, "s3cr3t-t0ken-for-the-sink\n");
	gw_load_token_read(path, tok, err, sizeof(err));
	memcpy(other, TOKEN, strlen(TOKEN));
	CHECK(gw_load_token_equal(tok, other), "token: the file's equals the same text");
	CHECK(gw_load_token_valid(tok), "token: zero-padded, valid as a header field");
	other[strlen(TOKEN) - 1] ^= 1;
	CHECK(!gw_load_token_equal(tok, other), "token: one bit off in its last character differs");
	other[strlen(TOKEN) - 1] ^= 1;
	other[strlen(TOKEN)] = 'x';
	CHECK(!gw_load_token_equal(tok, other), "token: a longer one with it as a prefix differs");
	chmod(path, 0644);
	CHECK(gw_load_token_read(path, tok, err, sizeof(err)) == -EINVAL && strstr(err, path) &&
	      strstr(err, "every user read"), "token file readable by others: refused (%s)", err);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0 && gw_load_token_read(path, tok, err, sizeof(err)) ==
	      -EINVAL && strstr(err, "FIFO"), "token file a FIFO: refused at once (%s)", err);
	unlink(path);
	CHECK(gw_load_token_read(path, tok, err, sizeof(err)) == -ENOENT && strstr(err, path),
	      "token file missing: -ENOENT, named (%s)", err);
	rmdir(dir);
}

static struct sockaddr_storage sa(const char *ip)
{
	struct sockaddr_storage ss = { 0 };

	if (strchr(ip, ':')) {
		ss.ss_family = AF_INET6;
		inet_pton(AF_INET6, ip, &((struct sockaddr_in6 *)&ss)->sin6_addr);
	} else {
		ss.ss_family = AF_INET;
		inet_pton(AF_INET, ip, &((struct sockaddr_in *)&ss)->sin_addr);
	}
	return ss;
}

static bool allowed(const struct gw_prefix *list, size_t n, const char *ip)
{
	struct sockaddr_storage ss = sa(ip);
	struct gw_prefix p;

	return gw_sockaddr_prefix(&ss, &p) == 0 && gw_prefix_list_has(list, n, &p);
}

static void test_allow(void)
{
	struct gw_prefix l[GW_SINK_ALLOW_MAX];
	char err[256], many[512] = "";
	size_t n;
	struct sockaddr_storage ss;

	CHECK(gw_sink_allow_parse("10.0.0.0/8,192.0.2.7,fd00::/8", l, &n, err, sizeof(err)) == 0 &&
	      n == 3, "allow: three items parsed");
	CHECK(allowed(l, n, "10.200.1.1"), "allow: 10.200.1.1 in 10.0.0.0/8");
	CHECK(!allowed(l, n, "11.0.0.1"), "allow: 11.0.0.1 not");
	CHECK(allowed(l, n, "192.0.2.7") && !allowed(l, n, "192.0.2.8"), "allow: a host, exactly");
	CHECK(allowed(l, n, "fd12::1") && !allowed(l, n, "fe80::1"), "allow: IPv6 by prefix");
	CHECK(allowed(l, n, "::ffff:10.1.2.3"), "allow: IPv4-mapped IPv6 matched as IPv4");
	CHECK(gw_sink_allow_parse("10.77.2.0/23", l, &n, err, sizeof(err)) == 0 &&
	      allowed(l, n, "10.77.3.9") && !allowed(l, n, "10.77.4.1"),
	      "allow: a /23 (a prefix length not on a byte)");
	CHECK(gw_sink_allow_parse("10.0.0.1/8", l, &n, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "host bits"), "allow: host bits set refused (%s)", err);
	CHECK(gw_sink_allow_parse("10.0.0.0/8,", l, &n, err, sizeof(err)) == -EINVAL,
	      "allow: a trailing comma refused (%s)", err);
	CHECK(gw_sink_allow_parse("10.0.0.0/8,,fd00::/8", l, &n, err, sizeof(err)) == -EINVAL,
	      "allow: an empty item refused");
	CHECK(gw_sink_allow_parse("example.com", l, &n, err, sizeof(err)) == -EINVAL,
	      "allow: a name refused (%s)", err);
	CHECK(gw_sink_allow_parse("", l, &n, err, sizeof(err)) == -EINVAL, "allow: empty refused");
	for (int i = 0; i <= GW_SINK_ALLOW_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s10.%d.0.0/16",
			 i ? "," : "", i);
	CHECK(gw_sink_allow_parse(many, l, &n, err, sizeof(err)) == -EINVAL,
	      "allow: %d prefixes refused (%s)", GW_SINK_ALLOW_MAX + 1, err);
	ss = sa("127.0.0.1");
	CHECK(gw_sockaddr_is_loopback(&ss), "loopback: 127.0.0.1");
	ss = sa("127.9.9.9");
	CHECK(gw_sockaddr_is_loopback(&ss), "loopback: 127.9.9.9");
	ss = sa("::1");
	CHECK(gw_sockaddr_is_loopback(&ss), "loopback: ::1");
	ss = sa("0.0.0.0");
	CHECK(!gw_sockaddr_is_loopback(&ss), "loopback: not 0.0.0.0 (every address)");
	ss = sa("::");
	CHECK(!gw_sockaddr_is_loopback(&ss), "loopback: not ::");
	ss = sa("10.77.2.2");
	CHECK(!gw_sockaddr_is_loopback(&ss), "loopback: not 10.77.2.2");
}

static void key_of(const char *ip, uint8_t key[16])
{
	struct sockaddr_storage ss = sa(ip);

	gw_ratelimit_key(&ss, key);
}

static void test_ratelimit(void)
{
	struct gw_ratelimit *rl;
	uint8_t a[16], b[16], k[16];
	bool shared;
	int n = 0;

	if (!CHECK(gw_ratelimit_new(10, 10, 0, &rl) == 0, "ratelimit: a table at 10/s, burst 10"))
		return;
	key_of("192.0.2.1", a);
	key_of("2001:db8::1", b);
	for (int i = 0; i < 100; i++)
		n += gw_ratelimit_take(rl, a, 100.0, &shared);
	CHECK_EQ_INT(n, 10, "ratelimit: 100 at one instant: the burst of 10 answered");
	n = 0;
	for (int i = 0; i < 100; i++)
		n += gw_ratelimit_take(rl, a, 100.5, &shared);
	CHECK_EQ_INT(n, 5, "ratelimit: half a second later: 5 more");
	n = 0;
	for (int i = 0; i < 1000; i++)	/* 1000 a second for 1 s */
		n += gw_ratelimit_take(rl, a, 101.0 + i / 1000.0, &shared);
	/* the 5 it refilled since, then 10 a second */
	CHECK(n >= 14 && n <= 16, "ratelimit: then 1000/s for a second: %d answered (5 + 10/s)", n);
	n = 0;
	for (int i = 0; i < 10; i++)
		n += gw_ratelimit_take(rl, b, 101.0 + i / 10.0, &shared);
	CHECK(n == 10 && !shared, "ratelimit: another source beside it: all 10 of its 10/s");
	key_of("::ffff:192.0.2.1", k);
	CHECK(!memcmp(k, a, 16), "ratelimit: IPv4 and IPv4-mapped IPv6 are one source");
	gw_ratelimit_free(rl);

	/* a table of 8: eight busy sources fill it, a ninth shares one bucket */
	if (!CHECK(gw_ratelimit_new(10, 10, 8, &rl) == 0, "ratelimit: a table of 8 slots"))
		return;
	for (int s = 0; s < 8; s++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "198.51.100.%d", s + 1);
		key_of(ip, k);
		gw_ratelimit_take(rl, k, 5.0, &shared);
	}
	key_of("203.0.113.9", k);
	n = 0;
	for (int i = 0; i < 50; i++)
		n += gw_ratelimit_take(rl, k, 5.0, &shared);
	CHECK(shared && n == 10, "ratelimit: full table: a new source under the shared bucket "
	      "(%d of 50 answered)", n);
	key_of("203.0.113.10", k);
	CHECK(!gw_ratelimit_take(rl, k, 5.0, &shared) && shared,
	      "ratelimit: the shared bucket is one for all new sources (empty now)");
	/* a second later the busy ones are full again, so forgotten: a new one gets a slot */
	CHECK(gw_ratelimit_take(rl, k, 6.1, &shared) && !shared,
	      "ratelimit: once a slot's bucket is full again, a new source takes it");
	gw_ratelimit_free(rl);
	CHECK(gw_ratelimit_new(10, 10, 12, &rl) == -EINVAL, "ratelimit: slots not a power of 2");
	CHECK(gw_ratelimit_new(0, 10, 0, &rl) == -EINVAL, "ratelimit: rate 0 refused");
}

/* An IPv6 host has a /64 to itself: its 2^64 addresses are one source, as one IPv4 address. */
static void test_ratelimit_prefix(void)
{
	struct gw_ratelimit *rl;
	uint8_t k[16], other[16];
	bool shared;
	int one = 0, many = 0, beside = 0;

	if (!CHECK(gw_ratelimit_new(10, 10, 0, &rl) == 0, "ratelimit: a table at 10/s, burst 10"))
		return;
	for (int i = 0; i < 640; i++) {	/* one address, 640 probes at one instant */
		key_of("2001:db8:1:2::7", k);
		one += gw_ratelimit_take(rl, k, 10.0, &shared);
	}
	for (int i = 0; i < 640; i++) {	/* 64 addresses of another /64, 10 each */
		char ip[64];

		snprintf(ip, sizeof(ip), "2001:db8:1:3:%x::%x", i % 64, i + 1);
		key_of(ip, k);
		many += gw_ratelimit_take(rl, k, 10.0, &shared);
	}
	key_of("2001:db8:1:4::1", other);
	for (int i = 0; i < 20; i++)
		beside += gw_ratelimit_take(rl, other, 10.0, &shared);
	CHECK(one == 10 && many == 10,
	      "ratelimit: 64 addresses of one /64 answered no more than one address (%d vs %d)",
	      many, one);
	CHECK_EQ_INT(beside, 10, "ratelimit: the next /64 is a source of its own");
	key_of("2001:db8:1:3:ffff:ffff:ffff:ffff", k);
	key_of("2001:db8:1:3::", other);
	CHECK(!memcmp(k, other, 16), "ratelimit: the key of an IPv6 address is its /64");
	key_of("192.0.2.1", k);
	key_of("192.0.2.2", other);
	CHECK(memcmp(k, other, 16) != 0, "ratelimit: IPv4 stays per address");
	key_of("::ffff:192.0.2.2", k);
	CHECK(!memcmp(k, other, 16), "ratelimit: IPv4-mapped IPv6 is its IPv4 address, not ::/64");
	gw_ratelimit_free(rl);
}

/* The reflector's cap on all answers: a bucket of its own, after the source's. */
static void test_bucket(void)
{
	struct gw_bucket b;
	int n = 0;

	gw_bucket_init(&b, 100, 100);
	for (int i = 0; i < 1000; i++)
		n += gw_bucket_take(&b, 1.0);
	CHECK_EQ_INT(n, 100, "bucket: 1000 at once: its burst of 100");
	n = 0;
	for (int i = 0; i < 10000; i++)		/* 10,000 a second for 2 s */
		n += gw_bucket_take(&b, 1.0 + i / 5000.0);
	CHECK(n >= 199 && n <= 201, "bucket: then 10,000 a second for 2 s: %d (100 a second)", n);
	gw_bucket_init(&b, 5, 0.2);
	CHECK(gw_bucket_take(&b, 0) && !gw_bucket_take(&b, 0), "bucket: a burst under 1 is 1");
}

static void test_ratelog(void)
{
	struct gw_ratelog rl = { 0 };
	uint64_t held = 99;
	int lines = 0;

	for (int i = 0; i < 1000; i++)	/* 1000 events over 20 s */
		lines += gw_ratelog_ok(&rl, 50.0 + i * 0.02, 10.0, &held);
	CHECK_EQ_INT(lines, 2, "ratelog: 1000 events in 20 s, a line per 10 s");
	CHECK_EQ_INT(held, 499, "ratelog: the second line counts the 499 held back");
}

/* The engine's and the sink's clock: it moves only in drive()'s steps. */
static struct fake_clock fc;

/* Serve the sink (and run the engine, if any), then move the clock 10 ms, until secs have
 * passed on it or the engine has ended; a real poll before each turn (2 ms at most) lets
 * loopback move what is ready. */
static void drive(struct gw_sink *s, struct gw_loadgen *g, double secs)
{
	double end = fake_clock_now(&fc) + secs;

	for (;;) {
		struct pollfd p[2] = { { .fd = gw_sink_fd(s), .events = POLLIN },
				       { .fd = g ? gw_loadgen_fd(g) : -1, .events = POLLIN } };
		double left = end - fake_clock_now(&fc);

		poll(p, 2, 2);
		gw_sink_run(s);
		if ((g && gw_loadgen_run(g) != 0) || left < 1e-9)
			return;
		fake_clock_advance(&fc, left < 0.01 ? left : 0.01);
	}
}

/* An upload and a download of 1 s with (or without) the token; accepted flows, and the
 * upload's bytes as the sink's kernel has them (its header, 76 bytes, not counted). */
static void run_engine(struct gw_sink *s, int port, bool with_token, const char *name)
{
	struct gw_loadgen_opts o = { .phase = GW_PHASE_BOTH, .flows = 2, .duration_s = 1.0,
				     .ramp_s = 0.2, .fwmark = -1, .clock = &fc.clock };
	struct sockaddr_in *a = (struct sockaddr_in *)&o.sink;
	struct gw_loadgen *g;
	char err[256] = "";
	size_t accepted = 0;
	double bps, fair;

	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	o.sinklen = sizeof(*a);
	if (with_token)
		memcpy(o.token, TOKEN, strlen(TOKEN));
	if (!CHECK(gw_loadgen_new(&o, &g, err, sizeof(err)) == 0, "%s: engine starts (%s)", name,
		   err))
		return;
	drive(s, g, 4);
	CHECK(gw_loadgen_done(g), "%s: the engine ran its 1 s on its clock", name);
	for (size_t i = 0; i < gw_loadgen_n_flows(g); i++) {
		accepted += gw_loadgen_flow(g, i)->accepted;
	}
	if (with_token) {
		CHECK_EQ_INT(accepted, 4, "with the token: all 4 flows served");
		CHECK_EQ_STR(gw_loadgen_error(g), "", "with the token: no error");
		CHECK(gw_loadgen_goodput(g, GW_FLOW_UP, &bps, &fair) == 0 && bps > 1e6 &&
		      gw_loadgen_goodput(g, GW_FLOW_DOWN, &bps, &fair) == 0 && bps > 1e6,
		      "with the token: goodput both ways");
	} else {
		CHECK_EQ_INT(accepted, 0, "without the token: no flow served");
		CHECK(strstr(gw_loadgen_error(g), "refused this client") != NULL,
		      "without the token: the engine says the sink refused it (%s)",
		      gw_loadgen_error(g));
	}
	gw_loadgen_free(g);
	drive(s, NULL, 0.3);
}

static void test_engine(void)
{
	struct sockaddr_storage ss = sa("127.0.0.1");
	socklen_t len = sizeof(struct sockaddr_in);
	struct gw_sink_access acc = { .has_token = true };
	struct gw_sink_stats st;
	struct gw_sink *s;
	char err[256] = "";

	if (!CHECK(gw_sink_new_clock(&fc.clock, &ss, &len, 1, &s, err, sizeof(err)) == 0,
		   "sink on 127.0.0.1 (%s)", err))
		return;
	memcpy(acc.token, TOKEN, strlen(TOKEN));
	gw_sink_set_access(s, &acc);
	run_engine(s, gw_sink_port(s, 0), true, "with the token");
	run_engine(s, gw_sink_port(s, 0), false, "without the token");
	gw_sink_get_stats(s, &st);
	CHECK(st.refused_auth >= 4 && st.uploads == 2 && st.downloads == 2,
	      "the sink counted 4 served (2 up, 2 down) and %llu refused for their token",
	      (unsigned long long)st.refused_auth);
	gw_sink_free(s);
}

/* The probe block's sink_token_file: an absolute path, for a gatewayd sink, read per test. */
static void test_config(void)
{
	static const char *links = "links = ( { name = \"wan\"; interface = \"lo\"; egress = { "
				   "shaper = \"tbf\"; rate = \"10mbit\"; }; } );\n";
	static const struct {
		const char *probe, *want;
	} bad[] = {
		{ "sink = \"127.0.0.1:7070\"; sink_token_file = \"token\";", "t.conf:3: " },
		{ "sink = \"iperf3:127.0.0.1:5201\"; sink_token_file = \"/t\";", "gatewayd sink" },
		{ "sink_token_file = \"/t\";", "needs 'sink'" },
	};
	char text[1024], err[512];
	struct gw_config *cfg = NULL;
	struct gw_loadtest *t = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		snprintf(text, sizeof(text), "%sprobe = { targets = [ \"127.0.0.1\" ];\n%s };\n",
			 links, bad[i].probe);
		cfg = NULL;
		CHECK(gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) != 0 &&
		      strstr(err, bad[i].want), "config: %s refused (%s)", bad[i].probe, err);
		gw_config_free(cfg);
	}
	snprintf(text, sizeof(text), "links = ( { name = \"wan\"; interface = \"lo\"; egress = { "
		 "shaper = \"tbf\"; rate = \"10mbit\"; }; probe = { targets = [ \"127.0.0.1\" ]; "
		 "sink_token_file = \"/t\"; }; } );\n");
	cfg = NULL;
	CHECK(gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) != 0,
	      "config: sink_token_file in a link's own probe block refused (%s)", err);
	gw_config_free(cfg);
	snprintf(text, sizeof(text), "%sprobe = { targets = [ \"127.0.0.1\" ]; sink = "
		 "\"127.0.0.1:7070\"; sink_token_file = \"/nonexistent/gw-token\"; };\n", links);
	cfg = NULL;
	if (!CHECK(gw_config_load_string("t.conf", text, &cfg, err, sizeof(err)) == 0 &&
		   !strcmp(cfg->probe.sink_token_file, "/nonexistent/gw-token"),
		   "config: sink_token_file taken (%s)", err))
		return;
	err[0] = '\0';
	CHECK(gw_loadtest_new(cfg, &t, err, sizeof(err)) == -ENOENT && !t &&
	      strstr(err, "/nonexistent/gw-token"),
	      "a load test whose token file is missing does not start, naming it (%s)", err);
	gw_loadtest_free(t);
	gw_config_free(cfg);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	fake_clock_init(&fc, 1000);
	test_header_v2();
	test_token_file();
	test_allow();
	test_ratelimit();
	test_ratelimit_prefix();
	test_bucket();
	test_ratelog();
	test_config();
	test_engine();
	CHECK_EQ_INT(fake_clock_open(&fc), 0, "every timer on the clock closed again");
	return tap_done();
}
