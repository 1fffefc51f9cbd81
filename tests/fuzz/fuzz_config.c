/* tests/fuzz/fuzz_config.c: libFuzzer target: any text through the config parser and
 * validator, and every config that loads through the planner and the dry run's tc commands. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "gatewayd/dryrun.h"
#include "gatewayd/plan.h"

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

/* The planner with zeroed facts, as a dry run without the kernel would see the links; then
 * again with that plan as the running one, as a reload of the same file: nothing may move. */
static void plan(const struct gw_config *cfg)
{
	struct gw_link_facts *facts = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*facts));
	struct gw_plan p, again;

	if (!facts)
		return;
	if (gw_plan_build(cfg, facts, NULL, &p) == 0) {
		if (gw_plan_build(cfg, facts, &p, &again) == 0) {
			if (again.n != p.n)
				abort();
			for (size_t i = 0; i < p.n; i++)
				if (again.objs[i].obj.handle != p.objs[i].obj.handle ||
				    again.objs[i].obj.parent != p.objs[i].obj.parent ||
				    again.objs[i].obj.type != p.objs[i].obj.type)
					abort();
			gw_plan_free(&again);
		}
		gw_plan_free(&p);
	}
	free(facts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_config *cfg = NULL;
	char err[512], *text;
	int r;

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
	err[0] = '\0';
	r = gw_config_load_string("fuzz.conf", text, &cfg, err, sizeof(err));
	free(text);
	if (r) {
		/* all or nothing, with one line that says why */
		if (r > 0 || cfg || !err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	check_config(cfg);
	plan(cfg);
	gw_dryrun(devnull, NULL, cfg, err, sizeof(err));
	gw_config_free(cfg);
	return 0;
}
