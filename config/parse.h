/* config/parse.h: what the config parser's files share with each other; not an API. */
#ifndef GW_CONFIG_PARSE_H
#define GW_CONFIG_PARSE_H

#include <libconfig.h>

#include "config/config.h"

/* Room for "link 'NAME' ingress child" and the like. */
#define CFG_WHERE_MAX 96
/* Longest string value we take from the file where no tighter bound applies. */
#define CFG_STRING_MAX 64

struct cfg_parser {
	const char *name;	/* FILE in messages when libconfig knows no file */
	char *err;
	size_t errlen;
};

struct cfg_enum {
	const char *name;
	int value;
};

/*
 * "FILE:LINE: WHERE: message" (WHERE: left out when NULL) into the parser's buffer; returns
 * -EINVAL so callers can `return cfg_error(...)`. LINE is s's line.
 */
__attribute__((format(printf, 4, 5)))
int cfg_error(struct cfg_parser *p, const config_setting_t *s, const char *where,
	      const char *fmt, ...);
__attribute__((format(printf, 5, 6)))
int cfg_error_at(struct cfg_parser *p, const char *file, int line, const char *where,
		 const char *fmt, ...);
int cfg_missing(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		const char *key);

/* Every member of grp must be one of keys (NULL-terminated); what says where grp is. */
int cfg_check_keys(struct cfg_parser *p, const config_setting_t *grp, const char *what,
		   const char *const *keys);

bool cfg_valid_name(const char *s);
bool cfg_valid_ifname(const char *s);

/*
 * Typed look-ups of grp's member key. Each returns 1 when the key is there and valid (and
 * sets *out), 0 when it is absent (and leaves *out alone), -EINVAL with the message written
 * when it is there but wrong.
 */
int cfg_get_string(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		   const char *where, size_t maxlen, const char **out);
/* An absolute path (at most CFG_ABS_PATH_MAX bytes) at key, strdup'ed into *out: 0 (an absent
 * key leaves *out as it was), or -errno after a FILE:LINE error. Absolute, so it does not
 * depend on the directory the daemon runs in. */
#define CFG_ABS_PATH_MAX 4095		/* PATH_MAX less the NUL */
int cfg_get_abs_path(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		     char **out);
int cfg_get_int(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		const char *where, int64_t min, int64_t max, int64_t *out);
int cfg_get_bool(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, bool *out);
int cfg_get_rate(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, uint64_t min, uint64_t max, uint64_t *out);
int cfg_get_time(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, int64_t min, int64_t max, int64_t *out);
int cfg_get_size(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, int64_t min, int64_t max, int64_t *out);
int cfg_get_enum(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		 const char *where, const struct cfg_enum *names, int *out);
/* An interface name as the kernel takes it (cfg_valid_ifname), copied into out[IFNAMSIZ]. */
int cfg_get_ifname(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		   const char *where, char *out);
/* A named group (a link, a class): its required 'name' (cfg_valid_name, told of as at_index)
 * into name[GW_NAME_MAX], then where[CFG_WHERE_MAX] = "WHAT 'NAME'" and its keys checked
 * against keys there. 0 or -EINVAL. */
int cfg_parse_named(struct cfg_parser *p, const config_setting_t *grp, const char *at_index,
		    const char *what, const char *const *keys, char *name, char *where);
/* The required 'rate' and the optional 'ceil' (when absent: ceil_default, or the rate itself
 * for 0): 0 or -EINVAL. How the two must compare is the caller's to check: its message says
 * against what. */
int cfg_parse_rate_ceil(struct cfg_parser *p, const config_setting_t *grp, const char *where,
			uint64_t ceil_default, uint64_t *rate, uint64_t *ceil);
int cfg_get_group(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		  const char *where, config_setting_t **out);
/* A list of groups: `key = ( { ... }, { ... } );`. */
int cfg_get_group_list(struct cfg_parser *p, const config_setting_t *grp, const char *key,
		       const char *where, config_setting_t **out);
/* How many elements the list or array s (grp's member key) has: 1..max, or -EINVAL with
 * "'KEY' must have 1..MAX NOUN, not N". */
int cfg_count(struct cfg_parser *p, const config_setting_t *s, const char *where, const char *key,
	      int max, const char *noun);

int cfg_scan_ints(struct cfg_parser *p, const char *text);

void cfg_child_init(struct gw_child *c, enum gw_kind kind);
int cfg_parse_child(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		    enum gw_kind shaper, struct gw_child *out);
int cfg_parse_classes(struct cfg_parser *p, const config_setting_t *list, const char *where,
		      enum gw_direction d, struct gw_dir_cfg *dir);
/* parse_match.c: a class's `match` and a direction's `hosts` (after its classes and child) */
int cfg_parse_match(struct cfg_parser *p, const config_setting_t *cls, const char *where,
		    enum gw_direction d, struct gw_class_cfg *c);
int cfg_parse_hosts(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		    enum gw_direction d, struct gw_dir_cfg *dir);
int cfg_parse_dir(struct cfg_parser *p, const config_setting_t *grp, const char *link_name,
		  enum gw_direction d, struct gw_dir_cfg *dir);
int cfg_parse_link(struct cfg_parser *p, const config_setting_t *grp, size_t index,
		   struct gw_link_cfg *link);
/* `containers = ( ... );` (config/parse_containers.c); absent: none. */
int cfg_parse_containers(struct cfg_parser *p, const config_setting_t *root,
			 struct gw_config *cfg);
int cfg_check_links(struct cfg_parser *p, const config_setting_t *list,
		    const struct gw_link_cfg *links, size_t n);
/* A direction's `autorate` (config/parse_autorate.c), after its rate and child. */
int cfg_parse_autorate(struct cfg_parser *p, const config_setting_t *grp, const char *where,
		       struct gw_dir_cfg *dir);
/* Autorate's needs across the config, once the probe block is known: probes on that link. */
int cfg_check_autorate(struct cfg_parser *p, const struct gw_config *cfg);
/* The `probe` block (config/parse_probe.c); after the links, which it names. */
/* tls_cert, tls_key, auth_plain_http, allowed_hosts, auth_fail_*, http_memory_max */
int cfg_parse_http(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg);
int cfg_parse_probe(struct cfg_parser *p, const config_setting_t *root, struct gw_config *cfg);
/* A link's own `probe` block into link->probe (left NULL when absent); after its name. */
int cfg_parse_link_probe(struct cfg_parser *p, const config_setting_t *link_grp,
			 struct gw_link_cfg *link);

#endif
