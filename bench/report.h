/* bench/report.h: `gatewayd --compare-report` (report.c): saved runs side by side, in a
 * table, report.json, plots and report.html. Saved runs are read back by the one reader of
 * results.json, webui/benchfile.c. */
#ifndef GW_BENCH_REPORT_H
#define GW_BENCH_REPORT_H

#define BENCH_REPORT_MAX_RUNS 16		/* run directories on one command line */
#define BENCH_REPORT_MIN_RUNS 2
#define BENCH_REPORT_MAX_COLS 32	/* run x queue columns in one report: the plots' legends */
#define BENCH_REPORT_LABEL_MAX 32

/* `--compare-report [--out DIR] RUNDIR[=LABEL]...` (report.c's usage); the exit status: 0 ok,
 * 1 a file not written, 2 usage or a bad run. */
int bench_report_main(int argc, char **argv);

#endif
