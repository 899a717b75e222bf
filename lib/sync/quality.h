#ifndef VM_SYNC_QUALITY_H
#define VM_SYNC_QUALITY_H

/* How well two machines' clocks are synchronized, and its names. */


enum vm_sync_quality {
	VM_SYNC_ABSENT,      /* no match at all (or no formula needed) */
	VM_SYNC_INCOMPLETE,  /* matches in one direction only */
	VM_SYNC_APPROXIMATE, /* both directions, hulls do not yet bound a line */
	VM_SYNC_ACCURATE,    /* both hulls bound the formula */
	VM_SYNC_FAIL,        /* hulls crossed: the last good formula is kept */
};

/* "absent", "incomplete", "approximate", "accurate", "fail". */
const char *vm_sync_quality_name(enum vm_sync_quality quality);

/* The worse of two qualities: fail, then incomplete, approximate, accurate;
 * absent only when both are absent. */
enum vm_sync_quality vm_sync_quality_worst(enum vm_sync_quality q1,
		enum vm_sync_quality q2);

#endif /* VM_SYNC_QUALITY_H */
