/* bench/testbed.h: the four-namespace testbed (testbed.c): the namespaces and their addresses,
 * programs run inside them and reaped, the server's reflector. */
#ifndef GW_BENCH_TESTBED_H
#define GW_BENCH_TESTBED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The four namespaces and their addresses. */
struct bench_bed {
	char ns[4][32];			/* client, gateway, delay, server */
	bool made[4];
	int fd[4];			/* open netns fds, -1 when not */
	int home;			/* the netns we started in */
	int family;			/* AF_INET, or AF_INET6 (--family 6): the load's, the
					 * probes' and the flood's addresses */
	bool dual;			/* --family 46: both paths, the TCP flows half over each
					 * (family AF_INET: the flood, the ICMP probes), the VoIP
					 * stream over IPv6 */
	char tmp[256];			/* scratch dir: configs, logs */
};
enum { BENCH_NS_CLIENT, BENCH_NS_GW, BENCH_NS_DELAY, BENCH_NS_SERVER };

#define BENCH_IP_CLIENT "10.77.1.2"
#define BENCH_IP_SERVER "10.77.3.2"
#define BENCH_IP6_SERVER "fd77:3::2"	/* --family 6 (a ULA of the bench's own) */
/* The server's address in the bed's family, as text, or with port as a sockaddr (its length
 * returned). */
const char *bench_server_ip(const struct bench_bed *b);
socklen_t bench_server_addr(const struct bench_bed *b, int port, struct sockaddr_storage *ss);
/* The same in a family of its own (AF_INET, AF_INET6). */
socklen_t bench_server_addr_in(int family, int port, struct sockaddr_storage *ss);
#define BENCH_GW_WAN "g1"		/* the gateway's side towards the delay box and server */
#define BENCH_GW_IFB "ifb-cmp"

struct bench_opts;
/* Up, and down (whatever of it was made). */
int bench_bed_up(struct bench_bed *b, const struct bench_opts *o, char *err, size_t errlen);
void bench_bed_down(struct bench_bed *b);
/* Run argv in namespace ns (-1: ours), stdout/stderr to outfile (NULL: /dev/null). The child
 * dies with us (PDEATHSIG). Returns its pid or -errno. */
pid_t bench_spawn(const struct bench_bed *b, int ns, char *const argv[], const char *outfile);
/* SIGTERM every child still running, SIGKILL what is left a second later. */
void bench_kill_all(void);
/* Wait for pid at most timeout_s; then SIGTERM, and SIGKILL a second later. Exit status or
 * -ETIMEDOUT when it had to be killed. */
int bench_reap(pid_t pid, double timeout_s);
/* `TOOL -n NS -b FILE` (ip or tc) with the given lines, waited for. 0 or -errno, the
 * command's complaint in err. */
int bench_bed_batch(struct bench_bed *b, int ns, const char *tool, const char *lines, char *err,
		    size_t errlen);
/* Enter namespace ns (-1: home) in this thread. */
int bench_enter(const struct bench_bed *b, int ns);
double bench_now(void);
/* gatewayd --reflect in the server on BENCH_REFLECT_PORT, once it says it answers: 0, or -errno
 * with why in err. */
int bench_start_reflector(struct bench_bed *b, const struct bench_opts *o, char *err,
			  size_t errlen);

#endif
