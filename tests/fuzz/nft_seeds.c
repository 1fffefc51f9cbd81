/* tests/fuzz/nft_seeds.c: seed inputs for fuzz_nft and fuzz_peer from a real kernel. Not a
 * fuzzer: run by tests/fuzz/make-nft-seeds.sh inside a network namespace it builds.
 *
 *   nft_seeds monitor DIR TAG CMD   run CMD (sh -c) with gatewayd's own notification sockets
 *                                   open (gw_monitor_open: links, tc, nf_tables), then write
 *                                   what they read: DIR/real-TAG-all (every message, one input)
 *                                   and one file per nf_tables message, DIR/real-TAG-NN-TYPE
 *   nft_seeds acks DIR              nftables batches the kernel accepts and refuses, sent as
 *                                   gatewayd sends its own (NLM_F_ACK on every message, extended
 *                                   acks on), and the kernel's replies as they come: DIR/acks-*
 *   nft_seeds links DIR TAG IFNAME NETNS_FILE...
 *                                   container tracking's questions asked of the real kernel
 *                                   through gatewayd's own code (gw_plink_get, gw_plink_dump,
 *                                   gw_netns_id of each file, gw_peer_addrs), and
 *                                   each reply written as fuzz_peer's input: DIR/real-TAG-*
 *
 * Each file is the fuzzers' input: 4 bytes, then netlink messages. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_addr.h>
#include <linux/net_namespace.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/table.h>
#include <netlink/attr.h>
#include "qdisc/monitor.h"
#include "qdisc/nl.h"
#include "qdisc/peer.h"

static int write_file(const char *path, const unsigned char prefix[4], const void *a,
		      size_t alen)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fwrite(prefix, 1, 4, f);
	fwrite(a, 1, alen, f);
	return fclose(f) ? -errno : 0;
}

/* ---- monitor ---- */

struct captured {
	char *buf;
	size_t len, cap;
	const char *dir, *tag;
	int n;
};

static int capture_cb(const struct nlmsghdr *h, void *arg)
{
	struct captured *c = arg;
	size_t need = NLMSG_ALIGN(h->nlmsg_len);
	static const unsigned char one[4] = { 5, 0, 0, 0 };	/* table in force, ingress rules */

	if (c->len + need > c->cap) {
		c->cap = (c->len + need) * 2;
		if (!(c->buf = realloc(c->buf, c->cap)))
			abort();
	}
	memcpy(c->buf + c->len, h, h->nlmsg_len);
	memset(c->buf + c->len + h->nlmsg_len, 0, need - h->nlmsg_len);
	c->len += need;
	if (NFNL_SUBSYS_ID(h->nlmsg_type) == NFNL_SUBSYS_NFTABLES && c->n < 40) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/real-%s-%02d-nft%u", c->dir, c->tag, c->n++,
			 NFNL_MSG_TYPE(h->nlmsg_type));
		write_file(path, one, h, h->nlmsg_len);
	}
	return 0;
}

static int monitor(const char *dir, const char *tag, const char *cmd)
{
	static const unsigned char all[4] = { 5, 0, 0, 0 };
	struct captured c = { .dir = dir, .tag = tag };
	struct gw_monitor *m;
	char path[4096];
	int r;

	if ((r = gw_monitor_open(&m))) {
		fprintf(stderr, "monitor: %s\n", strerror(-r));
		return 1;
	}
	if (system(cmd) != 0)
		fprintf(stderr, "nft_seeds: \"%s\" failed (its notifications are kept)\n", cmd);
	/* everything the command caused is queued by now; read until quiet */
	for (;;) {
		struct pollfd p = { .fd = gw_monitor_fd(m), .events = POLLIN };

		if (poll(&p, 1, 200) <= 0)
			break;
		gw_monitor_read(m, capture_cb, &c);
	}
	gw_monitor_close(m);
	snprintf(path, sizeof(path), "%s/real-%s-all", dir, tag);
	write_file(path, all, c.buf, c.len);
	free(c.buf);
	return 0;
}

/* ---- acks ---- */

static struct nlmsghdr *table_msg(char *at, uint16_t type, uint32_t seq, const char *name)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *h;

	nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	h = nftnl_nlmsg_build_hdr(at, type, NFPROTO_INET, NLM_F_CREATE | NLM_F_ACK, seq);
	nftnl_table_nlmsg_build_payload(h, t);
	nftnl_table_free(t);
	return h;
}

static struct nlmsghdr *chain_msg(char *at, uint32_t seq, const char *table, int hook,
				  const char *type)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *h;

	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, "seed");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, (uint32_t)hook);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, -150);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type);
	h = nftnl_nlmsg_build_hdr(at, NFT_MSG_NEWCHAIN, NFPROTO_INET,
				  NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, seq);
	nftnl_chain_nlmsg_build_payload(h, c);
	nftnl_chain_free(c);
	return h;
}

/* One batch (begin, the messages, end) and every reply it brings. */
static int batch(const char *dir, const char *name, int what)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_NETFILTER);
	char *buf = calloc(1, 65536), *rbuf = calloc(1, 65536), path[4096];
	struct mnl_nlmsg_batch *b;
	uint32_t seq = (uint32_t)time(NULL), seq0;
	size_t rlen = 0;
	int one = 1, n_acks = 0;
	unsigned char prefix[4] = { 1, 0, 0, 0 };

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return 1;
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	b = mnl_nlmsg_batch_start(buf, 65536);
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), seq++);
	mnl_nlmsg_batch_next(b);
	seq0 = seq;
	/* 0: a table and a chain, accepted; 1: a chain on a hook its type does not have; 2: a
	 * chain in a table that is not there; 3: a table deleted that is not there */
	if (what != 2) {
		table_msg(mnl_nlmsg_batch_current(b), NFT_MSG_NEWTABLE, seq++, "gwseed");
		mnl_nlmsg_batch_next(b);
		n_acks++;
	}
	if (what <= 2) {
		chain_msg(mnl_nlmsg_batch_current(b), seq++, what == 2 ? "absent" : "gwseed",
			  what == 1 ? NF_INET_LOCAL_IN : NF_INET_FORWARD, what == 1 ? "route" : "filter");
		mnl_nlmsg_batch_next(b);
		n_acks++;
	}
	if (what == 3) {
		table_msg(mnl_nlmsg_batch_current(b), NFT_MSG_DELTABLE, seq++, "absent");
		mnl_nlmsg_batch_next(b);
		n_acks++;
	}
	/* and the table put away again (a failed batch leaves nothing anyway) */
	table_msg(mnl_nlmsg_batch_current(b), NFT_MSG_DELTABLE, seq++, "gwseed");
	mnl_nlmsg_batch_next(b);
	n_acks++;
	nftnl_batch_end(mnl_nlmsg_batch_current(b), seq++);
	mnl_nlmsg_batch_next(b);
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) < 0)
		return 1;
	/* a refused batch answers only its first message: stop when the socket is quiet */
	while (n_acks > 0 && rlen < 60000) {
		struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 300) <= 0)
			break;
		r = recv(mnl_socket_get_fd(nl), rbuf + rlen, 65536 - rlen, 0);
		if (r <= 0)
			break;
		rlen += (size_t)r;
		n_acks--;
	}
	prefix[1] = (unsigned char)(seq - seq0);
	snprintf(path, sizeof(path), "%s/acks-%s", dir, name);
	write_file(path, prefix, rbuf, rlen);
	mnl_nlmsg_batch_stop(b);
	mnl_socket_close(nl);
	free(buf);
	free(rbuf);
	return 0;
}

static int acks(const char *dir)
{
	static const char *const names[] = { "accepted", "hook-refused", "no-table",
					     "delete-absent" };
	int r = 0;

	for (int i = 0; i < 4; i++)
		r |= batch(dir, names[i], i);
	return r;
}

/* ---- container tracking's look-ups ---- */

/* The kernel's raw replies to one request, as gatewayd's socket loop hands them over. */
struct tap {
	char *buf;
	size_t len, cap;
};

static int tap_cb_copy(const struct nlmsghdr *h, void *arg)
{
	struct tap *t = arg;
	size_t need = NLMSG_ALIGN(h->nlmsg_len);

	if (t->len + need > t->cap) {
		t->cap = (t->len + need) * 2;
		if (!(t->buf = realloc(t->buf, t->cap)))
			abort();
	}
	memcpy(t->buf + t->len, h, h->nlmsg_len);
	memset(t->buf + t->len + h->nlmsg_len, 0, need - h->nlmsg_len);
	t->len += need;
	return 0;
}

static void tap_write(struct tap *t, const char *dir, const char *tag, const char *what,
		      unsigned char type, unsigned char nsid)
{
	char path[4096];
	unsigned char prefix[4] = { type, nsid, 0, 0 };

	snprintf(path, sizeof(path), "%s/real-%s-%s", dir, tag, what);
	write_file(path, prefix, t->buf, t->len);
	t->len = 0;
}

static int count_cb(const struct gw_plink *l, void *arg)
{
	(void)l;
	(*(int *)arg)++;
	return 0;
}

static int addr_cb(int family, const void *addr, void *arg)
{
	(void)family;
	(void)addr;
	(*(int *)arg)++;
	return 0;
}

static int links(const char *dir, const char *tag, const char *ifname, char **files, int n_files)
{
	struct tap t = { 0 };
	struct gw_nl *nl;
	struct gw_plink l;
	struct nl_msg *msg;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	int n = 0, r;

	if ((r = gw_nl_open(&nl)) || (r = gw_nl_set_strict(nl))) {
		fprintf(stderr, "links: %s\n", strerror(-r));
		return 1;
	}
	/* the link dump, as gw_plink_dump asks for it */
	msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP);
	nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	gw_nl_request(nl, msg, tap_cb_copy, &t, NULL);
	nlmsg_free(msg);
	tap_write(&t, dir, tag, "link-dump", 0, 0xff);
	gw_plink_dump(nl, count_cb, &n);
	/* one link, by name's index */
	ifi.ifi_index = (int)if_nametoindex(ifname);
	msg = nlmsg_alloc_simple(RTM_GETLINK, 0);
	nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	gw_nl_request(nl, msg, tap_cb_copy, &t, NULL);
	nlmsg_free(msg);
	tap_write(&t, dir, tag, "link-one", 0, 0xff);
	if (gw_plink_get(nl, ifi.ifi_index, &l, NULL) || l.peer_nsid < 0) {
		fprintf(stderr, "links: %s has no peer in another namespace\n", ifname);
		return 1;
	}
	/* the namespace ids of the namespace files, and the peer's addresses in its own */
	{
		for (int i = 0; i < n_files; i++) {
			int fd = open(files[i], O_RDONLY | O_CLOEXEC), id;
			struct rtgenmsg gen = { .rtgen_family = AF_UNSPEC };
			char what[64];

			if (fd < 0)
				continue;
			msg = nlmsg_alloc_simple(RTM_GETNSID, 0);
			nlmsg_append(msg, &gen, sizeof(gen), NLMSG_ALIGNTO);
			nla_put_u32(msg, NETNSA_FD, (uint32_t)fd);
			gw_nl_request(nl, msg, tap_cb_copy, &t, NULL);
			nlmsg_free(msg);
			snprintf(what, sizeof(what), "nsid-%d", i);
			tap_write(&t, dir, tag, what, 0, 0xff);
			gw_netns_id(nl, fd, &id);
			close(fd);
		}
	}
	for (int f = 0; f < 2; f++) {
		struct ifaddrmsg ifa = { .ifa_family = f ? AF_INET6 : AF_INET,
					 .ifa_index = (unsigned int)l.peer_ifindex };
		char what[32];

		msg = nlmsg_alloc_simple(RTM_GETADDR, NLM_F_DUMP);
		nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO);
		nla_put_s32(msg, IFA_TARGET_NETNSID, l.peer_nsid);
		gw_nl_request(nl, msg, tap_cb_copy, &t, NULL);
		nlmsg_free(msg);
		snprintf(what, sizeof(what), "addrs-%s", f ? "v6" : "v4");
		tap_write(&t, dir, tag, what, 0, (unsigned char)l.peer_nsid);
	}
	n = 0;
	gw_peer_addrs(nl, l.peer_nsid, l.peer_ifindex, addr_cb, &n);
	fprintf(stderr, "nft_seeds: %s: peer %d in namespace %d, %d addresses\n", ifname,
		l.peer_ifindex, l.peer_nsid, n);
	gw_nl_close(nl);
	free(t.buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "monitor"))
		return monitor(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "acks"))
		return acks(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "links"))
		return links(argv[2], argv[3], argv[4], argv + 5, argc - 5);
	fprintf(stderr, "usage: nft_seeds monitor DIR TAG CMD | acks DIR | "
		"links DIR TAG IFNAME [NETNS_FILE...]\n");
	return 2;
}
