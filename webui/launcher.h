/* webui/launcher.h: the web launcher and what the daemon and it say to each other.
 *
 * The web process must become a user of its own, which takes CAP_SETUID and CAP_SETGID; the
 * daemon gives those up once started (it keeps CAP_NET_ADMIN and CAP_NET_RAW alone). So its
 * processes are forked by a launcher forked at start, before that: it keeps CAP_SETUID,
 * CAP_SETGID and CAP_KILL and nothing else, holds no fd but its socket to the daemon, and
 * answers requests on it (SOCK_SEQPACKET, fds by SCM_RIGHTS): start a web process (its
 * stream, the listening sockets, the files), start a helper program (its argv, the pipe for
 * its stdout), retire a web process (SIGKILL through its pidfd if it is still there a second
 * later), kill a helper. It says when a process started (its pid) and when one ended (its
 * wait status); at the end of its socket it kills the helpers, gives the web processes a
 * second to go, kills what is left and exits. The daemon's side is webui/webchild.c. */
#ifndef GW_LAUNCHER_H
#define GW_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "webui/webproc.h"
#include "webui/webui.h"

#define GW_LAUNCHER_MAGIC 0x4c574747u	/* "GGWL": a request to the launcher */
#define GW_LAUNCHER_MAX_FDS (1 + GW_WEBUI_MAX_LISTEN + GW_WEBPROC_FILES)
#define GW_LAUNCHER_ARGS 2048

enum gw_launcher_what {
	GW_LAUNCHER_WEB = 1,	/* fds: its stream, the listening sockets, the files */
	GW_LAUNCHER_HELPER,	/* fds: the pipe for its stdout */
	GW_LAUNCHER_RETIRE,
	GW_LAUNCHER_KILL,
};

/* daemon -> launcher */
struct gw_launcher_req {
	uint32_t magic;
	uint32_t what;		/* enum gw_launcher_what */
	uint32_t seq;		/* echoed in the answer to a start */
	int32_t pid;		/* GW_LAUNCHER_RETIRE, GW_LAUNCHER_KILL: which process */
	uint32_t daemon_uid;	/* a start: the uid the new process must not have */
	uint32_t n_listen;	/* GW_LAUNCHER_WEB: listening sockets after its stream */
	uint32_t files;		/* GW_LAUNCHER_WEB: which of auth, cert, key follow them (bits) */
	uint32_t argc;		/* GW_LAUNCHER_HELPER: that many NUL-terminated strings in args */
	char args[GW_LAUNCHER_ARGS];
};

#define GW_LAUNCHER_HDR offsetof(struct gw_launcher_req, args)

/* launcher -> daemon */
struct gw_launcher_msg {
	uint32_t what;		/* GW_LAUNCHER_STARTED, GW_LAUNCHER_DIED */
	uint32_t seq;		/* GW_LAUNCHER_STARTED: the request's */
	int32_t pid;
	int32_t status;		/* a wait status (GW_LAUNCHER_DIED), or -errno (a failed start) */
};

enum { GW_LAUNCHER_STARTED = 1, GW_LAUNCHER_DIED = 2 };

/* The launcher, in the process the daemon (pid parent) forked for it, zs its end of the
 * socketpair. Never returns. */
void gw_launcher_main(int zs, pid_t parent) __attribute__((noreturn));

#endif
