#ifndef VM_COMMON_ADDRESS_HASH_H
#define VM_COMMON_ADDRESS_HASH_H

/*
 * The slot of a babeltrace2 object in the small caches that sit in front
 * of hash tables keyed by object address. Fibonacci hashing (the top bits
 * of the address times 2^64 / golden ratio): objects of one kind lie at
 * regular strides, which the low bits of the address alone would map to a
 * few slots.
 */

#include <stddef.h>
#include <stdint.h>

/* A slot number below 2^bits (0 < bits < 64). */
static inline size_t vm_address_hash(const void *address, unsigned int bits)
{
	return (size_t) (((uint64_t) (uintptr_t) address *
		UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

#endif /* VM_COMMON_ADDRESS_HASH_H */
