/* qdisc/fmt.c: bounded string building for tc command lines. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include "qdisc/qdisc.h"

/* Append to buf at *pos; -ENOSPC (and buf still terminated) when it does not fit. */
int gw_fmt(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len - *pos) {
		*pos = len;
		return -ENOSPC;
	}
	*pos += (size_t)n;
	return 0;
}

void gw_format_prefix(const struct gw_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(p->family, p->addr, a, sizeof(a));
	if (p->len == (p->family == AF_INET ? 32 : 128))
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%u", a, p->len);
}

/* A unit of the formatted forms: its name and how many of the base (bits, bytes) it is. */
struct fmt_unit {
	const char *name;
	uint64_t mult;
};

void gw_format_rate(uint64_t bytes_per_s, char *buf, size_t len)
{
	static const struct fmt_unit units[] = {
		{ "tbit", 1000000000000ULL },
		{ "gbit", 1000000000ULL },
		{ "mbit", 1000000ULL },
		{ "kbit", 1000ULL },
	};
	uint64_t bits;
	size_t i;

	/* Beyond 2^61 bytes/s the bit count does not fit: say it in tc's bytes/s instead. */
	if (bytes_per_s > UINT64_MAX / 8) {
		snprintf(buf, len, "%" PRIu64 "bps", bytes_per_s);
		return;
	}
	bits = bytes_per_s * 8;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (bits && bits % units[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bits / units[i].mult, units[i].name);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "bit", bits);
}

void gw_format_time(int64_t usec, char *buf, size_t len)
{
	if (usec && usec % 1000000 == 0)
		snprintf(buf, len, "%" PRId64 "s", usec / 1000000);
	else if (usec && usec % 1000 == 0)
		snprintf(buf, len, "%" PRId64 "ms", usec / 1000);
	else
		snprintf(buf, len, "%" PRId64 "us", usec);
}

void gw_format_size(int64_t bytes, char *buf, size_t len)
{
	static const struct fmt_unit units[] = {
		{ "g", 1ULL << 30 },
		{ "m", 1ULL << 20 },
		{ "k", 1ULL << 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (bytes > 0 && (uint64_t)bytes % units[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", (uint64_t)bytes / units[i].mult,
				 units[i].name);
			return;
		}
	}
	snprintf(buf, len, "%" PRId64, bytes);
}
