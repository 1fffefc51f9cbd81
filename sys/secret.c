/* sys/secret.c: opening a file that holds a secret: no link followed, no FIFO waited
 * on, a regular file others cannot read, bounded; signed, and read from that one fd. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sys/secret.h"

static struct gw_secret_sig sig_of(const struct stat *st)
{
	return (struct gw_secret_sig){ st->st_dev, st->st_ino, st->st_size, st->st_mtim,
				       st->st_ctim };
}

static const char *kind_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO:
		return "a FIFO (named pipe)";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
	case S_IFBLK:
		return "a device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

/* Why open(2) failed, as one line that says what to do where there is something to do. */
static int open_err(const char *path, const char *what, int e, char *err, size_t errlen)
{
	if (e == ELOOP)
		snprintf(err, errlen, "%s %s: a symbolic link: name the file itself (a secret file "
			 "is not opened through a link)", what, path);
	else if (e == EACCES && geteuid() != 0)
		/* the daemon after its start (user gatewayd), at a reload or a load test */
		snprintf(err, errlen, "%s %s: %s (gatewayd runs as its own user once started: a "
			 "file it reads again must be readable by group gatewayd, e.g. chgrp "
			 "gatewayd FILE; chmod 0640 FILE)", what, path, strerror(e));
	else
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
	return -e;
}

int gw_secret_open(const char *path, const char *what, size_t max, unsigned int flags,
		   struct gw_secret *out, char *err, size_t errlen)
{
	struct stat st;
	int fd, r;

	*out = GW_SECRET_NONE;
	/* O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for a
	 * writer while the daemon's loop, and its watchdog, stand still */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return open_err(path, what, errno, err, errlen);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(-r));
		goto fail;
	}
	r = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s %s: %s, not a regular file", what, path,
			 kind_of(st.st_mode));
		goto fail;
	}
	if (!(flags & GW_SECRET_PUBLIC) && (st.st_mode & (S_IROTH | S_IWOTH))) {
		snprintf(err, errlen, "%s %s: mode %04o lets every user %s it: chmod o-rwx FILE "
			 "(0640, group gatewayd, is what gatewayd needs)", what, path,
			 (unsigned int)(st.st_mode & 07777),
			 st.st_mode & S_IROTH ? "read" : "write");
		goto fail;
	}
	if (flags & GW_SECRET_PUBLIC && st.st_mode & S_IWOTH) {
		snprintf(err, errlen, "%s %s: mode %04o lets every user write it: chmod o-w FILE",
			 what, path, (unsigned int)(st.st_mode & 07777));
		goto fail;
	}
	if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
		r = -EFBIG;
		snprintf(err, errlen, "%s %s: %lld bytes, more than the %zu it may be", what, path,
			 (long long)st.st_size, max);
		goto fail;
	}
	out->fd = fd;
	out->sig = sig_of(&st);
	return 0;
fail:
	close(fd);
	return r;
}

int gw_secret_read(const struct gw_secret *s, size_t max, char **out, size_t *len)
{
	size_t size = (size_t)s->sig.size, have = 0;
	char *buf;
	int e;

	*out = NULL;
	*len = 0;
	if (s->fd < 0)
		return -EBADF;
	if (s->sig.size < 0 || size > max)
		return -EFBIG;
	if (!(buf = malloc(size + 1)))
		return -ENOMEM;
	/* one byte more than it was: a file that grew since is caught, not cut */
	for (;;) {
		ssize_t n = pread(s->fd, buf + have, size + 1 - have, (off_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > size) {
			e = -EAGAIN;
			goto fail;
		}
	}
	if (have != size) {
		e = -EAGAIN;	/* shorter than when it was opened */
		goto fail;
	}
	buf[have] = '\0';
	*out = buf;
	*len = have;
	return 0;
fail:
	explicit_bzero(buf, have);
	free(buf);
	return e;
}

int gw_secret_stat(const char *path, struct gw_secret_sig *sig)
{
	struct stat st;

	memset(sig, 0, sizeof(*sig));
	if (lstat(path, &st) < 0)
		return -errno;
	*sig = sig_of(&st);
	return 0;
}

bool gw_secret_sig_same(const struct gw_secret_sig *a, const struct gw_secret_sig *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

void gw_secret_close(struct gw_secret *s)
{
	if (s->fd >= 0)
		close(s->fd);
	*s = GW_SECRET_NONE;
}
