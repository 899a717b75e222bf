/*
 * lttng-modules >= 2.9 layout of the network device events.
 */

#include "stub-net-layout.h"

#include <string.h>

const char *const stub_net_event_names[] = {
	"net_dev_queue", "netif_receive_skb", "net_if_receive_skb", NULL,
};

/* Addresses are IPv4 in host order: 0x0a000001 is 10.0.0.1. */
const char *const stub_net_line_fields[] = {
	"skbaddr:x64", "len:u32", "name:string", "saddr:x32", "daddr:x32", "source:u16",
	"dest:u16", "seq:u32", "ack_seq:u32", "flags:u16", "window:u16", NULL,
};

/* One integer member (or static array of them) of a header structure. */
struct header_member {
	const char *name;
	unsigned int bits;
	bool hex;
	/* 0: a single integer */
	unsigned int array_length;
};

static const struct header_member ipv4_members[] = {
	{ "version", 4, false, 0 }, { "ihl", 4, false, 0 }, { "tos", 8, false, 0 },
	{ "tot_len", 16, false, 0 }, { "id", 16, true, 0 }, { "frag_off", 16, false, 0 },
	{ "ttl", 8, false, 0 }, { "protocol", 8, true, 0 }, { "checksum", 16, true, 0 },
	{ "saddr", 8, false, 4 }, { "daddr", 8, false, 4 }, { NULL, 0, false, 0 },
};

static const struct header_member ipv6_members[] = {
	{ "version", 4, false, 0 }, { "prio", 4, false, 0 }, { "flow_lbl", 8, false, 3 },
	{ "payload_len", 16, false, 0 }, { "nexthdr", 8, true, 0 }, { "hop_limit", 8, false, 0 },
	{ "saddr", 16, true, 8 }, { "daddr", 16, true, 8 }, { NULL, 0, false, 0 },
};

static const struct header_member tcp_members[] = {
	{ "source", 16, false, 0 }, { "dest", 16, false, 0 }, { "seq", 32, true, 0 },
	{ "ack_seq", 32, true, 0 }, { "flags", 16, true, 0 }, { "window", 16, false, 0 },
	{ "check", 16, true, 0 }, { "urg_ptr", 16, true, 0 }, { NULL, 0, false, 0 },
};

static const struct header_member no_members[] = { { NULL, 0, false, 0 } };

/* A variant's options: enumeration label, option name, members. */
struct header_option {
	const char *label;
	const char *name;
	const struct header_member *members;
};

static const struct header_option network_options[] = {
	{ "_none", "none", no_members }, { "_ipv4", "ipv4", ipv4_members },
	{ "_ipv6", "ipv6", ipv6_members }, { NULL, NULL, NULL },
};

static const struct header_option transport_options[] = {
	{ "_none", "none", no_members }, { "_tcp", "tcp", tcp_members }, { NULL, NULL, NULL },
};

#define NETWORK_IPV4 1
#define TRANSPORT_TCP 1

static bt_field_class *create_unsigned(bt_trace_class *trace_class, unsigned int bits, bool hex)
{
	bt_field_class *fc = bt_field_class_integer_unsigned_create(trace_class);

	if (fc) {
		bt_field_class_integer_set_field_value_range(fc, bits);
		bt_field_class_integer_set_preferred_display_base(fc, hex ?
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL :
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL);
	}
	return fc;
}

/* Appends `member` to `structure` and drops the caller's reference. */
static bool append(bt_field_class *structure, const char *name, bt_field_class *member)
{
	bool ok = member && bt_field_class_structure_append_member(structure, name, member) ==
		BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(member);
	return ok;
}

static bt_field_class *create_header_structure(bt_trace_class *trace_class,
		const struct header_member *members)
{
	bt_field_class *structure = bt_field_class_structure_create(trace_class);

	for (size_t i = 0; structure && members[i].name; i++) {
		bt_field_class *member = create_unsigned(trace_class, members[i].bits,
			members[i].hex);

		if (member && members[i].array_length) {
			bt_field_class *array = bt_field_class_array_static_create(trace_class,
				member, members[i].array_length);

			bt_field_class_put_ref(member);
			member = array;
		}
		if (!append(structure, members[i].name, member)) {
			bt_field_class_put_ref(structure);
			return NULL;
		}
	}
	return structure;
}

static bt_integer_range_set_unsigned *single_value(uint64_t value)
{
	bt_integer_range_set_unsigned *ranges = bt_integer_range_set_unsigned_create();

	if (ranges && bt_integer_range_set_unsigned_add_range(ranges, value, value) !=
			BT_INTEGER_RANGE_SET_ADD_RANGE_STATUS_OK) {
		bt_integer_range_set_unsigned_put_ref(ranges);
		return NULL;
	}
	return ranges;
}

static bt_field_class *create_selector(bt_trace_class *trace_class,
		const struct header_option *options)
{
	bt_field_class *selector = bt_field_class_enumeration_unsigned_create(trace_class);

	if (!selector) {
		return NULL;
	}
	bt_field_class_integer_set_field_value_range(selector, 8);
	for (uint64_t i = 0; options[i].label; i++) {
		bt_integer_range_set_unsigned *ranges = single_value(i);
		bool ok = ranges && bt_field_class_enumeration_unsigned_add_mapping(selector,
			options[i].label, ranges) == BT_FIELD_CLASS_ENUMERATION_ADD_MAPPING_STATUS_OK;

		bt_integer_range_set_unsigned_put_ref(ranges);
		if (!ok) {
			bt_field_class_put_ref(selector);
			return NULL;
		}
	}
	return selector;
}

static bt_field_class *create_variant(bt_trace_class *trace_class, bt_field_class *selector,
		const struct header_option *options)
{
	bt_field_class *variant = bt_field_class_variant_create(trace_class, selector);

	for (uint64_t i = 0; variant && options[i].label; i++) {
		bt_integer_range_set_unsigned *ranges = single_value(i);
		bt_field_class *members = create_header_structure(trace_class, options[i].members);
		bool ok = ranges && members &&
			bt_field_class_variant_with_selector_field_integer_unsigned_append_option(
				variant, options[i].name, members, ranges) ==
			BT_FIELD_CLASS_VARIANT_WITH_SELECTOR_FIELD_APPEND_OPTION_STATUS_OK;

		bt_field_class_put_ref(members);
		bt_integer_range_set_unsigned_put_ref(ranges);
		if (!ok) {
			bt_field_class_put_ref(variant);
			return NULL;
		}
	}
	return variant;
}

/*
 * Appends `selector_name` (an enumeration whose labels are the options'
 * names with a leading `_`, as LTTng writes them) and, after it, the
 * variant it selects.
 */
static bool append_header_variant(bt_trace_class *trace_class, bt_field_class *payload,
		const char *selector_name, const char *variant_name,
		const struct header_option *options)
{
	bt_field_class *selector = create_selector(trace_class, options);
	bt_field_class *variant = selector ? create_variant(trace_class, selector, options) : NULL;
	bool ok = variant &&
		bt_field_class_structure_append_member(payload, selector_name, selector) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK &&
		bt_field_class_structure_append_member(payload, variant_name, variant) ==
			BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK;

	bt_field_class_put_ref(variant);
	bt_field_class_put_ref(selector);
	return ok;
}

bt_field_class *stub_net_payload_class_create(bt_trace_class *trace_class)
{
	bt_field_class *payload = bt_field_class_structure_create(trace_class);
	bool ok = payload &&
		append(payload, "skbaddr", create_unsigned(trace_class, 64, true)) &&
		append(payload, "len", create_unsigned(trace_class, 32, false)) &&
		append(payload, "name", bt_field_class_string_create(trace_class)) &&
		append_header_variant(trace_class, payload, "network_header_type",
			"network_header", network_options) &&
		append_header_variant(trace_class, payload, "transport_header_type",
			"transport_header", transport_options);

	if (!ok) {
		bt_field_class_put_ref(payload);
		return NULL;
	}
	return payload;
}

/* The value of a flat line field, 0 when the line's event has no such field. */
static uint64_t line_value(const struct stub_event_line *event, const char *name)
{
	int index = stub_event_def_field_index(event->def, name);

	return index < 0 ? 0 : g_array_index(event->values, union stub_value, index).u;
}

static void set_member(bt_field *structure, const char *name, uint64_t value)
{
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_name(structure, name), value);
}

/* An IPv4 address (host order) as the 4 bytes of `saddr` / `daddr`. */
static void set_address(bt_field *ipv4, const char *name, uint64_t address)
{
	bt_field *bytes = bt_field_structure_borrow_member_field_by_name(ipv4, name);

	for (uint64_t i = 0; i < 4; i++) {
		bt_field_integer_unsigned_set_value(
			bt_field_array_borrow_element_field_by_index(bytes, i),
			(address >> (24 - 8 * i)) & 0xff);
	}
}

static bt_field *select_option(bt_field *payload, const char *selector_name,
		const char *variant_name, uint64_t option)
{
	bt_field *variant = bt_field_structure_borrow_member_field_by_name(payload, variant_name);

	/* The written tag comes from the selector field: keep both in step. */
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_name(payload, selector_name), option);
	if (bt_field_variant_select_option_by_index(variant, option) !=
			BT_FIELD_VARIANT_SELECT_OPTION_STATUS_OK) {
		return NULL;
	}
	return bt_field_variant_borrow_selected_option_field(variant);
}

static void set_ipv4(bt_field *ipv4, const struct stub_event_line *event)
{
	set_member(ipv4, "version", 4);
	set_member(ipv4, "ihl", 5);
	set_member(ipv4, "tos", 0);
	set_member(ipv4, "tot_len", line_value(event, "len") & 0xffff);
	set_member(ipv4, "id", 0);
	set_member(ipv4, "frag_off", 0x4000); /* don't fragment */
	set_member(ipv4, "ttl", 64);
	set_member(ipv4, "protocol", 6); /* TCP */
	set_member(ipv4, "checksum", 0);
	set_address(ipv4, "saddr", line_value(event, "saddr"));
	set_address(ipv4, "daddr", line_value(event, "daddr"));
}

static void set_tcp(bt_field *tcp, const struct stub_event_line *event)
{
	static const char *const from_line[] = {
		"source", "dest", "seq", "ack_seq", "flags", "window", NULL,
	};

	for (size_t i = 0; from_line[i]; i++) {
		set_member(tcp, from_line[i], line_value(event, from_line[i]));
	}
	set_member(tcp, "check", 0);
	set_member(tcp, "urg_ptr", 0);
}

bool stub_net_payload_set(bt_field *payload, const struct stub_event_line *event,
		GString *error)
{
	int name_index = stub_event_def_field_index(event->def, "name");
	bt_field *ipv4, *tcp;

	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_name(payload, "skbaddr"),
		line_value(event, "skbaddr"));
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_name(payload, "len"),
		line_value(event, "len"));
	if (bt_field_string_set_value(bt_field_structure_borrow_member_field_by_name(payload,
			"name"), name_index < 0 ? "" :
			g_array_index(event->values, union stub_value, name_index).str) !=
			BT_FIELD_STRING_SET_VALUE_STATUS_OK) {
		g_string_assign(error, "Cannot set a string field (out of memory?).");
		return false;
	}
	ipv4 = select_option(payload, "network_header_type", "network_header", NETWORK_IPV4);
	tcp = select_option(payload, "transport_header_type", "transport_header", TRANSPORT_TCP);
	if (!ipv4 || !tcp) {
		g_string_assign(error, "Cannot select a network header variant option.");
		return false;
	}
	set_ipv4(ipv4, event);
	set_tcp(tcp, event);
	return true;
}
