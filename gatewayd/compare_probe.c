/* gatewayd/compare_probe.c: the bench's ICMP echo probes, the same calls and sample type as
 * the daemon's prober (gatewayd/probe.h) so the bench moves onto it once that is in: a raw
 * ICMP socket (root in a fresh namespace: no ping_group_range needed), a timerfd for the
 * rate, the kernel's receive timestamp (SO_TIMESTAMPNS), sequence numbers, and a timeout
 * after which a probe is lost for good. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "gatewayd/compare_probe.h"

#define RING 1024	/* outstanding probes: 20 Hz x a 2 s timeout fits many times */

struct pending {
	bool used;
	uint32_t seq;
	double sent_mono, sent_wall;
};

struct cmp_probe {
	int ep, sock, tfd;
	struct sockaddr_in dst;
	uint16_t id;
	uint32_t next_seq, highest_answered;
	bool any_answered;
	double timeout_s;
	struct pending ring[RING];
	cmp_probe_cb cb;
	void *ctx;
};

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint16_t csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

int cmp_probe_new(const char *dst, double interval_s, double timeout_s, cmp_probe_cb cb,
		  void *ctx, struct cmp_probe **out)
{
	struct cmp_probe *p = calloc(1, sizeof(*p));
	struct itimerspec its = { { 0 }, { 0 } };
	struct epoll_event ev = { .events = EPOLLIN };
	int one = 1, r;

	if (!p)
		return -ENOMEM;
	p->ep = p->sock = p->tfd = -1;
	p->cb = cb;
	p->ctx = ctx;
	p->timeout_s = timeout_s;
	p->id = (uint16_t)(getpid() ^ 0x6777);
	p->dst.sin_family = AF_INET;
	if (inet_pton(AF_INET, dst, &p->dst.sin_addr) != 1) {
		free(p);
		return -EINVAL;
	}
	p->sock = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMP);
	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	if (p->sock < 0 || p->tfd < 0 || p->ep < 0)
		goto fail;
	if (setsockopt(p->sock, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0)
		goto fail;
	its.it_value.tv_nsec = 1000000;	/* the first probe at once */
	its.it_interval.tv_sec = (time_t)interval_s;
	its.it_interval.tv_nsec = (long)((interval_s - (double)(time_t)interval_s) * 1e9);
	if (timerfd_settime(p->tfd, 0, &its, NULL) < 0)
		goto fail;
	ev.data.fd = p->sock;
	if (epoll_ctl(p->ep, EPOLL_CTL_ADD, p->sock, &ev) < 0)
		goto fail;
	ev.data.fd = p->tfd;
	if (epoll_ctl(p->ep, EPOLL_CTL_ADD, p->tfd, &ev) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	r = -errno;
	cmp_probe_free(p);
	return r;
}

void cmp_probe_free(struct cmp_probe *p)
{
	if (!p)
		return;
	if (p->ep >= 0)
		close(p->ep);
	if (p->sock >= 0)
		close(p->sock);
	if (p->tfd >= 0)
		close(p->tfd);
	free(p);
}

int cmp_probe_fd(const struct cmp_probe *p)
{
	return p->ep;
}

static void report(struct cmp_probe *p, struct pending *e, double rtt_ms)
{
	struct cmp_probe_sample s = {
		.seq = e->seq, .sent_mono = e->sent_mono, .sent_wall = e->sent_wall,
		.lost = isnan(rtt_ms), .rtt_ms = rtt_ms,
	};

	e->used = false;
	p->cb(p->ctx, &s);
}

static void send_one(struct cmp_probe *p)
{
	struct {
		struct icmphdr h;
		uint8_t pad[56];
	} pkt;
	struct pending *e = &p->ring[p->next_seq % RING];

	if (e->used)	/* the ring went round before its timeout: count it lost now */
		report(p, e, NAN);
	memset(&pkt, 0, sizeof(pkt));
	pkt.h.type = ICMP_ECHO;
	pkt.h.un.echo.id = htons(p->id);
	pkt.h.un.echo.sequence = htons((uint16_t)p->next_seq);
	pkt.h.checksum = csum(&pkt, sizeof(pkt));
	e->seq = p->next_seq++;
	e->sent_mono = clock_s(CLOCK_MONOTONIC);
	e->sent_wall = clock_s(CLOCK_REALTIME);
	e->used = true;
	if (sendto(p->sock, &pkt, sizeof(pkt), 0, (struct sockaddr *)&p->dst, sizeof(p->dst)) < 0)
		report(p, e, NAN);
}

static void read_replies(struct cmp_probe *p)
{
	for (;;) {
		uint8_t buf[256], cbuf[256];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		double rcv = NAN;
		ssize_t n = recvmsg(p->sock, &m, 0);

		if (n < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				rcv = (double)ts.tv_sec + ts.tv_nsec / 1e9;
			}
		if (isnan(rcv))
			rcv = clock_s(CLOCK_REALTIME);
		const struct iphdr *ip = (const void *)buf;
		size_t hl = (size_t)ip->ihl * 4;

		if ((size_t)n < hl + sizeof(struct icmphdr))
			continue;
		const struct icmphdr *h = (const void *)(buf + hl);

		if (h->type != ICMP_ECHOREPLY || ntohs(h->un.echo.id) != p->id)
			continue;
		uint16_t seq16 = ntohs(h->un.echo.sequence);

		/* the ring holds the last RING probes: find the one whose low bits match */
		struct pending *e = &p->ring[seq16 % RING];

		if (!e->used || (uint16_t)e->seq != seq16)
			continue;	/* a late reply to a probe already lost, or a duplicate */
		report(p, e, (rcv - e->sent_wall) * 1000.0);
	}
}

int cmp_probe_run(struct cmp_probe *p)
{
	uint64_t ticks;
	double now = clock_s(CLOCK_MONOTONIC);

	read_replies(p);
	if (read(p->tfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks))
		send_one(p);
	for (int i = 0; i < RING; i++)
		if (p->ring[i].used && now - p->ring[i].sent_mono > p->timeout_s)
			report(p, &p->ring[i], NAN);
	return 0;
}
