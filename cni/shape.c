/* cni/shape.c: ADD, CHECK and DEL in the kernel. The container's interface is found
 * in its namespace, its veth peer on the host is shaped with the tree gatewayd gives a
 * container (tree/ctr_tree.c) through the daemon's own apply, read-back and removal,
 * and nothing is kept between calls: DEL and CHECK find everything again from the network's
 * name, the container id and the interface name. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/nsfs.h>
#include <linux/pkt_sched.h>
#include "cni/cni.h"
#include "tree/apply.h"
#include "tree/ctr_tree.h"
#include "tree/own.h"
#include "qdisc/link.h"
#include "qdisc/peer.h"

/* Where the container's interface leads on the host. */
struct host_end {
	struct gw_plink l;	/* the host's end of the veth pair */
	bool found;
};

/* A netlink socket in the namespace of nsfd: sockets stay in the namespace they were made in. */
static int nl_open_in(int nsfd, struct gw_nl **out)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), r;

	if (self < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET)) {
		r = -errno;
		close(self);
		return r;
	}
	r = gw_nl_open(out);
	/* back home, or nothing after this may touch the kernel */
	if (setns(self, CLONE_NEWNET)) {
		perror("gatewayd-cni: returning to the host's network namespace");
		_exit(1);
	}
	close(self);
	return r;
}

/* CNI_NETNS opened and checked to be a network namespace: fd, or -errno with e filled. */
static int open_netns(const char *path, struct gw_cni_error *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), t;

	if (fd < 0) {
		int r = -errno;

		if (r == -ENOENT)
			gw_cni_fail(e, GW_CNI_E_UNKNOWN, "container unknown or does not exist",
				    "CNI_NETNS %.200s: no such file", path);
		else
			gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_NETNS", "CNI_NETNS %.200s: %s",
				    path, strerror(-r));
		return r;
	}
	t = ioctl(fd, NS_GET_NSTYPE);
	if (t != CLONE_NEWNET) {
		close(fd);
		gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_NETNS",
			    "CNI_NETNS %.200s is not a network namespace", path);
		return -EINVAL;
	}
	return fd;
}

/*
 * The host end of CNI_IFNAME: in the container's namespace it is a veth whose peer is in
 * another namespace; that peer, looked up here by its index, must be a veth whose own peer is
 * the container's interface in that namespace (indexes repeat across namespaces). 0 with
 * out->found or not (a container or interface that is gone: not an error for DEL), -errno
 * with e filled for what cannot be read.
 */
static int find_host_end(struct gw_nl *nl, const struct gw_cni_env *env, struct host_end *out,
			 struct gw_cni_error *e)
{
	struct gw_link_info ci;
	struct gw_plink cl;
	struct gw_nl *cnl = NULL;
	int fd, r, nsid = -1;

	memset(out, 0, sizeof(*out));
	if ((fd = open_netns(env->netns, e)) < 0)
		return fd;
	if ((r = nl_open_in(fd, &cnl))) {
		close(fd);
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot enter the container's namespace",
				   "%s: %s", env->netns, strerror(-r)), r;
	}
	r = gw_link_get(cnl, env->ifname, &ci, NULL);
	if (!r)
		r = gw_plink_get(cnl, ci.ifindex, &cl, NULL);
	gw_nl_close(cnl);
	if (gw_netns_id(nl, fd, &nsid))
		nsid = -1;	/* no id for it here: the peer checks below still hold */
	close(fd);
	if (r == -ENODEV)
		return 0;
	if (r)
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot read the container's interface",
				   "%s in %s: %s", env->ifname, env->netns, strerror(-r)), r;
	if (strcmp(cl.kind, "veth") || cl.peer_ifindex <= 0 || cl.peer_nsid < 0)
		return 0;
	r = gw_plink_get(nl, cl.peer_ifindex, &out->l, NULL);
	if (r == -ENODEV)
		return 0;
	if (r)
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot read the host's interfaces", "%s",
				   strerror(-r)), r;
	out->found = !strcmp(out->l.kind, "veth") && out->l.peer_ifindex == ci.ifindex &&
		     out->l.peer_nsid >= 0 && (nsid < 0 || out->l.peer_nsid == nsid);
	return 0;
}

/* ADD and CHECK need the host end, and it must be an interface prevResult names. */
static int need_host_end(struct gw_nl *nl, const struct gw_cni_env *env,
			 const struct gw_cni_conf *c, struct host_end *h, struct gw_cni_error *e)
{
	int r = find_host_end(nl, env, h, e);

	if (r)
		return r;
	if (!h->found)
		return gw_cni_fail(e, GW_CNI_E_NOHOST, "no host end to shape",
				   "%s in %s is not a veth with its peer in this namespace",
				   env->ifname, env->netns);
	for (size_t i = 0; i < c->n_host_ifaces; i++)
		if (!strcmp(c->host_ifaces[i], h->l.name))
			return 0;
	return gw_cni_fail(e, GW_CNI_E_NOHOST, "no host end to shape",
			   "the host end of %s is %s, which prevResult does not list as a host "
			   "interface", env->ifname, h->l.name);
}

/* The container's tree on host interface name (index ifindex): the registration's
 * (tree/ctr_registration.c), so the daemon told of it builds the same one. */
static int synthesize(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		      const char *name, int ifindex, struct gw_ctr_synth *s,
		      struct gw_cni_error *e)
{
	struct gw_cni_shaped sh = { .host_ifindex = ifindex };
	struct gw_ctr_reg m;
	char err[512] = "";

	snprintf(sh.host_if, sizeof(sh.host_if), "%s", name);
	gw_cni_reg_fill(env, c, &sh, GW_CTR_REG_REGISTER, &m);
	if (gw_ctr_reg_synth(&m, s, err, sizeof(err)))
		return gw_cni_fail(e, GW_CNI_E_CONFIG, "invalid network config", "%s", err);
	return 0;
}

/* Our ifb: there (1), not there (0), there and someone else's (-EEXIST with e filled). */
static int our_ifb(struct gw_nl *nl, const char *name, const char *mark,
		   struct gw_link_info *info, struct gw_cni_error *e)
{
	int r = gw_link_get(nl, name, info, NULL);

	if (r == -ENODEV)
		return 0;
	if (r)
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot read the host's interfaces",
				   "%s: %s", name, strerror(-r)), r;
	if (strcmp(info->kind, "ifb") || strcmp(info->alias, mark))
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "the ifb's name is taken",
				   "%s is there and is not this container's (kind \"%s\", alias "
				   "\"%.64s\")", name, info->kind, info->alias), -EEXIST;
	return 1;
}

int gw_cni_add(const struct gw_cni_env *env, const struct gw_cni_conf *c,
	       struct gw_cni_shaped *out, struct gw_cni_error *e)
{
	struct gw_ctr_synth s = { .match = NULL };
	struct gw_applied a;
	struct gw_link_info info;
	struct host_end h;
	struct gw_nl *nl;
	struct gw_nl_error ne;
	struct gw_cni_error ignored;
	char mark[64], err[1024] = "";
	const char *ifb = "";
	bool made_ifb = false;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = gw_nl_open(&nl)))
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot open rtnetlink", "%s",
				   strerror(-r)), r;
	if ((r = need_host_end(nl, env, c, &h, e)))
		goto out;
	if ((r = synthesize(env, c, h.l.name, h.l.ifindex, &s, e)))
		goto out;
	ifb = s.link.dir[GW_DIR_INGRESS].ifb;
	gw_cni_ifb_mark(c->name, env->container_id, env->ifname, mark, sizeof(mark));
	/* the ifb is made here, with this container's mark from the start: apply takes a
	 * marked ifb for its own, and deletes it again if the tree does not go in */
	if (ifb[0] && (r = our_ifb(nl, ifb, mark, &info, e)) == 0) {
		if ((r = gw_link_add_ifb(nl, ifb, mark, &ne)))
			gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot create the ifb", "%s: %s", ifb,
				    ne.msg[0] ? ne.msg : strerror(-r));
		made_ifb = !r;
	}
	if (r < 0)
		goto out;
	r = gw_apply(nl, &s.cfg, NULL, &a, err, sizeof(err));
	if (r) {
		/* the daemon's advice (a config key) means nothing to a runtime's user */
		char *advice = strstr(err, "; set replace = true");

		if (advice)
			*advice = '\0';
		gw_cni_fail(e, GW_CNI_E_KERNEL, r == -EEXIST ? "someone else's qdisc is in the way" :
			    "the kernel refused the tree", "%s", err);
		goto out;
	}
	/* apply leaves someone else's ingress hook alone and that direction unshaped: for a
	 * runtime that asked for the limit, that is a failure, not a warning */
	if (s.link.dir[GW_DIR_INGRESS].present && a.facts[0].ingress_foreign) {
		gw_cni_fail(e, GW_CNI_E_KERNEL, "the container's egress cannot be shaped",
			    "%s already has an ingress hook (%s) that gatewayd did not create",
			    h.l.name, a.facts[0].hook_kind);
		gw_remove(nl, &a, err, sizeof(err));
		gw_applied_free(&a);
		r = -EEXIST;
		goto out;
	}
	made_ifb = false;	/* it is the tree's now */
	snprintf(out->host_if, sizeof(out->host_if), "%s", h.l.name);
	out->host_ifindex = h.l.ifindex;
	snprintf(out->ifb, sizeof(out->ifb), "%s", ifb);
	gw_applied_free(&a);
out:
	/* a refused tree takes its ifb with it (apply's undo), unless it failed before it
	 * had looked at the ifb: then it is deleted here */
	if (made_ifb && our_ifb(nl, ifb, mark, &info, &ignored) == 1)
		gw_link_del(nl, ifb, NULL);
	gw_nl_close(nl);
	gw_ctr_synth_free(&s);
	return r;
}

/* What an apply of s would have made on the host end and the ifb, without making anything. */
static int planned(struct gw_nl *nl, const struct gw_ctr_synth *s, const char *mark,
		   struct gw_applied *a, struct gw_cni_error *e)
{
	char err[512] = "";
	int r = gw_ctr_reg_planned(nl, s, mark, a, err, sizeof(err));

	if (r == -ENOENT)
		return gw_cni_fail(e, GW_CNI_E_CHECK, "the tree is not in the kernel", "%s", err), r;
	if (r == -EEXIST)
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "the ifb's name is taken", "%s", err), r;
	if (r)
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot read the tree", "%s", err), r;
	return 0;
}

int gw_cni_check(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		 struct gw_cni_error *e)
{
	struct gw_ctr_synth s = { .match = NULL };
	struct gw_applied a = { 0 };
	struct host_end h;
	struct gw_nl *nl;
	char mark[64], why[512] = "";
	int r;

	if (!gw_cni_shapes(c))
		return 0;
	if ((r = gw_nl_open(&nl)))
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot open rtnetlink", "%s",
				   strerror(-r)), r;
	if ((r = need_host_end(nl, env, c, &h, e)))
		goto out;
	if ((r = synthesize(env, c, h.l.name, h.l.ifindex, &s, e)))
		goto out;
	gw_cni_ifb_mark(c->name, env->container_id, env->ifname, mark, sizeof(mark));
	if ((r = planned(nl, &s, mark, &a, e)))
		goto out;
	/* as the daemon's heal does: a dump that raced with a change can miss an object */
	if ((r = gw_ctr_reg_verify(nl, &s, &a, why, sizeof(why))) &&
	    (r = gw_ctr_reg_verify(nl, &s, &a, why, sizeof(why))))
		gw_cni_fail(e, r == -EPROTO ? GW_CNI_E_CHECK : GW_CNI_E_KERNEL,
			    r == -EPROTO ? "the tree in the kernel is not the configured one" :
			    "cannot read the tree back", "%s", why);
out:
	gw_applied_free(&a);
	gw_nl_close(nl);
	gw_ctr_synth_free(&s);
	return r;
}

/*
 * DEL: what this container's ADD made, and only that: on its host end (when it can still be
 * found) the root qdisc under gatewayd's handle and an ingress hook of gatewayd's shape; the
 * ifb of this (network, container, interface) when it carries this one's mark. Anything else
 * on those devices, and every other device, is left as it is. Gone already is not a failure.
 */
int gw_cni_del(const struct gw_cni_env *env, const struct gw_cni_conf *c,
	       struct gw_cni_error *e)
{
	struct gw_applied a = { 0 };
	struct gw_dev devs[2];
	struct gw_link_info info;
	struct host_end h = { .found = false };
	struct gw_nl *nl;
	char ifb[IFNAMSIZ], mark[64], err[512] = "";
	int r, have_ifb;

	if ((r = gw_nl_open(&nl)))
		return gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot open rtnetlink", "%s",
				   strerror(-r)), r;
	/* a namespace that is gone took the container's end, and so the host's, with it; so
	 * did one whose file is left but no longer a namespace (unmounted after a crash) */
	if (env->netns[0] && (r = find_host_end(nl, env, &h, e)) &&
	    e->code != GW_CNI_E_UNKNOWN && e->code != GW_CNI_E_ENV)
		goto out;
	gw_cni_ifb_name(c->name, env->container_id, env->ifname, ifb, sizeof(ifb));
	gw_cni_ifb_mark(c->name, env->container_id, env->ifname, mark, sizeof(mark));
	have_ifb = our_ifb(nl, ifb, mark, &info, e);
	if (have_ifb < 0 && have_ifb != -EEXIST) {
		r = have_ifb;
		goto out;
	}
	memset(devs, 0, sizeof(devs));
	a.devs = devs;
	if (h.found) {
		devs[a.n_devs] = (struct gw_dev){ .ifindex = h.l.ifindex, .root = true,
						  .ingress = true };
		snprintf(devs[a.n_devs].name, IFNAMSIZ, "%s", h.l.name);
		a.n_devs++;
	}
	if (have_ifb == 1) {
		devs[a.n_devs] = (struct gw_dev){ .ifindex = info.ifindex, .is_ifb = true,
						  .ifb_created = true };
		snprintf(devs[a.n_devs].name, IFNAMSIZ, "%s", ifb);
		a.n_devs++;
	}
	r = 0;
	if (a.n_devs && gw_remove(nl, &a, err, sizeof(err))) {
		r = -EIO;
		gw_cni_fail(e, GW_CNI_E_KERNEL, "cannot remove the tree", "%s", err);
	}
out:
	gw_nl_close(nl);
	return r;
}
