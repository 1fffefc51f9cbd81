/* sys/secret.h: opening a file that holds a secret (the auth file, the TLS key and
 * certificate, a sink token): never through a link, never waiting on a FIFO, only a regular
 * file others cannot read, of a bounded size; signed, and read from that one fd. */
#ifndef GW_SECRET_H
#define GW_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* What says a file is still the one that was read: a reload opens it again only when this
 * changed (a rename, an edit, a chmod or chown all change one of them). */
struct gw_secret_sig {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

/* An open secret file: fd (-1: none) and its signature as fstat gave it. */
struct gw_secret {
	int fd;
	struct gw_secret_sig sig;
};

#define GW_SECRET_NONE ((struct gw_secret){ .fd = -1 })

enum gw_secret_flags {
	/* a certificate is public: others may read it (a key, the users' hashes and a token
	 * may not) */
	GW_SECRET_PUBLIC = 1,
};

/*
 * Open path (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) and check the fd: a
 * regular file, at most max bytes, not readable or writable by others (unless
 * GW_SECRET_PUBLIC). 0 and *out, or -errno and one line in err that names it as what
 * ("auth_file /etc/gatewayd/users: a FIFO, not a regular file"); a file a process that is not
 * root cannot read is said so with what it takes ("readable by group gatewayd").
 */
int gw_secret_open(const char *path, const char *what, size_t max, unsigned int flags,
		   struct gw_secret *out, char *err, size_t errlen);
/*
 * The whole file from offset 0 (pread: the fd's offset, which other processes holding it
 * share, is not used), NUL-terminated, in a malloc'd *out of *len bytes. -EAGAIN when it is
 * not the size its signature says (it changed since it was opened), -EFBIG over max, or the
 * read's -errno; nothing in *out then. The caller wipes and frees it.
 */
int gw_secret_read(const struct gw_secret *s, size_t max, char **out, size_t *len);
/* The signature of what path names now (lstat: a link is not followed), not opening it. */
int gw_secret_stat(const char *path, struct gw_secret_sig *sig);
bool gw_secret_sig_same(const struct gw_secret_sig *a, const struct gw_secret_sig *b);
/* Close s's fd (when open) and make it GW_SECRET_NONE. */
void gw_secret_close(struct gw_secret *s);

#endif
