#ifndef VM_CORRELATE_DUPLICATE_INPUTS_H
#define VM_CORRELATE_DUPLICATE_INPUTS_H

/*
 * The same trace given twice (two src.ctf.fs on one trace directory in a
 * `babeltrace2 run` graph): each of its events comes out twice, and the
 * analysis downstream counts everything double, without a word. Each
 * stream is known by its trace's UUID (else its clock's UUID and its
 * name), its stream class id and its id: two stream objects with the same
 * identity are the same stream read twice. Said once.
 */

#include <babeltrace2/babeltrace.h>

struct duplicate_inputs;

struct duplicate_inputs *duplicate_inputs_create(void);
void duplicate_inputs_destroy(struct duplicate_inputs *inputs);

/*
 * A stream seen for the first time. Returns the warning to log (g_free()
 * it) the first time a stream repeats another's identity, else NULL.
 */
char *duplicate_inputs_note(struct duplicate_inputs *inputs, const bt_stream *stream);

#endif /* VM_CORRELATE_DUPLICATE_INPUTS_H */
