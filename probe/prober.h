/* probe/prober.h: the latency prober: ICMP echo, ICMP timestamp or UDP probes to several
 * targets, kernel timestamps on both ends, one-way delays where the target gives them, sequence
 * numbers for loss, duplicates and reordering, and target health. It only measures; judging
 * samples against the link's load is latency.c's job. */
#ifndef GW_PROBE_H
#define GW_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config/config.h"

/* One probe's outcome, reported once: when its reply arrives, or when it times out. */
struct gw_probe_sample {
	int target;		/* index into the config's targets */
	uint32_t seq;		/* per target, from 0 */
	double sent_mono;	/* CLOCK_MONOTONIC seconds the probe left (kernel stamp if any) */
	double sent_wall;	/* the same instant as unix time */
	bool lost;		/* no reply within the timeout (a later reply stays a loss) */
	bool reordered;		/* its reply arrived after the reply of a later probe */
	bool target_up;		/* the target counted as up when this was judged: a down
				 * target's losses are not the link's */
	double rtt_ms;		/* receive - send - reflector processing; NAN when lost */
	double owd_up_ms, owd_down_ms;	/* one-way delays; NAN when the target gives none */
};

/* A target's health, for the status page: down after it stops answering, up when it answers
 * again; a down target's losses are not the link's. */
struct gw_probe_target_state {
	bool up;
	uint64_t sent, received, lost, duplicates, reordered;
	uint64_t late;		/* replies after their timeout (their probes count as lost) */
	uint64_t invalid;	/* datagrams that were not a reply to one of our probes */
	uint64_t send_errors;	/* send() refused (the probe then counts as lost) */
	uint64_t tx_stamps, rx_stamps;	/* replies timed by the kernel's send / receive stamp */
	double last_rtt_ms;	/* NAN before the first reply */
	double last_reply_wall;	/* unix time of the last reply; 0 before the first */
	/* the last reply's one-way delays (docs/probe-protocol.md: against a clock offset);
	 * NAN before the first, and for a target or method that gives none */
	double last_owd_up_ms, last_owd_down_ms;
};

typedef void (*gw_probe_cb)(void *ctx, const struct gw_probe_sample *s);

struct gw_prober;

/* Open the sockets (bound to ifname when not NULL, marked with the config's fwmark) and start
 * probing now. cb is called from gw_prober_run only. Returns 0 or -errno, with a message. */
int gw_prober_new(const struct gw_probe_cfg *cfg, const char *ifname, gw_probe_cb cb, void *ctx,
		  struct gw_prober **out, char *err, size_t errlen);
void gw_prober_free(struct gw_prober *p);
/* One fd (an epoll of its own sockets and timer) for the daemon's loop to watch for input. */
int gw_prober_fd(const struct gw_prober *p);
/* Do whatever is due: read replies, send probes, expire timeouts. Never blocks. */
int gw_prober_run(struct gw_prober *p);
/* Health of the first max targets; returns how many there are. */
size_t gw_prober_targets(const struct gw_prober *p, struct gw_probe_target_state *out, size_t max);
/* Send only count probes per target (0: no limit), e.g. for `gatewayd --probe COUNT`. */
void gw_prober_limit(struct gw_prober *p, uint64_t count);
/* With a limit: every probe sent and judged, every sample reported. */
bool gw_prober_done(const struct gw_prober *p);
/* ICMP through raw sockets (CAP_NET_RAW) rather than unprivileged ping sockets. */
bool gw_prober_raw(const struct gw_prober *p);
/* The method as the config names it: "icmp", "udp", "icmp-timestamp". */
const char *gw_prober_method_name(enum gw_probe_method m);

#endif
