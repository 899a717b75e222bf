#ifndef VM_PLUGIN_THREADS_EVENT_KINDS_H
#define VM_PLUGIN_THREADS_EVENT_KINDS_H

/*
 * The kind of the events of each event class, as the decoder found it for
 * the first event of the class. With the kind known before decoding, the
 * sink can skip reading the fields of events that the analysis does not
 * look into (see vm_threads_needs_fields()).
 */

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "event.h"

struct event_kinds;

struct event_kinds *event_kinds_create(void);
void event_kinds_destroy(struct event_kinds *kinds);

/* The kind of the events of `event_class`; false while not learnt. */
bool event_kinds_lookup(struct event_kinds *kinds, const bt_event_class *event_class,
		enum vm_event_kind *kind);

/* Remembers the kind of the events of `event_class`. */
void event_kinds_learn(struct event_kinds *kinds, const bt_event_class *event_class,
		enum vm_event_kind kind);

#endif /* VM_PLUGIN_THREADS_EVENT_KINDS_H */
