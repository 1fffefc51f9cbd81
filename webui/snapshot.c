/* webui/snapshot.c: the end of a snapshot's life. */
#include <stdlib.h>
#include "webui/snapshot.h"

void gw_snapshot_put(struct gw_snapshot *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (size_t i = 0; i < s->n_dirs; i++)
		free(s->dirs[i].classes);
	free(s->dirs);
	free(s);
}
