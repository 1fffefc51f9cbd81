/* tests/unit/test_cmphtml.c: report.html from a saved run (tests/unit/cmpreport/good, made
 * hostile: markup in its label, note, kernel string, host name and tree) and plots drawn by the
 * report's own plot code, one of them holding a script: every string escaped, the script's plot
 * left out, the page self-contained; then tests/report_html.py holds its table against the
 * run's results.json figure by figure and parses it strictly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/html.h"
#include "bench/svg.h"
#include "tests/unit/tap.h"

#define FIX "tests/unit/cmpreport/good/results.json"
#define EVIL "<script>alert(1)</script>"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = malloc(1 << 20);
	size_t n = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;

	if (buf)
		buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

static void put(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

/* the fixture with markup wherever a string comes from the file */
static int hostile_run(const char *dir)
{
	struct json_object *root = json_object_from_file(FIX), *runs, *r0, *m, *cc, *tree, *q;
	char path[512];

	if (!root || !json_object_object_get_ex(root, "runs", &runs))
		return -1;
	r0 = json_object_array_get_idx(runs, 0);
	put(r0, "label", EVIL);
	put(json_object_array_get_idx(runs, 1), "note", "skipped: <b>bold</b> & \"quoted\"");
	put(root, "kernel_release", "6.18.0-test<i>");
	m = json_object_new_object();
	put(m, "hostname", "<img src=x onerror=alert(2)>");
	put(m, "kernel_name", "Linux");
	cc = json_object_new_object();
	put(cc, "client", "cubic");
	put(cc, "server", "bbr'><x");
	json_object_object_add(m, "congestion_control", cc);
	json_object_object_add(root, "metadata", m);
	tree = json_object_new_array();
	q = json_object_new_object();
	put(q, "direction", "up");
	put(q, "kind", "pfifo");
	put(q, "params", "limit 1000 </td></tr></table><script>");
	json_object_array_add(tree, q);
	json_object_object_add(r0, "qdiscs", tree);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	int e = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY);

	json_object_put(root);
	return e;
}

static void test_page(void)
{
	char dir[] = "/tmp/test_cmphtml.XXXXXX", path[512], err[512] = "", cmd[1200];
	double x[50];
	struct bench_svg_cdfline l = { "fifo", x, 50, 0, 0 };
	FILE *f;
	char *page;

	for (int i = 0; i < 50; i++)
		x[i] = 1 + i;
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	CHECK(hostile_run(dir) == 0, "the hostile run's results.json is written");
	snprintf(path, sizeof(path), "%s/latency-cdf.svg", dir);
	CHECK(bench_svg_cdf_lines(path, "a CDF", "ms", &l, 1) == 0, "a real plot: latency-cdf.svg");
	snprintf(path, sizeof(path), "%s/flows-fifo.svg", dir);
	CHECK(bench_svg_cdf_lines(path, "another", "ms", &l, 1) == 0, "and flows-fifo.svg");
	snprintf(path, sizeof(path), "%s/latency-time.svg", dir);
	if ((f = fopen(path, "we"))) {
		fputs("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(3)</script></svg>\n", f);
		fclose(f);
	}
	CHECK(bench_html_run_dir(dir, err, sizeof(err)) == 0, "report.html is written (%s)", err);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	page = slurp(path);
	if (!page) {
		CHECK(0, "report.html read back");
		return;
	}
	CHECK(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">") != NULL,
	      "the page's policy: nothing but inline style");
	CHECK(!strstr(page, "<script") && !strstr(page, "<img") && !strstr(page, "<b>") &&
	      !strstr(page, "<i>") && !strstr(page, "'><x"), "no markup of the file's made it through");
	CHECK(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL,
	      "the label is shown, escaped");
	CHECK(strstr(page, "&lt;img src=x onerror=alert(2)&gt;") &&
	      strstr(page, "bbr&#39;&gt;&lt;x") && strstr(page, "6.18.0-test&lt;i&gt;") &&
	      strstr(page, "&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;") &&
	      strstr(page, "limit 1000 &lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;"),
	      "host name, congestion control, kernel, note and the tree's parameters: escaped");
	int svgs = 0;

	for (const char *s = page; (s = strstr(s, "<svg ")); s++)
		svgs++;
	CHECK(svgs == 2, "two plots inline (%d)", svgs);
	CHECK(strstr(page, "latency-time.svg</figcaption>\n<p class=\"note\">not shown: holds &quot;&lt;script&quot;") != NULL,
	      "the plot holding a script is left out, with why");
	CHECK(strstr(page, "id=\"p0-plot\"") && strstr(page, "url(#p0-plot)") &&
	      strstr(page, "url(#p2-plot)") && !strstr(page, "id=\"plot\""),
	      "each plot's clip path is its own on the page");
	free(page);
	if (system("python3 -c '' 2>/dev/null") != 0) {
		printf("skip - the strict parse: no python3\n");
	} else {
		snprintf(cmd, sizeof(cmd), "python3 tests/report_html.py static %s/report.html %s", dir,
			 dir);
		fflush(stdout);
		CHECK(system(cmd) == 0, "tests/report_html.py: well-formed, self-contained, every figure");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	test_page();
	return tap_done();
}
