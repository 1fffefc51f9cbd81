/* tests/unit/history_model.h: what the history must answer, written from what
 * webui/history.h promises and not from history.c: every pass is kept whole, with the
 * doubles that were pushed, and each answer is worked out when it is asked for with plain
 * arithmetic (the last raw_len passes as they came; per closed minute the least, the mean
 * and the greatest value). There is no ring, no 16-bit code and no packed block here, so a
 * bug in how history.c stores its points cannot be copied into the answers it is checked
 * against. The one thing taken from the format is what a stored value may differ by: the
 * nearest of the 2^-16 .. 2^48 codes 1/1024 of an octave apart (hm_code_pos), which
 * test_history.c allows for when it compares. Included by test_history.c alone. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "webui/history.h"

#define HM_SERIES 16	/* series a model holds, at most */

enum { HM_RATE, HM_DELAY, HM_DROPS, HM_BACKLOG, HM_NV };
enum { HM_BASE, HM_P50, HM_P99, HM_NL };
/* an answer's eight figures, in struct gw_hist_point's order */
enum { HM_RATE_MIN, HM_RATE_AVG, HM_RATE_MAX, HM_DELAY_MIN, HM_DELAY_AVG, HM_DELAY_MAX,
       HM_DROPS_AVG, HM_BACKLOG_AVG, HM_NF };

/* One sampling pass as it was pushed; a series not pushed reads zeros, a latency or a
 * shaper's rate not pushed reads as none. */
struct hm_pass {
	double t;
	uint32_t pushed, lat_pushed, shaper_pushed;	/* bit i: series i */
	double v[HM_SERIES][HM_NV];
	double lat[HM_SERIES][HM_NL];
	double shaper[HM_SERIES];
};

struct hm {
	size_t n_series, raw_len;
	uint32_t lat, shaper;		/* bit i: series i keeps latency, the shaper's rate */
	struct hm_pass *p;
	size_t n, cap;
};

/* What an answer must be near: f[] are the exact figures (NAN: none, only for latency and
 * the shaper's rate), slack[] how many codes beyond half of one an answer may be off by
 * where the rings sum in single precision. */
struct hm_point {
	double t;
	double f[HM_NF], slack[HM_NF];
	double lat[HM_NL];
	bool has_shaper;
	double shaper;
};

static struct hm *hm_new(size_t n_series, int64_t interval_us)
{
	struct hm *m = calloc(1, sizeof(*m));

	if (!m || n_series > HM_SERIES) {
		free(m);
		return NULL;
	}
	m->n_series = n_series;
	/* "the last 15 minutes at the sampling interval": that many passes, 2 at least */
	m->raw_len = (size_t)(GW_HIST_RAW_SECONDS * 1000000LL /
			      (interval_us > 0 ? interval_us : 1000000));
	if (m->raw_len < 2)
		m->raw_len = 2;
	return m;
}

static void hm_free(struct hm *m)
{
	if (m)
		free(m->p);
	free(m);
}

static void hm_track_latency(struct hm *m, size_t i)
{
	if (i < m->n_series)
		m->lat |= 1u << i;
}

static void hm_track_shaper(struct hm *m, size_t i)
{
	if (i < m->n_series)
		m->lat |= 1u << i, m->shaper |= 1u << i;
}

static void hm_pass(struct hm *m, double t)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct hm_pass *p = realloc(m->p, cap * sizeof(*p));

		if (!p)
			abort();
		m->p = p;
		m->cap = cap;
	}
	memset(&m->p[m->n], 0, sizeof(m->p[m->n]));
	m->p[m->n++].t = t;
}

/* Pushes go to the last pass; none before the first, none for a series it does not have. */
static void hm_push(struct hm *m, size_t i, double rate, double delay, double drops,
		    double backlog)
{
	struct hm_pass *p = m->n ? &m->p[m->n - 1] : NULL;

	if (!p || i >= m->n_series)
		return;
	p->pushed |= 1u << i;
	p->v[i][HM_RATE] = rate;
	p->v[i][HM_DELAY] = delay;
	p->v[i][HM_DROPS] = drops;
	p->v[i][HM_BACKLOG] = backlog;
}

static void hm_push_latency(struct hm *m, size_t i, double base, double p50, double p99)
{
	struct hm_pass *p = m->n ? &m->p[m->n - 1] : NULL;

	if (!p || i >= m->n_series || !(m->lat & (1u << i)))
		return;
	p->lat_pushed |= 1u << i;
	p->lat[i][HM_BASE] = base;
	p->lat[i][HM_P50] = p50;
	p->lat[i][HM_P99] = p99;
}

/* a shaper's rate that is no rate (0, negative, NAN) is not kept */
static void hm_push_shaper(struct hm *m, size_t i, double rate)
{
	struct hm_pass *p = m->n ? &m->p[m->n - 1] : NULL;

	if (!p || i >= m->n_series || !(m->shaper & (1u << i)) || !(rate > 0))
		return;
	p->shaper_pushed |= 1u << i;
	p->shaper[i] = rate;
}

/* A reload's carry: series i of m takes series map[i] of from (-1: none) where the two were
 * made for the same interval; latency and the shaper's rate only where both keep them. */
static void hm_carry(struct hm *m, const struct hm *from, const long *map)
{
	if (m->raw_len != from->raw_len)
		return;
	m->n = 0;
	for (size_t k = 0; k < from->n; k++) {
		const struct hm_pass *s = &from->p[k];
		struct hm_pass *d;

		hm_pass(m, s->t);
		d = &m->p[m->n - 1];
		for (size_t i = 0; i < m->n_series; i++) {
			size_t j = (size_t)map[i];

			if (map[i] < 0 || j >= from->n_series)
				continue;
			if (s->pushed & (1u << j)) {
				d->pushed |= 1u << i;
				memcpy(d->v[i], s->v[j], sizeof(d->v[i]));
			}
			if ((m->lat & (1u << i)) && (from->lat & (1u << j)) &&
			    (s->lat_pushed & (1u << j))) {
				d->lat_pushed |= 1u << i;
				memcpy(d->lat[i], s->lat[j], sizeof(d->lat[i]));
			}
			if ((m->shaper & (1u << i)) && (from->shaper & (1u << j)) &&
			    (s->shaper_pushed & (1u << j))) {
				d->shaper_pushed |= 1u << i;
				d->shaper[i] = s->shaper[j];
			}
		}
	}
}

/* Where x falls among the codes: 1 is 2^-16, 65535 is 2^(65535/1024 - 16), 1024 a
 * factor of 2; below and above the range the end codes. 0 for what is no positive number. */
static double hm_code_pos(double x)
{
	double c;

	if (!(x > 0))
		return 0;
	c = (log2(x) + 16) * 1024;
	return c < 1 ? 1 : c > 65535 ? 65535 : c;
}

/* The figures of one minute of passes [a, b) of series i. */
static void hm_minute(const struct hm *m, size_t i, size_t a, size_t b, struct hm_point *o)
{
	double sum[HM_NV] = { 0 }, mag[HM_NV] = { 0 }, lo[2] = { NAN, NAN }, hi[2] = { NAN, NAN };
	double lsum[2] = { 0 }, lmax = NAN, ssum = 0;
	size_t n = 0, ln[2] = { 0 }, sn = 0;
	uint32_t bit = 1u << i;

	for (size_t k = a; k < b; k++) {
		const struct hm_pass *p = &m->p[k];

		if (p->pushed & bit) {
			for (int v = 0; v < HM_NV; v++) {
				sum[v] += p->v[i][v];
				mag[v] += fabs(p->v[i][v]);
			}
			/* the least and the greatest of the values that are numbers */
			for (int v = 0; v < 2; v++) {
				double x = p->v[i][v];

				if (isnan(x))
					continue;
				lo[v] = isnan(lo[v]) || x < lo[v] ? x : lo[v];
				hi[v] = isnan(hi[v]) || x > hi[v] ? x : hi[v];
			}
			n++;
		}
		/* latency: the mean baseline and p50, the worst p99, of the figures there were */
		for (int l = 0; (p->lat_pushed & bit) && l < HM_NL; l++) {
			double x = p->lat[i][l];

			if (!isfinite(x) || x <= 0)
				continue;
			if (l == HM_P99) {
				lmax = isnan(lmax) || x > lmax ? x : lmax;
				continue;
			}
			lsum[l] += x;
			ln[l]++;
		}
		if (p->shaper_pushed & bit) {
			ssum += p->shaper[i];
			sn++;
		}
	}
	for (int f = 0; f < HM_NF; f++)
		o->f[f] = 0, o->slack[f] = 0;
	if (n) {
		static const int avg_of[][2] = { { HM_RATE_AVG, HM_RATE }, { HM_DELAY_AVG, HM_DELAY },
						  { HM_DROPS_AVG, HM_DROPS },
						  { HM_BACKLOG_AVG, HM_BACKLOG } };

		o->f[HM_RATE_MIN] = isnan(lo[0]) ? 0 : lo[0];
		o->f[HM_RATE_MAX] = isnan(hi[0]) ? 0 : hi[0];
		o->f[HM_DELAY_MIN] = isnan(lo[1]) ? 0 : lo[1];
		o->f[HM_DELAY_MAX] = isnan(hi[1]) ? 0 : hi[1];
		for (size_t k = 0; k < 4; k++) {
			int f = avg_of[k][0], v = avg_of[k][1];
			/* single precision: each value rounded, each of n additions rounded, the
			 * division rounded; relative to the mean, in codes */
			double rel = ((double)n + 2) * 0x1p-24 * mag[v] / fabs(sum[v]);

			o->f[f] = sum[v] / (double)n;
			o->slack[f] = isfinite(rel) ? rel / log(2) * 1024 : 0;
		}
	}
	o->lat[HM_BASE] = ln[0] ? lsum[0] / (double)ln[0] : NAN;
	o->lat[HM_P50] = ln[1] ? lsum[1] / (double)ln[1] : NAN;
	o->lat[HM_P99] = lmax;
	o->shaper = sn ? ssum / (double)sn : NAN;
}

/* Series i's raw figures of pass k. */
static void hm_raw(const struct hm *m, size_t i, size_t k, struct hm_point *o)
{
	const struct hm_pass *p = &m->p[k];
	uint32_t bit = 1u << i;
	const double *v = p->v[i];

	memset(o->slack, 0, sizeof(o->slack));
	o->f[HM_RATE_MIN] = o->f[HM_RATE_AVG] = o->f[HM_RATE_MAX] = p->pushed & bit ? v[HM_RATE] : 0;
	o->f[HM_DELAY_MIN] = o->f[HM_DELAY_AVG] = o->f[HM_DELAY_MAX] =
		p->pushed & bit ? v[HM_DELAY] : 0;
	o->f[HM_DROPS_AVG] = p->pushed & bit ? v[HM_DROPS] : 0;
	o->f[HM_BACKLOG_AVG] = p->pushed & bit ? v[HM_BACKLOG] : 0;
	/* a latency figure that is no positive number is none */
	for (int l = 0; l < HM_NL; l++)
		o->lat[l] = (p->lat_pushed & bit) && p->lat[i][l] > 0 ? p->lat[i][l] : NAN;
	o->shaper = p->shaper_pushed & bit ? p->shaper[i] : NAN;
}

/* The answer to gw_history_query: points with from <= t <= to, oldest first, at most max;
 * -ENOENT for no such series. Raw: the last raw_len passes. Minute: passes of one minute
 * (floor(t / 60)) in a row are that minute, closed once a pass of another minute came; the
 * last GW_HIST_MINUTES closed ones, each at the end of its minute. */
static int hm_query(const struct hm *m, size_t i, double from, double to, bool minute,
		    struct hm_point *out, size_t max)
{
	size_t n = 0, first;
	uint32_t bit = 1u << i;

	if (i >= m->n_series)
		return -ENOENT;
	if (!minute) {
		first = m->n > m->raw_len ? m->n - m->raw_len : 0;
		for (size_t k = first; k < m->n && n < max; k++) {
			if (m->p[k].t < from || m->p[k].t > to)
				continue;
			out[n].t = m->p[k].t;
			hm_raw(m, i, k, &out[n]);
			out[n].has_shaper = m->shaper & bit;
			n++;
		}
		return (int)n;
	}
	/* the minutes' first passes: starts[0..nm), each closed by the next */
	size_t *starts = malloc((m->n + 1) * sizeof(*starts)), nm = 0;

	if (!starts)
		abort();
	for (size_t k = 0; k < m->n; k++)
		if (!k || floor(m->p[k].t / 60) != floor(m->p[k - 1].t / 60))
			starts[nm++] = k;
	/* the open minute is not answered; of the closed ones, the last GW_HIST_MINUTES */
	nm = nm ? nm - 1 : 0;
	first = nm > GW_HIST_MINUTES ? nm - GW_HIST_MINUTES : 0;
	for (size_t k = first; k < nm && n < max; k++) {
		double t = (floor(m->p[starts[k]].t / 60) + 1) * 60;

		if (t < from || t > to)
			continue;
		out[n].t = t;
		hm_minute(m, i, starts[k], starts[k + 1], &out[n]);
		out[n].has_shaper = m->shaper & bit;
		n++;
	}
	free(starts);
	return (int)n;
}
