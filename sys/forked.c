/* sys/forked.c: the first steps of a process forked from the daemon: the default signals, a
 * session of its own, no fd but those it keeps. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include "sys/forked.h"

void gw_forked_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
}

int gw_forked_detach(void)
{
	int null;

	if (setsid() < 0)
		return -errno;
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if (dup2(null, 0) < 0 || dup2(null, 1) < 0) {
		close(null);
		return -errno;
	}
	if (null > 1)
		close(null);
	return 0;
}

void gw_forked_close_except(int *keep, int n)
{
	int from = 3;

	for (int i = 1; i < n; i++)	/* a few: insertion sort */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if (keep[i] > from)
			close_range((unsigned int)from, (unsigned int)keep[i] - 1, 0);
		if (keep[i] + 1 > from)
			from = keep[i] + 1;
	}
	close_range((unsigned int)from, ~0u, 0);
}
