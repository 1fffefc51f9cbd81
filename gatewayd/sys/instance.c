/* gatewayd/sys/instance.c: the per-namespace lock that keeps a second daemon from adopting and
 * fighting over the first one's tree. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "gatewayd/sys/instance.h"

/*
 * An abstract unix socket name: abstract names live in the network namespace (two namespaces
 * never see each other's), and the kernel frees one when the last fd on it closes, so a killed
 * daemon leaves no stale lock behind, unlike a pid file. The holder listens; a second start
 * connects, and SO_PEERCRED of a connection to a listener gives the credentials the listener
 * had when it called listen(), the holder's pid, without the holder doing anything. Those
 * connections are never accepted: each waits in the backlog until the holder exits (a few
 * hundred bytes each; past the backlog a second start still fails, only without the pid).
 */
static socklen_t addr_of(const char *name, struct sockaddr_un *a)
{
	size_t n = strlen(name);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (n > sizeof(a->sun_path) - 1)
		n = sizeof(a->sun_path) - 1;
	memcpy(a->sun_path + 1, name, n);	/* sun_path[0] = '\0': abstract */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static pid_t holder_pid(const struct sockaddr_un *a, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct ucred cred = { 0 };
	socklen_t cl = sizeof(cred);
	pid_t pid = 0;

	if (fd < 0)
		return 0;
	if (connect(fd, (const struct sockaddr *)a, len) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0)
		pid = cred.pid;
	close(fd);
	return pid;
}

int gw_instance_lock(const char *name, pid_t *holder)
{
	struct sockaddr_un a;
	socklen_t len = addr_of(name, &a);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), e;

	*holder = 0;
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len) == 0 && listen(fd, 64) == 0)
		return fd;
	e = errno;
	close(fd);
	if (e != EADDRINUSE)
		return -e;
	*holder = holder_pid(&a, len);
	return -EBUSY;
}
