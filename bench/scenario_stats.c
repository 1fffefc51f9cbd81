/* bench/scenario_stats.c: the varying-link scenario's figures per step and way (induced
 * latency over the whole step and once settled, goodput as a share of the capacity, the time
 * to recover after a drop), the acceptance judged on them, and the table. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/measure.h"
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/scenario_stats.h"
#include "bench/stats.h"

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	if (l < len)
		vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

static bool is_drop(const struct bench_scenario *sc, size_t k)
{
	return k > 0 && (sc->cap[k][0] < sc->cap[k - 1][0] || sc->cap[k][1] < sc->cap[k - 1][1]);
}

/* RTT percentiles of the probes of phase ph sent in [lo, hi) */
static void pct_sel(const struct bench_result *r, int ph, double lo, double hi,
		    struct bench_pct *out)
{
	const struct bench_probe_sel sel = { .k = -1, .ph_lo = ph, .ph_hi = ph,
					     .lo = lo, .hi = hi };

	bench_probe_pct(r, &sel, out);
}

/* Receiver rate of a direction's TCP flows over the intervals inside [lo, hi], bytes/s */
static double goodput(const struct bench_result *r, bool up, double lo, double hi)
{
	double total = 0;
	int got = 0;

	for (size_t i = 0; i < r->n_flows; i++) {
		const struct bench_flow *f = &r->flows[i];
		double mean = f->udp || f->up != up ? NAN : bench_flow_mean(f, lo, hi);

		if (!isnan(mean)) {
			total += mean;
			got++;
		}
	}
	return got ? total : NAN;
}

/* Time from the step's start to the end of the first window (BENCH_SC_WINDOW_S of probes, all
 * sent in the step) whose induced p95 is under the bound; a lost probe counts as over it. */
static double recovery(const struct bench_sc_run *x, int ph, const struct bench_sc_step *st)
{
	const struct bench_result *r = &x->r;
	/* the probes' send times and RTTs (INFINITY: lost), sorted by the time; w: a window */
	double *t = malloc((r->n_samples + 1) * sizeof(*t));
	double *v = malloc((r->n_samples + 1) * sizeof(*v));
	double *w = malloc((r->n_samples + 1) * sizeof(*w)), res = INFINITY;
	size_t n = 0;

	for (size_t i = 0; t && v && w && i < r->n_samples; i++)
		if (r->samples[i].phase == ph) {
			t[n] = r->samples[i].t;
			v[n++] = isnan(r->samples[i].rtt_ms) ? INFINITY : r->samples[i].rtt_ms;
		}
	if (!t || !v || !w)
		res = NAN;
	else
		bench_sort_pairs(t, v, n);
	for (size_t j = 0, a = 0; !isnan(res) && j < n; j++) {
		size_t m = 0;

		if (t[j] < st->start + BENCH_SC_WINDOW_S)
			continue;
		while (t[a] <= t[j] - BENCH_SC_WINDOW_S)
			a++;
		for (size_t i = a; i <= j; i++)
			w[m++] = v[i];
		bench_sort(w, m);
		if (bench_percentile(w, m, 95) - x->baseline_ms <= BENCH_SC_BOUND_MS) {
			res = t[j] - st->start;
			break;
		}
	}
	free(t);
	free(v);
	free(w);
	return res;
}

/* The box's ticks nearest inside [lo, hi], at least half a second apart (else none) */
static void window(const struct bench_sc_run *x, double lo, double hi, const struct bench_tick **a,
		   const struct bench_tick **b)
{
	bench_tick_window(&x->r, lo, hi, a, b);
	if (*a && *b && (*b)->t - (*a)->t < 0.5)
		*a = *b = NULL;
}

void bench_sc_derive(const struct bench_opts *o, struct bench_sc_run *x)
{
	pct_sel(&x->r, 0, 0, x->r.clients_started, &x->idle);
	x->baseline_ms = x->idle.p50;
	for (size_t k = 0; k < o->sc.n_steps; k++) {
		struct bench_sc_step *st = &x->st[k];
		double lo = st->start + BENCH_SC_SETTLE_S;
		const struct bench_tick *a, *b;
		const struct bench_pct *p[2] = { &st->all, &st->settled };

		for (int d = 0; d < 2; d++)
			st->cap[d] = o->sc.cap[k][d];
		st->drop = is_drop(&o->sc, k);
		pct_sel(&x->r, (int)k + 1, st->start, st->end, &st->all);
		pct_sel(&x->r, (int)k + 1, lo, st->end, &st->settled);
		for (int i = 0; i < 2; i++) {
			double *ind = i ? st->ind_settled : st->ind_all;

			ind[0] = p[i]->p50 - x->baseline_ms;
			ind[1] = p[i]->p95 - x->baseline_ms;
			ind[2] = p[i]->p99 - x->baseline_ms;
		}
		window(x, lo, st->end, &a, &b);
		st->cpu_busy = bench_tick_cpu(a, b);
		for (int d = 0; d < 2; d++) {
			double sum = 0;
			size_t n = 0;
			uint32_t peak = 0;

			st->goodput[d] = goodput(&x->r, d == 0, lo, st->end);
			st->share[d] = st->goodput[d] / (double)st->cap[d];
			st->achieved[d] = a && b ? (double)(b->bytes[d] - a->bytes[d]) /
						   (b->t - a->t) : NAN;
			for (size_t i = 0; i < x->r.n_ticks; i++) {
				const struct bench_tick *q = &x->r.ticks[i];

				if (q->t >= lo && q->t <= st->end && q->shaper[d]) {
					sum += (double)q->shaper[d];
					n++;
				}
				if (q->t >= st->start && q->t <= st->end && q->backlog_bytes[d] > peak)
					peak = q->backlog_bytes[d];
			}
			st->shaper[d] = n ? sum / (double)n : NAN;
			st->peak_queue_ms[d] = (double)peak * 1000 / (double)st->cap[d];
		}
		st->recover_s = st->drop ? recovery(x, (int)k + 1, st) : NAN;
	}
}

static const struct bench_sc_run *find_way(const struct bench_sc_run *runs, size_t n,
					   enum bench_way w)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].way == w && runs[i].ran)
			return &runs[i];
	return NULL;
}

void bench_sc_judge(const struct bench_opts *o, const struct bench_sc_run *runs, size_t n,
		    struct bench_sc_verdict *v)
{
	const struct bench_sc_run *ar = find_way(runs, n, BENCH_WAY_AUTORATE);
	const struct bench_sc_run *fx = find_way(runs, n, BENCH_WAY_FIXED);

	memset(v, 0, sizeof(*v));
	v->latency = v->goodput = v->fixed = -1;
	if (ar) {
		v->latency = v->goodput = 1;
		for (size_t k = 0; k < o->sc.n_steps; k++) {
			const struct bench_sc_step *st = &ar->st[k];
			double p95 = st->ind_settled[1];

			if (!(p95 <= BENCH_SC_BOUND_MS))
				v->latency = 0;
			add(v->why_latency, sizeof(v->why_latency), "%s%.1f", k ? ", " : "", p95);
			for (int d = 0; d < 2; d++)
				if (!(st->share[d] >= BENCH_SC_SHARE))
					v->goodput = 0;
			add(v->why_goodput, sizeof(v->why_goodput), "%s%.0f/%.0f", k ? ", " : "",
			    st->share[1] * 100, st->share[0] * 100);
		}
		add(v->why_latency, sizeof(v->why_latency), " ms");
		add(v->why_goodput, sizeof(v->why_goodput), "%% down/up");
	}
	if (fx) {
		for (size_t k = 0; k < o->sc.n_steps; k++) {
			const struct bench_sc_step *st = &fx->st[k];

			if (st->cap[0] >= o->sc.base[0] && st->cap[1] >= o->sc.base[1])
				continue;
			if (v->fixed < 0)
				v->fixed = 1;
			if (!(st->ind_settled[1] >= BENCH_SC_FIXED_MS))
				v->fixed = 0;
			size_t l = strlen(v->why_fixed);

			snprintf(v->why_fixed + l, sizeof(v->why_fixed) - l, "%sstep %zu %.1f ms",
				 l ? ", " : "", k + 1, st->ind_settled[1]);
		}
	}
}

/* a rate (bytes/s) as the table prints it, in Mbit/s */
static double mbit(uint64_t rate)
{
	return (double)rate * 8 / 1e6;
}

static const char *verdict(int v)
{
	return v > 0 ? "PASS" : v == 0 ? "FAIL" : "not judged";
}

static void cell(double v, int dec, const char *unit_nan)
{
	char b[32];

	if (isnan(v))
		snprintf(b, sizeof(b), "%s", unit_nan);
	else if (isinf(v))
		snprintf(b, sizeof(b), "never");
	else
		snprintf(b, sizeof(b), "%.*f", dec, v);
	printf(" %11s", b);
}

enum col { C_IND50, C_IND95, C_IND99, C_ALL95, C_GDOWN, C_GUP, C_SHDOWN, C_SHUP, C_QDOWN,
	   C_QUP, C_CPU, C_REC, C_COUNT };
static const char *const col_label[C_COUNT] = {
	"induced p50 (ms), 3 s on", "induced p95 (ms), 3 s on", "induced p99 (ms), 3 s on",
	"induced p95 (ms), whole", "goodput down (% of cap)", "goodput up (% of cap)",
	"shaper down (Mbit/s)", "shaper up (Mbit/s)", "box queue down (ms)",
	"box queue up (ms)", "bench CPU busy (%)", "recovery (s)",
};

static double value(const struct bench_sc_step *st, enum col c)
{
	switch (c) {
	case C_IND50: return st->ind_settled[0];
	case C_IND95: return st->ind_settled[1];
	case C_IND99: return st->ind_settled[2];
	case C_ALL95: return st->ind_all[1];
	case C_GDOWN: return st->share[1] * 100;
	case C_GUP: return st->share[0] * 100;
	case C_SHDOWN: return st->shaper[1] * 8 / 1e6;
	case C_SHUP: return st->shaper[0] * 8 / 1e6;
	case C_QDOWN: return st->peak_queue_ms[1];
	case C_QUP: return st->peak_queue_ms[0];
	case C_CPU: return st->cpu_busy * 100;
	default: return st->recover_s;
	}
}

void bench_sc_print(const struct bench_opts *o, const struct bench_sc_run *runs, size_t n,
		    const struct bench_sc_verdict *v)
{
	const struct bench_scenario *sc = &o->sc;

	printf("\nvariable link: %zu steps of %.0f s, down/up", sc->n_steps, sc->step_s);
	for (size_t k = 0; k < sc->n_steps; k++)
		printf("%s %g/%g", k ? "," : "", mbit(sc->cap[k][1]), mbit(sc->cap[k][0]));
	printf(" Mbit/s; base RTT %.1f ms; 4+4 TCP; the box's fifo %d KB\n",
	       o->no_delay ? 0.0 : o->rtt_us / 1000.0, BENCH_SC_BOX_FIFO / 1000);
	printf("autorate: min %g/%g, base %g/%g, max %g/%g Mbit/s%s%s%s; fixed: %g/%g; the gateway's queue: htb + %s, its probes %s\n",
	       mbit(sc->min[1]), mbit(sc->min[0]), mbit(sc->base[1]), mbit(sc->base[0]),
	       mbit(sc->max[1]), mbit(sc->max[0]), sc->ar_keys[0] ? " (" : "", sc->ar_keys,
	       sc->ar_keys[0] ? ")" : "", mbit(sc->base[1]), mbit(sc->base[0]),
	       bench_qdisc_name(o->qdiscs[0]), sc->probe_method);
	printf("%-28s", "");
	for (size_t i = 0; i < n; i++)
		printf(" %11s", bench_way_name(runs[i].way));
	printf("\n");
	for (size_t k = 0; k < sc->n_steps; k++) {
		printf("step %zu: %g/%g Mbit/s%s\n", k + 1, mbit(sc->cap[k][1]),
		       mbit(sc->cap[k][0]), is_drop(sc, k) ? " (a drop)" : "");
		for (int c = 0; c < C_COUNT; c++) {
			if (c == C_REC && !is_drop(sc, k))
				continue;
			printf("  %-26s", col_label[c]);
			for (size_t i = 0; i < n; i++) {
				if (!runs[i].ran)
					printf(" %11s", "failed");
				else
					cell(value(&runs[i].st[k], (enum col)c),
					     (c >= C_GDOWN && c <= C_GUP) || c == C_CPU ? 0 : 1,
					     "-");
			}
			printf("\n");
		}
	}
	printf("%-28s", "idle RTT p50 (ms)");
	for (size_t i = 0; i < n; i++)
		cell(runs[i].ran ? runs[i].baseline_ms : NAN, 1, "-");
	printf("\n%-28s", "shaper rate changes");
	for (size_t i = 0; i < n; i++)
		cell(runs[i].ran ? (double)runs[i].changes : NAN, 0, "-");
	printf("\nacceptance (issue 14):\n");
	printf("  autorate: induced p95 <= %.0f ms in every step from 3 s on: %s (%s)\n",
	       BENCH_SC_BOUND_MS, verdict(v->latency),
	       v->why_latency[0] ? v->why_latency : "no run");
	printf("  autorate: goodput >= %.0f%% of the step's capacity: %s (%s)\n",
	       BENCH_SC_SHARE * 100, verdict(v->goodput), v->why_goodput[0] ? v->why_goodput : "no run");
	printf("  fixed: induced p95 >= %.0f ms in the steps below its rate: %s (%s)\n",
	       BENCH_SC_FIXED_MS, verdict(v->fixed), v->why_fixed[0] ? v->why_fixed : "no such run or step");
	for (size_t i = 0; i < n; i++)
		if (runs[i].note[0])
			printf("note: %s: %s\n", bench_way_name(runs[i].way), runs[i].note);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; runs[i].ran && k < sc->n_steps; k++)
			if (runs[i].st[k].cpu_busy >= BENCH_CPU_SATURATED) {
				printf("note: the bench's CPU was %.0f%% busy (%s, step %zu)%s: goodput and latency then measure the CPU as much as the link\n",
				       runs[i].st[k].cpu_busy * 100, bench_way_name(runs[i].way), k + 1,
				       o->in_uml ? " (one CPU in the UML guest)" : "");
				return;
			}
}

void bench_sc_run_free(struct bench_sc_run *x)
{
	bench_result_free(&x->r);
		memset(x, 0, sizeof(*x));
}
