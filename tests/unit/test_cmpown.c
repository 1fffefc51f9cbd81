/* tests/unit/test_cmpown.c: `--compare -c CONFIG`'s runs (bench/config_link.c, no
 * root, no kernel): the picks it makes, the rates it takes, and the config each run's daemon
 * gets: the one link, on the bench's devices, with the user's classes, matches and queues,
 * and nothing else of the user's file; with --qdiscs, that queue in every leaf. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "bench/config_link.h"
#include "bench/options.h"
#include "bench/queues.h"
#include "bench/testbed.h"
#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"
#include "webui/benchfile.h"
#include "webui/lastcmp.h"

static const char conf_text[] =
	"listen = \"0.0.0.0:8080\";\n"
	"compare_dir = \"/var/tmp/somewhere\";\n"
	"probe = { targets = [ \"192.0.2.1\" ]; };\n"
	"links = ( { name = \"other\"; interface = \"eth8\";\n"
	"  egress = { shaper = \"htb\"; rate = \"1mbit\"; };\n"
	"  ingress = { shaper = \"htb\"; rate = \"1mbit\"; }; },\n"
	" { name = \"home\"; interface = \"eth9\"; probe = { targets = [ \"192.0.2.9\" ]; };\n"
	"  egress = { shaper = \"htb\"; rate = \"8mbit\";\n"
	"    autorate = { min = \"2mbit\"; max = \"10mbit\"; };\n"
	"    classes = ( { name = \"voice\"; rate = \"2mbit\"; match = ( { proto = \"icmp\"; } );\n"
	"                  child = { kind = \"fifo\"; limit = 50; }; },\n"
	"                { name = \"bulk\"; rate = \"6mbit\"; default = true;\n"
	"                  child = { kind = \"fq_codel\"; quantum = 300; }; } ); };\n"
	"  ingress = { shaper = \"htb\"; rate = \"16500kbit\"; ifb = \"ifb-home\";\n"
	"    child = { kind = \"fq_codel\"; }; }; } );\n";

static char path[64];
static struct bench_opts o;
static char err[1024];

static int setup(const char *link, const char *qdiscs)
{
	struct bench_pick user[GW_BENCH_MAX_QUEUES];
	size_t n = 0;

	bench_own_free(&o);
	memset(&o, 0, sizeof(o));
	snprintf(o.config, sizeof(o.config), "%s", path);
	snprintf(o.own_link, sizeof(o.own_link), "%s", link);
	err[0] = 0;
	if (qdiscs && bench_parse_qdiscs(qdiscs, user, GW_BENCH_MAX_QUEUES, &n, err, sizeof(err)))
		return -EINVAL;
	return bench_own_setup(&o, user, n, err, sizeof(err));
}

static struct gw_config *load_run(size_t i)
{
	struct gw_config *c = NULL;
	char e[512] = "";

	if (!CHECK(o.pick[i].conf && gw_config_load_string("run", o.pick[i].conf, &c, e,
							    sizeof(e)) == 0,
		   "run %zu's config loads (%s)", i, e))
		return NULL;
	return c;
}

static void test_as_written(void)
{
	struct gw_config *c;
	const char *t;

	if (!CHECK(setup("home", NULL) == 0, "-c with --link home is taken (%s)", err))
		return;
	CHECK_EQ_INT(o.n_qdiscs, 2, "two runs: the fifo and the link");
	CHECK_EQ_STR(o.pick[0].label, "fifo", "the first is the fifo");
	CHECK(!o.pick[0].own && !o.pick[0].conf, "on the bench's own tree");
	CHECK_EQ_STR(o.pick[1].label, "home", "the second is the link, by its name");
	CHECK(o.pick[1].own, "on the config's tree");
	CHECK(o.rate[0] == 1000000 && o.rate[1] == 2062500,
	      "the link's rates: 8 Mbit/s up, 16.5 down (%llu, %llu bytes/s)",
	      (unsigned long long)o.rate[0], (unsigned long long)o.rate[1]);
	CHECK_EQ_STR(o.dir_text[0], "8mbit", "the up rate's text");
	CHECK_EQ_STR(o.dir_text[1], "16500kbit", "the down rate's text");
	CHECK(o.own_autorate, "its autorate is noted as left out");
	/* the kinds the kernel must have: the voice class's fifo and the rest's fq_codel */
	uint32_t want = 0;
	const struct bench_queue *x;

	for (int q = 0; (x = bench_queue((enum bench_qdisc)q)); q++)
		if (!x->shaper && (!strcmp(x->name, "fifo") || !strcmp(x->name, "fq_codel")))
			want |= 1u << q;
	CHECK(o.pick[1].needs == want, "it needs fifo and fq_codel (0x%x, want 0x%x)",
	      o.pick[1].needs, want);
	CHECK(!strcmp(bench_qdisc_name(o.pick[1].q), "fifo"), "its queue is its first leaf's (%s)",
	      bench_qdisc_name(o.pick[1].q));
	t = o.pick[1].conf;
	if (!CHECK(t != NULL, "its config text"))
		return;
	if (!CHECK(!strstr(t, "8080") && !strstr(t, "192.0.2.1") &&
	      !strstr(t, "192.0.2.9") && !strstr(t, "somewhere") &&
	      !strstr(t, "eth8") && !strstr(t, "eth9") && !strstr(t, "autorate") &&
	      !strstr(t, "ifb-home"),
	      "nothing of the file but the link, and not its devices, probe or autorate"))
		fprintf(stderr, "%s", t);
	if (!(c = load_run(1)))
		return;
	CHECK(c->n_links == 1 && !strcmp(c->links[0].name, "home") &&
	      !strcmp(c->links[0].interface, BENCH_GW_WAN) &&
	      !strcmp(c->links[0].dir[GW_DIR_INGRESS].ifb, BENCH_GW_IFB),
	      "one link, home, on the gateway's %s and the bench's %s", BENCH_GW_WAN, BENCH_GW_IFB);
	CHECK(c->n_listen == 1 && !strcmp(c->listen[0], "127.0.0.1:9180") &&
	      c->control_socket && !c->control_socket[0] && !c->probe.present,
	      "the bench's listen, no control socket, no probe");
	const struct gw_dir_cfg *eg = &c->links[0].dir[GW_DIR_EGRESS];

	CHECK(!eg->autorate.present && eg->rate == 1000000, "egress: 8mbit, no autorate");
	if (CHECK(eg->n_classes == 2, "egress: its two classes (%zu)", eg->n_classes)) {
		CHECK(eg->classes[0].child.kind == GW_KIND_FIFO && eg->classes[0].n_match == 1 &&
		      eg->classes[0].child.opts.fifo.limit == 50,
		      "voice: its match and its 50-packet fifo");
		CHECK(eg->classes[1].child.kind == GW_KIND_FQ_CODEL &&
		      eg->classes[1].child.opts.fq_codel.quantum == 300,
		      "bulk: fq_codel at quantum 300");
	}
	gw_config_free(c);
}

static void test_swaps(void)
{
	enum gw_kind sfq = gw_qdisc_kind(gw_qdisc_ops_by_name("sfq"));

	if (!CHECK(setup("home", "sfq,fq_codel:target=2ms") == 0, "--qdiscs sfq,fq_codel:target=2ms (%s)",
		   err))
		return;
	CHECK_EQ_INT(o.n_qdiscs, 4, "four runs");
	CHECK_EQ_STR(o.pick[2].label, "home+sfq", "a swap's label");
	CHECK_EQ_STR(o.pick[3].label, "home+fq_codel:target=2ms", "with its knobs");
	for (size_t i = 2; i < 4; i++) {
		struct gw_config *c = load_run(i);

		if (!c)
			continue;
		size_t leaves = 0, right = 0;

		for (int d = 0; d < 2; d++) {
			const struct gw_dir_cfg *dc = &c->links[0].dir[d];

			/* the ingress has no classes: its htb's one class has the child */
			for (size_t k = 0; k < (dc->n_classes ? dc->n_classes : 1); k++, leaves++) {
				const struct gw_child *ch = dc->n_classes ? &dc->classes[k].child :
									    &dc->child;

				right += i == 2 ? ch->kind == sfq :
					ch->kind == GW_KIND_FQ_CODEL &&
					ch->opts.fq_codel.target_us == 2000;
			}
		}
		CHECK(leaves == 3 && right == 3, "%s: every leaf (%zu of 3) is the queue asked (%zu)",
		      o.pick[i].label, leaves, right);
		CHECK(c->links[0].dir[0].classes[0].n_match == 1, "%s: the matches stay",
		      o.pick[i].label);
		gw_config_free(c);
	}
}

static void test_refusals(void)
{
	CHECK(setup("", NULL) == -EINVAL && strstr(err, "2 links (other, home): --link NAME"),
	      "two links and no --link: refused (%s)", err);
	CHECK(setup("nope", NULL) == -EINVAL && strstr(err, "no link named 'nope'"),
	      "an unknown --link: refused (%s)", err);
	CHECK(setup("home", "cake-shaper") == -EINVAL && strstr(err, "shapes by itself"),
	      "a self-shaping queue as a leaf: refused (%s)", err);
	CHECK(setup("home", "fifo,fifo,fifo,fifo,fifo,fifo,fifo") == -EINVAL &&
	      strstr(err, "at most 6 queues"), "more swaps than the bench holds: refused (%s)", err);
	CHECK(setup("other", NULL) == 0 && o.rate[0] == 125000 && o.rate[1] == 125000 &&
	      !o.own_autorate, "--link other: the other link, at its own rates (%s)", err);
}

/* The status page's summary (/api/compare) keeps a config's runs' labels, which are no
 * queue's name and knobs, and says which tree each is; a bench run's label must still be its
 * queue's. */
static void test_page(void)
{
	static const char text[] =
		"{\"schema\":\"gatewayd-compare\",\"version\":1,\"gatewayd_version\":\"0.1.0\","
		"\"generated_unix\":1,\"kernel\":\"host\",\"kernel_release\":\"6.1\","
		"\"config\":{\"rate_bps\":8000000,\"rtt_ms\":40,\"duration_s\":30,\"netem\":true,"
		"\"phases\":[]},"
		"\"runs\":[{\"qdisc\":\"fifo\",\"label\":\"fifo\",\"tree\":\"bench\",\"ran\":false,\"note\":\"\"},"
		"{\"qdisc\":\"fifo\",\"label\":\"home\",\"tree\":\"config\",\"ran\":false,\"note\":\"\"},"
		"{\"qdisc\":\"sfq\",\"label\":\"home+sfq\",\"tree\":\"config\",\"ran\":false,\"note\":\"\"},"
		"{\"qdisc\":\"fifo\",\"label\":\"home\",\"tree\":\"bench\",\"ran\":false,\"note\":\"\"}]}";
	char *sum = NULL, e[256] = "";
	size_t len = 0;

	if (!CHECK(gw_lastcmp_summarize(text, sizeof(text) - 1, "", 0, &sum, &len, e, sizeof(e)) == 0,
		   "the page summarizes a -c run (%s)", e))
		return;
	CHECK(strstr(sum, "\"label\":\"home\",\"tree\":\"config\"") &&
	      strstr(sum, "\"label\":\"home+sfq\",\"tree\":\"config\""),
	      "the config's runs keep their labels and say their tree: %s", sum);
	CHECK(strstr(sum, "\"qdisc\":\"fifo\",\"label\":\"fifo\",\"ran\"") &&
	      !strstr(sum, "\"label\":\"home\",\"ran\""),
	      "a bench run labelled as no queue is shown by its queue's name");
	free(sum);
}

int main(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_cmpown.XXXXXX");
	if ((fd = mkstemp(path)) < 0 || write(fd, conf_text, sizeof(conf_text) - 1) !=
	    (ssize_t)(sizeof(conf_text) - 1)) {
		perror("test_cmpown: a scratch config");
		return 1;
	}
	close(fd);
	test_as_written();
	test_swaps();
	test_refusals();
	test_page();
	bench_own_free(&o);
	unlink(path);
	return tap_done();
}
