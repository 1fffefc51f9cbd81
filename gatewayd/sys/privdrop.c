/* gatewayd/sys/privdrop.c: a server that has bound its sockets gives up what it no longer needs. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
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
	bool none = true;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	/* none to use already (a process executed without any; what is inheritable is
	 * nothing without permitted ones and no ambient set): no capset, which a service's
	 * filter may refuse */
	if (syscall(SYS_capget, &h, d) == 0) {
		for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
			none &= !d[i].effective && !d[i].permitted;
		if (none)
			return 0;
	}
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

/* Whether cap is in the permitted set of a VERSION_3 pair of words. */
static bool cap_permitted(const struct __user_cap_data_struct *d, unsigned int cap)
{
	if (cap / 32 >= _LINUX_CAPABILITY_U32S_3)
		return false;
	return d[cap / 32].permitted & (1u << (cap % 32));
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

static bool in(const unsigned int *v, size_t n, unsigned int c)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == c)
			return true;
	return false;
}

int gw_keep_net_caps(char *err, size_t errlen)
{
	const unsigned int wanted[] = { CAP_NET_ADMIN, CAP_NET_RAW };

	return gw_keep_caps(wanted, sizeof(wanted) / sizeof(wanted[0]), err, errlen);
}

int gw_keep_caps(const unsigned int *wanted, size_t n_wanted, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3], keep[_LINUX_CAPABILITY_U32S_3];
	bool bset_cut = true;

	errno = 0;
	if (getuid() != 0 && geteuid() != 0)
		return 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, errlen, "capget");
	memset(keep, 0, sizeof(keep));
	for (size_t i = 0; i < n_wanted; i++) {
		unsigned int c = wanted[i];

		if (cap_permitted(d, c)) {
			keep[c / 32].permitted |= 1u << (c % 32);
			keep[c / 32].effective |= 1u << (c % 32);
		}
	}
	/* the bounding set first: cutting it needs CAP_SETPCAP, which goes next */
	for (unsigned int c = 0; c < 64; c++) {
		int bset = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (bset < 0)
			break;	/* past the kernel's last capability */
		if (!bset || in(wanted, n_wanted, c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			bset_cut = false;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(err, errlen, "clearing the ambient set");
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	if (syscall(SYS_capset, &h, keep) < 0)
		return fail(err, errlen, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	if (!bset_cut) {
		snprintf(err, errlen, "the bounding set could not be cut (no CAP_SETPCAP): a program "
			 "it runs as root may hold more capabilities than these %zu", n_wanted);
		return 1;
	}
	return 0;
}

/* ---- the web side: the launcher, and what it starts ---- */

/* Whether uid is one of avoid's. */
static bool uid_in(uid_t uid, const uid_t *avoid, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (avoid[i] == uid)
			return true;
	return false;
}

int gw_drop_to_user(const char *const *users, const uid_t *avoid, size_t n_avoid, char *err,
		    size_t errlen)
{
	const char *name = "nobody";
	uid_t uid = NOBODY_ID, ru, eu, su;
	gid_t gid = NOBODY_ID, rg, eg, sg;
	char what[128];

	errno = 0;
	/* the first that exists; 65534 when none does (a system without "nobody" in passwd) */
	for (size_t i = 0; users && users[i]; i++) {
		const struct passwd *pw = getpwnam(users[i]);

		if (pw) {
			name = users[i];
			uid = pw->pw_uid;
			gid = pw->pw_gid;
			break;
		}
	}
	if (uid == 0 || uid_in(uid, avoid, n_avoid)) {
		snprintf(err, errlen, "user %s (uid %u) is %s: a process of its own needs a user "
			 "of its own (gatewayd(8) PRIVILEGES)", name, (unsigned int)uid,
			 uid == 0 ? "root" : "the daemon's own");
		return -EPERM;
	}
	snprintf(what, sizeof(what), "becoming user %s (uid %u)", name, (unsigned int)uid);
	/* its own group alone: none of the daemon's (gatewayd, which may read the secrets) */
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		return fail(err, errlen, what);
	/* from root the kernel emptied the capability sets; from another uid (a service's
	 * launcher) they are still there until this */
	if (caps_clear() < 0)
		return fail(err, errlen, "capset");
	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 || ru != uid ||
	    eu != uid || su != uid || rg != gid || eg != gid || sg != gid || setuid(0) == 0) {
		errno = EPERM;
		return fail(err, errlen, "the old ids could be taken back");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	return 0;
}

int gw_keep_launcher_caps(char *err, size_t errlen)
{
	const unsigned int wanted[] = { CAP_SETUID, CAP_SETGID, CAP_KILL };
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3], keep[_LINUX_CAPABILITY_U32S_3];
	bool all = true;

	errno = 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, errlen, "capget");
	memset(keep, 0, sizeof(keep));
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		unsigned int c = wanted[i];

		if (cap_permitted(d, c)) {
			keep[c / 32].permitted |= 1u << (c % 32);
			keep[c / 32].effective |= 1u << (c % 32);
		} else {
			all = false;
		}
	}
	/* the bounding set where it can be cut (root: CAP_SETPCAP); a service's is its unit's */
	for (unsigned int c = 0; c < 64; c++) {
		int bset = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (bset < 0)
			break;
		if (bset && !in(wanted, sizeof(wanted) / sizeof(wanted[0]), c))
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	}
	/* no ambient or inheritable one: nothing it (or a process it starts) executes gets any */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(err, errlen, "clearing the ambient set");
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	if (syscall(SYS_capset, &h, keep) < 0)
		return fail(err, errlen, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	if (!all) {
		snprintf(err, errlen, "it lacks CAP_SETUID, CAP_SETGID or CAP_KILL (gatewayd started "
			 "neither as root nor by its unit): the processes it starts cannot be given "
			 "a user of their own, and are refused");
		return 1;
	}
	return 0;
}

int gw_drop_launcher_caps(char *err, size_t errlen)
{
	const unsigned int gone[] = { CAP_SETUID, CAP_SETGID, CAP_KILL };
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	bool changed = false;

	errno = 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, errlen, "capget");
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		unsigned int c = gone[i];
		uint32_t bit = 1u << (c % 32);
		int amb = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);

		if (amb > 0 && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, c, 0, 0) < 0)
			return fail(err, errlen, "lowering an ambient capability");
		if ((d[c / 32].permitted | d[c / 32].effective | d[c / 32].inheritable) & bit)
			changed = true;
		d[c / 32].permitted &= ~bit;
		d[c / 32].effective &= ~bit;
		d[c / 32].inheritable &= ~bit;
	}
	h.version = _LINUX_CAPABILITY_VERSION_3;
	h.pid = 0;
	if (changed && syscall(SYS_capset, &h, d) < 0)
		return fail(err, errlen, "capset (a service's filter must allow it)");
	return 0;
}
