/* bench_eval.c - in-process throughput: load configs/systems.json and run
 * the estimators many times; prints evaluations per second. A benchmark
 * prints figures; it never passes or fails on time.
 *
 * usage: bench_eval [CONFIG] [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/ring.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
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

/* Runs `fn` until `seconds` pass; returns evaluations per second. */
static double rate(const char *what, double seconds, int (*fn)(void *), void *ctx)
{
	unsigned long n = 0, batch = 1;
	double t0 = now_s(), t;
	do {
		for (unsigned long i = 0; i < batch; i++)
			if (fn(ctx) != 0) {
				fprintf(stderr, "bench: %s failed\n", what);
				exit(1);
			}
		n += batch;
		if (batch < 1024)
			batch *= 2;
		t = now_s() - t0;
	} while (t < seconds);
	printf("%-44s %12.0f evals/s  (%lu in %.2f s, %.3f us each)\n", what, (double)n / t, n, t,
	       t / (double)n * 1e6);
	return (double)n / t;
}

struct ctx {
	char *buf;
	size_t len;
	struct dc_config cfg;
	volatile uint64_t sink;
};

static int load_only(void *p)
{
	struct ctx *c = p;
	struct dc_diag d;
	int rc;
	dc_diag_init(&d);
	rc = dc_config_load_buffer(c->buf, c->len, "bench", NULL, 0, &c->cfg, &d);
	dc_diag_release(&d);
	return rc;
}

static int ring_only(void *p)
{
	struct ctx *c = p;
	struct dc_ring r;
	struct dc_link link;
	enum dc_link_choice ch = dc_ring_pick_link(&c->cfg, c->cfg.collective.ranks, &link);
	dc_ring_compute(c->cfg.collective.ranks, c->cfg.collective.msg_bytes, &link, ch, &r);
	c->sink += r.bytes_sent_max;
	return 0;
}

static int load_and_ring(void *p)
{
	return load_only(p) != 0 ? -1 : ring_only(p);
}

static int full_report(void *p)
{
	struct ctx *c = p;
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
		if (r && dc_report_render_json(r, &ro, &out) == 0)
			rc = 0;
		c->sink += out.len;
		dc_report_free(r);
	}
	dc_buf_release(&out);
	dc_diag_release(&d);
	return rc;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "configs/systems.json";
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	struct ctx c;

	memset(&c, 0, sizeof(c));
	c.buf = slurp(path, &c.len);
	if (!c.buf) {
		fprintf(stderr, "bench: cannot read '%s'\n", path);
		return 1;
	}
	printf("config: %s (%zu bytes), %.1f s per figure\n", path, c.len, seconds);
	for (int i = 0; i < 2000; i++) /* warm caches and the allocator */
		full_report(&c);
	rate("loader (parse + validate)", seconds, load_only, &c);
	rate("ring estimator (totals, O(1))", seconds, ring_only, &c);
	rate("loader + ring estimator", seconds, load_and_ring, &c);
	rate("systems experiment + JSON render", seconds, full_report, &c);
	free(c.buf);
	return 0;
}
