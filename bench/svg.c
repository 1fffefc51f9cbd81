/* bench/svg.c: the comparison's plots as standalone SVG, drawn here (no plotting tool):
 * line charts with linear or log axes, ticks, a legend and shaded phases; and the three
 * plots the bench writes: the latency CDF, latency over time, throughput per flow. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/report.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/svg.h"
#include "webui/benchfile.h"

#define W 860
#define H 460
#define ML 72	/* margins: left (y labels), right (legend), top (title), bottom (x labels) */
#define MR 170
#define MT 44
#define MB 56

struct svg_series {
	char name[GW_BENCH_LABEL_MAX];
	const char *color;
	double *x, *y;		/* NAN y: a gap */
	size_t n;
	bool dashed;
	const char *dash;	/* a stroke-dasharray of its own, else dashed's or none */
};

struct svg_chart {
	const char *title, *xlabel, *ylabel;
	double x0, x1, y0, y1;
	bool logx, logy;
	struct svg_series *s;
	size_t ns;
	const double *bands;	/* phase boundaries, n_bands + 1 of them; NULL: none */
	int n_bands;
	const char *const *band_names;	/* NULL: the bench's four phases */
};

static const char *const palette[] = { "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
				       "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22" };

static double tx(const struct svg_chart *c, double x)
{
	double f = c->logx ? (log10(x) - log10(c->x0)) / (log10(c->x1) - log10(c->x0)) :
			     (x - c->x0) / (c->x1 - c->x0);

	return ML + f * (W - ML - MR);
}

static double ty(const struct svg_chart *c, double y)
{
	double f = c->logy ? (log10(y) - log10(c->y0)) / (log10(c->y1) - log10(c->y0)) :
			     (y - c->y0) / (c->y1 - c->y0);

	return H - MB - f * (H - MT - MB);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, extra);
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n", f);
}

static void tick_label(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1 || v == 0)
		snprintf(buf, len, "%g", round(v * 100) / 100);
	else
		snprintf(buf, len, "%g", v);
}

/* Tick values: 1-2-5 steps on a linear axis, 1-2-5 per decade on a log one. */
static size_t ticks(double lo, double hi, bool logscale, double *out, size_t max)
{
	size_t n = 0;

	if (logscale) {
		for (double d = pow(10, floor(log10(lo))); d <= hi && n < max; d *= 10)
			for (int m = 0; m < 3 && n < max; m++) {
				double v = d * (m == 0 ? 1 : m == 1 ? 2 : 5);

				if (v >= lo * 0.999 && v <= hi * 1.001)
					out[n++] = v;
			}
		return n;
	}
	double raw = (hi - lo) / 6, mag = pow(10, floor(log10(raw))), step;

	step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag :
	       10 * mag;
	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-6 && n < max; v += step)
		out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* A plot's file, whole or not at all (outfile.c): its stream, or NULL with errno set and the
 * reason on stderr. */
static FILE *plot_open(struct bench_out *w, const char *path)
{
	char err[4600];
	FILE *f;
	int r;

	if ((r = bench_out_begin(w, path, err, sizeof(err)))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		errno = -r;
		return NULL;
	}
	if (!(f = bench_out_stdio(w))) {
		r = errno;
		bench_out_abort(w);
		fprintf(stderr, "gatewayd: %s: %s\n", path, strerror(r));
		errno = r;
	}
	return f;
}

/* Written and in place: 0; or -errno, the reason on stderr, the old file as it was. */
static int plot_close(struct bench_out *w)
{
	char err[4600];
	int r = bench_out_commit(w, err, sizeof(err));

	if (r)
		fprintf(stderr, "gatewayd: %s\n", err);
	return r;
}

/* The drawing's start: its size, a white ground, the title */
static void svg_begin(FILE *f, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
	text(f, W / 2.0, 24, "middle", "font-size=\"15\" font-weight=\"bold\"", title);
}

/* The grid (the x axis's lines too, with x) and the plot area's frame */
static void grid(FILE *f, const struct svg_chart *c, bool x)
{
	double tv[64];
	size_t nt;

	fprintf(f, "<g stroke=\"#ddd\" stroke-width=\"1\">\n");
	nt = x ? ticks(c->x0, c->x1, c->logx, tv, 64) : 0;
	for (size_t i = 0; i < nt; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", tx(c, tv[i]), MT,
			tx(c, tv[i]), H - MB);
	nt = ticks(c->y0, c->y1, c->logy, tv, 64);
	for (size_t i = 0; i < nt; i++)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", ML, ty(c, tv[i]),
			W - MR, ty(c, tv[i]));
	fprintf(f, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
		ML, MT, W - ML - MR, H - MT - MB);
}

/* The x axis's tick labels (with x), the y axis's, and the y axis's title */
static void axis_labels(FILE *f, const struct svg_chart *c, bool x, const char *ylabel)
{
	double tv[64];
	char lab[32];
	size_t nt;

	nt = x ? ticks(c->x0, c->x1, c->logx, tv, 64) : 0;
	for (size_t i = 0; i < nt; i++) {
		tick_label(lab, sizeof(lab), tv[i]);
		text(f, tx(c, tv[i]), H - MB + 16, "middle", "", lab);
	}
	nt = ticks(c->y0, c->y1, c->logy, tv, 64);
	for (size_t i = 0; i < nt; i++) {
		tick_label(lab, sizeof(lab), tv[i]);
		text(f, ML - 6, ty(c, tv[i]) + 4, "end", "", lab);
	}
	if (x)
		text(f, ML + (W - ML - MR) / 2.0, H - 14, "middle", "", c->xlabel);
	fprintf(f, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
		MT + (H - MT - MB) / 2.0, MT + (H - MT - MB) / 2.0, ylabel);
}

/* The phases (or steps) shaded, behind everything else */
static void bands(FILE *f, const struct svg_chart *c)
{
	static const char *const band_fill[] = { "#f4f4f4", "#fde9d9", "#fbd3c3", "#eef4fb" };
	static const char *const names[] = { "idle", "TCP", "TCP + UDP flood", "idle" };

	for (int b = 0; c->bands && b < c->n_bands; b++) {
		double a = tx(c, fmin(c->bands[b], c->x1)), e = tx(c, fmin(c->bands[b + 1], c->x1));

		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
			a, MT, e - a, H - MT - MB, band_fill[b % 4]);
		text(f, (a + e) / 2, MT + 14, "middle", "fill=\"#777\" font-size=\"11\"",
		     c->band_names ? c->band_names[b] : names[b % 4]);
	}
}

/* Series k's line, clipped to the plot area (a gap at each NAN), and its legend entry;
 * step: the legend's lines apart */
static void series_line(FILE *f, const struct svg_chart *c, size_t k, double step)
{
	const struct svg_series *s = &c->s[k];
	const char *dash = s->dash ? s->dash : s->dashed ? "5,3" : NULL;
	char dattr[48] = "";
	bool open = false;

	if (dash)
		snprintf(dattr, sizeof(dattr), " stroke-dasharray=\"%s\"", dash);
	fprintf(f, "<g clip-path=\"url(#plot)\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s>\n",
		s->color, dattr);
	for (size_t i = 0; i < s->n; i++) {
		double x = s->x[i], y = s->y[i];

		if (isnan(y) || isnan(x) || (c->logy && y <= 0) || (c->logx && x <= 0)) {
			if (open)
				fputs("\"/>\n", f);
			open = false;
			continue;
		}
		if (c->logy && y < c->y0)
			y = c->y0;
		fprintf(f, "%s%.1f,%.1f", open ? " " : "<polyline points=\"", tx(c, x), ty(c, y));
		open = true;
	}
	if (open)
		fputs("\"/>\n", f);
	fputs("</g>\n", f);
	double ly = MT + 10 + step * (double)k;

	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"%s/>\n",
		W - MR + 12, ly, W - MR + 36, ly, s->color, dattr);
	text(f, W - MR + 42, ly + 4, "start", step < 16 ? "font-size=\"10\"" : "", s->name);
}

static int svg_write(const char *path, const struct svg_chart *c)
{
	struct bench_out w;
	FILE *f = plot_open(&w, path);

	if (!f)
		return -errno;
	svg_begin(f, c->title);
	bands(f, c);
	grid(f, c, true);
	axis_labels(f, c, true, c->ylabel);
	/* the data, clipped to the plot area */
	fprintf(f, "<clipPath id=\"plot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n",
		ML, MT, W - ML - MR, H - MT - MB);
	/* the legend's lines closer together where there are many (a report's up to 32) */
	double step = fmin(20.0, (H - MT - 20.0) / (double)(c->ns ? c->ns : 1));

	for (size_t k = 0; k < c->ns; k++)
		series_line(f, c, k, step);
	fputs("</svg>\n", f);
	return plot_close(&w);
}

static void free_series(struct svg_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].x);
		free(s[i].y);
	}
}

/* The chart's next series, with room for m points (and one spare); NULL when out of memory,
 * every series then freed. */
static struct svg_series *next_series(struct svg_chart *c, size_t m)
{
	struct svg_series *x = &c->s[c->ns];

	x->x = malloc((m + 1) * sizeof(double));
	x->y = malloc((m + 1) * sizeof(double));
	if (!x->x || !x->y) {
		free_series(c->s, c->ns + 1);
		return NULL;
	}
	return x;
}

/* A queue's series is named and coloured after the queue, the same in every chart; a second
 * column of the same kind (other knobs) takes another colour. */
static void queue_series(struct svg_series *x, const struct bench_result *r, size_t i)
{
	size_t same = 0;

	for (size_t k = 0; k < i; k++)
		same += r[k].q == r[i].q;
	snprintf(x->name, sizeof(x->name), "%s", bench_result_label(&r[i]));
	x->color = palette[(r[i].q + 5 * same + same / 2) % 10];
}

/* Write the chart, then free its series. */
static int write_chart(const char *path, struct svg_chart *c)
{
	int ret = svg_write(path, c);

	free_series(c->s, c->ns);
	return ret;
}

static double nice_up(double v)
{
	double m = pow(10, floor(log10(v)));

	return v <= m ? m : v <= 2 * m ? 2 * m : v <= 5 * m ? 5 * m : 10 * m;
}

static double nice_down(double v)
{
	double m = pow(10, floor(log10(v)));

	return v >= 5 * m ? 5 * m : v >= 2 * m ? 2 * m : m;
}

/* A log axis over the RTTs lo..hi (ms), with room above: whole decades' nice numbers, at
 * least a factor of 2 wide; no RTT at all: 1 to 1000 ms. */
static void log_range(double lo, double hi, double headroom, double *a, double *b)
{
	if (!(hi > 0)) {
		lo = 1;
		hi = 1000;
	}
	*a = nice_down(fmax(lo * 0.9, 0.1));
	*b = nice_up(hi * headroom);
	if (*b <= *a * 2)
		*b = *a * 10;
}

int bench_svg_cdf(const char *path, const struct bench_opts *o, struct bench_result *r, size_t n)
{
	struct svg_series s[GW_BENCH_MAX_QUEUES] = { 0 };
	struct svg_chart c = { .title = "RTT under load: cumulative distribution (TCP and flood phases)",
			       .xlabel = "round-trip time (ms, log scale)",
			       .ylabel = "fraction of probes", .y0 = 0, .y1 = 1, .logx = true,
			       .s = s };
	double lo = INFINITY, hi = 0;

	(void)o;
	for (size_t i = 0; i < n; i++) {
		struct svg_series *x;
		size_t m = 0;

		if (!r[i].ran)
			continue;
		if (!(x = next_series(&c, r[i].n_samples)))
			return -ENOMEM;
		for (size_t k = 0; k < r[i].n_samples; k++)
			if (r[i].samples[k].phase == BENCH_PH_TCP || r[i].samples[k].phase == BENCH_PH_FLOOD)
				if (!isnan(r[i].samples[k].rtt_ms))
					x->x[m++] = r[i].samples[k].rtt_ms;
		bench_sort(x->x, m);
		for (size_t k = 0; k < m; k++)
			x->y[k] = (double)(k + 1) / (double)m;
		x->n = m;
		if (m) {
			lo = fmin(lo, x->x[0]);
			hi = fmax(hi, x->x[m - 1]);
		}
		queue_series(x, r, i);
		c.ns++;
	}
	log_range(lo, hi, 1.05, &c.x0, &c.x1);
	return write_chart(path, &c);
}

/* A run's probes as a series of RTT over send time (replies come back out of their order),
 * lo and hi widened to its RTTs. */
static void probe_series(struct svg_series *x, const struct bench_result *r, double *lo,
			 double *hi)
{
	size_t m = r->n_samples;

	for (size_t k = 0; k < m; k++) {
		x->x[k] = r->samples[k].t;
		x->y[k] = r->samples[k].rtt_ms;
		if (!isnan(x->y[k])) {
			*lo = fmin(*lo, x->y[k]);
			*hi = fmax(*hi, x->y[k]);
		}
	}
	bench_sort_pairs(x->x, x->y, m);
	x->n = m;
}

int bench_svg_timeline(const char *path, const struct bench_opts *o, struct bench_result *r,
		       size_t n)
{
	struct svg_series s[GW_BENCH_MAX_QUEUES] = { 0 };
	struct svg_chart c = { .title = "RTT over time, each queue's run (the first run's phases shaded)",
			       .xlabel = "seconds since the run started",
			       .ylabel = "round-trip time (ms, log scale)", .logy = true, .s = s,
			       .x0 = 0, .x1 = o->duration_s, .n_bands = BENCH_PH_COUNT };
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		struct svg_series *x;
		size_t m = r[i].n_samples;

		if (!r[i].ran)
			continue;
		if (!c.bands)	/* each run's phases move with its load's start: the first's */
			c.bands = r[i].phase_start;
		c.x1 = fmax(c.x1, r[i].phase_start[BENCH_PH_COUNT]);
		if (!(x = next_series(&c, m)))
			return -ENOMEM;
		probe_series(x, &r[i], &lo, &hi);
		queue_series(x, r, i);
		c.ns++;
	}
	log_range(lo, hi, 1.1, &c.y0, &c.y1);
	return write_chart(path, &c);
}

int bench_svg_flows(const char *path, const struct bench_opts *o, const struct bench_result *r)
{
	struct svg_series s[BENCH_MAX_FLOWS] = { 0 };
	char title[256];
	struct svg_chart c = { .title = title, .xlabel = "seconds since the run started",
			       .ylabel = "receiver throughput (Mbit/s)", .s = s, .x0 = 0,
			       .x1 = fmax(o->duration_s, r->phase_start[BENCH_PH_COUNT]), .y0 = 0,
			       .bands = r->phase_start,
			       .n_bands = BENCH_PH_COUNT };
	double hi = 0;

	if (bench_asymmetric(o))
		snprintf(title, sizeof(title), "%s: throughput per flow (%s down, %s up)",
			 bench_result_label(r), o->dir_text[1], o->dir_text[0]);
	else
		snprintf(title, sizeof(title), "%s: throughput per flow (%s each way)",
			 bench_result_label(r), o->rate_text);
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct bench_flow *f = &r->flows[i];
		struct svg_series *x = next_series(&c, f->n);

		if (!x)
			return -ENOMEM;
		for (size_t k = 0; k < f->n; k++) {
			x->x[k] = f->t[k];
			x->y[k] = f->rate[k] * 8 / 1e6;	/* Mbit/s */
			hi = fmax(hi, x->y[k]);
		}
		x->n = f->n;
		snprintf(x->name, sizeof(x->name), "%s", f->name);
		x->color = f->udp ? "#000000" : palette[(f->up ? 0 : 4) + (i % 4) + (f->up ? 0 : 1)];
		x->dashed = !f->up;
		c.ns++;
	}
	c.y1 = hi > 0 ? nice_up(hi * 1.1) : 1;
	return write_chart(path, &c);
}

/* --- the varying-link scenario --- */

static const char *const step_names[BENCH_MAX_STEPS] = { "step 1", "step 2", "step 3", "step 4",
							 "step 5", "step 6", "step 7", "step 8" };

static void step_bands(const struct bench_opts *o, const struct bench_sc_run *x, double *b)
{
	for (size_t k = 0; k < o->sc.n_steps; k++)
		b[k] = x->st[k].start;
	b[o->sc.n_steps] = x->st[o->sc.n_steps - 1].end;
}

int bench_svg_sc_rates(const char *path, const struct bench_opts *o, const struct bench_sc_run *x)
{
	static const char *const names[6] = { "capacity up", "capacity down", "shaper up",
					      "shaper down", "achieved up", "achieved down" };
	static const char *const colors[6] = { "#7f7f7f", "#000000", "#bcbd22", "#2ca02c",
					       "#d62728", "#1f77b4" };
	struct svg_series s[6] = { 0 };
	double bands[BENCH_MAX_STEPS + 1], hi = 0;
	char title[128];
	struct svg_chart c = { .title = title, .xlabel = "seconds since the run started",
			       .ylabel = "Mbit/s", .s = s, .x0 = 0, .x1 = x->end, .y0 = 0,
			       .bands = bands, .n_bands = (int)o->sc.n_steps,
			       .band_names = step_names };

	snprintf(title, sizeof(title), "%s: capacity, shaper rate and achieved rate over time",
		 bench_way_name(x->way));
	step_bands(o, x, bands);
	for (int k = 0; k < 6; k++) {
		struct svg_series *v = next_series(&c, x->r.n_ticks);
		int d = k % 2;
		size_t m = 0;

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < x->r.n_ticks; i++) {
			const struct bench_tick *p = &x->r.ticks[i], *a;
			double y;

			if (k < 2) {
				y = (double)p->cap[d];
			} else if (k < 4) {
				if (!p->shaper[d])
					continue;
				y = (double)p->shaper[d];
			} else {	/* over the last half second */
				if (i < 5)
					continue;
				a = &x->r.ticks[i - 5];
				y = (double)(p->bytes[d] - a->bytes[d]) / (p->t - a->t);
			}
			v->x[m] = p->t;
			v->y[m++] = y * 8 / 1e6;	/* Mbit/s */
			hi = fmax(hi, y * 8 / 1e6);
		}
		v->n = m;
		snprintf(v->name, sizeof(v->name), "%s", names[k]);
		v->color = colors[k];
		v->dashed = k < 2;
		c.ns++;
	}
	c.y1 = hi > 0 ? nice_up(hi * 1.1) : 1;
	return write_chart(path, &c);
}

int bench_svg_sc_rtt(const char *path, const struct bench_opts *o, const struct bench_sc_run *runs,
		     size_t n)
{
	static const char *const colors[BENCH_WAY_COUNT] = { "#2ca02c", "#1f77b4", "#d62728" };
	struct svg_series s[BENCH_WAY_COUNT] = { 0 };
	double bands[BENCH_MAX_STEPS + 1], lo = INFINITY, hi = 0;
	struct svg_chart c = { .title = "RTT over time, each way's run (the first run's steps shaded)",
			       .xlabel = "seconds since the run started",
			       .ylabel = "round-trip time (ms, log scale)", .logy = true, .s = s,
			       .x0 = 0, .x1 = 1, .n_bands = (int)o->sc.n_steps,
			       .band_names = step_names };

	for (size_t i = 0; i < n && c.ns < BENCH_WAY_COUNT; i++) {
		const struct bench_sc_run *x = &runs[i];
		struct svg_series *v;
		size_t m = x->r.n_samples;

		if (!x->ran)
			continue;
		if (!c.bands) {
			step_bands(o, x, bands);
			c.bands = bands;
		}
		c.x1 = fmax(c.x1, x->end);
		if (!(v = next_series(&c, m)))
			return -ENOMEM;
		probe_series(v, &x->r, &lo, &hi);
		snprintf(v->name, sizeof(v->name), "%s", bench_way_name(x->way));
		v->color = colors[x->way % BENCH_WAY_COUNT];
		c.ns++;
	}
	log_range(lo, hi, 1.1, &c.y0, &c.y1);
	return write_chart(path, &c);
}

/* --- --compare-report: saved runs laid over each other --- */

static const char *const dashes[] = { NULL, "7,3", "2,2", "9,3,2,3" };

int bench_svg_cdf_lines(const char *path, const char *title, const char *xlabel,
			const struct bench_svg_cdfline *l, size_t n)
{
	struct svg_series s[BENCH_REPORT_MAX_COLS] = { 0 };
	struct svg_chart c = { .title = title, .xlabel = xlabel, .ylabel = "fraction of probes",
			       .y0 = 0, .y1 = 1, .logx = true, .s = s };
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n && i < BENCH_REPORT_MAX_COLS; i++) {
		struct svg_series *x = next_series(&c, l[i].n);
		size_t m = 0;

		if (!x)
			return -ENOMEM;
		for (size_t k = 0; k < l[i].n; k++)	/* sorted: the fraction at most x */
			if (l[i].x[k] > 0) {
				x->x[m] = l[i].x[k];
				x->y[m++] = (double)(k + 1) / (double)l[i].n;
			}
		x->n = m;
		if (m) {
			lo = fmin(lo, x->x[0]);
			hi = fmax(hi, x->x[m - 1]);
		}
		snprintf(x->name, sizeof(x->name), "%s", l[i].name);
		x->color = palette[(size_t)l[i].color % 10];
		x->dash = dashes[(size_t)l[i].dash % 4];
		c.ns++;
	}
	log_range(lo, hi, 1.05, &c.x0, &c.x1);
	return write_chart(path, &c);
}

/* Box plots: a column per run and queue, k boxes in each (up and down, or one), on a linear
 * axis from zero (or the lowest value) over every value: box q1..q3 with the median across
 * it, whiskers to p5 and p95, the minimum and maximum as dots. */
/* A repeated run's figures on their box (over it: drawn last), spread across its width so
 * that equal ones show. */
static void box_marks(FILE *f, const struct svg_chart *c, const struct bench_svg_boxcol *col,
		      size_t j, double x, double bw, double scale)
{
	for (size_t r = 0; r < col->n_marks[j]; r++) {
		double v = col->marks[j][r];

		if (isnan(v))
			continue;
		fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"none\" stroke=\"#000\"/>\n",
			x + 1 + (bw - 2) * ((double)r + 1) / ((double)col->n_marks[j] + 1),
			ty(c, v * scale));
	}
}

static const char *const box_fill[2] = { "#9ecae1", "#fdae6b" };
static const char *const box_edge[2] = { "#1f77b4", "#d62728" };

/* Box j of column i, at x and bw wide: one group per box, what a reader (or a test) counts as
 * a series; "none" for a box of no value */
static void draw_box(FILE *f, const struct svg_chart *c, const struct bench_svg_boxcol *col,
		     size_t i, size_t j, double x, double bw, double scale)
{
	const struct bench_box *b = col->box[j];
	double m = x + bw / 2;

	fprintf(f, "<g class=\"box\" data-column=\"%zu\" data-kind=\"%zu\" stroke=\"%s\" stroke-width=\"1.4\">\n",
		i, j, box_edge[j % 2]);
	if (!b->n) {
		text(f, m, ty(c, c->y0) - 6, "middle", "font-size=\"10\" stroke=\"none\" fill=\"#777\"",
		     "none");
		box_marks(f, c, col, j, x, bw, scale);
		fputs("</g>\n", f);
		return;
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", m,
		ty(c, b->p95 * scale), m, ty(c, b->q3 * scale));
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", m,
		ty(c, b->q1 * scale), m, ty(c, b->p5 * scale));
	for (int w = 0; w < 2; w++) {
		double y = ty(c, (w ? b->p5 : b->p95) * scale);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			m - bw / 4, y, m + bw / 4, y);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
		x + 1, ty(c, b->q3 * scale), bw - 2,
		fmax(ty(c, b->q1 * scale) - ty(c, b->q3 * scale), 0.5), box_fill[j % 2]);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"2.5\"/>\n",
		x + 1, ty(c, b->median * scale), x + bw - 1, ty(c, b->median * scale));
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n",
		m, ty(c, b->min * scale), box_edge[j % 2], m, ty(c, b->max * scale),
		box_edge[j % 2]);
	box_marks(f, c, col, j, x, bw, scale);
	fputs("</g>\n", f);
}

/* The kinds' swatches and what a box's parts are */
static void box_legend(FILE *f, const char *const *kinds, size_t k, bool marked)
{
	static const char *const key[] = { "box: quartiles, bar: median", "whiskers: p5, p95",
					   "dots: min, max", "circles: each repetition" };

	for (size_t j = 0; j < k && kinds; j++) {
		double ly = MT + 10 + 20.0 * (double)j;

		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"24\" height=\"12\" fill=\"%s\" stroke=\"%s\"/>\n",
			W - MR + 12, ly - 6, box_fill[j % 2], box_edge[j % 2]);
		text(f, W - MR + 42, ly + 4, "start", "", kinds[j]);
	}
	for (int i = 0; i < (marked ? 4 : 3); i++)
		text(f, W - MR + 12, MT + 10 + 20.0 * (double)k + 10 + 14 * i, "start",
		     "font-size=\"10\" fill=\"#555\"", key[i]);
}

/* The chart's y range over every box's extremes and every mark; whether there is a mark */
static bool box_range(const struct bench_svg_boxcol *col, size_t n, size_t k, double scale,
		      struct svg_chart *c)
{
	double lo = 0, hi = 0;
	bool marked = false;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < k; j++) {
			if (col[i].box[j]->n) {
				lo = fmin(lo, col[i].box[j]->min * scale);
				hi = fmax(hi, col[i].box[j]->max * scale);
			}
			for (size_t m = 0; m < col[i].n_marks[j]; m++)
				if (!isnan(col[i].marks[j][m])) {
					lo = fmin(lo, col[i].marks[j][m] * scale);
					hi = fmax(hi, col[i].marks[j][m] * scale);
					marked = true;
				}
		}
	*c = (struct svg_chart){ .x0 = 0, .x1 = 1, .y0 = lo < 0 ? -nice_up(-lo * 1.1) : 0,
				 .y1 = hi > 0 ? nice_up(hi * 1.1) : 1 };
	return marked;
}

int bench_svg_boxes(const char *path, const char *title, const char *ylabel, double scale,
		    const char *const *kinds, size_t k, const struct bench_svg_boxcol *col,
		    size_t n)
{
	struct svg_chart c;
	bool marked = box_range(col, n, k, scale, &c);
	double slot = (double)(W - ML - MR) / (double)(n ? n : 1);
	double bw = fmin(60.0, slot * 0.7 / (double)k);
	const char *small = slot < 70 ? "font-size=\"9\"" : "font-size=\"11\"";
	struct bench_out w;
	FILE *f;

	if (!(f = plot_open(&w, path)))
		return -errno;
	svg_begin(f, title);
	grid(f, &c, false);
	axis_labels(f, &c, false, ylabel);
	for (size_t i = 0; i < n; i++) {
		double cx = ML + slot * ((double)i + 0.5);

		text(f, cx, H - MB + 16, "middle", small, col[i].line1);
		text(f, cx, H - MB + 30, "middle", small, col[i].line2);
		for (size_t j = 0; j < k; j++)
			draw_box(f, &c, &col[i], i, j, cx + bw * ((double)j - (double)k / 2.0), bw,
				 scale);
	}
	box_legend(f, kinds, k, marked);
	fputs("</svg>\n", f);
	return plot_close(&w);
}
