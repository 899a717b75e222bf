#ifndef VM_COMMON_EVENT_DECODE_H
#define VM_COMMON_EVENT_DECODE_H

/*
 * Translation of babeltrace2 event messages into the library's plain events
 * (lib/event.h). Event classes are recognized by name once and cached, so
 * the per-event cost is a hash lookup on the event class plus reading the
 * fields the analysis needs.
 */

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "event.h"

struct event_decoder;

struct event_decoder *event_decoder_create(void);
/*
 * A decoder whose events have "" for the strings of frequent events (comm
 * of scheduler events, ...): for a user that never reads them, which saves
 * reading them. The names of state dump and fork events, rare, are read.
 */
struct event_decoder *event_decoder_create_without_strings(void);
void event_decoder_destroy(struct event_decoder *decoder);

/*
 * Fills `out` from an event message whose default clock snapshot gives
 * out->ts (ns from origin). `out->machine` is left to the caller. Returns
 * false when the event is not one the analysis uses (out->kind is then
 * VM_EVENT_OTHER). Missing integer fields read VM_FIELD_MISSING, missing
 * strings "".
 */
bool event_decoder_decode(struct event_decoder *decoder,
		const bt_message *event_msg, struct vm_event *out);

/*
 * event_decoder_decode() of an event whose time the caller already read
 * (`ts`, ns from origin, as event_decoder_decode() would read it): the
 * clock snapshot is not read again.
 */
bool event_decoder_decode_at(struct event_decoder *decoder,
		const bt_event *event, int64_t ts, struct vm_event *out);

/*
 * The kind of the events of `event_class`, as event_decoder_decode() would
 * set it, without reading any field: for a user that decodes only some
 * kinds. The class is learnt on first sight, as by event_decoder_decode().
 */
enum vm_event_kind event_decoder_kind(struct event_decoder *decoder,
		const bt_event_class *event_class);

/*
 * The packet context `cpu_id` of any event (whatever its kind), as
 * event_decoder_decode() would set out->cpu: VM_FIELD_MISSING if none.
 */
int64_t event_decoder_cpu_id(struct event_decoder *decoder, const bt_event *event);

/*
 * The `pid_ns` context field of any event (whatever its kind), as
 * event_decoder_decode() would set out->pid_ns: 0 if none. For a user that
 * does not decode events of VM_EVENT_OTHER kind but follows containers.
 */
int64_t event_decoder_pid_ns(struct event_decoder *decoder, const bt_event *event);

/* The default clock of an event message. */
struct event_clock {
	const bt_clock_class *clock_class;  /* NULL: none */
	uint64_t value;                     /* of the snapshot, in cycles */
};

/*
 * event_decoder_decode(), also giving the event's clock (a user that needs
 * it later, when the message is no longer in the CPU caches, saves reading
 * it again). `clock->clock_class` is NULL when the event is not decoded.
 */
bool event_decoder_decode_with_clock(struct event_decoder *decoder,
		const bt_message *event_msg, struct vm_event *out,
		struct event_clock *clock);

#endif /* VM_COMMON_EVENT_DECODE_H */
