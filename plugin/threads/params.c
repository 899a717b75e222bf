#include <glib.h>
#include <string.h>

#include "params.h"

#define ACCEPTED_KEYS "`format`, `path` and `what`"
#define ACCEPTED_FORMATS "\"text\", \"csv\", \"json\" or \"chrome\""
#define ACCEPTED_WHATS "\"threads\", \"vcpus\", \"exits\", \"steal\" or \"containers\""

struct parse_context {
	struct threads_params *out;
	/*
	 * What is wrong, one message per bad parameter: the error causes are
	 * appended after the map iteration, which must not end with an error
	 * pending on the thread.
	 */
	GPtrArray *problems;
};

static bool fail(struct parse_context *ctx, const char *format, ...) G_GNUC_PRINTF(2, 3);

static bool fail(struct parse_context *ctx, const char *format, ...)
{
	va_list args;
	char *message;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_ptr_array_add(ctx->problems, message);
	return false;
}

static const char *string_of(struct parse_context *ctx, const char *key,
		const bt_value *value, const char *accepted)
{
	if (!bt_value_is_string(value)) {
		fail(ctx, "Parameter `%s` must be a string: %s (e.g. %s=\"%s\").", key,
			accepted, key, strcmp(key, "path") == 0 ? "out.csv" :
			strcmp(key, "format") == 0 ? "csv" : "threads");
		return NULL;
	}
	return bt_value_string_get(value);
}

static bool parse_format(struct parse_context *ctx, const bt_value *value)
{
	const char *s = string_of(ctx, "format", value, ACCEPTED_FORMATS);

	if (!s) {
		return false;
	}
	if (!vm_writer_format_from_string(s, &ctx->out->format)) {
		return fail(ctx, "Unknown value \"%s\" of parameter `format`: expecting "
			ACCEPTED_FORMATS ".", s);
	}
	return true;
}

static bool parse_what(struct parse_context *ctx, const bt_value *value)
{
	const char *s = string_of(ctx, "what", value, ACCEPTED_WHATS);

	if (!s) {
		return false;
	}
	if (!vm_writer_what_from_string(s, &ctx->out->what)) {
		return fail(ctx, "Unknown value \"%s\" of parameter `what`: expecting "
			ACCEPTED_WHATS ".", s);
	}
	ctx->out->what_given = true;
	return true;
}

static bool parse_path(struct parse_context *ctx, const bt_value *value)
{
	const char *s = string_of(ctx, "path", value, "the name of the output file");

	if (!s) {
		return false;
	}
	if (!s[0]) {
		return fail(ctx, "Parameter `path` is empty: give the name of the output "
			"file, or leave `path` out to write to the standard output.");
	}
	g_free(ctx->out->path);
	ctx->out->path = g_strdup(s);
	return true;
}

static bt_value_map_foreach_entry_const_func_status parse_entry(const char *key,
		const bt_value *value, void *data)
{
	struct parse_context *ctx = data;

	if (strcmp(key, "format") == 0) {
		parse_format(ctx, value);
	} else if (strcmp(key, "what") == 0) {
		parse_what(ctx, value);
	} else if (strcmp(key, "path") == 0) {
		parse_path(ctx, value);
	} else {
		fail(ctx, "Unknown parameter `%s`: sink.vm.threads accepts " ACCEPTED_KEYS
			".", key);
	}
	/* Go on: every bad parameter gets its own cause. */
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

bool threads_params_parse(const bt_value *params, bt_self_component *self_comp,
		struct threads_params *out)
{
	struct parse_context ctx = { out, g_ptr_array_new_with_free_func(g_free) };
	bool ok;

	out->format = VM_WRITER_TEXT;
	out->what = VM_WRITER_THREADS;
	out->what_given = false;
	out->path = NULL;
	if (params && bt_value_is_map(params)) {
		bt_value_map_foreach_entry_const(params, parse_entry, &ctx);
	}
	for (guint i = 0; i < ctx.problems->len; i++) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp, "%s",
			(const char *) ctx.problems->pdata[i]);
	}
	ok = ctx.problems->len == 0;
	g_ptr_array_unref(ctx.problems);
	if (!ok) {
		threads_params_clear(out);
	}
	return ok;
}

void threads_params_clear(struct threads_params *params)
{
	g_clear_pointer(&params->path, g_free);
}
