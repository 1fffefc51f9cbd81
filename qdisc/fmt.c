/* qdisc/fmt.c: bounded string building for tc command lines. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdarg.h>
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
