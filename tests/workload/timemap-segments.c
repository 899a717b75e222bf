#include "timemap-segments.h"

#include <errno.h>
#include <float.h>
#include <string.h>

static void put_piece(FILE *file, const char *machine, const wl_clock_piece *p)
{
	fprintf(file, "%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.*Lg,%.*Lg,%" G_GINT64_FORMAT
		"\n", machine, p->machine_begin_ns, p->true_begin_ns, LDBL_DECIMAL_DIG, p->slope,
		LDBL_DECIMAL_DIG, p->offset, p->drift_ppb);
}

static void put_rows(wl_sim *sim, FILE *file)
{
	wl_clock_piece host = { sim->start_ns, sim->start_ns, 0, 1.0L, 0.0L };

	fprintf(file, "machine,machine_begin_ns,true_begin_ns,slope,offset_ns,drift_ppb\n");
	put_piece(file, "host", &host);
	for (guint g = 0; g < sim->guests->len; g++) {
		const wl_guest *guest = g_ptr_array_index(sim->guests, g);

		for (guint i = 0; i < wl_clock_pieces(&guest->clock); i++) {
			wl_clock_piece piece = wl_clock_piece_at(&guest->clock, i);

			put_piece(file, guest->name, &piece);
		}
	}
}

bool wl_timemap_segments_write(wl_sim *sim)
{
	if (sim->opt.slew_ppm == 0)
		return true;

	char *path = g_strdup_printf("%s/truth/timemap-segments.csv", sim->opt.out_dir);
	FILE *file = fopen(path, "w");
	bool ok = file != NULL;

	if (file) {
		put_rows(sim, file);
		ok = !ferror(file);
		ok = fclose(file) == 0 && ok;
	}
	if (!ok)
		fprintf(stderr, "vm-workload: cannot write %s: %s\n", path, strerror(errno));
	g_free(path);
	return ok;
}
