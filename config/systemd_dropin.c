/* config/systemd_dropin.c: the config's addresses and ports as a systemd drop-in for the
 * unit (gatewayd --systemd-dropin, systemd/gatewayd-generator). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/systemd_dropin.h"

struct out {
	char *buf;
	size_t len, pos;
	bool full;
};

/* The buffer has this line (n bytes with its newline) already. */
static bool has_line(const struct out *o, const char *l, size_t n)
{
	const char *p = o->buf, *end = o->buf + o->pos;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			break;
		if ((size_t)(e + 1 - p) == n && !memcmp(p, l, n))
			return true;
		p = e + 1;
	}
	return false;
}

/* One line; a line already there (a target two probe blocks share) is not written again. */
static void line(struct out *o, const char *fmt, ...)
{
	char l[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l, sizeof(l), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(l) - 1) {
		o->full = true;
		return;
	}
	/* a file or link name with a newline in it cannot add a setting */
	for (int i = 0; i < n; i++)
		if ((unsigned char)l[i] < 0x20 || l[i] == 0x7f)
			l[i] = '?';
	l[n++] = '\n';
	l[n] = '\0';
	if (l[0] != '#' && has_line(o, l, (size_t)n))
		return;
	if (o->full || o->pos + (size_t)n >= o->len) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->pos, l, (size_t)n + 1);
	o->pos += (size_t)n;
}

/* An address as IPAddressAllow= takes it: "192.0.2.1/32", "2001:db8::1/128". */
static void allow_host(struct out *o, const struct sockaddr_storage *ss)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, sizeof(a));
		line(o, "IPAddressAllow=%s/32", a);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a, sizeof(a));
		line(o, "IPAddressAllow=%s/128", a);
	}
}

/*
 * Who may talk to the status page on this listen address. Loopback: the unit's own
 * IPAddressAllow=localhost. An address in a private or link-local range (RFC 1918, RFC 6598,
 * RFC 4193): that whole range, where the LAN's clients are. The wildcard or a public address:
 * anyone of its family, as nothing in the config narrows it further.
 */
static void allow_clients(struct out *o, const struct sockaddr_storage *ss)
{
	static const struct { uint32_t net; int len; const char *text; } v4[] = {
		{ 0x0a000000, 8, "10.0.0.0/8" },
		{ 0xac100000, 12, "172.16.0.0/12" },
		{ 0xc0a80000, 16, "192.168.0.0/16" },
		{ 0x64400000, 10, "100.64.0.0/10" },
		{ 0xa9fe0000, 16, "169.254.0.0/16" },
	};

	if (ss->ss_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr);

		if (a >> 24 == 127)
			return;
		for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++)
			if (a >> (32 - v4[i].len) == v4[i].net >> (32 - v4[i].len)) {
				line(o, "IPAddressAllow=%s", v4[i].text);
				return;
			}
		line(o, "IPAddressAllow=0.0.0.0/0");
	} else if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return;
		if (IN6_IS_ADDR_LINKLOCAL(a))
			line(o, "IPAddressAllow=fe80::/10");
		else if ((a->s6_addr[0] & 0xfe) == 0xfc)
			line(o, "IPAddressAllow=fc00::/7");
		else
			line(o, "IPAddressAllow=::/0");
	}
}

static void probe_block(struct out *o, const struct gw_probe_cfg *p, bool *source)
{
	for (size_t i = 0; i < p->n_targets; i++)
		allow_host(o, &p->targets[i].addr);
	if (p->source_addrlen)
		*source = true;
}

int gw_systemd_dropin_render(const struct gw_config *cfg, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	bool source = false;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	line(&o, "# gatewayd --systemd-dropin -c %.200s: the addresses and ports the config uses.",
	     cfg->file ? cfg->file : "-");
	line(&o, "# The unit denies every other (IPAddressDeny=any, SocketBindDeny=any); written by");
	line(&o, "# gatewayd-generator at boot and at each `systemctl daemon-reload`.");
	line(&o, "[Service]");
	if (cfg->n_listen)
		line(&o, "# the status page's clients (listen; loopback is the unit's localhost)");
	for (size_t i = 0; i < cfg->n_listen; i++)
		allow_clients(&o, &cfg->listen_addr[i]);
	if (cfg->probe.present) {
		line(&o, "# the probe targets and the load test's sink (probe)");
		probe_block(&o, &cfg->probe, &source);
		if (cfg->probe.sink_addrlen)
			allow_host(&o, &cfg->probe.sink_addr);
	}
	for (size_t i = 0; i < cfg->n_links; i++)
		if (cfg->links[i].probe) {
			line(&o, "# link %s's probe targets", cfg->links[i].name);
			probe_block(&o, cfg->links[i].probe, &source);
		}
	if (cfg->n_listen)
		line(&o, "# the status page's ports");
	for (size_t i = 0; i < cfg->n_listen; i++) {
		const struct sockaddr_storage *ss = &cfg->listen_addr[i];
		uint16_t port = ss->ss_family == AF_INET ?
			ntohs(((const struct sockaddr_in *)ss)->sin_port) :
			ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);

		line(&o, "SocketBindAllow=%s:tcp:%u", ss->ss_family == AF_INET ? "ipv4" : "ipv6",
		     port);
	}
	if (source) {
		/* bind() to the source address asks for port 0, which SocketBindAllow= cannot
		 * name: the deny list keeps TCP (the listeners) and lets the probes bind */
		line(&o, "# probes bound to a source address bind port 0: only TCP binds are denied");
		line(&o, "SocketBindDeny=");
		line(&o, "SocketBindDeny=tcp");
	}
	if (o.full) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}

bool gw_systemd_dropin_changed(const struct gw_config *a, const struct gw_config *b)
{
	enum { LEN = 1 << 16 };
	char *x = malloc(LEN), *y = malloc(LEN);
	bool changed = true;

	/* the first line names the file, which a reload does not change */
	if (x && y && !gw_systemd_dropin_render(a, x, LEN) &&
	    !gw_systemd_dropin_render(b, y, LEN)) {
		const char *ex = strchr(x, '\n'), *ey = strchr(y, '\n');

		changed = !ex || !ey || strcmp(ex, ey) != 0;
	}
	free(x);
	free(y);
	return changed;
}
