/* sys/rundir.c: the run directory and the directories in it, opened through fds, made
 * when missing, checked before anything is done in them. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sys/privdrop.h"
#include "sys/rundir.h"

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

void gw_rundir_owner(uid_t *uid, gid_t *gid)
{
	struct passwd pw, *got = NULL;
	char buf[4096];

	*uid = 0;
	*gid = 0;
	if (getpwnam_r(GW_DAEMON_USER, &pw, buf, sizeof(buf), &got) == 0 && got) {
		*uid = got->pw_uid;
		*gid = got->pw_gid;
	}
}

/* What may own a directory root works in: root, and who else the caller names. */
static bool owner_ok(uid_t uid, const uid_t *ok, size_t n)
{
	if (uid == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (uid == ok[i])
			return true;
	return false;
}

/*
 * name in pfd (whose directory err calls where): made if missing and make (0700 first, so it
 * is nobody else's before it is handed over: chown'd through its fd to give_uid when root made
 * it, then chmod'd to mode), opened with O_NOFOLLOW, its owner one of ok[] or root and no
 * write for group or others. A link swapped in for it is refused at the open; a directory
 * swapped in after the mkdir is checked like any other. reclaim: root gives it give_uid and
 * mode even when it was there already (the daemon's own directory, as systemd does with a
 * RuntimeDirectory= at each start).
 */
static int open_dir(int pfd, const char *where, const char *name, mode_t mode, bool make,
		    bool reclaim, uid_t give_uid, gid_t give_gid, const uid_t *ok, size_t n_ok,
		    const char *who, char *err, size_t errlen)
{
	bool made = false;
	struct stat st;
	int fd, r;

	if (make) {
		if (mkdirat(pfd, name, 0700) == 0)
			made = true;
		else if (errno != EEXIST)
			return fail(err, errlen, -errno, "%s/%s: cannot make it: %s", where, name,
				    strerror(errno));
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP || r == -ENOTDIR)
			return fail(err, errlen, r, "%s/%s: a link or not a directory: refused",
				    where, name);
		return fail(err, errlen, r, "%s/%s: %s", where, name, strerror(-r));
	}
	if (fstat(fd, &st)) {
		r = -errno;
		goto bad;
	}
	if ((made && st.st_uid == geteuid()) || (reclaim && geteuid() == 0)) {
		if (geteuid() == 0 && (st.st_uid != give_uid || st.st_gid != give_gid) &&
		    (fchown(fd, give_uid, give_gid) || fstat(fd, &st))) {
			r = -errno;
			goto bad;
		}
		if ((st.st_mode & 07777) != mode && (fchmod(fd, mode) || fstat(fd, &st))) {
			r = -errno;
			goto bad;
		}
	}
	if (!owner_ok(st.st_uid, ok, n_ok)) {
		close(fd);
		return fail(err, errlen, -EPERM, "%s/%s: owned by uid %u, neither root nor %s: "
			    "refused", where, name, (unsigned)st.st_uid, who);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		close(fd);
		return fail(err, errlen, -EPERM, "%s/%s: writable by %s (mode %04o): refused",
			    where, name, st.st_mode & S_IWOTH ? "others" : "its group",
			    (unsigned)(st.st_mode & 07777));
	}
	return fd;
bad:
	close(fd);
	return fail(err, errlen, r, "%s/%s: %s", where, name, strerror(-r));
}

int gw_rundir_open(const char *path, bool make, char *err, size_t errlen)
{
	char parent[4096];
	const char *slash = strrchr(path, '/'), *name;
	uid_t ok[2];
	gid_t gid;
	int pfd, fd;

	if (path[0] != '/' || !slash || !slash[1] || strlen(path) >= sizeof(parent))
		return fail(err, errlen, -EINVAL, "%s: not an absolute path to a directory", path);
	name = slash + 1;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return fail(err, errlen, -EINVAL, "%s: not a directory's own name", path);
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	/* the directories above it are followed as named: what is checked, and what everything
	 * then happens in, is the one opened last */
	pfd = open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return fail(err, errlen, -errno, "%s: %s", parent[0] ? parent : "/",
			    strerror(errno));
	gw_rundir_owner(&ok[0], &gid);
	ok[1] = geteuid();
	fd = open_dir(pfd, parent, name, 0755, make, !strcmp(path, GW_RUN_DIR), ok[0], gid, ok, 2,
		      ok[0] ? "the user " GW_DAEMON_USER " (nor this process's)" :
		      "this process's uid", err, errlen);
	close(pfd);
	return fd;
}

int gw_rundir_sub(int dfd, const char *what, const char *name, mode_t mode, bool make,
		  char *err, size_t errlen)
{
	struct stat st;

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(err, errlen, -EINVAL, "%s/%s: not one name", what, name);
	if (fstat(dfd, &st))
		return fail(err, errlen, -errno, "%s: %s", what, strerror(errno));
	return open_dir(dfd, what, name, mode, make, false, st.st_uid, st.st_gid, &st.st_uid, 1,
			"the owner of the directory it is in", err, errlen);
}

int gw_rundir_fdpath(int dfd, const char *name, char *buf, size_t len)
{
	int n = name && name[0] ? snprintf(buf, len, "/proc/self/fd/%d/%s", dfd, name) :
		snprintf(buf, len, "/proc/self/fd/%d", dfd);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
