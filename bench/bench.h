/* bench.h - what every benchmark shares: a thread-CPU clock, reading a
 * config, and the median of RUNS timed runs of a function. A benchmark
 * prints figures, one a line as `name: value unit`; it never passes or
 * fails on time. Header-only: every benchmark is its own program. */
#ifndef DISTCALC_BENCH_H
#define DISTCALC_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "distcalc/config.h"

#define BENCH_RUNS 7

/* CPU time of this thread: time spent descheduled (other processes on the
 * same cores) does not count. */
static inline double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The bytes of a config file (at most DC_CONFIG_MAX_BYTES); NULL when it
 * cannot be read. Caller frees. */
static inline char *bench_slurp(const char *path, size_t *len)
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

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Seconds per call of fn(ctx): the median of BENCH_RUNS runs of
 * `seconds` / BENCH_RUNS each, in batches of about 1 ms for the clock's
 * resolution. Exits with a message naming `what` if a call fails. */
static inline double bench_median_s(const char *what, double seconds, int (*fn)(void *), void *ctx)
{
	double per[BENCH_RUNS];
	unsigned long batch = 1;

	for (;;) {
		double t0 = bench_now_s(), t;
		for (unsigned long i = 0; i < batch; i++)
			if (fn(ctx) != 0) {
				fprintf(stderr, "bench: %s failed\n", what);
				exit(1);
			}
		t = bench_now_s() - t0;
		if (t > 1e-3 || batch > (1ul << 30))
			break;
		batch *= 2;
	}
	for (int r = 0; r < BENCH_RUNS; r++) {
		unsigned long n = 0;
		double t0 = bench_now_s(), t;
		do {
			for (unsigned long i = 0; i < batch; i++)
				fn(ctx);
			n += batch;
			t = bench_now_s() - t0;
		} while (t < seconds / BENCH_RUNS);
		per[r] = t / (double)n;
	}
	qsort(per, BENCH_RUNS, sizeof(per[0]), bench_cmp_double);
	return per[BENCH_RUNS / 2];
}

/* Prints `what NAME: value unit`, the median time per call of fn(ctx) in
 * "ns" or "us". */
static inline void bench_figure(const char *what, const char *name, double seconds, const char *unit,
				int (*fn)(void *), void *ctx)
{
	char label[256];
	double scale = strcmp(unit, "ns") == 0 ? 1e9 : 1e6, per;
	snprintf(label, sizeof(label), "%s %s", what, name);
	per = bench_median_s(label, seconds, fn, ctx);
	printf("%s: %.*f %s\n", label, scale == 1e9 ? 0 : 2, per * scale, unit);
	fflush(stdout);
}

/* `[SECONDS] CONFIG...`: *seconds (default 1) and the index of the first
 * config, or -1 after printing `usage` when there is none. */
static inline int bench_args(int argc, char **argv, const char *usage, double *seconds)
{
	int first = 1;
	*seconds = 1.0;
	if (argc > 1 && strchr("0123456789.", argv[1][0])) {
		*seconds = atof(argv[1]);
		first = 2;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return -1;
	}
	return first;
}

/* The file name of a path, for figure names. */
static inline const char *bench_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

#endif
