/* bench/html.c: report.html, one self-contained page a person reads: the runs'
 * table (the terminal's rows and units), every plot inline, the settings and where it ran.
 * Built from results.json as webui/benchfile.c reads it back, never from the bench's memory,
 * so an old run directory gets one too. No external reference of any kind: a Content-Security-Policy
 * that allows inline style alone, and plots that hold anything but drawing are left out. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/html.h"
#include "bench/outfile.h"
#include "bench/queues.h"
#include "bench/repeat.h"
#include "webui/benchfile.h"
#include "webui/benchrows.h"

static const char style[] =
	"body{font-family:sans-serif;margin:16px;color:#111;background:#fff}"
	"table{border-collapse:collapse;margin:8px 0}"
	"td,th{border:1px solid #bbb;padding:2px 8px}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{background:#eee}"
	"div.plot{display:inline-block;line-height:0}"
	"figure{margin:12px 0}"
	".note{color:#a00}";

/* s as HTML text (also inside an attribute's quotes); control characters as '?' */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

/* a JSON value as text: a string as itself, anything else as its JSON */
static const char *text_of(struct json_object *v)
{
	if (!v)
		return "-";
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* A column's heading: its label, and which repetition in a repeated run ("fifo #2"). */
static const char *col_name(const struct gw_bench_col *c)
{
	static char buf[4][GW_BENCH_LABEL_MAX + 16];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s", c->label[0] ? c->label : c->qdisc);
	if (c->repeat >= 0)
		snprintf(b + strlen(b), sizeof(buf[0]) - strlen(b), " #%d", c->repeat + 1);
	return b;
}

/* A repeated run's table: a column per queue, each figure median [lo, hi] over the
 * repetitions (results.json's summary), and which pairs differ beyond the intervals. */
static void summary_table(FILE *f, const struct gw_bench_file *r)
{
	struct json_object *qs = gw_bench_at(r->summary, "queues"), *d = gw_bench_at(r->summary, "differences");
	size_t nq = json_object_is_type(qs, json_type_array) ? json_object_array_length(qs) : 0;
	char b[320];

	bench_repeat_interval_text(r->repetitions, b, sizeof(b));
	fputs("<h2>Figures</h2>\n<p id=\"interval\">", f);
	esc(f, b);
	fputs("</p>\n<table id=\"figures\">\n<tr><th>queue</th>", f);
	for (size_t i = 0; i < nq; i++) {
		fputs("<th>", f);
		struct json_object *q = json_object_array_get_idx(qs, i);

		/* column: the label, and its place in --qdiscs where two share one */
		esc(f, text_of(gw_bench_at(q, "column") ? gw_bench_at(q, "column") : gw_bench_at(q, "label")));
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t k = 0; k < gw_bench_n_rows; k++) {
		const struct gw_bench_row *row = &gw_bench_rows[k];

		fputs("<tr><th>", f);
		esc(f, row->kind == GW_BENCH_ROW_GRADE ? BENCH_REPEAT_GRADE_ROW : row->label);
		fputs("</th>", f);
		for (size_t i = 0; i < nq; i++) {
			bench_repeat_row_cell(row, json_object_array_get_idx(qs, i), b, sizeof(b));
			fputs("<td class=\"n\">", f);
			esc(f, b);
			fputs("</td>", f);
		}
		if (k + 1 < gw_bench_n_rows)
			fputs("</tr>\n", f);
	}
	fputs("</tr>\n</table>\n", f);
	if (nq < 2 || !json_object_is_type(d, json_type_array))
		return;
	fputs("<h3>Beyond the intervals (two intervals apart) or not (overlapping)</h3>\n<ul id=\"differences\">\n", f);
	for (size_t k = 0; k < json_object_array_length(d); k++) {
		struct json_object *e = json_object_array_get_idx(d, k);
		static const char *const what[2] = { "apart", "overlap" };

		fputs("<li>", f);
		esc(f, text_of(gw_bench_at(e, "row")));
		fputs(":", f);
		for (int w = 0; w < 2; w++) {
			struct json_object *a = gw_bench_at(e, what[w]);
			size_t np = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

			fprintf(f, "%s %s: ", w ? ";" : "", w ? "overlapping" : "apart");
			if (!np)
				fputs("none", f);
			for (size_t p = 0; p < np; p++) {
				struct json_object *pr = json_object_array_get_idx(a, p);

				fputs(p ? ", " : "", f);
				esc(f, text_of(json_object_array_get_idx(pr, 0)));
				fputs(" vs ", f);
				esc(f, text_of(json_object_array_get_idx(pr, 1)));
			}
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void table(FILE *f, const struct gw_bench_file *runs, size_t n)
{
	fputs("<h2>Figures</h2>\n<table id=\"figures\">\n", f);
	if (n > 1) {
		fputs("<tr><th>run</th>", f);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "<th colspan=\"%zu\">", runs[i].n_cols);
			esc(f, runs[i].label);
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("<tr><th>queue</th>", f);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].n_cols; k++) {
			fputs("<th>", f);
			esc(f, col_name(&runs[i].col[k]));
			fputs("</th>", f);
		}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < gw_bench_n_rows; r++) {
		fputs("<tr><th>", f);
		esc(f, gw_bench_rows[r].label);
		fputs("</th>", f);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < runs[i].n_cols; k++) {
				const struct gw_bench_col *c = &runs[i].col[k];
				char cell[64];

				gw_bench_cell(&gw_bench_rows[r], c->ran ? c->fig : NULL, cell,
					      sizeof(cell));
				fputs("<td class=\"n\">", f);
				esc(f, cell);
				fputs("</td>", f);
			}
		if (r + 1 < gw_bench_n_rows)
			fputs("</tr>\n", f);
	}
	char key[] = GW_BENCH_ROWS_KEY;

	/* the terminal's lines, as one paragraph */
	for (char *p = key; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fputs("</tr>\n</table>\n<p>", f);
	esc(f, key);
	fputs("</p>\n", f);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < runs[i].n_cols; k++)
			if (runs[i].col[k].note[0]) {
				fputs("<p class=\"note\">note: ", f);
				if (n > 1) {
					esc(f, runs[i].label);
					fputc(' ', f);
				}
				esc(f, col_name(&runs[i].col[k]));
				fputs(": ", f);
				esc(f, runs[i].col[k].note);
				fputs("</p>\n", f);
			}
}

/* Reads dir/name, at most BENCH_HTML_SVG_MAX bytes; NULL with why when it is not a plot of ours
 * to embed: anything that could load, link or run (scripts, references, foreign content,
 * entities) is refused, though the page's policy would block it anyway. */
static char *read_svg(const char *dir, const char *name, char *why, size_t len)
{
	static const char *const banned[] = { "<script", "href", "src=", "<foreignobject",
					      "<!entity", "<!doctype", "@import", "javascript:",
					      "<iframe", "<image", "<use", "<a ", "<style", " on" };
	char path[4200], *buf, *p;
	struct stat st;
	size_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > BENCH_HTML_SVG_MAX || !(buf = malloc((size_t)st.st_size + 1))) {
		snprintf(why, len, "not a regular file of at most %u bytes", BENCH_HTML_SVG_MAX);
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	if (strlen(buf) != got || !(p = strstr(buf, "<svg ")) || !strstr(p, "</svg>")) {
		snprintf(why, len, "not an SVG drawing");
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++)
		if (strcasestr(buf, banned[i])) {
			snprintf(why, len, "holds \"%s\", which a plot of gatewayd's never does",
				 banned[i]);
			free(buf);
			return NULL;
		}
	/* an event handler's attribute: " on" and letters up to '=' */
	for (char *o = buf; (o = strcasestr(o, " on")); o += 3) {
		size_t l = 3;

		while ((o[l] >= 'a' && o[l] <= 'z') || (o[l] >= 'A' && o[l] <= 'Z'))
			l++;
		if (l > 3 && o[l] == '=') {
			snprintf(why, len, "holds an event handler (%.*s)", (int)(l - 1), o + 1);
			free(buf);
			return NULL;
		}
	}
	for (char *u = buf; (u = strcasestr(u, "url(")); u += 4)
		if (u[4] != '#') {
			snprintf(why, len, "refers to something outside itself (url())");
			free(buf);
			return NULL;
		}
	memmove(buf, p, got - (size_t)(p - buf) + 1);	/* no XML prolog inside HTML */
	return buf;
}

/* The drawing, its ids made the page's own (pN-): every plot names its clip path "plot". */
static void put_svg(FILE *f, const char *svg, size_t idx)
{
	const char *end = strstr(svg, "</svg>") + 6;

	for (const char *s = svg; s < end; s++) {
		if (!strncmp(s, "id=\"", 4)) {
			fprintf(f, "id=\"p%zu-", idx);
			s += 3;
		} else if (!strncmp(s, "url(#", 5)) {
			fprintf(f, "url(#p%zu-", idx);
			s += 4;
		} else
			fputc(*s, f);
	}
	fputc('\n', f);
}

static void plots(FILE *f, const char *dir, const char *const *names, size_t n)
{
	fputs("<h2>Plots</h2>\n", f);
	for (size_t i = 0; i < n; i++) {
		char why[160];
		char *svg = read_svg(dir, names[i], why, sizeof(why));

		fputs("<figure><figcaption>", f);
		esc(f, names[i]);
		fputs("</figcaption>\n", f);
		if (!svg) {
			fputs("<p class=\"note\">not shown: ", f);
			esc(f, why);
			fputs("</p></figure>\n", f);
			continue;
		}
		/* its id: where a reader (or a test) finds the plot on the page */
		fprintf(f, "<div class=\"plot\" id=\"plot%zu\">\n", i);
		put_svg(f, svg, i);
		fputs("</div></figure>\n", f);
		free(svg);
	}
}

static void kv(FILE *f, const char *k, const char *v)
{
	fputs("<tr><th>", f);
	esc(f, k);
	fputs("</th><td>", f);
	esc(f, v);
	fputs("</td></tr>\n", f);
}

/* the two ends' values of a {client, server} object */
static void ends(FILE *f, const char *k, struct json_object *o)
{
	char v[512];

	if (!o)
		return;
	snprintf(v, sizeof(v), "client %s, server ", text_of(gw_bench_at(o, "client")));
	snprintf(v + strlen(v), sizeof(v) - strlen(v), "%s", text_of(gw_bench_at(o, "server")));
	kv(f, k, v);
}

static void sysctls(FILE *f, struct json_object *sc)
{
	struct json_object *cl = gw_bench_at(sc, "client"), *sv = gw_bench_at(sc, "server"), *v;

	if (!json_object_is_type(cl, json_type_object))
		return;
	fputs("<table><tr><th>sysctl</th><th>client</th><th>server</th></tr>\n", f);
	json_object_object_foreach(cl, k, cv) {
		fputs("<tr><td>", f);
		esc(f, k);
		fputs("</td><td>", f);
		esc(f, text_of(cv));
		fputs("</td><td>", f);
		v = NULL;
		if (sv)
			json_object_object_get_ex(sv, k, &v);
		esc(f, text_of(v));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void offloads(FILE *f, struct json_object *a)
{
	if (!json_object_is_type(a, json_type_array) || !json_object_array_length(a))
		return;
	fputs("<table><tr><th>namespace</th><th>interface</th><th>offloads</th></tr>\n", f);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *x = json_object_array_get_idx(a, i), *o = gw_bench_at(x, "offloads");
		bool first = true;

		fputs("<tr><td>", f);
		esc(f, text_of(gw_bench_at(x, "namespace")));
		fputs("</td><td>", f);
		esc(f, text_of(gw_bench_at(x, "interface")));
		fputs("</td><td>", f);
		if (json_object_is_type(o, json_type_object)) {
			json_object_object_foreach(o, k, v) {
				fputs(first ? "" : ", ", f);
				esc(f, k);
				fputs(json_object_get_boolean(v) ? " on" : " off", f);
				first = false;
			}
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* each queue's tree as the kernel reported it: the qdiscs' own parameters */
static void trees(FILE *f, const struct gw_bench_file *r)
{
	static const char *const keys[] = { "direction", "interface", "type", "kind", "handle",
					    "parent", "params" };

	for (size_t k = 0; k < r->n_cols; k++) {
		struct json_object *a = r->col[k].qdiscs;

		if (!a || !json_object_array_length(a))
			continue;
		fputs("<h4>", f);
		esc(f, col_name(&r->col[k]));
		fputs(": the gateway's tree as the kernel reports it</h4>\n<table><tr>", f);
		for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
			fprintf(f, "<th>%s</th>", keys[j]);
		fputs("</tr>\n", f);
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *q = json_object_array_get_idx(a, i);

			fputs("<tr>", f);
			for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
				fputs("<td>", f);
				esc(f, text_of(gw_bench_at(q, keys[j])));
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void settings(FILE *f, const struct gw_bench_file *r, size_t n)
{
	char when[40], b[160];
	time_t g = (time_t)r->generated_unix;
	struct tm tm;
	struct json_object *m = r->meta;

	fputs("<h3>", f);
	esc(f, n > 1 ? r->label : "The run");
	fputs("</h3>\n<table>\n", f);
	if (n > 1)
		kv(f, "directory", r->dir);
	if (!gmtime_r(&g, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(when, sizeof(when), "?");
	kv(f, "run at", when);
	kv(f, "gatewayd version", r->version);
	snprintf(b, sizeof(b), "%s (%s)", r->kernel,
		 !strcmp(r->kernel, "uml") ? "in a User-Mode Linux guest" :
		 !strcmp(r->kernel, "host") ? "the host's own kernel" : "?");
	kv(f, "kernel that ran it", b);
	kv(f, "kernel release", r->kernel_release);
	if (m) {
		kv(f, "kernel name", text_of(gw_bench_at(m, "kernel_name")));
		kv(f, "host name", text_of(gw_bench_at(m, "hostname")));
		ends(f, "TCP congestion control", gw_bench_at(m, "congestion_control"));
		ends(f, "ECN (net.ipv4.tcp_ecn)", gw_bench_at(m, "tcp_ecn"));
	}
	for (size_t k = 0; k < r->n_cols; k++) {
		const struct gw_bench_col *c = &r->col[k];
		struct json_object *v = c->ran ? gw_bench_at(c->fig, "cpu_busy") : NULL;

		snprintf(b, sizeof(b), "bench CPU busy under load: %s", col_name(c));
		if (v)
			snprintf(when, sizeof(when), "%.0f%%", json_object_get_double(v) * 100);
		else
			snprintf(when, sizeof(when), c->ran ? "-" : "skipped");
		kv(f, b, when);
	}
	/* the bench's settings, every one the file has (a rate also in words) */
	json_object_object_foreach(r->config, k, v) {
		char key[80], val[600];
		size_t l = strlen(k);

		if (!strcmp(k, "phases"))
			continue;
		snprintf(key, sizeof(key), "setting %s", k);
		snprintf(val, sizeof(val), "%s", text_of(v));
		if (l > 4 && !strcmp(k + l - 4, "_bps") && json_object_is_type(v, json_type_int)) {
			bench_rate_text(b, sizeof(b), json_object_get_int64(v), true);
			snprintf(val + strlen(val), sizeof(val) - strlen(val), " (%s)", b);
		}
		kv(f, key, val);
	}
	fputs("</table>\n", f);
	if (m) {
		offloads(f, gw_bench_at(m, "offloads"));
		sysctls(f, gw_bench_at(m, "sysctls"));
	}
	trees(f, r);
}

int bench_html_write(const char *dir, const struct gw_bench_file *runs, size_t n,
		     const char *const *plot_names, size_t n_plots, char *err, size_t errlen)
{
	char path[4200];
	struct bench_out w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" BENCH_HTML_NAME, dir);
	/* whole or not at all (outfile.c); any failure is -EIO, a file not written */
	if (bench_out_begin(&w, path, err, errlen))
		return -EIO;
	if (!(f = bench_out_stdio(&w))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		bench_out_abort(&w);
		return -EIO;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>gatewayd --compare: ", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		esc(f, n > 1 ? runs[i].label : "one run");
	}
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>gatewayd --compare%s</h1>\n",
		style, n > 1 ? "-report" : "");
	for (size_t i = 0; i < n; i++) {
		char rate[40];

		bench_rate_text(rate, sizeof(rate), runs[i].rate[1] * 8, true);
		fputs("<p>", f);
		if (n > 1) {
			esc(f, runs[i].label);
			fputs(": ", f);
		}
		fprintf(f, "%s each way, base RTT %.1f ms%s; %.0f s per queue; kernel ", rate,
			runs[i].rtt_ms, runs[i].netem ? "" : " (no netem: no added delay)",
			runs[i].duration_s);
		esc(f, runs[i].kernel);
		fputc(' ', f);
		esc(f, runs[i].kernel_release);
		fputs("</p>\n", f);
	}
	if (n == 1 && runs[0].summary && runs[0].repetitions > 1)
		summary_table(f, &runs[0]);
	else
		table(f, runs, n);
	plots(f, dir, plot_names, n_plots);
	fputs("<h2>Where and how it ran</h2>\n", f);
	for (size_t i = 0; i < n; i++)
		settings(f, &runs[i], n);
	fputs("</body></html>\n", f);
	return bench_out_commit(&w, err, errlen) ? -EIO : 0;
}

int bench_html_run_dir(const char *dir, char *err, size_t errlen)
{
	static struct gw_bench_file run;	/* big: not on the stack */
	char names[GW_BENCH_MAX_RUNS + 4][GW_BENCH_LABEL_MAX + 16];
	const char *plot_names[GW_BENCH_MAX_RUNS + 4];
	size_t n = 0;
	int e;

	memset(&run, 0, sizeof(run));
	snprintf(run.dir, sizeof(run.dir), "%s", dir);
	if ((e = gw_bench_file_read(&run, 0, err, errlen)))
		return e;
	snprintf(names[n++], sizeof(names[0]), "latency-cdf.svg");
	snprintf(names[n++], sizeof(names[0]), "latency-time.svg");
	if (run.repetitions > 1) {
		snprintf(names[n++], sizeof(names[0]), BENCH_BOX_INDUCED);
		snprintf(names[n++], sizeof(names[0]), BENCH_BOX_GOODPUT);
	}
	for (size_t k = 0; k < run.n_cols; k++)
		/* a repeated run's flows: the first repetition's (flows-LABEL-rep1.svg) */
		if (run.col[k].ran && run.col[k].repeat <= 0) {
			/* the plot --compare wrote: its label in a file name's characters
			 * (flows-fq_codel_target-2ms.svg; flows-fifo.svg without knobs) */
			char file[GW_BENCH_LABEL_MAX];

			gw_bench_label_file(run.col[k].label, file, sizeof(file));
			snprintf(names[n], sizeof(names[0]), "flows-%s.svg", file);
			/* a file older than labels, or written apart from --compare: the queue's */
			char path[4096 + sizeof(names[0])];
			struct stat st;

			if (run.col[k].repeat == 0)
				snprintf(names[n] + strlen(names[n]) - 4, sizeof(names[0]) -
					 strlen(names[n]) + 4, "-rep1.svg");
			snprintf(path, sizeof(path), "%s/%s", dir, names[n]);
			if (run.col[k].repeat < 0 && stat(path, &st))
				snprintf(names[n], sizeof(names[0]), "flows-%s.svg", run.col[k].qdisc);
			n++;
		}
	for (size_t i = 0; i < n; i++)
		plot_names[i] = names[i];
	e = bench_html_write(dir, &run, 1, plot_names, n, err, errlen);
	gw_bench_file_free(&run);
	return e;
}
