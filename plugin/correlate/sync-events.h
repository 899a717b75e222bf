#ifndef VM_CORRELATE_SYNC_EVENTS_H
#define VM_CORRELATE_SYNC_EVENTS_H

/*
 * Recognition of the events that synchronization uses: the one-way messages
 * of the vmsync and TCP protocols, and the KVM entries that tell the host.
 * What an event class is, and where its key fields live in the payload, is
 * worked out once per event class and cached, so an event costs one hash
 * lookup plus reading the fields.
 */

#include <stdbool.h>
#include <babeltrace2/babeltrace.h>

#include "sync/sync.h"

/* Key spaces of vm_sync_add_event(). */
#define SYNC_PROTOCOL_VMSYNC 0u
#define SYNC_PROTOCOL_TCP 1u

enum sync_event_kind {
	SYNC_EVENT_NONE,
	SYNC_EVENT_MESSAGE,    /* a vmsync or TCP send or receive */
	SYNC_EVENT_KVM_ENTRY,  /* kvm_entry / kvm_x86_entry */
};

struct sync_message {
	unsigned int protocol;
	struct vm_sync_key key;
	enum vm_sync_role role;
};

struct sync_event_reader;

struct sync_event_reader *sync_event_reader_create(void);
void sync_event_reader_destroy(struct sync_event_reader *reader);

/*
 * Whether events of that name can be vmsync or TCP messages (they may still
 * lack their key fields): a machine that declares none can never be paired.
 */
bool sync_event_name_is_message(const char *name);

/* Whether an event class of this name is a KVM entry (host evidence). */
bool sync_event_name_is_kvm_entry(const char *name);

/*
 * What `event` is. For SYNC_EVENT_MESSAGE, `out` holds its protocol, key
 * and role. A TCP event whose packet is not TCP (another variant option)
 * or a message event that lacks its key fields is SYNC_EVENT_NONE;
 * `*missing_fields` then tells the latter case, so the caller can warn.
 */
enum sync_event_kind sync_event_read(struct sync_event_reader *reader,
		const bt_event *event, struct sync_message *out, bool *missing_fields);

#endif /* VM_CORRELATE_SYNC_EVENTS_H */
