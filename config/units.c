/* config/units.c: rates, times and sizes between their config spelling and integers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"

/*
 * At most this many significant decimals: it keeps every intermediate product below 2^64
 * (fraction < 10^6 < 2^20 times a multiplier <= 2^40), so parsing is exact integer
 * arithmetic that also builds where there is no 128-bit type (a router's toolchain).
 */
#define MAX_DECIMALS 6

struct decimal {
	uint64_t ip;		/* integer part */
	uint64_t frac;		/* fraction digits as an integer, trailing zeros dropped */
	unsigned int fdigits;	/* how many digits frac has */
	bool has_point;
};

struct unit {
	const char *name;
	uint64_t mult;
	uint64_t div;		/* 8 for units counted in bits */
};

static const struct unit rate_units[] = {
	{ "bit", 1, 8 },
	{ "kbit", 1000ULL, 8 },
	{ "mbit", 1000000ULL, 8 },
	{ "gbit", 1000000000ULL, 8 },
	{ "tbit", 1000000000000ULL, 8 },
	{ "kibit", 1ULL << 10, 8 },
	{ "mibit", 1ULL << 20, 8 },
	{ "gibit", 1ULL << 30, 8 },
	{ "tibit", 1ULL << 40, 8 },
	/* tc(8) spells bytes per second "bps"; so do we, however surprising. */
	{ "bps", 1, 1 },
	{ "kbps", 1000ULL, 1 },
	{ "mbps", 1000000ULL, 1 },
	{ "gbps", 1000000000ULL, 1 },
	{ "tbps", 1000000000000ULL, 1 },
	{ "byte", 1, 1 },
	{ "kbyte", 1000ULL, 1 },
	{ "mbyte", 1000000ULL, 1 },
	{ "gbyte", 1000000000ULL, 1 },
	{ NULL, 0, 0 }
};

static const struct unit time_units[] = {
	{ "us", 1, 1 },
	{ "usec", 1, 1 },
	{ "ms", 1000, 1 },
	{ "msec", 1000, 1 },
	{ "s", 1000000, 1 },
	{ "sec", 1000000, 1 },
	{ "secs", 1000000, 1 },
	{ NULL, 0, 0 }
};

static const struct unit size_units[] = {
	{ "b", 1, 1 },
	{ "k", 1ULL << 10, 1 },
	{ "kb", 1ULL << 10, 1 },
	{ "m", 1ULL << 20, 1 },
	{ "mb", 1ULL << 20, 1 },
	{ "g", 1ULL << 30, 1 },
	{ "gb", 1ULL << 30, 1 },
	{ NULL, 0, 0 }
};

/* "12.50" -> {12, 5, 1}. Only digits and one point: no sign, exponent, hex or spaces. */
static int parse_decimal(const char *s, struct decimal *d, const char **end)
{
	memset(d, 0, sizeof(*d));
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int digit = (unsigned int)(*s - '0');

		if (d->ip > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		d->ip = d->ip * 10 + digit;
	}
	if (*s == '.') {
		const char *f = ++s;
		const char *last = NULL;

		d->has_point = true;
		for (; *s >= '0' && *s <= '9'; s++)
			if (*s != '0')
				last = s;
		if (s == f)
			return -EINVAL;
		for (; last && f <= last; f++) {
			if (++d->fdigits > MAX_DECIMALS)
				return -EINVAL;
			d->frac = d->frac * 10 + (uint64_t)(*f - '0');
		}
	}
	*end = s;
	return 0;
}

static const struct unit *find_unit(const struct unit *table, const char *name)
{
	for (; table->name; table++)
		if (strcasecmp(table->name, name) == 0)
			return table;
	return NULL;
}

/* round(d * mult / div), or -ERANGE above max. */
static int scale(const struct decimal *d, const struct unit *u, uint64_t max, uint64_t *out)
{
	uint64_t p10 = 1, a, whole, den, num, part;
	unsigned int i;

	for (i = 0; i < d->fdigits; i++)
		p10 *= 10;
	if (d->ip > UINT64_MAX / u->mult)
		return -ERANGE;
	a = d->ip * u->mult;
	whole = a / u->div;
	den = p10 * u->div;
	num = (a % u->div) * p10 + d->frac * u->mult;
	part = num / den;
	if ((num % den) * 2 >= den)
		part++;
	if (whole > max || part > max - whole)
		return -ERANGE;
	*out = whole + part;
	return 0;
}

static int parse_with_unit(const char *s, const struct unit *table, bool unit_required,
			   uint64_t max, uint64_t *out)
{
	static const struct unit bare = { "", 1, 1 };
	const struct unit *u;
	struct decimal d;
	const char *end;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_decimal(s, &d, &end);
	if (ret)
		return ret;
	if (*end == '\0') {
		/* A bare number is only a size in bytes, and bytes have no fraction. */
		if (unit_required || d.has_point)
			return -EINVAL;
		u = &bare;
	} else {
		u = find_unit(table, end);
		if (!u)
			return -EINVAL;
	}
	return scale(&d, u, max, out);
}

int gw_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	uint64_t v;
	int ret = parse_with_unit(s, rate_units, true, UINT64_MAX, &v);

	/* Zero, or so little that it rounds to zero bytes/s, is no rate to shape at. */
	if (ret == 0 && v == 0)
		ret = -ERANGE;
	if (ret == 0)
		*bytes_per_s = v;
	return ret;
}

/* Times and sizes are int64_t, as the kernel's attributes and our sentinels want them. */
static int parse_int64(const char *s, const struct unit *table, bool unit_required, int64_t *out)
{
	uint64_t v;
	int ret = parse_with_unit(s, table, unit_required, INT64_MAX, &v);

	if (ret == 0)
		*out = (int64_t)v;
	return ret;
}

int gw_parse_time(const char *s, int64_t *usec)
{
	return parse_int64(s, time_units, true, usec);
}

int gw_parse_size(const char *s, int64_t *bytes)
{
	return parse_int64(s, size_units, false, bytes);
}
