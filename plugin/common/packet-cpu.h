#ifndef VM_PLUGIN_COMMON_PACKET_CPU_H
#define VM_PLUGIN_COMMON_PACKET_CPU_H

/*
 * The CPU a packet was recorded on: its context's `cpu_id` (LTTng's),
 * signed or unsigned, as the event decoder reads it for events.
 */

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* VM_FIELD_MISSING (lib/event.h) when the packet has no usable `cpu_id`. */
int64_t vm_packet_cpu_id(const bt_packet *packet);

#endif /* VM_PLUGIN_COMMON_PACKET_CPU_H */
