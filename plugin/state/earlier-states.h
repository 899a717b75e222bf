#ifndef VM_STATE_EARLIER_STATES_H
#define VM_STATE_EARLIER_STATES_H

/*
 * The vm:vcpu_state streams of the input: written by an earlier
 * filter.vm.state (read back from a copy that sink.ctf.fs wrote, or a
 * second filter.vm.state in the graph). filter.vm.state computes the vCPU
 * modes again and replaces them: passed on, they would give every change
 * twice and, in a copy of the output, a second vm-state trace each time.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

struct earlier_states;

struct earlier_states *earlier_states_create(void);
void earlier_states_destroy(struct earlier_states *states);

/*
 * Whether `stream` (that of a message, NULL for none) has a class with a
 * `vm:vcpu_state` event class. `first` is set the first time it is true.
 */
bool earlier_states_has(struct earlier_states *states, const bt_stream *stream,
		bool *first);

#endif /* VM_STATE_EARLIER_STATES_H */
