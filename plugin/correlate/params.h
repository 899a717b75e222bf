#ifndef VM_CORRELATE_PARAMS_H
#define VM_CORRELATE_PARAMS_H

/*
 * The parameters of filter.vm.correlate, checked at component
 * initialization: an unknown key or a wrong type stops the graph with an
 * error cause naming the parameter and what it accepts.
 */

#include <stdbool.h>
#include <glib.h>
#include <babeltrace2/babeltrace.h>

#include "sync/formula.h"

enum correlate_sync_method {
	CORRELATE_SYNC_AUTO,
	CORRELATE_SYNC_VMSYNC,
	CORRELATE_SYNC_TCP,
	CORRELATE_SYNC_NONE,
	CORRELATE_SYNC_VCPU,   /* guest events inside the host's guest-mode intervals */
};

/* How a machine's clock maps to the reference (SPEC "Long traces"). */
enum correlate_sync_model {
	CORRELATE_MODEL_PIECEWISE,  /* continuous segments, a new one where a line stops fitting */
	CORRELATE_MODEL_LINEAR,     /* one line per machine, as Trace Compass */
};

/* Default `look-ahead-ns`: 50 ms of trace time. */
#define CORRELATE_DEFAULT_LOOK_AHEAD_NS INT64_C(50000000)

struct correlate_params {
	enum correlate_sync_method sync;
	enum correlate_sync_model model;
	/* One pass: how far past a message each machine is read before it is mapped. */
	int64_t look_ahead_ns;

	/* Machine names, NULL when not given. */
	char *reference;
	char *host;

	/* Machine name (char *) -> struct vm_sync_formula *, both owned. */
	GHashTable *transforms;
};

/* "auto", "vmsync", "tcp", "none", "vcpu". */
const char *correlate_sync_method_name(enum correlate_sync_method method);

/* "piecewise", "linear". */
const char *correlate_sync_model_name(enum correlate_sync_model model);

/* Fills `params` from the component's parameters; false with an error cause. */
bool correlate_params_parse(struct correlate_params *params,
		const bt_value *values, bt_self_component *self_comp);

void correlate_params_fini(struct correlate_params *params);

#endif /* VM_CORRELATE_PARAMS_H */
