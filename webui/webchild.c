/* webui/webchild.c: the web process: started by a launcher that keeps what making it
 * another user takes, unprivileged and sandboxed before it reads a byte, fed wire frames
 * without ever blocking the loop, restarted with a back-off when it dies; the launcher also
 * runs the daemon's helper programs (iperf3) as nobody. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "sys/clock.h"
#include "sys/helper.h"
#include "sys/log.h"
#include "sys/memtune.h"
#include "sys/privdrop.h"
#include "sys/sandbox.h"
#include "webui/histfeed.h"
#include "webui/webchild.h"
#include "qdisc/qdisc.h"
#include "webui/lastcmp.h"
#include "webui/webui.h"

#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 30.0
#define STABLE_S 60.0		/* up this long: the next death restarts at BACKOFF_MIN_S */
#define RETIRE_S 1.0		/* a replaced web process has this long to go, then SIGKILL */
#define MAX_KINDS 16
#define GW_WEBCHILD_LAUNCH 0x4c574747u	/* "GGWL": a request to the launcher */

struct gw_webchild_test gw_webchild_test = { .fd = -1 };

struct gw_webchild {
	struct gw_wire_settings ws;
	int fds[GW_WEBUI_MAX_LISTEN];
	size_t n_fds;
	int files[GW_WEBCHILD_FILES];	/* the caller's open auth, cert and key files; -1: none */
	bool parked;			/* no process until gw_webchild_replace (its files failed) */
	pid_t pid;			/* the web process; 0: none */
	int sock;			/* the parent's end; -1 while no process runs */
	pid_t zpid;			/* the launcher */
	int zsock;			/* to the launcher; -1: it is gone */
	uint32_t seq;			/* the last request's number */
	struct gw_wire_buf out;		/* whole frames not yet all written */
	size_t out_off;
	double backoff_s, next_start, up_since, down_since, down_total;
	uint64_t restarts, dropped;
	int last_status;		/* the last web process's wait status; -1: none ended */
	bool planned;			/* the next start is a replacement's, not a death's */
	struct gw_snapshot *last;	/* the newest sent (a reference): a new process's first */
};

/* ---- what both the launcher and the web process do first ---- */

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

/* A session of its own (no controlling terminal: nothing to type into with TIOCSTI, no
 * SIGINT or SIGHUP from one) and stdin and stdout from /dev/null; stderr stays the log. */
static int detach(void)
{
	int null;

	if (setsid() < 0)
		return -errno;
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if (dup2(null, 0) < 0 || dup2(null, 1) < 0) {
		close(null);
		return -errno;
	}
	if (null > 1)
		close(null);
	return 0;
}

/* Every fd but stdio and keep's (n of them; -1s are skipped): the daemon's netlink and raw
 * sockets must not stay reachable from a process that parses requests. */
static void close_others(int *keep, int n)
{
	int from = 3;

	for (int i = 1; i < n; i++)	/* a few: insertion sort */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if (keep[i] > from)
			close_range((unsigned int)from, (unsigned int)keep[i] - 1, 0);
		if (keep[i] + 1 > from)
			from = keep[i] + 1;
	}
	close_range((unsigned int)from, ~0u, 0);
}

/* ---- the web process ---- */

static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gw_snapshot *child_cur;
static struct gw_lastcmp child_cmp;
static struct gw_histfeed *child_hist;
static atomic_bool child_asked;

static void test_hook(enum gw_webchild_stage stage)
{
	if (gw_webchild_test.hook)
		gw_webchild_test.hook(stage, gw_webchild_test.fd);
}

static struct gw_snapshot *child_get(void *ctx)
{
	(void)ctx;
	if (gw_webchild_test.hook && !atomic_exchange(&child_asked, true))
		test_hook(GW_WEB_REQUEST);	/* in the thread that answers a client */
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

/* The web process's own state: its sockets and files (fds), its server. */
struct child {
	int sock;
	const int *fds;			/* the listening sockets */
	int *files;			/* auth, cert, key: read once, at the server's start */
	struct gw_webui *w;
};

/*
 * The first settings: the server started on them. Its files come from the fds the daemon
 * opened (this process may not open them itself), are read once and closed. 0, or -1 with
 * the reason logged: the process then exits, and the daemon starts another after its
 * back-off (a process serving nothing would look up and answer no one).
 */
static int child_start(struct child *ch, const struct gw_wire_settings *ws)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;
	struct gw_webui_source src = { NULL, child_get, child_history, child_compare };
	size_t n = gw_wire_settings_opts(ws, listen, &o, hosts);
	char err[512];
	int r;

	o.listen_fds = ch->fds;
	o.file_fds = ch->files;
	o.log = child_log;
	gw_lastcmp_set_dir(&child_cmp, ws->compare_dir[0] ? ws->compare_dir : "");
	r = gw_webui_start_opts(listen, n, &o, &src, &ch->w, err, sizeof(err));
	for (int i = 0; i < GW_WEBCHILD_FILES; i++)
		if (ch->files[i] >= 0) {
			close(ch->files[i]);
			ch->files[i] = -1;
		}
	if (r) {
		gw_log(GW_LOG_ERR, "web: %s; this process ends", err);
		return -1;
	}
	return 0;
}

/* Later settings: the limits and the comparison's directory. Anything else (addresses,
 * files, Host names) the daemon gives to a new process, never to this one. */
static void child_settings(struct child *ch, const struct gw_wire_settings *ws)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;

	gw_wire_settings_opts(ws, listen, &o, hosts);
	gw_lastcmp_set_dir(&child_cmp, ws->compare_dir[0] ? ws->compare_dir : "");
	gw_webui_set_limits(ch->w, &o);
}

/* One frame from the daemon: 0, or -1 when the first settings could not be served. */
static int child_frame(struct child *ch, const struct gw_wire_hdr *h, const uint8_t *p)
{
	const struct gw_xstats_desc *kinds[MAX_KINDS];
	size_t n_kinds = gw_qdisc_xdescs(kinds, MAX_KINDS);
	struct gw_wire_settings *ws;
	struct gw_snapshot *s;
	int r;

	if (h->type == GW_WIRE_SNAPSHOT) {
		if ((r = gw_wire_get_snapshot(p, h->len, kinds, n_kinds, &s))) {
			gw_log(GW_LOG_ERR, "web: a snapshot refused: %s", strerror(-r));
			return 0;
		}
		if (child_hist && (r = gw_histfeed_push(child_hist, s)))
			gw_log(GW_LOG_ERR, "web: history: %s; this pass is not kept", strerror(-r));
		gw_snapshot_publish(&child_lock, &child_cur, s);
		return 0;
	}
	if (h->type != GW_WIRE_SETTINGS)
		return 0;
	if (!(ws = malloc(sizeof(*ws))) || (r = gw_wire_get_settings(p, h->len, ws))) {
		gw_log(GW_LOG_ERR, "web: settings refused: %s", ws ? strerror(-r) : "no memory");
		free(ws);
		return ch->w ? 0 : -1;
	}
	r = 0;
	if (ch->w)
		child_settings(ch, ws);
	else
		r = child_start(ch, ws);
	free(ws);
	return r;
}

/* Read frames until the stream ends or breaks (0), or the first settings fail (-1). */
static int child_read(struct child *ch)
{
	struct gw_wire_rx rx = { .buf = NULL };
	struct gw_wire_hdr h;
	const uint8_t *p;
	int r;

	for (;;) {
		struct pollfd pfd = { .fd = ch->sock, .events = POLLIN };
		bool started = ch->w != NULL;

		while ((r = gw_wire_rx_next(&rx, &h, &p)) == 1) {
			if (child_frame(ch, &h, p) < 0)
				return -1;
			if (!started && ch->w) {
				started = true;
				test_hook(GW_WEB_SERVING);
			}
		}
		if (r < 0) {
			gw_log(GW_LOG_ERR, "web: the stream from the daemon: %s", strerror(-r));
			return 0;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return 0;
		r = (int)gw_wire_rx_read(&rx, ch->sock);
		if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR))
			return 0;	/* the daemon is gone, or has a new process */
	}
}

/*
 * The web process, forked by the launcher. Everything that gives something up comes before
 * anything is read, from the daemon or from a client: its own session and no terminal, no
 * fd but its sockets and its files, a user of its own (never the daemon's, never root) with
 * no capability and no_new_privs, the filter (TSYNC, though no other thread exists yet).
 * Only then the daemon's settings are read and the server (its threads, its listening
 * sockets) started, so no client's byte is ever read before all of that is in place.
 */
static void __attribute__((noreturn)) child_main(int sock, const int *fds, size_t n,
						 int *files, pid_t parent, uid_t daemon_uid)
{
	static const char *const users[] = { GW_WEB_USER, "nobody", NULL };
	const uid_t avoid[] = { daemon_uid, getuid() };	/* the daemon's, the launcher's */
	int keep[2 + GW_WEBUI_MAX_LISTEN + GW_WEBCHILD_FILES];
	struct child ch = { .sock = sock, .fds = fds, .files = files };
	char err[512];
	int nk = 0;

	/* the launcher's signal mask and handlers are its own: this process takes the defaults.
	 * It does not die with the launcher: it ends with its stream from the daemon (at the
	 * daemon's stop or death, or when a new one takes over), so a launcher that is killed
	 * leaves the page up, only no longer restartable. */
	default_signals();
	if (getppid() != parent || detach() < 0)
		_exit(1);
	keep[nk++] = sock;
	for (size_t i = 0; i < n; i++)
		keep[nk++] = fds[i];
	for (int i = 0; i < GW_WEBCHILD_FILES; i++)
		keep[nk++] = files[i];
	keep[nk++] = gw_webchild_test.hook ? gw_webchild_test.fd : -1;
	close_others(keep, nk);
	prctl(PR_SET_NAME, "gatewayd-web", 0, 0, 0);
	if (gw_drop_to_user(users, avoid, sizeof(avoid) / sizeof(avoid[0]), err, sizeof(err)) ||
	    gw_sandbox_web(err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "web: %s", err);
		_exit(2);
	}
	test_hook(GW_WEB_DROPPED);
	/* One malloc arena for every thread: glibc gives each HTTP thread an arena of its own,
	 * which keeps what its largest rendering took (1.35 MB of /metrics at 1000 classes, with
	 * its JSON tree) long after; with one, the daemon at 1000 idle classes and full history
	 * rings held 19-20 MB instead of 20-26 (BENCHMARKS.md, section 4, when the daemon served
	 * its page itself). The threads allocate little and seldom, so they do not contend. And
	 * fixed thresholds, so a rendering's big blocks go back (sys/memtune.h). */
	gw_malloc_tune(true);
	gw_lastcmp_init(&child_cmp, NULL);
	gw_histfeed_new(&child_hist);
	if (child_read(&ch) < 0)
		_exit(3);
	_exit(0);	/* the kernel frees the rest; no server thread outlives this */
}

/* ---- the launcher ----
 *
 * The web process must become a user of its own, which takes CAP_SETUID and CAP_SETGID; the
 * daemon gives those up once started (it keeps CAP_NET_ADMIN and CAP_NET_RAW alone). So its
 * processes are forked by a launcher forked at start, before that: it keeps CAP_SETUID,
 * CAP_SETGID and CAP_KILL and nothing else, holds no fd but its socket to the daemon, and
 * answers requests on it (SOCK_SEQPACKET, fds by SCM_RIGHTS): start a web process (its
 * stream, the listening sockets, the files), start a helper program (its argv, the pipe for
 * its stdout), retire a web process (SIGKILL through its pidfd if it is still there a second
 * later), kill a helper. It says when a process started (its pid) and when one ended (its
 * wait status); at the end of its socket it kills the helpers, gives the web processes a
 * second to go, kills what is left and exits. */

#define LAUNCH_MAX_FDS (1 + GW_WEBUI_MAX_LISTEN + GW_WEBCHILD_FILES)
#define LAUNCH_MAX_KIDS 16
#define LAUNCH_ARGS 2048

enum launch_what { REQ_WEB = 1, REQ_HELPER, REQ_RETIRE, REQ_KILL };

/* daemon -> launcher */
struct launch_req {
	uint32_t magic;
	uint32_t what;		/* enum launch_what */
	uint32_t seq;		/* echoed in the answer to a start */
	int32_t pid;		/* REQ_RETIRE, REQ_KILL: which process */
	uint32_t daemon_uid;	/* a start: the uid the new process must not have */
	uint32_t n_listen;	/* REQ_WEB: listening sockets after its stream */
	uint32_t files;		/* REQ_WEB: which of auth, cert, key follow them (bits) */
	uint32_t argc;		/* REQ_HELPER: that many NUL-terminated strings in args */
	char args[LAUNCH_ARGS];
};

#define LAUNCH_HDR offsetof(struct launch_req, args)

/* launcher -> daemon */
struct launch_msg {
	uint32_t what;		/* LAUNCH_STARTED, LAUNCH_DIED */
	uint32_t seq;		/* LAUNCH_STARTED: the request's */
	int32_t pid;
	int32_t status;		/* a wait status (LAUNCH_DIED), or -errno (a failed start) */
};

enum { LAUNCH_STARTED = 1, LAUNCH_DIED = 2 };

struct kid {
	pid_t pid;
	int pidfd;
	bool web;
	double kill_at;		/* 0: none set */
};

struct launcher {
	int zs;
	pid_t me;
	struct kid kids[LAUNCH_MAX_KIDS];
	size_t n;
};

/* A request and its fds (n of them); 0, or -1 at the end of the stream (or a broken one).
 * A request that is not one has its fds closed and what set to 0. */
static int launch_recv(int zs, struct launch_req *q, int *fds, size_t *n)
{
	union {
		char buf[CMSG_SPACE(LAUNCH_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, sizeof(*q) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t r = recvmsg(zs, &m, MSG_CMSG_CLOEXEC);
	size_t want;

	*n = 0;
	if (r <= 0)
		return r < 0 && errno == EINTR ? 0 : -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (*n < LAUNCH_MAX_FDS)
					fds[(*n)++] = fd;
				else
					close(fd);	/* more than any request has: refused below */
			}
		}
	want = q->what == REQ_WEB ? 1 + q->n_listen + (size_t)__builtin_popcount(q->files & 7)
	       : q->what == REQ_HELPER ? 1 : 0;
	if ((size_t)r < LAUNCH_HDR || q->magic != GW_WEBCHILD_LAUNCH || (m.msg_flags & MSG_CTRUNC) ||
	    *n != want || (q->what == REQ_WEB && (q->n_listen < 1 ||
						  q->n_listen > GW_WEBUI_MAX_LISTEN)) ||
	    (q->what == REQ_HELPER && (q->argc < 1 || q->argc > GW_HELPER_MAX_ARGS)) ||
	    q->what < REQ_WEB || q->what > REQ_KILL) {
		for (size_t i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		q->what = 0;
		return 0;
	}
	/* argc strings, each ending inside what came */
	if (q->what == REQ_HELPER) {
		size_t len = (size_t)r - LAUNCH_HDR, ends = 0;

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
	struct launch_msg m = { what, seq, (int32_t)pid, status };

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
		launch_say(l->zs, LAUNCH_DIED, 0, l->kids[i].pid, status);
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
						   const struct launch_req *q, int *fds)
{
	const char *argv[GW_HELPER_MAX_ARGS + 1];
	const uid_t avoid[] = { q->daemon_uid, getuid() };
	int files[GW_WEBCHILD_FILES], k = 1 + (int)q->n_listen;
	const char *a = q->args;

	close(l->zs);
	for (size_t i = 0; i < l->n; i++)
		close(l->kids[i].pidfd);
	if (q->what == REQ_WEB) {
		for (int i = 0; i < GW_WEBCHILD_FILES; i++)
			files[i] = q->files & (1u << i) ? fds[k++] : -1;
		child_main(fds[0], fds + 1, q->n_listen, files, l->me, q->daemon_uid);
	}
	for (uint32_t i = 0; i < q->argc; i++) {
		argv[i] = a;
		a += strlen(a) + 1;
		if (a > q->args + LAUNCH_ARGS)
			_exit(126);
	}
	argv[q->argc] = NULL;
	gw_helper_exec(argv, fds[0], true, avoid, sizeof(avoid) / sizeof(avoid[0]));
}

/* A start request: forked, watched through a pidfd, answered with its pid (or -errno). */
static void launch_start(struct launcher *l, const struct launch_req *q, int *fds, size_t n)
{
	pid_t pid = l->n < LAUNCH_MAX_KIDS ? fork() : (errno = EAGAIN, -1);
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
		l->kids[l->n++] = (struct kid){ pid, pidfd, q->what == REQ_WEB, 0 };
	launch_say(l->zs, LAUNCH_STARTED, q->seq, pid > 0 ? pid : 0, pid > 0 ? 0 : -e);
}

static void launch_request(struct launcher *l, struct launch_req *q, int *fds, size_t n)
{
	struct kid *k;

	switch (q->what) {
	case REQ_WEB:
	case REQ_HELPER:
		launch_start(l, q, fds, n);
		break;
	case REQ_RETIRE:	/* a web process a new one replaces: it has a second to go */
		if ((k = launch_find(l, q->pid)) && k->web && !k->kill_at)
			k->kill_at = gw_mono_now() + RETIRE_S;
		break;
	case REQ_KILL:		/* a helper: at once */
		if ((k = launch_find(l, q->pid)) && !k->web)
			launch_kill(k);
		break;
	}
}

static void __attribute__((noreturn)) launcher_main(int zs, pid_t parent)
{
	struct pollfd pfd[1 + LAUNCH_MAX_KIDS];
	struct launcher l = { .zs = zs, .me = getpid() };
	static struct launch_req q;
	int keep[2] = { zs, gw_webchild_test.hook ? gw_webchild_test.fd : -1 };
	char err[256];
	int r;

	default_signals();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || detach() < 0)
		_exit(1);
	close_others(keep, 2);
	prctl(PR_SET_NAME, "gatewayd-weblaunch", 0, 0, 0);
	if ((r = gw_keep_launcher_caps(err, sizeof(err))) < 0) {
		gw_log(GW_LOG_ERR, "web process launcher: %s", err);
		_exit(2);
	}
	if (r)
		gw_log(GW_LOG_WARNING, "web process launcher: %s", err);
	for (;;) {
		int fds[LAUNCH_MAX_FDS], timeout = launch_deadlines(&l);
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
	       "again if it ends, and no helper program can run (shaping goes on)");
}

/* The web process c ran ended with status: logged, and its restart planned. */
static void web_died(struct gw_webchild *c, int status, double now)
{
	if (WIFSIGNALED(status))
		gw_log(GW_LOG_ERR, "web process %d killed by signal %d (%s); shaping goes on",
		       (int)c->pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		gw_log(GW_LOG_ERR, "web process %d exited with status %d; shaping goes on",
		       (int)c->pid, WEXITSTATUS(status));
	c->last_status = status;
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

/* What the launcher says: a process started (with wait, the pid it answers request seq
 * with, returned; -errno when it could not) or one that ended (c's web process: its restart
 * planned; anything else, a replaced one or a helper, needs nothing). wait: up to 2 s. */
static pid_t launch_hear(struct gw_webchild *c, double now, bool wait, uint32_t seq)
{
	struct launch_msg m;
	ssize_t n;

	while (c->zsock >= 0) {
		struct pollfd pfd = { .fd = c->zsock, .events = POLLIN };

		if (wait && poll(&pfd, 1, 2000) <= 0) {
			gw_log(GW_LOG_ERR, "web process launcher: no answer");
			return -ETIMEDOUT;
		}
		n = recv(c->zsock, &m, sizeof(m), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR) && !wait)
			return 0;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n != (ssize_t)sizeof(m)) {
			launcher_gone(c);
			return -ECHILD;
		}
		if (m.what == LAUNCH_STARTED && wait && m.seq == seq)
			return m.pid > 0 ? m.pid : m.status < 0 ? m.status : -ECHILD;
		if (m.what == LAUNCH_DIED && m.pid == c->pid && c->pid > 0)
			web_died(c, m.status, now);
	}
	return -ECHILD;
}

/* Send the launcher q (hdr_len bytes of it) with n fds. 0 or -errno. */
static int launch_send(struct gw_webchild *c, struct launch_req *q, size_t len, const int *fds,
		       size_t n)
{
	union {
		char buf[CMSG_SPACE(LAUNCH_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (c->zsock < 0)
		return -ECHILD;
	q->magic = GW_WEBCHILD_LAUNCH;
	q->seq = ++c->seq;
	q->daemon_uid = (uint32_t)geteuid();
	if (n) {
		memset(u.buf, 0, sizeof(u.buf));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	return sendmsg(c->zsock, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Ask the launcher for a web process on a new socketpair, the listening sockets and the
 * files; its first frame is the settings. */
static int spawn(struct gw_webchild *c, double now, char *err, size_t errlen)
{
	struct launch_req q = { .what = REQ_WEB, .n_listen = (uint32_t)c->n_fds };
	int sv[2], fds[LAUNCH_MAX_FDS], r;
	size_t n = 0;
	pid_t pid;

	if (c->zsock < 0) {
		snprintf(err, errlen, "web process: its launcher is gone");
		return -ECHILD;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		snprintf(err, errlen, "web process: socketpair: %s", strerror(errno));
		return -errno;
	}
	fds[n++] = sv[1];
	for (size_t i = 0; i < c->n_fds; i++)
		fds[n++] = c->fds[i];
	for (int i = 0; i < GW_WEBCHILD_FILES; i++)
		if (c->files[i] >= 0) {
			q.files |= 1u << i;
			fds[n++] = c->files[i];
		}
	r = launch_send(c, &q, LAUNCH_HDR, fds, n);
	close(sv[1]);
	pid = r ? r : launch_hear(c, now, true, q.seq);
	if (pid <= 0) {
		close(sv[0]);
		snprintf(err, errlen, "web process: the launcher could not start one: %s",
			 strerror(-(int)pid));
		return (int)pid;
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

/* ---- helper programs, through the launcher (sys/helper.h) ---- */

static int helper_start(void *ctx, const char *const *argv, int out_fd, pid_t *pid, char *err,
			size_t errlen)
{
	struct gw_webchild *c = ctx;
	struct launch_req *q = calloc(1, sizeof(*q));
	size_t used = 0;
	int r = 0;

	*pid = -1;
	if (!q)
		return -ENOMEM;
	q->what = REQ_HELPER;
	for (; argv[q->argc] && !r; q->argc++) {
		size_t len = strlen(argv[q->argc]) + 1;

		if (q->argc >= GW_HELPER_MAX_ARGS || used + len > LAUNCH_ARGS)
			r = -E2BIG;
		else
			memcpy(q->args + used, argv[q->argc], len);
		used += len;
	}
	if (!r)
		r = launch_send(c, q, LAUNCH_HDR + used, &out_fd, 1);
	if (!r && (r = launch_hear(c, gw_mono_now(), true, q->seq)) > 0) {
		*pid = r;
		r = 0;
	}
	if (r)
		snprintf(err, errlen, "%s: the web launcher could not start it: %s", argv[0],
			 strerror(-r));
	free(q);
	return r;
}

static void helper_stop(void *ctx, pid_t pid)
{
	struct launch_req q = { .what = REQ_KILL, .pid = pid };

	/* the launcher kills it and reaps it; its report of the end needs nothing here */
	launch_send(ctx, &q, LAUNCH_HDR, NULL, 0);
}

static const struct gw_helper_ops launcher_helpers = { helper_start, helper_stop };

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

/* The sockets and files a process is made from, taken over (they stay the caller's). */
static int take(struct gw_webchild *c, const struct gw_wire_settings *ws, const int *fds,
		size_t n_fds, const int *files)
{
	if (n_fds < 1 || n_fds > GW_WEBUI_MAX_LISTEN || n_fds != ws->n_listen)
		return -EINVAL;
	c->ws = *ws;
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	for (int i = 0; i < GW_WEBCHILD_FILES; i++)
		c->files[i] = files ? files[i] : -1;
	return 0;
}

int gw_webchild_start(const struct gw_wire_settings *ws, const int *fds, size_t n_fds,
		      const int *files, bool park, double now, struct gw_webchild **out,
		      char *err, size_t errlen)
{
	struct gw_webchild *c;
	pid_t parent = getpid();
	int zs[2], r;

	if (!(c = calloc(1, sizeof(*c)))) {
		snprintf(err, errlen, "web process: out of memory");
		return -ENOMEM;
	}
	if (take(c, ws, fds, n_fds, files)) {
		snprintf(err, errlen, "web process: one socket per listen address needed");
		free(c);
		return -EINVAL;
	}
	c->sock = -1;
	c->backoff_s = BACKOFF_MIN_S;
	c->last_status = -1;
	c->parked = park;
	c->down_since = now;
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
	/* the launcher's three capabilities (CAP_SETUID, CAP_SETGID, CAP_KILL, which systemd's
	 * unit gives the service beside the network two) are the launcher's alone from here:
	 * the daemon's own drop (gw_become_daemon_user) takes them from this process */
	/* the daemon's helpers (iperf3) are started by the launcher from now on */
	gw_helper_use(&launcher_helpers, c);
	if (!park && (r = spawn(c, now, err, errlen))) {
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

int gw_webchild_replace(struct gw_webchild *c, const struct gw_wire_settings *ws,
			const int *fds, size_t n_fds, const int *files, double now)
{
	struct launch_req q = { .what = REQ_RETIRE };

	if (!c || take(c, ws, fds, n_fds, files))
		return -EINVAL;
	/* the process serving the old settings reads the end of its stream and goes; one that
	 * does not (stopped, or no longer ours to trust) the launcher kills a second later.
	 * Its end is not a death to back off from */
	if (c->pid > 0) {
		q.pid = c->pid;
		launch_send(c, &q, LAUNCH_HDR, NULL, 0);
	}
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	c->out.len = c->out_off = 0;
	if (c->pid > 0 || c->parked)
		c->down_since = now;
	c->pid = 0;
	c->next_start = now;
	c->planned = true;
	c->parked = false;
	return 0;
}

void gw_webchild_poll(struct gw_webchild *c, double now)
{
	char err[256];

	if (!c)
		return;
	flush(c);
	launch_hear(c, now, false, 0);
	if (c->zpid > 0 && waitpid(c->zpid, NULL, WNOHANG) == c->zpid) {
		c->zpid = 0;
		launcher_gone(c);
	}
	if (c->pid == 0 && !c->parked && c->zsock >= 0 && now >= c->next_start) {
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
	return c && c->pid == 0 && !c->parked && c->zsock >= 0 ? c->next_start : -1;
}

bool gw_webchild_pending(const struct gw_webchild *c)
{
	return c && c->sock >= 0 && c->out_off < c->out.len;
}

void gw_webchild_stats(const struct gw_webchild *c, double now, struct gw_webchild_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->last_status = -1;
	if (!c)
		return;
	st->pid = c->pid;
	st->up = c->pid > 0;
	st->restarts = c->restarts;
	st->dropped = c->dropped;
	st->down_s = c->down_total + (c->pid > 0 ? 0 : now - c->down_since);
	st->last_status = c->last_status;
	st->launcher = c->zpid;
}

void gw_webchild_stop(struct gw_webchild *c)
{
	if (!c)
		return;
	gw_helper_use(NULL, NULL);
	if (c->sock >= 0)
		close(c->sock);	/* the process reads the end of the stream and exits */
	/* the launcher sees the end of its own, kills the helpers, waits a second for the web
	 * process to go (then kills it), reaps them and exits: nothing of ours is left, not
	 * even a zombie */
	if (c->zsock >= 0)
		close(c->zsock);
	if (c->zpid > 0)
		waitpid(c->zpid, NULL, 0);
	gw_wire_buf_free(&c->out);
	if (c->last)
		gw_snapshot_put(c->last);
	free(c);
}
