/* webui/render.h: snapshots and history into the bytes the HTTP side serves (JSON, Prometheus
 * text), and the checks behind /healthz and /api/history. Pure functions of their inputs, so
 * the unit tests and benches call them without a server. */
#ifndef GW_WEBUI_RENDER_H
#define GW_WEBUI_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include "webui/snapshot.h"

/* A growing text buffer; the first failed append sticks in err and later appends do nothing. */
struct gw_buf {
	char *p;
	size_t len, cap;
	int err;		/* 0 or -ENOMEM / -EFBIG */
	size_t max;		/* 0: no bound beyond memory */
};

__attribute__((format(printf, 2, 3)))
void gw_buf_printf(struct gw_buf *b, const char *fmt, ...);
void gw_buf_put(struct gw_buf *b, const char *s, size_t n);
/* Hand the text (NUL-terminated) to the caller: 0 with *out and *len set, or b->err (and frees). */
int gw_buf_take(struct gw_buf *b, char **out, size_t *len);

/* Health: true when s exists and its pass is no older than 3 intervals at unix time now; else
 * false with the reason ("no sample yet", "last sample 12.0 s ago, interval 1 s"). */
#define GW_WEBUI_STALE_INTERVALS 3
bool gw_webui_healthy(const struct gw_snapshot *s, double now, char *why, size_t whylen);

/*
 * /api/status: the schema is webui/status-schema.md. s may be NULL ("no sample yet"). now is
 * the unix time the health fields are judged at. Returns 0 with a malloc'd NUL-terminated
 * string in *out (length *len) or -ENOMEM.
 */
int gw_webui_status_json(const struct gw_snapshot *s, double now, char **out, size_t *len);

/* /metrics: Prometheus text format 0.0.4. s may be NULL (then only build info and up 0). */
int gw_webui_metrics(const struct gw_snapshot *s, double now, char **out, size_t *len);
/* label value escaping of the exposition format: \ " and newline */
void gw_prom_escape(struct gw_buf *b, const char *s);

/* /api/history's query, validated. */
#define GW_HIST_MAX_POINTS 10800	/* 15 min at the 100 ms floor of 'interval', plus room */
#define GW_HIST_RAW_SPAN 900.0		/* default range: the last 15 minutes */
#define GW_QUERY_MAX_ARGS 8
#define GW_QUERY_VALUE_MAX 64

struct gw_query_arg {
	const char *key, *value;	/* value may be NULL ("?flag" without '=') */
};

struct gw_history_query {
	char link[GW_SNAP_NAME];
	char direction[8];
	char class_name[GW_SNAP_NAME];
	double from, to;	/* unix seconds */
	bool minute;		/* resolution "minute", else "raw" */
};

/*
 * Validate args (at most GW_QUERY_MAX_ARGS, each key once, only link, direction, class, from,
 * to, resolution) into q; now fills the defaults (to = now, from = to - 15 min). Returns 0, or
 * -EINVAL with a one-line reason in err (the 400's body).
 */
int gw_webui_history_query(const struct gw_query_arg *args, size_t n, double now,
			   struct gw_history_query *q, char *err, size_t errlen);

/* /api/history's body: the query echoed, column names and n points (oldest first). */
int gw_webui_history_json(const struct gw_history_query *q, const struct gw_hist_point *pts,
			  size_t n, bool truncated, char **out, size_t *len);

#endif
