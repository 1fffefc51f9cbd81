/* bench/outfile.c: the bench's output files written whole or not at all, in a
 * directory that is the caller's own: a temporary, fsynced, renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "bench/outfile.h"

/* Directories made here are 0755 whatever the umask: the daemon's web process (another user)
 * reads compare_dir through them. Through the new directory's fd, not its name: whoever may
 * write beside it could have put a link there meanwhile. */
static int mkdir_one(const char *dir)
{
	int fd, r = 0;

	if (mkdir(dir, 0755) < 0)
		return errno == EEXIST ? 0 : -errno;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fchmod(fd, 0755) < 0)
		r = -errno;
	close(fd);
	return r;
}

int bench_out_mkdir(const char *path)
{
	char tmp[4200];
	int r;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if ((r = mkdir_one(tmp)))
				return r;
			*p = '/';
		}
	return mkdir_one(tmp);
}

int bench_out_dir_check(int dfd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(dfd, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: owned by uid %u, not by this user (uid %u): a directory "
			 "of your own, please (its owner could swap the files written there)", dir,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: writable by %s (mode %04o): anyone who can write there "
			 "could swap the files written there; chmod go-w it, or use another", dir,
			 st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* A directory on the way: root's or the caller's, or one where only an entry's owner may
 * rename it (sticky, as /tmp), so no one else can swap what comes after it. */
static int way_check(int fd, const char *dir, size_t len, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: %.*s on the way to it is owned by uid %u: another user "
			 "could swap what is under it", dir, (int)len, dir, (unsigned)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen, "%s: %.*s on the way to it is writable by group or others "
			 "(mode %04o): they could swap what is under it", dir, (int)len, dir,
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int bench_out_dir_open(const char *dir, char *err, size_t errlen)
{
	char real[PATH_MAX];
	const char *p;
	int fd, next, r;

	/* walked from / one directory at a time, no link followed: what is checked is what
	 * is opened, and nothing on the way can be swapped by anyone but root and the caller */
	if (!realpath(dir, real)) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = -errno;
		snprintf(err, errlen, "/: %s", strerror(-r));
		return r;
	}
	for (p = real + 1; *p; ) {
		const char *end = strchrnul(p, '/');
		char name[NAME_MAX + 1];

		if ((r = way_check(fd, real, p > real + 1 ? (size_t)(p - 1 - real) : 1, err,
				   errlen)))
			goto fail;
		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", real,
				 r == -ELOOP || r == -ENOTDIR ? "not a directory (a link is not "
				 "followed)" : strerror(-r));
			goto fail;
		}
		close(fd);
		fd = next;
		p = *end ? end + 1 : end;
	}
	if ((r = bench_out_dir_check(fd, real, err, errlen)))
		goto fail;
	return fd;
fail:
	close(fd);
	return r;
}

static int failed(struct bench_out *w, int e, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s: %s", w->path, what, strerror(e));
	bench_out_abort(w);
	return -e;
}

int bench_out_begin(struct bench_out *w, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[sizeof(w->path)];
	int r;

	memset(w, 0, sizeof(*w));
	w->dfd = w->fd = -1;
	snprintf(w->path, sizeof(w->path), "%s", path);
	if (!slash || !slash[1] || strlen(slash + 1) + 4 >= sizeof(w->tmp) ||
	    (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: not DIR/NAME", path);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(w->name, sizeof(w->name), "%s", slash + 1);
	snprintf(w->tmp, sizeof(w->tmp), "%.*s.tmp", (int)sizeof(w->tmp) - 5, w->name);
	if ((w->dfd = bench_out_dir_open(dir[0] ? dir : "/", err, errlen)) < 0)
		return w->dfd;
	for (int tries = 0; tries < 2; tries++) {
		w->fd = openat(w->dfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		/* one left by a run that was killed: ours (the directory is ours) to remove */
		if (w->fd >= 0 || errno != EEXIST || unlinkat(w->dfd, w->tmp, 0) < 0)
			break;
	}
	if (w->fd < 0) {
		r = errno;
		snprintf(err, errlen, "%s: cannot write %s: %s", path, w->tmp, strerror(r));
		close(w->dfd);
		w->dfd = -1;
		return -r;
	}
	return 0;
}

FILE *bench_out_stdio(struct bench_out *w)
{
	if (!w->f)
		w->f = fdopen(w->fd, "w");
	return w->f;
}

int bench_out_commit(struct bench_out *w, char *err, size_t errlen)
{
	/* stdio keeps what it could not write: the error shows at the flush */
	if (w->f && (fflush(w->f) || ferror(w->f)))
		return failed(w, errno ? errno : EIO, "cannot write", err, errlen);
	if (fsync(w->fd) < 0)
		return failed(w, errno, "cannot write (fsync)", err, errlen);
	if (fchmod(w->fd, 0644) < 0)
		return failed(w, errno, "chmod", err, errlen);
	if (w->f) {
		int bad = fclose(w->f);

		w->f = NULL;
		w->fd = -1;
		if (bad)
			return failed(w, errno ? errno : EIO, "cannot write", err, errlen);
	} else {
		int bad = close(w->fd);

		w->fd = -1;
		if (bad)
			return failed(w, errno, "cannot write", err, errlen);
	}
	if (renameat(w->dfd, w->tmp, w->dfd, w->name) < 0)
		return failed(w, errno, "cannot rename it into place", err, errlen);
	fsync(w->dfd);	/* the rename itself on disk; a failure leaves the file in place anyway */
	close(w->dfd);
	w->dfd = -1;
	return 0;
}

int bench_out_json(const char *path, struct json_object *root, char *err, size_t errlen)
{
	struct bench_out w;
	int r;

	if ((r = bench_out_begin(&w, path, err, errlen)))
		return r;
	errno = 0;
	if (json_object_to_fd(w.fd, root, JSON_C_TO_STRING_PLAIN) < 0)
		return failed(&w, errno ? errno : EIO, "cannot write", err, errlen);
	return bench_out_commit(&w, err, errlen);
}

void bench_out_abort(struct bench_out *w)
{
	if (w->f)
		fclose(w->f);	/* what it could not write is dropped with it */
	else if (w->fd >= 0)
		close(w->fd);
	w->f = NULL;
	w->fd = -1;
	if (w->dfd >= 0) {
		unlinkat(w->dfd, w->tmp, 0);
		close(w->dfd);
	}
	w->dfd = -1;
}

int bench_out_failed(int bad, const char *dir)
{
	if (!bad)
		return 0;
	fprintf(stderr, "gatewayd: %d output file%s could not be written in %s\n", bad,
		bad == 1 ? "" : "s", dir);
	return -EIO;
}
