/* sys/memtune.c: glibc malloc's thresholds for the long-running processes. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "sys/memtune.h"

void gw_malloc_tune(bool one_arena)
{
	const char *t = getenv("GLIBC_TUNABLES");

	if (t && strstr(t, "glibc.malloc."))
		return;
	if (one_arena && !getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, 1);
	if (!getenv("MALLOC_MMAP_THRESHOLD_") && !getenv("MALLOC_TRIM_THRESHOLD_")) {
		mallopt(M_MMAP_THRESHOLD, GW_MALLOC_BIG);
		mallopt(M_TRIM_THRESHOLD, GW_MALLOC_BIG);
	}
}
