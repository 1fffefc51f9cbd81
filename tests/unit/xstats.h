/* tests/unit/xstats.h: a kind's named extended statistics by name, for tests that build
 * snapshots by hand or read parsed counters (a name the kind does not have aborts). */
#ifndef GW_TESTS_XSTATS_H
#define GW_TESTS_XSTATS_H

#include <stdio.h>
#include <stdlib.h>
#include "qdisc/kind.h"

static inline uint64_t *xstat_at(struct gw_xstats *x, int group, const char *name)
{
	const struct gw_xstats_desc *d = x->desc;
	int i = !d ? -1 : group < 0 ? gw_xstat_index(d->fields, d->n_fields, name) :
		gw_xstat_index(d->group_fields, d->n_group_fields, name);

	if (i < 0 || group >= GW_XGROUPS_MAX) {
		fprintf(stderr, "xstats: %s has no '%s'\n", d ? d->json : "(none)", name);
		abort();
	}
	return group < 0 ? &x->v[i] : &x->g[group][i];
}

static inline void xstat_set(struct gw_xstats *x, const char *name, uint64_t v)
{
	*xstat_at(x, -1, name) = v;
}

static inline void xstat_gset(struct gw_xstats *x, int group, const char *name, uint64_t v)
{
	*xstat_at(x, group, name) = v;
}

static inline uint64_t xstat_get(struct gw_xstats *x, const char *name)
{
	return *xstat_at(x, -1, name);
}

static inline uint64_t xstat_gget(struct gw_xstats *x, int group, const char *name)
{
	return *xstat_at(x, group, name);
}

#endif
