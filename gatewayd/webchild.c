/* gatewayd/webchild.c: the web process: forked over a socketpair, unprivileged and sandboxed,
 * fed wire frames without ever blocking the loop, and restarted with a back-off when it dies. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "gatewayd/sys/log.h"
#include "gatewayd/sys/privdrop.h"
#include "gatewayd/sys/sandbox.h"
#include "gatewayd/webchild.h"
#include "qdisc/qdisc.h"
#include "webui/lastcmp.h"
#include "webui/webui.h"

#define BACKOFF_MIN_S 0.1
#define BACKOFF_MAX_S 30.0
#define STABLE_S 60.0		/* up this long: the next death restarts at BACKOFF_MIN_S */
#define MAX_KINDS 16

struct gw_webchild {
	struct gw_wire_settings ws;
	int fds[GW_WEBUI_MAX_LISTEN];
	size_t n_fds;
	pid_t pid;
	int sock;			/* the parent's end; -1 while no process runs */
	struct gw_wire_buf out;		/* whole frames not yet all written */
	size_t out_off;
	double backoff_s, next_start, up_since, down_since, down_total;
	uint64_t restarts, dropped;
};

/* ---- the web process ---- */

static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gw_snapshot *child_cur;
static struct gw_lastcmp child_cmp;

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
	struct gw_webui_source src = { NULL, child_get, NULL, child_compare };
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
		if ((r = gw_wire_get_snapshot(p, h->len, kinds, n_kinds, &s)))
			gw_log(GW_LOG_ERR, "web: a snapshot refused: %s", strerror(-r));
		else
			gw_snapshot_publish(&child_lock, &child_cur, s);
	} else if (h->type == GW_WIRE_SETTINGS && (ws = malloc(sizeof(*ws)))) {
		if ((r = gw_wire_get_settings(p, h->len, ws)))
			gw_log(GW_LOG_ERR, "web: settings refused: %s", strerror(-r));
		else if (child_serve(w, ws, fds, err, sizeof(err)))
			gw_log(GW_LOG_ERR, "web: %s", err);
		free(ws);
	}
}

static void __attribute__((noreturn)) child_main(int sock, const int *fds, size_t n,
						 const struct gw_wire_settings *ws, pid_t parent)
{
	struct gw_webui *w = NULL;
	struct gw_wire_rx rx = { .buf = NULL };
	struct gw_wire_hdr h;
	const uint8_t *p;
	sigset_t none;
	char err[512];
	bool root;
	int r;

	/* the parent's signal mask and handlers are its loop's: this process takes the defaults,
	 * and dies with the parent */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	close_others(sock, fds, n);
	/*
	 * As root the server starts first, so the auth and TLS files are read as they were by
	 * the daemon (root's, mode 0600), and then the uid goes: glibc changes it in every
	 * thread, and the kernel empties their capabilities with it. A process that is not root
	 * (systemd's DynamicUser) has no files to gain: it drops its capabilities before any
	 * thread exists (capset is per thread). The filter comes last, in every thread (TSYNC).
	 */
	root = geteuid() == 0 || getuid() == 0;
	if (!root && gw_drop_to_nobody(err, sizeof(err)))
		goto fail;
	gw_lastcmp_init(&child_cmp, NULL);
	if (child_serve(&w, ws, fds, err, sizeof(err)))
		gw_log(GW_LOG_ERR, "web: %s", err);	/* on: a reload may bring better settings */
	if ((root && gw_drop_to_nobody(err, sizeof(err))) || gw_sandbox_web(err, sizeof(err)))
		goto fail;
	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		r = (int)gw_wire_rx_read(&rx, sock);
		if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR))
			break;	/* the parent is gone or stopped us */
		while ((r = gw_wire_rx_next(&rx, &h, &p)) == 1)
			child_frame(&w, &h, p, fds);
		if (r < 0) {
			gw_log(GW_LOG_ERR, "web: the stream from the daemon: %s", strerror(-r));
			break;
		}
	}
	_exit(0);	/* the kernel frees the rest; no server thread outlives this */
fail:
	gw_log(GW_LOG_ERR, "web: %s", err);
	_exit(2);
}

/* ---- the parent's side ---- */

static int spawn(struct gw_webchild *c, double now, char *err, size_t errlen)
{
	pid_t parent = getpid(), pid;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		snprintf(err, errlen, "web process: socketpair: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		snprintf(err, errlen, "web process: fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		child_main(sv[1], c->fds, c->n_fds, &c->ws, parent);
	}
	close(sv[1]);
	c->sock = sv[0];
	c->pid = pid;
	c->up_since = now;
	c->out.len = c->out_off = 0;
	gw_log(GW_LOG_INFO, "web process %d started", (int)pid);
	return 0;
}

/* Write what is pending; a socket that failed is closed (the reaping restarts the process). */
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
		}
	}
	if (c->out_off >= c->out.len)
		c->out.len = c->out_off = 0;
}

int gw_webchild_start(const struct gw_wire_settings *ws, const int *fds, size_t n_fds,
		      double now, struct gw_webchild **out, char *err, size_t errlen)
{
	struct gw_webchild *c;
	int r;

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
	if ((r = spawn(c, now, err, errlen))) {
		free(c);
		return r;
	}
	*out = c;
	return 0;
}

void gw_webchild_send(struct gw_webchild *c, const struct gw_snapshot *s)
{
	if (!c)
		return;
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

void gw_webchild_poll(struct gw_webchild *c, double now)
{
	char err[256];
	int status;

	if (!c)
		return;
	flush(c);
	if (c->pid > 0 && waitpid(c->pid, &status, WNOHANG) == c->pid) {
		if (WIFSIGNALED(status))
			gw_log(GW_LOG_ERR, "web process %d killed by signal %d (%s); shaping goes on",
			       (int)c->pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			gw_log(GW_LOG_ERR, "web process %d exited with status %d; shaping goes on",
			       (int)c->pid, WEXITSTATUS(status));
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
	if (c->pid == 0 && now >= c->next_start) {
		if (spawn(c, now, err, sizeof(err))) {
			gw_log(GW_LOG_ERR, "%s", err);
			c->next_start = now + c->backoff_s;
			return;
		}
		c->restarts++;
		c->down_total += now - c->down_since;
	}
}

int gw_webchild_fd(const struct gw_webchild *c)
{
	return c ? c->sock : -1;
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
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (!c)
		return;
	if (c->sock >= 0)
		close(c->sock);	/* the process reads the end of the stream and exits */
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		for (int i = 0; i < 100 && waitpid(c->pid, NULL, WNOHANG) == 0; i++)
			nanosleep(&tick, NULL);
		if (kill(c->pid, 0) == 0) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
		}
	}
	gw_wire_buf_free(&c->out);
	free(c);
}
