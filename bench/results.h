/* bench/results.h: results.json (results.c), and its parts other files write too. */
#ifndef GW_BENCH_RESULTS_H
#define GW_BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct bench_flow;
struct bench_ifinfo;
struct bench_opts;
struct bench_pct;
struct bench_result;
struct bench_sysinfo;
struct bench_tick;

/* The whole results.json; si may be NULL (no `metadata`). With o->repeat > 1, r holds
 * every repetition (runs[].repeat) and the file a `summary` (repeat.c). */
int bench_write_json(const char *path, const struct bench_opts *o, struct bench_result *r, size_t n,
		     const char *kernel_used, const struct bench_sysinfo *si, char *err,
		     size_t errlen);
/* One run as results.json's runs[] has it; the same without its samples, series
 * and tree (its name, label, place, note and figures: what a table needs); its figures alone
 * (what a table prints, gw_bench_rows' paths) */
struct json_object *bench_run_json(const struct bench_opts *o, const struct bench_result *r,
				   bool repeated);
struct json_object *bench_run_summary_json(const struct bench_result *r, bool repeated);
/* The ICMP probes as results.json has them ([t, rtt or null, phase] each); a
 * flow's series ([t, bits/s] each interval) */
struct json_object *bench_samples_json(const struct bench_result *r);
struct json_object *bench_series_json(const struct bench_flow *f);
/* The ticks, [t, then ncol (at most 16) counters row gives] each */
struct json_object *bench_ticks_json(const struct bench_result *r, size_t ncol,
				     void (*row)(const struct bench_tick *k, int64_t *v));
struct json_object *bench_figures_json(const struct bench_result *r);
/* A results file's top (schema, version, gatewayd's version, the time, the kernel
 * that ran it: "host" or "uml", and its release); NULL when out of memory */
struct json_object *bench_file_json(const char *schema, int version, const char *kernel);
/* A figure as results.json writes it: 3 decimals, null (NULL) when not finite */
struct json_object *bench_json_num(double v);
/* Two figures as {"up", "down"}; a percentile set as {p50, p95, p99, mean, samples,
 * lost} */
struct json_object *bench_json_pair(double up, double down);
struct json_object *bench_json_pct(const struct bench_pct *p);
/* A sysctl's value as JSON: a number where it is one. Offloads by flent's names. */
struct json_object *bench_json_sysval(const char *v);
struct json_object *bench_offloads_json(const struct bench_ifinfo *f);

#endif
