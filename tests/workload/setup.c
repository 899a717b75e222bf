#include "setup.h"

#include <errno.h>
#include <string.h>

#include "guest-setup.h"
#include "host-setup.h"
#include "kvm-layout.h"
#include "loss.h"
#include "host-migrate.h"
#include "steal-record.h"
#include "statedump.h"
#include "tcp.h"
#include "vmsync.h"

#define NS_PER_S UINT64_C(1000000000)
/* Traces start some time in mid-2025. */
#define EPOCH_BASE_NS (UINT64_C(1750000000) * NS_PER_S)

static bool make_out_dir(const char *dir)
{
	if (g_mkdir_with_parents(dir, 0755) == 0)
		return true;
	fprintf(stderr, "vm-workload: cannot create %s: %s\n", dir, strerror(errno));
	return false;
}

bool wl_setup(wl_sim *sim)
{
	wl_rng_seed(&sim->rng, sim->opt.seed);
	sim->start_ns = EPOCH_BASE_NS + wl_rng_range(&sim->rng, 0, 86400 * NS_PER_S);
	sim->now = sim->start_ns;
	wl_loss_init(sim);
	sim->kvm_entry_name = sim->opt.kvm_x86_names ? "kvm_x86_entry" : "kvm_entry";
	sim->kvm_exit_name = sim->opt.kvm_x86_names ? "kvm_x86_exit" : "kvm_exit";
	sim->guests = g_ptr_array_new_with_free_func(wl_guest_free);
	if (!make_out_dir(sim->opt.out_dir) || !wl_host_setup(sim))
		return false;
	for (int g = 1; g <= sim->opt.guests; g++)
		if (!wl_guest_setup(sim, g))
			return false;
	wl_host_add_hogs(sim);
	wl_host_place_threads(sim);
	wl_steal_start(sim);
	wl_migrate_init(sim);
	for (guint g = 0; g < sim->guests->len; g++)
		wl_guest_place(sim, g_ptr_array_index(sim->guests, g));
	wl_kvm_layout_setup(sim);
	wl_tcp_init(sim);
	wl_vmsync_init(sim);
	wl_statedump_host(sim);
	return true;
}

void wl_teardown(wl_sim *sim)
{
	wl_tcp_clear(sim);
	wl_loss_clear(sim);
	if (sim->guests)
		g_ptr_array_unref(sim->guests);
	if (sim->host_threads)
		g_ptr_array_unref(sim->host_threads);
	if (sim->cpus)
		g_ptr_array_unref(sim->cpus);
	wl_stub_clear(&sim->host_stub);
	sim->guests = sim->host_threads = sim->cpus = NULL;
}
