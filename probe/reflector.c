/* probe/reflector.c: the UDP reflector: answers each valid probe with its own kernel
 * receive stamp and send time, within its source's rate (an IPv6 source is its /64) and the
 * rate of all answers; refuses (and counts) everything else. Its memory is one buffer and a
 * fixed table of token buckets, whatever arrives. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "probe/packet.h"
#include "probe/ratelimit.h"
#include "probe/reflector.h"
#include "probe/stamp.h"
#include "sys/clock.h"
#include "sys/fd.h"
#include "sys/privdrop.h"
#include "sys/ratelog.h"
#include "sys/signals.h"

#define BURST 256	/* datagrams per wake-up, so signals are seen under a flood */

struct reflector {
	int fd, sfd, ep;
	int family;
	FILE *log;
	struct gw_reflect_stats *st;
	struct gw_ratelimit *rl;
	double rate, total_rate;
	struct gw_bucket total;		/* every answer takes a token here too */
	struct gw_ratelog log_limit;	/* a line per 10 s at most about dropped probes */
	struct gw_ratelog total_log;	/* and one about the total */
	uint8_t buf[GW_PROBE_PKT_MAX];
};

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void print_stats(FILE *log, const struct gw_reflect_stats *s)
{
	fprintf(log, "reflect: answered %llu; refused too_short %llu too_long %llu bad_magic %llu "
		"bad_version %llu not_request %llu; send_failed %llu; rate_limited %llu "
		"(shared bucket %llu); total_limited %llu\n",
		(unsigned long long)s->answered, (unsigned long long)s->too_short,
		(unsigned long long)s->too_long, (unsigned long long)s->bad_magic,
		(unsigned long long)s->bad_version, (unsigned long long)s->not_request,
		(unsigned long long)s->send_failed, (unsigned long long)s->rate_limited,
		(unsigned long long)s->shared, (unsigned long long)s->total_limited);
	fflush(log);
}

/* The receive stamp (kernel's if any) and where the request was addressed, for the reply's
 * source: on a wildcard address the reply must leave from the address that was asked. */
static uint64_t scan_cmsgs(struct msghdr *msg, uint8_t *pktinfo, size_t *pilen, int *level,
			   int *type)
{
	struct cmsghdr *c;
	int64_t stamp = 0;

	*pilen = 0;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (gw_stamp_of(c, &stamp))
			continue;
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			pi.ipi_spec_dst = pi.ipi_addr;
			pi.ipi_ifindex = 0;
			memcpy(pktinfo, &pi, sizeof(pi));
			*pilen = sizeof(pi);
			*level = SOL_IP;
			*type = IP_PKTINFO;
		} else if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			pi.ipi6_ifindex = 0;
			memcpy(pktinfo, &pi, sizeof(pi));
			*pilen = sizeof(pi);
			*level = SOL_IPV6;
			*type = IPV6_PKTINFO;
		}
	}
	return (uint64_t)stamp;
}

/* The source as it is counted: an IPv4 address, an IPv6 /64. */
static void source_text(const struct sockaddr_storage *from, char *buf, size_t len)
{
	uint8_t key[16];
	char a[INET6_ADDRSTRLEN] = "?";

	if (!gw_ratelimit_key(from, key)) {
		snprintf(buf, len, "?");
	} else if (from->ss_family == AF_INET ||
		   IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)from)->sin6_addr)) {
		inet_ntop(AF_INET, key + 12, a, sizeof(a));
		snprintf(buf, len, "%s", a);
	} else {
		inet_ntop(AF_INET6, key, a, sizeof(a));
		snprintf(buf, len, "%s/64", a);
	}
}

static void log_limited(struct reflector *r, const struct sockaddr_storage *from, double now,
			bool shared)
{
	char host[INET6_ADDRSTRLEN + 4];
	uint64_t held;

	if (!gw_ratelog_ok(&r->log_limit, now, GW_RATELOG_EVERY_S, &held))
		return;
	source_text(from, host, sizeof(host));
	fprintf(r->log, "reflect: probes from %s over %.0f a second%s: not answered (%llu more "
		"dropped in the last %.0f s, not logged; %llu in all)\n", host, r->rate,
		shared ? " (a shared bucket: the table of sources is full)" : "",
		(unsigned long long)held, GW_RATELOG_EVERY_S,
		(unsigned long long)r->st->rate_limited);
	fflush(r->log);
}

/* Whether the probe's source is within its rate, and all answers within theirs; counted and
 * logged when not. */
static bool within_rate(struct reflector *r, const struct sockaddr_storage *from)
{
	uint8_t key[16];
	double now = gw_mono_now();
	uint64_t held;
	bool shared, ok;

	if (!gw_ratelimit_key(from, key))
		return false;
	ok = gw_ratelimit_take(r->rl, key, now, &shared);
	r->st->shared += shared;
	if (!ok) {
		r->st->rate_limited++;
		log_limited(r, from, now, shared);
		return false;
	}
	if (gw_bucket_take(&r->total, now))
		return true;
	r->st->total_limited++;
	if (gw_ratelog_ok(&r->total_log, now, GW_RATELOG_EVERY_S, &held)) {
		fprintf(r->log, "reflect: over %.0f answers a second in all: probes not answered "
			"(%llu more in the last %.0f s, not logged; %llu in all)\n", r->total_rate,
			(unsigned long long)held, GW_RATELOG_EVERY_S,
			(unsigned long long)r->st->total_limited);
		fflush(r->log);
	}
	return false;
}

static void count_refusal(struct gw_reflect_stats *st, int err)
{
	if (err == -EBADMSG)
		st->too_short++;
	else if (err == -EMSGSIZE)
		st->too_long++;
	else if (err == -EPROTONOSUPPORT)
		st->bad_version++;
	else
		st->bad_magic++;
}

/* Answers what is queued, up to BURST datagrams; returns false when the socket is empty. */
static bool serve_burst(struct reflector *r)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct scm_timestamping)) +
			 CMSG_SPACE(sizeof(struct in6_pktinfo)) + 64];
		struct cmsghdr align;
	} ctl, out;
	int i;

	for (i = 0; i < BURST; i++) {
		struct sockaddr_storage from;
		struct iovec iov = { r->buf, sizeof(r->buf) };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
				      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				      .msg_controllen = sizeof(ctl.buf) };
		uint8_t pktinfo[sizeof(struct in6_pktinfo)];
		int level = 0, type = 0, ret;
		uint64_t stamp;
		size_t pilen;
		ssize_t n = recvmsg(r->fd, &msg, MSG_DONTWAIT);

		if (n < 0)
			return errno == EINTR;
		if (msg.msg_flags & MSG_TRUNC) {
			r->st->too_long++;
			continue;
		}
		stamp = scan_cmsgs(&msg, pktinfo, &pilen, &level, &type);
		if (!stamp)
			stamp = real_ns();
		ret = gw_probe_pkt_reflect(r->buf, (size_t)n, stamp, real_ns());
		if (ret == -EPROTO && n >= 6 && !memcmp(r->buf, GW_PROBE_PKT_MAGIC, 4) &&
		    r->buf[4] == GW_PROBE_PKT_VERSION) {
			r->st->not_request++;	/* e.g. a reply sent back at us: no loops */
			continue;
		}
		if (ret) {
			count_refusal(r->st, ret);
			continue;
		}
		if (!within_rate(r, &from))
			continue;
		msg.msg_flags = 0;
		msg.msg_control = pilen ? out.buf : NULL;
		msg.msg_controllen = pilen ? CMSG_SPACE(pilen) : 0;
		if (pilen) {
			struct cmsghdr *c = (struct cmsghdr *)out.buf;

			memset(out.buf, 0, sizeof(out.buf));
			c->cmsg_level = level;
			c->cmsg_type = type;
			c->cmsg_len = CMSG_LEN(pilen);
			memcpy(CMSG_DATA(c), pktinfo, pilen);
		}
		iov.iov_len = (size_t)n;
		if (sendmsg(r->fd, &msg, MSG_DONTWAIT) < 0)
			r->st->send_failed++;
		else
			r->st->answered++;
	}
	return true;
}

static int open_socket(struct reflector *r, const struct sockaddr_storage *ss, socklen_t len)
{
	int one = 1, zero = 0;

	r->fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->fd < 0)
		return -errno;
	gw_stamp_enable(r->fd, false);
	if (ss->ss_family == AF_INET6) {
		/* "[::]:PORT" answers IPv4 too */
		setsockopt(r->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		setsockopt(r->fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
	} else {
		setsockopt(r->fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	}
	if (bind(r->fd, (const struct sockaddr *)ss, len) < 0)
		return -errno;
	return 0;
}

/* Returns 1 to stop. */
static int on_signal(struct reflector *r)
{
	struct signalfd_siginfo si;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			print_stats(r->log, r->st);
		else
			return 1;
	}
	return 0;
}

static int loop(struct reflector *r)
{
	struct epoll_event got[2];
	bool busy = false;
	int n, k;

	if ((n = gw_epoll_set(r->ep, EPOLL_CTL_ADD, r->fd, EPOLLIN, (epoll_data_t){ .u32 = 0 })) ||
	    (n = gw_epoll_set(r->ep, EPOLL_CTL_ADD, r->sfd, EPOLLIN, (epoll_data_t){ .u32 = 1 })))
		return n;
	for (;;) {
		/* under a flood, look at signals between bursts without waiting */
		n = epoll_wait(r->ep, got, 2, busy ? 0 : -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		busy = false;
		for (k = 0; k < n; k++) {
			if (got[k].data.u32 == 1 && on_signal(r))
				return 0;
			if (got[k].data.u32 == 0)
				busy = serve_burst(r);
		}
	}
}

int gw_reflect_run(const char *addr, double rate, double total, FILE *log,
		   struct gw_reflect_stats *stats, char *err, size_t errlen)
{
	struct reflector *r;
	struct sockaddr_storage ss;
	char why[128];
	socklen_t len;
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (gw_parse_listen(addr, &ss, &len)) {
		snprintf(err, errlen, "--reflect \"%.64s\" is not an address: expected IP:PORT, "
			 "e.g. 0.0.0.0:%d or [::]:%d", addr, GW_PROBE_UDP_PORT, GW_PROBE_UDP_PORT);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = r->sfd = r->ep = -1;
	r->log = log;
	r->st = stats;
	r->rate = rate > 0 ? rate : GW_REFLECT_RATE_DEFAULT;
	r->total_rate = total > 0 ? total : r->rate * GW_REFLECT_TOTAL_FACTOR;
	gw_bucket_init(&r->total, r->total_rate, r->total_rate);
	if ((ret = gw_ratelimit_new(r->rate, r->rate < 1 ? 1 : r->rate, 0, &r->rl))) {
		snprintf(err, errlen, "reflect: %s", strerror(-ret));
		goto out;
	}
	if ((ret = open_socket(r, &ss, len))) {
		snprintf(err, errlen, "reflect on %s: %s", addr, strerror(-ret));
		goto out;
	}
	if ((r->sfd = gw_signalfd(SIGTERM, SIGINT, SIGUSR1, 0)) < 0 || (r->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "reflect: %s", strerror(errno));
		goto out;
	}
	/* bound: nothing from here on needs root */
	if ((ret = gw_drop_to_nobody(why, sizeof(why)))) {
		snprintf(err, errlen, "reflect: giving up privileges: %s", why);
		goto out;
	}
	fprintf(log, "reflect: answering probes on %s (at most %.0f a second from one address, an "
		"IPv6 /64; %.0f a second in all)\n", addr, r->rate, r->total_rate);
	fflush(log);
	ret = loop(r);
	if (ret)
		snprintf(err, errlen, "reflect: %s", strerror(-ret));
	print_stats(log, stats);
out:
	gw_fd_close(&r->fd);
	gw_fd_close(&r->sfd);
	gw_fd_close(&r->ep);
	gw_ratelimit_free(r->rl);
	free(r);
	return ret;
}
