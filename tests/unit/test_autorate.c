/* tests/unit/test_autorate.c: autorate's config (keys, defaults, refusals) and its controller
 * driven sample by sample: baselines, K of N, the threshold and serialisation, cuts, raises,
 * hold-off, the idle return, one-way delays against round trips. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tree/autorate_ctl.h"
#include "webui/history.h"
#include "tests/unit/autorate_cfg.h"
#include "tests/unit/tap.h"

static char err[512];

#define PROBE "probe = { targets = [ \"192.0.2.1\" ]; };\n"
#define WAN(egress) "links = ( { name = \"wan\"; interface = \"eth0\";\n" egress "} );\n"

static struct gw_config *load(const char *text, int *ret)
{
	struct gw_config *cfg = NULL;

	err[0] = '\0';
	*ret = gw_config_load_string("gw.conf", text, &cfg, err, sizeof(err));
	return cfg;
}

static void test_config_defaults(void)
{
	int ret;
	struct gw_config *cfg = load(PROBE WAN(
		"egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
		"  autorate = { min = \"5mbit\"; max = \"80mbit\"; }; };\n"), &ret);
	const struct gw_autorate_cfg *a;

	if (!CHECK(ret == 0 && cfg, "config: autorate loads (%d, %s)", ret, err))
		return;
	a = &cfg->links[0].dir[GW_DIR_EGRESS].autorate;
	CHECK(a->present && a->line == 4, "config: present, line 4 (%d)", a->line);
	CHECK(a->min == 625000 && a->max == 10000000 && a->base == 5000000,
	      "config: min, max, base defaulting to the rate");
	CHECK(a->delay_threshold_us == 10000 && a->window == 6 && a->bloat_samples == 3,
	      "config: threshold 10ms, 3 of 6");
	CHECK(a->cut == 0.9 && a->raise == 1.04 && a->load_threshold == 0.75,
	      "config: cut 0.9, raise 1.04, load 0.75");
	CHECK(a->hold_us == 500000 && a->raise_every_us == 200000 && a->idle_after_us == 5000000,
	      "config: hold 500ms, raise_every 200ms, idle_after 5s");
	CHECK(!cfg->links[0].dir[GW_DIR_INGRESS].autorate.present, "config: ingress has none");
	gw_config_free(cfg);
}

/* Each uplink of a two-WAN router judged by its own probe block: autorate on the second. */
static void test_config_link_probe(void)
{
	int ret;
	struct gw_config *cfg = load(PROBE
		"links = ( { name = \"wan\"; interface = \"eth0\";\n"
		" egress = { shaper = \"htb\"; rate = \"40mbit\"; }; },\n"
		" { name = \"lte\"; interface = \"eth1\";\n"
		"  probe = { targets = [ \"198.51.100.1\" ]; };\n"
		"  egress = { shaper = \"htb\"; rate = \"20mbit\";\n"
		"   autorate = { min = \"2mbit\"; max = \"50mbit\"; }; }; } );\n", &ret);

	if (CHECK(ret == 0 && cfg, "config: autorate on a link with its own probe block (%d, %s)",
		  ret, err))
		CHECK(cfg->links[1].dir[GW_DIR_EGRESS].autorate.present &&
		      gw_config_probe_of(cfg, 1) && gw_config_probe_of(cfg, 1) != &cfg->probe,
		      "config: that link's autorate judged by its own probes");
	gw_config_free(cfg);
}

static void test_config_all_keys(void)
{
	int ret;
	struct gw_config *cfg = load(PROBE WAN(
		"ingress = { shaper = \"cake\"; rate = \"30mbit\";\n"
		"  autorate = { min = \"2mbit\"; base = \"20mbit\"; max = \"100mbit\";\n"
		"    delay_threshold = \"20ms\"; window = 10; bloat_samples = 4; cut = 0.8;\n"
		"    raise = 1.1; load_threshold = 0.5; hold = \"1s\"; raise_every = \"50ms\";\n"
		"    idle_after = \"30s\"; }; };\n"), &ret);
	const struct gw_autorate_cfg *a;

	if (!CHECK(ret == 0 && cfg, "config: every key loads (%d, %s)", ret, err))
		return;
	a = &cfg->links[0].dir[GW_DIR_INGRESS].autorate;
	CHECK(a->base == 2500000 && a->min == 250000 && a->max == 12500000, "config: rates");
	CHECK(a->delay_threshold_us == 20000 && a->window == 10 && a->bloat_samples == 4 &&
	      a->cut == 0.8 && a->raise == 1.1 && a->load_threshold == 0.5 &&
	      a->hold_us == 1000000 && a->raise_every_us == 50000 &&
	      a->idle_after_us == 30000000, "config: every knob as written");
	gw_config_free(cfg);
}

static const struct {
	int line;
	const char *msg;
	const char *text;
} bad[] = {
	{ 4, "link 'wan' egress autorate: 'max' is required", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n autorate = { min = \"5mbit\"; }; };\n") },
	{ 4, "'min' 90mbit is above 'max' 80mbit", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"90mbit\"; max = \"80mbit\"; }; };\n") },
	{ 4, "'base' 1mbit is not within 'min' 5mbit and 'max' 80mbit", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; base = \"1mbit\"; max = \"80mbit\"; }; };\n") },
	{ 4, "the base (the direction's 'rate') 40mbit is not within", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"20mbit\"; }; };\n") },
	{ 4, "the direction's 'rate' 40mbit, where autorate starts, is not within", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; base = \"10mbit\"; max = \"20mbit\"; }; };\n") },
	{ 5, "'bloat_samples' 7 is more than 'window' 6", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\";\n bloat_samples = 7; window = 6; }; };\n") },
	{ 4, "'cut' 1.2 is out of range 0.5..0.99", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; cut = 1.2; }; };\n") },
	{ 4, "'raise' must be a number", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; raise = \"fast\"; }; };\n") },
	{ 4, "'delay_threshold' \"2s\" is out of range 1ms..1s", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; delay_threshold = \"2s\"; }; };\n") },
	{ 4, "unknown key 'speed' in link 'wan' egress autorate", PROBE WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; speed = 1; }; };\n") },
	{ 4, "autorate cannot move tbf's rate over a fifo child", PROBE WAN(
	  "egress = { shaper = \"tbf\"; rate = \"40mbit\"; child = { kind = \"fifo\"; };\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; }; };\n") },
	{ 3, "link 'wan' egress autorate: autorate needs probes", WAN(
	  "egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; }; };\n") },
	{ 5, "link 'lte' egress autorate: autorate needs the probes on this link, and they are "
	  "on link 'wan'", PROBE
	  "links = ( { name = \"wan\"; interface = \"eth0\";\n"
	  " egress = { shaper = \"htb\"; rate = \"40mbit\"; }; },\n"
	  " { name = \"lte\"; interface = \"eth1\"; egress = { shaper = \"htb\"; rate = \"40mbit\";\n"
	  " autorate = { min = \"5mbit\"; max = \"80mbit\"; }; }; } );\n" },
};

static void test_config_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char prefix[32];
		int ret;
		struct gw_config *cfg = load(bad[i].text, &ret);

		snprintf(prefix, sizeof(prefix), "gw.conf:%d: ", bad[i].line);
		CHECK(ret == -EINVAL && !cfg && !strncmp(err, prefix, strlen(prefix)) &&
		      strstr(err, bad[i].msg), "config refused #%zu: %s (got \"%s\")", i + 1,
		      bad[i].msg, err);
		gw_config_free(cfg);
	}
}

/* ---- the controller ---- */

/* egress on (and ingress when both), both at 40 Mbit/s */
static void ctl_init(struct gw_ar_ctl *c, const struct gw_autorate_cfg *up,
		     const struct gw_autorate_cfg *down)
{
	const struct gw_autorate_cfg *cfg[2] = { up, down };
	double rate[2] = { MBIT(40), MBIT(40) };

	gw_ar_init(c, cfg, rate);
}

static void test_baseline(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;

	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 20, NAN, NAN, 1);
	CHECK(c.refl[0].base[0] == 20, "baseline: the first sample is the baseline");
	gw_ar_sample(&c, 0, 120, NAN, NAN, 1.05);
	CHECK(fabs(c.refl[0].base[0] - 20.1) < 1e-9, "baseline: rises slowly (0.001 of 100 ms: "
	      "%.4f)", c.refl[0].base[0]);
	CHECK(fabs(c.refl[0].delta[0] - 100) < 1e-9, "baseline: delta against the old baseline");
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1.1);
	CHECK(fabs(c.refl[0].base[0] - (20.1 - 0.9 * 10.1)) < 1e-9, "baseline: falls fast (0.9)");
	gw_ar_sample(&c, 1, 50, NAN, NAN, 1.15);
	CHECK(c.refl[1].base[0] == 50 && c.refl[0].base[0] < 12, "baseline: one per reflector");
	gw_ar_sample(&c, 0, NAN, NAN, NAN, 1.2);
	CHECK(c.refl[0].base[0] < 12, "baseline: a loss leaves it");
}

static void test_k_of_n(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m = 0;

	ctl_init(&c, &up, NULL);
	gw_ar_load(&c, 0, MBIT(38), 1);	/* loaded: 38 >= 0.75 x 40 */
	for (int t = 0; t < 3; t++)
		gw_ar_sample(&c, t, 10, NAN, NAN, 1);
	/* 2 bloated among quiet ones: not bloat */
	m |= gw_ar_sample(&c, 0, 40, NAN, NAN, 1.01);
	m |= gw_ar_sample(&c, 1, 10, NAN, NAN, 1.02);
	m |= gw_ar_sample(&c, 2, 40, NAN, NAN, 1.03);
	m |= gw_ar_sample(&c, 0, 10, NAN, NAN, 1.04);
	m |= gw_ar_sample(&c, 1, 10, NAN, NAN, 1.05);
	CHECK(m == 0 && !c.dir[0].bloated, "K of N: 2 of 6 is no bloat");
	/* the third within the last six, from another reflector: bloat, cut */
	m = gw_ar_sample(&c, 1, 40, NAN, NAN, 1.06);
	CHECK(m == 1 && c.dir[0].bloated, "K of N: 3 of the last 6 over all reflectors is bloat");
	CHECK(fabs(c.dir[0].want - MBIT(38) * 0.9) < 1, "cut: towards the achieved rate x 0.9 "
	      "(%.0f)", c.dir[0].want);
	CHECK(c.dir[0].want_reason == GW_AR_BLOAT, "cut: reason bloat");
	gw_ar_done(&c, 0, true, 1.06);
	CHECK(c.dir[0].rate == c.dir[0].want && c.dir[0].changes[GW_AR_BLOAT] == 1 &&
	      c.dir[0].state == GW_AR_ST_HOLD, "cut: taken, counted, holding");
	/* samples that have left the window no longer count */
	ctl_init(&c, &up, NULL);
	gw_ar_load(&c, 0, MBIT(38), 1);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_sample(&c, 0, 40, NAN, NAN, 1.01);
	gw_ar_sample(&c, 0, 40, NAN, NAN, 1.02);
	for (int i = 0; i < 5; i++)
		gw_ar_sample(&c, 0, 10.5, NAN, NAN, 1.03 + i * 0.01);
	m = gw_ar_sample(&c, 0, 40, NAN, NAN, 1.1);
	CHECK(m == 0, "K of N: old bloated samples fall out of the window");
}

static void test_threshold_serialisation(void)
{
	struct gw_autorate_cfg up = ar_cfg(1, 5, 80);
	struct gw_ar_ctl c;
	const struct gw_autorate_cfg *cfg[2] = { &up, NULL };
	double rate[2] = { MBIT(5), 0 };
	unsigned int m = 0;

	gw_ar_init(&c, cfg, rate);
	/* at 5 Mbit/s a 1500-byte packet is 2.4 ms: the threshold is 12.4 ms */
	CHECK(fabs(gw_ar_threshold_ms(&c.dir[0]) - 12.4) < 1e-9, "threshold: 10 ms + 2.4 ms at "
	      "5 Mbit/s (%.3f)", gw_ar_threshold_ms(&c.dir[0]));
	gw_ar_load(&c, 0, MBIT(5), 1);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	for (int i = 0; i < 6; i++)
		m |= gw_ar_sample(&c, 0, 22, NAN, NAN, 1.01 + i * 0.01);	/* +12 ms */
	CHECK(m == 0, "threshold: 12 ms over baseline is under 12.4 ms at 5 Mbit/s");
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(&c, 0, 23, NAN, NAN, 1.1 + i * 0.01);	/* +13 ms */
	CHECK(m == 1, "threshold: 13 ms over baseline is bloat");
	gw_ar_set_rate(&c, 0, MBIT(80));
	CHECK(fabs(gw_ar_threshold_ms(&c.dir[0]) - 10.15) < 1e-9, "threshold: 10.15 ms at "
	      "80 Mbit/s");
}

static void test_cut_floor_and_hold(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m;

	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(38), 1);
	for (int i = 0; i < 3; i++)
		m = gw_ar_sample(&c, 0, 100, NAN, NAN, 1.01 + i * 0.01);
	gw_ar_done(&c, 0, true, 1.03);
	/* still bloated, and the achieved rate has fallen to 3 Mbit/s: held first */
	gw_ar_load(&c, 0, MBIT(3), 1.2);
	m = gw_ar_sample(&c, 0, 100, NAN, NAN, 1.3);
	gw_ar_load(&c, 0, MBIT(3), 1.4);	/* two passes at 3: the larger of them is 3 */
	CHECK(m == 0 && c.dir[0].state == GW_AR_ST_HOLD, "hold: no second cut within 500 ms");
	/* unloaded now (3 < 0.75 x 34.2) but loaded 0.6 s ago: a queue past the shaper slowed
	 * its flows, so it is still the bloated one: cut towards what it achieves */
	m = gw_ar_sample(&c, 0, 100, NAN, NAN, 1.6);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(5)) < 1, "RTT: loaded until just now: cut, "
	      "0.9 x 3 Mbit/s held at min 5 (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, false, 1.6);	/* refused: as if not made, the rate stays 34.2 */
	/* unloaded for over GW_AR_LOADED_MEMORY_S: with RTT alone not the bloated one */
	gw_ar_load(&c, 0, MBIT(3), 2.0);
	gw_ar_load(&c, 0, MBIT(3), 3.9);
	m = gw_ar_sample(&c, 0, 100, NAN, NAN, 4.0);
	CHECK(m == 0 && !c.dir[0].bloated, "RTT: a direction unloaded for 2 s is not cut");
	gw_ar_load(&c, 0, MBIT(30), 4.1);
	m = gw_ar_sample(&c, 0, 100, NAN, NAN, 4.1);
	/* the queue (~80 ms smoothed) takes more than GW_AR_DRAIN_S to drain at 0.9: deeper */
	CHECK(m == 1 && c.dir[0].want < MBIT(27) && c.dir[0].want >= MBIT(15), "cut: after the "
	      "hold, again, below 0.9 x achieved (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 4.1);
	for (int i = 0; i < 40; i++) {
		double t = 4.7 + i * 0.6;

		gw_ar_load(&c, 0, c.dir[0].rate, t);
		if (gw_ar_sample(&c, 0, 100, NAN, NAN, t))
			gw_ar_done(&c, 0, true, t);
	}
	CHECK(c.dir[0].rate == MBIT(5), "cut: never under min (%.2f Mbit/s)",
	      c.dir[0].rate / 125000);
	/* a refused change: the old rate stays, and it is not asked again at once */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(38), 1);
	for (int i = 0; i < 3; i++)
		m = gw_ar_sample(&c, 0, 100, NAN, NAN, 1.01 + i * 0.01);
	gw_ar_done(&c, 0, false, 1.03);
	CHECK(c.dir[0].rate == MBIT(40) && c.dir[0].want == MBIT(40) &&
	      !c.dir[0].changes[GW_AR_BLOAT], "refused: the old rate kept, nothing counted");
	CHECK(gw_ar_sample(&c, 0, 100, NAN, NAN, 1.1) == 0, "refused: held like a cut");
}

/* feed n samples of rtt ms to reflector 0 from t, 10 ms apart; the directions that moved */
static unsigned int feed(struct gw_ar_ctl *c, int n, double rtt, double t)
{
	unsigned int m = 0;

	for (int i = 0; i < n; i++)
		m |= gw_ar_sample(c, 0, rtt, NAN, NAN, t + i * 0.01);
	return m;
}

static void test_drain(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m;

	/* a deep queue: cut deeper than 0.9, enough to drain it within a second */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 1, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(36), 1);
	gw_ar_load(&c, 0, MBIT(36), 1.2);
	m = feed(&c, 30, 301, 1.2);	/* the smoothed delay reaches ~300 ms */
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(36) * GW_AR_CUT_DEEPEST) < 1,
	      "deep queue: cut to half the achieved rate, the deepest (%.2f)",
	      c.dir[0].want / 125000);
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 1, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(36), 1);
	gw_ar_load(&c, 0, MBIT(36), 1.2);
	m = feed(&c, 30, 61, 1.2);	/* ~60 ms: 1 - 0.06 / 0.3 = 0.8 */
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(36) * 0.8) < MBIT(0.3),
	      "a 60 ms queue: cut to 0.8 x achieved, to drain in 300 ms (%.2f)",
	      c.dir[0].want / 125000);
	/* a cut towards the larger of the last two passes: a collapse does not drag it down
	 * (the last pass began after the bloat did: the achieved rates are the line's) */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 1, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(20), 1);
	m = feed(&c, 3, 21, 1.1);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(36)) < 1, "cut: unloaded, a new bloat: the rate "
	      "in force x 0.9 (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.15);
	gw_ar_load(&c, 0, MBIT(30), 1.2);
	gw_ar_load(&c, 0, MBIT(6), 1.4);
	m = feed(&c, 3, 21, 1.7);
	/* 30 in the pass the queue grew 9.8 ms in (0.2 s): 30 / 1.049 = 28.6 carried, x 0.9 */
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(30) / 1.0488 * 0.9) < MBIT(0.1), "cut: towards "
	      "the larger of two passes, less what went into the queue (%.2f)",
	      c.dir[0].want / 125000);
	/* the queue at 50 ms when the cut is taken */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 1, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(36), 1);
	m = feed(&c, 30, 51, 1.1);
	gw_ar_done(&c, 0, true, 1.4);
	/* then draining fast (50 -> 20 ms within the hold): no further cut */
	gw_ar_load(&c, 0, MBIT(32), 1.5);
	m = feed(&c, 40, 21, 1.5);
	CHECK(m == 0 && c.dir[0].bloated && c.dir[0].changes[GW_AR_BLOAT] == 1,
	      "draining fast enough: not cut again (delta %.1f)", c.dir[0].delta_ms);
	/* standing at 15 ms: cut again within a few holds */
	m = feed(&c, 150, 18, 1.9);
	CHECK(m == 1, "a queue that stands is cut again");
}

/* Slow start's burst fills the line's buffer while the flows carry a fraction of the rate: the
 * first cut is of the rate, and only a bloat that outlasts it goes towards the achieved rate. */
static void test_slow_start(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80), down = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m;

	ctl_init(&c, &up, &down);
	gw_ar_sample(&c, 0, 40, 20, 20, 1);
	gw_ar_load(&c, 1, MBIT(8), 1.2);	/* ramping: 8 of 40 */
	gw_ar_load(&c, 1, MBIT(12), 1.4);
	m = 0;
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(&c, 0, 100, 20, 80, 1.45 + i * 0.01);
	CHECK(m == 2 && fabs(c.dir[1].want - MBIT(36)) < 1, "slow start: cut from the rate, not "
	      "towards the 12 Mbit/s the ramping flows carry (%.2f)", c.dir[1].want / 125000);
	gw_ar_done(&c, 1, true, 1.47);
	/* the burst drains within the hold: the episode ends, nothing more is cut */
	for (int i = 0; i < 8; i++)
		gw_ar_sample(&c, 0, 45, 20, 25, 1.5 + i * 0.01);
	gw_ar_load(&c, 1, MBIT(34), 1.6);
	gw_ar_load(&c, 1, MBIT(35), 1.8);
	m = 0;
	for (int i = 0; i < 8; i++)
		m |= gw_ar_sample(&c, 0, 45, 20, 25, 2.0 + i * 0.01);
	CHECK(m == 0 && !c.dir[1].bloated && c.dir[1].rate == MBIT(36),
	      "slow start: a burst that drains is cut once (%.2f)", c.dir[1].rate / 125000);
	/* a bloat that stands through a whole pass while unloaded: the line's capacity fell;
	 * the next cut goes towards what the passes since measured */
	ctl_init(&c, &up, &down);
	gw_ar_sample(&c, 0, 40, 20, 20, 1);
	gw_ar_load(&c, 1, MBIT(6), 1.2);
	for (int i = 0; i < 3; i++)
		gw_ar_sample(&c, 0, 100, 20, 80, 1.25 + i * 0.01);
	gw_ar_done(&c, 1, true, 1.27);
	CHECK(c.dir[1].rate == MBIT(36), "capacity fell: first cut from the rate");
	gw_ar_load(&c, 1, MBIT(10), 1.4);
	gw_ar_load(&c, 1, MBIT(10), 1.6);
	m = 0;
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(&c, 0, 100, 20, 80, 1.8 + i * 0.01);
	CHECK(m == 2 && c.dir[1].want <= MBIT(9) && c.dir[1].want >= MBIT(5),
	      "capacity fell: after the hold, towards the 10 Mbit/s measured (%.2f)",
	      c.dir[1].want / 125000);
}

static void test_raise(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 50);
	struct gw_ar_ctl c;
	unsigned int m;
	int raises = 0;

	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	m = gw_ar_load(&c, 0, MBIT(20), 1);
	CHECK(m == 0, "raise: not at half the rate");
	m = gw_ar_load(&c, 0, MBIT(31), 1.2);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(41.6)) < 1 && c.dir[0].want_reason == GW_AR_LOAD,
	      "raise: loaded (31 >= 0.75 x 40), x1.04");
	gw_ar_done(&c, 0, true, 1.2);
	m = gw_ar_load(&c, 0, MBIT(41), 1.3);
	CHECK(m == 0, "raise: paced, not within 200 ms of the last");
	m = gw_ar_load(&c, 0, MBIT(41), 1.38);
	CHECK(m == 1, "raise: a pass 20 ms early is not skipped");
	gw_ar_done(&c, 0, true, 1.38);
	/* flows that press on the shaper (achieved = rate): the raises in a row grow, 4%, 4%,
	 * 8%, 8%, 12% ..., never over max */
	{
		double r0 = c.dir[0].rate, r1;

		m = gw_ar_load(&c, 0, r0, 1.6);
		r1 = c.dir[0].want;
		CHECK(m == 1 && fabs(r1 - r0 * 1.08) < 1, "raise: the third raise in a row of "
		      "pressing flows is twice the factor (%.3f)", r1 / r0);
		gw_ar_done(&c, 0, true, 1.6);
	}
	for (int i = 0; i < 40; i++) {
		double t = 1.8 + i * 0.2;

		if (gw_ar_load(&c, 0, c.dir[0].rate, t)) {
			gw_ar_done(&c, 0, true, t);
			raises++;
		}
	}
	CHECK(c.dir[0].rate == MBIT(50) && raises == 1, "raise: never over max (%.2f, %d raises)",
	      c.dir[0].rate / 125000, raises);
	/* flows under 90% of the rate: every raise the configured one */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	raises = 0;
	for (int i = 0; i < 4; i++) {
		double t = 1.2 + i * 0.2, r0 = c.dir[0].rate;

		if (gw_ar_load(&c, 0, 0.85 * r0, t) && fabs(c.dir[0].want - r0 * 1.04) < 1)
			raises++;
		gw_ar_done(&c, 0, true, t);
	}
	CHECK(raises == 4, "raise: flows at 85%% of the rate: four raises of 4%% (%d)", raises);
	/* bloat blocks a raise */
	ctl_init(&c, &up, NULL);
	gw_ar_load(&c, 0, MBIT(39), 1);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	for (int i = 0; i < 3; i++)
		m = gw_ar_sample(&c, 0, 100, NAN, NAN, 1.01 + i * 0.01);
	gw_ar_done(&c, 0, true, 1.03);
	m = gw_ar_load(&c, 0, MBIT(36), 1.6);
	CHECK(m == 0, "raise: not while bloated");
	for (int i = 0; i < 6; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.7 + i * 0.002);
	m = gw_ar_load(&c, 0, MBIT(36), 1.75);
	CHECK(m == 0 && !c.dir[0].bloated, "raise: not while the smoothed delay is over half the "
	      "threshold (%.1f ms), bloat or not", c.dir[0].delta_ms);
	for (int i = 0; i < 14; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.76 + i * 0.002);
	m = gw_ar_load(&c, 0, MBIT(36), 1.8);
	CHECK(m == 1, "raise: once the samples are quiet and the hold is over");
	/* a queue building under the threshold: no raise past where it began */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	for (int i = 0; i < 20; i++)
		gw_ar_sample(&c, 0, 16.5, NAN, NAN, 1.01 + i * 0.01);
	m = gw_ar_load(&c, 0, MBIT(39), 1.3);
	CHECK(m == 0 && !c.dir[0].bloated, "raise: a 6.5 ms queue (threshold 10.3) holds the rate "
	      "(%.1f ms)", c.dir[0].delta_ms);
	for (int i = 0; i < 20; i++)
		gw_ar_sample(&c, 0, 14, NAN, NAN, 1.31 + i * 0.01);
	m = gw_ar_load(&c, 0, MBIT(39), 1.6);
	CHECK(m == 1, "raise: a 4 ms one does not (%.1f ms)", c.dir[0].delta_ms);
}

/* A line measured at 30 Mbit/s: a 15 ms queue at 1.21 s after two loaded passes at 30, cut
 * to 27 at 1.23 s. */
static void line_at_30(struct gw_ar_ctl *c, const struct gw_autorate_cfg *up)
{
	ctl_init(c, up, NULL);
	gw_ar_sample(c, 0, 10, NAN, NAN, 1);
	gw_ar_load(c, 0, MBIT(30), 1.0);
	gw_ar_load(c, 0, MBIT(30), 1.2);
	for (int i = 0; i < 3; i++)
		gw_ar_sample(c, 0, 25, NAN, NAN, 1.21 + i * 0.01);
	gw_ar_done(c, 0, true, 1.23);
}

/* The line a cut measured guides the raises: up to 3% under it, fine steps within 3% of
 * it, growing ones past it; after a deep cut straight back to cut times it; a queue that
 * stands under the threshold eases the rate below it. */
static void test_line(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m;
	double t, r;
	int fine = 0;

	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(30), 1.0);
	gw_ar_load(&c, 0, MBIT(30), 1.2);	/* loaded (30 >= 0.75 x 40): the line's rate */
	m = 0;
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(&c, 0, 25, NAN, NAN, 1.21 + i * 0.01);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(27)) < 1, "line: a 15 ms queue cut towards "
	      "the 30 Mbit/s carried, times 0.9 (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.23);
	CHECK(c.dir[0].line == MBIT(30) && !c.dir[0].deep, "line: measured at 30 Mbit/s, not deep");
	for (int i = 0; i < 14; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.3 + i * 0.01);
	/* from 27: 4% (28.08), then to the band's edge 29.1, not 4% past it */
	m = gw_ar_load(&c, 0, MBIT(27), 1.8);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(28.08)) < 1, "line: first raise 4%% (%.2f)",
	      c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.8);
	m = gw_ar_load(&c, 0, c.dir[0].rate, 2.0);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(29.1)) < 1, "line: the next stops at 3%% under "
	      "the line (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 2.0);
	/* within the band: 1% a step, until past 30.9 (29.1 x 1.01^7) */
	for (t = 2.2; c.dir[0].rate < MBIT(30.9) && t < 10; t += 0.2) {
		r = c.dir[0].rate;
		if (gw_ar_load(&c, 0, r, t) && fabs(c.dir[0].want - r * 1.01) < 1)
			fine++;
		gw_ar_done(&c, 0, true, t);
	}
	CHECK(fine == 7 && c.dir[0].rate >= MBIT(30.9), "line: seven raises of 1%% across the band "
	      "(%d, at %.2f)", fine, c.dir[0].rate / 125000);
	/* past it the line carries more than it did: 4%, 4%, then 8% */
	r = c.dir[0].rate;
	gw_ar_load(&c, 0, r, t);
	CHECK(fabs(c.dir[0].want - r * 1.04) < 1, "line: past the band, 4%% again (%.3f)",
	      c.dir[0].want / r);
	gw_ar_done(&c, 0, true, t);
	/* near the line, under load, a queue caught early (2 of the last 3 samples over half the
	 * threshold, 5.2 ms) is eased at once to the band's lower edge, counted as "queue" */
	line_at_30(&c, &up);
	gw_ar_set_rate(&c, 0, MBIT(30.5));
	for (int i = 0; i < 30; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.3 + i * 0.02);
	gw_ar_load(&c, 0, MBIT(30), 1.9);
	m = gw_ar_sample(&c, 0, 17, NAN, NAN, 1.91);
	CHECK(m == 0, "early: one sample 7 ms over is not enough");
	m = gw_ar_sample(&c, 0, 17, NAN, NAN, 1.92);
	CHECK(m == 0, "early: nor two spikes of 7 ms (the smoothed delay %.1f ms, under 0.4 of "
	      "the threshold)", c.dir[0].delta_ms);
	for (int i = 0; i < 30; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.93 + i * 0.001);
	m = gw_ar_sample(&c, 0, 14, NAN, NAN, 1.96);
	m |= gw_ar_sample(&c, 0, 17, NAN, NAN, 1.97);
	m |= gw_ar_sample(&c, 0, 20, NAN, NAN, 1.98);
	CHECK(m == 0, "early: a queue building, 4, 7, 10 ms: not yet (smoothed %.1f ms)",
	      c.dir[0].delta_ms);
	m = gw_ar_sample(&c, 0, 20, NAN, NAN, 1.99);
	CHECK(m == 1 && c.dir[0].want_reason == GW_AR_QUEUE && !c.dir[0].bloated &&
	      fabs(c.dir[0].want - MBIT(29.1)) < MBIT(0.05), "early: at 10 ms again (smoothed "
	      "%.1f, over 0.4 of the threshold), near the line: eased to 3%% under the 30 Mbit/s "
	      "carried (%.2f)", c.dir[0].delta_ms, c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.99);
	CHECK(c.dir[0].changes[GW_AR_QUEUE] == 1 && c.dir[0].last_reason == GW_AR_QUEUE &&
	      fabs(c.dir[0].line - MBIT(30)) < MBIT(0.01), "early: counted as reason queue; the "
	      "line kept (the pass showed no queue: %.2f)", c.dir[0].line / 125000);
	m = 0;
	for (int i = 0; i < 10; i++)
		m |= gw_ar_sample(&c, 0, 19, NAN, NAN, 2.0 + i * 0.02);
	CHECK(m == 0, "early: once per hold");
	m = gw_ar_load(&c, 0, MBIT(29), 2.2);
	CHECK(m == 0, "early: no raise within the hold after it");
	/* away from any measured line (none yet), a queue standing under the threshold for 0.5 s
	 * (6.5 ms; threshold 10.3) steps the rate down by one raise */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	for (int i = 0; i < 20; i++)
		gw_ar_sample(&c, 0, 16.5, NAN, NAN, 1.01 + i * 0.01);
	m = gw_ar_load(&c, 0, MBIT(39), 1.3);
	CHECK(m == 0 && !c.dir[0].bloated, "queue: a 6.5 ms queue, no line known: not at once");
	for (int i = 0; i < 30; i++)
		m |= gw_ar_sample(&c, 0, 16.5, NAN, NAN, 1.31 + i * 0.01);
	CHECK(m == 0, "queue: ...nor from the samples, away from a line");
	m = gw_ar_load(&c, 0, MBIT(39), 1.6);
	CHECK(m == 0, "queue: nor at 0.3 s");
	m = gw_ar_load(&c, 0, MBIT(39), 1.8);
	CHECK(m == 1 && c.dir[0].want_reason == GW_AR_QUEUE &&
	      fabs(c.dir[0].want - MBIT(39) * 0.97) < MBIT(0.05),
	      "queue: standing 0.5 s: 3%% under the 39 Mbit/s carried (%.2f)",
	      c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.8);
	CHECK(c.dir[0].line == 0, "queue: a queue that stands without growing measures no line "
	      "(%.2f): the flows were the shaper's", c.dir[0].line / 125000);
	/* a deep cut (a 100 ms queue) resumes at cut times the line once drained */
	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(30), 1.0);
	gw_ar_load(&c, 0, MBIT(30), 1.2);
	for (int i = 0; i < 10; i++)
		gw_ar_sample(&c, 0, 110, NAN, NAN, 1.21 + i * 0.01);
	CHECK(c.dir[0].want < MBIT(27) && c.dir[0].want >= MBIT(15), "deep: a 100 ms queue cut "
	      "deeper than 0.9 (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.3);
	CHECK(c.dir[0].deep && c.dir[0].line == MBIT(30), "deep: the line is still 30 Mbit/s");
	for (int i = 0; i < 20; i++)
		gw_ar_sample(&c, 0, 10, NAN, NAN, 1.5 + i * 0.01);
	m = gw_ar_load(&c, 0, c.dir[0].rate, 1.85);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(27)) < 1, "deep: drained, straight back to "
	      "0.9 x the line (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.85);
	CHECK(!c.dir[0].deep, "deep: once");
	/* the line is forgotten after 30 s: plain raises again */
	r = c.dir[0].rate;
	gw_ar_load(&c, 0, 0.85 * r, 40);
	CHECK(fabs(c.dir[0].want - r * 1.04) < 1, "line: forgotten after 30 s (%.3f)",
	      c.dir[0].want / r);
}

/* A capacity that drops: the cut from the rate in force is followed, within the hold, by one
 * towards what the line carried as soon as a pass has been seen wholly inside the bloat. */
static void test_drop(void)
{
	struct gw_autorate_cfg up = ar_cfg(2, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m = 0;

	ctl_init(&c, &up, NULL);
	gw_ar_sample(&c, 0, 10, NAN, NAN, 1);
	gw_ar_load(&c, 0, MBIT(39), 1.0);
	gw_ar_load(&c, 0, MBIT(20), 1.2);	/* the drop halfway through this pass */
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(&c, 0, 60, NAN, NAN, 1.21 + i * 0.01);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(36)) < 1 && !c.dir[0].want_proven,
	      "drop: first cut from the rate (%.2f)", c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.23);
	m = gw_ar_sample(&c, 0, 70, NAN, NAN, 1.3);
	CHECK(m == 0, "drop: no pass yet inside the bloat: nothing more");
	gw_ar_load(&c, 0, MBIT(12), 1.4);	/* began before the bloat was judged */
	m = gw_ar_sample(&c, 0, 80, NAN, NAN, 1.41);
	CHECK(m == 0, "drop: a pass begun before the bloat was judged says nothing yet");
	gw_ar_load(&c, 0, MBIT(12), 1.6);	/* a whole pass inside it: 12 Mbit/s */
	m = gw_ar_sample(&c, 0, 80, NAN, NAN, 1.61);
	CHECK(m == 1 && c.dir[0].want <= MBIT(10.8) && c.dir[0].want >= MBIT(6),
	      "drop: within the hold, towards the 12 Mbit/s of that pass (%.2f)",
	      c.dir[0].want / 125000);
	gw_ar_done(&c, 0, true, 1.61);
	CHECK(c.dir[0].line <= MBIT(12) && c.dir[0].line >= MBIT(10.5), "drop: the line measured "
	      "at the 12 Mbit/s of that pass, less what went into the queue (%.2f)",
	      c.dir[0].line / 125000);
	m = gw_ar_sample(&c, 0, 80, NAN, NAN, 1.7);
	CHECK(m == 0, "drop: then the hold");
}

static void test_idle(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	int steps = 0;

	ctl_init(&c, &up, NULL);
	gw_ar_set_rate(&c, 0, MBIT(12));
	for (int i = 0; i <= 25; i++)	/* 5 s idle: nothing yet */
		steps += gw_ar_load(&c, 0, MBIT(1), 1 + i * 0.2) != 0;
	CHECK(steps == 1 && c.dir[0].want_reason == GW_AR_IDLE && c.dir[0].state == GW_AR_ST_IDLE,
	      "idle: a first step after idle_after (%d)", steps);
	for (int i = 26; i < 200; i++)
		if (gw_ar_load(&c, 0, MBIT(1), 1 + i * 0.2))
			gw_ar_done(&c, 0, true, 1 + i * 0.2);
	CHECK(c.dir[0].rate == MBIT(40) && c.dir[0].changes[GW_AR_IDLE] > 10,
	      "idle: back to base, step by step (%.2f, %llu steps)", c.dir[0].rate / 125000,
	      (unsigned long long)c.dir[0].changes[GW_AR_IDLE]);
	gw_ar_set_rate(&c, 0, MBIT(60));
	if (gw_ar_load(&c, 0, MBIT(1), 100))
		gw_ar_done(&c, 0, true, 100);
	CHECK(fabs(c.dir[0].rate - MBIT(60) / 1.04) < 1, "idle: down towards base from above");
	/* load in between starts the idle time again */
	ctl_init(&c, &up, NULL);
	gw_ar_set_rate(&c, 0, MBIT(12));
	gw_ar_load(&c, 0, MBIT(1), 1);
	gw_ar_load(&c, 0, MBIT(11), 4);
	CHECK(gw_ar_load(&c, 0, MBIT(1), 8) == 0, "idle: the time counts from the last load");
}

/* A fresh controller (40 Mbit/s both ways) with the directions loaded at t 1 (bytes/s up and
 * down; NAN: not loaded), a baseline sample of 20 ms round trip and base_owd each way, then
 * three samples of rtt, up and down ms: the directions those cut, as a mask. */
static unsigned int bloat_after_base(struct gw_ar_ctl *c, const struct gw_autorate_cfg *up,
				     const struct gw_autorate_cfg *down, double load_up,
				     double load_down, double base_owd, double rtt, double owd_up,
				     double owd_down)
{
	unsigned int m = 0;

	ctl_init(c, up, down);
	gw_ar_load(c, 0, load_up, 1);
	if (!isnan(load_down))
		gw_ar_load(c, 1, load_down, 1);
	gw_ar_sample(c, 0, 20, base_owd, base_owd, 1);
	for (int i = 0; i < 3; i++)
		m |= gw_ar_sample(c, 0, rtt, owd_up, owd_down, 1.01 + i * 0.01);
	return m;
}

static void test_owd_vs_rtt(void)
{
	struct gw_autorate_cfg up = ar_cfg(5, 40, 80), down = ar_cfg(5, 40, 80);
	struct gw_ar_ctl c;
	unsigned int m = 0;

	/* one-way delays: only the direction that bloats is cut, loaded or not */
	m = bloat_after_base(&c, &up, &down, MBIT(39), MBIT(39), 10, 60, 10, 50);
	CHECK(m == 2 && c.dir[1].bloated && !c.dir[0].bloated, "OWD: only download cut (m %u)", m);
	/* a 5 ms standing the download's way and 7 ms the upload's: neither over its own 10 ms,
	 * the round trip's 12 over the threshold: the larger share, the upload's, is cut */
	m = bloat_after_base(&c, &up, &down, MBIT(39), MBIT(39), 10, 32, 17, 15);
	CHECK(m == 1 && c.dir[0].bloated && !c.dir[1].bloated, "OWD: the round trip over the "
	      "threshold, the larger share cut (m %u)", m);
	/* the same 5 ms with the upload at 4: the round trip is within it, nothing is cut */
	m = bloat_after_base(&c, &up, &down, MBIT(39), MBIT(39), 10, 29, 14, 15);
	CHECK(m == 0 && !c.dir[0].bloated && !c.dir[1].bloated, "OWD: 4 + 5 ms is no bloat (m %u)",
	      m);
	/* round trips alone: both loaded directions are cut */
	m = bloat_after_base(&c, &up, &down, MBIT(39), MBIT(39), NAN, 60, NAN, NAN);
	CHECK(m == 3, "RTT: both loaded directions cut (m %u)", m);
	/* round trips alone: only the loaded one */
	m = bloat_after_base(&c, &up, &down, MBIT(39), MBIT(2), NAN, 60, NAN, NAN);
	CHECK(m == 1, "RTT: only the loaded direction cut (m %u)", m);
	/* a line far below the starting rate: never loaded by load_threshold; the busiest
	 * direction (12 of 40, ACKs the other way) is the bloated one */
	m = bloat_after_base(&c, &up, &down, MBIT(12), MBIT(0.5), NAN, 60, NAN, NAN);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(40) * 0.9) < MBIT(0.1), "RTT: nothing loaded: the "
	      "busiest direction cut, from its rate (m %u, %.2f)", m, c.dir[0].want / 125000);
	/* a pass that saw the bloat whole: towards what that direction carried */
	gw_ar_load(&c, 0, MBIT(12), 1.2);
	gw_ar_load(&c, 1, MBIT(0.5), 1.2);
	gw_ar_load(&c, 0, MBIT(12), 1.4);
	gw_ar_load(&c, 1, MBIT(0.5), 1.4);
	m = gw_ar_sample(&c, 0, 60, NAN, NAN, 1.45);
	CHECK(m == 1 && fabs(c.dir[0].want - MBIT(12) * 0.9) < MBIT(0.1), "RTT: then towards its "
	      "achieved rate (m %u, %.2f)", m, c.dir[0].want / 125000);
	/* a one-way sample with one side missing is judged as a round trip */
	m = bloat_after_base(&c, &up, &down, MBIT(39), NAN, NAN, 60, 50, NAN);
	CHECK(m == 1 && c.rtt.n == 4, "OWD: half a pair is a round trip");
}

/* the history keeps the shaper's rate of autorate's totals only, 2 bytes a point */
static void test_history(void)
{
	struct gw_history *h = gw_history_new(2, 1000000);
	struct gw_hist_point p[4];
	size_t before;
	int n;

	if (!CHECK(h != NULL, "history: made"))
		return;
	gw_history_track_latency(h, 1);
	before = gw_history_bytes(h);
	CHECK(gw_history_track_shaper(h, 0) == 0, "history: series 0 keeps the shaper's rate");
	CHECK_EQ_INT(gw_history_bytes(h) - before, (900 + 1440) * 6 + (900 + 1440) * 2,
		     "history: latency (6 bytes) and the shaper (2 bytes) a raw and a minute point");
	gw_history_pass(h, 1000);
	gw_history_push(h, 0, 8e6, 1, 0, 0);
	gw_history_push(h, 1, 8e6, 1, 0, 0);
	gw_history_push_shaper(h, 0, 12e6);
	gw_history_push_shaper(h, 1, 12e6);	/* not tracked: ignored */
	gw_history_pass(h, 1001);
	n = gw_history_query(h, 0, 0, 2000, false, p, 4);
	CHECK(n == 2 && p[0].has_shaper && fabsf(p[0].shaper_bps - 12e6f) < 12e6f * 0.001f &&
	      isnan(p[1].shaper_bps), "history: the shaper's rate, and none in a pass without it");
	n = gw_history_query(h, 1, 0, 2000, false, p, 4);
	CHECK(n == 2 && !p[0].has_shaper, "history: an untracked series has no shaper column");
	gw_history_free(h);
}

int main(void)
{
	test_config_defaults();
	test_config_link_probe();
	test_config_all_keys();
	test_config_bad();
	test_baseline();
	test_k_of_n();
	test_threshold_serialisation();
	test_cut_floor_and_hold();
	test_drain();
	test_slow_start();
	test_raise();
	test_line();
	test_drop();
	test_idle();
	test_owd_vs_rtt();
	test_history();
	return tap_done();
}
