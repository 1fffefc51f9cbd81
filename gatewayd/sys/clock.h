/* gatewayd/sys/clock.h: the two clocks the daemon reads, as seconds in a double. */
#ifndef GW_CLOCK_H
#define GW_CLOCK_H

double gw_mono_now(void);	/* CLOCK_MONOTONIC */
double gw_wall_now(void);	/* CLOCK_REALTIME: unix time */

#endif
