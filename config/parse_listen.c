/* config/parse_listen.c: "IP:PORT" listen addresses into socket addresses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "config/config.h"

static int parse_port(const char *s, uint16_t *port)
{
	unsigned int v = 0;
	size_t n = strlen(s);

	if (n < 1 || n > 5 || strspn(s, "0123456789") != n)
		return -EINVAL;
	for (; *s; s++)
		v = v * 10 + (unsigned int)(*s - '0');
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* Split "a.b.c.d:p" or "[v6]:p"; an IPv6 address without brackets is refused, not guessed. */
static int split_host_port(const char *s, char *host, size_t hostlen, const char **port,
			   int *family)
{
	const char *end;
	size_t n;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return -EINVAL;
		s++;
		*family = AF_INET6;
	} else {
		end = strrchr(s, ':');
		if (!end || memchr(s, ':', (size_t)(end - s)))
			return -EINVAL;
		*family = AF_INET;
	}
	n = (size_t)(end - s);
	if (n < 1 || n >= hostlen)
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	*port = end + (*family == AF_INET6 ? 2 : 1);
	return 0;
}

int gw_parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *addrlen)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	const char *port_str;
	uint16_t port;
	int family, ret;

	if (!s)
		return -EINVAL;
	ret = split_host_port(s, host, sizeof(host), &port_str, &family);
	if (ret || (ret = parse_port(port_str, &port)))
		return ret;
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
	}
	if (addr)
		*addr = ss;
	if (addrlen)
		*addrlen = family == AF_INET ? sizeof(struct sockaddr_in) :
			sizeof(struct sockaddr_in6);
	return 0;
}
