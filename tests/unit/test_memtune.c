/* tests/unit/test_memtune.c: sys/memtune.c. glibc raises its mmap threshold to the
 * largest mapped block freed, so a 1 MB block after a freed 2 MB one comes from the heap;
 * after gw_malloc_tune it has a mapping of its own again, and what the environment says about
 * malloc wins. Each case in a child of its own (malloc's settings are the process's). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/memtune.h"
#include "tests/unit/tap.h"

enum { CONTROL, TUNED, ENV_WINS };

/* exit status: how many mapped blocks the 1 MB allocation made (0 or 1), 9 on failure */
static int after_big_free(int mode)
{
	char *a, *b;
	size_t before;

	if (mode == TUNED)
		gw_malloc_tune(false);
	if (mode == ENV_WINS) {
		setenv("GLIBC_TUNABLES", "glibc.malloc.check=0", 1);
		gw_malloc_tune(false);
	}
	if (!(a = malloc(2 << 20)))
		return 9;
	memset(a, 1, 2 << 20);
	free(a);
	before = mallinfo2().hblks;
	if (!(b = malloc(1 << 20)))
		return 9;
	memset(b, 2, 1 << 20);
	return (int)(mallinfo2().hblks - before);
}

static int run(int mode)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(after_big_free(mode));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

#if defined(__SANITIZE_ADDRESS__)
#define GW_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GW_SANITIZED 1
#endif
#endif

int main(void)
{
#ifdef GW_SANITIZED
	puts("skip - malloc's thresholds: in the sanitizer build malloc is ASan's, not glibc's");
	return 0;
#endif
	CHECK_EQ_INT(run(CONTROL), 0, "glibc alone: a 1 MB block after a freed 2 MB one is on the heap");
	CHECK_EQ_INT(run(TUNED), 1, "gw_malloc_tune: it has a mapping of its own (returned at free)");
	CHECK_EQ_INT(run(ENV_WINS), 0, "GLIBC_TUNABLES naming glibc.malloc.*: gw_malloc_tune leaves malloc alone");
	CHECK(GW_MALLOC_BIG < (1 << 20), "the threshold (%d bytes) is under the 1 MB block", GW_MALLOC_BIG);
	return tap_failed ? 1 : 0;
}
