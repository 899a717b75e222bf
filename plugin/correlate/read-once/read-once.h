#ifndef VM_CORRELATE_READ_ONCE_H
#define VM_CORRELATE_READ_ONCE_H

/* Read once (strategy.h's correlate_read_once): whether the parameters allow it. */

#include "correlate/params.h"

bool correlate_read_once_wanted(const struct correlate_params *params);

#endif /* VM_CORRELATE_READ_ONCE_H */
