/* tests/fuzz/fuzz_wire.c: libFuzzer target: any bytes as the stream the daemon sends its web
 * process (webui/wire.c, docs/privsep.md).
 *
 * Byte 0 picks how the stream arrives (its low 4 bits + 1: bytes per piece, 16 = all at once);
 * the rest goes through gw_wire_rx_feed/gw_wire_rx_next in those pieces, and every whole frame
 * to its type's decoder, each from a copy of exactly its payload (ASan sees a read past it).
 * Checked, so a broken promise crashes: the stream answers a frame, "more", or a header error
 * that then sticks; a decoder answers 0 or -EBADMSG (-ENOMEM) and keeps nothing on failure;
 * what it accepts is bounded (counts, NUL-terminated strings, descriptors from the table) and
 * encodes back to exactly the payload it came from: one encoding per value. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "qdisc/qdisc.h"
#include "webui/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct gw_xstats_desc *kinds[GW_SNAP_XKINDS];
static size_t n_kinds;
static struct gw_hist_point pts[GW_WIRE_HIST_MAX];

static void terminated(const char *s, size_t cap)
{
	if (!memchr(s, '\0', cap))
		abort();
}

static void same_again(const struct gw_wire_buf *b, const uint8_t *payload, size_t len)
{
	if (b->len != GW_WIRE_HDR + len || memcmp(b->p + GW_WIRE_HDR, payload, len))
		abort();
}

static void check_snapshot(const struct gw_snapshot *s)
{
	if (s->n_dirs > GW_WIRE_MAX_DIRS || s->n_probes > GW_SNAP_MAX_PROBES ||
	    s->n_xdescs > GW_SNAP_XKINDS || (s->n_dirs && !s->dirs) ||
	    (s->n_probes && !s->probes) || s->probe.n_targets > 16 || s->loadtest.n_dirs > 3)
		abort();
	terminated(s->last_error, sizeof(s->last_error));
	for (size_t i = 0; i < s->n_xdescs; i++) {
		size_t k;

		for (k = 0; k < n_kinds && kinds[k] != s->xdescs[i]; k++)
			;
		if (k == n_kinds)
			abort();
	}
	for (size_t i = 0; i < s->n_dirs; i++) {
		const struct gw_snap_dir *d = &s->dirs[i];

		if (d->n_classes > GW_WIRE_MAX_CLASSES || (d->n_classes && !d->classes))
			abort();
		terminated(d->interface, sizeof(d->interface));
		terminated(d->latency.grade, sizeof(d->latency.grade));
		for (size_t j = 0; j < d->n_classes; j++) {
			const struct gw_snap_class *c = &d->classes[j];

			terminated(c->name, sizeof(c->name));
			if (c->x.n_groups < 0 || c->x.n_groups > GW_XGROUPS_MAX ||
			    (c->x.n_groups && (!c->x.desc || !c->x.desc->group_json)))
				abort();
		}
	}
}

static void one_frame(const struct gw_wire_hdr *h, const uint8_t *payload)
{
	uint8_t *copy = malloc(h->len ? h->len : 1);
	struct gw_wire_buf b = { 0 };
	int r;

	if (!copy)
		abort();
	memcpy(copy, payload, h->len);
	if (h->type == GW_WIRE_SNAPSHOT) {
		struct gw_snapshot *s = (struct gw_snapshot *)1;

		r = gw_wire_get_snapshot(copy, h->len, kinds, n_kinds, &s);
		if (r) {
			if ((r != -EBADMSG && r != -ENOMEM) || s)
				abort();
		} else {
			check_snapshot(s);
			if (gw_wire_put_snapshot(&b, s))
				abort();
			same_again(&b, payload, h->len);
			gw_snapshot_put(s);
		}
	} else if (h->type == GW_WIRE_SETTINGS) {
		static struct gw_wire_settings ws;

		r = gw_wire_get_settings(copy, h->len, &ws);
		if (r && (r != -EBADMSG || ws.n_listen || ws.auth_file[0]))
			abort();
		if (!r) {
			if (ws.n_listen > GW_WEBUI_MAX_LISTEN ||
			    ws.n_allowed_hosts > GW_WEBUI_MAX_HOSTS)
				abort();
			terminated(ws.compare_dir, sizeof(ws.compare_dir));
			if (gw_wire_put_settings(&b, &ws))
				abort();
			same_again(&b, payload, h->len);
		}
	} else if (h->type == GW_WIRE_HISTORY) {
		struct gw_wire_series ser;
		size_t n = 1;

		r = gw_wire_get_history(copy, h->len, &ser, pts, &n);
		if (r && (r != -EBADMSG || n))
			abort();
		if (!r) {
			if (n > GW_WIRE_HIST_MAX)
				abort();
			terminated(ser.class_name, sizeof(ser.class_name));
			if (gw_wire_put_history(&b, &ser, pts, n))
				abort();
			same_again(&b, payload, h->len);
		}
	} else {
		abort();	/* the header parser lets only known types through */
	}
	gw_wire_buf_free(&b);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_wire_rx rx = { 0 };
	struct gw_wire_hdr h;
	const uint8_t *payload;
	size_t piece, at = 1;
	int r = 0, stuck = 0;

	if (!n_kinds)
		n_kinds = gw_qdisc_xdescs(kinds, GW_SNAP_XKINDS);
	if (size < 1)
		return 0;
	piece = (data[0] & 15) + 1;
	if (piece == 16)
		piece = size;
	while (at < size) {
		size_t n = size - at < piece ? size - at : piece;

		if (gw_wire_rx_feed(&rx, data + at, n))
			abort();
		at += n;
		while ((r = gw_wire_rx_next(&rx, &h, &payload)) == 1) {
			if (stuck || h.version != GW_WIRE_VERSION || h.len > GW_WIRE_MAX_PAYLOAD)
				abort();
			one_frame(&h, payload);
		}
		if (r < 0) {
			if (r != -EBADMSG && r != -EPROTONOSUPPORT && r != -EMSGSIZE)
				abort();
			if (stuck && r != stuck)
				abort();	/* a lost framing stays lost, with the same answer */
			stuck = r;
		}
	}
	gw_wire_rx_free(&rx);
	return 0;
}
