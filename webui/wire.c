/* webui/wire.c: encoding and decoding the frames the daemon sends its web process. One walk
 * per type serves both ways (struct wio's dec says which), so the encoder and the decoder
 * cannot disagree on the order or the width of a field; docs/privsep.md describes it. */
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "webui/wire.h"

struct wio {
	bool dec;
	uint8_t *p;		/* enc: the growing output; dec: the payload */
	size_t len, cap, off;	/* enc: len, cap; dec: len, off (next byte) */
	int err;		/* sticky: 0, -EBADMSG, -ENOMEM, -ENAMETOOLONG, -E2BIG, -EINVAL */
	/* snapshots: where a class's xstats descriptor is looked up */
	const struct gw_xstats_desc *const *kinds;
	size_t n_kinds;
	const struct gw_snapshot *snap;
};

/* Smallest encodings of one element (every string empty, every count 0): a count of n of
 * them needs n times this in what is left, checked before anything is allocated for them.
 * tests/unit/test_wire.c decodes a thousand empty classes and directions, which a bound above
 * what they encode to would refuse. */
#define MIN_CLASS 120	/* 126 */
#define MIN_DIR 569	/* 576 */
#define MIN_PROBE 19
#define MIN_TARGET 75

static void fail(struct wio *w, int err)
{
	if (!w->err)
		w->err = err;
}

static void raw(struct wio *w, void *v, size_t n)
{
	if (w->err) {
		if (w->dec)
			memset(v, 0, n);
		return;
	}
	if (w->dec) {
		if (w->len - w->off < n) {
			fail(w, -EBADMSG);
			memset(v, 0, n);
			return;
		}
		memcpy(v, w->p + w->off, n);
		w->off += n;
		return;
	}
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 4096;
		uint8_t *np;

		while (cap - w->len < n)
			cap *= 2;
		if (!(np = realloc(w->p, cap))) {
			fail(w, -ENOMEM);
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

static void io_u8(struct wio *w, uint8_t *v)
{
	raw(w, v, 1);
}

static void io_u16(struct wio *w, uint16_t *v)
{
	uint16_t x = htole16(*v);

	raw(w, &x, 2);
	if (w->dec)
		*v = le16toh(x);
}

static void io_u32(struct wio *w, uint32_t *v)
{
	uint32_t x = htole32(*v);

	raw(w, &x, 4);
	if (w->dec)
		*v = le32toh(x);
}

static void io_u64(struct wio *w, uint64_t *v)
{
	uint64_t x = htole64(*v);

	raw(w, &x, 8);
	if (w->dec)
		*v = le64toh(x);
}

static void io_i64(struct wio *w, int64_t *v)
{
	uint64_t x = (uint64_t)*v;

	io_u64(w, &x);
	if (w->dec)
		*v = (int64_t)x;
}

static void io_int(struct wio *w, int *v)
{
	uint32_t x = (uint32_t)*v;

	io_u32(w, &x);
	if (w->dec)
		*v = (int)(int32_t)x;
}

/* doubles and floats go as their IEEE 754 bits: NAN (no figure) passes as it is */
static void io_dbl(struct wio *w, double *v)
{
	uint64_t x;

	memcpy(&x, v, 8);
	io_u64(w, &x);
	if (w->dec)
		memcpy(v, &x, 8);
}

static void io_flt(struct wio *w, float *v)
{
	uint32_t x;

	memcpy(&x, v, 4);
	io_u32(w, &x);
	if (w->dec)
		memcpy(v, &x, 4);
}

static void io_bool(struct wio *w, bool *v)
{
	uint8_t x = *v ? 1 : 0;

	io_u8(w, &x);
	if (w->dec) {
		if (x > 1)
			fail(w, -EBADMSG);
		*v = x == 1;
	}
}

/* A string of a char[cap] field: u16 length, the bytes, no NUL. Decoded: shorter than cap,
 * no NUL inside, and NUL-terminated in the field. */
static void io_str(struct wio *w, char *s, size_t cap)
{
	uint16_t n = 0;

	if (!w->dec) {
		size_t l = strnlen(s, cap);

		if (l >= cap || l > UINT16_MAX) {
			fail(w, -ENAMETOOLONG);
			return;
		}
		n = (uint16_t)l;
		io_u16(w, &n);
		raw(w, s, n);
		return;
	}
	io_u16(w, &n);
	if (!w->err && (n >= cap || w->len - w->off < n))
		fail(w, -EBADMSG);
	if (w->err) {
		s[0] = '\0';
		return;
	}
	memcpy(s, w->p + w->off, n);
	w->off += n;
	s[n] = '\0';
	if (memchr(s, '\0', n))
		fail(w, -EBADMSG);
}

/* A count: u32, at most max; decoded, also at most what is left over min_each bytes each. */
static void io_count(struct wio *w, size_t *n, size_t max, size_t min_each)
{
	uint32_t x = 0;

	if (!w->dec) {
		if (*n > max) {
			fail(w, -E2BIG);
			return;
		}
		x = (uint32_t)*n;
		io_u32(w, &x);
		return;
	}
	io_u32(w, &x);
	*n = 0;
	if (w->err)
		return;
	if (x > max || (min_each && (w->len - w->off) / min_each < x)) {
		fail(w, -EBADMSG);
		return;
	}
	*n = x;
}

/* calloc for decoding n elements (NULL for none; an error sticks) */
static void *io_alloc(struct wio *w, size_t n, size_t size)
{
	void *p;

	if (w->err || !n)
		return NULL;
	if (!(p = calloc(n, size)))
		fail(w, -ENOMEM);
	return p;
}

/* ---- snapshots ---- */

static void io_xstats(struct wio *w, struct gw_xstats *x)
{
	const struct gw_snapshot *s = w->snap;
	uint8_t idx = 0xff, nv = 0, ng = 0, ngf = 0;
	const struct gw_xstats_desc *d = x->desc;

	if (!w->dec) {
		for (size_t i = 0; d && i < s->n_xdescs && i < GW_SNAP_XKINDS; i++)
			if (s->xdescs[i] == d) {
				idx = (uint8_t)i;
				break;
			}
		/* a descriptor the snapshot does not list is one the renderers never show */
		if (idx == 0xff)
			d = NULL;
		if (d) {
			nv = (uint8_t)(d->n_fields < GW_XSTATS_MAX ? d->n_fields : GW_XSTATS_MAX);
			ng = (uint8_t)(x->n_groups < 0 ? 0 : x->n_groups < GW_XGROUPS_MAX ?
				       x->n_groups : GW_XGROUPS_MAX);
			ngf = (uint8_t)(d->n_group_fields < GW_XGROUP_FIELDS ?
					d->n_group_fields : GW_XGROUP_FIELDS);
		}
	}
	io_u8(w, &idx);
	if (w->dec) {
		memset(x, 0, sizeof(*x));
		if (idx == 0xff)
			return;
		if (idx >= s->n_xdescs) {
			fail(w, -EBADMSG);
			return;
		}
		d = x->desc = s->xdescs[idx];
	} else if (idx == 0xff) {
		return;
	}
	io_u8(w, &nv);
	/* as many as the kind has (so one encoding per snapshot: the fuzzer checks that) */
	if (w->dec && (nv > GW_XSTATS_MAX || nv != d->n_fields))
		fail(w, -EBADMSG);
	for (size_t i = 0; i < nv && !w->err; i++)
		io_u64(w, &x->v[i]);
	io_u8(w, &ng);
	io_u8(w, &ngf);
	if (w->dec && (ng > GW_XGROUPS_MAX || ngf > GW_XGROUP_FIELDS ||
		       ngf != d->n_group_fields || (ng && !d->group_json)))
		fail(w, -EBADMSG);
	if (w->err)
		return;
	x->n_groups = ng;
	for (size_t g = 0; g < ng && !w->err; g++)
		for (size_t i = 0; i < ngf; i++)
			io_u64(w, &x->g[g][i]);
}

static void io_class(struct wio *w, struct gw_snap_class *c)
{
	io_str(w, c->name, sizeof(c->name));
	io_str(w, c->kind, sizeof(c->kind));
	io_u64(w, &c->rate_in_force_bytes_per_s);
	io_u64(w, &c->ceil_bytes_per_s);
	io_u64(w, &c->bytes);
	io_u64(w, &c->packets);
	io_u64(w, &c->drops);
	io_u64(w, &c->overlimits);
	io_u64(w, &c->requeues);
	io_u64(w, &c->ecn_marks);
	io_u32(w, &c->backlog_bytes);
	io_u32(w, &c->backlog_packets);
	io_dbl(w, &c->achieved_bytes_per_s);
	io_dbl(w, &c->utilisation);
	io_bool(w, &c->saturated);
	io_dbl(w, &c->accuracy);
	io_dbl(w, &c->queue_delay_ms);
	io_dbl(w, &c->drops_per_s);
	io_dbl(w, &c->marks_per_s);
	io_xstats(w, &c->x);
}

static void io_rtt(struct wio *w, struct gw_snap_rtt *r)
{
	io_u64(w, &r->samples);
	io_u64(w, &r->lost);
	io_dbl(w, &r->loss);
	io_dbl(w, &r->min_ms);
	io_dbl(w, &r->p50_ms);
	io_dbl(w, &r->p90_ms);
	io_dbl(w, &r->p99_ms);
	io_dbl(w, &r->mean_ms);
	io_dbl(w, &r->jitter_ms);
}

static void io_latency(struct wio *w, struct gw_snap_latency *l)
{
	io_bool(w, &l->present);
	io_dbl(w, &l->baseline_ms);
	io_rtt(w, &l->idle);
	io_rtt(w, &l->loaded);
	io_dbl(w, &l->induced_p50_ms);
	io_dbl(w, &l->induced_p99_ms);
	io_dbl(w, &l->induced_mean_ms);
	io_str(w, l->grade, sizeof(l->grade));
	io_dbl(w, &l->pass_loaded_p50_ms);
	io_dbl(w, &l->pass_loaded_p99_ms);
	io_u64(w, &l->hist_count);
	io_dbl(w, &l->hist_sum_s);
	for (size_t i = 0; i < GW_SNAP_RTT_BUCKETS; i++)
		io_u64(w, &l->hist_le[i]);
}

static void io_autorate(struct wio *w, struct gw_snap_autorate *a)
{
	io_bool(w, &a->present);
	io_u64(w, &a->rate_bytes_per_s);
	io_u64(w, &a->min_bytes_per_s);
	io_u64(w, &a->base_bytes_per_s);
	io_u64(w, &a->max_bytes_per_s);
	io_str(w, a->state, sizeof(a->state));
	io_str(w, a->last_reason, sizeof(a->last_reason));
	io_dbl(w, &a->last_change_unix);
	for (size_t i = 0; i < GW_SNAP_AR_REASONS; i++)
		io_u64(w, &a->changes[i]);
	io_u64(w, &a->refused);
	io_dbl(w, &a->threshold_ms);
}

static void io_cni(struct wio *w, struct gw_snap_cni *c)
{
	io_bool(w, &c->present);
	io_str(w, c->id, sizeof(c->id));
	io_str(w, c->netns, sizeof(c->netns));
	io_str(w, c->network, sizeof(c->network));
	io_str(w, c->ifname, sizeof(c->ifname));
}

static void io_dir(struct wio *w, struct gw_snap_dir *d)
{
	io_str(w, d->link, sizeof(d->link));
	io_str(w, d->interface, sizeof(d->interface));
	io_str(w, d->device, sizeof(d->device));
	io_str(w, d->direction, sizeof(d->direction));
	io_str(w, d->shaper, sizeof(d->shaper));
	io_u64(w, &d->rate_in_force_bytes_per_s);
	io_bool(w, &d->waiting);
	io_str(w, d->foreign_hook, sizeof(d->foreign_hook));
	io_class(w, &d->total);
	io_count(w, &d->n_classes, GW_WIRE_MAX_CLASSES, MIN_CLASS);
	if (w->dec) {
		d->classes = io_alloc(w, d->n_classes, sizeof(*d->classes));
		if (!d->classes)
			d->n_classes = 0;
	}
	for (size_t i = 0; i < d->n_classes && !w->err; i++)
		io_class(w, &d->classes[i]);
	io_latency(w, &d->latency);
	io_autorate(w, &d->autorate);
	io_cni(w, &d->cni);
}

static void io_target(struct wio *w, struct gw_snap_target *t)
{
	io_str(w, t->host, sizeof(t->host));
	io_bool(w, &t->up);
	io_u64(w, &t->sent);
	io_u64(w, &t->received);
	io_u64(w, &t->lost);
	io_u64(w, &t->duplicates);
	io_u64(w, &t->reordered);
	io_dbl(w, &t->last_rtt_ms);
	io_dbl(w, &t->last_reply_unix);
	io_dbl(w, &t->last_owd_up_ms);
	io_dbl(w, &t->last_owd_down_ms);
}

static void io_probe(struct wio *w, struct gw_snap_probe *p)
{
	size_t max = sizeof(p->targets) / sizeof(p->targets[0]);

	io_bool(w, &p->enabled);
	io_str(w, p->method, sizeof(p->method));
	io_str(w, p->link, sizeof(p->link));
	io_str(w, p->source, sizeof(p->source));
	io_i64(w, &p->interval_us);
	io_count(w, &p->n_targets, max, MIN_TARGET);
	for (size_t i = 0; i < p->n_targets && !w->err; i++)
		io_target(w, &p->targets[i]);
}

static void io_flows(struct wio *w, size_t *n, double *bps)
{
	io_count(w, n, GW_SNAP_LOAD_FLOWS, 8);
	for (size_t i = 0; i < *n && !w->err; i++)
		io_dbl(w, &bps[i]);
}

static void io_load_dir(struct wio *w, struct gw_snap_load_dir *d)
{
	io_str(w, d->direction, sizeof(d->direction));
	io_dbl(w, &d->goodput_bps);
	io_dbl(w, &d->idle_p50_ms);
	io_dbl(w, &d->loaded_p50_ms);
	io_dbl(w, &d->loaded_p99_ms);
	io_dbl(w, &d->induced_mean_ms);
	io_dbl(w, &d->induced_p99_ms);
	io_str(w, d->grade, sizeof(d->grade));
	io_dbl(w, &d->down_bps);
	io_dbl(w, &d->up_bps);
	io_dbl(w, &d->fairness);
	io_int(w, &d->flows);
	io_u64(w, &d->loaded_samples);
	io_u64(w, &d->loaded_lost);
	io_flows(w, &d->n_down_flows, d->down_flow_bps);
	io_flows(w, &d->n_up_flows, d->up_flow_bps);
}

static void io_loadtest(struct wio *w, struct gw_snap_loadtest *l)
{
	io_bool(w, &l->present);
	io_bool(w, &l->running);
	io_dbl(w, &l->started_unix);
	io_dbl(w, &l->finished_unix);
	io_str(w, l->sink, sizeof(l->sink));
	io_str(w, l->error, sizeof(l->error));
	io_count(w, &l->n_dirs, sizeof(l->dirs) / sizeof(l->dirs[0]), 1);
	for (size_t i = 0; i < l->n_dirs && !w->err; i++)
		io_load_dir(w, &l->dirs[i]);
	io_str(w, l->phase, sizeof(l->phase));
	io_int(w, &l->flows);
	io_dbl(w, &l->phase_s);
}

/* the descriptors by their JSON key: pointers mean nothing in another process */
static void io_xdescs(struct wio *w, struct gw_snapshot *s)
{
	uint8_t n = (uint8_t)(s->n_xdescs < GW_SNAP_XKINDS ? s->n_xdescs : GW_SNAP_XKINDS);

	io_u8(w, &n);
	if (w->dec && n > GW_SNAP_XKINDS)
		fail(w, -EBADMSG);
	for (size_t i = 0; i < n && !w->err; i++) {
		char name[64];
		size_t k;

		if (!w->dec) {
			const char *j = s->xdescs[i] && s->xdescs[i]->json ? s->xdescs[i]->json : "";

			if (strlen(j) >= sizeof(name)) {
				fail(w, -ENAMETOOLONG);
				return;
			}
			strcpy(name, j);
		}
		io_str(w, name, sizeof(name));
		if (!w->dec || w->err)
			continue;
		for (k = 0; k < w->n_kinds; k++)
			if (w->kinds[k] && w->kinds[k]->json && !strcmp(w->kinds[k]->json, name))
				break;
		if (k == w->n_kinds) {
			fail(w, -EBADMSG);
			return;
		}
		/* each kind once: a class names its kind by the first place it has */
		for (size_t j = 0; j < i; j++)
			if (s->xdescs[j] == w->kinds[k])
				fail(w, -EBADMSG);
		s->xdescs[i] = w->kinds[k];
	}
	if (w->dec && !w->err)
		s->n_xdescs = n;
}

static void io_snapshot(struct wio *w, struct gw_snapshot *s)
{
	w->snap = s;
	io_u64(w, &s->seq);
	io_dbl(w, &s->unix_time);
	io_dbl(w, &s->uptime_s);
	io_i64(w, &s->interval_us);
	io_dbl(w, &s->sample_ms);
	io_dbl(w, &s->sample_lag_ms);
	io_u64(w, &s->samples_total);
	io_u64(w, &s->late_samples_total);
	io_str(w, s->last_error, sizeof(s->last_error));
	io_xdescs(w, s);
	io_count(w, &s->n_dirs, GW_WIRE_MAX_DIRS, MIN_DIR);
	if (w->dec) {
		s->dirs = io_alloc(w, s->n_dirs, sizeof(*s->dirs));
		if (!s->dirs)
			s->n_dirs = 0;
	}
	for (size_t i = 0; i < s->n_dirs && !w->err; i++)
		io_dir(w, &s->dirs[i]);
	io_probe(w, &s->probe);
	io_count(w, &s->n_probes, GW_SNAP_MAX_PROBES, MIN_PROBE);
	if (w->dec) {
		s->probes = io_alloc(w, s->n_probes, sizeof(*s->probes));
		if (!s->probes)
			s->n_probes = 0;
	}
	for (size_t i = 0; i < s->n_probes && !w->err; i++)
		io_probe(w, &s->probes[i]);
	io_loadtest(w, &s->loadtest);
	io_bool(w, &s->web.present);
	io_int(w, &s->web.pid);
	io_u64(w, &s->web.restarts);
	io_dbl(w, &s->web.down_s);
	io_u64(w, &s->web.dropped);
}

/* ---- frames ---- */

void gw_wire_buf_free(struct gw_wire_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* the header's room first, then the payload; the length is filled in when it is known */
static void frame_start(struct wio *w, struct gw_wire_buf *b, uint16_t type)
{
	uint16_t v = GW_WIRE_VERSION;
	uint32_t zero = 0;

	*w = (struct wio){ .p = b->p, .len = b->len, .cap = b->cap };
	raw(w, GW_WIRE_MAGIC, 4);
	io_u16(w, &v);
	io_u16(w, &type);
	io_u32(w, &zero);
}

static int frame_end(struct wio *w, struct gw_wire_buf *b)
{
	size_t start = b->len;
	uint32_t len;

	/* the buffer may have moved: keep it whatever happened, but not a partial frame */
	b->p = w->p;
	b->cap = w->cap;
	if (!w->err && w->len - start - GW_WIRE_HDR > GW_WIRE_MAX_PAYLOAD)
		w->err = -E2BIG;
	if (w->err)
		return w->err;
	len = htole32((uint32_t)(w->len - start - GW_WIRE_HDR));
	memcpy(b->p + start + 8, &len, 4);
	b->len = w->len;
	return 0;
}

int gw_wire_put_snapshot(struct gw_wire_buf *b, const struct gw_snapshot *s)
{
	struct wio w;

	frame_start(&w, b, GW_WIRE_SNAPSHOT);
	/* encoding only reads: the walk's pointer is not written through */
	io_snapshot(&w, (struct gw_snapshot *)s);
	return frame_end(&w, b);
}

static void io_addr(struct wio *w, struct sockaddr_storage *ss, socklen_t *len)
{
	uint16_t fam = ss->ss_family;

	io_u16(w, &fam);
	if (fam == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (w->dec)
			memset(ss, 0, sizeof(*ss));
		in->sin_family = AF_INET;
		raw(w, &in->sin_addr, 4);
		raw(w, &in->sin_port, 2);	/* network order, as it is kept */
		*len = sizeof(*in);
	} else if (fam == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (w->dec)
			memset(ss, 0, sizeof(*ss));
		in6->sin6_family = AF_INET6;
		raw(w, &in6->sin6_addr, 16);
		raw(w, &in6->sin6_port, 2);
		io_u32(w, &in6->sin6_scope_id);
		*len = sizeof(*in6);
	} else {
		fail(w, w->dec ? -EBADMSG : -EINVAL);
	}
}

static void io_settings(struct wio *w, struct gw_wire_settings *ws)
{
	io_count(w, &ws->n_listen, GW_WEBUI_MAX_LISTEN, 0);
	for (size_t i = 0; i < ws->n_listen && !w->err; i++) {
		io_str(w, ws->listen_text[i], sizeof(ws->listen_text[i]));
		io_addr(w, &ws->listen_addr[i], &ws->listen_len[i]);
	}
	io_str(w, ws->auth_file, sizeof(ws->auth_file));
	io_str(w, ws->tls_cert, sizeof(ws->tls_cert));
	io_str(w, ws->tls_key, sizeof(ws->tls_key));
	io_count(w, &ws->n_allowed_hosts, GW_WEBUI_MAX_HOSTS, 0);
	for (size_t i = 0; i < ws->n_allowed_hosts && !w->err; i++)
		io_str(w, ws->allowed_hosts[i], sizeof(ws->allowed_hosts[i]));
	io_u32(w, &ws->auth_fail_limit);
	io_dbl(w, &ws->auth_fail_backoff_s);
	io_u64(w, &ws->memory_max);
	io_dbl(w, &ws->log_window_s);
	io_str(w, ws->compare_dir, sizeof(ws->compare_dir));
	io_i64(w, &ws->interval_us);
}

int gw_wire_put_settings(struct gw_wire_buf *b, const struct gw_wire_settings *ws)
{
	struct wio w;

	frame_start(&w, b, GW_WIRE_SETTINGS);
	io_settings(&w, (struct gw_wire_settings *)ws);
	return frame_end(&w, b);
}

static void io_point(struct wio *w, struct gw_hist_point *p)
{
	io_dbl(w, &p->t);
	io_flt(w, &p->rate_bps_min);
	io_flt(w, &p->rate_bps_avg);
	io_flt(w, &p->rate_bps_max);
	io_flt(w, &p->delay_ms_min);
	io_flt(w, &p->delay_ms_avg);
	io_flt(w, &p->delay_ms_max);
	io_flt(w, &p->drops_per_s_avg);
	io_flt(w, &p->backlog_bytes_avg);
	io_flt(w, &p->baseline_ms);
	io_flt(w, &p->loaded_p50_ms);
	io_flt(w, &p->loaded_p99_ms);
	io_bool(w, &p->has_shaper);
	io_flt(w, &p->shaper_bps);
}

#define POINT_BYTES 57	/* what io_point writes */

static void io_history(struct wio *w, struct gw_wire_series *ser, struct gw_hist_point *pts,
		       size_t *n)
{
	io_str(w, ser->link, sizeof(ser->link));
	io_str(w, ser->direction, sizeof(ser->direction));
	io_str(w, ser->class_name, sizeof(ser->class_name));
	io_bool(w, &ser->minute);
	io_count(w, n, GW_WIRE_HIST_MAX, POINT_BYTES);
	for (size_t i = 0; i < *n && !w->err; i++)
		io_point(w, &pts[i]);
}

int gw_wire_put_history(struct gw_wire_buf *b, const struct gw_wire_series *ser,
			const struct gw_hist_point *pts, size_t n)
{
	struct wio w;

	frame_start(&w, b, GW_WIRE_HISTORY);
	io_history(&w, (struct gw_wire_series *)ser, (struct gw_hist_point *)pts, &n);
	return frame_end(&w, b);
}

int gw_wire_hdr_parse(const void *p, size_t len, struct gw_wire_hdr *h)
{
	const uint8_t *b = p;
	uint16_t v, t;
	uint32_t l;

	if (len < GW_WIRE_HDR)
		return -EAGAIN;
	if (memcmp(b, GW_WIRE_MAGIC, 4))
		return -EBADMSG;
	memcpy(&v, b + 4, 2);
	memcpy(&t, b + 6, 2);
	memcpy(&l, b + 8, 4);
	h->version = le16toh(v);
	h->type = le16toh(t);
	h->len = le32toh(l);
	if (h->version != GW_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	if (h->type < 1 || h->type > GW_WIRE_TYPE_MAX)
		return -EBADMSG;
	if (h->len > GW_WIRE_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

/* a decode walk over exactly len bytes: what is left over is as wrong as what is missing */
static int dec_end(struct wio *w)
{
	if (!w->err && w->off != w->len)
		w->err = -EBADMSG;
	return w->err;
}

int gw_wire_get_snapshot(const void *payload, size_t len,
			 const struct gw_xstats_desc *const *kinds, size_t n_kinds,
			 struct gw_snapshot **out)
{
	struct wio w = { .dec = true, .p = (uint8_t *)payload, .len = len, .kinds = kinds,
			 .n_kinds = n_kinds };
	struct gw_snapshot *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	atomic_init(&s->refs, 1);
	io_snapshot(&w, s);
	if (dec_end(&w)) {
		gw_snapshot_put(s);
		return w.err;
	}
	*out = s;
	return 0;
}

int gw_wire_get_settings(const void *payload, size_t len, struct gw_wire_settings *ws)
{
	struct wio w = { .dec = true, .p = (uint8_t *)payload, .len = len };

	memset(ws, 0, sizeof(*ws));
	io_settings(&w, ws);
	if (dec_end(&w))
		memset(ws, 0, sizeof(*ws));
	return w.err;
}

int gw_wire_get_history(const void *payload, size_t len, struct gw_wire_series *ser,
			struct gw_hist_point *pts, size_t *n)
{
	struct wio w = { .dec = true, .p = (uint8_t *)payload, .len = len };

	memset(ser, 0, sizeof(*ser));
	*n = 0;
	io_history(&w, ser, pts, n);
	if (dec_end(&w))
		*n = 0;
	return w.err;
}

size_t gw_wire_settings_opts(const struct gw_wire_settings *ws, struct gw_webui_listen *listen,
			     struct gw_webui_opts *o, const char **hosts)
{
	size_t n = ws->n_listen < GW_WEBUI_MAX_LISTEN ? ws->n_listen : GW_WEBUI_MAX_LISTEN;
	size_t nh = ws->n_allowed_hosts < GW_WEBUI_MAX_HOSTS ? ws->n_allowed_hosts :
		    GW_WEBUI_MAX_HOSTS;

	for (size_t i = 0; i < n; i++)
		listen[i] = (struct gw_webui_listen){ ws->listen_text[i], ws->listen_addr[i],
						      ws->listen_len[i] };
	for (size_t i = 0; i < nh; i++)
		hosts[i] = ws->allowed_hosts[i];
	memset(o, 0, sizeof(*o));
	o->auth_file = ws->auth_file[0] ? ws->auth_file : NULL;
	o->tls_cert = ws->tls_cert[0] ? ws->tls_cert : NULL;
	o->tls_key = ws->tls_key[0] ? ws->tls_key : NULL;
	o->allowed_hosts = hosts;
	o->n_allowed_hosts = nh;
	o->auth_fail_limit = ws->auth_fail_limit;
	o->auth_fail_backoff_s = ws->auth_fail_backoff_s;
	o->memory_max = (size_t)ws->memory_max;
	o->log_window_s = ws->log_window_s;
	return n;
}

/* ---- a stream of frames ---- */

void gw_wire_rx_free(struct gw_wire_rx *rx)
{
	free(rx->buf);
	memset(rx, 0, sizeof(*rx));
}

int gw_wire_rx_feed(struct gw_wire_rx *rx, const void *p, size_t n)
{
	if (rx->off) {
		/* what was handed out is done with: move the rest to the front */
		memmove(rx->buf, rx->buf + rx->off, rx->len - rx->off);
		rx->len -= rx->off;
		rx->off = 0;
	}
	if (rx->cap - rx->len < n) {
		size_t cap = rx->cap ? rx->cap : 65536;
		uint8_t *nb;

		while (cap - rx->len < n)
			cap *= 2;
		if (!(nb = realloc(rx->buf, cap)))
			return -ENOMEM;
		rx->buf = nb;
		rx->cap = cap;
	}
	memcpy(rx->buf + rx->len, p, n);
	rx->len += n;
	return 0;
}

long gw_wire_rx_read(struct gw_wire_rx *rx, int fd)
{
	uint8_t chunk[65536];
	ssize_t r = read(fd, chunk, sizeof(chunk));

	if (r < 0)
		return -errno;
	if (r > 0 && gw_wire_rx_feed(rx, chunk, (size_t)r))
		return -ENOMEM;
	return r;
}

int gw_wire_rx_next(struct gw_wire_rx *rx, struct gw_wire_hdr *h, const uint8_t **payload)
{
	size_t have = rx->len - rx->off;
	int err;

	if (rx->err)
		return rx->err;
	if (have < GW_WIRE_HDR)
		return 0;
	err = gw_wire_hdr_parse(rx->buf + rx->off, have, h);
	if (err == -EAGAIN)
		return 0;
	if (err)
		return rx->err = err;
	if (have - GW_WIRE_HDR < h->len)
		return 0;
	*payload = rx->buf + rx->off + GW_WIRE_HDR;
	rx->off += GW_WIRE_HDR + h->len;
	return 1;
}
