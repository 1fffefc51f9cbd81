/* sys/log.c: stderr logging with journal priorities when systemd reads us. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "sys/log.h"

static int verbose;

void gw_log_set_verbose(int v)
{
	verbose = v;
}

int gw_log_verbose(void)
{
	return verbose;
}

void gw_log(enum gw_log_level level, const char *fmt, ...)
{
	static const char *const names[] = { [GW_LOG_ERR] = "error", [GW_LOG_WARNING] = "warning",
					     [GW_LOG_INFO] = "info", [GW_LOG_DEBUG] = "debug" };
	char line[2048];
	va_list ap;

	if (level == GW_LOG_DEBUG && !verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* under systemd a "<N>" prefix sets the journal priority; on a terminal, words do */
	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "gatewayd: %s: %s\n", names[level], line);
}
