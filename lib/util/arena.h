#ifndef VM_UTIL_ARENA_H
#define VM_UTIL_ARENA_H

/*
 * Blocks cut in sequence from big chunks, each freed on its own.
 *
 * For many small blocks that live a short while and mostly die in the
 * order they were made (events waiting for the look-ahead): a block costs
 * a few additions instead of a malloc() and a free(), and blocks made one
 * after the other lie one after the other in memory, where they are read
 * back in the same order.
 *
 * A chunk counts its live blocks. The chunk being cut is reused from its
 * start once all its blocks are freed; a chunk that is full (or that the
 * arena no longer cuts, after vm_arena_destroy()) is freed with its last
 * block. A block can thus outlive its arena, and a chunk lives as long as
 * its longest-lived block: the order of deaths bounds the memory.
 */

#include <stddef.h>

struct vm_arena;

/* `chunk_size`: bytes per chunk; bigger blocks get a chunk of their own. */
struct vm_arena *vm_arena_create(size_t chunk_size);

/* Stops cutting; live blocks stay valid until vm_arena_free(). */
void vm_arena_destroy(struct vm_arena *arena);

/* A block of `size` bytes, aligned for any type (as malloc()'s). */
void *vm_arena_alloc(struct vm_arena *arena, size_t size);

/* Frees a block of any arena (NULL: nothing). */
void vm_arena_free(void *block);

#endif /* VM_UTIL_ARENA_H */
