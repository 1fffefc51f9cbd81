/* bench/compare.h: the comparison bench (compare.c): queues compared one run after another
 * on the four-namespace testbed, the table, the files in --out. */
#ifndef GW_BENCH_COMPARE_H
#define GW_BENCH_COMPARE_H

/* Runs the bench with the command line's options (options.c's usage); returns the exit
 * status: 0 ok, 1 runtime failure, 2 usage, 130 interrupted. */
int bench_compare_main(int argc, char **argv);

#endif
