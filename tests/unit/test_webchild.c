/* tests/unit/test_webchild.c: the web process (webui/webchild.c) and its launcher. Before
 * it reads a byte it has a session of its own and no terminal, /dev/null for stdin and
 * stdout, a user of its own (gatewayd-web, else nobody; never root, never the daemon's) with
 * no capabilities, no_new_privs and the filter, and it cannot open the auth file, the TLS key
 * or the sink token (a hook in the process tries, as the test's seam); the thread answering
 * the first request sees the same; it serves the snapshots the parent sends on the socket the
 * parent bound, with the auth file the parent opened for it. A stopped process never holds up
 * the sender (frames are dropped and counted); a replaced one that does not go is killed by
 * the launcher a second later; one whose server cannot start exits and is started again with
 * the back-off; kill -9 is reaped and restarted, also after the parent has given up every
 * capability but CAP_NET_ADMIN and CAP_NET_RAW. Helper programs run through the launcher as
 * nobody with no capability and a minimal environment. Under a pseudo-terminal, TIOCSTI from
 * the web process kills it (SIGSYS) and types nothing. */
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "config/config.h"
#include "sys/clock.h"
#include "sys/helper.h"
#include "sys/privdrop.h"
#include "sys/secret.h"
#include "webui/webchild.h"
#include "tests/unit/tap.h"
#include "webui/webui.h"

/* base64 of "admin:s3cret" */
#define ADMIN_AUTH "Authorization: Basic YWRtaW46czNjcmV0\r\n"

static char dir[] = "/tmp/gw-webchild.XXXXXX";
static char auth_path[64], key_path[64], token_path[64];

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

static int http_get(int port, const char *path, const char *headers, char *buf, size_t cap)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { 2, 0 };
	char req[512];
	size_t len = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n%s\r\n", path, headers ? headers : "");
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
		ok = http_get(port, "/api/status", ADMIN_AUTH, buf, 1 << 16) > 0 &&
		     strstr(buf, want);
	}
	free(buf);
	return ok;
}

/* Poll c (the loop's passes, every 5 ms) until cond or timeout_s. */
#define POLL_UNTIL(c, cond, timeout_s)                                                     \
	do {                                                                                  \
		double until_ = gw_mono_now() + (timeout_s);                                  \
		const struct timespec ms5_ = { 0, 5 * 1000 * 1000 };                          \
		while (!(cond) && gw_mono_now() < until_) {                                   \
			gw_webchild_poll((c), gw_mono_now());                                 \
			nanosleep(&ms5_, NULL);                                               \
		}                                                                             \
	} while (0)

/*
 * After a kill -9: the death heard, the restart comes at the back-off and not before, and the
 * gap counted is exactly it. The handle's time is the caller's (the loop's `now`): here a
 * clock of the test's that stands still while the death is heard and then steps, so nothing is
 * judged on how long the machine took; real time only bounds the wait for the launcher.
 */
static void restart_case(struct gw_webchild *c, uint64_t restarts, double down)
{
	const struct timespec ms5 = { 0, 5 * 1000 * 1000 };
	double t = gw_mono_now(), bound = t + 3, at;
	struct gw_webchild_stats st;

	do {
		gw_webchild_poll(c, t);
		gw_webchild_stats(c, t, &st);
		if (st.up)
			nanosleep(&ms5, NULL);
	} while (st.up && gw_mono_now() < bound);
	at = gw_webchild_next_start(c);
	if (!CHECK(!st.up && at >= t + 0.1, "the death heard: the next start %.3f s on (at least "
		   "the 0.1 s back-off)", at - t))
		return;
	gw_webchild_poll(c, at - 0.001);
	gw_webchild_stats(c, at - 0.001, &st);
	CHECK(!st.up && st.restarts == restarts, "  not restarted before the back-off is over");
	gw_webchild_poll(c, at);
	gw_webchild_stats(c, at, &st);
	CHECK(st.up && st.restarts == restarts + 1, "  restarted when it is (%llu restarts)",
	      (unsigned long long)st.restarts);
	CHECK(st.down_s - down > at - t - 1e-6 && st.down_s - down < at - t + 1e-6,
	      "  down for %.3f s, the gap from the death to the restart (%.3f s)", st.down_s - down,
	      at - t);
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

/* ---- the hook: runs in the web process, under its filter (open, read, write, fstat) ---- */

static bool hook_tiocsti;

/* Field key of a /proc status text, as "key=value " into out. */
static void add_field(const char *text, const char *key, const char *as, char *out, size_t cap)
{
	const char *p = strstr(text, key);
	size_t n = strlen(out), kl = strlen(key);

	if (!p || n >= cap) {
		snprintf(out + n, cap - n, "%s=? ", as);
		return;
	}
	p += kl + strspn(p + kl, ":\t ");
	snprintf(out + n, cap - n, "%s=%.*s ", as, (int)strcspn(p, "\t\n"), p);
}

static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static const char *open_err(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return "opened";
	}
	return errno == EACCES ? "EACCES" : "other";
}

static void hook(enum gw_webproc_stage stage, int fd)
{
	static const char *const names[] = { "dropped", "serving", "request" };
	char st[4096], sp[1024], line[1024];
	struct stat s0, s1;
	int sid = 0, tty = -1;

	if (stage == GW_WEBPROC_SERVING && hook_tiocsti) {
		char c = 'w';

		/* stderr is the terminal gatewayd was started from (the log goes there) */
		if (write(fd, "tiocsti\n", 8) < 0)
			return;
		ioctl(2, TIOCSTI, &c);
		return;
	}
	slurp("/proc/thread-self/status", st, sizeof(st));
	snprintf(line, sizeof(line), "%s pid=%d ", names[stage], (int)getpid());
	add_field(st, "\nPid", "tid", line, sizeof(line));
	add_field(st, "\nUid", "uid", line, sizeof(line));
	add_field(st, "\nCapEff", "capeff", line, sizeof(line));
	add_field(st, "\nCapPrm", "capprm", line, sizeof(line));
	add_field(st, "\nCapAmb", "capamb", line, sizeof(line));
	add_field(st, "\nNoNewPrivs", "nnp", line, sizeof(line));
	add_field(st, "\nSeccomp:", "seccomp", line, sizeof(line));
	if (stage == GW_WEBPROC_DROPPED) {
		/* session (field 6) and terminal (7) after "(comm) " */
		if (slurp("/proc/self/stat", sp, sizeof(sp)) > 0 && strrchr(sp, ')'))
			sscanf(strrchr(sp, ')') + 2, "%*c %*d %*d %d %d", &sid, &tty);
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "session=%s tty=%d null01=%d auth=%s key=%s token=%s ",
			 sid == getpid() ? "own" : "other", tty,
			 !fstat(0, &s0) && !fstat(1, &s1) && S_ISCHR(s0.st_mode) &&
			 s0.st_rdev == makedev(1, 3) && s1.st_rdev == makedev(1, 3),
			 open_err(auth_path), open_err(key_path), open_err(token_path));
	}
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "\n");
	if (write(fd, line, strlen(line)) < 0)
		return;
}

/* The hook's lines so far (appended to acc, at most cap), waiting up to timeout_s for one
 * that starts with what and names pid (0: any). The line, or NULL. */
static const char *hook_line(int rfd, char *acc, size_t cap, const char *what, pid_t pid,
			     double timeout_s)
{
	double until = gw_mono_now() + timeout_s;
	char key[64];

	snprintf(key, sizeof(key), "%s pid=%d ", what, (int)pid);
	for (;;) {
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		size_t n = strlen(acc);
		const char *at = pid ? strstr(acc, key) : strstr(acc, what);
		ssize_t r;

		if (at)
			return at;
		if (gw_mono_now() >= until || poll(&p, 1, 20) < 0)
			return NULL;
		if (p.revents & POLLIN && (r = read(rfd, acc + n, cap - n - 1)) > 0)
			acc[n + (size_t)r] = '\0';
	}
}

/* "key=VALUE" of a hook line, as a string (its own buffer). */
static const char *val(const char *line, const char *key)
{
	static char out[16][64];
	static int i;
	char k[32];
	const char *p;

	i = (i + 1) % 16;
	snprintf(k, sizeof(k), " %s=", key);
	out[i][0] = '\0';
	if (line && (p = strstr(line, k)))
		snprintf(out[i], sizeof(out[i]), "%.*s", (int)strcspn(p + strlen(k), " \n"),
			 p + strlen(k));
	return out[i];
}

/* ---- the files the web process must not be able to open ---- */

static uid_t web_uid(void)
{
	const struct passwd *pw = getpwnam(GW_WEB_USER);

	if (!pw)
		pw = getpwnam("nobody");
	return pw ? pw->pw_uid : 65534;
}

static void secret_file(const char *path, const char *text)
{
	const struct group *g = getgrnam("gatewayd");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    (g && fchown(fd, 0, g->gr_gid) < 0) || fchmod(fd, 0640) < 0)
		CHECK(0, "writing %s", path);
	if (fd >= 0)
		close(fd);
}

static void make_files(void)
{
	struct crypt_data cd = { 0 };
	char users[512];

	mkdtemp(dir);
	chmod(dir, 0755);	/* the files' own modes decide, not the directory's */
	snprintf(auth_path, sizeof(auth_path), "%s/users", dir);
	snprintf(key_path, sizeof(key_path), "%s/tls.key", dir);
	snprintf(token_path, sizeof(token_path), "%s/sink.token", dir);
	snprintf(users, sizeof(users), "admin:%s\n", crypt_r("s3cret", "$6$webchildsalt$", &cd));
	secret_file(auth_path, users);
	secret_file(key_path, "-----BEGIN PRIVATE KEY-----\nnot one\n-----END PRIVATE KEY-----\n");
	secret_file(token_path, "a-sink-token-for-the-web-test\n");
}

static void remove_files(void)
{
	unlink(auth_path);
	unlink(key_path);
	unlink(token_path);
	rmdir(dir);
}

/* ---- TIOCSTI under a pseudo-terminal ---- */

/* In the terminal's session (its leader, the terminal its controlling one): the web
 * process's TIOCSTI must kill it and type nothing. Its TAP lines go to the terminal. */
static int tty_scenario(void)
{
	struct gw_wire_settings *ws = calloc(1, sizeof(*ws));
	struct gw_webui_listen l;
	struct gw_webchild *c = NULL;
	struct gw_webchild_stats st = { .last_status = -1 };
	struct termios t;
	char addr[32], err[512], got = 0;
	struct pollfd p = { .fd = 0, .events = POLLIN };
	int port = free_port(), fd = -1, pfd[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	tcgetattr(0, &t);
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	tcsetattr(0, TCSANOW, &t);
	/* the test can fail: here, TIOCSTI types into the terminal of the process that owns it */
	got = 'c';
	if (ioctl(0, TIOCSTI, &got) < 0 || poll(&p, 1, 1000) != 1 || read(0, &got, 1) != 1 ||
	    got != 'c') {
		printf("skip - TIOCSTI from the web process: this kernel does not let even the "
		       "terminal's own session use it (dev.tty.legacy_tiocsti = 0?)\n");
		return 0;
	}
	CHECK(1, "control: TIOCSTI typed into this terminal from the session that owns it");
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	l.text = addr;
	gw_parse_listen(addr, &l.addr, &l.len);
	if (gw_webui_bind(&l, &fd, err, sizeof(err)) || pipe2(pfd, O_CLOEXEC))
		return 1;
	ws->n_listen = 1;
	snprintf(ws->listen_text[0], sizeof(ws->listen_text[0]), "%s", addr);
	ws->listen_addr[0] = l.addr;
	ws->listen_len[0] = l.len;
	hook_tiocsti = true;
	gw_webproc_test = (struct gw_webproc_test){ hook, pfd[1] };
	if (!CHECK(gw_webchild_start(ws, &fd, 1, NULL, false, gw_mono_now(), &c, err,
				     sizeof(err)) == 0, "web process started under a terminal (%s)",
		   err))
		return 1;
	POLL_UNTIL(c, (gw_webchild_stats(c, gw_mono_now(), &st), st.last_status != -1), 5);
	CHECK(st.last_status != -1 && WIFSIGNALED(st.last_status) &&
	      WTERMSIG(st.last_status) == SIGSYS,
	      "the web process's TIOCSTI on its stderr (this terminal) killed it: SIGSYS (status "
	      "%#x)", st.last_status);
	CHECK(poll(&p, 1, 300) == 0, "and typed nothing into this terminal");
	gw_webchild_stop(c);
	close(fd);
	free(ws);
	return tap_done();
}

static void tty_case(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), st = 0;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	if (master < 0 || grantpt(master) || unlockpt(master)) {
		printf("skip - TIOCSTI from the web process: no pseudo-terminal here\n");
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int slave;

		setsid();
		if ((slave = open(ptsname(master), O_RDWR)) < 0)	/* its controlling one */
			_exit(90);
		close(master);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		_exit(tty_scenario());
	}
	/* what the terminal shows, to our stdout (tests/run counts its lines) */
	while ((n = read(master, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != '\r')
				putchar(buf[i]);
	waitpid(pid, &st, 0);
	close(master);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the terminal's session ended well (%#x)", st);
}

/* ---- helpers through the launcher ---- */

/* Run argv as a helper, its whole output into out. */
static int run_helper(const char *const *argv, char *out, size_t cap, char *err, size_t errlen)
{
	int p[2], r;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	r = gw_helper_start(argv, p[1], &pid, err, errlen);
	close(p[1]);
	while (!r && len + 1 < cap && (n = read(p[0], out + len, cap - len - 1)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	gw_helper_stop(pid);
	return r;
}

static bool helper_is_bare(const char *out)
{
	const char *const want[] = { "\nUid:\t65534\t65534\t65534\t65534\n",
				     "\nCapPrm:\t0000000000000000\n", "\nCapEff:\t0000000000000000\n",
				     "\nCapAmb:\t0000000000000000\n", "\nNoNewPrivs:\t1\n" };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(out, want[i]))
			return false;
	return true;
}

static void helpers(const char *how)
{
	static const char *const argv[] = { "/bin/cat", "/proc/self/status", NULL };
	static const char *const env[] = { "/usr/bin/env", NULL };
	static const char *const sleeper[] = { "/bin/sleep", "30", NULL };
	char out[8192], err[256] = "";
	double t0;
	int p[2];
	pid_t pid = -1;

	CHECK(run_helper(argv, out, sizeof(out), err, sizeof(err)) == 0 && helper_is_bare(out),
	      "%s: a helper runs as nobody, CapPrm/CapEff/CapAmb 0, NoNewPrivs 1 (%s)", how, err);
	CHECK(run_helper(env, out, sizeof(out), err, sizeof(err)) == 0 &&
	      !strcmp(out, "PATH=/usr/bin:/bin\nLC_ALL=C\n"),
	      "%s: its environment is PATH and LC_ALL alone (%s)", how, out);
	if (pipe2(p, O_CLOEXEC))
		return;
	CHECK(gw_helper_start(sleeper, p[1], &pid, err, sizeof(err)) == 0 && pid > 0,
	      "%s: a helper that runs on started (%s)", how, err);
	close(p[1]);
	t0 = gw_mono_now();
	gw_helper_stop(pid);
	{
		char b;
		struct pollfd pf = { .fd = p[0], .events = POLLIN };

		/* its stdout closes when it is gone */
		CHECK(poll(&pf, 1, 2000) == 1 && read(p[0], &b, 1) == 0,
		      "%s: stopped: gone in %.0f ms", how, (gw_mono_now() - t0) * 1e3);
	}
	close(p[0]);
	{
		static const char *const rel[] = { "sh", "-c", "true", NULL };

		CHECK(gw_helper_start(rel, 1, &pid, err, sizeof(err)) == -EINVAL,
		      "%s: a program not named by an absolute path is refused (%s)", how, err);
	}
}

/* ---- the web process ---- */

/* The hook's dropped-stage line for pid: everything given up, the files out of reach. */
static void dropped_checks(const char *line, const char *which)
{
	char want_uid[16];

	snprintf(want_uid, sizeof(want_uid), "%u", (unsigned)web_uid());
	CHECK(line && !strcmp(val(line, "uid"), want_uid) && atoi(val(line, "uid")) != 0 &&
	      (uid_t)atoi(val(line, "uid")) != getuid(),
	      "%s: before it reads a byte, uid %s (gatewayd-web, else nobody; not root, not the "
	      "daemon's %u)", which, val(line, "uid"), (unsigned)getuid());
	CHECK(line && !strcmp(val(line, "capeff"), "0000000000000000") &&
	      !strcmp(val(line, "capprm"), "0000000000000000") &&
	      !strcmp(val(line, "capamb"), "0000000000000000") && !strcmp(val(line, "nnp"), "1") &&
	      !strcmp(val(line, "seccomp"), "2"),
	      "%s: no capabilities (CapEff %s), no_new_privs, Seccomp %s", which,
	      val(line, "capeff"), val(line, "seccomp"));
	CHECK(line && !strcmp(val(line, "session"), "own") && !strcmp(val(line, "tty"), "0") &&
	      !strcmp(val(line, "null01"), "1"),
	      "%s: a session of its own, no terminal, stdin and stdout /dev/null", which);
	CHECK(line && !strcmp(val(line, "auth"), "EACCES") && !strcmp(val(line, "key"), "EACCES") &&
	      !strcmp(val(line, "token"), "EACCES"),
	      "%s: cannot open the auth file (%s), the TLS key (%s), the sink token (%s)", which,
	      val(line, "auth"), val(line, "key"), val(line, "token"));
}

static void request_checks(const char *line, const char *which)
{
	CHECK(line && strcmp(val(line, "tid"), val(line, "pid")) &&
	      atoi(val(line, "uid")) != 0 && (uid_t)atoi(val(line, "uid")) != getuid() &&
	      !strcmp(val(line, "capeff"), "0000000000000000") && !strcmp(val(line, "seccomp"), "2"),
	      "%s: the first request's handler (thread %s of %s): uid %s, CapEff %s, Seccomp %s",
	      which, val(line, "tid"), val(line, "pid"), val(line, "uid"), val(line, "capeff"),
	      val(line, "seccomp"));
}

/* A web process the parent cannot trust to go: stopped, then replaced. The launcher kills it
 * a second later; the new one serves the new address. Before the parent gives up CAP_KILL. */
static void replace_case(struct gw_webchild *c, struct gw_wire_settings *ws, int *fd,
			 int *port, const int *files)
{
	struct gw_webui_listen l;
	struct gw_webchild_stats st;
	char addr[32], err[256];
	int nport = free_port(), nfd = -1;
	pid_t old;
	double t0, gone = -1;
	uint64_t restarts;

	gw_webchild_stats(c, gw_mono_now(), &st);
	old = st.pid;
	restarts = st.restarts;
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", nport);
	l.text = addr;
	gw_parse_listen(addr, &l.addr, &l.len);
	if (!CHECK(gw_webui_bind(&l, &nfd, err, sizeof(err)) == 0, "a new address %s", addr))
		return;
	snprintf(ws->listen_text[0], sizeof(ws->listen_text[0]), "%s", addr);
	ws->listen_addr[0] = l.addr;
	ws->listen_len[0] = l.len;
	kill(old, SIGSTOP);	/* it can no longer read the end of its stream */
	t0 = gw_mono_now();
	gw_webchild_replace(c, ws, &nfd, 1, files, t0);
	close(*fd);
	*fd = nfd;
	*port = nport;
	POLL_UNTIL(c, (gone = kill(old, 0) < 0 ? gw_mono_now() - t0 : -1) >= 0, 3);
	/* killed by the launcher when its second is over (tests/netns/test_web_reload.sh sees
	 * the same in the daemon); here only that it is, within the wait's bound */
	CHECK(gone >= 0, "a replaced process that does not go is killed by the launcher "
	      "(%.2f s after)", gone);
	CHECK(page_shows(c, nport, 11, 5), "the new process serves the new address");
	gw_webchild_stats(c, gw_mono_now(), &st);
	CHECK(st.pid != old && st.restarts == restarts, "  a new process (%d, was %d), not counted "
	      "as a restart (%llu)", (int)st.pid, (int)old, (unsigned long long)st.restarts);
}

/* A process whose server cannot start (its socket cannot listen) exits, and another is
 * started after the back-off, again and again; then the good socket back. */
static void failing_case(struct gw_webchild *c, struct gw_wire_settings *ws, int fd, int port,
			 const int *files)
{
	struct gw_webchild_stats st;
	int bad = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	pid_t first;
	uint64_t restarts;

	gw_webchild_stats(c, gw_mono_now(), &st);
	restarts = st.restarts;
	gw_webchild_replace(c, ws, &bad, 1, files, gw_mono_now());
	POLL_UNTIL(c, (gw_webchild_stats(c, gw_mono_now(), &st), st.restarts >= restarts + 2), 3);
	first = st.pid;
	CHECK(st.restarts >= restarts + 2 && st.last_status != -1 &&
	      WIFEXITED(st.last_status) && WEXITSTATUS(st.last_status) == 3,
	      "a process whose server cannot start exits (status %d) and is started again after "
	      "the back-off (%llu times in 0.3 s)", WIFEXITED(st.last_status) ?
	      WEXITSTATUS(st.last_status) : -1, (unsigned long long)(st.restarts - restarts));
	(void)first;
	gw_webchild_replace(c, ws, &fd, 1, files, gw_mono_now());
	CHECK(page_shows(c, port, 12, 5), "given a socket it can serve, the page is back");
	close(bad);
}

int main(void)
{
	struct gw_wire_settings *ws = calloc(1, sizeof(*ws));
	struct gw_webui_listen l;
	struct gw_webchild *c = NULL;
	struct gw_webchild_stats st;
	struct gw_secret auth;
	char addr[32], err[512] = "", v[128], acc[16384] = "", *buf = malloc(1 << 16);
	int port = free_port(), fd = -1, files[GW_WEBPROC_FILES] = { -1, -1, -1 }, hp[2];
	pid_t first, killer_pid = -1;
	int killer[2] = { -1, -1 };

	alarm(120);
	tty_case();
	make_files();
	if (geteuid() == 0) {
		/* the uid the web process takes, refused when it is the daemon's */
		pid_t pid = fork();
		int s = 0;

		if (pid == 0) {
			const char *const users[] = { GW_WEB_USER, "nobody", NULL };
			const uid_t avoid[] = { web_uid() };
			char e[256] = "";
			int r = gw_drop_to_user(users, avoid, 1, e, sizeof(e));

			_exit(r == -EPERM && strstr(e, "the daemon's own") && getuid() == 0 ? 0 : 1);
		}
		waitpid(pid, &s, 0);
		CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 0, "a web user that is the daemon's uid is "
		      "refused, not taken (status %#x)", s);
		helpers("no launcher (root)");
		/* uid 0 that kept CAP_NET_ADMIN alone (a daemon without its user): it can neither
		 * make a helper nobody nor let it run as itself */
		if ((pid = fork()) == 0) {
			static const char *const argv[] = { "/bin/true", NULL };
			struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2] = { { 1u << CAP_NET_ADMIN,
								  1u << CAP_NET_ADMIN, 0 } };
			char e[256] = "";
			pid_t hp = -1;

			if (syscall(SYS_capset, &h, d) < 0)
				_exit(2);
			_exit(gw_helper_start(argv, 1, &hp, e, sizeof(e)) == -EPERM && hp < 0 &&
			      strstr(e, "cannot be made nobody") ? 0 : 1);
		}
		waitpid(pid, &s, 0);
		CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 0, "no launcher, uid 0 without CAP_SETUID: a "
		      "helper is refused, not run as root (status %#x)", s);
	}
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
	/* the auth file as the daemon hands it over: opened here, the process reads the fd */
	snprintf(ws->auth_file, sizeof(ws->auth_file), "%s", auth_path);
	if (!CHECK(gw_secret_open(auth_path, "auth_file", 65536, 0, &auth, err, sizeof(err)) == 0,
		   "the parent opens the auth file (%s)", err))
		return tap_done();
	files[0] = auth.fd;
	if (pipe2(hp, O_CLOEXEC | O_NONBLOCK))
		return tap_done();
	gw_webproc_test = (struct gw_webproc_test){ hook, hp[1] };
	if (!CHECK(gw_webchild_start(ws, &fd, 1, files, false, gw_mono_now(), &c, err,
				     sizeof(err)) == 0, "web process started (%s)", err))
		return tap_done();
	CHECK(page_shows(c, port, 7, 5), "the page shows the snapshot sent over the socket");
	gw_webchild_stats(c, gw_mono_now(), &st);
	first = st.pid;
	CHECK(st.up && st.pid > 0 && st.restarts == 0, "one process, up");
	if (geteuid() == 0) {
		dropped_checks(hook_line(hp[0], acc, sizeof(acc), "dropped", st.pid, 2),
			       "the web process");
		request_checks(hook_line(hp[0], acc, sizeof(acc), "request", st.pid, 2),
			       "the web process");
	}
	CHECK(http_get(port, "/api/status", NULL, buf, 1 << 16) > 0 && strstr(buf, " 401 ") &&
	      http_get(port, "/api/status", ADMIN_AUTH, buf, 1 << 16) > 0 && strstr(buf, " 200 "),
	      "the auth file it cannot open is served from the parent's fd: 401 without a login, "
	      "200 with it");
	CHECK(proc_field(st.pid, "NoNewPrivs", v, sizeof(v)) && !strcmp(v, "1"), "NoNewPrivs %s", v);
	CHECK(proc_field(st.pid, "Seccomp", v, sizeof(v)) && !strcmp(v, "2"), "Seccomp %s", v);
	CHECK(proc_field(st.pid, "CapEff", v, sizeof(v)) && !strcmp(v, "0000000000000000"),
	      "CapEff %s", v);
	CHECK(proc_field(st.pid, "Uid", v, sizeof(v)) &&
	      (geteuid() != 0 ? (unsigned)atoi(v) == geteuid() : atoi(v) != 0),
	      "Uid %s (the parent's %u)", v, (unsigned)geteuid());
	if (geteuid() == 0) {
		char path[64], fd0[64] = "", fd1[64] = "", stat[512] = "";
		int sid = 0, tty = -1;

		helpers("through the launcher");
		/* the launcher, as the web process: a session of its own, nothing to type into */
		snprintf(path, sizeof(path), "/proc/%d/fd/0", (int)st.launcher);
		(void)!readlink(path, fd0, sizeof(fd0) - 1);
		snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)st.launcher);
		(void)!readlink(path, fd1, sizeof(fd1) - 1);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)st.launcher);
		if (slurp(path, stat, sizeof(stat)) > 0 && strrchr(stat, ')'))
			sscanf(strrchr(stat, ')') + 2, "%*c %*d %*d %d %d", &sid, &tty);
		CHECK(st.launcher > 0 && sid == st.launcher && tty == 0 &&
		      !strcmp(fd0, "/dev/null") && !strcmp(fd1, "/dev/null"),
		      "the launcher: a session of its own (%d), no terminal (%d), stdin %s, stdout %s",
		      sid, tty, fd0, fd1);
		CHECK(proc_field(st.launcher, "CapEff", v, sizeof(v)) && !strcmp(v, "00000000000000e0") &&
		      proc_field(st.launcher, "CapAmb", v, sizeof(v)) && !strcmp(v, "0000000000000000"),
		      "the launcher: CAP_SETUID, CAP_SETGID and CAP_KILL alone, none ambient");
	}

	/* stopped: nothing is read, the socket fills, and sending still never waits */
	kill(st.pid, SIGSTOP);
	/* a send that waited would wait for good (nobody reads): SIGALRM's default ends the
	 * test then, which the runner counts as a failure */
	alarm(30);
	for (int i = 0; i < 40; i++) {
		struct gw_snapshot *s = snapshot(100 + (uint64_t)i, 1000);

		gw_webchild_send(c, s);
		gw_webchild_poll(c, gw_mono_now());
		gw_snapshot_put(s);
	}
	alarm(0);
	gw_webchild_stats(c, gw_mono_now(), &st);
	{
		struct pollfd out = { .fd = gw_webchild_fd(c), .events = POLLOUT };

		CHECK(st.dropped > 0 && poll(&out, 1, 0) == 0 && gw_webchild_pending(c),
		      "a stopped process: its socket full, a frame pending, %llu of 40 frames "
		      "dropped, and every send returned", (unsigned long long)st.dropped);
	}
	kill(st.pid, SIGCONT);
	CHECK(page_shows(c, port, 8, 5), "continued, it catches up");
	gw_webchild_stats(c, gw_mono_now(), &st);
	CHECK(st.pid == first && st.restarts == 0, "the same process (a poll SIGSTOP cut short "
	      "goes on after SIGCONT through restart_syscall, which the filter allows)");
	if (geteuid() == 0) {
		replace_case(c, ws, &fd, &port, files);
		failing_case(c, ws, fd, port, files);
	}
	gw_webchild_stats(c, gw_mono_now(), &st);
	first = st.pid;
	memset(acc, 0, sizeof(acc));

	/* what the daemon does once started: as root it keeps CAP_NET_ADMIN and CAP_NET_RAW
	 * alone, so the restart below must come from the launcher, which can still give a web
	 * process a user of its own */
	if (geteuid() == 0) {
		/* then this process may no longer signal the web process: a helper forked
		 * before does the kill -9 */
		if (pipe(killer) == 0 && (killer_pid = fork()) == 0) {
			pid_t victim;

			close(killer[1]);
			if (read(killer[0], &victim, sizeof(victim)) == sizeof(victim))
				kill(victim, SIGKILL);
			_exit(0);
		}
		CHECK(gw_become_daemon_user(NULL, err, sizeof(err)) >= 0, "the parent gives up its other "
		      "capabilities (%s)", err);
	}
	CHECK(http_get(port, "/api/history?link=wan&direction=egress&class=c1", ADMIN_AUTH, buf,
		       1 << 16) > 0 && strstr(buf, " 200 ") && strstr(buf, "\"points\":[["),
	      "/api/history: the web process's own points from the snapshots sent");
	/* kill -9: reaped, restarted after 0.1 s, serving again; the gap is counted */
	gw_webchild_stats(c, gw_mono_now(), &st);
	{
		uint64_t restarts = st.restarts;
		double down = st.down_s;

		if (killer_pid > 0) {
			if (write(killer[1], &first, sizeof(first)) != sizeof(first))
				CHECK(0, "the kill -9 helper");
			waitpid(killer_pid, NULL, 0);
		} else {
			kill(first, SIGKILL);
		}
		restart_case(c, restarts, down);
		CHECK(page_shows(c, port, 9, 5), "after kill -9 the page answers again");
		gw_webchild_stats(c, gw_mono_now(), &st);
		CHECK(st.up && st.restarts == restarts + 1 && st.pid != first,
		      "restarted once (pid %d, was %d)", (int)st.pid, (int)first);
	}
	if (geteuid() == 0) {
		dropped_checks(hook_line(hp[0], acc, sizeof(acc), "dropped", st.pid, 2),
			       "after kill -9, the new one");
		request_checks(hook_line(hp[0], acc, sizeof(acc), "request", st.pid, 2),
			       "after kill -9, the new one");
	}
	CHECK(proc_field(st.pid, "Uid", v, sizeof(v)) &&
	      (geteuid() != 0 ? (unsigned)atoi(v) == geteuid() : atoi(v) != 0),
	      "the restarted one: Uid %s", v);
	CHECK(proc_field(st.pid, "CapEff", v, sizeof(v)) && !strcmp(v, "0000000000000000") &&
	      proc_field(st.pid, "Seccomp", v, sizeof(v)) && !strcmp(v, "2"),
	      "the restarted one: no capabilities, the filter");
	first = st.pid;
	{
		pid_t launcher = st.launcher;

		gw_webchild_stop(c);
		CHECK(kill(first, 0) < 0 && errno == ESRCH && kill(launcher, 0) < 0,
		      "stop leaves no process (not even a zombie)");
	}
	close(fd);
	gw_secret_close(&auth);
	remove_files();
	free(buf);
	free(ws);
	return tap_done();
}
