/* probe/prober.c: the latency prober: ICMP echo, ICMP timestamp or UDP probes to several
 * targets, kernel timestamps, one-way delays, loss, duplicates, reordering and target health.
 * One epoll fd and a timerfd; nothing here blocks or sleeps.
 *
 * Clocks: the kernel stamps packets with CLOCK_REALTIME, so an RTT is a difference of two
 * realtime stamps taken by the kernel: the send stamp when the probe enters the egress queueing
 * discipline (SOF_TIMESTAMPING_TX_SCHED, so a bloated local queue counts, as it must), the
 * receive stamp when the reply enters the stack. Where the kernel gives no send stamp the time
 * just before send() stands in; where it gives no receive stamp, the time we read the reply.
 * Timeouts and the schedule run on CLOCK_MONOTONIC. */
#include <errno.h>
#include <math.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "sys/clock.h"
#include "sys/fd.h"
#include "probe/prober.h"
#include "probe/packet.h"
#include "probe/stamp.h"

/* linux/icmp.h's, which clashes with net/if.h */
#ifndef ICMP_FILTER
#define ICMP_FILTER 1
struct icmp_filter {
	uint32_t data;
};
#endif
#define ICMP_ECHOREPLY_TYPE 0
#define ICMP_TSREPLY_TYPE 14

#define NS 1000000000LL
#define DOWN_AFTER_S 2.0	/* a target silent this long (and >= 3 probes) is down */
#define DOWN_AFTER_MIN 3
#define RING_MIN 64		/* replies this many probes old are still told late from bogus */
#define RX_BURST 64		/* datagrams read per socket per call, so one cannot starve all */
#define BUF_LEN 2048		/* > any probe with headers; longer datagrams are truncated */

enum slot_state { SLOT_FREE, SLOT_PENDING, SLOT_HELD, SLOT_DONE_OK, SLOT_DONE_LOST };

/* One probe in flight, or recently judged (to tell duplicates and late replies apart). */
struct slot {
	uint32_t seq;
	uint8_t state;
	bool up_at_send;	/* the target counted as up when the probe left */
	double sent_mono;	/* user CLOCK_MONOTONIC just before send() */
	int64_t client_ns;	/* user CLOCK_REALTIME just before send(), also in the packet */
	int64_t sent_ns;	/* the kernel's send stamp when it came, else client_ns */
};

struct target {
	const struct gw_probe_target_cfg *cfg;
	int fd;
	int family;
	bool icmp, raw;		/* raw ICMP: we filter identifiers; IPv4 gives the IP header */
	bool ts;		/* ICMP timestamp (icmp too): no room for the probe packet, so a
				 * reply is matched by identifier, sequence and originate stamp */
	bool connected;		/* the kernel filters sources; else sendto() and we do */
	struct sockaddr_storage dst;	/* the target (port 0 for ICMP) */
	socklen_t dstlen;
	uint16_t ident;
	uint32_t cookie;
	uint32_t next_seq;	/* the next probe's */
	uint32_t oldest;	/* no slot before it is pending or held */
	uint32_t max_rx_seq;
	bool any_rx;
	unsigned consec_lost;
	double next_send;
	struct gw_probe_target_state st;
	struct slot *ring;
};

struct gw_prober {
	struct gw_probe_cfg cfg;
	gw_probe_cb cb;
	void *ctx;
	int epfd, tfd;
	size_t n;
	struct target t[GW_MAX_PROBE_TARGETS];
	uint32_t ring_mask;
	unsigned down_after;
	double interval, timeout;
	uint64_t limit;		/* 0: probe forever; else probes per target */
	int64_t real_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, this run */
	uint8_t buf[BUF_LEN];
};


static int64_t real_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void emit(struct gw_prober *p, struct target *t, const struct slot *s, bool lost,
		 bool reordered, double rtt_ms, double owd_up_ms, double owd_down_ms)
{
	struct gw_probe_sample smp = {
		.target = (int)(t - p->t),
		.seq = s->seq,
		.sent_mono = s->sent_mono + (double)(s->sent_ns - s->client_ns) / 1e9,
		.sent_wall = (double)s->sent_ns / 1e9,
		.lost = lost,
		.reordered = reordered,
		/* a probe sent while its target was down is the target's whatever comes */
		.target_up = t->st.up && (s->up_at_send || !lost),
		.rtt_ms = lost ? NAN : rtt_ms,
		.owd_up_ms = lost ? NAN : owd_up_ms,
		.owd_down_ms = lost ? NAN : owd_down_ms,
	};

	if (p->cb)
		p->cb(p->ctx, &smp);
}

/* Losses held while the target's health was unknown become samples, judged by up. */
static void release_held(struct gw_prober *p, struct target *t)
{
	uint32_t seq;

	for (seq = t->oldest; seq != t->next_seq; seq++) {
		struct slot *s = &t->ring[seq & p->ring_mask];

		if (s->state == SLOT_HELD) {
			s->state = SLOT_DONE_LOST;
			emit(p, t, s, true, false, NAN, NAN, NAN);
		}
	}
}

static void advance_oldest(struct gw_prober *p, struct target *t)
{
	while (t->oldest != t->next_seq) {
		uint8_t st = t->ring[t->oldest & p->ring_mask].state;

		if (st == SLOT_PENDING || st == SLOT_HELD)
			break;
		t->oldest++;
	}
}

/* The target answered (even late): it is up, and the losses held meanwhile were the link's. */
static void target_alive(struct gw_prober *p, struct target *t)
{
	t->consec_lost = 0;
	t->st.up = true;
	release_held(p, t);
}

/* s timed out (or its reply came too late). While the target is up the loss is held until we
 * know whether the target or the link went quiet; a down target's losses are its own. */
static void judge_lost(struct gw_prober *p, struct target *t, struct slot *s)
{
	t->st.lost++;
	t->consec_lost++;
	if (!t->st.up || !s->up_at_send) {
		s->state = SLOT_DONE_LOST;
		emit(p, t, s, true, false, NAN, NAN, NAN);
		return;
	}
	s->state = SLOT_HELD;
	if (t->consec_lost >= p->down_after) {
		t->st.up = false;
		release_held(p, t);
	}
}

static void expire(struct gw_prober *p, struct target *t, double now)
{
	uint32_t seq;

	for (seq = t->oldest; seq != t->next_seq; seq++) {
		struct slot *s = &t->ring[seq & p->ring_mask];

		if (s->state != SLOT_PENDING)
			continue;
		if (s->sent_mono + p->timeout > now)
			break;	/* sent in order: the rest are younger */
		judge_lost(p, t, s);
	}
	/* probing has ended and nothing is in flight: what is held was the link's */
	if (p->limit && t->next_seq >= p->limit && t->st.up) {
		bool pending = false;

		for (seq = t->oldest; seq != t->next_seq; seq++)
			pending |= t->ring[seq & p->ring_mask].state == SLOT_PENDING;
		if (!pending)
			release_held(p, t);
	}
	advance_oldest(p, t);
}

/* A reply as read off a socket: the probe it answers and what it carries. */
struct reply {
	uint32_t seq;
	struct gw_probe_pkt pkt;	/* UDP: the reflector's reply; ICMP echo: our request */
	struct gw_probe_ts ts;		/* ICMP timestamp: the target's reply */
};

/* The full sequence number of a 16-bit one (ICMP timestamp), counting back from the next
 * probe's: one never sent comes out 65536 probes old, too old to be judged. */
static uint32_t seq_of16(const struct target *t, uint16_t seq16)
{
	uint32_t age = (uint16_t)(t->next_seq - seq16);

	return t->next_seq - (age ? age : 65536);
}

/* Whether a reply echoes the stamp s's probe carried (a timestamp reply: its originate). */
static bool echoes(const struct target *t, const struct reply *r, const struct slot *s)
{
	if (t->ts)
		return r->ts.originate == gw_probe_ts_of_ns(s->client_ns);
	return (int64_t)r->pkt.client_send_ns == s->client_ns;
}

/* The reflector's processing time that a UDP reply says, ns; 0 when it says none. ICMP has
 * none to take off: an ICMP timestamp's transmit - receive is in whole milliseconds, and
 * subtracting it would put up to 1 ms of error in an RTT that echo keeps to the µs (the
 * target's processing counts in the RTT, as it does for echo). */
static int64_t proc_of(const struct target *t, const struct reply *r)
{
	if (!t->icmp && r->pkt.refl_send_ns >= r->pkt.refl_recv_ns)
		return (int64_t)(r->pkt.refl_send_ns - r->pkt.refl_recv_ns);
	return 0;
}

/* A reply for r->seq: rx_ns is its receive stamp. */
static void on_reply(struct gw_prober *p, struct target *t, const struct reply *r, int64_t rx_ns)
{
	uint32_t seq = r->seq, age = t->next_seq - seq;
	struct slot *s = &t->ring[seq & p->ring_mask];
	double up = NAN, down = NAN;
	int64_t rtt, proc_ns;
	bool reordered;

	if (age == 0 || age > p->ring_mask + 1 || s->seq != seq || s->state == SLOT_FREE) {
		/* never sent, or too old to tell: not ours to judge */
		if (age == 0 || age > (1u << 31))
			t->st.invalid++;
		else
			t->st.late++;
		return;
	}
	if (!echoes(t, r, s)) {
		t->st.invalid++;
		return;
	}
	target_alive(p, t);
	if (s->state == SLOT_DONE_OK) {
		t->st.duplicates++;
		return;
	}
	if (s->state != SLOT_PENDING) {
		t->st.late++;	/* its loss was judged already and stays a loss */
		return;
	}
	rtt = rx_ns - s->sent_ns;
	proc_ns = proc_of(t, r);
	if (proc_ns > 0 && proc_ns < rtt)
		rtt -= proc_ns;
	if (rtt < 0)
		rtt = 0;	/* a clock step between the stamps: the best we know */
	if ((double)rtt / 1e9 > p->timeout) {
		t->st.late++;
		judge_lost(p, t, s);
		advance_oldest(p, t);
		return;
	}
	reordered = t->any_rx && (int32_t)(seq - t->max_rx_seq) < 0;
	if (!reordered) {
		t->max_rx_seq = seq;
		t->any_rx = true;
	} else {
		t->st.reordered++;
	}
	s->state = SLOT_DONE_OK;
	t->st.received++;
	t->st.tx_stamps += s->sent_ns != s->client_ns;
	t->st.last_rtt_ms = (double)rtt / 1e6;
	t->st.last_reply_wall = (double)rx_ns / 1e9;
	/* from the same stamps as the RTT: the kernel's send stamp, the receive stamp */
	if (t->ts)
		gw_probe_ts_owd(&r->ts, s->sent_ns, rx_ns, &up, &down);
	else if (!t->icmp)
		gw_probe_pkt_owd(&r->pkt, s->sent_ns, rx_ns, &up, &down);
	t->st.last_owd_up_ms = up;
	t->st.last_owd_down_ms = down;
	emit(p, t, s, false, reordered, (double)rtt / 1e6, up, down);
	advance_oldest(p, t);
}

/* Which of our timestamp requests a looped-back copy ends with (its last 20 bytes: type 13,
 * our identifier); false if none. */
static bool ts_request_of(const struct target *t, const uint8_t *data, size_t len,
			  struct reply *r)
{
	const uint8_t *m = data + len - GW_PROBE_TS_LEN;

	if (len < GW_PROBE_TS_LEN || m[0] != 13 || (uint16_t)(m[4] << 8 | m[5]) != t->ident)
		return false;
	r->seq = seq_of16(t, (uint16_t)(m[6] << 8 | m[7]));
	r->ts.originate = (uint32_t)m[8] << 24 | (uint32_t)m[9] << 16 | (uint32_t)m[10] << 8 |
		m[11];
	return true;
}

/* The kernel's send stamp, on a copy of the packet: our probe is its last cfg.size bytes (a
 * timestamp request: its last 20). */
static void on_tx_stamp(struct gw_prober *p, struct target *t, const uint8_t *data, size_t len,
			int64_t stamp_ns)
{
	size_t size = (size_t)p->cfg.size;
	struct reply r = { 0 };
	struct slot *s;

	if (t->ts) {
		if (!ts_request_of(t, data, len, &r))
			return;
	} else {
		if (len < size || gw_probe_pkt_parse(data + len - size, size, &r.pkt) ||
		    r.pkt.type != GW_PROBE_PKT_REQUEST || r.pkt.cookie != t->cookie)
			return;
		r.seq = r.pkt.seq;
	}
	s = &t->ring[r.seq & p->ring_mask];
	if (s->seq != r.seq || s->state != SLOT_PENDING || !echoes(t, &r, s))
		return;
	/* a stamp before the send or after the timeout is not this probe's */
	if (stamp_ns < s->client_ns - 1000000 || stamp_ns - s->client_ns > p->timeout * 1e9)
		return;
	s->sent_ns = stamp_ns;
}

/* The software stamp of a received or looped-back packet, 0 if none. */
static int64_t cmsg_stamp(struct msghdr *msg, bool *is_tx)
{
	struct cmsghdr *c;
	int64_t stamp = 0;

	*is_tx = false;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (gw_stamp_of(c, &stamp))
			continue;
		if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
			   (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
			struct sock_extended_err ee;

			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			*is_tx = ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING;
		}
	}
	return stamp;
}

/* Reads up to max messages of the error queue; returns how many there were. */
static int read_errqueue(struct gw_prober *p, struct target *t, int max)
{
	char ctl[512];
	int i;

	for (i = 0; i < max; i++) {
		struct iovec iov = { p->buf, sizeof(p->buf) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				      .msg_controllen = sizeof(ctl) };
		int64_t stamp;
		bool is_tx;
		ssize_t n = recvmsg(t->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);

		if (n < 0)
			return i;
		stamp = cmsg_stamp(&msg, &is_tx);
		if (is_tx && stamp && !(msg.msg_flags & MSG_TRUNC))
			on_tx_stamp(p, t, p->buf, (size_t)n, stamp);
	}
	return i;
}

/* One datagram from the target's socket into a reply; false if it is not ours. */
static bool parse_reply(struct gw_prober *p, struct target *t, size_t len, struct reply *out)
{
	struct gw_probe_icmp_reply r;

	if (t->ts) {
		/* raw IPv4 only; someone_elses() has taken other identifiers */
		if (gw_probe_ts_parse(p->buf, len, true, &out->ts) || out->ts.ident != t->ident)
			return false;
		out->seq = seq_of16(t, out->ts.seq16);
		return true;
	}
	if (!t->icmp) {
		if (gw_probe_pkt_parse(p->buf, len, &out->pkt) ||
		    out->pkt.type != GW_PROBE_PKT_REPLY)
			return false;
	} else {
		if (gw_probe_icmp_parse(p->buf, len, t->family, t->raw && t->family == AF_INET,
					&r) || r.pkt.type != GW_PROBE_PKT_REQUEST)
			return false;
		out->pkt = r.pkt;
		out->pkt.refl_recv_ns = out->pkt.refl_send_ns = 0;
	}
	out->seq = out->pkt.seq;
	return out->pkt.cookie == t->cookie;
}

/* A raw ICMP socket also sees the echo (or timestamp) replies of every other pinger of the
 * same target (another identifier): theirs, not invalid. */
static bool someone_elses(const struct gw_prober *p, const struct target *t, size_t len)
{
	struct gw_probe_icmp_reply r = { 0 };
	int ret;

	if (!t->raw)
		return false;
	if (t->ts) {
		struct gw_probe_ts ts = { 0 };

		ret = gw_probe_ts_parse(p->buf, len, true, &ts);
		return ret == -ENOMSG || (!ret && ts.ident != t->ident);
	}
	ret = gw_probe_icmp_parse(p->buf, len, t->family, t->family == AF_INET, &r);
	/* the identifier is read before the data is judged */
	return ret == -ENOMSG || r.ident != t->ident;
}

/* Whether a datagram came from the target (address, and port for UDP). */
static bool from_target(const struct target *t, const struct sockaddr_storage *from,
			socklen_t len)
{
	if (t->connected)
		return true;
	if (from->ss_family != t->family || len < t->dstlen)
		return false;
	if (t->family == AF_INET) {
		const struct sockaddr_in *a = (const void *)from, *b = (const void *)&t->dst;

		return a->sin_addr.s_addr == b->sin_addr.s_addr &&
			(t->icmp || a->sin_port == b->sin_port);
	}
	const struct sockaddr_in6 *a = (const void *)from, *b = (const void *)&t->dst;

	return !memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) &&
		(t->icmp || a->sin6_port == b->sin6_port);
}

/* Reads up to RX_BURST replies; returns true when the socket may hold more. */
static bool read_replies(struct gw_prober *p, struct target *t)
{
	char ctl[256];
	int i;

	for (i = 0; i < RX_BURST; i++) {
		struct sockaddr_storage from;
		struct iovec iov = { p->buf, sizeof(p->buf) };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
				      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				      .msg_controllen = sizeof(ctl) };
		struct reply r = { 0 };
		int64_t rx;
		bool is_tx;
		ssize_t n = recvmsg(t->fd, &msg, MSG_DONTWAIT);

		if (n < 0)
			return false;	/* EAGAIN, or an ICMP error the kernel reported */
		if (!(msg.msg_flags & MSG_TRUNC) && someone_elses(p, t, (size_t)n))
			continue;
		if (!from_target(t, &from, msg.msg_namelen)) {
			if (!t->raw)	/* a raw socket sees every echo reply the host gets */
				t->st.invalid++;
			continue;
		}
		if (msg.msg_flags & MSG_TRUNC || !parse_reply(p, t, (size_t)n, &r)) {
			t->st.invalid++;
			continue;
		}
		rx = cmsg_stamp(&msg, &is_tx);
		if (rx)
			t->st.rx_stamps++;
		else
			rx = real_now_ns();
		on_reply(p, t, &r, rx);
	}
	return true;
}

static void send_probe(struct gw_prober *p, struct target *t, double now)
{
	struct slot *s = &t->ring[t->next_seq & p->ring_mask];
	struct gw_probe_pkt pkt = { .type = GW_PROBE_PKT_REQUEST, .seq = t->next_seq,
				    .cookie = t->cookie };
	int len;

	/* the ring outlasts the timeout; only a stalled loop finds a probe still here */
	if (s->state == SLOT_PENDING)
		judge_lost(p, t, s);
	if (s->state == SLOT_HELD) {
		t->st.up = false;
		release_held(p, t);
	}
	advance_oldest(p, t);
	pkt.client_send_ns = (uint64_t)real_now_ns();
	if (t->ts) {
		struct gw_probe_ts ts = { .ident = t->ident, .seq16 = (uint16_t)t->next_seq,
			.originate = gw_probe_ts_of_ns((int64_t)pkt.client_send_ns) };

		len = gw_probe_ts_build(p->buf, sizeof(p->buf), &ts);
	} else if (t->icmp) {
		len = gw_probe_icmp_build(p->buf, sizeof(p->buf), t->family, t->ident, &pkt,
					  (size_t)p->cfg.size);
	} else {
		len = gw_probe_pkt_build(p->buf, (size_t)p->cfg.size, &pkt);
	}
	*s = (struct slot){ .seq = t->next_seq, .state = SLOT_PENDING, .up_at_send = t->st.up,
			    .sent_mono = now,
			    .client_ns = (int64_t)pkt.client_send_ns,
			    .sent_ns = (int64_t)pkt.client_send_ns };
	t->next_seq++;
	t->st.sent++;
	/* a send that fails is a probe that was lost: it times out like one */
	if (len > 0 && sendto(t->fd, p->buf, (size_t)len, MSG_DONTWAIT,
			      t->connected ? NULL : (struct sockaddr *)&t->dst,
			      t->connected ? 0 : t->dstlen) < 0) {
		t->st.send_errors++;
		return;
	}
	/* the kernel stamps the probe as it enters the queue, inside send(): take the stamp
	 * now rather than on another wake-up (one that comes late, after ARP, wakes us) */
	read_errqueue(p, t, 1);
}

static void arm_timer(struct gw_prober *p)
{
	double next = INFINITY;
	struct itimerspec its = { 0 };
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct target *t = &p->t[i];
		uint32_t seq;

		if (!p->limit || t->next_seq < p->limit)
			next = fmin(next, t->next_send);
		for (seq = t->oldest; seq != t->next_seq; seq++) {
			const struct slot *s = &t->ring[seq & p->ring_mask];

			if (s->state == SLOT_PENDING) {
				next = fmin(next, s->sent_mono + p->timeout);
				break;
			}
		}
	}
	if (isinf(next))
		next = gw_mono_now() + 3600;	/* nothing due: disarmed in effect */
	its.it_value.tv_sec = (time_t)next;
	its.it_value.tv_nsec = (long)((next - (double)(time_t)next) * 1e9);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	timerfd_settime(p->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

int gw_prober_run(struct gw_prober *p)
{
	struct epoll_event ev[GW_MAX_PROBE_TARGETS + 1];
	bool more[GW_MAX_PROBE_TARGETS] = { false };
	uint64_t ticks;
	double now;
	size_t i;
	int n, k;

	n = epoll_wait(p->epfd, ev, (int)(p->n + 1), 0);
	if (n < 0 && errno != EINTR)
		return -errno;
	for (k = 0; k < n; k++) {
		uint32_t idx = ev[k].data.u32;

		if (idx >= p->n) {
			if (read(p->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
				return -errno;
			continue;
		}
		/* send stamps first: a reply must find its probe's stamp already there */
		if (ev[k].events & EPOLLERR && !read_errqueue(p, &p->t[idx], RX_BURST)) {
			/* no stamp: an ICMP error (port unreachable...) the socket holds; taking
			 * it stops epoll from reporting it again and again */
			int e;
			socklen_t elen = sizeof(e);

			getsockopt(p->t[idx].fd, SOL_SOCKET, SO_ERROR, &e, &elen);
		}
		if (ev[k].events & EPOLLIN)
			more[idx] = read_replies(p, &p->t[idx]);
	}
	now = gw_mono_now();
	for (i = 0; i < p->n; i++) {
		struct target *t = &p->t[i];

		/* a socket not yet drained may hold the reply that saves a probe */
		if (!more[i])
			expire(p, t, now);
		if (p->limit && t->next_seq >= p->limit)
			continue;
		if (t->next_send <= now) {
			send_probe(p, t, now);
			t->next_send += p->interval;
			if (t->next_send <= now)	/* fell behind: no burst to catch up */
				t->next_send = now + p->interval;
		}
	}
	arm_timer(p);
	return 0;
}

/* ICMP wants a ping socket (no privilege, where net.ipv4.ping_group_range lets our group in),
 * else a raw one (CAP_NET_RAW); UDP a datagram socket. ICMP timestamps a raw one only: Linux's
 * ping sockets send echo requests alone (any other type is EINVAL). */
static int open_socket(struct target *t, char *err, size_t errlen)
{
	int type = SOCK_NONBLOCK | SOCK_CLOEXEC;
	int proto = t->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;

	if (t->ts) {
		if (t->family != AF_INET) {
			snprintf(err, errlen, "probe target %s: ICMP timestamps are IPv4 only",
				 t->cfg->host);
			return -EAFNOSUPPORT;
		}
		t->fd = socket(AF_INET, SOCK_RAW | type, IPPROTO_ICMP);
		t->raw = t->fd >= 0;
		if (t->fd < 0) {
			int e = errno;

			snprintf(err, errlen, "probe target %s: ICMP timestamp socket: %s%s",
				 t->cfg->host, strerror(e), e == EPERM || e == EACCES ?
				 " (icmp-timestamp probes need CAP_NET_RAW: ping sockets send echo "
				 "requests only)" : "");
			return -e;
		}
		return 0;
	}
	if (!t->icmp) {
		t->fd = socket(t->family, SOCK_DGRAM | type, 0);
	} else {
		t->fd = socket(t->family, SOCK_DGRAM | type, proto);
		if (t->fd < 0 && (errno == EACCES || errno == EPERM)) {
			t->fd = socket(t->family, SOCK_RAW | type, proto);
			t->raw = t->fd >= 0;
		}
	}
	if (t->fd < 0) {
		int e = errno;

		snprintf(err, errlen, "probe target %s: %s socket: %s%s", t->cfg->host,
			 t->icmp ? "ICMP" : "UDP", strerror(e), t->icmp ?
			 " (ICMP probes need the group in net.ipv4.ping_group_range, or "
			 "CAP_NET_RAW)" : "");
		return -e;
	}
	return 0;
}

static int setup_socket(struct gw_prober *p, struct target *t, const char *ifname,
			char *err, size_t errlen)
{
	const struct gw_probe_cfg *cfg = &p->cfg;
	struct sockaddr_storage dst = t->cfg->addr;
	const char *what, *obj;
	int ret;

	if ((ret = open_socket(t, err, errlen)))
		return ret;
	what = "SO_BINDTODEVICE";
	if (ifname && setsockopt(t->fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				 (socklen_t)strlen(ifname) + 1) < 0)
		goto fail;
	what = "SO_MARK (needs CAP_NET_ADMIN)";
	if (cfg->fwmark != GW_UNSET) {
		unsigned int mark = (unsigned int)cfg->fwmark;

		if (setsockopt(t->fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0)
			goto fail;
	}
	/* the source address: bound before the first send; free-bound, so an address the WAN
	 * does not carry yet (still dialling) starts the prober all the same */
	what = "bind to the source address";
	if (cfg->source_addrlen) {
		int one = 1;

		if (t->family == AF_INET)
			setsockopt(t->fd, SOL_IP, IP_FREEBIND, &one, sizeof(one));
		else
			setsockopt(t->fd, SOL_IPV6, IPV6_FREEBIND, &one, sizeof(one));
		if (bind(t->fd, (const struct sockaddr *)&cfg->source_addr,
			 cfg->source_addrlen) < 0)
			goto fail;
	}
	/* kernel stamps on both ends where the kernel has them, on receive at least */
	gw_stamp_enable(t->fd, true);
	if (t->raw && t->family == AF_INET) {
		int want = t->ts ? ICMP_TSREPLY_TYPE : ICMP_ECHOREPLY_TYPE;
		struct icmp_filter f = { ~(1u << want) };

		setsockopt(t->fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
	} else if (t->raw) {
		struct icmp6_filter f;

		ICMP6_FILTER_SETBLOCKALL(&f);
		ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &f);
		setsockopt(t->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f));
	}
	if (t->icmp) {
		if (dst.ss_family == AF_INET)
			((struct sockaddr_in *)&dst)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&dst)->sin6_port = 0;
	}
	/* connected, the kernel drops what does not come from the target; a link without a
	 * route yet (a WAN still dialling) must not stop the prober: then unconnected, with
	 * sendto() and the source checked here, and the probes lost until the route is there */
	t->dst = dst;
	t->dstlen = t->cfg->addrlen;
	t->connected = connect(t->fd, (struct sockaddr *)&dst, t->dstlen) == 0;
	return 0;
fail:
	ret = -errno;
	/* what it was done to: the interface, the source address */
	obj = !strcmp(what, "SO_BINDTODEVICE") ? ifname : !strncmp(what, "bind", 4) ?
		cfg->source : NULL;
	snprintf(err, errlen, "probe target %s: %s%s%s: %s", t->cfg->host, what, obj ? " " : "",
		 obj ? obj : "", strerror(-ret));
	return ret;
}

static uint32_t ring_size(const struct gw_probe_cfg *cfg, unsigned down_after)
{
	uint64_t want = (uint64_t)(cfg->timeout_us / cfg->interval_us) + 2 + down_after + 8;
	uint32_t n = RING_MIN;

	while (n < want)
		n <<= 1;
	return n;
}

int gw_prober_new(const struct gw_probe_cfg *cfg, const char *ifname, gw_probe_cb cb, void *ctx,
		  struct gw_prober **out, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct gw_prober *p;
	uint32_t rnd[GW_MAX_PROBE_TARGETS * 2];
	double now;
	size_t i;
	int ret;

	*out = NULL;
	if (!cfg->n_targets || cfg->n_targets > GW_MAX_PROBE_TARGETS || cfg->interval_us <= 0 ||
	    cfg->timeout_us <= 0 || cfg->size < GW_PROBE_PKT_HDR || cfg->size > GW_PROBE_PKT_MAX) {
		snprintf(err, errlen, "probe: no targets, or settings out of range");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	p->cb = cb;
	p->ctx = ctx;
	p->n = cfg->n_targets;
	p->interval = (double)cfg->interval_us / 1e6;
	p->timeout = (double)cfg->timeout_us / 1e6;
	p->down_after = (unsigned)ceil(DOWN_AFTER_S / p->interval);
	if (p->down_after < DOWN_AFTER_MIN)
		p->down_after = DOWN_AFTER_MIN;
	p->ring_mask = ring_size(cfg, p->down_after) - 1;
	p->tfd = p->epfd = -1;
	for (i = 0; i < p->n; i++)
		p->t[i].fd = -1;
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		/* not secret, only distinct: two probers must not take each other's replies */
		for (i = 0; i < 2 * p->n; i++)
			rnd[i] = (uint32_t)real_now_ns() ^ (uint32_t)getpid() * 2654435761u ^
				(uint32_t)i * 40503u;
	}
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0 || (p->tfd = timerfd_create(CLOCK_MONOTONIC,
						     TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "probe: epoll/timerfd: %s", strerror(errno));
		goto fail;
	}
	ev.data.u32 = UINT32_MAX;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->tfd, &ev) < 0)
		goto fail_errno;
	now = gw_mono_now();
	for (i = 0; i < p->n; i++) {
		struct target *t = &p->t[i];

		t->cfg = &p->cfg.targets[i];
		t->family = t->cfg->addr.ss_family;
		t->ts = cfg->method == GW_PROBE_ICMP_TS;
		t->icmp = cfg->method == GW_PROBE_ICMP || t->ts;
		t->ident = (uint16_t)rnd[2 * i];
		t->cookie = rnd[2 * i + 1];
		t->st.last_rtt_ms = t->st.last_owd_up_ms = t->st.last_owd_down_ms = NAN;
		t->ring = calloc(p->ring_mask + 1, sizeof(*t->ring));
		if (!t->ring) {
			ret = -ENOMEM;
			snprintf(err, errlen, "probe: out of memory");
			goto fail;
		}
		/* all targets on one tick: a wake-up sends to all (a few small packets) */
		t->next_send = now;
		if ((ret = setup_socket(p, t, ifname, err, errlen)))
			goto fail;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, t->fd, &ev) < 0)
			goto fail_errno;
	}
	arm_timer(p);
	*out = p;
	return 0;
fail_errno:
	ret = -errno;
	snprintf(err, errlen, "probe: epoll_ctl: %s", strerror(errno));
fail:
	gw_prober_free(p);
	return ret;
}

void gw_prober_free(struct gw_prober *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		gw_fd_close(&p->t[i].fd);
		free(p->t[i].ring);
	}
	gw_fd_close(&p->tfd);
	gw_fd_close(&p->epfd);
	free(p);
}

int gw_prober_fd(const struct gw_prober *p)
{
	return p->epfd;
}

size_t gw_prober_targets(const struct gw_prober *p, struct gw_probe_target_state *out, size_t max)
{
	size_t i;

	for (i = 0; i < p->n && i < max; i++)
		out[i] = p->t[i].st;
	return p->n;
}

void gw_prober_limit(struct gw_prober *p, uint64_t count)
{
	p->limit = count;
	arm_timer(p);
}

bool gw_prober_done(const struct gw_prober *p)
{
	size_t i;

	if (!p->limit)
		return false;
	for (i = 0; i < p->n; i++)
		if (p->t[i].next_seq < p->limit || p->t[i].oldest != p->t[i].next_seq)
			return false;
	return true;
}

bool gw_prober_raw(const struct gw_prober *p)
{
	return p->n && p->t[0].raw;
}

const char *gw_prober_method_name(enum gw_probe_method m)
{
	switch (m) {
	case GW_PROBE_UDP:
		return "udp";
	case GW_PROBE_ICMP_TS:
		return "icmp-timestamp";
	default:
		return "icmp";
	}
}
