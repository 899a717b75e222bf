/* One machine's stub trace (format: stub-traces/README.md), written as the
 * simulation goes, with a count of the events of each name. */
#ifndef VM_WORKLOAD_STUB_FILE_H
#define VM_WORKLOAD_STUB_FILE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct wl_stub {
	FILE *file;
	char *path;
	/* Machine ns since the epoch that cycle 0 stands for. */
	uint64_t clock_offset_ns;
	/* event name (static string) -> count, as a pointer-sized integer */
	GHashTable *counts;
	uint64_t events;
	bool write_failed;
	/* --pid-ns-context: every event line ends with this pid_ns value,
	 * which the emitter sets before each event (the inode of the
	 * innermost PID namespace of the thread current on its CPU). */
	bool pid_ns_context;
	uint32_t pid_ns;
} wl_stub;

typedef struct wl_stub_header {
	const char *hostname;
	const char *clock_uuid;
	uint64_t clock_offset_ns;
	int cpus;
	/* env tracer_major.tracer_minor; 0 0 writes none (the format's 2.10). */
	int tracer_major, tracer_minor;
	/* NULL-terminated "NAME FIELD:TYPE ..." redefinitions of built-in
	 * events for the tracer's layouts (kvm-layout.h); NULL: none. */
	const char *const *kvm_defs;
	const char *const *statedump_defs;
	/* NULL-terminated lists of "NAME FIELD:TYPE ..." event declarations
	 * for events the stub format does not know (NULL: none). */
	const char *const *const *event_defs;
	/* Declares the pid_ns event context field (stub-traces/README.md). */
	bool pid_ns_context;
} wl_stub_header;

/* Opens PATH and writes the header; false (and a message) on error. */
bool wl_stub_open(wl_stub *stub, const char *path, const wl_stub_header *header);
/* Writes "cycles cpu name fields...", machine_ns being the machine's clock. */
void wl_stub_event(wl_stub *stub, uint64_t machine_ns, int cpu, const char *name,
		   const char *fields_format, ...) G_GNUC_PRINTF(5, 6);
void wl_stub_vevent(wl_stub *stub, uint64_t machine_ns, int cpu, const char *name,
		    const char *fields_format, va_list args) G_GNUC_PRINTF(5, 0);
/* Writes a loss line "cycles cpu !lost COUNT" (not counted as an event). */
void wl_stub_loss(wl_stub *stub, uint64_t machine_ns, int cpu, uint64_t count);
/* Flushes and closes; false (and a message) when any write failed. */
bool wl_stub_close(wl_stub *stub);
/* Releases everything (closing the file first if still open). */
void wl_stub_clear(wl_stub *stub);
/* The event names written, sorted; free with g_ptr_array_unref. */
GPtrArray *wl_stub_event_names(const wl_stub *stub);
uint64_t wl_stub_count(const wl_stub *stub, const char *name);

#endif
