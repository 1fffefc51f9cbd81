/* webui/lastcmp.h: the last `gatewayd --compare` in compare_dir, read for the status page:
 * a summary of results.json (cached while the file's inode, size and mtime stay the same) and
 * the plots, each read with a size bound, by known names only. */
#ifndef GW_LASTCMP_H
#define GW_LASTCMP_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* results.json is read up to GW_BENCH_FILE_MAX (webui/benchfile.h), as the bench's report
 * reads it; a plot up to: */
#define GW_LASTCMP_SVG_MAX (4u << 20)

struct gw_lastcmp {
	pthread_mutex_t lock;
	char dir[PATH_MAX];
	/* the cached summary, and what it was made from */
	char *summary;
	size_t len;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

int gw_lastcmp_init(struct gw_lastcmp *lc, const char *dir);
void gw_lastcmp_destroy(struct gw_lastcmp *lc);
/* A reload may move compare_dir. */
void gw_lastcmp_set_dir(struct gw_lastcmp *lc, const char *dir);
/* As gw_webui_source.compare: name NULL for the summary, else a plot's file name. */
int gw_lastcmp_read(struct gw_lastcmp *lc, const char *name, char **body, size_t *len,
		    char *err, size_t errlen);
/* The summary of results.json's text (len bytes): 0 and a malloc'd JSON text, or -EBADMSG
 * (-ENOMEM) and one line in err. dir is where to look for the plots ("" for none). */
int gw_lastcmp_summarize(const char *text, size_t len, const char *dir, double mtime,
			 char **out, size_t *outlen, char *err, size_t errlen);

#endif
