/* bench/kernel.h: which kernel runs the bench (kernel.c): this one, or a User-Mode Linux
 * guest; and where the programs it runs are. */
#ifndef GW_BENCH_KERNEL_H
#define GW_BENCH_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/queues.h"

struct bench_opts;

/* What this kernel can build, tried on the loopback of a namespace of a child's (nothing the
 * user has is touched) */
struct bench_kernel_has {
	bool netem, ifb;
	bool queue[BENCH_Q_COUNT];	/* each queue's kind (enum bench_qdisc) */
};

/* 0, or -1 when the tries cannot run (not root?) */
int bench_kernel_probe(struct bench_kernel_has *k);
/* The queues pick i's tree needs (bits by enum bench_qdisc). */
uint32_t bench_pick_needs(const struct bench_opts *o, size_t i);
/* What this kernel lacks of the runs' needs into missing (" netem fq_codel ifb"), and full
 * when nothing; with --kernel host, a queue it cannot build refused: 2 (said on stderr),
 * else 0. */
int bench_kernel_check(const struct bench_opts *o, const struct bench_kernel_has *k, char *missing,
		       size_t len, bool *full);
/* Where the bench runs: -1 here; or in a User-Mode Linux guest that runs this program again
 * (exec'd through the helper: returns only the exit status of a failure). */
int bench_kernel_choose(const struct bench_opts *o, bool full, const char *missing);
/* The daemon the bench starts: beside self (the build tree), else ../../sbin/gatewayd from
 * libexec/gatewayd/, where `make install` puts the bench. */
bool bench_find_gatewayd(const char *self, char *out, size_t len);

#endif
