/* qdisc/req.h: one-shot rtnetlink requests: a message started with its family header, then
 * sent once and freed, for the link and peer queries that each build one. */
#ifndef GW_QDISC_REQ_H
#define GW_QDISC_REQ_H

#include <stddef.h>
#include <netlink/msg.h>
#include "qdisc/nl.h"

/* A message of this type and flags carrying hdr (len bytes) as its family header; NULL when
 * out of memory. */
struct nl_msg *gw_req_new(int type, int flags, const void *hdr, size_t len);
/* Drop msg after a failed attribute put: the request is then -ENOMEM (gw_req_send(NULL)). */
struct nl_msg *gw_req_drop(struct nl_msg *msg);
/* gw_nl_request(msg), then msg freed; msg NULL (a failed gw_req_new or put): -ENOMEM. */
int gw_req_send(struct gw_nl *nl, struct nl_msg *msg, gw_nl_cb cb, void *arg,
		struct gw_nl_error *e);

#endif
