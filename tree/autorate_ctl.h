/* tree/autorate_ctl.h: autorate's controller, pure: probe samples and achieved rates in,
 * the rate each direction should shape to out. No kernel, no clock, no log (the caller gives
 * the time), so tests/unit drives it sample by sample. gatewayd/autorate.c puts it to work. */
#ifndef GW_AUTORATE_CTL_H
#define GW_AUTORATE_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include "config/config.h"

#define GW_AR_REFLECTORS GW_MAX_PROBE_TARGETS
#define GW_AR_UP 0	/* egress: the same index as GW_DIR_EGRESS */
#define GW_AR_DOWN 1	/* ingress */

/* Why a rate moved; the order of the counters in status and metrics. */
enum gw_ar_reason {
	GW_AR_BLOAT = 0,	/* delay over the threshold: cut towards the achieved rate */
	GW_AR_LOAD,		/* loaded and no bloat: raised */
	GW_AR_IDLE,		/* unloaded for a while: back towards base */
	GW_AR_QUEUE,		/* a queue standing under the threshold: eased below the line */
	GW_AR_REASONS,
	GW_AR_NONE = GW_AR_REASONS,
};

enum gw_ar_state {
	GW_AR_ST_IDLE = 0,	/* no load to judge by */
	GW_AR_ST_STEADY,	/* some load, none of the other states */
	GW_AR_ST_LOADED,	/* achieved near the rate, no bloat */
	GW_AR_ST_BLOATED,	/* the recent samples say bloat */
	GW_AR_ST_HOLD,		/* just cut: waiting for the queue to drain */
};

const char *gw_ar_reason_name(enum gw_ar_reason r);	/* "bloat", "load", "idle", "queue" */
const char *gw_ar_state_name(enum gw_ar_state s);

/* The last `window` judgements as bits, newest in bit 0. */
struct gw_ar_window {
	uint64_t bits;
	int n;			/* judgements so far, up to the window */
};

struct gw_ar_dir {
	bool on;			/* autorate runs in this direction */
	struct gw_autorate_cfg cfg;
	double rate;			/* bytes/s in force (what the kernel has) */
	double want;			/* bytes/s proposed by the last step; == rate when none */
	enum gw_ar_reason want_reason;
	double achieved;		/* bytes/s, the last sampling pass's */
	double achieved_prev;		/* the pass before's */
	double carried, carried_prev;	/* the same less what went into the queue past the
					 * shaper in the pass: a cut goes towards the larger */
	double pass_delta_ms;		/* delta_ms at the last pass */
	double slope;			/* how fast the delay grew over it, s/s */
	double achieved_mono;		/* when it was seen; 0: never */
	double achieved_prev_mono;	/* when the pass before was: the last one's start */
	double last_cut, last_step;	/* monotonic seconds of the last cut, last change */
	double last_look;		/* a cut passed over while the queue drained */
	double idle_since;		/* monotonic seconds; 0: not idle */
	double bloat_since;		/* when this bloat began; 0: not bloated */
	double loaded_mono;		/* the last pass that saw it loaded; 0: never */
	double delta_ms;		/* its samples' delay over baseline, smoothed */
	double cut_delta_ms;		/* delta_ms at the last cut (or the last look at it) */
	double last_ease;		/* monotonic seconds of the last queue step */
	bool want_proven;		/* the proposed cut went towards the measured line: */
	double want_line, want_factor;	/* that line (bytes/s) and the factor below it (a
					 * queue step measures the line too) */
	double queue_since;		/* a queue under the threshold since; 0: none */
	bool cut_unproven;		/* the last cut did not: a proven one may follow at once */
	bool deep;			/* the last cut went deeper than cut, for the queue's depth */
	double line;			/* bytes/s the line carried when it last bloated; 0: unknown */
	double line_mono;		/* when that was measured (or the line carried more) */
	int raises;			/* growing raises in a row (none of another kind since) */
	bool want_fine;			/* the proposed raise is a fine one, near the line */
	bool bloated;			/* the last judgement of this direction */
	enum gw_ar_state state;
	struct gw_ar_window owd;	/* one-way delay judgements of this direction */
	struct gw_ar_window early;	/* the same against GW_AR_EARLY of the threshold */
	/* what happened, for status and metrics */
	uint64_t changes[GW_AR_REASONS];
	enum gw_ar_reason last_reason;	/* GW_AR_NONE before the first change */
	double last_change_mono;	/* 0 before the first change */
};

struct gw_ar_refl {
	bool seen[3];			/* rtt, owd up, owd down */
	double base[3];			/* baselines, ms */
	double delta[3];		/* the last sample's delay over baseline, ms */
};

struct gw_ar_ctl {
	struct gw_ar_dir dir[2];
	struct gw_ar_refl refl[GW_AR_REFLECTORS];
	struct gw_ar_window rtt;	/* round-trip judgements, both directions */
	int window, bloat_samples;	/* of the RTT window: the first direction's that is on */
};

/* Baselines: a sample below the baseline pulls it down fast, above it rises slowly (as
 * cake-autorate has it); per sample. */
#define GW_AR_BASE_DOWN 0.9
#define GW_AR_BASE_UP 0.001
/* With round trips alone a direction is taken to be the bloated one when it is loaded or was
 * within this long: a bottleneck past the shaper slows the flows it queues (the achieved rate
 * falls below the shaper's as the queue grows), and that is exactly the queue to cut for. */
#define GW_AR_LOADED_MEMORY_S 2.0
/* When no direction is loaded by that measure (a line far slower than the rate it started at
 * never lets the flows reach load_threshold of it), the bloat is the busiest direction's, if it
 * carries at least this share of its rate. */
#define GW_AR_BUSY_MIN 0.1
/* A cut aims to drain the standing queue within GW_AR_DRAIN_S: towards the achieved rate
 * times cut, or times 1 - delay/GW_AR_DRAIN_S where the queue is deeper than that drains
 * (never below GW_AR_CUT_DEEPEST). After a cut the queue's samples stay over the threshold
 * until it has drained: a further cut (once the hold is over) waits while the smoothed delay
 * falls fast enough to be gone within GW_AR_DRAIN_S, so one drop is not cut again and again
 * on its way down; a queue that stands, or drains slower, is cut again. */
#define GW_AR_DRAIN_S 0.3
#define GW_AR_CUT_DEEPEST 0.5
#define GW_AR_DELTA_EWMA 0.2	/* the smoothing of delta_ms, per sample */
/* A pass's timer wakes a little early or late: a raise due at raise_every comes this share
 * of it earlier, or passes as often as raise_every would skip every other one. */
#define GW_AR_PACE_SLACK 0.25
/* A raise waits while the smoothed delay is over this share of the threshold: a queue that
 * builds without being bloat yet says the rate has reached the line's, and each raise past
 * it (4% every 200 ms) adds to the queue the cut will have to drain, doubling the overshoot
 * before the samples call it bloat. */
#define GW_AR_RAISE_BELOW 0.5
/* The line's capacity as the last bloat measured it (what the flows carried through the
 * queue) guides the raises for GW_AR_LINE_MEMORY_S, then is forgotten (a line that moves
 * minute by minute is not what it was then):
 * - from GW_AR_NEAR under it up, until the flows carry more than GW_AR_NEAR over it (a
 *   rate past the line does not raise what they carry), a raise is GW_AR_FINE of the
 *   configured one: the queue that a raise past the line builds grows as fast as the raise
 *   was large, and the samples call it bloat only once it is over the threshold;
 * - below that band, and above it (the line carries more than it did), raises grow while
 *   the flows press on the shaper (achieved at GW_AR_PRESS of the rate or more): the n-th
 *   growing raise in a row is 1 + n/2 (rounded down) times the configured one, at most
 *   GW_AR_ACCEL_MAX times, never past the band's lower edge from below; a fine raise
 *   starts the count anew;
 * - after a cut deeper than `cut` (a deep queue, drained in GW_AR_DRAIN_S), the first raise
 *   goes straight back to cut times the line: the depth was for the queue, not the line;
 * - in the band, under load, GW_AR_EARLY_SAMPLES of the last GW_AR_EARLY_WINDOW samples over
 *   GW_AR_EARLY of the threshold, with the smoothed delay over GW_AR_EARLY_SMOOTHED of it
 *   (two spikes of jitter do not move it that far), are the rate just past the line's: the shaper, still full,
 *   lets through more than the line carries and the difference builds the queue past it
 *   (1% over at 4 Mbit/s: 10 ms a second), so a queue caught at a few milliseconds is
 *   eased then, not cut as bloat at the threshold, later and deeper;
 * - a queue that stands between GW_AR_RAISE_BELOW of the threshold and the threshold for
 *   GW_AR_EASE_AFTER_S elsewhere is not bloat yet either, but it is the rate's.
 * Easing goes to GW_AR_NEAR under what the line carried in the last pass (what passed the
 * shaper less the queue's growth), once per hold; that is the measured line from then on
 * when the pass showed the line to be the bottleneck (the delay grew by GW_AR_GROWING). */
#define GW_AR_LINE_MEMORY_S 30.0
#define GW_AR_NEAR 0.03
#define GW_AR_FINE 0.25
#define GW_AR_PRESS 0.9
#define GW_AR_ACCEL_MAX 4
#define GW_AR_EASE_AFTER_S 0.5
#define GW_AR_EARLY 0.5
#define GW_AR_EARLY_SAMPLES 2
#define GW_AR_EARLY_WINDOW 3
#define GW_AR_EARLY_SMOOTHED 0.4
#define GW_AR_GROWING 0.01	/* s of delay a second: 10 ms in a second */
#define GW_AR_CARRY_MAX 0.1	/* what the line carried: at most a tenth under what passed */

/* dir[d] may be NULL (autorate off there); rate[d] is what the kernel has now. */
void gw_ar_init(struct gw_ar_ctl *c, const struct gw_autorate_cfg *cfg[2], const double rate[2]);
/* The rate in force changed behind the controller's back (a reload, a heal): take it. */
void gw_ar_set_rate(struct gw_ar_ctl *c, int d, double rate);
/* One probe's outcome at monotonic time now: rtt_ms, owd_up_ms and owd_down_ms finite or NAN
 * (a loss: nothing to judge). Returns the directions (bit d) whose want now differs from rate. */
unsigned int gw_ar_sample(struct gw_ar_ctl *c, int target, double rtt_ms, double owd_up_ms,
			  double owd_down_ms, double now);
/* A sampling pass saw direction d send achieved bytes/s; steps raises and idle returns.
 * Returns the directions (bit d) whose want now differs from rate. */
unsigned int gw_ar_load(struct gw_ar_ctl *c, int d, double achieved, double now);
/* The kernel took want (ok) or refused it; either way want == rate after. */
void gw_ar_done(struct gw_ar_ctl *c, int d, bool ok, double now);
/* The threshold a delta is held against in direction d at its rate now, ms: the configured one
 * plus one 1500-byte packet's serialisation time. */
double gw_ar_threshold_ms(const struct gw_ar_dir *d);

#endif
