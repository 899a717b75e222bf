#include "loss.h"

#include <math.h>

#include "stub-file.h"

/* The stub format's default packet size (stub-traces/README.md): a loss
 * within a stream's first packet has no count in the trace. */
#define STUB_PACKET_SIZE 4096
/* Keeps the losses' draws apart from the simulation's. */
#define LOSS_SEED_SALT UINT64_C(0x6c6f7373)
#define NS_PER_S 1e9

static GArray *machine_streams(const wl_sim *sim, int machine)
{
	return g_ptr_array_index(sim->losses->streams, machine);
}

static wl_stub *machine_stub(wl_sim *sim, int machine)
{
	if (machine == LOSS_HOST)
		return &sim->host_stub;
	return &((wl_guest *)g_ptr_array_index(sim->guests, machine - 1))->stub;
}

static uint64_t machine_clock(const wl_sim *sim, int machine, uint64_t t)
{
	if (machine == LOSS_HOST)
		return t;
	return wl_clock_read(&((wl_guest *)g_ptr_array_index(sim->guests, machine - 1))->clock, t);
}

/* Time to the next loss of a machine: exponential, mean 1 / rate. */
static uint64_t draw_interval(wl_sim *sim)
{
	double u = (double)(wl_rng_next(&sim->losses->rng) >> 11) / 9007199254740992.0;

	return (uint64_t)(-log1p(-u) / sim->opt.loss_rate * NS_PER_S) + 1;
}

void wl_loss_init(wl_sim *sim)
{
	if (sim->opt.loss_rate <= 0)
		return;
	wl_losses *losses = g_new0(wl_losses, 1);

	sim->losses = losses;
	wl_rng_seed(&losses->rng, sim->opt.seed ^ LOSS_SEED_SALT);
	losses->streams = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	losses->next_ns = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	losses->gaps = g_array_new(FALSE, FALSE, sizeof(wl_gap));
	losses->log = g_array_new(FALSE, FALSE, sizeof(wl_decision));
	for (int m = 0; m <= sim->opt.guests; m++) {
		int cpus = m == LOSS_HOST ? sim->opt.host_cpus : sim->opt.vcpus;
		GArray *streams = g_array_sized_new(FALSE, TRUE, sizeof(wl_loss_stream), cpus);
		uint64_t next = sim->start_ns + draw_interval(sim);

		g_array_set_size(streams, cpus);
		g_ptr_array_add(losses->streams, streams);
		g_array_append_val(losses->next_ns, next);
	}
}

void wl_loss_clear(wl_sim *sim)
{
	wl_losses *losses = sim->losses;

	if (!losses)
		return;
	g_ptr_array_unref(losses->streams);
	g_array_unref(losses->next_ns);
	g_array_unref(losses->gaps);
	g_array_unref(losses->log);
	g_free(losses);
	sim->losses = NULL;
}

/* Starts the gaps due by time t on the machine: a random stream of it stops
 * recording (a stream that recorded nothing yet is spared: nothing would
 * tell where its gap began). */
static void start_due_gaps(wl_sim *sim, int machine, uint64_t t)
{
	wl_losses *losses = sim->losses;
	uint64_t *next = &g_array_index(losses->next_ns, uint64_t, machine);
	GArray *streams = machine_streams(sim, machine);

	while (*next <= t) {
		uint64_t start = *next;
		int cpu = (int)wl_rng_range(&losses->rng, 0, streams->len - 1);
		uint64_t length = wl_rng_range(&losses->rng, sim->opt.loss_min_ns, sim->opt.loss_max_ns);
		wl_loss_stream *stream = &g_array_index(streams, wl_loss_stream, cpu);

		*next = start + draw_interval(sim);
		if (losses->stopped || stream->recorded == 0)
			continue;
		if (stream->in_gap) {
			/* A second overflow before the first one ended: one longer gap. */
			stream->gap.end_ns = MAX(stream->gap.end_ns, start + length);
			continue;
		}
		stream->in_gap = true;
		stream->gap = (wl_gap){
			.machine = machine, .cpu = cpu, .start_ns = start, .end_ns = start + length,
			.last_before_ns = stream->last_ns,
			.counted = stream->had_loss || stream->recorded > STUB_PACKET_SIZE,
		};
	}
}

/* The stream records again at t: a gap that lost something becomes a loss
 * line and a truth row; one that lost nothing leaves no trace. */
static void end_gap(wl_sim *sim, wl_loss_stream *stream, uint64_t t, uint64_t machine_ns)
{
	wl_gap *gap = &stream->gap;

	stream->in_gap = false;
	if (gap->lost == 0)
		return;
	gap->first_after_ns = t;
	wl_stub_loss(machine_stub(sim, gap->machine), machine_ns, gap->cpu, gap->lost);
	g_array_append_val(sim->losses->gaps, *gap);
	stream->had_loss = true;
}

bool wl_loss_record(wl_sim *sim, int machine, int cpu, uint64_t t, uint64_t machine_ns)
{
	if (!sim->losses)
		return true;
	start_due_gaps(sim, machine, t);
	return wl_loss_record_next(sim, machine, cpu, t, machine_ns);
}

bool wl_loss_record_next(wl_sim *sim, int machine, int cpu, uint64_t t, uint64_t machine_ns)
{
	if (!sim->losses)
		return true;

	wl_loss_stream *stream = &g_array_index(machine_streams(sim, machine), wl_loss_stream, cpu);

	if (stream->in_gap && t < stream->gap.end_ns && t >= stream->gap.start_ns) {
		stream->gap.lost++;
		return false;
	}
	if (stream->in_gap && t >= stream->gap.end_ns)
		end_gap(sim, stream, t, machine_ns);
	stream->recorded++;
	stream->last_ns = t;
	return true;
}

void wl_loss_decided(wl_sim *sim, wl_decide_kind kind, int machine, int cpu, bool recorded,
		     int a, int b, int c)
{
	if (!sim->losses)
		return;

	wl_decision decision = {
		.ns = sim->last_event_ns, .kind = (uint8_t)kind, .recorded = recorded,
		.machine = (int16_t)machine, .cpu = cpu, .a = a, .b = b, .c = c,
	};

	g_array_append_val(sim->losses->log, decision);
}

void wl_loss_finish(wl_sim *sim)
{
	if (!sim->losses)
		return;
	for (guint m = 0; m < sim->losses->streams->len; m++) {
		GArray *streams = machine_streams(sim, (int)m);

		start_due_gaps(sim, (int)m, sim->now);
		for (guint c = 0; c < streams->len; c++) {
			wl_loss_stream *stream = &g_array_index(streams, wl_loss_stream, c);

			if (stream->in_gap)
				end_gap(sim, stream, sim->now, machine_clock(sim, (int)m, sim->now));
		}
	}
	sim->losses->stopped = true;
}
