/* sys/helper.c: a program gatewayd runs (iperf3), by absolute path from a fixed list
 * of system directories, as nobody with no capability and a minimal environment. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "sys/forked.h"
#include "sys/helper.h"
#include "sys/privdrop.h"

static const struct gw_helper_ops *helper_ops;
static void *helper_ctx;

void gw_helper_use(const struct gw_helper_ops *ops, void *ctx)
{
	helper_ops = ops;
	helper_ctx = ctx;
}

/* Root's, and no one else may write it. */
static bool roots_alone(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int gw_helper_find(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	static const char *const dirs[] = { "/usr/local/bin", "/usr/bin", "/bin" };
	struct stat st;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (stat(dirs[i], &st) < 0 || !S_ISDIR(st.st_mode) || !roots_alone(&st))
			continue;
		if ((size_t)snprintf(path, len, "%s/%s", dirs[i], name) >= len)
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && roots_alone(&st) &&
		    (st.st_mode & S_IXOTH))
			return 0;
	}
	snprintf(err, errlen, "%s: not found in /usr/local/bin, /usr/bin or /bin as an "
		 "executable file of root's that no one else may write (it is never looked up "
		 "in PATH)", name);
	return -ENOENT;
}

/* The capability sets' first words (CAP_SETUID, CAP_SETGID and the network ones are there). */
static int caps_now(uint32_t *permitted, uint32_t *effective)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	*permitted = d[0].permitted | d[1].permitted;
	*effective = d[0].effective;
	return 0;
}

void gw_helper_exec(const char *const *argv, int out_fd, bool drop, const uid_t *avoid,
		    size_t n_avoid)
{
	static const char *const env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };
	static const char *const users[] = { GW_HELPER_USER, NULL };
	pid_t parent = getppid();
	char err[256];
	int null;

	/* the caller's mask and handlers (a daemon's signalfd) are not the program's */
	gw_forked_signals();
	/* no terminal to reach, nothing of ours to read but its own output pipe */
	if (setsid() < 0 || (null = open("/dev/null", O_RDWR)) < 0 ||
	    dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null, 2) < 0)
		_exit(126);
	close_range(3, ~0u, 0);
	if (drop && gw_drop_to_user(users, avoid, n_avoid, err, sizeof(err)) < 0)
		_exit(126);
	/* a credential change cleared it: set now, and the race with the parent's end closed */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(126);
	execve(argv[0], (char *const *)argv, (char *const *)env);
	_exit(127);
}

int gw_helper_start(const char *const *argv, int out_fd, pid_t *pid, char *err,
		    size_t errlen)
{
	uint32_t prm = 0, eff = 0;
	const uint32_t both = (1u << CAP_SETUID) | (1u << CAP_SETGID);
	uid_t me = geteuid();
	bool drop;

	*pid = -1;
	if (!argv[0] || argv[0][0] != '/') {
		snprintf(err, errlen, "%s: not an absolute path", argv[0] ? argv[0] : "(none)");
		return -EINVAL;
	}
	if (helper_ops)
		return helper_ops->start(helper_ctx, argv, out_fd, pid, err, errlen);
	if (caps_now(&prm, &eff) < 0)
		prm = eff = 0;	/* unknown: it cannot be made nobody, nor run as we are */
	/* root that kept no CAP_SETUID (a daemon as uid 0 with its two) cannot either */
	drop = (eff & both) == both;
	if (!drop && (prm || me == 0 || getuid() == 0)) {
		snprintf(err, errlen, "%s: it cannot be made nobody here (no CAP_SETUID and "
			 "CAP_SETGID, and no launcher to do it), and it may not run with this "
			 "process's uid or capabilities", argv[0]);
		return -EPERM;
	}
	*pid = fork();
	if (*pid == 0)
		gw_helper_exec(argv, out_fd, drop, &me, 1);
	if (*pid < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: fork: %s", argv[0], strerror(e));
		return -e;
	}
	return 0;
}

void gw_helper_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	if (helper_ops) {
		helper_ops->stop(helper_ctx, pid);
		return;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);	/* a SIGKILLed child is reaped at once */
}
