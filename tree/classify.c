/* tree/classify.c: match blocks and hosts -> rules with class ids -> the nft table
 * (egress) and u32 filters on the ifb (ingress), applied after the tree and removed with it; a
 * container's subnets (classify_u32): u32 filters on both roots, and read back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/rtnetlink.h>
#include "tree/apply.h"
#include "tree/classify.h"
#include "sys/log.h"
#include "sys/grow.h"

struct rules {
	struct gw_rule *v;
	size_t n, cap;
};

static int push_rule(struct rules *r, const struct gw_rule *g)
{
	if (gw_grow(&r->v, &r->cap, r->n, sizeof(*r->v), 16))
		return -ENOMEM;
	r->v[r->n++] = *g;
	return 0;
}

/* Where cgroup v2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts). */
static int cgroup2_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (r && fgets(line, sizeof(line), f)) {
		char mnt[512], *dash = strstr(line, " - ");

		if (!dash || strncmp(dash, " - cgroup2 ", 11) ||
		    sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1)
			continue;
		snprintf(buf, len, "%s", mnt);
		r = 0;
	}
	fclose(f);
	return r;
}

static uint32_t path_level(const char *p)
{
	uint32_t n = 1;

	for (; *p; p++)
		n += *p == '/';
	return n;
}

/* nft's `socket cgroupv2 level N` compares the socket's ancestor at depth N with the id. */
static int resolve_cgroup(const char *path, uint64_t *id, char *err, size_t errlen)
{
	char root[512], full[1024];
	struct stat st;
	int r = cgroup2_root(root, sizeof(root));

	if (r) {
		snprintf(err, errlen, "no cgroup v2 hierarchy is mounted");
		return r;
	}
	snprintf(full, sizeof(full), "%s/%s", root, path);
	if (stat(full, &st) || !S_ISDIR(st.st_mode)) {
		r = errno ? -errno : -ENOTDIR;
		snprintf(err, errlen, "cgroup \"%.100s\": %.300s is not there (%s)", path, full,
			 strerror(-r));
		return r;
	}
	*id = (uint64_t)st.st_ino;
	return 0;
}

struct ctx {
	bool ingress, resolve;
	bool u32;		/* u32 filters, not nft rules: ingress, or a classify_u32 config */
	struct rules *out;
	const struct gw_class_cfg *cls;
	char *err;
	size_t errlen;
};

/* Aligned blocks covering a port range, as u32 needs them (at most 32 for any range). */
static size_t port_blocks(const struct gw_port_range *r, struct gw_port_range *out)
{
	uint32_t lo = r->lo, hi = r->hi;
	size_t n = 0;

	while (lo <= hi) {
		uint32_t size = 1;

		while (!(lo & size) && size < 65536 && lo + size * 2 - 1 <= hi)
			size *= 2;
		out[n].lo = (uint16_t)lo;
		out[n].hi = (uint16_t)(lo + size - 1);
		n++;
		lo += size;
	}
	return n;
}

static int emit_ingress(struct ctx *c, const struct gw_rule *g)
{
	struct gw_port_range sb[34], db[34];
	size_t ns = 1, nd = 1;

	if (g->has_sport)
		ns = port_blocks(&g->sport, sb);
	if (g->has_dport)
		nd = port_blocks(&g->dport, db);
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < nd; k++) {
			struct gw_rule x = *g;
			int r;

			if (g->has_sport)
				x.sport = sb[i];
			if (g->has_dport)
				x.dport = db[k];
			if (c->out->n >= GW_U32_FILTERS_MAX) {
				snprintf(c->err, c->errlen, "class '%s': the ingress classes need more "
					 "than %d u32 filters (port ranges become one filter per "
					 "aligned block)", c->cls->name, GW_U32_FILTERS_MAX);
				return -E2BIG;
			}
			if ((r = push_rule(c->out, &x)))
				return r;
		}
	return 0;
}

/* One combination of the group's list values, in each family it needs. */
static int emit(struct ctx *c, const struct gw_rule *base)
{
	int fams[2] = { base->family, 0 }, nf = 1, r;

	if (!base->family && (base->dscp >= 0 || c->u32)) {
		fams[0] = AF_INET;
		fams[1] = AF_INET6;
		nf = 2;
	}
	for (int i = 0; i < nf; i++) {
		struct gw_rule g = *base;

		g.family = (uint8_t)fams[i];
		if ((g.proto == 1 && g.family == AF_INET6) || (g.proto == 58 && g.family == AF_INET))
			continue;
		r = c->u32 ? emit_ingress(c, &g) : push_rule(c->out, &g);
		if (r)
			return r;
	}
	return 0;
}

static int expand_group(struct ctx *c, const struct gw_match *m, uint32_t classid)
{
	size_t dims[7] = { m->n_src, m->n_dst, m->n_sport, m->n_dport, m->n_dscp, m->n_iif,
			   m->n_oif };
	size_t total = 1, idx[7];
	uint64_t cg = 0;
	int r;

	for (int d = 0; d < 7; d++)
		total *= dims[d] ? dims[d] : 1;
	if (m->cgroup[0]) {
		if (c->resolve) {
			char why[1024];

			if ((r = resolve_cgroup(m->cgroup, &cg, why, sizeof(why)))) {
				snprintf(c->err, c->errlen, "class '%s' (line %d): %.500s",
					 c->cls->name, m->line, why);
				return r;
			}
		} else {
			cg = 1;	/* a stand-in: the dry run prints the path */
		}
	}
	for (size_t k = 0; k < total; k++) {
		struct gw_rule g = { .classid = classid, .proto = m->proto, .dscp = -1 };
		size_t rest = k;

		for (int d = 0; d < 7; d++) {
			size_t n = dims[d] ? dims[d] : 1;

			idx[d] = rest % n;
			rest /= n;
		}
		if (m->n_src) {
			g.has_src = true;
			g.src = m->src[idx[0]];
			g.family = g.src.family;
		}
		if (m->n_dst) {
			if (g.family && g.family != m->dst[idx[1]].family)
				continue;	/* no packet is both */
			g.has_dst = true;
			g.dst = m->dst[idx[1]];
			g.family = g.dst.family;
		}
		if (m->n_sport) {
			g.has_sport = true;
			g.sport = m->sport[idx[2]];
		}
		if (m->n_dport) {
			g.has_dport = true;
			g.dport = m->dport[idx[3]];
		}
		if (m->n_dscp)
			g.dscp = m->dscp[idx[4]];
		if (m->n_iif)
			snprintf(g.iif, sizeof(g.iif), "%s", m->iif[idx[5]]);
		if (m->n_oif)
			snprintf(g.oif, sizeof(g.oif), "%s", m->oif[idx[6]]);
		g.has_mark = m->has_mark;
		g.mark = m->mark;
		g.mark_mask = m->mark_mask;
		if (m->cgroup[0]) {
			g.cgroup = m->cgroup;
			g.cgroup_id = cg;
			g.cgroup_level = path_level(m->cgroup);
		}
		if ((r = emit(c, &g)))
			return r;
	}
	return 0;
}

static uint32_t classid_of(uint32_t slot)
{
	return GW_HANDLE(GW_ROOT_MAJOR, GW_LEAF_MINOR_BASE + slot);
}

/* One direction's classes into rules (and hosts); 0 rules and hosts is fine. */
static int build_dir(struct ctx *c, const struct gw_dir_cfg *d, const uint32_t *slot,
		     struct gw_nft_host **hosts, size_t *n_hosts)
{
	int r;

	for (size_t i = 0; i < d->n_classes; i++) {
		const struct gw_class_cfg *cls = &d->classes[i];

		c->cls = cls;
		for (size_t g = 0; g < cls->n_match; g++)
			if ((r = expand_group(c, &cls->match[g], classid_of(slot[i]))))
				return r;
	}
	if (!hosts || !d->hosts.present || !d->hosts.n)
		return 0;
	*hosts = calloc(d->hosts.n, sizeof(**hosts));
	if (!*hosts)
		return -ENOMEM;
	for (size_t i = 0; i < d->hosts.n; i++) {
		const struct gw_class_cfg *cls = &d->classes[d->hosts.first + i];
		struct gw_nft_host *h = &(*hosts)[(*n_hosts)++];

		h->family = cls->host_addr.family;
		memcpy(h->addr, cls->host_addr.addr, sizeof(h->addr));
		h->classid = classid_of(slot[d->hosts.first + i]);
	}
	return 0;
}

static int build_link(const struct gw_config *cfg, const struct gw_plan *plan, size_t li,
		      struct ctx *c, struct gw_classify *out)
{
	const struct gw_link_cfg *l = &cfg->links[li];
	uint32_t *slot;
	int r = 0;

	for (int dir = 0; dir < 2 && !r; dir++) {
		const struct gw_dir_cfg *d = &l->dir[dir];
		struct rules rules = { 0 };

		if (!d->present || !d->n_classes)
			continue;
		if (!(slot = calloc(d->n_classes, sizeof(*slot))))
			return -ENOMEM;
		gw_plan_slots(plan, li, (enum gw_direction)dir, slot, d->n_classes);
		c->ingress = dir == GW_DIR_INGRESS;
		c->u32 = c->ingress || cfg->classify_u32;
		c->out = &rules;
		if (dir == GW_DIR_EGRESS && !cfg->classify_u32) {
			struct gw_nft_chain ch = { 0 };

			snprintf(ch.name, sizeof(ch.name), "egress-%s", l->name);
			snprintf(ch.oif, sizeof(ch.oif), "%s", l->interface);
			r = build_dir(c, d, slot, &ch.hosts, &ch.n_hosts);
			ch.rules = rules.v;
			ch.n_rules = rules.n;
			if (!r && (ch.n_rules || ch.n_hosts))
				out->nft.chains[out->nft.n++] = ch;
			else {
				free(ch.rules);
				free(ch.hosts);
			}
		} else {
			/* u32: on the ifb, and on a container's host end its own root (on_iface) */
			r = build_dir(c, d, slot, NULL, NULL);
			if (!r && rules.n)
				out->in[out->n_in++] = (struct gw_ingress_rules){ li, rules.v, rules.n,
										  dir == GW_DIR_EGRESS };
			else
				free(rules.v);
		}
		free(slot);
	}
	return r;
}

int gw_classify_build(const struct gw_config *cfg, const struct gw_plan *plan, bool resolve,
		      struct gw_classify *out, char *err, size_t errlen)
{
	struct ctx c = { .resolve = resolve, .err = err, .errlen = errlen };
	size_t n = cfg->n_links ? cfg->n_links : 1;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->nft.chains = calloc(n, sizeof(*out->nft.chains));
	out->in = calloc(2 * n, sizeof(*out->in));
	if (!out->nft.chains || !out->in)
		r = -ENOMEM;
	/* a link waiting for its interface has no classes to sort into yet */
	for (size_t i = 0; !r && i < cfg->n_links; i++)
		if (gw_plan_has_link(plan, i))
			r = build_link(cfg, plan, i, &c, out);
	if (r == -ENOMEM)
		snprintf(err, errlen, "building the classifiers: out of memory");
	if (r)
		gw_classify_free(out);
	return r;
}

void gw_classify_free(struct gw_classify *c)
{
	for (size_t i = 0; c->nft.chains && i < c->nft.n; i++) {
		free(c->nft.chains[i].rules);
		free(c->nft.chains[i].hosts);
	}
	for (size_t i = 0; c->in && i < c->n_in; i++)
		free(c->in[i].rules);
	free(c->nft.chains);
	free(c->in);
	memset(c, 0, sizeof(*c));
}

/* Delete one generation of filters on an ifb, both families; "not there" is fine. */
static void u32_drop(struct gw_nl *nl, int ifindex, unsigned int gen)
{
	struct nl_msg *m[2] = { NULL, NULL };

	if (!gw_u32_build_del(ifindex, gen, AF_INET, &m[0]) &&
	    !gw_u32_build_del(ifindex, gen, AF_INET6, &m[1]))
		gw_nl_batch(nl, m, 2, false, NULL);
	nlmsg_free(m[0]);
	if (m[1])
		nlmsg_free(m[1]);
}

static int u32_add(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		   const struct gw_ingress_rules *in, unsigned int gen, char *err, size_t errlen)
{
	const struct gw_link_cfg *l = &cfg->links[in->link];
	const char *dev = in->on_iface ? l->interface : l->dir[GW_DIR_INGRESS].ifb;
	int ifindex = in->on_iface ? a->facts[in->link].dev.ifindex :
		      a->facts[in->link].ifb.ifindex, r = 0;
	struct nl_msg **m = calloc(in->n + 1, sizeof(*m));
	struct gw_nl_error e = { 0 };
	size_t n = 0;

	if (!m)
		return -ENOMEM;
	u32_drop(nl, ifindex, gen);
	for (; n < in->n && !r; n++)
		r = gw_u32_build(ifindex, &in->rules[n], gen, &m[n]);
	if (!r && (r = gw_nl_batch(nl, m, in->n, true, &e))) {
		char cmd[1024] = "";

		gw_u32_format(dev, &in->rules[e.index < in->n ? e.index : 0], gen, cmd,
			      sizeof(cmd));
		snprintf(err, errlen, "link '%s' %s classifier on %s: the kernel refused `%s`: "
			 "%s (%s)", l->name, in->on_iface ? "egress" : "ingress", dev, cmd,
			 e.msg[0] ? e.msg : "no message", strerror(-r));
	} else if (r) {
		snprintf(err, errlen, "link '%s' %s classifier: %s", l->name,
			 in->on_iface ? "egress" : "ingress", strerror(-r));
	}
	for (size_t i = 0; i < n; i++)
		if (m[i])
			nlmsg_free(m[i]);
	free(m);
	if (r)
		u32_drop(nl, ifindex, gen);
	return r;
}

int gw_classify_apply(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		      char *err, size_t errlen)
{
	unsigned int gen = a->u32_gen ^ 1u;
	struct gw_nft_error e;
	struct gw_classify c;
	size_t added = 0;
	int r;

	if (!cfg->owns_nft && !cfg->classify_u32)
		return 0;	/* a container's tree: the table is the main config's */
	r = gw_classify_build(cfg, &a->plan, true, &c, err, errlen);
	if (r)
		return r;
	/* ingress: the new generation next to the old (a packet meets one or the other) */
	for (; added < c.n_in && !r; added++)
		r = u32_add(nl, cfg, a, &c.in[added], gen, err, errlen);
	if (!cfg->owns_nft) {
		/* a container's: u32 only, and the nft table is never its to touch */
	} else if (!r && (c.nft.n || a->nft_table)) {
		struct timespec t0, t1;
		size_t rules = 0, hosts = 0;

		for (size_t i = 0; i < c.nft.n; i++) {
			rules += c.nft.chains[i].n_rules;
			hosts += c.nft.chains[i].n_hosts;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = gw_nft_apply(nl, &c.nft, &e);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		gw_log(GW_LOG_DEBUG, "nft: table inet %s replaced in %.3f ms (%zu rules, %zu hosts)",
		       GW_NFT_TABLE, (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, rules, hosts);
		if (r)
			snprintf(err, errlen, "the kernel refused gatewayd's nftables table (inet %s): "
				 "%s (%s)", GW_NFT_TABLE, e.msg[0] ? e.msg : "no message",
				 strerror(-r));
	} else if (!r) {
		gw_nft_remove(nl, NULL);	/* a table an earlier run left; nf_tables may be absent */
	}
	for (size_t i = 0; i < cfg->n_links; i++) {
		int ifb = a->facts ? a->facts[i].ifb.ifindex : 0;

		if (!cfg->links[i].dir[GW_DIR_INGRESS].present || !ifb)
			continue;
		/* on success the old generation goes, on failure the new one */
		u32_drop(nl, ifb, r ? gen : gen ^ 1u);
	}
	for (size_t i = 0; cfg->classify_u32 && a->facts && i < cfg->n_links; i++)
		if (cfg->links[i].dir[GW_DIR_EGRESS].present && a->facts[i].dev.ifindex)
			u32_drop(nl, a->facts[i].dev.ifindex, r ? gen : gen ^ 1u);
	if (!r) {
		a->u32_gen = gen;
		a->nft_table = c.nft.n > 0;
	}
	gw_classify_free(&c);
	return r;
}

/* The filters of gatewayd's priorities on one device's htb root. */
struct got_filters {
	struct gw_u32_got *v;
	bool *used;
	size_t n, cap;
	int err;
};

static int got_cb(const struct nlmsghdr *h, void *arg)
{
	struct got_filters *g = arg;
	struct gw_u32_got f;
	int r = gw_u32_parse(h, &f);

	if (r == -ENOENT)
		return 0;
	if (r)
		return r;
	if (f.parent != GW_ROOT_HANDLE || !gw_u32_prio_ours(f.prio))
		return 0;
	if (g->n >= GW_U32_FILTERS_MAX * 2)
		return -E2BIG;
	if (gw_grow(&g->v, &g->cap, g->n, sizeof(*g->v), 16))
		return -ENOMEM;
	g->v[g->n++] = f;
	return 0;
}

/* One device's expected rules against what its dump holds. */
static int verify_dev(struct gw_nl *nl, const struct gw_config *cfg, int ifindex,
		      const struct gw_ingress_rules *in, char *err, size_t errlen)
{
	const struct gw_link_cfg *l = &cfg->links[in->link];
	const char *dev = in->on_iface ? l->interface : l->dir[GW_DIR_INGRESS].ifb;
	struct got_filters g = { 0 };
	char cmd[1024] = "";
	int r = gw_nl_dump_tc(nl, RTM_GETTFILTER, ifindex, GW_ROOT_HANDLE, got_cb, &g, NULL);

	if (r) {
		snprintf(err, errlen, "link '%s': reading the filters of %s back: %s", l->name, dev,
			 strerror(-r));
		free(g.v);
		return r;
	}
	if (g.n && !(g.used = calloc(g.n, sizeof(*g.used)))) {
		free(g.v);
		return -ENOMEM;
	}
	for (size_t k = 0; k < in->n && !r; k++) {
		size_t i;

		for (i = 0; i < g.n && (g.used[i] || !gw_u32_matches(&in->rules[k], &g.v[i])); i++)
			;
		if (i < g.n) {
			g.used[i] = true;
			continue;
		}
		gw_u32_format(dev, &in->rules[k], 0, cmd, sizeof(cmd));
		snprintf(err, errlen, "link '%s' %s classifier on %s: read back from the kernel: "
			 "`%s` (or its prio + 2) is not there", l->name,
			 in->on_iface ? "egress" : "ingress", dev, cmd);
		r = -EPROTO;
	}
	for (size_t i = 0; i < g.n && !r; i++)
		if (!g.used[i]) {
			snprintf(err, errlen, "link '%s' classifiers on %s: read back from the kernel: "
				 "a u32 filter at prio %u to class %x:%x that gatewayd did not make",
				 l->name, dev, g.v[i].prio, g.v[i].classid >> 16,
				 g.v[i].classid & 0xffff);
			r = -EPROTO;
		}
	free(g.used);
	free(g.v);
	return r;
}

int gw_classify_verify(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
		       char *err, size_t errlen)
{
	struct gw_classify c;
	int r;

	if (!cfg->classify_u32)
		return 0;
	if ((r = gw_classify_build(cfg, &a->plan, false, &c, err, errlen)))
		return r;
	for (size_t i = 0; i < c.n_in && !r; i++) {
		const struct gw_link_facts *f = &a->facts[c.in[i].link];

		r = verify_dev(nl, cfg, c.in[i].on_iface ? f->dev.ifindex : f->ifb.ifindex, &c.in[i],
			       err, errlen);
	}
	gw_classify_free(&c);
	return r;
}

int gw_classify_remove(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen)
{
	struct gw_nft_error e;
	int r = gw_nft_remove(nl, &e);

	if (r)
		snprintf(err, errlen, "removing nftables table inet %s: %s (%s)", GW_NFT_TABLE,
			 e.msg[0] ? e.msg : "no message", strerror(-r));
	else
		a->nft_table = false;
	return r;
}

int gw_classify_dryrun(FILE *out, const struct gw_config *cfg, const struct gw_plan *plan,
		       char *err, size_t errlen)
{
	struct gw_classify c;
	char line[1024];
	int r = gw_classify_build(cfg, plan, false, &c, err, errlen);

	if (r)
		return r;
	for (size_t i = 0; i < c.n_in && !r; i++) {
		const char *ifb = cfg->links[c.in[i].link].dir[GW_DIR_INGRESS].ifb;

		for (size_t k = 0; k < c.in[i].n && r >= 0; k++) {
			r = gw_u32_format(ifb, &c.in[i].rules[k], 0, line, sizeof(line));
			if (r >= 0)
				fprintf(out, "%s\n", line);
		}
		r = r < 0 ? r : 0;
	}
	if (!r && c.nft.n) {
		fprintf(out, "# egress classes: gatewayd's nftables table, replaced in one "
			"transaction\nnft -f - <<'EOF'\n");
		r = gw_nft_format(out, &c.nft);
		fprintf(out, "EOF\n");
	}
	if (r)
		snprintf(err, errlen, "formatting the classifiers: %s", strerror(-r));
	gw_classify_free(&c);
	return r;
}
