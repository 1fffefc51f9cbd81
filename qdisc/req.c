/* qdisc/req.c: one-shot rtnetlink requests: started with their header, sent once, freed. */
#include <errno.h>
#include "qdisc/req.h"

struct nl_msg *gw_req_new(int type, int flags, const void *hdr, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	if (msg && nlmsg_append(msg, (void *)hdr, len, NLMSG_ALIGNTO) < 0)
		return gw_req_drop(msg);
	return msg;
}

struct nl_msg *gw_req_drop(struct nl_msg *msg)
{
	nlmsg_free(msg);
	return NULL;
}

int gw_req_send(struct gw_nl *nl, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		struct gw_nl_error *e)
{
	int err;

	if (!msg)
		return -ENOMEM;
	err = gw_nl_request(nl, msg, cb, arg, e);
	nlmsg_free(msg);
	return err;
}
