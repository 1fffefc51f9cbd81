/* tests/fuzz/nlguard.h: what every netlink fuzzer needs to see a read past a message that
 * libnl makes (libnl is not instrumented): copies that end where an inaccessible page begins,
 * and libnl's unchecked fixed-size getters replaced by ones that abort on a short attribute.
 * Included once per fuzzer (its definitions take the place of libnl's for the whole program). */
#ifndef GW_FUZZ_NLGUARD_H
#define GW_FUZZ_NLGUARD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sanitizer/asan_interface.h>
#include <linux/netlink.h>
#include <netlink/attr.h>

#define NLGUARD_MAX 65536

/* NLMSG_OK compares the u32 nlmsg_len with an int length, as the daemon's own loops do; the
 * int is what makes the walk stop on a short tail, so keep it and hush clang */
#pragma clang diagnostic ignored "-Wsign-compare"

/*
 * libnl's nla_get_u8/u16/u32 read their size whatever nla_len says (nla_get_u64 checks, and
 * reads 0 from a short one). These definitions take the place of libnl's for every caller in
 * the program, and refuse a read that the attribute does not hold.
 */
static void nlguard_short_attr(const struct nlattr *nla, size_t want)
{
	fprintf(stderr, "fuzz: a %zu-byte read from attribute type %d holding %d bytes\n",
		want, nla_type(nla), nla_len(nla));
	abort();
}

#define NLGUARD_CHECKED_GET(name, type)					\
	type name(const struct nlattr *nla)				\
	{								\
		type v;							\
									\
		if (nla_len(nla) < (int)sizeof(v))			\
			nlguard_short_attr(nla, sizeof(v));		\
		memcpy(&v, nla_data(nla), sizeof(v));			\
		return v;						\
	}
NLGUARD_CHECKED_GET(nla_get_u8, uint8_t)
NLGUARD_CHECKED_GET(nla_get_u16, uint16_t)
NLGUARD_CHECKED_GET(nla_get_u32, uint32_t)
/* nla_get_s32 reads its 4 bytes unchecked as well */
int32_t nla_get_s32(const struct nlattr *nla)
{
	return (int32_t)nla_get_u32(nla);
}

/* A region of NLGUARD_MAX bytes followed by a PROT_NONE page. */
struct guarded {
	char *base;		/* the usable bytes; base + NLGUARD_MAX is the guard page */
};

static void guarded_init(struct guarded *g)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = NLGUARD_MAX;
	char *m = mmap(NULL, len + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || len % pg || mprotect(m + len, pg, PROT_NONE))
		abort();
	g->base = m;
}

/* len bytes copied so that the last (aligned) one is the last before the guard page; the
 * 4-byte alignment padding and everything before the copy are poisoned for the code that is
 * instrumented (ours) */
static void *guarded_bytes(struct guarded *g, const void *src, size_t len)
{
	size_t span = NLMSG_ALIGN(len);
	char *p = g->base + NLGUARD_MAX - span;

	if (span > NLGUARD_MAX)
		abort();
	ASAN_UNPOISON_MEMORY_REGION(g->base, NLGUARD_MAX);
	memcpy(p, src, len);
	ASAN_POISON_MEMORY_REGION(g->base, (size_t)(p - g->base));
	ASAN_POISON_MEMORY_REGION(p + len, span - len);
	return p;
}

/* h copied (its nlmsg_len bytes) the same way */
static struct nlmsghdr *guarded_copy(struct guarded *g, const struct nlmsghdr *h)
{
	return guarded_bytes(g, h, h->nlmsg_len);
}

#endif
