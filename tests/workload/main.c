/* vm-workload: a seeded simulation of a KVM host and its guests, written as
 * one stub trace per machine plus the ground truth of what happened.
 * See doc/workload-generator.md. */
#include <stdlib.h>

#include "model.h"
#include "options.h"
#include "setup.h"
#include "sim.h"
#include "timemap-segments.h"
#include "truth-csv.h"

static bool close_stubs(wl_sim *sim)
{
	bool ok = wl_stub_close(&sim->host_stub);

	for (guint g = 0; g < sim->guests->len; g++)
		ok = wl_stub_close(&((wl_guest *)g_ptr_array_index(sim->guests, g))->stub) && ok;
	return ok;
}

int main(int argc, char **argv)
{
	wl_sim sim = { 0 };

	if (!wl_options_parse(&sim.opt, argc, argv))
		return 2;

	bool ok = wl_setup(&sim);

	if (ok) {
		wl_sim_run(&sim);
		wl_sim_finish(&sim);
		ok = wl_truth_write(&sim);
		ok = ok && wl_timemap_segments_write(&sim);
		ok = close_stubs(&sim) && ok;
	}
	wl_teardown(&sim);
	wl_options_clear(&sim.opt);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
