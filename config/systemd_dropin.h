/* config/systemd_dropin.h: the systemd drop-in that confines the unit to the config's addresses. */
#ifndef GW_SYSTEMD_DROPIN_H
#define GW_SYSTEMD_DROPIN_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

/* Where the generator (systemd/gatewayd-generator) puts it, under its output directory. */
#define GW_SYSTEMD_DROPIN_NAME "gatewayd.service.d/50-addresses.conf"

/*
 * The [Service] section that narrows systemd/gatewayd.service's IPAddressDeny=any and
 * SocketBindDeny=any to what cfg uses: IPAddressAllow= for the status page's clients (the
 * range of each listen address), every probe target and the load test's sink, and
 * SocketBindAllow= for each listen port. Written into buf (NUL-terminated). Returns 0, or
 * -ENOSPC when buf is too small (buf then holds nothing usable).
 */
int gw_systemd_dropin_render(const struct gw_config *cfg, char *buf, size_t len);

/* The two configs' drop-ins differ (or one cannot be rendered): a reload from a to b leaves
 * the running unit's allow lists behind until a daemon-reload and a restart. */
bool gw_systemd_dropin_changed(const struct gw_config *a, const struct gw_config *b);

#endif
