/* bench_render.c - what presenting a report costs: render systems.json as
 * JSON and as a table from a report built once (sections walk their field
 * tables over the results; nothing is recomputed), and the peak resident
 * memory of a whole run at 2^24 ranks of pure data parallelism. One figure
 * a line, `name: value unit`, each the median of 7 runs (render times in
 * this thread's CPU time, bench.h). Prints figures;
 * never passes or fails on time.
 *
 * usage: bench_render CONFIG [DISTCALC]
 *        bench_render --count N FORMAT CONFIG
 *
 * The second form renders the report N times as FORMAT (table, json or
 * csv) untimed and prints the bytes written, for callgrind's count of
 * the sink's instructions (docs/output.md, "What a render costs"):
 *
 *     valgrind --tool=callgrind --dump-instr=no \
 *       --toggle-collect='dc_report_render_*' \
 *       build/bench_render --count 20 table configs/systems.json
 */
#define _DEFAULT_SOURCE

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

#include "bench.h"

#define RUNS BENCH_RUNS

struct render_ctx {
	struct dc_report *r;
	const struct dc_render_opts *o;
	int (*fn)(struct dc_report *, const struct dc_render_opts *, struct dc_buf *);
};

static int render_once(void *p)
{
	struct render_ctx *c = p;
	struct dc_buf b;
	int rc;
	dc_buf_init(&b);
	rc = c->fn(c->r, c->o, &b);
	dc_buf_release(&b);
	return rc;
}

/* Median microseconds of one render of `r` by `fn`. */
static double render_us(const char *what, struct dc_report *r,
			int (*fn)(struct dc_report *, const struct dc_render_opts *, struct dc_buf *),
			const struct dc_render_opts *o)
{
	struct render_ctx c = {r, o, fn};
	return bench_median_s(what, 0.7, render_once, &c) * 1e6;
}

/* Peak RSS of one distcalc run, output to /dev/null, in MiB; the median of
 * RUNS runs. */
static double peak_rss_mb(const char *bin, char *const argv[])
{
	double m[RUNS];
	for (int k = 0; k < RUNS; k++) {
		struct rusage ru;
		int status;
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execv(bin, argv);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "bench_render: %s failed\n", bin);
			exit(1);
		}
		m[k] = (double)ru.ru_maxrss / 1024.0;
	}
	qsort(m, RUNS, sizeof(m[0]), bench_cmp_double);
	return m[RUNS / 2];
}

/* --count N FORMAT: N renders of r as FORMAT, untimed; returns the bytes
 * written, or -1 for an unknown format or a failed render */
static long long render_count(struct dc_report *r, long n, const char *format, const struct dc_render_opts *table,
			      const struct dc_render_opts *json)
{
	int (*fn)(struct dc_report *, const struct dc_render_opts *, struct dc_buf *) =
		strcmp(format, "table") == 0 ? dc_report_render_table
		: strcmp(format, "json") == 0 ? dc_report_render_json
		: strcmp(format, "csv") == 0 ? dc_report_render_csv
					     : NULL;
	long long bytes = 0;
	if (!fn)
		return -1;
	for (long k = 0; k < n; k++) {
		struct dc_buf b;
		dc_buf_init(&b);
		int rc = fn(r, fn == dc_report_render_table ? table : json, &b);
		bytes += (long long)b.len;
		dc_buf_release(&b);
		if (rc != 0)
			return -1;
	}
	return bytes;
}

int main(int argc, char **argv)
{
	int count = argc > 4 && strcmp(argv[1], "--count") == 0;
	const char *path = count ? argv[4] : argc > 1 ? argv[1] : "configs/systems.json";
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_run_info info = {"systems", "bench", 7, NULL};
	struct dc_render_opts table = {32, 100}, json = {32, 0};
	struct dc_report *r;

	dc_diag_init(&d);
	if (dc_config_load_file(path, NULL, 0, &cfg, &d) != 0 ||
	    !(r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d))) {
		fprintf(stderr, "bench_render: cannot run %s\n", path);
		return 1;
	}
	if (count) {
		long long bytes = render_count(r, strtol(argv[2], NULL, 10), argv[3], &table, &json);
		if (bytes < 0) {
			fprintf(stderr, "bench_render: cannot render %s as '%s'\n", path, argv[3]);
			return 1;
		}
		printf("%lld bytes\n", bytes);
		dc_report_free(r);
		dc_diag_release(&d);
		return 0;
	}
	printf("render systems.json json: %.1f us\n", render_us("render json", r, dc_report_render_json, &json));
	printf("render systems.json table: %.1f us\n", render_us("render table", r, dc_report_render_table, &table));
	printf("render systems.json csv: %.1f us\n", render_us("render csv", r, dc_report_render_csv, &json));
	dc_report_free(r);
	dc_diag_release(&d);
	if (argc > 2) {
		static char set[] = "--set", nodes[] = "cluster.num_nodes=2097152", gpus[] = "cluster.gpus_per_node=8",
			    tp[] = "parallel.tp=1", pp[] = "parallel.pp=1", dp[] = "parallel.dp=16777216";
		char *const big[] = {argv[2], set, nodes, set, gpus, set, tp, set, pp, set, dp, NULL};
		printf("peak rss 2^24 ranks pure dp: %.1f MB\n", peak_rss_mb(argv[2], big));
	}
	return 0;
}
