#ifndef VM_CORRELATE_MIRROR_PARKED_PRIVATE_H
#define VM_CORRELATE_MIRROR_PARKED_PRIVATE_H

/*
 * What writing (mirror-parked.c) and reading back (mirror-unpark.c) a
 * parked event's record share: its layout and the kinds of fields.
 */

#include "correlate/mirror/mirror-internal.h"

/* The copy plans of an upstream event class's fields (value of `park_plans`). */
struct mirror_park_plans {
	struct mirror_copy_plan *common_context;
	struct mirror_copy_plan *specific_context;
	struct mirror_copy_plan *payload;
};

struct mirror_parked {
	const bt_event_class *event_class;  /* borrowed: its stream holds its class */
	const bt_stream *stream;            /* referenced */
	const bt_packet *packet;            /* referenced; NULL: the stream has none */
	int64_t own_ns;                     /* its own time, for error messages */
	size_t size;
	unsigned char data[];
};


/* The copy plans of `ec`'s fields, made on first use. */
struct mirror_park_plans *park_plans(struct mirror *mirror, const bt_event_class *ec);

#endif /* VM_CORRELATE_MIRROR_PARKED_PRIVATE_H */
