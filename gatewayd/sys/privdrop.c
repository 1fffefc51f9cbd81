/* gatewayd/sys/privdrop.c: a server that has bound its sockets gives up what it no longer needs. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "gatewayd/sys/privdrop.h"

#define NOBODY_ID 65534

static int fail(char *err, size_t errlen, const char *what)
{
	int e = errno ? errno : EPERM;

	snprintf(err, errlen, "%s: %s", what, strerror(e));
	return -e;
}

/* Every capability set emptied, by the raw syscall (no libcap for three words). */
static int caps_clear(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	return (int)syscall(SYS_capset, &h, d);
}

int gw_drop_to_nobody(char *err, size_t errlen)
{
	uid_t uid = NOBODY_ID;
	gid_t gid = NOBODY_ID;

	errno = 0;
	if (geteuid() == 0 || getuid() == 0) {
		const struct passwd *pw = getpwnam("nobody");

		if (pw) {
			uid = pw->pw_uid;
			gid = pw->pw_gid;
		}
		if (uid == 0)
			return fail(err, errlen, "the user nobody is root here");
		if (setgroups(0, NULL) < 0)
			return fail(err, errlen, "setgroups");
		if (setresgid(gid, gid, gid) < 0)
			return fail(err, errlen, "setresgid nobody");
		/* from root to another uid in all three: the kernel empties the capability sets */
		if (setresuid(uid, uid, uid) < 0)
			return fail(err, errlen, "setresuid nobody");
		if (setuid(0) == 0) {
			errno = EPERM;
			return fail(err, errlen, "root could be taken back");
		}
	}
	if (caps_clear() < 0)
		return fail(err, errlen, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	return 0;
}
