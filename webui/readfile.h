/* webui/readfile.h: one bounded read of a small regular file, whole and NUL-terminated. */
#ifndef GW_WEBUI_READFILE_H
#define GW_WEBUI_READFILE_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Reads the open fd (the caller opened it, with its own flags, and closes it) whole, from
 * offset 0 with pread (the fd's offset is neither used nor moved), into a
 * malloc'd, NUL-terminated *out of *len bytes; st gets the file's fstat. Returns 0, or
 * -EINVAL (not a regular file), -EFBIG (over max bytes), -EAGAIN (it grew while read, so the
 * bytes are no one version of it), -ENOMEM, -errno of a failed read. Nothing is left in *out
 * on failure.
 */
int gw_webui_read_file(int fd, size_t max, struct stat *st, char **out, size_t *len);

#endif
