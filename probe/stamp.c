/* probe/stamp.c: the kernel's software time stamps on probe sockets. */
#include <string.h>
#include <time.h>
#include <linux/net_tstamp.h>
#include <linux/errqueue.h>
#include "probe/stamp.h"

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

void gw_stamp_enable(int fd, bool tx)
{
	int flags = SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
		(tx ? SOF_TIMESTAMPING_TX_SCHED : 0);
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
}

bool gw_stamp_of(const struct cmsghdr *c, int64_t *ns)
{
	if (c->cmsg_level != SOL_SOCKET)
		return false;
	if (c->cmsg_type == SCM_TIMESTAMPING) {
		struct scm_timestamping tss;

		/* ts[0] is the software stamp; ts[2], the hardware one, we never ask for */
		memcpy(&tss, CMSG_DATA(c), sizeof(tss));
		if (tss.ts[0].tv_sec || tss.ts[0].tv_nsec)
			*ns = ts_ns(&tss.ts[0]);
		return true;
	}
	if (c->cmsg_type == SCM_TIMESTAMPNS) {
		struct timespec ts;

		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		*ns = ts_ns(&ts);
		return true;
	}
	return false;
}
