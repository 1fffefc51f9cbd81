/* qdisc/knob.h: table-driven encode/decode/compare/format for a kind's options from its key
 * table (qdisc/kind.h): what most kinds' files need and none should write again. */
#ifndef GW_QDISC_KNOB_H
#define GW_QDISC_KNOB_H

#include <stddef.h>
#include "qdisc/qdisc.h"

/* A key of a member of union gw_qopts (f: its field type) or of knob[i]. */
#define GW_KEY_AT(member, f) .off = offsetof(union gw_qopts, member), .field = (f)
#define GW_KEY_KNOB(i) .off = offsetof(union gw_qopts, knob) + (i) * sizeof(int64_t), \
	.field = GW_KF_INT64

/* Every key that is set and has an attribute, and only those, in one TCA_OPTIONS nest. */
int gw_keys_encode(struct nl_msg *msg, const union gw_qopts *o, const struct gw_key *k,
		   size_t n);
/* Put a key's value on the wire as its attribute (for kinds that build their own nest). */
int gw_key_put(struct nl_msg *msg, const struct gw_key *k, int64_t v);
int gw_keys_decode(const struct nlattr *opts, union gw_qopts *o, const struct gw_key *k,
		   size_t n, int maxattr);
/* Keys the caller left unset are the kernel's business and never differ. */
int gw_keys_same(const union gw_qopts *want, const union gw_qopts *got, const struct gw_key *k,
		 size_t n);
/* " word value" for each set key with a tc word, in table order; length or -ENOSPC. */
int gw_keys_format(char *buf, size_t len, const union gw_qopts *o, const struct gw_key *k,
		   size_t n);
/* Every key unset (init). */
void gw_keys_init(union gw_qopts *o, const struct gw_key *k, size_t n);

#endif
