/* qdisc/nl.c: the rtnetlink socket loop (see nl.h for why it is ours), behind the ops table
 * that lets the unit tests put an in-memory kernel in its place. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "qdisc/monitor.h"
#include "qdisc/nl.h"

#define NL_CHUNK_BYTES GW_NL_CHUNK_BYTES	/* requests per sendmsg: well under the socket buffer */
#define NL_CHUNK_MSGS GW_NL_CHUNK_MSGS		/* and acks per chunk well under the receive buffer */
#define NL_RCVBUF (8 * 1024 * 1024)
#define NL_RECV_BUF (256 * 1024)	/* one recv: larger than any dump skb */
#define NL_TIMEOUT_MS 10000		/* a kernel that says nothing for this long is broken */

struct gw_nl {
	const struct gw_nl_ops *ops;
	void *priv;		/* the ops' own; the real socket's is this struct */
	struct nl_sock *sk;
	int fd;
	uint32_t seq;
	uint32_t portid;
	char *rbuf;
	char *sbuf;
	gw_nl_progress_fn progress;
	void *progress_arg;
};

static const struct gw_nl_ops real_ops;

int gw_nl_open_ops(const struct gw_nl_ops *ops, void *priv, struct gw_nl **out)
{
	struct gw_nl *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	nl->ops = ops;
	nl->priv = priv;
	*out = nl;
	return 0;
}

int gw_nl_open(struct gw_nl **out)
{
	struct gw_nl *nl = calloc(1, sizeof(*nl));
	int one = 1, size = NL_RCVBUF, fl;

	if (!nl)
		return -ENOMEM;
	nl->rbuf = malloc(NL_RECV_BUF);
	nl->sbuf = malloc(NL_CHUNK_BYTES);
	nl->sk = nl_socket_alloc();
	if (!nl->rbuf || !nl->sbuf || !nl->sk) {
		gw_nl_close(nl);
		return -ENOMEM;
	}
	if (nl_connect(nl->sk, NETLINK_ROUTE) < 0) {
		gw_nl_close(nl);
		return -EPROTONOSUPPORT;
	}
	nl->fd = nl_socket_get_fd(nl->sk);
	nl->portid = nl_socket_get_local_port(nl->sk);
	fcntl(nl->fd, F_SETFD, FD_CLOEXEC);
	fl = fcntl(nl->fd, F_GETFL);
	fcntl(nl->fd, F_SETFL, fl | O_NONBLOCK);
	/* Error acks carry the kernel's text but not our request back. */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(nl->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(nl->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	nl->seq = (uint32_t)time(NULL);
	nl->ops = &real_ops;
	nl->priv = nl;
	*out = nl;
	return 0;
}

static int real_set_strict(void *priv)
{
	struct gw_nl *nl = priv;
	int one = 1;

	return setsockopt(nl->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one)) < 0 ?
	       -errno : 0;
}

void gw_nl_close(struct gw_nl *nl)
{
	if (!nl)
		return;
	if (nl->ops && nl->ops != &real_ops && nl->ops->close)
		nl->ops->close(nl->priv);
	if (nl->sk)
		nl_socket_free(nl->sk);
	free(nl->rbuf);
	free(nl->sbuf);
	free(nl);
}

uint32_t gw_nl_portid(const struct gw_nl *nl)
{
	if (!nl)	/* no handle, no requests of its own: every event is someone else's */
		return 0;
	if (nl->ops == &real_ops)
		return nl->portid;
	return nl->ops && nl->ops->portid ? nl->ops->portid(nl->priv) : 0;
}

const struct gw_nft_ops *gw_nl_nft(const struct gw_nl *nl, void **priv)
{
	*priv = nl ? nl->priv : NULL;
	return nl && nl->ops ? nl->ops->nft : NULL;
}

int gw_nl_parse_error(const struct nlmsghdr *nlh, size_t len, char *msg, size_t msglen)
{
	const struct nlmsgerr *e;
	size_t off;

	if (msglen)
		msg[0] = '\0';
	if (len < NLMSG_LENGTH(sizeof(*e)) || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EBADMSG;
	e = NLMSG_DATA(nlh);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return e->error;
	off = NLMSG_LENGTH(sizeof(*e));
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return -EBADMSG;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	/* walk the TLVs after the error for NLMSGERR_ATTR_MSG, bounded by the message */
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)nlh + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > nlh->nlmsg_len)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG && msglen) {
			size_t n = a->nla_len - NLA_HDRLEN;

			if (n >= msglen)
				n = msglen - 1;
			memcpy(msg, (const char *)a + NLA_HDRLEN, n);
			msg[n] = '\0';
			msg[strcspn(msg, "\n")] = '\0';
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return e->error;
}

static ssize_t nl_recv_some(struct gw_nl *nl)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };

	if (nl->progress)
		nl->progress(nl->progress_arg);
	for (;;) {
		ssize_t r = recv(nl->fd, nl->rbuf, NL_RECV_BUF, 0);

		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;	/* ENOBUFS: acks were lost, the caller must give up */
		r = poll(&p, 1, NL_TIMEOUT_MS);
		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static int nl_send_all(struct gw_nl *nl, const char *buf, size_t len)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLOUT };

	for (;;) {
		ssize_t r = send(nl->fd, buf, len, 0);

		if (r == (ssize_t)len)
			return 0;
		if (r >= 0)
			return -EIO;	/* netlink never sends part of a datagram */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if (poll(&p, 1, NL_TIMEOUT_MS) == 0)
			return -ETIMEDOUT;
	}
}

/* Copy requests [i, end) into the send buffer, numbering them; returns how many fit. */
static size_t pack_chunk(struct gw_nl *nl, struct nl_msg *const *msgs, size_t i, size_t n,
			 size_t *bytes)
{
	size_t k = 0, off = 0;

	while (i + k < n && k < NL_CHUNK_MSGS) {
		struct nlmsghdr *h = nlmsg_hdr(msgs[i + k]);
		size_t sz = NLMSG_ALIGN(h->nlmsg_len);

		if (off + sz > NL_CHUNK_BYTES)
			break;
		h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		h->nlmsg_seq = nl->seq + (uint32_t)(i + k);
		h->nlmsg_pid = nl->portid;
		memcpy(nl->sbuf + off, h, h->nlmsg_len);
		memset(nl->sbuf + off + h->nlmsg_len, 0, sz - h->nlmsg_len);
		off += sz;
		k++;
	}
	*bytes = off;
	return k;
}

static void note_error(struct gw_nl_error *first, size_t idx, int err, const char *msg)
{
	if (!first || (first->err && first->index <= idx))
		return;
	first->index = idx;
	first->err = err;
	snprintf(first->msg, sizeof(first->msg), "%s", msg);
}

/* Read acks for requests numbered [lo, hi) (sequence base nl->seq). */
static int collect_acks(struct gw_nl *nl, size_t lo, size_t hi, struct gw_nl_error *first)
{
	size_t pending = hi - lo;
	char text[GW_EXTACK_MAX];

	while (pending) {
		ssize_t r = nl_recv_some(nl);
		struct nlmsghdr *h;
		int len;

		if (r < 0)
			return (int)r;
		len = (int)r;
		for (h = (struct nlmsghdr *)nl->rbuf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			size_t idx = h->nlmsg_seq - nl->seq;
			int err;

			if (h->nlmsg_type != NLMSG_ERROR || idx < lo || idx >= hi)
				continue;	/* not an ack of ours (stale or a notification) */
			err = gw_nl_parse_error(h, (size_t)len, text, sizeof(text));
			if (err)
				note_error(first, idx, err > 0 ? -EBADMSG : err, text);
			pending--;
		}
	}
	return 0;
}

static int real_batch(void *priv, struct nl_msg *const *msgs, size_t n, bool stop,
		      struct gw_nl_error *e)
{
	struct gw_nl *nl = priv;
	struct gw_nl_error first = { .err = 0 };
	size_t i = 0;
	int err = 0;

	while (i < n && !err) {
		size_t bytes, k = pack_chunk(nl, msgs, i, n, &bytes);

		if (!k)
			err = -EMSGSIZE;	/* one request larger than a chunk */
		else if (!(err = nl_send_all(nl, nl->sbuf, bytes)))
			err = collect_acks(nl, i, i + k, &first);
		i += k;
		if (stop && first.err)
			break;
	}
	nl->seq += (uint32_t)n + 1;
	if (err && !first.err)
		note_error(&first, i, err, "");
	if (e)
		*e = first;
	return first.err;
}

static int real_request(void *priv, struct nl_msg *msg, gw_nl_cb cb, void *arg,
			struct gw_nl_error *e)
{
	struct gw_nl *nl = priv;
	struct nlmsghdr *req = nlmsg_hdr(msg);
	/* NLM_F_DUMP shares bits with NLM_F_EXCL: only a GET with both bits is a dump */
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && (req->nlmsg_type & 3) == 2;
	uint32_t seq = ++nl->seq;
	char text[GW_EXTACK_MAX] = "";
	int err;

	req->nlmsg_flags |= NLM_F_REQUEST | (dump ? 0 : NLM_F_ACK);
	req->nlmsg_seq = seq;
	req->nlmsg_pid = nl->portid;
	if ((err = nl_send_all(nl, (const char *)req, req->nlmsg_len)))
		goto out;
	for (;;) {
		ssize_t r = nl_recv_some(nl);
		struct nlmsghdr *h;
		int len;

		if (r < 0) {
			err = (int)r;
			goto out;
		}
		len = (int)r;
		for (h = (struct nlmsghdr *)nl->rbuf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = gw_nl_parse_error(h, (size_t)len, text, sizeof(text));
				goto out;
			}
			/* a plain request's reply is followed by its ack, a dump's by DONE */
			if (cb && (err = cb(h, arg)))
				goto drain;
		}
	}
drain:
	/* the callback stopped early: swallow the rest of the dump so the next request is clean */
	for (;;) {
		ssize_t r = nl_recv_some(nl);
		struct nlmsghdr *h;
		int len;

		if (r < 0)
			break;
		len = (int)r;
		for (h = (struct nlmsghdr *)nl->rbuf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len))
			if (h->nlmsg_seq == seq &&
			    (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR))
				goto out;
	}
out:
	if (e) {
		e->index = 0;
		e->err = err;
		snprintf(e->msg, sizeof(e->msg), "%s", text);
	}
	return err;
}

static const struct gw_nl_ops real_ops = {
	.batch = real_batch,
	.request = real_request,
	.set_strict = real_set_strict,
};

void gw_nl_set_progress(struct gw_nl *nl, gw_nl_progress_fn fn, void *arg)
{
	nl->progress = fn;
	nl->progress_arg = arg;
}

int gw_nl_set_strict(struct gw_nl *nl)
{
	return nl->ops->set_strict ? nl->ops->set_strict(nl->priv) : 0;
}

int gw_nl_open_sibling(struct gw_nl *nl, struct gw_nl **out)
{
	return nl->ops->open_sibling ? nl->ops->open_sibling(nl->priv, out) : gw_nl_open(out);
}

int gw_nl_monitor(struct gw_nl *nl, unsigned int groups, bool all_nsid, struct gw_monitor **out)
{
	return nl->ops->monitor ? nl->ops->monitor(nl->priv, groups, all_nsid, out) :
	       gw_monitor_open_groups(groups, all_nsid, out);
}

int gw_nl_batch(struct gw_nl *nl, struct nl_msg *const *msgs, size_t n, bool stop,
		struct gw_nl_error *e)
{
	return nl->ops->batch(nl->priv, msgs, n, stop, e);
}

/* A dump's replies, kept until the kernel has said the dump was whole. */
struct dump_copy {
	char *buf;
	size_t len, cap;
	bool intr;
	int err;
};

static int copy_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_copy *c = arg;
	size_t need = NLMSG_ALIGN(nlh->nlmsg_len);

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		c->intr = true;
	if (nlh->nlmsg_len < NLMSG_HDRLEN || need > GW_NL_DUMP_MAX - c->len)
		return c->err = -EMSGSIZE;
	if (c->len + need > c->cap) {
		size_t cap = c->cap ? c->cap : 64 * 1024;
		char *n;

		while (cap < c->len + need)
			cap *= 2;
		if (!(n = realloc(c->buf, cap)))
			return c->err = -ENOMEM;
		c->buf = n;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, nlh, nlh->nlmsg_len);
	memset(c->buf + c->len + nlh->nlmsg_len, 0, need - nlh->nlmsg_len);
	c->len += need;
	return 0;
}

/*
 * A dump the kernel marks NLM_F_DUMP_INTR (the objects changed while it was being written, so
 * it may miss or repeat some) is not what is there: its replies are kept aside and only a whole
 * dump reaches cb, read again up to GW_NL_DUMP_TRIES times. Above the seam, so that the unit
 * tests' kernels can tear a dump too.
 */
static int dump_whole(struct gw_nl *nl, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		      struct gw_nl_error *e)
{
	struct dump_copy c = { 0 };
	int err = 0;

	for (int t = 0; t < GW_NL_DUMP_TRIES; t++) {
		c.len = 0;
		c.intr = false;
		c.err = 0;
		err = nl->ops->request(nl->priv, msg, copy_cb, &c, e);
		if (err || !c.intr)
			break;
	}
	if (!err && c.intr) {
		err = -EAGAIN;
		if (e) {
			e->index = 0;
			e->err = err;
			snprintf(e->msg, sizeof(e->msg),
				 "the dump was interrupted by changes %d times in a row",
				 GW_NL_DUMP_TRIES);
		}
	}
	for (size_t off = 0; !err && off < c.len;) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)(c.buf + off);

		off += NLMSG_ALIGN(h->nlmsg_len);
		err = cb(h, arg);
	}
	free(c.buf);
	return err;
}

int gw_nl_request(struct gw_nl *nl, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		  struct gw_nl_error *e)
{
	const struct nlmsghdr *req = nlmsg_hdr(msg);

	/* NLM_F_DUMP shares bits with NLM_F_EXCL: only a GET with both bits is a dump */
	if (cb && (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && (req->nlmsg_type & 3) == 2)
		return dump_whole(nl, msg, cb, arg, e);
	return nl->ops->request(nl->priv, msg, cb, arg, e);
}

int gw_nl_dump_tc(struct gw_nl *nl, int type, int ifindex, uint32_t parent, gw_nl_cb cb,
		  void *arg, struct gw_nl_error *e)
{
	struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			     .tcm_parent = parent };
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_DUMP);
	int err;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &tcm, sizeof(tcm), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = gw_nl_request(nl, msg, cb, arg, e);
	nlmsg_free(msg);
	return err;
}
