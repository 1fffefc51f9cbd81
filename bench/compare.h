/* bench/compare.h: `gatewayd --compare`, the FIFO vs fq_codel vs cake bench. */
#ifndef GW_COMPARE_H
#define GW_COMPARE_H

/* Runs the bench with the command line's options (see compare.c's usage); returns the exit
 * status: 0 ok, 1 runtime failure, 2 usage, 130 interrupted. */
int gw_compare_main(int argc, char **argv);
/* `gatewayd --compare-report [--out DIR] RUNDIR[=LABEL]...`: saved runs side by side
 * (report.c's usage); the exit status: 0 ok, 1 a file not written, 2 usage or a bad run. */
int gw_compare_report_main(int argc, char **argv);

#endif
