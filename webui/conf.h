/* webui/conf.h: what the HTTP servers are made from (addresses, auth, TLS, Host names), read
 * and checked before a server starts or restarts. */
#ifndef GW_WEBUI_CONF_H
#define GW_WEBUI_CONF_H

#include <stdbool.h>
#include "webui/webui.h"

#define GW_WEBUI_PEM_MAX 65536	/* a certificate chain or a key file */

struct conf {
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];	/* text: owned copies */
	size_t n_listen;
	int fds[GW_WEBUI_MAX_LISTEN];	/* the caller's bound sockets (not ours); -1: bind */
	char *auth_file, *tls_cert, *tls_key;	/* paths, as configured */
	struct gw_auth *auth;
	char *cert_pem, *key_pem;	/* the files' text; NULL: plain HTTP */
	char *hosts[GW_WEBUI_MAX_HOSTS + 2];
	size_t n_hosts;
	bool host_check, any_host;
};

/* Read the auth file and the TLS files (from o->file_fds when given, else their paths), copy
 * the rest. -errno with err on failure. */
int gw_webui_conf_load(struct conf *c, const struct gw_webui_listen *listen, size_t n_listen,
		       const struct gw_webui_opts *o, char *err, size_t errlen);
void gw_webui_conf_free(struct conf *c);	/* wipes the key */
#endif
