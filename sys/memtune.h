/* sys/memtune.h: how the long-running processes ask glibc's malloc to give memory back. */
#ifndef GW_MEMTUNE_H
#define GW_MEMTUNE_H

#include <stdbool.h>

/* Allocations of this size or more get a mapping of their own, returned at free, and a free
 * heap top of this size or more goes back to the kernel. */
#define GW_MALLOC_BIG (128 * 1024)

/*
 * glibc raises its mmap threshold to the size of the largest mapped block freed (up to
 * 32 MB), so after the first /metrics of 1.35 MB at 1000 classes every rendering lands on
 * the heap and its pages stay; fixed at GW_MALLOC_BIG, the three processes at 1000 idle
 * classes held 23.3 MB of Pss instead of 25.1 (BENCHMARKS.md, section 4). one_arena: one
 * malloc arena for all threads as well (the web process: each HTTP thread's arena would keep
 * what its largest rendering took). What the environment sets (GLIBC_TUNABLES' glibc.malloc.*,
 * MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) wins.
 */
void gw_malloc_tune(bool one_arena);

#endif
