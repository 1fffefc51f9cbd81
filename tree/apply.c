/* tree/apply.c: the plan into the kernel, all or nothing. Before: look at every device
 * gatewayd will shape and keep a copy of any foreign tree it may replace. During: one pipelined
 * batch. After: read back and compare. On any failure: remove what was made, put back the copy,
 * delete the ifbs that were created. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "tree/apply.h"
#include "tree/classify.h"
#include "tree/own.h"
#include "sys/log.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct gw_dev *dev_add(struct gw_applied *a, const char *name, size_t link)
{
	void *n = realloc(a->devs, (a->n_devs + 1) * sizeof(*a->devs));
	struct gw_dev *d;

	if (!n)
		return NULL;
	a->devs = n;
	d = &a->devs[a->n_devs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->link = link;
	return d;
}

/* What sits on a device now: the root and the ingress hook, by handle and kind. */
struct found {
	int ifindex;
	uint32_t root, ingress;
	bool has_root, has_ingress;
	char root_kind[16];
};

static int found_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct found *f = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct nlattr *kind;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_ifindex != f->ifindex)
		return 0;
	if (t->tcm_parent == TC_H_ROOT) {
		f->has_root = true;
		f->root = t->tcm_handle;
		kind = nlmsg_find_attr((struct nlmsghdr *)nlh, sizeof(*t), TCA_KIND);
		if (kind)
			nla_strlcpy(f->root_kind, kind, sizeof(f->root_kind));
	} else if (t->tcm_parent == TC_H_INGRESS) {
		f->has_ingress = true;
		f->ingress = t->tcm_handle;
	}
	return 0;
}

struct saver {
	struct gw_dev *d;
	int err;
};

static int save_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct saver *s = arg;
	const struct tcmsg *t = nlmsg_data(nlh);
	struct nl_msg *copy;
	void *n;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_ifindex != s->d->ifindex)
		return 0;
	if (!(copy = nlmsg_convert((struct nlmsghdr *)nlh)))
		return -ENOMEM;
	if (gw_obj_dump_to_request(nlmsg_hdr(copy))) {
		nlmsg_free(copy);
		return -EBADMSG;
	}
	if (!(n = realloc(s->d->saved, (s->d->n_saved + 1) * sizeof(*s->d->saved)))) {
		nlmsg_free(copy);
		return -ENOMEM;
	}
	s->d->saved = n;
	s->d->saved[s->d->n_saved++] = copy;
	return 0;
}

/* Keep the foreign tree (qdiscs, classes, ingress filters) to put it back on failure. */
static int save_tree(struct gw_nl *nl, struct gw_dev *d)
{
	struct saver s = { .d = d };
	int err;

	err = gw_nl_dump_tc(nl, RTM_GETQDISC, d->ifindex, 0, save_cb, &s, NULL);
	if (!err)
		err = gw_nl_dump_tc(nl, RTM_GETTCLASS, d->ifindex, 0, save_cb, &s, NULL);
	if (!err && d->foreign_ingress)
		err = gw_nl_dump_tc(nl, RTM_GETTFILTER, d->ifindex, GW_INGRESS_HANDLE, save_cb,
				    &s, NULL);
	return err;
}

static int inspect(struct gw_nl *nl, const struct gw_config *cfg, struct gw_dev *d,
		   bool want_ingress, char *err, size_t len)
{
	struct found f = { .ifindex = d->ifindex };
	const struct gw_link_cfg *l = &cfg->links[d->link];
	struct gw_nl_error e;
	int r;

	r = gw_nl_dump_tc(nl, RTM_GETQDISC, 0, 0, found_cb, &f, &e);
	if (r) {
		snprintf(err, len, "link '%s': reading the qdiscs of %s: %s", l->name, d->name,
			 e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	/* handle 0 is the kernel's default qdisc; E000: is ours, left by an earlier run */
	d->leftover_root = f.has_root && f.root == GW_ROOT_HANDLE;
	d->foreign_root = f.has_root && f.root != 0 && !d->leftover_root;
	d->old_ingress = want_ingress && f.has_ingress;
	if (d->old_ingress) {
		enum gw_own_hook h;
		bool redirect;

		if ((r = gw_own_hook(nl, d->ifindex, 0, &h, &redirect, d->hook_kind,
				     sizeof(d->hook_kind)))) {
			snprintf(err, len, "link '%s': reading the ingress hook of %s: %s", l->name,
				 d->name, strerror(-r));
			return r;
		}
		/* a leftover of ours: of our shape (own.c) and with our redirect or beside our
		 * own leftover root; anything else someone else's */
		d->foreign_ingress = h == GW_HOOK_FOREIGN || !(redirect || d->leftover_root);
	}
	if (d->foreign_root && !l->replace) {
		snprintf(err, len,
			 "link '%s': %s already has a root qdisc %s that gatewayd did not create; set replace = true in the link to let gatewayd replace it",
			 l->name, d->name, f.root_kind);
		return -EEXIST;
	}
	if (d->foreign_ingress && !l->replace) {
		/* not a refusal: the link's egress is shaped, its ingress left as it is (the
		 * caller says so); nothing of that hook is touched, so nothing to save */
		d->old_ingress = d->foreign_ingress = false;
		return 1;
	}
	if (d->foreign_root || d->foreign_ingress) {
		r = save_tree(nl, d);
		if (r) {
			snprintf(err, len, "link '%s': saving the existing tree of %s: %s", l->name,
				 d->name, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* Interfaces and ifbs: look up, check, create the missing ifbs (of link only, or of all when
 * only is SIZE_MAX). */
static int prepare_devs(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
			char *err, size_t len, size_t only)
{
	struct gw_nl_error e;
	int r;

	for (size_t i = 0; i < cfg->n_links; i++) {
		const struct gw_link_cfg *l = &cfg->links[i];
		bool in = l->dir[GW_DIR_INGRESS].present;
		struct gw_dev *d;

		if (only != SIZE_MAX && i != only)
			continue;
		r = gw_link_get(nl, l->interface, &a->facts[i].dev, &e);
		a->facts[i].absent = r == -ENODEV && !l->required;
		if (a->facts[i].absent) {
			/* the link waits for its interface (gatewayd/heal.c shapes it then) */
			memset(&a->facts[i].dev, 0, sizeof(a->facts[i].dev));
			continue;
		}
		if (r) {
			snprintf(err, len, "link '%s': interface %s: %s", l->name, l->interface,
				 r == -ENODEV ? "no such interface" : (e.msg[0] ? e.msg : strerror(-r)));
			return r;
		}
		if (!(d = dev_add(a, l->interface, i)))
			return -ENOMEM;
		d->ifindex = a->facts[i].dev.ifindex;
		if ((r = inspect(nl, cfg, d, in, err, len)) < 0)
			return r;
		a->facts[i].ingress_foreign = r == 1;
		if (r == 1) {
			snprintf(a->facts[i].hook_kind, sizeof(a->facts[i].hook_kind), "%s",
				 d->hook_kind);
			gw_log(GW_LOG_WARNING, "link '%s': %s already has an ingress hook (%s) that "
			       "gatewayd did not create: left in place, and the link's ingress "
			       "unshaped; set replace = true in the link to let gatewayd replace it",
			       l->name, d->name, d->hook_kind);
			continue;
		}
		if (!in)
			continue;
		if (!(d = dev_add(a, l->dir[GW_DIR_INGRESS].ifb, i)))
			return -ENOMEM;
		d->is_ifb = true;
		r = gw_link_get(nl, d->name, &a->facts[i].ifb, &e);
		if (r == 0 && strcmp(a->facts[i].ifb.kind, "ifb") != 0) {
			snprintf(err, len, "link '%s': %s exists and is not an ifb device (it is %s)",
				 l->name, d->name, a->facts[i].ifb.kind[0] ? a->facts[i].ifb.kind :
				 "a physical device");
			return -EEXIST;
		}
		if (r == 0 && !gw_own_ifb(a->facts[i].ifb.kind, a->facts[i].ifb.alias) &&
		    !l->replace) {
			snprintf(err, len, "link '%s': ifb %s exists and gatewayd did not create it "
				 "(its alias has no \"%s\" mark); set replace = true in the link to "
				 "let gatewayd use it", l->name, d->name, GW_OWN_IFB_MARK);
			return -EEXIST;
		}
		/* an ifb of the configured name left by an earlier run (marked, own.c) is taken
		 * over and deleted on stop, one someone else made (replace) used and left; set
		 * before creating, so that a failed create is still cleaned up */
		d->ifb_created = r != 0 || gw_own_ifb(a->facts[i].ifb.kind, a->facts[i].ifb.alias);
		d->ifb_existed = r == 0;
		if (r == -ENODEV) {
			char mark[32];

			gw_own_ifb_mark(mark, sizeof(mark));
			r = gw_link_add_ifb(nl, d->name, mark, &e);
			if (r) {
				snprintf(err, len, "link '%s': creating ifb %s: %s", l->name, d->name,
					 e.msg[0] ? e.msg : strerror(-r));
				return r;
			}
			r = gw_link_get(nl, d->name, &a->facts[i].ifb, &e);
		}
		if (r) {
			snprintf(err, len, "link '%s': ifb %s: %s", l->name, d->name, strerror(-r));
			return r;
		}
		d->ifindex = a->facts[i].ifb.ifindex;
		/* an ifb made just now carries nothing yet: no dump of every qdisc to find that */
		if (d->ifb_existed && (r = inspect(nl, cfg, d, false, err, len)))
			return r;
	}
	return 0;
}

int gw_apply_prepare_link(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
			  size_t i, char *err, size_t errlen)
{
	return prepare_devs(nl, cfg, a, err, errlen, i);
}

static int push(struct nl_msg ***v, size_t *n, struct nl_msg *m)
{
	void *p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	*v = p;
	(*v)[(*n)++] = m;
	return 0;
}

static int del_msg(int ifindex, uint32_t handle, uint32_t parent, struct nl_msg **out)
{
	struct gw_tc_obj o = { .type = GW_OBJ_QDISC, .ifindex = ifindex, .handle = handle,
			       .parent = parent };

	return gw_obj_build_del(&o, out);
}

static void free_msgs(struct nl_msg **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nlmsg_free(v[i]);
	free(v);
}

/* Put a saved foreign tree back: several passes, since a dump's order is not always
 * parents-first; "exists" counts as done (htb makes default leaves itself). */
static void replay(struct gw_nl *nl, struct gw_dev *d)
{
	static const int types[] = { RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER };
	bool *done = calloc(d->n_saved, sizeof(*done));

	if (!done)
		return;
	for (int pass = 0; pass < 8; pass++) {
		size_t progress = 0;

		for (size_t t = 0; t < 3; t++) {
			for (size_t i = 0; i < d->n_saved; i++) {
				struct nlmsghdr *h = nlmsg_hdr(d->saved[i]);
				struct gw_nl_error e;
				int r;

				if (done[i] || h->nlmsg_type != types[t])
					continue;
				/* not gw_obj_create_flags: these are dumped messages, and a
				 * saved qdisc replaces whatever took its place at any depth */
				h->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE |
					(types[t] == RTM_NEWQDISC ? NLM_F_REPLACE : NLM_F_EXCL);
				r = gw_nl_batch(nl, &d->saved[i], 1, true, &e);
				if (r == 0 || r == -EEXIST) {
					done[i] = true;
					progress++;
				}
			}
		}
		if (!progress)
			break;
	}
	free(done);
}

/* Remove what this apply made, then put back the foreign trees it replaced. A failure here
 * is added to the message that explains why the apply failed. */
static void rollback(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen)
{
	char why[512] = "";
	size_t n = strlen(err);

	if (gw_remove(nl, a, why, sizeof(why)) && n < errlen)
		snprintf(err + n, errlen - n, "; and while undoing it: %s", why);
	for (size_t i = 0; i < a->n_devs; i++)
		if (a->devs[i].n_saved)
			replay(nl, &a->devs[i]);
}

void gw_apply_undo(struct gw_nl *nl, struct gw_applied *a, char *err, size_t errlen)
{
	rollback(nl, a, err, errlen);
}

/* Leftovers of an earlier run (our root) and hooks being replaced go first, in a batch of
 * their own whose failures do not matter: the plan's batch says whether the tree went in. */
static void clear_old(struct gw_nl *nl, struct gw_applied *a)
{
	struct nl_msg **v = NULL, *m;
	size_t n = 0;

	for (size_t i = 0; i < a->n_devs; i++) {
		struct gw_dev *d = &a->devs[i];

		if (d->leftover_root && !del_msg(d->ifindex, GW_ROOT_HANDLE, TC_H_ROOT, &m) &&
		    push(&v, &n, m))
			break;
		if (d->old_ingress && !del_msg(d->ifindex, 0, TC_H_INGRESS, &m) &&
		    push(&v, &n, m))
			break;
	}
	if (n)
		gw_nl_batch(nl, v, n, false, NULL);
	free_msgs(v, n);
}

/* Roots go in with replace (the kernel's default goes), everything else create-exclusive. */
static int build_msgs(const struct gw_plan *p, struct nl_msg ***out)
{
	struct nl_msg **v = calloc(p->n + 1, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n && !err; i++) {
		const struct gw_tc_obj *o = &p->objs[i].obj;

		err = gw_obj_build(o, gw_obj_create_flags(o), &v[i]);
		if (err)
			free_msgs(v, i);
	}
	if (!err)
		*out = v;
	return err;
}

static void describe_failure(const struct gw_config *cfg, const struct gw_applied *a,
			     const struct gw_nl_error *e, char *err, size_t len)
{
	const struct gw_plan_obj *p = &a->plan.objs[e->index < a->plan.n ? e->index : 0];
	const char *ifb = cfg->links[p->link].dir[GW_DIR_INGRESS].ifb;
	char cmd[1024] = "";

	gw_obj_format_tc(&p->obj, p->dev, ifb, cmd, sizeof(cmd));
	snprintf(err, len, "link '%s' %s on %s: the kernel refused `%s`: %s (%s)",
		 cfg->links[p->link].name, p->what, p->dev, cmd,
		 e->msg[0] ? e->msg : "no message", strerror(-e->err));
}

/* A tree of ours is already there (gatewayd was killed, or --oneshot left it): keep it if it
 * is the plan, or change it into the plan in place, so a restart does not interrupt traffic.
 * Returns 0 when adopted, non-zero when a fresh apply is needed. */
static int adopt(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		 struct nl_msg **msgs)
{
	enum gw_obj_state *state;
	struct nl_msg **changes;
	char why[512];
	size_t n = 0;
	int r;

	for (size_t i = 0; i < a->n_devs; i++)
		if (!a->devs[i].leftover_root || (a->devs[i].is_ifb && !a->devs[i].ifb_existed))
			return -ENOENT;
	state = calloc(a->plan.n + 1, sizeof(*state));
	changes = calloc(a->plan.n + 1, sizeof(*changes));
	if (!state || !changes) {
		free(state);
		free(changes);
		return -ENOMEM;
	}
	r = gw_readback(nl, cfg, a, state, why, sizeof(why));
	/* a change request for each object that differs; anything missing needs a fresh apply */
	for (size_t i = 0; r == -EPROTO && i < a->plan.n; i++) {
		if (state[i] == GW_OBJ_MISSING)
			r = -ENOENT;
		if (state[i] != GW_OBJ_DIFFERS)
			continue;
		nlmsg_hdr(msgs[i])->nlmsg_flags = NLM_F_REQUEST;
		changes[n++] = msgs[i];
	}
	if (r == -EPROTO && !(r = gw_nl_batch(nl, changes, n, true, NULL)))
		r = gw_verify(nl, cfg, a, why, sizeof(why));
	free(state);
	free(changes);
	return r;
}

/* Requests per batch between two questions to stop: a few tenths of a second of the kernel's
 * time at 10,000 classes on a busy machine, so that ^C is answered soon. */
#define STOP_CHUNK 1024

static bool stopped(gw_apply_stop_fn stop, void *arg, char *err, int *r)
{
	if (!stop || !stop(arg))
		return false;
	err[0] = '\0';	/* not a failure: only what the undo could not do is said */
	*r = -EINTR;
	return true;
}

/* The plan's batch in chunks, asking stop between them; e->index counts from the first. */
static int batch_stoppable(struct gw_nl *nl, struct nl_msg **msgs, size_t n,
			   gw_apply_stop_fn stop, void *arg, char *err, struct gw_nl_error *e,
			   bool *halted)
{
	int r = 0;

	if (!stop)
		return gw_nl_batch(nl, msgs, n, true, e);
	for (size_t off = 0; off < n && !r; off += STOP_CHUNK) {
		size_t k = n - off < STOP_CHUNK ? n - off : STOP_CHUNK;

		if ((*halted = stopped(stop, arg, err, &r)))
			break;
		r = gw_nl_batch(nl, msgs + off, k, true, e);
		if (r)
			e->index += off;
	}
	return r;
}

int gw_apply(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_plan *prev,
	     struct gw_applied *a, char *err, size_t errlen)
{
	return gw_apply_stoppable(nl, cfg, prev, a, NULL, NULL, err, errlen);
}

int gw_apply_stoppable(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_plan *prev,
		       struct gw_applied *a, gw_apply_stop_fn stop, void *arg, char *err,
		       size_t errlen)
{
	struct nl_msg **msgs = NULL;
	struct gw_nl_error e;
	bool halted = false;
	double t0;
	int r;

	memset(a, 0, sizeof(*a));
	a->facts = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*a->facts));
	if (!a->facts)
		return -ENOMEM;
	if ((r = prepare_devs(nl, cfg, a, err, errlen, SIZE_MAX)) || stopped(stop, arg, err, &r))
		goto fail;
	if ((r = gw_plan_build(cfg, a->facts, prev, &a->plan)) ||
	    (r = build_msgs(&a->plan, &msgs))) {
		snprintf(err, errlen, "building the requests: %s", strerror(-r));
		goto fail;
	}
	/* from here on, whatever happens, the devices may hold our objects */
	for (size_t i = 0; i < a->n_devs; i++) {
		a->devs[i].root = true;
		a->devs[i].ingress = !a->devs[i].is_ifb &&
				     cfg->links[a->devs[i].link].dir[GW_DIR_INGRESS].present &&
				     !a->facts[a->devs[i].link].ingress_foreign;
	}
	t0 = now_s();
	if (adopt(nl, cfg, a, msgs) == 0) {
		a->seconds = now_s() - t0;
		a->adopted = true;
		free_msgs(msgs, a->plan.n);
		/* the classifiers go in after the tree, and come out with it */
		if ((r = gw_classify_apply(nl, cfg, a, err, errlen)))
			goto fail;
		return 0;
	}
	/* adopt() may have turned the requests into changes: creates again */
	for (size_t i = 0; i < a->plan.n; i++)
		nlmsg_hdr(msgs[i])->nlmsg_flags = NLM_F_REQUEST |
			gw_obj_create_flags(&a->plan.objs[i].obj);
	clear_old(nl, a);
	r = batch_stoppable(nl, msgs, a->plan.n, stop, arg, err, &e, &halted);
	a->seconds = now_s() - t0;
	free_msgs(msgs, a->plan.n);
	if (halted)
		goto fail;
	if (r) {
		describe_failure(cfg, a, &e, err, errlen);
		goto fail;
	}
	if (stopped(stop, arg, err, &r) || (r = gw_verify(nl, cfg, a, err, errlen)) ||
	    stopped(stop, arg, err, &r) || (r = gw_classify_apply(nl, cfg, a, err, errlen)))
		goto fail;
	return 0;
fail:
	rollback(nl, a, err, errlen);
	gw_applied_free(a);
	return r;
}
