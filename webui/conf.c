/* webui/conf.c: the HTTP servers' settings read and checked: the auth file, the TLS
 * certificate and key (PEM text for libmicrohttpd), the Host names answered; the files from
 * fds the caller opened (the daemon's, in its web process) or else from their paths. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include "webui/auth.h"
#include "webui/conf.h"
#include "webui/readfile.h"

/* A PEM file whole, as text: from fd when it is open already (>= 0), else opened at path;
 * what = "tls_cert" or "tls_key" for messages. */
static int read_pem(int given, const char *path, const char *what, char **out, char *err,
		    size_t errlen)
{
	int fd = given >= 0 ? given : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
					   O_NONBLOCK), r;
	struct stat st;
	size_t len;

	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(-r));
		return r;
	}
	r = gw_webui_read_file(fd, GW_WEBUI_PEM_MAX, &st, out, &len);
	if (given < 0)
		close(fd);
	if (r == -EINVAL || r == -EFBIG || (!r && !len)) {
		free(*out);
		*out = NULL;
		snprintf(err, errlen, "%s %s: not a regular file of 1 byte to 64 KiB", what, path);
		return -EINVAL;
	}
	if (r) {
		snprintf(err, errlen, "%s %s: %s", what, path, r == -EAGAIN ?
			 "changed while it was read" : strerror(-r));
		return r;
	}
	if (!strstr(*out, "-----BEGIN ")) {
		explicit_bzero(*out, len);
		free(*out);
		*out = NULL;
		snprintf(err, errlen, "%s %s: not a PEM file (no \"-----BEGIN\" line)", what, path);
		return -EINVAL;
	}
	return 0;
}

static int add_host(struct conf *c, const char *name)
{
	if (c->n_hosts >= sizeof(c->hosts) / sizeof(c->hosts[0]))
		return 0;
	if (!(c->hosts[c->n_hosts] = strdup(name)))
		return -ENOMEM;
	c->n_hosts++;
	return 0;
}

static int hosts_load(struct conf *c, const struct gw_webui_opts *o)
{
	char name[256];
	int r;

	c->host_check = true;
	if (o->n_allowed_hosts) {
		for (size_t i = 0; i < o->n_allowed_hosts && i < GW_WEBUI_MAX_HOSTS; i++) {
			if (!strcmp(o->allowed_hosts[i], "*"))
				c->any_host = true;
			else if ((r = add_host(c, o->allowed_hosts[i])))
				return r;
		}
		return 0;
	}
	if ((r = add_host(c, "localhost")))
		return r;
	if (gethostname(name, sizeof(name)) == 0 && name[0]) {
		name[sizeof(name) - 1] = '\0';
		return add_host(c, name);
	}
	return 0;
}

static int copy_str(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	return (*out = strdup(s)) ? 0 : -ENOMEM;
}

/* The fd the caller opened for file i (0 auth, 1 cert, 2 key), or -1: open the path. */
static int given(const struct gw_webui_opts *o, int i)
{
	return o->file_fds ? o->file_fds[i] : -1;
}

int gw_webui_conf_load(struct conf *c, const struct gw_webui_listen *listen, size_t n_listen,
		       const struct gw_webui_opts *o, char *err, size_t errlen)
{
	int r = -ENOMEM;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < GW_WEBUI_MAX_LISTEN; i++)
		c->fds[i] = o->listen_fds && i < n_listen ? o->listen_fds[i] : -1;
	for (size_t i = 0; i < n_listen; i++) {
		c->listen[i] = listen[i];
		if (!(c->listen[i].text = strdup(listen[i].text ? listen[i].text : "?")))
			goto oom;
		c->n_listen = i + 1;
	}
	if (copy_str(o->auth_file, &c->auth_file) || copy_str(o->tls_cert, &c->tls_cert) ||
	    copy_str(o->tls_key, &c->tls_key) || hosts_load(c, o))
		goto oom;
	err[0] = '\0';
	if (o->auth_file) {
		r = given(o, 0) >= 0 ? gw_auth_load_fd(given(o, 0), o->auth_file, &c->auth, err,
						       errlen)
				     : gw_auth_load(o->auth_file, &c->auth, err, errlen);
		if (r) {
			if (!err[0])
				snprintf(err, errlen, "%s: %s", o->auth_file, strerror(-r));
			goto fail;
		}
	}
	if (!o->tls_cert != !o->tls_key) {
		snprintf(err, errlen, "TLS needs both a certificate and a key");
		r = -EINVAL;
		goto fail;
	}
	if (o->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "tls_cert: this libmicrohttpd was built without TLS "
				 "(GnuTLS)");
			r = -EOPNOTSUPP;
			goto fail;
		}
		if ((r = read_pem(given(o, 1), o->tls_cert, "tls_cert", &c->cert_pem, err,
				  errlen)) ||
		    (r = read_pem(given(o, 2), o->tls_key, "tls_key", &c->key_pem, err, errlen)))
			goto fail;
	}
	return 0;
oom:
	snprintf(err, errlen, "web UI: out of memory");
fail:
	gw_webui_conf_free(c);
	return r;
}

void gw_webui_conf_free(struct conf *c)
{
	for (size_t i = 0; i < c->n_listen; i++)
		free((char *)c->listen[i].text);
	for (size_t i = 0; i < c->n_hosts; i++)
		free(c->hosts[i]);
	free(c->auth_file);
	free(c->tls_cert);
	free(c->tls_key);
	gw_auth_free(c->auth);
	free(c->cert_pem);
	if (c->key_pem) {
		explicit_bzero(c->key_pem, strlen(c->key_pem));
		free(c->key_pem);
	}
	memset(c, 0, sizeof(*c));
}
