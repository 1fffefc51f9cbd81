/* config/config.h: the validated, immutable configuration gatewayd runs from. */
#ifndef GW_CONFIG_H
#define GW_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include "qdisc/model.h"

#define GW_NAME_MAX 32		/* link and class names, including the NUL */
#define GW_MAX_LINKS 64
#define GW_MAX_CLASSES 50000	/* per direction; bounded by handle space */
#define GW_MAX_LISTEN 8
#define GW_MAX_ALLOWED_HOSTS 16
#define GW_COMPARE_DIR_DEFAULT "/var/lib/gatewayd/compare"
/* where gatewayd-cni registers containers (docs/cni.md); "cni/" beside it: state files */
#define GW_CONTROL_SOCKET_DEFAULT "/run/gatewayd/control.sock"
#define GW_CONTROL_SOCKET_MAX 107	/* a sockaddr_un's path, without its NUL */

/* A class's `match`: a list of groups, any of which classifies a packet into the class; each
 * group's keys must all match; a key given as a list matches any of its values. */
#define GW_MATCH_GROUPS_MAX 16	/* groups per class */
#define GW_MATCH_LIST_MAX 16	/* values per key */
#define GW_MATCH_RULES_MAX 64	/* rules one group expands into (the product of its lists) */
#define GW_CGROUP_PATH_MAX 256

struct gw_match {
	struct gw_prefix src[GW_MATCH_LIST_MAX], dst[GW_MATCH_LIST_MAX];
	struct gw_port_range sport[GW_MATCH_LIST_MAX], dport[GW_MATCH_LIST_MAX];
	uint8_t dscp[GW_MATCH_LIST_MAX];
	char iif[GW_MATCH_LIST_MAX][IFNAMSIZ], oif[GW_MATCH_LIST_MAX][IFNAMSIZ];
	uint8_t n_src, n_dst, n_sport, n_dport, n_dscp, n_iif, n_oif;
	int proto;		/* IP protocol number, -1: any */
	bool has_mark;
	uint32_t mark, mark_mask;
	char cgroup[GW_CGROUP_PATH_MAX];	/* "" or a path below the cgroup v2 root, no
						 * leading '/' */
	int line;
};

/* `hosts`: one class per address of a subnet, all created up front. */
#define GW_HOSTS_MAX 1024	/* addresses per direction: IPv4 /22, IPv6 /118 */

struct gw_hosts_cfg {
	bool present;
	struct gw_prefix subnet;
	uint64_t rate, ceil;	/* bytes/s, per host */
	struct gw_child child;
	size_t first, n;	/* the classes it became: dir->classes[first .. first + n) */
	int line;
};

struct gw_class_cfg {
	char name[GW_NAME_MAX];
	uint64_t rate;		/* bytes/s */
	uint64_t ceil;		/* bytes/s; defaults to the direction's rate */
	int64_t prio;		/* GW_UNSET or 0..7 */
	int64_t quantum;	/* GW_UNSET or bytes */
	int64_t burst;		/* GW_UNSET or bytes */
	int64_t cburst;		/* GW_UNSET or bytes */
	bool is_default;
	struct gw_child child;	/* kind GW_KIND_FQ_CODEL when the config gives none */
	struct gw_match *match;	/* NULL, or n_match groups (any of them) */
	size_t n_match;
	bool host;		/* made by `hosts`: the class of one address */
	struct gw_prefix host_addr;
	int line;
};

enum gw_direction { GW_DIR_EGRESS = 0, GW_DIR_INGRESS = 1 };

/* A direction's `autorate` (config/parse_autorate.c): the shaper's rate follows the line's
 * capacity between min and max, judged by the probes (gatewayd/autorate.c). Defaults and
 * bounds are in gatewayd.conf(5). */
struct gw_autorate_cfg {
	bool present;
	uint64_t min, base, max;	/* bytes/s; base defaults to the direction's rate */
	int64_t delay_threshold_us;	/* a sample over baseline by more is "bloated" */
	int bloat_samples, window;	/* bloat: at least bloat_samples of the last window */
	double cut;			/* on bloat: the achieved rate times cut */
	double raise;			/* loaded, no bloat: the rate times raise */
	double load_threshold;		/* "loaded": achieved >= load_threshold x rate */
	int64_t hold_us;		/* after a cut: no change for this long */
	int64_t raise_every_us;		/* at most one raise (or idle step) this often */
	int64_t idle_after_us;		/* unloaded this long: back towards base */
	int line;
};

struct gw_dir_cfg {
	bool present;
	enum gw_kind shaper;	/* GW_KIND_HTB, GW_KIND_TBF or GW_KIND_CAKE */
	uint64_t rate;		/* bytes/s */
	int64_t burst;		/* GW_UNSET or bytes: htb top class burst/cburst, tbf bucket */
	int64_t latency_us;	/* GW_UNSET or the tbf queue's latency target */
	struct gw_class_cfg *classes;	/* htb only; may be empty */
	size_t n_classes;
	struct gw_child child;	/* tbf's child; htb without classes: the default class's child;
				 * cake shaper: cake's own knobs (kind GW_KIND_CAKE);
				 * htb with classes: unused, kind GW_KIND_NONE */
	char ifb[IFNAMSIZ];	/* ingress only: the ifb device gatewayd creates */
	struct gw_hosts_cfg hosts;	/* htb egress only */
	struct gw_autorate_cfg autorate;
	int line;
};

struct gw_link_cfg {
	char name[GW_NAME_MAX];
	char interface[IFNAMSIZ];
	struct gw_sizing sizing;	/* overhead counted from the IP packet, as cake counts */
	bool replace;		/* may replace a root qdisc gatewayd did not create */
	bool required;		/* its interface must exist at start (else the link waits for
				 * it: gatewayd/heal.c) */
	struct gw_dir_cfg dir[2];	/* indexed by enum gw_direction */
	/* NULL, or the link's own `probe` block (its link is this link; no load-test keys):
	 * its samples judged against this link's load, its probes sent through this link */
	struct gw_probe_cfg *probe;
	int line;
};

/* The latency prober (probe/prober.c) and its load test (load/loadtest.c). */
#define GW_MAX_PROBE_TARGETS 16
#define GW_PROBE_HOST_MAX 64	/* a target or sink as written: IP literal, optional :port */
#define GW_PROBE_TOKEN_PATH_MAX 256	/* sink_token_file, with its NUL */
#define GW_PROBE_UDP_PORT 2112	/* the reflector's default port (gatewayd --reflect) */
#define GW_PROBE_SIZE_MIN 40	/* probe payload bytes: the probe header (docs/probe-protocol.md) */
#define GW_PROBE_SIZE_MAX 1472	/* a 1500-byte IPv4 packet */
#define GW_PROBE_SIZE_DEFAULT 64

/* icmp-timestamp: ICMP timestamp requests (RFC 792, IPv4 only), which give one-way delays */
enum gw_probe_method { GW_PROBE_ICMP = 0, GW_PROBE_UDP = 1, GW_PROBE_ICMP_TS = 2 };

struct gw_probe_target_cfg {
	char host[GW_PROBE_HOST_MAX];	/* as written, for messages and labels */
	struct sockaddr_storage addr;	/* IP literal; port set for udp (default 2112) */
	socklen_t addrlen;
	int line;
};

struct gw_probe_cfg {
	bool present;			/* the config has a probe block */
	enum gw_probe_method method;
	struct gw_probe_target_cfg targets[GW_MAX_PROBE_TARGETS];
	size_t n_targets;
	int64_t interval_us;		/* between probes to one target; default 100 ms */
	int64_t timeout_us;		/* a reply later than this is a loss; default 1 s */
	int64_t size;			/* probe payload bytes (ICMP data / UDP payload;
					 * icmp-timestamp's message is always 20 bytes) */
	char link[GW_NAME_MAX];		/* whose load samples are judged against (default:
					 * the first link); probes leave through its interface */
	int64_t fwmark;			/* GW_UNSET, or SO_MARK for multi-WAN policy routing */
	/* "" or the address the probes are sent from (an IP literal, bound before sending;
	 * the family of every target) */
	char source[GW_PROBE_HOST_MAX];
	struct sockaddr_storage source_addr;	/* port 0 */
	socklen_t source_addrlen;		/* 0: no source */

	/* active load test (--load-test, and the schedule) */
	char sink[GW_PROBE_HOST_MAX];	/* "" = none: the load test refuses to start */
	struct sockaddr_storage sink_addr;
	socklen_t sink_addrlen;
	char sink_token_file[GW_PROBE_TOKEN_PATH_MAX];	/* "" or an absolute path: the
							 * sink's token, read at each test */
	int64_t load_duration_us;	/* per direction; default 10 s */
	int64_t load_every_us;		/* 0 = only on demand */
	int load_flows;			/* TCP flows per direction; default 4 */
	int line;
};

/* Containers (config/parse_containers.c): interfaces that come and go, each given its own
 * limit in both directions while it exists (gatewayd/ctr_followed.c). */
#define GW_MAX_CONTAINER_RULES 64
/* the names of container ifbs ("gwc-" + an ifindex): no link's interface or ifb may take one */
#define GW_CTR_RESERVED_PREFIX "gwc-"
#define GW_CTR_MAX_GLOBS 16
#define GW_CTR_GLOB_MAX 32	/* an interface name pattern, with its NUL */
#define GW_CTR_NETNS_MAX 256	/* a netns name pattern or an absolute path pattern */

struct gw_ctr_dir_cfg {
	bool present;
	uint64_t rate;		/* bytes/s: the class's assured rate */
	uint64_t ceil;		/* bytes/s: the cap in force; defaults to rate */
	struct gw_child child;	/* kind GW_KIND_FQ_CODEL when the config gives none */
	int line;
};

struct gw_ctr_cfg {
	char globs[GW_CTR_MAX_GLOBS][GW_CTR_GLOB_MAX];	/* fnmatch(3) patterns on the name */
	size_t n_globs;
	/* "" = any namespace; else the peer's namespace must be one of the files this glob(3)
	 * pattern names: "/run/netns/" + netns when it has no '/', else netns itself */
	char netns[GW_CTR_NETNS_MAX];
	bool has_address;	/* the peer must carry an address in this prefix */
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* network byte order, host bits zero */
	int prefix_len;
	char address[64];	/* as written */
	struct gw_ctr_dir_cfg dir[2];	/* indexed by enum gw_direction */
	int line;
};

struct gw_config {
	char *file;
	char *listen[GW_MAX_LISTEN];
	struct sockaddr_storage listen_addr[GW_MAX_LISTEN];	/* listen[], parsed */
	socklen_t listen_addrlen[GW_MAX_LISTEN];
	size_t n_listen;
	int64_t interval_us;
	struct gw_link_cfg *links;
	size_t n_links;
	char *auth_file;	/* NULL, or an absolute path: basic auth for the web UI */
	/* the web UI's (config/parse_http.c): TLS files (both or neither), basic auth in clear
	 * only when said, the Host names it answers (none: localhost and the hostname), the
	 * failures before an address must wait, how long, and the bytes replies may hold */
	char *tls_cert, *tls_key;
	bool auth_plain_http;
	char *allowed_hosts[GW_MAX_ALLOWED_HOSTS];
	size_t n_allowed_hosts;
	unsigned int auth_fail_limit;
	int64_t auth_fail_backoff_us;
	size_t http_memory_max;
	/* where `gatewayd --compare` leaves its last results (results.json, the SVGs), shown
	 * read-only on the status page; an absolute path; NULL: GW_COMPARE_DIR_DEFAULT */
	char *compare_dir;
	/* the control socket, an absolute path; "" for none; NULL: GW_CONTROL_SOCKET_DEFAULT */
	char *control_socket;
	bool keep_on_stop;	/* leave the tree in the kernel when gatewayd stops */
	bool unconfigured;	/* `unconfigured = true`: no links, no containers, nothing shaped */
	struct gw_probe_cfg probe;
	struct gw_ctr_cfg *containers;	/* may be empty; links may then be empty too */
	size_t n_containers;
	/* gatewayd's nft table goes with this config's tree: true for a parsed config, false
	 * for the one-link configs containers are shaped with (they must not touch it) */
	bool owns_nft;
	/* a container's tree with subnets (tree/ctr_tree.c): its classes are sorted by
	 * u32 filters on the htb roots of both its devices, the interface and the ifb */
	bool classify_u32;
};

/*
 * Parse and validate FILE. On success returns 0 and *out owns a new config (free with
 * gw_config_free). On failure returns -EINVAL (or -ENOMEM, -ENOENT...) and writes
 * "FILE:LINE: message" (one line, no newline) into err.
 */
int gw_config_load(const char *file, struct gw_config **out, char *err, size_t errlen);
/* The same, from a string; name is used as FILE in messages. */
int gw_config_load_string(const char *name, const char *text, struct gw_config **out,
			  char *err, size_t errlen);
void gw_config_free(struct gw_config *cfg);

/* The probe block that judges links[link]: its own, else the global one when that names it,
 * else NULL (the link is not probed). */
const struct gw_probe_cfg *gw_config_probe_of(const struct gw_config *cfg, size_t link);

const char *gw_direction_name(enum gw_direction d);
/* The class made where the config names none: the only class of an htb direction without
 * classes, the rest of the line beside `hosts`' classes, a container's one class. It is the
 * default, named "default", with the given rates and child and every other knob unset. */
void gw_class_default(struct gw_class_cfg *c, uint64_t rate, uint64_t ceil,
		      const struct gw_child *child, int line);

/* A child queue given as libconfig text, `child = { kind = "fq_codel"; target = "5ms"; };`,
 * parsed and checked as a config file's child under shaper (config/parse_child.c); where names
 * it in messages, which carry no FILE:LINE. 0, or -EINVAL with the message in err. */
int gw_child_parse_text(const char *text, const char *where, enum gw_kind shaper,
			struct gw_child *out, char *err, size_t errlen);

/* Units (config/units.c). All return 0 or -EINVAL / -ERANGE. */
int gw_parse_rate(const char *s, uint64_t *bytes_per_s);	/* "20mbit", "1.5gbit", "12mbyte" */
int gw_parse_time(const char *s, int64_t *usec);		/* "5ms", "100us", "1s" */
int gw_parse_size(const char *s, int64_t *bytes);		/* "1514", "64k", "1.5m" */

/* Classification values (config/parse_match.c), for tests and messages. */
int gw_parse_prefix(const char *s, struct gw_prefix *out);	/* "10.0.0.0/8", "fd00::1" */
int gw_parse_dscp(const char *s, int *out);			/* "ef", "cs1", "af41", "le", "46" */

/*
 * A listen address, "127.0.0.1:9180" or "[::1]:9180" (IP literals only, port 1..65535),
 * into a socket address. addr may be NULL to only validate. Returns 0 or -EINVAL.
 */
int gw_parse_listen(const char *s, struct sockaddr_storage *addr, socklen_t *addrlen);

#endif
