/* bench/config_link.c: `--compare -c CONFIG`: the config's own link (its shaper, its
 * classes with their matches and each class's queue and knobs) moved onto the bench's gateway,
 * at the config's rates, beside the dumb fifo of the same rates; with --qdiscs, the same tree
 * once more per queue named, that queue in every leaf. The config is read twice: by gatewayd's
 * own loader, which judges it and gives the rates and kinds, and by libconfig as text, which
 * is edited (the gateway's device, the bench's ifb, no autorate, nothing but the link) and
 * written out as the run's config, so every key the user wrote reaches the daemon as written. */
#include <errno.h>
#include <libconfig.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "bench/config_link.h"
#include "bench/options.h"
#include "bench/queues.h"
#include "bench/testbed.h"
#include "qdisc/qdisc.h"
#include "webui/benchfile.h"

/* The bench's queue of a config's kind: a leaf under a shaper, or the kind shaping alone. */
static int queue_of(enum gw_kind kind, bool shaper)
{
	const struct bench_queue *x;

	for (int q = 0; (x = bench_queue((enum bench_qdisc)q)); q++)
		if (x->shaper == shaper && gw_qdisc_kind(x->ops) == kind)
			return q;
	return -1;
}

/* The queues a direction's tree needs the kernel to have (bits by enum bench_qdisc), and the
 * first leaf's queue into *first (-1 when it has none). */
static uint32_t dir_needs(const struct gw_dir_cfg *d, int *first)
{
	uint32_t m = 0;
	int q;

	if (d->shaper != GW_KIND_HTB && d->shaper != GW_KIND_TBF) {
		if ((q = queue_of(d->shaper, true)) >= 0) {
			m |= 1u << q;
			if (*first < 0)
				*first = q;
		}
		return m;
	}
	/* tbf's child, or the one class of an htb without classes */
	if ((d->shaper == GW_KIND_TBF || d->n_classes == 0) &&
	    (q = queue_of(d->child.kind, false)) >= 0) {
		m |= 1u << q;
		if (*first < 0)
			*first = q;
	}
	for (size_t i = 0; i < d->n_classes; i++)
		if ((q = queue_of(d->classes[i].child.kind, false)) >= 0) {
			m |= 1u << q;
			if (*first < 0)
				*first = q;
		}
	return m;
}

/* Copy the scalar members of group from into group to, after emptying to. 0 or -EINVAL. */
static int copy_group(config_setting_t *to, const config_setting_t *from)
{
	while (config_setting_length(to) > 0)
		if (config_setting_remove_elem(to, 0) != CONFIG_TRUE)
			return -EINVAL;
	for (int i = 0; i < config_setting_length(from); i++) {
		const config_setting_t *s = config_setting_get_elem(from, (unsigned int)i);
		int type = config_setting_type(s);
		config_setting_t *n = config_setting_add(to, config_setting_name(s), type);
		int ok;

		if (!n)
			return -EINVAL;
		switch (type) {
		case CONFIG_TYPE_INT:
			ok = config_setting_set_int(n, config_setting_get_int(s));
			break;
		case CONFIG_TYPE_INT64:
			ok = config_setting_set_int64(n, config_setting_get_int64(s));
			break;
		case CONFIG_TYPE_FLOAT:
			ok = config_setting_set_float(n, config_setting_get_float(s));
			break;
		case CONFIG_TYPE_BOOL:
			ok = config_setting_set_bool(n, config_setting_get_bool(s));
			break;
		case CONFIG_TYPE_STRING:
			ok = config_setting_set_string(n, config_setting_get_string(s));
			break;
		default:	/* a knob is a scalar (queues.c writes no other) */
			return -EINVAL;
		}
		if (ok != CONFIG_TRUE)
			return -EINVAL;
	}
	return 0;
}

/* grp's member `child`, made when it has none, set to the child block text (`kind = ...;`). */
static int set_child(config_setting_t *grp, const char *text)
{
	config_setting_t *c = config_setting_get_member(grp, "child");
	char buf[BENCH_KNOBS_MAX + 160];
	config_t t;
	int e;

	if (!c && !(c = config_setting_add(grp, "child", CONFIG_TYPE_GROUP)))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "child = { %s };", text);
	config_init(&t);
	e = config_read_string(&t, buf) == CONFIG_TRUE ?
		copy_group(c, config_lookup(&t, "child")) : -EINVAL;
	config_destroy(&t);
	return e;
}

/* Every leaf of a direction's group gets queue x with knobs: each class's child, `hosts`'
 * child, and the child of an htb without classes or of tbf. */
static int swap_leaves(config_setting_t *dir, const struct bench_queue *x, const char *knobs,
		       bool ingress)
{
	config_setting_t *classes = config_setting_get_member(dir, "classes");
	config_setting_t *hosts = config_setting_get_member(dir, "hosts");
	char text[BENCH_KNOBS_MAX + 128];
	int e = 0;

	bench_child_text(x, knobs, ingress, text, sizeof(text));
	for (int i = 0; classes && !e && i < config_setting_length(classes); i++)
		e = set_child(config_setting_get_elem(classes, (unsigned int)i), text);
	if (!e && hosts)
		e = set_child(hosts, text);
	if (!e && !(classes && config_setting_length(classes) > 0))
		e = set_child(dir, text);
	return e;
}

static int set_string(config_setting_t *grp, const char *name, const char *v)
{
	config_setting_t *s = config_setting_get_member(grp, name);

	if (s && config_setting_type(s) != CONFIG_TYPE_STRING) {
		config_setting_remove(grp, name);
		s = NULL;
	}
	if (!s && !(s = config_setting_add(grp, name, CONFIG_TYPE_STRING)))
		return -EINVAL;
	return config_setting_set_string(s, v) == CONFIG_TRUE ? 0 : -EINVAL;
}

/* The run's config text: the file's link at index k alone, on the bench's devices, with x's
 * queue in every leaf when x is not NULL. malloc'd, or NULL (err says). */
static char *own_text(const char *file, size_t k, const struct bench_queue *x, const char *knobs,
		      char *err, size_t errlen)
{
	char dir[PATH_MAX], *text = NULL;
	size_t len = 0;
	config_setting_t *root, *links, *link;
	config_t c;
	FILE *f;
	int e = 0;

	snprintf(dir, sizeof(dir), "%s", file);
	config_init(&c);
	config_set_include_dir(&c, dirname(dir));	/* @include as gatewayd reads it */
	if (config_read_file(&c, file) != CONFIG_TRUE) {
		snprintf(err, errlen, "%s:%d: %s", file, config_error_line(&c),
			 config_error_text(&c));
		config_destroy(&c);
		return NULL;
	}
	root = config_root_setting(&c);
	/* nothing but the link: no listen, probe, containers, compare_dir... of the user's */
	for (int i = config_setting_length(root) - 1; i >= 0 && !e; i--)
		if (strcmp(config_setting_name(config_setting_get_elem(root, (unsigned int)i)),
			   "links"))
			e = config_setting_remove_elem(root, (unsigned int)i) == CONFIG_TRUE ? 0 : -EINVAL;
	links = config_setting_get_member(root, "links");
	for (int i = links ? config_setting_length(links) - 1 : -1; i >= 0 && !e; i--)
		if ((size_t)i != k)
			e = config_setting_remove_elem(links, (unsigned int)i) == CONFIG_TRUE ? 0 : -EINVAL;
	link = links ? config_setting_get_elem(links, 0) : NULL;
	if (!link)
		e = -EINVAL;
	if (!e) {
		config_setting_t *eg = config_setting_get_member(link, "egress");
		config_setting_t *in = config_setting_get_member(link, "ingress");

		/* the bench probes by itself, and its line does not vary: no probe, no autorate */
		if (config_setting_get_member(link, "probe"))
			config_setting_remove(link, "probe");
		for (int d = 0; d < 2; d++) {
			config_setting_t *g = d ? in : eg;

			if (g && config_setting_get_member(g, "autorate"))
				config_setting_remove(g, "autorate");
			if (g && x && !e)
				e = swap_leaves(g, x, knobs, d == 1);
		}
		if (!e)
			e = set_string(link, "interface", BENCH_GW_WAN);
		if (!e && in)
			e = set_string(in, "ifb", BENCH_GW_IFB);
		if (!e)
			e = set_string(root, "listen", "127.0.0.1:9180");
		if (!e)
			e = set_string(root, "interval", "1s");
		if (!e)
			e = set_string(root, "control_socket", "");
	}
	if (!e && (f = open_memstream(&text, &len))) {
		fprintf(f, "# generated by gatewayd --compare from %s\n", file);
		config_write(&c, f);
		if (fclose(f)) {
			free(text);
			text = NULL;
		}
	}
	if (!text)
		snprintf(err, errlen, "%s: cannot write the bench's copy of its link", file);
	config_destroy(&c);
	return text;
}

/* The bench's rate text of a config rate (bytes/s), and whether the bench takes it. */
static bool bench_rate(uint64_t bytes, char text[32])
{
	unsigned long long b = (unsigned long long)bytes * 8;

	bench_rate_text(text, 32, (int64_t)b, false);
	return b >= 100000 && b <= 1000000000ULL;
}

/* The config's link the bench measures: --link's, or the config's one link; its index into
 * *k. 0, or -EINVAL with why in err. */
static int pick_link(const struct bench_opts *o, const struct gw_config *cfg, size_t *k, char *err,
		     size_t errlen)
{
	char names[256] = "";
	size_t n = 0;

	if (cfg->n_links == 0) {
		snprintf(err, errlen, "%s: -c: the config has no link for the bench to measure", o->config);
		return -EINVAL;
	}
	for (*k = 0; *k < cfg->n_links; (*k)++)
		if (o->own_link[0] ? !strcmp(cfg->links[*k].name, o->own_link) : cfg->n_links == 1)
			return 0;
	for (size_t i = 0; i < cfg->n_links && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      cfg->links[i].name);
	if (o->own_link[0])
		snprintf(err, errlen, "%s: --link: no link named '%s' (%s)", o->config, o->own_link,
			 names);
	else
		snprintf(err, errlen, "%s: -c: the config has %zu links (%s): --link NAME says which the bench measures",
			 o->config, cfg->n_links, names);
	return -EINVAL;
}

/* The link's rates as the bench's (both directions shaped, each in the bench's range), and
 * what the bench leaves out or needs of it (autorate; nftables). */
static int take_link(struct bench_opts *o, const struct gw_link_cfg *l, char *err, size_t errlen)
{
	snprintf(o->own_link, sizeof(o->own_link), "%s", l->name);
	for (int d = 0; d < 2; d++) {
		const struct gw_dir_cfg *dc = &l->dir[d];

		if (!dc->present) {
			snprintf(err, errlen, "%s:%d: link '%s' has no %s block: the bench measures both directions, and needs the link to shape both",
				 o->config, l->line, l->name, gw_direction_name((enum gw_direction)d));
			return -EINVAL;
		}
		o->rate[d] = dc->rate;
		if (!bench_rate(dc->rate, o->dir_text[d])) {
			snprintf(err, errlen, "%s:%d: link '%s': its %s rate of %llu bit/s is outside the bench's 100kbit to 1gbit",
				 o->config, dc->line, l->name, gw_direction_name((enum gw_direction)d),
				 (unsigned long long)dc->rate * 8);
			return -EINVAL;
		}
	}
	snprintf(o->rate_text, sizeof(o->rate_text), "%.15s/%.15s", o->dir_text[1], o->dir_text[0]);
	o->own_autorate = l->dir[0].autorate.present || l->dir[1].autorate.present;
	for (int d = 0; d < 2; d++) {
		o->own_nft |= l->dir[d].hosts.present;
		for (size_t i = 0; i < l->dir[d].n_classes; i++)
			o->own_nft |= l->dir[d].classes[i].n_match > 0;
	}
	return 0;
}

/* The user's queues can each go in every leaf of the link: leaf kinds, and a link whose
 * shapers have leaves (htb, tbf), no more than the bench holds. */
static int check_swaps(const struct bench_opts *o, const struct gw_link_cfg *l,
		       const struct bench_pick *user, size_t n_user, char *err, size_t errlen)
{
	if (n_user + 2 > GW_BENCH_MAX_QUEUES) {
		snprintf(err, errlen, "-c with --qdiscs: at most %d queues besides the config's own tree and the fifo",
			 GW_BENCH_MAX_QUEUES - 2);
		return -EINVAL;
	}
	for (size_t i = 0; i < n_user; i++) {
		if (bench_queue(user[i].q)->shaper) {
			snprintf(err, errlen, "-c with --qdiscs %s: a queue that shapes by itself has no place in a class; name leaf queues (fifo, fq_codel, cake, ...)",
				 user[i].label);
			return -EINVAL;
		}
		for (int d = 0; d < 2; d++)
			if (l->dir[d].shaper != GW_KIND_HTB && l->dir[d].shaper != GW_KIND_TBF) {
				snprintf(err, errlen, "%s:%d: -c with --qdiscs: link '%s' shapes its %s with %s itself, which has no leaf queue to swap",
					 o->config, l->dir[d].line, l->name,
					 gw_direction_name((enum gw_direction)d),
					 gw_qdisc_ops(l->dir[d].shaper)->name);
				return -EINVAL;
			}
	}
	return 0;
}

/* The runs: the dumb fifo at the same rates, the link as written, then each swap; each of
 * the config's runs given its config text, judged now by the daemon's own loader (a swap the
 * tree refuses, a kind its shaper cannot hold, stops here, before anything runs). */
static int make_picks(struct bench_opts *o, const struct gw_link_cfg *l, size_t k,
		      const struct bench_pick *user, size_t n_user, char *err, size_t errlen)
{
	struct bench_pick *p = o->pick;
	int fifo = queue_of(GW_KIND_FIFO, false), first = -1, e = 0;

	memset(o->pick, 0, sizeof(o->pick));
	p[0].q = (enum bench_qdisc)fifo;
	p[0].needs = 1u << fifo;
	snprintf(p[0].label, sizeof(p[0].label), "fifo");
	p[1].needs = dir_needs(&l->dir[0], &first) | dir_needs(&l->dir[1], &first);
	p[1].q = (enum bench_qdisc)(first >= 0 ? first : fifo);
	snprintf(p[1].label, sizeof(p[1].label), "%s", l->name);
	for (size_t i = 0; i < n_user; i++) {
		p[2 + i] = user[i];
		p[2 + i].needs = 1u << user[i].q;
		snprintf(p[2 + i].label, sizeof(p[2 + i].label), "%.30s+%.*s", l->name,
			 (int)(sizeof(p[0].label) - 32), user[i].label);
	}
	o->n_qdiscs = n_user + 2;
	for (size_t i = 1; i < o->n_qdiscs && !e; i++) {
		struct gw_config *check = NULL;
		char what[GW_BENCH_LABEL_MAX + 32];

		p[i].own = true;
		p[i].conf = own_text(o->config, k, i > 1 ? bench_queue(p[i].q) : NULL, p[i].knobs,
				     err, errlen);
		if (!p[i].conf)
			return -EINVAL;
		snprintf(what, sizeof(what), "the bench's %s", p[i].label);
		if ((e = gw_config_load_string(what, p[i].conf, &check, err, errlen)) == 0)
			gw_config_free(check);
	}
	for (size_t i = 0; i < o->n_qdiscs; i++)
		o->qdiscs[i] = p[i].q;
	return e;
}

int bench_own_setup(struct bench_opts *o, const struct bench_pick *user, size_t n_user, char *err,
		    size_t errlen)
{
	struct gw_config *cfg = NULL;
	size_t k = 0;
	int e;

	if ((e = gw_config_load(o->config, &cfg, err, errlen)))
		return e;
	if (!(e = pick_link(o, cfg, &k, err, errlen)) &&
	    !(e = take_link(o, &cfg->links[k], err, errlen)) &&
	    !(e = check_swaps(o, &cfg->links[k], user, n_user, err, errlen)))
		e = make_picks(o, &cfg->links[k], k, user, n_user, err, errlen);
	if (e)
		bench_own_free(o);
	gw_config_free(cfg);
	return e;
}

void bench_own_free(struct bench_opts *o)
{
	for (size_t i = 0; i < GW_BENCH_MAX_QUEUES; i++) {
		free(o->pick[i].conf);
		o->pick[i].conf = NULL;
	}
}
