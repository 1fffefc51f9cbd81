/* tree/autorate_ctl.c: autorate's controller: the delay the load adds, judged per sample
 * against a per-reflector baseline, K of the last N samples over the threshold as "bloat",
 * and the rate steps that follow (cut towards what the line carried, raise under load, finely
 * near the line's measured capacity, ease under a queue caught early, drift back to base when
 * idle). Pure: the caller gives every time and applies every step. */
#include <math.h>
#include <string.h>
#include "tree/autorate_ctl.h"

enum { K_RTT = 0, K_UP = 1, K_DOWN = 2 };

const char *gw_ar_reason_name(enum gw_ar_reason r)
{
	static const char *const names[] = { "bloat", "load", "idle", "queue" };

	return r < GW_AR_REASONS ? names[r] : "none";
}

const char *gw_ar_state_name(enum gw_ar_state s)
{
	static const char *const names[] = { "idle", "steady", "loaded", "bloated", "hold" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static void window_push(struct gw_ar_window *w, int size, bool bloated)
{
	uint64_t mask = size >= 64 ? UINT64_MAX : (1ULL << size) - 1;

	w->bits = ((w->bits << 1) | (bloated ? 1 : 0)) & mask;
	if (w->n < size)
		w->n++;
}

static int window_count(const struct gw_ar_window *w)
{
	return __builtin_popcountll(w->bits);
}

void gw_ar_init(struct gw_ar_ctl *c, const struct gw_autorate_cfg *cfg[2], const double rate[2])
{
	memset(c, 0, sizeof(*c));
	for (int d = 1; d >= 0; d--) {
		struct gw_ar_dir *x = &c->dir[d];

		x->rate = x->want = rate[d];
		x->last_reason = x->want_reason = GW_AR_NONE;
		x->last_cut = x->last_step = x->last_look = x->last_ease = -INFINITY;
		if (!cfg[d] || !cfg[d]->present)
			continue;
		x->on = true;
		x->cfg = *cfg[d];
		/* the RTT window is shared: egress's settings when both are on */
		c->window = x->cfg.window;
		c->bloat_samples = x->cfg.bloat_samples;
	}
}

void gw_ar_set_rate(struct gw_ar_ctl *c, int d, double rate)
{
	c->dir[d].rate = c->dir[d].want = rate;
}

double gw_ar_threshold_ms(const struct gw_ar_dir *d)
{
	/* one 1500-byte packet ahead of the probe at the rate in force: at 5 Mbit/s 2.4 ms,
	 * which a 10 ms threshold would otherwise have to absorb */
	double ser = d->rate > 0 ? 1500.0 * 1e3 / d->rate : 0;

	return (double)d->cfg.delay_threshold_us / 1e3 + ser;
}

/* A round trip crosses both directions: the smaller threshold, each direction's packet time. */
static double rtt_threshold_ms(const struct gw_ar_ctl *c)
{
	double thr = INFINITY, ser = 0;

	for (int d = 0; d < 2; d++) {
		const struct gw_ar_dir *x = &c->dir[d];

		if (!x->on)
			continue;
		thr = fmin(thr, (double)x->cfg.delay_threshold_us / 1e3);
		ser += gw_ar_threshold_ms(x) - (double)x->cfg.delay_threshold_us / 1e3;
	}
	return thr + ser;
}

static bool loaded(const struct gw_ar_dir *x)
{
	return x->achieved_mono > 0 && x->achieved >= x->cfg.load_threshold * x->rate;
}

/* Delay over this reflector's baseline (the baseline before this sample), then the baseline
 * moves: down fast, up slowly. */
static double judge_delay(struct gw_ar_refl *r, int k, double ms)
{
	double delta;

	if (!r->seen[k]) {
		r->seen[k] = true;
		r->base[k] = ms;
	}
	delta = ms - r->base[k];
	r->base[k] += (delta < 0 ? GW_AR_BASE_DOWN : GW_AR_BASE_UP) * delta;
	r->delta[k] = delta;
	return delta;
}

static void smooth(struct gw_ar_dir *x, double delta)
{
	x->delta_ms += GW_AR_DELTA_EWMA * (delta - x->delta_ms);
}

static void set_state(struct gw_ar_dir *x, double now)
{
	if (now - x->last_cut < (double)x->cfg.hold_us / 1e6)
		x->state = GW_AR_ST_HOLD;
	else if (x->bloated)
		x->state = GW_AR_ST_BLOATED;
	else if (loaded(x))
		x->state = GW_AR_ST_LOADED;
	else if (x->idle_since > 0 || x->achieved_mono <= 0)
		x->state = GW_AR_ST_IDLE;
	else
		x->state = GW_AR_ST_STEADY;
}

/* Propose rate r for reason why (clamped to min..max); bit d when it differs from the rate. */
static unsigned int propose(struct gw_ar_dir *x, int d, double r, enum gw_ar_reason why)
{
	r = fmax((double)x->cfg.min, fmin((double)x->cfg.max, r));
	if (fabs(r - x->rate) < 1)
		return 0;
	x->want = r;
	x->want_reason = why;
	return 1u << d;
}

/* A cut towards base, the rate the line carried through the queue: times cut, or deeper
 * for a queue deeper than a cut drains in GW_AR_DRAIN_S. */
static unsigned int proven_cut(struct gw_ar_dir *x, int d, double base)
{
	double factor = fmin(x->cfg.cut,
			     fmax(GW_AR_CUT_DEEPEST, 1 - x->delta_ms / 1e3 / GW_AR_DRAIN_S));

	x->want_proven = true;
	x->want_line = base;
	x->want_factor = factor;
	return propose(x, d, base * factor, GW_AR_BLOAT);
}

/* Bloat in direction d: cut towards what it achieved (never above the rate, never under min),
 * at most once per hold. The achieved rate measures the line when the flows carried the rate
 * (loaded: a raise past the line's capacity, the usual bloat) or over a pass the queue stood
 * through from its start. Otherwise the flows were still ramping up: slow start's burst fills
 * a modem's buffer long before the flows carry its rate, and a cut towards what they carried
 * then throws most of the line away. Such a bloat is cut from the rate in force, by cut alone
 * (no deeper: the queue's depth is as unproven). That cut is no reason to wait out the hold:
 * as soon as a whole pass has been seen through the bloat (a capacity that has just dropped
 * looks like this too), it is cut towards what the line carried in that pass. */
static unsigned int cut(struct gw_ar_dir *x, int d, double now)
{
	double base = x->rate, hold = (double)x->cfg.hold_us / 1e6;
	double fall = x->cut_delta_ms - x->delta_ms;
	bool whole = x->achieved_prev_mono > 0 && x->bloat_since > 0 &&
		     x->achieved_prev_mono >= x->bloat_since;

	if (now - x->last_look < hold)
		return 0;
	if (now - x->last_cut < hold) {
		if (!x->cut_unproven || !whole)
			return 0;
		/* the last pass alone: the one before was partly before the bloat */
		return proven_cut(x, d, fmin(base, x->carried));
	}
	/* draining since the last look, fast enough to be gone in time: look again later */
	if (x->cut_delta_ms > 0 && fall > 0 &&
	    x->delta_ms * fmax(hold, now - fmax(x->last_cut, x->last_look)) <= fall * GW_AR_DRAIN_S) {
		x->cut_delta_ms = x->delta_ms;
		x->last_look = now;
		return 0;
	}
	/* a bloat no pass has yet seen whole, on flows that did not carry the rate: the
	 * achieved rate says nothing of the line yet */
	if (!loaded(x) && !whole) {
		x->want_proven = false;
		return propose(x, d, base * x->cfg.cut, GW_AR_BLOAT);
	}
	/* towards what the line carried: the larger of the last two passes, so that flows
	 * that have just collapsed (a loss, the queue's own delay) do not drag the cut down */
	if (fmax(x->carried, x->carried_prev) < base)
		base = fmax(x->carried, x->carried_prev);
	return proven_cut(x, d, base);
}

/* With round trips alone, whose is the bloat: the directions loaded now or lately; else the
 * busiest, if it is busy at all. A bit per direction. */
static unsigned int rtt_blame(const struct gw_ar_ctl *c, double now)
{
	unsigned int m = 0;
	double best = GW_AR_BUSY_MIN;
	int busiest = -1;

	for (int d = 0; d < 2; d++) {
		const struct gw_ar_dir *x = &c->dir[d];
		double u = x->rate > 0 && x->achieved_mono > 0 ? x->achieved / x->rate : 0;

		if (!x->on)
			continue;
		if (loaded(x) || (x->loaded_mono > 0 && now - x->loaded_mono <= GW_AR_LOADED_MEMORY_S))
			m |= 1u << d;
		if (u >= best) {
			best = u;
			busiest = d;
		}
	}
	return m ? m : busiest >= 0 ? 1u << busiest : 0;
}

static bool line_known(const struct gw_ar_dir *x, double now)
{
	return x->line > 0 && now - x->line_mono <= GW_AR_LINE_MEMORY_S;
}

/* In the band around the measured line: from GW_AR_NEAR under it up, while the flows carry no
 * more than GW_AR_NEAR over it. */
static bool in_band(const struct gw_ar_dir *x, double now)
{
	return line_known(x, now) && x->rate >= x->line * (1 - GW_AR_NEAR) &&
	       x->achieved < x->line * (1 + GW_AR_NEAR);
}

/* A queue standing under the threshold, or caught early: the rate is past what the line
 * carries, which the pass has just measured (less the queue's growth): to GW_AR_NEAR under
 * that, so the queue drains. It is the line from then on only when the pass showed the line
 * to be the bottleneck (the delay grew by GW_AR_GROWING or more over it): a delay a few
 * milliseconds up may be the path's own jitter, or the router's, while the shaper, not the
 * line, holds the flows, and what they carried then is the shaper's rate, which each such
 * step would otherwise ratchet the line down to. */
static double ease_to(struct gw_ar_dir *x)
{
	double est = x->carried > 0 ? x->carried : x->achieved;

	x->want_line = x->slope >= GW_AR_GROWING ? est : 0;
	return fmin(est > 0 ? est : x->rate, x->rate) * (1 - GW_AR_NEAR);
}

/* Near the line, under load: a queue caught early (GW_AR_EARLY_SAMPLES of the last
 * GW_AR_EARLY_WINDOW samples over GW_AR_EARLY of the threshold, and the smoothed delay over
 * GW_AR_EARLY_SMOOTHED of it: a queue that builds, not two spikes of the path's jitter) is
 * the rate just past the line's: ease now, not once it is bloat. Once per hold. */
static bool early(const struct gw_ar_dir *x, double now)
{
	double hold = (double)x->cfg.hold_us / 1e6;

	return window_count(&x->early) >= GW_AR_EARLY_SAMPLES && in_band(x, now) &&
	       x->delta_ms >= GW_AR_EARLY_SMOOTHED * gw_ar_threshold_ms(x) &&
	       x->loaded_mono > 0 && now - x->loaded_mono <= GW_AR_LOADED_MEMORY_S &&
	       now - x->last_ease >= hold && now - x->last_cut >= hold;
}

unsigned int gw_ar_sample(struct gw_ar_ctl *c, int target, double rtt_ms, double owd_up_ms,
			  double owd_down_ms, double now)
{
	bool owd = isfinite(owd_up_ms) && isfinite(owd_down_ms);
	bool rtt_bloat = false;
	unsigned int moved = 0, blamed;
	struct gw_ar_refl *r;

	if (target < 0 || target >= GW_AR_REFLECTORS || !isfinite(rtt_ms))
		return 0;	/* a loss says nothing of the queue */
	r = &c->refl[target];
	if (owd) {
		/* each direction its own delay: only the one that bloats is cut. The threshold
		 * bounds what the load adds to a round trip, whichever way it is measured: a
		 * direction is also bloated when the round trip is over it and that direction
		 * holds the larger share (a queue the other way that the shaper cannot empty,
		 * bursts past it, would otherwise let this one's grow to a threshold of its own) */
		double ms[2] = { owd_up_ms, owd_down_ms }, delta[2];

		for (int d = 0; d < 2; d++)
			delta[d] = judge_delay(r, d == 0 ? K_UP : K_DOWN, ms[d]);
		for (int d = 0; d < 2; d++) {
			struct gw_ar_dir *x = &c->dir[d];
			bool over = delta[d] > gw_ar_threshold_ms(x) ||
				    (delta[0] + delta[1] > rtt_threshold_ms(c) && delta[d] >= delta[!d]);

			if (!x->on)
				continue;
			window_push(&x->owd, x->cfg.window, over);
			window_push(&x->early, GW_AR_EARLY_WINDOW,
				    delta[d] > GW_AR_EARLY * gw_ar_threshold_ms(x));
			smooth(x, delta[d]);
		}
	} else if (c->window) {
		double delta = judge_delay(r, K_RTT, rtt_ms);

		window_push(&c->rtt, c->window, delta > rtt_threshold_ms(c));
		for (int d = 0; d < 2; d++)
			if (c->dir[d].on) {
				window_push(&c->dir[d].early, GW_AR_EARLY_WINDOW,
					    delta > GW_AR_EARLY * rtt_threshold_ms(c));
				smooth(&c->dir[d], delta);
			}
	}
	if (c->window)
		rtt_bloat = window_count(&c->rtt) >= c->bloat_samples;
	blamed = rtt_bloat ? rtt_blame(c, now) : 0;
	for (int d = 0; d < 2; d++) {
		struct gw_ar_dir *x = &c->dir[d];

		if (!x->on)
			continue;
		x->bloated = window_count(&x->owd) >= x->cfg.bloat_samples ||
			     (blamed & (1u << d));
		if (x->bloated) {
			x->idle_since = 0;	/* a queue: not idle, whatever the rate says */
			if (x->bloat_since <= 0)
				x->bloat_since = now;
			moved |= cut(x, d, now);
		} else {
			x->cut_delta_ms = 0;	/* the episode is over: the next one starts anew */
			if (early(x, now))
				moved |= propose(x, d, ease_to(x), GW_AR_QUEUE);
			x->bloat_since = 0;
		}
		set_state(x, now);
	}
	return moved;
}

/* Where a raise goes from the rate in force (see GW_AR_LINE_MEMORY_S); x->want_fine says
 * whether it is a fine one, which starts the count of growing raises anew. */
static double raise_to(struct gw_ar_dir *x, double now)
{
	double f = x->cfg.raise - 1, r = x->rate, lo = x->line * (1 - GW_AR_NEAR);
	double mult = 1;
	bool known = line_known(x, now);

	x->want_fine = false;
	if (known && x->deep && r < x->cfg.cut * x->line)
		return x->cfg.cut * x->line;
	if (known && r >= lo && x->achieved < x->line * (1 + GW_AR_NEAR)) {
		x->want_fine = true;
		return r * (1 + f * GW_AR_FINE);
	}
	if (x->achieved >= GW_AR_PRESS * r)
		mult = fmin(1 + x->raises / 2, GW_AR_ACCEL_MAX);
	if (known && r < lo)
		return fmin(r * (1 + f * mult), lo);
	return r * (1 + f * mult);
}

unsigned int gw_ar_load(struct gw_ar_ctl *c, int d, double achieved, double now)
{
	struct gw_ar_dir *x;
	double every;
	unsigned int moved = 0;

	if (d < 0 || d > 1 || !c->dir[d].on)
		return 0;
	x = &c->dir[d];
	every = (double)x->cfg.raise_every_us / 1e6;
	/* what the line carried in the pass: what passed the shaper, less what went into the
	 * queue past it (the delay's growth over the pass, as a share of the time) */
	x->carried_prev = x->carried;
	if (x->achieved_mono > 0 && now > x->achieved_mono) {
		x->slope = (x->delta_ms - x->pass_delta_ms) / 1e3 / (now - x->achieved_mono);
		/* at most GW_AR_CARRY_MAX less: over a pass that a sudden queue fills, the
		 * smoothed delay catches up on more than the pass added */
		x->carried = (achieved > 0 ? achieved : 0) /
			     (1 + fmin(GW_AR_CARRY_MAX, fmax(0, x->slope)));
	} else {
		x->slope = 0;
		x->carried = achieved > 0 ? achieved : 0;
	}
	x->pass_delta_ms = x->delta_ms;
	x->achieved_prev = x->achieved;
	x->achieved_prev_mono = x->achieved_mono;
	x->achieved = achieved > 0 ? achieved : 0;
	x->achieved_mono = now;
	if (loaded(x)) {
		double hold = (double)x->cfg.hold_us / 1e6;
		bool quiet = x->delta_ms < GW_AR_RAISE_BELOW * gw_ar_threshold_ms(x);

		x->idle_since = 0;
		x->loaded_mono = now;
		if (quiet)
			x->queue_since = 0;
		else if (x->queue_since <= 0)
			x->queue_since = now;
		if (!x->bloated && now - x->last_cut >= hold && now - x->last_ease >= hold &&
		    now - x->last_step >= every * (1 - GW_AR_PACE_SLACK)) {
			if (quiet)
				moved = propose(x, d, raise_to(x, now), GW_AR_LOAD);
			else if (now - x->queue_since >= GW_AR_EASE_AFTER_S)
				moved = propose(x, d, ease_to(x), GW_AR_QUEUE);
		}
	} else if (!x->bloated) {
		if (x->idle_since <= 0)
			x->idle_since = now;
		if (now - x->idle_since >= (double)x->cfg.idle_after_us / 1e6 &&
		    now - x->last_step >= every && fabs(x->rate - (double)x->cfg.base) >= 1) {
			double base = (double)x->cfg.base;
			double r = x->rate < base ? fmin(base, x->rate * x->cfg.raise) :
						    fmax(base, x->rate / x->cfg.raise);

			moved = propose(x, d, r, GW_AR_IDLE);
		}
	}
	set_state(x, now);
	return moved;
}

void gw_ar_done(struct gw_ar_ctl *c, int d, bool ok, double now)
{
	struct gw_ar_dir *x = &c->dir[d];

	if (x->want == x->rate)
		return;
	/* a refusal waits as a change would, or every sample would ask again */
	x->last_step = now;
	if (x->want_reason == GW_AR_BLOAT) {
		x->last_cut = now;
		x->cut_delta_ms = x->delta_ms;
		x->cut_unproven = !x->want_proven;
	} else if (x->want_reason == GW_AR_QUEUE) {
		x->last_ease = now;
		x->queue_since = 0;
	}
	if (ok && ((x->want_reason == GW_AR_BLOAT && x->want_proven) ||
		   (x->want_reason == GW_AR_QUEUE && x->want_line > 0))) {
		/* the line as the flows carried it through the queue: the base of the cut */
		x->line = x->want_line;
		x->line_mono = now;
	}
	if (ok) {
		x->raises = x->want_reason == GW_AR_LOAD && !x->want_fine ? x->raises + 1 : 0;
		if (x->want_reason == GW_AR_BLOAT)
			x->deep = x->want_proven && x->want_factor < x->cfg.cut;
		else if (x->want_reason == GW_AR_LOAD)
			x->deep = false;
		x->rate = x->want;
		x->changes[x->want_reason]++;
		x->last_reason = x->want_reason;
		x->last_change_mono = now;
	}
	x->want = x->rate;
	set_state(x, now);
}
