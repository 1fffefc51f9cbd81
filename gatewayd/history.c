/* gatewayd/history.c: rings of compact points. A value is stored as a 16-bit logarithm
 * (2^-16 .. 2^48, steps of 0.07%), so 24 hours of min/avg/max at one minute cost 16 bytes a
 * minute per series. Pushes come from the loop thread, queries from the HTTP thread. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "gatewayd/history.h"

struct raw_point {
	float t_offset;			/* seconds since the history began */
	uint16_t rate, delay, drops, backlog;
};

struct minute_point {
	uint32_t minute;		/* minutes since the epoch; 0: empty */
	uint16_t rate_min, rate_avg, rate_max;
	uint16_t delay_min, delay_avg, delay_max;
	uint16_t drops_avg, backlog_avg;
};

/* The minute being summed, before it becomes a point. */
struct minute_acc {
	uint32_t minute;
	uint32_t n;
	double rate_sum, rate_min, rate_max, delay_sum, delay_min, delay_max, drops_sum, backlog_sum;
};

struct series {
	size_t raw_head, raw_count;
	size_t min_head, min_count;
	struct minute_acc acc;
};

struct gw_history {
	pthread_mutex_t lock;
	double t0;
	size_t n_series, raw_len;
	struct series *s;
	struct raw_point *raw;		/* n_series x raw_len */
	struct minute_point *min;	/* n_series x GW_HIST_MINUTES */
};

uint16_t gw_hist_encode(double v)
{
	double c;

	if (!(v > 0))	/* also NAN */
		return 0;
	c = (log2(v) + 16) * 1024;
	if (c < 1)
		return 1;
	return c > 65535 ? 65535 : (uint16_t)lround(c);
}

double gw_hist_decode(uint16_t c)
{
	return c ? exp2((double)c / 1024 - 16) : 0;
}

struct gw_history *gw_history_new(size_t n_series, int64_t interval_us)
{
	struct gw_history *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->n_series = n_series;
	h->raw_len = (size_t)(GW_HIST_RAW_SECONDS * 1000000LL / (interval_us > 0 ? interval_us : 1000000));
	if (h->raw_len < 1)
		h->raw_len = 1;
	h->s = calloc(n_series ? n_series : 1, sizeof(*h->s));
	h->raw = calloc(n_series * h->raw_len + 1, sizeof(*h->raw));
	h->min = calloc(n_series * GW_HIST_MINUTES + 1, sizeof(*h->min));
	if (!h->s || !h->raw || !h->min || pthread_mutex_init(&h->lock, NULL)) {
		free(h->s);
		free(h->raw);
		free(h->min);
		free(h);
		return NULL;
	}
	h->t0 = -1;
	return h;
}

void gw_history_free(struct gw_history *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	free(h->s);
	free(h->raw);
	free(h->min);
	free(h);
}

size_t gw_history_bytes(const struct gw_history *h)
{
	return sizeof(*h) + h->n_series * (sizeof(*h->s) + h->raw_len * sizeof(*h->raw) +
					   GW_HIST_MINUTES * sizeof(*h->min));
}

static void close_minute(struct gw_history *h, size_t i)
{
	struct series *s = &h->s[i];
	struct minute_acc *a = &s->acc;
	struct minute_point *p;

	if (!a->n)
		return;
	p = &h->min[i * GW_HIST_MINUTES + s->min_head];
	p->minute = a->minute;
	p->rate_min = gw_hist_encode(a->rate_min);
	p->rate_avg = gw_hist_encode(a->rate_sum / a->n);
	p->rate_max = gw_hist_encode(a->rate_max);
	p->delay_min = gw_hist_encode(a->delay_min);
	p->delay_avg = gw_hist_encode(a->delay_sum / a->n);
	p->delay_max = gw_hist_encode(a->delay_max);
	p->drops_avg = gw_hist_encode(a->drops_sum / a->n);
	p->backlog_avg = gw_hist_encode(a->backlog_sum / a->n);
	s->min_head = (s->min_head + 1) % GW_HIST_MINUTES;
	if (s->min_count < GW_HIST_MINUTES)
		s->min_count++;
	memset(a, 0, sizeof(*a));
}

static void add_minute(struct minute_acc *a, uint32_t minute, double r, double d, double dr,
		       double b)
{
	if (!a->n) {
		a->minute = minute;
		a->rate_min = a->rate_max = r;
		a->delay_min = a->delay_max = d;
	}
	a->n++;
	a->rate_sum += r;
	a->delay_sum += d;
	a->drops_sum += dr;
	a->backlog_sum += b;
	a->rate_min = fmin(a->rate_min, r);
	a->rate_max = fmax(a->rate_max, r);
	a->delay_min = fmin(a->delay_min, d);
	a->delay_max = fmax(a->delay_max, d);
}

void gw_history_push(struct gw_history *h, size_t i, double t, double rate_bps,
		     double delay_ms, double drops_per_s, double backlog_bytes)
{
	uint32_t minute = (uint32_t)(t / 60);
	struct series *s;
	struct raw_point *p;

	if (i >= h->n_series)
		return;
	pthread_mutex_lock(&h->lock);
	if (h->t0 < 0)
		h->t0 = t;
	s = &h->s[i];
	p = &h->raw[i * h->raw_len + s->raw_head];
	p->t_offset = (float)(t - h->t0);
	p->rate = gw_hist_encode(rate_bps);
	p->delay = gw_hist_encode(delay_ms);
	p->drops = gw_hist_encode(drops_per_s);
	p->backlog = gw_hist_encode(backlog_bytes);
	s->raw_head = (s->raw_head + 1) % h->raw_len;
	if (s->raw_count < h->raw_len)
		s->raw_count++;
	if (s->acc.n && s->acc.minute != minute)
		close_minute(h, i);
	add_minute(&s->acc, minute, rate_bps, delay_ms, drops_per_s, backlog_bytes);
	pthread_mutex_unlock(&h->lock);
}

static size_t query_raw(struct gw_history *h, size_t i, double from, double to,
			struct gw_hist_point *out, size_t max)
{
	const struct series *s = &h->s[i];
	size_t n = 0;

	for (size_t k = 0; k < s->raw_count && n < max; k++) {
		size_t idx = (s->raw_head + h->raw_len - s->raw_count + k) % h->raw_len;
		const struct raw_point *p = &h->raw[i * h->raw_len + idx];
		double t = h->t0 + p->t_offset;
		float r = (float)gw_hist_decode(p->rate), d = (float)gw_hist_decode(p->delay);

		if (t < from || t > to)
			continue;
		out[n++] = (struct gw_hist_point){ .t = t, .rate_bps_min = r, .rate_bps_avg = r,
			.rate_bps_max = r, .delay_ms_min = d, .delay_ms_avg = d, .delay_ms_max = d,
			.drops_per_s_avg = (float)gw_hist_decode(p->drops),
			.backlog_bytes_avg = (float)gw_hist_decode(p->backlog) };
	}
	return n;
}

static size_t query_minute(struct gw_history *h, size_t i, double from, double to,
			   struct gw_hist_point *out, size_t max)
{
	const struct series *s = &h->s[i];
	size_t n = 0;

	for (size_t k = 0; k < s->min_count && n < max; k++) {
		size_t idx = (s->min_head + GW_HIST_MINUTES - s->min_count + k) % GW_HIST_MINUTES;
		const struct minute_point *p = &h->min[i * GW_HIST_MINUTES + idx];
		double t = ((double)p->minute + 1) * 60;	/* the end of the bucket */

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
	}
	return n;
}

int gw_history_query(struct gw_history *h, size_t i, double from, double to, bool minute,
		     struct gw_hist_point *out, size_t max)
{
	size_t n;

	if (i >= h->n_series)
		return -1;
	pthread_mutex_lock(&h->lock);
	n = minute ? query_minute(h, i, from, to, out, max) : query_raw(h, i, from, to, out, max);
	pthread_mutex_unlock(&h->lock);
	return (int)n;
}
