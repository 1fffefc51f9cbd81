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

/*
 * For the daemon once it has started (its tree applied, its status page bound, its kinds
 * probed): started as root, keep CAP_NET_ADMIN and CAP_NET_RAW (those it has of them) and
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
