/* qdisc/model.h: the shaping tree as plain data, shared by config/, qdisc/ and gatewayd/. */
#ifndef GW_QDISC_MODEL_H
#define GW_QDISC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

/* "Not set by the user": encoders leave the attribute out so the kernel default stays. */
#define GW_UNSET INT64_MIN	/* never a valid value: overheads can be negative */

/* Rates the config takes (and kinds' rate keys): 8 kbit to 100 tbit, in bytes/s. */
#define GW_MIN_RATE 1000ULL
#define GW_MAX_RATE 12500000000000ULL

/* A qdisc kind is its index in the registry (qdisc/registry.c), which maps it to its ops. The
 * kinds named here are the ones the tree's structure needs by name; a kind the registry lists
 * past them (sfq, pie) has an index and no name in any shared header. */
enum gw_kind {
	GW_KIND_NONE = 0,
	GW_KIND_FIFO,
	GW_KIND_FQ_CODEL,
	GW_KIND_CAKE,
	GW_KIND_HTB,
	GW_KIND_TBF,
	GW_KIND_INGRESS,
};
#define GW_KIND_MAX 16		/* room in the registry */
#define GW_QOPT_KNOBS 16	/* int64 knobs of a kind that keeps its options in knob[] */

enum gw_linklayer {
	GW_LL_ETHERNET = 0,
	GW_LL_ATM,
	GW_LL_PTM,
};

/* Link-layer accounting: a size table for htb/tbf, cake's own keys for cake. */
struct gw_sizing {
	bool set;		/* false: no overhead compensation at all */
	int32_t overhead;	/* bytes added to every packet (may be negative) */
	int32_t mpu;		/* minimum packet unit, bytes (0 = none) */
	enum gw_linklayer linklayer;
};

struct gw_fifo_opts {
	int64_t limit;		/* packets (pfifo) or bytes (bfifo); GW_UNSET: kernel default */
	bool bytes;		/* true: limit is in bytes, kind is bfifo */
};

struct gw_fq_codel_opts {
	int64_t limit;		/* packets */
	int64_t flows;
	int64_t target_us;
	int64_t interval_us;
	int64_t quantum;	/* bytes */
	int64_t ce_threshold_us;
	int64_t memory_limit;	/* bytes */
	int ecn;		/* -1 unset, 0 off, 1 on */
};

/* Values of the enums below are the kernel's (linux/pkt_sched.h). */
struct gw_cake_opts {
	int64_t bandwidth;	/* bytes/s; GW_UNSET: absent (unlimited); 0: explicitly unlimited */
	int diffserv;		/* CAKE_DIFFSERV_*, -1 unset */
	int flow_mode;		/* CAKE_FLOW_*, -1 unset */
	int nat, wash, split_gso, ingress;	/* -1 unset, 0, 1 */
	int ack_filter;		/* CAKE_ACK_*, -1 unset */
	int64_t rtt_us;
	/* Overhead keys, filled from the link's sizing where cake is the shaper or a child. */
	int atm;		/* CAKE_ATM_*, -1 unset */
	int64_t overhead;	/* GW_UNSET or bytes (s32 on the wire) */
	int64_t mpu;		/* GW_UNSET or bytes */
};

struct gw_htb_opts {
	uint32_t defcls;	/* minor of the default class, 0: unclassified traffic goes direct */
	int64_t r2q;
	int64_t direct_qlen;
};

struct gw_htb_class_opts {
	uint64_t rate;		/* bytes/s */
	uint64_t ceil;		/* bytes/s */
	int64_t burst;		/* bytes */
	int64_t cburst;		/* bytes */
	int64_t quantum;	/* bytes */
	int64_t prio;		/* 0..7 */
};

struct gw_tbf_opts {
	uint64_t rate;		/* bytes/s */
	int64_t burst;		/* bytes (bucket size) */
	int64_t limit;		/* bytes of queue */
	int64_t mtu;		/* bytes, GW_UNSET: device MTU is assumed by the kernel */
};

/* A kind's options. The kinds with a member here are the shapers the plan fills in and the
 * older leaves; any other kind keeps its knobs in knob[], indexed by its own key table. */
union gw_qopts {
	int64_t knob[GW_QOPT_KNOBS];
	struct gw_fifo_opts fifo;
	struct gw_fq_codel_opts fq_codel;
	struct gw_cake_opts cake;
	struct gw_htb_opts htb;
	struct gw_tbf_opts tbf;
};

/* A child (leaf) qdisc as the config describes it. */
struct gw_child {
	enum gw_kind kind;
	union gw_qopts opts;
	int line;		/* config line of the child block, 0 if defaulted */
};

/* An address prefix and a port range, as classification matches them (config/ and qdisc/). */
struct gw_prefix {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t len;		/* prefix length in bits */
	uint8_t addr[16];	/* network byte order; bits past len are zero */
};

/* Values as tc and the config spell them (qdisc/fmt.c): "20mbit", "5ms", exact forms. */
void gw_format_rate(uint64_t bytes_per_s, char *buf, size_t len);
void gw_format_time(int64_t usec, char *buf, size_t len);
/* "64k", "1m", "1500": the largest of g/m/k (x1024) that divides exactly, else bare bytes. */
void gw_format_size(int64_t bytes, char *buf, size_t len);

/* As text: "10.0.0.0/8", "fd00::1" (a host prefix without its length). qdisc/fmt.c */
void gw_format_prefix(const struct gw_prefix *p, char *buf, size_t len);

struct gw_port_range {
	uint16_t lo, hi;	/* host order, lo <= hi */
};

#endif
