/* gatewayd/webchild.c: the web process: forked over a socketpair, unprivileged and sandboxed,
 * fed wire frames without ever blocking the loop, and restarted with a back-off when it dies. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "gatewayd/sys/log.h"
#include "gatewayd/sys/memtune.h"
#include "gatewayd/sys/privdrop.h"
#include "gatewayd/sys/sandbox.h"
#include "gatewayd/histfeed.h"
#include "gatewayd/webchild.h"
#include "qdisc/qdisc.h"
#include "webui/lastcmp.h"
#include "webui/webui.h"

#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 30.0
#define STABLE_S 60.0		/* up this long: the next death restarts at BACKOFF_MIN_S */
#define MAX_KINDS 16
#define GW_WEBCHILD_LAUNCH 0x4c574747u	/* "GGWL": a launch request */

struct gw_webchild {
	struct gw_wire_settings ws;
	int fds[GW_WEBUI_MAX_LISTEN];
	size_t n_fds;
	pid_t pid;			/* the web process; 0: none */
	int sock;			/* the parent's end; -1 while no process runs */
	pid_t zpid;			/* the launcher */
	int zsock;			/* to the launcher; -1: it is gone */
	struct gw_wire_buf out;		/* whole frames not yet all written */
	size_t out_off;
	double backoff_s, next_start, up_since, down_since, down_total;
	uint64_t restarts, dropped;
	bool planned;			/* the next start is a new listen address's, not a death's */
	struct gw_snapshot *last;	/* the newest sent (a reference): a new process's first */
};

/* ---- the web process ---- */

static void default_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
}


static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gw_snapshot *child_cur;
static struct gw_lastcmp child_cmp;
static struct gw_histfeed *child_hist;

static struct gw_snapshot *child_get(void *ctx)
{
	(void)ctx;
	return gw_snapshot_take(&child_lock, &child_cur);
}

static int child_compare(void *ctx, const char *name, char **body, size_t *len, char *err,
			 size_t errlen)
{
	(void)ctx;
	return gw_lastcmp_read(&child_cmp, name, body, len, err, errlen);
}

static int child_history(void *ctx, const char *link, const char *direction,
			 const char *class_name, double from, double to, bool minute,
			 struct gw_hist_point *out, size_t max)
{
	(void)ctx;
	return child_hist ? gw_histfeed_query(child_hist, link, direction, class_name, from, to,
					      minute, out, max) : -ENOENT;
}

static void child_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	gw_log(level <= 3 ? GW_LOG_ERR : level == 4 ? GW_LOG_WARNING : GW_LOG_INFO, "web: %s",
	       msg);
}

/* Every fd but stdio, the socket and the listening sockets: the parent's netlink and raw
 * sockets must not stay reachable from the process that parses requests. */
static void close_others(int sock, const int *fds, size_t n)
{
	int keep[GW_WEBUI_MAX_LISTEN + 1], nk = 0, from = 3;

	keep[nk++] = sock;
	for (size_t i = 0; i < n; i++)
		keep[nk++] = fds[i];
	for (int i = 1; i < nk; i++)	/* a few: insertion sort */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < nk; i++) {
		if (keep[i] > from)
			close_range((unsigned int)from, (unsigned int)keep[i] - 1, 0);
		if (keep[i] + 1 > from)
			from = keep[i] + 1;
	}
	close_range((unsigned int)from, ~0u, 0);
}

static int child_serve(struct gw_webui **w, const struct gw_wire_settings *ws, const int *fds,
		       char *err, size_t errlen)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;
	struct gw_webui_source src = { NULL, child_get, child_history, child_compare };
	size_t n = gw_wire_settings_opts(ws, listen, &o, hosts);

	o.listen_fds = fds;
	o.log = child_log;
	gw_lastcmp_set_dir(&child_cmp, ws->compare_dir[0] ? ws->compare_dir : "");
	if (*w)
		return gw_webui_reconfigure(*w, listen, n, &o, err, errlen) < 0 ? -1 : 0;
	return gw_webui_start_opts(listen, n, &o, &src, w, err, errlen);
}

static void child_frame(struct gw_webui **w, const struct gw_wire_hdr *h, const uint8_t *p,
			const int *fds)
{
	const struct gw_xstats_desc *kinds[MAX_KINDS];
	size_t n_kinds = gw_qdisc_xdescs(kinds, MAX_KINDS);
	struct gw_wire_settings *ws;
	struct gw_snapshot *s;
	char err[512];
	int r;

	if (h->type == GW_WIRE_SNAPSHOT) {
		if ((r = gw_wire_get_snapshot(p, h->len, kinds, n_kinds, &s))) {
			gw_log(GW_LOG_ERR, "web: a snapshot refused: %s", strerror(-r));
			return;
		}
		if (child_hist && (r = gw_histfeed_push(child_hist, s)))
			gw_log(GW_LOG_ERR, "web: history: %s; this pass is not kept", strerror(-r));
		gw_snapshot_publish(&child_lock, &child_cur, s);
	} else if (h->type == GW_WIRE_SETTINGS && (ws = malloc(sizeof(*ws)))) {
		if ((r = gw_wire_get_settings(p, h->len, ws)))
			gw_log(GW_LOG_ERR, "web: settings refused: %s", strerror(-r));
		else if (child_serve(w, ws, fds, err, sizeof(err)))
			gw_log(GW_LOG_ERR, "web: %s", err);
		free(ws);
	}
}

/* Read frames from sock until the stream ends or breaks; with first, only until the first
 * settings frame has been taken (the server started). 0 or -1 (the stream is over). */
static int child_read(int sock, struct gw_wire_rx *rx, struct gw_webui **w, const int *fds,
		      bool first)
{
	struct gw_wire_hdr h;
	const uint8_t *p;
	int r;

	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };

		while ((r = gw_wire_rx_next(rx, &h, &p)) == 1) {
			bool settings = h.type == GW_WIRE_SETTINGS;

			child_frame(w, &h, p, fds);
			if (first && settings)
				return 0;
		}
		if (r < 0) {
			gw_log(GW_LOG_ERR, "web: the stream from the daemon: %s", strerror(-r));
			return -1;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -1;
		r = (int)gw_wire_rx_read(rx, sock);
		if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR))
			return -1;	/* the parent is gone or stopped us */
	}
}

static void __attribute__((noreturn)) child_main(int sock, const int *fds, size_t n,
						 pid_t parent)
{
	struct gw_webui *w = NULL;
	struct gw_wire_rx rx = { .buf = NULL };
	char err[512];
	bool root;

	/* the launcher's signal mask and handlers are its own: this process takes the defaults.
	 * It does not die with the launcher: it ends with its stream from the daemon (at the
	 * daemon's stop or death, or when a new one takes its sockets), so a launcher that is
	 * killed leaves the page up, only no longer restartable. */
	default_signals();
	if (getppid() != parent)
		_exit(1);
	close_others(sock, fds, n);
	/* One malloc arena for every thread: glibc gives each HTTP thread an arena of its own,
	 * which keeps what its largest rendering took (1.35 MB of /metrics at 1000 classes, with
	 * its JSON tree) long after; with one, the daemon at 1000 idle classes and full history
	 * rings held 19-20 MB instead of 20-26 (BENCHMARKS.md, section 4, when the daemon served
	 * its page itself). The threads allocate little and seldom, so they do not contend. And
	 * fixed thresholds, so a rendering's big blocks go back (gatewayd/sys/memtune.h). Set
	 * here, not inherited: under systemd this process is exec'd. */
	gw_malloc_tune(true);
	/*
	 * As root the server starts first (on the settings the daemon sends first), so the auth
	 * and TLS files are read as they were by the daemon (root's, mode 0600), and then the
	 * uid goes: glibc changes it in every thread, and the kernel empties their capabilities
	 * with it. A process that is not root (systemd's DynamicUser) has no files to gain: it
	 * drops its capabilities before any thread exists (capset is per thread). The filter
	 * comes last, in every thread (TSYNC).
	 */
	root = geteuid() == 0 || getuid() == 0;
	if (!root && gw_drop_to_nobody(err, sizeof(err)))
		goto fail;
	gw_lastcmp_init(&child_cmp, NULL);
	gw_histfeed_new(&child_hist);
	if (child_read(sock, &rx, &w, fds, true) < 0)
		_exit(0);
	if ((root && gw_drop_to_nobody(err, sizeof(err))) || gw_sandbox_web(err, sizeof(err)))
		goto fail;
	child_read(sock, &rx, &w, fds, false);
	_exit(0);	/* the kernel frees the rest; no server thread outlives this */
fail:
	gw_log(GW_LOG_ERR, "web: %s", err);
	_exit(2);
}

/* ---- the launcher ----
 *
 * A web process must become nobody, which takes CAP_SETUID and CAP_SETGID; the daemon gives
 * those up once started (it keeps CAP_NET_ADMIN and CAP_NET_RAW alone). So the web processes
 * are forked by a launcher forked at start, before that: it keeps CAP_SETUID, CAP_SETGID and
 * CAP_KILL and nothing else, holds no fd but its socket to the daemon, and does three things:
 * on a request (the new process's socket and the listening sockets, SCM_RIGHTS) it forks a
 * web process and answers its pid; when one dies it says so, with its wait status; at the end
 * of its socket it stops the one running and exits. */

#define LAUNCH_MAX_FDS (1 + GW_WEBUI_MAX_LISTEN)
#define LAUNCH_MAX_KIDS 8

/* launcher -> daemon */
struct launch_msg {
	uint32_t what;		/* LAUNCH_STARTED, LAUNCH_DIED */
	int32_t pid;
	int32_t status;		/* a wait status (LAUNCH_DIED), or -errno (a failed fork) */
};

enum { LAUNCH_STARTED = 1, LAUNCH_DIED = 2 };

/* n fds out of a request; -1 at the end of the stream (or a broken one). */
static int launch_recv(int zs, int *fds, size_t *n)
{
	union {
		char buf[CMSG_SPACE(LAUNCH_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	uint32_t magic = 0;
	struct iovec iov = { &magic, sizeof(magic) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t r = recvmsg(zs, &m, MSG_CMSG_CLOEXEC);

	*n = 0;
	if (r <= 0)
		return r < 0 && errno == EINTR ? 0 : -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds + *n, CMSG_DATA(c), k * sizeof(int));
			*n += k;
		}
	if (r != sizeof(magic) || magic != GW_WEBCHILD_LAUNCH || *n < 2) {
		for (size_t i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
	}
	return 0;
}

static void launch_say(int zs, uint32_t what, pid_t pid, int status)
{
	struct launch_msg m = { what, (int32_t)pid, status };

	/* a SOCK_SEQPACKET of 12 bytes: it goes whole or the daemon is gone */
	send(zs, &m, sizeof(m), MSG_NOSIGNAL);
}

static void launch_reap(int zs, int *pidfds, pid_t *kids, size_t *n_kids, bool all)
{
	for (size_t i = 0; i < *n_kids;) {
		int status;
		pid_t r = waitpid(kids[i], &status, all ? 0 : WNOHANG);

		if (r != kids[i]) {
			i++;
			continue;
		}
		launch_say(zs, LAUNCH_DIED, kids[i], status);
		close(pidfds[i]);
		pidfds[i] = pidfds[*n_kids - 1];
		kids[i] = kids[*n_kids - 1];
		(*n_kids)--;
	}
}

/*
 * Not root (systemd's DynamicUser with ambient CAP_NET_ADMIN and CAP_NET_RAW): the unit's
 * filter refuses capset, so the web process sheds its capabilities the one other way there
 * is: the ambient set cleared, it executes this binary again (no file capabilities,
 * no_new_privs), which leaves it none (gw_webchild_exec_main takes over there).
 */
static void __attribute__((noreturn)) exec_web(const int *fds, size_t n, pid_t launcher)
{
	char args[LAUNCH_MAX_FDS + 4][24];
	char *argv[LAUNCH_MAX_FDS + 6];
	size_t k = 0;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		goto fail;
	argv[k++] = (char *)"gatewayd";
	argv[k++] = (char *)"--web-process";
	snprintf(args[0], sizeof(args[0]), "%d", (int)launcher);
	snprintf(args[1], sizeof(args[1]), "%d", gw_log_verbose());
	argv[k++] = args[0];
	argv[k++] = args[1];
	for (size_t i = 0; i < n; i++) {
		if (fcntl(fds[i], F_SETFD, 0) < 0)	/* this one crosses the exec */
			goto fail;
		snprintf(args[2 + i], sizeof(args[2 + i]), "%d", fds[i]);
		argv[k++] = args[2 + i];
	}
	argv[k] = NULL;
	execv("/proc/self/exe", argv);
fail:
	gw_log(GW_LOG_ERR, "web process: re-executing to shed its capabilities: %s",
	       strerror(errno));
	_exit(2);
}

/* A number argument of --web-process: 0 and *v, or -1. */
static int num_arg(const char *s, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < 0 || x > 1 << 30)
		return -1;
	*v = (int)x;
	return 0;
}

int gw_webchild_exec_main(int argc, char **argv)
{
	int launcher, verbose, fds[LAUNCH_MAX_FDS];
	size_t n = 0;

	if (argc < 6 || argc - 4 > LAUNCH_MAX_FDS || num_arg(argv[2], &launcher) ||
	    num_arg(argv[3], &verbose)) {
		fprintf(stderr, "gatewayd: --web-process is gatewayd's own (its web process)\n");
		return 2;
	}
	for (int i = 4; i < argc; i++)
		if (num_arg(argv[i], &fds[n++]))
			return 2;
	gw_log_set_verbose(verbose);
	child_main(fds[0], fds + 1, n - 1, (pid_t)launcher);
}

static void __attribute__((noreturn)) launcher_main(int zs, pid_t parent)
{
	struct pollfd pfd[1 + LAUNCH_MAX_KIDS];
	int pidfds[LAUNCH_MAX_KIDS];
	pid_t kids[LAUNCH_MAX_KIDS], me = getpid();
	size_t n_kids = 0;
	char err[256];

	default_signals();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	close_others(zs, NULL, 0);
	if (gw_keep_web_launcher_caps(err, sizeof(err)) < 0) {
		gw_log(GW_LOG_ERR, "web process launcher: %s", err);
		_exit(2);
	}
	prctl(PR_SET_NAME, "gatewayd-weblaunch", 0, 0, 0);
	for (;;) {
		int fds[LAUNCH_MAX_FDS];
		size_t n;
		pid_t pid;

		pfd[0] = (struct pollfd){ .fd = zs, .events = POLLIN };
		for (size_t i = 0; i < n_kids; i++)
			pfd[1 + i] = (struct pollfd){ .fd = pidfds[i], .events = POLLIN };
		if (poll(pfd, 1 + n_kids, -1) < 0 && errno != EINTR)
			break;
		launch_reap(zs, pidfds, kids, &n_kids, false);
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (launch_recv(zs, fds, &n) < 0)
			break;
		if (!n)
			continue;
		pid = n_kids < LAUNCH_MAX_KIDS ? fork() : (errno = EAGAIN, -1);
		if (pid == 0) {
			close(zs);
			if (getuid() != 0 && geteuid() != 0)
				exec_web(fds, n, me);
			child_main(fds[0], fds + 1, n - 1, me);
		}
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		if (pid > 0 && (pidfds[n_kids] = (int)pidfd_open(pid, 0)) >= 0) {
			kids[n_kids++] = pid;
		} else if (pid > 0) {
			kill(pid, SIGKILL);	/* unwatched, it could not be reported */
			waitpid(pid, NULL, 0);
			pid = -1;
		}
		launch_say(zs, LAUNCH_STARTED, pid > 0 ? pid : 0, pid > 0 ? 0 : -errno);
	}
	/* the daemon is stopping (or gone): the web process reads the end of its own stream;
	 * one that does not go within a second is killed */
	for (int i = 0; i < 100 && n_kids; i++) {
		const struct timespec tick = { 0, 10 * 1000 * 1000 };

		launch_reap(zs, pidfds, kids, &n_kids, false);
		if (n_kids)
			nanosleep(&tick, NULL);
	}
	for (size_t i = 0; i < n_kids; i++)
		kill(kids[i], SIGKILL);
	launch_reap(zs, pidfds, kids, &n_kids, true);
	_exit(0);
}

/* ---- the parent's side ---- */

static void launcher_gone(struct gw_webchild *c)
{
	if (c->zsock >= 0)
		close(c->zsock);
	c->zsock = -1;
	if (c->zpid > 0)
		waitpid(c->zpid, NULL, 0);
	c->zpid = 0;
	gw_log(GW_LOG_ERR, "web process launcher gone: the page goes on, but is not started "
	       "again if it ends (shaping goes on)");
}

/* What the launcher says: a process started (its pid, returned) or one that died (logged,
 * and reaped in c when it is c's). wait: up to 2 s for a start's answer. */
static pid_t launch_hear(struct gw_webchild *c, double now, bool wait)
{
	struct launch_msg m;
	ssize_t n;

	while (c->zsock >= 0) {
		struct pollfd pfd = { .fd = c->zsock, .events = POLLIN };

		if (wait && poll(&pfd, 1, 2000) <= 0) {
			gw_log(GW_LOG_ERR, "web process launcher: no answer");
			return -1;
		}
		n = recv(c->zsock, &m, sizeof(m), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR) && !wait)
			return 0;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n != (ssize_t)sizeof(m)) {
			launcher_gone(c);
			return -1;
		}
		if (m.what == LAUNCH_STARTED && wait)
			return m.pid > 0 ? m.pid : -1;
		if (m.what != LAUNCH_DIED || m.pid != c->pid || c->pid <= 0)
			continue;
		if (WIFSIGNALED(m.status))
			gw_log(GW_LOG_ERR, "web process %d killed by signal %d (%s); shaping goes on",
			       (int)c->pid, WTERMSIG(m.status), strsignal(WTERMSIG(m.status)));
		else
			gw_log(GW_LOG_ERR, "web process %d exited with status %d; shaping goes on",
			       (int)c->pid, WEXITSTATUS(m.status));
		if (now - c->up_since >= STABLE_S)
			c->backoff_s = BACKOFF_MIN_S;
		c->pid = 0;
		if (c->sock >= 0)
			close(c->sock);
		c->sock = -1;
		c->out.len = c->out_off = 0;
		c->down_since = now;
		c->next_start = now + c->backoff_s;
		gw_log(GW_LOG_INFO, "web process: restarting in %.1f s", c->backoff_s);
		c->backoff_s = c->backoff_s * 2 < BACKOFF_MAX_S ? c->backoff_s * 2 : BACKOFF_MAX_S;
	}
	return -1;
}

/* Ask the launcher for a web process on a new socketpair and the listening sockets; its
 * first frame is the settings. */
static int spawn(struct gw_webchild *c, double now, char *err, size_t errlen)
{
	union {
		char buf[CMSG_SPACE(LAUNCH_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	uint32_t magic = GW_WEBCHILD_LAUNCH;
	struct iovec iov = { &magic, sizeof(magic) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = CMSG_SPACE((1 + c->n_fds) * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	pid_t pid;
	int sv[2], e;

	if (c->zsock < 0) {
		snprintf(err, errlen, "web process: its launcher is gone");
		return -ECHILD;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		snprintf(err, errlen, "web process: socketpair: %s", strerror(errno));
		return -errno;
	}
	memset(u.buf, 0, sizeof(u.buf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN((1 + c->n_fds) * sizeof(int));
	memcpy(CMSG_DATA(cm), &sv[1], sizeof(int));
	memcpy(CMSG_DATA(cm) + sizeof(int), c->fds, c->n_fds * sizeof(int));
	e = sendmsg(c->zsock, &m, MSG_NOSIGNAL) < 0 ? errno : 0;
	close(sv[1]);
	pid = e ? -1 : launch_hear(c, now, true);
	if (pid <= 0) {
		close(sv[0]);
		snprintf(err, errlen, "web process: the launcher %s", e ? strerror(e) :
			 "could not start one");
		return e ? -e : -ECHILD;
	}
	c->sock = sv[0];
	c->pid = pid;
	c->up_since = now;
	c->out.len = c->out_off = 0;
	if (gw_wire_put_settings(&c->out, &c->ws))
		gw_log(GW_LOG_ERR, "web process %d: its settings could not be framed", (int)pid);
	/* the newest pass at once: a new process answers with it, not 503 until the next */
	if (c->last && gw_wire_put_snapshot(&c->out, c->last))
		c->dropped++;
	gw_log(GW_LOG_INFO, "web process %d started", (int)pid);
	return 0;
}

/* Write what is pending; a socket that failed is closed (the launcher reports the death). */
static void flush(struct gw_webchild *c)
{
	while (c->sock >= 0 && c->out_off < c->out.len) {
		ssize_t n = send(c->sock, c->out.p + c->out_off, c->out.len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			c->out_off += (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			return;
		} else {
			gw_log(GW_LOG_WARNING, "web process %d: the socket to it: %s", (int)c->pid,
			       n < 0 ? strerror(errno) : "closed");
			close(c->sock);
			c->sock = -1;
			/* no launcher to report its end and start another */
			if (c->zsock < 0)
				gw_log(GW_LOG_ERR, "web process %d gone, and its launcher before it: "
				       "no page until gatewayd is restarted", (int)c->pid);
		}
	}
	if (c->out_off >= c->out.len)
		c->out.len = c->out_off = 0;
}

int gw_webchild_start(const struct gw_wire_settings *ws, const int *fds, size_t n_fds,
		      double now, struct gw_webchild **out, char *err, size_t errlen)
{
	struct gw_webchild *c;
	pid_t parent = getpid();
	int zs[2], r;

	if (n_fds < 1 || n_fds > GW_WEBUI_MAX_LISTEN || n_fds != ws->n_listen) {
		snprintf(err, errlen, "web process: one socket per listen address needed");
		return -EINVAL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		snprintf(err, errlen, "web process: out of memory");
		return -ENOMEM;
	}
	c->ws = *ws;
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	c->sock = -1;
	c->backoff_s = BACKOFF_MIN_S;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, zs) < 0) {
		r = -errno;
		snprintf(err, errlen, "web process: socketpair: %s", strerror(errno));
		free(c);
		return r;
	}
	c->zpid = fork();
	if (c->zpid == 0) {
		close(zs[0]);
		launcher_main(zs[1], parent);
	}
	r = c->zpid < 0 ? -errno : 0;
	close(zs[1]);
	c->zsock = zs[0];
	if (r) {
		snprintf(err, errlen, "web process: fork: %s", strerror(-r));
		close(zs[0]);
		free(c);
		return r;
	}
	if ((r = spawn(c, now, err, errlen))) {
		gw_webchild_stop(c);
		return r;
	}
	*out = c;
	return 0;
}

void gw_webchild_send(struct gw_webchild *c, const struct gw_snapshot *s)
{
	if (!c)
		return;
	/* a reference of our own: snapshots are never changed once published */
	atomic_fetch_add(&((struct gw_snapshot *)s)->refs, 1);
	if (c->last)
		gw_snapshot_put(c->last);
	c->last = (struct gw_snapshot *)s;
	flush(c);
	if (c->sock < 0 || c->out.len) {
		c->dropped++;	/* never wait for the web process: the next pass has a newer one */
		return;
	}
	if (gw_wire_put_snapshot(&c->out, s))
		c->dropped++;
	flush(c);
}

void gw_webchild_settings(struct gw_webchild *c, const struct gw_wire_settings *ws)
{
	if (!c)
		return;
	c->ws = *ws;	/* a restarted process starts with these */
	/* after whatever is pending: a frame is never cut, and settings are never dropped
	 * (a process that misses them is one that died, and restarts with c->ws) */
	if (c->sock >= 0 && !gw_wire_put_settings(&c->out, ws))
		flush(c);
}

int gw_webchild_listen(struct gw_webchild *c, const struct gw_wire_settings *ws,
		       const int *fds, size_t n_fds, double now)
{
	if (!c || n_fds < 1 || n_fds > GW_WEBUI_MAX_LISTEN || n_fds != ws->n_listen)
		return -EINVAL;
	c->ws = *ws;
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	/* the process serving the old sockets ends with its stream; the launcher's report of
	 * its end is not a death to back off from */
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	c->out.len = c->out_off = 0;
	c->pid = 0;
	c->down_since = now;
	c->next_start = now;
	c->planned = true;
	return 0;
}

void gw_webchild_poll(struct gw_webchild *c, double now)
{
	char err[256];

	if (!c)
		return;
	flush(c);
	launch_hear(c, now, false);
	if (c->zpid > 0 && waitpid(c->zpid, NULL, WNOHANG) == c->zpid) {
		c->zpid = 0;
		launcher_gone(c);
	}
	if (c->pid == 0 && c->zsock >= 0 && now >= c->next_start) {
		if (spawn(c, now, err, sizeof(err))) {
			gw_log(GW_LOG_ERR, "%s", err);
			c->next_start = now + c->backoff_s;
			return;
		}
		if (!c->planned) {
			c->restarts++;
			c->down_total += now - c->down_since;
		}
		c->planned = false;
		flush(c);
	}
}

int gw_webchild_fd(const struct gw_webchild *c)
{
	return c ? c->sock : -1;
}

int gw_webchild_launcher_fd(const struct gw_webchild *c)
{
	return c ? c->zsock : -1;
}

double gw_webchild_next_start(const struct gw_webchild *c)
{
	return c && c->pid == 0 && c->zsock >= 0 ? c->next_start : -1;
}

bool gw_webchild_pending(const struct gw_webchild *c)
{
	return c && c->sock >= 0 && c->out_off < c->out.len;
}

void gw_webchild_stats(const struct gw_webchild *c, double now, struct gw_webchild_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!c)
		return;
	st->pid = c->pid;
	st->up = c->pid > 0;
	st->restarts = c->restarts;
	st->dropped = c->dropped;
	st->down_s = c->down_total + (c->pid > 0 ? 0 : now - c->down_since);
}

void gw_webchild_stop(struct gw_webchild *c)
{
	if (!c)
		return;
	if (c->sock >= 0)
		close(c->sock);	/* the process reads the end of the stream and exits */
	/* the launcher sees the end of its own, waits a second for the process to go (then
	 * kills it), reaps it and exits: nothing of ours is left, not even a zombie */
	if (c->zsock >= 0)
		close(c->zsock);
	if (c->zpid > 0)
		waitpid(c->zpid, NULL, 0);
	gw_wire_buf_free(&c->out);
	if (c->last)
		gw_snapshot_put(c->last);
	free(c);
}
