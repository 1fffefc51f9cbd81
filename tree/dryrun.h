/* tree/dryrun.h: the plan as the tc/ip commands that build the same tree. */
#ifndef GW_DRYRUN_H
#define GW_DRYRUN_H

#include <stdio.h>
#include "config/config.h"
#include "qdisc/nl.h"

/* nl may be NULL (no kernel access): interfaces are then assumed ethernet with MTU 1500. */
int gw_dryrun(FILE *out, struct gw_nl *nl, const struct gw_config *cfg, char *err,
	      size_t errlen);

#endif
