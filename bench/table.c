/* bench/table.c: the bench's table on a terminal, for a run (compare.c) and for saved runs
 * side by side (report.c): the rows of webui/benchrows.c, each cell from a run's figures as
 * results.json has them, so the terminal, the report, report.html and the page agree. */
#include <stdio.h>
#include "bench/table.h"
#include "webui/benchrows.h"

static void heading(const char *const *text, size_t n, int w)
{
	printf("%-26s", "");
	for (size_t i = 0; i < n; i++)
		printf(" %*s", w, text[i]);
	printf("\n");
}

void bench_table_print(const char *const *top, const char *const *label,
		       struct json_object *const *fig, size_t n, int w)
{
	char cell[64];

	if (top)
		heading(top, n, w);
	heading(label, n, w);
	for (size_t r = 0; r < gw_bench_n_rows; r++) {
		printf("%-26s", gw_bench_rows[r].label);
		for (size_t i = 0; i < n; i++) {
			gw_bench_cell(&gw_bench_rows[r], fig[i], cell, sizeof(cell));
			printf(" %*s", w, cell);
		}
		printf("\n");
	}
}
