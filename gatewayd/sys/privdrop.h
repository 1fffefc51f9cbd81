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

#endif
