/* gatewayd/sys/privdrop.h: a server that has bound its sockets gives up what it no longer needs. */
#ifndef GW_PRIVDROP_H
#define GW_PRIVDROP_H

#include <stddef.h>

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

/*
 * What gw_become_daemon_user does without a user (the tests' stand-in for the daemon):
 * started as root, keep CAP_NET_ADMIN and CAP_NET_RAW (those it has of them) and
 * give up every other capability, from the bounding set as well, so a program it runs (an
 * iperf3 client) gets no more back; and set no_new_privs. Not root (systemd's DynamicUser
 * with ambient capabilities): nothing to do, 0. Returns 0, 1 when the bounding set could not
 * be cut (no CAP_SETPCAP: what it runs may hold more; err says so), or -errno with err
 * saying which step failed.
 */
int gw_keep_net_caps(char *err, size_t errlen);
/* The same for the web process's launcher (gatewayd/webchild.c), which only forks web
 * processes that become nobody: CAP_SETUID, CAP_SETGID and CAP_KILL. */
int gw_keep_web_launcher_caps(char *err, size_t errlen);
/* The same with the capabilities named (CAP_* numbers). */
int gw_keep_caps(const unsigned int *wanted, size_t n_wanted, char *err, size_t errlen);

#endif
