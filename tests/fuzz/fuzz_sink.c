/* tests/fuzz/fuzz_sink.c: libFuzzer target: any bytes as the first a client sends the load-test
 * sink (gw_load_hdr_parse, versions 1 and 2 with its token field), and as the reply a
 * generator reads (gw_load_reply_parse).
 *
 * Checked, so a broken promise crashes: the parser reads only the bytes it is given (ASan sees
 * a copy of exactly that size); a prefix of a header never gives a different answer than the
 * sink would get later (the sink parses what it has so far, byte by byte as it arrives); an
 * accepted header is within the documented bounds, its token field well formed (printable,
 * then zeros), and builds back to the same 12 or 76 bytes; the token comparison agrees with
 * memcmp. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "load/access.h"
#include "load/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse_copy(const uint8_t *data, size_t n, struct gw_load_hdr *h)
{
	uint8_t *copy = malloc(n ? n : 1);
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, n);
	r = gw_load_hdr_parse(copy, n, h);
	free(copy);
	return r;
}

static void check_header(const uint8_t *data, size_t size)
{
	/* the header's length as the sink learns it, from the version byte */
	size_t len = size >= 5 ? gw_load_hdr_len(data[4]) : GW_LOAD_HDR_LEN;
	size_t n = size < len ? size : len;
	struct gw_load_hdr h, hp;
	uint8_t back[GW_LOAD_HDR_MAX];
	int full = parse_copy(data, size, &h), r;

	if (full != 0 && full != -EAGAIN && full != -EPROTO && full != -EPROTONOSUPPORT &&
	    full != -EINVAL)
		abort();
	/* bytes past the header never change the answer */
	if (size > len && parse_copy(data, len, &hp) != full)
		abort();
	if (full == -EAGAIN && size >= len)
		abort();
	/* as the sink sees it arrive: "more" until the answer, and then always the same one */
	for (size_t i = 0; i < n; i++) {
		r = parse_copy(data, i, &hp);
		if (r != -EAGAIN && r != full)
			abort();
	}
	if (full == 0) {
		if ((h.version != GW_LOAD_VERSION && h.version != GW_LOAD_VERSION_1) ||
		    (h.mode != GW_LOAD_MODE_UPLOAD && h.mode != GW_LOAD_MODE_DOWNLOAD) ||
		    h.duration_ms < GW_LOAD_MIN_DURATION_MS || h.duration_ms > GW_LOAD_MAX_DURATION_MS)
			abort();
		if (!gw_load_token_valid(h.token) || (h.version == GW_LOAD_VERSION_1 && h.token[0]))
			abort();
		if (gw_load_hdr_build(back, &h) != len || memcmp(back, data, len))
			abort();
		/* the constant-time comparison says what memcmp says, against itself and a
		 * token one byte off */
		uint8_t other[GW_LOAD_TOKEN_MAX];

		memcpy(other, h.token, sizeof(other));
		if (!gw_load_token_equal(h.token, other))
			abort();
		other[size % GW_LOAD_TOKEN_MAX] ^= 0x01;
		if (gw_load_token_equal(h.token, other))
			abort();
	}
	if (full == -EPROTONOSUPPORT &&
	    (size < 5 || h.version == GW_LOAD_VERSION || h.version == GW_LOAD_VERSION_1))
		abort();
}

static void check_reply(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1), st = 0xff, back[GW_LOAD_REPLY_LEN];
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	r = gw_load_reply_parse(copy, size, &st);
	free(copy);
	if (r == 0) {
		if (size < GW_LOAD_REPLY_LEN || memcmp(data, GW_LOAD_REPLY_MAGIC, 4))
			abort();
		gw_load_reply_build(back, st);
		if (back[5] != data[5])
			abort();
	} else if (r != -EAGAIN && r != -EPROTO) {
		abort();
	} else if (r == -EAGAIN && size >= GW_LOAD_REPLY_LEN) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_header(data, size);
	check_reply(data, size);
	return 0;
}
