/* tests/unit/test_sandbox.c: the web process's seccomp filter (sys/sandbox.c), each
 * case in a child of its own: after it, /proc says Seccomp 2, NoNewPrivs 1, CapEff 0; threads,
 * memory, reading files, naming a thread and libmicrohttpd serving a request on a socket opened
 * before it all work; a netlink socket, a file opened for writing, execve, any ioctl (TIOCSTI,
 * TCGETS), a prctl but PR_SET_NAME and an executable mapping (mmap or mprotect) kill the
 * process with SIGSYS. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <microhttpd.h>

#include "sys/privdrop.h"
#include "sys/sandbox.h"
#include "tests/unit/tap.h"

static void enter(void)
{
	char err[256];

	if (gw_drop_to_nobody(err, sizeof(err)) || gw_sandbox_web(err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		_exit(90);
	}
}

/* run f in a sandboxed child: its wait status */
static int in_child(int (*f)(void *), void *arg)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		enter();
		_exit(f(arg));
	}
	waitpid(pid, &st, 0);
	return st;
}

static int status_line(const char *key, const char *want)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int ok = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && strstr(line + strlen(key), want))
			ok = 1;
	fclose(f);
	return ok;
}

static void *thread_fn(void *arg)
{
	return arg;
}

static int allowed(void *arg)
{
	pthread_t t;
	void *r = NULL;
	char *big = malloc(8 << 20);

	(void)arg;
	if (!status_line("Seccomp:", "2") || !status_line("NoNewPrivs:", "1") ||
	    !status_line("CapEff:", "0000000000000000"))
		return 1;
	if (!big)
		return 2;
	memset(big, 1, 8 << 20);
	free(big);
	if (pthread_create(&t, NULL, thread_fn, (void *)1) || pthread_join(t, &r) || r != (void *)1)
		return 3;
	if (geteuid() == 0)
		return 4;
	return 0;
}

static int netlink(void *arg)
{
	(void)arg;
	socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	return 0;
}

static int write_file(void *arg)
{
	(void)arg;
	open("/tmp/gatewayd-sandbox-test", O_WRONLY | O_CREAT, 0600);
	return 0;
}

static int exec_sh(void *arg)
{
	char *argv[] = { "/bin/true", NULL };

	(void)arg;
	execv(argv[0], argv);
	return 0;
}

/* the ioctl a compromised process would type into its terminal with */
static int tiocsti(void *arg)
{
	char c = 'x';

	(void)arg;
	ioctl(2, TIOCSTI, &c);
	return 0;
}

static int tcgets(void *arg)
{
	struct termios t;

	(void)arg;
	tcgetattr(2, &t);
	return 0;
}

/* a thread's name: the one prctl libmicrohttpd makes */
static int set_name(void *arg)
{
	(void)arg;
	return prctl(PR_SET_NAME, "sandboxed", 0, 0, 0) == 0 ? 0 : 1;
}

static int set_dumpable(void *arg)
{
	(void)arg;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* memory that can be written and executed, or made executable later: code written into it
 * could be run */
static int map_exec(void *arg)
{
	(void)arg;
	mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return 0;
}

static int protect_exec(void *arg)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return 1;
	memset(p, 0xc3, 4096);
	mprotect(p, 4096, PROT_READ | PROT_EXEC);
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **ptr)
{
	static const char body[] = "sandboxed";
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)cls; (void)url; (void)method; (void)version; (void)data; (void)size; (void)ptr;
	r = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd on the inherited socket, as the web process will run it; answers one
 * request, then the parent's closing the pipe ends it */
static int serve(void *arg)
{
	int *fds = arg;
	char b;
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
						MHD_USE_EPOLL | MHD_USE_ITC, 0, NULL, NULL,
						answer, NULL, MHD_OPTION_LISTEN_SOCKET, fds[0],
						MHD_OPTION_END);

	if (!d)
		return 5;
	(void)!read(fds[1], &b, 1);
	MHD_stop_daemon(d);
	return 0;
}

static void test_http(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t alen = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), p[2], fds[2], st = 0, c;
	char buf[512] = "";
	ssize_t n, got = 0;
	pid_t pid;

	bind(ls, (struct sockaddr *)&a, sizeof(a));
	listen(ls, 8);
	getsockname(ls, (struct sockaddr *)&a, &alen);
	CHECK(pipe(p) == 0, "pipe");
	fds[0] = ls;
	fds[1] = p[0];
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		enter();
		_exit(serve(fds));
	}
	close(p[0]);
	c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(connect(c, (struct sockaddr *)&a, sizeof(a)) == 0, "connect to the server");
	dprintf(c, "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n");
	while ((n = read(c, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(c);
	CHECK(strstr(buf, "200 OK") && strstr(buf, "sandboxed"),
	      "libmicrohttpd under the filter answers 200 (%.40s)", buf);
	close(p[1]);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "and stops cleanly (status %#x)", st);
	close(ls);
}

int main(void)
{
	int st;

	st = in_child(allowed, NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "sandboxed: Seccomp 2, NoNewPrivs 1, CapEff 0, not root; threads and memory work "
	      "(status %#x)", st);
	st = in_child(netlink, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "a netlink socket: killed by SIGSYS "
	      "(status %#x)", st);
	st = in_child(write_file, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "a file opened for writing: SIGSYS "
	      "(status %#x)", st);
	st = in_child(exec_sh, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "execve: SIGSYS (status %#x)", st);
	st = in_child(tiocsti, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "ioctl TIOCSTI: SIGSYS (status %#x)", st);
	st = in_child(tcgets, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "any ioctl, even TCGETS: SIGSYS (status "
	      "%#x)", st);
	st = in_child(set_name, NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "prctl PR_SET_NAME works (status %#x)", st);
	st = in_child(set_dumpable, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "another prctl (PR_SET_DUMPABLE): SIGSYS "
	      "(status %#x)", st);
	st = in_child(map_exec, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "mmap with PROT_EXEC: SIGSYS (status %#x)",
	      st);
	st = in_child(protect_exec, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "mprotect to PROT_EXEC of written "
	      "memory: SIGSYS (status %#x)", st);
	test_http();
	return tap_done();
}
