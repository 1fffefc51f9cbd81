/* webui/limit.c: limits per client address: failed logins, with a bounded table, delayed answers
 * through suspend/resume (a thread of its own resumes them) and rate-limited log lines; and the
 * connections each address has open. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "webui/limit.h"

struct entry {
	unsigned char addr[16];
	int family;		/* 0: free */
	unsigned int fails;
	double last_fail, locked_until;
};

/* Connections open from one address (an IPv6 /64). */
struct conns {
	unsigned char addr[16];
	int family;
	unsigned int open;
};

struct deferred {
	struct deferred *next;
	struct MHD_Connection *c;
	double due;
};

struct gw_limit {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping, released;
	unsigned int fail_limit;
	double backoff;
	struct entry e[GW_LIMIT_ADDRS];
	struct deferred *pending;
	gw_webui_log_fn log;
	void *log_ctx;
	double log_window;	/* start of the current window of log lines */
	double window;		/* its length: 60 s */
	unsigned int logged, suppressed;
	/* connections: the addresses with any open, packed at the front */
	unsigned int conn_max;
	size_t n_conns;
	struct conns conns[GW_LIMIT_CONN_ADDRS];
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void gw_limit_addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    !inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* An IPv4-mapped IPv6 address counts as the IPv4 one, an IPv6 one by its /64. */
static int key_of(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			memcpy(key, &a6->s6_addr[12], 4);
			return AF_INET;
		}
		/* an IPv6 host has a /64 to itself: count the prefix, or it would have 2^64 tries */
		memcpy(key, a6, 8);
		return AF_INET6;
	}
	return 0;
}

static struct entry *find(struct gw_limit *l, const struct sockaddr *sa, bool add, double now)
{
	unsigned char key[16];
	int family = key_of(sa, key);
	struct entry *victim = NULL;

	if (!family)
		return NULL;
	for (size_t i = 0; i < GW_LIMIT_ADDRS; i++) {
		struct entry *e = &l->e[i];

		if (e->family == family && !memcmp(e->addr, key, 16))
			return e;
		if (!add)
			continue;
		/* a free slot, else the one whose last failure and back-off are oldest */
		if (!e->family) {
			if (!victim || victim->family)
				victim = e;
		} else if (!victim || (victim->family &&
			   fmax(e->last_fail, e->locked_until) <
			   fmax(victim->last_fail, victim->locked_until))) {
			victim = e;
		}
	}
	if (!victim)
		return NULL;
	(void)now;
	memset(victim, 0, sizeof(*victim));
	victim->family = family;
	memcpy(victim->addr, key, 16);
	return victim;
}

/* Forget failures older than one back-off, and a back-off that has run out. */
static void age(struct gw_limit *l, struct entry *e, double now)
{
	if (e->locked_until && now >= e->locked_until) {
		e->locked_until = 0;
		e->fails = 0;
	}
	if (!e->locked_until && e->fails && now - e->last_fail > l->backoff)
		e->fails = 0;
}

static void say(struct gw_limit *l, int level, const char *msg)
{
	if (l->log)
		l->log(l->log_ctx, level, msg);
}

/* Called with the lock held: at most GW_LIMIT_LOG_PER_MINUTE lines a minute. */
static void log_limited(struct gw_limit *l, int level, const char *msg, double now)
{
	if (now - l->log_window >= l->window) {
		l->log_window = now;
		l->logged = 0;
	}
	if (l->logged >= GW_LIMIT_LOG_PER_MINUTE) {
		l->suppressed++;
		return;
	}
	l->logged++;
	say(l, level, msg);
}

static void flush_suppressed(struct gw_limit *l, double now)
{
	char msg[160];

	if (!l->suppressed || now - l->log_window < l->window)
		return;
	snprintf(msg, sizeof(msg), "status page: %u more failed or refused login%s in the last "
		 "%.0f s, not logged one by one", l->suppressed, l->suppressed == 1 ? "" : "s",
		 l->window);
	say(l, 4, msg);
	l->suppressed = 0;
	l->logged = 0;
	l->log_window = now;
}

/* A user name as sent, made safe for one log line: printable ASCII, at most 32 bytes. */
static void clean_user(const char *user, char *out, size_t len)
{
	size_t n = 0;

	for (; user && *user && n + 1 < len && n < 32; user++)
		out[n++] = (*user >= 0x20 && *user < 0x7f && *user != '"') ? *user : '?';
	out[n] = '\0';
}

double gw_limit_blocked(struct gw_limit *l, const struct sockaddr *sa, double now)
{
	struct entry *e;
	double wait = 0;

	pthread_mutex_lock(&l->lock);
	if ((e = find(l, sa, false, now))) {
		age(l, e, now);
		if (e->locked_until)
			wait = e->locked_until - now;
	}
	pthread_mutex_unlock(&l->lock);
	return wait;
}

double gw_limit_failed(struct gw_limit *l, const struct sockaddr *sa, const char *user,
		       double now)
{
	char addr[INET6_ADDRSTRLEN], name[40], msg[256];
	struct entry *e;
	double delay = 0;

	gw_limit_addr_text(sa, addr, sizeof(addr));
	clean_user(user, name, sizeof(name));
	pthread_mutex_lock(&l->lock);
	if (!(e = find(l, sa, true, now))) {
		pthread_mutex_unlock(&l->lock);
		return GW_LIMIT_DELAY_MAX;
	}
	age(l, e, now);
	e->fails++;
	e->last_fail = now;
	/* the second failure waits 0.25 s, each next one twice as long, up to 2 s */
	if (e->fails > 1)
		delay = fmin(0.25 * pow(2, e->fails - 2), GW_LIMIT_DELAY_MAX);
	if (e->fails >= l->fail_limit) {
		e->locked_until = now + l->backoff;
		snprintf(msg, sizeof(msg), "status page: failed login for \"%s\" from %s (%u of "
			 "%u): its next ones are refused with 429 for %.0f s", name, addr, e->fails,
			 l->fail_limit, l->backoff);
	} else {
		snprintf(msg, sizeof(msg), "status page: failed login for \"%s\" from %s (%u of "
			 "%u)", name, addr, e->fails, l->fail_limit);
	}
	log_limited(l, 4, msg, now);
	pthread_mutex_unlock(&l->lock);
	return delay;
}

void gw_limit_refused(struct gw_limit *l, const struct sockaddr *sa, double wait, double now)
{
	char addr[INET6_ADDRSTRLEN], msg[160];

	gw_limit_addr_text(sa, addr, sizeof(addr));
	snprintf(msg, sizeof(msg), "status page: login from %s refused with 429: too many "
		 "failures, %.0f s to wait", addr, ceil(wait));
	pthread_mutex_lock(&l->lock);
	log_limited(l, 4, msg, now);
	pthread_mutex_unlock(&l->lock);
}

void gw_limit_set_log_window(struct gw_limit *l, double window_s)
{
	pthread_mutex_lock(&l->lock);
	l->window = window_s > 0 ? window_s : 60;
	pthread_mutex_unlock(&l->lock);
}

void gw_limit_ok(struct gw_limit *l, const struct sockaddr *sa)
{
	struct entry *e;

	pthread_mutex_lock(&l->lock);
	if ((e = find(l, sa, false, 0)) && !e->locked_until)
		e->fails = 0;
	pthread_mutex_unlock(&l->lock);
}

int gw_limit_defer(struct gw_limit *l, struct MHD_Connection *c, double delay)
{
	struct deferred *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&l->lock);
	if (l->released) {
		pthread_mutex_unlock(&l->lock);
		free(d);
		return -EAGAIN;
	}
	MHD_suspend_connection(c);
	d->c = c;
	d->due = mono_now() + delay;
	d->next = l->pending;
	l->pending = d;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* With the lock held: resume what is due (all when force), return the next due time. */
static double resume_due(struct gw_limit *l, double now, bool force)
{
	struct deferred **pp = &l->pending, *d;
	double next = now + 0.5;	/* the log flush looks twice a second anyway */

	while ((d = *pp)) {
		if (force || d->due <= now) {
			*pp = d->next;
			MHD_resume_connection(d->c);
			free(d);
			continue;
		}
		if (d->due < next)
			next = d->due;
		pp = &d->next;
	}
	return next;
}

static void *resumer(void *arg)
{
	struct gw_limit *l = arg;
	struct timespec ts;
	double next;

	pthread_mutex_lock(&l->lock);
	while (!l->stopping) {
		next = resume_due(l, mono_now(), false);
		flush_suppressed(l, mono_now());
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&l->wake, &l->lock, &ts);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

void gw_limit_release(struct gw_limit *l)
{
	pthread_mutex_lock(&l->lock);
	l->released = true;
	resume_due(l, mono_now(), true);
	pthread_mutex_unlock(&l->lock);
}

void gw_limit_hold(struct gw_limit *l)
{
	pthread_mutex_lock(&l->lock);
	l->released = false;
	pthread_mutex_unlock(&l->lock);
}

void gw_limit_set(struct gw_limit *l, unsigned int fail_limit, double backoff_s)
{
	pthread_mutex_lock(&l->lock);
	l->fail_limit = fail_limit ? fail_limit : 5;
	l->backoff = backoff_s > 0 ? backoff_s : 60;
	pthread_mutex_unlock(&l->lock);
}

/* ---- connections per address ---------------------------------------------------------- */

void gw_limit_set_conn_max(struct gw_limit *l, unsigned int max)
{
	pthread_mutex_lock(&l->lock);
	l->conn_max = max;
	pthread_mutex_unlock(&l->lock);
}

/* Called with the lock held: sa's entry, made when add (NULL: not there, or no room). */
static struct conns *conns_of(struct gw_limit *l, const struct sockaddr *sa, bool add)
{
	unsigned char key[16];
	int family = key_of(sa, key);
	struct conns *c;

	if (!family)
		return NULL;
	for (size_t i = 0; i < l->n_conns; i++)
		if (l->conns[i].family == family && !memcmp(l->conns[i].addr, key, 16))
			return &l->conns[i];
	if (!add || l->n_conns >= GW_LIMIT_CONN_ADDRS)
		return NULL;
	c = &l->conns[l->n_conns++];
	c->family = family;
	memcpy(c->addr, key, 16);
	c->open = 0;
	return c;
}

bool gw_limit_conn_room(struct gw_limit *l, const struct sockaddr *sa)
{
	struct conns *c;
	bool room;

	pthread_mutex_lock(&l->lock);
	c = conns_of(l, sa, false);
	room = !l->conn_max || (c ? c->open < l->conn_max : l->n_conns < GW_LIMIT_CONN_ADDRS);
	pthread_mutex_unlock(&l->lock);
	return room;
}

bool gw_limit_conn_begin(struct gw_limit *l, const struct sockaddr *sa)
{
	struct conns *c;
	bool ok;

	pthread_mutex_lock(&l->lock);
	if ((c = conns_of(l, sa, true)))
		c->open++;
	/* another thread's accept may have come between its room and this: counted, and
	 * refused here, so the bound holds exactly */
	ok = !l->conn_max || (c && c->open <= l->conn_max);
	pthread_mutex_unlock(&l->lock);
	return ok;
}

void gw_limit_conn_end(struct gw_limit *l, const struct sockaddr *sa)
{
	struct conns *c;

	pthread_mutex_lock(&l->lock);
	if ((c = conns_of(l, sa, false)) && c->open && !--c->open)
		*c = l->conns[--l->n_conns];	/* the last one fills its place */
	pthread_mutex_unlock(&l->lock);
}

unsigned int gw_limit_conn_count(struct gw_limit *l, const struct sockaddr *sa)
{
	struct conns *c;
	unsigned int n;

	pthread_mutex_lock(&l->lock);
	n = (c = conns_of(l, sa, false)) ? c->open : 0;
	pthread_mutex_unlock(&l->lock);
	return n;
}

int gw_limit_new(unsigned int fail_limit, double backoff_s, gw_webui_log_fn log, void *log_ctx,
		 struct gw_limit **out)
{
	struct gw_limit *l = calloc(1, sizeof(*l));
	pthread_condattr_t ca;
	int r;

	if (!l)
		return -ENOMEM;
	l->log = log;
	l->log_ctx = log_ctx;
	l->log_window = mono_now();
	if ((r = pthread_mutex_init(&l->lock, NULL))) {
		free(l);
		return -r;
	}
	gw_limit_set(l, fail_limit, backoff_s);
	l->window = 60;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	r = pthread_cond_init(&l->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (!r && (r = pthread_create(&l->thread, NULL, resumer, l)))
		pthread_cond_destroy(&l->wake);
	if (r) {
		pthread_mutex_destroy(&l->lock);
		free(l);
		return -r;
	}
	*out = l;
	return 0;
}

void gw_limit_free(struct gw_limit *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stopping = true;
	resume_due(l, mono_now(), true);
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
