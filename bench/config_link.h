/* bench/config_link.h: `-c CONFIG`: the config's own link benched (config_link.c). */
#ifndef GW_BENCH_CONFIG_LINK_H
#define GW_BENCH_CONFIG_LINK_H

#include <stddef.h>

struct bench_opts;
struct bench_pick;

/* -c CONFIG: o->pick becomes the dumb fifo at the config's link's rates, the link
 * as written, and the link with each of user's queues in every leaf; o's rates become the
 * link's. 0, or -EINVAL with "FILE:LINE: ..." in err. bench_own_free frees the picks' configs. */
int bench_own_setup(struct bench_opts *o, const struct bench_pick *user, size_t n_user, char *err,
		    size_t errlen);
void bench_own_free(struct bench_opts *o);

#endif
