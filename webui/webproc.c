/* webui/webproc.c: the web process, forked by the web launcher (webui/launcher.c): no
 * capability, a user of its own and the sandbox before it reads a byte; then the daemon's
 * wire frames read (settings, snapshots) into the HTTP server, the history and the last
 * comparison's summary, until its stream ends. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "sys/forked.h"
#include "sys/log.h"
#include "sys/memtune.h"
#include "sys/privdrop.h"
#include "sys/sandbox.h"
#include "qdisc/qdisc.h"
#include "webui/histfeed.h"
#include "webui/lastcmp.h"
#include "webui/webproc.h"
#include "webui/webui.h"
#include "webui/wire.h"

#define MAX_KINDS 16

struct gw_webproc_test gw_webproc_test = { .fd = -1 };

static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gw_snapshot *child_cur;
static struct gw_lastcmp child_cmp;
static struct gw_histfeed *child_hist;
static atomic_bool child_asked;

static void test_hook(enum gw_webproc_stage stage)
{
	if (gw_webproc_test.hook)
		gw_webproc_test.hook(stage, gw_webproc_test.fd);
}

static struct gw_snapshot *child_get(void *ctx)
{
	(void)ctx;
	if (gw_webproc_test.hook && !atomic_exchange(&child_asked, true))
		test_hook(GW_WEBPROC_REQUEST);	/* in the thread that answers a client */
	return gw_snapshot_take(&child_lock, &child_cur);
}

static int child_compare(void *ctx, const char *name, char **body, size_t *len, char *err,
			 size_t errlen)
{
	(void)ctx;
	return gw_lastcmp_read(&child_cmp, name, body, len, err, errlen);
}

static int child_history(void *ctx, const char *link, const char *direction,
			 const char *class_name, double from, double to, bool minute,
			 struct gw_hist_point *out, size_t max)
{
	(void)ctx;
	return child_hist ? gw_histfeed_query(child_hist, link, direction, class_name, from, to,
					      minute, out, max) : -ENOENT;
}

static void child_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	gw_log(level <= 3 ? GW_LOG_ERR : level == 4 ? GW_LOG_WARNING : GW_LOG_INFO, "web: %s",
	       msg);
}

/* The web process's own state: its sockets and files (fds), its server. */
struct child {
	int sock;
	const int *fds;			/* the listening sockets */
	int *files;			/* auth, cert, key: read once, at the server's start */
	struct gw_webui *w;
};

/*
 * The first settings: the server started on them. Its files come from the fds the daemon
 * opened (this process may not open them itself), are read once and closed. 0, or -1 with
 * the reason logged: the process then exits, and the daemon starts another after its
 * back-off (a process serving nothing would look up and answer no one).
 */
static int child_start(struct child *ch, const struct gw_wire_settings *ws)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;
	struct gw_webui_source src = { NULL, child_get, child_history, child_compare };
	size_t n = gw_wire_settings_opts(ws, listen, &o, hosts);
	char err[512];
	int r;

	o.listen_fds = ch->fds;
	o.file_fds = ch->files;
	o.log = child_log;
	gw_lastcmp_set_dir(&child_cmp, ws->compare_dir[0] ? ws->compare_dir : "");
	r = gw_webui_start_opts(listen, n, &o, &src, &ch->w, err, sizeof(err));
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		if (ch->files[i] >= 0) {
			close(ch->files[i]);
			ch->files[i] = -1;
		}
	if (r) {
		gw_log(GW_LOG_ERR, "web: %s; this process ends", err);
		return -1;
	}
	return 0;
}

/* Later settings: the limits and the comparison's directory. Anything else (addresses,
 * files, Host names) the daemon gives to a new process, never to this one. */
static void child_settings(struct child *ch, const struct gw_wire_settings *ws)
{
	struct gw_webui_listen listen[GW_WEBUI_MAX_LISTEN];
	const char *hosts[GW_WEBUI_MAX_HOSTS];
	struct gw_webui_opts o;

	gw_wire_settings_opts(ws, listen, &o, hosts);
	gw_lastcmp_set_dir(&child_cmp, ws->compare_dir[0] ? ws->compare_dir : "");
	gw_webui_set_limits(ch->w, &o);
}

/* One frame from the daemon: 0, or -1 when the first settings could not be served. */
static int child_frame(struct child *ch, const struct gw_wire_hdr *h, const uint8_t *p)
{
	const struct gw_xstats_desc *kinds[MAX_KINDS];
	size_t n_kinds = gw_qdisc_xdescs(kinds, MAX_KINDS);
	struct gw_wire_settings *ws;
	struct gw_snapshot *s;
	int r;

	if (h->type == GW_WIRE_SNAPSHOT) {
		if ((r = gw_wire_get_snapshot(p, h->len, kinds, n_kinds, &s))) {
			gw_log(GW_LOG_ERR, "web: a snapshot refused: %s", strerror(-r));
			return 0;
		}
		if (child_hist && (r = gw_histfeed_push(child_hist, s)))
			gw_log(GW_LOG_ERR, "web: history: %s; this pass is not kept", strerror(-r));
		gw_snapshot_publish(&child_lock, &child_cur, s);
		return 0;
	}
	if (h->type != GW_WIRE_SETTINGS)
		return 0;
	if (!(ws = malloc(sizeof(*ws))) || (r = gw_wire_get_settings(p, h->len, ws))) {
		gw_log(GW_LOG_ERR, "web: settings refused: %s", ws ? strerror(-r) : "no memory");
		free(ws);
		return ch->w ? 0 : -1;
	}
	r = 0;
	if (ch->w)
		child_settings(ch, ws);
	else
		r = child_start(ch, ws);
	free(ws);
	return r;
}

/* Read frames until the stream ends or breaks (0), or the first settings fail (-1). */
static int child_read(struct child *ch)
{
	struct gw_wire_rx rx = { .buf = NULL };
	struct gw_wire_hdr h;
	const uint8_t *p;
	int r;

	for (;;) {
		struct pollfd pfd = { .fd = ch->sock, .events = POLLIN };
		bool started = ch->w != NULL;

		while ((r = gw_wire_rx_next(&rx, &h, &p)) == 1) {
			if (child_frame(ch, &h, p) < 0)
				return -1;
			if (!started && ch->w) {
				started = true;
				test_hook(GW_WEBPROC_SERVING);
			}
		}
		if (r < 0) {
			gw_log(GW_LOG_ERR, "web: the stream from the daemon: %s", strerror(-r));
			return 0;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return 0;
		r = (int)gw_wire_rx_read(&rx, ch->sock);
		if (r == 0 || (r < 0 && r != -EAGAIN && r != -EINTR))
			return 0;	/* the daemon is gone, or has a new process */
	}
}

/*
 * The web process, forked by the launcher. Everything that gives something up comes before
 * anything is read, from the daemon or from a client: its own session and no terminal, no
 * fd but its sockets and its files, a user of its own (never the daemon's, never root) with
 * no capability and no_new_privs, the filter (TSYNC, though no other thread exists yet).
 * Only then the daemon's settings are read and the server (its threads, its listening
 * sockets) started, so no client's byte is ever read before all of that is in place.
 */
void gw_webproc_main(int sock, const int *fds, size_t n, int *files, pid_t parent,
		     uid_t daemon_uid)
{
	static const char *const users[] = { GW_WEB_USER, "nobody", NULL };
	const uid_t avoid[] = { daemon_uid, getuid() };	/* the daemon's, the launcher's */
	int keep[2 + GW_WEBUI_MAX_LISTEN + GW_WEBPROC_FILES];
	struct child ch = { .sock = sock, .fds = fds, .files = files };
	char err[512];
	int nk = 0;

	/* the launcher's signal mask and handlers are its own: this process takes the defaults.
	 * It does not die with the launcher: it ends with its stream from the daemon (at the
	 * daemon's stop or death, or when a new one takes over), so a launcher that is killed
	 * leaves the page up, only no longer restartable. */
	gw_forked_signals();
	signal(SIGPIPE, SIG_IGN);	/* a client gone mid-answer is an error, not a death */
	if (getppid() != parent || gw_forked_detach() < 0)
		_exit(1);
	keep[nk++] = sock;
	for (size_t i = 0; i < n; i++)
		keep[nk++] = fds[i];
	for (int i = 0; i < GW_WEBPROC_FILES; i++)
		keep[nk++] = files[i];
	keep[nk++] = gw_webproc_test.hook ? gw_webproc_test.fd : -1;
	gw_forked_close_except(keep, nk);
	prctl(PR_SET_NAME, "gatewayd-web", 0, 0, 0);
	if (gw_drop_to_user(users, avoid, sizeof(avoid) / sizeof(avoid[0]), err, sizeof(err)) ||
	    gw_sandbox_web(err, sizeof(err))) {
		gw_log(GW_LOG_ERR, "web: %s", err);
		_exit(2);
	}
	test_hook(GW_WEBPROC_DROPPED);
	/* One malloc arena for every thread: glibc gives each HTTP thread an arena of its own,
	 * which keeps what its largest rendering took (1.35 MB of /metrics at 1000 classes, with
	 * its JSON tree) long after; with one, the daemon at 1000 idle classes and full history
	 * rings held 19-20 MB instead of 20-26 (BENCHMARKS.md, section 4, when the daemon served
	 * its page itself). The threads allocate little and seldom, so they do not contend. And
	 * fixed thresholds, so a rendering's big blocks go back (sys/memtune.h). */
	gw_malloc_tune(true);
	gw_lastcmp_init(&child_cmp, NULL);
	gw_histfeed_new(&child_hist);
	if (child_read(&ch) < 0)
		_exit(3);
	_exit(0);	/* the kernel frees the rest; no server thread outlives this */
}
