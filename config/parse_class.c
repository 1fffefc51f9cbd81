/* config/parse_class.c: an htb direction's `classes` list, and the rules they keep together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/parse.h"

#define CLASS_SIZE_MAX (64LL << 20)

static const char *const class_keys[] = {
	"name", "rate", "ceil", "prio", "quantum", "burst", "cburst", "default", "child", "match",
	NULL
};

/* rate <= ceil <= the direction's rate: htb cannot lend a class more than its parent has. */
static int check_class_rates(struct cfg_parser *p, const config_setting_t *grp,
			     const char *where, const struct gw_dir_cfg *dir,
			     const struct gw_class_cfg *c)
{
	char a[32], b[32];

	if (c->rate > c->ceil) {
		gw_format_rate(c->rate, a, sizeof(a));
		gw_format_rate(c->ceil, b, sizeof(b));
		return cfg_error(p, config_setting_get_member(grp, "rate"), where,
				 "rate %s is above ceil %s%s", a, b,
				 config_setting_get_member(grp, "ceil") ? "" :
				 " (the direction's rate)");
	}
	if (c->ceil > dir->rate) {
		gw_format_rate(c->ceil, a, sizeof(a));
		gw_format_rate(dir->rate, b, sizeof(b));
		return cfg_error(p, config_setting_get_member(grp, "ceil"), where,
				 "ceil %s is above the direction's rate %s", a, b);
	}
	return 0;
}

static int parse_class_child(struct cfg_parser *p, const config_setting_t *grp,
			     const char *where, struct gw_class_cfg *c)
{
	char cwhere[CFG_WHERE_MAX + 8];
	config_setting_t *g = NULL;
	int ret;

	ret = cfg_get_group(p, grp, "child", where, &g);
	if (ret <= 0) {
		cfg_child_init(&c->child, GW_KIND_FQ_CODEL);
		return ret;
	}
	snprintf(cwhere, sizeof(cwhere), "%s child", where);
	return cfg_parse_child(p, g, cwhere, GW_KIND_HTB, &c->child);
}

static int parse_class(struct cfg_parser *p, const config_setting_t *grp, const char *dwhere,
		       int index, enum gw_direction d, const struct gw_dir_cfg *dir,
		       struct gw_class_cfg *c)
{
	char at_index[CFG_WHERE_MAX], where[CFG_WHERE_MAX];
	int ret;

	c->line = (int)config_setting_source_line(grp);
	c->prio = c->quantum = c->burst = c->cburst = GW_UNSET;
	snprintf(at_index, sizeof(at_index), "%s class #%d", dwhere, index + 1);
	ret = cfg_parse_named(p, grp, at_index, "class", class_keys, c->name, where);
	if (ret)
		return ret;
	if ((ret = cfg_parse_rate_ceil(p, grp, where, dir->rate, &c->rate, &c->ceil)) ||
	    (ret = cfg_get_int(p, grp, "prio", where, 0, 7, &c->prio)) < 0 ||
	    (ret = cfg_get_size(p, grp, "quantum", where, 256, 1 << 20, &c->quantum)) < 0 ||
	    (ret = cfg_get_size(p, grp, "burst", where, 1, CLASS_SIZE_MAX, &c->burst)) < 0 ||
	    (ret = cfg_get_size(p, grp, "cburst", where, 1, CLASS_SIZE_MAX, &c->cburst)) < 0 ||
	    (ret = cfg_get_bool(p, grp, "default", where, &c->is_default)) < 0)
		return ret;
	ret = check_class_rates(p, grp, where, dir, c);
	if (ret)
		return ret;
	ret = parse_class_child(p, grp, where, c);
	if (ret)
		return ret;
	return cfg_parse_match(p, grp, where, d, c);
}

struct name_ref {
	const char *name;
	size_t idx;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorted, not pairwise: a direction may have tens of thousands of classes. */
static int check_unique_names(struct cfg_parser *p, const config_setting_t *list,
			      const struct gw_dir_cfg *dir)
{
	size_t i, n = dir->n_classes, dup = n, first = 0;
	struct name_ref *refs;

	refs = calloc(n, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		refs[i] = (struct name_ref){ dir->classes[i].name, i };
	qsort(refs, n, sizeof(*refs), cmp_name_ref);
	/* Report the earliest repeat in file order, as a pairwise scan would. */
	for (i = 1; i < n; i++) {
		if (strcmp(refs[i].name, refs[i - 1].name) == 0 && refs[i].idx < dup &&
		    (i < 2 || strcmp(refs[i - 1].name, refs[i - 2].name) != 0)) {
			dup = refs[i].idx;
			first = refs[i - 1].idx;
		}
	}
	free(refs);
	if (dup == n)
		return 0;
	return cfg_error(p, config_setting_get_elem(list, (unsigned int)dup), NULL,
			 "class '%s': name already used by the class on line %d",
			 dir->classes[dup].name, dir->classes[first].line);
}

static int check_one_default(struct cfg_parser *p, const config_setting_t *list,
			     const char *where, const struct gw_dir_cfg *dir)
{
	const struct gw_class_cfg *first = NULL;
	size_t i;

	for (i = 0; i < dir->n_classes; i++) {
		const struct gw_class_cfg *c = &dir->classes[i];

		if (!c->is_default)
			continue;
		if (first)
			return cfg_error(p, config_setting_get_member(
						 config_setting_get_elem(list, (unsigned int)i),
						 "default"), where,
					 "classes '%s' (line %d) and '%s' (line %d) both have "
					 "default = true; exactly one class may", first->name,
					 first->line, c->name, c->line);
		first = c;
	}
	if (!first)
		return cfg_error(p, list, where, "no class has default = true: unclassified "
				 "traffic would bypass the shaper; mark exactly one class default");
	return 0;
}

/* htb guarantees every class its rate only if the rates fit in the parent's. */
static int check_rate_sum(struct cfg_parser *p, const config_setting_t *list,
			  const char *where, const struct gw_dir_cfg *dir)
{
	uint64_t sum = 0;
	char a[32], b[32];
	size_t i;

	for (i = 0; i < dir->n_classes; i++)
		sum += dir->classes[i].rate;	/* <= GW_MAX_CLASSES * GW_MAX_RATE: no overflow */
	if (sum <= dir->rate)
		return 0;
	gw_format_rate(sum, a, sizeof(a));
	gw_format_rate(dir->rate, b, sizeof(b));
	return cfg_error(p, list, where, "the classes' rates add up to %s, above the "
			 "direction's rate %s", a, b);
}

int cfg_parse_classes(struct cfg_parser *p, const config_setting_t *list, const char *where,
		      enum gw_direction d, struct gw_dir_cfg *dir)
{
	int i, n = config_setting_length(list);
	int ret;

	if (n == 0)
		return 0;
	if (n > GW_MAX_CLASSES)
		return cfg_error(p, list, where, "%d classes is too many (at most %d)", n,
				 GW_MAX_CLASSES);
	dir->classes = calloc((size_t)n, sizeof(*dir->classes));
	if (!dir->classes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* counted first, so a failure half-way still frees this class's match */
		dir->n_classes = (size_t)i + 1;
		ret = parse_class(p, config_setting_get_elem(list, (unsigned int)i), where, i, d,
				  dir, &dir->classes[i]);
		if (ret)
			return ret;
	}
	if ((ret = check_unique_names(p, list, dir)) ||
	    (ret = check_one_default(p, list, where, dir)))
		return ret;
	return check_rate_sum(p, list, where, dir);
}
