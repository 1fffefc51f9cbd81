/* tests/unit/history_ref.h: the history as it was before its points were packed (a 16-bit
 * code per value, every point in place), kept as the reference the packed rings must answer
 * exactly like. One change: a series not pushed in a pass reads zeros there (the old rings
 * kept what the slot held 15 minutes before). Included by test_history.c alone. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "gatewayd/history.h"

enum { V_RATE, V_DELAY, V_DROPS, V_BACKLOG, N_V };

struct raw_point {
	uint16_t v[N_V];
};

struct minute_point {
	uint16_t rate_min, rate_avg, rate_max;
	uint16_t delay_min, delay_avg, delay_max;
	uint16_t drops_avg, backlog_avg;
};

/* Latency of a probed direction total: baseline, loaded p50, loaded p99 (kept apart so that
 * the many unprobed series pay nothing). Code 0 means none. */
enum { L_BASE, L_P50, L_P99, N_L };

struct lat_series {
	size_t series;
	/* autorate's directions: the shaper's rate (bits/s), raw and the minute's average;
	 * NULL where none is kept */
	uint16_t *shaper_raw, *shaper_min;
	double shaper_sum;
	uint32_t shaper_n;
	uint16_t *raw;			/* raw_len x N_L */
	uint16_t *min;			/* GW_HIST_MINUTES x N_L: avg, avg, max */
	double sum[N_L];
	uint32_t n[N_L];
	double max_p99;
};

/* The minute being summed for one series. */
struct minute_acc {
	uint32_t n;
	float sum[N_V], min[2], max[2];	/* min/max of rate and delay */
};

struct ref_history {
	pthread_mutex_t lock;
	size_t n_series, raw_len;
	/* shared clocks: raw slot and minute slot of the newest pass */
	double *raw_t;
	size_t raw_head, raw_count;
	uint32_t *min_t;		/* minute numbers (unix minutes) of the minute ring */
	size_t min_head, min_count;
	uint32_t cur_minute;		/* the minute being summed, 0 before the first pass */
	struct minute_acc *acc;
	/* time-major: one pass writes one contiguous row for all series, so memory becomes
	 * resident as time goes by, not a page per series at the first pass */
	struct raw_point *raw;		/* raw_len rows of n_series */
	struct minute_point *min;	/* GW_HIST_MINUTES rows of n_series */
	/* one slot per series that may keep latency, up to GW_HIST_LAT_MAX, made with the
	 * history (so tracking one costs its points alone) */
	struct lat_series *lat;
	size_t n_lat, lat_cap;
};

static void ref_history_free(struct ref_history *h);

static struct ref_history *ref_history_new(size_t n_series, int64_t interval_us)
{
	struct ref_history *h = calloc(1, sizeof(*h));
	size_t n = n_series ? n_series : 1;

	if (!h || pthread_mutex_init(&h->lock, NULL)) {
		free(h);
		return NULL;
	}
	h->n_series = n_series;
	h->raw_len = (size_t)(GW_HIST_RAW_SECONDS * 1000000LL /
			      (interval_us > 0 ? interval_us : 1000000));
	if (h->raw_len < 2)
		h->raw_len = 2;
	h->raw_t = calloc(h->raw_len, sizeof(*h->raw_t));
	h->min_t = calloc(GW_HIST_MINUTES, sizeof(*h->min_t));
	h->acc = calloc(n, sizeof(*h->acc));
	h->raw = calloc(n * h->raw_len, sizeof(*h->raw));
	h->min = calloc(n * GW_HIST_MINUTES, sizeof(*h->min));
	h->lat_cap = n < GW_HIST_LAT_MAX ? n : GW_HIST_LAT_MAX;
	h->lat = calloc(h->lat_cap, sizeof(*h->lat));
	if (!h->raw_t || !h->min_t || !h->acc || !h->raw || !h->min || !h->lat) {
		ref_history_free(h);
		return NULL;
	}
	return h;
}

static void ref_history_free(struct ref_history *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	for (size_t k = 0; k < h->n_lat; k++) {
		free(h->lat[k].raw);
		free(h->lat[k].min);
		free(h->lat[k].shaper_raw);
		free(h->lat[k].shaper_min);
	}
	free(h->raw_t);
	free(h->min_t);
	free(h->acc);
	free(h->raw);
	free(h->min);
	free(h->lat);
	free(h);
}

static int ref_history_track_latency(struct ref_history *h, size_t series)
{
	struct lat_series *l;

	if (series >= h->n_series)
		return -ENOENT;
	for (size_t k = 0; k < h->n_lat; k++)
		if (h->lat[k].series == series)
			return 0;
	if (h->n_lat == h->lat_cap)
		return -ENOSPC;
	l = &h->lat[h->n_lat];
	memset(l, 0, sizeof(*l));
	l->series = series;
	l->raw = calloc(h->raw_len * N_L, sizeof(*l->raw));
	l->min = calloc((size_t)GW_HIST_MINUTES * N_L, sizeof(*l->min));
	if (!l->raw || !l->min) {
		free(l->raw);
		free(l->min);
		return -ENOMEM;
	}
	pthread_mutex_lock(&h->lock);
	h->n_lat++;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int ref_history_track_shaper(struct ref_history *h, size_t series)
{
	int r = ref_history_track_latency(h, series);
	uint16_t *raw, *min;

	for (size_t k = 0; !r && k < h->n_lat; k++) {
		struct lat_series *l = &h->lat[k];

		if (l->series != series || l->shaper_raw)
			continue;
		raw = calloc(h->raw_len, sizeof(*raw));
		min = calloc(GW_HIST_MINUTES, sizeof(*min));
		if (!raw || !min) {
			free(raw);
			free(min);
			return -ENOMEM;
		}
		pthread_mutex_lock(&h->lock);
		l->shaper_min = min;
		l->shaper_raw = raw;
		pthread_mutex_unlock(&h->lock);
	}
	return r;
}

static struct lat_series *lat_of(struct ref_history *h, size_t series)
{
	for (size_t k = 0; k < h->n_lat; k++)
		if (h->lat[k].series == series)
			return &h->lat[k];
	return NULL;
}

static void ref_history_push_latency(struct ref_history *h, size_t series, double baseline_ms,
			     double p50_ms, double p99_ms)
{
	const double v[N_L] = { baseline_ms, p50_ms, p99_ms };
	struct lat_series *l;

	pthread_mutex_lock(&h->lock);
	l = h->raw_count ? lat_of(h, series) : NULL;
	for (int k = 0; l && k < N_L; k++) {
		l->raw[h->raw_head * N_L + k] = gw_hist_encode(v[k]);
		if (!isfinite(v[k]) || v[k] <= 0)
			continue;
		l->sum[k] += v[k];
		l->n[k]++;
		if (k == L_P99)
			l->max_p99 = fmax(l->max_p99, v[k]);
	}
	pthread_mutex_unlock(&h->lock);
}

static void ref_history_push_shaper(struct ref_history *h, size_t series, double rate_bps)
{
	struct lat_series *l;

	pthread_mutex_lock(&h->lock);
	l = h->raw_count ? lat_of(h, series) : NULL;
	if (l && l->shaper_raw && rate_bps > 0) {
		l->shaper_raw[h->raw_head] = gw_hist_encode(rate_bps);
		l->shaper_sum += rate_bps;
		l->shaper_n++;
	}
	pthread_mutex_unlock(&h->lock);
}

static void close_minute_latency(struct ref_history *h)
{
	for (size_t k = 0; k < h->n_lat; k++) {
		struct lat_series *l = &h->lat[k];
		uint16_t *p = &l->min[h->min_head * N_L];

		p[L_BASE] = l->n[L_BASE] ? gw_hist_encode(l->sum[L_BASE] / l->n[L_BASE]) : 0;
		p[L_P50] = l->n[L_P50] ? gw_hist_encode(l->sum[L_P50] / l->n[L_P50]) : 0;
		p[L_P99] = l->n[L_P99] ? gw_hist_encode(l->max_p99) : 0;
		if (l->shaper_min)
			l->shaper_min[h->min_head] = l->shaper_n ?
				gw_hist_encode(l->shaper_sum / l->shaper_n) : 0;
		l->shaper_sum = 0;
		l->shaper_n = 0;
		memset(l->sum, 0, sizeof(l->sum));
		memset(l->n, 0, sizeof(l->n));
		l->max_p99 = 0;
	}
}

/* A latency value out of the rings: NAN for none. */
static float lat_dec(uint16_t c)
{
	return c ? (float)gw_hist_decode(c) : NAN;
}

/* The latency fields of a point: NAN unless the series is a probed direction total. */
static void lat_fill(struct gw_hist_point *o, const struct lat_series *l, const uint16_t *row,
		     const uint16_t *shaper)
{
	o->has_shaper = shaper != NULL;
	o->shaper_bps = shaper ? lat_dec(*shaper) : NAN;
	o->baseline_ms = l ? lat_dec(row[L_BASE]) : NAN;
	o->loaded_p50_ms = l ? lat_dec(row[L_P50]) : NAN;
	o->loaded_p99_ms = l ? lat_dec(row[L_P99]) : NAN;
}

static uint16_t enc_avg(const struct minute_acc *a, int v)
{
	return gw_hist_encode(a->sum[v] / a->n);
}

/* The minute is over: one point per series, in the shared minute slot. */
static void close_minute(struct ref_history *h)
{
	for (size_t i = 0; i < h->n_series; i++) {
		struct minute_acc *a = &h->acc[i];
		struct minute_point *p = &h->min[h->min_head * h->n_series + i];

		if (!a->n) {
			memset(p, 0, sizeof(*p));
			continue;
		}
		*p = (struct minute_point){
			.rate_min = gw_hist_encode(a->min[V_RATE]), .rate_avg = enc_avg(a, V_RATE),
			.rate_max = gw_hist_encode(a->max[V_RATE]),
			.delay_min = gw_hist_encode(a->min[V_DELAY]),
			.delay_avg = enc_avg(a, V_DELAY), .delay_max = gw_hist_encode(a->max[V_DELAY]),
			.drops_avg = enc_avg(a, V_DROPS), .backlog_avg = enc_avg(a, V_BACKLOG) };
		memset(a, 0, sizeof(*a));
	}
	close_minute_latency(h);
	h->min_t[h->min_head] = h->cur_minute;
	h->min_head = (h->min_head + 1) % GW_HIST_MINUTES;
	if (h->min_count < GW_HIST_MINUTES)
		h->min_count++;
}

static void ref_history_pass(struct ref_history *h, double t)
{
	uint32_t minute = (uint32_t)(t / 60);

	pthread_mutex_lock(&h->lock);
	if (h->cur_minute && minute != h->cur_minute)
		close_minute(h);
	h->cur_minute = minute;
	if (h->raw_count)
		h->raw_head = (h->raw_head + 1) % h->raw_len;
	h->raw_t[h->raw_head] = t;
	/* a pass without a latency figure shows none, not the one from 15 minutes ago */
	for (size_t k = 0; k < h->n_lat; k++) {
		memset(&h->lat[k].raw[h->raw_head * N_L], 0, N_L * sizeof(uint16_t));
		if (h->lat[k].shaper_raw)
			h->lat[k].shaper_raw[h->raw_head] = 0;
	}
	if (h->raw_count < h->raw_len)
		h->raw_count++;
	/* the one change: a series not pushed in this pass reads zeros */
	memset(&h->raw[h->raw_head * h->n_series], 0, h->n_series * sizeof(*h->raw));
	pthread_mutex_unlock(&h->lock);
}

static void ref_history_push(struct ref_history *h, size_t i, double rate_bps, double delay_ms,
		     double drops_per_s, double backlog_bytes)
{
	const double v[N_V] = { rate_bps, delay_ms, drops_per_s, backlog_bytes };
	struct minute_acc *a;
	struct raw_point *p;

	if (i >= h->n_series || !h->raw_count)
		return;
	pthread_mutex_lock(&h->lock);
	p = &h->raw[h->raw_head * h->n_series + i];
	a = &h->acc[i];
	for (int k = 0; k < N_V; k++) {
		p->v[k] = gw_hist_encode(v[k]);
		a->sum[k] += (float)v[k];
	}
	for (int k = 0; k < 2; k++) {
		a->min[k] = a->n ? fminf(a->min[k], (float)v[k]) : (float)v[k];
		a->max[k] = a->n ? fmaxf(a->max[k], (float)v[k]) : (float)v[k];
	}
	a->n++;
	pthread_mutex_unlock(&h->lock);
}

static size_t query_raw(struct ref_history *h, size_t i, double from, double to,
			struct gw_hist_point *out, size_t max)
{
	const struct lat_series *l = lat_of(h, i);
	size_t n = 0;

	for (size_t k = 0; k < h->raw_count && n < max; k++) {
		size_t idx = (h->raw_head + 1 + h->raw_len - h->raw_count + k) % h->raw_len;
		const struct raw_point *p = &h->raw[idx * h->n_series + i];
		double t = h->raw_t[idx];
		float r = (float)gw_hist_decode(p->v[V_RATE]);
		float d = (float)gw_hist_decode(p->v[V_DELAY]);

		if (t < from || t > to)
			continue;
		out[n++] = (struct gw_hist_point){ .t = t, .rate_bps_min = r, .rate_bps_avg = r,
			.rate_bps_max = r, .delay_ms_min = d, .delay_ms_avg = d, .delay_ms_max = d,
			.drops_per_s_avg = (float)gw_hist_decode(p->v[V_DROPS]),
			.backlog_bytes_avg = (float)gw_hist_decode(p->v[V_BACKLOG]) };
		lat_fill(&out[n - 1], l, l ? &l->raw[idx * N_L] : NULL,
			 l && l->shaper_raw ? &l->shaper_raw[idx] : NULL);
	}
	return n;
}

static size_t query_minute(struct ref_history *h, size_t i, double from, double to,
			   struct gw_hist_point *out, size_t max)
{
	const struct lat_series *l = lat_of(h, i);
	size_t n = 0;

	for (size_t k = 0; k < h->min_count && n < max; k++) {
		size_t idx = (h->min_head + GW_HIST_MINUTES - h->min_count + k) % GW_HIST_MINUTES;
		const struct minute_point *p = &h->min[idx * h->n_series + i];
		double t = ((double)h->min_t[idx] + 1) * 60;	/* the end of the bucket */

		if (t < from || t > to)
			continue;
		out[n++] = (struct gw_hist_point){ .t = t,
			.rate_bps_min = (float)gw_hist_decode(p->rate_min),
			.rate_bps_avg = (float)gw_hist_decode(p->rate_avg),
			.rate_bps_max = (float)gw_hist_decode(p->rate_max),
			.delay_ms_min = (float)gw_hist_decode(p->delay_min),
			.delay_ms_avg = (float)gw_hist_decode(p->delay_avg),
			.delay_ms_max = (float)gw_hist_decode(p->delay_max),
			.drops_per_s_avg = (float)gw_hist_decode(p->drops_avg),
			.backlog_bytes_avg = (float)gw_hist_decode(p->backlog_avg) };
		lat_fill(&out[n - 1], l, l ? &l->min[idx * N_L] : NULL,
			 l && l->shaper_min ? &l->shaper_min[idx] : NULL);
	}
	return n;
}

static int ref_history_query(struct ref_history *h, size_t i, double from, double to, bool minute,
		     struct gw_hist_point *out, size_t max)
{
	size_t n;

	if (i >= h->n_series)
		return -ENOENT;
	pthread_mutex_lock(&h->lock);
	n = minute ? query_minute(h, i, from, to, out, max) : query_raw(h, i, from, to, out, max);
	pthread_mutex_unlock(&h->lock);
	return (int)n;
}

/* latency and shaper points go with their series where both keep them (rows are passes') */
static void ref_lat_carry(struct ref_history *h, size_t i, struct ref_history *from, size_t j)
{
	struct lat_series *d = lat_of(h, i), *s = lat_of(from, j);

	if (!d || !s)
		return;
	memcpy(d->raw, s->raw, h->raw_len * N_L * sizeof(*d->raw));
	memcpy(d->min, s->min, (size_t)GW_HIST_MINUTES * N_L * sizeof(*d->min));
	memcpy(d->sum, s->sum, sizeof(d->sum));
	memcpy(d->n, s->n, sizeof(d->n));
	d->max_p99 = s->max_p99;
	if (d->shaper_raw && s->shaper_raw) {
		memcpy(d->shaper_raw, s->shaper_raw, h->raw_len * sizeof(*d->shaper_raw));
		memcpy(d->shaper_min, s->shaper_min, GW_HIST_MINUTES * sizeof(*d->shaper_min));
		d->shaper_sum = s->shaper_sum;
		d->shaper_n = s->shaper_n;
	}
}

static void ref_history_carry(struct ref_history *h, struct ref_history *from, const long *map)
{
	if (h->raw_len != from->raw_len)
		return;
	pthread_mutex_lock(&from->lock);
	pthread_mutex_lock(&h->lock);
	memcpy(h->raw_t, from->raw_t, h->raw_len * sizeof(*h->raw_t));
	memcpy(h->min_t, from->min_t, GW_HIST_MINUTES * sizeof(*h->min_t));
	h->raw_head = from->raw_head;
	h->raw_count = from->raw_count;
	h->min_head = from->min_head;
	h->min_count = from->min_count;
	h->cur_minute = from->cur_minute;
	for (size_t i = 0; i < h->n_series; i++) {
		size_t j = (size_t)map[i];

		if (map[i] < 0 || j >= from->n_series)
			continue;
		for (size_t r = 0; r < h->raw_len; r++)
			h->raw[r * h->n_series + i] = from->raw[r * from->n_series + j];
		for (size_t r = 0; r < GW_HIST_MINUTES; r++)
			h->min[r * h->n_series + i] = from->min[r * from->n_series + j];
		h->acc[i] = from->acc[j];
		ref_lat_carry(h, i, from, j);
	}
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_unlock(&from->lock);
}
