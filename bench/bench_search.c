/* bench_search.c - the layout search's speed (search.h): the whole space
 * of a config searched on one thread and on every core, the median of
 * RUNS searches by the wall clock (a search's threads are not this
 * thread's CPU time). Printed as `search NAME on N GPUs: R layouts/s`
 * (enumerated layouts, what the space holds, most of them refused by an
 * integer rule and never priced), then the valid layouts a second (each
 * priced by the memory estimator), the time of one whole search, and
 * `search-priced-layouts-per-s NAME on N GPUs (C cores)`: the layouts
 * priced (search.counts.priced_memory: every valid layout's memory, and
 * the step time of each that fits, priced_time) over the whole search's
 * wall time, divided by the cores the search ran on: the rate per core.
 * Figures only: nothing passes or fails.
 *
 * usage: bench_search NAME CONFIG [RUNS]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/search.h"

#include "bench.h"

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double median_search_s(const struct dc_config *cfg, unsigned jobs, int runs, struct dc_search_result *r)
{
	double t[16];
	const char *err = NULL;
	if (runs > 16)
		runs = 16;
	for (int i = 0; i < runs; i++) {
		double t0 = wall_s();
		if (dc_search_run(cfg, jobs, NULL, r, &err) != 0) {
			fprintf(stderr, "bench_search: %s\n", err ? err : "failed");
			exit(1);
		}
		t[i] = wall_s() - t0;
	}
	qsort(t, (size_t)runs, sizeof(t[0]), bench_cmp_double);
	return t[runs / 2];
}

int main(int argc, char **argv)
{
	struct dc_config *cfg = malloc(sizeof(*cfg));
	struct dc_search_result *r = malloc(sizeof(*r));
	struct dc_diag d;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned all = cores > 0 ? (unsigned)cores : 1;

	if (argc < 3 || !cfg || !r) {
		fprintf(stderr, "usage: bench_search NAME CONFIG [RUNS]\n");
		return 2;
	}
	dc_diag_init(&d);
	if (dc_config_load_file(argv[2], NULL, 0, cfg, &d) != 0) {
		fprintf(stderr, "bench_search: %s: cannot load\n", argv[2]);
		return 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		unsigned jobs = pass ? all : 1;
		double s = median_search_s(cfg, jobs, runs < 1 ? 1 : runs, r);
		printf("search %s on %llu GPUs: %.0f layouts/s (%u core%s; %llu layouts, %llu valid, %llu fit)\n", argv[1],
		       (unsigned long long)cfg->world_size, (double)r->counts.enumerated / s, jobs, jobs == 1 ? "" : "s",
		       (unsigned long long)r->counts.enumerated, (unsigned long long)r->counts.valid,
		       (unsigned long long)r->counts.fit);
		printf("search %s on %llu GPUs valid: %.0f layouts/s (%u core%s)\n", argv[1],
		       (unsigned long long)cfg->world_size, (double)r->counts.valid / s, jobs, jobs == 1 ? "" : "s");
		printf("search %s on %llu GPUs whole space: %.3f s (%u core%s)\n", argv[1],
		       (unsigned long long)cfg->world_size, s, jobs, jobs == 1 ? "" : "s");
		printf("search-priced-layouts-per-s %s on %llu GPUs (%u core%s): %.0f layouts/s per core "
		       "(%llu rejected by the rules, %llu priced for memory, %llu for step time)\n",
		       argv[1], (unsigned long long)cfg->world_size, jobs, jobs == 1 ? "" : "s",
		       (double)r->counts.priced_memory / s / (double)jobs, (unsigned long long)r->counts.rejected_by_rules,
		       (unsigned long long)r->counts.priced_memory, (unsigned long long)r->counts.priced_time);
		fflush(stdout);
	}
	dc_diag_release(&d);
	free(cfg);
	free(r);
	return 0;
}
