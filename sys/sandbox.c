/* sys/sandbox.c: the web process's seccomp filter (libseccomp), an allow-list. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <seccomp.h>
#include "sys/sandbox.h"

/* what libmicrohttpd (its threads, epoll or poll, eventfd or pipe for its own wake-ups),
 * glibc's malloc and pthreads, json-c and the renderers call, on sockets already open */
static const int allowed[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(pread64), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(statx), SCMP_SYS(lseek), SCMP_SYS(getdents64), SCMP_SYS(fcntl),
	SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise), SCMP_SYS(brk), SCMP_SYS(futex), SCMP_SYS(set_robust_list),
	SCMP_SYS(rseq), SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity),
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	/* a poll or a sleep a SIGSTOP interrupted goes on through it after SIGCONT */
	SCMP_SYS(restart_syscall),
	/* where there is no vDSO (User-Mode Linux), time(), gettimeofday() and
	 * clock_gettime() are real system calls */
	SCMP_SYS(time), SCMP_SYS(clock_getres),
	SCMP_SYS(sigaltstack), SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep),
	SCMP_SYS(nanosleep), SCMP_SYS(gettimeofday), SCMP_SYS(getpid), SCMP_SYS(gettid),
	SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid),
	SCMP_SYS(uname), SCMP_SYS(getrandom), SCMP_SYS(exit), SCMP_SYS(exit_group),
	SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select),
	SCMP_SYS(pselect6), SCMP_SYS(eventfd2), SCMP_SYS(pipe2), SCMP_SYS(accept),
	SCMP_SYS(accept4), SCMP_SYS(recvfrom), SCMP_SYS(recvmsg), SCMP_SYS(sendto),
	SCMP_SYS(sendmsg), SCMP_SYS(sendfile), SCMP_SYS(shutdown), SCMP_SYS(getsockname),
	SCMP_SYS(getpeername), SCMP_SYS(setsockopt), SCMP_SYS(getsockopt),
	SCMP_SYS(listen), SCMP_SYS(timerfd_create),
	SCMP_SYS(timerfd_settime), SCMP_SYS(dup), SCMP_SYS(dup3),
};

static int fail(char *err, size_t errlen, const char *what, int rc)
{
	snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-rc));
	return rc;
}

int gw_sandbox_web(char *err, size_t errlen)
{
	/* a thread of this process, sharing everything: what pthread_create asks for */
	const unsigned long thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				     CLONE_THREAD | CLONE_SYSVSEM;
	scmp_filter_ctx ctx;
	int rc = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs", -errno);
	if (!(ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)))
		return fail(err, errlen, "init", -ENOMEM);
	for (size_t i = 0; !rc && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	/* files for reading only (the auth file, TLS files, the last comparison) */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC,
					      O_RDONLY));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, thread, thread));
	/* memory, never executable: the libraries were mapped before the fork, and nothing the
	 * process does after maps more code (measured with strace: libmicrohttpd, GnuTLS with a
	 * key and certificate from memory, json-c and glibc map PROT_READ|PROT_WRITE and
	 * PROT_NONE only), so code an attacker writes into memory cannot be made to run */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* prctl for what is used alone: libmicrohttpd names its threads (PR_SET_NAME). No
	 * ioctl at all: none is made (strace of every page, TLS and plain, failed logins
	 * included), so none, TIOCSTI least of all, reaches a terminal or a device */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
				      SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
	/* clone3's flags are behind a pointer the filter cannot read: glibc falls back */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (rc) {
		seccomp_release(ctx);
		return fail(err, errlen, "building the filter", rc);
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc ? fail(err, errlen, "load", rc) : 0;
}
