/* sys/grow.h: arrays that grow as they fill, by doubling. */
#ifndef GW_GROW_H
#define GW_GROW_H

#include <stddef.h>

/*
 * Room for one more element in the array at *arrp (a pointer to the array's pointer, of any
 * element type), which holds n elements of size bytes in *cap allocated: nothing when there
 * is room, else it doubles (to first when empty). 0, or -ENOMEM with the array and *cap as
 * they were.
 */
int gw_grow(void *arrp, size_t *cap, size_t n, size_t size, size_t first);

#endif
