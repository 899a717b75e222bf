#ifndef VM_PLUGIN_THREADS_PARAMS_H
#define VM_PLUGIN_THREADS_PARAMS_H

/* The parameters of sink.vm.threads, checked at initialization. */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "writers/writer.h"

struct threads_params {
	enum vm_writer_format format;
	enum vm_writer_what what;
	bool what_given;   /* else the text format prints every table */
	char *path;   /* NULL: standard output */
};

/*
 * Fills `out` from `params`. On a bad parameter, appends an error cause
 * naming the parameter and what it accepts, and returns false.
 */
bool threads_params_parse(const bt_value *params, bt_self_component *self_comp,
		struct threads_params *out);

void threads_params_clear(struct threads_params *params);

#endif /* VM_PLUGIN_THREADS_PARAMS_H */
