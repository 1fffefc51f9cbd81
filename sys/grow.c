/* sys/grow.c: arrays that grow as they fill, by doubling. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sys/grow.h"

int gw_grow(void *arrp, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;
	void *old, *p;

	if (n < *cap)
		return 0;
	if (c < *cap || c > SIZE_MAX / size)
		return -ENOMEM;
	/* the caller's pointer is a T *, not a void *: copied, not accessed as one */
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, c * size);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = c;
	return 0;
}
