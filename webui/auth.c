/* webui/auth.c: the basic-auth credentials file, read once at start-up, and password checks
 * with crypt_r(3); no password is kept in clear, only hashes. */
#include <crypt.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "webui/auth.h"
#include "webui/readfile.h"

#define HASH_MAX 512

struct gw_user {
	char *name, *hash;
	/* the last password that matched, as a quick salted hash ("$5$rounds=1000$..."), so
	 * repeats skip the slow crypt of the file's hash without a password kept in clear */
	char *verified;
};

struct gw_auth {
	pthread_mutex_t lock;
	struct gw_user users[GW_AUTH_MAX_USERS];
	size_t n;
};

static int load_err(char *err, size_t errlen, const char *file, int line, const char *msg, int r)
{
	if (err && errlen) {
		if (line)
			snprintf(err, errlen, "%s:%d: %s", file, line, msg);
		else
			snprintf(err, errlen, "%s: %s", file, msg);
	}
	return r;
}

/* The whole file behind fd (named file), NUL-terminated; a regular file no bigger than
 * GW_AUTH_FILE_MAX. */
static int read_fd(int fd, const char *file, char **out, char *err, size_t errlen)
{
	struct stat st;
	size_t len;
	int r = gw_webui_read_file(fd, GW_AUTH_FILE_MAX, &st, out, &len);

	if (r == -EINVAL || r == -EFBIG)
		return load_err(err, errlen, file, 0, "not a regular file of at most 64 KiB",
				-EINVAL);
	if (r == -EAGAIN)
		return load_err(err, errlen, file, 0, "changed while it was read", r);
	if (r)
		return load_err(err, errlen, file, 0, strerror(-r), r);
	if (strlen(*out) != len) {
		explicit_bzero(*out, len);
		free(*out);
		*out = NULL;
		return load_err(err, errlen, file, 0, "contains a NUL byte", -EINVAL);
	}
	return 0;
}

/* crypt_r of password with hash as the setting; NULL or "*..." when the hash is unusable. */
static bool crypt_matches(const char *password, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;
	unsigned char diff = 0;
	size_t n;

	if (!cd)
		return false;
	h = crypt_r(password, hash, cd);
	if (!h || h[0] == '*' || (n = strlen(h)) != strlen(hash)) {
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
		return false;
	}
	/* compare every byte, so the time says nothing about where they differ */
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(h[i] ^ hash[i]);
	explicit_bzero(cd, sizeof(*cd));	/* crypt's scratch held the password */
	free(cd);
	return diff == 0;
}

/*
 * What a hash may cost. crypt(3) runs with it when the file is read (at start and at each
 * reload, in the loop) and at every login that is not remembered (in an HTTP thread); a cost
 * typed wrong would hold them for hours ($2b$31$: 2^31 bcrypt rounds; $6$rounds=999999999$:
 * about 20 minutes) or take gigabytes (yescrypt's N). The limits are near a second of one core
 * at most (measured on the CI machine: sha512-crypt 500,000 rounds 0.65 s, bcrypt 13 0.5 s,
 * yescrypt cost 7 0.36 s and 64 MiB); methods with no cost in the setting are cheap.
 */
#define SHA_ROUNDS_MAX 500000UL		/* $5$, $6$: rounds=N (default 5000) */
#define SHA1_ROUNDS_MAX 600000UL	/* $sha1$N$ (default about 260,000) */
#define SUNMD5_ROUNDS_MAX 200000UL	/* $md5,rounds=N$ */
#define BCRYPT_COST_MAX 13UL		/* $2b$NN$ (default 5 for htpasswd -B, 10-12 elsewhere) */
#define YESCRYPT_COST_MAX 7UL		/* mkpasswd -R, crypt_gensalt's count (default 5) */
#define SCRYPT_COST_MAX 7UL		/* $7$, crypt_gensalt's count (default 7) */
#define TOO_COSTLY "the hash's cost is above what gatewayd allows (see auth_file in " \
	"gatewayd.conf(5)): make it with the tool's default cost"

/* Is the decimal number at p, which ends at end_ch, at most max? NULL when it is, else why
 * not (digits past max are not read: the number is too big whatever they say). */
static const char *decimal(const char *p, char end_ch, unsigned long max)
{
	unsigned long v = 0;

	if (*p < '0' || *p > '9')
		return "the hash's cost is not a number";
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return TOO_COSTLY;
	}
	return *p == end_ch ? NULL : "the hash's cost is not a number";
}

/* Do the parameters of a yescrypt ($y$, $gy$) or scrypt ($7$) setting equal those
 * crypt_gensalt(3) makes for one of the costs lo..hi? (Their encoding is that library's own.) */
static bool gensalt_params(const char *hash, const char *prefix, unsigned long lo,
			   unsigned long hi, size_t fixed_len)
{
	static const char rnd[16] = "gatewayd-params";
	size_t pre = strlen(prefix), n;
	const char *end = hash + pre;
	char out[CRYPT_GENSALT_OUTPUT_SIZE];

	n = fixed_len ? fixed_len : strcspn(end, "$");
	if (strlen(end) < n || (!fixed_len && end[n] != '$'))
		return false;
	for (unsigned long c = lo; c <= hi; c++) {
		if (!crypt_gensalt_rn(prefix, c, rnd, sizeof(rnd), out, sizeof(out)))
			continue;
		if (!strncmp(out + pre, end, n) && (fixed_len || out[pre + n] == '$'))
			return true;
	}
	return false;
}

/* NULL when hash's method is one gatewayd knows and its cost within the limits above. */
static const char *hash_cost(const char *hash)
{
	if (!strncmp(hash, "$6$", 3) || !strncmp(hash, "$5$", 3)) {
		if (strncmp(hash + 3, "rounds=", 7))
			return NULL;	/* the default, 5000 */
		/* (crypt refuses a "rounds=" that is no number and '$' as well) */
		return decimal(hash + 10, '$', SHA_ROUNDS_MAX);
	}
	if (!strncmp(hash, "$sha1$", 6))
		return decimal(hash + 6, '$', SHA1_ROUNDS_MAX);
	if (!strncmp(hash, "$md5,rounds=", 12))
		return decimal(hash + 12, '$', SUNMD5_ROUNDS_MAX);
	if (!strncmp(hash, "$md5$", 5) || !strncmp(hash, "$1$", 3) || !strncmp(hash, "$3$", 3))
		return NULL;	/* no cost in the setting */
	if (hash[1] == '2' && hash[2] && strchr("abxy", hash[2]) && hash[3] == '$')
		return decimal(hash + 4, '$', BCRYPT_COST_MAX);
	if (!strncmp(hash, "$y$", 3))
		return gensalt_params(hash, "$y$", 1, YESCRYPT_COST_MAX, 0) ? NULL : TOO_COSTLY;
	if (!strncmp(hash, "$gy$", 4))
		return gensalt_params(hash, "$gy$", 1, YESCRYPT_COST_MAX, 0) ? NULL : TOO_COSTLY;
	if (!strncmp(hash, "$7$", 3))
		return gensalt_params(hash, "$7$", 6, SCRYPT_COST_MAX, 11) ? NULL : TOO_COSTLY;
	return "not a crypt(3) hash gatewayd takes ($6$, $5$, $y$, $gy$, $7$, $2b$, $sha1$, "
	       "$md5, $1$): make one with `openssl passwd -6` or mkpasswd";
}

static bool usable_hash(const char *hash)
{
	struct crypt_data *cd;
	const char *h;
	bool ok;

	if (hash[0] != '$' || strlen(hash) > HASH_MAX)
		return false;
	for (const char *c = hash; *c; c++)
		if (!isgraph((unsigned char)*c))
			return false;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	h = crypt_r("", hash, cd);
	ok = h && h[0] != '*';
	free(cd);
	return ok;
}

static int add_user(struct gw_auth *a, char *line, const char *file, int lineno, char *err,
		    size_t errlen)
{
	char *colon = strchr(line, ':'), *hash;
	const char *why;
	size_t nlen;

	if (!colon)
		return load_err(err, errlen, file, lineno, "expected \"user:HASH\"", -EINVAL);
	*colon = '\0';
	hash = colon + 1;
	nlen = strlen(line);
	if (nlen < 1 || nlen > GW_AUTH_NAME_MAX)
		return load_err(err, errlen, file, lineno, "user name must have 1..64 characters",
				-EINVAL);
	for (size_t i = 0; i < nlen; i++)
		if (iscntrl((unsigned char)line[i]))
			return load_err(err, errlen, file, lineno,
					"user name has a control character", -EINVAL);
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->users[i].name, line))
			return load_err(err, errlen, file, lineno, "user listed twice", -EINVAL);
	if (hash[0] == '$' && strlen(hash) <= HASH_MAX && (why = hash_cost(hash)))
		return load_err(err, errlen, file, lineno, why, -EINVAL);
	if (!usable_hash(hash))
		return load_err(err, errlen, file, lineno, "not a crypt(3) hash this system "
				"supports: make one with `openssl passwd -6` or mkpasswd", -EINVAL);
	if (a->n == GW_AUTH_MAX_USERS)
		return load_err(err, errlen, file, lineno, "more than 64 users", -EINVAL);
	a->users[a->n].name = strdup(line);
	a->users[a->n].hash = strdup(hash);
	if (!a->users[a->n].name || !a->users[a->n].hash) {
		free(a->users[a->n].name);
		free(a->users[a->n].hash);
		return load_err(err, errlen, file, 0, "out of memory", -ENOMEM);
	}
	a->n++;
	return 0;
}

static int parse_lines(struct gw_auth *a, char *text, const char *file, char *err,
		       size_t errlen)
{
	char *line, *p = text;
	int lineno = 0, r;

	/* strsep rather than strtok: empty lines still count for line numbers */
	while ((line = strsep(&p, "\n"))) {
		size_t n = strlen(line);

		lineno++;
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		if ((r = add_user(a, line, file, lineno, err, errlen)))
			return r;
	}
	if (!a->n)
		return load_err(err, errlen, file, 0, "no \"user:HASH\" line", -EINVAL);
	return 0;
}

int gw_auth_load_fd(int fd, const char *file, struct gw_auth **out, char *err, size_t errlen)
{
	struct gw_auth *a;
	char *text = NULL;
	int r;

	*out = NULL;
	if ((r = read_fd(fd, file, &text, err, errlen)))
		return r;
	a = calloc(1, sizeof(*a));
	if (!a) {
		free(text);
		return load_err(err, errlen, file, 0, "out of memory", -ENOMEM);
	}
	if ((r = -pthread_mutex_init(&a->lock, NULL))) {
		free(a);
		free(text);
		return load_err(err, errlen, file, 0, strerror(-r), r);
	}
	r = parse_lines(a, text, file, err, errlen);
	explicit_bzero(text, strlen(text));
	free(text);
	if (r) {
		gw_auth_free(a);
		return r;
	}
	*out = a;
	return 0;
}

int gw_auth_load(const char *file, struct gw_auth **out, char *err, size_t errlen)
{
	/* no link followed, no FIFO waited on (O_NONBLOCK: read_fd refuses what is not a
	 * regular file) */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK), r;

	*out = NULL;
	if (fd < 0) {
		r = -errno;
		return load_err(err, errlen, file, 0, strerror(-r), r);
	}
	r = gw_auth_load_fd(fd, file, out, err, errlen);
	close(fd);
	return r;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void gw_auth_free(struct gw_auth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->users[i].name);
		free(a->users[i].hash);
		free_secret(a->users[i].verified);
	}
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* A sha256-crypt of password with a fresh random salt and the fewest rounds (about 0.2 ms):
 * enough that memory holds no password, cheap enough for every request of a page. */
static char *quick_hash(const char *password)
{
	static const char abc[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	char setting[40] = "$5$rounds=1000$";
	unsigned char rnd[16];
	struct crypt_data *cd;
	const char *h;
	char *out = NULL;
	size_t n = strlen(setting);

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return NULL;
	for (size_t i = 0; i < sizeof(rnd); i++)
		setting[n + i] = abc[rnd[i] & 63];
	setting[n + sizeof(rnd)] = '$';
	setting[n + sizeof(rnd) + 1] = '\0';
	if (!(cd = calloc(1, sizeof(*cd))))
		return NULL;
	h = crypt_r(password, setting, cd);
	if (h && h[0] == '$')
		out = strdup(h);
	explicit_bzero(cd, sizeof(*cd));	/* crypt's scratch held the password */
	free(cd);
	return out;
}

bool gw_auth_check(struct gw_auth *a, const char *user, const char *password)
{
	struct gw_user *u = NULL;
	char *quick;
	bool ok;

	if (!a || !user || !password || strlen(password) > GW_AUTH_PASSWORD_MAX)
		return false;
	for (size_t i = 0; i < a->n && !u; i++)
		if (!strcmp(a->users[i].name, user))
			u = &a->users[i];
	if (!u) {
		/* the same work as for a real user, so timing does not tell who exists */
		crypt_matches(password, a->users[0].hash);
		return false;
	}
	pthread_mutex_lock(&a->lock);
	quick = u->verified ? strdup(u->verified) : NULL;
	pthread_mutex_unlock(&a->lock);
	ok = quick && crypt_matches(password, quick);
	free(quick);
	if (ok || !crypt_matches(password, u->hash))
		return ok;
	quick = quick_hash(password);	/* NULL only means the next check runs crypt again */
	pthread_mutex_lock(&a->lock);
	free_secret(u->verified);
	u->verified = quick;
	pthread_mutex_unlock(&a->lock);
	return true;
}

bool gw_auth_holds(const struct gw_auth *a, const char *text)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (strstr(a->users[i].name, text) || strstr(a->users[i].hash, text) ||
		    (a->users[i].verified && strstr(a->users[i].verified, text)))
			return true;
	return false;
}
