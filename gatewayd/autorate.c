/* gatewayd/autorate.c: autorate in the daemon: samples and loads into the controller, its
 * steps into the kernel (in place, one batch per step), the log of why, and the snapshot. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gatewayd/autorate.h"
#include "tree/autorate_ctl.h"
#include "sys/clock.h"
#include "sys/log.h"
#include "tree/retune.h"

/* What one direction has said in the log, so it says at most a line per GW_AUTORATE_LOG_EVERY_S. */
struct ar_log {
	double last_mono;		/* -INFINITY: never */
	unsigned int pending;		/* changes since that line, not yet told */
	uint64_t by[GW_AR_REASONS];
	double refused_mono;		/* the last refusal logged */
};

struct ar_link {
	size_t link;			/* index into cfg->links */
	struct gw_ar_ctl ctl;
	struct ar_log log[2];
	uint64_t refused[2];
	double last_delta_ms[2];	/* the last sample's delay over baseline, per direction */
	uint64_t passes[2];		/* passes seen (the first has no rates) */
};

struct gw_autorate {
	const struct gw_config *cfg;
	struct gw_nl *nl;
	struct gw_applied *a;
	struct gw_sampler **sampler;	/* the loop's, which a reload may replace */
	struct ar_link *l;
	size_t n;
};

static double mbit(double bytes_per_s)
{
	return bytes_per_s * 8 / 1e6;
}

static void link_init(struct ar_link *l, const struct gw_config *cfg, const struct gw_applied *a,
		      size_t i)
{
	const struct gw_link_cfg *lc = &cfg->links[i];
	const struct gw_autorate_cfg *ac[2];
	double rate[2];

	memset(l, 0, sizeof(*l));
	l->link = i;
	for (int d = 0; d < 2; d++) {
		ac[d] = lc->dir[d].present && lc->dir[d].autorate.present ? &lc->dir[d].autorate :
									    NULL;
		rate[d] = (double)gw_retune_rate(a, i, (enum gw_direction)d);
		/* a link waiting for its interface has no tree yet: it starts at the configured
		 * rate, as its tree will (sync_rates follows the plan once it is there) */
		if (!rate[d] && ac[d])
			rate[d] = (double)lc->dir[d].rate;
		l->log[d].last_mono = l->log[d].refused_mono = -INFINITY;
		l->last_delta_ms[d] = NAN;
	}
	gw_ar_init(&l->ctl, ac, rate);
}

static int build(struct gw_autorate *ar, const struct gw_config *cfg)
{
	size_t n = 0;

	for (size_t i = 0; i < cfg->n_links; i++)
		n += (cfg->links[i].dir[0].present && cfg->links[i].dir[0].autorate.present) ||
		     (cfg->links[i].dir[1].present && cfg->links[i].dir[1].autorate.present);
	ar->l = n ? calloc(n, sizeof(*ar->l)) : NULL;
	if (n && !ar->l)
		return -ENOMEM;
	ar->n = 0;
	for (size_t i = 0; i < cfg->n_links; i++)
		if ((cfg->links[i].dir[0].present && cfg->links[i].dir[0].autorate.present) ||
		    (cfg->links[i].dir[1].present && cfg->links[i].dir[1].autorate.present))
			link_init(&ar->l[ar->n++], cfg, ar->a, i);
	ar->cfg = cfg;
	return 0;
}

int gw_autorate_new(const struct gw_config *cfg, struct gw_nl *nl, struct gw_applied *a,
		    struct gw_sampler **sampler, struct gw_autorate **out)
{
	struct gw_autorate *ar = calloc(1, sizeof(*ar));

	if (!ar)
		return -ENOMEM;
	*ar = (struct gw_autorate){ .nl = nl, .a = a, .sampler = sampler };
	if (build(ar, cfg)) {
		free(ar);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++)
		for (int d = 0; d < 2; d++)
			if (ar->l[i].ctl.dir[d].on)
				gw_log(GW_LOG_INFO, "autorate: link '%s' %s between %.2f and %.2f "
				       "Mbit/s, from %.2f (base %.2f)", cfg->links[ar->l[i].link].name,
				       gw_direction_name((enum gw_direction)d),
				       mbit((double)ar->l[i].ctl.dir[d].cfg.min),
				       mbit((double)ar->l[i].ctl.dir[d].cfg.max),
				       mbit(ar->l[i].ctl.dir[d].rate),
				       mbit((double)ar->l[i].ctl.dir[d].cfg.base));
	if (ar->n && cfg->interval_us > 500000)
		gw_log(GW_LOG_WARNING, "autorate: interval %.1f s: a cut goes towards an achieved rate "
		       "that old; 200ms suits autorate better", (double)cfg->interval_us / 1e6);
	*out = ar;
	return 0;
}

void gw_autorate_free(struct gw_autorate *ar)
{
	if (!ar)
		return;
	free(ar->l);
	free(ar);
}

static struct ar_link *find(struct gw_autorate *ar, const char *name)
{
	for (size_t i = 0; i < ar->n; i++)
		if (!strcmp(ar->cfg->links[ar->l[i].link].name, name))
			return &ar->l[i];
	return NULL;
}

/* A reload or a heal may have put the plan's rate back: the kernel has what the plan says. */
static void sync_rates(struct gw_autorate *ar, struct ar_link *l)
{
	for (int d = 0; d < 2; d++) {
		double r = (double)gw_retune_rate(ar->a, l->link, (enum gw_direction)d);

		if (l->ctl.dir[d].on && r > 0 && fabs(r - l->ctl.dir[d].rate) >= 1)
			gw_ar_set_rate(&l->ctl, d, r);
	}
}

static const char *why(const struct ar_link *l, int d, enum gw_ar_reason r, char *buf,
		       size_t len)
{
	const struct gw_ar_dir *x = &l->ctl.dir[d];

	if (r == GW_AR_BLOAT)
		snprintf(buf, len, "delay %.1f ms over baseline, threshold %.1f ms; achieved %.2f "
			 "Mbit/s", l->last_delta_ms[d], gw_ar_threshold_ms(x), mbit(x->achieved));
	else if (r == GW_AR_LOAD)
		snprintf(buf, len, "achieved %.2f Mbit/s, no bloat", mbit(x->achieved));
	else if (r == GW_AR_QUEUE)
		snprintf(buf, len, "a queue of %.1f ms stood under the threshold %.1f ms; achieved "
			 "%.2f Mbit/s", l->last_delta_ms[d], gw_ar_threshold_ms(x), mbit(x->achieved));
	else
		snprintf(buf, len, "idle; base %.2f Mbit/s", mbit((double)x->cfg.base));
	return buf;
}

static void say_pending(struct ar_log *g, char *buf, size_t len)
{
	snprintf(buf, len, "; %u more change%s since the last line (bloat %llu, load %llu, idle "
		 "%llu, queue %llu)", g->pending, g->pending == 1 ? "" : "s",
		 (unsigned long long)g->by[0], (unsigned long long)g->by[1],
		 (unsigned long long)g->by[2], (unsigned long long)g->by[3]);
	g->pending = 0;
	memset(g->by, 0, sizeof(g->by));
}

static void log_change(struct gw_autorate *ar, struct ar_link *l, int d, double from,
		       enum gw_ar_reason r, double now)
{
	struct ar_log *g = &l->log[d];
	char because[160], more[128] = "";

	if (now - g->last_mono < GW_AUTORATE_LOG_EVERY_S) {
		g->pending++;
		g->by[r]++;
		return;
	}
	if (g->pending)
		say_pending(g, more, sizeof(more));
	g->last_mono = now;
	gw_log(GW_LOG_INFO, "autorate: link '%s' %s %.2f -> %.2f Mbit/s (%s: %s)%s",
	       ar->cfg->links[l->link].name, gw_direction_name((enum gw_direction)d), mbit(from),
	       mbit(l->ctl.dir[d].rate), gw_ar_reason_name(r), why(l, d, r, because,
	       sizeof(because)), more);
}

/* The controller's proposals for the directions in moved, into the kernel. */
static void apply(struct gw_autorate *ar, struct ar_link *l, unsigned int moved, double now)
{
	for (int d = 0; d < 2; d++) {
		struct gw_ar_dir *x = &l->ctl.dir[d];
		enum gw_ar_reason r = x->want_reason;
		double from = x->rate;
		char err[768] = "";
		int ret;

		if (!(moved & (1u << d)))
			continue;
		ret = gw_retune(ar->nl, ar->cfg, ar->a, l->link, (enum gw_direction)d,
				(uint64_t)llround(x->want), NULL, err, sizeof(err));
		gw_ar_done(&l->ctl, d, ret == 0, now);
		if (ret) {
			l->refused[d]++;
			if (now - l->log[d].refused_mono >= GW_AUTORATE_LOG_EVERY_S) {
				l->log[d].refused_mono = now;
				gw_log(GW_LOG_ERR, "autorate: link '%s' %s stays at %.2f Mbit/s: %s "
				       "(%llu refused so far)", ar->cfg->links[l->link].name,
				       gw_direction_name((enum gw_direction)d), mbit(x->rate), err,
				       (unsigned long long)l->refused[d]);
			}
			continue;
		}
		/* the sampler's rates, utilisation and accuracy follow the plan */
		gw_sampler_retarget(*ar->sampler, ar->cfg, ar->a);
		log_change(ar, l, d, from, r, now);
	}
}

void gw_autorate_sample(void *ctx, const char *link, const struct gw_probe_sample *s)
{
	struct gw_autorate *ar = ctx;
	struct ar_link *l = ar ? find(ar, link) : NULL;
	double now = gw_mono_now();
	unsigned int moved;
	bool owd;

	if (!l || s->lost)
		return;
	sync_rates(ar, l);
	moved = gw_ar_sample(&l->ctl, s->target, s->rtt_ms, s->owd_up_ms, s->owd_down_ms, now);
	if (s->target >= 0 && s->target < GW_AR_REFLECTORS) {
		owd = isfinite(s->owd_up_ms) && isfinite(s->owd_down_ms);
		for (int d = 0; d < 2; d++)
			l->last_delta_ms[d] = l->ctl.refl[s->target].delta[owd ? 1 + d : 0];
	}
	if (moved)
		apply(ar, l, moved, now);
}

static void fill(const struct ar_link *l, int d, struct gw_snap_autorate *o, double mono)
{
	static const char *const reasons[] = GW_SNAP_AR_REASON_NAMES;
	const struct gw_ar_dir *x = &l->ctl.dir[d];

	o->present = true;
	o->rate_bytes_per_s = (uint64_t)llround(x->rate);
	o->min_bytes_per_s = x->cfg.min;
	o->base_bytes_per_s = x->cfg.base;
	o->max_bytes_per_s = x->cfg.max;
	snprintf(o->state, sizeof(o->state), "%s", gw_ar_state_name(x->state));
	snprintf(o->last_reason, sizeof(o->last_reason), "%s",
		 x->last_reason < GW_AR_REASONS ? reasons[x->last_reason] : "");
	o->last_change_unix = x->last_change_mono > 0 ?
			      gw_wall_now() - (mono - x->last_change_mono) : 0;
	for (int r = 0; r < GW_SNAP_AR_REASONS && r < GW_AR_REASONS; r++)
		o->changes[r] = x->changes[r];
	o->refused = l->refused[d];
	o->threshold_ms = gw_ar_threshold_ms(x);
}

void gw_autorate_pass(struct gw_autorate *ar, struct gw_snapshot *snap, double mono)
{
	for (size_t i = 0; ar && i < snap->n_dirs; i++) {
		struct gw_snap_dir *sd = &snap->dirs[i];
		struct ar_link *l = find(ar, sd->link);
		int d = !strcmp(sd->direction, "ingress");
		struct ar_log *g;
		unsigned int moved;

		if (!l || !l->ctl.dir[d].on)
			continue;
		if (sd->waiting) {
			/* no tree to move, no load to judge; the link's return starts afresh from
			 * the rate its new tree has (its first pass again no verdict) */
			l->passes[d] = 0;
			continue;
		}
		sync_rates(ar, l);
		/* the first pass has no rates yet: not a verdict of idleness */
		if (l->passes[d]++) {
			moved = gw_ar_load(&l->ctl, d, sd->total.achieved_bytes_per_s, mono);
			if (moved)
				apply(ar, l, moved, mono);
		}
		g = &l->log[d];
		if (g->pending && mono - g->last_mono >= GW_AUTORATE_LOG_EVERY_S) {
			char more[128];
			unsigned int n = g->pending;

			say_pending(g, more, sizeof(more));
			g->last_mono = mono;
			gw_log(GW_LOG_INFO, "autorate: link '%s' %s at %.2f Mbit/s, %u change%s in "
			       "the last %.0f s %s", sd->link, sd->direction,
			       mbit(l->ctl.dir[d].rate), n, n == 1 ? "" : "s",
			       GW_AUTORATE_LOG_EVERY_S, strchr(more, '('));
		}
		fill(l, d, &sd->autorate, mono);
	}
}

static bool same_block(const struct gw_autorate_cfg *x, const struct gw_autorate_cfg *y)
{
	return x->present == y->present && x->min == y->min && x->base == y->base &&
	       x->max == y->max && x->delay_threshold_us == y->delay_threshold_us &&
	       x->bloat_samples == y->bloat_samples && x->window == y->window &&
	       x->cut == y->cut && x->raise == y->raise && x->load_threshold == y->load_threshold &&
	       x->hold_us == y->hold_us && x->raise_every_us == y->raise_every_us &&
	       x->idle_after_us == y->idle_after_us;
}

int gw_autorate_reload(struct gw_autorate *ar, const struct gw_config *cfg)
{
	struct gw_autorate old = *ar;
	bool same_probe = old.cfg->probe.n_targets == cfg->probe.n_targets;

	for (size_t i = 0; same_probe && i < cfg->probe.n_targets; i++)
		same_probe = !strcmp(old.cfg->probe.targets[i].host, cfg->probe.targets[i].host);
	if (build(ar, cfg)) {
		free(old.l);
		ar->n = 0;
		ar->cfg = cfg;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++) {
		struct ar_link *nl = &ar->l[i];
		const struct gw_link_cfg *lc = &cfg->links[nl->link];

		for (size_t j = 0; j < old.n; j++) {
			struct ar_link *ol = &old.l[j];
			const struct gw_link_cfg *oc = &old.cfg->links[ol->link];

			if (strcmp(oc->name, lc->name) || strcmp(oc->interface, lc->interface))
				continue;
			if (same_probe)
				memcpy(nl->ctl.refl, ol->ctl.refl, sizeof(nl->ctl.refl));
			for (int d = 0; d < 2; d++) {
				if (!nl->ctl.dir[d].on || !ol->ctl.dir[d].on ||
				    !same_block(&oc->dir[d].autorate, &lc->dir[d].autorate))
					continue;
				memcpy(nl->ctl.dir[d].changes, ol->ctl.dir[d].changes,
				       sizeof(nl->ctl.dir[d].changes));
				nl->ctl.dir[d].last_reason = ol->ctl.dir[d].last_reason;
				nl->ctl.dir[d].last_change_mono = ol->ctl.dir[d].last_change_mono;
				nl->refused[d] = ol->refused[d];
				nl->log[d] = ol->log[d];
			}
		}
	}
	free(old.l);
	return 0;
}
