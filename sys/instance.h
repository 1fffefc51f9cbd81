/* sys/instance.h: one daemon, and one load test, per network namespace: a lock on a
 * file in the run directory (sys/rundir.h), which only root and the service's user
 * can write. */
#ifndef GW_INSTANCE_H
#define GW_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What is locked: the file is "WHAT.DEV.INODE", the network namespace's identity (the device
 * and inode of /proc/self/ns/net), so each namespace has its own. */
#define GW_LOCK_INSTANCE "instance"
#define GW_LOCK_LOADTEST "load-test"

struct gw_lock {
	int fd;			/* holds the lock (-1: none) */
	int dir;		/* the directory the file is in */
	char name[96];
};

/* Who holds a lock, as the kernel says: the process that holds it (F_GETLK), and its uid
 * from /proc/PID/status, or the lock file's owner when that cannot be read (uid_from_file). */
struct gw_lock_holder {
	pid_t pid;		/* 0: not known */
	uid_t uid;
	bool uid_known, uid_from_file;
};

/*
 * Take this network namespace's lock what (GW_LOCK_*) in GW_RUN_DIR, made if missing: a POSIX
 * record lock (fcntl F_SETLK) on the file, mode 0600, held by l->fd for as long as the process
 * keeps it open: across a change of uid, never inherited by a child, released by the kernel
 * when the process ends, also on kill -9. 0; -EBUSY when another process holds it (h filled,
 * err the lock file's path); -errno with err. gw_lock_take_in: the same in another directory
 * (tests).
 */
int gw_lock_take(const char *what, struct gw_lock *l, struct gw_lock_holder *h, char *err,
		 size_t errlen);
int gw_lock_take_in(const char *dir, const char *what, struct gw_lock *l,
		    struct gw_lock_holder *h, char *err, size_t errlen);
/* Remove the file while it is still held, then let the lock go (l may be unheld: fd -1). */
void gw_lock_release(struct gw_lock *l);

#endif
