/*
 * Integers of the stub format: decimal or 0x hexadecimal, signed ones with
 * a leading `-`. The whole text must be the number.
 */

#ifndef VMSTUB_STUB_NUMBER_H
#define VMSTUB_STUB_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

bool stub_parse_u64(const char *text, uint64_t *value);
bool stub_parse_s64(const char *text, int64_t *value);

#endif /* VMSTUB_STUB_NUMBER_H */
