/* tests/unit/test_qdisc.c: every kind's encoder, decoded back attribute by attribute (unset
 * knobs absent), the tc command lines, and the pieces of netlink plumbing that need no kernel. */
#include <errno.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <stdlib.h>
#include "qdisc/knob.h"
#include "qdisc/link.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"

static struct nlattr *tb[TCA_MAX + 1];
static struct nl_msg *cur;

/* Build obj into a message and split its top-level attributes into tb. */
static int build(const struct gw_tc_obj *o)
{
	if (cur)
		nlmsg_free(cur);
	cur = NULL;
	if (gw_obj_build(o, NLM_F_CREATE | NLM_F_EXCL, &cur))
		return -1;
	return nlmsg_parse(nlmsg_hdr(cur), sizeof(struct tcmsg), tb, TCA_MAX, NULL);
}

static struct gw_tc_obj qdisc(enum gw_kind k)
{
	struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .kind = k, .ifindex = 7,
			       .handle = GW_HANDLE(0x1000, 0), .parent = GW_HANDLE(0xE000, 0x10) };

	gw_qopts_init(k, &o.q);
	return o;
}

/* Parse the message back into an object of the same shape. */
static struct gw_tc_obj reparse(void)
{
	struct gw_tc_obj got;
	int r = gw_obj_parse(nlmsg_hdr(cur), &got, NULL, 0);

	CHECK(r == 0, "message parses back (%d)", r);
	return got;
}

static int count_nested(struct nlattr *nest)
{
	struct nlattr *a;
	int rem, n = 0;

	if (!nest)
		return -1;
	nla_for_each_nested(a, nest, rem)
		n++;
	return n;
}

static void test_fifo(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_FIFO), got;
	struct tc_fifo_qopt q;

	CHECK(build(&o) == 0, "fifo: builds");
	CHECK_EQ_STR(nla_get_string(tb[TCA_KIND]), "pfifo", "fifo: kind pfifo by default");
	CHECK(tb[TCA_OPTIONS] == NULL, "fifo: limit unset -> no options (kernel default)");
	o.q.fifo.limit = 100;
	build(&o);
	CHECK(tb[TCA_OPTIONS] && nla_len(tb[TCA_OPTIONS]) == sizeof(q), "fifo: options are a tc_fifo_qopt");
	memcpy(&q, nla_data(tb[TCA_OPTIONS]), sizeof(q));
	CHECK_EQ_INT(q.limit, 100, "fifo: limit 100 on the wire");
	o.q.fifo.bytes = true;
	o.q.fifo.limit = 65536;
	build(&o);
	CHECK_EQ_STR(nla_get_string(tb[TCA_KIND]), "bfifo", "fifo: byte limit -> bfifo");
	got = reparse();
	CHECK(got.kind == GW_KIND_FIFO && got.q.fifo.bytes && got.q.fifo.limit == 65536,
	      "fifo: bfifo 65536 round-trips");
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "fifo: matches itself");
}

static void test_fq_codel(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_FQ_CODEL), got;
	struct nlattr *t[TCA_FQ_CODEL_MAX + 1];
	struct { int attr; int64_t *field; int64_t v; } knobs[] = {
		{ TCA_FQ_CODEL_LIMIT, &o.q.fq_codel.limit, 10240 },
		{ TCA_FQ_CODEL_FLOWS, &o.q.fq_codel.flows, 2048 },
		{ TCA_FQ_CODEL_TARGET, &o.q.fq_codel.target_us, 7000 },
		{ TCA_FQ_CODEL_INTERVAL, &o.q.fq_codel.interval_us, 120000 },
		{ TCA_FQ_CODEL_QUANTUM, &o.q.fq_codel.quantum, 300 },
		{ TCA_FQ_CODEL_CE_THRESHOLD, &o.q.fq_codel.ce_threshold_us, 2500 },
		{ TCA_FQ_CODEL_MEMORY_LIMIT, &o.q.fq_codel.memory_limit, 33554432 },
	};

	build(&o);
	CHECK(tb[TCA_OPTIONS] == NULL, "fq_codel: nothing set -> no options (kernel defaults)");
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		struct gw_tc_obj one = qdisc(GW_KIND_FQ_CODEL);
		int64_t *f = (int64_t *)((char *)&one + ((char *)knobs[i].field - (char *)&o));

		*f = knobs[i].v;
		build(&one);
		nla_parse_nested(t, TCA_FQ_CODEL_MAX, tb[TCA_OPTIONS], NULL);
		CHECK(count_nested(tb[TCA_OPTIONS]) == 1 && t[knobs[i].attr] &&
		      nla_get_u32(t[knobs[i].attr]) == (uint32_t)knobs[i].v,
		      "fq_codel: knob attr %d alone on the wire with %lld", knobs[i].attr,
		      (long long)knobs[i].v);
		*knobs[i].field = knobs[i].v;
	}
	o.q.fq_codel.ecn = 0;
	build(&o);
	nla_parse_nested(t, TCA_FQ_CODEL_MAX, tb[TCA_OPTIONS], NULL);
	CHECK(t[TCA_FQ_CODEL_ECN] && nla_get_u32(t[TCA_FQ_CODEL_ECN]) == 0, "fq_codel: ecn off sent as 0");
	CHECK_EQ_INT(count_nested(tb[TCA_OPTIONS]), 8, "fq_codel: all eight knobs present");
	got = reparse();
	CHECK(got.q.fq_codel.target_us == 7000 && got.q.fq_codel.interval_us == 120000 &&
	      got.q.fq_codel.memory_limit == 33554432 && got.q.fq_codel.ecn == 0,
	      "fq_codel: every knob round-trips");
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "fq_codel: matches itself");
	got.q.fq_codel.target_us = 6999;	/* the kernel keeps CoDel times in its own units */
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "fq_codel: a target read back 1 us short matches");
	got.q.fq_codel.target_us = 7000;
	got.q.fq_codel.flows = 1024;
	CHECK(!gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "fq_codel: a different knob is a mismatch");
}

static void test_cake(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_CAKE), got;
	struct nlattr *t[TCA_CAKE_MAX + 1];

	build(&o);
	CHECK(tb[TCA_OPTIONS] == NULL, "cake: nothing set -> nothing sent");
	o.q.cake.bandwidth = (1LL << 32) + 5;	/* above 32 bits: rates are u64 */
	o.q.cake.overhead = -10;		/* s32 */
	o.q.cake.mpu = 64;
	o.q.cake.atm = CAKE_ATM_PTM;
	o.q.cake.diffserv = CAKE_DIFFSERV_DIFFSERV4;
	o.q.cake.flow_mode = CAKE_FLOW_DUAL_SRC;
	o.q.cake.nat = 1;
	o.q.cake.wash = 0;
	o.q.cake.ack_filter = CAKE_ACK_AGGRESSIVE;
	o.q.cake.rtt_us = 100000;
	o.q.cake.split_gso = 1;
	o.q.cake.ingress = 1;
	build(&o);
	nla_parse_nested(t, TCA_CAKE_MAX, tb[TCA_OPTIONS], NULL);
	CHECK(t[TCA_CAKE_BASE_RATE64] && nla_len(t[TCA_CAKE_BASE_RATE64]) == 8 &&
	      nla_get_u64(t[TCA_CAKE_BASE_RATE64]) == (1ULL << 32) + 5, "cake: bandwidth as u64");
	CHECK(t[TCA_CAKE_OVERHEAD] && nla_len(t[TCA_CAKE_OVERHEAD]) == 4 &&
	      (int32_t)nla_get_u32(t[TCA_CAKE_OVERHEAD]) == -10, "cake: overhead as s32 (-10)");
	CHECK(t[TCA_CAKE_DIFFSERV_MODE] && nla_get_u32(t[TCA_CAKE_DIFFSERV_MODE]) == CAKE_DIFFSERV_DIFFSERV4,
	      "cake: diffserv4");
	CHECK(t[TCA_CAKE_FLOW_MODE] && nla_get_u32(t[TCA_CAKE_FLOW_MODE]) == CAKE_FLOW_DUAL_SRC,
	      "cake: dual-srchost");
	CHECK(t[TCA_CAKE_WASH] && nla_get_u32(t[TCA_CAKE_WASH]) == 0, "cake: wash off is sent");
	CHECK(t[TCA_CAKE_RTT] && nla_get_u32(t[TCA_CAKE_RTT]) == 100000, "cake: rtt in us");
	CHECK(!t[TCA_CAKE_RAW] && !t[TCA_CAKE_AUTORATE] && !t[TCA_CAKE_MEMORY] && !t[TCA_CAKE_FWMARK],
	      "cake: knobs gatewayd does not set are absent");
	CHECK_EQ_INT(count_nested(tb[TCA_OPTIONS]), 12, "cake: twelve attributes");
	got = reparse();
	CHECK(got.q.cake.overhead == -10 && got.q.cake.bandwidth == (1LL << 32) + 5 &&
	      got.q.cake.ack_filter == CAKE_ACK_AGGRESSIVE && got.q.cake.atm == CAKE_ATM_PTM,
	      "cake: round-trips");
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "cake: matches itself");
}

static void test_htb(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_HTB), got;
	struct nlattr *t[TCA_HTB_MAX + 1];
	struct tc_htb_glob g;
	struct tc_htb_opt opt;

	o.handle = GW_ROOT_HANDLE;
	o.parent = TC_H_ROOT;
	o.q.htb.defcls = 0x12;
	build(&o);
	nla_parse_nested(t, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL);
	memcpy(&g, nla_data(t[TCA_HTB_INIT]), sizeof(g));
	CHECK(g.version == 3 && g.rate2quantum == 10 && g.defcls == 0x12,
	      "htb: INIT version 3, r2q 10, default 0x12");
	CHECK(!t[TCA_HTB_DIRECT_QLEN], "htb: direct_qlen absent unless set");
	got = reparse();
	CHECK(got.q.htb.defcls == 0x12, "htb: default class round-trips");

	/* classes */
	o = (struct gw_tc_obj){ .type = GW_OBJ_CLASS, .kind = GW_KIND_HTB, .ifindex = 3,
				.handle = GW_HANDLE(0xE000, 0x10), .parent = GW_HANDLE(0xE000, 1) };
	o.cls = (struct gw_htb_class_opts){ .rate = 1250000, .ceil = 12500000, .burst = 12500,
					    .cburst = 125000, .quantum = 12500, .prio = 3 };
	build(&o);
	CHECK_EQ_STR(nla_get_string(tb[TCA_KIND]), "htb", "htb class: kind htb");
	nla_parse_nested(t, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL);
	memcpy(&opt, nla_data(t[TCA_HTB_PARMS]), sizeof(opt));
	CHECK(opt.rate.rate == 1250000 && opt.ceil.rate == 12500000, "htb class: rates in the parms");
	CHECK(opt.rate.linklayer == TC_LINKLAYER_ETHERNET, "htb class: ethernet linklayer (no rate table)");
	CHECK(!t[TCA_HTB_RATE64] && !t[TCA_HTB_CEIL64] && !t[TCA_HTB_RTAB],
	      "htb class: no RATE64 below 2^32, no rate table");
	CHECK_EQ_INT(opt.buffer, 10000 * 1000 / 64, "htb class: 12500 B at 10 Mbit = 10 ms in 64 ns ticks");
	CHECK(opt.quantum == 12500 && opt.prio == 3, "htb class: quantum and prio");
	got = reparse();
	CHECK(got.type == GW_OBJ_CLASS && got.cls.rate == 1250000 && got.cls.ceil == 12500000 &&
	      gw_near(12500, got.cls.burst) && gw_near(125000, got.cls.cburst),
	      "htb class: round-trips (bursts within rounding)");
	got.cls.quantum = 50000;	/* htb keeps the quantum it had as a leaf */
	CHECK(!gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "htb class: a leaf's quantum is checked");
	o.inner = true;
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "htb class: an inner class's quantum is not");
	o.inner = false;
	o.cls.rate = 5000000000ULL;	/* 40 gbit */
	o.cls.ceil = 6000000000ULL;
	build(&o);
	nla_parse_nested(t, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL);
	memcpy(&opt, nla_data(t[TCA_HTB_PARMS]), sizeof(opt));
	CHECK(t[TCA_HTB_RATE64] && nla_get_u64(t[TCA_HTB_RATE64]) == 5000000000ULL &&
	      t[TCA_HTB_CEIL64] && nla_get_u64(t[TCA_HTB_CEIL64]) == 6000000000ULL &&
	      opt.rate.rate == UINT32_MAX, "htb class: RATE64/CEIL64 at 2^32 B/s and above");
	got = reparse();
	CHECK(got.cls.rate == 5000000000ULL, "htb class: 64-bit rate round-trips");
}

static void test_tbf(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_TBF), got;
	struct nlattr *t[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt q;

	CHECK(build(&o) != 0, "tbf: refuses to encode without rate, burst and limit");
	o.q.tbf.rate = 2500000;
	o.q.tbf.burst = 2500;
	o.q.tbf.limit = 52500;
	CHECK(build(&o) == 0, "tbf: builds");
	nla_parse_nested(t, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL);
	memcpy(&q, nla_data(t[TCA_TBF_PARMS]), sizeof(q));
	CHECK(q.rate.rate == 2500000 && q.limit == 52500, "tbf: rate and limit in the parms");
	CHECK(t[TCA_TBF_BURST] && nla_get_u32(t[TCA_TBF_BURST]) == 2500, "tbf: burst in bytes");
	CHECK(!t[TCA_TBF_RATE64] && !t[TCA_TBF_PTAB] && !t[TCA_TBF_RTAB], "tbf: no RATE64 or tables");
	got = reparse();
	CHECK(gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "tbf: round-trips");
	o.q.tbf.rate = 1ULL << 33;
	build(&o);
	nla_parse_nested(t, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL);
	CHECK(t[TCA_TBF_RATE64] && nla_get_u64(t[TCA_TBF_RATE64]) == 1ULL << 33, "tbf: RATE64 at 2^33");
}

static void test_stab(void)
{
	struct gw_sizing eth = { .set = true, .overhead = 18, .linklayer = GW_LL_ETHERNET };
	struct gw_sizing atm = { .set = true, .overhead = 40, .mpu = 64, .linklayer = GW_LL_ATM };
	struct gw_sizing ptm = { .set = true, .overhead = 27, .linklayer = GW_LL_PTM };
	struct gw_tc_obj o = qdisc(GW_KIND_TBF), got;
	struct nlattr *st[TCA_STAB_MAX + 1];
	struct tc_sizespec s;
	uint16_t *data;

	CHECK_EQ_INT(gw_wire_size(&atm, 1500), 1749, "ATM: 1500 + 40 -> 33 cells of 53 (sqm: 1749)");
	CHECK_EQ_INT(gw_wire_size(&atm, 10), 106, "ATM: mpu 64 -> 2 cells");
	CHECK_EQ_INT(gw_wire_size(&ptm, 1500), 1551, "PTM: (1500 + 27) x 65/64 rounded up");
	CHECK_EQ_INT(gw_wire_size(&eth, 1500), 1518, "ethernet: 1500 + 18");
	o.q.tbf = (struct gw_tbf_opts){ .rate = 125000, .burst = 2000, .limit = 5000 };
	o.stab = eth;
	o.stab_overhead = 4;
	build(&o);
	CHECK(tb[TCA_STAB] != NULL, "stab: present when sizing is set");
	nla_parse_nested(st, TCA_STAB_MAX, tb[TCA_STAB], NULL);
	memcpy(&s, nla_data(st[TCA_STAB_BASE]), sizeof(s));
	CHECK(s.overhead == 4 && s.tsize == 0 && !st[TCA_STAB_DATA],
	      "stab: plain ethernet overhead needs no table");
	o.stab = atm;
	o.stab_overhead = 26;
	build(&o);
	nla_parse_nested(st, TCA_STAB_MAX, tb[TCA_STAB], NULL);
	memcpy(&s, nla_data(st[TCA_STAB_BASE]), sizeof(s));
	CHECK(s.tsize == 2048 && s.cell_log == 0 && s.linklayer == TC_LINKLAYER_ATM &&
	      st[TCA_STAB_DATA] && nla_len(st[TCA_STAB_DATA]) == 4096, "stab: ATM table of 2048 cells");
	data = nla_data(st[TCA_STAB_DATA]);
	CHECK(data[1540] == 1749 && data[48] == 106 && data[10] == 106,
	      "stab: table maps wire size to cells (1540 -> 1749, small -> mpu -> 106)");
	got = reparse();
	CHECK(got.stab.set && got.stab_overhead == 26 && got.stab.mpu == 64, "stab: base round-trips");
	o.stab.set = false;
	build(&o);
	CHECK(tb[TCA_STAB] == NULL, "stab: absent without sizing");
}

static void test_filter(void)
{
	struct gw_tc_obj o = { .type = GW_OBJ_FILTER, .ifindex = 4, .parent = GW_INGRESS_HANDLE,
			       .redirect_ifindex = 9 }, got;
	const struct tcmsg *t;

	CHECK(build(&o) == 0, "redirect: builds");
	t = nlmsg_data(nlmsg_hdr(cur));
	CHECK(TC_H_MAJ(t->tcm_info) >> 16 == GW_FILTER_PRIO &&
	      TC_H_MIN(t->tcm_info) == htons(ETH_P_ALL), "redirect: prio and protocol all");
	CHECK_EQ_STR(nla_get_string(tb[TCA_KIND]), "u32", "redirect: u32");
	got = reparse();
	CHECK_EQ_INT(got.redirect_ifindex, 9, "redirect: mirred target round-trips");
}

static void test_format(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_FQ_CODEL);
	char buf[512];

	o.q.fq_codel.target_us = 7000;
	o.q.fq_codel.ecn = 1;
	gw_obj_format_tc(&o, "eth0", NULL, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "tc qdisc add dev eth0 parent e000:10 handle 1000: fq_codel target 7ms ecn",
		     "format: fq_codel");
	o = qdisc(GW_KIND_CAKE);
	o.handle = GW_ROOT_HANDLE;
	o.parent = TC_H_ROOT;
	o.q.cake.bandwidth = 2500000;
	o.q.cake.diffserv = CAKE_DIFFSERV_BESTEFFORT;
	o.q.cake.nat = 1;
	o.q.cake.overhead = 18;
	o.q.cake.mpu = 64;
	gw_obj_format_tc(&o, "eth0", NULL, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "tc qdisc add dev eth0 root handle e000: cake bandwidth 20mbit besteffort nat overhead 18 mpu 64",
		     "format: cake");
	o = (struct gw_tc_obj){ .type = GW_OBJ_CLASS, .kind = GW_KIND_HTB,
				.handle = GW_HANDLE(0xE000, 0x11), .parent = GW_HANDLE(0xE000, 1) };
	o.cls = (struct gw_htb_class_opts){ .rate = 1250000, .ceil = 2500000, .burst = 1514,
					    .cburst = 2500, .quantum = GW_UNSET, .prio = GW_UNSET };
	gw_obj_format_tc(&o, "v0", NULL, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "tc class add dev v0 parent e000:1 classid e000:11 htb rate 10mbit ceil 20mbit burst 1514 cburst 2500",
		     "format: htb class");
	o = (struct gw_tc_obj){ .type = GW_OBJ_FILTER, .parent = GW_INGRESS_HANDLE };
	gw_obj_format_tc(&o, "wan", "ifb-wan", buf, sizeof(buf));
	CHECK(strstr(buf, "u32 match u32 0 0 action mirred egress redirect dev ifb-wan") != NULL,
	      "format: redirect");
	CHECK(gw_obj_format_tc(&o, "wan", "ifb-wan", buf, 20) == -ENOSPC, "format: a short buffer is -ENOSPC");
}

/* An NLMSG_ERROR as the kernel sends it with NETLINK_EXT_ACK and NETLINK_CAP_ACK. */
static void test_extack(void)
{
	char buf[256] = { 0 }, msg[GW_EXTACK_MAX];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(h);
	struct nlattr *a = (struct nlattr *)(buf + NLMSG_LENGTH(sizeof(*e)));
	const char *text = "Specified qdisc kind is unknown";

	a->nla_type = NLMSGERR_ATTR_MSG;
	a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(text) + 1);
	memcpy((char *)a + NLA_HDRLEN, text, strlen(text) + 1);
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	h->nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(*e)) + NLA_ALIGN(a->nla_len));
	e->error = -ENOENT;
	e->msg.nlmsg_len = 100;
	CHECK_EQ_INT(gw_nl_parse_error(h, sizeof(buf), msg, sizeof(msg)), -ENOENT, "extack: error code");
	CHECK_EQ_STR(msg, text, "extack: message text");
	a->nla_len = 200;	/* runs past the message: must be ignored, not read */
	CHECK_EQ_INT(gw_nl_parse_error(h, sizeof(buf), msg, sizeof(msg)), -ENOENT, "extack: bad TLV tolerated");
	CHECK_EQ_STR(msg, "", "extack: bad TLV gives no text");
	h->nlmsg_len = 8;
	CHECK(gw_nl_parse_error(h, sizeof(buf), msg, sizeof(msg)) == -EBADMSG, "extack: truncated message rejected");
}

static void test_dump_to_request(void)
{
	struct gw_tc_obj o = qdisc(GW_KIND_HTB);
	struct nlattr *t[TCA_HTB_MAX + 1];
	struct tc_htb_glob g;

	build(&o);
	nla_parse_nested(t, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL);
	memcpy(&g, nla_data(t[TCA_HTB_INIT]), sizeof(g));
	g.version = 0x30011;	/* as the kernel dumps it */
	memcpy(nla_data(t[TCA_HTB_INIT]), &g, sizeof(g));
	CHECK(gw_obj_dump_to_request(nlmsg_hdr(cur)) == 0, "dump->request: htb accepted");
	memcpy(&g, nla_data(t[TCA_HTB_INIT]), sizeof(g));
	CHECK_EQ_INT(g.version, 3, "dump->request: htb version 3.17 becomes 3");
}

static void test_registry(void)
{
	CHECK(gw_qdisc_ops_by_tc_kind("bfifo") == &gw_fifo_ops, "registry: bfifo is fifo");
	CHECK(gw_qdisc_ops_by_name("cake") == &gw_cake_ops, "registry: cake by name");
	CHECK(gw_qdisc_ops_by_name("hfsc") == NULL, "registry: unknown kind");
	CHECK(gw_qdisc_ops(GW_KIND_MAX) == NULL, "registry: out of range");
	for (int k = 1; k <= GW_KIND_INGRESS; k++)
		CHECK(gw_qdisc_ops((enum gw_kind)k) &&
		      gw_qdisc_kind(gw_qdisc_ops((enum gw_kind)k)) == (enum gw_kind)k,
		      "registry: kind %d has its ops", k);
	CHECK(gw_qdisc_leaf(0) == &gw_fifo_ops && gw_qdisc_leaf(1) == &gw_fq_codel_ops &&
	      gw_qdisc_leaf(2) == &gw_cake_ops, "registry: leaves in registry order");
	for (size_t i = 0; gw_qdisc_leaf(i); i++) {
		const struct gw_qdisc_ops *ops = gw_qdisc_leaf(i);

		for (size_t a = 0; a < ops->n_keys; a++)
			for (size_t b = a + 1; b < ops->n_keys; b++)
				CHECK(!ops->keys[a].name || !ops->keys[b].name ||
				      strcmp(ops->keys[a].name, ops->keys[b].name),
				      "registry: %s key %s is in its table once", ops->name,
				      ops->keys[a].name);
	}
}

/* gw_obj_diff: what differs, in tc's words, judged as gw_obj_matches judges; the kernel's
 * rounding of what it keeps as times is no difference. */
static void test_diff(void)
{
	struct gw_tc_obj o = { .type = GW_OBJ_CLASS, .kind = GW_KIND_HTB, .ifindex = 3,
			       .handle = GW_HANDLE(0xE000, 0x10), .parent = GW_HANDLE(0xE000, 1) },
			 got, f = qdisc(GW_KIND_FIFO), g;
	char buf[512];
	int n;

	o.cls = (struct gw_htb_class_opts){ .rate = 2500000, .ceil = 2500000, .burst = 3001,
					    .cburst = 3001, .quantum = GW_UNSET, .prio = 1 };
	build(&o);
	got = reparse();	/* the bursts went out as times and came back rounded */
	CHECK(got.cls.burst != 3001 && gw_near(3001, got.cls.burst) && gw_near(3001, got.cls.cburst),
	      "diff: 3001-byte bursts come back rounded, near (%lld, %lld)", (long long)got.cls.burst,
	      (long long)got.cls.cburst);
	n = gw_obj_diff(&o, &got, buf, sizeof(buf));
	CHECK(n == 0 && !buf[0] && gw_obj_matches(&o, &got, (char[64]){ 0 }, 64),
	      "diff: the class as the kernel reports it back: no difference (%d: %s)", n, buf);
	got.cls.burst = 3000 + 3000 / 100 + 1;
	CHECK(gw_obj_diff(&o, &got, buf, sizeof(buf)) == 0, "diff: a burst off by 1%% and a byte is rounding");
	got.cls.rate = 625000;
	n = gw_obj_diff(&o, &got, buf, sizeof(buf));
	CHECK(n == 1 && !strcmp(buf, "rate 5mbit, expected 20mbit"),
	      "diff: a rate: \"%s\"", buf);
	CHECK(!gw_obj_matches(&o, &got, (char[64]){ 0 }, 64), "diff: ... which gw_obj_matches refuses too");
	got.cls.ceil = 1250000;
	got.cls.burst = 4000;
	got.cls.prio = 7;
	got.cls.quantum = 1514;	/* not set in the plan: not compared */
	n = gw_obj_diff(&o, &got, buf, sizeof(buf));
	CHECK(n == 4 && !strcmp(buf, "rate 5mbit, expected 20mbit, ceil 10mbit, expected 20mbit, "
				"burst 4000, expected 3001, prio 7, expected 1"),
	      "diff: each attribute that differs, in order (%d: \"%s\")", n, buf);
	o.inner = true;
	CHECK(gw_obj_diff(&o, &got, buf, sizeof(buf)) == 3 && !strstr(buf, "prio"),
	      "diff: an inner class's prio is htb's to keep (\"%s\")", buf);

	f.q.fifo.limit = 100;
	g = f;
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 0, "diff: a fifo as planned");
	g.q.fifo.limit = 5;
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 1 &&
	      !strcmp(buf, "it is pfifo limit 5, expected pfifo limit 100"), "diff: a limit: \"%s\"", buf);
	g.q.fifo.bytes = true;
	g.q.fifo.limit = 30000;
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 1 &&
	      !strcmp(buf, "it is bfifo limit 30000, expected pfifo limit 100"),
	      "diff: bfifo for pfifo: \"%s\"", buf);
	f.q.fifo.limit = GW_UNSET;	/* the kernel's default: any limit will do */
	g = f;
	g.q.fifo.limit = 1000;
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 0, "diff: a limit left to the kernel is not compared");
	g.parent = GW_HANDLE(0xE000, 0x11);
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 1 && !strcmp(buf, "parent e000:11, expected e000:10"),
	      "diff: a parent: \"%s\"", buf);
	CHECK(gw_obj_diff(&f, NULL, buf, sizeof(buf)) == 1 && !strcmp(buf, "deleted"), "diff: not there");

	f = (struct gw_tc_obj){ .type = GW_OBJ_FILTER, .ifindex = 3, .parent = GW_INGRESS_HANDLE,
				.redirect_ifindex = 9 };
	g = f;
	g.redirect_ifindex = 4;
	CHECK(gw_obj_diff(&f, &g, buf, sizeof(buf)) == 1 &&
	      !strcmp(buf, "redirects to ifindex 4, expected ifindex 9"), "diff: a redirect: \"%s\"", buf);
	CHECK(gw_obj_diff(&f, &g, buf, 8) == 1 && strlen(buf) < 8, "diff: bounded by its buffer");
}

int main(void)
{
	test_registry();
	test_diff();
	test_fifo();
	test_fq_codel();
	test_cake();
	test_htb();
	test_tbf();
	test_stab();
	test_filter();
	test_format();
	test_extack();
	test_dump_to_request();
	nlmsg_free(cur);
	return tap_done();
}
