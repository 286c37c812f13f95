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

#include "bench.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

struct ctx {
	const char *name; /* the config's file name, for the figures */
	char *buf;
	size_t len;
	struct dc_config cfg;
	volatile uint64_t sink;
};

static void figure(const char *what, struct ctx *c, double seconds, const char *unit, int (*fn)(void *))
{
	bench_figure(what, c->name, seconds, unit, fn, c);
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

static int report_json(void *p)
{
	struct ctx *c = p;
	return report(c, 1);
}

static int report_table(void *p)
{
	struct ctx *c = p;
	return report(c, 0);
}

int main(int argc, char **argv)
{
	double seconds;
	int first = bench_args(argc, argv, "bench_report [SECONDS] CONFIG...", &seconds);
	static struct ctx c;

	if (first < 0)
		return 2;
	for (int i = first; i < argc; i++) {
		memset(&c, 0, sizeof(c));
		c.name = bench_basename(argv[i]);
		c.buf = bench_slurp(argv[i], &c.len);
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
