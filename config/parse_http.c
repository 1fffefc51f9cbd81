/* config/parse_http.c: the web UI's keys: TLS files, when basic auth may go in clear, the
 * Host names it answers to, failed-login limits and the memory its replies may hold. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/parse.h"

#define HOST_MAX_LEN 253		/* a DNS name */
#define FAIL_LIMIT_DEFAULT 5
#define BACKOFF_DEFAULT 60000000LL	/* 60 s */
#define MEMORY_DEFAULT (16LL << 20)

/* A host name as a Host header carries it: letters, digits, '-', '.', or "*" alone. */
static bool valid_host(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "*"))
		return true;
	if (n < 1 || n > HOST_MAX_LEN || strspn(s, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != n)
		return false;
	return s[0] != '.' && s[0] != '-';
}

static int allowed_hosts(struct cfg_parser *p, const config_setting_t *root,
			 struct gw_config *cfg)
{
	const config_setting_t *s = config_setting_get_member(root, "allowed_hosts");
	int n;

	if (!s)
		return 0;
	if (!config_setting_is_array(s) && !config_setting_is_list(s))
		return cfg_error(p, s, NULL, "'allowed_hosts' must be a list of host names");
	if ((n = cfg_count(p, s, NULL, "allowed_hosts", GW_MAX_ALLOWED_HOSTS, "names")) < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);
		const char *v = config_setting_get_string(e);

		if (!v || !valid_host(v))
			return cfg_error(p, e, NULL, "'allowed_hosts' entry %d is not a host name "
					 "(letters, digits, '-' and '.', or \"*\" for any)", i + 1);
		if (!(cfg->allowed_hosts[i] = strdup(v)))
			return -ENOMEM;
		cfg->n_allowed_hosts = (size_t)i + 1;
	}
	return 0;
}

static int tls_and_auth(struct cfg_parser *p, const config_setting_t *root,
			struct gw_config *cfg)
{
	const config_setting_t *cert = config_setting_get_member(root, "tls_cert");
	const config_setting_t *key = config_setting_get_member(root, "tls_key");
	int ret;

	if ((ret = cfg_get_abs_path(p, root, "tls_cert", &cfg->tls_cert)) ||
	    (ret = cfg_get_abs_path(p, root, "tls_key", &cfg->tls_key)))
		return ret;
	if (!cfg->tls_cert != !cfg->tls_key)
		return cfg_error(p, cert ? cert : key, NULL, "'tls_cert' and 'tls_key' go together: "
				 "set both (a PEM certificate and its key) or neither");
	if ((ret = cfg_get_bool(p, root, "auth_plain_http", NULL, &cfg->auth_plain_http)) < 0)
		return ret;
	/* a password sent in clear to a LAN is anyone's on it: say so unless told */
	if (cfg->auth_file && !cfg->tls_cert && !cfg->auth_plain_http)
		return cfg_error(p, config_setting_get_member(root, "auth_file"), NULL,
				 "'auth_file' without 'tls_cert' and 'tls_key' sends passwords "
				 "in clear text: add TLS, or say 'auth_plain_http = true'");
	return 0;
}

int cfg_parse_http(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg)
{
	int64_t v;
	int ret;

	if ((ret = tls_and_auth(p, root, cfg)) || (ret = allowed_hosts(p, root, cfg)))
		return ret;
	v = FAIL_LIMIT_DEFAULT;
	if ((ret = cfg_get_int(p, root, "auth_fail_limit", NULL, 1, 1000, &v)) < 0)
		return ret;
	cfg->auth_fail_limit = (unsigned int)v;
	cfg->auth_fail_backoff_us = BACKOFF_DEFAULT;
	if ((ret = cfg_get_time(p, root, "auth_fail_backoff", NULL, 1000000LL, 3600000000LL,
				&cfg->auth_fail_backoff_us)) < 0)
		return ret;
	v = MEMORY_DEFAULT;
	if ((ret = cfg_get_size(p, root, "http_memory_max", NULL, 1LL << 20, 1LL << 30, &v)) < 0)
		return ret;
	cfg->http_memory_max = (size_t)v;
	return 0;
}
