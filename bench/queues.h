/* bench/queues.h: the queues a run can compare (queues.c): the registry's, in one list, and
 * --qdiscs' each with its knobs; --rate read. */
#ifndef GW_BENCH_QUEUES_H
#define GW_BENCH_QUEUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "webui/benchfile.h"

/* The qdiscs a run can compare: every leaf kind the registry has, as a child under gatewayd's
 * htb, then every kind that shapes by itself, as the root ("cake-shaper"). A queue is its
 * index in that list (bench_queue()). */
enum bench_qdisc { BENCH_Q_COUNT = 16 };

struct gw_qdisc_ops;
struct bench_queue {
	char name[GW_BENCH_QDISC_MAX];	/* "fq_codel", "cake-shaper" */
	const struct gw_qdisc_ops *ops;	/* the child's kind, or the shaper's */
	bool shaper;			/* it shapes by itself, at the root */
};
/* The q-th queue, NULL past the last. */
const struct bench_queue *bench_queue(enum bench_qdisc q);

/* One queue of --qdiscs as given: its kind, its knobs (queues.c). */
#define BENCH_KNOBS_MAX 320
#define BENCH_QDISCS_TEXT_MAX 1024	/* --qdiscs' whole text */
struct bench_pick {
	enum bench_qdisc q;
	char label[GW_BENCH_LABEL_MAX];	/* "fq_codel:target=2ms:quantum=300": its column */
	char knobs[BENCH_KNOBS_MAX];	/* the child block's keys, libconfig text: `target =
					 * "2ms"; quantum = 300L;` ("" for none) */
	/* -c CONFIG (config_link.c): the run is the config's own link, as written or with q in
	 * every leaf; conf is the daemon's whole config (malloc'd). NULL: the bench's tree */
	bool own;
	char *conf;
	uint32_t needs;			/* the queues (bits by enum bench_qdisc) whose kinds the
					 * run's tree needs; 0: q's alone */
};

const char *bench_qdisc_name(enum bench_qdisc q);

/* --qdiscs: queues (at most max) with their knobs, `fq_codel:target=2ms:quantum=300`
 * (a KEY=VALUE after a comma is one more knob of the queue before it), each checked both ways
 * by the config's child parser. 0, or -EINVAL with the message in err. */
int bench_parse_qdiscs(const char *list, struct bench_pick *out, size_t max, size_t *n, char *err,
		       size_t errlen);
/* --rate: "20mbit" (both ways) or "40mbit/10mbit" (down/up), 100kbit..1gbit each: bytes/s
 * into rate ([0] up, [1] down), each one's text into text. 0 or -EINVAL. */
int bench_parse_rates(const char *s, uint64_t rate[2], char text[2][32]);
/* A rate in bits/s as --rate and the config take it ("8mbit", "500kbit", "1234bit") or, with
 * words, for a reader ("8 Mbit/s", "500 kbit/s", "1234 bit/s"). */
void bench_rate_text(char *buf, size_t len, int64_t bps, bool words);
/* The child block's settings of queue x with the user's knobs, and the kind's bench settings
 * the knobs do not override (on the ifb, its ingress ones too): `kind = "fifo"; limit = 1000;` */
void bench_child_text(const struct bench_queue *x, const char *knobs, bool ingress, char *buf,
		      size_t len);
struct bench_result;
/* A run's column: its label, or its queue's name. */
const char *bench_result_label(const struct bench_result *r);
/* The label as a file name part: fq_codel:target=2ms is "fq_codel_target-2ms". */
void bench_label_file(const struct bench_result *r, char *buf, size_t len);

#endif
