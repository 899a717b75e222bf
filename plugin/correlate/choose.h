#ifndef VM_CORRELATE_CHOOSE_H
#define VM_CORRELATE_CHOOSE_H

/*
 * Each machine's map from what the sync sources solved: one precedence
 * over the methods (vmsync, then the vCPU method, then TCP), and the
 * warnings that name what was missing.
 */

#include "correlate/context.h"
#include "correlate/vcpu/vcpu-solve.h"
#include "sync/sync.h"

/* Sets every machine's map, method and quality from the sync pass's results. */
void correlate_choose_results(struct correlate_iter *iter, const struct vm_sync_result *by_vmsync,
		const struct vcpu_solution *by_vcpu, const struct vm_sync_result *by_tcp,
		const struct machine *reference, const unsigned int *sync_index);

/*
 * What to trace when no method synchronized a machine, for parameter
 * `sync`'s value: a sentence for the warnings of both strategies.
 */
const char *correlate_no_sync_advice(enum correlate_sync_method method);

/*
 * The last check of a synchronized map (sync/map-check.h): true when
 * `segments` fail it; the machine then keeps its own clock (quality
 * `fail`), with a warning that names its method (info->method) and why.
 */
bool correlate_refuse_map(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_segment *segments, unsigned int count);

/*
 * Warns (once per machine) when the formula `machine` took has matches but
 * no line: they all go one way (quality `incomplete`), so its times stay on
 * its own clock where that formula applies.
 */
void correlate_warn_if_no_line(struct correlate_iter *iter, struct machine *machine);

#endif /* VM_CORRELATE_CHOOSE_H */
