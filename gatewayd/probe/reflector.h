/* gatewayd/probe/reflector.h: `gatewayd --reflect ADDR:PORT`, the UDP reflector for probes
 * (gatewayd/probe/reflector.c; the packet format is docs/probe-protocol.md). */
#ifndef GW_REFLECT_H
#define GW_REFLECT_H

#include <stdint.h>
#include <stdio.h>

struct gw_reflect_stats {
	uint64_t answered;
	uint64_t too_short, too_long, bad_magic, bad_version, not_request;
	uint64_t send_failed;
};

/* Serve on addr ("IP:PORT", "[::]:PORT" also takes IPv4) until SIGTERM or SIGINT; SIGUSR1
 * prints the counters on log. Returns 0, or -errno with the message in err. */
int gw_reflect_run(const char *addr, FILE *log, struct gw_reflect_stats *stats, char *err,
		   size_t errlen);

#endif
