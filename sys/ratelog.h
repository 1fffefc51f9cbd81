/* sys/ratelog.h: at most one log line per interval for an event a peer can repeat at
 * will (a refused client, a dropped probe), the lines held back counted into the next one. */
#ifndef GW_RATELOG_H
#define GW_RATELOG_H

#include <stdbool.h>
#include <stdint.h>

#define GW_RATELOG_EVERY_S 10.0

struct gw_ratelog {
	double next;		/* CLOCK_MONOTONIC: no line before this */
	uint64_t held;		/* events since the last line, not logged */
};

/* One more event at now: true if its line may go out (then *held says how many were held
 * back since the last one, and the count starts again), false if it is held back. */
bool gw_ratelog_ok(struct gw_ratelog *rl, double now, double every, uint64_t *held);

#endif
