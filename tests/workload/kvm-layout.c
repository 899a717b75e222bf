#include "kvm-layout.h"

#include "emit.h"

/* Keeps the layout's draws apart from the simulation's and the losses'. */
#define LAYOUT_SEED_SALT UINT64_C(0x6b766d6c61796f75)
/* The direct map, where kmalloc'd objects such as struct kvm_vcpu live:
 * only the low 32 bits reach the trace. */
#define DIRECT_MAP_BASE UINT64_C(0xffff888100000000)
/* struct kvm_vcpu is at least cache-line aligned. */
#define VCPU_ALIGN 64
/* The lowest page is never mapped: a pointer's low half is no small number
 * (and so never a plausible vCPU number). */
#define MIN_LOW_HALF 4096
/* kvm_exit's intr_info of an external interrupt: valid bit, vector 0xec
 * (the host's local timer). */
#define VMX_INTR_INFO_TIMER 0x800000ecu

static const char *const modern_defs[] = {
	"kvm_x86_exit exit_reason:u32 guest_rip:x64 isa:u32 info1:u64 info2:u64 "
	"intr_info:u32 error_code:u32 vcpu_id:u32",
	NULL,
};

static const char *const statedump_2_12_defs[] = {
	"lttng_statedump_process_state tid:s32 pid:s32 ppid:s32 name:string type:s32 mode:s32 "
	"submode:s32 status:s32 cpu:u32 file_table_address:x64",
	"lttng_statedump_process_pid_ns tid:s32 vtid:s32 vpid:s32 vppid:s32 ns_level:s32 "
	"ns_inum:u32",
	NULL,
};

void wl_layout_header(const wl_options *opt, wl_stub_header *header)
{
	bool modern = opt->kvm_layout == KVM_LAYOUT_MODERN;
	bool dump_2_12 = opt->statedump_layout == STATEDUMP_2_12;

	/* The classic layout with the 2.11 statedump is what the generator
	 * always wrote: no tracer version (the stub format's 2.10). */
	header->tracer_major = modern || dump_2_12 ? 2 : 0;
	header->tracer_minor = modern ? 13 : dump_2_12 ? 12 : 0;
	header->kvm_defs = modern ? modern_defs : NULL;
	header->statedump_defs = dump_2_12 ? statedump_2_12_defs : NULL;
}

/* A new struct kvm_vcpu address's low half, distinct from those in USED. */
static uint32_t draw_vcpu_pointer(wl_rng *rng, GHashTable *used)
{
	for (;;) {
		uint64_t address = DIRECT_MAP_BASE +
				   wl_rng_range(rng, MIN_LOW_HALF / VCPU_ALIGN,
						UINT32_MAX / VCPU_ALIGN) * VCPU_ALIGN;
		uint32_t low = (uint32_t)address;

		if (!g_hash_table_contains(used, GUINT_TO_POINTER(low))) {
			g_hash_table_add(used, GUINT_TO_POINTER(low));
			return low;
		}
	}
}

void wl_kvm_layout_setup(wl_sim *sim)
{
	wl_rng rng;
	GHashTable *used = g_hash_table_new(g_direct_hash, g_direct_equal);

	wl_rng_seed(&rng, sim->opt.seed ^ LAYOUT_SEED_SALT);
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint v = 0; v < guest->vcpus->len; v++)
			((wl_vcpu *)g_ptr_array_index(guest->vcpus, v))->entry_pointer =
				draw_vcpu_pointer(&rng, used);
		/* The guest kernel's own kvm_vcpu: another machine's memory,
		 * but distinct all the same. */
		guest->nested_entry_pointer = draw_vcpu_pointer(&rng, used);
	}
	g_hash_table_unref(used);
}

bool wl_emit_kvm_exit(wl_sim *sim, int cpu, const wl_vcpu *vcpu, uint32_t reason,
		      uint64_t guest_rip, unsigned info1)
{
	wl_isa isa = sim->opt.isa;
	int code = wl_exit_code(isa, (int)reason);

	/* SVM's exit_info_1 of an MSR exit says its direction: 0 read, 1 write. */
	if (isa == WL_ISA_SVM && code == SVM_EXIT_MSR)
		info1 = reason == EXIT_MSR_WRITE;
	if (sim->opt.kvm_layout == KVM_LAYOUT_CLASSIC)
		return wl_host_emit(sim, cpu, sim->kvm_exit_name,
				    "exit_reason=%d guest_rip=0x%" G_GINT64_MODIFIER
				    "x isa=%d info1=0x%x info2=0x%x",
				    code, (guint64)guest_rip, (int)isa, info1, 0u);

	unsigned intr_info = isa == WL_ISA_VMX && reason == EXIT_EXTERNAL_INTERRUPT ?
			     VMX_INTR_INFO_TIMER : 0;

	return wl_host_emit(sim, cpu, sim->kvm_exit_name,
			    "exit_reason=%d guest_rip=0x%" G_GINT64_MODIFIER
			    "x isa=%d info1=0x%x info2=0x%x intr_info=0x%x error_code=0 vcpu_id=%d",
			    code, (guint64)guest_rip, (int)isa, info1, 0u, intr_info, vcpu->id);
}

bool wl_emit_kvm_entry(wl_sim *sim, int cpu, const wl_vcpu *vcpu)
{
	if (sim->opt.kvm_layout == KVM_LAYOUT_CLASSIC)
		return wl_host_emit(sim, cpu, sim->kvm_entry_name, "vcpu_id=%d", vcpu->id);
	return wl_host_emit(sim, cpu, sim->kvm_entry_name, "vcpu_id=%u",
			    (unsigned)vcpu->entry_pointer);
}

bool wl_emit_nested_kvm_entry(wl_sim *sim, wl_vcpu *vcpu)
{
	if (sim->opt.kvm_layout == KVM_LAYOUT_CLASSIC)
		return wl_guest_emit(sim, vcpu, sim->kvm_entry_name, "vcpu_id=%d", 0);
	return wl_guest_emit(sim, vcpu, sim->kvm_entry_name, "vcpu_id=%u",
			     (unsigned)vcpu->guest->nested_entry_pointer);
}
