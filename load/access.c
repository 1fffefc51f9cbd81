/* load/access.c: who the load-test sink serves: the shared token (its file, its
 * constant-time comparison), the allow-list of prefixes, and the address helpers. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "config/config.h"
#include "load/access.h"
#include "sys/secret.h"

static bool tok_char(uint8_t c)
{
	return c >= 0x21 && c <= 0x7e;
}

int gw_load_token_read(const char *path, uint8_t out[GW_LOAD_TOKEN_MAX], char *err,
		       size_t errlen)
{
	struct gw_secret f;
	size_t got = 0, len = 0, i;
	char *buf = NULL;
	int r;

	memset(out, 0, GW_LOAD_TOKEN_MAX);
	/* a secret file like the auth file: no link, no FIFO, not readable by others */
	if ((r = gw_secret_open(path, "token file", GW_SINK_TOKEN_FILE_MAX, 0, &f, err,
				errlen)))
		return r;
	r = gw_secret_read(&f, GW_SINK_TOKEN_FILE_MAX, &buf, &got);
	gw_secret_close(&f);
	if (r) {
		snprintf(err, errlen, "token file %s: %s", path, r == -EAGAIN ?
			 "changed while it was read" : strerror(-r));
		return r;
	}
	while (len < got && tok_char((uint8_t)buf[len]))
		len++;
	/* after the token: its line's end, then only blank lines */
	for (i = len; i < got; i++)
		if (buf[i] != '\n' && buf[i] != '\r' && buf[i] != ' ' && buf[i] != '\t')
			break;
	if (i < got || len < GW_LOAD_TOKEN_MIN || len > GW_LOAD_TOKEN_MAX) {
		r = -EINVAL;
		snprintf(err, errlen, "token file %s: expected one line of %d to %d printable "
			 "characters without spaces (e.g. from `head -c 24 /dev/urandom | base64`)",
			 path, GW_LOAD_TOKEN_MIN, GW_LOAD_TOKEN_MAX);
	} else {
		memcpy(out, buf, len);
	}
	/* the secret does not stay in our heap */
	explicit_bzero(buf, got);
	free(buf);
	return r;
}

bool gw_load_token_valid(const uint8_t tok[GW_LOAD_TOKEN_MAX])
{
	size_t i = 0;

	while (i < GW_LOAD_TOKEN_MAX && tok_char(tok[i]))
		i++;
	for (; i < GW_LOAD_TOKEN_MAX; i++)
		if (tok[i])
			return false;
	return true;
}

bool gw_load_token_equal(const uint8_t a[GW_LOAD_TOKEN_MAX], const uint8_t b[GW_LOAD_TOKEN_MAX])
{
	volatile uint8_t diff = 0;

	/* every byte, whatever the first difference: the time says nothing of the token */
	for (size_t i = 0; i < GW_LOAD_TOKEN_MAX; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

int gw_sink_allow_parse(const char *list, struct gw_prefix *out, size_t *n, char *err,
			size_t errlen)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[64];
		int r;

		if (len == 0 || len >= sizeof(item)) {
			snprintf(err, errlen, "--allow \"%.80s\": an empty or overlong item", list);
			return -EINVAL;
		}
		if (*n >= GW_SINK_ALLOW_MAX) {
			snprintf(err, errlen, "--allow: at most %d prefixes", GW_SINK_ALLOW_MAX);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		r = gw_parse_prefix(item, &out[*n]);
		if (r) {
			snprintf(err, errlen, "--allow: \"%s\" is not %s", item, r == -ERANGE ?
				 "a prefix (host bits set past its length)" :
				 "an address or prefix (e.g. 10.0.0.0/8, fd00::/8)");
			return -EINVAL;
		}
		(*n)++;
		p += len;
		if (*p == ',' && !*++p) {
			snprintf(err, errlen, "--allow \"%.80s\": a trailing comma", list);
			return -EINVAL;
		}
	}
	if (*n == 0) {
		snprintf(err, errlen, "--allow: expected a list of prefixes, e.g. 10.0.0.0/8");
		return -EINVAL;
	}
	return 0;
}

int gw_sockaddr_prefix(const struct sockaddr_storage *ss, struct gw_prefix *out)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(out, 0, sizeof(*out));
	if (ss->ss_family == AF_INET) {
		memcpy(out->addr, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		out->family = AF_INET;
		out->len = 32;
		return 0;
	}
	if (ss->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	const uint8_t *a = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;

	if (!memcmp(a, mapped, sizeof(mapped))) {
		memcpy(out->addr, a + 12, 4);
		out->family = AF_INET;
		out->len = 32;
	} else {
		memcpy(out->addr, a, 16);
		out->family = AF_INET6;
		out->len = 128;
	}
	return 0;
}

static bool prefix_has(const struct gw_prefix *p, const struct gw_prefix *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (p->family != a->family || memcmp(p->addr, a->addr, full))
		return false;
	return !rest || !((p->addr[full] ^ a->addr[full]) & (0xff00 >> rest));
}

bool gw_prefix_list_has(const struct gw_prefix *list, size_t n, const struct gw_prefix *addr)
{
	for (size_t i = 0; i < n; i++)
		if (prefix_has(&list[i], addr))
			return true;
	return false;
}

bool gw_sockaddr_is_loopback(const struct sockaddr_storage *ss)
{
	struct gw_prefix a;

	if (gw_sockaddr_prefix(ss, &a))
		return false;
	if (a.family == AF_INET)
		return a.addr[0] == 127;
	return !memcmp(a.addr, &in6addr_loopback, 16);
}
