/* webui/guard.c: per-connection deadlines, enforced by a watchdog thread that shuts down the
 * sockets of connections past theirs (libmicrohttpd then sees the end and cleans up). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include "webui/guard.h"

struct guard_conn {
	struct guard_conn *prev, *next;
	int fd;
	double since;		/* monotonic seconds: start of the current deadline */
	bool in_request;
	bool shut;
};

struct gw_guard {
	pthread_mutex_t lock;	/* the list; held by MHD's threads only for a list update */
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping;
	struct guard_conn *head;
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The fd cannot be closed and reused under us: libmicrohttpd sends NOTIFY_CLOSED (which takes
 * the lock we hold here) before it closes the socket.
 */
static void sweep(struct gw_guard *g, double now)
{
	for (struct guard_conn *k = g->head; k; k = k->next) {
		double limit = k->in_request ? GW_GUARD_REQUEST_SECONDS : GW_GUARD_HEADER_SECONDS;

		if (!k->shut && now - k->since > limit) {
			shutdown(k->fd, SHUT_RDWR);
			k->shut = true;
		}
	}
}

static void *watchdog(void *arg)
{
	struct gw_guard *g = arg;
	struct timespec ts;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 500000000;	/* twice a second: deadlines hold to within 0.5 s */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
		sweep(g, mono_now());
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int gw_guard_start(struct gw_guard **out)
{
	struct gw_guard *g = calloc(1, sizeof(*g));
	pthread_condattr_t ca;
	int r;

	if (!g)
		return -ENOMEM;
	if ((r = pthread_mutex_init(&g->lock, NULL))) {
		free(g);
		return -r;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	r = pthread_cond_init(&g->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (!r && (r = pthread_create(&g->thread, NULL, watchdog, g)))
		pthread_cond_destroy(&g->wake);
	if (r) {
		pthread_mutex_destroy(&g->lock);
		free(g);
		return -r;
	}
	*out = g;
	return 0;
}

void gw_guard_stop(struct gw_guard *g)
{
	struct guard_conn *k;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = true;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	/* MHD closed every connection before this; anything left is only memory */
	while ((k = g->head)) {
		g->head = k->next;
		free(k);
	}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static void conn_started(struct gw_guard *g, struct MHD_Connection *c, void **socket_context)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct guard_conn *k;

	*socket_context = NULL;
	/* without memory the connection goes unwatched: MHD's idle timeout still holds */
	if (!ci || !(k = calloc(1, sizeof(*k))))
		return;
	k->fd = ci->connect_fd;
	k->since = mono_now();
	pthread_mutex_lock(&g->lock);
	k->next = g->head;
	if (g->head)
		g->head->prev = k;
	g->head = k;
	pthread_mutex_unlock(&g->lock);
	*socket_context = k;
}

void gw_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		     enum MHD_ConnectionNotificationCode code)
{
	struct gw_guard *g = cls;
	struct guard_conn *k = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_started(g, c, socket_context);
		return;
	}
	if (code != MHD_CONNECTION_NOTIFY_CLOSED || !k)
		return;
	pthread_mutex_lock(&g->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		g->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&g->lock);
	free(k);
	*socket_context = NULL;
}

void gw_guard_request(struct gw_guard *g, struct MHD_Connection *c, bool started)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct guard_conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&g->lock);
	k->in_request = started;
	k->since = mono_now();
	pthread_mutex_unlock(&g->lock);
}
