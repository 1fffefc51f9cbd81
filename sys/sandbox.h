/* sys/sandbox.h: the web process's seccomp filter: only the system calls an HTTP
 * server on inherited sockets needs (libmicrohttpd's threads, json-c, the renderers). */
#ifndef GW_SANDBOX_H
#define GW_SANDBOX_H

#include <stddef.h>

/*
 * Install the filter on the calling process (all its threads: TSYNC), after no_new_privs
 * (gw_drop_to_user sets it; this sets it too). A call outside the list kills the process
 * with SIGSYS: the parent sees the signal, logs it and starts a new one, where an EPERM
 * would leave a half-working server nobody hears about. Not allowed, among others: socket,
 * bind, connect (the listening sockets are inherited, nothing else is reached), execve,
 * ptrace, files opened for writing, any ioctl (TIOCSTI among them), a prctl other than
 * PR_SET_NAME, an executable mapping (mmap or mprotect with PROT_EXEC). clone3 answers ENOSYS (glibc then uses clone, whose
 * flags can be checked: threads only). Returns 0 or -errno with err saying which step failed.
 */
int gw_sandbox_web(char *err, size_t errlen);

#endif
