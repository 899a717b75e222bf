#ifndef VM_COMMON_STREAM_CACHE_H
#define VM_COMMON_STREAM_CACHE_H

/*
 * The machine index of recent streams (machine.c): a two-way cache
 * (slots 2k and 2k+1 form a set, the newest first); the streams being
 * merged are all in use at once, and would often share a slot of a
 * direct-mapped one. A reference is held on each cached stream, so that
 * its address cannot name another stream later.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/address-hash.h"

#define STREAM_CACHE_BITS 5
#define STREAM_CACHE_SIZE (1 << STREAM_CACHE_BITS)

struct stream_cache {
	struct {
		const bt_stream *stream;  /* NULL: empty slot */
		unsigned int machine;
	} slots[STREAM_CACHE_SIZE];
};

/* The first slot of the set of `stream`. */
static inline size_t stream_cache_set(const bt_stream *stream)
{
	return vm_address_hash(stream, STREAM_CACHE_BITS) & ~(size_t) 1;
}

/* The machine of `stream` if cached. */
static inline bool stream_cache_find(const struct stream_cache *cache,
		const bt_stream *stream, unsigned int *machine)
{
	size_t slot = stream_cache_set(stream);

	if (cache->slots[slot].stream != stream) {
		slot++;
		if (cache->slots[slot].stream != stream) {
			return false;
		}
	}
	*machine = cache->slots[slot].machine;
	return true;
}

/* `stream`, not cached, becomes the newest of its set. */
static inline void stream_cache_add(struct stream_cache *cache,
		const bt_stream *stream, unsigned int machine)
{
	size_t slot = stream_cache_set(stream);

	bt_stream_get_ref(stream);
	bt_stream_put_ref(cache->slots[slot + 1].stream);
	cache->slots[slot + 1] = cache->slots[slot];
	cache->slots[slot].stream = stream;
	cache->slots[slot].machine = machine;
}

/* Puts the references; the cache is empty and usable again. */
static inline void stream_cache_clear(struct stream_cache *cache)
{
	size_t i;

	for (i = 0; i < STREAM_CACHE_SIZE; i++) {
		bt_stream_put_ref(cache->slots[i].stream);
		cache->slots[i].stream = NULL;
	}
}

#endif /* VM_COMMON_STREAM_CACHE_H */
