/*
 * gatewayd-uml-exec: start linux.uml so that it runs on this host's CPU.
 *
 * User-Mode Linux keeps each guest process's FPU registers with ptrace's NT_X86_XSTATE
 * regset, in a buffer the size of struct _xstate (832 bytes: x87, SSE, AVX). The host kernel
 * takes a PTRACE_SETREGSET of that regset only whole, as large as the host's own XSAVE area:
 * on a CPU with AVX-512 (2.4 KiB) or AMX (10.4 KiB) every set fails with EFAULT and the
 * guest's init dies on its first return to user space ("ptrace set fp regs failed, errno =
 * 14", then "Attempted to kill init"). Debian's linux.uml 6.1 and 6.12 both do this.
 *
 * `--check` reads the host's regset size. `--no-xstate` runs the kernel under a seccomp
 * filter that answers EIO to that regset (and to nothing else), so UML finds it missing at
 * boot and keeps the registers with PTRACE_GETFPREGS and PTRACE_SETFPREGS instead: x87 and
 * SSE, not the upper halves of the AVX registers, which are then zeroed at each of a guest
 * process's page faults and shared by its threads; so the launcher tells every guest program
 * not to use AVX (gatewayd-uml: noavx).
 *
 * The filter does not touch the guest's own system calls: UML runs guest processes under
 * PTRACE_SYSEMU, which stops every call before seccomp sees it, and the host calls made for
 * the guest (mmap, munmap, mprotect) are not ptrace.
 *
 * usage: gatewayd-uml-exec --check
 *        gatewayd-uml-exec [--no-xstate] LINUX [ARG...]
 * --check prints the host's and UML's sizes; exit 0 if they match, 1 if --no-xstate is
 * needed, 2 if the size could not be read. Otherwise LINUX is executed (exit 127 if it
 * cannot be, 2 on a usage error).
 */
#include <errno.h>
#include <elf.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* what linux.uml hands the host per set: its build's struct _xstate (a stable uapi size) */
#define UML_XSTATE_SIZE sizeof(struct _xstate)

static int usage(void)
{
	fprintf(stderr, "usage: gatewayd-uml-exec --check\n"
			"       gatewayd-uml-exec [--no-xstate] LINUX [ARG...]\n");
	return 2;
}

/* The host's XSAVE regset size as ptrace gives it: a GETREGSET into a buffer larger than any
 * XSAVE area (AMX's is 10.4 KiB) returns the whole regset and sets iov_len to its size. */
static long host_xstate_size(void)
{
	static unsigned char buf[64 * 1024];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	int st;
	long size = -1;
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "gatewayd-uml-exec: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
			raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		fprintf(stderr, "gatewayd-uml-exec: the probe child did not stop under ptrace\n");
	} else if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) < 0) {
		/* no XSAVE on this CPU: UML finds the same at boot and uses FPREGS by itself */
		if (errno == ENODEV || errno == EIO || errno == EINVAL)
			size = 0;
		else
			fprintf(stderr, "gatewayd-uml-exec: PTRACE_GETREGSET NT_X86_XSTATE: %s\n",
				strerror(errno));
	} else {
		size = (long)iov.iov_len;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return size;
}

static int check(void)
{
	long size = host_xstate_size();

	if (size < 0)
		return 2;
	printf("host xstate %ld bytes, linux.uml %zu\n", size, UML_XSTATE_SIZE);
	return size == 0 || size == (long)UML_XSTATE_SIZE ? 0 : 1;
}

/* EIO for PTRACE_GETREGSET and PTRACE_SETREGSET of NT_X86_XSTATE; every other call as is */
static int hide_xstate(void)
{
	static const int reqs[] = { PTRACE_GETREGSET, PTRACE_SETREGSET };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = ctx ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < sizeof(reqs) / sizeof(reqs[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EIO), SCMP_SYS(ptrace), 2,
				      SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)reqs[i]),
				      SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)NT_X86_XSTATE));
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (ctx)
		seccomp_release(ctx);
	if (rc < 0)
		fprintf(stderr, "gatewayd-uml-exec: cannot install the seccomp filter: %s\n",
			strerror(-rc));
	return rc;
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc == 2 && strcmp(argv[1], "--check") == 0)
		return check();
	if (i < argc && strcmp(argv[i], "--no-xstate") == 0) {
		if (hide_xstate() < 0)
			return 2;
		i++;
	}
	if (i >= argc || argv[i][0] == '-')
		return usage();
	execv(argv[i], argv + i);
	fprintf(stderr, "gatewayd-uml-exec: cannot execute %s: %s\n", argv[i], strerror(errno));
	return 127;
}
