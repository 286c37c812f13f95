/* bench_process.c - process time of whole `distcalc` runs: runs the binary
 * N times (output to /dev/null) and prints the median wall time, the
 * median CPU time and the peak resident memory (from wait4's rusage), one
 * figure per line as `process NAME wall: 1.234 ms`. Prints figures; never
 * passes or fails on time.
 *
 * usage: bench_process NAME DISTCALC N [ARGS...]
 */
#define _DEFAULT_SOURCE

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n;
	double *wall, *cpu;
	long max_rss_kib = 0;
	const char *name;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_process NAME DISTCALC N [ARGS...]\n");
		return 2;
	}
	name = argv[1];
	argv++;
	argc--;
	n = atoi(argv[2]);
	if (n < 1)
		n = 1;
	wall = calloc((size_t)n, sizeof(double));
	cpu = calloc((size_t)n, sizeof(double));
	if (!wall || !cpu)
		return 1;
	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		struct rusage ru;
		int status;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			argv[2] = argv[1];
			execv(argv[1], argv + 2);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
			perror("bench_process");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "bench_process: run %d failed (status %d)\n", i, status);
			return 1;
		}
		wall[i] = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		cpu[i] = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
		if (ru.ru_maxrss > max_rss_kib)
			max_rss_kib = ru.ru_maxrss;
	}
	qsort(wall, (size_t)n, sizeof(double), cmp_double);
	qsort(cpu, (size_t)n, sizeof(double), cmp_double);
	printf("process %s wall: %.3f ms\n", name, wall[n / 2] * 1e3);
	printf("process %s cpu: %.3f ms\n", name, cpu[n / 2] * 1e3);
	printf("process %s peak rss: %.1f MB\n", name, (double)max_rss_kib * 1024.0 / 1e6);
	free(wall);
	free(cpu);
	return 0;
}
