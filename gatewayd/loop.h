/* gatewayd/loop.h: the event loop: signals, and a sampling pass every interval. */
#ifndef GW_LOOP_H
#define GW_LOOP_H

#include "config/config.h"
#include "gatewayd/status.h"
#include "qdisc/nl.h"

/* Run until SIGTERM or SIGINT (0) or a fatal error (-errno). sfd is a signalfd. */
int gw_loop_run(int sfd, const struct gw_config *cfg, struct gw_nl *nl, struct gw_status *st);

double gw_mono_now(void);
double gw_wall_now(void);

#endif
