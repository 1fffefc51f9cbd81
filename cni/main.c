/* cni/main.c: gatewayd-cni, the program a container runtime runs: the environment and
 * stdin read and checked, the command done, and on stdout exactly one JSON document: the
 * result (ADD: prevResult passed on), the versions (VERSION), nothing (CHECK, DEL), or the
 * spec's error object with a non-zero exit. Messages for people go to stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "cni/cni.h"

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

static void print_json(struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* {cniVersion, code, msg, details} on stdout, the same on stderr for the runtime's log. */
static int print_error(const char *version, const struct gw_cni_error *e)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cniVersion", json_object_new_string(version));
	json_object_object_add(o, "code", json_object_new_int(e->code));
	json_object_object_add(o, "msg", json_object_new_string(e->msg));
	if (e->details[0])
		json_object_object_add(o, "details", json_object_new_string(e->details));
	print_json(o);
	json_object_put(o);
	fprintf(stderr, "gatewayd-cni: %s%s%s (code %d)\n", e->msg, e->details[0] ? ": " : "",
		e->details, e->code);
	return 1;
}

static int print_versions(void)
{
	struct json_object *o = json_object_new_object(), *v = json_object_new_array();

	for (size_t i = 0; gw_cni_versions[i]; i++)
		json_object_array_add(v, json_object_new_string(gw_cni_versions[i]));
	json_object_object_add(o, "cniVersion", json_object_new_string("1.0.0"));
	json_object_object_add(o, "supportedVersions", v);
	print_json(o);
	json_object_put(o);
	return 0;
}

/* All of stdin, up to GW_CNI_STDIN_MAX bytes (one more tells the parser it was longer). */
static char *read_stdin(size_t *len, struct gw_cni_error *e)
{
	size_t cap = GW_CNI_STDIN_MAX + 2, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf) {
		gw_cni_fail(e, GW_CNI_E_IO, "out of memory", NULL);
		return NULL;
	}
	while (n < cap - 1) {
		r = read(STDIN_FILENO, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gw_cni_fail(e, GW_CNI_E_IO, "failed to read the network config from stdin",
				    "%s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* After ADD: the state file for a daemon started later, and the daemon running now told. The
 * container is shaped whatever the daemon says: its refusal, or no state file, is a warning on
 * stderr (the runtime's log), never a failed ADD. */
static void announce(const struct gw_cni_env *env, const struct gw_cni_conf *c,
		     const struct gw_cni_shaped *sh)
{
	struct gw_ctr_reg m;
	char err[GW_CTR_REG_REPLY_MAX + 256] = "";
	int r;

	if (!c->control_socket[0])
		return;
	gw_cni_reg_fill(env, c, sh, GW_CTR_REG_REGISTER, &m);
	if (gw_cni_state_write(c, &m, err, sizeof(err)))
		fprintf(stderr, "gatewayd-cni: warning: no state file (%s): a gatewayd started "
			"later will not adopt container %s\n", err, env->container_id);
	if ((r = gw_cni_tell(c, &m, err, sizeof(err))) < 0)
		fprintf(stderr, "gatewayd-cni: warning: gatewayd did not take container %s: %s; "
			"it is shaped, but the daemon does not watch it\n", env->container_id, err);
}

/* Before DEL's removal: the daemon stops watching (and so does not put back what DEL takes
 * away). A daemon that does not know the container is not a failure. */
static void withdraw(const struct gw_cni_env *env, const struct gw_cni_conf *c)
{
	struct gw_ctr_reg m;
	char err[GW_CTR_REG_REPLY_MAX + 256] = "";

	if (!c->control_socket[0])
		return;
	gw_cni_reg_fill(env, c, NULL, GW_CTR_REG_UNREGISTER, &m);
	if (gw_cni_tell(c, &m, err, sizeof(err)) < 0 && !strstr(err, "not registered"))
		fprintf(stderr, "gatewayd-cni: warning: unregistering container %s from gatewayd: "
			"%s\n", env->container_id, err);
}

/* ADD's result: prevResult as it came, in the config's version. */
static void print_result(const struct gw_cni_conf *c)
{
	json_object_object_add(c->prev, "cniVersion", json_object_new_string(c->version));
	print_json(c->prev);
}

int main(void)
{
	struct gw_cni_error e = { 0 };
	struct gw_cni_env env;
	struct gw_cni_conf c = { 0 };
	struct gw_cni_shaped shaped;
	size_t len = 0;
	char *text;
	int r;

	if (gw_cni_env_read(env_get, NULL, &env, &e))
		return print_error("1.0.0", &e);
	if (env.cmd == GW_CNI_VERSION)
		return print_versions();
	if (!(text = read_stdin(&len, &e)))
		return print_error("1.0.0", &e);
	r = gw_cni_conf_parse(text, len, env.cmd, &c, &e);
	free(text);
	if (r)
		return print_error(c.version[0] ? c.version : "1.0.0", &e);
	switch (env.cmd) {
	case GW_CNI_ADD:
		/* nothing to limit: the result goes on, nothing is made */
		if (gw_cni_shapes(&c) && gw_cni_add(&env, &c, &shaped, &e))
			break;
		if (gw_cni_shapes(&c))
			announce(&env, &c, &shaped);
		print_result(&c);
		gw_cni_conf_free(&c);
		return 0;
	case GW_CNI_CHECK:
		if (gw_cni_check(&env, &c, &e))
			break;
		gw_cni_conf_free(&c);
		return 0;
	case GW_CNI_DEL:
		withdraw(&env, &c);
		if (gw_cni_del(&env, &c, &e))
			break;
		if (c.control_socket[0])
			gw_cni_state_remove(&c, env.container_id, env.ifname);
		gw_cni_conf_free(&c);
		return 0;
	case GW_CNI_VERSION:
		break;
	}
	r = print_error(c.version, &e);
	gw_cni_conf_free(&c);
	return r;
}
