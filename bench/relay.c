/* bench/relay.c: the status page of the daemon the bench runs in its gateway
 * namespace (127.0.0.1:9180 there), relayed to the host when the bench runs in a User-Mode
 * Linux guest booted with gatewayd-uml --net. A child of the bench accepts on the guest's own
 * address (its end of the launcher's tap) in the guest's root namespace, and opens each
 * upstream connection inside the gateway namespace. Bounded: RELAY_PAIRS connections at once,
 * a RELAY_BUF buffer each way, a connect, idle and life timeout; the child allocates nothing
 * (it is forked from a process that may have threads). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench/relay.h"
#include "bench/testbed.h"

#define RELAY_PAIRS 4		/* a browser opens a few; curl one */
#define RELAY_BUF 16384
#define RELAY_CONNECT_S 2.0	/* the daemon is on loopback: it answers at once or not at all */
#define RELAY_IDLE_S 15.0
#define RELAY_LIFE_S 60.0	/* a client that trickles cannot keep a slot for the whole bench */
#define BENCH_PAGE_PORT 9180	/* run.c's write_config: the daemon's listen */

/* Between two runs (and in the scenario's unshaped way) no daemon listens: the client hears
 * why rather than a reset. */
static const char no_daemon[] =
	"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
	"gatewayd --compare: no daemon runs in the testbed right now (the bench starts one for each run)\n";

/* What was read from one side and is not yet written to the other. */
struct half {
	char buf[RELAY_BUF];
	size_t off, len;
	bool eof;		/* its side sent FIN: pass it on once buf is written */
};

struct pair {
	int fd[2];		/* 0: the client (the host), 1: the daemon; -1 when closed */
	bool connecting;
	bool used;
	bool shut[2];		/* shutdown(fd[i], SHUT_WR) done */
	struct half h[2];	/* h[i]: read from fd[i], for fd[!i] */
	double start, last;
};

static struct pair pairs[RELAY_PAIRS];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pair_close(struct pair *p)
{
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	p->used = false;
	p->fd[0] = p->fd[1] = -1;
}

/* No daemon to talk to: the client gets no_daemon, and what it sends is read and dropped. */
static void upstream_failed(struct pair *p)
{
	if (p->fd[1] >= 0)
		close(p->fd[1]);
	p->fd[1] = -1;
	p->connecting = false;
	memcpy(p->h[1].buf, no_daemon, sizeof(no_daemon) - 1);
	p->h[1].off = 0;
	p->h[1].len = sizeof(no_daemon) - 1;
	p->h[1].eof = true;
	p->h[0].len = p->h[0].off = 0;
}

/* Called in the gateway namespace: the socket is made there, so 127.0.0.1 is its loopback. */
static void pair_open(struct pair *p, int client, double t)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(BENCH_PAGE_PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	memset(p, 0, sizeof(*p));
	p->used = true;
	p->fd[0] = client;
	p->fd[1] = fd;
	p->start = p->last = t;
	if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS))
		upstream_failed(p);
	else
		p->connecting = true;
}

/* One side ready: move bytes (a pair that moves none for RELAY_IDLE_S is closed). false when
 * the pair is to be closed. */
static bool pair_io(struct pair *p, int i, short rev, double t)
{
	struct half *in = &p->h[i], *out = &p->h[!i];
	ssize_t n;

	if (i == 1 && p->connecting) {
		int e = 0;
		socklen_t l = sizeof(e);

		if (!(rev & (POLLOUT | POLLERR | POLLHUP)))
			return true;
		if (getsockopt(p->fd[1], SOL_SOCKET, SO_ERROR, &e, &l) < 0 || e) {
			upstream_failed(p);
			return true;
		}
		p->connecting = false;
		return true;
	}
	if ((rev & POLLOUT) && out->off < out->len) {
		n = send(p->fd[i], out->buf + out->off, out->len - out->off, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (n > 0) {
			p->last = t;
			out->off += (size_t)n;
			if (out->off == out->len)
				out->off = out->len = 0;
		}
	}
	if ((rev & (POLLIN | POLLHUP | POLLERR)) && !in->eof && in->len == 0) {
		n = recv(p->fd[i], in->buf, RELAY_BUF, 0);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (n >= 0)
			p->last = t;
		if (n == 0)
			in->eof = true;
		else if (n > 0 && p->fd[!i] >= 0)
			in->len = (size_t)n;
	}
	return true;
}

/* Pass a FIN on once what came before it is written; true when both ways are done. */
static bool pair_done(struct pair *p)
{
	bool done = true;

	for (int i = 0; i < 2; i++) {
		struct half *h = &p->h[i];
		int to = p->fd[!i];

		if (!h->eof || h->len) {
			done = false;
			continue;
		}
		if (to >= 0 && !p->shut[!i]) {
			shutdown(to, SHUT_WR);
			p->shut[!i] = true;
		}
	}
	return done;
}

static void serve(int lfd, pid_t parent)
{
	struct pollfd pfd[1 + 2 * RELAY_PAIRS];

	for (int k = 0; k < RELAY_PAIRS; k++)
		pairs[k].fd[0] = pairs[k].fd[1] = -1;
	for (;;) {
		int n = 1;
		double t;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int k = 0; k < RELAY_PAIRS; k++) {
			struct pair *p = &pairs[k];

			for (int i = 0; i < 2; i++) {
				short ev = 0;

				if (p->used && p->fd[i] >= 0) {
					if (!p->h[i].eof && !p->h[i].len && !(i == 1 && p->connecting))
						ev |= POLLIN;
					if (p->h[!i].len || (i == 1 && p->connecting))
						ev |= POLLOUT;
				}
				pfd[n++] = (struct pollfd){ .fd = ev ? p->fd[i] : -1, .events = ev };
			}
		}
		if (poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR)
			_exit(1);
		/* PDEATHSIG covers the bench's death; this covers a parent gone before it was set */
		if (getppid() != parent)
			_exit(0);
		t = now_s();
		for (int k = 0; k < RELAY_PAIRS; k++) {
			struct pair *p = &pairs[k];
			bool keep = true;

			if (!p->used)
				continue;
			for (int i = 0; i < 2 && keep; i++) {
				short rev = pfd[1 + 2 * k + i].revents;

				if (rev && p->fd[i] >= 0)
					keep = pair_io(p, i, rev, t);
			}
			if (keep && p->connecting && t - p->start > RELAY_CONNECT_S)
				upstream_failed(p);
			if (!keep || pair_done(p) || t - p->last > RELAY_IDLE_S ||
			    t - p->start > RELAY_LIFE_S)
				pair_close(p);
		}
		if (pfd[0].revents & POLLIN) {
			int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			int k = 0;

			while (k < RELAY_PAIRS && pairs[k].used)
				k++;
			if (c >= 0 && k == RELAY_PAIRS)
				close(c);	/* all slots busy: this one is refused */
			else if (c >= 0)
				pair_open(&pairs[k], c, t);
		}
	}
}

/* The child: listen in home, then move to the gateway, so every upstream socket is made
 * there while the listener stays where it was bound. */
static void relay_child(int home_fd, int gw_fd, const struct sockaddr_in *sa, int ready,
			pid_t parent)
{
	sigset_t none;
	int e = 0, one = 1, lfd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setns(home_fd, CLONE_NEWNET) < 0)
		e = errno;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!e && lfd < 0)
		e = errno;
	if (!e)
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!e && (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(lfd, 4) < 0))
		e = errno;
	if (!e && setns(gw_fd, CLONE_NEWNET) < 0)
		e = errno;
	if (write(ready, &e, sizeof(e)) != (ssize_t)sizeof(e) || e)
		_exit(1);
	close(ready);
	serve(lfd, parent);
}

pid_t bench_relay_start(int home_fd, int gw_fd, const char *addr, unsigned port, char *err,
			size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct pollfd pfd;
	int fds[2], e = 0;
	pid_t parent = getpid(), p;

	if (port == 0 || port > 65535 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "'%.64s:%u' is not an IPv4 address and port", addr, port);
		return -EINVAL;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	if ((p = fork()) < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		snprintf(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (p == 0) {
		close(fds[0]);
		relay_child(home_fd, gw_fd, &sa, fds[1], parent);
		_exit(1);
	}
	close(fds[1]);
	/* the child says once it listens (0) or why it cannot (an errno) */
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	if (poll(&pfd, 1, 5000) != 1 || read(fds[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = e ? e : ETIMEDOUT;
	close(fds[0]);
	if (e) {
		bench_relay_stop(p);
		snprintf(err, errlen, "relay on %s:%u: %s", addr, port, strerror(e));
		return -e;
	}
	return p;
}

void bench_relay_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

pid_t bench_relay_page(const struct bench_bed *b, bool in_uml)
{
	const char *addr = in_uml ? getenv("GWUML_NET_ADDR") : NULL;
	char err[256];
	pid_t p;

	if (addr && *addr) {
		p = bench_relay_start(b->home, b->fd[BENCH_NS_GW], addr, BENCH_PAGE_PORT, err,
				      sizeof(err));
		if (p > 0) {
			printf("status page while it runs: http://%s:%d/ (from this host)\n", addr,
			       BENCH_PAGE_PORT);
			return p;
		}
		fprintf(stderr, "gatewayd: the status page cannot be relayed to the host: %s\n", err);
	}
	printf("status page while it runs: `ip netns exec %s curl http://127.0.0.1:%d/`%s\n",
	       b->ns[BENCH_NS_GW], BENCH_PAGE_PORT, in_uml ? " (inside the UML guest)" : "");
	return 0;
}
