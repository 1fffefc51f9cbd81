/* config/parse_probe.c: the `probe` blocks (latency prober targets and its load test) into
 * struct gw_probe_cfg: the global one, and a link's own (the same keys but the load test's). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/parse.h"

/* Bounds; gatewayd.conf(5) quotes them: change both together. */
#define PROBE_INTERVAL_MIN 10000LL		/* 10ms */
#define PROBE_INTERVAL_MAX 10000000LL		/* 10s */
#define PROBE_INTERVAL_DEFAULT 100000LL		/* 100ms */
#define PROBE_TIMEOUT_MIN 10000LL		/* 10ms */
#define PROBE_TIMEOUT_MAX 10000000LL		/* 10s */
#define PROBE_TIMEOUT_DEFAULT 1000000LL		/* 1s */
#define PROBE_LOAD_DURATION_MIN 1000000LL	/* 1s */
#define PROBE_LOAD_DURATION_MAX 300000000LL	/* 5 min */
#define PROBE_LOAD_DURATION_DEFAULT 10000000LL	/* 10s */
#define PROBE_LOAD_EVERY_MIN 60000000LL		/* 1 min */
#define PROBE_LOAD_EVERY_MAX 604800000000LL	/* 7 days */
#define PROBE_LOAD_FLOWS_DEFAULT 4
#define PROBE_LOAD_FLOWS_MAX 64

static const char *const probe_keys[] = {
	"targets", "method", "interval", "timeout", "size", "link", "fwmark", "source", "sink",
	"load_duration", "load_every", "load_flows", "sink_token_file", NULL
};

/* A link's own block: what probes and how; the load test and `link` are the global block's. */
static const char *const link_probe_keys[] = {
	"targets", "method", "interval", "timeout", "size", "fwmark", "source", NULL
};
static const char *const global_only_keys[] = {
	"link", "sink", "load_duration", "load_every", "load_flows", "sink_token_file", NULL
};

static const struct cfg_enum methods[] = {
	{ "icmp", GW_PROBE_ICMP }, { "udp", GW_PROBE_UDP }, { "icmp-timestamp", GW_PROBE_ICMP_TS },
	{ NULL, 0 }
};

/* An IP literal alone (any method; IPv4 only for icmp-timestamp), or with a port for udp:
 * "v4:port", "[v6]:port", "[v6]". */
static int parse_target(const char *s, enum gw_probe_method m, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char buf[GW_PROBE_HOST_MAX + 8];

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(GW_PROBE_UDP_PORT);
		*len = sizeof(*in);
		return 0;
	}
	if (m != GW_PROBE_ICMP_TS && inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(GW_PROBE_UDP_PORT);
		*len = sizeof(*in6);
		return 0;
	}
	if (m != GW_PROBE_UDP)
		return -EINVAL;
	/* "[v6]" without a port: the default port */
	if (s[0] == '[' && strlen(s) >= 3 && s[strlen(s) - 1] == ']') {
		snprintf(buf, sizeof(buf), "%s:%d", s, GW_PROBE_UDP_PORT);
		s = buf;
	}
	return gw_parse_listen(s, ss, len);
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_addr.s_addr == y->sin_addr.s_addr && x->sin_port == y->sin_port;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

	return !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) &&
		x->sin6_port == y->sin6_port;
}

static int parse_targets(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			 struct gw_probe_cfg *pc)
{
	const config_setting_t *s = config_setting_get_member(grp, "targets");
	int i, n;

	if (!s)
		return cfg_missing(p, grp, where, "targets");
	if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		n = 1;
	} else if (config_setting_type(s) == CONFIG_TYPE_ARRAY ||
		   config_setting_type(s) == CONFIG_TYPE_LIST) {
		n = cfg_count(p, s, where, "targets", GW_MAX_PROBE_TARGETS, "addresses");
		if (n < 0)
			return n;
	} else {
		return cfg_error(p, s, where, "'targets' must be a list of IP addresses, e.g. "
				 "[ \"192.0.2.1\", \"2001:db8::1\" ]");
	}
	for (i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_type(s) == CONFIG_TYPE_STRING ? s :
			config_setting_get_elem(s, (unsigned int)i);
		struct gw_probe_target_cfg *t = &pc->targets[i];
		struct in6_addr a6;
		const char *v;
		int j;

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return cfg_error(p, e, where, "'targets' must be a list of strings");
		v = config_setting_get_string(e);
		if (pc->method == GW_PROBE_ICMP_TS && strlen(v) < GW_PROBE_HOST_MAX &&
		    inet_pton(AF_INET6, v, &a6) == 1)
			return cfg_error(p, e, "probe", "target \"%s\": icmp-timestamp takes IPv4 "
					 "targets only (ICMPv6 has no timestamp message)", v);
		if (strlen(v) >= GW_PROBE_HOST_MAX ||
		    parse_target(v, pc->method, &t->addr, &t->addrlen))
			return cfg_error(p, e, where, "target \"%.*s\" is not %s", GW_PROBE_HOST_MAX,
					 v, pc->method == GW_PROBE_UDP ?
					 "an IP address, optionally with a port: \"192.0.2.1\", "
					 "\"192.0.2.1:2112\", \"2001:db8::1\" or \"[2001:db8::1]:2112\"" :
					 pc->method == GW_PROBE_ICMP_TS ?
					 "an IPv4 address (icmp-timestamp takes no port), e.g. "
					 "\"192.0.2.1\"" :
					 "an IP address (icmp takes no port), e.g. \"192.0.2.1\" or "
					 "\"2001:db8::1\"");
		snprintf(t->host, sizeof(t->host), "%s", v);
		t->line = (int)config_setting_source_line(e);
		for (j = 0; j < i; j++)
			if (same_addr(&t->addr, &pc->targets[j].addr))
				return cfg_error(p, e, where, "target \"%s\" is the same as \"%s\" "
						 "on line %d", v, pc->targets[j].host,
						 pc->targets[j].line);
	}
	pc->n_targets = (size_t)n;
	return 0;
}

/* `source`: an IP literal of the targets' family, bound before sending (after the targets). */
static int parse_source(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			struct gw_probe_cfg *pc)
{
	struct sockaddr_storage *ss = &pc->source_addr;
	const config_setting_t *s;
	const char *v = NULL;
	int ret;

	ret = cfg_get_string(p, grp, "source", where, GW_PROBE_HOST_MAX - 1, &v);
	if (ret <= 0)
		return ret;
	s = config_setting_get_member(grp, "source");
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, v, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		pc->source_addrlen = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, v, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		pc->source_addrlen = sizeof(struct sockaddr_in6);
	} else {
		return cfg_error(p, s, where, "'source' \"%s\" is not an IP address (no port), e.g. "
				 "\"192.0.2.10\" or \"2001:db8::10\"", v);
	}
	/* one socket per target, all bound to this address: each target must be reachable
	 * from it */
	for (size_t i = 0; i < pc->n_targets; i++)
		if (pc->targets[i].addr.ss_family != ss->ss_family)
			return cfg_error(p, s, where, "'source' \"%s\" is IPv%c but target \"%s\" on "
					 "line %d is IPv%c: give one family's targets with a source",
					 v, ss->ss_family == AF_INET ? '4' : '6', pc->targets[i].host,
					 pc->targets[i].line, ss->ss_family == AF_INET ? '6' : '4');
	snprintf(pc->source, sizeof(pc->source), "%s", v);
	return 0;
}

/* The global block's link: the one it names, else the first; never one with a block of its
 * own (that link is probed by its own block alone, and these targets would probe nothing). */
static int parse_link_ref(struct cfg_parser *p, const config_setting_t *grp,
			  const struct gw_config *cfg, struct gw_probe_cfg *pc)
{
	const config_setting_t *s = config_setting_get_member(grp, "link");
	const struct gw_link_cfg *l = NULL;
	const char *v = NULL;
	size_t i;
	int ret;

	ret = cfg_get_string(p, grp, "link", "probe", GW_NAME_MAX - 1, &v);
	if (ret < 0)
		return ret;
	/* a container host may have no links: nothing for the probes to leave by or be
	 * judged against */
	if (!cfg->n_links)
		return cfg_error(p, grp, "probe", "there is no link to probe: the probe block "
				 "judges a configured link's load (containers are not probed)");
	if (ret == 0) {
		l = &cfg->links[0];
	} else {
		for (i = 0; i < cfg->n_links && !l; i++)
			if (!strcmp(cfg->links[i].name, v))
				l = &cfg->links[i];
		if (!l)
			return cfg_error(p, s, "probe",
					 "'link' \"%s\" is not one of the configured links", v);
	}
	if (l->probe)
		return cfg_error(p, s ? s : grp, "probe", "link '%s'%s has a probe block of its own "
				 "(line %d), which alone probes it: name another link with 'link', "
				 "or move these targets into a link's block", l->name,
				 s ? "" : " (the first link, the default)", l->probe->line);
	snprintf(pc->link, sizeof(pc->link), "%s", l->name);
	return 0;
}

static int parse_load(struct cfg_parser *p, const config_setting_t *grp, struct gw_probe_cfg *pc)
{
	const char *v = NULL;
	int64_t flows = PROBE_LOAD_FLOWS_DEFAULT, every = 0;
	int ret;

	ret = cfg_get_string(p, grp, "sink", "probe", GW_PROBE_HOST_MAX - 1, &v);
	if (ret < 0)
		return ret;
	if (ret) {
		/* "iperf3:IP:PORT": an iperf3 server as the sink (load/loadtest.c) */
		bool iperf3 = !strncmp(v, "iperf3:", 7);

		if (gw_parse_listen(iperf3 ? v + 7 : v, &pc->sink_addr, &pc->sink_addrlen))
			return cfg_error(p, config_setting_get_member(grp, "sink"), "probe",
					 "'sink' \"%s\" is not an address: expected \"IP:PORT\", "
					 "e.g. \"192.0.2.1:5201\", IPv6 as \"[2001:db8::1]:5201\", "
					 "or \"iperf3:IP:PORT\" for an iperf3 server", v);
		snprintf(pc->sink, sizeof(pc->sink), "%s", v);
	}
	/* the token a `gatewayd --sink --token-file` wants: read when a test starts, so a
	 * new token in the file needs no reload */
	ret = cfg_get_string(p, grp, "sink_token_file", "probe", GW_PROBE_TOKEN_PATH_MAX - 1, &v);
	if (ret < 0)
		return ret;
	if (ret) {
		const config_setting_t *s = config_setting_get_member(grp, "sink_token_file");

		if (v[0] != '/')
			return cfg_error(p, s, "probe", "'sink_token_file' \"%.64s\" must be an "
					 "absolute path", v);
		if (!pc->sink[0] || !strncmp(pc->sink, "iperf3:", 7))
			return cfg_error(p, s, "probe", "'sink_token_file' is for a gatewayd sink: "
					 "it needs 'sink' = \"IP:PORT\" (an iperf3 server takes none)");
		snprintf(pc->sink_token_file, sizeof(pc->sink_token_file), "%s", v);
	}
	ret = cfg_get_time(p, grp, "load_duration", "probe", PROBE_LOAD_DURATION_MIN,
			   PROBE_LOAD_DURATION_MAX, &pc->load_duration_us);
	if (ret < 0)
		return ret;
	/* "0" is how a user says "never on a schedule"; it has no unit, so take it as is */
	{
		const config_setting_t *s = config_setting_get_member(grp, "load_every");

		if (s && config_setting_type(s) == CONFIG_TYPE_STRING &&
		    !strcmp(config_setting_get_string(s), "0"))
			s = NULL;
		if (s) {
			ret = cfg_get_time(p, grp, "load_every", "probe", PROBE_LOAD_EVERY_MIN,
					   PROBE_LOAD_EVERY_MAX, &every);
			if (ret < 0)
				return ret;
		}
	}
	pc->load_every_us = every;
	if (every && !pc->sink[0])
		return cfg_error(p, config_setting_get_member(grp, "load_every"), "probe",
				 "'load_every' needs a 'sink' to send the load to");
	ret = cfg_get_int(p, grp, "load_flows", "probe", 1, PROBE_LOAD_FLOWS_MAX, &flows);
	if (ret < 0)
		return ret;
	pc->load_flows = (int)flows;
	return 0;
}

/* Defaults, so a config without a probe block still reads sensibly. */
static void probe_defaults(struct gw_probe_cfg *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->method = GW_PROBE_ICMP;
	pc->interval_us = PROBE_INTERVAL_DEFAULT;
	pc->timeout_us = PROBE_TIMEOUT_DEFAULT;
	pc->size = GW_PROBE_SIZE_DEFAULT;
	pc->fwmark = GW_UNSET;
	pc->load_duration_us = PROBE_LOAD_DURATION_DEFAULT;
	pc->load_flows = PROBE_LOAD_FLOWS_DEFAULT;
}

/* What every probe block has: how and what it probes, from where. */
static int parse_common(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			struct gw_probe_cfg *pc)
{
	int method = GW_PROBE_ICMP;
	int ret;

	pc->present = true;
	pc->line = (int)config_setting_source_line(grp);
	if ((ret = cfg_get_enum(p, grp, "method", where, methods, &method)) < 0)
		return ret;
	pc->method = (enum gw_probe_method)method;
	if ((ret = parse_targets(p, grp, where, pc)))
		return ret;
	if ((ret = cfg_get_time(p, grp, "interval", where, PROBE_INTERVAL_MIN,
				PROBE_INTERVAL_MAX, &pc->interval_us)) < 0 ||
	    (ret = cfg_get_time(p, grp, "timeout", where, PROBE_TIMEOUT_MIN, PROBE_TIMEOUT_MAX,
				&pc->timeout_us)) < 0 ||
	    (ret = cfg_get_size(p, grp, "size", where, GW_PROBE_SIZE_MIN, GW_PROBE_SIZE_MAX,
				&pc->size)) < 0 ||
	    (ret = cfg_get_int(p, grp, "fwmark", where, 0, UINT32_MAX, &pc->fwmark)) < 0)
		return ret;
	return parse_source(p, grp, where, pc);
}

int cfg_parse_probe(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg)
{
	struct gw_probe_cfg *pc = &cfg->probe;
	config_setting_t *grp = NULL;
	int ret;

	probe_defaults(pc);
	ret = cfg_get_group(p, root, "probe", NULL, &grp);
	if (ret <= 0)
		return ret;
	if ((ret = cfg_check_keys(p, grp, "probe", probe_keys)) ||
	    (ret = parse_common(p, grp, "probe", pc)))
		return ret;
	if ((ret = parse_link_ref(p, grp, cfg, pc)))
		return ret;
	return parse_load(p, grp, pc);
}

int cfg_parse_link_probe(struct cfg_parser *p, const config_setting_t *link_grp,
			 struct gw_link_cfg *link)
{
	char where[CFG_WHERE_MAX];
	config_setting_t *grp = NULL;
	int ret;

	snprintf(where, sizeof(where), "link '%s'", link->name);
	ret = cfg_get_group(p, link_grp, "probe", where, &grp);
	if (ret <= 0)
		return ret;
	snprintf(where, sizeof(where), "link '%s' probe", link->name);
	for (size_t i = 0; global_only_keys[i]; i++) {
		const config_setting_t *s = config_setting_get_member(grp, global_only_keys[i]);

		if (s)
			return cfg_error(p, s, where, "'%s' belongs in the global probe block%s",
					 global_only_keys[i], strcmp(global_only_keys[i], "link") ?
					 " (the load test is one for the whole router)" :
					 " (a link's own block probes that link)");
	}
	if ((ret = cfg_check_keys(p, grp, where, link_probe_keys)))
		return ret;
	if (!(link->probe = calloc(1, sizeof(*link->probe))))
		return -ENOMEM;
	probe_defaults(link->probe);
	snprintf(link->probe->link, sizeof(link->probe->link), "%s", link->name);
	return parse_common(p, grp, where, link->probe);
}

const struct gw_probe_cfg *gw_config_probe_of(const struct gw_config *cfg, size_t link)
{
	const struct gw_link_cfg *l;

	if (link >= cfg->n_links)
		return NULL;
	l = &cfg->links[link];
	if (l->probe)
		return l->probe;
	return cfg->probe.present && !strcmp(cfg->probe.link, l->name) ? &cfg->probe : NULL;
}
