/* gatewayd/sys/instance.h: one daemon per network namespace. */
#ifndef GW_INSTANCE_H
#define GW_INSTANCE_H

#include <sys/types.h>

/* The abstract unix socket name that is the lock ("@gatewayd-instance" in /proc/net/unix). */
#define GW_INSTANCE_LOCK "gatewayd-instance"

/* Take this network namespace's lock: the fd that holds it (keep it open for as long as the
 * process shapes; it goes with the process, also on kill -9), or -EBUSY when another process
 * holds it, with that process's pid in *holder (0 when it could not be read), or -errno. */
int gw_instance_lock(const char *name, pid_t *holder);

#endif
