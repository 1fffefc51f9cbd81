/* sys/fd.h: the two things every fd-owning object does: close what it opened, and put
 * an fd into its epoll set. */
#ifndef GW_FD_H
#define GW_FD_H

#include <stdint.h>
#include <sys/epoll.h>

/* Close *fd if it is open (>= 0) and mark it closed (-1): a destructor may then run on an
 * object that was only half built, and twice. */
void gw_fd_close(int *fd);
/* epoll_ctl(ep, op, fd) for these events, with data as what epoll_wait hands back; 0 or -errno. */
int gw_epoll_set(int ep, int op, int fd, uint32_t events, epoll_data_t data);

#endif
