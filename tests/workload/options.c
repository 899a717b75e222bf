#include "options.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

enum {
	DEFAULT_HOST_CPUS = 4,
	DEFAULT_GUESTS = 2,
	DEFAULT_VCPUS = 2,
	DEFAULT_THREADS = 6,
	DEFAULT_DURATION_MS = 100,
	DEFAULT_OFFSET_NS = 3000000,
	DEFAULT_DRIFT_PPM = 40,
	DEFAULT_LATENCY_NS = 400,
	DEFAULT_VMSYNC_MS = 1,
	DEFAULT_TCP_MS = 2,
	MAX_HOST_CPUS = 256,
	MAX_GUESTS = 64,
	MAX_VCPUS = 64,
	MAX_THREADS = 10000,
	/* Beyond this a guest clock would no longer be a clock. */
	MAX_DRIFT_PPM = 10000,
};

#define NS_PER_MS INT64_C(1000000)
/* Keeps every product of the simulation far from 64-bit overflow. */
#define MAX_DURATION_MS INT64_C(86400000)
#define MAX_OFFSET_NS (INT64_C(3600) * 1000000000)

typedef struct raw_options {
	char *out;
	gint64 seed, host_cpus, guests, vcpus, threads, unnamed_threads, duration_ms, events;
	gint64 offset_ns, drift_ppm, latency_ns, vmsync_ms, tcp_ms;
	char *kvm_names;
	char *kvm_layout;
	char *statedump_layout;
	char *isa;
	char *guest_activity;
	double loss_rate;
	char *loss_ms;
	gint64 slew_ppm;
	char *slew_period;
	gint64 guest_kvm_entries;
	double migrate_rate;
	gint64 host_hogs;
	gint64 containers, container_depth;
	gboolean pid_ns_context;
} raw_options;

/* Beyond this a trace is more gaps than events. */
#define MAX_LOSS_RATE 1000.0
#define MAX_LOSS_MS 10000.0
#define DEFAULT_LOSS_MS "0.1:2"
/* Beyond this the host does little but move threads. */
#define MAX_MIGRATE_RATE 100000.0
#define MAX_HOST_HOGS 1024

/* MIN:MAX in ms (reals, 0 < MIN <= MAX <= MAX_LOSS_MS) into ns. */
static bool parse_loss_ms(const char *text, uint64_t *min_ns, uint64_t *max_ns)
{
	char *end;
	double lo = g_ascii_strtod(text, &end), hi = -1;

	if (*end == ':')
		hi = g_ascii_strtod(end + 1, &end);
	if (*end != '\0' || !(lo > 0) || !(hi >= lo) || hi > MAX_LOSS_MS) {
		fprintf(stderr, "vm-workload: --loss-ms must be MIN:MAX in ms with "
			"0 < MIN <= MAX <= %g, not '%s'\n", MAX_LOSS_MS, text);
		return false;
	}
	*min_ns = (uint64_t)(lo * NS_PER_MS + 0.5);
	*max_ns = (uint64_t)(hi * NS_PER_MS + 0.5);
	return *min_ns > 0;
}

static bool in_range(const char *name, gint64 value, gint64 lo, gint64 hi)
{
	if (value >= lo && value <= hi)
		return true;
	fprintf(stderr, "vm-workload: --%s must be between %" G_GINT64_FORMAT
		" and %" G_GINT64_FORMAT ", not %" G_GINT64_FORMAT "\n",
		name, lo, hi, value);
	return false;
}

static bool parse_raw(raw_options *raw, int argc, char **argv)
{
	GOptionEntry entries[] = {
		{ "out", 0, 0, G_OPTION_ARG_FILENAME, &raw->out, "Output directory (required)", "DIR" },
		{ "seed", 0, 0, G_OPTION_ARG_INT64, &raw->seed, "PRNG seed (default 1)", "N" },
		{ "host-cpus", 0, 0, G_OPTION_ARG_INT64, &raw->host_cpus, "Host CPUs (default 4)", "P" },
		{ "guests", 0, 0, G_OPTION_ARG_INT64, &raw->guests, "Guests (default 2)", "G" },
		{ "vcpus", 0, 0, G_OPTION_ARG_INT64, &raw->vcpus, "vCPUs per guest (default 2)", "V" },
		{ "threads", 0, 0, G_OPTION_ARG_INT64, &raw->threads, "Threads per guest (default 6)", "T" },
		{ "unnamed-threads", 0, 0, G_OPTION_ARG_INT64, &raw->unnamed_threads, "Of those, how many have an empty name (default 0)", "U" },
		{ "duration-ms", 0, 0, G_OPTION_ARG_INT64, &raw->duration_ms, "Simulated time (default 100 without --events)", "D" },
		{ "events", 0, 0, G_OPTION_ARG_INT64, &raw->events, "Stop after about N events", "N" },
		{ "guest-offset-ns", 0, 0, G_OPTION_ARG_INT64, &raw->offset_ns, "Guest clock offset scale (default 3000000)", "O" },
		{ "drift-ppm", 0, 0, G_OPTION_ARG_INT64, &raw->drift_ppm, "Guest clock drift scale (default 40)", "D" },
		{ "latency-ns", 0, 0, G_OPTION_ARG_INT64, &raw->latency_ns, "Minimum one-way message latency (default 400)", "L" },
		{ "vmsync-period-ms", 0, 0, G_OPTION_ARG_INT64, &raw->vmsync_ms, "vmsync exchange period, 0 = none (default 1)", "X" },
		{ "tcp-period-ms", 0, 0, G_OPTION_ARG_INT64, &raw->tcp_ms, "TCP message period per flow, 0 = none (default 2)", "Y" },
		{ "kvm-names", 0, 0, G_OPTION_ARG_STRING, &raw->kvm_names, "kvm event names: old or x86 (default x86)", "old|x86" },
		{ "kvm-layout", 0, 0, G_OPTION_ARG_STRING, &raw->kvm_layout, "kvm event payloads: modern (LTTng >= 2.13 on Linux >= 5.10; default) or classic", "modern|classic" },
		{ "statedump-layout", 0, 0, G_OPTION_ARG_STRING, &raw->statedump_layout, "Statedump events of LTTng 2.11 or 2.12 (default: 2.12 with the modern kvm layout, else 2.11)", "2.11|2.12" },
		{ "isa", 0, 0, G_OPTION_ARG_STRING, &raw->isa, "Virtualization extension: vmx (Intel; default) or svm (AMD), for the exit reasons", "vmx|svm" },
		{ "guest-activity", 0, 0, G_OPTION_ARG_STRING, &raw->guest_activity, "Guest events: basic (scheduling only) or rich (plus interrupts, timers, idle, syscalls; default)", "basic|rich" },
		{ "loss-rate", 0, 0, G_OPTION_ARG_DOUBLE, &raw->loss_rate, "Streams losing events, per second and machine (default 0: none)", "R" },
		{ "loss-ms", 0, 0, G_OPTION_ARG_STRING, &raw->loss_ms, "Length of a loss, ms (default 0.1:2)", "MIN:MAX" },
		{ "slew-ppm", 0, 0, G_OPTION_ARG_INT64, &raw->slew_ppm, "Guest clock frequency steps, ppm, 0 = none (default 0)", "S" },
		{ "slew-period-ms", 0, 0, G_OPTION_ARG_STRING, &raw->slew_period, "Lengths of the guest clock frequency segments (default 2000:6000)", "MIN:MAX" },
		{ "guest-kvm-entries", 0, 0, G_OPTION_ARG_INT64, &raw->guest_kvm_entries, "KVM entries in each guest's trace, after its first context switches (a guest that runs a nested VM; default 0)", "K" },
		{ "migrate-rate", 0, 0, G_OPTION_ARG_DOUBLE, &raw->migrate_rate, "Migrations of waiting host threads to another CPU (sched_migrate_task), per second (default 0: none)", "R" },
		{ "host-hogs", 0, 0, G_OPTION_ARG_INT64, &raw->host_hogs, "Host threads busy most of the time (default 0)", "N" },
		{ "containers", 0, 0, G_OPTION_ARG_INT64, &raw->containers, "Containers (PID namespaces) per guest (default 0)", "N" },
		{ "container-depth", 0, 0, G_OPTION_ARG_INT64, &raw->container_depth, "Nested PID namespaces of each container (default 1)", "D" },
		{ "pid-ns-context", 0, 0, G_OPTION_ARG_NONE, &raw->pid_ns_context, "Guest events carry the pid_ns context field (lttng add-context -k -t pid_ns)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *context = g_option_context_new("- simulated KVM host and guests, as stub traces with ground truth");
	GError *error = NULL;

	g_option_context_add_main_entries(context, entries, NULL);
	bool ok = g_option_context_parse(context, &argc, &argv, &error);

	if (!ok) {
		fprintf(stderr, "vm-workload: %s\n", error->message);
		g_error_free(error);
	} else if (argc > 1) {
		fprintf(stderr, "vm-workload: unexpected argument '%s'\n", argv[1]);
		ok = false;
	}
	g_option_context_free(context);
	return ok;
}

/* VALUE (NULL: not given) is one of A and B. */
static bool one_of(const char *option, const char *value, const char *a, const char *b)
{
	if (!value || strcmp(value, a) == 0 || strcmp(value, b) == 0)
		return true;
	fprintf(stderr, "vm-workload: --%s must be '%s' or '%s', not '%s'\n", option, a, b, value);
	return false;
}

static bool is(const char *value, const char *wanted)
{
	return value && strcmp(value, wanted) == 0;
}

/* kvm_entry/kvm_exit are the names of LTTng < 2.7, which wrote neither
 * the modern kvm payloads nor the 2.12 statedump. */
static bool check_layouts(const raw_options *raw)
{
	if (!is(raw->kvm_names, "old"))
		return true;
	if (is(raw->kvm_layout, "modern")) {
		fprintf(stderr, "vm-workload: --kvm-names old (LTTng < 2.7) cannot go with "
			"--kvm-layout modern (LTTng >= 2.13): use --kvm-layout classic\n");
		return false;
	}
	if (is(raw->statedump_layout, "2.12")) {
		fprintf(stderr, "vm-workload: --kvm-names old (LTTng < 2.7) cannot go with "
			"--statedump-layout 2.12 (LTTng >= 2.12): use --statedump-layout 2.11\n");
		return false;
	}
	return true;
}

static bool check_raw(const raw_options *raw)
{
	if (!raw->out || !*raw->out) {
		fprintf(stderr, "vm-workload: --out DIR is required\n");
		return false;
	}
	if (!one_of("kvm-names", raw->kvm_names, "old", "x86") ||
	    !one_of("kvm-layout", raw->kvm_layout, "modern", "classic") ||
	    !one_of("statedump-layout", raw->statedump_layout, "2.11", "2.12") ||
	    !one_of("isa", raw->isa, "vmx", "svm") ||
	    !one_of("guest-activity", raw->guest_activity, "basic", "rich") ||
	    !check_layouts(raw))
		return false;
	if (!(raw->loss_rate >= 0 && raw->loss_rate <= MAX_LOSS_RATE)) {
		fprintf(stderr, "vm-workload: --loss-rate must be between 0 and %g, not %g\n",
			MAX_LOSS_RATE, raw->loss_rate);
		return false;
	}
	if (!(raw->migrate_rate >= 0 && raw->migrate_rate <= MAX_MIGRATE_RATE)) {
		fprintf(stderr, "vm-workload: --migrate-rate must be between 0 and %g, not %g\n",
			MAX_MIGRATE_RATE, raw->migrate_rate);
		return false;
	}
	return in_range("seed", raw->seed, 0, G_MAXINT64) &&
	       in_range("host-hogs", raw->host_hogs, 0, MAX_HOST_HOGS) &&
	       in_range("host-cpus", raw->host_cpus, 1, MAX_HOST_CPUS) &&
	       in_range("guests", raw->guests, 1, MAX_GUESTS) &&
	       in_range("vcpus", raw->vcpus, 1, MAX_VCPUS) &&
	       in_range("threads", raw->threads, 1, MAX_THREADS) &&
	       in_range("unnamed-threads", raw->unnamed_threads, 0, raw->threads) &&
	       in_range("duration-ms", raw->duration_ms, 0, MAX_DURATION_MS) &&
	       in_range("events", raw->events, 0, G_MAXINT64) &&
	       in_range("guest-offset-ns", raw->offset_ns, -MAX_OFFSET_NS, MAX_OFFSET_NS) &&
	       in_range("drift-ppm", raw->drift_ppm, -MAX_DRIFT_PPM, MAX_DRIFT_PPM) &&
	       in_range("latency-ns", raw->latency_ns, 0, 1000 * NS_PER_MS) &&
	       in_range("vmsync-period-ms", raw->vmsync_ms, 0, MAX_DURATION_MS) &&
	       in_range("tcp-period-ms", raw->tcp_ms, 0, MAX_DURATION_MS) &&
	       in_range("slew-ppm", raw->slew_ppm, 0, MAX_DRIFT_PPM) &&
	       in_range("guest-kvm-entries", raw->guest_kvm_entries, 0, G_MAXINT32) &&
	       in_range("containers", raw->containers, 0, MAX_CONTAINERS) &&
	       in_range("container-depth", raw->container_depth, 1, MAX_NS_DEPTH);
}

/* --slew-period-ms MIN:MAX, 1 <= MIN <= MAX, in ms. */
static bool parse_slew_period(const char *text, gint64 *min_ms, gint64 *max_ms)
{
	char **parts = g_strsplit(text ? text : "2000:6000", ":", -1);
	bool ok = g_strv_length(parts) == 2 &&
		  g_ascii_string_to_signed(parts[0], 10, 1, MAX_DURATION_MS, min_ms, NULL) &&
		  g_ascii_string_to_signed(parts[1], 10, *min_ms, MAX_DURATION_MS, max_ms, NULL);

	g_strfreev(parts);
	if (!ok)
		fprintf(stderr, "vm-workload: --slew-period-ms must be MIN:MAX with 1 <= MIN <= MAX"
			" <= %" G_GINT64_FORMAT ", not '%s'\n", MAX_DURATION_MS, text);
	return ok;
}

static void fill(wl_options *opt, raw_options *raw, bool duration_given)
{
	opt->out_dir = raw->out;
	raw->out = NULL;
	opt->seed = (uint64_t)raw->seed;
	opt->host_cpus = (int)raw->host_cpus;
	opt->guests = (int)raw->guests;
	opt->vcpus = (int)raw->vcpus;
	opt->threads = (int)raw->threads;
	opt->unnamed_threads = (int)raw->unnamed_threads;
	opt->events = (uint64_t)raw->events;
	/* --events alone runs until that many events are written. */
	if (!duration_given && raw->events > 0)
		opt->duration_ns = 0;
	else
		opt->duration_ns = (uint64_t)(raw->duration_ms * NS_PER_MS);
	opt->guest_offset_ns = raw->offset_ns;
	opt->drift_ppm = raw->drift_ppm;
	opt->latency_ns = (uint64_t)raw->latency_ns;
	opt->vmsync_period_ns = (uint64_t)(raw->vmsync_ms * NS_PER_MS);
	opt->tcp_period_ns = (uint64_t)(raw->tcp_ms * NS_PER_MS);
	opt->kvm_x86_names = !raw->kvm_names || strcmp(raw->kvm_names, "x86") == 0;
	/* What users have, unless the old names say the tracer is older. */
	opt->kvm_layout = is(raw->kvm_layout, "classic") || !opt->kvm_x86_names ?
			  KVM_LAYOUT_CLASSIC : KVM_LAYOUT_MODERN;
	if (raw->statedump_layout)
		opt->statedump_layout = is(raw->statedump_layout, "2.12") ? STATEDUMP_2_12 :
									     STATEDUMP_2_11;
	else
		opt->statedump_layout = opt->kvm_layout == KVM_LAYOUT_MODERN ? STATEDUMP_2_12 :
									      STATEDUMP_2_11;
	opt->isa = is(raw->isa, "svm") ? WL_ISA_SVM : WL_ISA_VMX;
	opt->rich_guests = !raw->guest_activity || strcmp(raw->guest_activity, "rich") == 0;
	opt->loss_rate = raw->loss_rate;
	opt->slew_ppm = raw->slew_ppm;
	opt->guest_kvm_entries = (int)raw->guest_kvm_entries;
	opt->migrate_rate = raw->migrate_rate;
	opt->host_hogs = (int)raw->host_hogs;
	opt->containers = (int)raw->containers;
	opt->container_depth = (int)raw->container_depth;
	opt->pid_ns_context = raw->pid_ns_context;
}

bool wl_options_parse(wl_options *opt, int argc, char **argv)
{
	const gint64 unset = G_MININT64;
	raw_options raw = {
		.seed = 1, .host_cpus = DEFAULT_HOST_CPUS, .guests = DEFAULT_GUESTS,
		.vcpus = DEFAULT_VCPUS, .threads = DEFAULT_THREADS,
		.duration_ms = unset, .events = 0,
		.offset_ns = DEFAULT_OFFSET_NS, .drift_ppm = DEFAULT_DRIFT_PPM,
		.latency_ns = DEFAULT_LATENCY_NS, .vmsync_ms = DEFAULT_VMSYNC_MS,
		.tcp_ms = DEFAULT_TCP_MS, .container_depth = 1,
	};
	bool ok = parse_raw(&raw, argc, argv);
	bool duration_given = raw.duration_ms != unset;

	if (!duration_given)
		raw.duration_ms = DEFAULT_DURATION_MS;
	ok = ok && check_raw(&raw);
	if (ok && raw.duration_ms == 0 && raw.events == 0) {
		fprintf(stderr, "vm-workload: --duration-ms 0 needs --events N\n");
		ok = false;
	}
	memset(opt, 0, sizeof(*opt));
	gint64 slew_min_ms = 0, slew_max_ms = 0;

	ok = ok && parse_slew_period(raw.slew_period, &slew_min_ms, &slew_max_ms);
	if (ok) {
		fill(opt, &raw, duration_given);
		opt->slew_min_ns = (uint64_t)(slew_min_ms * NS_PER_MS);
		opt->slew_max_ns = (uint64_t)(slew_max_ms * NS_PER_MS);
		ok = parse_loss_ms(raw.loss_ms ? raw.loss_ms : DEFAULT_LOSS_MS, &opt->loss_min_ns,
				   &opt->loss_max_ns);
	}
	g_free(raw.loss_ms);
	g_free(raw.out);
	g_free(raw.kvm_names);
	g_free(raw.kvm_layout);
	g_free(raw.statedump_layout);
	g_free(raw.isa);
	g_free(raw.guest_activity);
	g_free(raw.slew_period);
	return ok;
}

void wl_options_clear(wl_options *opt)
{
	g_free(opt->out_dir);
	opt->out_dir = NULL;
}
