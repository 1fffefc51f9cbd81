/* gatewayd/probe/reflector.h: `gatewayd --reflect ADDR:PORT`, the UDP reflector for probes
 * (gatewayd/probe/reflector.c; the packet format is docs/probe-protocol.md). */
#ifndef GW_REFLECT_H
#define GW_REFLECT_H

#include <stdint.h>
#include <stdio.h>

/* Probes a second answered from one source address: twice what the prober sends one target at
 * its fastest (a 10 ms interval), so no prober's stream meets it, while a flood that carries
 * someone else's address as its source is answered at this rate, not at its own. */
#define GW_REFLECT_RATE_DEFAULT 200
#define GW_REFLECT_RATE_MAX 1000000

struct gw_reflect_stats {
	uint64_t answered;
	uint64_t too_short, too_long, bad_magic, bad_version, not_request;
	uint64_t send_failed;
	uint64_t rate_limited;		/* valid probes not answered: over their source's rate */
	uint64_t shared;		/* of the answered and limited: from sources the table
					 * had no room for, under one shared bucket */
};

/* Serve on addr ("IP:PORT", "[::]:PORT" also takes IPv4) until SIGTERM or SIGINT, answering
 * at most rate probes a second from one source (0: GW_REFLECT_RATE_DEFAULT; a burst of one
 * second's worth); SIGUSR1 prints the counters on log. Returns 0, or -errno with err. */
int gw_reflect_run(const char *addr, double rate, FILE *log, struct gw_reflect_stats *stats,
		   char *err, size_t errlen);

#endif
