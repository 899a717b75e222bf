/*
 * Read once: the warnings and errors about a machine left without a map,
 * and the note when the sync pass takes over.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/choose.h"
#include "correlate/machines.h"
#include "correlate/vcpu/vcpu-onepass.h"
#include "correlate/read-once/read-once-private.h"

static const char *reference_name(struct correlate_iter *iter)
{
	struct machine *reference = correlate_reference_machine(iter);

	return reference ? reference->name : "(none)";
}

/*
 * Which of the machine and the reference declares no vmsync or TCP event,
 * as the warning names it; NULL when both do, so that such messages may
 * pair them some day (live sources declare the event classes they will
 * send, in the metadata before the events).
 */
const char *read_once_trace_without_sync(struct correlate_iter *iter,
		const struct read_once_machine *op)
{
	struct machine *reference = correlate_reference_machine(iter);

	if (!correlate_machine_info(iter, op->machine)->declares_sync) {
		return "its trace";
	}

	if (!reference || !correlate_machine_info(iter, reference)->declares_sync) {
		return "the reference's trace";
	}

	return NULL;
}

/* Why `op`'s machine has no map, as a clause (freed by the caller). */
static char *read_once_unsynchronized_reason(struct correlate_iter *iter, const struct read_once_machine *op)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	struct machine *machine = op->machine;
	const char *without = read_once_trace_without_sync(iter, op);
	char *reason, *vcpu_reason;

	/* What was missing, as a clause of the warning. */
	reason = without ? g_strdup_printf("%s declares no vmsync or TCP event", without) :
		method == CORRELATE_SYNC_VCPU ? g_strdup("") :
		g_strdup_printf("no %s message matched between them in the %" PRId64
			" s after its first event, or while %d messages waited",
			method == CORRELATE_SYNC_VMSYNC ? "vmsync" :
				method == CORRELATE_SYNC_TCP ? "TCP" : "vmsync or TCP",
			VM_SYNC_FIRST_WAIT_NS / 1000000000, VM_SYNC_FIRST_WAIT_MESSAGES);
	if (op->vcpu_tried && op->vcpu_fit.status != VM_VCPU_FIT_OK) {
		/* The vCPU method was tried too: why it did not fit. */
		vcpu_reason = correlate_vcpu_onepass_failure(iter, machine, &op->vcpu_fit);
		if (op->vcpu_fit.status == VM_VCPU_FIT_AMBIGUOUS ||
				op->vcpu_fit.status == VM_VCPU_FIT_TAKEN) {
			correlate_machine_info(iter, machine)->quality = VM_SYNC_FAIL;
		}

		char *both = g_strdup_printf("%s%svCPU alignment: %s", reason,
			*reason ? "; " : "", vcpu_reason);

		g_free(reason);
		g_free(vcpu_reason);
		reason = both;
	}

	return reason;
}

void read_once_warn_unsynchronized(struct correlate_iter *iter, const struct read_once_machine *op)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	struct machine *machine = op->machine;
	char *reason;
	char *param;

	if (!machine_warn_once(machine, WARN_NO_SYNC)) {
		return;
	}

	reason = read_once_unsynchronized_reason(iter, op);
	param = machine_param_name(iter->machines, machine);
	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s` has no synchronization pair with the reference `%s` "
		"(sync=\"%s\", inputs read once: %s): its times stay on its own "
		"clock (vm_sync_quality `%s`). %s, or pass "
		"transforms={%s={slope=S,offset-ns=O}}.", machine->name,
		reference_name(iter), correlate_sync_method_name(method), reason,
		vm_sync_quality_name(correlate_machine_info(iter, machine)->quality),
		correlate_no_sync_advice(method), param);
	g_free(param);
	g_free(reason);
}

/*
 * A machine left unsynchronized in inputs cut at a time before correlate
 * (merge.c notes the cut): an error, not the warning. Each machine was cut
 * on its own clock, and what synchronizes it may lie before the cut (the
 * host's process list, which the vCPU method needs, is at the beginning
 * of its trace); its times would come out milliseconds or more off. The
 * trimmer after correlate cuts the synchronized output instead.
 */
void read_once_fail_after_cut(struct correlate_iter *iter,
		const struct read_once_machine *op)
{
	char *reason = read_once_unsynchronized_reason(iter, op);
	int64_t cut = iter->input_cut_ns;
	/* The time as filter.utils.trimmer's `begin` takes it. */
	char *begin = g_strdup_printf("%s%" PRId64 ".%09" PRId64, cut < 0 ? "-" : "",
		cut < 0 ? -(cut / 1000000000) : cut / 1000000000,
		cut < 0 ? -(cut % 1000000000) : cut % 1000000000);

	ITER_ERROR(iter, "Machine `%s` cannot be synchronized with the reference `%s`"
		"%s%s%s: its input was cut at %s (each machine on its own clock) by a "
		"trimmer before filter.vm.correlate (the convert form's --begin or "
		"--timerange, TraceCollectionMessageIterator's `begin`), and what "
		"synchronizes it may be before that time (the host's process list at the "
		"beginning of its trace, earlier vmsync or TCP messages). Put "
		"filter.utils.trimmer after filter.vm.correlate instead (and after "
		"filter.vm.state, which needs the beginning too), to cut the "
		"synchronized output in the reference's time base: babeltrace2 TRACE... "
		"--component=filter.vm.correlate [--component=filter.vm.state] "
		"--component=filter.utils.trimmer --params='begin=\"%s\"' "
		"--component=SINK (with an end: begin=\"%s\",end=\"END\"); in Python, "
		"a bt2.Graph with the trimmer after those filters.", op->machine->name,
		reference_name(iter), *reason ? " (" : "", reason, *reason ? ")" : "",
		begin, begin, begin);
	g_free(begin);
	g_free(reason);
}

void read_once_log_fall_back(struct correlate_iter *iter, const struct read_once_machine *op)
{
	const char *without = read_once_trace_without_sync(iter, op);
	char *vcpu = op->vcpu_tried && op->vcpu_fit.status != VM_VCPU_FIT_OK ?
		correlate_vcpu_onepass_failure(iter, op->machine, &op->vcpu_fit) : NULL;

	CORRELATE_LOGI(iter->log_level, iter->name,
		"Machine `%s` has no direct vmsync or TCP pair with the reference `%s` "
		"(%s)%s%s: filter.vm.correlate reads its inputs again, from the "
		"beginning, with a synchronization pass, which sees the whole trace "
		"first (%s), instead of reading them once.",
		op->machine->name, reference_name(iter),
		without ? (strcmp(without, "its trace") == 0 ?
			"its trace declares no vmsync or TCP event" :
			"the reference's trace declares no vmsync or TCP event") :
			"no such message matched them in what was read",
		vcpu ? ", and no vCPU alignment in what was read: " : "", vcpu ? vcpu : "",
		op->vcpu_tried ? "the vCPU method on all of it, later matches, paths through "
			"other machines" :
		iter->comp->params.sync == CORRELATE_SYNC_AUTO ?
			"later matches, the vCPU method from stock KVM events, paths "
			"through other machines" :
			"later matches, paths through other machines");
	g_free(vcpu);
}
