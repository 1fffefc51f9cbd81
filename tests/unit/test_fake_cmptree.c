/* tests/unit/test_fake_cmptree.c: the bench's read-back of the gateway's tree for its metadata
 * (bench_read_tree, bench/sysinfo.c) against the in-memory kernel: the bench's own
 * tree on g1 and its ifb, every qdisc and class with the kernel's parameters, its direction
 * and the tc command that makes it; another device's objects left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "bench/run.h"
#include "bench/sysinfo.h"
#include "bench/testbed.h"
#include "tree/apply.h"
#include "tests/unit/fake_kernel.h"
#include "tests/unit/tap.h"

/* what the bench's run.c writes for fq_codel */
#define BENCH_CONF \
	"links = ( { name = \"wan\"; interface = \"" BENCH_GW_WAN "\";\n" \
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; child = { kind = \"fq_codel\"; target = \"5ms\"; }; };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"20mbit\"; ifb = \"" BENCH_GW_IFB "\";\n" \
	"    child = { kind = \"fq_codel\"; }; }; } );\n"

/* someone else's pfifo root on another device */
static void other_tree(struct fk *k)
{
	struct gw_tc_obj root = { .type = GW_OBJ_QDISC, .kind = GW_KIND_FIFO,
				  .ifindex = fk_ifindex(k, "v9"), .handle = 0x10000,
				  .parent = TC_H_ROOT };
	struct nl_msg *m = NULL;
	struct gw_nl *out;

	gw_qopts_init(GW_KIND_FIFO, &root.q);
	root.q.fifo.limit = 77;
	if (fk_open_outside(k, &out) == 0) {
		if (gw_obj_build(&root, NLM_F_CREATE | NLM_F_REPLACE, &m) == 0)
			CHECK(gw_nl_batch(out, &m, 1, true, NULL) == 0, "setup: a pfifo on v9");
		nlmsg_free(m);
		gw_nl_close(out);
	}
}

static const struct bench_tc *find(const struct bench_result *r, bool down, bool cls,
				   const char *kind)
{
	for (size_t i = 0; i < r->n_tc; i++)
		if (r->tc[i].down == down && r->tc[i].cls == cls && !strcmp(r->tc[i].kind, kind))
			return &r->tc[i];
	return NULL;
}

int main(void)
{
	struct gw_config *cfg = NULL;
	struct fk *k = fk_new();
	struct gw_applied a;
	struct gw_nl *nl;
	struct bench_result r;
	const struct bench_tc *t;
	char err[1024] = "";
	int ifidx[2];

	memset(&r, 0, sizeof(r));
	fk_link_add(k, BENCH_GW_WAN, "veth");
	fk_link_add(k, "v9", "veth");
	other_tree(k);
	if (gw_config_load_string("bench.conf", BENCH_CONF, &cfg, err, sizeof(err)))
		printf("# %s\n", err);
	if (!CHECK(cfg && !fk_open(k, &nl), "the bench's config and the kernel"))
		return tap_done();
	if (!CHECK(gw_apply(nl, cfg, NULL, &a, err, sizeof(err)) == 0, "applied (%s)", err))
		return tap_done();
	ifidx[0] = fk_ifindex(k, BENCH_GW_WAN);
	ifidx[1] = fk_ifindex(k, BENCH_GW_IFB);
	CHECK(bench_read_tree(nl, ifidx, &r) == 0, "read back");
	/* g1: htb root, its class(es), the leaf, the ingress hook; the ifb: htb, class(es), leaf */
	CHECK(r.n_tc >= 7 && r.n_tc <= BENCH_MAX_TC, "every object of the two devices (%zu)",
	      r.n_tc);
	for (size_t i = 0; i < r.n_tc; i++)
		printf("# %s %s\n", r.tc[i].down ? "down" : "up", r.tc[i].line);
	t = find(&r, false, false, "fq_codel");
	/* (this kernel keeps what was sent; a real one reports its defaults too: limit, ...) */
	CHECK(t && strstr(t->opts, "target 5ms"),
	      "the upload's fq_codel with the kernel's parameters (%s)", t ? t->opts : "none");
	CHECK(t && !strncmp(t->line, "tc qdisc add dev " BENCH_GW_WAN " parent ", 24) &&
	      strstr(t->line, " fq_codel "), "its tc command (%s)", t ? t->line : "none");
	t = find(&r, false, false, "htb");
	CHECK(t && t->parent == TC_H_ROOT && t->handle == GW_ROOT_HANDLE && strstr(t->opts, "default"),
	      "the upload's htb root (%s)", t ? t->opts : "none");
	t = find(&r, false, true, "htb");
	CHECK(t && strstr(t->opts, "rate 20mbit"), "an htb class at the rate (%s)", t ? t->opts : "none");
	CHECK(find(&r, false, false, "ingress") != NULL, "the ingress hook on " BENCH_GW_WAN);
	t = find(&r, true, false, "fq_codel");
	CHECK(t && !strncmp(t->line, "tc qdisc add dev " BENCH_GW_IFB, 24), "the download's fq_codel on the ifb");
	CHECK(find(&r, true, false, "htb") && find(&r, true, true, "htb"), "the ifb's htb and class");
	CHECK(!find(&r, false, false, "pfifo") && !find(&r, true, false, "pfifo"),
	      "another device's qdisc is not the gateway's");
	gw_applied_free(&a);
	gw_nl_close(nl);
	gw_config_free(cfg);
	fk_free(k);
	return tap_done();
}
