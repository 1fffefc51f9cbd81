/* sys/privdrop.h: a server that has bound its sockets gives up what it no longer needs. */
#ifndef GW_PRIVDROP_H
#define GW_PRIVDROP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * For --sink and --reflect once they have bound: started as root, become the user "nobody"
 * (65534 where the system has none) with no supplementary groups; in every case, no
 * capabilities left (effective, permitted, inheritable, ambient) and no_new_privs set, so
 * nothing it runs can gain any back. Returns 0, or -errno with err saying which step failed
 * (the caller must then stop: serving on as root is what this exists to prevent).
 */
int gw_drop_to_nobody(char *err, size_t errlen);

/* The daemon's own user, which it becomes once started as root (gatewayd(8) PRIVILEGES;
 * systemd/gatewayd.sysusers declares it). */
#define GW_DAEMON_USER "gatewayd"

/*
 * For the daemon once it has started (its tree applied, its status page bound, the web
 * process's launcher forked, the control socket open): CAP_NET_ADMIN and CAP_NET_RAW (those
 * it has of them) in the permitted, effective, inheritable and ambient sets and nothing else,
 * and no_new_privs.
 * - Root (any start outside systemd): the bounding set is cut to the two first, then it
 *   becomes user (no supplementary group but the user's own; real, effective and saved ids),
 *   keeping the two across the change (PR_SET_KEEPCAPS), so it owns no file of root's. user
 *   NULL, or no such user: it stays uid 0 with the two (no inheritable or ambient set), and
 *   returns 1 with a warning in err saying how to create the user.
 * - Not root (systemd's unit, which starts it as its user with these and the launcher's
 *   CAP_SETUID, CAP_SETGID and CAP_KILL ambient): the sets are cut to the two. The bounding
 *   set stays the unit's (cutting it takes CAP_SETPCAP); no_new_privs keeps a program it runs
 *   from gaining anything in it. Nothing is changed when nothing would change, so a unit that
 *   gives exactly the two needs no capset; one that gives more must allow it.
 * Returns 0; 1 with a warning in err (no such user; the bounding set could not be cut); or
 * -errno with err saying which step failed (the caller then stops).
 */
int gw_become_daemon_user(const char *user, char *err, size_t errlen);

/* The web process's user, and the one it falls back to. */
#define GW_WEB_USER "gatewayd-web"

/*
 * A process that parses what others send (the web process) or runs a program (iperf3) gives
 * up everything: it becomes the first of users (NULL-terminated) that exists (uid and gid
 * 65534 when none does), with that user's group alone, and refuses one that is root or in
 * avoid (the daemon's uid: a process of ours never shares it); then no capability in any set,
 * ambient included, and no_new_privs. Takes CAP_SETUID and CAP_SETGID (root, or the launcher
 * that keeps them). 0, or -errno with err naming the step that failed: the caller must stop.
 */
int gw_drop_to_user(const char *const *users, const uid_t *avoid, size_t n_avoid, char *err,
		    size_t errlen);
/*
 * The web process's launcher (webui/webchild.c), root or not (systemd's unit starts the
 * daemon as its user with CAP_SETUID, CAP_SETGID and CAP_KILL ambient beside the network
 * two): those three alone, permitted and effective, none inheritable or ambient, the bounding
 * set cut to them where it can be (root), no_new_privs. 0; 1 with err when it lacks one of
 * them (what it starts is then refused); -errno with err.
 */
int gw_keep_launcher_caps(char *err, size_t errlen);
#endif
