/* gatewayd/sys/notify.h: the systemd notification protocol (sd_notify), spoken directly: one
 * datagram to $NOTIFY_SOCKET per message, nothing when gatewayd does not run under systemd. */
#ifndef GW_NOTIFY_H
#define GW_NOTIFY_H

#include <stdint.h>

/* Send "READY=1", "STATUS=...", "STOPPING=1", "WATCHDOG=1"...; 0, or -errno (0 as well when
 * there is no $NOTIFY_SOCKET). */
int gw_notify(const char *msg);
int gw_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The keep-alive period systemd asked for ($WATCHDOG_USEC / 2, for this pid), 0 for none. */
uint64_t gw_watchdog_period_us(void);

#endif
