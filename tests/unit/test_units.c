/* tests/unit/test_units.c: rates, times and sizes, parsed, formatted and round-tripped. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdint.h>

#include "config/config.h"
#include "tests/unit/tap.h"

static void rate_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int ret = gw_parse_rate(s, &v);

	CHECK(ret == 0 && v == want, "rate \"%s\" = %" PRIu64 " B/s (ret %d, got %" PRIu64 ")", s,
	      want, ret, v);
}

static void rate_bad(const char *s, int want)
{
	uint64_t v = 12345;
	int ret = gw_parse_rate(s, &v);

	CHECK(ret == want && v == 12345, "rate \"%s\" refused with %d (got %d)", s ? s : "NULL",
	      want, ret);
}

/* Times and sizes parse into int64_t: one pair of checks for both, told apart by name. */
static void int64_ok(int (*parse)(const char *, int64_t *), const char *what, const char *unit,
		     const char *s, int64_t want)
{
	int64_t v = 0;
	int ret = parse(s, &v);

	CHECK(ret == 0 && v == want, "%s \"%s\" = %" PRId64 "%s (ret %d, got %" PRId64 ")", what,
	      s, want, unit, ret, v);
}

static void int64_bad(int (*parse)(const char *, int64_t *), const char *what, const char *s,
		      int want)
{
	int64_t v = 12345;
	int ret = parse(s, &v);

	CHECK(ret == want && v == 12345, "%s \"%s\" refused with %d (got %d)", what, s, want, ret);
}

#define time_ok(s, want) int64_ok(gw_parse_time, "time", " us", s, want)
#define time_bad(s, want) int64_bad(gw_parse_time, "time", s, want)
#define size_ok(s, want) int64_ok(gw_parse_size, "size", "", s, want)
#define size_bad(s, want) int64_bad(gw_parse_size, "size", s, want)

static void test_rates(void)
{
	rate_ok("8bit", 1);
	rate_ok("1kbit", 125);
	rate_ok("20mbit", 2500000);
	rate_ok("1.5gbit", 187500000);
	rate_ok("100tbit", 12500000000000ULL);
	rate_ok("1kibit", 128);
	rate_ok("1mibit", 131072);
	rate_ok("1gibit", 134217728);
	rate_ok("1tibit", 137438953472ULL);
	rate_ok("1bps", 1);
	rate_ok("12kbps", 12000);
	rate_ok("1mbps", 1000000);
	rate_ok("2gbps", 2000000000);
	rate_ok("1tbps", 1000000000000ULL);
	rate_ok("1byte", 1);
	rate_ok("3kbyte", 3000);
	rate_ok("12mbyte", 12000000);
	rate_ok("1gbyte", 1000000000);
	/* Case does not matter. */
	rate_ok("20MBit", 2500000);
	rate_ok("20MBIT", 2500000);
	rate_ok("1KiBit", 128);
	/* Rounding to the nearest byte: 12 bit = 1.5 B -> 2, 11 bit = 1.375 B -> 1. */
	rate_ok("12bit", 2);
	rate_ok("11bit", 1);
	rate_ok("13bit", 2);
	rate_ok("4bit", 1);
	rate_ok("0.1kbit", 13);		/* 12.5 B -> 13 */
	rate_ok("0.5bps", 1);
	rate_ok("1.4bps", 1);
	rate_ok("0.000001tbit", 125000);
	rate_ok("1.500000mbit", 187500);	/* trailing zeros do not count as decimals */
	rate_ok("0.123456gbit", 15432000);
	rate_ok("007mbit", 875000);
	rate_ok("100.5mbit", 12562500);
	rate_ok("2305843009213693951bps", 2305843009213693951ULL);
	rate_ok("18446744073709551615bps", UINT64_MAX);

	rate_bad("", -EINVAL);
	rate_bad(NULL, -EINVAL);
	rate_bad("20", -EINVAL);
	rate_bad("20 mbit", -EINVAL);
	rate_bad(" 20mbit", -EINVAL);
	rate_bad("20mbit ", -EINVAL);
	rate_bad("-20mbit", -EINVAL);
	rate_bad("+20mbit", -EINVAL);
	rate_bad("mbit", -EINVAL);
	rate_bad(".5mbit", -EINVAL);
	rate_bad("5.mbit", -EINVAL);
	rate_bad("1.2.3mbit", -EINVAL);
	rate_bad("20mbits", -EINVAL);
	rate_bad("20mb", -EINVAL);
	rate_bad("20xbit", -EINVAL);
	rate_bad("1e6bit", -EINVAL);
	rate_bad("0x10mbit", -EINVAL);
	rate_bad("inf", -EINVAL);
	rate_bad("nanbit", -EINVAL);
	rate_bad("1.0000001mbit", -EINVAL);	/* more than 6 decimals */
	rate_bad("0mbit", -ERANGE);
	rate_bad("0.0bit", -ERANGE);
	rate_bad("3bit", -ERANGE);		/* rounds to 0 bytes/s */
	rate_bad("18446744073709551616bps", -ERANGE);
	rate_bad("99999999999999999999999999mbit", -ERANGE);
	rate_bad("20000000tbit", -ERANGE);
	rate_bad("18446744073709551615.6bps", -ERANGE);
}

static void test_times(void)
{
	time_ok("0us", 0);
	time_ok("100us", 100);
	time_ok("100usec", 100);
	time_ok("5ms", 5000);
	time_ok("5msec", 5000);
	time_ok("1s", 1000000);
	time_ok("2sec", 2000000);
	time_ok("3secs", 3000000);
	time_ok("1.5ms", 1500);
	time_ok("0.5s", 500000);
	time_ok("1.0005ms", 1001);	/* 1000.5 us rounds up */
	time_ok("0.4us", 0);
	time_ok("5MS", 5000);
	time_ok("3600s", 3600000000LL);

	time_bad("5", -EINVAL);
	time_bad("", -EINVAL);
	time_bad("5m", -EINVAL);
	time_bad("5 ms", -EINVAL);
	time_bad("-5ms", -EINVAL);
	time_bad("5min", -EINVAL);
	time_bad("ms", -EINVAL);
	time_bad("9223372036854775807s", -ERANGE);
	time_bad("99999999999999999999s", -ERANGE);
}

static void test_sizes(void)
{
	size_ok("1514", 1514);
	size_ok("0", 0);
	size_ok("100b", 100);
	size_ok("64k", 65536);
	size_ok("64kb", 65536);
	size_ok("1.5k", 1536);
	size_ok("1m", 1048576);
	size_ok("2mb", 2097152);
	size_ok("1g", 1073741824);
	size_ok("1gb", 1073741824);
	size_ok("1.5m", 1572864);
	size_ok("0.001k", 1);		/* 1.024 -> 1 */
	size_ok("64K", 65536);
	size_ok("9223372036854775807", INT64_MAX);

	size_bad("", -EINVAL);
	size_bad("1.5", -EINVAL);	/* a fraction of a byte needs a unit to make sense */
	size_bad("-1", -EINVAL);
	size_bad("64 k", -EINVAL);
	size_bad("64kib", -EINVAL);
	size_bad("k", -EINVAL);
	size_bad("64t", -EINVAL);
	size_bad("9223372036854775808", -ERANGE);
	size_bad("9999999999g", -ERANGE);
}

static void fmt_rate(uint64_t v, const char *want)
{
	char buf[32];

	gw_format_rate(v, buf, sizeof(buf));
	CHECK_EQ_STR(buf, want, "format rate");
}

static void fmt_time(int64_t v, const char *want)
{
	char buf[32];

	gw_format_time(v, buf, sizeof(buf));
	CHECK_EQ_STR(buf, want, "format time");
}

static void fmt_size(int64_t v, const char *want)
{
	char buf[32];

	gw_format_size(v, buf, sizeof(buf));
	CHECK_EQ_STR(buf, want, "format size");
}

static void test_formatting(void)
{
	fmt_rate(2500000, "20mbit");
	fmt_rate(187500000, "1500mbit");
	fmt_rate(125000000, "1gbit");
	fmt_rate(12500000000000ULL, "100tbit");
	fmt_rate(125, "1kbit");
	fmt_rate(128, "1024bit");
	fmt_rate(1000, "8kbit");
	fmt_rate(1, "8bit");
	fmt_rate(13, "104bit");
	fmt_rate(0, "0bit");
	fmt_rate(UINT64_MAX, "18446744073709551615bps");
	fmt_time(5000, "5ms");
	fmt_time(1000000, "1s");
	fmt_time(1500, "1500us");
	fmt_time(100, "100us");
	fmt_time(0, "0us");
	fmt_time(60000000, "60s");
	fmt_time(1001000, "1001ms");
	fmt_size(65536, "64k");
	fmt_size(1048576, "1m");
	fmt_size(1073741824, "1g");
	fmt_size(1536, "1536");
	fmt_size(1514, "1514");
	fmt_size(0, "0");

	/* A small buffer truncates, never overflows. */
	{
		char small[4];

		gw_format_rate(2500000, small, sizeof(small));
		CHECK_EQ_STR(small, "20m", "format rate truncates to its buffer");
	}
}

/* Whatever we print, tc and we read back as the same number. */
static void test_round_trips(void)
{
	static const uint64_t rates[] = {
		1, 2, 13, 125, 128, 1000, 1250, 2500000, 187500000, 12345678, 999999999,
		12500000000000ULL, 1ULL << 40, (1ULL << 61) - 1,
	};
	static const int64_t times[] = { 0, 1, 999, 1000, 1500, 5000, 1000000, 1001000, 3600000000LL };
	static const int64_t sizes[] = { 0, 1, 1514, 1536, 65536, 65537, 1 << 20, 3LL << 30 };
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint64_t v = 0;

		gw_format_rate(rates[i], buf, sizeof(buf));
		CHECK(gw_parse_rate(buf, &v) == 0 && v == rates[i],
		      "rate round trip %" PRIu64 " -> %s -> %" PRIu64, rates[i], buf, v);
	}
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		int64_t v = -1;

		gw_format_time(times[i], buf, sizeof(buf));
		CHECK(gw_parse_time(buf, &v) == 0 && v == times[i],
		      "time round trip %" PRId64 " -> %s -> %" PRId64, times[i], buf, v);
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int64_t v = -1;

		gw_format_size(sizes[i], buf, sizeof(buf));
		CHECK(gw_parse_size(buf, &v) == 0 && v == sizes[i],
		      "size round trip %" PRId64 " -> %s -> %" PRId64, sizes[i], buf, v);
	}
}

static void listen_ok(const char *s, int family, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int ret = gw_parse_listen(s, &ss, &len);
	uint16_t got = 0;

	if (!ret)
		got = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
			    ((struct sockaddr_in6 *)&ss)->sin6_port);
	CHECK(ret == 0 && ss.ss_family == family && got == port &&
	      len == (family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)),
	      "listen \"%s\" parses (ret %d, port %u)", s, ret, got);
}

static void test_listen(void)
{
	static const char *const bad[] = {
		"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", ":80",
		"::1:9180", "[::1]", "[::1]9180", "[::1]:", "[127.0.0.1]:80", "localhost:80",
		"1.2.3:80", "127.0.0.1:80x", "127.0.0.1:+80", "[::1:80", "127.0.0.1:123456",
	};
	size_t i;

	listen_ok("127.0.0.1:9180", AF_INET, 9180);
	listen_ok("0.0.0.0:80", AF_INET, 80);
	listen_ok("[::1]:9180", AF_INET6, 9180);
	listen_ok("[::]:65535", AF_INET6, 65535);
	listen_ok("[fe80::1:2]:1", AF_INET6, 1);
	CHECK(gw_parse_listen("127.0.0.1:9180", NULL, NULL) == 0, "listen: validate only");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(gw_parse_listen(bad[i], NULL, NULL) == -EINVAL, "listen \"%s\" refused",
		      bad[i]);
}

int main(void)
{
	test_rates();
	test_times();
	test_sizes();
	test_formatting();
	test_round_trips();
	test_listen();
	return tap_done();
}
