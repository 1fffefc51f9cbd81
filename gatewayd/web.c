/* gatewayd/web.c: the status page's settings taken from the config, and its log lines. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sys/log.h"
#include "gatewayd/web.h"

static void web_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	gw_log(level <= 3 ? GW_LOG_ERR : level == 4 ? GW_LOG_WARNING : GW_LOG_INFO, "%s", msg);
}

size_t gw_web_settings(const struct gw_config *cfg, struct gw_webui_listen *listen,
		       struct gw_webui_opts *o)
{
	size_t n = cfg->n_listen < GW_WEBUI_MAX_LISTEN ? cfg->n_listen : GW_WEBUI_MAX_LISTEN;

	for (size_t i = 0; i < n; i++)
		listen[i] = (struct gw_webui_listen){ cfg->listen[i], cfg->listen_addr[i],
						      cfg->listen_addrlen[i] };
	memset(o, 0, sizeof(*o));
	o->auth_file = cfg->auth_file;
	o->tls_cert = cfg->tls_cert;
	o->tls_key = cfg->tls_key;
	o->allowed_hosts = (const char *const *)cfg->allowed_hosts;
	o->n_allowed_hosts = cfg->n_allowed_hosts;
	o->auth_fail_limit = cfg->auth_fail_limit;
	o->auth_fail_backoff_s = (double)cfg->auth_fail_backoff_us / 1e6;
	o->memory_max = cfg->http_memory_max;
	o->log = web_log;
	return n;
}

/* dst[cap] from src (NULL: ""): false when it does not fit */
static bool put(char *dst, size_t cap, const char *src)
{
	return (size_t)snprintf(dst, cap, "%s", src ? src : "") < cap;
}

int gw_web_wire_settings(const struct gw_config *cfg, struct gw_wire_settings *ws)
{
	bool ok = true;

	memset(ws, 0, sizeof(*ws));
	ws->n_listen = cfg->n_listen < GW_WEBUI_MAX_LISTEN ? cfg->n_listen : GW_WEBUI_MAX_LISTEN;
	for (size_t i = 0; i < ws->n_listen; i++) {
		ok &= put(ws->listen_text[i], sizeof(ws->listen_text[i]), cfg->listen[i]);
		ws->listen_addr[i] = cfg->listen_addr[i];
		ws->listen_len[i] = cfg->listen_addrlen[i];
	}
	ok &= put(ws->auth_file, sizeof(ws->auth_file), cfg->auth_file);
	ok &= put(ws->tls_cert, sizeof(ws->tls_cert), cfg->tls_cert);
	ok &= put(ws->tls_key, sizeof(ws->tls_key), cfg->tls_key);
	ws->n_allowed_hosts = cfg->n_allowed_hosts < GW_WEBUI_MAX_HOSTS ? cfg->n_allowed_hosts
									 : GW_WEBUI_MAX_HOSTS;
	for (size_t i = 0; i < ws->n_allowed_hosts; i++)
		ok &= put(ws->allowed_hosts[i], sizeof(ws->allowed_hosts[i]),
			  cfg->allowed_hosts[i]);
	ws->auth_fail_limit = cfg->auth_fail_limit;
	ws->auth_fail_backoff_s = (double)cfg->auth_fail_backoff_us / 1e6;
	ws->memory_max = cfg->http_memory_max;
	ok &= put(ws->compare_dir, sizeof(ws->compare_dir),
		  cfg->compare_dir ? cfg->compare_dir : GW_COMPARE_DIR_DEFAULT);
	ws->interval_us = cfg->interval_us;
	return ok ? 0 : -ENAMETOOLONG;
}
