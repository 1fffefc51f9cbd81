/* tests/unit/test_wire.c: the daemon-to-web-process format (webui/wire.c): a snapshot with
 * every field set encodes and decodes to the same bytes field by field; settings and history
 * frames the same; every truncation, a wrong magic, version, type or length, an overlong
 * string, a bad bool, an unknown kind and trailing bytes are refused; a stream read in pieces
 * gives whole frames. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qdisc/qdisc.h"
#include "tests/unit/tap.h"
#include "webui/wire.h"

static const struct gw_xstats_desc *kinds[GW_SNAP_XKINDS];
static size_t n_kinds;

/* every number a different one, so a field read into its neighbour shows */
static uint64_t k = 1;
static uint64_t nu(void) { return k++ * 1000003ULL; }
static double nd(void) { return (double)k++ + 0.25; }
static void ns(char *s, size_t cap) { snprintf(s, cap, "s%llu-%.*s", (unsigned long long)k++,
					    (int)(cap > 12 ? cap - 12 : 0),
					    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"); }

static void fill_x(struct gw_xstats *x, const struct gw_xstats_desc *d)
{
	x->desc = d;
	for (size_t i = 0; i < d->n_fields && i < GW_XSTATS_MAX; i++)
		x->v[i] = nu();
	if (d->group_json) {
		x->n_groups = 5;
		for (int g = 0; g < 5; g++)
			for (size_t i = 0; i < d->n_group_fields; i++)
				x->g[g][i] = nu();
	}
}

static void fill_class(struct gw_snap_class *c, int kind)
{
	ns(c->name, sizeof(c->name));
	ns(c->kind, sizeof(c->kind));
	c->rate_in_force_bytes_per_s = nu();
	c->ceil_bytes_per_s = nu();
	c->bytes = nu();
	c->packets = nu();
	c->drops = nu();
	c->overlimits = nu();
	c->requeues = nu();
	c->ecn_marks = nu();
	c->backlog_bytes = (uint32_t)nu();
	c->backlog_packets = (uint32_t)nu();
	c->achieved_bytes_per_s = nd();
	c->utilisation = nd();
	c->saturated = k & 1;
	c->accuracy = kind == 1 ? NAN : nd();
	c->queue_delay_ms = nd();
	c->drops_per_s = nd();
	c->marks_per_s = nd();
	if (kind >= 0 && (size_t)kind < n_kinds)
		fill_x(&c->x, kinds[kind]);
}

static void fill_rtt(struct gw_snap_rtt *r)
{
	r->samples = nu();
	r->lost = nu();
	r->loss = nd();
	r->min_ms = nd();
	r->p50_ms = nd();
	r->p90_ms = nd();
	r->p99_ms = nd();
	r->mean_ms = NAN;
	r->jitter_ms = nd();
}

static void fill_dir(struct gw_snap_dir *d, size_t n)
{
	ns(d->link, sizeof(d->link));
	ns(d->interface, sizeof(d->interface));
	ns(d->device, sizeof(d->device));
	ns(d->direction, sizeof(d->direction));
	ns(d->shaper, sizeof(d->shaper));
	d->rate_in_force_bytes_per_s = nu();
	d->waiting = true;
	ns(d->foreign_hook, sizeof(d->foreign_hook));
	fill_class(&d->total, 0);
	d->classes = calloc(n, sizeof(*d->classes));
	d->n_classes = n;
	for (size_t i = 0; i < n; i++)
		fill_class(&d->classes[i], (int)(i % (n_kinds + 1)) - 1);
	d->latency.present = true;
	d->latency.baseline_ms = nd();
	fill_rtt(&d->latency.idle);
	fill_rtt(&d->latency.loaded);
	d->latency.induced_p50_ms = nd();
	d->latency.induced_p99_ms = nd();
	d->latency.induced_mean_ms = nd();
	ns(d->latency.grade, sizeof(d->latency.grade));
	d->latency.pass_loaded_p50_ms = nd();
	d->latency.pass_loaded_p99_ms = nd();
	d->latency.hist_count = nu();
	d->latency.hist_sum_s = nd();
	for (int i = 0; i < GW_SNAP_RTT_BUCKETS; i++)
		d->latency.hist_le[i] = nu();
	d->autorate.present = true;
	d->autorate.rate_bytes_per_s = nu();
	d->autorate.min_bytes_per_s = nu();
	d->autorate.base_bytes_per_s = nu();
	d->autorate.max_bytes_per_s = nu();
	ns(d->autorate.state, sizeof(d->autorate.state));
	ns(d->autorate.last_reason, sizeof(d->autorate.last_reason));
	d->autorate.last_change_unix = nd();
	for (int i = 0; i < GW_SNAP_AR_REASONS; i++)
		d->autorate.changes[i] = nu();
	d->autorate.refused = nu();
	d->autorate.threshold_ms = nd();
	d->cni.present = true;
	ns(d->cni.id, sizeof(d->cni.id));
	ns(d->cni.netns, sizeof(d->cni.netns));
	ns(d->cni.network, sizeof(d->cni.network));
	ns(d->cni.ifname, sizeof(d->cni.ifname));
}

static void fill_probe(struct gw_snap_probe *p, size_t n)
{
	p->enabled = true;
	ns(p->method, sizeof(p->method));
	ns(p->link, sizeof(p->link));
	ns(p->source, sizeof(p->source));
	p->interval_us = -(int64_t)nu();
	p->n_targets = n;
	for (size_t i = 0; i < n; i++) {
		struct gw_snap_target *t = &p->targets[i];

		ns(t->host, sizeof(t->host));
		t->up = i & 1;
		t->sent = nu();
		t->received = nu();
		t->lost = nu();
		t->duplicates = nu();
		t->reordered = nu();
		t->last_rtt_ms = nd();
		t->last_reply_unix = nd();
		t->last_owd_up_ms = nd();
		t->last_owd_down_ms = NAN;
	}
}

static void fill_loadtest(struct gw_snap_loadtest *l)
{
	l->present = true;
	l->running = true;
	l->started_unix = nd();
	l->finished_unix = nd();
	ns(l->sink, sizeof(l->sink));
	ns(l->error, sizeof(l->error));
	l->n_dirs = 3;
	for (int i = 0; i < 3; i++) {
		struct gw_snap_load_dir *d = &l->dirs[i];

		ns(d->direction, sizeof(d->direction));
		d->goodput_bps = nd();
		d->idle_p50_ms = nd();
		d->loaded_p50_ms = nd();
		d->loaded_p99_ms = nd();
		d->induced_mean_ms = nd();
		d->induced_p99_ms = nd();
		ns(d->grade, sizeof(d->grade));
		d->down_bps = nd();
		d->up_bps = nd();
		d->fairness = nd();
		d->flows = -(int)(k++ % 1000);
		d->loaded_samples = nu();
		d->loaded_lost = nu();
		d->n_down_flows = i == 2 ? GW_SNAP_LOAD_FLOWS : 3;
		d->n_up_flows = (size_t)i;
		for (size_t j = 0; j < d->n_down_flows; j++)
			d->down_flow_bps[j] = nd();
		for (size_t j = 0; j < d->n_up_flows; j++)
			d->up_flow_bps[j] = nd();
	}
	ns(l->phase, sizeof(l->phase));
	l->flows = (int)(k++ % 1000);
	l->phase_s = nd();
}

static struct gw_snapshot *make_full(void)
{
	struct gw_snapshot *s = calloc(1, sizeof(*s));

	atomic_init(&s->refs, 1);
	s->seq = nu();
	s->unix_time = nd();
	s->uptime_s = nd();
	s->interval_us = (int64_t)nu();
	s->sample_ms = nd();
	s->sample_lag_ms = nd();
	s->samples_total = nu();
	s->late_samples_total = nu();
	ns(s->last_error, sizeof(s->last_error));
	s->n_xdescs = n_kinds;
	memcpy(s->xdescs, kinds, sizeof(kinds));
	s->n_dirs = 3;
	s->dirs = calloc(3, sizeof(*s->dirs));
	fill_dir(&s->dirs[0], 7);
	fill_dir(&s->dirs[1], 0);
	fill_dir(&s->dirs[2], 2);
	fill_probe(&s->probe, 16);
	s->n_probes = 2;
	s->probes = calloc(2, sizeof(*s->probes));
	fill_probe(&s->probes[0], 0);
	fill_probe(&s->probes[1], 3);
	fill_loadtest(&s->loadtest);
	s->web = (struct gw_snap_web){ true, (int)nu(), nu(), nd(), nu() };
	return s;
}

/* Field by field: every struct is compared whole with its pointers made the same, and every
 * array the pointers hold compared element by element. The structs' sizes are pinned, so a
 * field added to webui/snapshot.h without its place in webui/wire.c fails here. */
static int same_class(const struct gw_snap_class *a, const struct gw_snap_class *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void check_same(const struct gw_snapshot *a, const struct gw_snapshot *b)
{
	struct gw_snapshot x = *a, y = *b;

	CHECK_EQ_INT(b->n_dirs, a->n_dirs, "snapshot: directions");
	CHECK_EQ_INT(b->n_probes, a->n_probes, "snapshot: probers");
	CHECK_EQ_INT(b->n_xdescs, a->n_xdescs, "snapshot: kinds' descriptors");
	x.dirs = y.dirs = NULL;
	x.probes = y.probes = NULL;
	atomic_init(&x.refs, 0);
	atomic_init(&y.refs, 0);
	CHECK(!memcmp(&x, &y, sizeof(x)), "snapshot: every top-level field the same "
	      "(seq, times, errors, descriptors, probe, load test)");
	for (size_t i = 0; i < a->n_dirs && i < b->n_dirs; i++) {
		struct gw_snap_dir dx = a->dirs[i], dy = b->dirs[i];
		int bad = 0;

		CHECK_EQ_INT(dy.n_classes, dx.n_classes, "direction: classes");
		dx.classes = dy.classes = NULL;
		CHECK(!memcmp(&dx, &dy, sizeof(dx)), "direction %zu: every field the same", i);
		for (size_t j = 0; j < a->dirs[i].n_classes && j < b->dirs[i].n_classes; j++)
			bad += !same_class(&a->dirs[i].classes[j], &b->dirs[i].classes[j]);
		CHECK_EQ_INT(bad, 0, "direction: classes that differ");
	}
	for (size_t i = 0; i < a->n_probes && i < b->n_probes; i++)
		CHECK(!memcmp(&a->probes[i], &b->probes[i], sizeof(a->probes[i])),
		      "prober %zu: every field the same", i);
}

static void test_sizes(void)
{
	/* pinned: change these with webui/wire.c, docs/privsep.md and fill_* above */
	CHECK_EQ_INT(sizeof(struct gw_snap_class), 1344, "struct gw_snap_class's size (wire.c)");
	CHECK_EQ_INT(sizeof(struct gw_snap_dir), 2592, "struct gw_snap_dir's size (wire.c)");
	CHECK_EQ_INT(sizeof(struct gw_snap_probe), 2440, "struct gw_snap_probe's size (wire.c)");
	CHECK_EQ_INT(sizeof(struct gw_snap_loadtest), 3728, "struct gw_snap_loadtest's size");
	CHECK_EQ_INT(sizeof(struct gw_snapshot), 6696, "struct gw_snapshot's size (wire.c)");
	CHECK_EQ_INT(sizeof(struct gw_hist_point), 64, "struct gw_hist_point's size (wire.c)");
}

static int decode_frame(const struct gw_wire_buf *b, struct gw_snapshot **out)
{
	struct gw_wire_hdr h;
	int err = gw_wire_hdr_parse(b->p, b->len, &h);

	if (err)
		return err;
	if (h.type != GW_WIRE_SNAPSHOT || h.len != b->len - GW_WIRE_HDR)
		return -EPROTO;
	return gw_wire_get_snapshot(b->p + GW_WIRE_HDR, h.len, kinds, n_kinds, out);
}

static void test_roundtrip(void)
{
	struct gw_snapshot *s = make_full(), *d = NULL;
	struct gw_wire_buf b = { 0 }, b2 = { 0 };
	int err;

	CHECK_EQ_INT(gw_wire_put_snapshot(&b, s), 0, "encode a full snapshot");
	CHECK(b.len > GW_WIRE_HDR && !memcmp(b.p, "GWWC", 4), "frame starts with the magic");
	err = decode_frame(&b, &d);
	CHECK_EQ_INT(err, 0, "decode it");
	if (d) {
		check_same(s, d);
		CHECK_EQ_INT(atomic_load(&d->refs), 1, "decoded snapshot has one reference");
		CHECK(isnan(d->dirs[0].classes[2].accuracy), "a NAN passes as NAN");
		CHECK(d->dirs[0].classes[0].x.desc == NULL, "a class without xstats has no desc");
		CHECK(d->dirs[0].classes[1].x.desc == kinds[0], "a class's desc is the registry's");
		CHECK_EQ_INT(gw_wire_put_snapshot(&b2, d), 0, "re-encode the decoded one");
		CHECK(b2.len == b.len && !memcmp(b.p, b2.p, b.len), "same bytes again");
		gw_snapshot_put(d);
	}
	/* every truncation of the payload is refused, never read past */
	{
		struct gw_wire_hdr h;
		size_t plen = b.len - GW_WIRE_HDR, bad = 0;

		gw_wire_hdr_parse(b.p, b.len, &h);
		for (size_t cut = 0; cut < plen; cut += (cut < 4096 ? 1 : 97)) {
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, b.p + GW_WIRE_HDR, cut);
			d = NULL;
			if (gw_wire_get_snapshot(copy, cut, kinds, n_kinds, &d) != -EBADMSG || d)
				bad++;
			free(copy);
		}
		CHECK_EQ_INT(bad, 0, "every truncated payload: -EBADMSG, nothing kept");
		/* one byte more is as wrong as one less */
		uint8_t *more = malloc(plen + 1);

		memcpy(more, b.p + GW_WIRE_HDR, plen);
		more[plen] = 0;
		CHECK_EQ_INT(gw_wire_get_snapshot(more, plen + 1, kinds, n_kinds, &d), -EBADMSG,
			     "trailing byte refused");
		free(more);
	}
	/* a kind this side does not know */
	CHECK_EQ_INT(gw_wire_get_snapshot(b.p + GW_WIRE_HDR, b.len - GW_WIRE_HDR, kinds,
					  n_kinds - 1, &d), -EBADMSG,
		     "a kind's descriptor not in the table refused");
	gw_wire_buf_free(&b);
	gw_wire_buf_free(&b2);
	gw_snapshot_put(s);
}

/* the encoding's first bytes, as docs/privsep.md gives them */
static void test_layout(void)
{
	struct gw_snapshot s = { .seq = 0x0102030405060708ULL };
	struct gw_wire_buf b = { 0 };
	struct gw_wire_hdr h;
	static const uint8_t want[] = { 'G', 'W', 'W', 'C', 2, 0, 1, 0 };

	CHECK_EQ_INT(gw_wire_put_snapshot(&b, &s), 0, "encode an empty snapshot");
	CHECK(b.len >= 20 && !memcmp(b.p, want, 8), "header: magic, version 2, type 1 (LE)");
	CHECK(b.len >= 20 && b.p[12] == 8 && b.p[19] == 1, "seq first, little-endian");
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), 0, "header parses");
	CHECK_EQ_INT(h.len, b.len - GW_WIRE_HDR, "length is the payload's");
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, GW_WIRE_HDR - 1, &h), -EAGAIN, "short header: more");
	b.p[0] = 'X';
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EBADMSG, "wrong magic refused");
	b.p[0] = 'G';
	b.p[4] = 1;
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EPROTONOSUPPORT,
		     "version 1 (no web section) refused");
	b.p[4] = 3;
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EPROTONOSUPPORT, "version 3 refused");
	b.p[4] = 2;
	b.p[6] = 0;
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EBADMSG, "type 0 refused");
	b.p[6] = GW_WIRE_TYPE_MAX + 1;
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EBADMSG, "unknown type refused");
	b.p[6] = 1;
	b.p[11] = 0x10;	/* 256 MiB and more */
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), -EMSGSIZE, "length over the bound");
	gw_wire_buf_free(&b);
}

/* corrupt single fields of a small snapshot */
static void test_corrupt(void)
{
	struct gw_snapshot s = { 0 }, *d = NULL;
	struct gw_snap_dir dir = { 0 };
	struct gw_snap_class cls = { 0 };
	struct gw_wire_buf b = { 0 };
	uint8_t *p;
	size_t off;

	snprintf(s.last_error, sizeof(s.last_error), "err");
	s.n_dirs = 1;
	s.dirs = &dir;
	dir.n_classes = 1;
	dir.classes = &cls;
	cls.saturated = true;
	CHECK_EQ_INT(gw_wire_put_snapshot(&b, &s), 0, "encode a small snapshot");
	p = b.p + GW_WIRE_HDR;
	/* last_error's length is at payload offset 64 (8 numbers of 8 bytes) */
	off = 64;
	CHECK(p[off] == 3 && p[off + 1] == 0, "last_error's length where the doc says");
	p[off] = 0;
	p[off + 1] = 1;		/* 256: a char[256] holds 255 */
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "a string as long as its field refused");
	p[off] = 3;
	p[off + 1] = 0;
	p[off + 3] = 0;		/* "e\0r" */
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "a NUL inside a string refused");
	p[off + 3] = 'r';
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), 0,
		     "put back: decodes");
	gw_snapshot_put(d);
	/* after the string (2+3) and the descriptors' count (1): the directions' count */
	off = 64 + 5 + 1;
	CHECK(p[off] == 1 && !p[off + 1] && !p[off + 2] && !p[off + 3], "n_dirs where expected");
	p[off] = 0xff;
	p[off + 3] = 0x7f;
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "a count of 2^31 directions refused (before any allocation)");
	p[off + 3] = 0;
	p[off] = 2;
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "two directions where one came refused");
	p[off] = 1;
	/* a bool other than 0 or 1: the class's saturated (find it: the only byte 1 after
	 * the class's 2 strings, 8 u64 and 2 u32 and 2 doubles) */
	off += 4 + 5 * 2 + 8 + 1 + 2;	/* the direction: strings, rate, waiting, hook */
	off += 2 * 2 + 8 * 8 + 2 * 4 + 2 * 8;	/* its total, up to saturated */
	CHECK_EQ_INT(p[off], 0, "the total's saturated where expected");
	off += 1 + 4 * 8 + 1 + 4;	/* the rest of the total, the class count */
	off += 2 * 2 + 8 * 8 + 2 * 4 + 2 * 8;
	CHECK_EQ_INT(p[off], 1, "the class's saturated where expected");
	p[off] = 2;
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "a bool of 2 refused");
	p[off] = 1;
	/* its xstats' descriptor index, past the 4 doubles: none is 0xff; 0 names a kind
	 * the snapshot does not list (it lists none) */
	off += 1 + 4 * 8;
	CHECK_EQ_INT(p[off], 0xff, "the class's xstats index is none");
	p[off] = 0;
	CHECK_EQ_INT(gw_wire_get_snapshot(p, b.len - GW_WIRE_HDR, kinds, n_kinds, &d), -EBADMSG,
		     "an xstats index past the snapshot's kinds refused");
	gw_wire_buf_free(&b);
}

/* a thousand empty classes, two hundred empty directions: the counts' checks against what is
 * left must not refuse what the encoder writes */
static void test_many_empty(void)
{
	struct gw_snapshot s = { 0 }, *d = NULL;
	struct gw_wire_buf b = { 0 };

	s.n_dirs = 200;
	s.dirs = calloc(200, sizeof(*s.dirs));
	s.dirs[199].n_classes = 1000;
	s.dirs[199].classes = calloc(1000, sizeof(struct gw_snap_class));
	CHECK_EQ_INT(gw_wire_put_snapshot(&b, &s), 0, "encode 200 empty directions");
	CHECK_EQ_INT(decode_frame(&b, &d), 0, "decode them, 1000 empty classes in the last");
	CHECK(d && d->n_dirs == 200 && d->dirs[199].n_classes == 1000, "all of them");
	gw_snapshot_put(d);
	free(s.dirs[199].classes);
	free(s.dirs);
	gw_wire_buf_free(&b);
}

static void test_encode_refusals(void)
{
	struct gw_snapshot s = { 0 };
	struct gw_snap_dir dir = { 0 };
	struct gw_wire_buf b = { 0 };

	memset(s.last_error, 'x', sizeof(s.last_error));	/* no NUL */
	CHECK_EQ_INT(gw_wire_put_snapshot(&b, &s), -ENAMETOOLONG, "unterminated string: refused");
	CHECK_EQ_INT(b.len, 0, "and no partial frame kept");
	s.last_error[0] = '\0';
	s.n_dirs = 1;
	s.dirs = &dir;
	dir.n_classes = GW_WIRE_MAX_CLASSES + 1;
	CHECK_EQ_INT(gw_wire_put_snapshot(&b, &s), -E2BIG, "too many classes: refused");
	CHECK_EQ_INT(b.len, 0, "nothing kept");
	gw_wire_buf_free(&b);
}

static void test_settings(void)
{
	struct gw_wire_settings ws, got;
	struct gw_wire_buf b = { 0 };
	struct gw_wire_hdr h;
	struct sockaddr_in *in;
	struct sockaddr_in6 *in6;
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	struct gw_webui_opts o;
	const char *hosts[GW_WEBUI_MAX_HOSTS];

	memset(&ws, 0, sizeof(ws));
	ws.n_listen = 2;
	snprintf(ws.listen_text[0], sizeof(ws.listen_text[0]), "127.0.0.1:9180");
	in = (struct sockaddr_in *)&ws.listen_addr[0];
	in->sin_family = AF_INET;
	in->sin_port = htons(9180);
	in->sin_addr.s_addr = htonl(0x7f000001);
	ws.listen_len[0] = sizeof(*in);
	snprintf(ws.listen_text[1], sizeof(ws.listen_text[1]), "[fe80::1%%2]:80");
	in6 = (struct sockaddr_in6 *)&ws.listen_addr[1];
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(80);
	inet_pton(AF_INET6, "fe80::1", &in6->sin6_addr);
	in6->sin6_scope_id = 2;
	ws.listen_len[1] = sizeof(*in6);
	snprintf(ws.auth_file, sizeof(ws.auth_file), "/etc/gatewayd/users");
	snprintf(ws.tls_cert, sizeof(ws.tls_cert), "/etc/c.pem");
	snprintf(ws.tls_key, sizeof(ws.tls_key), "/etc/k.pem");
	ws.n_allowed_hosts = 2;
	snprintf(ws.allowed_hosts[0], GW_WIRE_HOST, "router.lan");
	snprintf(ws.allowed_hosts[1], GW_WIRE_HOST, "*");
	ws.auth_fail_limit = 7;
	ws.auth_fail_backoff_s = 12.5;
	ws.memory_max = 1u << 22;
	ws.log_window_s = 0.5;
	snprintf(ws.compare_dir, sizeof(ws.compare_dir), "/var/lib/gatewayd/compare");
	ws.interval_us = 250000;
	CHECK_EQ_INT(gw_wire_put_settings(&b, &ws), 0, "encode settings");
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), 0, "settings header");
	CHECK_EQ_INT(h.type, GW_WIRE_SETTINGS, "type settings");
	CHECK_EQ_INT(gw_wire_get_settings(b.p + GW_WIRE_HDR, h.len, &got), 0, "decode settings");
	CHECK(!memcmp(&ws, &got, sizeof(ws)), "settings: every field the same");
	CHECK_EQ_INT(gw_wire_settings_opts(&got, listen, &o, hosts), 2, "two addresses");
	CHECK(o.auth_file && !strcmp(o.auth_file, "/etc/gatewayd/users") &&
	      o.n_allowed_hosts == 2 && !strcmp(o.allowed_hosts[1], "*") &&
	      o.auth_fail_limit == 7 && o.memory_max == 1u << 22 &&
	      !memcmp(&listen[1].addr, &ws.listen_addr[1], sizeof(struct sockaddr_in6)),
	      "settings into the server's options");
	{
		size_t bad = 0;

		for (size_t cut = 0; cut < h.len; cut++)
			bad += gw_wire_get_settings(b.p + GW_WIRE_HDR, cut, &got) != -EBADMSG;
		CHECK_EQ_INT(bad, 0, "every truncated settings payload refused");
	}
	/* n_listen is the first u32: 9 is one past the bound */
	b.p[GW_WIRE_HDR] = 9;
	CHECK_EQ_INT(gw_wire_get_settings(b.p + GW_WIRE_HDR, h.len, &got), -EBADMSG,
		     "9 listen addresses refused");
	/* the first address's family (after the count and the text) */
	b.p[GW_WIRE_HDR] = 2;
	b.p[GW_WIRE_HDR + 4 + 2 + 14] = 1;	/* AF_UNIX */
	CHECK_EQ_INT(gw_wire_get_settings(b.p + GW_WIRE_HDR, h.len, &got), -EBADMSG,
		     "an AF_UNIX address refused");
	gw_wire_buf_free(&b);
	ws.listen_addr[0].ss_family = AF_UNIX;
	CHECK_EQ_INT(gw_wire_put_settings(&b, &ws), -EINVAL, "encoding AF_UNIX refused");
	gw_wire_buf_free(&b);
}

static void test_history(void)
{
	static struct gw_hist_point pts[GW_WIRE_HIST_MAX], got[GW_WIRE_HIST_MAX];
	struct gw_wire_series ser = { "wan", "egress", "bulk", true }, gs;
	struct gw_wire_buf b = { 0 };
	struct gw_wire_hdr h;
	size_t n = 0, bad = 0;

	memset(pts, 0, sizeof(pts));
	memset(got, 0, sizeof(got));
	for (size_t i = 0; i < 1440; i++) {
		pts[i] = (struct gw_hist_point){ 1e9 + (double)i * 60, 1, 2, 3, 4, 5, 6, 7, 8,
						 (float)i, NAN, 11, i & 1, (float)i * 2 };
	}
	CHECK_EQ_INT(gw_wire_put_history(&b, &ser, pts, 1440), 0, "encode a day of minutes");
	CHECK_EQ_INT(gw_wire_hdr_parse(b.p, b.len, &h), 0, "history header");
	CHECK_EQ_INT(h.type, GW_WIRE_HISTORY, "type history");
	CHECK_EQ_INT(gw_wire_get_history(b.p + GW_WIRE_HDR, h.len, &gs, got, &n), 0,
		     "decode it");
	CHECK_EQ_INT(n, 1440, "1440 points");
	CHECK(!memcmp(&gs, &ser, sizeof(ser)), "series the same");
	for (size_t i = 0; i < n; i++)
		bad += memcmp(&pts[i], &got[i], sizeof(pts[i])) != 0;
	CHECK_EQ_INT(bad, 0, "every point the same");
	CHECK_EQ_INT(gw_wire_get_history(b.p + GW_WIRE_HDR, h.len - 1, &gs, got, &n), -EBADMSG,
		     "a point short refused");
	CHECK_EQ_INT(n, 0, "and none kept");
	gw_wire_buf_free(&b);
	CHECK_EQ_INT(gw_wire_put_history(&b, &ser, pts, GW_WIRE_HIST_MAX + 1), -E2BIG,
		     "more points than a frame holds: refused");
	gw_wire_buf_free(&b);
}

/* frames read a byte at a time, and a stream that loses its framing */
static void test_stream(void)
{
	struct gw_snapshot *s = make_full(), *d;
	struct gw_wire_buf b = { 0 };
	struct gw_wire_rx rx = { 0 };
	struct gw_wire_hdr h;
	const uint8_t *payload;
	struct gw_wire_series ser = { "wan", "egress", "total", false }, gs;
	struct gw_hist_point pt = { .t = 5 }, got[GW_WIRE_HIST_MAX];
	size_t frames = 0, n, bad = 0;
	int fds[2], r;

	gw_wire_put_snapshot(&b, s);
	gw_wire_put_history(&b, &ser, &pt, 1);
	gw_wire_put_snapshot(&b, s);
	for (size_t i = 0; i < b.len; i++) {
		gw_wire_rx_feed(&rx, b.p + i, 1);
		while ((r = gw_wire_rx_next(&rx, &h, &payload)) == 1) {
			frames++;
			if (h.type == GW_WIRE_SNAPSHOT) {
				bad += gw_wire_get_snapshot(payload, h.len, kinds, n_kinds, &d) != 0;
				gw_snapshot_put(d);
			} else {
				bad += gw_wire_get_history(payload, h.len, &gs, got, &n) != 0 ||
				       n != 1 || got[0].t != 5;
			}
		}
		bad += r != 0;
	}
	CHECK_EQ_INT(frames, 3, "three frames from a byte at a time");
	CHECK_EQ_INT(bad, 0, "each decoded");
	gw_wire_rx_free(&rx);
	/* through a socket, then garbage: the stream stops for good */
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds);
	CHECK(write(fds[0], b.p, 4000) == 4000, "write part of a frame");
	CHECK_EQ_INT(gw_wire_rx_read(&rx, fds[1]), 4000, "read it");
	CHECK_EQ_INT(gw_wire_rx_next(&rx, &h, &payload), 0, "not whole yet");
	CHECK_EQ_INT(gw_wire_rx_read(&rx, fds[1]), -EAGAIN, "nothing more: -EAGAIN");
	gw_wire_rx_free(&rx);
	gw_wire_rx_feed(&rx, "GWWX\1\0\1\0\0\0\0\0", 12);
	CHECK_EQ_INT(gw_wire_rx_next(&rx, &h, &payload), -EBADMSG, "a bad magic: -EBADMSG");
	gw_wire_rx_feed(&rx, b.p, b.len);
	CHECK_EQ_INT(gw_wire_rx_next(&rx, &h, &payload), -EBADMSG, "and it stays so");
	close(fds[0]);
	CHECK_EQ_INT(gw_wire_rx_read(&rx, fds[1]), 0, "end of stream: 0");
	close(fds[1]);
	gw_wire_rx_free(&rx);
	gw_wire_buf_free(&b);
	gw_snapshot_put(s);
}

/* The fuzzer's seeds (tests/fuzz/make-wire-seeds.sh): each a first byte (how the stream
 * arrives, fuzz_wire.c) and frames. */
static void seed(const char *dir, const char *name, uint8_t first, const struct gw_wire_buf *b)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
	if (!(f = fopen(path, "wb")) || fwrite(&first, 1, 1, f) != 1 ||
	    fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static int write_seeds(const char *dir)
{
	struct gw_snapshot *s = make_full(), small = { .seq = 1 };
	struct gw_snap_dir dir1 = { 0 };
	struct gw_snap_class cls[2] = { 0 };
	struct gw_wire_settings ws = { .n_listen = 1, .listen_text = { "127.0.0.1:9180" },
				       .interval_us = 1000000 };
	struct gw_wire_series ser = { "wan", "egress", "total", false };
	struct gw_hist_point pt[3] = { { .t = 1 }, { .t = 2, .has_shaper = true }, { .t = 3 } };
	struct gw_wire_buf b = { 0 };

	ws.listen_addr[0].ss_family = AF_INET;
	gw_wire_put_snapshot(&b, s);
	seed(dir, "snapshot-full", 15, &b);
	gw_wire_buf_free(&b);
	small.n_xdescs = n_kinds;
	memcpy(small.xdescs, kinds, sizeof(kinds));
	small.n_dirs = 1;
	small.dirs = &dir1;
	dir1.n_classes = 2;
	dir1.classes = cls;
	fill_class(&cls[0], 0);
	fill_class(&cls[1], (int)n_kinds - 1);
	gw_wire_put_snapshot(&b, &small);
	seed(dir, "snapshot-small", 15, &b);
	gw_wire_put_settings(&b, &ws);
	gw_wire_put_history(&b, &ser, pt, 3);
	seed(dir, "stream-three-bytewise", 0, &b);
	gw_wire_buf_free(&b);
	gw_wire_put_settings(&b, &ws);
	seed(dir, "settings", 15, &b);
	gw_wire_buf_free(&b);
	gw_wire_put_history(&b, &ser, pt, 3);
	seed(dir, "history", 6, &b);
	b.p[4] = 3;
	seed(dir, "version-3", 15, &b);
	gw_wire_buf_free(&b);
	gw_snapshot_put(s);
	return 0;
}

int main(int argc, char **argv)
{
	n_kinds = gw_qdisc_xdescs(kinds, GW_SNAP_XKINDS);
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return write_seeds(argv[2]);
	CHECK(n_kinds >= 2, "the registry has kinds with xstats (%zu)", n_kinds);
	test_sizes();
	test_roundtrip();
	test_layout();
	test_corrupt();
	test_many_empty();
	test_encode_refusals();
	test_settings();
	test_history();
	test_stream();
	return tap_done();
}
