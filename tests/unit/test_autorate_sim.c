/* tests/unit/test_autorate_sim.c: autorate's controller against a simulated line: a modem
 * whose capacity steps (the varying-link bench's default, 40/10 -> 12/4 -> 30/8 Mbit/s) with
 * a deep fifo, the gateway's shaper with an AQM ahead of it, and window-based flows both
 * ways, in 1 ms steps. A model, not a kernel: it has no CPU to run out of and no scheduler
 * noise, so what it shows is the control loop's own behaviour (how far past the line a raise
 * goes, how fast a queue is caught, what a drop costs), repeatably; tests/uml/test_scenario.sh
 * measures the real thing. The model:
 * - per direction, 4 flows with Reno's windows (slow start, then one segment per round
 *   trip), each halved by a mark or a drop (at most once per round trip);
 * - the shaper: a fluid queue served at the controller's rate; the AQM marks one flow per
 *   100 ms / sqrt(n) while its sojourn is over 5 ms (CoDel's law, n marks in a row);
 * - the modem: a fluid fifo of 454,200 bytes served at the step's capacity; past it, drops;
 * - a flow's round trip: 40 ms, plus its own direction's shaper and modem queues, plus the
 *   other direction's modem queue (its ACKs wait there; the shaper's AQM serves them as
 *   sparse);
 * - probes at 60 Hz over 3 reflectors, each with both one-way delays (the modem's queues:
 *   a sparse flow waits at the shaper for one packet only), with a little jitter;
 * - sampling passes every 200 ms give the shaper's achieved rate.
 * The same run with the rate fixed at the base shows that the model's modem does bloat. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tree/autorate_ctl.h"
#include "tests/unit/autorate_cfg.h"
#include "tests/unit/tap.h"

#define DT 0.001
#define MSS 1448.0
#define FLOWS 4
#define BASE_RTT 0.040
#define FIFO 454200.0
#define STEPS 3
#define STEP_S 20.0
#define SETTLE_S 3.0

struct flow {
	double cwnd, ssthresh, last_cut;
};

struct dir {
	struct flow f[FLOWS];
	double shaper_q, box_q;		/* bytes */
	double codel_above, codel_next;	/* sojourn over target since; next mark */
	int codel_n, next_flow;
	double sent_pass;		/* bytes through the shaper this pass */
	double box_out;			/* bytes out of the modem, this step from SETTLE_S on */
};

struct sim {
	struct dir d[2];
	double cap[STEPS][2];
	double jitter_s;		/* each probe's one-way delays get 0..this more, */
	double spike_s;			/* and one in ten this on top */
	uint64_t rng;
};

static double uniform(struct sim *s)	/* 0..1 */
{
	s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(s->rng >> 40) / (double)(1ULL << 24);
}

/* 0..jitter_s, uniform, and one sample in ten spike_s more (a scheduler's or a radio's hiccup) */
static double jitter(struct sim *s)
{
	double j = uniform(s) * s->jitter_s;

	return uniform(s) < 0.1 ? j + s->spike_s : j;
}

static void halve(struct flow *f, double now, double rtt)
{
	if (now - f->last_cut < rtt)
		return;
	f->ssthresh = fmax(2 * MSS, f->cwnd / 2);
	f->cwnd = f->ssthresh;
	f->last_cut = now;
}

/* One millisecond of direction k at shaper rate r, the capacities c[] of both. */
static void step_dir(struct sim *s, int k, double r, const double c[2], double now, bool count)
{
	struct dir *x = &s->d[k], *o = &s->d[!k];
	double rtt = BASE_RTT + x->shaper_q / r + x->box_q / c[k] + o->box_q / c[!k];
	double win = 0, in, out, served;

	for (int i = 0; i < FLOWS; i++)
		win += x->f[i].cwnd;
	/* what the windows let out this ms: a window per round trip */
	in = win / rtt * DT;
	x->shaper_q += in;
	out = fmin(x->shaper_q, r * DT);
	x->shaper_q -= out;
	x->sent_pass += out;
	x->box_q += out;
	served = fmin(x->box_q, c[k] * DT);
	x->box_q -= served;
	if (count)
		x->box_out += served;
	/* the modem's fifo overflows: a drop */
	if (x->box_q > FIFO) {
		x->box_q = FIFO;
		halve(&x->f[x->next_flow], now, rtt);
		x->next_flow = (x->next_flow + 1) % FLOWS;
	}
	/* the AQM at the shaper: CoDel's law on the fluid queue's sojourn */
	if (x->shaper_q / r > 0.005) {
		if (x->codel_above <= 0)
			x->codel_above = now;
		if (now - x->codel_above >= 0.1 && now >= x->codel_next) {
			x->codel_n++;
			halve(&x->f[x->next_flow], now, 0);
			x->next_flow = (x->next_flow + 1) % FLOWS;
			x->codel_next = now + 0.1 / sqrt(x->codel_n);
		}
	} else {
		x->codel_above = 0;
		x->codel_n = 0;
	}
	/* the windows grow with what was delivered */
	for (int i = 0; i < FLOWS && win > 0; i++) {
		struct flow *f = &x->f[i];
		double acked = served * f->cwnd / win;

		f->cwnd += f->cwnd < f->ssthresh ? acked : MSS * acked / f->cwnd;
		f->cwnd = fmin(f->cwnd, 4e6);
	}
}

struct result {
	double p95_ms[STEPS];	/* what the queues add to a round trip, from SETTLE_S on (the
				 * probes' jitter is the path's, not the controller's) */
	double share[STEPS][2];	/* what the modem carried, of its capacity */
	double min_rate[STEPS][2];
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The whole run; ctl NULL: the rate stays at the base. */
static void run(struct gw_ar_ctl *ctl, const double base[2], double jitter_s, double spike_s,
		struct result *res)
{
	static double ind[1400];	/* a step's probes: 60 Hz for STEP_S */
	struct sim s = { .rng = 42, .jitter_s = jitter_s, .spike_s = spike_s };
	double rate[2] = { base[0], base[1] };
	const double caps[STEPS][2] = { { MBIT(10), MBIT(40) }, { MBIT(4), MBIT(12) },
					{ MBIT(8), MBIT(30) } };
	int target = 0;
	const char *tr = getenv("GW_SIM_TRACE");	/* from when to print 6 s of the run */
	bool trace = tr && ctl;
	double trace_from = tr ? atof(tr) : 0;

	memcpy(s.cap, caps, sizeof(caps));
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < FLOWS; i++)
			s.d[k].f[i] = (struct flow){ .cwnd = 10 * MSS, .ssthresh = 1e9,
						     .last_cut = -1 };
	for (int st = 0; st < STEPS; st++) {
		int n = 0;

		res->min_rate[st][0] = res->min_rate[st][1] = INFINITY;
		for (int k = 0; k < 2; k++)
			s.d[k].box_out = 0;
		for (int ms = 0; ms < (int)(STEP_S * 1000); ms++) {
			double now = 10 + st * STEP_S + ms * DT, in_step = ms * DT;
			bool count = in_step >= SETTLE_S;
			const double *c = s.cap[st];

			for (int k = 0; k < 2; k++)
				step_dir(&s, k, rate[k], c, now, count);
			if (count)
				for (int k = 0; k < 2; k++)
					res->min_rate[st][k] = fmin(res->min_rate[st][k], rate[k]);
			if (trace && ms % 50 == 0 && now >= trace_from && now < trace_from + 6)
				printf("# t %.2f rate %.2f/%.2f modem %.1f/%.1f ms shaper %.1f/%.1f ms\n", now,
				       rate[0] / 125000, rate[1] / 125000, s.d[0].box_q / c[0] * 1e3,
				       s.d[1].box_q / c[1] * 1e3, s.d[0].shaper_q / rate[0] * 1e3,
				       s.d[1].shaper_q / rate[1] * 1e3);
			/* a probe every 1/60 s, round the reflectors */
			if (ms % 17 == 0) {
				/* what the queues add (the figure judged), and what the probe reads */
				double qup = s.d[0].box_q / c[0] + 1514 / rate[0];
				double qdown = s.d[1].box_q / c[1] + 1514 / rate[1];
				double up = qup + jitter(&s), down = qdown + jitter(&s);

				if (ctl) {
					unsigned int m = gw_ar_sample(ctl, target, (BASE_RTT + up + down) * 1e3,
								      (BASE_RTT / 2 + up) * 1e3,
								      (BASE_RTT / 2 + down) * 1e3, now);

					for (int k = 0; k < 2; k++)
						if (m & (1u << k)) {
							rate[k] = ctl->dir[k].want;
							gw_ar_done(ctl, k, true, now);
						}
				}
				target = (target + 1) % 3;
				if (count && n < (int)(sizeof(ind) / sizeof(ind[0])))
					ind[n++] = (qup + qdown) * 1e3;
			}
			/* a sampling pass every 200 ms */
			if (ms % 200 == 199) {
				for (int k = 0; k < 2; k++) {
					double a = s.d[k].sent_pass / 0.2;

					s.d[k].sent_pass = 0;
					if (ctl && gw_ar_load(ctl, k, a, now)) {
						rate[k] = ctl->dir[k].want;
						gw_ar_done(ctl, k, true, now);
					}
				}
			}
		}
		qsort(ind, (size_t)n, sizeof(ind[0]), cmp_dbl);
		res->p95_ms[st] = n ? ind[(int)(0.95 * (n - 1))] : NAN;
		for (int k = 0; k < 2; k++)
			res->share[st][k] = s.d[k].box_out / (s.cap[st][k] * (STEP_S - SETTLE_S));
	}
}

int main(void)
{
	struct gw_autorate_cfg up = ar_cfg(2, 10, 12.5), down = ar_cfg(6, 40, 50);
	const struct gw_autorate_cfg *cfg[2] = { &up, &down };
	const double base[2] = { MBIT(10), MBIT(40) };
	/* the probes' own jitter: a quiet path, a cable modem's, a busy cell's, and one whose
	 * samples spike by 7 ms one time in ten (what a busy one-CPU guest shows) */
	const double jitters[][2] = { { 0.0002, 0 }, { 0.001, 0 }, { 0.003, 0 }, { 0.001, 0.007 } };
	struct gw_ar_ctl ctl;
	struct result fixed, ar;

	run(NULL, base, 0.001, 0, &fixed);
	printf("# fixed 40/10: induced p95 %.1f / %.1f / %.1f ms\n", fixed.p95_ms[0],
	       fixed.p95_ms[1], fixed.p95_ms[2]);
	CHECK(fixed.p95_ms[1] >= 100 && fixed.p95_ms[2] >= 100, "sim: at the fixed base rate the "
	      "modem's fifo bloats in the steps under it (%.0f, %.0f ms)", fixed.p95_ms[1],
	      fixed.p95_ms[2]);
	for (size_t j = 0; j < sizeof(jitters) / sizeof(jitters[0]); j++) {
		double jm = jitters[j][0] * 1e3, sm = jitters[j][1] * 1e3;

		gw_ar_init(&ctl, cfg, base);
		run(&ctl, base, jitters[j][0], jitters[j][1], &ar);
		for (int st = 0; st < STEPS; st++) {
			printf("# autorate, jitter 0-%.1f ms (+%.0f), step %d: induced p95 %.1f ms, carried "
			       "%.0f%% up, %.0f%% down, lowest rate %.1f / %.1f Mbit/s\n", jm, sm, st + 1,
			       ar.p95_ms[st], ar.share[st][0] * 100, ar.share[st][1] * 100,
			       ar.min_rate[st][0] / 125000, ar.min_rate[st][1] / 125000);
			CHECK(ar.p95_ms[st] <= 15, "sim, jitter 0-%.1f ms (+%.0f), step %d: induced p95 "
			      "from %.0f s on <= 15 ms (%.1f)", jm, sm, st + 1, SETTLE_S, ar.p95_ms[st]);
			for (int k = 0; k < 2; k++)
				CHECK(ar.share[st][k] >= 0.85, "sim, jitter 0-%.1f ms (+%.0f), step %d: the "
				      "modem carries >= 85%% of its capacity %s (%.0f%%)", jm, sm, st + 1,
				      k ? "down" : "up", ar.share[st][k] * 100);
		}
	}
	return tap_failed ? 1 : 0;
}
