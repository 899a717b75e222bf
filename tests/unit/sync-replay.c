/*
 * sync-replay: feeds send/receive events to lib/sync and prints the solve
 * result, so that scripts can check the synchronization of real traces.
 *
 * Usage: sync-replay REFERENCE < events
 * Input, one event a line: MACHINE ROLE PROTOCOL A B C TS
 *   MACHINE   a name without spaces; machines get their indices in the
 *             lexicographic order of their names (the lower index is the
 *             pair's ref side, as the lexicographically smaller host id is in
 *             Trace Compass)
 *   ROLE      send | receive
 *   PROTOCOL  unsigned integer separating key spaces
 *   A B C     the message key (unsigned)
 *   TS        the machine's own time, signed ns
 * Output, one line per machine in index order:
 *   MACHINE QUALITY SLOPE OFFSET_NS ACCURACY MATCHES PARENT
 * where SLOPE and OFFSET_NS map the machine's clock to REFERENCE's and PARENT
 * is the previous machine on its path ("-" for none).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/quality.h"
#include "sync/sync.h"

struct replay_event {
	char *machine;
	enum vm_sync_role role;
	unsigned int protocol;
	struct vm_sync_key key;
	int64_t ts;
};

static void free_event(gpointer data)
{
	struct replay_event *event = data;

	g_free(event->machine);
	g_free(event);
}

static struct replay_event *parse_line(const char *line)
{
	char machine[256];
	char role[16];
	unsigned int protocol;
	uint64_t a, b, c;
	int64_t ts;
	struct replay_event *event;

	if (sscanf(line, "%255s %15s %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64,
			machine, role, &protocol, &a, &b, &c, &ts) != 7)
		return NULL;
	if (strcmp(role, "send") != 0 && strcmp(role, "receive") != 0)
		return NULL;
	event = g_new0(struct replay_event, 1);
	event->machine = g_strdup(machine);
	event->role = strcmp(role, "send") == 0 ? VM_SYNC_SEND : VM_SYNC_RECEIVE;
	event->protocol = protocol;
	event->key.a = a;
	event->key.b = b;
	event->key.c = c;
	event->ts = ts;
	return event;
}

/* Reads every event; NULL (after a message) on a malformed line. */
static GPtrArray *read_events(FILE *in)
{
	GPtrArray *events = g_ptr_array_new_with_free_func(free_event);
	char line[1024];
	unsigned long number = 0;

	while (fgets(line, sizeof(line), in)) {
		struct replay_event *event;

		number++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		event = parse_line(line);
		if (!event) {
			fprintf(stderr, "sync-replay: line %lu: expected "
				"MACHINE send|receive PROTOCOL A B C TS\n", number);
			g_ptr_array_free(events, TRUE);
			return NULL;
		}
		g_ptr_array_add(events, event);
	}
	return events;
}

static gint compare_names(gconstpointer left, gconstpointer right)
{
	return strcmp(*(char *const *) left, *(char *const *) right);
}

/* The distinct machine names, sorted; `indices` maps a name to its index. */
static GPtrArray *index_machines(GPtrArray *events, GHashTable *indices)
{
	GPtrArray *names = g_ptr_array_new();

	for (guint i = 0; i < events->len; i++) {
		struct replay_event *event = g_ptr_array_index(events, i);

		if (!g_hash_table_contains(indices, event->machine)) {
			g_hash_table_insert(indices, event->machine, NULL);
			g_ptr_array_add(names, event->machine);
		}
	}
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++)
		g_hash_table_insert(indices, g_ptr_array_index(names, i), GUINT_TO_POINTER(i));
	return names;
}

static void print_results(GPtrArray *names, const struct vm_sync_result *results)
{
	for (guint m = 0; m < names->len; m++) {
		const struct vm_sync_result *result = &results[m];

		printf("%s %s %.21Lg %.21Lg %.6Lg %" PRIu64 " %s\n",
			(const char *) g_ptr_array_index(names, m),
			vm_sync_quality_name(result->quality),
			result->formula.slope, result->formula.offset_ns,
			result->accuracy, result->matches,
			result->parent < 0 ? "-" :
				(const char *) g_ptr_array_index(names, (guint) result->parent));
	}
}

static int replay(GPtrArray *events, const char *reference)
{
	GHashTable *indices = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *names = index_machines(events, indices);
	gpointer reference_index;
	struct vm_sync *sync;
	struct vm_sync_result *results;

	if (!g_hash_table_lookup_extended(indices, reference, NULL, &reference_index)) {
		fprintf(stderr, "sync-replay: no event of reference machine %s\n", reference);
		g_ptr_array_free(names, TRUE);
		g_hash_table_destroy(indices);
		return EXIT_FAILURE;
	}
	sync = vm_sync_create(names->len);
	for (guint i = 0; i < events->len; i++) {
		struct replay_event *event = g_ptr_array_index(events, i);
		unsigned int machine = GPOINTER_TO_UINT(g_hash_table_lookup(indices, event->machine));

		vm_sync_add_event(sync, event->protocol, &event->key, event->role,
			machine, event->ts);
	}
	results = g_new0(struct vm_sync_result, names->len);
	vm_sync_solve(sync, GPOINTER_TO_UINT(reference_index), results);
	print_results(names, results);
	g_free(results);
	vm_sync_destroy(sync);
	g_ptr_array_free(names, TRUE);
	g_hash_table_destroy(indices);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	GPtrArray *events;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: sync-replay REFERENCE < events\n");
		return EXIT_FAILURE;
	}
	events = read_events(stdin);
	if (!events)
		return EXIT_FAILURE;
	status = replay(events, argv[1]);
	g_ptr_array_free(events, TRUE);
	return status;
}
