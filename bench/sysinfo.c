/* bench/sysinfo.c: what a saved run says about where it ran: the testbed's TCP
 * sysctls and offloads, read from inside its namespaces, and the gateway's qdiscs and classes
 * as the kernel reports them, read back over netlink once gatewayd applied them. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include "bench/run.h"
#include "bench/sysinfo.h"
#include "bench/testbed.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"

/* flent's own list (metadata.py), less what is not per network namespace */
static const char *const sysctls[] = {
	"net.ipv4.tcp_congestion_control", "net.ipv4.tcp_ecn", "net.ipv4.tcp_sack",
	"net.ipv4.tcp_timestamps", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_early_retrans",
	"net.ipv4.tcp_autocorking", "net.ipv4.tcp_notsent_lowat",
	"net.ipv4.tcp_limit_output_bytes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
	"net.ipv4.tcp_no_metrics_save", "net.ipv4.tcp_pacing_ss_ratio",
	"net.ipv4.tcp_pacing_ca_ratio", "net.core.rmem_max", "net.core.wmem_max",
};

/* the interfaces a packet of the bench crosses where it is queued or sent from */
static const struct { int ns; const char *nsname, *ifname; } ifaces[BENCH_MAX_IFS] = {
	{ BENCH_NS_CLIENT, "client", "c0" }, { BENCH_NS_GW, "gateway", "g0" },
	{ BENCH_NS_GW, "gateway", BENCH_GW_WAN }, { BENCH_NS_GW, "gateway", BENCH_GW_IFB },
	{ BENCH_NS_SERVER, "server", "s0" },
};

/* One sysctl as /proc/sys shows it in the namespace we are in: its first line, tabs as
 * spaces; "" when there is none. */
static void read_sysctl(const char *name, char *out, size_t len)
{
	char path[128], *p;
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	if (!(f = fopen(path, "re")))
		return;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	for (p = out; *p; p++)
		if (*p == '\t')
			*p = ' ';
}

/* A legacy ethtool get (ETHTOOL_GTSO and friends): 1, 0, or -1 when the device says no. */
static int eth_get(int fd, const char *ifname, uint32_t cmd, uint32_t bit)
{
	struct ethtool_value ev = { .cmd = cmd };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (char *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -1;
	return bit ? !!(ev.data & bit) : !!ev.data;
}

void bench_sysinfo_read(const struct bench_bed *b, struct bench_sysinfo *si)
{
	struct utsname u;

	memset(si, 0, sizeof(*si));
	if (uname(&u) == 0) {
		snprintf(si->hostname, sizeof(si->hostname), "%s", u.nodename);
		snprintf(si->kernel_name, sizeof(si->kernel_name), "%s", u.sysname);
		snprintf(si->kernel_release, sizeof(si->kernel_release), "%s", u.release);
	}
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]) && i < BENCH_MAX_SYSCTL; i++)
		si->sysctl[si->n_sysctl++].name = sysctls[i];
	/* /proc/sys/net is the namespace's of whoever opens it: the client's and the server's
	 * TCP stacks are the two ends of every flow */
	if (bench_enter(b, BENCH_NS_CLIENT) == 0)
		for (size_t i = 0; i < si->n_sysctl; i++)
			read_sysctl(si->sysctl[i].name, si->sysctl[i].client,
				    sizeof(si->sysctl[i].client));
	if (bench_enter(b, BENCH_NS_SERVER) == 0)
		for (size_t i = 0; i < si->n_sysctl; i++)
			read_sysctl(si->sysctl[i].name, si->sysctl[i].server,
				    sizeof(si->sysctl[i].server));
	for (size_t i = 0; i < BENCH_MAX_IFS; i++) {
		struct bench_ifinfo *f = &si->ifs[si->n_ifs++];
		int fd = -1;

		f->ns = ifaces[i].nsname;
		f->name = ifaces[i].ifname;
		f->tso = f->gso = f->gro = f->lro = -1;
		/* the socket's namespace is the one the ioctl looks the device up in */
		if (bench_enter(b, ifaces[i].ns) == 0)
			fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		f->tso = eth_get(fd, f->name, ETHTOOL_GTSO, 0);
		f->gso = eth_get(fd, f->name, ETHTOOL_GGSO, 0);
		f->gro = eth_get(fd, f->name, ETHTOOL_GGRO, 0);
		f->lro = eth_get(fd, f->name, ETHTOOL_GFLAGS, ETH_FLAG_LRO);
		close(fd);
	}
	bench_enter(b, -1);
}

void bench_tc_id(char *buf, size_t len, uint32_t id, bool handle)
{
	if (!handle && id == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (handle)
		snprintf(buf, len, "%x:", TC_H_MAJ(id) >> 16);
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(id) >> 16, TC_H_MIN(id));
}

struct tree_ctx {
	struct bench_result *r;
	int ifindex;
	bool down;
};

static int tree_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct tree_ctx *c = arg;
	struct gw_tc_obj obj;
	struct bench_tc *t;
	char other[IFNAMSIZ] = "";
	int e;

	if (c->r->n_tc >= BENCH_MAX_TC)
		return 0;
	e = gw_obj_parse(nlh, &obj, other, sizeof(other));
	/* a qdisc dump may hold every device's (no strict checking) */
	if ((e && e != -ENOENT) || obj.ifindex != c->ifindex)
		return 0;
	t = &c->r->tc[c->r->n_tc++];
	memset(t, 0, sizeof(*t));
	t->cls = nlh->nlmsg_type == RTM_NEWTCLASS;
	t->down = c->down;
	t->handle = obj.handle;
	t->parent = obj.parent;
	/* a kind gatewayd does not model (the kernel's own default on a device it left alone):
	 * its name alone */
	snprintf(t->kind, sizeof(t->kind), "%s", other);
	if (e)
		return 0;
	if (t->cls)
		gw_htb_class_format(t->opts, sizeof(t->opts), &obj.cls);
	else if (gw_qdisc_ops(obj.kind) && !gw_qdisc_ops(obj.kind)->hook)
		gw_kind_format(gw_qdisc_ops(obj.kind), t->opts, sizeof(t->opts), &obj.q);
	gw_obj_format_tc(&obj, c->down ? BENCH_GW_IFB : BENCH_GW_WAN, BENCH_GW_IFB, t->line,
			 sizeof(t->line));
	return 0;
}

int bench_read_tree(struct gw_nl *nl, const int ifidx[2], struct bench_result *r)
{
	int e = 0;

	r->n_tc = 0;
	for (int d = 0; d < 2; d++) {
		struct tree_ctx c = { .r = r, .ifindex = ifidx[d], .down = d == 1 };
		int k;

		if ((k = gw_nl_dump_tc(nl, RTM_GETQDISC, ifidx[d], 0, tree_cb, &c, NULL)) ||
		    (k = gw_nl_dump_tc(nl, RTM_GETTCLASS, ifidx[d], 0, tree_cb, &c, NULL)))
			e = k;
	}
	return e;
}
