/* tree/kinds.c: ask the kernel itself which qdisc kinds it has. A child process moves into
 * a network namespace of its own and tries each kind on its loopback, so nothing the user has
 * is touched, and the namespace dies with the child. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/pkt_sched.h>
#include "tree/kinds.h"
#include "qdisc/nl.h"
#include "qdisc/qdisc.h"

struct probe_result {
	int err[GW_KIND_MAX];
	char msg[GW_KIND_MAX][GW_EXTACK_MAX];
};

static void probe_one(struct gw_nl *nl, enum gw_kind k, struct probe_result *res)
{
	/* a handle per kind: each probe replaces the one before instead of changing it */
	struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .kind = k, .ifindex = 1,
			       .handle = GW_HANDLE(0x100 + k, 0), .parent = TC_H_ROOT };
	const struct gw_qdisc_ops *ops = gw_qdisc_ops(k);
	struct gw_nl_error e = { .err = 0 };
	struct nl_msg *m;

	gw_qopts_init(k, &o.q);
	/* a shaper gets a small shape (a bucket has no defaults to fall back on) */
	if (ops->set_shape)
		ops->set_shape(&o.q, &(struct gw_shape){ .rate = 125000, .burst = 2000,
							  .limit = 10000 });
	if (ops->hook) {
		o.handle = GW_INGRESS_HANDLE;
		o.parent = TC_H_INGRESS;
	}
	if (gw_obj_build(&o, NLM_F_CREATE | NLM_F_REPLACE, &m)) {
		res->err[k] = -ENOMEM;
		return;
	}
	res->err[k] = gw_nl_batch(nl, &m, 1, true, &e);
	snprintf(res->msg[k], sizeof(res->msg[k]), "%s", e.msg);
	nlmsg_free(m);
}

static void probe_child(int fd, const bool *want)
{
	struct probe_result res;
	struct gw_nl *nl;
	ssize_t w;

	memset(&res, 0, sizeof(res));
	if (unshare(CLONE_NEWNET) < 0 || gw_nl_open(&nl) < 0)
		_exit(3);
	for (int k = 1; k < GW_KIND_MAX; k++)
		if (want[k] && gw_qdisc_ops((enum gw_kind)k))
			probe_one(nl, (enum gw_kind)k, &res);
	gw_nl_close(nl);
	w = write(fd, &res, sizeof(res));
	_exit(w == (ssize_t)sizeof(res) ? 0 : 4);
}

/* Where in the config a kind is first asked for, for the message. */
struct use {
	int line;
	const char *what;
	char where[GW_NAME_MAX + 16];
};

static void note(bool *want, struct use *first, enum gw_kind k, int line, const char *what,
		 const struct gw_link_cfg *l, int dir)
{
	if (want[k])
		return;
	want[k] = true;
	first[k].line = line;
	first[k].what = what;
	snprintf(first[k].where, sizeof(first[k].where), "link '%s' %s", l->name,
		 gw_direction_name((enum gw_direction)dir));
}

/* Container entries: htb, the ifb path's hook for ingress, and each direction's child. */
static void collect_containers(const struct gw_config *cfg, bool *want, struct use *first)
{
	for (size_t i = 0; i < cfg->n_containers; i++) {
		const struct gw_ctr_cfg *r = &cfg->containers[i];

		for (int d = 0; d < 2; d++) {
			const struct gw_ctr_dir_cfg *rd = &r->dir[d];
			enum gw_kind kinds[3] = { GW_KIND_HTB, rd->child.kind,
						  d == GW_DIR_INGRESS ? GW_KIND_INGRESS : GW_KIND_NONE };

			for (int k = 0; k < 3 && rd->present; k++) {
				if (kinds[k] == GW_KIND_NONE || want[kinds[k]])
					continue;
				want[kinds[k]] = true;
				first[kinds[k]].line = k == 1 && rd->child.line ? rd->child.line :
						       rd->line;
				first[kinds[k]].what = k == 0 ? "shaper" : k == 1 ? "child" : "hook";
				snprintf(first[kinds[k]].where, sizeof(first[kinds[k]].where),
					 "container #%zu %s", i + 1,
					 gw_direction_name((enum gw_direction)d));
			}
		}
	}
}

static void collect(const struct gw_config *cfg, bool *want, struct use *first)
{
	collect_containers(cfg, want, first);
	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];

		for (int d = 0; d < 2; d++) {
			const struct gw_dir_cfg *dc = &l->dir[d];

			if (!dc->present)
				continue;
			if (d == GW_DIR_INGRESS)
				note(want, first, GW_KIND_INGRESS, dc->line, "hook", l, d);
			note(want, first, dc->shaper, dc->line, "shaper", l, d);
			/* the direction's own child is used by a bucket and by classes without
			 * classes */
			if (gw_shaper_role(dc->shaper) == GW_SHAPER_BUCKET ||
			    (gw_shaper_role(dc->shaper) == GW_SHAPER_CLASSES && !dc->n_classes))
				note(want, first, dc->child.kind,
				     dc->child.line ? dc->child.line : dc->line, "child", l, d);
			for (size_t c = 0; c < dc->n_classes; c++) {
				const struct gw_class_cfg *cc = &dc->classes[c];

				note(want, first, cc->child.kind,
				     cc->child.line ? cc->child.line : cc->line, "class child", l, d);
			}
		}
	}
}

int gw_kinds_check(const struct gw_config *cfg, bool *probed, char *err, size_t errlen)
{
	bool want[GW_KIND_MAX] = { false };
	struct use first[GW_KIND_MAX];
	struct probe_result res;
	int fds[2], status;
	ssize_t got = 0, r;
	pid_t pid;

	*probed = false;
	memset(first, 0, sizeof(first));
	collect(cfg, want, first);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		probe_child(fds[1], want);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	while (got < (ssize_t)sizeof(res) &&
	       ((r = read(fds[0], (char *)&res + got, sizeof(res) - (size_t)got)) > 0 ||
		(r < 0 && errno == EINTR)))
		got += r > 0 ? r : 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof(res))
		return 0;	/* no namespaces here (not root?): the apply will say it instead */
	*probed = true;
	for (int k = 1; k < GW_KIND_MAX; k++) {
		const struct gw_qdisc_ops *ops = gw_qdisc_ops((enum gw_kind)k);

		if (!want[k] || !res.err[k])
			continue;
		snprintf(err, errlen,
			 "%s:%d: %s %s %s: this kernel has no %s qdisc (the kernel said: %s); load it with `modprobe %s`, or use a kernel built with it",
			 cfg->file, first[k].line, first[k].where, first[k].what, ops->name,
			 ops->name, res.msg[k][0] ? res.msg[k] : strerror(-res.err[k]), ops->module);
		return -ENOENT;
	}
	return 0;
}
