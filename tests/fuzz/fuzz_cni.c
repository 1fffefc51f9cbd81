/* tests/fuzz/fuzz_cni.c: libFuzzer target: what a container runtime hands gatewayd-cni, through
 * its parsers (cni/parse.c, env.c).
 *
 * Input: one byte, then the rest. Byte & 0x80: the rest is the environment, CNI_COMMAND,
 * CNI_CONTAINERID, CNI_NETNS and CNI_IFNAME separated by NULs (gw_cni_env_read). Otherwise
 * byte & 3 is the command (ADD, DEL, CHECK, VERSION) and the rest the network config on stdin
 * (gw_cni_conf_parse, on a copy of exactly the input).
 *
 * Checked, so a broken promise crashes: a refusal carries one of the codes the parser may give
 * (1, 2, 5, 6, 7; 4 for the environment) and a message, and holds nothing; an accepted config
 * has a supported version, a valid network name, rates in range or 0, bursts unset or of at
 * least one packet, a leaf kind as its queue, at most GW_CNI_HOST_IFACES valid host interface
 * names, at most GW_CTR_SUBNETS_MAX subnets, each a prefix of its family with the host bits
 * zero, and a prevResult where ADD and CHECK need one; the registration ADD would send the
 * daemon for it is one the daemon's decoder takes (the daemon never refuses what the plugin
 * accepted: one set of bounds); an accepted environment's names are what the spec allows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cni/cni.h"
#include "qdisc/qdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fields {
	const char *v[4];
};

static const char *field_get(const char *name, void *arg)
{
	static const char *const names[] = { "CNI_COMMAND", "CNI_CONTAINERID", "CNI_NETNS",
					     "CNI_IFNAME" };
	const struct fields *f = arg;

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return f->v[i];
	return NULL;
}

static void fuzz_env(const uint8_t *data, size_t size)
{
	char *copy = calloc(1, size + 1), *p;
	struct fields f = { { NULL, NULL, NULL, NULL } };
	struct gw_cni_env env;
	struct gw_cni_error e;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	p = copy;
	for (int i = 0; i < 4 && p < copy + size + 1; i++) {
		f.v[i] = p;
		p += strlen(p) + 1;
	}
	if (gw_cni_env_read(field_get, &f, &env, &e)) {
		if (e.code != GW_CNI_E_ENV || !e.msg[0])
			abort();
	} else if (env.cmd != GW_CNI_VERSION &&
		   (!gw_ctr_reg_valid_id(env.container_id, GW_CNI_ID_MAX) ||
		    !gw_ctr_reg_valid_ifname(env.ifname) ||
		    (env.netns[0] && env.netns[0] != '/') ||
		    (!env.netns[0] && env.cmd != GW_CNI_DEL))) {
		abort();
	}
	free(copy);
}

/* What ADD registers for c, through the daemon's decoder: taken, with the same limits. */
static void check_registration(const struct gw_cni_conf *c)
{
	static const struct gw_cni_env env = { .cmd = GW_CNI_ADD, .container_id = "fuzz-1",
					       .netns = "/run/netns/fuzz", .ifname = "eth0" };
	struct gw_cni_shaped sh = { .host_if = "veth0fuzz", .host_ifindex = 7 };
	char text[GW_CTR_REG_MAX + 1], err[300];
	struct gw_ctr_reg m, back;
	int n;

	if (!gw_cni_shapes(c))
		return;
	gw_ctr_reg_ifb_name(c->name, env.container_id, env.ifname, sh.ifb, sizeof(sh.ifb));
	if (!c->egress.rate)
		sh.ifb[0] = '\0';
	gw_cni_reg_fill(&env, c, &sh, GW_CTR_REG_REGISTER, &m);
	if ((n = gw_ctr_reg_encode(&m, text, sizeof(text))) < 0)
		return;	/* a queue's text at its bound, spelt out: may not fit, told apart */
	if (gw_ctr_reg_decode(text, (size_t)n, &back, err, sizeof(err))) {
		fprintf(stderr, "fuzz_cni: the daemon refuses what the plugin took: %s\n", err);
		abort();
	}
	if (back.ingress.rate != c->ingress.rate || back.egress.rate != c->egress.rate ||
	    back.ingress.burst != c->ingress.burst || back.egress.burst != c->egress.burst)
		abort();
}

static void check_conf(const struct gw_cni_conf *c, enum gw_cni_cmd cmd)
{
	const struct gw_cni_limit *l[2] = { &c->ingress, &c->egress };
	const struct gw_qdisc_ops *q = gw_qdisc_ops(c->queue.kind);

	if (!gw_cni_version_supported(c->version) || !c->root)
		abort();
	if (cmd == GW_CNI_VERSION)
		return;
	if (!gw_ctr_reg_valid_id(c->name, GW_CNI_NAME_MAX) || !q || !q->leaf)
		abort();
	for (int d = 0; d < 2; d++) {
		if (l[d]->rate && (l[d]->rate < GW_MIN_RATE || l[d]->rate > GW_MAX_RATE))
			abort();
		if (l[d]->burst != GW_UNSET && (l[d]->burst < 1500 || !l[d]->rate))
			abort();
	}
	if (c->n_host_ifaces > GW_CNI_HOST_IFACES)
		abort();
	for (size_t i = 0; i < c->n_host_ifaces; i++)
		if (!gw_ctr_reg_valid_ifname(c->host_ifaces[i]))
			abort();
	if ((cmd == GW_CNI_ADD || cmd == GW_CNI_CHECK) && !c->prev)
		abort();
	if (cmd == GW_CNI_ADD)
		check_registration(c);
	if (c->n_subnets > GW_CTR_SUBNETS_MAX)
		abort();
	for (size_t i = 0; i < c->n_subnets; i++) {
		const struct gw_prefix *p = &c->subnets[i];
		int bits = p->family == AF_INET ? 32 : p->family == AF_INET6 ? 128 : -1;

		if (bits < 0 || p->len > bits)
			abort();
		for (int b = p->len; b < 128; b++)
			if (p->addr[b / 8] & (0x80 >> (b % 8)))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum gw_cni_cmd cmds[] = { GW_CNI_ADD, GW_CNI_DEL, GW_CNI_CHECK,
						GW_CNI_VERSION };
	struct gw_cni_conf c;
	struct gw_cni_error e;
	enum gw_cni_cmd cmd;
	char *copy;
	int r;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		fuzz_env(data + 1, size - 1);
		return 0;
	}
	cmd = cmds[data[0] & 3];
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		abort();
	memcpy(copy, data + 1, size - 1);
	memset(&e, 0, sizeof(e));
	r = gw_cni_conf_parse(copy, size - 1, cmd, &c, &e);
	free(copy);
	if (r) {
		if (c.root || c.prev || !e.msg[0] ||
		    (e.code != GW_CNI_E_VERSION && e.code != GW_CNI_E_FIELD &&
		     e.code != GW_CNI_E_IO && e.code != GW_CNI_E_DECODE &&
		     e.code != GW_CNI_E_CONFIG) ||
		    !memchr(e.details, '\0', sizeof(e.details)))
			abort();
		return 0;
	}
	check_conf(&c, cmd);
	gw_cni_conf_free(&c);
	return 0;
}
