/* qdisc/monitor.h: rtnetlink notifications of links and tc objects, for self-healing. */
#ifndef GW_QDISC_MONITOR_H
#define GW_QDISC_MONITOR_H

#include "qdisc/nl.h"

struct gw_monitor;

int gw_monitor_open(struct gw_monitor **out);
void gw_monitor_close(struct gw_monitor *m);
int gw_monitor_fd(const struct gw_monitor *m);
/* Pass every pending notification to cb. Returns 0, or -ENOBUFS when the kernel dropped some
 * (the caller must then check the whole state instead of trusting the events). */
int gw_monitor_read(struct gw_monitor *m, gw_nl_cb cb, void *arg);

#endif
