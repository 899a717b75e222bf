#ifndef VM_SYNC_SYNC_H
#define VM_SYNC_SYNC_H

/*
 * Trace synchronization: matching of one-way messages between machines and
 * Trace Compass's fully incremental convex-hull algorithm
 * (SyncAlgorithmFullyIncremental), composed along a spanning tree rooted at
 * the reference machine.
 *
 * Timestamps are nanoseconds since the Unix epoch (signed 64-bit). All hull
 * arithmetic is exact on such values (128-bit products); the fitted formula
 * is kept with enough precision to map a timestamp to the nanosecond.
 *
 * No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

enum vm_sync_quality {
	VM_SYNC_ABSENT,      /* no match at all (or no formula needed) */
	VM_SYNC_INCOMPLETE,  /* matches in one direction only */
	VM_SYNC_APPROXIMATE, /* both directions, hulls do not yet bound a line */
	VM_SYNC_ACCURATE,    /* both hulls bound the formula */
	VM_SYNC_FAIL,        /* hulls crossed: the last good formula is kept */
};

/* "absent", "incomplete", "approximate", "accurate", "fail". */
const char *vm_sync_quality_name(enum vm_sync_quality quality);

/*
 * A linear map from one machine's clock to the reference clock:
 * t_ref = slope * t + offset_ns.
 */
struct vm_sync_formula {
	long double slope;
	long double offset_ns;
};

/* The identity: slope 1, offset 0. */
struct vm_sync_formula vm_sync_formula_identity(void);

/*
 * How far from 1 the slope of a map between two real clocks can be: crystal
 * clocks drift by parts per million, a guest clock a little more while NTP
 * slews it. Wider than any clock, narrow enough to refuse a line fit to
 * a handful of misplaced matches (slopes like 0.3 or negative ones).
 */
#define VM_SYNC_PLAUSIBLE_RATE 0.05L

/* Whether `slope` is within VM_SYNC_PLAUSIBLE_RATE of 1. */
bool vm_sync_slope_plausible(long double slope);

/*
 * Maps t, rounding to the nearest nanosecond, halves upward (saturates on
 * overflow). Fast: hardware long double where that decides the rounding.
 */
int64_t vm_sync_formula_apply(const struct vm_sync_formula *formula, int64_t t);

/*
 * The same map, false when its exact result is no int64_t (*result is then
 * saturated, as vm_sync_formula_apply() gives it).
 */
bool vm_sync_formula_apply_checked(const struct vm_sync_formula *formula, int64_t t,
		int64_t *result);

/*
 * Whether the formula maps every time of [first, last] into [low, high]
 * without overflow. A linear map takes a span's ends to its image's ends,
 * so the two ends decide; their images (saturated) are given back for
 * messages.
 */
bool vm_sync_formula_maps_span(const struct vm_sync_formula *formula,
		int64_t first, int64_t last, int64_t low, int64_t high,
		int64_t *mapped_first, int64_t *mapped_last);

/*
 * The same map always evaluated in 113-bit precision (emulated in software:
 * slow). vm_sync_formula_apply() gives the same result; tests hold it to it.
 */
int64_t vm_sync_formula_apply_exact(const struct vm_sync_formula *formula, int64_t t);

/*
 * A formula prepared for many applications (vm_sync_formula_prepare()):
 * vm_sync_prepared_apply() gives what vm_sync_formula_apply() gives, mostly
 * in integer arithmetic. The fields are internal to lib/sync/.
 */
struct vm_sync_prepared {
	struct vm_sync_formula formula;  /* what it was prepared from */
	bool identity;
	bool fixed;                      /* the fixed-point path applies */
	bool slope_negative;             /* slope < 1 */
	int slope_shift;
	uint64_t slope_mantissa;         /* |slope - 1|, see prepared.c */
	__extension__ __int128 offset_fixed;
};

void vm_sync_formula_prepare(const struct vm_sync_formula *formula,
		struct vm_sync_prepared *prepared);

int64_t vm_sync_prepared_apply(const struct vm_sync_prepared *prepared, int64_t t);

/* The same, false on overflow, as vm_sync_formula_apply_checked(). */
bool vm_sync_prepared_apply_checked(const struct vm_sync_prepared *prepared, int64_t t,
		int64_t *result);

/*
 * Which side of `ref` the exact (unrounded) map of `t` lies on: true and
 * `*sign` -1 or +1 when the fixed point tells for sure, false when the map
 * is within a hair of `ref` (or out of the fixed point's range): the
 * caller then evaluates wide.
 */
bool vm_sync_prepared_side(const struct vm_sync_prepared *prepared, int64_t t, int64_t ref,
		int *sign);

/*
 * A coefficient as decimal text with every digit it has (g_free() it):
 * vm_sync_real_parse() gives the same long double back.
 */
char *vm_sync_real_text(long double value);

/*
 * "t_ref = SLOPE * t + OFFSET ns", or "... - |OFFSET| ns" for a negative
 * offset, each coefficient as vm_sync_real_text() writes it (g_free() it).
 */
char *vm_sync_formula_line(long double slope, long double offset_ns);

/*
 * A decimal (or C99 hexadecimal) real, the whole text, correctly rounded to
 * a long double. False when the text is no such number, or out of range.
 */
bool vm_sync_real_parse(const char *text, long double *value);

/* f(g(t)): first g, then f. */
struct vm_sync_formula vm_sync_formula_compose(const struct vm_sync_formula *f,
		const struct vm_sync_formula *g);

/* The inverse map (slope must not be 0). */
struct vm_sync_formula vm_sync_formula_invert(const struct vm_sync_formula *f);

/*
 * The convex hulls of one pair of machines. "ref" is the pair's reference
 * side (in Trace Compass: the lexicographically smaller host id), "other"
 * the other side. Trace Compass fits t_other = a * t_ref + b.
 */
struct vm_sync_hull;

struct vm_sync_hull *vm_sync_hull_create(void);
void vm_sync_hull_destroy(struct vm_sync_hull *hull);

/* An independent copy (to try a match without keeping it). */
struct vm_sync_hull *vm_sync_hull_copy(const struct vm_sync_hull *hull);

/*
 * One matched message. `sent_by_ref`: the sender is the ref side (then
 * send_ts is a ref time and recv_ts an other time), else the other side
 * sent it.
 */
void vm_sync_hull_add_match(struct vm_sync_hull *hull, bool sent_by_ref,
		int64_t send_ts, int64_t recv_ts);

enum vm_sync_quality vm_sync_hull_quality(const struct vm_sync_hull *hull);

/* Number of matches added so far. */
uint64_t vm_sync_hull_matches(const struct vm_sync_hull *hull);

/*
 * The current fit t_other = a * t_ref + b (a = 1, b = 0 while nothing can be
 * fitted; after a fail, the last good fit).
 */
void vm_sync_hull_fit(const struct vm_sync_hull *hull, long double *a, long double *b);

/*
 * How many fits the hull adopted so far: while it stays the same, so do
 * vm_sync_hull_fit(), vm_sync_hull_accuracy() and vm_sync_hull_formula().
 */
uint64_t vm_sync_hull_fit_count(const struct vm_sync_hull *hull);

/* a_max - a_min of the current fit, 0 when not bounded on both sides. */
long double vm_sync_hull_accuracy(const struct vm_sync_hull *hull);

/*
 * How far apart, at ref time x, the lines of largest and smallest slope
 * that the hulls allow are, in ns of the other side: what the fit may be
 * off by there (0 unless accurate). Beyond the matches, their slopes'
 * freedom widens it.
 */
long double vm_sync_hull_width_at(const struct vm_sync_hull *hull, int64_t x);

/* The map other -> ref of the current fit: t_ref = t / a - b / a. */
struct vm_sync_formula vm_sync_hull_formula(const struct vm_sync_hull *hull);

/*
 * Matching of one-way messages across machines and solving of all machines
 * against one reference.
 */
enum vm_sync_role {
	VM_SYNC_SEND,
	VM_SYNC_RECEIVE,
};

/* The identity of one message; fields the protocol lacks are 0. */
struct vm_sync_key {
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

struct vm_sync;

/* `machine_count` machines, indexed 0 .. machine_count - 1. */
struct vm_sync *vm_sync_create(unsigned int machine_count);
void vm_sync_destroy(struct vm_sync *sync);

/*
 * Also build each pair's piecewise-linear map (sync/segments.h) from the
 * same matches: call before the first event.
 */
void vm_sync_keep_piecewise(struct vm_sync *sync);

/*
 * Build each pair's one-pass map (sync/online.h) instead of its hull, for
 * a caller that reads the traces once: call before the first event. Get
 * one with vm_sync_online_of(). The pair hulls then get no match (the
 * online map's windows have their own): vm_sync_solve() finds no path, and
 * vm_sync_has_matches() is false.
 */
void vm_sync_keep_online(struct vm_sync *sync);

/* The one-pass map of the pair {x, y} (maps the higher index to the lower), or NULL. */
struct vm_sync_online *vm_sync_online_of(const struct vm_sync *sync, unsigned int x,
		unsigned int y);

/*
 * One send or receive event of `machine` at time `ts` (that machine's own
 * clock). A send and a receive with the same protocol and key on two
 * different machines match; the first unmatched event of each key wins.
 * `protocol` separates key spaces (e.g. 0 = vmsync, 1 = TCP).
 */
void vm_sync_add_event(struct vm_sync *sync, unsigned int protocol,
		const struct vm_sync_key *key, enum vm_sync_role role,
		unsigned int machine, int64_t ts);

/*
 * A message already matched by the caller (no key): sent by `sender` at
 * `send_ts` (its clock), received by `receiver` at `recv_ts`. Counts like
 * a match of vm_sync_add_event(); ignored between a machine and itself.
 */
void vm_sync_add_matched(struct vm_sync *sync, unsigned int sender, int64_t send_ts,
		unsigned int receiver, int64_t recv_ts);

/*
 * Where each machine stands relative to `reference` once all events are
 * added. Formulas compose along shortest paths (fewest hops) from the
 * reference over pairs that have matches; a machine with no path keeps the
 * identity with quality VM_SYNC_ABSENT. The reference itself is the identity
 * with quality VM_SYNC_ABSENT and 0 matches.
 */
struct vm_sync_result {
	struct vm_sync_formula formula;   /* machine clock -> reference clock */
	enum vm_sync_quality quality;     /* worst quality along the path */
	long double accuracy;             /* of the pair next to the machine */
	uint64_t matches;                 /* matches of the pair next to the machine */
	int parent;                       /* previous machine on the path, -1 if none */
	/*
	 * With vm_sync_keep_piecewise(), for a machine paired with the
	 * reference itself: its piecewise map (sync/segments.h, owned by the
	 * vm_sync; `formula` stays the one line of Trace Compass). NULL
	 * otherwise.
	 */
	struct vm_sync_segments *segments;
};

void vm_sync_solve(const struct vm_sync *sync, unsigned int reference,
		struct vm_sync_result *results /* machine_count entries */);

/* Whether machines x and y have at least one match. */
bool vm_sync_has_matches(const struct vm_sync *sync, unsigned int x, unsigned int y);

/* Whether the pair's matches go both ways, so that a line fits them (not `incomplete`). */
bool vm_sync_has_line(const struct vm_sync *sync, unsigned int x, unsigned int y);

#endif /* VM_SYNC_SYNC_H */
