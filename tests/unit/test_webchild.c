/* tests/unit/test_webchild.c: the web process (gatewayd/webchild.c): it serves the snapshots
 * the parent sends on the socket the parent bound, as another uid (when run as root) with no
 * capabilities, no_new_privs and the seccomp filter; a stopped process never holds up the
 * sender (frames are dropped and counted); kill -9 is reaped, restarted after the back-off,
 * and the time without a page is counted, also after the parent has given up every capability
 * but CAP_NET_ADMIN and CAP_NET_RAW (the launcher makes the new one nobody); /api/history
 * serves the points the web process kept from the snapshots. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "gatewayd/sys/clock.h"
#include "gatewayd/sys/privdrop.h"
#include "gatewayd/webchild.h"
#include "tests/unit/tap.h"
#include "webui/webui.h"

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static int http_get(int port, const char *path, char *buf, size_t cap)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 2, 0 };
	char req[256];
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -errno;
	}
	while (len + 1 < cap && (n = read(fd, buf + len, cap - len - 1)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return (int)len;
}

static struct gw_snapshot *snapshot(uint64_t seq, size_t n_classes)
{
	struct gw_snapshot *s = calloc(1, sizeof(*s));

	atomic_init(&s->refs, 1);
	s->seq = seq;
	s->unix_time = gw_wall_now();
	s->interval_us = 100000;
	s->n_dirs = 1;
	s->dirs = calloc(1, sizeof(*s->dirs));
	snprintf(s->dirs[0].link, sizeof(s->dirs[0].link), "wan");
	snprintf(s->dirs[0].interface, sizeof(s->dirs[0].interface), "eth0");
	snprintf(s->dirs[0].direction, sizeof(s->dirs[0].direction), "egress");
	s->dirs[0].n_classes = n_classes;
	s->dirs[0].classes = calloc(n_classes ? n_classes : 1, sizeof(*s->dirs[0].classes));
	for (size_t i = 0; i < n_classes; i++) {
		snprintf(s->dirs[0].classes[i].name, sizeof(s->dirs[0].classes[i].name), "c%zu", i);
		s->dirs[0].classes[i].x.desc = NULL;
	}
	return s;
}

/* Drive the parent's side as the loop would, until the page shows seq (or timeout_s). */
static bool page_shows(struct gw_webchild *c, int port, uint64_t seq, double timeout_s)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	double until = gw_mono_now() + timeout_s;
	char want[32], *buf = malloc(1 << 16);
	bool ok = false;

	snprintf(want, sizeof(want), "\"seq\":%llu", (unsigned long long)seq);
	while (!ok && gw_mono_now() < until) {
		struct gw_snapshot *s = snapshot(seq, 2);

		gw_webchild_poll(c, gw_mono_now());
		gw_webchild_send(c, s);
		gw_snapshot_put(s);
		nanosleep(&tick, NULL);
		ok = http_get(port, "/api/status", buf, 1 << 16) > 0 && strstr(buf, want);
	}
	free(buf);
	return ok;
}

/* A field of /proc/PID/status, its text after the tab. */
static bool proc_field(pid_t pid, const char *key, char *out, size_t cap)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			snprintf(out, cap, "%s", line + kl + 1 + strspn(line + kl + 1, " \t"));
			out[strcspn(out, "\n")] = '\0';
			found = true;
		}
	fclose(f);
	return found;
}

int main(void)
{
	struct gw_wire_settings *ws = calloc(1, sizeof(*ws));
	struct gw_webui_listen l;
	struct gw_webchild *c = NULL;
	struct gw_webchild_stats st;
	char addr[32], err[512], v[128];
	int port = free_port(), fd = -1;
	double worst = 0;
	pid_t first, killer_pid = -1;
	int killer[2] = { -1, -1 };

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	l.text = addr;
	gw_parse_listen(addr, &l.addr, &l.len);
	if (!CHECK(gw_webui_bind(&l, &fd, err, sizeof(err)) == 0, "parent binds %s", addr))
		return tap_done();
	ws->n_listen = 1;
	snprintf(ws->listen_text[0], sizeof(ws->listen_text[0]), "%s", addr);
	ws->listen_addr[0] = l.addr;
	ws->listen_len[0] = l.len;
	ws->interval_us = 100000;
	if (!CHECK(gw_webchild_start(ws, &fd, 1, gw_mono_now(), &c, err, sizeof(err)) == 0,
		   "web process started (%s)", err))
		return tap_done();
	CHECK(page_shows(c, port, 7, 5), "the page shows the snapshot sent over the socket");
	gw_webchild_stats(c, gw_mono_now(), &st);
	first = st.pid;
	CHECK(st.up && st.pid > 0 && st.restarts == 0, "one process, up");
	CHECK(proc_field(st.pid, "NoNewPrivs", v, sizeof(v)) && !strcmp(v, "1"), "NoNewPrivs %s", v);
	CHECK(proc_field(st.pid, "Seccomp", v, sizeof(v)) && !strcmp(v, "2"), "Seccomp %s", v);
	CHECK(proc_field(st.pid, "CapEff", v, sizeof(v)) && !strcmp(v, "0000000000000000"),
	      "CapEff %s", v);
	CHECK(proc_field(st.pid, "Uid", v, sizeof(v)) &&
	      (geteuid() != 0 ? (unsigned)atoi(v) == geteuid() : atoi(v) != 0),
	      "Uid %s (the parent's %u)", v, (unsigned)geteuid());

	/* stopped: nothing is read, the socket fills, and sending still never waits */
	kill(st.pid, SIGSTOP);
	for (int i = 0; i < 40; i++) {
		struct gw_snapshot *s = snapshot(100 + (uint64_t)i, 1000);
		double t0 = gw_mono_now();

		gw_webchild_send(c, s);
		gw_webchild_poll(c, gw_mono_now());
		if (gw_mono_now() - t0 > worst)
			worst = gw_mono_now() - t0;
		gw_snapshot_put(s);
	}
	gw_webchild_stats(c, gw_mono_now(), &st);
	CHECK(st.dropped > 0 && worst < 0.25, "a stopped process: %llu of 40 frames dropped, the "
	      "slowest send %.1f ms", (unsigned long long)st.dropped, worst * 1e3);
	kill(st.pid, SIGCONT);
	CHECK(page_shows(c, port, 8, 5), "continued, it catches up");
	gw_webchild_stats(c, gw_mono_now(), &st);
	CHECK(st.pid == first && st.restarts == 0, "the same process (a poll SIGSTOP cut short "
	      "goes on after SIGCONT through restart_syscall, which the filter allows)");

	/* what the daemon does once started: as root it keeps CAP_NET_ADMIN and CAP_NET_RAW
	 * alone, so the restart below must come from the launcher, which can still make a web
	 * process nobody */
	if (geteuid() == 0) {
		/* then this process may no longer signal a nobody process: a helper forked
		 * before does the kill -9 */
		if (pipe(killer) == 0 && (killer_pid = fork()) == 0) {
			pid_t victim;

			close(killer[1]);
			if (read(killer[0], &victim, sizeof(victim)) == sizeof(victim))
				kill(victim, SIGKILL);
			_exit(0);
		}
		CHECK(gw_keep_net_caps(err, sizeof(err)) >= 0, "the parent gives up its other "
		      "capabilities (%s)", err);
	}
	{
		char *buf = malloc(1 << 16);

		CHECK(http_get(port, "/api/history?link=wan&direction=egress&class=c1", buf,
			       1 << 16) > 0 && strstr(buf, " 200 ") && strstr(buf, "\"points\":[["),
		      "/api/history: the web process's own points from the snapshots sent");
		free(buf);
	}
	/* kill -9: reaped, restarted after 0.1 s, serving again; the gap is counted */
	if (killer_pid > 0) {
		if (write(killer[1], &first, sizeof(first)) != sizeof(first))
			CHECK(0, "the kill -9 helper");
		waitpid(killer_pid, NULL, 0);
	} else {
		kill(first, SIGKILL);
	}
	for (int i = 0; i < 500 && (gw_webchild_stats(c, gw_mono_now(), &st), !st.restarts); i++) {
		const struct timespec ms = { 0, 1000 * 1000 };

		gw_webchild_poll(c, gw_mono_now());	/* the loop's passes, here every 1 ms */
		nanosleep(&ms, NULL);
	}
	CHECK(page_shows(c, port, 9, 5), "after kill -9 the page answers again");
	gw_webchild_stats(c, gw_mono_now(), &st);
	CHECK(st.up && st.restarts == 1 && st.pid != first, "restarted once (pid %d, was %d)",
	      (int)st.pid, (int)first);
	CHECK(st.down_s >= 0.09 && st.down_s < 1, "down for %.2f s (the back-off is 0.1 s)",
	      st.down_s);
	CHECK(proc_field(st.pid, "Uid", v, sizeof(v)) &&
	      (geteuid() != 0 ? (unsigned)atoi(v) == geteuid() : atoi(v) != 0),
	      "the restarted one: Uid %s", v);
	CHECK(proc_field(st.pid, "CapEff", v, sizeof(v)) && !strcmp(v, "0000000000000000") &&
	      proc_field(st.pid, "Seccomp", v, sizeof(v)) && !strcmp(v, "2"),
	      "the restarted one: no capabilities, the filter");
	first = st.pid;
	gw_webchild_stop(c);
	CHECK(kill(first, 0) < 0 && errno == ESRCH, "stop leaves no process (not even a zombie)");
	close(fd);
	free(ws);
	return tap_done();
}
