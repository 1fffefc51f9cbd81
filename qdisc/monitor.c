/* qdisc/monitor.c: non-blocking sockets in the link and tc multicast groups (rtnetlink) and
 * in nf_tables' (netfilter), or in the groups container tracking asks for, behind one epoll
 * fd. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "qdisc/monitor.h"

#define MON_BUF (256 * 1024)
#define MON_RCVBUF (4 * 1024 * 1024)

struct gw_monitor {
	const struct gw_monitor_ops *ops;	/* NULL: the sockets below */
	void *priv;
	int ep;
	int fd[2];	/* rtnetlink; nf_tables (-1 without it) */
	char *buf;
};

static int open_sock(int proto, unsigned int groups, unsigned int join, bool all_nsid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, proto);
	int size = MON_RCVBUF, one = 1;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (join && setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &join, sizeof(join)) < 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* a burst of our own apply must not overflow it before we drain it */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (all_nsid)
		setsockopt(fd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one));
	return fd;
}

/* fd[0]: rtnetlink in groups; fd[1]: nf_tables' group when nft. */
static int monitor_open(unsigned int groups, bool all_nsid, bool nft, struct gw_monitor **out)
{
	struct gw_monitor *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	m->fd[0] = m->fd[1] = -1;
	m->buf = malloc(MON_BUF);
	m->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!m->buf || m->ep < 0) {
		err = m->buf ? -errno : -ENOMEM;
		goto fail;
	}
	if ((m->fd[0] = open_sock(NETLINK_ROUTE, groups, 0, all_nsid)) < 0) {
		err = m->fd[0];
		goto fail;
	}
	/* nf_tables' changes (a kernel without it: only the tree is watched) */
	if (nft)
		m->fd[1] = open_sock(NETLINK_NETFILTER, 0, NFNLGRP_NFTABLES, false);
	for (int i = 0; i < 2; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		if (m->fd[i] >= 0 && epoll_ctl(m->ep, EPOLL_CTL_ADD, m->fd[i], &ev) < 0) {
			err = -errno;
			goto fail;
		}
	}
	*out = m;
	return 0;
fail:
	gw_monitor_close(m);
	return err;
}

int gw_monitor_open(struct gw_monitor **out)
{
	return monitor_open(RTMGRP_LINK | RTMGRP_TC, false, true, out);
}

int gw_monitor_open_groups(unsigned int groups, bool all_nsid, struct gw_monitor **out)
{
	return monitor_open(groups, all_nsid, false, out);
}

int gw_monitor_open_ops(const struct gw_monitor_ops *ops, void *priv, struct gw_monitor **out)
{
	struct gw_monitor *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->ops = ops;
	m->priv = priv;
	m->ep = m->fd[0] = m->fd[1] = -1;
	*out = m;
	return 0;
}

void gw_monitor_close(struct gw_monitor *m)
{
	if (!m)
		return;
	if (m->ops && m->ops->close)
		m->ops->close(m->priv);
	for (int i = 0; i < 2; i++)
		if (m->fd[i] >= 0)
			close(m->fd[i]);
	if (m->ep >= 0)
		close(m->ep);
	free(m->buf);
	free(m);
}

int gw_monitor_fd(const struct gw_monitor *m)
{
	return m->ep;
}

bool gw_monitor_nft(const struct gw_monitor *m)
{
	if (m->ops)
		return m->ops->nft && m->ops->nft(m->priv);
	return m->fd[1] >= 0;
}

int gw_monitor_read(struct gw_monitor *m, gw_nl_cb cb, void *arg)
{
	int lost = 0;

	if (!m)
		return 0;	/* no monitor (gatewayd runs without self-healing): nothing to read */
	if (m->ops)
		return m->ops->read(m->priv, cb, arg);
	for (int i = 0; i < 2; i++) {
		if (m->fd[i] < 0)
			continue;
		for (;;) {
			ssize_t r = recv(m->fd[i], m->buf, MON_BUF, 0);
			struct nlmsghdr *h;
			int len;

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == ENOBUFS) {
				lost = -ENOBUFS;
				continue;
			}
			if (r <= 0)
				break;	/* EAGAIN: all read */
			len = (int)r;
			for (h = (struct nlmsghdr *)m->buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
				if (cb)
					cb(h, arg);
		}
	}
	return lost;
}
