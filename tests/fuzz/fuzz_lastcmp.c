/* tests/fuzz/fuzz_lastcmp.c: libFuzzer target: any bytes as a results.json the status page
 * summarises (gw_lastcmp_summarize, webui/lastcmp.c).
 *
 * Checked, so a broken promise crashes: the reader looks only at the bytes it is given (ASan
 * sees a copy of exactly that size, no NUL after it); it answers 0 or -EBADMSG (or -ENOMEM),
 * always with a message on failure; an accepted file gives strict JSON (no NaN or Infinity)
 * that is an object with the summary's schema and a runs array of 1 to 8, none with samples. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "webui/lastcmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), *out = NULL, err[256] = "";
	json_object *o, *v;
	struct json_tokener *tok;
	size_t len = 0;
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	r = gw_lastcmp_summarize(copy, size, "", 0, &out, &len, err, sizeof(err));
	free(copy);
	if (r) {
		if ((r != -EBADMSG && r != -ENOMEM) || !err[0] || out)
			abort();
		return 0;
	}
	if (!out || strlen(out) != len)
		abort();
	tok = json_tokener_new();
	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, out, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_object_get_ex(o, "schema", &v) ||
	    strcmp(json_object_get_string(v), "gatewayd-compare-summary") ||
	    !json_object_object_get_ex(o, "runs", &v) || !json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) < 1 || json_object_array_length(v) > 8 ||
	    strstr(out, "\"samples\":[") || strstr(out, "\"queue\":"))
		abort();
	json_object_put(o);
	json_tokener_free(tok);
	free(out);
	return 0;
}
