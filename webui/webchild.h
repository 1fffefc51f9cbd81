/* webui/webchild.h: the daemon's handle on its web child: the daemon binds the listen sockets
 * and opens the page's files, a launcher it forks at start (webui/launcher.h) makes the web
 * process (webui/webproc.h) from them, the daemon feeds it the web settings and each pass's
 * snapshot in wire frames (webui/wire.h), and it is restarted when it dies. The launcher also
 * runs the daemon's helper programs (sys/helper.h). */
#ifndef GW_WEBCHILD_H
#define GW_WEBCHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "webui/snapshot.h"
#include "webui/webproc.h"
#include "webui/wire.h"

struct gw_webchild;

/* What the parent knows of its web process (for /api/status and /metrics). */
struct gw_webchild_stats {
	pid_t pid;			/* 0: none running now */
	uint64_t restarts;		/* web processes started after the first */
	uint64_t dropped;		/* snapshots not sent: the process had not read the last */
	double down_s;			/* seconds without a web process, all told */
	int last_status;		/* the wait status of the last one that ended; -1: none */
	pid_t launcher;			/* 0: gone */
	bool up;
};

/*
 * Start the launcher, and the web process for ws, serving fds (the sockets the caller bound,
 * one per listen address of ws, in order) with files (GW_WEBPROC_FILES fds the caller
 * opened: auth, cert, key; -1 for one not set; NULL: none). The caller keeps all of them open
 * for the restarts. park: the launcher alone for now (the page's files could not be read),
 * a web process once gw_webchild_replace gives what it needs. Returns 0 and *out, or -errno
 * with err. The process becomes user gatewayd-web (nobody where there is none; never the
 * daemon's uid) with no capabilities, no_new_privs and gw_sandbox_web()'s filter before it
 * reads its settings or starts its server.
 */
int gw_webchild_start(const struct gw_wire_settings *ws, const int *fds, size_t n_fds,
		      const int *files, bool park, double now, struct gw_webchild **out,
		      char *err, size_t errlen);
/* A pass's snapshot, never blocking: dropped (and counted) while an earlier frame is still
 * being written, or while no process runs. */
void gw_webchild_send(struct gw_webchild *c, const struct gw_snapshot *s);
/* New settings (a reload) over the same sockets: sent, and kept for a restart. */
void gw_webchild_settings(struct gw_webchild *c, const struct gw_wire_settings *ws);
/* A reload with other listen addresses, files or Host names: a new process serves fds and
 * files (the caller's, kept open as for gw_webchild_start; it closes the old ones after
 * this) from the next poll on; the one running now is told to go and is killed by the
 * launcher if it is still there a second later. Its history is lost with it. 0 or -EINVAL. */
int gw_webchild_replace(struct gw_webchild *c, const struct gw_wire_settings *ws,
			const int *fds, size_t n_fds, const int *files, double now);
/* Reap a dead process (logged with its exit status or signal), restart after the back-off
 * (0.1 s doubling to 30 s; back to 0.1 s after 60 s up), go on writing a frame in part
 * written. Call every pass and when fd answers. */
void gw_webchild_poll(struct gw_webchild *c, double now);
/* The socket to the process: poll it for writing while gw_webchild_pending. -1: none. */
int gw_webchild_fd(const struct gw_webchild *c);
bool gw_webchild_pending(const struct gw_webchild *c);
/* The socket to the launcher (the processes' deaths are heard there): poll it for reading
 * and call gw_webchild_poll when it answers. -1: none. */
int gw_webchild_launcher_fd(const struct gw_webchild *c);
/* When (monotonic seconds) a process is to be started again, or -1: none is waited for. */
double gw_webchild_next_start(const struct gw_webchild *c);
void gw_webchild_stats(const struct gw_webchild *c, double now, struct gw_webchild_stats *st);
/* Stop the process (the end of its stream, then SIGKILL after a second), the helpers and the
 * launcher, and free everything. */
void gw_webchild_stop(struct gw_webchild *c);

#endif
