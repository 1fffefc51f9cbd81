/* webui/health.c: is the sampler alive? One verdict for /healthz, /metrics and /api/status. */
#include <math.h>
#include <stdio.h>
#include "webui/render.h"

bool gw_webui_healthy(const struct gw_snapshot *s, double now, char *why, size_t whylen)
{
	double interval, age;

	if (!s) {
		if (why && whylen)
			snprintf(why, whylen, "no sample yet");
		return false;
	}
	interval = s->interval_us > 0 ? (double)s->interval_us / 1e6 : 1.0;
	age = now - s->unix_time;
	/* written so that a NaN time counts as stale */
	if (!(age <= GW_WEBUI_STALE_INTERVALS * interval)) {
		if (why && whylen)
			snprintf(why, whylen,
				 "last sample %.1f s ago, more than %d intervals of %g s",
				 isfinite(age) ? age : -1.0, GW_WEBUI_STALE_INTERVALS, interval);
		return false;
	}
	if (why && whylen)
		why[0] = '\0';
	return true;
}
