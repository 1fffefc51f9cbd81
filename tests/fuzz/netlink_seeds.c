/* tests/fuzz/netlink_seeds.c: seed inputs for fuzz_netlink. Not a fuzzer: run by
 * tests/fuzz/make-netlink-seeds.sh, inside a network namespace it builds.
 *
 *   netlink_seeds dump DIR IFNAME...   every qdisc, and the classes, ingress filters and link
 *                                      message of each interface, as the daemon's own dump loop
 *                                      (gw_nl_dump_tc, gw_nl_request) hands them over
 *   netlink_seeds errors DIR           the kernel's error acks (with extended-ack text, capped
 *                                      and with the request echoed) for requests it refuses
 *   netlink_seeds synthetic DIR        fq_codel and cake xstats as tests/unit/stats_msgs.h
 *                                      builds them for test_stats.c, hand-made error acks, and the requests
 *                                      gatewayd itself builds (gw_obj_build) for a config that
 *                                      sets every knob: attributes a dump does not carry
 *                                      (TCA_TBF_BURST, 64-bit rates...) but decoders read
 *
 * Each file is fuzz_netlink's input: 4 bytes (the first 0: keep each message's type), then
 * netlink messages. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "config/config.h"
#include "tests/unit/stats_msgs.h"
#include "tree/plan.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"

struct sink {
	const char *dir;
	const char *what;
	char ifname[IFNAMSIZ];
	int n;
	FILE *all;		/* the whole dump, as one input */
};

static const unsigned char prefix[4];

static int write_file(const char *dir, const char *name, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	fwrite(prefix, 1, sizeof(prefix), f);
	fwrite(a, 1, alen, f);
	if (blen)
		fwrite(b, 1, blen, f);
	return fclose(f) ? -errno : 0;
}

/* every dumped message: one file, and appended to the dump's file */
static int save_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct sink *s = arg;
	char name[128];

	snprintf(name, sizeof(name), "real-%s-%s-%d", s->ifname, s->what, s->n++);
	if (write_file(s->dir, name, nlh, nlh->nlmsg_len, NULL, 0))
		return -EIO;
	if (s->all)
		fwrite(nlh, 1, NLMSG_ALIGN(nlh->nlmsg_len), s->all);
	return 0;
}

/* ifname NULL: every interface (the kernel's qdisc dump ignores tcm_ifindex anyway) */
static int dump_one(struct gw_nl *nl, const char *dir, const char *ifname, int type,
		    const char *what, uint32_t parent)
{
	struct sink s = { .dir = dir, .what = what };
	struct gw_nl_error e = { .err = 0 };
	char path[4096];
	int ifindex = ifname ? (int)if_nametoindex(ifname) : 0, r;

	if (ifname && !ifindex)
		return -ENODEV;
	ifname = ifname ? ifname : "all";
	snprintf(s.ifname, sizeof(s.ifname), "%s", ifname);
	snprintf(path, sizeof(path), "%s/real-%s-%s-all", dir, ifname, what);
	if (!(s.all = fopen(path, "w")))
		return -errno;
	fwrite(prefix, 1, sizeof(prefix), s.all);
	r = gw_nl_dump_tc(nl, type, ifindex, parent, save_cb, &s, &e);
	fclose(s.all);
	if (s.n < 2)	/* one message: its own file says it all */
		unlink(path);
	if (r)
		fprintf(stderr, "dump %s %s: %s %s\n", ifname, what, strerror(-r), e.msg);
	return r;
}

static int dump_link(struct gw_nl *nl, const char *dir, const char *ifname)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETLINK, 0);
	struct sink s = { .dir = dir, .what = "link" };
	int r;

	if (!msg)
		return -ENOMEM;
	snprintf(s.ifname, sizeof(s.ifname), "%s", ifname);
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, ifname) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = gw_nl_request(nl, msg, save_cb, &s, NULL);
	nlmsg_free(msg);
	return r;
}

static int cmd_dump(const char *dir, char **ifnames, int n)
{
	struct gw_nl *nl;
	int r = 0;

	if ((r = gw_nl_open(&nl)))
		return r;
	r = dump_one(nl, dir, NULL, RTM_GETQDISC, "qdisc", 0);
	for (int i = 0; i < n && !r; i++) {
		if ((r = dump_one(nl, dir, ifnames[i], RTM_GETTCLASS, "class", 0)) ||
		    (r = dump_one(nl, dir, ifnames[i], RTM_GETTFILTER, "filter",
				  GW_INGRESS_HANDLE)))
			break;
		r = dump_link(nl, dir, ifnames[i]);
	}
	gw_nl_close(nl);
	return r;
}

/* One request the kernel refuses, on a raw socket set up as the daemon's, and its ack. */
static int save_refusal(const char *dir, const char *name, bool capped, struct nl_msg *req)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[8192];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), one = 1, cap = capped;
	struct nlmsghdr *h = nlmsg_hdr(req);
	ssize_t n;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &cap, sizeof(cap));
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = 1;
	if (sendto(fd, h, h->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (n = recv(fd, buf, sizeof(buf), 0)) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	return write_file(dir, name, buf, (size_t)n, NULL, 0);
}

static struct nl_msg *tc_request(int type, int ifindex, uint32_t handle, uint32_t parent,
				 const char *kind)
{
	struct nl_msg *m = nlmsg_alloc_size(4096);
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			   .tcm_handle = handle, .tcm_parent = parent };

	nlmsg_put(m, 0, 0, type, 0, NLM_F_CREATE | NLM_F_EXCL);
	nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO);
	if (kind)
		nla_put_string(m, TCA_KIND, kind);
	return m;
}

static int cmd_errors(const char *dir, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), r;
	struct nl_msg *m;

	if (!ifindex)
		return -ENODEV;
	/* a class under a qdisc that is not there: "Specified qdisc not found" or similar */
	m = tc_request(RTM_NEWTCLASS, ifindex, GW_HANDLE(0xbeef, 5), GW_HANDLE(0xbeef, 0), "htb");
	r = save_refusal(dir, "real-error-class-capped", true, m);
	if (!r)
		r = save_refusal(dir, "real-error-class-echoed", false, m);
	nlmsg_free(m);
	/* a qdisc kind the kernel does not know */
	m = tc_request(RTM_NEWQDISC, ifindex, GW_HANDLE(0xbeef, 0), TC_H_ROOT, "nosuchkind");
	if (!r)
		r = save_refusal(dir, "real-error-kind-capped", true, m);
	nlmsg_free(m);
	/* an htb root without its TCA_OPTIONS */
	m = tc_request(RTM_NEWQDISC, ifindex, GW_HANDLE(0xbeef, 0), TC_H_ROOT, "htb");
	if (!r)
		r = save_refusal(dir, "real-error-htb-noopts", false, m);
	nlmsg_free(m);
	return r;
}

static void fill_fq_codel_class(struct nl_msg *m)
{
	struct tc_fq_codel_xstats x = { .type = TCA_FQ_CODEL_XSTATS_CLASS };

	x.class_stats.deficit = -300;
	x.class_stats.ldelay = 1200;
	nla_put(m, TCA_STATS_APP, sizeof(x), &x);
}

/* an error ack as the kernel builds it: capped, with NLMSGERR_ATTR_MSG and an offset */
static int save_error(const char *dir, const char *name, int err, const char *text, bool capped)
{
	struct nl_msg *m = nlmsg_alloc_size(1024);
	struct nlmsgerr e = { .error = err };
	struct nlmsghdr *h;
	size_t elen = sizeof(e);
	char req[sizeof(struct tcmsg)] = "";
	int r;

	nlmsg_put(m, 0, 1, NLMSG_ERROR, 0, NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0));
	e.msg = (struct nlmsghdr){ .nlmsg_len = NLMSG_LENGTH(capped ? 0 : sizeof(req)),
				   .nlmsg_type = RTM_NEWQDISC, .nlmsg_seq = 1 };
	nlmsg_append(m, &e, elen, NLMSG_ALIGNTO);
	if (!capped)
		nlmsg_append(m, req, sizeof(req), NLMSG_ALIGNTO);
	nla_put_string(m, NLMSGERR_ATTR_MSG, text);
	nla_put_u32(m, NLMSGERR_ATTR_OFFS, 20);
	h = nlmsg_hdr(m);
	r = write_file(dir, name, h, h->nlmsg_len, NULL, 0);
	nlmsg_free(m);
	return r;
}

static int save_msg(const char *dir, const char *name, struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	int r = write_file(dir, name, h, h->nlmsg_len, NULL, 0);

	nlmsg_free(m);
	return r;
}

/* Every kind, every knob, 64-bit rates, size tables: what gatewayd would ask the kernel for. */
static const char rich_config[] =
	"links = ( { name = \"wan\"; interface = \"eth0\"; overhead = 40; mpu = 96;\n"
	"  linklayer = \"atm\";\n"
	"  egress = { shaper = \"htb\"; rate = \"40gbit\"; burst = \"64k\"; classes = (\n"
	"    { name = \"voice\"; rate = \"10mbit\"; ceil = \"39gbit\"; prio = 0; quantum = 1514;\n"
	"      burst = \"15k\"; cburst = 3000;\n"
	"      child = { kind = \"fq_codel\"; limit = 1000; flows = 64; target = \"2ms\";\n"
	"        interval = \"40ms\"; quantum = 300; ecn = true; ce_threshold = \"1ms\";\n"
	"        memory_limit = \"4m\"; }; },\n"
	"    { name = \"bulk\"; rate = \"35gbit\"; default = true;\n"
	"      child = { kind = \"cake\"; diffserv = \"diffserv8\"; flow_mode = \"triple-isolate\";\n"
	"        nat = false; wash = true; split_gso = false; ingress = false;\n"
	"        ack_filter = \"aggressive\"; rtt = \"300ms\"; }; },\n"
	"    { name = \"fifo\"; rate = \"1mbit\"; child = { kind = \"fifo\"; limit = \"64k\"; }; } );\n"
	"  };\n"
	"  ingress = { shaper = \"tbf\"; rate = \"40gbit\"; burst = \"1m\"; latency = \"5ms\";\n"
	"    ifb = \"ifb9\"; child = { kind = \"fifo\"; limit = 100; }; }; },\n"
	"  { name = \"lan\"; interface = \"eth1\"; linklayer = \"ptm\"; overhead = 30;\n"
	"    egress = { shaper = \"cake\"; rate = \"100mbit\"; child = { kind = \"cake\";\n"
	"      diffserv = \"besteffort\"; flow_mode = \"dual-srchost\"; nat = true; }; };\n"
	"    ingress = { shaper = \"htb\"; rate = \"5mbit\";\n"
	"      child = { kind = \"fq_codel\"; ecn = false; }; }; } );\n";

static int save_planned(const char *dir)
{
	struct gw_link_facts facts[2];
	struct gw_config *cfg = NULL;
	struct gw_plan plan;
	char err[512], name[64];
	int r;

	if ((r = gw_config_load_string("seed.conf", rich_config, &cfg, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return r;
	}
	memset(facts, 0, sizeof(facts));
	for (int i = 0; i < 2; i++) {
		facts[i].dev = (struct gw_link_info){ .ifindex = 2 + i, .mtu = 1500, .arptype = 1 };
		facts[i].ifb = (struct gw_link_info){ .ifindex = 9 + i, .mtu = 1500, .arptype = 1 };
	}
	if ((r = gw_plan_build(cfg, facts, NULL, &plan))) {
		gw_config_free(cfg);
		return r;
	}
	for (size_t i = 0; i < plan.n && !r; i++) {
		struct nl_msg *m;

		if ((r = gw_obj_build(&plan.objs[i].obj, NLM_F_CREATE | NLM_F_EXCL, &m)))
			break;
		snprintf(name, sizeof(name), "planned-%02zu", i);
		r = save_msg(dir, name, m);
	}
	gw_plan_free(&plan);
	gw_config_free(cfg);
	return r;
}

static int cmd_synthetic(const char *dir)
{
	struct nl_msg *m;
	int r;

	if ((r = save_msg(dir, "synth-fq_codel-xstats", dumped("fq_codel", 0x10010000,
								 fill_fq_codel))) ||
	    (r = save_msg(dir, "synth-fq_codel-class-xstats", dumped("fq_codel", 0x10010000,
								       fill_fq_codel_class))) ||
	    (r = save_msg(dir, "synth-cake-xstats", dumped("cake", 0xE0000000, fill_cake))) ||
	    (r = save_msg(dir, "synth-pfifo-stats", dumped("pfifo", 0x10000000, NULL))))
		return r;
	/* the same cake xstats on a class message, where they belong to the parent */
	m = dumped("cake", 0xE0000000, fill_cake);
	nlmsg_hdr(m)->nlmsg_type = RTM_NEWTCLASS;
	if ((r = save_msg(dir, "synth-cake-class-xstats", m)))
		return r;
	if ((r = save_error(dir, "synth-error-capped", -EINVAL, "Invalid qdisc name", true)) ||
	    (r = save_error(dir, "synth-error-echoed", -ENOENT, "Parent Qdisc doesn't exist",
			    false)))
		return r;
	return save_planned(dir);
}

int main(int argc, char **argv)
{
	int r;

	if (argc >= 4 && !strcmp(argv[1], "dump"))
		r = cmd_dump(argv[2], argv + 3, argc - 3);
	else if (argc == 4 && !strcmp(argv[1], "errors"))
		r = cmd_errors(argv[2], argv[3]);
	else if (argc == 3 && !strcmp(argv[1], "synthetic"))
		r = cmd_synthetic(argv[2]);
	else {
		fprintf(stderr, "usage: %s dump DIR IFNAME... | errors DIR IFNAME | synthetic DIR\n",
			argv[0]);
		return 2;
	}
	if (r)
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
	return r ? 1 : 0;
}
