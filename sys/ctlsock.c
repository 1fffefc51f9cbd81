/* sys/ctlsock.c: a control socket: accept root's peers (SO_PEERCRED), read one message of at
 * most the protocol's bound within a deadline, hand it over, write one reply line, close.
 * Every fd non-blocking; every refusal answered and logged, at most a line per 10 s. The socket
 * file is made, looked at and removed through its directory's fd (sys/rundir.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include "sys/ctlsock.h"
#include "sys/clock.h"
#include "sys/fd.h"
#include "sys/log.h"
#include "sys/ratelog.h"
#include "sys/rundir.h"

#define TICK_S 0.25		/* the deadlines are looked at this often while a client is there */
#define ACCEPT_PER_WAKE 32

struct client {
	int fd;			/* -1: a free slot */
	double deadline;
	size_t len;
	char *buf;		/* msg_max + 1 bytes */
};

struct gw_ctlsock {
	int ep, listen_fd, timer_fd;
	int dir_fd;		/* the socket's directory: everything there goes through it */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;
	ino_t ino;		/* the socket file, to remove only our own at close */
	struct gw_ctlsock_proto proto;
	void *arg;
	struct client c[GW_CTLSOCK_CLIENTS];
	char *bufs;		/* the clients' buffers, in one block */
	size_t n;
	bool ticking;
	struct gw_ratelog rl;
};

static void note(struct gw_ctlsock *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct gw_ctlsock *s, const char *fmt, ...)
{
	char line[600];
	uint64_t held = 0;
	va_list ap;

	if (!gw_ratelog_ok(&s->rl, gw_mono_now(), GW_RATELOG_EVERY_S, &held))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (held)
		gw_log(GW_LOG_WARNING, "control socket: %s (and %llu more refusals not logged)",
		       line, (unsigned long long)held);
	else
		gw_log(GW_LOG_WARNING, "control socket: %s", line);
}

/* One reply line, best effort: it is far smaller than the socket's buffer. */
static void reply_to(int fd, const char *text)
{
	char line[GW_CTLSOCK_REPLY_MAX];
	int n = snprintf(line, sizeof(line), "%s\n", text);

	if (n >= (int)sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;	/* the peer is gone: nothing more to tell it */
}

static void set_tick(struct gw_ctlsock *s, bool on)
{
	struct itimerspec its = { 0 };

	if (on == s->ticking)
		return;
	if (on) {
		its.it_interval.tv_nsec = (long)(TICK_S * 1e9);
		its.it_value = its.it_interval;
	}
	timerfd_settime(s->timer_fd, 0, &its, NULL);
	s->ticking = on;
}

static void drop(struct gw_ctlsock *s, struct client *c)
{
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	gw_fd_close(&c->fd);
	c->len = 0;
	s->n--;
	set_tick(s, s->n > 0);
}

static void refuse(int fd, const char *why)
{
	reply_to(fd, why);
	close(fd);
}

static void on_accept(struct gw_ctlsock *s)
{
	for (int i = 0; i < ACCEPT_PER_WAKE; i++) {
		struct ucred cr;
		socklen_t crl = sizeof(cr);
		struct client *c = NULL;
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				note(s, "accept: %s", strerror(errno));
			return;
		}
		/* the kernel's word on who connected, not anything the peer says */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) || crl != sizeof(cr)) {
			note(s, "a peer whose credentials cannot be read: refused");
			refuse(fd, "error cannot read your credentials");
			continue;
		}
		if (cr.uid != 0) {
			note(s, "refused pid %d, uid %u: only root may use it",
			     (int)cr.pid, (unsigned)cr.uid);
			refuse(fd, "error permission denied: only root may use this socket");
			continue;
		}
		for (size_t k = 0; k < GW_CTLSOCK_CLIENTS && !c; k++)
			if (s->c[k].fd < 0)
				c = &s->c[k];
		if (!c) {
			note(s, "refused pid %d: %d connections open already", (int)cr.pid,
			     GW_CTLSOCK_CLIENTS);
			refuse(fd, "error busy: too many connections; try again");
			continue;
		}
		if (gw_epoll_set(s->ep, EPOLL_CTL_ADD, fd, EPOLLIN, (epoll_data_t){ .ptr = c })) {
			refuse(fd, "error out of resources");
			continue;
		}
		c->fd = fd;
		c->len = 0;
		c->deadline = gw_mono_now() + GW_CTLSOCK_DEADLINE_S;
		s->n++;
		set_tick(s, true);
	}
}

static void on_client(struct gw_ctlsock *s, struct client *c)
{
	char reply[GW_CTLSOCK_REPLY_MAX] = "";
	size_t whole;
	ssize_t r;

	for (;;) {
		r = read(c->fd, c->buf + c->len, s->proto.msg_max - c->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;	/* more to come, before the deadline */
		if (r <= 0) {
			note(s, "a client closed before its message was whole (%zu bytes)", c->len);
			reply_to(c->fd, "error incomplete message: no blank line at its end");
			drop(s, c);
			return;
		}
		c->len += (size_t)r;
		if ((whole = s->proto.complete(c->buf, c->len)))
			break;
		if (c->len >= s->proto.msg_max) {
			note(s, "a message longer than %zu bytes: refused", s->proto.msg_max);
			reply_to(c->fd, "error message too long");
			drop(s, c);
			return;
		}
	}
	c->buf[c->len] = '\0';
	/* one message per connection: anything after its blank line is the decoder's to refuse */
	s->proto.handle(s->arg, c->buf, c->len, reply, sizeof(reply));
	if (!reply[0])
		snprintf(reply, sizeof(reply), "error no answer");
	if (strncmp(reply, "ok", 2))
		note(s, "%s", reply);
	reply_to(c->fd, reply);
	drop(s, c);
}

static void on_tick(struct gw_ctlsock *s)
{
	double now = gw_mono_now();
	uint64_t exp;

	if (read(s->timer_fd, &exp, sizeof(exp)) != sizeof(exp))
		return;
	for (size_t k = 0; k < GW_CTLSOCK_CLIENTS; k++) {
		struct client *c = &s->c[k];

		if (c->fd < 0 || c->deadline > now)
			continue;
		note(s, "a client sent %zu bytes and no whole message in %.0f s: dropped", c->len,
		     GW_CTLSOCK_DEADLINE_S);
		reply_to(c->fd, "error timed out: a message must come whole within 2 s");
		drop(s, c);
	}
}

void gw_ctlsock_dispatch(struct gw_ctlsock *s)
{
	struct epoll_event ev[GW_CTLSOCK_CLIENTS + 2];
	int n = epoll_wait(s->ep, ev, GW_CTLSOCK_CLIENTS + 2, 0);

	for (int i = 0; i < n; i++) {
		void *p = ev[i].data.ptr;

		if (p == &s->listen_fd)
			on_accept(s);
		else if (p == &s->timer_fd)
			on_tick(s);
		else if (((struct client *)p)->fd >= 0)
			on_client(s, p);
	}
}

int gw_ctlsock_fd(const struct gw_ctlsock *s)
{
	return s->ep;
}

int gw_ctlsock_dirfd(const struct gw_ctlsock *s)
{
	return s->dir_fd;
}

/* unix socket address of path, "/proc/self/fd/N..." as gw_rundir_fdpath makes it */
static int sun_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, strlen(path));
	return 0;
}

/* A socket file called name in dfd: a live daemon's (-EADDRINUSE), stale (removed: 0), not a
 * socket (-EEXIST), or nothing (0). It is connected to through an O_PATH fd of the file itself,
 * so a link put there is never followed. */
static int clear_old(int dfd, const char *name)
{
	struct sockaddr_un sa;
	char via[64];
	struct stat st;
	int pfd, fd, r;

	pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(pfd, &st) || !S_ISSOCK(st.st_mode)) {
		close(pfd);
		return -EEXIST;
	}
	if ((r = gw_rundir_fdpath(pfd, NULL, via, sizeof(via))) || (r = sun_of(via, &sa))) {
		close(pfd);
		return r;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		close(pfd);
		return -errno;
	}
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	/* EAGAIN: a live listener whose backlog is full */
	r = r == 0 || errno == EAGAIN ? -EADDRINUSE : 0;
	close(fd);
	close(pfd);
	if (!r && unlinkat(dfd, name, 0) && errno != ENOENT)
		r = -errno;
	return r;
}

static int fail(char *err, size_t errlen, int r, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %s: %s", what, path,
		 r == -EADDRINUSE ? "another gatewayd listens there" :
		 r == -EEXIST ? "there and not a socket (left alone)" : strerror(-r));
	return r;
}

int gw_ctlsock_open(const char *path, const struct gw_ctlsock_proto *proto, void *arg,
		    struct gw_ctlsock **out, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct gw_ctlsock *s;
	char dir[sizeof(sa.sun_path)], via[sizeof(sa.sun_path)];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int r;

	*out = NULL;
	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/' || !slash[1])
		return fail(err, errlen, -ENAMETOOLONG, "control socket", path);
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->ep = s->listen_fd = s->timer_fd = s->dir_fd = -1;
	for (size_t k = 0; k < GW_CTLSOCK_CLIENTS; k++)
		s->c[k].fd = -1;
	s->proto = *proto;
	s->arg = arg;
	if (!(s->bufs = calloc(GW_CTLSOCK_CLIENTS, proto->msg_max + 1))) {
		free(s);
		return -ENOMEM;
	}
	for (size_t k = 0; k < GW_CTLSOCK_CLIENTS; k++)
		s->c[k].buf = s->bufs + k * (proto->msg_max + 1);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->name, sizeof(s->name), "%s", slash + 1);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* made as root at start if missing: the service user's (sys/rundir.c) */
	if ((s->dir_fd = gw_rundir_open(dir[0] ? dir : "/", true, err, errlen)) < 0) {
		r = s->dir_fd;
		goto bad;
	}
	if ((r = clear_old(s->dir_fd, s->name))) {
		fail(err, errlen, r, "control socket", path);
		goto bad;
	}
	if ((r = gw_rundir_fdpath(s->dir_fd, s->name, via, sizeof(via))) ||
	    (r = sun_of(via, &sa))) {
		fail(err, errlen, r, "control socket", path);
		goto bad;
	}
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->ep < 0 || s->timer_fd < 0 || s->listen_fd < 0) {
		r = fail(err, errlen, -errno, "control socket", path);
		goto bad;
	}
	/* the mode the file is made with (Linux takes it from the socket's inode, less the
	 * umask, which can only take more away): never a moment when anyone else could
	 * connect, and no chmod by path after */
	fchmod(s->listen_fd, 0600);
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fstatat(s->dir_fd, s->name, &st, AT_SYMLINK_NOFOLLOW) ||
	    listen(s->listen_fd, GW_CTLSOCK_CLIENTS)) {
		r = fail(err, errlen, -errno, "control socket", path);
		goto bad;
	}
	if (!S_ISSOCK(st.st_mode) || (st.st_mode & 077)) {
		r = fail(err, errlen, -EPERM, "control socket", path);
		goto bad;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if ((r = gw_epoll_set(s->ep, EPOLL_CTL_ADD, s->listen_fd, EPOLLIN,
			      (epoll_data_t){ .ptr = &s->listen_fd })) ||
	    (r = gw_epoll_set(s->ep, EPOLL_CTL_ADD, s->timer_fd, EPOLLIN,
			      (epoll_data_t){ .ptr = &s->timer_fd }))) {
		fail(err, errlen, r, "control socket", path);
		goto bad;
	}
	*out = s;
	return 0;
bad:
	gw_ctlsock_close(s);
	return r;
}

void gw_ctlsock_close(struct gw_ctlsock *s)
{
	struct stat st;

	if (!s)
		return;
	for (size_t k = 0; k < GW_CTLSOCK_CLIENTS; k++)
		gw_fd_close(&s->c[k].fd);
	if (s->listen_fd >= 0 && s->dev &&
	    fstatat(s->dir_fd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == s->dev &&
	    st.st_ino == s->ino)
		unlinkat(s->dir_fd, s->name, 0);
	gw_fd_close(&s->listen_fd);
	gw_fd_close(&s->timer_fd);
	gw_fd_close(&s->ep);
	/* the directory stays: the plugin's state files and the locks are in it */
	gw_fd_close(&s->dir_fd);
	free(s->bufs);
	free(s);
}
