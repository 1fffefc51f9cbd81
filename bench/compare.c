/* bench/compare.c: `gatewayd --compare`: the options, which kernel runs the bench (this
 * one, or a User-Mode Linux guest when this one lacks netem, fq_codel or cake), the runs one
 * qdisc after another, the table, and the files in --out. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>
#include "config/config.h"
#include "bench/compare.h"
#include "bench/config_link.h"
#include "bench/flent.h"
#include "bench/html.h"
#include "bench/kernel.h"
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/queues.h"
#include "bench/relay.h"
#include "bench/repeat.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/stats.h"
#include "bench/svg.h"
#include "bench/sysinfo.h"
#include "bench/table.h"
#include "bench/testbed.h"
#include "sys/signals.h"
#include "qdisc/qdisc.h"
#include "webui/benchrows.h"

/* The table of one run per queue: a column each, printed from each run's figures as
 * results.json has them (bench/table.c). */
static void print_rows(const struct bench_result *r, size_t n)
{
	const char **label = calloc(n + 1, sizeof(*label));
	struct json_object **fig = calloc(n + 1, sizeof(*fig));

	for (size_t i = 0; label && fig && i < n; i++) {
		label[i] = bench_result_label(&r[i]);
		fig[i] = r[i].ran ? bench_figures_json(&r[i]) : NULL;
	}
	if (label && fig)
		bench_table_print(NULL, label, fig, n, 13);
	else
		printf("(no table: out of memory)\n");
	for (size_t i = 0; fig && i < n; i++)
		json_object_put(fig[i]);
	free(label);
	free(fig);
}

static void print_table(const struct bench_opts *o, const struct bench_result *r, size_t n)
{
	char rates[80];

	if (bench_asymmetric(o))
		snprintf(rates, sizeof(rates), "%s down, %s up", o->dir_text[1], o->dir_text[0]);
	else
		snprintf(rates, sizeof(rates), "%s each way", o->rate_text);
	char load[64];
	int up = bench_profile_flows(o->profile, o->flows, 0);
	int down = bench_profile_flows(o->profile, o->flows, 1);

	if (up && down)
		snprintf(load, sizeof(load), "%d+%d TCP", up, down);
	else
		snprintf(load, sizeof(load), "%d TCP %s", up + down, up ? "up" : "down");
	printf("\n%s, base RTT %.1f ms%s; %.0f s per queue: idle, %s%s, idle (--profile %s)\n",
	       rates, o->no_delay ? 0.0 : o->rtt_us / 1000.0,
	       o->no_delay ? " (no netem: no added delay)" : "", o->duration_s, load,
	       o->profile == BENCH_PROF_RRUL ? ", TCP + UDP flood" : "", bench_profile_name(o->profile));
	if (o->repeat > 1)
		bench_repeat_table(o, r, n);
	else
		print_rows(r, n);
	for (size_t i = 0; i < n; i++)
		if (r[i].note[0] && o->repeat > 1)
			printf("note: %s (repetition %d): %s\n", bench_result_label(&r[i]),
			       r[i].repeat + 1, r[i].note);
		else if (r[i].note[0])
			printf("note: %s: %s\n", bench_result_label(&r[i]), r[i].note);
	fputs(GW_BENCH_ROWS_KEY, stdout);
	/* cake's own view of its queue: each tin's delay under load */
	for (size_t i = 0; i < n && o->repeat <= 1; i++)
		for (int d = 0; r[i].ran && d < 2; d++) {
			if (!r[i].n_tins[d])
				continue;
			printf("%s's tins %s (peak/average delay under load):", bench_result_label(&r[i]),
			       d ? "down" : "up");
			for (int g = 0; g < r[i].n_tins[d]; g++)
				printf("%s %s %.1f/%.1f ms", g ? "," : "", r[i].tins[d][g].name,
				       r[i].tins[d][g].peak_ms, r[i].tins[d][g].avg_ms);
			printf("\n");
		}
	for (size_t i = 0; i < n; i++)
		if (r[i].ran && r[i].cpu_busy >= BENCH_CPU_SATURATED) {
			printf("note: the bench's CPU was %.0f%% busy under load%s: goodput and latency then measure the CPU as much as the queue; a lower --rate, or a quieter machine, gives the queue's own figures\n",
			       r[i].cpu_busy * 100, o->in_uml ? " (one CPU in the UML guest)" : "");
			break;
		}
}

/* A run's flows plot: flows-LABEL.svg; repeated, flows-LABEL-repK.svg (K from 1). */
static void flows_path(const struct bench_opts *o, const struct bench_result *r, char *buf,
		       size_t len)
{
	char name[256];

	/* (the precisions: out is at most 4095, a label's file name under GW_BENCH_LABEL_MAX) */
	bench_label_file(r, name, sizeof(name));
	if (o->repeat > 1)
		snprintf(buf, len, "%.4000s/flows-%.150s-rep%d.svg", o->out, name,
			 r->repeat % 100 + 1);
	else
		snprintf(buf, len, "%.4000s/flows-%.150s.svg", o->out, name);
}

static int write_outputs(const struct bench_opts *o, struct bench_result *r, size_t n,
			 const char *kernel, const struct bench_sysinfo *si)
{
	char path[4200], err[4600], name[256];
	int bad = 0, nflent = 0;
	/* the CDF and the timeline: the first repetition's (the box plots have them all) */
	size_t first = o->repeat > 1 ? (size_t)o->n_qdiscs : n;

	/* each file whole or not at all, 0644 for the daemon's web process (outfile.c) */
	snprintf(path, sizeof(path), "%s/results.json", o->out);
	if (bench_write_json(path, o, r, n, kernel, si, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	snprintf(path, sizeof(path), "%s/latency-cdf.svg", o->out);
	bad += bench_svg_cdf(path, o, r, first) != 0;
	snprintf(path, sizeof(path), "%s/latency-time.svg", o->out);
	bad += bench_svg_timeline(path, o, r, first) != 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].ran)
			continue;
		flows_path(o, &r[i], path, sizeof(path));
		bad += bench_svg_flows(path, o, &r[i]) != 0;
		/* and flent's own file of the queue's run, for flent and its users' scripts */
		if (bench_write_flent(o->out, o, &r[i], kernel, si, name, sizeof(name), err,
				      sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			bad++;
		} else
			nflent++;
	}
	/* a repeated run's box plots, from results.json as it was written */
	if (!bad && o->repeat > 1 && bench_repeat_plots(o->out, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	/* and the page a person reads, from results.json as it was written */
	if (!bad && bench_html_run_dir(o->out, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	if (!bench_out_failed(bad, o->out))
		printf("results: %s/results.json, report.html, latency-cdf.svg, latency-time.svg, %sflows-*.svg, %s-*.flent.gz (%d, for flent)\n",
		       o->out, o->repeat > 1 ? BENCH_BOX_INDUCED ", " BENCH_BOX_GOODPUT ", " : "",
		       bench_flent_test(o), nflent);
	return bad ? -EIO : 0;
}

/* Run j of the bench, in the order they run: repetition by repetition, each in --qdiscs'
 * order rotated by its number (fifo, fq_codel, cake; then fq_codel, cake, fifo; ...), so no
 * queue always runs in the same place or after the same one. Found with --qdiscs
 * fifo,fq_codel,fq_codel,cake --repeat 3 in UML: the fq_codel right after the fifo read
 * induced p50 1.38-1.42 ms in every repetition, the one after it 1.56-1.66 ms, and the
 * intervals rightly called two identical queues apart. 0, 1 (it failed) or 130 (stopped). */
static int run_queue(struct bench_bed *bed, const struct bench_opts *o, struct bench_result *x,
		     size_t j, int sfd)
{
	size_t i = (j % o->n_qdiscs + j / o->n_qdiscs) % o->n_qdiscs;
	char rep[48] = "";
	int lacks = -1, e;

	x->q = o->qdiscs[i];
	x->repeat = (int)(j / o->n_qdiscs);
	x->queue = (int)i;
	x->own = o->pick[i].own;
	snprintf(x->label, sizeof(x->label), "%s", o->pick[i].label);
	snprintf(x->knobs, sizeof(x->knobs), "%s", o->pick[i].knobs);
	if (o->repeat > 1) {
		snprintf(rep, sizeof(rep), " (repetition %d/%d)", x->repeat + 1, o->repeat);
		if (j % o->n_qdiscs == 0)
			printf("repetition %d of %d\n", x->repeat + 1, o->repeat);
	}
	for (int q = 0; q < BENCH_Q_COUNT && lacks < 0; q++)
		if ((bench_pick_needs(o, i) & (1u << q)) && !o->have[q])
			lacks = q;
	if (lacks >= 0) {
		snprintf(x->note, sizeof(x->note), "skipped: this kernel has no %s",
			 bench_queue((enum bench_qdisc)lacks)->ops->name);
		if (!x->repeat)
			printf("%s: %s\n", bench_result_label(x), x->note);
		return 0;
	}
	if ((e = bench_run_one(bed, o, x, sfd)) == -EINTR) {
		printf("\ninterrupted: removing the testbed\n");
		return 130;
	}
	if (e || !x->ran) {
		x->ran = false;
		printf("%s%s: failed: %s\n", bench_result_label(x), rep, x->note);
		return 1;
	}
	bench_derive(o, x);
	printf("%s%s: done in %.1f s (set-up %.1f s, measuring %.1f s, the rest tear-down)\n",
	       bench_result_label(x), rep, x->total_s, x->setup_s, x->phase_start[BENCH_PH_COUNT]);
	return 0;
}

/* The testbed up, the server answering the UDP probes (gatewayd --reflect, for each way's
 * delay), where it ran read, its namespaces said, and the status page's relay (relay.c:
 * from the host, in UML). 0, or 1 said on stderr (the testbed removed again). */
static int bed_up(struct bench_bed *bed, const struct bench_opts *o, struct bench_sysinfo *si,
		  pid_t *relay)
{
	char err[512];

	if (bench_bed_up(bed, o, err, sizeof(err)) ||
	    bench_start_reflector(bed, o, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: building the testbed: %s\n", err);
		bench_bed_down(bed);
		return 1;
	}
	bench_sysinfo_read(bed, si);
	printf("testbed: namespaces %s (client), %s (gateway), %s (delay box), %s (server)\n",
	       bed->ns[0], bed->ns[1], bed->ns[2], bed->ns[3]);
	*relay = bench_relay_page(bed, o->in_uml);
	if (o->own)
		printf("-c %s: link %s at %s down, %s up, against the fifo at the same rates%s%s\n",
		       o->config, o->own_link, o->dir_text[1], o->dir_text[0],
		       o->n_qdiscs > 2 ? ", and with each --qdiscs queue in every leaf" : "",
		       o->own_autorate ? "; its autorate is left out (the bench's line does not vary: --scenario variable measures autorate)" : "");
	return 0;
}

/* Every queue's every repetition on one testbed, then the table and the files */
static int run_all(struct bench_opts *o, const char *kernel)
{
	size_t nr = o->n_qdiscs * (size_t)(o->repeat > 1 ? o->repeat : 1);
	struct bench_result *r = calloc(nr ? nr : 1, sizeof(*r));
	struct bench_bed bed = { .home = -1, .fd = { -1, -1, -1, -1 } };
	struct bench_sysinfo si;
	int sfd = -1, rc = 1, done = 0;
	pid_t relay;

	if (!r)
		fprintf(stderr, "gatewayd: out of memory\n");
	else if ((sfd = gw_signalfd(SIGINT, SIGTERM, SIGHUP, 0)) < 0)
		fprintf(stderr, "gatewayd: signalfd: %s\n", strerror(-sfd));
	if (!r || sfd < 0 || bed_up(&bed, o, &si, &relay))
		goto out;
	rc = 0;
	for (size_t j = 0; j < nr && rc != 130; j++) {
		int e = run_queue(&bed, o, &r[j], j, sfd);

		rc = e ? e : rc;
		done += r[j].ran;
	}
	bench_relay_stop(relay);
	bench_bed_down(&bed);
	if (rc != 130) {
		print_table(o, r, nr);
		if (o->out[0] && done && write_outputs(o, r, nr, kernel, &si))
			rc = 1;
	}
out:
	if (sfd >= 0)
		close(sfd);
	for (size_t i = 0; r && i < nr; i++)
		bench_result_free(&r[i]);
	free(r);
	return rc;
}

/* Where the files go: --out, else compare_dir of -c CONFIG, else compare_dir's default,
 * where a running daemon's status page looks (the scenario's in variable/ under it, beside
 * the queue comparison the page shows); made, and the caller's own and writable by no one
 * else, before the bench runs (outfile.c): the files are written through it as root.
 * Readable by all: the daemon's web process reads compare_dir as another user. */
static int out_dir(struct bench_opts *o, bool given)
{
	char abs[PATH_MAX], err[PATH_MAX + 256];
	int r, dfd;

	if (!o->out[0] && o->config[0]) {
		struct gw_config *cfg = NULL;

		if (gw_config_load(o->config, &cfg, err, sizeof(err))) {
			fprintf(stderr, "gatewayd: %s\n", err);
			return 2;
		}
		snprintf(o->out, sizeof(o->out), "%s",
			 cfg->compare_dir ? cfg->compare_dir : GW_COMPARE_DIR_DEFAULT);
		gw_config_free(cfg);
	}
	if (!o->out[0])
		snprintf(o->out, sizeof(o->out), "%s", GW_COMPARE_DIR_DEFAULT);
	if (o->sc.on && !given)
		snprintf(o->out + strlen(o->out), sizeof(o->out) - strlen(o->out), "/variable");
	if ((r = bench_out_mkdir(o->out)) || !realpath(o->out, abs)) {
		fprintf(stderr, "gatewayd: --out %s: %s\n", o->out, strerror(r ? -r : errno));
		return 1;
	}
	snprintf(o->out, sizeof(o->out), "%s", abs);
	if ((dfd = bench_out_dir_open(o->out, err, sizeof(err))) < 0) {
		fprintf(stderr, "gatewayd: --out %s\n", err);
		return 1;
	}
	fchmod(dfd, 0755);
	close(dfd);
	return 0;
}

/* This program, and the daemon beside it; root. 0, or the exit status, said. */
static int whereabouts(struct bench_opts *o)
{
	if (readlink("/proc/self/exe", o->self, sizeof(o->self) - 1) < 0) {
		fprintf(stderr, "gatewayd: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	if (!bench_find_gatewayd(o->self, o->gatewayd, sizeof(o->gatewayd))) {
		fprintf(stderr, "gatewayd: no gatewayd beside %s or in ../../sbin/ from it: the bench starts the daemon it measures\n",
			o->self);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "gatewayd: --compare needs root (network namespaces, qdiscs)\n");
		return 1;
	}
	return 0;
}

static int compare_main(int argc, char **argv, struct bench_opts *op)
{
	struct bench_kernel_has has;
	struct bench_opts o;
	char missing[128];
	bool full;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* progress lines show as they come, even in UML */
	r = bench_parse_opts(argc, argv, op);
	o = *op;
	if (r)
		return r > 0 ? 0 : 2;
	bool out_given = o.out[0] != 0 || o.in_uml;

	if ((r = whereabouts(&o)))
		return r;
	if (bench_kernel_probe(&has) < 0) {
		fprintf(stderr, "gatewayd: cannot make a network namespace to test the kernel in\n");
		return 1;
	}
	if ((r = bench_kernel_check(&o, &has, missing, sizeof(missing), &full)) ||
	    (r = out_dir(&o, out_given)) || (r = bench_kernel_choose(&o, full, missing)) >= 0)
		return r;
	if (!has.ifb) {
		fprintf(stderr, "gatewayd: this kernel has no ifb device: the download direction cannot be shaped\n");
		return 1;
	}
	o.no_delay = !has.netem;
	if (o.no_delay)
		printf("no netem: the delay box adds no delay (the RTT is the namespaces' own)\n");
	for (int q = 0; q < BENCH_Q_COUNT; q++)
		o.have[q] = has.queue[q];
	if (o.sc.on)
		return bench_sc_main(&o, o.in_uml ? "uml" : "host");
	return run_all(&o, o.in_uml ? "uml" : "host");
}

int bench_compare_main(int argc, char **argv)
{
	struct bench_opts o;
	int r;

	memset(&o, 0, sizeof(o));
	r = compare_main(argc, argv, &o);
	bench_own_free(&o);
	return r;
}
