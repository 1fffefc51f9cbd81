/* gatewayd/webchild.h: the HTTP side in its own unprivileged, sandboxed process: the daemon
 * binds the listen sockets, forks the web process over a socketpair, feeds it the web settings
 * and each pass's snapshot in wire frames (webui/wire.h), and restarts it when it dies. */
#ifndef GW_WEBCHILD_H
#define GW_WEBCHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "webui/snapshot.h"
#include "webui/wire.h"

struct gw_webchild;

/* What the parent knows of its web process (for /api/status and /metrics). */
struct gw_webchild_stats {
	pid_t pid;			/* 0: none running now */
	uint64_t restarts;		/* web processes started after the first */
	uint64_t dropped;		/* snapshots not sent: the process had not read the last */
	double down_s;			/* seconds without a web process, all told */
	bool up;
};

/*
 * Start the web process for ws, serving fds (the sockets the caller bound, one per listen
 * address of ws, in order; the caller keeps them open for the restarts). Returns 0 and *out,
 * or -errno with err. The process runs as "nobody" when the daemon is root (else as the
 * daemon's uid), with no capabilities, no_new_privs and gw_sandbox_web()'s filter.
 */
int gw_webchild_start(const struct gw_wire_settings *ws, const int *fds, size_t n_fds,
		      double now, struct gw_webchild **out, char *err, size_t errlen);
/* A pass's snapshot, never blocking: dropped (and counted) while an earlier frame is still
 * being written, or while no process runs. */
void gw_webchild_send(struct gw_webchild *c, const struct gw_snapshot *s);
/* New settings (a reload) over the same sockets: sent, and kept for a restart. */
void gw_webchild_settings(struct gw_webchild *c, const struct gw_wire_settings *ws);
/* A reload with other listen addresses: the sockets the caller bound for ws (it closes the
 * old ones after this), served by a new process at the next poll (the history the old one
 * kept is lost with it). 0 or -EINVAL. */
int gw_webchild_listen(struct gw_webchild *c, const struct gw_wire_settings *ws,
		       const int *fds, size_t n_fds, double now);
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
/* gatewayd --web-process LAUNCHER VERBOSE SOCK FD...: the web process after its launcher
 * executed the binary again to shed the capabilities it could not drop otherwise (not root,
 * under systemd's filter). Returns only on bad arguments (2). */
int gw_webchild_exec_main(int argc, char **argv);
/* Stop the process (SIGTERM, then SIGKILL after a second) and free everything. */
void gw_webchild_stop(struct gw_webchild *c);

#endif
