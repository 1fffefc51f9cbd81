/* config/config.c: load a config file into a validated struct gw_config, all or nothing. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/parse.h"

/* A config is hand-written; anything bigger is a mistake, and we read it all into memory. */
#define CONFIG_MAX_BYTES (16 << 20)
#define LISTEN_MAX_LEN 64
#define INTERVAL_MIN 100000LL		/* 100ms */
#define INTERVAL_MAX 60000000LL		/* 60s */
#define INTERVAL_DEFAULT 1000000LL	/* 1s */
#define LISTEN_DEFAULT "127.0.0.1:9180"

static const char *const root_keys[] = { "listen", "interval", "links", "auth_file",
					  "keep_on_stop", "probe", "compare_dir",
					  "containers", "unconfigured", "tls_cert", "tls_key",
					  "auth_plain_http", "allowed_hosts", "auth_fail_limit",
					  "auth_fail_backoff", "http_memory_max", "control_socket",
					  NULL };

const char *gw_direction_name(enum gw_direction d)
{
	return d == GW_DIR_INGRESS ? "ingress" : "egress";
}

void gw_class_default(struct gw_class_cfg *c, uint64_t rate, uint64_t ceil,
		      const struct gw_child *child, int line)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "default");
	c->rate = rate;
	c->ceil = ceil;
	c->prio = c->quantum = c->burst = c->cburst = GW_UNSET;
	c->is_default = true;
	c->child = *child;
	c->line = line;
}

static void free_classes(struct gw_dir_cfg *d)
{
	for (size_t i = 0; d->classes && i < d->n_classes; i++)
		free(d->classes[i].match);
	free(d->classes);
}

void gw_config_free(struct gw_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->n_listen; i++)
		free(cfg->listen[i]);
	for (i = 0; cfg->links && i < cfg->n_links; i++) {
		free_classes(&cfg->links[i].dir[GW_DIR_EGRESS]);
		free_classes(&cfg->links[i].dir[GW_DIR_INGRESS]);
		free(cfg->links[i].probe);
	}
	free(cfg->links);
	free(cfg->containers);
	free(cfg->auth_file);
	free(cfg->tls_cert);
	free(cfg->tls_key);
	for (i = 0; i < cfg->n_allowed_hosts; i++)
		free(cfg->allowed_hosts[i]);
	free(cfg->compare_dir);
	free(cfg->control_socket);
	free(cfg->file);
	free(cfg);
}

/* "" (none) or an absolute path a sockaddr_un holds, with a directory part and printable. */
static int parse_control_socket(struct cfg_parser *p, const config_setting_t *root,
				struct gw_config *cfg)
{
	const char *v = NULL;
	int ret = cfg_get_string(p, root, "control_socket", NULL, GW_CONTROL_SOCKET_MAX, &v);

	if (ret <= 0)
		return ret;
	if (v[0] && (v[0] != '/' || !strrchr(v, '/')[1] || strrchr(v, '/') == v))
		return cfg_error(p, config_setting_get_member(root, "control_socket"), NULL,
				 "'control_socket' \"%.64s\" must be \"\" or an absolute path "
				 "in a directory other than /", v);
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			return cfg_error(p, config_setting_get_member(root, "control_socket"),
					 NULL, "'control_socket': only printable characters");
	cfg->control_socket = strdup(v);
	return cfg->control_socket ? 0 : -ENOMEM;
}

static int add_listen(struct cfg_parser *p, const config_setting_t *s, struct gw_config *cfg)
{
	struct sockaddr_storage *seen = cfg->listen_addr;
	const char *v = config_setting_get_string(s);
	size_t i;

	if (strlen(v) > LISTEN_MAX_LEN ||
	    gw_parse_listen(v, &seen[cfg->n_listen], &cfg->listen_addrlen[cfg->n_listen]))
		return cfg_error(p, s, NULL, "'listen' \"%.*s\" is not an address: expected "
				 "\"IP:PORT\", e.g. \"127.0.0.1:9180\", IPv6 in brackets as "
				 "\"[::1]:9180\"", LISTEN_MAX_LEN, v);
	for (i = 0; i < cfg->n_listen; i++)
		if (!memcmp(&seen[i], &seen[cfg->n_listen], sizeof(seen[i])))
			return cfg_error(p, s, NULL, "'listen' \"%s\" is the same address as \"%s\"",
					 v, cfg->listen[i]);
	cfg->listen[cfg->n_listen] = strdup(v);
	if (!cfg->listen[cfg->n_listen])
		return -ENOMEM;
	cfg->n_listen++;
	return 0;
}

/* listen = "ADDR"; or listen = [ "ADDR", ... ]; (a list works too). */
static int parse_listen(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg)
{
	const config_setting_t *s = config_setting_get_member(root, "listen");
	int i, n, ret;

	if (!s) {
		cfg->listen[0] = strdup(LISTEN_DEFAULT);
		if (!cfg->listen[0])
			return -ENOMEM;
		cfg->n_listen = 1;
		return gw_parse_listen(LISTEN_DEFAULT, &cfg->listen_addr[0], &cfg->listen_addrlen[0]);
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return add_listen(p, s, cfg);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return cfg_error(p, s, NULL, "'listen' must be a string or a list of strings");
	if ((n = cfg_count(p, s, NULL, "listen", GW_MAX_LISTEN, "addresses")) < 0)
		return n;
	for (i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return cfg_error(p, e, NULL, "'listen' must be a string or a list of "
					 "strings");
		ret = add_listen(p, e, cfg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * `unconfigured = true;` marks a file that shapes nothing yet (the one a package installs):
 * it may then have neither links nor containers, and the daemon runs with an empty tree.
 * Together with either it would be a file that says two things, so it is refused there.
 */
static int parse_unconfigured(struct cfg_parser *p, const config_setting_t *root,
			      struct gw_config *cfg)
{
	int ret = cfg_get_bool(p, root, "unconfigured", NULL, &cfg->unconfigured);

	if (ret <= 0 || !cfg->unconfigured)
		return ret < 0 ? ret : 0;
	if (config_setting_get_member(root, "links") ||
	    config_setting_get_member(root, "containers"))
		return cfg_error(p, config_setting_get_member(root, "unconfigured"), NULL,
				 "'unconfigured = true' is for a file with no links and no "
				 "containers: remove it");
	return 0;
}

static int parse_links(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg)
{
	config_setting_t *list = NULL;
	int i, n, ret;

	ret = cfg_get_group_list(p, root, "links", NULL, &list);
	/* a container host may shape nothing but its containers; a placeholder file nothing */
	if (ret == 0 && (cfg->n_containers || cfg->unconfigured))
		return 0;
	if (ret <= 0)
		return ret ? ret : cfg_missing(p, root, NULL, "links");
	if ((n = cfg_count(p, list, NULL, "links", GW_MAX_LINKS, "links")) < 0)
		return n;
	cfg->links = calloc((size_t)n, sizeof(*cfg->links));
	if (!cfg->links)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* Counted before parsing, so a failure half-way still frees this link's classes. */
		cfg->n_links = (size_t)i + 1;
		ret = cfg_parse_link(p, config_setting_get_elem(list, (unsigned int)i), (size_t)i,
				     &cfg->links[i]);
		if (ret)
			return ret;
	}
	return cfg_check_links(p, list, cfg->links, cfg->n_links);
}

static int parse_root(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg)
{
	int ret;

	ret = cfg_check_keys(p, root, NULL, root_keys);
	if (ret)
		return ret;
	ret = parse_listen(p, root, cfg);
	if (ret)
		return ret;
	cfg->interval_us = INTERVAL_DEFAULT;
	ret = cfg_get_time(p, root, "interval", NULL, INTERVAL_MIN, INTERVAL_MAX,
			   &cfg->interval_us);
	if (ret < 0)
		return ret;
	/* auth_file = "/etc/gatewayd/users": its contents are the web UI's to read and check
	 * when it starts */
	ret = cfg_get_abs_path(p, root, "auth_file", &cfg->auth_file);
	if (ret)
		return ret;
	ret = cfg_parse_http(p, root, cfg);
	if (ret)
		return ret;
	ret = cfg_get_abs_path(p, root, "compare_dir", &cfg->compare_dir);
	if (ret)
		return ret;
	ret = parse_control_socket(p, root, cfg);
	if (ret)
		return ret;
	ret = cfg_get_bool(p, root, "keep_on_stop", NULL, &cfg->keep_on_stop);
	if (ret < 0)
		return ret;
	ret = parse_unconfigured(p, root, cfg);
	if (ret)
		return ret;
	ret = cfg_parse_containers(p, root, cfg);
	if (ret)
		return ret;
	ret = parse_links(p, root, cfg);
	if (ret)
		return ret;
	ret = cfg_parse_probe(p, root, cfg);
	if (ret)
		return ret;
	return cfg_check_autorate(p, cfg);
}

static void set_err(char *err, size_t errlen, const char *name, const char *msg, int errnum)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s%s%s", name, msg, errnum ? ": " : "",
			 errnum ? strerror(errnum) : "");
}

/* Syntax first (libconfig), then integers libconfig would truncate, then meaning. */
static int load_text(struct cfg_parser *p, const char *text, const char *include_dir,
		     struct gw_config **out)
{
	struct gw_config *cfg = NULL;
	config_t lc;
	int ret;

	config_init(&lc);
	if (include_dir)
		config_set_include_dir(&lc, include_dir);
	if (!config_read_string(&lc, text)) {
		ret = cfg_error_at(p, config_error_file(&lc), config_error_line(&lc), NULL, "%s",
				   config_error_text(&lc) ? config_error_text(&lc) : "syntax error");
		goto out;
	}
	ret = cfg_scan_ints(p, text);
	if (ret)
		goto out;
	ret = -ENOMEM;
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg || !(cfg->file = strdup(p->name)))
		goto out;
	cfg->owns_nft = true;
	ret = parse_root(p, config_root_setting(&lc), cfg);
out:
	config_destroy(&lc);
	if (ret == -ENOMEM)
		set_err(p->err, p->errlen, p->name, "out of memory", 0);
	if (ret) {
		gw_config_free(cfg);
		return ret;
	}
	*out = cfg;
	return 0;
}

int gw_config_load_string(const char *name, const char *text, struct gw_config **out,
			  char *err, size_t errlen)
{
	struct cfg_parser p = { name, err, errlen };

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	return load_text(&p, text, NULL, out);
}

/* All of fd, NUL-terminated, in a buffer that grows up to CONFIG_MAX_BYTES. */
static int read_all(int fd, char **out, size_t *outlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nbuf;
	ssize_t n;

	for (;;) {
		if (cap - len < 2) {
			if (cap >= CONFIG_MAX_BYTES) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 65536;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

/* The whole file as a string, or -errno with the message written. */
static int read_file(const char *file, char **text, char *err, size_t errlen)
{
	size_t len = 0;
	int fd, ret;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		set_err(err, errlen, file, "cannot open", errno);
		return ret;
	}
	ret = read_all(fd, text, &len);
	close(fd);
	if (ret == -EFBIG)
		set_err(err, errlen, file, "is 16 MiB or larger: not a config file", 0);
	else if (ret == -ENOMEM)
		set_err(err, errlen, file, "out of memory", 0);
	else if (ret)
		set_err(err, errlen, file, "cannot read", -ret);
	if (ret)
		return ret;
	/* libconfig would stop at a NUL and silently ignore the rest. */
	if (strlen(*text) != len) {
		free(*text);
		set_err(err, errlen, file, "contains a NUL byte: not a text file", 0);
		return -EINVAL;
	}
	return 0;
}

int gw_config_load(const char *file, struct gw_config **out, char *err, size_t errlen)
{
	struct cfg_parser p = { file, err, errlen };
	char *text = NULL, *dir;
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	ret = read_file(file, &text, err, errlen);
	if (ret)
		return ret;
	/* @include paths are relative to the file that names them, not to our cwd. */
	dir = strdup(file);
	if (!dir) {
		free(text);
		set_err(err, errlen, file, "out of memory", 0);
		return -ENOMEM;
	}
	ret = load_text(&p, text, dirname(dir), out);
	free(dir);
	free(text);
	return ret;
}
