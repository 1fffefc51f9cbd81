/* cni/register.c: telling a running gatewayd about a container the plugin shaped (and
 * that it is going), over the daemon's control socket, and keeping the same registration in a
 * state file beside the socket for a daemon started later (docs/cni.md). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "cni/cni.h"
#include "sys/clock.h"
#include "sys/rundir.h"
#include "tree/ctr_registration.h"

#define REPLY_TIMEOUT_MS 2000	/* a daemon busy in a long reload still answers well within */

void gw_cni_reg_fill(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		     const struct gw_cni_shaped *sh, enum gw_ctr_reg_op op, struct gw_ctr_reg *m)
{
	struct stat st;

	memset(m, 0, sizeof(*m));
	m->op = op;
	snprintf(m->id, sizeof(m->id), "%s", env->container_id);
	snprintf(m->network, sizeof(m->network), "%s", c->name);
	snprintf(m->ifname, sizeof(m->ifname), "%s", env->ifname);
	if (strlen(env->netns) <= GW_CTR_REG_NETNS_MAX)
		snprintf(m->netns, sizeof(m->netns), "%s", env->netns);
	m->ingress.rate = c->ingress.rate;
	m->ingress.burst = c->ingress.rate ? c->ingress.burst : GW_UNSET;
	m->egress.rate = c->egress.rate;
	m->egress.burst = c->egress.rate ? c->egress.burst : GW_UNSET;
	snprintf(m->queue, sizeof(m->queue), "%s", c->queue_text);
	if (!sh)
		return;
	m->n_subnets = c->n_subnets;
	memcpy(m->subnets, c->subnets, c->n_subnets * sizeof(c->subnets[0]));
	m->subnets_shaped = c->subnets_shaped;
	snprintf(m->host_if, sizeof(m->host_if), "%s", sh->host_if);
	m->host_ifindex = sh->host_ifindex;
	snprintf(m->ifb, sizeof(m->ifb), "%s", sh->ifb);
	if (stat("/proc/self/ns/net", &st) == 0)
		m->host_netns = (uint64_t)st.st_ino;
}

/*
 * The plugin runs as root in the control socket's directory, which the daemon's user owns: it
 * does nothing there by path. The directory is opened once (gw_rundir_open: no link, owned by
 * root or the service's user, writable by its owner alone), "cni" in it the same way
 * (gw_rundir_sub), and every file is made, handed over, renamed and removed through those fds
 * (O_NOFOLLOW, fchown, renameat, unlinkat): a link or another directory swapped in by whoever
 * owns the directory is refused, or is theirs already.
 */

/* The socket's directory as an fd (made if missing and make), and the socket's name in it:
 * the fd, or -errno with err (-ENOENT: not there). */
static int sock_dir(const struct gw_cni_conf *c, bool make, const char **name, char *err,
		    size_t errlen)
{
	const char *slash = strrchr(c->control_socket, '/');
	char dir[sizeof(c->control_socket)];

	if (!slash || !slash[1] || c->control_socket[0] != '/')
		return snprintf(err, errlen, "%s: not an absolute path", c->control_socket),
			-EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - c->control_socket), c->control_socket);
	*name = slash + 1;
	return gw_rundir_open(dir[0] ? dir : "/", make, err, errlen);
}

/* "cni" in the socket's directory, made (0700, the directory owner's) when make. */
static int state_dir(const struct gw_cni_conf *c, bool make, char *err, size_t errlen)
{
	char where[sizeof(c->control_socket)];
	const char *name;
	int dfd = sock_dir(c, make, &name, err, errlen), fd;

	if (dfd < 0)
		return dfd;
	snprintf(where, sizeof(where), "%.*s", (int)(name - 1 - c->control_socket),
		 c->control_socket);
	fd = gw_rundir_sub(dfd, where, "cni", 0700, make, err, errlen);
	close(dfd);
	return fd;
}

/* The state file's name: the 16 hex digits of the container's ifb mark. */
static void state_name(const struct gw_cni_conf *c, const char *id, const char *ifname,
		       char *buf, size_t len)
{
	char mark[64];

	gw_ctr_reg_ifb_mark(c->name, id, ifname, mark, sizeof(mark));
	snprintf(buf, len, "%s", mark + strlen(GW_CTR_REG_IFB_MARK));
}

/* A temporary file in dfd, new (O_EXCL: never one someone put there), not following a link. */
static int make_tmp(int dfd, const char *name, char *tmp, size_t len)
{
	int fd = -1;

	for (int i = 0; i < 4 && fd < 0; i++) {
		snprintf(tmp, len, "%s.%d.%d", name, (int)getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	return fd < 0 ? -EEXIST : fd;
}

int gw_cni_state_write(const struct gw_cni_conf *c, const struct gw_ctr_reg *m, char *err,
		       size_t errlen)
{
	char name[64], tmp[96], text[GW_CTR_REG_MAX + 1];
	struct stat dir;
	int dfd, fd, n, r;

	if ((n = gw_ctr_reg_encode(m, text, sizeof(text))) < 0)
		return snprintf(err, errlen, "the registration is too long"), n;
	if ((dfd = state_dir(c, true, err, errlen)) < 0)
		return dfd;
	state_name(c, m->id, m->ifname, name, sizeof(name));
	fd = fstat(dfd, &dir) ? -errno : make_tmp(dfd, name, tmp, sizeof(tmp));
	if (fd < 0) {
		r = fd;
		snprintf(err, errlen, "state file %s: %s", name, strerror(-r));
		close(dfd);
		return r;
	}
	/* whole or not at all: a reader never sees half a file; the directory's owner's (a
	 * daemon run as the service's user reads and removes it) */
	r = write(fd, text, (size_t)n) == n ? 0 : -EIO;
	if (!r && dir.st_uid != geteuid() && fchown(fd, dir.st_uid, dir.st_gid))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && renameat(dfd, tmp, dfd, name))
		r = -errno;
	if (r) {
		unlinkat(dfd, tmp, 0);
		snprintf(err, errlen, "state file %s: %s", name, strerror(-r));
	}
	close(dfd);
	return r;
}

void gw_cni_state_remove(const struct gw_cni_conf *c, const char *id, const char *ifname)
{
	char name[64], err[256];
	int dfd = state_dir(c, false, err, sizeof(err));

	if (dfd < 0)
		return;
	state_name(c, id, ifname, name, sizeof(name));
	unlinkat(dfd, name, 0);
	close(dfd);
}

/* Send the message and read the one-line reply. 1: no daemon there; 0: "ok"; -errno with the
 * daemon's words (or what went wrong) in err. */
static int exchange(const struct gw_cni_conf *c, const char *text, size_t n, char *err,
		    size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[GW_CTR_REG_REPLY_MAX + 1], via[64];
	const char *sock = c->control_socket, *name;
	size_t got = 0;
	double deadline = gw_mono_now() + REPLY_TIMEOUT_MS / 1e3;
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	struct stat dir, st;
	int dfd, pfd, fd, r = 0;

	/* no directory, or no socket there: no daemon */
	if ((dfd = sock_dir(c, false, &name, err, errlen)) < 0)
		return dfd == -ENOENT ? 1 : dfd;
	/* the socket file itself, never a link: connected to through its own fd */
	pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	r = pfd < 0 ? -errno : fstat(pfd, &st) || fstat(dfd, &dir) ? -errno : 0;
	close(dfd);
	if (r || !S_ISSOCK(st.st_mode)) {
		if (pfd >= 0)
			close(pfd);
		/* nothing there, or a file (or a link) that is no socket: no daemon listens */
		if (!r || r == -ENOENT)
			return 1;
		return snprintf(err, errlen, "%s: %s", sock, strerror(-r)), r;
	}
	gw_rundir_fdpath(pfd, NULL, via, sizeof(via));
	memcpy(sa.sun_path, via, strlen(via));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		r = -errno;
		close(pfd);
		return snprintf(err, errlen, "socket: %s", strerror(-r)), r;
	}
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	close(pfd);
	if (r) {
		close(fd);
		/* no daemon: a socket file nobody listens on */
		if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTDIR)
			return 1;
		return snprintf(err, errlen, "%s: %s", sock, strerror(-r)), r;
	}
	/* the daemon is root or the directory's owner: nobody else is told about containers */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) ||
	    (cr.uid != 0 && cr.uid != dir.st_uid)) {
		close(fd);
		return snprintf(err, errlen, "%s: the peer (uid %u) is neither root nor the "
				"directory's owner (uid %u): not told", sock, (unsigned)cr.uid,
				(unsigned)dir.st_uid), -EPERM;
	}
	/* a message is far smaller than a unix socket's buffer: one send, or it is broken; but
	 * a daemon that refused us before reading (busy) has closed with its answer sent */
	if (send(fd, text, n, MSG_NOSIGNAL) != (ssize_t)n && errno != EPIPE &&
	    errno != ECONNRESET) {
		r = errno ? -errno : -EIO;
		close(fd);
		return snprintf(err, errlen, "sending to %s: %s", sock, strerror(-r)), r;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - gw_mono_now();
		ssize_t k;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) == 0) {
			r = -ETIMEDOUT;
			snprintf(err, errlen, "%s: no answer in %d ms", sock, REPLY_TIMEOUT_MS);
			break;
		}
		k = read(fd, reply + got, sizeof(reply) - 1 - got);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0 || memchr(reply + got, '\n', (size_t)k) ||
		    got + (size_t)k >= sizeof(reply) - 1) {
			got += k > 0 ? (size_t)k : 0;
			break;
		}
		got += (size_t)k;
	}
	close(fd);
	if (r)
		return r;
	reply[got] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	if (!strcmp(reply, "ok"))
		return 0;
	if (!strncmp(reply, "error ", 6))
		return snprintf(err, errlen, "%s", reply + 6), -EPROTO;
	return snprintf(err, errlen, "%s: not an answer (\"%.64s\")", sock, reply), -EPROTO;
}

int gw_cni_tell(const struct gw_cni_conf *c, const struct gw_ctr_reg *m, char *err,
		size_t errlen)
{
	char text[GW_CTR_REG_MAX + 1];
	int n;

	if (!c->control_socket[0])
		return 1;
	if ((n = gw_ctr_reg_encode(m, text, sizeof(text))) < 0)
		return snprintf(err, errlen, "the registration is too long"), n;
	return exchange(c, text, (size_t)n, err, errlen);
}
