/*
 * The payload layout of lttng-modules >= 2.9 for net_dev_queue,
 * netif_receive_skb and net_if_receive_skb: the IPv4/IPv6 header and the
 * TCP header sit in variants (`network_header`, `transport_header`)
 * selected by enumerations (`network_header_type`, `transport_header_type`).
 *
 * Stub lines keep flat fields (stub_net_line_fields); the payload written
 * is always an IPv4 + TCP packet built from them.
 */

#ifndef VMSTUB_STUB_NET_LAYOUT_H
#define VMSTUB_STUB_NET_LAYOUT_H

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "stub-event-def.h"
#include "stub-event-line.h"

/* The events that take this layout with `network-headers nested`. */
extern const char *const stub_net_event_names[];

/* FIELD:TYPE specs of the fields a stub line gives for these events. */
extern const char *const stub_net_line_fields[];

bt_field_class *stub_net_payload_class_create(bt_trace_class *trace_class);

/* Fills a payload of stub_net_payload_class_create() from a parsed line. */
bool stub_net_payload_set(bt_field *payload, const struct stub_event_line *event,
		GString *error);

#endif /* VMSTUB_STUB_NET_LAYOUT_H */
