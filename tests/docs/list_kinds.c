/* tests/docs/list_kinds.c: the registry's kinds, as the prose must list them: one line of the
 * leaf kinds a child group may name ("leaf fifo fq_codel ..."), one of the shapers a direction
 * may name ("shaper htb tbf cake"), in the registry's order. Asked of qdisc/registry.c itself,
 * so tests/docs/check_kinds.sh never parses C. Built by the Makefile's kinds check. */
#include <stdio.h>
#include "qdisc/qdisc.h"

static void list(const char *what, const struct gw_qdisc_ops *(*nth)(size_t))
{
	const struct gw_qdisc_ops *ops;

	fputs(what, stdout);
	for (size_t i = 0; (ops = nth(i)); i++)
		printf(" %s", ops->name);
	putchar('\n');
}

int main(void)
{
	list("leaf", gw_qdisc_leaf);
	list("shaper", gw_qdisc_shaper);
	return fflush(stdout) == 0 ? 0 : 1;
}
