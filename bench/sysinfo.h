/* bench/sysinfo.h: where a run ran (sysinfo.c): the testbed's sysctls and offloads, the
 * gateway's tree as the kernel reports it. */
#ifndef GW_BENCH_SYSINFO_H
#define GW_BENCH_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The testbed's settings that the figures depend on, read once: what flent
 * records as SYSCTLS and offloads, for results.json's `metadata` and the flent files. */
#define BENCH_MAX_SYSCTL 16
#define BENCH_MAX_IFS 5
struct bench_sysinfo {
	char hostname[65], kernel_name[65], kernel_release[65];
	struct bench_sysctl {
		const char *name;	/* "net.ipv4.tcp_ecn" */
		char client[64], server[64];	/* "" when the namespace has none */
	} sysctl[BENCH_MAX_SYSCTL];
	size_t n_sysctl;
	struct bench_ifinfo {
		const char *ns, *name;	/* "gateway", "g1" */
		int tso, gso, gro, lro;	/* 1 on, 0 off, -1 unknown */
	} ifs[BENCH_MAX_IFS];
	size_t n_ifs;
};

struct bench_bed;
struct bench_result;
/* The testbed's sysctls and offloads (from inside its namespaces); the gateway's
 * tree as the kernel reports it, from nl (a socket in the gateway's namespace). */
void bench_sysinfo_read(const struct bench_bed *b, struct bench_sysinfo *si);
struct gw_nl;
int bench_read_tree(struct gw_nl *nl, const int ifidx[2], struct bench_result *r);
/* "1:10", "root" for a parent; "10:" for a handle */
void bench_tc_id(char *buf, size_t len, uint32_t id, bool handle);

#endif
