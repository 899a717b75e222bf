#ifndef VM_COMMON_LOSS_STREAMS_H
#define VM_COMMON_LOSS_STREAMS_H

/*
 * What filter.vm.state and sink.vm.threads know of each input stream for
 * the events it lost: the CPU it records (its packet context `cpu_id`,
 * read at each packet beginning, as the event decoder does for events),
 * the time of its latest message that had one, and whether its losses were
 * said. A discarded-events message comes before the packet it concerns, so
 * the CPU is the one of the stream's packets around it.
 *
 * Streams are the gap locator's stream keys (lib/loss/gap-locator.h); a
 * reference is held on each until it is forgotten, so that a key is never
 * reused by another stream meanwhile.
 */

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

struct loss_stream {
	const bt_stream *stream;  /* reference held */
	int64_t cpu;              /* VM_FIELD_MISSING: no packet told it */
	bool warned;              /* its losses were said */
	bool has_time;
	int64_t last_ts;          /* time of its latest message that had one */
	/* A slot of the user's for this stream (NULL at first). */
	void *user;
};

struct loss_streams;

struct loss_streams *loss_streams_create(void);
/* Puts the references of the streams still known. */
void loss_streams_destroy(struct loss_streams *streams);

/* The gap locator's key of `stream` (UINT64_MAX: no stream). */
uint64_t loss_stream_key(const bt_stream *stream);

/*
 * The entry of `stream`, created on first sight. Asked for every message:
 * a small cache sits in front of the table.
 */
struct loss_stream *loss_streams_get(struct loss_streams *streams,
		const bt_stream *stream);

/* The entry of `key`, NULL if none. */
struct loss_stream *loss_streams_find(struct loss_streams *streams, uint64_t key);

/* A packet begins: its stream's CPU is its `cpu_id`. */
void loss_streams_note_packet(struct loss_streams *streams, const bt_packet *packet);

/* The stream ended and nothing refers to it any more. */
void loss_streams_forget(struct loss_streams *streams, const bt_stream *stream);

#endif /* VM_COMMON_LOSS_STREAMS_H */
