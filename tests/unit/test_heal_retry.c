/* tests/unit/test_heal_retry.c: when a heal that failed is tried again: the wait doubles while
 * the cause stays the same, up to the maximum; a new cause starts over and is said once; a
 * success clears it all. */
#include <errno.h>
#include "gatewayd/heal.h"
#include "tests/unit/tap.h"

int main(void)
{
	struct gw_heal_retry h = { .broken = false };
	const char *foreign = "link 'wan': v0 already has a root qdisc pfifo";
	double t = 100, waits[8];
	int said = 0;

	CHECK(!gw_heal_retry_due(&h, t), "nothing failed: no retry due");
	for (int i = 0; i < 8; i++) {
		said += gw_heal_retry_note(&h, -EEXIST, foreign, t);
		waits[i] = h.next - t;
		CHECK(!gw_heal_retry_due(&h, t + waits[i] - 0.01) && gw_heal_retry_due(&h, t + waits[i]),
		      "try %d: due after %.0f s, not before", i + 1, waits[i]);
		t += waits[i];
	}
	CHECK(waits[0] == GW_HEAL_RETRY_MIN_S && waits[1] == 2 * GW_HEAL_RETRY_MIN_S &&
	      waits[2] == 4 * GW_HEAL_RETRY_MIN_S, "the wait doubles: %.0f, %.0f, %.0f s", waits[0],
	      waits[1], waits[2]);
	CHECK(waits[6] == GW_HEAL_RETRY_MAX_S && waits[7] == GW_HEAL_RETRY_MAX_S,
	      "... up to %.0f s and no further (%.0f, %.0f)", GW_HEAL_RETRY_MAX_S, waits[6], waits[7]);
	CHECK_EQ_INT(said, 1, "the same cause eight times is said once");
	CHECK(gw_heal_retry_note(&h, -ENODEV, "link 'wan': interface v0: no such interface", t) &&
	      h.next - t == GW_HEAL_RETRY_MIN_S, "a new cause is said, and starts from the shortest wait");
	CHECK(!gw_heal_retry_note(&h, 1, "restored", t) && !h.broken && !gw_heal_retry_due(&h, t + 1e6),
	      "a success clears it: no retry due");
	CHECK(gw_heal_retry_note(&h, -EEXIST, foreign, t), "the old cause coming back after a success is said again");
	return tap_done();
}
