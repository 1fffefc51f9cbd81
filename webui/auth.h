/* webui/auth.h: HTTP basic auth against a file of "user:crypt(3) hash" lines. */
#ifndef GW_WEBUI_AUTH_H
#define GW_WEBUI_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define GW_AUTH_MAX_USERS 64
#define GW_AUTH_FILE_MAX 65536
#define GW_AUTH_NAME_MAX 64
#define GW_AUTH_PASSWORD_MAX 256

struct gw_auth;

/*
 * Read FILE: one "user:HASH" a line, HASH a crypt(3) hash in modular form ("$6$...", "$y$...",
 * as `openssl passwd -6` or mkpasswd make); blank lines and lines starting with '#' are
 * skipped. Not through a link (O_NOFOLLOW), and a FIFO is refused, not waited on. Returns 0
 * and *out, or -errno with "FILE:LINE: message" (or "FILE: message") in err.
 */
int gw_auth_load(const char *file, struct gw_auth **out, char *err, size_t errlen);
/* The same from fd, open already (from offset 0, its own offset untouched); file names it. */
int gw_auth_load_fd(int fd, const char *file, struct gw_auth **out, char *err, size_t errlen);
void gw_auth_free(struct gw_auth *a);

/* Whether user and password match a line. Safe from any thread. A miss costs one crypt(3)
 * call whether or not the user exists; a hit is remembered so the next one is cheap. */
bool gw_auth_check(struct gw_auth *a, const char *user, const char *password);

/* Whether any string the table keeps contains text: for tests that no password is kept. */
bool gw_auth_holds(const struct gw_auth *a, const char *text);

#endif
