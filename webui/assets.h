/* webui/assets.h: the page's files, embedded at build time by webui/embed.sh. */
#ifndef GW_WEBUI_ASSETS_H
#define GW_WEBUI_ASSETS_H

#include <stddef.h>

struct gw_webui_asset {
	const char *path;		/* the URL path it is served at */
	const char *content_type;
	const unsigned char *data;
	size_t len;
};

extern const struct gw_webui_asset gw_webui_assets[];
extern const size_t gw_webui_n_assets;

#endif
