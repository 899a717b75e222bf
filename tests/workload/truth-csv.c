#include "truth-csv.h"

#include <errno.h>
#include <float.h>
#include <string.h>

#include "containers.h"
#include "loss-truth.h"
#include "steal-truth.h"
#include "truth.h"

static const char *const thread_state_names[] = {
	[TS_RUNNING] = "running", [TS_HYPERVISOR] = "hypervisor",
	[TS_PREEMPTED] = "preempted", [TS_VCPU_BLOCKED] = "vcpu-blocked",
	[TS_RUNNABLE] = "runnable", [TS_BLOCKED] = "blocked",
};

static const char *const mode_names[] = {
	[MODE_GUEST] = "guest", [MODE_HYPERVISOR] = "hypervisor",
	[MODE_PREEMPTED] = "preempted", [MODE_BLOCKED] = "blocked",
};

typedef void (*csv_body)(wl_sim *sim, FILE *file);

static bool write_csv(wl_sim *sim, const char *name, const char *header, csv_body body)
{
	char *path = g_strdup_printf("%s/truth/%s", sim->opt.out_dir, name);
	FILE *file = fopen(path, "w");
	bool ok = file != NULL;

	if (file) {
		fprintf(file, "%s\n", header);
		body(sim, file);
		ok = !ferror(file);
		ok = fclose(file) == 0 && ok;
	}
	if (!ok)
		fprintf(stderr, "vm-workload: cannot write %s: %s\n", path, strerror(errno));
	g_free(path);
	return ok;
}

/* An integer field, empty when -1. */
static void put_optional(FILE *file, int32_t value, const char *after)
{
	if (value >= 0)
		fprintf(file, "%d", value);
	fputs(after, file);
}

static wl_guest *guest_at(wl_sim *sim, guint index)
{
	return g_ptr_array_index(sim->guests, index);
}

static void timemap_body(wl_sim *sim, FILE *file)
{
	fprintf(file, "host,1,0\n");
	for (guint g = 0; g < sim->guests->len; g++) {
		long double slope, offset;

		wl_clock_inverse(&guest_at(sim, g)->clock, &slope, &offset);
		fprintf(file, "%s,%.*Lg,%.*Lg\n", guest_at(sim, g)->name, LDBL_DECIMAL_DIG, slope,
			LDBL_DECIMAL_DIG, offset);
	}
}

static void machines_body(wl_sim *sim, FILE *file)
{
	fprintf(file, "host,host,host,%s,,,\n", sim->host_clock_uuid);
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = guest_at(sim, g);

		/* host_pid repeats qemu_pid under the name the vcpu sync uses */
		fprintf(file, "%s,guest,%s,%s,%" G_GUINT64_FORMAT ",%d,%d\n", guest->name,
			guest->name, guest->clock_uuid, guest->vm_uid, guest->qemu_main->pid,
			guest->qemu_main->pid);
	}
}

static void counts_of(FILE *file, const char *machine, const wl_stub *stub)
{
	GPtrArray *names = wl_stub_event_names(stub);

	for (guint i = 0; i < names->len; i++) {
		const char *name = g_ptr_array_index(names, i);

		fprintf(file, "%s,%s,%" G_GUINT64_FORMAT "\n", machine, name,
			wl_stub_count(stub, name));
	}
	g_ptr_array_unref(names);
}

static void counts_body(wl_sim *sim, FILE *file)
{
	counts_of(file, "host", &sim->host_stub);
	for (guint g = 0; g < sim->guests->len; g++)
		counts_of(file, guest_at(sim, g)->name, &guest_at(sim, g)->stub);
}

static void threads_body(wl_sim *sim, FILE *file)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = guest_at(sim, g);

		for (guint i = 0; i < guest->threads->len; i++) {
			const wl_guest_thread *thread = g_ptr_array_index(guest->threads, i);
			GArray *intervals = wl_truth_thread_intervals(guest, thread);

			for (guint k = 0; k < intervals->len; k++) {
				const wl_truth_interval *it =
					&g_array_index(intervals, wl_truth_interval, k);

				fprintf(file, "%s,%d,%s,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",",
					guest->name, thread->tid, thread->comm,
					thread_state_names[it->value.state], it->begin_ns, it->end_ns);
				put_optional(file, it->value.vcpu, ",");
				put_optional(file, it->value.reason, "\n");
			}
			g_array_unref(intervals);
		}
	}
}

static void vcpus_body(wl_sim *sim, FILE *file)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = guest_at(sim, g);

		for (guint v = 0; v < guest->vcpus->len; v++) {
			const wl_vcpu *vcpu = g_ptr_array_index(guest->vcpus, v);

			if (!wl_truth_vcpu_identified(vcpu))
				continue;
			for (guint k = 0; k < vcpu->track.closed->len; k++) {
				const wl_truth_interval *it =
					&g_array_index(vcpu->track.closed, wl_truth_interval, k);

				fprintf(file, "%s,%d,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%d,",
					guest->name, vcpu->id, mode_names[it->value.state],
					it->begin_ns, it->end_ns, it->value.host_tid);
				put_optional(file, it->value.pcpu, ",");
				put_optional(file, it->value.reason, "\n");
			}
		}
	}
}

/* The exit statistics of one code as the tracer writes it (--isa). */
typedef struct code_stat {
	int code;
	wl_exit_stat stat;
} code_stat;

static gint compare_codes(gconstpointer a, gconstpointer b)
{
	const code_stat *x = a, *y = b;

	return (x->code > y->code) - (x->code < y->code);
}

static void add_stat(GArray *codes, int code, const wl_exit_stat *s)
{
	for (guint i = 0; i < codes->len; i++) {
		wl_exit_stat *sum = &g_array_index(codes, code_stat, i).stat;

		if (g_array_index(codes, code_stat, i).code != code)
			continue;
		sum->min_ns = MIN(sum->min_ns, s->min_ns);
		sum->max_ns = MAX(sum->max_ns, s->max_ns);
		sum->count += s->count;
		sum->total_ns += s->total_ns;
		return;
	}

	code_stat fresh = { code, *s };

	g_array_append_val(codes, fresh);
}

/* One vCPU's rows: per code, the reasons that share it added up (SVM has
 * one code for several VMX reasons), in code order. */
static void vcpu_exits(wl_sim *sim, FILE *file, const wl_guest *guest, const wl_vcpu *vcpu)
{
	GArray *codes = g_array_new(FALSE, FALSE, sizeof(code_stat));

	for (int r = 0; r < EXIT_REASON_LIMIT; r++)
		if (vcpu->exits[r].count > 0)
			add_stat(codes, wl_exit_code(sim->opt.isa, r), &vcpu->exits[r]);
	g_array_sort(codes, compare_codes);
	for (guint i = 0; i < codes->len; i++) {
		const code_stat *c = &g_array_index(codes, code_stat, i);
		const wl_exit_stat *s = &c->stat;

		fprintf(file, "%s,%d,%d,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
			",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n",
			guest->name, vcpu->id, c->code, wl_exit_code_name(sim->opt.isa, c->code),
			s->count, s->total_ns, s->min_ns, s->max_ns, s->total_ns / s->count);
	}
	g_array_unref(codes);
}

static void exits_body(wl_sim *sim, FILE *file)
{
	for (guint g = 0; g < sim->guests->len; g++) {
		wl_guest *guest = guest_at(sim, g);

		for (guint v = 0; v < guest->vcpus->len; v++)
			vcpu_exits(sim, file, guest, g_ptr_array_index(guest->vcpus, v));
	}
}

bool wl_truth_write(wl_sim *sim)
{
	char *dir = g_strdup_printf("%s/truth", sim->opt.out_dir);
	bool ok = g_mkdir_with_parents(dir, 0755) == 0;

	if (!ok)
		fprintf(stderr, "vm-workload: cannot create %s: %s\n", dir, strerror(errno));
	g_free(dir);
	/* Only with --loss-rate: other outputs stay as they were. */
	if (ok && sim->losses)
		ok = write_csv(sim, "losses.csv", LOSSES_CSV_HEADER, wl_loss_losses_body) &&
		     write_csv(sim, "affected.csv", AFFECTED_CSV_HEADER, wl_loss_affected_body) &&
		     write_csv(sim, "steal-affected.csv", STEAL_AFFECTED_CSV_HEADER,
			       wl_steal_affected_body);
	/* Only with --containers: other outputs stay as they were. */
	if (ok && sim->opt.containers > 0)
		ok = write_csv(sim, "containers.csv", CONTAINERS_CSV_HEADER, wl_containers_body);
	return ok &&
	       write_csv(sim, "timemap.csv", "machine,slope,offset_ns", timemap_body) &&
	       write_csv(sim, "machines.csv", "machine,role,hostname,clock_uuid,vm_uid,qemu_pid,host_pid",
			 machines_body) &&
	       write_csv(sim, "counts.csv", "machine,event,count", counts_body) &&
	       write_csv(sim, "threads.csv", "machine,tid,comm,state,begin_ns,end_ns,vcpu,reason",
			 threads_body) &&
	       write_csv(sim, "vcpus.csv", "machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason",
			 vcpus_body) &&
	       write_csv(sim, "exits.csv",
			 "machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns", exits_body) &&
	       write_csv(sim, "steal.csv", STEAL_CSV_HEADER, wl_steal_body);
}
