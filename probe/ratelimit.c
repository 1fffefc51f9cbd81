/* probe/ratelimit.c: token buckets per source address in a bounded, keyed table. */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "probe/ratelimit.h"

#define WINDOW 8	/* slots a key may live in, from its hash on */

struct bucket {
	double tokens;
	double last;	/* when tokens was last brought up to date */
};

struct slot {
	uint8_t key[16];
	bool used;
	struct bucket b;
};

struct gw_ratelimit {
	double rate, burst;
	uint64_t k0, k1;	/* the hash's key: random, so nobody can aim at one slot */
	size_t mask;
	struct bucket shared;
	struct slot *slots;
};

int gw_ratelimit_new(double rate, double burst, size_t slots, struct gw_ratelimit **out)
{
	struct gw_ratelimit *rl;
	uint64_t k[2] = { 0, 0 };

	if (!slots)
		slots = GW_RATELIMIT_SLOTS;
	if (!(rate > 0) || !(burst >= 1) || slots < WINDOW || (slots & (slots - 1)))
		return -EINVAL;
	if (!(rl = calloc(1, sizeof(*rl))))
		return -ENOMEM;
	if (!(rl->slots = calloc(slots, sizeof(*rl->slots)))) {
		free(rl);
		return -ENOMEM;
	}
	/* without entropy the table still works; only its spread is guessable */
	if (getrandom(k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		k[0] = (uint64_t)(uintptr_t)rl ^ 0x9e3779b97f4a7c15ULL;
		k[1] = (uint64_t)(uintptr_t)rl->slots;
	}
	rl->k0 = k[0];
	rl->k1 = k[1];
	rl->rate = rate;
	rl->burst = burst;
	rl->mask = slots - 1;
	rl->shared.tokens = burst;
	rl->shared.last = -1;
	*out = rl;
	return 0;
}

void gw_ratelimit_free(struct gw_ratelimit *rl)
{
	if (!rl)
		return;
	free(rl->slots);
	free(rl);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static size_t hash(const struct gw_ratelimit *rl, const uint8_t key[16])
{
	uint64_t a, b;

	memcpy(&a, key, 8);
	memcpy(&b, key + 8, 8);
	return (size_t)mix(mix(a ^ rl->k0) ^ b ^ rl->k1);
}

/* The bucket's tokens at now, without taking one. */
static double level(const struct gw_ratelimit *rl, const struct bucket *b, double now)
{
	double t = b->tokens + (now > b->last ? now - b->last : 0) * rl->rate;

	return t < rl->burst ? t : rl->burst;
}

static bool take(const struct gw_ratelimit *rl, struct bucket *b, double now)
{
	if (b->last < 0)
		b->last = now;
	b->tokens = level(rl, b, now);
	b->last = now > b->last ? now : b->last;
	if (b->tokens < 1)
		return false;
	b->tokens -= 1;
	return true;
}

bool gw_ratelimit_take(struct gw_ratelimit *rl, const uint8_t key[16], double now, bool *shared)
{
	size_t h = hash(rl, key);
	struct slot *free_slot = NULL;

	*shared = false;
	for (size_t i = 0; i < WINDOW; i++) {
		struct slot *s = &rl->slots[(h + i) & rl->mask];

		if (s->used && !memcmp(s->key, key, 16))
			return take(rl, &s->b, now);
		/* a full bucket holds nothing worth keeping: it is as a new source's */
		if (!free_slot && (!s->used || level(rl, &s->b, now) >= rl->burst))
			free_slot = s;
	}
	if (!free_slot) {
		*shared = true;
		return take(rl, &rl->shared, now);
	}
	memcpy(free_slot->key, key, 16);
	free_slot->used = true;
	free_slot->b = (struct bucket){ .tokens = rl->burst, .last = now };
	return take(rl, &free_slot->b, now);
}

bool gw_ratelimit_key(const struct sockaddr_storage *ss, uint8_t key[16])
{
	memset(key, 0, 16);
	if (ss->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		/* IPv4-mapped: the whole address, an IPv4 source's key; else the /64 */
		memcpy(key, a, IN6_IS_ADDR_V4MAPPED(a) ? 16 : 8);
		return true;
	}
	return false;
}

void gw_bucket_init(struct gw_bucket *b, double rate, double burst)
{
	b->rate = rate;
	b->burst = burst < 1 ? 1 : burst;
	b->tokens = b->burst;
	b->last = -1;
}

bool gw_bucket_take(struct gw_bucket *b, double now)
{
	if (b->last < 0)
		b->last = now;
	if (now > b->last) {
		b->tokens += (now - b->last) * b->rate;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
		b->last = now;
	}
	if (b->tokens < 1)
		return false;
	b->tokens -= 1;
	return true;
}
