/* sys/signals.h: the signals a mode takes, blocked and read from a signalfd (every
 * mode's loop waits on it beside its other fds; nothing runs in a handler). */
#ifndef GW_SYS_SIGNALS_H
#define GW_SYS_SIGNALS_H

/* Block the signals listed (ending in 0) and return a non-blocking, close-on-exec signalfd
 * that reads them, or -errno. */
int gw_signalfd(int sig, ...);

#endif
