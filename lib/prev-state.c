#include "prev-state.h"

bool vm_prev_state_is_runnable(int64_t prev_state)
{
	uint64_t bits = (uint64_t) prev_state;

	if (bits == 0) {
		return true;
	}

	/* A single bit set (power of two) at or above 0x100. */
	return bits >= 0x100 && (bits & (bits - 1)) == 0;
}
