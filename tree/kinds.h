/* tree/kinds.h: does the running kernel have every qdisc kind the config asks for? */
#ifndef GW_KINDS_H
#define GW_KINDS_H

#include <stddef.h>
#include "config/config.h"

/* Returns 0 when every kind is there (or the probe could not run: then *probed = false);
 * -ENOENT with "FILE:LINE: ..." in err naming the first missing kind and how to load it. */
int gw_kinds_check(const struct gw_config *cfg, bool *probed, char *err, size_t errlen);

#endif
