/* webui/webchild.c: the daemon's handle on its web child: the web launcher forked at start
 * (webui/launcher.c), a web process asked of it and fed wire frames without ever blocking the
 * loop, restarted with a back-off when it dies, and the daemon's helper programs started
 * through it. Runs in the daemon. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "sys/clock.h"
#include "sys/helper.h"
#include "sys/log.h"
#include "webui/launcher.h"
#include "webui/webchild.h"

#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 30.0
#define STABLE_S 60.0		/* up this long: the next death restarts at BACKOFF_MIN_S */

struct gw_webchild {
	struct gw_wire_settings ws;
	int fds[GW_WEBUI_MAX_LISTEN];
	size_t n_fds;
	int files[GW_WEBPROC_FILES];	/* the caller's open auth, cert and key files; -1: none */
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
	struct gw_launcher_msg m;
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
		if (m.what == GW_LAUNCHER_STARTED && wait && m.seq == seq)
			return m.pid > 0 ? m.pid : m.status < 0 ? m.status : -ECHILD;
		if (m.what == GW_LAUNCHER_DIED && m.pid == c->pid && c->pid > 0)
			web_died(c, m.status, now);
	}
	return -ECHILD;
}

/* Send the launcher q (hdr_len bytes of it) with n fds. 0 or -errno. */
static int launch_send(struct gw_webchild *c, struct gw_launcher_req *q, size_t len, const int *fds,
		       size_t n)
{
	union {
		char buf[CMSG_SPACE(GW_LAUNCHER_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (c->zsock < 0)
		return -ECHILD;
	q->magic = GW_LAUNCHER_MAGIC;
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
	struct gw_launcher_req q = { .what = GW_LAUNCHER_WEB, .n_listen = (uint32_t)c->n_fds };
	int sv[2], fds[GW_LAUNCHER_MAX_FDS], r;
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
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		if (c->files[i] >= 0) {
			q.files |= 1u << i;
			fds[n++] = c->files[i];
		}
	r = launch_send(c, &q, GW_LAUNCHER_HDR, fds, n);
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
	struct gw_launcher_req *q = calloc(1, sizeof(*q));
	size_t used = 0;
	int r = 0;

	*pid = -1;
	if (!q)
		return -ENOMEM;
	q->what = GW_LAUNCHER_HELPER;
	for (; argv[q->argc] && !r; q->argc++) {
		size_t len = strlen(argv[q->argc]) + 1;

		if (q->argc >= GW_HELPER_MAX_ARGS || used + len > GW_LAUNCHER_ARGS)
			r = -E2BIG;
		else
			memcpy(q->args + used, argv[q->argc], len);
		used += len;
	}
	if (!r)
		r = launch_send(c, q, GW_LAUNCHER_HDR + used, &out_fd, 1);
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
	struct gw_launcher_req q = { .what = GW_LAUNCHER_KILL, .pid = pid };

	/* the launcher kills it and reaps it; its report of the end needs nothing here */
	launch_send(ctx, &q, GW_LAUNCHER_HDR, NULL, 0);
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
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
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
		gw_launcher_main(zs[1], parent);
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
	struct gw_launcher_req q = { .what = GW_LAUNCHER_RETIRE };

	if (!c || take(c, ws, fds, n_fds, files))
		return -EINVAL;
	/* the process serving the old settings reads the end of its stream and goes; one that
	 * does not (stopped, or no longer ours to trust) the launcher kills a second later.
	 * Its end is not a death to back off from */
	if (c->pid > 0) {
		q.pid = c->pid;
		launch_send(c, &q, GW_LAUNCHER_HDR, NULL, 0);
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
