/* tests/fuzz/fuzz_netlink.c: libFuzzer target: a buffer of netlink messages, as a dump or an
 * ack would bring them, through every decoder of kernel replies gatewayd has.
 *
 * Input: 4 bytes, then netlink messages walked with NLMSG_OK/NLMSG_NEXT. The first byte picks
 * the nlmsg_type every message is given (0: keep each message's own), so a mutation of a
 * captured qdisc can also reach the class, filter, link and error decoders.
 *
 * Each message is decoded from a copy that ends where an inaccessible page begins: libnl's
 * nla_parse and nla_get_* are not instrumented, so ASan would not see them read past a short
 * attribute, but the page fault is seen. The copy's 4-byte alignment padding and everything
 * before it are poisoned for the code that is instrumented (ours). And libnl's unchecked
 * fixed-size getters are replaced (below): a u8/u16/u32 read from a shorter attribute reads
 * the next attribute's bytes, or past the message, so it stops the run wherever it is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sanitizer/asan_interface.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "qdisc/link.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"
#include "qdisc/stats.h"

#define NETLINK_FUZZ_MAX 65536

/* NLMSG_OK compares the u32 nlmsg_len with an int length, as the daemon's own loops do; the
 * int is what makes the walk stop on a short tail, so keep it and hush clang */
#pragma clang diagnostic ignored "-Wsign-compare"
#define PREFIX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t types[] = { 0, RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER, RTM_NEWLINK,
				  NLMSG_ERROR };

/*
 * libnl's nla_get_u8/u16/u32 read their size whatever nla_len says (nla_get_u64 checks, and
 * reads 0 from a short one). These definitions take the place of libnl's for every caller in
 * this program, and refuse a read that the attribute does not hold.
 */
static void short_attr(const struct nlattr *nla, size_t want)
{
	fprintf(stderr, "fuzz_netlink: a %zu-byte read from attribute type %d holding %d bytes\n",
		want, nla_type(nla), nla_len(nla));
	abort();
}

#define CHECKED_GET(name, type)						\
	type name(const struct nlattr *nla)				\
	{								\
		type v;							\
									\
		if (nla_len(nla) < (int)sizeof(v))			\
			short_attr(nla, sizeof(v));			\
		memcpy(&v, nla_data(nla), sizeof(v));			\
		return v;						\
	}
CHECKED_GET(nla_get_u8, uint8_t)
CHECKED_GET(nla_get_u16, uint16_t)
CHECKED_GET(nla_get_u32, uint32_t)

/* A region of NETLINK_FUZZ_MAX bytes followed by a PROT_NONE page. */
struct guarded {
	char *base;		/* the usable bytes; base + NETLINK_FUZZ_MAX is the guard page */
};

static void guarded_init(struct guarded *g)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = NETLINK_FUZZ_MAX;
	char *m = mmap(NULL, len + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || len % pg || mprotect(m + len, pg, PROT_NONE))
		abort();
	g->base = m;
}

/* h copied so that its last (aligned) byte is the last one before the guard page */
static struct nlmsghdr *guarded_copy(struct guarded *g, const struct nlmsghdr *h)
{
	size_t len = h->nlmsg_len, span = NLMSG_ALIGN(len);
	char *p = g->base + NETLINK_FUZZ_MAX - span;

	ASAN_UNPOISON_MEMORY_REGION(g->base, NETLINK_FUZZ_MAX);
	memcpy(p, h, len);
	ASAN_POISON_MEMORY_REGION(g->base, (size_t)(p - g->base));
	ASAN_POISON_MEMORY_REGION(p + len, span - len);
	return (struct nlmsghdr *)p;
}

static struct guarded msg_copy, req_copy;

static void decode(const struct nlmsghdr *h, uint16_t type)
{
	struct gw_tc_obj obj, again;
	struct gw_tc_stats st;
	struct gw_link_info li;
	struct nlmsghdr *m, *req;
	char kind[32], msg[GW_EXTACK_MAX], why[160];

	m = guarded_copy(&msg_copy, h);
	if (type)
		m->nlmsg_type = type;
	if (gw_obj_parse(m, &obj, kind, sizeof(kind)) == 0) {
		/* what reconciling does with an object read back: compare it with a plan */
		gw_obj_matches(&obj, &obj, why, sizeof(why));
		if (!memchr(kind, '\0', sizeof(kind)))
			abort();
	}
	if (gw_stats_parse(m, &st) == 0 && (st.x.n_groups < 0 ||
					     st.x.n_groups > GW_XGROUPS_MAX))
		abort();
	if (gw_link_parse(m, &li) == 0 && !memchr(li.kind, '\0', sizeof(li.kind)))
		abort();
	gw_nl_parse_error(m, m->nlmsg_len, msg, sizeof(msg));
	if (!memchr(msg, '\0', sizeof(msg)))
		abort();
	/* re-creating an object from its dump rewrites it in place, then it goes back out */
	req = guarded_copy(&req_copy, m);
	if (gw_obj_dump_to_request(req) == 0)
		gw_obj_parse(req, &again, NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *h;
	uint16_t type;
	void *buf;
	int len;

	if (size < PREFIX || size > NETLINK_FUZZ_MAX)
		return 0;
	if (!msg_copy.base) {
		guarded_init(&msg_copy);
		guarded_init(&req_copy);
	}
	type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
	len = (int)(size - PREFIX);
	/* aligned, as the receive buffer is */
	if (!(buf = malloc(len ? (size_t)len : 1)))
		return 0;
	memcpy(buf, data + PREFIX, (size_t)len);
	for (h = buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
		decode(h, type);
	free(buf);
	return 0;
}
