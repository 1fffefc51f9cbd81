/* load/access.h: who the load-test sink serves: a shared token (read from a file,
 * compared in constant time), an allow-list of prefixes, and the address helpers both need
 * (docs/load-protocol.md, "Who the sink serves"). */
#ifndef GW_LOAD_ACCESS_H
#define GW_LOAD_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "qdisc/model.h"

#define GW_LOAD_TOKEN_MIN 16		/* characters: shorter ones are guessable */
#define GW_LOAD_TOKEN_MAX 64		/* the header's token field */
#define GW_SINK_ALLOW_MAX 16		/* prefixes in --allow */
#define GW_SINK_TOKEN_FILE_MAX 4096	/* a token file longer than this is not one */

/*
 * The token in path: its first line, without the line end, 16 to 64 printable ASCII
 * characters (0x21..0x7e), nothing but blank lines after it. out is zero-padded to
 * GW_LOAD_TOKEN_MAX. Returns 0 or -errno with err ("token file F: why").
 */
int gw_load_token_read(const char *path, uint8_t out[GW_LOAD_TOKEN_MAX], char *err,
		       size_t errlen);
/* Whether a token field (printable characters, then zeros to the end) is well formed. */
bool gw_load_token_valid(const uint8_t tok[GW_LOAD_TOKEN_MAX]);
/* The two fields are equal, in a time that does not depend on where they differ. */
bool gw_load_token_equal(const uint8_t a[GW_LOAD_TOKEN_MAX], const uint8_t b[GW_LOAD_TOKEN_MAX]);

/* "10.0.0.0/8,fd00::/8,192.0.2.7": up to GW_SINK_ALLOW_MAX prefixes. 0 or -EINVAL with err. */
int gw_sink_allow_parse(const char *list, struct gw_prefix *out, size_t *n, char *err,
			size_t errlen);
/* The address an IPv4 or IPv6 socket address holds, as a host prefix (IPv4-mapped IPv6, as
 * a dual-stack listener sees IPv4 clients, becomes IPv4). -EAFNOSUPPORT for another family. */
int gw_sockaddr_prefix(const struct sockaddr_storage *ss, struct gw_prefix *out);
/* Whether addr is inside one of the n prefixes. */
bool gw_prefix_list_has(const struct gw_prefix *list, size_t n, const struct gw_prefix *addr);
/* 127.0.0.0/8 or ::1 (also ::ffff:127.x.y.z): a listener there serves this host alone. */
bool gw_sockaddr_is_loopback(const struct sockaddr_storage *ss);

#endif
