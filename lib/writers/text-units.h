#ifndef VM_WRITERS_TEXT_UNITS_H
#define VM_WRITERS_TEXT_UNITS_H

/* Human-friendly numbers of the text format. */

#include <stddef.h>
#include <stdint.h>

/* Enough for any int64_t duration or percentage. */
#define VM_TEXT_UNITS_BUF 40

/* "850 ns", "12.345 us", "1.500 ms", "3.000 s": the largest unit that keeps
 * the value at 1 or more, three decimals (rounded) above nanoseconds. */
void vm_text_duration(int64_t ns, char buf[VM_TEXT_UNITS_BUF]);

/* part / total as "37.5%"; "0.0%" when total is 0. */
void vm_text_percent(int64_t part, int64_t total, char buf[VM_TEXT_UNITS_BUF]);

#endif /* VM_WRITERS_TEXT_UNITS_H */
