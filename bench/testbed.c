/* bench/testbed.c: the comparison's testbed: four fresh network namespaces joined by
 * veth (client - gateway - delay box - server), processes started inside them, and removing
 * all of it again, whatever happened.
 *
 *   client c0 10.77.1.2 -- g0 10.77.1.1 gateway g1 10.77.2.1 -- d0 10.77.2.2 delay d1 10.77.3.1
 *   -- s0 10.77.3.2 server
 *
 * The gateway forwards, and gatewayd shapes its g1: egress (upload) and, through an ifb,
 * ingress (download). The delay box forwards too, with netem (half the RTT) on both of its
 * sides, past the gateway, so the bottleneck queue is the gateway's. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench/options.h"
#include "bench/run.h"
#include "bench/testbed.h"
#include "sys/fd.h"

static const char *const ns_role[4] = { "c", "g", "d", "s" };

#define MAX_CHILDREN 64
static pid_t children[MAX_CHILDREN];

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child_add(pid_t p)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (!children[i]) {
			children[i] = p;
			return;
		}
}

static void child_del(pid_t p)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == p)
			children[i] = 0;
}

pid_t bench_spawn(const struct bench_bed *b, int ns, char *const argv[], const char *outfile)
{
	pid_t parent = getpid(), p;
	sigset_t none;

	fflush(stdout);
	fflush(stderr);
	p = fork();
	if (p < 0)
		return -errno;
	if (p > 0) {
		child_add(p);
		return p;
	}
	/* the child: dies with us, has our blocked signals back, lives in ns */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	setpgid(0, 0);	/* Ctrl-C is ours to handle: the children are stopped in order */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (ns >= 0 && setns(b->fd[ns], CLONE_NEWNET) < 0)
		_exit(126);
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	fd = open(outfile ? outfile : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	execvp(argv[0], argv);
	_exit(127);
}

int bench_reap(pid_t pid, double timeout_s)
{
	double end = bench_now() + timeout_s;
	int status, sig = 0;

	if (pid <= 0)
		return -EINVAL;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			child_del(pid);
			if (sig)
				return -ETIMEDOUT;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		if (r < 0 && errno != EINTR) {
			child_del(pid);
			return -errno;
		}
		if (bench_now() > end) {
			sig = sig ? SIGKILL : SIGTERM;
			kill(pid, sig);
			end = bench_now() + 1.0;
		}
		usleep(10000);
	}
}

void bench_kill_all(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i])
			kill(children[i], SIGTERM);
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i])
			bench_reap(children[i], 2.0);
}

int bench_enter(const struct bench_bed *b, int ns)
{
	return setns(ns < 0 ? b->home : b->fd[ns], CLONE_NEWNET) < 0 ? -errno : 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* Run a command and wait for it (bounded). 0 or an error with its output in err. */
static int run_cmd(struct bench_bed *b, int ns, char *const argv[], double tmo, char *err,
		   size_t errlen)
{
	char out[512];
	pid_t p;
	int r;

	snprintf(out, sizeof(out), "%s/cmd.out", b->tmp);
	if ((p = bench_spawn(b, ns, argv, out)) < 0)
		return (int)p;
	r = bench_reap(p, tmo);
	if (r) {
		char buf[300] = "";
		FILE *f = fopen(out, "re");

		if (f) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);

			buf[n] = 0;
			fclose(f);
		}
		for (char *c = buf; *c; c++)
			if (*c == '\n')
				*c = ' ';
		snprintf(err, errlen, "`%s %s %s` failed (%d): %s", argv[0], argv[1],
			 argv[2] ? argv[2] : "", r, buf);
		return r < 0 ? r : -EIO;
	}
	return 0;
}

/* `ip [-n NS] -b FILE` with the given lines. */
static int ip_batch(struct bench_bed *b, const char *ns, const char *lines, char *err,
		    size_t errlen)
{
	char file[512];
	int r;

	snprintf(file, sizeof(file), "%s/ip.batch", b->tmp);
	if ((r = write_file(file, lines)))
		return r;
	if (ns) {
		char *argv[] = { "ip", "-n", (char *)ns, "-b", file, NULL };

		return run_cmd(b, -1, argv, 20, err, errlen);
	}
	char *argv[] = { "ip", "-b", file, NULL };

	return run_cmd(b, -1, argv, 20, err, errlen);
}

int bench_bed_batch(struct bench_bed *b, int ns, const char *tool, const char *lines, char *err,
		    size_t errlen)
{
	char file[512];
	char *argv[] = { (char *)tool, "-n", b->ns[ns], "-b", file, NULL };
	int r;

	snprintf(file, sizeof(file), "%s/%s.batch", b->tmp, tool);
	if ((r = write_file(file, lines)))
		return r;
	return run_cmd(b, -1, argv, 20, err, errlen);
}

/* Per-namespace sysctls: written from inside the namespace, /proc/sys/net is its own. */
static int ns_sysctl(struct bench_bed *b, int ns, const char *key, const char *val)
{
	char path[256];
	int r;

	if ((r = bench_enter(b, ns)))
		return r;
	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	r = write_file(path, val);
	bench_enter(b, -1);
	return r;
}

/* The four namespaces and their veths, the namespaces' fds open. Names first, so cleanup
 * knows them even if the batch fails half way. */
static int bed_make(struct bench_bed *b, char *err, size_t errlen)
{
	char buf[2048], path[512];
	int r;

	for (int i = 0; i < 4; i++)
		b->made[i] = true;
	snprintf(buf, sizeof(buf),
		 "netns add %s\nnetns add %s\nnetns add %s\nnetns add %s\n"
		 "link add c0 netns %s type veth peer name g0 netns %s\n"
		 "link add g1 netns %s type veth peer name d0 netns %s\n"
		 "link add d1 netns %s type veth peer name s0 netns %s\n",
		 b->ns[0], b->ns[1], b->ns[2], b->ns[3], b->ns[0], b->ns[1], b->ns[1], b->ns[2],
		 b->ns[2], b->ns[3]);
	if ((r = ip_batch(b, NULL, buf, err, errlen)))
		return r;
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/run/netns/%s", b->ns[i]);
		if ((b->fd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Each namespace's addresses and routes, IPv4's and (v6) IPv6's */
static int bed_address(struct bench_bed *b, bool v6, char *err, size_t errlen)
{
	static const char *const cfg[4] = {
		"link set lo up\naddr add 10.77.1.2/24 dev c0\nlink set c0 up\n"
		"route add default via 10.77.1.1\n",
		"link set lo up\naddr add 10.77.1.1/24 dev g0\naddr add 10.77.2.1/24 dev g1\n"
		"link set g0 up\nlink set g1 up\nroute add default via 10.77.2.2\n",
		"link set lo up\naddr add 10.77.2.2/24 dev d0\naddr add 10.77.3.1/24 dev d1\n"
		"link set d0 up\nlink set d1 up\nroute add 10.77.1.0/24 via 10.77.2.1\n",
		"link set lo up\naddr add 10.77.3.2/24 dev s0\nlink set s0 up\n"
		"route add default via 10.77.3.1\n",
	};
	/* --family 6: the same path in IPv6 too, addresses without duplicate detection (usable at
	 * once), so the load, the probes and the flood can go over it */
	static const char *const cfg6[4] = {
		"addr add fd77:1::2/64 dev c0 nodad\nroute add default via fd77:1::1\n",
		"addr add fd77:1::1/64 dev g0 nodad\naddr add fd77:2::1/64 dev g1 nodad\n"
		"route add default via fd77:2::2\n",
		"addr add fd77:2::2/64 dev d0 nodad\naddr add fd77:3::1/64 dev d1 nodad\n"
		"route add fd77:1::/64 via fd77:2::1\n",
		"addr add fd77:3::2/64 dev s0 nodad\nroute add default via fd77:3::1\n",
	};
	int r;

	/* (the routers forward before their addresses come: turning forwarding on later
	 * resets their interfaces' IPv6 state) */
	if (v6 &&
	    ((r = ns_sysctl(b, BENCH_NS_GW, "net/ipv6/conf/all/forwarding", "1")) ||
	     (r = ns_sysctl(b, BENCH_NS_DELAY, "net/ipv6/conf/all/forwarding", "1")))) {
		snprintf(err, errlen, "enabling IPv6 forwarding: %s", strerror(-r));
		return r;
	}
	for (int i = 0; i < 4; i++)
		if ((r = ip_batch(b, b->ns[i], cfg[i], err, errlen)) ||
		    (v6 && (r = ip_batch(b, b->ns[i], cfg6[i], err, errlen))))
			return r;
	if (v6) {
		/* every hop's neighbour entry made before a run: a probe that waits for neighbour
		 * discovery would count as a second of idle latency (ARP is quick enough for
		 * the runs' own half second of warm-up; discovery is not) */
		char *argv[] = { "ping", "-6", "-q", "-c", "1", "-w", "5", BENCH_IP6_SERVER, NULL };

		if ((r = run_cmd(b, BENCH_NS_CLIENT, argv, 8, err, errlen)))
			return r;
	}
	return 0;
}

/* The routers forward; the ends mark ECN and carry no ssthresh from run to run; the delay
 * box adds half the RTT each way (netem, where the kernel has it) */
static int bed_tune(struct bench_bed *b, const struct bench_opts *o, char *err, size_t errlen)
{
	char buf[256], path[512];
	int r;

	if ((r = ns_sysctl(b, BENCH_NS_GW, "net/ipv4/ip_forward", "1")) ||
	    (r = ns_sysctl(b, BENCH_NS_DELAY, "net/ipv4/ip_forward", "1"))) {
		snprintf(err, errlen, "enabling forwarding: %s", strerror(-r));
		return r;
	}
	/* ECN on both ends, so fq_codel and cake mark rather than drop; no cached ssthresh
	 * carried from one qdisc's run into the next */
	for (int i = 0; i < 4; i += 3) {
		ns_sysctl(b, i, "net/ipv4/tcp_ecn", "1");
		ns_sysctl(b, i, "net/ipv4/tcp_no_metrics_save", "1");
	}
	if (o->no_delay)
		return 0;
	char d[32], *argv[] = { "tc", "-n", b->ns[BENCH_NS_DELAY], "-b", path, NULL };

	snprintf(d, sizeof(d), "%.3fms", o->rtt_us / 2000.0);
	snprintf(buf, sizeof(buf),
		 "qdisc add dev d0 root netem delay %s limit 100000\n"
		 "qdisc add dev d1 root netem delay %s limit 100000\n", d, d);
	snprintf(path, sizeof(path), "%s/tc.batch", b->tmp);
	if ((r = write_file(path, buf)) || (r = run_cmd(b, -1, argv, 20, err, errlen)))
		return r;
	return 0;
}

int bench_bed_up(struct bench_bed *b, const struct bench_opts *o, char *err, size_t errlen)
{
	int r;

	for (int i = 0; i < 4; i++) {
		snprintf(b->ns[i], sizeof(b->ns[i]), "gwcmp%d-%s", (int)getpid(), ns_role[i]);
		b->fd[i] = -1;
		b->made[i] = false;
	}
	snprintf(b->tmp, sizeof(b->tmp), "/tmp/gwcmp.XXXXXX");
	if (!mkdtemp(b->tmp)) {
		b->tmp[0] = 0;
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		return -errno;
	}
	if ((b->home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/proc/self/ns/net: %s", strerror(errno));
		return -errno;
	}
	b->family = o->family == 6 ? AF_INET6 : AF_INET;
	b->dual = o->family == 46;
	if ((r = bed_make(b, err, errlen)) ||
	    (r = bed_address(b, b->family == AF_INET6 || b->dual, err, errlen)) ||
	    (r = bed_tune(b, o, err, errlen)))
		return r;
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p) < 0 ? 0 : 0;
}

void bench_bed_down(struct bench_bed *b)
{
	char buf[512] = "", err[256];
	size_t len = 0;

	bench_kill_all();
	if (b->home >= 0)
		bench_enter(b, -1);
	for (int i = 0; i < 4; i++) {
		gw_fd_close(&b->fd[i]);
		if (b->made[i] && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "netns del %s\n",
						b->ns[i]);
	}
	/* -force: a name that was never made is not a reason to keep the others */
	if (len && b->tmp[0]) {
		char file[512];

		snprintf(file, sizeof(file), "%s/ip.batch", b->tmp);
		if (!write_file(file, buf)) {
			char *argv[] = { "ip", "-force", "-b", file, NULL };

			run_cmd(b, -1, argv, 20, err, sizeof(err));
		}
	}
	for (int i = 0; i < 4; i++)
		b->made[i] = false;
	gw_fd_close(&b->home);
	if (b->tmp[0] && !getenv("GATEWAYD_COMPARE_KEEP"))
		nftw(b->tmp, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	b->tmp[0] = 0;
}

const char *bench_server_ip(const struct bench_bed *b)
{
	return b->family == AF_INET6 ? BENCH_IP6_SERVER : BENCH_IP_SERVER;
}

socklen_t bench_server_addr(const struct bench_bed *b, int port, struct sockaddr_storage *ss)
{
	return bench_server_addr_in(b->family, port, ss);
}

socklen_t bench_server_addr_in(int family, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, BENCH_IP6_SERVER, &s6->sin6_addr);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, BENCH_IP_SERVER, &s4->sin_addr);
	return sizeof(*s4);
}

/* The reflector (testbed.h): the scenario's gateway probes and the comparison's UDP probes. */
int bench_start_reflector(struct bench_bed *b, const struct bench_opts *o, char *err, size_t errlen)
{
	char log[512], addr[32], *argv[] = { (char *)o->gatewayd, "--reflect", addr, NULL };
	pid_t p;

	/* "[::]" answers IPv4 as well */
	snprintf(addr, sizeof(addr), b->family == AF_INET6 || b->dual ? "[::]:%d" : "0.0.0.0:%d",
		 BENCH_REFLECT_PORT);
	snprintf(log, sizeof(log), "%s/reflect.log", b->tmp);
	if ((p = bench_spawn(b, BENCH_NS_SERVER, argv, log)) < 0) {
		snprintf(err, errlen, "cannot start the reflector: %s", strerror((int)-p));
		return (int)p;
	}
	for (double end = bench_now() + 10; bench_now() < end; usleep(20000)) {
		char line[256];
		bool up = false;
		FILE *f = fopen(log, "re");

		while (f && fgets(line, sizeof(line), f))
			up |= strstr(line, "answering probes") != NULL;
		if (f)
			fclose(f);
		if (up)
			return 0;
		if (waitpid(p, NULL, WNOHANG) == p)
			break;
	}
	snprintf(err, errlen, "the reflector in the server did not start (see %.200s)", log);
	return -EIO;
}
