/* tests/fuzz/fuzz_iperf3.c: libFuzzer target: any bytes as the JSON report `iperf3 -c ... -J`
 * prints, which the load test reads when its sink is an iperf3 server (load/loadgen.c,
 * through gw_loadgen_iperf3_report; the report carries the server's own figures, so it is
 * outside input).
 *
 * Input: 2 bytes, then the report. Byte 0: the phase (% 3: download, upload, both), byte 1:
 * flows per direction (% 8 + 1); the run lasts 2 s in 0.5 s ticks with a 1 s ramp.
 *
 * Checked, so a broken promise crashes: the reader answers 0 (the report's verdict is in
 * gw_loadgen_error, one printable line); at most two directions' flows; each tick's time finite
 * and no earlier than the last, each flow's bytes growing; a goodput that is given is finite and
 * above 0 with a fairness index in (0, 1] or NaN; the per-flow rates are none (iperf3 has only
 * sums). UBSan's float-cast-overflow sees a figure converted to a count that cannot hold it. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "load/loadgen.h"

#define PREFIX 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_run(const struct gw_loadgen *g, int flows)
{
	const char *e = gw_loadgen_error(g);
	size_t nf = gw_loadgen_n_flows(g), nt = gw_loadgen_n_ticks(g);
	double bps[2 * GW_LOADGEN_MAX_FLOWS];

	for (const char *c = e; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			abort();
	if (nf > 2 * (size_t)flows || nt > 2 / 0.5 + 3)
		abort();
	for (size_t i = 0; i < nf; i++) {
		const struct gw_loadgen_flow *f = gw_loadgen_flow(g, i);

		if (!f || (f->dir != GW_FLOW_UP && f->dir != GW_FLOW_DOWN) ||
		    !memchr(f->error, '\0', sizeof(f->error)))
			abort();
	}
	for (size_t k = 0; k < nt; k++) {
		double t = gw_loadgen_tick_time(g, k);

		if (!isfinite(t) || (k && t < gw_loadgen_tick_time(g, k - 1)))
			abort();
		for (size_t i = 0; k && i < nf; i++)
			if (gw_loadgen_tick_bytes(g, i, k) < gw_loadgen_tick_bytes(g, i, k - 1))
				abort();
	}
	for (int d = 0; d < 2; d++) {
		double rate, fair;
		int r = gw_loadgen_goodput(g, (enum gw_flow_dir)d, &rate, &fair);

		if (r == 0 && (!isfinite(rate) || rate <= 0 ||
			       (!isnan(fair) && !(fair > 0 && fair <= 1 + 1e-9))))
			abort();
		if (r != 0 && r != -ENOENT)
			abort();
		if (gw_loadgen_flow_rates(g, (enum gw_flow_dir)d, bps, 2 * GW_LOADGEN_MAX_FLOWS))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_loadgen_opts o = { .duration_s = 2, .tick_s = 0.5, .ramp_s = 1, .iperf3 = true,
				     .fwmark = -1 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&o.sink;
	struct gw_loadgen *g;
	char err[160];
	char *copy;
	int r;

	if (size < PREFIX)
		return 0;
	o.phase = (enum gw_load_phase)(data[0] % 3);
	o.flows = data[1] % 8 + 1;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(5201);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* exactly the report's bytes, so ASan sees a read past them */
	if (!(copy = malloc(size - PREFIX + 1)))
		return 0;
	memcpy(copy, data + PREFIX, size - PREFIX);
	r = gw_loadgen_iperf3_report(&o, copy, size - PREFIX, &g, err, sizeof(err));
	free(copy);
	if (r == -ENOMEM)
		return 0;
	if (r)
		abort();
	check_run(g, o.flows);
	gw_loadgen_free(g);
	return 0;
}
