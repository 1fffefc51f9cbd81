/* webui/readfile.c: one bounded read of a small regular file, whole and NUL-terminated. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "webui/readfile.h"

int gw_webui_read_file(int fd, size_t max, struct stat *st, char **out, size_t *len)
{
	size_t have = 0, size;
	char *buf;

	*out = NULL;
	*len = 0;
	if (fstat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (st->st_size < 0 || (unsigned long long)st->st_size > max)
		return -EFBIG;
	size = (size_t)st->st_size;
	if (!(buf = malloc(size + 1)))
		return -ENOMEM;
	/* from offset 0 whatever the fd's own offset (pread): the daemon hands the same open file
	 * to every web process it starts. One byte more than fstat said: a file that grows while
	 * read is caught, not cut */
	for (;;) {
		ssize_t n = pread(fd, buf + have, size + 1 - have, (off_t)have);
		int e;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			explicit_bzero(buf, have);
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > size) {
			explicit_bzero(buf, have);	/* a key file's bytes */
			free(buf);
			return -EAGAIN;
		}
	}
	buf[have] = '\0';
	*out = buf;
	*len = have;
	return 0;
}
