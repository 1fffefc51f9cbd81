/* gatewayd/loop.h: the event loop: signals, and a sampling pass every interval. */
#ifndef GW_LOOP_H
#define GW_LOOP_H

#include "config/config.h"
#include "tree/apply.h"
#include "sys/clock.h"
#include "probe/links.h"
#include "gatewayd/autorate.h"
#include "gatewayd/ctr_registered.h"
#include "gatewayd/ctr_followed.h"
#include "gatewayd/sampler.h"
#include "gatewayd/web.h"
#include "qdisc/monitor.h"
#include "qdisc/nl.h"

/* What one sampling pass leaves for the next, the loop's alone: the loop is the daemon's one
 * thread (the web process gets each snapshot over its socket), so nothing here is locked. */
struct gw_loop_state {
	struct gw_sampler *sampler;	/* replaced by a reload that remakes the tree */
	double start_mono;
	uint64_t samples, late;
	char reload_error[256];		/* "last reload failed: ..." until a reload succeeds */
	char last_sample_error[256];	/* the last pass's problem, logged once */
	struct gw_snap_loadtest loadtest;	/* the running or last load test */
};

struct gw_loop_ctx {
	int sfd;			/* a signalfd for SIGTERM, SIGINT, SIGHUP */
	struct gw_config *cfg;		/* replaced by a reload (the old one freed) */
	struct gw_nl *nl;
	struct gw_loop_state st;	/* the caller sets sampler and start_mono */
	struct gw_applied *applied;	/* replaced in place when the tree is rebuilt */
	struct gw_monitor *mon;		/* link and tc notifications; NULL: no self-healing */
	struct gw_probe_links *lat;	/* the probers; gw_loop_run makes and frees them */
	struct gw_autorate *ar;		/* autorate; gw_loop_run makes and frees it */
	struct gw_ctr_followed *ctr;	/* containers followed; NULL: none */
	struct gw_ctr_registered *cni;	/* containers gatewayd-cni registered; NULL: no socket */
	struct gw_web *web;		/* the web process: each pass's snapshot goes to it, a
					 * reload's settings too; NULL: no page */
};

/* Sample every interval, heal the tree when it is taken away, feed systemd's watchdog; until
 * SIGTERM or SIGINT (0) or a fatal error (-errno). */
int gw_loop_run(struct gw_loop_ctx *c);


#endif
