/* tests/fuzz/fuzz_ctrreg.c: libFuzzer target: what a peer of the daemon's control socket sends,
 * and what a state file of gatewayd-cni holds (tree/ctr_registration.c, docs/cni.md).
 *
 * Input: the message's bytes. gw_ctr_reg_complete on them, then gw_ctr_reg_decode on a copy of
 * exactly the input (ASan sees a read past it).
 *
 * Checked, so a broken promise crashes: where a message ends is within it and after a blank
 * line; a refusal is -EINVAL or -EPROTONOSUPPORT with a one-line message; an accepted message
 * ends at its blank line, its names are valid ids and interface names, a register's rates are
 * not both 0, each 0 or within gatewayd-cni's bounds (1000 to 12.5e12 bytes/s) and its burst
 * derived or within them (1500 to 268435455 bytes, and no longer than htb holds at the rate),
 * its ifb is the one its name gives (or none), its subnets (at most 64, each a prefix of its
 * family with the host bits zero) only in a register, its tree can be built, and it encodes
 * to text that decodes to the same fields. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "tree/ctr_registration.h"
#include "qdisc/qdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const struct gw_ctr_reg *a, const struct gw_ctr_reg *b)
{
	return a->op == b->op && !strcmp(a->id, b->id) && !strcmp(a->netns, b->netns) &&
	       !strcmp(a->network, b->network) && !strcmp(a->ifname, b->ifname) &&
	       !strcmp(a->host_if, b->host_if) && a->host_ifindex == b->host_ifindex &&
	       a->host_netns == b->host_netns && !strcmp(a->ifb, b->ifb) &&
	       a->ingress.rate == b->ingress.rate && a->ingress.burst == b->ingress.burst &&
	       a->egress.rate == b->egress.rate && a->egress.burst == b->egress.burst &&
	       !strcmp(a->queue, b->queue) && a->n_subnets == b->n_subnets &&
	       (!a->n_subnets || a->subnets_shaped == b->subnets_shaped) &&
	       !memcmp(a->subnets, b->subnets, a->n_subnets * sizeof(a->subnets[0]));
}

/* A prefix as the tree takes it: a family, a length within it, no host bits. */
static bool prefix_ok(const struct gw_prefix *p)
{
	int bits = p->family == AF_INET ? 32 : p->family == AF_INET6 ? 128 : -1;

	if (bits < 0 || p->len > bits)
		return false;
	for (int b = p->len; b < 128; b++)
		if (p->addr[b / 8] & (0x80 >> (b % 8)))
			return false;
	return true;
}

/* The plugin's bounds, spelt out again here rather than through gw_ctr_limit_check. */
static bool limit_ok(const struct gw_ctr_reg_limit *l)
{
	if (!l->rate)
		return l->burst == GW_UNSET;
	if (l->rate < 1000 || l->rate > 12500000000000ULL)
		return false;
	if (l->burst == GW_UNSET)
		return true;
	return l->burst >= 1500 && l->burst <= 268435455 &&
	       (double)l->burst / (double)l->rate < 4294967295.0 * 64e-9;
}

static void check_accepted(const struct gw_ctr_reg *m)
{
	char text[GW_CTR_REG_MAX + 1], err[300], want[IFNAMSIZ];
	struct gw_ctr_reg back;
	struct gw_ctr_synth s;
	int n;

	if (!gw_ctr_reg_valid_id(m->id, GW_CTR_REG_ID_MAX) ||
	    !gw_ctr_reg_valid_id(m->network, GW_CTR_REG_NAME_MAX) ||
	    !gw_ctr_reg_valid_ifname(m->ifname) || (m->netns[0] && m->netns[0] != '/') ||
	    m->n_subnets > GW_CTR_SUBNETS_MAX ||
	    (m->n_subnets && m->op != GW_CTR_REG_REGISTER))
		abort();
	for (size_t i = 0; i < m->n_subnets; i++)
		if (!prefix_ok(&m->subnets[i]))
			abort();
	if (m->op == GW_CTR_REG_REGISTER) {
		if (!gw_ctr_reg_valid_ifname(m->host_if) || m->host_ifindex <= 0 ||
		    (!m->ingress.rate && !m->egress.rate) || !m->netns[0] ||
		    !limit_ok(&m->ingress) || !limit_ok(&m->egress))
			abort();
		gw_ctr_reg_ifb_name(m->network, m->id, m->ifname, want, sizeof(want));
		if (m->egress.rate ? strcmp(m->ifb, want) : m->ifb[0] != '\0')
			abort();
		if (gw_ctr_reg_synth(m, &s, err, sizeof(err)))
			abort();
		gw_ctr_synth_free(&s);
	} else if (m->op != GW_CTR_REG_UNREGISTER || m->host_if[0] || m->ifb[0]) {
		abort();
	}
	n = gw_ctr_reg_encode(m, text, sizeof(text));
	if (n < 0)
		return;	/* at most the decoder's bound, with names spelt out again: may not fit */
	if (gw_ctr_reg_decode(text, (size_t)n, &back, err, sizeof(err)) || !same(m, &back))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), err[300];
	struct gw_ctr_reg m;
	size_t whole;
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	whole = gw_ctr_reg_complete(copy, size);
	if (whole > size || (whole > 1 && (copy[whole - 1] != '\n' || copy[whole - 2] != '\n')))
		abort();
	err[0] = '\0';
	r = gw_ctr_reg_decode(copy, size, &m, err, sizeof(err));
	if (r) {
		if ((r != -EINVAL && r != -EPROTONOSUPPORT) || !err[0] || strchr(err, '\n'))
			abort();
	} else {
		if (whole != size)
			abort();
		check_accepted(&m);
	}
	free(copy);
	return 0;
}
