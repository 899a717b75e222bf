/*
 * Simulated vCPUs for the vCPU synchronization tests: see vcpu-sim.h.
 */
#include "vcpu-sim.h"

int64_t sim_range(GRand *rand, int64_t low, int64_t high)
{
	return low + (int64_t) g_rand_double_range(rand, 0, (double) (high - low));
}

int64_t sim_guest_clock(const struct sim *sim, int64_t h)
{
	const struct sim_rate *rate = NULL;

	if (!sim->rates)
		return h - sim->offset_ns - (h - HOST_START) * sim->drift_ppm / 1000000;
	for (guint i = 0; i < sim->rates->len &&
			g_array_index(sim->rates, struct sim_rate, i).from <= h; i++)
		rate = &g_array_index(sim->rates, struct sim_rate, i);
	return h - sim->offset_ns - rate->lag - (h - rate->from) * rate->ppm / 1000000;
}

/*
 * Slews the guest clock as NTP does: from HOST_START on, every `min_ns` to
 * `max_ns`, its rate becomes drift_ppm plus up to +-`step_ppm`.
 */
void sim_slew(struct sim *sim, int64_t step_ppm, int64_t min_ns, int64_t max_ns,
		int64_t duration)
{
	struct sim_rate rate = { HOST_START, sim->drift_ppm, 0 };

	sim->rates = g_array_new(FALSE, FALSE, sizeof(struct sim_rate));
	while (rate.from < HOST_START + duration + max_ns) {
		int64_t next = rate.from + sim_range(sim->rand, min_ns, max_ns);

		g_array_append_val(sim->rates, rate);
		rate.lag += (next - rate.from) * rate.ppm / 1000000;
		rate.from = next;
		rate.ppm = sim->drift_ppm + sim_range(sim->rand, -step_ppm, step_ppm);
	}
}

/* How long a vCPU stays out of guest mode: mostly short, sometimes idle. */
static int64_t time_out(GRand *rand)
{
	double p = g_rand_double(rand);

	if (p < 0.80)
		return sim_range(rand, 1000, 20000);
	if (p < 0.95)
		return sim_range(rand, 20000, 300000);
	return sim_range(rand, 500000, 5000000);
}

void sim_emit(struct sim *sim, struct vm_vcpu_align *align, unsigned int guest,
		uint64_t cpu, int64_t h)
{
	struct sim_event event = { sim_guest_clock(sim, h), h, cpu };

	if (align && guest != G_MAXUINT)
		vm_vcpu_align_add_guest_event(align, guest, cpu, event.guest_ts);
	g_array_append_val(sim->events, event);
}

void simulate(struct sim *sim, struct vm_vcpu_align *align, int64_t pid,
		unsigned int guest, unsigned int vcpus, int64_t duration)
{
	for (unsigned int v = 0; v < vcpus; v++) {
		int64_t h = HOST_START + sim_range(sim->rand, 0, 100000);

		while (h < HOST_START + duration) {
			int64_t entry = h, exit = h + sim_range(sim->rand, 5000, 200000);
			int64_t t = entry + sim_range(sim->rand, 300, 2000);
			struct sim_interval interval = { pid, v, entry, exit };

			g_array_append_val(sim->intervals, interval);
			if (align && pid >= 0)
				vm_vcpu_align_add_guest_mode(align, HOST, pid, pid * 100 + v,
					v, entry, exit);
			while (t < exit - 3000) {
				sim_emit(sim, align, guest, v, t);
				t += sim_range(sim->rand, 1000, 50000);
			}
			sim_emit(sim, align, guest, v, exit - sim_range(sim->rand, 300, 3000));
			h = exit + time_out(sim->rand);
		}
	}
}

void sim_init(struct sim *sim, guint32 seed, int64_t offset_ns, int64_t drift_ppm)
{
	sim->rand = g_rand_new_with_seed(seed);
	sim->offset_ns = offset_ns;
	sim->drift_ppm = drift_ppm;
	sim->events = g_array_new(FALSE, FALSE, sizeof(struct sim_event));
	sim->intervals = g_array_new(FALSE, FALSE, sizeof(struct sim_interval));
	sim->rates = NULL;
}

void sim_fini(struct sim *sim)
{
	g_rand_free(sim->rand);
	g_array_free(sim->events, TRUE);
	g_array_free(sim->intervals, TRUE);
	if (sim->rates)
		g_array_free(sim->rates, TRUE);
}

