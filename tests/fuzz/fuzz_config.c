/* tests/fuzz/fuzz_config.c: libFuzzer target: any text through the config parser and
 * validator, and every config that loads through the planner and the dry run's tc commands.
 *
 * Input: a config; or two, "OLD\n%%\nNEW", and NEW is then also planned as a reload of OLD
 * (gw_plan_build with OLD's plan as prev), which must keep every class's handles by name and
 * give a new class handles OLD did not use. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "tree/dryrun.h"
#include "tree/plan.h"

/* the harness's own bound; the daemon's is 16 MiB, but nothing new hides past 64 KiB */
#define CONFIG_FUZZ_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* What a loaded config promises the daemon, checked so a broken promise crashes here. */
static void check_config(const struct gw_config *cfg)
{
	if (!cfg->file || cfg->n_listen < 1 || cfg->n_listen > GW_MAX_LISTEN ||
	    cfg->n_links > GW_MAX_LINKS)
		abort();
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		if (!memchr(l->name, '\0', sizeof(l->name)) ||
		    !memchr(l->interface, '\0', sizeof(l->interface)))
			abort();
		for (int d = 0; d < 2; d++)
			if (l->dir[d].n_classes > GW_MAX_CLASSES)
				abort();
	}
}

static bool leaf_class(const struct gw_plan_obj *o)
{
	return o->obj.type == GW_OBJ_CLASS && !o->obj.inner;
}

static bool same_dir(const struct gw_plan_obj *x, const struct gw_plan_obj *y)
{
	return x->dir == y->dir && !strcmp(x->link_name, y->link_name);
}

/* next was planned with prev as the running plan: what a reload promises about handles */
static void check_reload(const struct gw_plan *prev, const struct gw_plan *next)
{
	for (size_t i = 0; i < next->n; i++) {
		const struct gw_plan_obj *o = &next->objs[i], *old = NULL;
		bool slot_was_used = false;

		if (!leaf_class(o))
			continue;
		for (size_t k = i + 1; k < next->n; k++)
			if (leaf_class(&next->objs[k]) && same_dir(o, &next->objs[k]) &&
			    (next->objs[k].slot == o->slot ||
			     next->objs[k].obj.handle == o->obj.handle))
				abort();	/* two classes of one direction share handles */
		for (size_t k = 0; k < prev->n; k++) {
			const struct gw_plan_obj *p = &prev->objs[k];

			if (!leaf_class(p) || !same_dir(o, p))
				continue;
			if (!strcmp(p->cls, o->cls))
				old = p;
			if (p->slot == o->slot)
				slot_was_used = true;
		}
		if (old ? old->slot != o->slot || old->obj.handle != o->obj.handle : slot_was_used)
			abort();	/* a kept class moved, or a new one took an old handle */
	}
}

/* The planner with zeroed facts, as a dry run without the kernel would see the links; then
 * again with prev (or, without one, with that plan itself) as the running plan. */
static void plan(const struct gw_config *cfg, const struct gw_config *prev_cfg)
{
	size_t n = cfg->n_links > GW_MAX_LINKS ? cfg->n_links : GW_MAX_LINKS;
	struct gw_link_facts *facts = calloc(n, sizeof(*facts));
	struct gw_plan p, prev, again;

	if (!facts)
		return;
	if (gw_plan_build(cfg, facts, NULL, &p)) {
		free(facts);
		return;
	}
	if (!prev_cfg) {
		prev = p;
	} else if (gw_plan_build(prev_cfg, facts, NULL, &prev)) {
		gw_plan_free(&p);
		free(facts);
		return;
	}
	/* with as many slots as there are, planning again must not fail */
	if (gw_plan_build(cfg, facts, &prev, &again))
		abort();
	check_reload(&prev, &again);
	if (!prev_cfg && again.n != p.n)
		abort();
	for (size_t i = 0; i < cfg->n_links; i++)
		for (int d = 0; d < 2; d++) {
			uint32_t slots[64];
			size_t k = cfg->links[i].dir[d].n_classes;

			gw_plan_slots(&again, i, d, slots, k < 64 ? k : 64);
		}
	gw_plan_free(&again);
	if (prev_cfg)
		gw_plan_free(&prev);
	gw_plan_free(&p);
	free(facts);
}

/* Load one config; 0 with *cfg, or -errno after checking the refusal. */
static int load(const char *text, struct gw_config **cfg)
{
	char err[512];
	int r;

	err[0] = '\0';
	*cfg = NULL;
	r = gw_config_load_string("fuzz.conf", text, cfg, err, sizeof(err));
	if (r) {
		/* all or nothing, with one line that says why */
		if (r > 0 || *cfg || !err[0] || strchr(err, '\n'))
			abort();
		return r;
	}
	check_config(*cfg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_config *cfg = NULL, *prev = NULL;
	char err[512], *text, *next;

	/* libconfig would read the named file: results would depend on the machine */
	if (size > CONFIG_FUZZ_MAX || memmem(data, size, "@include", 8))
		return 0;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if ((next = strstr(text, "\n%%\n"))) {
		*next = '\0';
		next += 4;
		if (load(text, &prev))
			next = NULL;	/* the reload is only of interest from a good config */
	}
	if (load(next ? next : text, &cfg) == 0) {
		plan(cfg, prev);
		gw_dryrun(devnull, NULL, cfg, err, sizeof(err));
	}
	gw_config_free(cfg);
	gw_config_free(prev);
	free(text);
	return 0;
}
