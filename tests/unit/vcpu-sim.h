#ifndef VM_TEST_VCPU_SIM_H
#define VM_TEST_VCPU_SIM_H

/*
 * Simulated vCPUs whose truth is known, for the tests of the
 * synchronization from stock KVM events: guest-mode intervals of a host
 * process's vCPU threads, and guest events inside them, recorded on a
 * guest clock that is seconds away, drifts, and may be slewed as NTP does.
 */

#include <glib.h>
#include <stdint.h>

#include "sync/vcpu-align.h"

#define HOST 0u
#define HOST_START INT64_C(1600000000000000000)

struct sim_event {
	int64_t guest_ts;
	int64_t host_ts;   /* the truth */
	uint64_t cpu;
};

struct sim_interval {
	int64_t pid;
	uint64_t vcpu;
	int64_t entry;
	int64_t exit;
};

/* From host time `from` on, the guest clock runs `ppm` off the host's. */
struct sim_rate {
	int64_t from;
	int64_t ppm;
	int64_t lag;          /* guest behind host at `from`, from the rates before */
};

struct sim {
	GRand *rand;
	int64_t offset_ns;    /* host = guest + offset + drift */
	int64_t drift_ppm;
	GArray *events;       /* struct sim_event, every CPU */
	GArray *intervals;    /* struct sim_interval, every vCPU */
	GArray *rates;        /* struct sim_rate by `from`, or NULL: drift_ppm throughout */
};

int64_t sim_range(GRand *rand, int64_t low, int64_t high);

/* The guest clock at true (host) time h. */
int64_t sim_guest_clock(const struct sim *sim, int64_t h);

/*
 * Slews the guest clock as NTP does: from HOST_START on, every `min_ns` to
 * `max_ns`, its rate becomes drift_ppm plus up to +-`step_ppm`.
 */
void sim_slew(struct sim *sim, int64_t step_ppm, int64_t min_ns, int64_t max_ns,
		int64_t duration);

/*
 * One VM over `duration`: for each vCPU, guest-mode intervals (given to
 * `align` as process `pid` unless align is NULL or pid < 0), events (given
 * as `guest` unless align is NULL or guest is G_MAXUINT): one soon after
 * most entries, one shortly before most exits, others in between. All are
 * recorded in the sim too.
 */
void simulate(struct sim *sim, struct vm_vcpu_align *align, int64_t pid,
		unsigned int guest, unsigned int vcpus, int64_t duration);

/* One guest event on `cpu` at true host time `h` (to `align` as `guest` unless G_MAXUINT). */
void sim_emit(struct sim *sim, struct vm_vcpu_align *align, unsigned int guest,
		uint64_t cpu, int64_t h);

void sim_init(struct sim *sim, guint32 seed, int64_t offset_ns, int64_t drift_ppm);
void sim_fini(struct sim *sim);

#endif /* VM_TEST_VCPU_SIM_H */
