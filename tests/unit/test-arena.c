#include <check.h>
#include <glib.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* A block and the pattern written in it, to find overlaps and stray writes. */
struct live_block {
	unsigned char *bytes;
	size_t size;
	unsigned char seed;
};

static void fill(struct live_block *block)
{
	for (size_t i = 0; i < block->size; i++)
		block->bytes[i] = (unsigned char) (block->seed + i * 31);
}

static void expect_intact(const struct live_block *block)
{
	size_t i = 0;

	while (i < block->size && block->bytes[i] == (unsigned char) (block->seed + i * 31))
		i++;
	ck_assert_msg(i == block->size, "byte %zu of a %zu-byte block was overwritten",
		i, block->size);
}

static struct live_block make_block(struct vm_arena *arena, size_t size, unsigned char seed)
{
	struct live_block block = { vm_arena_alloc(arena, size), size, seed };

	ck_assert_ptr_nonnull(block.bytes);
	ck_assert_uint_eq((uintptr_t) block.bytes % alignof(max_align_t), 0);
	fill(&block);
	return block;
}

START_TEST(blocks_are_aligned_and_apart)
{
	struct vm_arena *arena = vm_arena_create(1024);
	struct live_block blocks[500];

	/* Sizes 0 to 99 bytes: many chunks, blocks of every remainder. */
	for (unsigned int i = 0; i < G_N_ELEMENTS(blocks); i++)
		blocks[i] = make_block(arena, i % 100, (unsigned char) i);
	for (unsigned int i = 0; i < G_N_ELEMENTS(blocks); i++) {
		expect_intact(&blocks[i]);
		vm_arena_free(blocks[i].bytes);
	}
	vm_arena_destroy(arena);
}
END_TEST

START_TEST(blocks_freed_in_any_order_keep_the_others)
{
	struct vm_arena *arena = vm_arena_create(4096);
	GArray *live = g_array_new(FALSE, FALSE, sizeof(struct live_block));
	GRand *rand = g_rand_new_with_seed(7);

	/* Mostly first-in first-out, as records are, with random deaths too. */
	for (unsigned int step = 0; step < 50000; step++) {
		if (live->len > 0 && g_rand_int_range(rand, 0, 100) < 48) {
			guint victim = g_rand_int_range(rand, 0, 100) < 80 ? 0 :
				(guint) g_rand_int_range(rand, 0, (gint32) live->len);
			struct live_block *block =
				&g_array_index(live, struct live_block, victim);

			expect_intact(block);
			vm_arena_free(block->bytes);
			g_array_remove_index(live, victim);
		} else {
			struct live_block block = make_block(arena,
				(size_t) g_rand_int_range(rand, 1, 300), (unsigned char) step);

			g_array_append_val(live, block);
		}
	}

	for (guint i = 0; i < live->len; i++) {
		expect_intact(&g_array_index(live, struct live_block, i));
		vm_arena_free(g_array_index(live, struct live_block, i).bytes);
	}
	g_rand_free(rand);
	g_array_free(live, TRUE);
	vm_arena_destroy(arena);
}
END_TEST

START_TEST(big_blocks_get_chunks_of_their_own)
{
	struct vm_arena *arena = vm_arena_create(1024);
	struct live_block small = make_block(arena, 40, 1);
	struct live_block big = make_block(arena, 100000, 2);
	struct live_block after = make_block(arena, 40, 3);

	expect_intact(&small);
	expect_intact(&after);
	vm_arena_free(big.bytes);
	expect_intact(&small);
	expect_intact(&after);
	vm_arena_free(small.bytes);
	vm_arena_free(after.bytes);
	vm_arena_destroy(arena);
}
END_TEST

START_TEST(blocks_outlive_their_arena)
{
	struct vm_arena *arena = vm_arena_create(1024);
	struct live_block blocks[50];

	for (unsigned int i = 0; i < G_N_ELEMENTS(blocks); i++)
		blocks[i] = make_block(arena, 64, (unsigned char) i);
	vm_arena_destroy(arena);
	for (unsigned int i = 0; i < G_N_ELEMENTS(blocks); i++) {
		expect_intact(&blocks[i]);
		vm_arena_free(blocks[i].bytes);
	}
}
END_TEST

START_TEST(an_emptied_chunk_is_cut_again_from_its_start)
{
	struct vm_arena *arena = vm_arena_create(1024);
	void *first = vm_arena_alloc(arena, 32);
	void *second = vm_arena_alloc(arena, 32);

	ck_assert_ptr_ne(first, second);
	vm_arena_free(first);
	vm_arena_free(second);
	/* No block left in the chunk being cut: the next one is its first. */
	ck_assert_ptr_eq(vm_arena_alloc(arena, 32), first);
	vm_arena_free(first);
	vm_arena_free(NULL);
	vm_arena_destroy(arena);
	vm_arena_destroy(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("blocks");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, blocks_are_aligned_and_apart);
	tcase_add_test(tc, blocks_freed_in_any_order_keep_the_others);
	tcase_add_test(tc, big_blocks_get_chunks_of_their_own);
	tcase_add_test(tc, blocks_outlive_their_arena);
	tcase_add_test(tc, an_emptied_chunk_is_cut_again_from_its_start);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
