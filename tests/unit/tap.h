/* tests/unit/tap.h: the tiny assertion layer every unit test uses. Each check prints
 * "ok - NAME" or "not ok - NAME: detail"; tests/run counts the lines of every suite. */
#ifndef GW_TAP_H
#define GW_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int tap_check(int cond, const char *fmt, ...)
{
	va_list ap;

	fputs(cond ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

/* CHECK(cond, "name %d", x): one counted test. */
#define CHECK(cond, ...) tap_check(!!(cond), __VA_ARGS__)
#define CHECK_EQ_INT(got, want, name) \
	tap_check((long long)(got) == (long long)(want), "%s (got %lld, want %lld)", name, \
		  (long long)(got), (long long)(want))
#define CHECK_EQ_STR(got, want, name) \
	tap_check(strcmp((got), (want)) == 0, "%s (got \"%s\", want \"%s\")", name, (got), (want))

static inline int tap_done(void)
{
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
