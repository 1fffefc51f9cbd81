/* gatewayd/sys/clock.c: the two clocks the daemon reads, as seconds in a double. */
#include <time.h>
#include "gatewayd/sys/clock.h"

static double now_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double gw_mono_now(void)
{
	return now_of(CLOCK_MONOTONIC);
}

double gw_wall_now(void)
{
	return now_of(CLOCK_REALTIME);
}
