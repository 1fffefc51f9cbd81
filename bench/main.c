/* bench/main.c: gatewayd-bench, the comparison bench as a program of its own: the bench
 * (`gatewayd-bench [--compare] ...`) or saved runs side by side (`--compare-report ...`).
 * `gatewayd --compare ARGS` and `gatewayd --compare-report ARGS` run it with the same ARGS. */
#include <string.h>
#include "bench/compare.h"
#include "bench/report.h"

int main(int argc, char **argv)
{
	/* as the daemon dispatched it: --compare-report anywhere is the report */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--compare-report"))
			return bench_report_main(argc, argv);
	return bench_compare_main(argc, argv);
}
