/* sys/ratelog.c: one log line per interval for events a peer can repeat at will. */
#include "sys/ratelog.h"

bool gw_ratelog_ok(struct gw_ratelog *rl, double now, double every, uint64_t *held)
{
	if (now < rl->next) {
		rl->held++;
		return false;
	}
	*held = rl->held;
	rl->held = 0;
	rl->next = now + every;
	return true;
}
