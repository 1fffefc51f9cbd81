/* gatewayd/web.h: the status page's settings taken from the config, and its log lines. */
#ifndef GW_WEB_H
#define GW_WEB_H

#include "config/config.h"
#include "webui/webui.h"
#include "webui/wire.h"

/* listen[GW_WEBUI_MAX_LISTEN] and *o from cfg (pointing into it); returns how many
 * addresses. */
size_t gw_web_settings(const struct gw_config *cfg, struct gw_webui_listen *listen,
		       struct gw_webui_opts *o);
/* The same as the web process's settings frame (compare_dir: the default where the config
 * has none). 0, or -ENAMETOOLONG when a value is longer than the frame carries. */
int gw_web_wire_settings(const struct gw_config *cfg, struct gw_wire_settings *ws);

#endif
