/*
 * One machine's PID namespaces (SPEC, Containers).
 *
 * A thread never changes PID namespace in Linux (setns() and unshare() only
 * move its future children), so what the trace says about a thread holds
 * until the tid is reused by a fork. The sources still disagree at times
 * (a statedump written while the thread was forked, a lost fork): the
 * record keeps the rank of its source, and a source of lower precedence
 * does not overwrite one of higher precedence, except a fork, which is a
 * new thread.
 */

#include <inttypes.h>
#include <glib.h>

#include "containers/machine-ns.h"

/* Sources in SPEC's order of precedence: a lower rank wins. */
enum source_rank {
	RANK_CONTEXT = 1,   /* the event's pid_ns context field */
	RANK_PID_NS = 2,    /* lttng_statedump_process_pid_ns */
	RANK_STATEDUMP = 3, /* lttng_statedump_process_state's ns fields */
	RANK_FORK = 4,      /* sched_process_fork */
	RANK_NONE = 5,      /* only the comm is known */
};

struct thread_ns {
	int64_t ns_inum;    /* 0: unknown */
	int64_t ns_level;   /* -1: unknown */
	int64_t vtid;       /* -1: unknown */
	int64_t vpid;       /* -1: unknown */
	enum source_rank rank;
	char *comm;         /* NULL: unknown */
};

struct ns_info {
	int64_t level;      /* -1: unknown */
	int64_t init_tid;   /* the thread seen with vpid 1 in it, -1: none */
	char *inum_text;    /* the name when the init process is not known */
};

/* Largest CPU number whose current thread is followed (the stub limit). */
#define MAX_CPU 4096

struct vm_machine_ns {
	GHashTable *threads;     /* int64_t tid -> struct thread_ns */
	GHashTable *namespaces;  /* int64_t ns_inum -> struct ns_info */
	GArray *current;         /* int64_t tid per CPU, -1 unknown */
	int64_t root_inum;       /* the machine's own namespace */
	bool any;                /* a thread was seen in a container */
};

static void thread_free(gpointer p)
{
	struct thread_ns *t = p;

	g_free(t->comm);
	g_free(t);
}

static void ns_free(gpointer p)
{
	struct ns_info *ns = p;

	g_free(ns->inum_text);
	g_free(ns);
}

struct vm_machine_ns *vm_machine_ns_create(void)
{
	struct vm_machine_ns *m = g_new0(struct vm_machine_ns, 1);

	m->threads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		thread_free);
	m->namespaces = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		ns_free);
	m->current = g_array_new(FALSE, FALSE, sizeof(int64_t));
	m->root_inum = VM_PID_NS_INIT_INUM;
	return m;
}

void vm_machine_ns_destroy(struct vm_machine_ns *m)
{
	if (!m) {
		return;
	}
	g_hash_table_destroy(m->threads);
	g_hash_table_destroy(m->namespaces);
	g_array_free(m->current, TRUE);
	g_free(m);
}

static int64_t *int64_key(int64_t value)
{
	int64_t *key = g_new(int64_t, 1);

	*key = value;
	return key;
}

static struct thread_ns *thread_get(struct vm_machine_ns *m, int64_t tid)
{
	struct thread_ns *t = g_hash_table_lookup(m->threads, &tid);

	if (t) {
		return t;
	}
	t = g_new0(struct thread_ns, 1);
	t->ns_level = -1;
	t->vtid = -1;
	t->vpid = -1;
	t->rank = RANK_NONE;
	g_hash_table_insert(m->threads, int64_key(tid), t);
	return t;
}

static struct ns_info *ns_get(struct vm_machine_ns *m, int64_t inum)
{
	struct ns_info *ns = g_hash_table_lookup(m->namespaces, &inum);

	if (ns) {
		return ns;
	}
	ns = g_new0(struct ns_info, 1);
	ns->level = -1;
	ns->init_tid = -1;
	ns->inum_text = g_strdup_printf("%" PRId64, inum);
	g_hash_table_insert(m->namespaces, int64_key(inum), ns);
	return ns;
}

static void set_comm(struct thread_ns *t, const char *comm)
{
	if (!comm || !comm[0] || (t->comm && g_strcmp0(t->comm, comm) == 0)) {
		return;
	}
	g_free(t->comm);
	t->comm = g_strdup(comm);
}

/* A namespace inode number from a trace field: 0 or negative is none. */
static bool inum_valid(int64_t inum)
{
	return inum > 0 && inum <= INT64_C(0xffffffff);
}

/* What a level says of a namespace: level 0 is the machine's own. */
static void learn_level(struct vm_machine_ns *m, int64_t inum, int64_t level)
{
	if (level < 0) {
		return;
	}
	ns_get(m, inum)->level = level;
	if (level == 0) {
		m->root_inum = inum;
	}
}

/* Whether threads of namespace `inum` are in a container. */
static bool is_container(struct vm_machine_ns *m, int64_t inum)
{
	const struct ns_info *ns = g_hash_table_lookup(m->namespaces, &inum);

	if (ns && ns->level >= 0) {
		return ns->level > 0;
	}
	return inum != m->root_inum;
}

/* `tid` is the process with id 1 of namespace `inum`: its comm names it. */
static void learn_init(struct vm_machine_ns *m, int64_t inum, int64_t tid,
		int64_t vpid, int64_t vtid)
{
	if (vpid == 1 && vtid == 1) {
		ns_get(m, inum)->init_tid = tid;
	}
}

/*
 * A statedump's entry for one nesting level of `tid` (both layouts). The
 * highest level is the innermost namespace: an entry of a lower level
 * from a source of the same rank is the same dump's outer view.
 */
static void on_level_entry(struct vm_machine_ns *m, enum source_rank rank,
		int64_t tid, int64_t level, int64_t inum, int64_t vtid, int64_t vpid)
{
	struct thread_ns *t;

	if (tid < 0 || !inum_valid(inum)) {
		return;
	}
	if (level == VM_FIELD_MISSING || level < 0) {
		level = -1;
	}
	learn_level(m, inum, level);
	learn_init(m, inum, tid, vpid, vtid);
	t = thread_get(m, tid);
	if (t->rank < rank) {
		return;
	}
	if (t->rank == rank && t->ns_inum && t->ns_level > level) {
		return;
	}
	t->rank = rank;
	t->ns_inum = inum;
	t->ns_level = level;
	t->vtid = vtid >= 0 ? vtid : -1;
	t->vpid = vpid >= 0 ? vpid : -1;
	m->any = m->any || is_container(m, inum);
}

static void on_statedump(struct vm_machine_ns *m, const struct vm_event *ev)
{
	if (ev->u.statedump.tid < 0) {
		return;
	}
	set_comm(thread_get(m, ev->u.statedump.tid), ev->u.statedump.name);
	/* LTTng >= 2.12: no ns fields here, the pid_ns events follow. */
	if (ev->u.statedump.ns_inum == VM_FIELD_MISSING) {
		return;
	}
	on_level_entry(m, RANK_STATEDUMP, ev->u.statedump.tid,
		ev->u.statedump.ns_level, ev->u.statedump.ns_inum,
		ev->u.statedump.vtid, ev->u.statedump.vpid);
}

static void on_pid_ns(struct vm_machine_ns *m, const struct vm_event *ev)
{
	on_level_entry(m, RANK_PID_NS, ev->u.pid_ns.tid, ev->u.pid_ns.ns_level,
		ev->u.pid_ns.ns_inum, ev->u.pid_ns.vtid, ev->u.pid_ns.vpid);
}

/*
 * A new thread: whatever was known of its tid was another thread's. Without
 * the child's namespace (LTTng < 2.8), it is its parent's: only a parent
 * that unshared its PID namespace puts children elsewhere, and the pid_ns
 * context or a statedump says so when traced.
 */
static void on_fork(struct vm_machine_ns *m, const struct vm_event *ev)
{
	int64_t tid = ev->u.fork.child_tid;
	int64_t inum = ev->u.fork.child_ns_inum;
	int64_t level = ev->u.fork.child_ns_level;
	int64_t vtid = ev->u.fork.child_vtid;
	const struct thread_ns *parent = g_hash_table_lookup(m->threads,
		&ev->u.fork.parent_tid);
	struct thread_ns *t;

	/* tid 0 is the idle thread, never a child (a host's undecoded fork). */
	if (tid <= 0) {
		return;
	}
	t = thread_get(m, tid);
	g_free(t->comm);
	t->comm = NULL;
	set_comm(t, ev->u.fork.child_comm);
	t->rank = RANK_FORK;
	t->ns_level = level >= 0 ? level : -1;
	t->vtid = vtid >= 0 ? vtid : -1;
	t->vpid = -1;
	if (!inum_valid(inum)) {
		t->ns_inum = parent ? parent->ns_inum : 0;
		t->ns_level = parent ? parent->ns_level : -1;
		t->vtid = -1;
	} else {
		t->ns_inum = inum;
		learn_level(m, inum, t->ns_level);
	}
	/* A process (not a thread) has its own id as vpid. */
	if (tid == ev->u.fork.child_pid) {
		t->vpid = t->vtid;
	} else if (parent && parent->ns_inum == t->ns_inum) {
		t->vpid = parent->vpid;
	}
	if (t->ns_inum) {
		learn_init(m, t->ns_inum, tid, t->vpid, t->vtid);
	}
	m->any = m->any || (t->ns_inum && is_container(m, t->ns_inum));
}

/* The pid_ns context of an event: the namespace of `tid`, the thread it ran in. */
static void on_context(struct vm_machine_ns *m, int64_t tid, int64_t inum)
{
	struct thread_ns *t;
	const struct ns_info *ns;

	if (tid < 0 || !inum_valid(inum)) {
		return;
	}
	t = thread_get(m, tid);
	if (t->ns_inum != inum) {
		ns = g_hash_table_lookup(m->namespaces, &inum);
		t->ns_inum = inum;
		t->ns_level = ns ? ns->level : -1;
		t->vtid = -1;
		t->vpid = -1;
	}
	t->rank = RANK_CONTEXT;
	m->any = m->any || is_container(m, inum);
}

static int64_t *current_slot(struct vm_machine_ns *m, int64_t cpu)
{
	const int64_t unknown = -1;

	if (cpu < 0 || cpu >= MAX_CPU) {
		return NULL;
	}
	while (m->current->len <= (guint) cpu) {
		g_array_append_val(m->current, unknown);
	}
	return &g_array_index(m->current, int64_t, cpu);
}

/* The thread an event ran in: sched_switch's is the one switched out. */
static int64_t event_thread(struct vm_machine_ns *m, const struct vm_event *ev)
{
	int64_t *slot;

	if (ev->kind == VM_EVENT_SCHED_SWITCH) {
		return ev->u.sched_switch.prev_tid;
	}
	slot = current_slot(m, ev->cpu);
	return slot ? *slot : -1;
}

/* The comms of a switch, for threads whose namespace may need a name. */
static void on_switch(struct vm_machine_ns *m, const struct vm_event *ev)
{
	struct thread_ns *t;
	int64_t *slot = current_slot(m, ev->cpu);

	t = g_hash_table_lookup(m->threads, &ev->u.sched_switch.prev_tid);
	if (t) {
		set_comm(t, ev->u.sched_switch.prev_comm);
	}
	t = g_hash_table_lookup(m->threads, &ev->u.sched_switch.next_tid);
	if (t) {
		set_comm(t, ev->u.sched_switch.next_comm);
	}
	if (slot) {
		*slot = ev->u.sched_switch.next_tid;
	}
}

void vm_machine_ns_feed(struct vm_machine_ns *m, const struct vm_event *ev)
{
	if (ev->pid_ns) {
		on_context(m, event_thread(m, ev), ev->pid_ns);
	}
	switch (ev->kind) {
	case VM_EVENT_SCHED_SWITCH:
		on_switch(m, ev);
		break;
	case VM_EVENT_STATEDUMP_PROCESS:
		on_statedump(m, ev);
		break;
	case VM_EVENT_STATEDUMP_PID_NS:
		on_pid_ns(m, ev);
		break;
	case VM_EVENT_PROCESS_FORK:
		on_fork(m, ev);
		break;
	case VM_EVENT_LOSS: {
		/* The CPU's current thread is not known after a gap. */
		int64_t *slot = current_slot(m, ev->cpu);

		if (slot) {
			*slot = -1;
		}
		break;
	}
	default:
		break;
	}
}

static const char *ns_name(struct vm_machine_ns *m, int64_t inum)
{
	struct ns_info *ns = ns_get(m, inum);
	const struct thread_ns *init = ns->init_tid >= 0 ?
		g_hash_table_lookup(m->threads, &ns->init_tid) : NULL;

	/* The init process must still be that namespace's (not a reused tid). */
	if (init && init->comm && init->ns_inum == inum) {
		return init->comm;
	}
	return ns->inum_text;
}

bool vm_machine_ns_lookup(struct vm_machine_ns *m, int64_t tid,
		struct vm_container_ref *out)
{
	const struct thread_ns *t = g_hash_table_lookup(m->threads, &tid);

	if (!t || !t->ns_inum || !is_container(m, t->ns_inum)) {
		return false;
	}
	out->ns_inum = t->ns_inum;
	out->vtid = t->vtid;
	out->name = ns_name(m, t->ns_inum);
	return true;
}

bool vm_machine_ns_any(const struct vm_machine_ns *m)
{
	return m->any;
}
