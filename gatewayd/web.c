/* gatewayd/web.c: the status page's settings taken from the config, and its log lines. */
#include <string.h>
#include "gatewayd/sys/log.h"
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
