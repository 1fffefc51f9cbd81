/* probe/latency.c: probe samples judged against a direction's load: a fixed ring of recent
 * samples, per-target idle baselines, idle and loaded statistics, induced latency and grade.
 *
 * Several targets at different distances do not mix: each has its own baseline, and a loaded
 * sample's induced latency is its excess over its own target's baseline (with one target,
 * exactly "loaded percentile - baseline"). Jitter pairs consecutive replies of one target. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe/latency.h"

#define IDLE_BELOW 0.10		/* utilisation */
#define LOADED_ABOVE 0.80
#define BASE_UP 0.001		/* cake-autorate's baseline: rises slowly... */
#define BASE_DOWN 0.9		/* ...and falls fast */
#define MIN_CAPACITY 16

enum gw_load_state gw_load_classify(double utilisation, bool backlogged)
{
	if (backlogged || utilisation > LOADED_ABOVE)
		return GW_LOAD_LOADED;
	if (utilisation < IDLE_BELOW)	/* also false for NAN: no figure is no verdict */
		return GW_LOAD_IDLE;
	return GW_LOAD_UNKNOWN;
}

/* One judged probe: 16 bytes. */
struct entry {
	double t;		/* when it was sent, monotonic seconds */
	float rtt_ms;		/* NAN: lost */
	uint8_t target;
	uint8_t loaded;		/* 0 idle, 1 loaded */
};

struct gw_latency {
	double window_s;
	struct entry *ring;
	size_t cap, head, count;	/* head: the oldest */
	float *scratch;			/* cap values, for sorting */
	double baseline[GW_MAX_PROBE_TARGETS];	/* NAN before the target's first idle reply */
	uint64_t hist_count;
	double hist_sum_s;
	uint64_t hist_le[GW_SNAP_RTT_BUCKETS];
};

static const double rtt_bounds[GW_SNAP_RTT_BUCKETS] = GW_SNAP_RTT_BOUNDS;

static size_t capacity_for(double window_s, double rate)
{
	double n = ceil(window_s * rate);

	if (!(n >= MIN_CAPACITY))
		return MIN_CAPACITY;
	return n > 1e7 ? 10000000 : (size_t)n;	/* a bound for absurd inputs */
}

struct gw_latency *gw_latency_new_rate(double window_s, double max_rate)
{
	struct gw_latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->window_s = window_s > 0 ? window_s : 60;
	l->cap = capacity_for(l->window_s, max_rate);
	l->ring = calloc(l->cap, sizeof(*l->ring));
	l->scratch = calloc(l->cap, sizeof(*l->scratch));
	if (!l->ring || !l->scratch) {
		gw_latency_free(l);
		return NULL;
	}
	for (int i = 0; i < GW_MAX_PROBE_TARGETS; i++)
		l->baseline[i] = NAN;
	return l;
}

struct gw_latency *gw_latency_new(double window_s)
{
	return gw_latency_new_rate(window_s, GW_LATENCY_DEFAULT_RATE);
}

void gw_latency_free(struct gw_latency *l)
{
	if (!l)
		return;
	free(l->ring);
	free(l->scratch);
	free(l);
}

size_t gw_latency_bytes(const struct gw_latency *l)
{
	return sizeof(*l) + l->cap * (sizeof(*l->ring) + sizeof(*l->scratch));
}

int gw_latency_reserve(struct gw_latency *l, double max_rate)
{
	size_t cap = capacity_for(l->window_s, max_rate);
	struct entry *ring;
	float *scratch;

	if (cap <= l->cap)
		return 0;
	ring = calloc(cap, sizeof(*ring));
	scratch = calloc(cap, sizeof(*scratch));
	if (!ring || !scratch) {
		free(ring);
		free(scratch);
		return -ENOMEM;
	}
	for (size_t k = 0; k < l->count; k++)
		ring[k] = l->ring[(l->head + k) % l->cap];
	free(l->ring);
	free(l->scratch);
	l->ring = ring;
	l->scratch = scratch;
	l->cap = cap;
	l->head = 0;
	return 0;
}

void gw_latency_forget_target(struct gw_latency *l, int target)
{
	if (target >= 0 && target < GW_MAX_PROBE_TARGETS)
		l->baseline[target] = NAN;
}

void gw_latency_clear(struct gw_latency *l)
{
	l->head = l->count = 0;
}

static void update_baseline(double *b, double rtt)
{
	if (isnan(*b))
		*b = rtt;
	else if (rtt > *b)
		*b = (1 - BASE_UP) * *b + BASE_UP * rtt;
	else
		*b = (1 - BASE_DOWN) * *b + BASE_DOWN * rtt;
}

static void histogram_add(struct gw_latency *l, double rtt_ms)
{
	double s = rtt_ms / 1000;

	l->hist_count++;
	l->hist_sum_s += s;
	for (int i = 0; i < GW_SNAP_RTT_BUCKETS; i++)
		if (s <= rtt_bounds[i])
			l->hist_le[i]++;
}

void gw_latency_add(struct gw_latency *l, const struct gw_probe_sample *s, enum gw_load_state st)
{
	bool replied = !s->lost && isfinite(s->rtt_ms) && s->rtt_ms >= 0;
	struct entry *e;

	/* a down target's silence is the target's, not the link's; an index out of range or a
	 * reply that is neither lost nor a number is nobody's */
	if (!s->target_up || s->target < 0 || s->target >= GW_MAX_PROBE_TARGETS ||
	    (!s->lost && !replied))
		return;
	if (replied)
		histogram_add(l, s->rtt_ms);
	if (st != GW_LOAD_IDLE && st != GW_LOAD_LOADED)
		return;
	if (replied && st == GW_LOAD_IDLE)
		update_baseline(&l->baseline[s->target], s->rtt_ms);
	if (l->count == l->cap) {	/* full: the oldest goes */
		l->head = (l->head + 1) % l->cap;
		l->count--;
	}
	e = &l->ring[(l->head + l->count) % l->cap];
	*e = (struct entry){ .t = s->sent_mono, .rtt_ms = replied ? (float)s->rtt_ms : NAN,
			     .target = (uint8_t)s->target, .loaded = st == GW_LOAD_LOADED };
	l->count++;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of the values at or below it. */
static double percentile(const float *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100 * (double)n);

	if (!n)
		return NAN;
	if (rank < 1)
		rank = 1;
	return sorted[(rank > n ? n : rank) - 1];
}

/* Sort the first n scratch values and fill min, percentiles and mean. */
static void order_stats(float *v, size_t n, double *min, double *p50, double *p90, double *p99,
			double *mean)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), cmp_float);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*min = n ? v[0] : NAN;
	*p50 = percentile(v, n, 50);
	*p90 = percentile(v, n, 90);
	*p99 = percentile(v, n, 99);
	*mean = n ? sum / (double)n : NAN;
}

/* Drop what fell out of the window. Entries arrive roughly in send order (a loss is judged
 * a timeout later), so the front is trimmed and the rest filtered by time as it is read. */
static void expire(struct gw_latency *l, double from)
{
	while (l->count && l->ring[l->head].t < from) {
		l->head = (l->head + 1) % l->cap;
		l->count--;
	}
}

/* One state's counts, jitter and order statistics. */
static void state_stats(struct gw_latency *l, double from, bool loaded, struct gw_snap_rtt *o)
{
	double last[GW_MAX_PROBE_TARGETS], ipdv = 0;
	size_t n = 0, pairs = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < GW_MAX_PROBE_TARGETS; i++)
		last[i] = NAN;
	for (size_t k = 0; k < l->count; k++) {
		const struct entry *e = &l->ring[(l->head + k) % l->cap];

		if (e->t < from || e->loaded != loaded)
			continue;
		o->samples++;
		if (isnan(e->rtt_ms)) {
			o->lost++;
			continue;
		}
		if (!isnan(last[e->target])) {
			ipdv += fabs(e->rtt_ms - last[e->target]);
			pairs++;
		}
		last[e->target] = e->rtt_ms;
		l->scratch[n++] = e->rtt_ms;
	}
	o->loss = o->samples ? (double)o->lost / (double)o->samples : NAN;
	o->jitter_ms = pairs ? ipdv / (double)pairs : NAN;
	order_stats(l->scratch, n, &o->min_ms, &o->p50_ms, &o->p90_ms, &o->p99_ms, &o->mean_ms);
}

/* Loaded replies' excess over their own target's baseline. */
static void induced(struct gw_latency *l, double from, struct gw_snap_latency *out)
{
	double min, p90, mean;
	size_t n = 0;

	for (size_t k = 0; k < l->count; k++) {
		const struct entry *e = &l->ring[(l->head + k) % l->cap];

		if (e->t >= from && e->loaded && !isnan(e->rtt_ms) && !isnan(l->baseline[e->target]))
			l->scratch[n++] = (float)(e->rtt_ms - l->baseline[e->target]);
	}
	order_stats(l->scratch, n, &min, &out->induced_p50_ms, &p90, &out->induced_p99_ms, &mean);
	out->induced_mean_ms = mean;
}

void gw_latency_summary(struct gw_latency *l, double now, struct gw_snap_latency *out)
{
	double from = now - l->window_s, sum = 0;
	int nb = 0;

	memset(out, 0, sizeof(*out));
	out->present = true;
	expire(l, from);
	for (int i = 0; i < GW_MAX_PROBE_TARGETS; i++)
		if (!isnan(l->baseline[i])) {
			sum += l->baseline[i];
			nb++;
		}
	out->baseline_ms = nb ? sum / nb : NAN;
	state_stats(l, from, false, &out->idle);
	state_stats(l, from, true, &out->loaded);
	induced(l, from, out);
	snprintf(out->grade, sizeof(out->grade), "%s", gw_latency_grade(out->induced_mean_ms));
	out->hist_count = l->hist_count;
	out->hist_sum_s = l->hist_sum_s;
	memcpy(out->hist_le, l->hist_le, sizeof(out->hist_le));
}

const char *gw_latency_grade(double ms)
{
	if (isnan(ms))
		return "";
	if (ms < 5)
		return "A+";
	if (ms < 30)
		return "A";
	if (ms < 60)
		return "B";
	if (ms < 200)
		return "C";
	if (ms < 400)
		return "D";
	return "F";
}
