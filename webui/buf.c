/* webui/buf.c: a growing text buffer for the renderers, with one sticky error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webui/render.h"

static int buf_reserve(struct gw_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->err)
		return b->err;
	if (extra > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	need = b->len + extra + 1;
	if (b->max && need > b->max + 1) {
		b->err = -EFBIG;
		return b->err;
	}
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void gw_buf_put(struct gw_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void gw_buf_printf(struct gw_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (buf_reserve(b, 128))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = -EINVAL;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		/* did not fit: grow to the known size and format again */
		if (buf_reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

int gw_buf_take(struct gw_buf *b, char **out, size_t *len)
{
	int err;

	buf_reserve(b, 0);	/* an empty buffer is still a string */
	err = b->err;
	if (err) {
		free(b->p);
		b->p = NULL;
		b->len = b->cap = 0;
		return err;
	}
	b->p[b->len] = '\0';
	*out = b->p;
	*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return 0;
}
