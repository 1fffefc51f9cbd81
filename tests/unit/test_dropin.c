/* tests/unit/test_dropin.c: config -> the unit's drop-in (--systemd-dropin), line by line. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/systemd_dropin.h"
#include "tests/unit/tap.h"

#define LINK "links = ( { name = \"wan\"; interface = \"eth0\";\n" \
	     "  egress = { shaper = \"htb\"; rate = \"100mbit\"; }; } );\n"

static char out[16384];

/* The drop-in of TEXT in out; false (and a failed check) when it does not parse or render. */
static bool render(const char *name, const char *text)
{
	struct gw_config *cfg;
	char err[512] = "";
	int r;

	out[0] = '\0';
	if (gw_config_load_string(name, text, &cfg, err, sizeof(err))) {
		CHECK(0, "%s: the config parses (%s)", name, err);
		return false;
	}
	r = gw_systemd_dropin_render(cfg, out, sizeof(out));
	gw_config_free(cfg);
	CHECK(r == 0, "%s: rendered (ret %d)", name, r);
	return r == 0;
}

/* How many lines of out are exactly L. */
static int count(const char *l)
{
	size_t n = strlen(l);
	int c = 0;

	for (const char *p = out; *p;) {
		const char *e = strchr(p, '\n');

		if (!e)
			break;
		if ((size_t)(e - p) == n && !strncmp(p, l, n))
			c++;
		p = e + 1;
	}
	return c;
}

static void once(const char *name, const char *l)
{
	CHECK(count(l) == 1, "%s: \"%s\" once (%d times)", name, l, count(l));
}

static void never(const char *name, const char *l)
{
	CHECK(count(l) == 0, "%s: no \"%s\"", name, l);
}

/* Every line is a comment, the section or one of the three settings; the section comes
 * before the first setting, and every line ends with a newline. */
static void shape(const char *name)
{
	bool section = false, ok = true;
	size_t len = strlen(out);

	for (const char *p = out; *p;) {
		const char *e = strchr(p, '\n');

		if (!e) {
			ok = false;
			break;
		}
		if (!strncmp(p, "[Service]\n", 10))
			section = true;
		else if (*p != '#' && !(section && (!strncmp(p, "IPAddressAllow=", 15) ||
						   !strncmp(p, "SocketBindAllow=", 16) ||
						   !strncmp(p, "SocketBindDeny=", 15))))
			ok = false;
		p = e + 1;
	}
	CHECK(ok && section && len && out[len - 1] == '\n',
	      "%s: comments, [Service] and IPAddressAllow=/SocketBindAllow=/SocketBindDeny= only",
	      name);
}

/* The page on loopback only, no probes: the unit's localhost is all it needs. */
static void loopback_only(void)
{
	const char *n = "loopback";

	if (!render(n, "listen = [ \"127.0.0.1:9180\", \"[::1]:9181\" ];\n" LINK))
		return;
	shape(n);
	CHECK(!strstr(out, "IPAddressAllow="), "%s: no IPAddressAllow= at all", n);
	once(n, "SocketBindAllow=ipv4:tcp:9180");
	once(n, "SocketBindAllow=ipv6:tcp:9181");
	CHECK(!strstr(out, "\nSocketBindDeny="), "%s: the unit's SocketBindDeny=any stands", n);
	CHECK(strstr(out, "-c loopback:") != NULL, "%s: the first line names the config", n);
}

/* Each listen address admits the range its clients are in; a port shared by two addresses
 * is allowed once. */
static void listen_ranges(void)
{
	const char *n = "ranges";

	if (!render(n, "listen = [ \"127.0.0.1:9180\", \"192.168.10.1:9180\", \"10.1.2.3:8080\",\n"
		       "  \"172.31.255.1:8081\", \"100.64.0.1:8082\", \"[fd00::1]:9181\",\n"
		       "  \"[::]:9182\", \"0.0.0.0:9183\" ];\n" LINK))
		return;
	shape(n);
	once(n, "IPAddressAllow=192.168.0.0/16");
	once(n, "IPAddressAllow=10.0.0.0/8");
	once(n, "IPAddressAllow=172.16.0.0/12");
	once(n, "IPAddressAllow=100.64.0.0/10");
	once(n, "IPAddressAllow=fc00::/7");
	once(n, "IPAddressAllow=::/0");
	once(n, "IPAddressAllow=0.0.0.0/0");
	once(n, "SocketBindAllow=ipv4:tcp:9180");
	once(n, "SocketBindAllow=ipv4:tcp:8080");
	once(n, "SocketBindAllow=ipv4:tcp:8081");
	once(n, "SocketBindAllow=ipv4:tcp:8082");
	once(n, "SocketBindAllow=ipv6:tcp:9181");
	once(n, "SocketBindAllow=ipv6:tcp:9182");
	once(n, "SocketBindAllow=ipv4:tcp:9183");
	never(n, "SocketBindAllow=ipv6:tcp:9180");
}

/* Just outside the private ranges: a public address admits everyone of its family. */
static void listen_public(void)
{
	const char *n = "public";

	if (!render(n, "listen = [ \"172.32.0.1:9180\", \"100.128.0.1:9181\", \"11.0.0.1:9182\" ];\n"
		       LINK))
		return;
	once(n, "IPAddressAllow=0.0.0.0/0");
	never(n, "IPAddressAllow=172.16.0.0/12");
	never(n, "IPAddressAllow=100.64.0.0/10");
	never(n, "IPAddressAllow=10.0.0.0/8");
	if (!render("public6", "listen = \"[2001:db8::5]:9180\";\n" LINK))
		return;
	once("public6", "IPAddressAllow=::/0");
	never("public6", "IPAddressAllow=0.0.0.0/0");
}

/* Every probe target (the global block and a link's own) and the sink, each once, as a
 * host; the UDP target's port is not part of it. */
static void probes(void)
{
	const char *n = "probes";

	if (!render(n, "listen = \"127.0.0.1:9180\";\n"
		       "links = ( { name = \"wan\"; interface = \"eth0\";\n"
		       "  egress = { shaper = \"htb\"; rate = \"100mbit\"; };\n"
		       "  probe = { method = \"udp\"; targets = [ \"203.0.113.7:2200\", \"192.0.2.1\" ]; }; },\n"
		       " { name = \"lte\"; interface = \"eth1\";\n"
		       "  egress = { shaper = \"htb\"; rate = \"10mbit\"; }; } );\n"
		       "probe = { targets = [ \"192.0.2.1\", \"2001:db8::1\" ]; link = \"lte\";\n"
		       "  sink = \"198.51.100.7:5201\"; };\n"))
		return;
	shape(n);
	once(n, "IPAddressAllow=192.0.2.1/32");
	once(n, "IPAddressAllow=2001:db8::1/128");
	once(n, "IPAddressAllow=198.51.100.7/32");
	once(n, "IPAddressAllow=203.0.113.7/32");
	CHECK(!strstr(out, ":2200") && !strstr(out, ":5201"), "%s: no target or sink port", n);
	CHECK(!strstr(out, "\nSocketBindDeny="), "%s: no source: every bind but the page's denied",
	      n);
	CHECK(strstr(out, "# link wan's probe targets\n") != NULL, "%s: the link's block is named",
	      n);
}

/* Probes from a source address bind port 0, which no SocketBindAllow= can name: the deny
 * list is reset to TCP alone, after the page's ports are allowed. */
static void source_bound(void)
{
	const char *n = "source";
	const char *allow, *reset, *tcp;

	if (!render(n, "listen = \"127.0.0.1:9180\";\n" LINK
		       "probe = { method = \"udp\"; targets = [ \"203.0.113.7\" ];\n"
		       "  source = \"100.64.12.34\"; };\n"))
		return;
	shape(n);
	once(n, "IPAddressAllow=203.0.113.7/32");
	never(n, "IPAddressAllow=100.64.12.34/32");
	once(n, "SocketBindDeny=");
	once(n, "SocketBindDeny=tcp");
	allow = strstr(out, "SocketBindAllow=ipv4:tcp:9180\n");
	reset = strstr(out, "SocketBindDeny=\n");
	tcp = strstr(out, "SocketBindDeny=tcp\n");
	CHECK(allow && reset && tcp && reset < tcp, "%s: the reset comes before SocketBindDeny=tcp",
	      n);
}

/* A config file name with a newline: the comment that names it stays one line. */
static void odd_name(void)
{
	const char *n = "evil\nIPAddressAllow=any";

	if (!render(n, "listen = \"127.0.0.1:9180\";\n" LINK))
		return;
	shape(n);
	never(n, "IPAddressAllow=any");
	CHECK(strstr(out, "-c evil?IPAddressAllow=any:") != NULL, "odd name: the newline shown as '?'");
}

/* A buffer too small: -ENOSPC and nothing half-written to print. */
static void too_small(void)
{
	struct gw_config *cfg;
	char err[256], small[64];
	int r;

	if (gw_config_load_string("small", "listen = \"192.168.1.1:9180\";\n" LINK, &cfg, err,
				  sizeof(err))) {
		CHECK(0, "small: parses (%s)", err);
		return;
	}
	memset(small, 'x', sizeof(small));
	r = gw_systemd_dropin_render(cfg, small, sizeof(small));
	CHECK(r == -ENOSPC && small[0] == '\0', "64 bytes: -ENOSPC and an empty string (ret %d)", r);
	r = gw_systemd_dropin_render(cfg, small, 0);
	CHECK(r == -ENOSPC, "0 bytes: -ENOSPC (ret %d)", r);
	r = gw_systemd_dropin_render(cfg, out, sizeof(out));
	CHECK(r == 0 && strlen(out) > 64, "the same config fits in %zu bytes", sizeof(out));
	gw_config_free(cfg);
}

/* What a reload must say: a change of listen, targets or sink, and nothing else. */
static struct gw_config *load(const char *name, const char *text)
{
	struct gw_config *cfg = NULL;
	char err[512] = "";

	if (gw_config_load_string(name, text, &cfg, err, sizeof(err)))
		CHECK(0, "%s: the config parses (%s)", name, err);
	return cfg;
}

static void changed(void)
{
	const char *base = "listen = \"192.168.1.1:9180\";\n" LINK
			   "probe = { targets = [ \"192.0.2.1\" ]; sink = \"198.51.100.7:5201\"; };\n";
	const char *rate = "listen = \"192.168.1.1:9180\";\n"
			   "links = ( { name = \"wan\"; interface = \"eth0\";\n"
			   "  egress = { shaper = \"htb\"; rate = \"50mbit\"; }; } );\n"
			   "probe = { targets = [ \"192.0.2.1\" ]; sink = \"198.51.100.7:5201\"; "
			   "interval = \"200ms\"; };\n";
	const char *target = "listen = \"192.168.1.1:9180\";\n" LINK
			     "probe = { targets = [ \"192.0.2.2\" ]; sink = \"198.51.100.7:5201\"; };\n";
	const char *sink = "listen = \"192.168.1.1:9180\";\n" LINK
			   "probe = { targets = [ \"192.0.2.1\" ]; sink = \"198.51.100.8:5201\"; };\n";
	const char *port = "listen = \"192.168.1.1:9181\";\n" LINK
			   "probe = { targets = [ \"192.0.2.1\" ]; sink = \"198.51.100.7:5201\"; };\n";
	struct gw_config *a = load("a.conf", base), *b = load("b.conf", base), *c;

	if (!a || !b)
		goto out;
	CHECK(!gw_systemd_dropin_changed(a, b), "the same addresses from another file name: unchanged");
	if ((c = load("rate", rate))) {
		CHECK(!gw_systemd_dropin_changed(a, c), "a new rate and probe interval: unchanged");
		gw_config_free(c);
	}
	if ((c = load("target", target))) {
		CHECK(gw_systemd_dropin_changed(a, c), "another probe target: changed");
		gw_config_free(c);
	}
	if ((c = load("sink", sink))) {
		CHECK(gw_systemd_dropin_changed(a, c), "another sink: changed");
		gw_config_free(c);
	}
	if ((c = load("port", port))) {
		CHECK(gw_systemd_dropin_changed(a, c), "another listen port: changed");
		gw_config_free(c);
	}
out:
	gw_config_free(a);
	gw_config_free(b);
}

int main(void)
{
	loopback_only();
	listen_ranges();
	listen_public();
	probes();
	source_bound();
	too_small();
	odd_name();
	changed();
	return tap_done();
}
