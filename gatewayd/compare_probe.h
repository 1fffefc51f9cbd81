/* gatewayd/compare_probe.h: the bench's ICMP probes (see compare_probe.c). */
#ifndef GW_COMPARE_PROBE_H
#define GW_COMPARE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

struct cmp_probe_sample {
	uint32_t seq;
	double sent_mono, sent_wall;
	bool lost;
	double rtt_ms;		/* NAN when lost */
};

typedef void (*cmp_probe_cb)(void *ctx, const struct cmp_probe_sample *s);
struct cmp_probe;

/* Probe dst (an IPv4 literal) every interval_s from the current network namespace. */
int cmp_probe_new(const char *dst, double interval_s, double timeout_s, cmp_probe_cb cb,
		  void *ctx, struct cmp_probe **out);
void cmp_probe_free(struct cmp_probe *p);
int cmp_probe_fd(const struct cmp_probe *p);
/* Whatever is due: replies, the next probe, timeouts. Never blocks. */
int cmp_probe_run(struct cmp_probe *p);

#endif
