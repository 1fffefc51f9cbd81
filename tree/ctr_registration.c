/* tree/ctr_registration.c: a CNI container's registration as text and back, every field checked,
 * and the tree it stands for: shared by gatewayd-cni and the daemon (docs/cni.md). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "tree/classify.h"
#include "tree/ctr_registration.h"
#include "tree/own.h"
#include "qdisc/link.h"
#include "qdisc/qdisc.h"


/* FNV-1a over the three strings, each with its NUL, so ("ab", "c") and ("a", "bc") differ. */
static uint64_t key_hash(const char *network, const char *id, const char *ifname, uint64_t seed)
{
	const char *parts[] = { network, id, ifname };
	uint64_t h = seed;

	for (size_t p = 0; p < 3; p++) {
		const unsigned char *s = (const unsigned char *)parts[p];

		do {
			h ^= *s;
			h *= 0x100000001b3ULL;
		} while (*s++);
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

void gw_ctr_reg_ifb_name(const char *network, const char *id, const char *ifname, char *buf,
			 size_t len)
{
	snprintf(buf, len, GW_CTR_REG_IFB_PREFIX "%011" PRIx64,
		 (uint64_t)(key_hash(network, id, ifname, FNV_OFFSET) & 0xfffffffffffULL));
}

/* The mark's hash starts elsewhere: two keys that share a name (44 bits) still differ here. */
void gw_ctr_reg_ifb_mark(const char *network, const char *id, const char *ifname, char *buf,
			 size_t len)
{
	snprintf(buf, len, GW_CTR_REG_IFB_MARK "%016" PRIx64,
		 key_hash(network, id, ifname, FNV_OFFSET ^ 0x9e3779b97f4a7c15ULL));
}

bool gw_ctr_reg_valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= IFNAMSIZ || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s < 0x21 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

bool gw_ctr_reg_valid_id(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n < 1 || n > max || !isalnum((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

enum gw_ctr_limit_fault gw_ctr_limit_check(uint64_t rate, int64_t burst)
{
	if (!rate)
		return burst == GW_UNSET ? GW_CTR_LIMIT_OK : GW_CTR_LIMIT_BURST_NO_RATE;
	if (rate < GW_MIN_RATE || rate > GW_MAX_RATE)
		return GW_CTR_LIMIT_RATE;
	if (burst == GW_UNSET)
		return GW_CTR_LIMIT_OK;
	if (burst < GW_CTR_BURST_MIN)
		return GW_CTR_LIMIT_BURST_SMALL;
	if (burst > GW_CTR_BURST_MAX)
		return GW_CTR_LIMIT_BURST_BIG;
	/* htb keeps a bucket as time at the rate in 32 bits of 64 ns ticks */
	if ((unsigned __int128)burst * 1000000000ULL / rate / 64 >= UINT32_MAX)
		return GW_CTR_LIMIT_BURST_LONG;
	return GW_CTR_LIMIT_OK;
}

bool gw_ctr_reg_same(const struct gw_ctr_reg *a, const struct gw_ctr_reg *b)
{
	return !strcmp(a->network, b->network) && !strcmp(a->id, b->id) &&
	       !strcmp(a->ifname, b->ifname);
}

/* ---- encode ------------------------------------------------------------------------------ */

struct out {
	char *buf;
	size_t len, pos;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (o->full)
		return;
	va_start(ap, fmt);
	w = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= o->len - o->pos)
		o->full = true;
	else
		o->pos += (size_t)w;
}

static void put_burst(struct out *o, const char *key, int64_t burst)
{
	if (burst == GW_UNSET)
		put(o, "%s -\n", key);
	else
		put(o, "%s %" PRId64 "\n", key, burst);
}

int gw_ctr_reg_encode(const struct gw_ctr_reg *m, char *buf, size_t len)
{
	struct out o = { buf, len, 0, len == 0 };

	put(&o, GW_CTR_REG_MAGIC " %d\n", m->op == GW_CTR_REG_REGISTER && m->n_subnets ? 2 : 1);
	put(&o, "op %s\n", m->op == GW_CTR_REG_REGISTER ? "register" : "unregister");
	put(&o, "id %s\nnetwork %s\nifname %s\n", m->id, m->network, m->ifname);
	if (m->netns[0])
		put(&o, "netns %s\n", m->netns);
	if (m->op == GW_CTR_REG_REGISTER) {
		put(&o, "host_if %s\nhost_ifindex %d\nhost_netns %" PRIu64 "\n", m->host_if,
		    m->host_ifindex, m->host_netns);
		if (m->ifb[0])
			put(&o, "ifb %s\n", m->ifb);
		put(&o, "ingress_rate %" PRIu64 "\n", m->ingress.rate);
		put_burst(&o, "ingress_burst", m->ingress.burst);
		put(&o, "egress_rate %" PRIu64 "\n", m->egress.rate);
		put_burst(&o, "egress_burst", m->egress.burst);
		if (m->queue[0])
			put(&o, "queue %s\n", m->queue);
		if (m->n_subnets) {
			put(&o, "%s", m->subnets_shaped ? "shaped_subnets" : "unshaped_subnets");
			for (size_t i = 0; i < m->n_subnets && i < GW_CTR_SUBNETS_MAX; i++) {
				char p[64];

				gw_format_prefix(&m->subnets[i], p, sizeof(p));
				put(&o, " %s", p);
			}
			put(&o, "\n");
		}
	}
	put(&o, "\n");
	if (o.full || o.pos > GW_CTR_REG_MAX)
		return -ENOSPC;
	return (int)o.pos;
}

/* ---- decode ------------------------------------------------------------------------------ */

size_t gw_ctr_reg_complete(const char *text, size_t len)
{
	if (len >= 1 && text[0] == '\n')
		return 1;	/* an empty message: complete, and refused by the decoder */
	for (size_t i = 1; i < len; i++)
		if (text[i] == '\n' && text[i - 1] == '\n')
			return i + 1;
	return 0;
}

static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return r;
}

/* A whole decimal number within [0, max], nothing else. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 20)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_burst(const char *s, int64_t *out)
{
	uint64_t v;

	if (!strcmp(s, "-")) {
		*out = GW_UNSET;
		return true;
	}
	if (!parse_u64(s, INT64_MAX, &v))
		return false;
	*out = (int64_t)v;
	return true;
}

enum key {
	K_OP, K_ID, K_NETNS, K_NETWORK, K_IFNAME, K_HOST_IF, K_HOST_IFINDEX, K_HOST_NETNS, K_IFB,
	K_IN_RATE, K_IN_BURST, K_E_RATE, K_E_BURST, K_QUEUE, K_UNSHAPED, K_SHAPED, K_N
};

static const char *const key_names[K_N] = {
	"op", "id", "netns", "network", "ifname", "host_if", "host_ifindex", "host_netns", "ifb",
	"ingress_rate", "ingress_burst", "egress_rate", "egress_burst", "queue",
	"unshaped_subnets", "shaped_subnets",
};

/* "CIDR CIDR ...": 1..GW_CTR_SUBNETS_MAX prefixes, host bits zero. */
static int parse_subnets(struct gw_ctr_reg *m, enum key k, const char *v, char *err,
			 size_t errlen)
{
	char buf[GW_CTR_REG_MAX + 1], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", v);
	m->n_subnets = 0;
	m->subnets_shaped = k == K_SHAPED;
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (m->n_subnets >= GW_CTR_SUBNETS_MAX)
			return fail(err, errlen, -EINVAL, "%s: more than %d subnets",
				    key_names[k], GW_CTR_SUBNETS_MAX);
		if (gw_parse_prefix(t, &m->subnets[m->n_subnets]))
			return fail(err, errlen, -EINVAL, "%s: \"%.64s\" is not a subnet (an "
				    "address/length with the host bits zero)", key_names[k], t);
		m->n_subnets++;
	}
	if (!m->n_subnets)
		return fail(err, errlen, -EINVAL, "%s: no subnet", key_names[k]);
	return 0;
}

/* One "key value" line's value into m. */
static int set_value(struct gw_ctr_reg *m, enum key k, const char *v, char *err, size_t errlen)
{
	uint64_t n;

	switch (k) {
	case K_OP:
		if (!strcmp(v, "register"))
			m->op = GW_CTR_REG_REGISTER;
		else if (!strcmp(v, "unregister"))
			m->op = GW_CTR_REG_UNREGISTER;
		else
			return fail(err, errlen, -EINVAL, "op: \"%.32s\" is neither register nor "
				    "unregister", v);
		return 0;
	case K_ID:
		if (!gw_ctr_reg_valid_id(v, GW_CTR_REG_ID_MAX))
			return fail(err, errlen, -EINVAL, "id: not a container id (1..%d of "
				    "A-Z a-z 0-9 _ . -, the first alphanumeric)", GW_CTR_REG_ID_MAX);
		snprintf(m->id, sizeof(m->id), "%s", v);
		return 0;
	case K_NETWORK:
		if (!gw_ctr_reg_valid_id(v, GW_CTR_REG_NAME_MAX))
			return fail(err, errlen, -EINVAL, "network: not a network name (1..%d of "
				    "A-Z a-z 0-9 _ . -)", GW_CTR_REG_NAME_MAX);
		snprintf(m->network, sizeof(m->network), "%s", v);
		return 0;
	case K_NETNS:
		if (v[0] != '/' || strlen(v) > GW_CTR_REG_NETNS_MAX)
			return fail(err, errlen, -EINVAL, "netns: not an absolute path of at most "
				    "%d characters", GW_CTR_REG_NETNS_MAX);
		snprintf(m->netns, sizeof(m->netns), "%s", v);
		return 0;
	case K_IFNAME:
	case K_HOST_IF:
	case K_IFB:
		if (!gw_ctr_reg_valid_ifname(v))
			return fail(err, errlen, -EINVAL, "%s: \"%.32s\" is not an interface name",
				    key_names[k], v);
		snprintf(k == K_IFNAME ? m->ifname : k == K_HOST_IF ? m->host_if : m->ifb,
			 IFNAMSIZ, "%s", v);
		return 0;
	case K_HOST_IFINDEX:
		if (!parse_u64(v, INT32_MAX, &n) || n == 0)
			return fail(err, errlen, -EINVAL, "host_ifindex: not an interface index");
		m->host_ifindex = (int)n;
		return 0;
	case K_HOST_NETNS:
		if (!parse_u64(v, UINT64_MAX, &m->host_netns))
			return fail(err, errlen, -EINVAL, "host_netns: not a whole number");
		return 0;
	case K_IN_RATE:
	case K_E_RATE:
		if (!parse_u64(v, UINT64_MAX, k == K_IN_RATE ? &m->ingress.rate : &m->egress.rate))
			return fail(err, errlen, -EINVAL, "%s: not a whole number of bytes/s",
				    key_names[k]);
		return 0;	/* its range: check_limit */
	case K_IN_BURST:
	case K_E_BURST:
		if (!parse_burst(v, k == K_IN_BURST ? &m->ingress.burst : &m->egress.burst))
			return fail(err, errlen, -EINVAL, "%s: not \"-\" or a whole number of "
				    "bytes", key_names[k]);
		return 0;
	case K_QUEUE:
		if (strlen(v) >= sizeof(m->queue))
			return fail(err, errlen, -EINVAL, "queue: longer than %zu characters",
				    sizeof(m->queue) - 1);
		snprintf(m->queue, sizeof(m->queue), "%s", v);
		return 0;
	case K_UNSHAPED:
	case K_SHAPED:
		return parse_subnets(m, k, v, err, errlen);
	case K_N:
		break;
	}
	return -EINVAL;
}

/* The first line: the magic and a version this side speaks (into *version). */
static int check_head(const char *line, unsigned int *version, char *err, size_t errlen)
{
	const char *v;
	uint64_t n;

	if (strncmp(line, GW_CTR_REG_MAGIC " ", strlen(GW_CTR_REG_MAGIC) + 1))
		return fail(err, errlen, -EINVAL, "not a gatewayd control message (the first "
			    "line must be \"" GW_CTR_REG_MAGIC " N\", N from 1 to %d)",
			    GW_CTR_REG_VERSION);
	v = line + strlen(GW_CTR_REG_MAGIC) + 1;
	if (!parse_u64(v, UINT32_MAX, &n))
		return fail(err, errlen, -EINVAL, "version: not a number");
	if (n < 1 || n > GW_CTR_REG_VERSION)
		return fail(err, errlen, -EPROTONOSUPPORT, "protocol version %" PRIu64 " is not "
			    "spoken here (versions 1 to %d are)", n, GW_CTR_REG_VERSION);
	*version = (unsigned int)n;
	return 0;
}

/* One direction's rate and burst within the bounds gatewayd-cni holds its config to. */
static int check_limit(const struct gw_ctr_reg_limit *l, const char *dir, char *err,
		       size_t errlen)
{
	switch (gw_ctr_limit_check(l->rate, l->burst)) {
	case GW_CTR_LIMIT_OK:
		return 0;
	case GW_CTR_LIMIT_RATE:
		return fail(err, errlen, -EINVAL, "%s_rate %" PRIu64 " bytes/s: out of range: 0 "
			    "for none, or %llu to %llu bytes/s (8 kbit/s to 100 Tbit/s), as "
			    "gatewayd-cni takes them", dir, l->rate, GW_MIN_RATE, GW_MAX_RATE);
	case GW_CTR_LIMIT_BURST_NO_RATE:
		return fail(err, errlen, -EINVAL, "a burst without its rate");
	case GW_CTR_LIMIT_BURST_SMALL:
	case GW_CTR_LIMIT_BURST_BIG:
		return fail(err, errlen, -EINVAL, "%s_burst %" PRId64 " bytes: out of range: \"-\" "
			    "or %lld to %lld bytes, as gatewayd-cni takes them", dir, l->burst,
			    GW_CTR_BURST_MIN, GW_CTR_BURST_MAX);
	case GW_CTR_LIMIT_BURST_LONG:
		return fail(err, errlen, -EINVAL, "%s_burst %" PRId64 " bytes lasts more than "
			    "274 s at %s_rate %" PRIu64 " bytes/s, longer than htb can hold", dir,
			    l->burst, dir, l->rate);
	}
	return -EINVAL;
}

/* What each op needs, and what the values must agree on. */
static int check_whole(struct gw_ctr_reg *m, const bool *seen, char *err, size_t errlen)
{
	static const enum key reg_needs[] = { K_HOST_IF, K_HOST_IFINDEX, K_HOST_NETNS,
					      K_IN_RATE, K_IN_BURST, K_E_RATE, K_E_BURST };
	char want[IFNAMSIZ], e2[256] = "";
	struct gw_ctr_synth s;

	if (!seen[K_OP])
		return fail(err, errlen, -EINVAL, "op is missing");
	if (!seen[K_ID] || !seen[K_NETWORK] || !seen[K_IFNAME])
		return fail(err, errlen, -EINVAL, "%s is missing",
			    !seen[K_ID] ? "id" : !seen[K_NETWORK] ? "network" : "ifname");
	if (m->op == GW_CTR_REG_UNREGISTER) {
		for (int k = K_HOST_IF; k < K_N; k++)
			if (seen[k])
				return fail(err, errlen, -EINVAL, "%s: not a key of unregister",
					    key_names[k]);
		return 0;
	}
	for (size_t i = 0; i < sizeof(reg_needs) / sizeof(reg_needs[0]); i++)
		if (!seen[reg_needs[i]])
			return fail(err, errlen, -EINVAL, "%s is missing", key_names[reg_needs[i]]);
	if (!seen[K_NETNS])
		return fail(err, errlen, -EINVAL, "netns is missing");
	if (!m->ingress.rate && !m->egress.rate)
		return fail(err, errlen, -EINVAL, "nothing is limited: ingress_rate and "
			    "egress_rate are both 0");
	if (check_limit(&m->ingress, "ingress", err, errlen) ||
	    check_limit(&m->egress, "egress", err, errlen))
		return -EINVAL;
	/* the ifb is the one this container's name gives, or none: a registration can never
	 * name someone else's device for the daemon to remove */
	gw_ctr_reg_ifb_name(m->network, m->id, m->ifname, want, sizeof(want));
	if (m->egress.rate && strcmp(m->ifb, want))
		return fail(err, errlen, -EINVAL, "ifb: egress is limited, so it must be %s", want);
	if (!m->egress.rate && seen[K_IFB])
		return fail(err, errlen, -EINVAL, "ifb: egress is not limited, so there is none");
	if (seen[K_UNSHAPED] && seen[K_SHAPED])
		return fail(err, errlen, -EINVAL, "unshaped_subnets and shaped_subnets: one or "
			    "the other");
	if (gw_ctr_reg_synth(m, &s, e2, sizeof(e2)))
		return fail(err, errlen, -EINVAL, "queue: %s", e2);
	gw_ctr_synth_free(&s);
	return 0;
}

int gw_ctr_reg_decode(const char *text, size_t len, struct gw_ctr_reg *out, char *err,
		      size_t errlen)
{
	bool seen[K_N] = { false };
	char line[GW_CTR_REG_MAX + 1];
	size_t pos = 0, lineno = 0;
	unsigned int version = 0;
	int r;

	memset(out, 0, sizeof(*out));
	out->ingress.burst = out->egress.burst = GW_UNSET;
	if (len > GW_CTR_REG_MAX)
		return fail(err, errlen, -EINVAL, "longer than %d bytes", GW_CTR_REG_MAX);
	for (;;) {
		size_t n = 0;
		char *v;
		int k;

		while (pos < len && text[pos] != '\n') {
			unsigned char ch = (unsigned char)text[pos++];

			if (ch < 0x20 || ch >= 0x7f)
				return fail(err, errlen, -EINVAL, "line %zu: a byte that is not "
					    "printable ASCII (0x%02x)", lineno + 1, ch);
			line[n++] = (char)ch;
		}
		if (pos >= len)
			return fail(err, errlen, -EINVAL, "incomplete: no blank line at the end");
		pos++;
		line[n] = '\0';
		lineno++;
		if (lineno == 1) {
			if ((r = check_head(line, &version, err, errlen)))
				return r;
			continue;
		}
		if (!n)
			break;
		if (!(v = strchr(line, ' ')))
			return fail(err, errlen, -EINVAL, "line %zu: not \"key value\"", lineno);
		*v++ = '\0';
		for (k = 0; k < K_N && strcmp(key_names[k], line); k++)
			;
		if (k == K_N || ((k == K_UNSHAPED || k == K_SHAPED) && version < 2))
			return fail(err, errlen, -EINVAL, "line %zu: unknown key \"%.32s\"%s",
				    lineno, line, k == K_N ? "" : " in version 1");
		if (seen[k])
			return fail(err, errlen, -EINVAL, "line %zu: %s given twice", lineno, line);
		seen[k] = true;
		if ((r = set_value(out, (enum key)k, v, err, errlen)))
			return r;
	}
	if (pos != len)
		return fail(err, errlen, -EINVAL, "bytes after the blank line that ends it");
	return check_whole(out, seen, err, errlen);
}

/* ---- the tree ------------------------------------------------------------------------------ */

int gw_ctr_reg_synth(const struct gw_ctr_reg *m, struct gw_ctr_synth *s, char *err,
		     size_t errlen)
{
	static char file[] = "gatewayd-cni";
	struct gw_config main_cfg = { .file = file };
	struct gw_ctr_cfg r;
	struct gw_child queue;
	/* the reference plugin's ingress (into the container) is the host veth's egress */
	const struct gw_ctr_reg_limit *lim[2] = { [GW_DIR_EGRESS] = &m->ingress,
						  [GW_DIR_INGRESS] = &m->egress };

	s->match = NULL;
	memset(&queue, 0, sizeof(queue));
	if (!m->queue[0]) {
		queue.kind = GW_KIND_FQ_CODEL;
		gw_qopts_init(GW_KIND_FQ_CODEL, &queue.opts);
	} else if (gw_child_parse_text(m->queue, "queue", GW_KIND_HTB, &queue, err, errlen)) {
		return -EINVAL;
	}
	memset(&r, 0, sizeof(r));
	for (int d = 0; d < 2; d++) {
		r.dir[d].present = lim[d]->rate > 0;
		r.dir[d].rate = r.dir[d].ceil = lim[d]->rate;
		r.dir[d].child = queue;
	}
	gw_ctr_synthesize(&main_cfg, &r, m->host_if, m->host_ifindex, s);
	s->cfg.file = file;
	snprintf(s->link.name, sizeof(s->link.name), GW_CTR_REG_LINK_PREFIX "%s", m->host_if);
	for (int d = 0; d < 2; d++) {
		if (!r.dir[d].present || lim[d]->burst == GW_UNSET)
			continue;
		/* burst honoured: the top class's and the class's buckets at the same size */
		s->link.dir[d].burst = lim[d]->burst;
		s->cls[d][0].burst = s->cls[d][0].cburst = lim[d]->burst;
	}
	if (r.dir[GW_DIR_INGRESS].present)
		gw_ctr_reg_ifb_name(m->network, m->id, m->ifname, s->link.dir[GW_DIR_INGRESS].ifb,
				    sizeof(s->link.dir[GW_DIR_INGRESS].ifb));
	if (m->n_subnets && gw_ctr_subnets(s, m->subnets, m->n_subnets, m->subnets_shaped))
		return fail(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/* Our ifb: there (1), not there (0), there and someone else's (-EEXIST). */
static int marked_ifb(struct gw_nl *nl, const char *name, const char *mark,
		      struct gw_link_info *info, char *err, size_t errlen)
{
	int r = gw_link_get(nl, name, info, NULL);

	if (r == -ENODEV)
		return 0;
	if (r)
		return fail(err, errlen, r, "%s: %s", name, strerror(-r));
	if (strcmp(info->kind, "ifb") || strcmp(info->alias, mark))
		return fail(err, errlen, -EEXIST, "%s is there and is not this container's (kind "
			    "\"%s\", alias \"%.64s\")", name, info->kind, info->alias);
	return 1;
}

int gw_ctr_reg_planned(struct gw_nl *nl, const struct gw_ctr_synth *s, const char *mark,
		       struct gw_applied *a, char *err, size_t errlen)
{
	const char *ifb = s->link.dir[GW_DIR_INGRESS].ifb, *host = s->link.interface;
	bool in = s->link.dir[GW_DIR_INGRESS].present;
	int r;

	memset(a, 0, sizeof(*a));
	a->facts = calloc(1, sizeof(*a->facts));
	a->devs = calloc(2, sizeof(*a->devs));
	if (!a->facts || !a->devs)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if ((r = gw_link_get(nl, host, &a->facts[0].dev, NULL)))
		return fail(err, errlen, r == -ENODEV ? -ENOENT : r, "host end %s: %s", host,
			    r == -ENODEV ? "gone" : strerror(-r));
	a->devs[0] = (struct gw_dev){ .ifindex = a->facts[0].dev.ifindex, .root = true,
				      .ingress = in };
	snprintf(a->devs[0].name, sizeof(a->devs[0].name), "%s", host);
	a->n_devs = 1;
	if (in) {
		if ((r = marked_ifb(nl, ifb, mark, &a->facts[0].ifb, err, errlen)) < 0)
			return r;
		if (!r)
			return fail(err, errlen, -ENOENT, "ifb %s is missing", ifb);
		a->devs[1] = (struct gw_dev){ .ifindex = a->facts[0].ifb.ifindex, .is_ifb = true,
					      .ifb_created = true, .ifb_existed = true };
		snprintf(a->devs[1].name, sizeof(a->devs[1].name), "%s", ifb);
		a->n_devs = 2;
	}
	if ((r = gw_plan_build(&s->cfg, a->facts, NULL, &a->plan)))
		return fail(err, errlen, r, "cannot plan the tree: %s", strerror(-r));
	return 0;
}

int gw_ctr_reg_verify(struct gw_nl *nl, const struct gw_ctr_synth *s, const struct gw_applied *a,
		      char *err, size_t errlen)
{
	int r = gw_verify(nl, &s->cfg, a, err, errlen);

	return r ? r : gw_classify_verify(nl, &s->cfg, a, err, errlen);
}
