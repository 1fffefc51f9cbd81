/* qdisc/knob.h: table-driven encode/decode/compare for qdiscs whose options are a nest of
 * scalar attributes (fq_codel, cake). A knob is a field of union gw_qopts and its attribute. */
#ifndef GW_QDISC_KNOB_H
#define GW_QDISC_KNOB_H

#include <stddef.h>
#include "qdisc/qdisc.h"

enum gw_knob_field { GW_KF_INT64, GW_KF_INT };	/* int64_t (GW_UNSET) or int (-1) */
enum gw_knob_wire { GW_KW_U32, GW_KW_S32, GW_KW_U64 };

struct gw_knob {
	int attr;
	size_t off;		/* offsetof(union gw_qopts, ...) */
	enum gw_knob_field field;
	enum gw_knob_wire wire;
	bool approx;		/* a time the kernel keeps in its own units: compare with gw_near */
};

#define GW_KNOB(a, member, f, w) { (a), offsetof(union gw_qopts, member), (f), (w), false }
#define GW_KNOB_TIME(a, member) \
	{ (a), offsetof(union gw_qopts, member), GW_KF_INT64, GW_KW_U32, true }

/* Value of a knob as int64, or GW_UNSET when not set. */
int64_t gw_knob_get(const union gw_qopts *o, const struct gw_knob *k);
void gw_knob_set(union gw_qopts *o, const struct gw_knob *k, int64_t v);
int gw_knobs_encode(struct nl_msg *msg, const union gw_qopts *o, const struct gw_knob *k,
		    size_t n);
int gw_knobs_decode(const struct nlattr *opts, union gw_qopts *o, const struct gw_knob *k,
		    size_t n, int maxattr);
int gw_knobs_same(const union gw_qopts *want, const union gw_qopts *got,
		  const struct gw_knob *k, size_t n);

#endif
