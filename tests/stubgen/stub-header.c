/*
 * Header directives of the stub format.
 */

#include "stub-header.h"

#include <string.h>

#include "stub-net-layout.h"
#include "stub-number.h"

#define DEFAULT_CLOCK_OFFSET_S 1600000000
#define DEFAULT_PACKET_SIZE 4096

static const char accepted_directives[] =
	"hostname, clock-offset-s, clock-offset-ns, clock-uuid, tracer, cpus, "
	"packet-size, event, event-context, clock, packet-end-overlap, tracer-name, "
	"network-headers";

void stub_header_init(struct stub_header *header, const char *path)
{
	char *base = g_path_get_basename(path);

	if (g_str_has_suffix(base, ".stub")) {
		base[strlen(base) - strlen(".stub")] = '\0';
	}
	memset(header, 0, sizeof(*header));
	header->hostname = base;
	header->clock_offset_s = DEFAULT_CLOCK_OFFSET_S;
	header->tracer_name = g_strdup("lttng-modules");
	header->tracer_major = 2;
	header->tracer_minor = 10;
	header->packet_size = DEFAULT_PACKET_SIZE;
	header->has_clock = true;
	header->events = stub_event_table_create();
}

void stub_header_fini(struct stub_header *header)
{
	g_free(header->hostname);
	g_free(header->tracer_name);
	stub_event_table_destroy(header->events);
	header->hostname = NULL;
	header->tracer_name = NULL;
	header->events = NULL;
}

static bool expect_args(const struct stub_lexer *lexer, size_t count, const char *usage,
		GString *error)
{
	if (stub_lexer_count(lexer) != count + 1) {
		g_string_printf(error, "`%s` expects: %s", stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_u64_arg(const struct stub_lexer *lexer, uint64_t min, uint64_t max,
		const char *usage, uint64_t *value, GString *error)
{
	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (!stub_parse_u64(stub_lexer_token(lexer, 1), value) || *value < min || *value > max) {
		g_string_printf(error, "bad value `%s` of `%s`: expecting %s",
			stub_lexer_token(lexer, 1), stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_s64_arg(const struct stub_lexer *lexer, size_t index, const char *usage,
		int64_t *value, GString *error)
{
	if (!stub_parse_s64(stub_lexer_token(lexer, index), value)) {
		g_string_printf(error, "bad value `%s` of `%s`: expecting %s",
			stub_lexer_token(lexer, index), stub_lexer_token(lexer, 0), usage);
		return false;
	}
	return true;
}

static bool parse_uuid(const char *text, uint8_t uuid[16])
{
	static const int dash_positions[] = { 8, 13, 18, 23 };
	size_t out = 0;

	if (strlen(text) != 36) {
		return false;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(dash_positions); i++) {
		if (text[dash_positions[i]] != '-') {
			return false;
		}
	}
	for (size_t i = 0; i < 36 && out < 16; i++) {
		if (text[i] == '-') {
			continue;
		}
		if (!g_ascii_isxdigit(text[i]) || !g_ascii_isxdigit(text[i + 1])) {
			return false;
		}
		uuid[out++] = (uint8_t) (g_ascii_xdigit_value(text[i]) * 16 +
			g_ascii_xdigit_value(text[i + 1]));
		i++;
	}
	return out == 16;
}

static bool apply_clock_uuid(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hexadecimal)";

	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (!parse_uuid(stub_lexer_token(lexer, 1), header->clock_uuid)) {
		g_string_printf(error, "bad value `%s` of `clock-uuid`: expecting %s",
			stub_lexer_token(lexer, 1), usage);
		return false;
	}
	header->has_clock_uuid = true;
	return true;
}

static bool apply_tracer(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "MAJOR MINOR (two integers)";

	return expect_args(lexer, 2, usage, error) &&
		parse_s64_arg(lexer, 1, usage, &header->tracer_major, error) &&
		parse_s64_arg(lexer, 2, usage, &header->tracer_minor, error);
}

static bool apply_clock_offset_s(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "a signed integer (seconds)";

	return expect_args(lexer, 1, usage, error) &&
		parse_s64_arg(lexer, 1, usage, &header->clock_offset_s, error);
}

static bool apply_clock_offset_ns(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	uint64_t value;

	if (!parse_u64_arg(lexer, 0, 999999999, "an integer from 0 to 999999999 (nanoseconds)",
			&value, error)) {
		return false;
	}
	header->clock_offset_ns = (int64_t) value;
	return true;
}

static bool apply_clock(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "`monotonic` (default) or `none` (no clock class)";

	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	if (strcmp(stub_lexer_token(lexer, 1), "monotonic") == 0) {
		header->has_clock = true;
	} else if (strcmp(stub_lexer_token(lexer, 1), "none") == 0) {
		header->has_clock = false;
	} else {
		g_string_printf(error, "bad value `%s` of `clock`: expecting %s",
			stub_lexer_token(lexer, 1), usage);
		return false;
	}
	return true;
}

static bool apply_event(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	GString *detail;
	bool ok;

	if (stub_lexer_count(lexer) < 2) {
		g_string_printf(error, "`event` expects: NAME FIELD:TYPE ... with TYPE one of %s",
			stub_field_type_accepted());
		return false;
	}
	detail = g_string_new(NULL);
	ok = stub_event_table_declare(header->events, stub_lexer_token(lexer, 1),
		STUB_EVENT_LAYOUT_FLAT, (const char *const *) lexer->tokens->pdata + 2,
		stub_lexer_count(lexer) - 2, detail);
	if (!ok) {
		g_string_printf(error, "event `%s`: %s", stub_lexer_token(lexer, 1), detail->str);
	}
	g_string_free(detail, TRUE);
	return ok;
}

/* `event-context FIELD:TYPE ...`: the context fields of every event. */
static bool apply_event_context(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	GString *detail;
	bool ok;

	if (stub_lexer_count(lexer) < 2) {
		g_string_assign(error, "`event-context` expects: FIELD:TYPE ... with TYPE an "
			"integer type");
		return false;
	}
	detail = g_string_new(NULL);
	ok = stub_event_table_declare_context(header->events,
		(const char *const *) lexer->tokens->pdata + 1, stub_lexer_count(lexer) - 1,
		detail);
	if (!ok) {
		g_string_printf(error, "event-context: %s", detail->str);
	}
	g_string_free(detail, TRUE);
	return ok;
}

/*
 * `network-headers nested`: the network device events take the layout of
 * lttng-modules >= 2.9; `flat` gives them back their built-in definition.
 */
static bool apply_network_headers(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	static const char usage[] = "`flat` (default: seq, ack_seq, flags at top level, like "
		"the LTTng 2.1 addons) or `nested` (in variants, like lttng-modules >= 2.9)";
	bool nested;

	if (!expect_args(lexer, 1, usage, error)) {
		return false;
	}
	nested = strcmp(stub_lexer_token(lexer, 1), "nested") == 0;
	if (!nested && strcmp(stub_lexer_token(lexer, 1), "flat") != 0) {
		g_string_printf(error, "bad value `%s` of `network-headers`: expecting %s",
			stub_lexer_token(lexer, 1), usage);
		return false;
	}
	for (size_t i = 0; stub_net_event_names[i]; i++) {
		size_t count = 0;

		while (stub_net_line_fields[count]) {
			count++;
		}
		if (!nested) {
			stub_event_table_restore_builtin(header->events, stub_net_event_names[i]);
		} else if (!stub_event_table_declare(header->events, stub_net_event_names[i],
				STUB_EVENT_LAYOUT_NET_HEADERS, stub_net_line_fields, count, error)) {
			return false;
		}
	}
	return true;
}

bool stub_header_apply(struct stub_header *header, const struct stub_lexer *lexer,
		GString *error)
{
	const char *name = stub_lexer_token(lexer, 0);

	if (strcmp(name, "hostname") == 0) {
		if (!expect_args(lexer, 1, "a name (quote it if it has blanks)", error)) {
			return false;
		}
		g_free(header->hostname);
		header->hostname = g_strdup(stub_lexer_token(lexer, 1));
		return true;
	} else if (strcmp(name, "tracer-name") == 0) {
		if (!expect_args(lexer, 1, "a tracer name, e.g. lttng-modules", error)) {
			return false;
		}
		g_free(header->tracer_name);
		header->tracer_name = g_strdup(stub_lexer_token(lexer, 1));
		return true;
	} else if (strcmp(name, "clock-offset-s") == 0) {
		return apply_clock_offset_s(header, lexer, error);
	} else if (strcmp(name, "clock-offset-ns") == 0) {
		return apply_clock_offset_ns(header, lexer, error);
	} else if (strcmp(name, "clock-uuid") == 0) {
		return apply_clock_uuid(header, lexer, error);
	} else if (strcmp(name, "tracer") == 0) {
		return apply_tracer(header, lexer, error);
	} else if (strcmp(name, "cpus") == 0) {
		return parse_u64_arg(lexer, 1, STUB_MAX_CPUS, "an integer from 1 to 4096",
			&header->cpus, error);
	} else if (strcmp(name, "packet-size") == 0) {
		return parse_u64_arg(lexer, 1, UINT32_MAX, "a positive integer (events)",
			&header->packet_size, error);
	} else if (strcmp(name, "packet-end-overlap") == 0) {
		return parse_u64_arg(lexer, 0, UINT32_MAX, "an integer (nanoseconds)",
			&header->packet_end_overlap_ns, error);
	} else if (strcmp(name, "clock") == 0) {
		return apply_clock(header, lexer, error);
	} else if (strcmp(name, "event") == 0) {
		return apply_event(header, lexer, error);
	} else if (strcmp(name, "event-context") == 0) {
		return apply_event_context(header, lexer, error);
	} else if (strcmp(name, "network-headers") == 0) {
		return apply_network_headers(header, lexer, error);
	}
	g_string_printf(error, "unknown directive `%s`: expecting one of %s, "
		"or an event line TIMESTAMP CPU NAME [FIELD=VALUE ...]", name, accepted_directives);
	return false;
}

bool stub_header_check(const struct stub_header *header, GString *error)
{
	/*
	 * src.ctf.fs 2.0 applies LTTng index fix-ups that assume a clock class:
	 * it aborts on an LTTng trace without one.
	 */
	if (!header->has_clock && g_str_has_prefix(header->tracer_name, "lttng")) {
		g_string_printf(error, "`clock none` needs a `tracer-name` that does not start "
			"with `lttng` (now `%s`): babeltrace2's src.ctf.fs aborts on LTTng "
			"traces without a clock class", header->tracer_name);
		return false;
	}
	return true;
}

void stub_header_clock_uuid(const struct stub_header *header, uint8_t uuid[16])
{
	GChecksum *sha1;
	guint8 digest[20];
	gsize digest_len = sizeof(digest);

	if (header->has_clock_uuid) {
		memcpy(uuid, header->clock_uuid, 16);
		return;
	}
	/* Stable across runs, distinct across hostnames: a name-based UUID. */
	sha1 = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(sha1, (const guchar *) "vmstub clock ", -1);
	g_checksum_update(sha1, (const guchar *) header->hostname, -1);
	g_checksum_get_digest(sha1, digest, &digest_len);
	g_checksum_free(sha1);
	memcpy(uuid, digest, 16);
	uuid[6] = (uint8_t) ((uuid[6] & 0x0f) | 0x50);
	uuid[8] = (uint8_t) ((uuid[8] & 0x3f) | 0x80);
}
