/* qdisc/monitor.c: a non-blocking socket in the link and tc multicast groups. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "qdisc/monitor.h"

#define MON_BUF (256 * 1024)
#define MON_RCVBUF (4 * 1024 * 1024)

struct gw_monitor {
	int fd;
	char *buf;
};

int gw_monitor_open(struct gw_monitor **out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK | RTMGRP_TC };
	struct gw_monitor *m = calloc(1, sizeof(*m));
	int size = MON_RCVBUF;

	if (!m)
		return -ENOMEM;
	m->buf = malloc(MON_BUF);
	m->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (!m->buf || m->fd < 0 || bind(m->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = m->buf ? -errno : -ENOMEM;

		gw_monitor_close(m);
		return err;
	}
	/* a burst of our own apply must not overflow it before we drain it */
	if (setsockopt(m->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(m->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	*out = m;
	return 0;
}

void gw_monitor_close(struct gw_monitor *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->buf);
	free(m);
}

int gw_monitor_fd(const struct gw_monitor *m)
{
	return m->fd;
}

int gw_monitor_read(struct gw_monitor *m, gw_nl_cb cb, void *arg)
{
	int lost = 0;

	for (;;) {
		ssize_t r = recv(m->fd, m->buf, MON_BUF, 0);
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
	return lost;
}
