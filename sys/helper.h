/* sys/helper.h: a program gatewayd runs (iperf3): found in a fixed list of system
 * directories, never through PATH, and run as nobody with no capability (ambient included),
 * no_new_privs, a minimal environment, no terminal; its output a pipe the caller reads. */
#ifndef GW_HELPER_H
#define GW_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define GW_HELPER_USER "nobody"
#define GW_HELPER_MAX_ARGS 32

/*
 * Who starts and stops helpers. The daemon has given up CAP_SETUID by the time it runs one,
 * so its web launcher, which keeps it, does (webui/webchild.c sets that with
 * gw_helper_use); with none set (gatewayd --load-test, tests) the process forks one itself,
 * which becomes nobody before it executes the program.
 */
struct gw_helper_ops {
	/* argv[0] an absolute path; out_fd becomes the program's stdout (the caller closes
	 * its own copy). 0 and *pid, or -errno with err. */
	int (*start)(void *ctx, const char *const *argv, int out_fd, pid_t *pid, char *err,
		     size_t errlen);
	/* SIGKILL to it if it still runs; it is reaped by whoever started it */
	void (*stop)(void *ctx, pid_t pid);
};

void gw_helper_use(const struct gw_helper_ops *ops, void *ctx);

/*
 * The program name's absolute path in /usr/local/bin, /usr/bin or /bin, the first where it
 * is a regular executable file owned by root that no one else may write, in a directory
 * the same holds for. 0, or -ENOENT with err.
 */
int gw_helper_find(const char *name, char *path, size_t len, char *err, size_t errlen);
/*
 * Start argv (argv[0] absolute, at most GW_HELPER_MAX_ARGS) as said above, stdout out_fd.
 * Without a launcher: refused when this process can neither make it nobody (CAP_SETUID and
 * CAP_SETGID, as root has them) nor holds nothing worth keeping from the program (not root,
 * no capability). 0 and *pid, or -errno with err.
 */
int gw_helper_start(const char *const *argv, int out_fd, pid_t *pid, char *err,
		    size_t errlen);
/* SIGKILL to pid if it still runs, and reaped (here, or by the launcher). */
void gw_helper_stop(pid_t pid);

/*
 * In a process just forked to become the helper: a session of its own, stdin and stderr
 * /dev/null, stdout out_fd, no other fd, default signals, nobody (not a uid in avoid) with
 * no capability when drop, no_new_privs, and argv[0] executed with the minimal environment.
 * Never returns (exit 126 when a step fails, 127 when the exec does).
 */
void gw_helper_exec(const char *const *argv, int out_fd, bool drop, const uid_t *avoid,
		    size_t n_avoid) __attribute__((noreturn));

#endif
