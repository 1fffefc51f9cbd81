/*
 * config/parse_scan.c: find integers that libconfig would silently truncate.
 *
 * libconfig 1.5 (Debian's) stores an integer without the L suffix in an int, so
 * `limit = 4294967297;` reads back as 1, in range, and nobody would know. We scan the text
 * ourselves, after libconfig has accepted its syntax, and refuse such integers with their
 * line number. Only the top file is scanned: @include'd files are read by libconfig alone.
 */
#include <errno.h>
#include <string.h>

#include "config/parse.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static const char *skip_string(const char *s, int *line)
{
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (*s == '\n')
			(*line)++;
	}
	return *s ? s + 1 : s;
}

static const char *skip_comment(const char *s, int *line)
{
	if (s[0] == '/' && s[1] == '*') {
		for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
			if (*s == '\n')
				(*line)++;
		return *s ? s + 2 : s;
	}
	while (*s && *s != '\n')
		s++;
	return s;
}

/* One number token: sign, digits, letters (hex, L, exponent), point, exponent sign. */
static const char *number_end(const char *s)
{
	bool hex;

	if (*s == '-' || *s == '+')
		s++;
	hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	for (; *s; s++) {
		if (is_digit(*s) || is_alpha(*s) || *s == '.')
			continue;
		if ((*s == '-' || *s == '+') && !hex && (s[-1] == 'e' || s[-1] == 'E'))
			continue;
		break;
	}
	return s;
}

/* Does libconfig keep this token's value? Floats and L-suffixed integers it does. */
static bool int_fits(const char *s, size_t n)
{
	bool neg = false;
	uint64_t v = 0;
	size_t i = 0;

	if (memchr(s, 'L', n) || memchr(s, 'l', n))
		return true;
	if (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-';
		i++;
	}
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		/* Hex is read as 32 bits, so 0xffffffff is -1 on purpose: only more digits lose. */
		for (i += 2; i < n && s[i] == '0'; i++)
			;
		return n - i <= 8;
	}
	if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n))
		return true;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return true;	/* not a number libconfig would have taken */
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > 2147483648ULL)
			return false;
	}
	return neg || v <= 2147483647ULL;
}

int cfg_scan_ints(struct cfg_parser *p, const char *s)
{
	int line = 1;

	while (*s) {
		if (*s == '\n') {
			line++;
			s++;
		} else if (*s == '"') {
			s = skip_string(s, &line);
		} else if (*s == '#' || (s[0] == '/' && (s[1] == '/' || s[1] == '*'))) {
			s = skip_comment(s, &line);
		} else if (is_alpha(*s) || *s == '*' || *s == '@') {
			/* A name may hold digits ("eth0"): they are not numbers. */
			for (s++; is_alpha(*s) || is_digit(*s) || *s == '_' || *s == '-' ||
			     *s == '*'; s++)
				;
		} else if (is_digit(*s) || ((*s == '-' || *s == '+' || *s == '.') &&
					    (is_digit(s[1]) || s[1] == '.'))) {
			const char *start = s;

			s = number_end(s);
			if (!int_fits(start, (size_t)(s - start)))
				return cfg_error_at(p, NULL, line, NULL, "integer %.*s is too large: "
						    "libconfig reads it as 32 bits; write %.*sL, or "
						    "a string with a unit", (int)(s - start), start,
						    (int)(s - start), start);
		} else {
			s++;
		}
	}
	return 0;
}
