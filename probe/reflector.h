/* probe/reflector.h: `gatewayd --reflect ADDR:PORT`, the UDP reflector for probes
 * (probe/reflector.c; the packet format is docs/probe-protocol.md). */
#ifndef GW_REFLECT_H
#define GW_REFLECT_H

#include <stdint.h>
#include <stdio.h>

/* Probes a second answered from one source address: twice what the prober sends one target at
 * its fastest (a 10 ms interval), so no prober's stream meets it, while a flood that carries
 * someone else's address as its source is answered at this rate, not at its own. */
#define GW_REFLECT_RATE_DEFAULT 200
#define GW_REFLECT_RATE_MAX 1000000
/* Answers a second in all, by default this many times the rate per source (10,000 a second at
 * the default: 50 sources at their whole rate, or 100 probers at their fastest), so a flood
 * from many sources, each within its own rate, is still answered at a bounded rate. */
#define GW_REFLECT_TOTAL_FACTOR 50

struct gw_reflect_stats {
	uint64_t answered;
	uint64_t too_short, too_long, bad_magic, bad_version, not_request;
	uint64_t send_failed;
	uint64_t rate_limited;		/* valid probes not answered: over their source's rate */
	uint64_t shared;		/* of the answered and limited: from sources the table
					 * had no room for, under one shared bucket */
	uint64_t total_limited;		/* valid probes within their source's rate, not
					 * answered: over the total */
};

/* Serve on addr ("IP:PORT", "[::]:PORT" also takes IPv4) until SIGTERM or SIGINT, answering
 * at most rate probes a second from one source (an IPv4 address, an IPv6 /64; 0:
 * GW_REFLECT_RATE_DEFAULT), and at most total a second from all (0: GW_REFLECT_TOTAL_FACTOR
 * times the rate), each with a burst of one second's worth; SIGUSR1 prints the counters on
 * log. Returns 0, or -errno with err. */
int gw_reflect_run(const char *addr, double rate, double total, FILE *log,
		   struct gw_reflect_stats *stats, char *err, size_t errlen);

#endif
