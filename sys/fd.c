/* sys/fd.c: closing an object's fds, and adding them to its epoll set. */
#include <errno.h>
#include <unistd.h>
#include "sys/fd.h"

void gw_fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int gw_epoll_set(int ep, int op, int fd, uint32_t events, epoll_data_t data)
{
	struct epoll_event ev = { .events = events, .data = data };

	return epoll_ctl(ep, op, fd, &ev) < 0 ? -errno : 0;
}
