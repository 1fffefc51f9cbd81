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
 * fixed-size getters are replaced: a u8/u16/u32 read from a shorter attribute reads
 * the next attribute's bytes, or past the message, so it stops the run wherever it is
 * (tests/fuzz/nlguard.h, shared with the other netlink targets). */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "qdisc/link.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"
#include "qdisc/stats.h"
#include "tests/fuzz/nlguard.h"

#define NETLINK_FUZZ_MAX NLGUARD_MAX
#define PREFIX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t types[] = { 0, RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER, RTM_NEWLINK,
				  NLMSG_ERROR };

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
