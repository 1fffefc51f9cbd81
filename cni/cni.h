/* cni/cni.h: gatewayd-cni, the chained CNI plugin: a runtime's request (the CNI_*
 * environment and the network config on stdin), the spec's error codes, and each command's
 * work in the kernel. parse.c and env.c hold no kernel and are unit-tested; shape.c does the
 * kernel's part with the daemon's own tree code; main.c is the program. */
#ifndef GW_CNI_H
#define GW_CNI_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qdisc/model.h"
#include "tree/ctr_registration.h"

struct json_object;

/* The spec's well-known error codes (CNI spec, "Well-known Error Codes"), then ours (100+). */
#define GW_CNI_E_VERSION 1	/* incompatible CNI version */
#define GW_CNI_E_FIELD 2	/* unsupported field in the network configuration */
#define GW_CNI_E_UNKNOWN 3	/* container unknown or does not exist */
#define GW_CNI_E_ENV 4		/* invalid necessary environment variables */
#define GW_CNI_E_IO 5		/* I/O failure (reading stdin) */
#define GW_CNI_E_DECODE 6	/* failed to decode content (not JSON) */
#define GW_CNI_E_CONFIG 7	/* invalid network config */
#define GW_CNI_E_KERNEL 100	/* the kernel refused the tree, or could not be asked */
#define GW_CNI_E_CHECK 101	/* CHECK: the tree in the kernel is not the configured one */
#define GW_CNI_E_NOHOST 102	/* no host end of the container's interface to shape */

#define GW_CNI_STDIN_MAX (1024 * 1024)	/* network config with prevResult, bytes */
#define GW_CNI_JSON_DEPTH 16		/* nesting json-c accepts */
#define GW_CNI_ID_MAX 255		/* CNI_CONTAINERID, characters */
#define GW_CNI_NAME_MAX 128		/* the network's name, characters */
#define GW_CNI_VERSION_MAX 16
#define GW_CNI_HOST_IFACES 64		/* prevResult interfaces looked at */
#define GW_CNI_QUEUE_KEYS 32		/* knobs in "queue" */
#define GW_CNI_QUEUE_TEXT 2048		/* "queue" as libconfig text */
/* where a running gatewayd listens for registrations (controlSocket), and beside it the
 * directory of the state files a daemon started later adopts from (docs/cni.md) */
#define GW_CNI_CONTROL_SOCKET "/run/gatewayd/control.sock"

/* Bursts, in bits as runtimes give them. Kubelet, containerd and CRI-O send 2^31-1, 2^32-1 and
 * 2^35-9 bits (math.MaxInt32, MaxUint32, MaxUint32*8-1) when a pod's annotation gives only a
 * rate: at or above GW_CNI_BURST_ANY, a burst means "none given" and gatewayd derives one.
 * From GW_CNI_BURST_TOO_BIG on (4 GB) it is refused, as the reference bandwidth plugin does. */
#define GW_CNI_BURST_MIN 12000ULL		/* one 1500-byte packet */
#define GW_CNI_BURST_ANY 2147483647ULL
#define GW_CNI_BURST_TOO_BIG (4294967295ULL * 8)

enum gw_cni_cmd { GW_CNI_ADD, GW_CNI_DEL, GW_CNI_CHECK, GW_CNI_VERSION };

struct gw_cni_error {
	int code;
	char msg[256];
	char details[1024];
};

/* CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS and CNI_IFNAME, checked. */
struct gw_cni_env {
	enum gw_cni_cmd cmd;
	char container_id[GW_CNI_ID_MAX + 1];
	char netns[PATH_MAX];	/* "" when not given (DEL may come without it) */
	char ifname[IFNAMSIZ];
};

/* One direction's limit: bytes/s (0: none) and burst in bytes (GW_UNSET: derived). */
struct gw_cni_limit {
	uint64_t rate;
	int64_t burst;
};

struct gw_cni_conf {
	char version[GW_CNI_VERSION_MAX];
	char name[GW_CNI_NAME_MAX + 1];
	/* as the reference bandwidth plugin means them: ingress is traffic into the container
	 * (the host veth's egress), egress traffic out of it (the host veth's ingress, through
	 * an ifb) */
	struct gw_cni_limit ingress, egress;
	struct gw_child queue;		/* fq_codel when the config names none */
	char queue_text[GW_CNI_QUEUE_TEXT];	/* the same as libconfig text; "" for the default */
	char control_socket[108];	/* the daemon's (sun_path's size); "" for none */
	struct json_object *root;	/* the whole config (owns prev) */
	struct json_object *prev;	/* prevResult, or NULL */
	char host_ifaces[GW_CNI_HOST_IFACES][IFNAMSIZ];	/* prevResult's, without a sandbox */
	size_t n_host_ifaces;
	/* unshapedSubnets (subnets_shaped false: these are not limited, the rest is) or
	 * shapedSubnets (true: only these are), from runtimeConfig.bandwidth when it gives
	 * either, else from the network config; at most GW_CTR_SUBNETS_MAX */
	struct gw_prefix subnets[GW_CTR_SUBNETS_MAX];
	size_t n_subnets;
	bool subnets_shaped;
};

/* The versions of the spec gatewayd-cni speaks, oldest first (VERSION prints them). */
extern const char *const gw_cni_versions[];
bool gw_cni_version_supported(const char *v);
/* <0, 0, >0 as a is older, the same, newer than b ("0.4.0" < "1.0.0"); both supported. */
int gw_cni_version_cmp(const char *a, const char *b);

/* env.c: the environment into struct gw_cni_env, its names and ids checked as the
 * registration message checks them (gw_ctr_reg_valid_ifname, gw_ctr_reg_valid_id: the spec's
 * rules). The getter is getenv in the program, a table in the tests. 0, or -EINVAL with e
 * filled (code 4, the variable's name in msg). */
int gw_cni_env_read(const char *(*get)(const char *name, void *arg), void *arg,
		    struct gw_cni_env *out, struct gw_cni_error *e);

/* parse.c: the network config (len bytes of text) for cmd. 0, or -EINVAL with e filled. On
 * success free with gw_cni_conf_free. */
int gw_cni_conf_parse(const char *text, size_t len, enum gw_cni_cmd cmd,
		      struct gw_cni_conf *out, struct gw_cni_error *e);
void gw_cni_conf_free(struct gw_cni_conf *c);
bool gw_cni_shapes(const struct gw_cni_conf *c);	/* a limit in either direction */
/* The ifb of (network, container, interface), "gwn-" and 11 hex digits of a hash of the
 * three, and the ifalias that marks it as this one's, "gatewayd:cni:" and 16: found again by
 * DEL and CHECK with no state kept between calls. */
void gw_cni_ifb_name(const char *network, const char *id, const char *ifname, char *buf,
		     size_t len);
void gw_cni_ifb_mark(const char *network, const char *id, const char *ifname, char *buf,
		     size_t len);
#define GW_CNI_IFB_PREFIX "gwn-"
#define GW_CNI_IFB_MARK "gatewayd:cni:"

/* printf-like into e (msg and details), returning -EINVAL for `return gw_cni_fail(...)`. */
int gw_cni_fail(struct gw_cni_error *e, int code, const char *msg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * shape.c: each command in the kernel of the namespace the plugin runs in (the host's), the
 * container's end found through CNI_NETNS. 0, or -errno with e filled.
 *
 * What ADD shaped (struct gw_cni_shaped) goes to a running gatewayd over its control socket
 * (register.c), with the request's names and limits.
 */
struct gw_cni_shaped {
	char host_if[IFNAMSIZ];		/* the host end, shaped */
	int host_ifindex;
	char ifb[IFNAMSIZ];		/* "" when egress is not limited */
};
int gw_cni_add(const struct gw_cni_env *env, const struct gw_cni_conf *c,
	       struct gw_cni_shaped *out, struct gw_cni_error *e);
int gw_cni_check(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		 struct gw_cni_error *e);
int gw_cni_del(const struct gw_cni_env *env, const struct gw_cni_conf *c,
	       struct gw_cni_error *e);

/*
 * register.c: the registration a running gatewayd is sent (docs/cni.md). fill: from the
 * request and, for register, what ADD shaped (sh; NULL for unregister). tell: 0 when the
 * daemon said ok, 1 when there is no daemon (no socket, nobody listening, controlSocket ""),
 * -errno with the daemon's answer or the failure in err. The state file, beside the socket in
 * "cni/", holds the same registration for a daemon started later: write 0 or -errno with err.
 * The socket's directory, "cni/" and the files are reached through directory fds only
 * (sys/rundir.c), and the daemon must be root or the directory's owner.
 */
void gw_cni_reg_fill(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		     const struct gw_cni_shaped *sh, enum gw_ctr_reg_op op, struct gw_ctr_reg *m);
int gw_cni_tell(const struct gw_cni_conf *c, const struct gw_ctr_reg *m, char *err,
		size_t errlen);
int gw_cni_state_write(const struct gw_cni_conf *c, const struct gw_ctr_reg *m, char *err,
		       size_t errlen);
void gw_cni_state_remove(const struct gw_cni_conf *c, const char *id, const char *ifname);

#endif
