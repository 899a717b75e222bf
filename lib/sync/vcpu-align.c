/*
 * What the synchronization from stock KVM events collects: see
 * vcpu-align.h. The fit itself is in vcpu-fit.c.
 */

#include <inttypes.h>

#include "sync/vcpu-align-private.h"

static void candidate_destroy(gpointer data)
{
	struct vm_vcpu_candidate *candidate = data;

	g_hash_table_destroy(candidate->vcpus);
	g_free(candidate);
}

static void guest_destroy(gpointer data)
{
	struct vm_vcpu_guest *guest = data;

	g_hash_table_destroy(guest->cpus);
	g_free(guest);
}

static void windows_free(gpointer data)
{
	vm_loss_windows_destroy(data);
}

static void array_free(gpointer data)
{
	g_array_free(data, TRUE);
}

/* uint64_t key -> GArray (owned) */
static GHashTable *array_table_create(void)
{
	return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, array_free);
}

struct vm_vcpu_align *vm_vcpu_align_create(void)
{
	struct vm_vcpu_align *align = g_new0(struct vm_vcpu_align, 1);

	align->candidates = g_ptr_array_new_with_free_func(candidate_destroy);
	align->candidate_by_key = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, NULL);
	align->guests = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		guest_destroy);
	align->constraints = g_hash_table_new_full(g_direct_hash, g_direct_equal,
		NULL, array_free);
	align->host_gaps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		windows_free);
	return align;
}

void vm_vcpu_align_destroy(struct vm_vcpu_align *align)
{
	if (!align) {
		return;
	}
	g_hash_table_destroy(align->constraints);
	g_hash_table_destroy(align->guests);
	g_hash_table_destroy(align->candidate_by_key);
	g_ptr_array_free(align->candidates, TRUE);
	g_hash_table_destroy(align->host_gaps);
	g_free(align);
}

void vm_vcpu_align_keep_piecewise(struct vm_vcpu_align *align)
{
	align->piecewise = true;
}

/* The array of `key` in `table`, created empty when missing. */
static GArray *array_of(GHashTable *table, uint64_t key, size_t element_size)
{
	GArray *array = g_hash_table_lookup(table, &key);

	if (!array) {
		guint64 *owned = g_new(guint64, 1);

		*owned = key;
		array = g_array_new(FALSE, FALSE, element_size);
		g_hash_table_insert(table, owned, array);
	}
	return array;
}

struct vm_loss_windows *vm_vcpu_align_host_gaps(struct vm_vcpu_align *align,
		unsigned int host)
{
	struct vm_loss_windows *windows =
		g_hash_table_lookup(align->host_gaps, GUINT_TO_POINTER(host + 1));

	if (!windows) {
		windows = vm_loss_windows_create();
		g_hash_table_insert(align->host_gaps, GUINT_TO_POINTER(host + 1), windows);
	}
	return windows;
}

void vm_vcpu_align_add_host_gap(struct vm_vcpu_align *align, unsigned int host,
		int64_t begin, int64_t end)
{
	vm_loss_windows_add(vm_vcpu_align_host_gaps(align, host), begin, end);
}

static struct vm_vcpu_candidate *candidate_of(struct vm_vcpu_align *align,
		unsigned int host, int64_t process)
{
	char *key;
	struct vm_vcpu_candidate *candidate = align->last_candidate;

	if (candidate && candidate->host == host && candidate->pid == process) {
		return candidate;
	}
	key = g_strdup_printf("%u/%" PRId64, host, process);
	candidate = g_hash_table_lookup(align->candidate_by_key, key);
	if (candidate) {
		g_free(key);
	} else {
		candidate = g_new0(struct vm_vcpu_candidate, 1);
		candidate->host = host;
		candidate->pid = process;
		candidate->vcpus = array_table_create();
		candidate->host_gaps = vm_vcpu_align_host_gaps(align, host);
		g_ptr_array_add(align->candidates, candidate);
		g_hash_table_insert(align->candidate_by_key, key, candidate);
	}
	align->last_candidate = candidate;
	return candidate;
}

void vm_vcpu_align_add_guest_mode(struct vm_vcpu_align *align, unsigned int host,
		int64_t pid, int64_t tid, uint64_t vcpu, int64_t entry_ns, int64_t exit_ns)
{
	struct vm_vcpu_candidate *candidate;
	struct vm_guest_mode interval = { entry_ns, exit_ns };

	if (exit_ns < entry_ns) {
		return;
	}
	/* Without its process, the thread is all that tells a QEMU apart. */
	candidate = candidate_of(align, host, pid >= 0 ? pid : tid);
	g_array_append_val(array_of(candidate->vcpus, vcpu,
		sizeof(struct vm_guest_mode)), interval);
	candidate->sorted = false;
}

struct vm_vcpu_guest *vm_vcpu_align_guest(const struct vm_vcpu_align *align,
		unsigned int guest)
{
	return g_hash_table_lookup(align->guests, GUINT_TO_POINTER(guest + 1));
}

void vm_vcpu_align_add_guest_event(struct vm_vcpu_align *align, unsigned int guest,
		uint64_t cpu, int64_t ts)
{
	struct vm_vcpu_guest *data;

	if (align->last_events && align->last_guest == guest && align->last_cpu == cpu) {
		g_array_append_val(align->last_events, ts);
		align->last_guest_data->sorted = false;
		return;
	}
	data = vm_vcpu_align_guest(align, guest);
	if (!data) {
		data = g_new0(struct vm_vcpu_guest, 1);
		data->cpus = array_table_create();
		g_hash_table_insert(align->guests, GUINT_TO_POINTER(guest + 1), data);
	}
	/* The arrays live as long as the alignment: the pointer stays valid. */
	align->last_events = array_of(data->cpus, cpu, sizeof(int64_t));
	align->last_guest_data = data;
	align->last_guest = guest;
	align->last_cpu = cpu;
	g_array_append_val(align->last_events, ts);
	data->sorted = false;
}

void vm_vcpu_align_forget_guest(struct vm_vcpu_align *align, unsigned int guest)
{
	if (align->last_events && align->last_guest == guest) {
		align->last_events = NULL;
		align->last_guest_data = NULL;
	}

	g_hash_table_remove(align->guests, GUINT_TO_POINTER(guest + 1));
}

bool vm_vcpu_align_has_guest(const struct vm_vcpu_align *align, unsigned int guest)
{
	return vm_vcpu_align_guest(align, guest) != NULL;
}

bool vm_vcpu_align_has_host(const struct vm_vcpu_align *align)
{
	return align->candidates->len > 0;
}

static gint compare_intervals(gconstpointer a, gconstpointer b)
{
	const struct vm_guest_mode *x = a, *y = b;

	if (x->entry != y->entry) {
		return x->entry < y->entry ? -1 : 1;
	}
	return (x->exit > y->exit) - (x->exit < y->exit);
}

gint vm_vcpu_compare_u64(gconstpointer a, gconstpointer b)
{
	guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

	return (x > y) - (x < y);
}

static gint compare_times(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Whether `array` is already in order: the sync pass adds in time order. */
static bool is_sorted(const GArray *array, GCompareFunc compare)
{
	guint size = g_array_get_element_size((GArray *) array);

	for (guint i = 1; i < array->len; i++) {
		if (compare(array->data + (i - 1) * size, array->data + i * size) > 0) {
			return false;
		}
	}
	return true;
}

static void sort_table(GHashTable *table, GCompareFunc compare)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		if (!is_sorted(value, compare)) {
			g_array_sort(value, compare);
		}
	}
}

const GArray *vm_vcpu_candidate_intervals(struct vm_vcpu_candidate *candidate,
		uint64_t vcpu)
{
	if (!candidate->sorted) {
		sort_table(candidate->vcpus, compare_intervals);
		candidate->sorted = true;
	}
	return g_hash_table_lookup(candidate->vcpus, &vcpu);
}

const GArray *vm_vcpu_guest_events(struct vm_vcpu_guest *guest, uint64_t cpu)
{
	if (!guest->sorted) {
		sort_table(guest->cpus, compare_times);
		guest->sorted = true;
	}
	return g_hash_table_lookup(guest->cpus, &cpu);
}
