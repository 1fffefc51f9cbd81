/* sys/notify.h: the systemd notification protocol (sd_notify), spoken directly: one
 * datagram to $NOTIFY_SOCKET per message, nothing when gatewayd does not run under systemd. */
#ifndef GW_NOTIFY_H
#define GW_NOTIFY_H

#include <stdint.h>

/* Send "READY=1", "STATUS=...", "STOPPING=1", "WATCHDOG=1"...; 0, or -errno (0 as well when
 * there is no $NOTIFY_SOCKET). */
int gw_notify(const char *msg);
int gw_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The keep-alive period systemd asked for ($WATCHDOG_USEC / 4, for this pid), 0 for none. */
uint64_t gw_watchdog_period_us(void);
/* WATCHDOG=1 now (the loop's timer), the time noted; nothing without a watchdog. */
void gw_watchdog_pet(void);
/* The loop woke for new work now (what gw_watchdog_kick measures an operation from). */
void gw_watchdog_woke(void);
/* From inside a long operation: WATCHDOG=1 once it has run a quarter of the keep-alive period
 * and half of it has gone by since the last one (or three quarters, when it began late), else
 * nothing; so a reload or heal that holds the loop for longer than the period never leaves
 * systemd more than about half of WatchdogSec= without one, and a sampling pass of a few
 * milliseconds adds none to the loop's own. */
void gw_watchdog_kick(void);

#endif
