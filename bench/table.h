/* bench/table.h: the bench's table on a terminal. */
#ifndef GW_BENCH_TABLE_H
#define GW_BENCH_TABLE_H

#include <stddef.h>

/* A column per run, a row per figure of webui/benchrows.c (the same rows report.html and the
 * status page print), to stdout: a heading row of top (NULL: none; a report's run labels),
 * one of label, then each row's cells from fig (a run's figures; NULL: it did not run), each
 * w wide. */
struct json_object;
void bench_table_print(const char *const *top, const char *const *label,
		       struct json_object *const *fig, size_t n, int w);

#endif
