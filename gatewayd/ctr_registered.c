/* gatewayd/ctr_registered.c: the containers gatewayd-cni registered: the control socket's
 * messages (register, unregister), each container's tree read back and sampled like a followed
 * container's, healed when it changes, adopted at start from the plugin's state files, and
 * cleaned up (its marked ifb, its state file) when its host veth goes without a DEL. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "gatewayd/ctr_registered.h"
#include "gatewayd/sampler.h"
#include "sys/clock.h"
#include "sys/ctlsock.h"
#include "sys/fd.h"
#include "sys/log.h"
#include "sys/rundir.h"
#include "tree/apply.h"
#include "tree/ctr_registration.h"
#include "qdisc/link.h"
#include "qdisc/monitor.h"
#include "qdisc/peer.h"

#define CHECK_DELAY_S 0.02	/* a burst of notifications is one check, as heal.c does */
#define MARK_LEN 64

/* One registered container. Heap-allocated and never moved: its config points into itself. */
struct entry {
	struct gw_ctr_reg m;
	char mark[MARK_LEN];		/* its ifb's alias, "gatewayd:cni:" + 16 hex digits */
	struct gw_ctr_synth s;
	struct gw_applied applied;
	struct gw_sampler *sampler;
	bool dirty;			/* to be checked when the timer fires */
};

struct gw_ctr_registered {
	int64_t interval_us;		/* the config's at start (a reload frees that config) */
	struct gw_nl *nl;
	struct gw_ctlsock *sock;
	struct gw_monitor *mon;		/* link and tc notifications */
	int ep, timer_fd;
	uint64_t netns;			/* our network namespace's inode */
	char sock_dir[128];		/* the control socket's directory, for messages */
	char state_dir[136];		/* and "cni" in it */
	struct entry **v;
	size_t n;
	bool all_dirty;
};

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	gw_applied_free(&e->applied);
	gw_sampler_free(e->sampler);
	gw_ctr_synth_free(&e->s);
	free(e);
}

static struct entry *find_key(struct gw_ctr_registered *c, const struct gw_ctr_reg *m, size_t *at)
{
	for (size_t i = 0; i < c->n; i++)
		if (gw_ctr_reg_same(&c->v[i]->m, m)) {
			*at = i;
			return c->v[i];
		}
	return NULL;
}

static void take_out(struct gw_ctr_registered *c, size_t at)
{
	c->v[at] = c->v[--c->n];
}

static int put_in(struct gw_ctr_registered *c, struct entry *e)
{
	void *n;

	n = realloc(c->v, (c->n + 1) * sizeof(*c->v));
	if (n) {
		c->v = n;
		c->v[c->n++] = e;
	}
	return n ? 0 : -ENOMEM;
}

static void arm(struct gw_ctr_registered *c)
{
	struct itimerspec its = { .it_value = { 0, (long)(CHECK_DELAY_S * 1e9) } };

	timerfd_settime(c->timer_fd, 0, &its, NULL);
}

/* The plugin's state directory, "cni" in the socket's, through the socket's directory fd:
 * never a link, owned by root or by that directory's owner (sys/rundir.c). */
static int state_dir_open(const struct gw_ctr_registered *c, char *err, size_t errlen)
{
	return gw_rundir_sub(gw_ctlsock_dirfd(c->sock), c->sock_dir, "cni", 0700, false, err,
			     errlen);
}

/* ---- the kernel's side ---------------------------------------------------------------------- */

/* The ifb of e when it is there with e's mark: 1 (info filled), 0 when not. */
static int marked_ifb(struct gw_ctr_registered *c, const struct entry *e, struct gw_link_info *info)
{
	if (!e->m.ifb[0] || gw_link_get(c->nl, e->m.ifb, info, NULL))
		return 0;
	return !strcmp(info->kind, "ifb") && !strcmp(info->alias, e->mark);
}

/* The host end as the registration names it, a veth of that name and index here: 1 there,
 * 0 gone (no such index, or another device has it now), -errno when the kernel could not say
 * (then nothing is taken for gone). */
static int host_end_there(struct gw_ctr_registered *c, const struct entry *e)
{
	struct gw_plink l;
	int r = gw_plink_get(c->nl, e->m.host_ifindex, &l, NULL);

	if (r == -ENODEV)
		return 0;
	if (r)
		return r;
	return !strcmp(l.kind, "veth") && !strcmp(l.name, e->m.host_if);
}

/* The sampler in, the old one out. */
static void set_sampler(struct entry *e, struct gw_sampler *s)
{
	gw_sampler_free(e->sampler);
	e->sampler = s;
}

/* The tree the plugin made read back into e (its plan from the kernel's facts now), and its
 * sampler: 0, -ENOENT (host end or ifb missing), -EPROTO (differs), -errno; why says. */
static int read_back(struct gw_ctr_registered *c, struct entry *e, char *why, size_t whylen)
{
	struct gw_sampler *sampler;
	int r;

	set_sampler(e, NULL);
	gw_applied_free(&e->applied);
	if ((r = gw_ctr_reg_planned(c->nl, &e->s, e->mark, &e->applied, why, whylen)))
		return r;
	if (e->applied.facts[0].dev.ifindex != e->m.host_ifindex) {
		snprintf(why, whylen, "%s has index %d, not %d", e->m.host_if,
			 e->applied.facts[0].dev.ifindex, e->m.host_ifindex);
		return -ENOENT;
	}
	/* a dump that raced with other changes can miss an object: a second look decides */
	if (gw_ctr_reg_verify(c->nl, &e->s, &e->applied, why, whylen) &&
	    (r = gw_ctr_reg_verify(c->nl, &e->s, &e->applied, why, whylen)))
		return r;
	if ((r = gw_sampler_new(&e->s.cfg, &e->applied, &sampler)))
		return snprintf(why, whylen, "%s", strerror(-r)), r;
	set_sampler(e, sampler);
	return 0;
}

/* Make e's tree again as the plugin's ADD makes it: what is left of it removed (our root and
 * hook on the host end, the ifb only with e's mark), the ifb made with the mark, applied. */
static int redo(struct gw_ctr_registered *c, struct entry *e, char *err, size_t errlen)
{
	struct gw_dev devs[2];
	struct gw_applied rm = { .devs = devs };
	struct gw_link_info info;
	struct gw_nl_error ne = { 0 };
	struct gw_sampler *sampler;
	char ignored[256] = "";
	bool made = false;
	int r;

	memset(devs, 0, sizeof(devs));
	devs[0] = (struct gw_dev){ .ifindex = e->m.host_ifindex, .root = true, .ingress = true };
	snprintf(devs[0].name, IFNAMSIZ, "%s", e->m.host_if);
	rm.n_devs = 1;
	if (marked_ifb(c, e, &info)) {
		devs[1] = (struct gw_dev){ .ifindex = info.ifindex, .is_ifb = true,
					   .ifb_created = true };
		snprintf(devs[1].name, IFNAMSIZ, "%s", e->m.ifb);
		rm.n_devs = 2;
	}
	gw_remove(c->nl, &rm, ignored, sizeof(ignored));
	set_sampler(e, NULL);
	gw_applied_free(&e->applied);
	if (e->m.ifb[0]) {
		if (gw_link_get(c->nl, e->m.ifb, &info, NULL) == 0) {
			snprintf(err, errlen, "%s is there and is not this container's", e->m.ifb);
			return -EEXIST;
		}
		if ((r = gw_link_add_ifb(c->nl, e->m.ifb, e->mark, &ne))) {
			snprintf(err, errlen, "%s: %s", e->m.ifb, ne.msg[0] ? ne.msg : strerror(-r));
			return r;
		}
		made = true;
	}
	r = gw_apply(c->nl, &e->s.cfg, NULL, &e->applied, err, errlen);
	if (!r && (r = gw_sampler_new(&e->s.cfg, &e->applied, &sampler)) == 0)
		set_sampler(e, sampler);
	if (r && made && marked_ifb(c, e, &info))
		gw_link_del(c->nl, e->m.ifb, NULL);
	return r;
}

/* The host end went without a DEL (a runtime that crashed): what the plugin made and the
 * kernel did not take with the veth, its ifb (with its mark: ours only), and the state file. */
static void clean_up(struct gw_ctr_registered *c, const struct entry *e)
{
	struct gw_link_info info;
	char what[64] = "", err[256];
	int dfd;

	if (marked_ifb(c, e, &info) && gw_link_del(c->nl, e->m.ifb, NULL) == 0)
		snprintf(what, sizeof(what), "its ifb %s, ", e->m.ifb);
	if ((dfd = state_dir_open(c, err, sizeof(err))) >= 0) {
		unlinkat(dfd, e->mark + strlen(GW_CTR_REG_IFB_MARK), 0);
		close(dfd);
	}
	gw_log(GW_LOG_INFO, "cni container %s: host end %s gone without a DEL; removed %sits "
	       "state file", e->m.id, e->m.host_if, what);
}

/* ---- the registry ---------------------------------------------------------------------------- */

static struct entry *entry_new(struct gw_ctr_registered *c, const struct gw_ctr_reg *m, char *err,
			       size_t errlen)
{
	struct entry *e = calloc(1, sizeof(*e));

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->m = *m;
	gw_ctr_reg_ifb_mark(m->network, m->id, m->ifname, e->mark, sizeof(e->mark));
	if (gw_ctr_reg_synth(&e->m, &e->s, err, errlen)) {
		gw_ctr_synth_free(&e->s);
		free(e);
		return NULL;
	}
	e->s.cfg.interval_us = c->interval_us;
	return e;
}

/* A check of one container: gone (cleaned up, 1), its tree as registered (0), or made again. */
static int check(struct gw_ctr_registered *c, size_t at)
{
	struct entry *e = c->v[at];
	char why[1024] = "", err[1024] = "";
	double t0 = gw_mono_now();
	int there = host_end_there(c, e);

	e->dirty = false;
	if (there < 0)
		return 0;	/* looked at again at its next change */
	if (!there) {
		take_out(c, at);
		clean_up(c, e);
		entry_free(e);
		return 1;
	}
	if (read_back(c, e, why, sizeof(why)) == 0)
		return 0;
	if (redo(c, e, err, sizeof(err)))
		gw_log(GW_LOG_ERR, "cni container %s on %s: %s; making it again failed: %s; will "
		       "retry on its next change", e->m.id, e->m.host_if, why, err);
	else
		gw_log(GW_LOG_WARNING, "cni container %s on %s: %s; made again in %.1f ms",
		       e->m.id, e->m.host_if, why, (gw_mono_now() - t0) * 1000);
	return 0;
}

static void check_dirty(struct gw_ctr_registered *c)
{
	bool all = c->all_dirty;

	c->all_dirty = false;
	for (size_t i = c->n; i-- > 0;)
		if (all || c->v[i]->dirty)
			check(c, i);
}

static int do_register(struct gw_ctr_registered *c, const struct gw_ctr_reg *m, char *reply,
		       size_t replylen)
{
	char err[512] = "", why[512] = "";
	struct entry *e, *old;
	size_t at = 0;
	int r;

	/* another container's host end at this index: gone, and its notification missed? */
	for (size_t i = c->n; i-- > 0;)
		if (c->v[i]->m.host_ifindex == m->host_ifindex && !gw_ctr_reg_same(&c->v[i]->m, m))
			check(c, i);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->m.host_ifindex == m->host_ifindex && !gw_ctr_reg_same(&c->v[i]->m, m))
			return snprintf(reply, replylen, "error host_if %s is registered to "
					"container %.64s already", m->host_if, c->v[i]->m.id);
	old = find_key(c, m, &at);
	if (!old && c->n >= GW_CTR_REGISTERED_MAX)
		return snprintf(reply, replylen, "error busy: %d containers are registered "
				"already", GW_CTR_REGISTERED_MAX);
	if (!(e = entry_new(c, m, err, sizeof(err))))
		return snprintf(reply, replylen, "error %s", err);
	if ((r = read_back(c, e, why, sizeof(why)))) {
		entry_free(e);
		return snprintf(reply, replylen, "error %s: %s", r == -EPROTO ? "the tree in the "
				"kernel is not the registration's" : "cannot read the tree", why);
	}
	if (old) {
		take_out(c, at);
		entry_free(old);
	}
	if (put_in(c, e)) {
		entry_free(e);
		return snprintf(reply, replylen, "error out of memory");
	}
	gw_log(GW_LOG_INFO, "cni container %s (network %s, %s in %s): registered, %s shaped",
	       m->id, m->network, m->ifname, m->netns, m->host_if);
	return snprintf(reply, replylen, "ok");
}

/* The control socket's handler: one message, one reply line. */
static void on_message(void *arg, const char *msg, size_t len, char *reply, size_t replylen)
{
	struct gw_ctr_registered *c = arg;
	struct gw_ctr_reg m;
	char err[300] = "";
	struct entry *e;
	size_t at = 0;

	if (gw_ctr_reg_decode(msg, len, &m, err, sizeof(err))) {
		snprintf(reply, replylen, "error %s", err);
		return;
	}
	if (m.op == GW_CTR_REG_REGISTER) {
		if (m.host_netns != c->netns) {
			snprintf(reply, replylen, "error host_netns: the host end is in another "
				 "network namespace than this gatewayd's");
			return;
		}
		do_register(c, &m, reply, replylen);
		return;
	}
	if (!(e = find_key(c, &m, &at))) {
		snprintf(reply, replylen, "error not registered: container %.64s (network %.64s, "
			 "%s)", m.id, m.network, m.ifname);
		return;
	}
	/* the plugin's DEL removes the tree and the state file next: nothing here to undo */
	take_out(c, at);
	gw_log(GW_LOG_INFO, "cni container %s (network %s, %s): unregistered", e->m.id,
	       e->m.network, e->m.ifname);
	entry_free(e);
	snprintf(reply, replylen, "ok");
}

/* The control socket's messages: registrations (tree/ctr_registration.h, docs/cni.md). */
static const struct gw_ctlsock_proto ctl_proto = {
	.msg_max = GW_CTR_REG_MAX,
	.complete = gw_ctr_reg_complete,
	.handle = on_message,
};

/* ---- adoption -------------------------------------------------------------------------------- */

/* One state file: 1 adopted, 0 not (logged), -1 not ours to look at (another namespace's). */
static int adopt_file(struct gw_ctr_registered *c, int dfd, const char *name)
{
	char text[GW_CTR_REG_MAX + 1], err[512] = "", mark[MARK_LEN];
	struct gw_ctr_reg m;
	struct entry *e;
	struct stat st;
	ssize_t n;
	size_t at;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), r;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > GW_CTR_REG_MAX) {
		close(fd);
		gw_log(GW_LOG_WARNING, "cni state file %s/%s: not a regular file of at most %d "
		       "bytes; ignored", c->state_dir, name, GW_CTR_REG_MAX);
		return 0;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0 || gw_ctr_reg_decode(text, (size_t)n, &m, err, sizeof(err)) ||
	    m.op != GW_CTR_REG_REGISTER) {
		gw_log(GW_LOG_WARNING, "cni state file %s/%s: %s; ignored", c->state_dir, name,
		       err[0] ? err : "not a registration");
		return 0;
	}
	/* the file's name is its key's: a file cannot speak for another container's ifb */
	gw_ctr_reg_ifb_mark(m.network, m.id, m.ifname, mark, sizeof(mark));
	if (strcmp(name, mark + strlen(GW_CTR_REG_IFB_MARK))) {
		gw_log(GW_LOG_WARNING, "cni state file %s/%s: named for another container than the "
		       "one it holds; ignored", c->state_dir, name);
		return 0;
	}
	if (m.host_netns != c->netns)
		return -1;
	if (find_key(c, &m, &at) || c->n >= GW_CTR_REGISTERED_MAX ||
	    !(e = entry_new(c, &m, err, sizeof(err))))
		return 0;
	if ((r = host_end_there(c, e)) <= 0) {
		if (r == 0)
			clean_up(c, e);
		else
			gw_log(GW_LOG_WARNING, "cni container %s: cannot look its host end %s up: %s; "
			       "not adopted", m.id, m.host_if, strerror(-r));
		entry_free(e);
		return 0;
	}
	if ((r = read_back(c, e, err, sizeof(err))) && redo(c, e, err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "cni container %s on %s: cannot adopt it: %s", m.id, m.host_if,
		       err);
		entry_free(e);
		return 0;
	}
	if (r)
		gw_log(GW_LOG_WARNING, "cni container %s on %s: its tree had changed; made again",
		       m.id, m.host_if);
	if (put_in(c, e)) {
		entry_free(e);
		return 0;
	}
	return 1;
}

static void adopt(struct gw_ctr_registered *c)
{
	size_t seen = 0, got = 0;
	char err[512];
	struct dirent *d;
	int dfd = state_dir_open(c, err, sizeof(err));
	DIR *dir;

	if (dfd < 0) {
		if (dfd != -ENOENT)
			gw_log(GW_LOG_WARNING, "cni state files: %s; none adopted", err);
		return;
	}
	if (!(dir = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((d = readdir(dir)) && seen < GW_CTR_REGISTERED_FILES_MAX) {
		/* "MARK.PID": a file the plugin was writing when it stopped */
		if (d->d_name[0] == '.' || strchr(d->d_name, '.'))
			continue;
		seen++;
		if (adopt_file(c, dirfd(dir), d->d_name) == 1)
			got++;
	}
	closedir(dir);
	if (got)
		gw_log(GW_LOG_INFO, "cni: adopted %zu container%s from %s", got, got == 1 ? "" : "s",
		       c->state_dir);
}

/* ---- notifications, set-up ------------------------------------------------------------------ */

static bool ours(const struct entry *e, int ifindex)
{
	if (ifindex == e->m.host_ifindex)
		return true;
	for (size_t k = 0; k < e->applied.n_devs; k++)
		if (e->applied.devs[k].ifindex == ifindex)
			return true;
	return false;
}

static int on_event(const struct nlmsghdr *h, void *arg)
{
	struct gw_ctr_registered *c = arg;
	int ifindex;

	if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			return 0;
		ifindex = ifi->ifi_index;
	} else {
		const struct tcmsg *t = NLMSG_DATA(h);

		/* our own requests (a heal's) are not someone else's change */
		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || h->nlmsg_pid == gw_nl_portid(c->nl))
			return 0;
		ifindex = t->tcm_ifindex;
	}
	for (size_t i = 0; i < c->n; i++)
		if (ours(c->v[i], ifindex)) {
			c->v[i]->dirty = true;
			arm(c);
		}
	return 0;
}

void gw_ctr_registered_dispatch(struct gw_ctr_registered *c)
{
	struct epoll_event ev[4];
	int n = epoll_wait(c->ep, ev, 4, 0);
	uint64_t exp;

	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd;

		if (fd == gw_ctlsock_fd(c->sock)) {
			gw_ctlsock_dispatch(c->sock);
		} else if (c->mon && fd == gw_monitor_fd(c->mon)) {
			if (gw_monitor_read(c->mon, on_event, c) == -ENOBUFS) {
				c->all_dirty = true;
				arm(c);
			}
		} else if (fd == c->timer_fd && read(fd, &exp, sizeof(exp)) == sizeof(exp)) {
			check_dirty(c);
		}
	}
}

static int add_fd(int ep, int fd)
{
	return gw_epoll_set(ep, EPOLL_CTL_ADD, fd, EPOLLIN, (epoll_data_t){ .fd = fd });
}

int gw_ctr_registered_new(const struct gw_config *cfg, struct gw_nl *nl,
			  struct gw_ctr_registered **out, char *err, size_t errlen)
{
	const char *path = cfg->control_socket ? cfg->control_socket : GW_CONTROL_SOCKET_DEFAULT;
	struct gw_ctr_registered *c;
	struct stat st;
	int r;

	*out = NULL;
	if (!path[0])
		return 0;
	if (!(c = calloc(1, sizeof(*c))))
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	c->interval_us = cfg->interval_us;
	c->nl = nl;
	c->ep = c->timer_fd = -1;
	if (stat("/proc/self/ns/net", &st) == 0)
		c->netns = (uint64_t)st.st_ino;
	/* the plugin's: the socket's directory, and "cni" in it */
	snprintf(c->sock_dir, sizeof(c->sock_dir), "%.*s", (int)(strrchr(path, '/') - path),
		 path);
	snprintf(c->state_dir, sizeof(c->state_dir), "%s/cni", c->sock_dir);
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->ep < 0 || c->timer_fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s", strerror(-r));
		goto fail;
	}
	if ((r = gw_ctlsock_open(path, &ctl_proto, c, &c->sock, err, errlen)))
		goto fail;
	/* subscribed before the state files are read: nothing that changes between is missed */
	if ((r = gw_nl_monitor(nl, RTMGRP_LINK | RTMGRP_TC, false, &c->mon))) {
		snprintf(err, errlen, "notifications: %s", strerror(-r));
		goto fail;
	}
	if ((r = add_fd(c->ep, gw_ctlsock_fd(c->sock))) || (r = add_fd(c->ep, c->timer_fd)) ||
	    (gw_monitor_fd(c->mon) >= 0 && (r = add_fd(c->ep, gw_monitor_fd(c->mon))))) {
		snprintf(err, errlen, "%s", strerror(-r));
		goto fail;
	}
	adopt(c);
	gw_log(GW_LOG_INFO, "control socket %s: taking registrations from gatewayd-cni "
	       "(%zu adopted)", path, c->n);
	*out = c;
	return 0;
fail:
	gw_ctr_registered_free(c);
	return r;
}

void gw_ctr_registered_free(struct gw_ctr_registered *c)
{
	if (!c)
		return;
	gw_ctlsock_close(c->sock);
	while (c->n)
		entry_free(c->v[--c->n]);
	free(c->v);
	gw_monitor_close(c->mon);
	gw_fd_close(&c->timer_fd);
	gw_fd_close(&c->ep);
	free(c);
}

int gw_ctr_registered_fd(const struct gw_ctr_registered *c)
{
	return c->ep;
}

/* ---- sampling -------------------------------------------------------------------------------- */

/* One qdisc dump for every container (a dump walks all qdiscs of the namespace). */
static int shared_dump(struct gw_ctr_registered *c)
{
	struct gw_sampler_route *v;
	size_t n = 0;
	int r;

	if (!(v = calloc(2 * c->n + 1, sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = c->v[i];

		if (!e->sampler)
			continue;
		gw_sampler_begin(e->sampler);
		for (size_t k = 0; k < e->applied.n_devs && k < 2; k++)
			v[n++] = (struct gw_sampler_route){ e->applied.devs[k].ifindex, e->sampler };
	}
	r = gw_sampler_dump_routed(c->nl, v, n);
	free(v);
	return r;
}

static void fill_cni(struct gw_snap_cni *s, const struct gw_ctr_reg *m)
{
	s->present = true;
	snprintf(s->id, sizeof(s->id), "%s", m->id);
	snprintf(s->netns, sizeof(s->netns), "%.*s", (int)sizeof(s->netns) - 1, m->netns);
	snprintf(s->network, sizeof(s->network), "%s", m->network);
	snprintf(s->ifname, sizeof(s->ifname), "%s", m->ifname);
}

int gw_ctr_registered_sample(struct gw_ctr_registered *c, double now, struct gw_snapshot *snap)
{
	double mono;
	int ret;

	if (!c || !c->n)
		return 0;
	mono = gw_mono_now();	/* the counters' time: the dump's (gw_sampler_pass) */
	if ((ret = shared_dump(c)))
		return ret;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = c->v[i];
		struct gw_snapshot *cs = NULL;
		char err[256] = "";
		void *n;

		if (!e->sampler)
			continue;
		if (gw_sampler_finish(e->sampler, c->nl, mono, now, &cs, err, sizeof(err))) {
			ret = -EIO;
			continue;
		}
		/* a root gone without a notification we understood: look at it again */
		if (err[0]) {
			e->dirty = true;
			arm(c);
		}
		n = realloc(snap->dirs, (snap->n_dirs + cs->n_dirs + 1) * sizeof(*snap->dirs));
		if (!n) {
			gw_snapshot_put(cs);
			ret = -ENOMEM;
			continue;
		}
		snap->dirs = n;
		for (size_t k = 0; k < cs->n_dirs; k++)
			fill_cni(&cs->dirs[k].cni, &e->m);
		memcpy(&snap->dirs[snap->n_dirs], cs->dirs, cs->n_dirs * sizeof(*cs->dirs));
		snap->n_dirs += cs->n_dirs;
		cs->n_dirs = 0;		/* the classes now belong to snap */
		gw_snapshot_put(cs);
	}
	return ret;
}
