/* sys/instance.c: the per-namespace locks that keep a second daemon from adopting and
 * fighting over the first one's tree, and two load tests from sharing a link. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sys/instance.h"
#include "sys/rundir.h"

/*
 * Why a POSIX record lock on a file in the run directory: only root and the service's user can
 * make or open a file there (the directory is theirs, 0755, the file 0600), so nobody else can
 * take the lock first; F_GETLK names the process that holds one (a flock(2) or an OFD lock
 * has no pid to give); it belongs to the process, not the fd, so a child (the web launcher,
 * iperf3) never holds it on; the kernel drops it when the process ends, so a killed daemon
 * leaves no stale lock. The file's name is the namespace's, as the abstract socket's name
 * used to be (two namespaces never share a lock). The holder removes the file before it lets
 * go; a taker whose file was removed under it (it opened it before, locked it after) sees
 * that its name now names another file, or none, and starts again.
 */
#define TRIES 8

static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return r;
}

static int ns_name(const char *what, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	n = snprintf(buf, len, "%s.%llx.%llu", what, (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The effective uid of pid from /proc, as the kernel keeps it. */
static bool proc_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	unsigned long r, e;
	bool got = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!got && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*uid = (uid_t)e;
			got = true;
		}
	fclose(f);
	return got;
}

/* Who holds the lock on fd's file: 1 (h filled), 0 nobody any more. */
static int holder(int fd, const struct stat *st, struct gw_lock_holder *h)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	memset(h, 0, sizeof(*h));
	if (fcntl(fd, F_GETLK, &fl))
		return 1;	/* held, by whom not known */
	if (fl.l_type == F_UNLCK)
		return 0;
	h->pid = fl.l_pid > 0 ? fl.l_pid : 0;
	if (h->pid && proc_uid(h->pid, &h->uid)) {
		h->uid_known = true;
	} else {
		h->uid = st->st_uid;
		h->uid_known = h->uid_from_file = true;
	}
	return 1;
}

/* One try: 0 held, -EBUSY, -EAGAIN (the file changed under us: again), -errno. */
static int try_once(int dir, const char *where, const char *name, uid_t svc, gid_t svc_gid,
		    int *out, struct gw_lock_holder *h, char *err, size_t errlen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat st, now;
	bool made = true;
	int fd, r;

	fd = openat(dir, name, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST) {
		made = false;
		fd = openat(dir, name, flags);
	}
	if (fd < 0)
		return errno == ENOENT ? -EAGAIN :
			fail(err, errlen, -errno, "%s/%s: %s", where, name, strerror(errno));
	if (fstat(fd, &st)) {
		r = fail(err, errlen, -errno, "%s/%s: %s", where, name, strerror(errno));
		goto out;
	}
	/* (whoever made it could write in the directory: root or its owner, gw_rundir_open) */
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
		r = fail(err, errlen, -EPERM, "%s/%s: not a regular file with one link: refused",
			 where, name);
		goto out;
	}
	/* made by root: the service user's, so that a daemon started as that user opens it too */
	if (made && geteuid() == 0 && svc && fchown(fd, svc, svc_gid)) {
		r = fail(err, errlen, -errno, "%s/%s: %s", where, name, strerror(errno));
		goto out;
	}
	if (fcntl(fd, F_SETLK, &fl)) {
		if (errno != EAGAIN && errno != EACCES) {
			r = fail(err, errlen, -errno, "%s/%s: locking: %s", where, name,
				 strerror(errno));
			goto out;
		}
		r = holder(fd, &st, h) ? fail(err, errlen, -EBUSY, "%s/%s", where, name) : -EAGAIN;
		goto out;
	}
	if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) || now.st_dev != st.st_dev ||
	    now.st_ino != st.st_ino) {
		r = -EAGAIN;
		goto out;
	}
	*out = fd;
	return 0;
out:
	close(fd);
	return r;
}

int gw_lock_take_in(const char *path, const char *what, struct gw_lock *l,
		    struct gw_lock_holder *h, char *err, size_t errlen)
{
	uid_t svc;
	gid_t gid;
	int r;

	memset(h, 0, sizeof(*h));
	l->fd = l->dir = -1;
	if ((r = ns_name(what, l->name, sizeof(l->name))))
		return fail(err, errlen, r, "/proc/self/ns/net: %s", strerror(-r));
	if ((l->dir = gw_rundir_open(path, true, err, errlen)) < 0)
		return l->dir;
	gw_rundir_owner(&svc, &gid);
	r = -EAGAIN;
	for (int i = 0; i < TRIES && r == -EAGAIN; i++)
		r = try_once(l->dir, path, l->name, svc, gid, &l->fd, h, err, errlen);
	if (r == -EAGAIN)
		fail(err, errlen, r, "%s/%s: removed and made again %d times while it was "
		     "taken", path, l->name, TRIES);
	if (r) {
		close(l->dir);
		l->dir = -1;
	}
	return r;
}

int gw_lock_take(const char *what, struct gw_lock *l, struct gw_lock_holder *h, char *err,
		 size_t errlen)
{
	return gw_lock_take_in(GW_RUN_DIR, what, l, h, err, errlen);
}

void gw_lock_release(struct gw_lock *l)
{
	struct stat st, now;

	if (l->fd >= 0) {
		/* still ours under that name: removed while held, so no one locks it after */
		if (fstat(l->fd, &st) == 0 &&
		    fstatat(l->dir, l->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino)
			unlinkat(l->dir, l->name, 0);
		close(l->fd);
		l->fd = -1;
	}
	if (l->dir >= 0)
		close(l->dir);
	l->dir = -1;
}
