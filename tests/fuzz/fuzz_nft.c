/* tests/fuzz/fuzz_nft.c: libFuzzer target: netlink messages as the daemon reads them from the
 * netfilter socket: nf_tables notifications (and rtnetlink ones, which come through the same
 * callback) as self-healing judges them (gw_heal_pending, gatewayd/heal.c), and the replies to
 * an nftables batch as the batch counts its acks (gw_nft_acks, qdisc/nft.c).
 *
 * Input: 4 bytes, then netlink messages walked with NLMSG_OK/NLMSG_NEXT, as the monitor walks a
 * receive buffer. Byte 0: bit 0 gatewayd's nft table is in force, bit 1 the notifications
 * were overflowed (-ENOBUFS after them), bit 2 the config classifies on ingress too; byte 1:
 * how many sequence numbers the batch took (its first: the first message's).
 *
 * Notifications reach the callback each in a copy that ends at an inaccessible page, and the
 * ack walk gets the whole buffer so (tests/fuzz/nlguard.h). Checked: the acks counted are at
 * most the messages, the error kept is 0 or a -errno and its message one NUL-terminated line;
 * a notification verdict is what the same messages give a second time (no hidden state), and
 * classify_stale is only ever set where the config owns the table or filters it names. */
#include <errno.h>
#include <stdbool.h>
#include "config/config.h"
#include "gatewayd/heal.h"
#include "tree/apply.h"
#include "qdisc/monitor.h"
#include "qdisc/nft.h"
#include "tests/fuzz/nlguard.h"

#define PREFIX 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The config a seed's messages name: an uplink on veth "v0" with an ifb, classes matched on
 * both sides (nft rules out, u32 filters on the ifb in). */
static const char config_text[] =
	"links = ( { name = \"wan\"; interface = \"v0\";\n"
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"5mbit\"; prio = 0; match = { dscp = [ \"ef\" ]; };\n"
	"      child = { kind = \"fifo\"; }; },\n"
	"    { name = \"bulk\"; rate = \"15mbit\"; default = true;\n"
	"      child = { kind = \"fifo\"; }; } ); };\n"
	"  ingress = { ifb = \"ifb0\"; shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"5mbit\"; prio = 0; match = { dscp = [ \"ef\" ]; };\n"
	"      child = { kind = \"fifo\"; }; },\n"
	"    { name = \"bulk\"; rate = \"15mbit\"; default = true;\n"
	"      child = { kind = \"fifo\"; }; } ); }; } );\n";
static const char config_egress_only[] =
	"links = ( { name = \"wan\"; interface = \"v0\";\n"
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; classes = (\n"
	"    { name = \"voice\"; rate = \"5mbit\"; prio = 0; match = { dscp = [ \"ef\" ]; };\n"
	"      child = { kind = \"fifo\"; }; },\n"
	"    { name = \"bulk\"; rate = \"15mbit\"; default = true;\n"
	"      child = { kind = \"fifo\"; }; } ); }; } );\n";

static struct guarded msg_copy, buf_copy;
static struct gw_config *cfg_both, *cfg_egress;

struct feed {
	const uint8_t *buf;
	int len;
	bool overflow;
};

/* the monitor's read: every message of the buffer, each from its own guarded copy */
static int feed_read(void *priv, gw_nl_cb cb, void *arg)
{
	struct feed *f = priv;
	int len = f->len;

	for (const struct nlmsghdr *h = (const void *)f->buf; NLMSG_OK(h, len);
	     h = NLMSG_NEXT(h, len))
		if (cb)
			cb(guarded_copy(&msg_copy, h), arg);
	return f->overflow ? -ENOBUFS : 0;
}

static const struct gw_monitor_ops feed_ops = { .read = feed_read };

static void load(const char *text, struct gw_config **out)
{
	char err[512];

	if (gw_config_load_string("fuzz.conf", text, out, err, sizeof(err))) {
		fprintf(stderr, "fuzz_nft: %s\n", err);
		abort();
	}
}

/* Ask twice: the verdict and the classifiers' mark depend on the messages alone. */
static void notifications(struct feed *f, const struct gw_config *cfg, bool table)
{
	/* devices 1 to 8 are ours: a fresh namespace's lo, veths and ifb */
	struct gw_dev devs[8] = { { .ifindex = 0 } };
	struct gw_applied a = { .devs = devs, .n_devs = 8, .nft_table = table };
	struct gw_monitor *m;
	bool first, again, stale;

	for (int i = 0; i < 8; i++)
		devs[i].ifindex = i + 1;
	if (gw_monitor_open_ops(&feed_ops, f, &m))
		abort();
	first = gw_heal_pending(m, NULL, cfg, &a);
	stale = a.classify_stale;
	a.classify_stale = false;
	again = gw_heal_pending(m, NULL, cfg, &a);
	if (first != again || stale != a.classify_stale)
		abort();
	/* a change to the classifiers is a relevant change */
	if (stale && !first)
		abort();
	gw_monitor_close(m);
}

static void acks(const uint8_t *buf, size_t len, unsigned int width)
{
	const struct nlmsghdr *h0 = (const void *)buf;
	uint32_t seq0 = len >= NLMSG_HDRLEN ? h0->nlmsg_seq : 0;
	size_t got = 0, n = 0;
	int first = 0, left = (int)len;
	char msg[GW_EXTACK_MAX];
	const void *copy;

	for (const struct nlmsghdr *h = h0; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
		n++;
	memset(msg, 'x', sizeof(msg));
	msg[0] = '\0';
	copy = len ? guarded_bytes(&buf_copy, buf, len) : buf;
	gw_nft_acks(copy, len, seq0, seq0 + width, &got, &first, msg, sizeof(msg));
	if (got > n || first > 0 || first < -4095 || !memchr(msg, '\0', sizeof(msg)) ||
	    strchr(msg, '\n') || (!first && msg[0]))
		abort();
	/* one more batch's buffer: the first error stays the first */
	if (first) {
		int kept = first;

		gw_nft_acks(copy, len, seq0, seq0 + width, &got, &first, NULL, 0);
		if (first != kept)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f;
	uint8_t *buf;
	size_t len;

	if (size < PREFIX || size > NLGUARD_MAX)
		return 0;
	if (!msg_copy.base) {
		guarded_init(&msg_copy);
		guarded_init(&buf_copy);
		load(config_text, &cfg_both);
		load(config_egress_only, &cfg_egress);
	}
	len = size - PREFIX;
	/* aligned, as a receive buffer is */
	if (!(buf = malloc(len ? len : 1)))
		return 0;
	memcpy(buf, data + PREFIX, len);
	f = (struct feed){ .buf = buf, .len = (int)len, .overflow = data[0] & 2 };
	notifications(&f, data[0] & 4 ? cfg_both : cfg_egress, data[0] & 1);
	acks(buf, len, 1u + data[1]);
	free(buf);
	return 0;
}
