/* bench/scenario.c: `gatewayd --compare --scenario variable`: a link whose capacity
 * changes in steps, as LTE, Starlink or DOCSIS at peak hours do. The delay box gets a
 * bottleneck of its own on both of its sides (htb with a deep fifo, on an ifb that its
 * egress redirects to after it has routed the packet, so netem's delay on that egress comes
 * after the queue), changed in
 * place at each step; the gateway runs gatewayd with autorate, gatewayd at a fixed rate, or
 * nothing, one after the other on the same testbed, under 4+4 TCP flows and probes. */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include "config/config.h"
#include "bench/load.h"
#include "bench/measure.h"
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/queues.h"
#include "bench/relay.h"
#include "bench/run.h"
#include "bench/scenario.h"
#include "bench/scenario_results.h"
#include "bench/scenario_stats.h"
#include "bench/svg.h"
#include "bench/testbed.h"
#include "probe/prober.h"
#include "sys/grow.h"
#include "sys/signals.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"
#include "qdisc/stats.h"

static const char *const way_names[BENCH_WAY_COUNT] = { "autorate", "fixed", "none" };

/* the box's ifbs: [0] holds the upload, [1] the download, each redirected to from the egress
 * of the device the box sends that direction out of (d1 to the server, d0 to the gateway).
 * Not from the ingress it comes in by: there a download segment is still charged to the
 * server's socket (one kernel, no routing yet), and TCP small queues keep each flow to about
 * a millisecond of its rate in the box's queue, which no modem does: the download would never
 * bloat. Routed, the packet belongs to no socket. */
static const char *const box_ifb[2] = { "ifbup", "ifbdn" };
static const char *const box_dev[2] = { "d1", "d0" };
#define BOX_CLASS GW_HANDLE(1, 1)
#define BOX_MTU 1514
/* more reflectors for the gateway's own probes: the server answers on each */
static const char *const reflectors[] = { BENCH_IP_SERVER, "10.77.3.3", "10.77.3.4" };

const char *bench_way_name(enum bench_way w)
{
	return w < BENCH_WAY_COUNT ? way_names[w] : "?";
}

/* One rate of a step, into bytes/s: a bare number is Mbit/s, else a rate with its unit
 * ("12mbit"), as the config takes it. */
static int parse_step_rate(const char *s, uint64_t *rate)
{
	char *end;
	double v = strtod(s, &end);

	if (end != s && !*end) {
		if (!(v * 1e6 >= 100e3 && v * 1e6 <= 1e9))
			return -ERANGE;
		*rate = (uint64_t)llround(v * 1e6 / 8);
		return 0;
	}
	if (gw_parse_rate(s, rate) || *rate * 8 < 100000 || *rate * 8 > 1000000000ULL)
		return -EINVAL;
	return 0;
}

int bench_sc_parse_steps(const char *s, struct bench_scenario *sc)
{
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	sc->n_steps = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *slash = strchr(tok, '/');

		if (!slash || sc->n_steps == BENCH_MAX_STEPS)
			return -EINVAL;
		*slash = 0;
		if (parse_step_rate(tok, &sc->cap[sc->n_steps][1]) ||
		    parse_step_rate(slash + 1, &sc->cap[sc->n_steps][0]))
			return -EINVAL;
		sc->n_steps++;
	}
	return sc->n_steps ? 0 : -EINVAL;
}

int bench_sc_parse_ways(char *s, struct bench_scenario *sc)
{
	char *save = NULL;

	sc->n_ways = 0;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int w;

		for (w = 0; w < BENCH_WAY_COUNT; w++)
			if (!strcmp(tok, way_names[w]))
				break;
		if (w == BENCH_WAY_COUNT)
			return -EINVAL;
		for (size_t i = 0; i < sc->n_ways; i++)
			if (sc->ways[i] == (enum bench_way)w)
				return -EINVAL;
		sc->ways[sc->n_ways++] = (enum bench_way)w;
	}
	return sc->n_ways ? 0 : -EINVAL;
}

/* bytes/s to whole kbit/s, as the config's rates are written */
static uint64_t kbit(double rate)
{
	return (uint64_t)llround(rate * 8 / 1000) * 1000 / 8;
}

/* autorate's bounds from the steps: base the first step's rate (where the link starts, and
 * the fixed way's rate); min half the lowest step's (room to cut below the worst capacity
 * when the queue must drain); max a quarter above the highest step's (room to find a
 * capacity above the base, not so much that a raise overshoots far). */
void bench_sc_defaults(struct bench_scenario *sc)
{
	for (int d = 0; d < 2; d++) {
		uint64_t lo = UINT64_MAX, hi = 0;

		for (size_t k = 0; k < sc->n_steps; k++) {
			lo = sc->cap[k][d] < lo ? sc->cap[k][d] : lo;
			hi = sc->cap[k][d] > hi ? sc->cap[k][d] : hi;
		}
		sc->base[d] = sc->cap[0][d];
		sc->min[d] = kbit((double)lo / 2);
		sc->max[d] = kbit((double)hi * 1.25);
	}
}

/* --- the delay box's bottleneck --- */

struct box {
	struct gw_nl *nl;		/* in the delay box's namespace */
	int ifidx[2];
};

static uint64_t box_burst(uint64_t rate)
{
	uint64_t b = rate / 1000;	/* 1 ms of traffic, at least one full packet */

	return b > 1749 ? b : 1749;
}

static int box_up(struct bench_bed *b, const struct bench_opts *o, struct box *x, char *err,
		  size_t errlen)
{
	char buf[2048];
	size_t n = 0;
	int r;

	snprintf(buf, sizeof(buf), "link add %s type ifb\nlink add %s type ifb\nlink set %s up\n"
		 "link set %s up\n", box_ifb[0], box_ifb[1], box_ifb[0], box_ifb[1]);
	if ((r = bench_bed_batch(b, BENCH_NS_DELAY, "ip", buf, err, errlen)))
		return r;
	/* the server answers the gateway's probes on three addresses (three reflectors); a
	 * modem's line carries frames, not the 64 KB GSO packets veth would pass on (each one
	 * 43 ms at 12 Mbit/s in the box's fifo ahead of a probe, whatever the gateway's rate):
	 * both TCP ends send single segments, as tests/netns/test_autorate.sh has it */
	snprintf(buf, sizeof(buf), "addr add %s/24 dev s0\naddr add %s/24 dev s0\n"
		 "link set s0 gso_max_segs 1\n", reflectors[1], reflectors[2]);
	if ((r = bench_bed_batch(b, BENCH_NS_SERVER, "ip", buf, err, errlen)) ||
	    (r = bench_bed_batch(b, BENCH_NS_CLIENT, "ip", "link set c0 gso_max_segs 1\n", err, errlen)))
		return r;
	for (int d = 0; d < 2; d++) {
		uint64_t rate = o->sc.cap[0][d];

		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			"qdisc add dev %s clsact\n"
			"filter add dev %s egress protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev %s\n"
			"qdisc add dev %s root handle 1: htb default 1\n"
			"class add dev %s parent 1: classid 1:1 htb rate %llubit ceil %llubit burst %llu cburst %llu quantum %d\n"
			"qdisc add dev %s parent 1:1 handle 10: bfifo limit %d\n",
			box_dev[d], box_dev[d], box_ifb[d], box_ifb[d], box_ifb[d],
			(unsigned long long)rate * 8, (unsigned long long)rate * 8,
			(unsigned long long)box_burst(rate), (unsigned long long)box_burst(rate),
			BOX_MTU, box_ifb[d], BENCH_SC_BOX_FIFO);
	}
	if ((r = bench_bed_batch(b, BENCH_NS_DELAY, "tc", buf, err, errlen)))
		return r;
	if ((r = bench_enter(b, BENCH_NS_DELAY)) == 0) {
		r = gw_nl_open(&x->nl);
		for (int d = 0; d < 2; d++)
			x->ifidx[d] = (int)if_nametoindex(box_ifb[d]);
	}
	bench_enter(b, -1);
	if (!r && (!x->ifidx[0] || !x->ifidx[1]))
		r = -ENODEV;
	if (r)
		snprintf(err, errlen, "the delay box's bottleneck: %s", strerror(-r));
	return r;
}

/* The box's capacity to step k, both ways in one request each, changed in place: the
 * class's rate and ceiling, its fifo and what it holds untouched. */
static int box_set(struct box *x, const struct bench_opts *o, size_t k, char *err, size_t errlen)
{
	struct nl_msg *msgs[2] = { NULL, NULL };
	struct gw_nl_error e = { 0 };
	int r = 0;

	for (int d = 0; d < 2 && !r; d++) {
		uint64_t bytes = o->sc.cap[k][d];
		struct gw_tc_obj obj = {
			.type = GW_OBJ_CLASS, .kind = GW_KIND_HTB, .ifindex = x->ifidx[d],
			.handle = BOX_CLASS, .parent = GW_HANDLE(1, 0),
			.cls = { .rate = bytes, .ceil = bytes,
				 .burst = (int64_t)box_burst(o->sc.cap[k][d]),
				 .cburst = (int64_t)box_burst(o->sc.cap[k][d]),
				 .quantum = BOX_MTU, .prio = GW_UNSET },
		};

		r = gw_obj_build(&obj, 0, &msgs[d]);
	}
	if (!r)
		r = gw_nl_batch(x->nl, msgs, 2, true, &e);
	if (r)
		snprintf(err, errlen, "changing the box's capacity to step %zu: %s%s%.120s", k + 1,
			 strerror(-r), e.msg[0] ? ": " : "", e.msg);
	for (int d = 0; d < 2; d++)
		if (msgs[d])
			nlmsg_free(msgs[d]);
	return r;
}

/* --- one way's run --- */

/* A way's run: its steps (which begin when the load reaches the box) and what it reads every
 * tick: the box's bottleneck, and the gateway's shaper when gatewayd runs. */
struct sc_ctx {
	struct bench_sc_run *x;
	const struct bench_opts *o;
	struct bench_bed *b;
	size_t started;			/* steps started so far */
	double spawned;			/* when the flows were started; -1: not yet */
	double next_line;		/* the next progress line */
	struct gw_nl *gw_nl;		/* the gateway's shaper, when gatewayd runs */
	int gw_ifidx[2];
	struct box *box;
	struct bench_tick *k;		/* the tick being filled */
};

/* the step the probe was sent in: 0 idle, k + 1 step k */
static int sc_phase(void *arg, double t)
{
	const struct sc_ctx *c = arg;
	int ph = 0;

	for (size_t k = 0; k < c->started; k++)
		if (t >= c->x->st[k].start)
			ph = (int)(k + 1);
	return ph;
}

static int box_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct sc_ctx *c = arg;
	struct gw_tc_stats st;

	if (gw_stats_parse(nlh, &st) || st.type != GW_OBJ_CLASS || st.handle != BOX_CLASS)
		return 0;
	for (int d = 0; d < 2; d++)
		if (st.ifindex == c->box->ifidx[d]) {
			c->k->bytes[d] = st.bytes;
			c->k->backlog_bytes[d] = st.backlog_bytes;
		}
	return 0;
}

/* the gateway's shaper rate: its htb top class's (what autorate moves) */
static int gw_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct sc_ctx *c = arg;
	struct gw_tc_obj obj;

	if (gw_obj_parse(nlh, &obj, NULL, 0) || obj.type != GW_OBJ_CLASS ||
	    obj.handle != GW_HANDLE(GW_ROOT_MAJOR, GW_TOP_MINOR))
		return 0;
	for (int d = 0; d < 2; d++)
		if (obj.ifindex == c->gw_ifidx[d])
			c->k->shaper[d] = obj.cls.rate;
	return 0;
}

static int sc_sample(void *arg, struct bench_tick *k)
{
	struct sc_ctx *c = arg;
	struct bench_result *r = &c->x->r;
	size_t step = c->started ? c->started - 1 : 0;

	k->cap[0] = c->o->sc.cap[step][0];
	k->cap[1] = c->o->sc.cap[step][1];
	c->k = k;
	for (int d = 0; d < 2; d++)
		gw_nl_dump_tc(c->box->nl, RTM_GETTCLASS, c->box->ifidx[d], 0, box_cb, c, NULL);
	for (int d = 0; d < 2 && c->gw_nl; d++)
		gw_nl_dump_tc(c->gw_nl, RTM_GETTCLASS, c->gw_ifidx[d], 0, gw_cb, c, NULL);
	if (r->n_ticks && (k->shaper[0] != r->ticks[r->n_ticks - 1].shaper[0] ||
			   k->shaper[1] != r->ticks[r->n_ticks - 1].shaper[1]))
		c->x->changes++;
	return 0;
}

static void sc_progress(const struct bench_opts *o, const struct bench_sc_run *x, size_t k,
			double t, double rtt)
{
	const struct bench_result *r = &x->r;
	const struct bench_tick *last = r->n_ticks ? &r->ticks[r->n_ticks - 1] : NULL;
	double rate[2];

	bench_tick_rate(r, 10, rate);	/* the box's rate over the last second */
	printf("    %-9s step %zu %5.1f s  rtt %6.1f ms  down %5.1f of %.1f  up %5.1f of %.1f Mbit/s  shaper %.1f/%.1f\n",
	       bench_way_name(x->way), k + 1, t, rtt, rate[1] * 8 / 1e6, o->sc.cap[k][1] * 8 / 1e6,
	       rate[0] * 8 / 1e6, o->sc.cap[k][0] * 8 / 1e6,
	       last ? last->shaper[1] * 8 / 1e6 : 0.0, last ? last->shaper[0] * 8 / 1e6 : 0.0);
}

/* The flows, once the idle time that gives the baseline is over */
static int sc_before(void *arg, struct bench_measure *m, double t, bool tick, double *wake,
		     double *end)
{
	struct sc_ctx *c = arg;
	struct bench_sc_run *x = c->x;
	char err[256];
	int ret;

	(void)tick;
	(void)wake;
	(void)end;
	if (c->spawned >= 0 || t < BENCH_SC_IDLE_S)
		return 0;
	if ((ret = bench_load_start_tcp(m->ld, c->b, BENCH_PROF_BIDIR, BENCH_TCP_FLOWS,
					c->o->sc.step_s * (double)c->o->sc.n_steps + 5, err,
					sizeof(err)))) {
		snprintf(x->note, sizeof(x->note), "the TCP flows: %.200s", err);
		return ret;
	}
	c->spawned = t;
	x->r.clients_started = t;
	return 0;
}

/* The first step begins when the load reaches the box; each next one a step's length later,
 * when the box's capacity is changed. */
static int sc_after(void *arg, struct bench_measure *m, double t, bool tick, double *wake,
		    double *end)
{
	struct sc_ctx *c = arg;
	struct bench_sc_run *x = c->x;
	const struct bench_scenario *sc = &c->o->sc;
	double rate[2] = { (double)sc->cap[0][0], (double)sc->cap[0][1] };
	int ret;

	if (c->spawned >= 0 && !c->started && tick &&
	    (bench_load_seen(&x->r, rate, c->spawned) || t - c->spawned > 3)) {
		for (size_t k = 0; k < sc->n_steps; k++) {
			x->st[k].start = t + sc->step_s * (double)k;
			x->st[k].end = x->st[k].start + sc->step_s;
		}
		*end = x->st[sc->n_steps - 1].end;
		c->started = 1;
		c->next_line = t;
	}
	if (c->started && c->started < sc->n_steps && t >= x->st[c->started].start) {
		if ((ret = box_set(c->box, c->o, c->started, x->note, sizeof(x->note))))
			return ret;
		/* the step as it happened: from the change */
		x->st[c->started].start = bench_now() - m->t0;
		x->st[c->started - 1].end = x->st[c->started].start;
		c->started++;
	}
	if (c->started && t >= c->next_line) {
		sc_progress(c->o, x, c->started - 1, t, m->last_rtt);
		c->next_line = t + 5;
	}
	if (c->started && c->started < sc->n_steps)
		*wake = x->st[c->started].start;
	return 0;
}

/* the flows stopped (a reset each) and the run's end */
static void sc_done(void *arg, struct bench_measure *m)
{
	struct sc_ctx *c = arg;

	bench_load_stop_tcp(m->ld);
	c->x->end = bench_now() - m->t0;
}

static const struct bench_measure_ops sc_ops = {
	.phase = sc_phase, .sample = sc_sample, .before = sc_before, .after = sc_after,
	.done = sc_done,
};

static int write_config(const struct bench_bed *b, const struct bench_opts *o, enum bench_way w,
			enum bench_qdisc q, char *path, size_t len)
{
	const struct bench_queue *x = bench_queue(q);
	char child[BENCH_KNOBS_MAX + 128], ichild[BENCH_KNOBS_MAX + 128], rate[2][32];
	char ar[2][400] = { "", "" };
	FILE *f;

	/* the kind's bench settings, and the knobs --qdiscs gave it */
	bench_child_text(x, o->pick[0].knobs, false, child, sizeof(child));
	bench_child_text(x, o->pick[0].knobs, true, ichild, sizeof(ichild));
	for (int d = 0; d < 2; d++) {
		char mn[32], mx[32];

		gw_format_rate(o->sc.base[d], rate[d], sizeof(rate[d]));
		gw_format_rate(o->sc.min[d], mn, sizeof(mn));
		gw_format_rate(o->sc.max[d], mx, sizeof(mx));
		if (w == BENCH_WAY_AUTORATE)
			snprintf(ar[d], sizeof(ar[d]), " autorate = { min = \"%s\"; max = \"%s\";%s%s };",
				 mn, mx, o->sc.ar_keys[0] ? " " : "", o->sc.ar_keys);
	}
	snprintf(path, len, "%s/scenario-%s.conf", b->tmp, bench_way_name(w));
	if (!(f = fopen(path, "we")))
		return -errno;
	/* udp: to the reflector the bench runs in the server (bench_start_reflector), on each address */
	char tg[3][48];
	bool udp = !strcmp(o->sc.probe_method, "udp");

	for (int i = 0; i < 3; i++)
		snprintf(tg[i], sizeof(tg[i]), "%s%s", reflectors[i], udp ? ":2112" : "");
	fprintf(f,
		"# generated by gatewayd --compare --scenario variable: %s\n"
		"listen = \"127.0.0.1:9180\";\ninterval = \"200ms\";\ncontrol_socket = \"\";\n"
		"links = ( { name = \"wan\"; interface = \"%s\";\n"
		"  egress = { shaper = \"htb\"; rate = \"%s\";%s child = { %s }; };\n"
		"  ingress = { shaper = \"htb\"; rate = \"%s\"; ifb = \"%s\";%s child = { %s }; }; } );\n"
		"probe = { method = \"%s\"; targets = [ \"%s\", \"%s\", \"%s\" ]; interval = \"50ms\"; };\n",
		bench_way_name(w), BENCH_GW_WAN, rate[0], ar[0], child, rate[1], BENCH_GW_IFB,
		ar[1], ichild, o->sc.probe_method, tg[0], tg[1], tg[2]);
	return fclose(f) ? -errno : 0;
}

static int sc_run_one(struct bench_bed *b, const struct bench_opts *o, struct box *box,
		      struct bench_sc_run *x, int sigfd)
{
	char conf[512], log[512] = "";
	struct sc_ctx c = { .x = x, .o = o, .b = b, .box = box, .spawned = -1 };
	/* the probes: ICMP alone (the gateway's daemon probes the link with its own) */
	struct bench_measure m = { .b = b, .o = o, .r = &x->r, .ops = &sc_ops, .arg = &c,
				   .sigfd = sigfd, .drain_s = 1.0 };	/* a full fifo's last replies */
	pid_t gw = 0;
	int ret;

	/* each way starts where the link starts */
	if ((ret = box_set(box, o, 0, x->note, sizeof(x->note))))
		return ret;
	if (x->way != BENCH_WAY_NONE) {
		snprintf(log, sizeof(log), "%s/gatewayd-%s.log", b->tmp, bench_way_name(x->way));
		if ((ret = write_config(b, o, x->way, x->r.q, conf, sizeof(conf)))) {
			snprintf(x->note, sizeof(x->note), "writing the config: %s", strerror(-ret));
			return ret;
		}
		if ((ret = bench_gw_up(b, o, conf, log, &gw, &c.gw_nl, c.gw_ifidx, x->note,
				       sizeof(x->note))))
			return ret;
	}
	ret = bench_measure_run(&m);
	x->ran = ret == 0;
	bench_gw_down(gw, c.gw_nl, log, ret != 0, x->note, sizeof(x->note));
	return ret;
}

/* Directories made here are 0755 whatever the umask (the daemon reads compare_dir as
 * another user); the files 0644. */
static int write_outputs(const struct bench_opts *o, const struct bench_sc_run *runs, size_t n,
			 const struct bench_sc_verdict *v, const char *kernel)
{
	char path[4200], err[4600];
	int bad = 0;

	/* each file whole or not at all, 0644 (outfile.c) */
	snprintf(path, sizeof(path), "%s/results.json", o->out);
	if (bench_sc_write_json(path, o, runs, n, v, kernel, err, sizeof(err))) {
		fprintf(stderr, "gatewayd: %s\n", err);
		bad++;
	}
	snprintf(path, sizeof(path), "%s/rtt.svg", o->out);
	bad += bench_svg_sc_rtt(path, o, runs, n) != 0;
	for (size_t i = 0; i < n; i++) {
		if (!runs[i].ran)
			continue;
		snprintf(path, sizeof(path), "%s/rates-%s.svg", o->out,
			 bench_way_name(runs[i].way));
		bad += bench_svg_sc_rates(path, o, &runs[i]) != 0;
	}
	if (bench_out_failed(bad, o->out))
		return -EIO;
	printf("results: %s/results.json, rtt.svg, rates-*.svg\n", o->out);
	return 0;
}

int bench_sc_main(struct bench_opts *o, const char *kernel)
{
	struct bench_sc_run runs[BENCH_WAY_COUNT];
	struct bench_bed bed = { .home = -1 };
	struct box box = { 0 };
	struct bench_sc_verdict v;
	char err[512];
	int sfd, rc = 0, done = 0;

	memset(runs, 0, sizeof(runs));
	if ((sfd = gw_signalfd(SIGINT, SIGTERM, SIGHUP, 0)) < 0) {
		fprintf(stderr, "gatewayd: signalfd: %s\n", strerror(-sfd));
		return 1;
	}
	for (int i = 0; i < 4; i++)
		bed.fd[i] = -1;
	if (bench_bed_up(&bed, o, err, sizeof(err)) || box_up(&bed, o, &box, err, sizeof(err)) ||
	    (!strcmp(o->sc.probe_method, "udp") && bench_start_reflector(&bed, o, err, sizeof(err)))) {
		fprintf(stderr, "gatewayd: building the testbed: %s\n", err);
		gw_nl_close(box.nl);
		bench_bed_down(&bed);
		close(sfd);
		return 1;
	}
	printf("testbed: namespaces %s (client), %s (gateway), %s (delay box), %s (server)\n",
	       bed.ns[0], bed.ns[1], bed.ns[2], bed.ns[3]);
	pid_t relay = bench_relay_page(&bed, o->in_uml);	/* relay.c: from the host, in UML */

	for (size_t i = 0; i < o->sc.n_ways; i++) {
		struct bench_sc_run *x = &runs[i];

		x->way = o->sc.ways[i];
		x->r.q = o->qdiscs[0];
		printf("%s: %s\n", bench_way_name(x->way),
		       x->way == BENCH_WAY_AUTORATE ? "gatewayd with autorate" :
		       x->way == BENCH_WAY_FIXED ? "gatewayd at the fixed rate (the base)" :
						 "no shaping in the gateway");
		int e = sc_run_one(&bed, o, &box, x, sfd);

		if (e == -EINTR) {
			printf("\ninterrupted: removing the testbed\n");
			rc = 130;
			break;
		}
		if (e || !x->ran) {
			x->ran = false;
			printf("%s: failed: %s\n", bench_way_name(x->way), x->note);
			rc = 1;
			continue;
		}
		bench_sc_derive(o, x);
		done++;
	}
	bench_relay_stop(relay);
	gw_nl_close(box.nl);
	bench_bed_down(&bed);
	close(sfd);
	if (rc != 130) {
		bench_sc_judge(o, runs, o->sc.n_ways, &v);
		bench_sc_print(o, runs, o->sc.n_ways, &v);
		if (o->out[0] && done && write_outputs(o, runs, o->sc.n_ways, &v, kernel))
			rc = 1;
	}
	for (size_t i = 0; i < o->sc.n_ways; i++)
		bench_sc_run_free(&runs[i]);
	return rc;
}
