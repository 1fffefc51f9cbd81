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
/* got and want are evaluated once each (a call that builds something is not made twice) */
#define CHECK_EQ_INT(got, want, name) tap_eq_int((long long)(got), (long long)(want), name)
#define CHECK_EQ_STR(got, want, name) tap_eq_str((got), (want), name)

__attribute__((unused))
static int tap_eq_int(long long got, long long want, const char *name)
{
	return tap_check(got == want, "%s (got %lld, want %lld)", name, got, want);
}

__attribute__((unused))
static int tap_eq_str(const char *got, const char *want, const char *name)
{
	return tap_check(strcmp(got, want) == 0, "%s (got \"%s\", want \"%s\")", name, got, want);
}

static inline int tap_done(void)
{
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
