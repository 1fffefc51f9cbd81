/* qdisc/filter.c: the ingress redirect. The host kernel has no matchall, so a u32 filter that
 * matches every packet (one key: mask 0) carries a mirred action that steals the packet and
 * hands it to the ifb device's egress, where the ingress shaper lives. */
#include <errno.h>
#include <string.h>
#include <linux/pkt_cls.h>
#include <linux/tc_act/tc_mirred.h>
#include "qdisc/qdisc.h"

int gw_redirect_encode(struct nl_msg *msg, int target_ifindex)
{
	struct {
		struct tc_u32_sel sel;
		struct tc_u32_key key;
	} s;
	struct tc_mirred m;
	struct nlattr *opts, *acts, *act, *aopts;

	memset(&s, 0, sizeof(s));
	s.sel.flags = TC_U32_TERMINAL;
	s.sel.nkeys = 1;	/* mask 0, value 0 at offset 0: matches everything */
	memset(&m, 0, sizeof(m));
	m.action = TC_ACT_STOLEN;
	m.eaction = TCA_EGRESS_REDIR;
	m.ifindex = (uint32_t)target_ifindex;

	if (!(opts = nla_nest_start(msg, TCA_OPTIONS)) ||
	    nla_put(msg, TCA_U32_SEL, sizeof(s), &s) < 0 ||
	    !(acts = nla_nest_start(msg, TCA_U32_ACT)) ||
	    !(act = nla_nest_start(msg, 1)) ||
	    nla_put_string(msg, TCA_ACT_KIND, "mirred") < 0 ||
	    !(aopts = nla_nest_start(msg, TCA_ACT_OPTIONS)) ||
	    nla_put(msg, TCA_MIRRED_PARMS, sizeof(m), &m) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, aopts);
	nla_nest_end(msg, act);
	nla_nest_end(msg, acts);
	nla_nest_end(msg, opts);
	return 0;
}

/* Find the mirred redirect in a u32 filter's options; -ENOENT when there is none (e.g. the
 * hash-table node u32 dumps beside the rule). */
int gw_redirect_decode(const struct nlattr *opts, int *target_ifindex)
{
	struct nlattr *tb[TCA_U32_MAX + 1], *acts[TCA_ACT_MAX_PRIO + 1];

	if (!opts)
		return -ENOENT;
	if (nla_parse_nested(tb, TCA_U32_MAX, (struct nlattr *)opts, NULL) < 0)
		return -EBADMSG;
	if (!tb[TCA_U32_ACT])
		return -ENOENT;
	if (nla_parse_nested(acts, TCA_ACT_MAX_PRIO, tb[TCA_U32_ACT], NULL) < 0)
		return -EBADMSG;
	for (int i = 1; i <= TCA_ACT_MAX_PRIO; i++) {
		struct nlattr *a[TCA_ACT_MAX + 1], *mo[TCA_MIRRED_MAX + 1];
		struct tc_mirred m;

		if (!acts[i] || nla_parse_nested(a, TCA_ACT_MAX, acts[i], NULL) < 0 ||
		    !a[TCA_ACT_KIND] || !a[TCA_ACT_OPTIONS] ||
		    nla_strcmp(a[TCA_ACT_KIND], "mirred") != 0)
			continue;
		if (nla_parse_nested(mo, TCA_MIRRED_MAX, a[TCA_ACT_OPTIONS], NULL) < 0 ||
		    !mo[TCA_MIRRED_PARMS] || nla_len(mo[TCA_MIRRED_PARMS]) < (int)sizeof(m))
			return -EBADMSG;
		memcpy(&m, nla_data(mo[TCA_MIRRED_PARMS]), sizeof(m));
		if (m.eaction != TCA_EGRESS_REDIR)
			continue;
		*target_ifindex = (int)m.ifindex;
		return 0;
	}
	return -ENOENT;
}
