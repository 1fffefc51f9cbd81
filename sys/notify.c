/* sys/notify.c: sd_notify without libsystemd. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "sys/notify.h"

int gw_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t r;
	int fd;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@'))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')	/* abstract namespace */
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	r = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	r = r < 0 ? -errno : 0;
	close(fd);
	return (int)r;
}

int gw_notifyf(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gw_notify(msg);
}

uint64_t gw_watchdog_period_us(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec)
		return 0;
	/* a watchdog meant for another process (we were forked from it) is not ours */
	if (pid && strtol(pid, NULL, 10) != getpid())
		return 0;
	v = strtoull(usec, &end, 10);
	if (*end || v == 0)
		return 0;
	/* four times per WatchdogSec: systemd asks for twice, and a pet that comes late (a
	 * loaded host) then still comes within half of it, the bound gatewayd keeps */
	return v / 4;
}

/* the loop's thread alone pets and kicks: no lock */
static uint64_t last_pet_us, woke_us;

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void gw_watchdog_pet(void)
{
	last_pet_us = mono_us();
	gw_notify("WATCHDOG=1");
}

void gw_watchdog_woke(void)
{
	woke_us = mono_us();
}

void gw_watchdog_kick(void)
{
	static int64_t period_us = -1;	/* the environment's, read once */
	uint64_t now;

	if (period_us < 0)
		period_us = (int64_t)gw_watchdog_period_us();
	if (period_us <= 0)
		return;
	now = mono_us();
	/* half a period since the last one, in work that has run a quarter of one; or three
	 * quarters since, in work that has run for 50 ms (it began late in the period, and the
	 * loop's own would be late): no gap much beyond one period either way */
	if ((now - last_pet_us >= (uint64_t)period_us / 2 &&
	     now - woke_us >= (uint64_t)period_us / 4) ||
	    (now - last_pet_us >= (uint64_t)period_us * 3 / 4 && now - woke_us >= 50000))
		gw_watchdog_pet();
}
