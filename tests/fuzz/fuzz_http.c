/* tests/fuzz/fuzz_http.c: libFuzzer target: the HTTP request path. Either fuzzed key/value
 * pairs straight into /api/history's query validator (and the label escaping and health
 * verdict beside it), or a whole request through libmicrohttpd and the server's own routes.
 *
 * Input: one flag byte, then the payload.
 *   flags & 3 == 0: the payload is "key=value&key=value..." (no URL decoding, so bytes the
 *     server would never pass reach the validator too); '=' missing means a NULL value.
 *   otherwise: the payload is the raw bytes a client sends on one connection (pipelined
 *     requests included), answered by the real routes (webui/http.c, included below so its
 *     static callbacks can be driven) on a daemon without a listening socket: the connection
 *     is one end of a socketpair handed over with MHD_add_connection, and MHD_run turns the
 *     crank on this thread. Flag bits: 4 basic auth on, 8 no snapshot yet, 16 a stale one,
 *     32 no history source.
 * The daemon is set up with start_one()'s options (copied: start_one itself binds a socket). */
#include <json-c/json_tokener.h>
#include <json-c/json_object.h>
#include <crypt.h>
#include <math.h>
#include <stdatomic.h>
#include "webui/http.c"
#include "qdisc/qdisc.h"
#include "tests/unit/xstats.h"

#define HTTP_FUZZ_MAX 16384
#define RUN_ROUNDS 64		/* MHD_run turns per input: more than any request needs */
#define FUZZ_USER "admin"
#define FUZZ_PASSWORD "secret"	/* "Authorization: Basic YWRtaW46c2VjcmV0" */
#define FUZZ_NOW 1700000000.0
#define NAME_OK "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gw_webui *web;
static struct gw_auth *auth;
static struct MHD_Daemon *mhd;
static struct gw_snapshot snap;
static struct gw_snap_dir snap_dirs[2];
static struct gw_snap_class snap_classes[2];
static bool no_snapshot, stale;

/* One link, two directions, an htb class with fq_codel and one with cake, as the sampler
 * would publish them; the reference taken here is never dropped, so it is never freed. */
static void build_snapshot(void)
{
	struct gw_snap_class *c = snap_classes;

	atomic_init(&snap.refs, 1);
	snap.seq = 7;
	snap.n_xdescs = gw_qdisc_xdescs(snap.xdescs, GW_SNAP_XKINDS);
	snap.interval_us = 1000000;
	snap.samples_total = 7;
	snprintf(snap.last_error, sizeof(snap.last_error), "last reload failed: x.conf:3: \"q\"");
	snprintf(c[0].name, sizeof(c[0].name), "voice");
	snprintf(c[0].kind, sizeof(c[0].kind), "fq_codel");
	c[0].rate_in_force_bytes_per_s = c[0].ceil_bytes_per_s = 1250000;
	c[0].accuracy = NAN;
	c[0].x.desc = gw_fq_codel_ops.xdesc;
	xstat_set(&c[0].x, "max_packet_bytes", 1514);
	snprintf(c[1].name, sizeof(c[1].name), "bulk");
	snprintf(c[1].kind, sizeof(c[1].kind), "cake");
	c[1].rate_in_force_bytes_per_s = 11250000;
	c[1].ceil_bytes_per_s = 12500000;
	c[1].achieved_bytes_per_s = 89e6 / 8;
	c[1].accuracy = 0.99;
	c[1].saturated = true;
	c[1].x.desc = gw_cake_ops.xdesc;
	c[1].x.n_groups = 4;
	xstat_gset(&c[1].x, 3, "average_delay_ms", 1200);
	for (int d = 0; d < 2; d++) {
		struct gw_snap_dir *o = &snap_dirs[d];

		snprintf(o->link, sizeof(o->link), "wan");
		snprintf(o->interface, sizeof(o->interface), "eth0");
		snprintf(o->device, sizeof(o->device), d ? "ifb4eth0" : "eth0");
		snprintf(o->direction, sizeof(o->direction), "%s", d ? "ingress" : "egress");
		snprintf(o->shaper, sizeof(o->shaper), "%s", d ? "cake" : "htb");
		o->rate_in_force_bytes_per_s = 12500000;
		snprintf(o->total.name, sizeof(o->total.name), "total");
		snprintf(o->total.kind, sizeof(o->total.kind), "%s", o->shaper);
		o->total.accuracy = NAN;
		o->classes = d ? NULL : snap_classes;
		o->n_classes = d ? 0 : 2;
	}
	snap.dirs = snap_dirs;
	snap.n_dirs = 2;
}

static struct gw_snapshot *fake_get(void *ctx)
{
	(void)ctx;
	if (no_snapshot)
		return NULL;
	snap.unix_time = stale ? 1000.0 : wall_now();
	atomic_fetch_add(&snap.refs, 1);
	return &snap;
}

static int fake_history(void *ctx, const char *link, const char *direction,
			const char *class_name, double from, double to, bool minute,
			struct gw_hist_point *out, size_t max)
{
	size_t n = 4;

	(void)ctx;
	(void)minute;
	if (strcmp(link, "wan") || (strcmp(direction, "egress") && strcmp(direction, "ingress")))
		return -ENOENT;
	if (!strcmp(class_name, "broken"))
		return -EIO;
	if (strcmp(class_name, "total") && strcmp(class_name, "voice") &&
	    strcmp(class_name, "bulk"))
		return -ENOENT;
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct gw_hist_point){ .t = from + (to - from) * (double)i / 4,
			.rate_bps_avg = 1e6f * (float)i, .delay_ms_max = NAN };
	return (int)n;
}

/* A users file with a cheap hash: every wrong password costs one crypt(3), so keep it small. */
static struct gw_auth *load_auth(void)
{
	char path[] = "/tmp/gw-fuzz-auth-XXXXXX", err[256];
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	struct gw_auth *a = NULL;
	const char *h;
	FILE *f;
	int fd;

	if (!cd || (fd = mkstemp(path)) < 0)
		abort();
	h = crypt_r(FUZZ_PASSWORD, "$5$rounds=1000$gwfuzz$", cd);
	if (!h || !(f = fdopen(fd, "w")))
		abort();
	fprintf(f, "# fuzz\n%s:%s\n", FUZZ_USER, h);
	fclose(f);
	if (gw_auth_load(path, &a, err, sizeof(err))) {
		fprintf(stderr, "fuzz_http: %s\n", err);
		abort();
	}
	unlink(path);
	free(cd);
	return a;
}

static void setup(void)
{
	struct MHD_OptionItem opts[N_SERVER_OPTIONS];

	build_snapshot();
	web = calloc(1, sizeof(*web));
	if (!web || pthread_mutex_init(&web->lock, NULL))
		abort();
	web->src = (struct gw_webui_source){ .get = fake_get, .history = fake_history };
	auth = load_auth();
	if (build_assets(web) || gw_guard_start(&web->guard))
		abort();
	/* start_one()'s options, less the listening socket and the internal thread */
	server_options(web, CONN_LIMIT_TOTAL, opts);
	mhd = MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, on_request, web,
			       MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!mhd)
		abort();
}

static unsigned int n_connections(void)
{
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return i ? i->num_connections : 0;
}

/* Read what the server has sent so far; true when there was something. FUZZ_HTTP_ECHO=1 in
 * the environment copies it to stderr, to see what a seed gets back. */
static bool drain(int fd)
{
	static int echo = -1;
	char buf[65536];
	bool any = false;
	ssize_t n;

	if (echo < 0)
		echo = getenv("FUZZ_HTTP_ECHO") != NULL;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		any = true;
		if (echo)
			fwrite(buf, 1, (size_t)(n > 400 ? 400 : n), stderr);
	}
	return any;
}

static void one_connection(const uint8_t *req, size_t len)
{
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons(40000),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sv[2], quiet = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	/* the whole request fits the socket buffer: it is all there before MHD looks */
	if (len && send(sv[0], req, len, MSG_DONTWAIT) != (ssize_t)len)
		abort();
	if (MHD_add_connection(mhd, sv[1], (struct sockaddr *)&peer, sizeof(peer)) != MHD_YES) {
		close(sv[0]);
		return;
	}
	/* until the server has nothing more to say about what it was sent */
	for (int i = 0; i < RUN_ROUNDS && quiet < 3; i++) {
		MHD_run(mhd);
		quiet = drain(sv[0]) ? 0 : quiet + 1;
	}
	close(sv[0]);
	for (int i = 0; i < RUN_ROUNDS && n_connections(); i++)
		MHD_run(mhd);
	/* a connection the client has closed must not outlive it */
	if (n_connections())
		abort();
}

/* A link the query may name: a config's name, or a container's "ctr:" and its interface's
 * name (1..15 printable characters, no '/' or ':', as the kernel takes them). */
static bool link_ok(const char *l)
{
	size_t n = strlen(l);

	if (strncmp(l, "ctr:", 4))
		return n && strspn(l, NAME_OK) == n;
	if (n < 5 || n > 4 + 15)
		return false;
	for (size_t i = 4; i < n; i++)
		if (l[i] <= ' ' || l[i] > '~' || l[i] == '/' || l[i] == ':')
			return false;
	return true;
}

/* The query validator, fed pairs no URL decoder would produce. */
static void check_query(char *text, double now)
{
	struct gw_query_arg args[GW_QUERY_MAX_ARGS + 4];
	struct gw_history_query q;
	struct gw_hist_point pts[3] = { { .t = 1 }, { .t = 2, .rate_bps_avg = NAN },
					{ .t = 3, .delay_ms_max = 1e30f } };
	char err[160], *out, *p = text;
	size_t n = 0, len;
	json_object *j;

	while (p && n < sizeof(args) / sizeof(args[0])) {
		char *kv = strsep(&p, "&"), *eq = strchr(kv, '=');

		if (eq)
			*eq++ = '\0';
		args[n++] = (struct gw_query_arg){ kv, eq };
	}
	err[0] = '\0';
	if (gw_webui_history_query(args, n, now, &q, err, sizeof(err))) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort();
		return;
	}
	if (!link_ok(q.link) || !q.class_name[0] ||
	    strspn(q.class_name, NAME_OK) != strlen(q.class_name) ||
	    (strcmp(q.direction, "egress") && strcmp(q.direction, "ingress")) ||
	    !isfinite(q.from) || !isfinite(q.to) || q.from > q.to || q.from < 0)
		abort();
	/* what a valid query echoes back must still be JSON */
	if (gw_webui_history_json(&q, pts, 3, n & 1, &out, &len))
		return;
	if (strlen(out) != len || !(j = json_tokener_parse(out)))
		abort();
	json_object_put(j);
	free(out);
}

/* Prometheus label escaping and the health verdict, on the same bytes. */
static void check_helpers(const char *text, const uint8_t *raw, size_t size)
{
	struct gw_buf b = { .max = 0 };
	struct gw_snapshot s = { .interval_us = 0 };
	char why[160], *out;
	size_t len;

	gw_prom_escape(&b, text);
	if (gw_buf_take(&b, &out, &len) == 0) {
		if (strchr(out, '\n') || strlen(out) != len)
			abort();
		free(out);
	}
	if (size >= sizeof(double) + sizeof(int64_t)) {
		memcpy(&s.unix_time, raw, sizeof(double));
		memcpy(&s.interval_us, raw + sizeof(double), sizeof(int64_t));
		gw_webui_healthy(&s, FUZZ_NOW, why, sizeof(why));
		if (!memchr(why, '\0', sizeof(why)) || strchr(why, '\n'))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t flags;
	char *text;

	if (size < 1 || size > HTTP_FUZZ_MAX)
		return 0;
	if (!mhd)
		setup();
	flags = data[0];
	data++;
	size--;
	if (flags & 3) {
		web->auth = flags & 4 ? auth : NULL;
		no_snapshot = flags & 8;
		stale = flags & 16;
		web->src.history = flags & 32 ? NULL : fake_history;
		one_connection(data, size);
		return 0;
	}
	if (!(text = malloc(size + 1)))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_helpers(text, data, size);
	check_query(text, flags & 4 ? 0 : FUZZ_NOW);
	free(text);
	return 0;
}
