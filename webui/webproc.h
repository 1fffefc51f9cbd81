/* webui/webproc.h: the web process: the status page's HTTP server in a process of its own,
 * unprivileged and sandboxed, fed by the daemon's wire frames (webui/wire.h). The web
 * launcher (webui/launcher.h) forks it; the daemon's handle on both is webui/webchild.h. */
#ifndef GW_WEBPROC_H
#define GW_WEBPROC_H

#include <stddef.h>
#include <sys/types.h>

#define GW_WEBPROC_FILES 3	/* the files it is given: auth file, TLS certificate, TLS key */

/*
 * The web process, in the process the launcher forked for it (parent: the launcher's pid).
 * sock is its stream from the daemon, fds its n listening sockets, files GW_WEBPROC_FILES fds
 * (auth, cert, key; -1 for one not set). It becomes user gatewayd-web (nobody where there is
 * none; never daemon_uid nor the launcher's uid) with no capabilities, no_new_privs and
 * gw_sandbox_web()'s filter before it reads its settings or starts its server, and exits
 * when its stream ends.
 */
void gw_webproc_main(int sock, const int *fds, size_t n, int *files, pid_t parent,
		     uid_t daemon_uid) __attribute__((noreturn));

/* Test seams, set only by test programs (tests/unit/test_webchild.c): gatewayd never sets
 * them and reads nothing from its environment for them. hook runs in the web process at each
 * stage; fd (when hook is set) is left open in it, and in the launcher, for the hook to write
 * to. */
enum gw_webproc_stage {
	GW_WEBPROC_DROPPED,	/* its user, capabilities and filter in place; nothing read yet */
	GW_WEBPROC_SERVING,	/* its server started (main thread) */
	GW_WEBPROC_REQUEST,	/* the first request for a snapshot, in the thread answering it */
};
struct gw_webproc_test {
	void (*hook)(enum gw_webproc_stage stage, int fd);
	int fd;
};
extern struct gw_webproc_test gw_webproc_test;

#endif
