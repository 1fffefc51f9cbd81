/* gatewayd/cni/register.c: telling a running gatewayd about a container the plugin shaped (and
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
#include "gatewayd/cni/cni.h"
#include "gatewayd/sys/clock.h"
#include "gatewayd/tree/ctrreg.h"

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

/* The state directory: the socket's own, and "cni" in it. */
static int state_dir(const struct gw_cni_conf *c, char *buf, size_t len, char *parent,
		     size_t plen)
{
	const char *slash = strrchr(c->control_socket, '/');
	int n;

	if (!slash)
		return -EINVAL;
	snprintf(parent, plen, "%.*s", (int)(slash - c->control_socket), c->control_socket);
	if (!parent[0])
		snprintf(parent, plen, "/");
	n = snprintf(buf, len, "%s/cni", parent[1] ? parent : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void gw_cni_state_path(const struct gw_cni_conf *c, const char *id, const char *ifname,
		       char *buf, size_t len)
{
	char dir[256], parent[256], mark[64];

	buf[0] = '\0';
	if (state_dir(c, dir, sizeof(dir), parent, sizeof(parent)))
		return;
	gw_ctr_reg_ifb_mark(c->name, id, ifname, mark, sizeof(mark));
	snprintf(buf, len, "%s/%s", dir, mark + strlen(GW_CTR_REG_IFB_MARK));
}

/* mkdir, and the directory handed to whoever owns the socket's directory (a daemon under a
 * systemd DynamicUser reads and removes the files as that user). */
static int make_dir(const char *dir, const char *parent, uid_t *uid, gid_t *gid)
{
	struct stat st;

	if (mkdir(parent, 0755) && errno != EEXIST)
		return -errno;
	if (stat(parent, &st))
		return -errno;
	*uid = st.st_uid;
	*gid = st.st_gid;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != *uid && chown(dir, *uid, *gid))
		return -errno;
	return 0;
}

int gw_cni_state_write(const struct gw_cni_conf *c, const struct gw_ctr_reg *m, char *err,
		       size_t errlen)
{
	char dir[256], parent[256], path[320], tmp[340], text[GW_CTR_REG_MAX + 1];
	uid_t uid = 0;
	gid_t gid = 0;
	int fd, n, r;

	if ((r = state_dir(c, dir, sizeof(dir), parent, sizeof(parent))))
		return snprintf(err, errlen, "%s: no directory", c->control_socket), r;
	if ((r = make_dir(dir, parent, &uid, &gid)))
		return snprintf(err, errlen, "%s: %s", dir, strerror(-r)), r;
	if ((n = gw_ctr_reg_encode(m, text, sizeof(text))) < 0)
		return snprintf(err, errlen, "the registration is too long"), n;
	gw_cni_state_path(c, m->id, m->ifname, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	/* whole or not at all: a reader never sees half a file */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return snprintf(err, errlen, "%s: %s", tmp, strerror(errno)), -errno;
	r = write(fd, text, (size_t)n) == n ? 0 : -EIO;
	if (!r && fchown(fd, uid, gid) && geteuid() == 0)
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	}
	return r;
}

void gw_cni_state_remove(const struct gw_cni_conf *c, const char *id, const char *ifname)
{
	char path[320];

	gw_cni_state_path(c, id, ifname, path, sizeof(path));
	if (path[0])
		unlink(path);
}

/* Send the message and read the one-line reply. 1: no daemon there; 0: "ok"; -errno with the
 * daemon's words (or what went wrong) in err. */
static int exchange(const char *sock, const char *text, size_t n, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[GW_CTR_REG_REPLY_MAX + 1];
	size_t got = 0;
	double deadline = gw_mono_now() + REPLY_TIMEOUT_MS / 1e3;
	int fd, r = 0;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return snprintf(err, errlen, "%s: path too long", sock), -ENAMETOOLONG;
	memcpy(sa.sun_path, sock, strlen(sock));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return snprintf(err, errlen, "socket: %s", strerror(errno)), -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		r = -errno;
		close(fd);
		/* no daemon: nothing there, or a socket file nobody listens on */
		if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTDIR)
			return 1;
		return snprintf(err, errlen, "%s: %s", sock, strerror(-r)), r;
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
	return exchange(c->control_socket, text, (size_t)n, err, errlen);
}
