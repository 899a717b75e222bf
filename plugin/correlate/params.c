/*
 * Parameters of filter.vm.correlate: see params.h.
 */

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "correlate/params.h"
#include "sync/formula-text.h"

#define ACCEPTED_KEYS "`sync`, `sync-model`, `look-ahead-ns`, `reference`, `host` and " \
	"`transforms`"
#define ACCEPTED_SYNC "`auto`, `vmsync`, `tcp`, `vcpu` or `none`"
#define ACCEPTED_MODELS "`piecewise` or `linear`"

static const char *const sync_method_names[] = {
	[CORRELATE_SYNC_AUTO] = "auto",
	[CORRELATE_SYNC_VMSYNC] = "vmsync",
	[CORRELATE_SYNC_TCP] = "tcp",
	[CORRELATE_SYNC_NONE] = "none",
	[CORRELATE_SYNC_VCPU] = "vcpu",
};

const char *correlate_sync_method_name(enum correlate_sync_method method)
{
	return sync_method_names[method];
}

static const char *const sync_model_names[] = {
	[CORRELATE_MODEL_PIECEWISE] = "piecewise",
	[CORRELATE_MODEL_LINEAR] = "linear",
};

const char *correlate_sync_model_name(enum correlate_sync_model model)
{
	return sync_model_names[model];
}

#define PARAM_ERROR(self_comp, ...) \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((self_comp), __VA_ARGS__)

static bool parse_sync(struct correlate_params *params, const bt_value *value,
		bt_self_component *self_comp)
{
	unsigned int i;

	if (bt_value_is_string(value)) {
		for (i = 0; i < G_N_ELEMENTS(sync_method_names); i++) {
			if (strcmp(bt_value_string_get(value), sync_method_names[i]) == 0) {
				params->sync = i;
				return true;
			}
		}
	}

	PARAM_ERROR(self_comp, "Invalid parameter `sync`: expecting a string, "
		"one of " ACCEPTED_SYNC " (default `auto`).");
	return false;
}

static bool parse_sync_model(struct correlate_params *params, const bt_value *value,
		bt_self_component *self_comp)
{
	unsigned int i;

	if (bt_value_is_string(value)) {
		for (i = 0; i < G_N_ELEMENTS(sync_model_names); i++) {
			if (strcmp(bt_value_string_get(value), sync_model_names[i]) == 0) {
				params->model = i;
				return true;
			}
		}
	}

	PARAM_ERROR(self_comp, "Invalid parameter `sync-model`: expecting a string, "
		"one of " ACCEPTED_MODELS " (default `piecewise`).");
	return false;
}

/* Up to an hour: the messages of that much trace time are held in memory. */
#define MAX_LOOK_AHEAD_NS (INT64_C(3600) * 1000000000)

static bool parse_look_ahead(struct correlate_params *params, const bt_value *value,
		bt_self_component *self_comp)
{
	int64_t ns = -1;

	if (bt_value_is_unsigned_integer(value) &&
			bt_value_integer_unsigned_get(value) <= (uint64_t) MAX_LOOK_AHEAD_NS) {
		ns = (int64_t) bt_value_integer_unsigned_get(value);
	} else if (bt_value_is_signed_integer(value)) {
		ns = bt_value_integer_signed_get(value);
	}

	if (ns < 1 || ns > MAX_LOOK_AHEAD_NS) {
		PARAM_ERROR(self_comp, "Invalid parameter `look-ahead-ns`: expecting an "
			"integer from 1 to %" PRId64 " (nanoseconds of trace time; default "
			"%" PRId64 ").", MAX_LOOK_AHEAD_NS, CORRELATE_DEFAULT_LOOK_AHEAD_NS);
		return false;
	}

	params->look_ahead_ns = ns;
	return true;
}

static bool parse_machine_name(char **out, const char *key, const bt_value *value,
		bt_self_component *self_comp)
{
	if (!bt_value_is_string(value)) {
		PARAM_ERROR(self_comp, "Invalid parameter `%s`: expecting a string, "
			"the name of a machine (a trace's `hostname` environment "
			"entry, with `#2`, `#3`, ... for repeated hostnames; "
			"`base-2` names `base#2` too).", key);
		return false;
	}

	g_free(*out);
	*out = g_strdup(bt_value_string_get(value));
	return true;
}

/*
 * A real given as a string: every digit kept. The suggestion the component
 * logs is written so, because a CLI real is a double and the computed
 * formula is not.
 */
static bool parse_real_string(const bt_value *value, long double *parsed)
{
	return bt_value_is_string(value) &&
		vm_sync_real_parse(bt_value_string_get(value), parsed);
}

static bool parse_slope(long double *slope, const char *machine, const bt_value *value,
		bt_self_component *self_comp)
{
	long double parsed = 0;

	if (bt_value_is_real(value)) {
		parsed = bt_value_real_get(value);
	} else if (bt_value_is_signed_integer(value)) {
		parsed = bt_value_integer_signed_get(value);
	} else if (bt_value_is_unsigned_integer(value)) {
		parsed = bt_value_integer_unsigned_get(value);
	} else if (!parse_real_string(value, &parsed)) {
		parsed = NAN;
	}

	if (!isfinite(parsed) || parsed <= 0) {
		PARAM_ERROR(self_comp, "Invalid parameter `transforms`: `slope` of "
			"machine `%s` must be a positive real number: a real, an "
			"integer, or a string holding a decimal number with all its "
			"digits (default 1.0).", machine);
		return false;
	}

	*slope = parsed;
	return true;
}

/* 2^63, exact in a long double. */
#define OFFSET_LIMIT 9223372036854775808.0L

static bool parse_offset(long double *offset_ns, const char *machine,
		const bt_value *value, bt_self_component *self_comp)
{
	long double parsed;

	if (bt_value_is_signed_integer(value)) {
		*offset_ns = bt_value_integer_signed_get(value);
		return true;
	}

	if (bt_value_is_unsigned_integer(value) &&
			bt_value_integer_unsigned_get(value) <= INT64_MAX) {
		*offset_ns = bt_value_integer_unsigned_get(value);
		return true;
	}

	if (parse_real_string(value, &parsed) && parsed >= -OFFSET_LIMIT &&
			parsed < OFFSET_LIMIT) {
		*offset_ns = parsed;
		return true;
	}

	PARAM_ERROR(self_comp, "Invalid parameter `transforms`: `offset-ns` of "
		"machine `%s` must be a number of nanoseconds between "
		"%" PRId64 " and %" PRId64 ": an integer, or a string holding a "
		"decimal number with all its digits (default 0).",
		machine, INT64_MIN, INT64_MAX);
	return false;
}

struct transform_parse {
	struct correlate_params *params;
	bt_self_component *self_comp;
	const char *machine;
	struct vm_sync_formula *formula;
	bool ok;
};

static bt_value_map_foreach_entry_const_func_status parse_formula_entry(
		const char *key, const bt_value *value, void *data)
{
	struct transform_parse *parse = data;

	if (strcmp(key, "slope") == 0) {
		parse->ok = parse_slope(&parse->formula->slope, parse->machine, value,
			parse->self_comp);
	} else if (strcmp(key, "offset-ns") == 0) {
		parse->ok = parse_offset(&parse->formula->offset_ns, parse->machine,
			value, parse->self_comp);
	} else {
		PARAM_ERROR(parse->self_comp, "Invalid parameter `transforms`: unknown "
			"key `%s` for machine `%s`; accepted keys are `slope` (real) "
			"and `offset-ns` (integer), each also as a string of a decimal "
			"number.", key, parse->machine);
		parse->ok = false;
	}

	return parse->ok ? BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK :
		BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
}

static bt_value_map_foreach_entry_const_func_status parse_transform_entry(
		const char *key, const bt_value *value, void *data)
{
	struct transform_parse *parse = data;
	struct vm_sync_formula *formula;

	if (!bt_value_is_map(value)) {
		PARAM_ERROR(parse->self_comp, "Invalid parameter `transforms`: the "
			"value for machine `%s` must be a map {slope=REAL, "
			"offset-ns=INTEGER}.", key);
		parse->ok = false;
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
	}

	formula = g_new(struct vm_sync_formula, 1);
	*formula = vm_sync_formula_identity();
	g_hash_table_insert(parse->params->transforms, g_strdup(key), formula);
	parse->machine = key;
	parse->formula = formula;
	parse->ok = true;
	bt_value_map_foreach_entry_const(value, parse_formula_entry, parse);
	return parse->ok ? BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK :
		BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
}

static bool parse_transforms(struct correlate_params *params, const bt_value *value,
		bt_self_component *self_comp)
{
	struct transform_parse parse = {
		.params = params,
		.self_comp = self_comp,
		.ok = true,
	};

	if (!bt_value_is_map(value)) {
		PARAM_ERROR(self_comp, "Invalid parameter `transforms`: expecting a "
			"map from machine name (`base-2` for `base#2`: a key cannot "
			"hold `#`) to {slope=REAL, offset-ns=INTEGER}, "
			"e.g. transforms={guest={slope=1.0,offset-ns=-1500}}.");
		return false;
	}

	bt_value_map_foreach_entry_const(value, parse_transform_entry, &parse);
	return parse.ok;
}

struct params_parse {
	struct correlate_params *params;
	bt_self_component *self_comp;
	bool ok;
};

static bt_value_map_foreach_entry_const_func_status parse_entry(const char *key,
		const bt_value *value, void *data)
{
	struct params_parse *parse = data;

	if (strcmp(key, "sync") == 0) {
		parse->ok = parse_sync(parse->params, value, parse->self_comp);
	} else if (strcmp(key, "sync-model") == 0) {
		parse->ok = parse_sync_model(parse->params, value, parse->self_comp);
	} else if (strcmp(key, "look-ahead-ns") == 0) {
		parse->ok = parse_look_ahead(parse->params, value, parse->self_comp);
	} else if (strcmp(key, "reference") == 0) {
		parse->ok = parse_machine_name(&parse->params->reference, key, value,
			parse->self_comp);
	} else if (strcmp(key, "host") == 0) {
		parse->ok = parse_machine_name(&parse->params->host, key, value,
			parse->self_comp);
	} else if (strcmp(key, "transforms") == 0) {
		parse->ok = parse_transforms(parse->params, value, parse->self_comp);
	} else {
		PARAM_ERROR(parse->self_comp, "Unknown parameter `%s`: "
			"filter.vm.correlate accepts " ACCEPTED_KEYS ".", key);
		parse->ok = false;
	}

	return parse->ok ? BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK :
		BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_ERROR;
}

bool correlate_params_parse(struct correlate_params *params,
		const bt_value *values, bt_self_component *self_comp)
{
	struct params_parse parse = {
		.params = params,
		.self_comp = self_comp,
		.ok = true,
	};

	params->sync = CORRELATE_SYNC_AUTO;
	params->model = CORRELATE_MODEL_PIECEWISE;
	params->look_ahead_ns = CORRELATE_DEFAULT_LOOK_AHEAD_NS;
	params->transforms = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, g_free);
	if (!values || !bt_value_is_map(values)) {
		return true;
	}

	bt_value_map_foreach_entry_const(values, parse_entry, &parse);
	return parse.ok;
}

void correlate_params_fini(struct correlate_params *params)
{
	g_free(params->reference);
	g_free(params->host);
	if (params->transforms) {
		g_hash_table_destroy(params->transforms);
	}
}
