/* cni/env.c: the CNI_* environment a runtime calls the plugin with, each variable
 * checked as the spec says before anything is looked up with it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cni/cni.h"

int gw_cni_fail(struct gw_cni_error *e, int code, const char *msg, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	e->details[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->details, sizeof(e->details), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* An absolute path of printable characters, short enough to open. */
static bool valid_path(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n >= PATH_MAX || s[0] != '/')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static const struct {
	const char *name;
	enum gw_cni_cmd cmd;
} commands[] = {
	{ "ADD", GW_CNI_ADD }, { "DEL", GW_CNI_DEL }, { "CHECK", GW_CNI_CHECK },
	{ "VERSION", GW_CNI_VERSION },
};

int gw_cni_env_read(const char *(*get)(const char *name, void *arg), void *arg,
		    struct gw_cni_env *out, struct gw_cni_error *e)
{
	const char *cmd = get("CNI_COMMAND", arg), *id, *netns, *ifname;
	char missing[96] = "";
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; cmd && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			break;
	if (!cmd || i == sizeof(commands) / sizeof(commands[0]))
		return gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_COMMAND",
				   "CNI_COMMAND must be ADD, DEL, CHECK or VERSION%s%.32s%s",
				   cmd ? ", not \"" : " (it is not set)", cmd ? cmd : "",
				   cmd ? "\"" : "");
	out->cmd = commands[i].cmd;
	if (out->cmd == GW_CNI_VERSION)
		return 0;
	id = get("CNI_CONTAINERID", arg);
	netns = get("CNI_NETNS", arg);
	ifname = get("CNI_IFNAME", arg);
	/* DEL may come without a namespace (it is gone): clean up what can be found */
	if (!id || !id[0])
		strcat(missing, " CNI_CONTAINERID");
	if ((!netns || !netns[0]) && out->cmd != GW_CNI_DEL)
		strcat(missing, " CNI_NETNS");
	if (!ifname || !ifname[0])
		strcat(missing, " CNI_IFNAME");
	if (missing[0])
		return gw_cni_fail(e, GW_CNI_E_ENV, "required environment variables missing",
				   "not set:%s", missing);
	if (!gw_ctr_reg_valid_id(id, GW_CNI_ID_MAX))
		return gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_CONTAINERID",
				   "CNI_CONTAINERID must be 1..%d characters, an alphanumeric one "
				   "then alphanumerics, '_', '.' or '-'", GW_CNI_ID_MAX);
	if (netns && netns[0] && !valid_path(netns))
		return gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_NETNS",
				   "CNI_NETNS must be the absolute path of a network namespace");
	if (!gw_ctr_reg_valid_ifname(ifname))
		return gw_cni_fail(e, GW_CNI_E_ENV, "invalid CNI_IFNAME",
				   "CNI_IFNAME must be an interface name: 1..15 characters, not "
				   "\".\" or \"..\", no '/', ':' or white space");
	snprintf(out->container_id, sizeof(out->container_id), "%s", id);
	snprintf(out->netns, sizeof(out->netns), "%s", netns ? netns : "");
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifname);
	return 0;
}
