/* probe/stamp.h: the kernel's software time stamps on the prober's and the reflector's
 * sockets: asking for them, and reading one from a message's control data. */
#ifndef GW_PROBE_STAMP_H
#define GW_PROBE_STAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Receive stamps (and, with tx, send stamps taken when the packet leaves the qdisc) where
 * the kernel has SO_TIMESTAMPING, receive stamps through SO_TIMESTAMPNS where it has not.
 * Best effort: a socket without either still works, unstamped. */
void gw_stamp_enable(int fd, bool tx);
/* True when c is a stamp (SCM_TIMESTAMPING or SCM_TIMESTAMPNS); its time, unix ns, is then
 * stored in *ns, unless the message carries no software stamp (*ns is left as it was). */
bool gw_stamp_of(const struct cmsghdr *c, int64_t *ns);

#endif
