/* probe/cli.h: `gatewayd -c FILE --probe COUNT` (probe/cli.c). */
#ifndef GW_PROBE_CLI_H
#define GW_PROBE_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "config/config.h"

/* Probe the config's targets count times each (0: until SIGINT/SIGTERM) through the probe
 * link's interface, one line per sample on out, then a summary per target. 0 or -errno. */
int gw_probe_cli(const struct gw_config *cfg, uint64_t count, FILE *out, char *err,
		 size_t errlen);

#endif
