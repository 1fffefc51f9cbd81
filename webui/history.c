/* webui/history.c: rings of packed points. A value is a 16-bit logarithm (2^-16 .. 2^48,
 * steps of 0.07%); points are packed in blocks of GW_HIST_BLK per series and column, each
 * column of a block as its least code and the bits it needs above it (0 bits for a column
 * that did not change: an idle class's block costs its header alone). The times live once in
 * shared rings. Pushes come from the loop thread, queries from the HTTP threads. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "webui/history.h"

enum { V_RATE, V_DELAY, V_DROPS, V_BACKLOG, N_V };
/* a minute point's columns */
enum { M_RATE_MIN, M_RATE_AVG, M_RATE_MAX, M_DELAY_MIN, M_DELAY_AVG, M_DELAY_MAX, M_DROPS,
       M_BACKLOG, N_M };
#define MAX_COL N_M

/* One sealed block of one series: GW_HIST_BLK points, column after column; column c takes
 * GW_HIST_BLK * width[c] bits of data, each point its code less base[c]. */
struct blk {
	uint8_t *data;		/* NULL when every width is 0 */
	uint16_t base[MAX_COL];
	uint8_t width[MAX_COL];
};

/* A ring of packed blocks for every series. The block being filled lives unpacked in
 * stage (time-major: one pass writes one contiguous row for all series); nblk holds the
 * sealed blocks that cover the ring's length, and the slot of the block being filled. */
struct pring {
	size_t ncol, nblk, n_series;
	uint16_t *stage;	/* GW_HIST_BLK rows of n_series x ncol codes */
	struct blk *blk;	/* n_series x nblk, series-major */
	uint16_t *hi, *nz;	/* sealing: each series' greatest and least non-zero codes */
	size_t data_bytes;	/* what the sealed blocks' data hold now */
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
	uint16_t *raw;			/* raw_len x N_L, pass p in row p % raw_len */
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

struct gw_history {
	pthread_mutex_t lock;
	size_t n_series, raw_len;
	uint64_t passes;		/* passes so far; pass p is point p of the raw ring */
	uint64_t minutes;		/* minutes closed so far; minute m is point m */
	double *raw_t;			/* raw.nblk * GW_HIST_BLK times, pass p at p % that */
	uint32_t *min_t;		/* minute numbers (unix minutes), as raw_t */
	uint32_t cur_minute;		/* the minute being summed, 0 before the first pass */
	struct minute_acc *acc;
	struct pring raw, min;
	/* one slot per series that may keep latency, up to GW_HIST_LAT_MAX, made with the
	 * history (so tracking one costs its points alone) */
	struct lat_series *lat;
	size_t n_lat, lat_cap;
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

/* --- packed rings ----------------------------------------------------------------------- */

static int pring_init(struct pring *r, size_t n_series, size_t ncol, size_t len)
{
	size_t n = n_series ? n_series : 1;

	r->ncol = ncol;
	r->n_series = n_series;
	/* the sealed blocks cover len points whatever the phase; one more slot for the block
	 * being filled */
	r->nblk = (len + GW_HIST_BLK - 1) / GW_HIST_BLK + 1;
	r->stage = calloc((size_t)GW_HIST_BLK * n * ncol, sizeof(*r->stage));
	r->blk = calloc(n * r->nblk, sizeof(*r->blk));
	r->hi = calloc(n * ncol, sizeof(*r->hi));
	r->nz = calloc(n * ncol, sizeof(*r->nz));
	return r->stage && r->blk && r->hi && r->nz ? 0 : -ENOMEM;
}

static size_t blk_data_bytes(const struct pring *r, const struct blk *b)
{
	size_t bits = 0;

	for (size_t c = 0; c < r->ncol; c++)
		bits += b->width[c];
	return bits * GW_HIST_BLK / 8;
}

static void blk_clear(struct pring *r, struct blk *b)
{
	r->data_bytes -= blk_data_bytes(r, b);
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void pring_free(struct pring *r)
{
	for (size_t i = 0; r->blk && i < r->n_series * r->nblk; i++)
		blk_clear(r, &r->blk[i]);
	free(r->stage);
	free(r->blk);
	free(r->hi);
	free(r->nz);
}

static uint16_t *stage_at(const struct pring *r, size_t row, size_t i)
{
	return &r->stage[(row * r->n_series + i) * r->ncol];
}

/* Bits w (0..16) at bit pos of p, little-endian. p is zeroed before the first put. */
static void put_bits(uint8_t *p, size_t pos, unsigned w, uint32_t v)
{
	uint32_t x = v << (pos & 7);
	unsigned n = (unsigned)(pos & 7) + w;

	for (p += pos >> 3; n > 0; p++, x >>= 8, n = n > 8 ? n - 8 : 0)
		*p |= (uint8_t)x;
}

static uint32_t get_bits(const uint8_t *p, size_t pos, unsigned w)
{
	uint32_t x = 0;
	unsigned n = (unsigned)(pos & 7) + w, sh = 0;

	for (p += pos >> 3; sh < n; p++, sh += 8)
		x |= (uint32_t)*p << sh;
	return (x >> (pos & 7)) & ((1u << w) - 1);
}

static unsigned bits_for(uint32_t span)
{
	unsigned w = 0;

	while (span >> w)
		w++;
	return w;
}

/* A column's codes: all equal (width 0, base the code), or base one below the least code
 * that is not 0 and each code stored as code - base, 0 staying 0 (a class idle for part
 * of a block does not widen its column to the full 16 bits). */
static uint32_t col_val(uint16_t code, const struct blk *b, size_t c)
{
	return code ? (uint32_t)(code - b->base[c]) : 0;
}

static uint16_t col_code(uint32_t v, const struct blk *b, size_t c)
{
	if (!b->width[c])
		return b->base[c];
	return v ? (uint16_t)(b->base[c] + v) : 0;
}

/* Series i's block, its least codes in base: base and width per column, and its data. Without
 * memory for the data each column of the block reads as one code (a bounded loss, never a
 * crash or a stale block). */
static void seal_shape(struct pring *r, size_t i, struct blk *b)
{
	const uint16_t *hi = &r->hi[i * r->ncol], *nz = &r->nz[i * r->ncol];
	size_t bytes;

	for (size_t c = 0; c < r->ncol; c++) {
		if (b->base[c] == hi[c])
			continue;	/* all equal: width 0, base the code */
		b->base[c] = (uint16_t)(nz[c] - 1);
		b->width[c] = (uint8_t)bits_for((uint32_t)(hi[c] - b->base[c]));
	}
	if (!(bytes = blk_data_bytes(r, b)))
		return;
	if (!(b->data = calloc(1, bytes))) {
		memset(b->width, 0, sizeof(b->width));
		return;
	}
	r->data_bytes += bytes;
}

/* The staged block, block number bn, is complete: pack it into its slot, over the block
 * that slot held (older than the ring's length by now). The stage is read row by row, as
 * it was written (a series' codes are a row apart: reading them series by series would
 * miss the cache at every code). */
static void pring_seal(struct pring *r, uint64_t bn)
{
	size_t slot = (size_t)(bn % r->nblk), nc = r->ncol;

	for (size_t i = 0; i < r->n_series; i++) {
		struct blk *b = &r->blk[i * r->nblk + slot];

		blk_clear(r, b);
		memcpy(b->base, stage_at(r, 0, i), nc * sizeof(*b->base));
		memcpy(&r->hi[i * nc], stage_at(r, 0, i), nc * sizeof(*r->hi));
		for (size_t c = 0; c < nc; c++)
			r->nz[i * nc + c] = UINT16_MAX;
	}
	for (size_t o = 0; o < GW_HIST_BLK; o++) {
		const uint16_t *row = stage_at(r, o, 0);

		for (size_t i = 0; i < r->n_series; i++) {
			struct blk *b = &r->blk[i * r->nblk + slot];
			uint16_t *hi = &r->hi[i * nc], *nz = &r->nz[i * nc];

			for (size_t c = 0; c < nc; c++) {
				uint16_t v = row[i * nc + c];

				b->base[c] = v < b->base[c] ? v : b->base[c];
				hi[c] = v > hi[c] ? v : hi[c];
				nz[c] = v && v < nz[c] ? v : nz[c];
			}
		}
	}
	for (size_t i = 0; i < r->n_series; i++)
		seal_shape(r, i, &r->blk[i * r->nblk + slot]);
	for (size_t o = 0; o < GW_HIST_BLK; o++) {
		const uint16_t *row = stage_at(r, o, 0);

		for (size_t i = 0; i < r->n_series; i++) {
			struct blk *b = &r->blk[i * r->nblk + slot];
			size_t off = 0;

			for (size_t c = 0; b->data && c < nc; c++) {
				if (b->width[c])
					put_bits(b->data, off + o * b->width[c], b->width[c],
						 col_val(row[i * nc + c], b, c));
				off += (size_t)GW_HIST_BLK * b->width[c];
			}
		}
	}
}

/* Codes of point pt of series i; open is the number of the block being filled. */
static void pring_get(const struct pring *r, size_t i, uint64_t pt, uint64_t open,
		      uint16_t *out)
{
	const struct blk *b;
	size_t o = (size_t)(pt % GW_HIST_BLK), off = 0;

	if (pt / GW_HIST_BLK == open) {
		memcpy(out, stage_at(r, o, i), r->ncol * sizeof(*out));
		return;
	}
	b = &r->blk[i * r->nblk + (size_t)((pt / GW_HIST_BLK) % r->nblk)];
	for (size_t c = 0; c < r->ncol; c++) {
		out[c] = col_code(b->width[c] && b->data ?
				  get_bits(b->data, off + o * b->width[c], b->width[c]) : 0, b, c);
		off += (size_t)GW_HIST_BLK * b->width[c];
	}
}

/* Series j of from into series i of h: the staged rows and a copy of every sealed block. */
static void pring_carry(struct pring *h, size_t i, const struct pring *from, size_t j)
{
	for (size_t o = 0; o < GW_HIST_BLK; o++)
		memcpy(stage_at(h, o, i), stage_at(from, o, j), h->ncol * sizeof(uint16_t));
	for (size_t k = 0; k < h->nblk; k++) {
		struct blk *d = &h->blk[i * h->nblk + k];
		const struct blk *s = &from->blk[j * from->nblk + k];
		size_t bytes = blk_data_bytes(from, s);

		blk_clear(h, d);
		*d = *s;
		d->data = NULL;
		if (!bytes)
			continue;
		if (s->data && (d->data = malloc(bytes))) {
			memcpy(d->data, s->data, bytes);
			h->data_bytes += bytes;
		} else {
			memset(d->width, 0, sizeof(d->width));
		}
	}
}

/* --- the history ------------------------------------------------------------------------ */

struct gw_history *gw_history_new(size_t n_series, int64_t interval_us)
{
	struct gw_history *h = calloc(1, sizeof(*h));
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
	h->acc = calloc(n, sizeof(*h->acc));
	h->lat_cap = n < GW_HIST_LAT_MAX ? n : GW_HIST_LAT_MAX;
	h->lat = calloc(h->lat_cap, sizeof(*h->lat));
	if (pring_init(&h->raw, n_series, N_V, h->raw_len) ||
	    pring_init(&h->min, n_series, N_M, GW_HIST_MINUTES) || !h->acc || !h->lat ||
	    !(h->raw_t = calloc(h->raw.nblk * GW_HIST_BLK, sizeof(*h->raw_t))) ||
	    !(h->min_t = calloc(h->min.nblk * GW_HIST_BLK, sizeof(*h->min_t)))) {
		gw_history_free(h);
		return NULL;
	}
	return h;
}

void gw_history_free(struct gw_history *h)
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
	pring_free(&h->raw);
	pring_free(&h->min);
	free(h->raw_t);
	free(h->min_t);
	free(h->acc);
	free(h->lat);
	free(h);
}

static size_t shaper_series(const struct gw_history *h)
{
	size_t n = 0;

	for (size_t k = 0; k < h->n_lat; k++)
		n += h->lat[k].shaper_raw != NULL;
	return n;
}

static size_t pring_fixed_bytes(const struct pring *r)
{
	return (size_t)GW_HIST_BLK * r->n_series * r->ncol * sizeof(*r->stage) +
	       r->n_series * r->nblk * sizeof(*r->blk) +
	       2 * r->n_series * r->ncol * sizeof(*r->hi);
}

size_t gw_history_bytes(const struct gw_history *h)
{
	return sizeof(*h) + h->lat_cap * sizeof(*h->lat) +
	       h->raw.nblk * GW_HIST_BLK * sizeof(*h->raw_t) +
	       h->min.nblk * GW_HIST_BLK * sizeof(*h->min_t) + h->n_series * sizeof(*h->acc) +
	       pring_fixed_bytes(&h->raw) + pring_fixed_bytes(&h->min) +
	       h->n_lat * (h->raw_len + GW_HIST_MINUTES) * N_L * sizeof(uint16_t) +
	       shaper_series(h) * (h->raw_len + GW_HIST_MINUTES) * sizeof(uint16_t);
}

size_t gw_history_series(const struct gw_history *h)
{
	return h->n_series;
}

size_t gw_history_packed_bytes(struct gw_history *h)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->raw.data_bytes + h->min.data_bytes;
	pthread_mutex_unlock(&h->lock);
	return n;
}

int gw_history_track_latency(struct gw_history *h, size_t series)
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

int gw_history_track_shaper(struct gw_history *h, size_t series)
{
	int r = gw_history_track_latency(h, series);
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

static struct lat_series *lat_of(struct gw_history *h, size_t series)
{
	for (size_t k = 0; k < h->n_lat; k++)
		if (h->lat[k].series == series)
			return &h->lat[k];
	return NULL;
}

/* The latency rows of pass p and minute m. */
static size_t lat_raw_row(const struct gw_history *h, uint64_t p)
{
	return (size_t)(p % h->raw_len);
}

static size_t lat_min_row(uint64_t m)
{
	return (size_t)(m % GW_HIST_MINUTES);
}

void gw_history_push_latency(struct gw_history *h, size_t series, double baseline_ms,
			     double p50_ms, double p99_ms)
{
	const double v[N_L] = { baseline_ms, p50_ms, p99_ms };
	struct lat_series *l;

	pthread_mutex_lock(&h->lock);
	l = h->passes ? lat_of(h, series) : NULL;
	for (int k = 0; l && k < N_L; k++) {
		l->raw[lat_raw_row(h, h->passes - 1) * N_L + k] = gw_hist_encode(v[k]);
		if (!isfinite(v[k]) || v[k] <= 0)
			continue;
		l->sum[k] += v[k];
		l->n[k]++;
		if (k == L_P99)
			l->max_p99 = fmax(l->max_p99, v[k]);
	}
	pthread_mutex_unlock(&h->lock);
}

void gw_history_push_shaper(struct gw_history *h, size_t series, double rate_bps)
{
	struct lat_series *l;

	pthread_mutex_lock(&h->lock);
	l = h->passes ? lat_of(h, series) : NULL;
	if (l && l->shaper_raw && rate_bps > 0) {
		l->shaper_raw[lat_raw_row(h, h->passes - 1)] = gw_hist_encode(rate_bps);
		l->shaper_sum += rate_bps;
		l->shaper_n++;
	}
	pthread_mutex_unlock(&h->lock);
}

static void close_minute_latency(struct gw_history *h)
{
	size_t row = lat_min_row(h->minutes);

	for (size_t k = 0; k < h->n_lat; k++) {
		struct lat_series *l = &h->lat[k];
		uint16_t *p = &l->min[row * N_L];

		p[L_BASE] = l->n[L_BASE] ? gw_hist_encode(l->sum[L_BASE] / l->n[L_BASE]) : 0;
		p[L_P50] = l->n[L_P50] ? gw_hist_encode(l->sum[L_P50] / l->n[L_P50]) : 0;
		p[L_P99] = l->n[L_P99] ? gw_hist_encode(l->max_p99) : 0;
		if (l->shaper_min)
			l->shaper_min[row] = l->shaper_n ?
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

/* The minute is over: one point per series, staged in the minute ring. */
static void close_minute(struct gw_history *h)
{
	size_t row = (size_t)(h->minutes % GW_HIST_BLK);

	for (size_t i = 0; i < h->n_series; i++) {
		struct minute_acc *a = &h->acc[i];
		uint16_t *p = stage_at(&h->min, row, i);

		if (!a->n) {
			memset(p, 0, N_M * sizeof(*p));
			continue;
		}
		p[M_RATE_MIN] = gw_hist_encode(a->min[V_RATE]);
		p[M_RATE_AVG] = enc_avg(a, V_RATE);
		p[M_RATE_MAX] = gw_hist_encode(a->max[V_RATE]);
		p[M_DELAY_MIN] = gw_hist_encode(a->min[V_DELAY]);
		p[M_DELAY_AVG] = enc_avg(a, V_DELAY);
		p[M_DELAY_MAX] = gw_hist_encode(a->max[V_DELAY]);
		p[M_DROPS] = enc_avg(a, V_DROPS);
		p[M_BACKLOG] = enc_avg(a, V_BACKLOG);
		memset(a, 0, sizeof(*a));
	}
	close_minute_latency(h);
	h->min_t[h->minutes % (h->min.nblk * GW_HIST_BLK)] = h->cur_minute;
	h->minutes++;
	if (h->minutes % GW_HIST_BLK == 0)
		pring_seal(&h->min, h->minutes / GW_HIST_BLK - 1);
}

void gw_history_pass(struct gw_history *h, double t)
{
	uint32_t minute = (uint32_t)(t / 60);
	uint64_t p;

	pthread_mutex_lock(&h->lock);
	p = h->passes;
	if (h->cur_minute && minute != h->cur_minute)
		close_minute(h);
	h->cur_minute = minute;
	if (p && p % GW_HIST_BLK == 0)
		pring_seal(&h->raw, p / GW_HIST_BLK - 1);
	/* a series not pushed in this pass reads zeros, not what the row held a block ago */
	memset(stage_at(&h->raw, (size_t)(p % GW_HIST_BLK), 0), 0,
	       h->n_series * N_V * sizeof(uint16_t));
	h->raw_t[p % (h->raw.nblk * GW_HIST_BLK)] = t;
	/* a pass without a latency figure shows none, not the one from 15 minutes ago */
	for (size_t k = 0; k < h->n_lat; k++) {
		memset(&h->lat[k].raw[lat_raw_row(h, p) * N_L], 0, N_L * sizeof(uint16_t));
		if (h->lat[k].shaper_raw)
			h->lat[k].shaper_raw[lat_raw_row(h, p)] = 0;
	}
	h->passes = p + 1;
	pthread_mutex_unlock(&h->lock);
}

void gw_history_push(struct gw_history *h, size_t i, double rate_bps, double delay_ms,
		     double drops_per_s, double backlog_bytes)
{
	const double v[N_V] = { rate_bps, delay_ms, drops_per_s, backlog_bytes };
	struct minute_acc *a;
	uint16_t *p;

	if (i >= h->n_series || !h->passes)
		return;
	pthread_mutex_lock(&h->lock);
	p = stage_at(&h->raw, (size_t)((h->passes - 1) % GW_HIST_BLK), i);
	a = &h->acc[i];
	for (int k = 0; k < N_V; k++) {
		p[k] = gw_hist_encode(v[k]);
		a->sum[k] += (float)v[k];
	}
	for (int k = 0; k < 2; k++) {
		a->min[k] = a->n ? fminf(a->min[k], (float)v[k]) : (float)v[k];
		a->max[k] = a->n ? fmaxf(a->max[k], (float)v[k]) : (float)v[k];
	}
	a->n++;
	pthread_mutex_unlock(&h->lock);
}

static size_t query_raw(struct gw_history *h, size_t i, double from, double to,
			struct gw_hist_point *out, size_t max)
{
	const struct lat_series *l = lat_of(h, i);
	uint64_t count = h->passes < h->raw_len ? h->passes : h->raw_len;
	uint64_t open = h->passes ? (h->passes - 1) / GW_HIST_BLK : 0;
	size_t n = 0;

	for (uint64_t p = h->passes - count; p < h->passes && n < max; p++) {
		double t = h->raw_t[p % (h->raw.nblk * GW_HIST_BLK)];
		uint16_t c[N_V];
		float r, d;
		size_t row = lat_raw_row(h, p);

		if (t < from || t > to)
			continue;
		pring_get(&h->raw, i, p, open, c);
		r = (float)gw_hist_decode(c[V_RATE]);
		d = (float)gw_hist_decode(c[V_DELAY]);
		out[n++] = (struct gw_hist_point){ .t = t, .rate_bps_min = r, .rate_bps_avg = r,
			.rate_bps_max = r, .delay_ms_min = d, .delay_ms_avg = d, .delay_ms_max = d,
			.drops_per_s_avg = (float)gw_hist_decode(c[V_DROPS]),
			.backlog_bytes_avg = (float)gw_hist_decode(c[V_BACKLOG]) };
		lat_fill(&out[n - 1], l, l ? &l->raw[row * N_L] : NULL,
			 l && l->shaper_raw ? &l->shaper_raw[row] : NULL);
	}
	return n;
}

static size_t query_minute(struct gw_history *h, size_t i, double from, double to,
			   struct gw_hist_point *out, size_t max)
{
	const struct lat_series *l = lat_of(h, i);
	uint64_t count = h->minutes < GW_HIST_MINUTES ? h->minutes : GW_HIST_MINUTES;
	uint64_t open = h->minutes / GW_HIST_BLK;
	size_t n = 0;

	for (uint64_t m = h->minutes - count; m < h->minutes && n < max; m++) {
		/* the end of the bucket */
		double t = ((double)h->min_t[m % (h->min.nblk * GW_HIST_BLK)] + 1) * 60;
		uint16_t c[N_M];
		size_t row = lat_min_row(m);

		if (t < from || t > to)
			continue;
		pring_get(&h->min, i, m, open, c);
		out[n++] = (struct gw_hist_point){ .t = t,
			.rate_bps_min = (float)gw_hist_decode(c[M_RATE_MIN]),
			.rate_bps_avg = (float)gw_hist_decode(c[M_RATE_AVG]),
			.rate_bps_max = (float)gw_hist_decode(c[M_RATE_MAX]),
			.delay_ms_min = (float)gw_hist_decode(c[M_DELAY_MIN]),
			.delay_ms_avg = (float)gw_hist_decode(c[M_DELAY_AVG]),
			.delay_ms_max = (float)gw_hist_decode(c[M_DELAY_MAX]),
			.drops_per_s_avg = (float)gw_hist_decode(c[M_DROPS]),
			.backlog_bytes_avg = (float)gw_hist_decode(c[M_BACKLOG]) };
		lat_fill(&out[n - 1], l, l ? &l->min[row * N_L] : NULL,
			 l && l->shaper_min ? &l->shaper_min[row] : NULL);
	}
	return n;
}

int gw_history_query(struct gw_history *h, size_t i, double from, double to, bool minute,
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

/* Series j's latency (and shaper) points of from into series i of h, where both keep them:
 * the rows are the passes' and minutes' own, so they copy as they are. */
static void lat_carry(struct gw_history *h, size_t i, struct gw_history *from, size_t j)
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

void gw_history_carry(struct gw_history *h, struct gw_history *from, const long *map)
{
	if (h->raw_len != from->raw_len)
		return;
	pthread_mutex_lock(&from->lock);
	pthread_mutex_lock(&h->lock);
	memcpy(h->raw_t, from->raw_t, h->raw.nblk * GW_HIST_BLK * sizeof(*h->raw_t));
	memcpy(h->min_t, from->min_t, h->min.nblk * GW_HIST_BLK * sizeof(*h->min_t));
	h->passes = from->passes;
	h->minutes = from->minutes;
	h->cur_minute = from->cur_minute;
	for (size_t i = 0; i < h->n_series; i++) {
		size_t j = (size_t)map[i];

		if (map[i] < 0 || j >= from->n_series)
			continue;
		pring_carry(&h->raw, i, &from->raw, j);
		pring_carry(&h->min, i, &from->min, j);
		h->acc[i] = from->acc[j];
		lat_carry(h, i, from, j);
	}
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_unlock(&from->lock);
}
