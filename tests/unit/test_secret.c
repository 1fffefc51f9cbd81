/* tests/unit/test_secret.c: the secret-file opener (sys/secret.c): a FIFO is refused
 * at once instead of waited on, a link is not followed, a file others may read (or write) is
 * refused unless public, a file over its bound is refused, each with the file named; the
 * content is read from the one fd whatever its offset, a file that changed since it was
 * opened is caught, and the signature changes with an edit, a chmod and a rename over it;
 * as another user, a file it may not read says what the daemon's user needs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "sys/secret.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/gw-secret.XXXXXX";

static const char *at(const char *name)
{
	static char path[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void put(const char *name, const char *text, mode_t mode)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) < 0)
		CHECK(0, "writing %s", name);
	if (fd >= 0)
		close(fd);
}

static int try_open(const char *name, unsigned int flags, size_t max, char *err, size_t errlen)
{
	struct gw_secret s;
	int r;

	err[0] = '\0';
	r = gw_secret_open(at(name), "auth_file", max, flags, &s, err, errlen);
	gw_secret_close(&s);
	return r;
}

static void refusals(void)
{
	char err[512];

	put("ok", "admin:$6$x$y\n", 0640);
	CHECK(try_open("ok", 0, 4096, err, sizeof(err)) == 0, "a regular file, 0640: opened (%s)",
	      err);
	CHECK(mkfifo(at("fifo"), 0600) == 0, "a FIFO made");
	/* a FIFO nobody writes to: an open that waited for a writer would wait for good, and
	 * SIGALRM's default then ends the test, a failure */
	alarm(30);
	CHECK(try_open("fifo", 0, 4096, err, sizeof(err)) == -EINVAL && strstr(err, "FIFO") &&
	      strstr(err, at("fifo")), "a FIFO: refused, not waited on (%s)", err);
	alarm(0);
	CHECK(symlink(at("ok"), at("link")) == 0, "a link made");
	CHECK(try_open("link", 0, 4096, err, sizeof(err)) == -ELOOP && strstr(err, "symbolic link"),
	      "a link to a good file: not followed (%s)", err);
	CHECK(try_open(".", 0, 4096, err, sizeof(err)) == -EINVAL && strstr(err, "directory"),
	      "a directory: refused (%s)", err);
	put("world", "admin:$6$x$y\n", 0644);
	CHECK(try_open("world", 0, 4096, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "mode 0644 lets every user read it"),
	      "readable by others: refused (%s)", err);
	CHECK(try_open("world", GW_SECRET_PUBLIC, 4096, err, sizeof(err)) == 0,
	      "readable by others, public (a certificate): opened (%s)", err);
	put("wworld", "x\n", 0602);
	CHECK(try_open("wworld", GW_SECRET_PUBLIC, 4096, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "every user write"), "writable by others, even public: refused (%s)",
	      err);
	CHECK(try_open("ok", 0, 4, err, sizeof(err)) == -EFBIG && strstr(err, "more than the 4"),
	      "over its bound: refused (%s)", err);
	CHECK(try_open("none", 0, 4096, err, sizeof(err)) == -ENOENT && strstr(err, at("none")),
	      "missing: -ENOENT, named (%s)", err);
}

static void reading(void)
{
	struct gw_secret s, t;
	struct gw_secret_sig now, before;
	char err[256], *text = NULL;
	size_t len;
	int fd;

	put("r", "0123456789", 0600);
	err[0] = '\0';
	if (!CHECK(gw_secret_open(at("r"), "tls_key", 4096, 0, &s, err, sizeof(err)) == 0,
		   "opened (%s)", err))
		return;
	lseek(s.fd, 7, SEEK_SET);	/* another holder of the same open file moved it */
	CHECK(gw_secret_read(&s, 4096, &text, &len) == 0 && len == 10 &&
	      !strcmp(text, "0123456789") && lseek(s.fd, 0, SEEK_CUR) == 7,
	      "read whole from offset 0 whatever the fd's offset, which it leaves alone");
	free(text);
	CHECK(gw_secret_stat(at("r"), &now) == 0 && gw_secret_sig_same(&now, &s.sig),
	      "the path's signature is the open file's");
	before = now;
	fd = open(at("r"), O_WRONLY | O_APPEND | O_CLOEXEC);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "a byte added");
	if (fd >= 0)
		close(fd);
	CHECK(gw_secret_read(&s, 4096, &text, &len) == -EAGAIN && !text,
	      "changed since it was opened: -EAGAIN, nothing kept");
	CHECK(gw_secret_stat(at("r"), &now) == 0 && !gw_secret_sig_same(&now, &before),
	      "an edit changes the signature");
	before = now;
	chmod(at("r"), 0640);
	CHECK(gw_secret_stat(at("r"), &now) == 0 && !gw_secret_sig_same(&now, &before),
	      "a chmod changes it (ctime)");
	before = now;
	put("r2", "0123456789x", 0640);
	rename(at("r2"), at("r"));
	CHECK(gw_secret_stat(at("r"), &now) == 0 && !gw_secret_sig_same(&now, &before),
	      "a file renamed over it changes it (another inode)");
	CHECK(gw_secret_open(at("r"), "tls_key", 4096, 0, &t, err, sizeof(err)) == 0 &&
	      gw_secret_sig_same(&now, &t.sig), "and opened again, the new file's is the path's");
	gw_secret_close(&t);
	gw_secret_close(&s);
	CHECK(s.fd == -1, "closed: GW_SECRET_NONE");
}

/* As a user that may not read it (the daemon once it is user gatewayd): what to do is said. */
static void as_another_user(void)
{
	int p[2], st = 0;
	char err[512] = "";
	pid_t pid;

	if (geteuid() != 0) {
		printf("skip - a file another user may not read: not root\n");
		return;
	}
	put("root-only", "admin:$6$x$y\n", 0600);
	chmod(dir, 0755);
	if (pipe(p) < 0)
		return;
	if ((pid = fork()) == 0) {
		struct gw_secret s;
		char e[512] = "";
		int r;

		close(p[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		r = gw_secret_open(at("root-only"), "auth_file", 4096, 0, &s, e, sizeof(e));
		if (write(p[1], e, strlen(e)) < 0)
			_exit(3);
		_exit(r == -EACCES ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], err, sizeof(err) - 1) < 0)
		err[0] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(err, "readable by group gatewayd"),
	      "as another user: -EACCES, saying the file must be readable by group gatewayd (%s)",
	      err);
}

int main(void)
{
	alarm(10);	/* an open that waits on the FIFO would hang the suite: it fails it */
	if (!CHECK(mkdtemp(dir) != NULL, "a scratch directory"))
		return tap_done();
	refusals();
	reading();
	as_another_user();
	for (const char *const *n = (const char *const[]){ "ok", "fifo", "link", "world",
							   "wworld", "r", "root-only", NULL };
	     *n; n++)
		unlink(at(*n));
	rmdir(dir);
	return tap_done();
}
