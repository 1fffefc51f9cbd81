/* sys/rundir.h: /run/gatewayd and what is under it, reached through directory fds only:
 * made by whoever comes first (the daemon at start, or gatewayd-cni), checked, never followed
 * through a link, never changed by path. Shared by the daemon and the CNI plugin. */
#ifndef GW_RUNDIR_H
#define GW_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The daemon's own directory: its one-instance and load-test locks, and by default the
 * control socket and the plugin's state files (docs/cni.md). */
#define GW_RUN_DIR "/run/gatewayd"
/* The user the daemon runs as, who owns GW_RUN_DIR; root's when the system has no such user. */

/* The service user's uid and gid, or 0 and 0 when there is none. */
void gw_rundir_owner(uid_t *uid, gid_t *gid);

/*
 * path (absolute) as a directory fd (read-only, CLOEXEC), its last component not followed. With
 * make, a missing directory is made (0755; made by root, it is handed to the service user
 * through the fd, never by path). GW_RUN_DIR itself, the daemon's by its name, root makes the
 * service user's and 0755 even when it was there (as systemd's RuntimeDirectory= does). It
 * must be a directory owned by root, by the service user or by this process's uid, and not
 * writable by group or others: anyone else who could write in it could swap what root then
 * opens there. 0 or more: the fd; -ENOENT (missing, !make), -ELOOP (a link), -ENOTDIR, -EPERM
 * (its owner or mode), -errno; err says which and where.
 */
int gw_rundir_open(const char *path, bool make, char *err, size_t errlen);

/*
 * The directory name (one component) in dfd the same way: made with mode if missing and make
 * (made by root in a directory someone else owns: handed to that owner through the fd), opened
 * without following a link, owned by root or by dfd's owner, not writable by group or others.
 * what names dfd's directory in err ("/run/gatewayd"). The fd, or -errno as above.
 */
int gw_rundir_sub(int dfd, const char *what, const char *name, mode_t mode, bool make,
		  char *err, size_t errlen);

/* "/proc/self/fd/DFD/NAME" into buf: a unix socket's path that the kernel resolves through the
 * fd (bind, connect), not through the directory's name. 0, or -ENAMETOOLONG. */
int gw_rundir_fdpath(int dfd, const char *name, char *buf, size_t len);

#endif
