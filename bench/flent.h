/* bench/flent.h: each run as flent's own data file (flent.c). */
#ifndef GW_BENCH_FLENT_H
#define GW_BENCH_FLENT_H

#include <stddef.h>

struct bench_opts;
struct bench_result;
struct bench_sysinfo;

/* Flent's test of the run's load (--profile, --flows): rrul_be, rrul_be_nflows,
 * tcp_nup or tcp_ndown */
const char *bench_flent_test(const struct bench_opts *o);
/* The name flent gives the run's file: TEST-TIME.LABEL.flent.gz */
void bench_flent_name(const struct bench_opts *o, const struct bench_result *r, char *buf,
		      size_t len);
/* One run as flent's own data file (format version 4, its test's), written in
 * dir under the name flent gives it; its file name into name. 0 or -errno (err says). */
int bench_write_flent(const char *dir, const struct bench_opts *o, const struct bench_result *r,
		      const char *kernel_used, const struct bench_sysinfo *si, char *name,
		      size_t namelen, char *err, size_t errlen);

#endif
