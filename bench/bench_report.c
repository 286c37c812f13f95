/* bench_report.c - in-process cost of whole reports on one core: load,
 * the systems experiment and a render to memory, as JSON and as a table.
 * Each figure is the median of RUNS timed runs of many evaluations, printed
 * one per line as `name: value unit`. A benchmark prints figures; it never
 * passes or fails on time. (bench_eval times the estimators alone.)
 *
 * usage: bench_report [SECONDS] CONFIG...   (SECONDS per figure, default 1)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

#define RUNS 7

/* CPU time of this thread: time spent descheduled (other processes on the
 * same cores) does not count */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	if (!f)
		return NULL;
	buf = malloc(DC_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, DC_CONFIG_MAX_BYTES, f);
	fclose(f);
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct ctx {
	const char *name; /* the config's file name, for the figures */
	char *buf;
	size_t len;
	struct dc_config cfg;
	volatile uint64_t sink;
};

/* Times `fn` in RUNS runs of `seconds` / RUNS each and prints the median
 * seconds per evaluation in `unit` ("ns" or "us"). */
static void figure(const char *what, struct ctx *c, double seconds, const char *unit, int (*fn)(struct ctx *))
{
	double per[RUNS], scale = strcmp(unit, "ns") == 0 ? 1e9 : 1e6;
	unsigned long batch = 1;

	/* a batch long enough (about 1 ms) for the clock's resolution */
	for (;;) {
		double t0 = now_s(), t;
		for (unsigned long i = 0; i < batch; i++)
			if (fn(c) != 0) {
				fprintf(stderr, "bench: %s %s failed\n", what, c->name);
				exit(1);
			}
		t = now_s() - t0;
		if (t > 1e-3 || batch > (1ul << 30))
			break;
		batch *= 2;
	}
	for (int r = 0; r < RUNS; r++) {
		unsigned long n = 0;
		double t0 = now_s(), t;
		do {
			for (unsigned long i = 0; i < batch; i++)
				fn(c);
			n += batch;
			t = now_s() - t0;
		} while (t < seconds / RUNS);
		per[r] = t / (double)n;
	}
	qsort(per, RUNS, sizeof(per[0]), cmp_double);
	printf("%s %s: %.*f %s\n", what, c->name, scale == 1e9 ? 0 : 2, per[RUNS / 2] * scale, unit);
	fflush(stdout);
}

static int report(struct ctx *c, int json)
{
	struct dc_diag d;
	struct dc_report *r;
	struct dc_buf out;
	struct dc_run_info info = {"systems", "bench", 7};
	struct dc_render_opts ro = {32};
	int rc = -1;

	dc_diag_init(&d);
	dc_buf_init(&out);
	if (dc_config_load_buffer(c->buf, c->len, "bench", NULL, 0, &c->cfg, &d) == 0) {
		r = dc_experiment_run(dc_experiment_find("systems"), &c->cfg, &info, &d);
		if (r && (json ? dc_report_render_json(r, &ro, &out) : dc_report_render_table(r, &ro, &out)) == 0)
			rc = 0;
		c->sink += out.len;
		dc_report_free(r);
	}
	dc_buf_release(&out);
	dc_diag_release(&d);
	return rc;
}

static int report_json(struct ctx *c)
{
	return report(c, 1);
}

static int report_table(struct ctx *c)
{
	return report(c, 0);
}

int main(int argc, char **argv)
{
	double seconds = 1.0;
	int first = 1;
	static struct ctx c;

	if (argc > 1 && strchr("0123456789.", argv[1][0])) {
		seconds = atof(argv[1]);
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: bench_report [SECONDS] CONFIG...\n");
		return 2;
	}
	for (int i = first; i < argc; i++) {
		const char *slash = strrchr(argv[i], '/');
		memset(&c, 0, sizeof(c));
		c.name = slash ? slash + 1 : argv[i];
		c.buf = slurp(argv[i], &c.len);
		if (!c.buf || report_json(&c) != 0) {
			fprintf(stderr, "bench: cannot report '%s'\n", argv[i]);
			return 1;
		}
		figure("load + report + render json", &c, seconds, "us", report_json);
		figure("load + report + render table", &c, seconds, "us", report_table);
		free(c.buf);
	}
	return 0;
}
