/* tests/fuzz/fuzz_peer.c: libFuzzer target: the kernel's answers to container tracking's
 * questions (qdisc/peer.c): which interface this is and where its veth peer lives
 * (gw_plink_parse of a link notification, gw_plink_get, gw_plink_dump), which namespace id a
 * namespace file has (gw_netns_id), and which addresses the peer has in its namespace
 * (gw_peer_addrs); then what gatewayd/ctr_followed.c decides from them
 * (gw_ctr_followed_excluded, the entries' name patterns, gw_ctr_followed_prefix_has on each
 * address).
 *
 * Input: 4 bytes, then netlink messages: the kernel's reply to every request made (the kernel
 * seam, gw_nl_open_ops, hands them over as the socket would). Byte 0 picks the type every
 * message is given (0: keep each one's own; RTM_NEWLINK, RTM_DELLINK, RTM_NEWNSID,
 * RTM_NEWADDR), byte 1 the namespace id asked for (0xff: ours, -1).
 *
 * One-message requests see each reply in a copy that ends at an inaccessible page
 * (tests/fuzz/nlguard.h); dumps go through nl.c's dump_whole, which keeps its own copy (heap:
 * ASan sees our reads past it, not libnl's). Checked: names, kinds and aliases NUL-terminated
 * within their arrays; an interface parsed has an index above 0; a namespace id found is >= 0
 * and otherwise -ENOENT or the parse's error; every address handed on is AF_INET or AF_INET6
 * (its 4 or 16 bytes read where ASan or the guard page sees them). */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>
#include "config/config.h"
#include "gatewayd/ctr_followed.h"
#include "qdisc/nl.h"
#include "qdisc/peer.h"
#include "tests/fuzz/nlguard.h"

#define PREFIX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t types[] = { 0, RTM_NEWLINK, RTM_DELLINK, RTM_NEWNSID, RTM_NEWADDR };

/* entries with every criterion, and a configured link whose devices are never containers */
static const char config_text[] =
	"links = ( { name = \"wan\"; interface = \"v0\"; egress = { shaper = \"tbf\";\n"
	"  rate = \"10mbit\"; }; ingress = { ifb = \"ifb0\"; shaper = \"tbf\"; rate = \"10mbit\"; }; } );\n"
	"containers = (\n"
	"  { interfaces = \"veth*\"; netns = \"web-*\"; address = \"10.0.0.0/24\";\n"
	"    egress = { rate = \"10mbit\"; }; },\n"
	"  { interfaces = [ \"v?\", \"tap*\" ]; address = \"fd00:1::/64\";\n"
	"    ingress = { rate = \"1mbit\"; }; },\n"
	"  { interfaces = \"*\"; egress = { rate = \"1mbit\"; }; } );\n";

static struct guarded msg_copy;
static struct gw_config *cfg;

struct feed {
	const uint8_t *buf;
	int len;
	uint16_t type;
};

static int feed_request(void *priv, struct nl_msg *msg, gw_nl_cb cb, void *arg,
			struct gw_nl_error *e)
{
	struct feed *f = priv;
	int len = f->len, r = 0;

	(void)msg;
	(void)e;
	for (const struct nlmsghdr *h = (const void *)f->buf; !r && NLMSG_OK(h, len);
	     h = NLMSG_NEXT(h, len)) {
		struct nlmsghdr *m = guarded_copy(&msg_copy, h);

		if (f->type)
			m->nlmsg_type = f->type;
		if (cb)
			r = cb(m, arg);
	}
	return r;
}

static int feed_batch(void *priv, struct nl_msg *const *msgs, size_t n, bool stop,
		      struct gw_nl_error *e)
{
	(void)priv;
	(void)msgs;
	(void)n;
	(void)stop;
	(void)e;
	return -EOPNOTSUPP;	/* container tracking's look-ups change nothing */
}

static const struct gw_nl_ops feed_ops = { .batch = feed_batch, .request = feed_request };

static void check_plink(const struct gw_plink *l)
{
	if (l->ifindex <= 0 || !memchr(l->name, '\0', sizeof(l->name)) ||
	    !memchr(l->kind, '\0', sizeof(l->kind)) || !memchr(l->alias, '\0', sizeof(l->alias)))
		abort();
	/* what match() in ctr_followed.c asks of it */
	gw_ctr_followed_excluded(cfg, l);
	for (size_t r = 0; r < cfg->n_containers; r++)
		gw_ctr_followed_name_matches(&cfg->containers[r], l->name);
}

static int dump_cb(const struct gw_plink *l, void *arg)
{
	(*(size_t *)arg)++;
	check_plink(l);
	return 0;
}

static int addr_cb(int family, const void *addr, void *arg)
{
	if (family != AF_INET && family != AF_INET6)
		abort();
	for (size_t r = 0; r < cfg->n_containers; r++)
		gw_ctr_followed_prefix_has(&cfg->containers[r], family, addr);
	(*(size_t *)arg)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f;
	struct gw_nl *nl;
	struct gw_plink l;
	struct gw_nl_error e;
	size_t n = 0, left;
	uint8_t *buf;
	int id = -7, r, nsid;

	if (size < PREFIX || size > NLGUARD_MAX)
		return 0;
	if (!msg_copy.base) {
		char err[512];

		guarded_init(&msg_copy);
		if (gw_config_load_string("fuzz.conf", config_text, &cfg, err, sizeof(err))) {
			fprintf(stderr, "fuzz_peer: %s\n", err);
			abort();
		}
	}
	left = size - PREFIX;
	if (!(buf = malloc(left ? left : 1)))
		return 0;
	memcpy(buf, data + PREFIX, left);
	f = (struct feed){ .buf = buf, .len = (int)left,
			   .type = types[data[0] % (sizeof(types) / sizeof(types[0]))] };
	nsid = data[1] == 0xff ? -1 : data[1];
	if (gw_nl_open_ops(&feed_ops, &f, &nl))
		abort();

	/* a link notification, as on_link_msg reads each */
	{
		int len = f.len;

		for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			struct nlmsghdr *m = guarded_copy(&msg_copy, h);

			if (f.type)
				m->nlmsg_type = f.type;
			if (gw_plink_parse(m, &l) == 0)
				check_plink(&l);
		}
	}
	/* one interface by index, and every interface */
	if (gw_plink_get(nl, 7, &l, &e) == 0)
		check_plink(&l);
	gw_plink_dump(nl, dump_cb, &n);
	/* the namespace id of a namespace file */
	r = gw_netns_id(nl, 3, &id);
	if ((r == 0 && id < 0) || (r != 0 && id != -7) || r > 0)
		abort();
	/* the peer's addresses, in its namespace */
	n = 0;
	gw_peer_addrs(nl, nsid, 7, addr_cb, &n);
	gw_nl_close(nl);
	free(buf);
	return 0;
}
