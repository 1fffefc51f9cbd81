/* sys/privdrop.c: a server that has bound its sockets gives up what it no longer needs. */
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
#include "sys/privdrop.h"

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

static bool in(const unsigned int *v, size_t n, unsigned int c)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == c)
			return true;
	return false;
}

/* The wanted capabilities that the permitted set of d holds, as a VERSION_3 pair of words. */
static void wanted_held(const struct __user_cap_data_struct *d, const unsigned int *wanted,
			size_t n_wanted, struct __user_cap_data_struct *keep)
{
	memset(keep, 0, sizeof(*keep) * _LINUX_CAPABILITY_U32S_3);
	for (size_t i = 0; i < n_wanted; i++) {
		unsigned int c = wanted[i];

		if (cap_permitted(d, c))
			keep[c / 32].permitted |= 1u << (c % 32);
	}
}

/*
 * The bounding set cut to wanted. It takes CAP_SETPCAP in the effective set (root's; never a
 * service's): without it, false, and the caller says so where it matters.
 */
static bool bset_cut(const unsigned int *wanted, size_t n_wanted)
{
	bool cut = true;

	for (unsigned int c = 0; c < 64; c++) {
		int bset = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (bset < 0)
			break;	/* past the kernel's last capability */
		if (!bset || in(wanted, n_wanted, c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			cut = false;
	}
	return cut;
}

/*
 * The sets made exactly keep: permitted and effective; inheritable and ambient too when
 * ambient is set (so a program executed keeps them, as systemd's AmbientCapabilities= would
 * have it), else both emptied. cur is what capget said. The capset is skipped when it
 * would change nothing: a service's filter may refuse it, and a process that already holds
 * exactly these needs none.
 */
static int sets_cut(const struct __user_cap_data_struct *cur,
		    const struct __user_cap_data_struct *keep, bool ambient, char *err,
		    size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	bool same = true;

	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		d[i].permitted = d[i].effective = keep[i].permitted;
		d[i].inheritable = ambient ? keep[i].permitted : 0;
		same &= cur[i].permitted == d[i].permitted && cur[i].effective == d[i].effective &&
			cur[i].inheritable == d[i].inheritable;
	}
	/* ambient first: what is not in the new permitted or inheritable set would go from it
	 * anyway, but one that stays there must go by name */
	for (unsigned int c = 0; c < 64; c++) {
		int amb = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);

		if (amb < 0)
			break;	/* past the last capability (or a kernel without ambient ones) */
		if (amb && (!ambient || !(keep[c / 32].permitted & (1u << (c % 32)))) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, c, 0, 0) < 0)
			return fail(err, errlen, "lowering an ambient capability");
	}
	if (!same && syscall(SYS_capset, &h, d) < 0) {
		if (errno == EPERM && getuid() != 0)
			return fail(err, errlen, "capset (a service whose system-call filter "
				    "refuses it: the unit must allow capset)");
		return fail(err, errlen, "capset");
	}
	for (unsigned int c = 0; ambient && c < 64; c++) {
		if (!(keep[c / 32].permitted & (1u << (c % 32))))
			continue;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) != 1 &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return fail(err, errlen, "raising an ambient capability");
	}
	return 0;
}

/* Root to user pw, its own group alone, keeping the permitted set across (PR_SET_KEEPCAPS):
 * the effective set is emptied by the change, and sets_cut makes both again. */
static int become(const struct passwd *pw, char *err, size_t errlen)
{
	char what[96];
	gid_t gid = pw->pw_gid;

	snprintf(what, sizeof(what), "becoming user %s (uid %u, gid %u)", pw->pw_name,
		 (unsigned)pw->pw_uid, (unsigned)gid);
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(1, &gid) < 0 ||
	    setresgid(gid, gid, gid) < 0 || setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		return fail(err, errlen, what);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return 0;
}

/* what added to the warning in err, after a "; " (there may be two: no user, no bounding
 * set cut). */
static void warn_more(char *err, size_t errlen, const char *what)
{
	size_t len = strnlen(err, errlen);

	snprintf(err + len, errlen - len, "%s%s", len ? "; " : "", what);
}

int gw_become_daemon_user(const char *user, char *err, size_t errlen)
{
	const unsigned int wanted[] = { CAP_NET_ADMIN, CAP_NET_RAW };
	const size_t n_wanted = sizeof(wanted) / sizeof(wanted[0]);
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3], keep[_LINUX_CAPABILITY_U32S_3];
	bool root = getuid() == 0 || geteuid() == 0, cut = true;
	const struct passwd *pw = NULL;
	char warn[512] = "";
	int r;

	errno = 0;
	if (root && user) {
		/* looked up before anything goes: NSS may read files only root can */
		pw = getpwnam(user);
		if (pw && pw->pw_uid == 0) {
			snprintf(err, errlen, "user %s is root here: it must be a system user of "
				 "its own", user);
			return -EINVAL;
		}
		if (!pw)
			snprintf(warn, sizeof(warn), "user %s does not exist (create it: "
				 "systemd-sysusers gatewayd.conf, gatewayd(8) PRIVILEGES); the "
				 "daemon goes on as uid 0 with CAP_NET_ADMIN and CAP_NET_RAW alone",
				 user);
	}
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, errlen, "capget");
	wanted_held(d, wanted, n_wanted, keep);
	/* root: the bounding set first, while CAP_SETPCAP is there. A service has none to cut it
	 * with: its unit's CapabilityBoundingSet= is the bound, and no_new_privs keeps a program
	 * it runs from gaining what is in it */
	if (root)
		cut = bset_cut(wanted, n_wanted);
	if (pw && (r = become(pw, err, errlen)))
		return r;
	/* ambient (and inheritable) where it is not root: root without a user of its own keeps
	 * them empty, as it always has */
	if ((r = sets_cut(d, keep, !root || pw, err, errlen)))
		return r;
	if (pw && (setuid(0) == 0 || setgid(0) == 0)) {
		errno = EPERM;
		return fail(err, errlen, "root could be taken back");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	if (!cut)
		warn_more(warn, sizeof(warn), "the bounding set could not be cut (no CAP_SETPCAP): "
			  "a program it runs as root may hold more capabilities than these two");
	if (warn[0]) {
		snprintf(err, errlen, "%s", warn);
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
	const size_t n = sizeof(wanted) / sizeof(wanted[0]);
	bool all = true;
	int r;

	errno = 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(err, errlen, "capget");
	wanted_held(d, wanted, n, keep);
	for (size_t i = 0; i < n; i++)
		all &= cap_permitted(d, wanted[i]);
	/* the bounding set where it can be cut (root: CAP_SETPCAP); a service's is its unit's */
	bset_cut(wanted, n);
	/* no ambient or inheritable one: nothing it (or a process it starts) executes gets any */
	if ((r = sets_cut(d, keep, false, err, errlen)))
		return r;
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

int gw_drop_to_nobody(char *err, size_t errlen)
{
	static const char *const nobody[] = { "nobody", NULL };

	errno = 0;
	if (geteuid() == 0 || getuid() == 0)
		return gw_drop_to_user(nobody, NULL, 0, err, errlen);
	/* not root: no user to change to; what capabilities it has go */
	if (caps_clear() < 0)
		return fail(err, errlen, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	return 0;
}
