/* webui/benchfile.h: a bench run's results.json (docs/compare-schema.md) read back: the file's
 * limits, which the bench writes within, and its one reader, for the bench's report and
 * report.html (gatewayd-bench) and for the status page's /api/compare (the web process). */
#ifndef GW_BENCHFILE_H
#define GW_BENCHFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_BENCH_SCHEMA "gatewayd-compare"
#define GW_BENCH_SCHEMA_VERSION 1	/* the version this build writes and reads */
#define GW_BENCH_FILE_MAX (32u << 20)	/* one results.json; a 1 h run of 8 queues is ~30 MB */
#define GW_BENCH_JSON_DEPTH 32
#define GW_BENCH_MAX_QUEUES 8		/* --qdiscs */
#define GW_BENCH_MAX_REPEAT 20		/* --repeat */
#define GW_BENCH_MAX_RUNS (GW_BENCH_MAX_QUEUES * GW_BENCH_MAX_REPEAT)	/* runs[] */
/* queues x repetitions x --duration at most: what the file's bound takes (8 queues of 1 h) */
#define GW_BENCH_MAX_TOTAL_S (8 * 3600.0)
#define GW_BENCH_QDISC_MAX 24		/* a queue's name with its NUL: "cake-shaper" */
#define GW_BENCH_LABEL_MAX 96		/* a queue's label with its knobs, with its NUL */
#define GW_BENCH_NOTE_MAX 256
#define GW_BENCH_MAX_SAMPLES 1000000	/* probes in one queue's run (1 h at 20/s is 72,000) */
#define GW_BENCH_MAX_FLOWS 32
#define GW_BENCH_MAX_POINTS 100000	/* one flow's series */
/* The TCP window the goodput, accuracy and fairness are taken over: from the tcp phase's start
 * plus RAMP_SHARE of the tcp phase (at least RAMP_S: slow start, the first queue filling) to
 * the flood's start. A flow's series is a point per SERIES_S. */
#define GW_BENCH_RAMP_S 1.0
#define GW_BENCH_RAMP_SHARE 0.4
#define GW_BENCH_SERIES_S 0.5

/* One run of results.json's runs[]: a column of a table. */
struct json_object;
struct gw_bench_col {
	char qdisc[GW_BENCH_QDISC_MAX];
	char label[GW_BENCH_LABEL_MAX];	/* runs[].label (the queue with its knobs), else qdisc */
	int repeat;			/* runs[].repeat (--repeat), 0-based; -1 when absent */
	int queue;			/* runs[].position: its place in --qdiscs; -1 when absent */
	bool ran;
	bool own;			/* runs[].tree "config": the link of -c CONFIG */
	char note[GW_BENCH_NOTE_MAX];
	struct json_object *fig;	/* the run's figures (results.json's, by reference) */
	struct json_object *qdiscs;	/* runs[].qdiscs, the tree read back (by reference) */
	/* GW_BENCH_SAMPLES only: */
	double *rtt;			/* loaded RTTs (tcp and flood phases, replies), unsorted */
	size_t n_rtt;
	double *induced;		/* the same less the run's baseline */
	size_t n_induced;
	double *good[2];		/* [0] up, [1] down: the direction's goodput, bits/s,
					 * per interval of the TCP window */
	size_t n_good[2];
};

/* One saved run: its settings and runs. dir and label are the caller's (a report's). */
struct gw_bench_file {
	char dir[4096];
	char label[33];			/* a report's name for the run */
	struct json_object *config;	/* results.json's `config`, by reference */
	int64_t generated_unix;
	int64_t rate[2];		/* each direction's, bytes/s: [0] up, [1] down (the file's
					 * bits/s; older files have rate_bps alone, both ways) */
	double rtt_ms, duration_s;
	bool netem;
	char kernel[16], kernel_release[80], version[40];
	struct json_object *meta;	/* results.json's `metadata` (by reference), or NULL */
	struct json_object *summary;	/* its `summary` (a repeated run, by reference), or NULL */
	int repetitions;		/* config.repeat; 1 when absent */
	struct gw_bench_col col[GW_BENCH_MAX_RUNS];
	size_t n_cols;
};

/* What the reader takes out besides the figures: the probes and the flows' series (the
 * report's box plots and CDFs), every one of them checked. */
#define GW_BENCH_SAMPLES 1u

/* The file from text (len bytes, NUL-terminated); path names it in errors. Bounded in depth,
 * parsed strictly (json-c: no NaN, nothing after the value), every field the table, the
 * report and the page use checked for its type. 0, or -EINVAL (-ENOMEM) with "PATH: what is
 * wrong" in err: not JSON (with its line), another file's schema, a version this build does
 * not read, a field missing or of the wrong type. */
int gw_bench_file_parse(struct gw_bench_file *f, const char *path, const char *text, size_t len,
			unsigned flags, char *err, size_t errlen);
/* f->dir's results.json, at most GW_BENCH_FILE_MAX bytes, as above (or -errno: missing, too
 * big, not a regular file). */
int gw_bench_file_read(struct gw_bench_file *f, unsigned flags, char *err, size_t errlen);
void gw_bench_file_free(struct gw_bench_file *f);

/* obj's value at a dotted path ("latency_ms.idle.p50"), NULL when absent or null. */
struct json_object *gw_bench_at(struct json_object *obj, const char *path);
/* A label as a file name part, as the bench names its plots: '=' as '-', any other character
 * outside A-Z a-z 0-9 . _ + - as '_' (fq_codel:target=2ms is fq_codel_target-2ms). */
void gw_bench_label_file(const char *label, char *buf, size_t len);

#endif
