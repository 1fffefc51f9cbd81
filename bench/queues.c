/* bench/queues.c: the queues a run can compare (the registry's leaves, then its shapers that
 * queue by themselves); --qdiscs and --rate read: each queue with its knobs in the config
 * language's own names, checked by the config's own child parser, and a rate per direction. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "config/config.h"
#include "bench/queues.h"
#include "bench/run.h"
#include "qdisc/qdisc.h"
#include "webui/benchfile.h"

static struct bench_queue queues[BENCH_Q_COUNT];
static size_t n_queues;

/* From the registry, once: its leaves, then its shapers that are their own queue. */
static void list_queues(void)
{
	const struct gw_qdisc_ops *ops;

	if (n_queues)
		return;
	for (size_t i = 0; (ops = gw_qdisc_leaf(i)) && n_queues < BENCH_Q_COUNT; i++) {
		snprintf(queues[n_queues].name, sizeof(queues[n_queues].name), "%s", ops->name);
		queues[n_queues++].ops = ops;
	}
	for (size_t i = 0; (ops = gw_qdisc_shaper(i)) && n_queues < BENCH_Q_COUNT; i++)
		if (ops->shaper == GW_SHAPER_SELF) {
			snprintf(queues[n_queues].name, sizeof(queues[n_queues].name), "%s-shaper",
				 ops->name);
			queues[n_queues].ops = ops;
			queues[n_queues++].shaper = true;
		}
}

const struct bench_queue *bench_queue(enum bench_qdisc q)
{
	list_queues();
	return (size_t)q < n_queues ? &queues[q] : NULL;
}

const char *bench_qdisc_name(enum bench_qdisc q)
{
	const struct bench_queue *x = bench_queue(q);

	return x ? x->name : "?";
}

#define KNOB_PART_MAX 32	/* a key's or a value's characters */

/* Is key set in a `key = value; ...` text? */
static bool text_has_key(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = text; (s = strstr(s, key)); s += n)
		if ((s == text || s[-1] == ' ') && !strncmp(s + n, " = ", 3))
			return true;
	return false;
}

/* A bench setting list ("limit = 1000;") onto buf, less the keys the user set in knobs. */
static void add_bench(char *buf, size_t len, const char *bench, const char *knobs)
{
	char one[128], key[KNOB_PART_MAX + 1];

	for (const char *s = bench; s && *s;) {
		size_t n = strcspn(s, ";"), k;

		snprintf(one, sizeof(one), "%.*s;", (int)n, s);
		s += n + (s[n] == ';');
		while (*s == ' ')
			s++;
		k = strcspn(one, " =;");
		if (k == 0 || k > KNOB_PART_MAX)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)k, one);
		if (text_has_key(knobs, key))
			continue;
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " %s", one);
	}
}

void bench_child_text(const struct bench_queue *x, const char *knobs, bool ingress, char *buf,
		      size_t len)
{
	snprintf(buf, len, "kind = \"%s\";%s%s", x->ops->name, knobs[0] ? " " : "", knobs);
	add_bench(buf, len, x->ops->bench, knobs);
	if (ingress)
		add_bench(buf, len, x->ops->bench_ingress, knobs);
}

static bool only(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define VALUE_CHARS LOWER "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"

/* A word alone: the kind's bool key of that name (true), or the enum key that has it among
 * its words (cake:diffserv4 is diffserv = "diffserv4"). */
static const struct gw_key *word_key(const struct gw_qdisc_ops *ops, const char *word,
				     bool *is_bool)
{
	for (size_t i = 0; i < ops->n_keys; i++) {
		const struct gw_key *k = &ops->keys[i];

		if (!k->name)
			continue;
		if (k->unit == GW_KU_BOOL && !strcmp(k->name, word)) {
			*is_bool = true;
			return k;
		}
		for (size_t w = 0; k->unit == GW_KU_ENUM && w < k->n_words; w++)
			if (k->words[w].name && !strcmp(k->words[w].name, word)) {
				*is_bool = false;
				return k;
			}
	}
	return NULL;
}

/* One knob, "key=value" or a word, onto p's knobs (as libconfig text) and its label. */
static int add_knob(struct bench_pick *p, const struct bench_queue *x, const char *knob, char *err,
		    size_t errlen)
{
	char key[KNOB_PART_MAX + 1], val[KNOB_PART_MAX + 1], one[2 * KNOB_PART_MAX + 16];
	const char *eq = strchr(knob, '=');
	size_t kl = eq ? (size_t)(eq - knob) : strlen(knob);

	if (!*knob) {
		snprintf(err, errlen, "--qdiscs %s: an empty knob (two ':' in a row?)", p->label);
		return -EINVAL;
	}
	if (kl > KNOB_PART_MAX || (eq && strlen(eq + 1) > KNOB_PART_MAX)) {
		snprintf(err, errlen, "--qdiscs %s: '%.40s...' is too long (keys and values up to %d characters)",
			 p->label, knob, KNOB_PART_MAX);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)kl, knob);
	if (!eq) {
		bool is_bool = false;
		const struct gw_key *k = only(key, VALUE_CHARS) ? word_key(x->ops, key, &is_bool) : NULL;

		if (!k) {
			snprintf(err, errlen, "--qdiscs %s: '%s' is neither KEY=VALUE nor a word of %s's settings (a bool key's name, or a value of one of its named settings)",
				 p->label, key, x->ops->name);
			return -EINVAL;
		}
		snprintf(val, sizeof(val), "%s", is_bool ? "true" : key);
		snprintf(key, sizeof(key), "%s", k->name);
	} else
		snprintf(val, sizeof(val), "%s", eq + 1);
	if (!only(key, LOWER "0123456789_") || !only(val, VALUE_CHARS)) {
		snprintf(err, errlen, "--qdiscs %s: '%s': a key is lower-case letters, digits and _, a value letters, digits and . _ + - (and not empty)",
			 p->label, knob);
		return -EINVAL;
	}
	if (text_has_key(p->knobs, key)) {
		snprintf(err, errlen, "--qdiscs %s: '%s' is given twice", p->label, key);
		return -EINVAL;
	}
	/* as one would write it in the config: whole numbers and true/false bare, the rest
	 * (times, rates, sizes with a unit, words) a string; the parser judges the type */
	if (only(val, "0123456789") || (val[0] == '-' && only(val + 1, "0123456789")))
		snprintf(one, sizeof(one), "%s = %sL;", key, val);
	else if (!strcmp(val, "true") || !strcmp(val, "false"))
		snprintf(one, sizeof(one), "%s = %s;", key, val);
	else
		snprintf(one, sizeof(one), "%s = \"%s\";", key, val);
	size_t l = strlen(p->knobs), ll = strlen(p->label);

	if (l + strlen(one) + 2 > sizeof(p->knobs) || ll + strlen(knob) + 2 > sizeof(p->label)) {
		snprintf(err, errlen, "--qdiscs %s: too many knobs (a queue's name and knobs up to %zu characters)",
			 p->label, sizeof(p->label) - 1);
		return -EINVAL;
	}
	snprintf(p->knobs + l, sizeof(p->knobs) - l, "%s%s", l ? " " : "", one);
	snprintf(p->label + ll, sizeof(p->label) - ll, ":%s", knob);
	return 0;
}

/* The queue's settings, both ways, through the config's own child parser: the same keys,
 * ranges, checks and messages as a config's child under the same shaper. */
static int check_pick(const struct bench_pick *p, char *err, size_t errlen)
{
	const struct bench_queue *x = bench_queue(p->q);
	enum gw_kind shaper = x->shaper ? gw_qdisc_kind(x->ops) : GW_KIND_HTB;
	char text[BENCH_KNOBS_MAX + 256], child[BENCH_KNOBS_MAX + 128];
	char where[GW_BENCH_LABEL_MAX + 16];
	struct gw_child c;

	snprintf(where, sizeof(where), "--qdiscs %s", p->label);
	for (int in = 0; in < 2; in++) {
		bench_child_text(x, p->knobs, in, child, sizeof(child));
		snprintf(text, sizeof(text), "child = { %s };", child);
		if (gw_child_parse_text(text, where, shaper, &c, err, errlen))
			return -EINVAL;
	}
	return 0;
}

int bench_parse_qdiscs(const char *list, struct bench_pick *out, size_t max, size_t *n, char *err,
		       size_t errlen)
{
	char buf[BENCH_QDISCS_TEXT_MAX], *save = NULL;
	const struct bench_queue *x;

	*n = 0;
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, errlen, "--qdiscs: longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *knobs;
		struct bench_pick *p;

		if (colon)
			*colon = 0;
		if (strchr(tok, '=')) {
			/* "fq_codel:target=2ms,quantum=300": a KEY=VALUE after a comma is one more
			 * knob of the queue before it (no queue's name has a '=') */
			if (colon)
				*colon = ':';
			if (!*n) {
				snprintf(err, errlen, "--qdiscs: '%s' is a knob, and a queue's name comes first (like fq_codel:%s)",
					 tok, tok);
				return -EINVAL;
			}
			p = &out[*n - 1];
			knobs = tok;
		} else {
			int q;

			for (q = 0; (x = bench_queue((enum bench_qdisc)q)); q++)
				if (!strcmp(tok, x->name))
					break;
			if (!x) {
				char all[256] = "";
				size_t l = 0;

				for (int k = 0; (x = bench_queue((enum bench_qdisc)k)) && l < sizeof(all); k++)
					l += (size_t)snprintf(all + l, sizeof(all) - l, "%s%s",
							      k ? ", " : "", x->name);
				snprintf(err, errlen, "--qdiscs: unknown qdisc '%.64s' (%s)", tok, all);
				return -EINVAL;
			}
			if (*n == max) {
				snprintf(err, errlen, "--qdiscs: at most %zu queues", max);
				return -EINVAL;
			}
			p = &out[(*n)++];
			memset(p, 0, sizeof(*p));
			p->q = (enum bench_qdisc)q;
			snprintf(p->label, sizeof(p->label), "%s", x->name);
			knobs = colon ? colon + 1 : NULL;
		}
		x = bench_queue(p->q);
		while (knobs) {
			char *next = strchr(knobs, ':');

			if (next)
				*next++ = 0;
			if (add_knob(p, x, knobs, err, errlen))
				return -EINVAL;
			knobs = next;
		}
	}
	if (!*n) {
		snprintf(err, errlen, "--qdiscs: no queue named");
		return -EINVAL;
	}
	for (size_t i = 0; i < *n; i++)
		if (check_pick(&out[i], err, errlen))
			return -EINVAL;
	return 0;
}

static int one_rate(const char *s, size_t len, uint64_t *rate)
{
	char b[32];
	uint64_t r;

	if (len == 0 || len >= sizeof(b))
		return -EINVAL;
	snprintf(b, sizeof(b), "%.*s", (int)len, s);
	if (gw_parse_rate(b, &r) || r < 100000 / 8 || r > 1000000000ULL / 8)
		return -EINVAL;
	*rate = r;
	return 0;
}

int bench_parse_rates(const char *s, uint64_t rate[2], char text[2][32])
{
	const char *slash = strchr(s, '/');
	size_t dl = slash ? (size_t)(slash - s) : strlen(s);

	if (one_rate(s, dl, &rate[1]))
		return -EINVAL;
	if (!slash)
		rate[0] = rate[1];
	else if (strchr(slash + 1, '/') || one_rate(slash + 1, strlen(slash + 1), &rate[0]))
		return -EINVAL;
	snprintf(text[1], 32, "%.*s", (int)dl, s);
	snprintf(text[0], 32, "%s", slash ? slash + 1 : text[1]);
	return 0;
}

void bench_rate_text(char *buf, size_t len, int64_t bps, bool words)
{
	static const int64_t div[3] = { 1000000, 1000, 1 };
	static const char *const unit[2][3] = { { "mbit", "kbit", "bit" },
						{ " Mbit/s", " kbit/s", " bit/s" } };
	int u = bps % div[0] == 0 ? 0 : bps % div[1] == 0 ? 1 : 2;

	snprintf(buf, len, "%lld%s", (long long)(bps / div[u]), unit[words][u]);
}

const char *bench_result_label(const struct bench_result *r)
{
	return r->label[0] ? r->label : bench_qdisc_name(r->q);
}

void bench_label_file(const struct bench_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", bench_result_label(r));
	/* a file name without ':' or '=': fq_codel:target=2ms is fq_codel_target-2ms */
	for (char *c = buf; *c; c++)
		if (*c == '=')
			*c = '-';
		else if (!strchr(VALUE_CHARS, *c))
			*c = '_';
}
