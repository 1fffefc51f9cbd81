/* webui/launcher.c: the web launcher, a process the daemon forks at start, before it gives up
 * root: it keeps CAP_SETUID, CAP_SETGID and CAP_KILL and nothing else, holds no fd but its
 * socket to the daemon, and on the daemon's word forks the web process (webui/webproc.c) and
 * each one after it, runs the daemon's helper programs as nobody, and kills what it started
 * when told or when the daemon goes. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "sys/clock.h"
#include "sys/forked.h"
#include "sys/helper.h"
#include "sys/log.h"
#include "sys/privdrop.h"
#include "webui/launcher.h"
#include "webui/webproc.h"

#define MAX_KIDS 16
#define RETIRE_S 1.0		/* a replaced web process has this long to go, then SIGKILL */

struct kid {
	pid_t pid;
	int pidfd;
	bool web;
	double kill_at;		/* 0: none set */
};

struct launcher {
	int zs;
	pid_t me;
	struct kid kids[MAX_KIDS];
	size_t n;
};

/* Whether q (len bytes of it, with n fds, recvmsg's flags) is a request the launcher takes. */
static bool well_formed(const struct gw_launcher_req *q, size_t len, size_t n, int flags)
{
	if (len < GW_LAUNCHER_HDR || q->magic != GW_LAUNCHER_MAGIC || (flags & MSG_CTRUNC) ||
	    q->what < GW_LAUNCHER_WEB || q->what > GW_LAUNCHER_KILL)
		return false;
	if (q->what == GW_LAUNCHER_WEB)
		return q->n_listen >= 1 && q->n_listen <= GW_WEBUI_MAX_LISTEN &&
		       n == 1 + q->n_listen + (size_t)__builtin_popcount(q->files & 7);
	if (q->what == GW_LAUNCHER_HELPER)
		return q->argc >= 1 && q->argc <= GW_HELPER_MAX_ARGS && n == 1;
	return n == 0;
}

/* A request and its fds (n of them); 0, or -1 at the end of the stream (or a broken one).
 * A request that is not one has its fds closed and what set to 0. */
static int launch_recv(int zs, struct gw_launcher_req *q, int *fds, size_t *n)
{
	union {
		char buf[CMSG_SPACE(GW_LAUNCHER_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, sizeof(*q) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t r = recvmsg(zs, &m, MSG_CMSG_CLOEXEC);

	*n = 0;
	if (r <= 0)
		return r < 0 && errno == EINTR ? 0 : -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				/* more than any request has: closed, and refused below */
				if (*n < GW_LAUNCHER_MAX_FDS)
					fds[(*n)++] = fd;
				else
					close(fd);
			}
		}
	if (!well_formed(q, (size_t)r, *n, m.msg_flags)) {
		for (size_t i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		q->what = 0;
		return 0;
	}
	/* argc strings, each ending inside what came */
	if (q->what == GW_LAUNCHER_HELPER) {
		size_t len = (size_t)r - GW_LAUNCHER_HDR, ends = 0;

		for (size_t i = 0; i < len; i++)
			ends += q->args[i] == '\0';
		if (ends < q->argc || q->args[0] == '\0') {
			close(fds[0]);
			*n = 0;
			q->what = 0;
		}
	}
	return 0;
}

static void launch_say(int zs, uint32_t what, uint32_t seq, pid_t pid, int status)
{
	struct gw_launcher_msg m = { what, seq, (int32_t)pid, status };

	/* a SOCK_SEQPACKET of 16 bytes: it goes whole or the daemon is gone */
	send(zs, &m, sizeof(m), MSG_NOSIGNAL);
}

static void launch_forget(struct launcher *l, size_t i)
{
	close(l->kids[i].pidfd);
	l->kids[i] = l->kids[--l->n];
}

static void launch_reap(struct launcher *l)
{
	for (size_t i = 0; i < l->n;) {
		int status;
		pid_t r = waitpid(l->kids[i].pid, &status, WNOHANG);

		if (r != l->kids[i].pid) {
			i++;
			continue;
		}
		launch_say(l->zs, GW_LAUNCHER_DIED, 0, l->kids[i].pid, status);
		launch_forget(l, i);
	}
}

static struct kid *launch_find(struct launcher *l, pid_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->kids[i].pid == pid)
			return &l->kids[i];
	return NULL;
}

/* SIGKILL through the pidfd: never another process that took a reaped one's pid. */
static void launch_kill(struct kid *k)
{
	pidfd_send_signal(k->pidfd, SIGKILL, NULL, 0);
	k->kill_at = 0;
}

/* Kill what is due; the poll timeout (ms) until the next one, -1 for none. */
static int launch_deadlines(struct launcher *l)
{
	double now = gw_mono_now(), next = 0;

	for (size_t i = 0; i < l->n; i++) {
		struct kid *k = &l->kids[i];

		if (k->kill_at > 0 && k->kill_at <= now)
			launch_kill(k);
		else if (k->kill_at > 0 && (next == 0 || k->kill_at < next))
			next = k->kill_at;
	}
	return next > 0 ? (int)((next - now) * 1000) + 1 : -1;
}

/* The process a start request makes, in the child forked for it. Never returns. */
static void __attribute__((noreturn)) launch_child(struct launcher *l,
						   const struct gw_launcher_req *q, int *fds)
{
	const char *argv[GW_HELPER_MAX_ARGS + 1];
	const uid_t avoid[] = { q->daemon_uid, getuid() };
	int files[GW_WEBPROC_FILES], k = 1 + (int)q->n_listen;
	const char *a = q->args;

	close(l->zs);
	for (size_t i = 0; i < l->n; i++)
		close(l->kids[i].pidfd);
	if (q->what == GW_LAUNCHER_WEB) {
		for (int i = 0; i < GW_WEBPROC_FILES; i++)
			files[i] = q->files & (1u << i) ? fds[k++] : -1;
		gw_webproc_main(fds[0], fds + 1, q->n_listen, files, l->me, q->daemon_uid);
	}
	for (uint32_t i = 0; i < q->argc; i++) {
		argv[i] = a;
		a += strlen(a) + 1;
		if (a > q->args + GW_LAUNCHER_ARGS)
			_exit(126);
	}
	argv[q->argc] = NULL;
	gw_helper_exec(argv, fds[0], true, avoid, sizeof(avoid) / sizeof(avoid[0]));
}

/* A start request: forked, watched through a pidfd, answered with its pid (or -errno). */
static void launch_start(struct launcher *l, const struct gw_launcher_req *q, int *fds, size_t n)
{
	pid_t pid = l->n < MAX_KIDS ? fork() : (errno = EAGAIN, -1);
	int e = errno, pidfd = -1;

	if (pid == 0)
		launch_child(l, q, fds);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	if (pid > 0 && (pidfd = (int)pidfd_open(pid, 0)) < 0) {
		e = errno;
		kill(pid, SIGKILL);	/* unwatched, it could not be reported */
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	if (pid > 0)
		l->kids[l->n++] = (struct kid){ pid, pidfd, q->what == GW_LAUNCHER_WEB, 0 };
	launch_say(l->zs, GW_LAUNCHER_STARTED, q->seq, pid > 0 ? pid : 0, pid > 0 ? 0 : -e);
}

static void launch_request(struct launcher *l, struct gw_launcher_req *q, int *fds, size_t n)
{
	struct kid *k;

	switch (q->what) {
	case GW_LAUNCHER_WEB:
	case GW_LAUNCHER_HELPER:
		launch_start(l, q, fds, n);
		break;
	case GW_LAUNCHER_RETIRE:
		/* a web process a new one replaces: it has a second to go */
		if ((k = launch_find(l, q->pid)) && k->web && !k->kill_at)
			k->kill_at = gw_mono_now() + RETIRE_S;
		break;
	case GW_LAUNCHER_KILL:		/* a helper: at once */
		if ((k = launch_find(l, q->pid)) && !k->web)
			launch_kill(k);
		break;
	}
}

void gw_launcher_main(int zs, pid_t parent)
{
	struct pollfd pfd[1 + MAX_KIDS];
	struct launcher l = { .zs = zs, .me = getpid() };
	static struct gw_launcher_req q;
	int keep[2] = { zs, gw_webproc_test.hook ? gw_webproc_test.fd : -1 };
	char err[256];
	int r;

	gw_forked_signals();
	signal(SIGPIPE, SIG_IGN);	/* the daemon gone: an error on its socket, not a death */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || gw_forked_detach() < 0)
		_exit(1);
	gw_forked_close_except(keep, 2);
	prctl(PR_SET_NAME, "gatewayd-weblaunch", 0, 0, 0);
	if ((r = gw_keep_launcher_caps(err, sizeof(err))) < 0) {
		gw_log(GW_LOG_ERR, "web process launcher: %s", err);
		_exit(2);
	}
	if (r)
		gw_log(GW_LOG_WARNING, "web process launcher: %s", err);
	for (;;) {
		int fds[GW_LAUNCHER_MAX_FDS], timeout = launch_deadlines(&l);
		size_t n;

		pfd[0] = (struct pollfd){ .fd = zs, .events = POLLIN };
		for (size_t i = 0; i < l.n; i++)
			pfd[1 + i] = (struct pollfd){ .fd = l.kids[i].pidfd, .events = POLLIN };
		if (poll(pfd, 1 + l.n, timeout) < 0 && errno != EINTR)
			break;
		launch_reap(&l);
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (launch_recv(zs, &q, fds, &n) < 0)
			break;
		launch_request(&l, &q, fds, n);
	}
	/* the daemon is stopping (or gone): helpers go now; each web process reads the end of
	 * its own stream, and one that is not gone within a second is killed */
	for (size_t i = 0; i < l.n; i++)
		l.kids[i].kill_at = l.kids[i].web ? gw_mono_now() + RETIRE_S : gw_mono_now();
	while (l.n) {
		int timeout = launch_deadlines(&l);

		for (size_t i = 0; i < l.n; i++)
			pfd[i] = (struct pollfd){ .fd = l.kids[i].pidfd, .events = POLLIN };
		poll(pfd, l.n, timeout);
		launch_reap(&l);
	}
	_exit(0);
}
