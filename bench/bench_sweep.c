/* bench_sweep.c - what a sweep costs in process: a 100-point grid over
 * CONFIG (training.grad_accum_steps 1..10 x training.micro_batch_size
 * 1..10, every point loaded, estimated and looked up as --sweep does),
 * then its report rendered as a table, from the file's path (each sweep
 * reads and parses it once). The median of BENCH_RUNS runs in this
 * thread's CPU time (bench.h), one figure a line as `name: value unit`.
 * Prints figures; never passes or fails on time.
 *
 * usage: bench_sweep [SECONDS] CONFIG
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/sweep.h"

#include "bench.h"

struct ctx {
	const char *path;
	volatile size_t sink;
};

static int sweep_once(void *p)
{
	struct ctx *c = p;
	static const char *const axes[] = {"training.grad_accum_steps=1,2,3,4,5,6,7,8,9,10",
					   "training.micro_batch_size=1,2,3,4,5,6,7,8,9,10"};
	struct dc_sweep_load load;
	struct dc_run_info info;
	struct dc_render_opts ro = {0, 100};
	struct dc_diag d;
	struct dc_buf out;
	struct dc_report *r;
	int rc = -1;

	memset(&load, 0, sizeof(load));
	memset(&info, 0, sizeof(info));
	load.config_path = c->path;
	info.experiment = "systems";
	info.config_name = c->path;
	dc_diag_init(&d);
	dc_buf_init(&out);
	r = dc_sweep_run(dc_experiment_find("systems"), &load, axes, 2, NULL, &info, &d);
	if (r && dc_sweep_valid_points(r) == 100 && dc_report_render_table(r, &ro, &out) == 0)
		rc = 0;
	c->sink += out.len;
	dc_report_free(r);
	dc_buf_release(&out);
	dc_diag_release(&d);
	return rc;
}

int main(int argc, char **argv)
{
	double seconds;
	int first = bench_args(argc, argv, "bench_sweep [SECONDS] CONFIG", &seconds);
	struct ctx c;

	if (first < 0)
		return 2;
	memset(&c, 0, sizeof(c));
	c.path = argv[first];
	printf("sweep 100 points %s: %.2f ms\n", bench_basename(c.path),
	       bench_median_s("sweep", seconds, sweep_once, &c) * 1e3);
	return 0;
}
