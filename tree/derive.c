/* tree/derive.c: the values gatewayd chooses when the config leaves them out. Each formula
 * is documented in gatewayd.conf(5); keep the two in step. */
#include <net/if_arp.h>
#include "tree/plan.h"

/* One MTU-sized packet as the shaper will charge it. */
static uint64_t mtu_wire(const struct gw_sizing *s, unsigned int mtu)
{
	return gw_wire_size(s, mtu ? mtu : GW_DEFAULT_MTU);
}

/* burst = max(1 ms at the rate, one full-size packet): a shorter bucket cannot pass a full
 * packet, a longer one lets bursts through the bottleneck. */
uint64_t gw_derive_burst(uint64_t rate, const struct gw_sizing *s, unsigned int mtu)
{
	uint64_t ms = rate / 1000, pkt = mtu_wire(s, mtu);

	return ms > pkt ? ms : pkt;
}

/* quantum = max(one packet, min(rate / 100, 60000)): explicit, so the kernel never warns that
 * rate/r2q was out of range, and never below a packet, so every round sends one. */
int64_t gw_derive_quantum(uint64_t rate, const struct gw_sizing *s, unsigned int mtu)
{
	uint64_t q = rate / 100, pkt = mtu_wire(s, mtu);

	if (q > 60000)
		q = 60000;
	return (int64_t)(q > pkt ? q : pkt);
}

/* tbf's queue holds latency's worth of traffic at the rate, plus one bucket. */
int64_t gw_derive_tbf_limit(uint64_t rate, int64_t burst, int64_t latency_us)
{
	if (latency_us == GW_UNSET)
		latency_us = GW_TBF_LATENCY_US;
	return (int64_t)((unsigned __int128)rate * (uint64_t)latency_us / 1000000) + burst;
}

int32_t gw_derive_stab_overhead(const struct gw_sizing *s, unsigned short arptype)
{
	/* skb->len on ethernet-like devices (veth, ifb, eth) already holds the 14-byte header */
	int32_t l2 = (arptype == ARPHRD_ETHER || arptype == 0) ? 14 : 0;

	return s->overhead - l2;
}
