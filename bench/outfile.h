/* bench/outfile.h: the bench's output files written whole or not at all, in a
 * directory that is the caller's own. */
#ifndef GW_BENCH_OUTFILE_H
#define GW_BENCH_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/*
 * One file being written: a temporary beside it (NAME.tmp, made exclusively, no link
 * followed), fsynced, made 0644 (the daemon and its web process read them as other users) and
 * renamed over NAME; on any failure the temporary is removed and NAME stays as it was. The
 * directory is reached through an fd, checked as bench_out_dir_check says.
 */
struct bench_out {
	int dfd;		/* the directory */
	int fd;			/* the temporary */
	FILE *f;		/* bench_out_stdio's stream on fd, or NULL */
	char name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1];
	char path[4400];	/* as given, for messages */
};

/* path made with its parents where missing, each 0755 whatever the umask (the daemon's web
 * process, another user, reads compare_dir through them): 0 or -errno. */
int bench_out_mkdir(const char *path);
/* dfd (dir names it in err) is this process's effective uid's own and not writable by group
 * or others: anyone else who could write there could swap what is written. 0, or -EPERM. */
int bench_out_dir_check(int dfd, const char *dir, char *err, size_t errlen);
/* The directory dir (its last component not followed through a link) opened and checked: an
 * fd (CLOEXEC), or -errno with err saying why. */
int bench_out_dir_open(const char *dir, char *err, size_t errlen);

/* Begin path ("DIR/NAME"): 0, or -errno with err saying why (nothing is left behind). The
 * caller writes to w->fd, or to bench_out_stdio's stream, then commits or aborts. */
int bench_out_begin(struct bench_out *w, const char *path, char *err, size_t errlen);
/* A stdio stream on the temporary (commit and abort close it), or NULL with errno set. */
FILE *bench_out_stdio(struct bench_out *w);
/* Flushed, checked, fsynced, renamed into place: 0; or -errno with err saying why, the
 * temporary removed, the old file intact. */
int bench_out_commit(struct bench_out *w, char *err, size_t errlen);
/* Given up: the temporary removed. */
void bench_out_abort(struct bench_out *w);

/* A run's output files that could not be written (each said already on stderr): a line
 * saying how many, and -EIO; 0 when bad is 0. */
int bench_out_failed(int bad, const char *dir);

struct json_object;
/* root as plain JSON text into path, as above: 0, or -errno with err saying why. */
int bench_out_json(const char *path, struct json_object *root, char *err, size_t errlen);

#endif
