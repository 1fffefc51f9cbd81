/* probe/ratelimit.h: token buckets per source address in a bounded table, for the
 * reflector: a flood with one (spoofed) source is answered at the bucket's rate, not at the
 * rate it arrives, whatever else is sent at the same time; an IPv6 source is its /64 (one
 * host has a /64 to itself); and one bucket for all, the cap on the answers overall. */
#ifndef GW_RATELIMIT_H
#define GW_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define GW_RATELIMIT_SLOTS 4096		/* sources tracked at once (a power of two) */

struct gw_ratelimit;

/* rate: tokens a second per source; burst: the bucket's depth (at least 1). slots: a power
 * of two, 0 for GW_RATELIMIT_SLOTS. Returns 0 or -errno. */
int gw_ratelimit_new(double rate, double burst, size_t slots, struct gw_ratelimit **out);
void gw_ratelimit_free(struct gw_ratelimit *rl);
/*
 * One packet from key (16 bytes: an IPv6 address, IPv4 as ::ffff:a.b.c.d) at now (seconds,
 * monotonic): true if its source's bucket had a token (taken), false if it is over its rate.
 * A source the table has no room for (every slot near its own shares busy, none idle long
 * enough to be forgotten) draws from one bucket shared by all such; *shared says so.
 */
bool gw_ratelimit_take(struct gw_ratelimit *rl, const uint8_t key[16], double now, bool *shared);
/* The key of an AF_INET or AF_INET6 address: an IPv4 address (or IPv4-mapped IPv6) as
 * ::ffff:a.b.c.d, any other IPv6 address as its /64 (the rest zero); false for another
 * family. */
bool gw_ratelimit_key(const struct sockaddr_storage *ss, uint8_t key[16]);

/* One token bucket: rate tokens a second, at most burst (at least 1), full at first. */
struct gw_bucket {
	double rate, burst, tokens, last;
};
void gw_bucket_init(struct gw_bucket *b, double rate, double burst);
/* A token at now (seconds, monotonic): true and taken, or false (empty). */
bool gw_bucket_take(struct gw_bucket *b, double now);

#endif
