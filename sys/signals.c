/* sys/signals.c: blocking a mode's signals and opening the signalfd that reads them. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/signalfd.h>
#include "sys/signals.h"

int gw_signalfd(int sig, ...)
{
	sigset_t set;
	va_list ap;
	int fd;

	sigemptyset(&set);
	va_start(ap, sig);
	for (; sig; sig = va_arg(ap, int))
		sigaddset(&set, sig);
	va_end(ap);
	/* blocked first: a signal that comes before the fd exists waits for it */
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}
