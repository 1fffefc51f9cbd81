/* tests/unit/test_nl_dump.c: a dump the kernel marks torn (NLM_F_DUMP_INTR) is read again and
 * never reaches the caller half; after GW_NL_DUMP_TRIES torn ones in a row it is an error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include "qdisc/nl.h"
#include "tap.h"

/* A kernel whose first `torn` dumps carry the flag on their second reply (as the kernel sets
 * it from the reply where it saw the change on), and whose later dumps are whole: the qdiscs
 * of ifindex 1..3 once each. A torn dump shows 1 and 1 again (a repeat), as torn ones can. */
struct torn_kernel {
	int torn;
	int dumps;
};

static int emit(gw_nl_cb cb, void *arg, int ifindex, bool intr)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} m = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		       .nlmsg_type = RTM_NEWQDISC,
		       .nlmsg_flags = NLM_F_MULTI | (intr ? NLM_F_DUMP_INTR : 0) },
		.t = { .tcm_ifindex = ifindex } };

	return cb(&m.h, arg);
}

static int torn_request(void *priv, struct nl_msg *msg, gw_nl_cb cb, void *arg,
			struct gw_nl_error *e)
{
	struct torn_kernel *k = priv;
	bool torn = k->dumps++ < k->torn;
	int r;

	(void)msg;
	(void)e;
	if (torn)
		return (r = emit(cb, arg, 1, false)) ? r : emit(cb, arg, 1, true);
	for (int i = 1; i <= 3; i++)
		if ((r = emit(cb, arg, i, false)))
			return r;
	return 0;
}

static int torn_batch(void *priv, struct nl_msg *const *msgs, size_t n, bool stop,
		      struct gw_nl_error *e)
{
	(void)priv;
	(void)msgs;
	(void)n;
	(void)stop;
	(void)e;
	return -EOPNOTSUPP;
}

static const struct gw_nl_ops torn_ops = { .request = torn_request, .batch = torn_batch };

struct seen {
	int n, ifindex[8];
	bool intr;
};

static int seen_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct seen *s = arg;
	const struct tcmsg *t = NLMSG_DATA(nlh);

	s->intr |= !!(nlh->nlmsg_flags & NLM_F_DUMP_INTR);
	if (s->n < 8)
		s->ifindex[s->n] = t->tcm_ifindex;
	s->n++;
	return 0;
}

static void run(int torn, int want_err, int want_dumps)
{
	struct torn_kernel k = { .torn = torn };
	struct gw_nl_error e = { 0 };
	struct seen s = { 0 };
	struct gw_nl *nl;
	int r;

	if (!CHECK(gw_nl_open_ops(&torn_ops, &k, &nl) == 0, "torn %d: open", torn))
		return;
	r = gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, seen_cb, &s, &e);
	CHECK(r == want_err, "torn %d: the dump returns %d (got %d: %s)", torn, want_err, r, e.msg);
	CHECK(k.dumps == want_dumps, "torn %d: asked the kernel %d times (got %d)", torn,
	      want_dumps, k.dumps);
	CHECK(!s.intr, "torn %d: no reply of a torn dump reached the caller", torn);
	if (!want_err)
		CHECK(s.n == 3 && s.ifindex[0] == 1 && s.ifindex[1] == 2 && s.ifindex[2] == 3,
		      "torn %d: the caller saw the whole dump once (%d replies)", torn, s.n);
	else
		CHECK(s.n == 0 && strstr(e.msg, "interrupted"),
		      "torn %d: nothing reached the caller, and the error says why (%s)", torn, e.msg);
	gw_nl_close(nl);
}

/* A request that is not a dump goes through as it is (its replies are not held back). */
static void test_not_dump(void)
{
	struct torn_kernel k = { .torn = 1 };
	struct seen s = { 0 };
	struct gw_nl *nl;
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETLINK, 0);
	struct tcmsg t = { 0 };

	if (!CHECK(m && gw_nl_open_ops(&torn_ops, &k, &nl) == 0, "not a dump: open"))
		return;
	nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO);
	CHECK(gw_nl_request(nl, m, seen_cb, &s, NULL) == 0 && k.dumps == 1 && s.n == 2 && s.intr,
	      "not a dump: passed to the kernel once, its replies straight to the caller");
	nlmsg_free(m);
	gw_nl_close(nl);
}

int main(void)
{
	run(0, 0, 1);
	run(1, 0, 2);
	run(GW_NL_DUMP_TRIES - 1, 0, GW_NL_DUMP_TRIES);
	run(GW_NL_DUMP_TRIES, -EAGAIN, GW_NL_DUMP_TRIES);
	run(100, -EAGAIN, GW_NL_DUMP_TRIES);
	test_not_dump();
	return tap_done();
}
