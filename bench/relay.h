/* bench/relay.h: the bench's status page, relayed from a User-Mode Linux guest's
 * own network (gatewayd-uml --net) to the gateway namespace, where the daemon serves it. */
#ifndef GW_BENCH_RELAY_H
#define GW_BENCH_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct bench_bed;

/* A child that accepts on addr:port in the namespace home_fd and connects each client to
 * 127.0.0.1:port in the namespace gw_fd. Its pid once it listens, or -errno with why in err.
 * The child dies with us (PDEATHSIG). */
pid_t bench_relay_start(int home_fd, int gw_fd, const char *addr, unsigned port, char *err,
			size_t errlen);
/* Stop it and reap it (pid <= 0: nothing to do). */
void bench_relay_stop(pid_t pid);
/* Print where the status page of the bench's daemon can be read while it runs: in a guest
 * started with gatewayd-uml --net (GWUML_NET_ADDR), from the host through a relay started
 * here, else inside the gateway namespace. The relay's pid (for bench_relay_stop), or 0. */
pid_t bench_relay_page(const struct bench_bed *b, bool in_uml);

#endif
