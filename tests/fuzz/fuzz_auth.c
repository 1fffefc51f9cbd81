/* tests/fuzz/fuzz_auth.c: libFuzzer target: any bytes as the basic-auth users file
 * (gw_auth_load_fd, webui/auth.c), read from an open file as the web process reads the one
 * the daemon hands it (a memfd), then one login checked against what loaded.
 *
 * Checked, so a broken promise crashes: the answer is 0 with a table, or -EINVAL/-ENOMEM with
 * no table and one line "PATH:LINE: message" or "PATH: message" (LINE within the file's lines);
 * a loaded table holds no line break, and a user that is not in it is refused. Each input runs
 * crypt(3) once per line it accepts and once for the login, so the -timeout of run.sh is what
 * finds a hash whose cost the reader should have refused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "webui/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

static int lines_of(const uint8_t *data, size_t size)
{
	int n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

/* "PATH:LINE: msg" with 1 <= LINE <= lines, or "PATH: msg"; one line */
static void check_err(const char *err, int lines)
{
	size_t n = strlen(path);
	const char *p = err + n;
	char *end;
	long line;

	if (strncmp(err, path, n) || p[0] != ':' || strchr(err, '\n'))
		abort();
	if (p[1] == ' ')
		return;
	line = strtol(p + 1, &end, 10);
	if (line < 1 || line > lines || strncmp(end, ": ", 2) || !end[2])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_auth *a = (struct gw_auth *)1;
	char err[512] = "";
	int r;

	if (size > GW_AUTH_FILE_MAX + 16)
		return 0;
	if (fd < 0) {
		if ((fd = memfd_create("users", MFD_CLOEXEC)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	r = gw_auth_load_fd(fd, path, &a, err, sizeof(err));
	if (r) {
		if ((r != -EINVAL && r != -ENOMEM) || a)
			abort();
		check_err(err, lines_of(data, size));
		return 0;
	}
	if (!a || gw_auth_holds(a, "\n") || gw_auth_holds(a, "\r"))
		abort();
	/* the name no line can have (a user name has no control character) */
	if (gw_auth_check(a, "no\tsuch", "secret"))
		abort();
	gw_auth_free(a);
	return 0;
}
