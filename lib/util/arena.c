#include "util/arena.h"

#include <glib.h>
#include <stdbool.h>
#include <stdalign.h>
#include <stdint.h>

/*
 * The memory checkers see each block as its own allocation: ASan keeps what
 * is not a live block poisoned, memcheck (when its header is there) is told
 * of every block as if malloc() had made it. Without that, a record written
 * past its end would silently land in the next one.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif

#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(address, size) ASAN_POISON_MEMORY_REGION(address, size)
#define ARENA_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION(address, size)
#else
#define ARENA_POISON(address, size) ((void) (address), (void) (size))
#define ARENA_UNPOISON(address, size) ((void) (address), (void) (size))
#endif

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define ARENA_VALGRIND 1
#endif
#endif

#ifndef ARENA_VALGRIND
#define VALGRIND_MAKE_MEM_NOACCESS(address, size) ((void) (address), (void) (size))
#define VALGRIND_MAKE_MEM_UNDEFINED(address, size) ((void) (address), (void) (size))
#define VALGRIND_MALLOCLIKE_BLOCK(address, size, redzone, zeroed) ((void) (address))
#define VALGRIND_FREELIKE_BLOCK(address, redzone) ((void) (address))
#endif

struct arena_chunk {
	size_t size;    /* bytes of `data` */
	size_t used;    /* bytes cut so far */
	size_t live;    /* blocks not freed yet */
	bool retired;   /* no longer cut: freed with its last block */
	alignas(max_align_t) unsigned char data[];
};

/* Before each block: its chunk and size, in a header that keeps it aligned. */
union block_header {
	struct {
		struct arena_chunk *chunk;
		size_t size;
	} of;
	max_align_t align;
};

struct vm_arena {
	size_t chunk_size;
	struct arena_chunk *current;   /* the chunk being cut, or NULL */
};

static size_t round_up(size_t size)
{
	size_t unit = alignof(max_align_t);

	return (size + unit - 1) / unit * unit;
}

struct vm_arena *vm_arena_create(size_t chunk_size)
{
	struct vm_arena *arena = g_new0(struct vm_arena, 1);

	arena->chunk_size = round_up(chunk_size);
	return arena;
}

static struct arena_chunk *new_chunk(size_t size)
{
	struct arena_chunk *chunk = g_malloc(sizeof(*chunk) + size);

	chunk->size = size;
	chunk->used = 0;
	chunk->live = 0;
	chunk->retired = false;
	/* Nothing in it is a block yet. */
	ARENA_POISON(chunk->data, size);
	VALGRIND_MAKE_MEM_NOACCESS(chunk->data, size);
	return chunk;
}

static void free_chunk(struct arena_chunk *chunk)
{
	/* Back to malloc() as it gave it. */
	ARENA_UNPOISON(chunk->data, chunk->size);
	VALGRIND_MAKE_MEM_UNDEFINED(chunk->data, chunk->size);
	g_free(chunk);
}

/* The arena cuts no more from `chunk`: free it now if no block holds it. */
static void retire(struct arena_chunk *chunk)
{
	if (chunk->live == 0) {
		free_chunk(chunk);
		return;
	}

	chunk->retired = true;
}

void vm_arena_destroy(struct vm_arena *arena)
{
	if (!arena) {
		return;
	}

	if (arena->current) {
		retire(arena->current);
	}

	g_free(arena);
}

/* A block of `size` bytes (`needed` with its header and padding). */
static void *cut(struct arena_chunk *chunk, size_t size, size_t needed)
{
	union block_header *header = (union block_header *) (chunk->data + chunk->used);
	void *block = header + 1;

	chunk->used += needed;
	chunk->live++;
	ARENA_UNPOISON(header, sizeof(*header) + size);
	VALGRIND_MAKE_MEM_UNDEFINED(header, sizeof(*header));
	header->of.chunk = chunk;
	header->of.size = size;
	VALGRIND_MALLOCLIKE_BLOCK(block, size, 0, 0);
	return block;
}

void *vm_arena_alloc(struct vm_arena *arena, size_t size)
{
	size_t needed = sizeof(union block_header) + round_up(size);
	struct arena_chunk *chunk = arena->current;

	if (needed > arena->chunk_size / 4) {
		/* A big block: a chunk of its own, so that it wastes no other. */
		chunk = new_chunk(needed);
		chunk->retired = true;
		return cut(chunk, size, needed);
	}

	if (!chunk || chunk->size - chunk->used < needed) {
		if (chunk) {
			retire(chunk);
		}

		chunk = new_chunk(arena->chunk_size);
		arena->current = chunk;
	}

	return cut(chunk, size, needed);
}

void vm_arena_free(void *block)
{
	union block_header *header;
	struct arena_chunk *chunk;

	if (!block) {
		return;
	}

	header = ((union block_header *) block) - 1;
	chunk = header->of.chunk;
	VALGRIND_FREELIKE_BLOCK(block, 0);
	ARENA_POISON(header, sizeof(*header) + header->of.size);
	chunk->live--;
	if (chunk->live > 0) {
		return;
	}

	if (chunk->retired) {
		free_chunk(chunk);
	} else {
		/* The chunk being cut, empty: cut it again from its start. */
		chunk->used = 0;
	}
}
