/*
 * The choice of each machine's map after the sync pass: one precedence
 * over the methods, and the warnings that name what is missing.
 */

#include <inttypes.h>
#include <string.h>

#include "correlate/strategy.h"
#include "correlate/choose.h"
#include "correlate/machines.h"
#include "sync/map-check.h"
#include "sync/precedence.h"

static bool method_allows(enum correlate_sync_method wanted, enum correlate_sync_method method)
{
	return wanted == CORRELATE_SYNC_AUTO || wanted == method;
}

bool correlate_refuse_map(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_segment *segments, unsigned int count)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	char *reason = vm_sync_map_refusal(segments, count);

	if (!reason) {
		return false;
	}

	vm_sync_map_set_formula(&info->map, &(struct vm_sync_formula) { 1.0L, 0.0L });
	info->quality = VM_SYNC_FAIL;
	info->accuracy = 0;
	if (machine_warn_once(machine, WARN_NO_SYNC)) {
		char *param = machine_param_name(iter->machines, machine);

		CORRELATE_LOGW(iter->log_level, iter->name,
			"Machine `%s`: the map that the %s method gives is not adopted: %s. "
			"Its times stay on its own clock (vm_sync_quality `fail`). Trace "
			"more synchronization messages, or pass "
			"transforms={%s={slope=S,offset-ns=O}}.", machine->name, info->method,
			reason, param);
		g_free(param);
	}

	g_free(reason);
	return true;
}

/*
 * A machine's map: Trace Compass's one line, or with sync-model="piecewise"
 * the segments of its pair with the reference; the entries that describe
 * the formula then describe the first segment (SPEC "Long traces").
 */
static void take_result(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_result *result, const char *method)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	struct vm_sync_segment line = { .begin = INT64_MIN, .formula = result->formula };
	const struct vm_sync_segment *segments = &line;
	unsigned int count = 1;

	if (iter->comp->params.model == CORRELATE_MODEL_PIECEWISE && result->segments) {
		unsigned int pieces;
		const struct vm_sync_segment *map = vm_sync_segments_map(result->segments, &pieces);

		if (pieces >= 2) {
			segments = map;
			count = pieces;
		}
	}

	info->method = method;
	if (correlate_refuse_map(iter, machine, segments, count)) {
		return;
	}

	vm_sync_map_set_formula(&info->map, &result->formula);
	info->quality = result->quality;
	info->accuracy = result->accuracy;
	info->matches = result->matches;
	if (count < 2) {
		return;
	}

	vm_sync_map_set_segments(&info->map, segments, count);
	info->quality = segments[0].quality;
	info->accuracy = segments[0].accuracy;
	info->matches = segments[0].matches;
}

const char *correlate_no_sync_advice(enum correlate_sync_method method)
{
	switch (method) {
	case CORRELATE_SYNC_VMSYNC:
		return "Trace the vmsync events on both machines (or pass sync=\"auto\" to "
			"use the other methods too)";
	case CORRELATE_SYNC_TCP:
		return "Trace the TCP events on both machines (or pass sync=\"auto\" to use "
			"the other methods too)";
	case CORRELATE_SYNC_VCPU:
		return "Trace the host's kvm_entry and kvm_exit events and more guest "
			"activity, or pass sync=\"auto\" to use vmsync or TCP messages too";
	default:
		return "Trace the vmsync or TCP events on both machines, or the host's "
			"kvm_entry and kvm_exit events and more guest activity";
	}
}

/* The messages that parameter `sync` lets match, as the warnings name them. */
static const char *sync_messages(enum correlate_sync_method method)
{
	switch (method) {
	case CORRELATE_SYNC_VMSYNC:
		return "vmsync";
	case CORRELATE_SYNC_TCP:
		return "TCP";
	case CORRELATE_SYNC_VCPU:
		return "vCPU guest-mode";
	default:
		return "vmsync or TCP";
	}
}

static void warn_no_sync(struct correlate_iter *iter, struct machine *machine,
		const struct machine *reference, const struct vcpu_solution *by_vcpu)
{
	enum correlate_sync_method method = iter->comp->params.sync;
	/* Before the warn-once test: it may set the quality. */
	char *vcpu_failure = correlate_vcpu_failure(iter, by_vcpu, machine);
	char *why;
	char *param;

	if (!machine_warn_once(machine, WARN_NO_SYNC)) {
		g_free(vcpu_failure);
		return;
	}

	if (method == CORRELATE_SYNC_VCPU) {
		why = g_strdup_printf("sync=\"vcpu\": %s", vcpu_failure ? vcpu_failure :
			"no vCPU alignment reaches it");
	} else {
		why = g_strdup_printf("sync=\"%s\": no %s message matched between them, "
			"directly or through other machines%s%s",
			correlate_sync_method_name(method), sync_messages(method),
			vcpu_failure ? "; vCPU alignment: " : "", vcpu_failure ? vcpu_failure : "");
	}

	param = machine_param_name(iter->machines, machine);
	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s` has no synchronization pair with the reference `%s` "
		"(%s): its times stay on its own clock (vm_sync_quality `%s`). %s, or "
		"pass transforms={%s={slope=S,offset-ns=O}}.",
		machine->name, reference->name, why,
		vm_sync_quality_name(correlate_machine_info(iter, machine)->quality),
		correlate_no_sync_advice(method), param);
	g_free(param);
	g_free(why);
	g_free(vcpu_failure);
}

void correlate_warn_if_no_line(struct correlate_iter *iter, struct machine *machine)
{
	struct machine_info *info = correlate_machine_info(iter, machine);
	struct machine *reference = correlate_reference_machine(iter);
	char *param;

	if (info->quality != VM_SYNC_INCOMPLETE || info->matches == 0 ||
			!machine_warn_once(machine, WARN_NO_SYNC)) {
		return;
	}

	param = machine_param_name(iter->machines, machine);
	CORRELATE_LOGW(iter->log_level, iter->name,
		"Machine `%s`: its %" PRIu64 " %s matches with the reference `%s` all go "
		"one way (vm_sync_quality `incomplete`): they bound its clock on one side "
		"only and no line fits them, so its times stay on its own clock%s. Trace "
		"the messages of both directions, or pass "
		"transforms={%s={slope=S,offset-ns=O}}.", machine->name, info->matches,
		info->method, reference ? reference->name : "(none)",
		correlate_reads_once(iter) ? " until matches come both ways" :
		vm_sync_map_segment_count(&info->map) > 1 ?
			" until its first segment with matches both ways" : "",
		param);
	g_free(param);
}

/* Each machine's map, in the precedence of sync/precedence.h. */
void correlate_choose_results(struct correlate_iter *iter, const struct vm_sync_result *by_vmsync,
		const struct vcpu_solution *by_vcpu, const struct vm_sync_result *by_tcp,
		const struct machine *reference, const unsigned int *sync_index)
{
	enum correlate_sync_method wanted = iter->comp->params.sync;
	unsigned int i;

	/* Who runs whom is known apart from whose clock the fit sets. */
	correlate_vcpu_note_identities(iter, by_vcpu->fits, by_vcpu->fit_count);
	for (i = 0; i < machine_table_count(iter->machines); i++) {
		struct machine *machine = machine_table_at(iter->machines, i);
		struct machine_info *info = correlate_machine_info(iter, machine);

		/* A clockless machine has nothing to synchronize (already warned). */
		if (i >= iter->sync_count || info->is_reference || !machine->has_clock ||
				g_hash_table_contains(iter->comp->params.transforms, machine->name)) {
			continue;
		}

		const struct vm_sync_result *vmsync = method_allows(wanted,
			CORRELATE_SYNC_VMSYNC) && by_vmsync[sync_index[i]].parent >= 0 ?
			&by_vmsync[sync_index[i]] : NULL;
		const struct vm_sync_result *tcp = method_allows(wanted, CORRELATE_SYNC_TCP) &&
			by_tcp[sync_index[i]].parent >= 0 ? &by_tcp[sync_index[i]] : NULL;

		struct vm_sync_offer offer = {
			.vmsync = vmsync != NULL,
			.vmsync_line = vmsync && vmsync->quality != VM_SYNC_INCOMPLETE,
			.vcpu = method_allows(wanted, CORRELATE_SYNC_VCPU) &&
				correlate_vcpu_has_path(iter, by_vcpu, machine),
			.tcp = tcp != NULL,
			.tcp_line = tcp && tcp->quality != VM_SYNC_INCOMPLETE,
		};

		switch (vm_sync_precedence(&offer)) {
		case VM_SYNC_SOURCE_VMSYNC:
			take_result(iter, machine, vmsync, "vmsync");
			if (!offer.vmsync_line) {
				correlate_warn_if_no_line(iter, machine);
			}

			break;
		case VM_SYNC_SOURCE_VCPU:
			take_result(iter, machine, &by_vcpu->results[sync_index[i]], "vcpu");
			break;
		case VM_SYNC_SOURCE_TCP:
			take_result(iter, machine, tcp, "tcp");
			correlate_warn_if_no_line(iter, machine);
			break;
		default:
			warn_no_sync(iter, machine, reference, by_vcpu);
		}
	}
}
