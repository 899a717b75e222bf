#ifndef VM_PLUGIN_COMMON_MESSAGE_STREAM_H
#define VM_PLUGIN_COMMON_MESSAGE_STREAM_H

/* The stream a message belongs to. */

#include <babeltrace2/babeltrace.h>

/* NULL for messages of no stream (message iterator inactivity). */
const bt_stream *vm_message_stream(const bt_message *msg);

/* The same, for a caller that already asked the message's type. */
const bt_stream *vm_message_stream_of_type(const bt_message *msg,
		bt_message_type type);

#endif /* VM_PLUGIN_COMMON_MESSAGE_STREAM_H */
