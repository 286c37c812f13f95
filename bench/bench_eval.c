/* bench_eval.c - in-process cost of distcalc's stages on one core: the
 * loader, the plan, and the plan with every estimator (no sections: what
 * one layout of a search costs), the ring lab's totals. bench_report
 * times whole reports. Each figure is the median of RUNS timed runs
 * of many evaluations, printed one per line as `name: value unit`. A
 * benchmark prints figures; it never passes or fails on time.
 *
 * usage: bench_eval [SECONDS] CONFIG...   (SECONDS per figure, default 1)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "distcalc/config.h"

#include "bench.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/ring.h"

struct ctx {
	const char *name; /* the config's file name, for the figures */
	char *buf;
	size_t len;
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_results res;
	volatile uint64_t sink;
};

static void figure(const char *what, struct ctx *c, double seconds, const char *unit, int (*fn)(void *))
{
	bench_figure(what, c->name, seconds, unit, fn, c);
}

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

/* plan derive + every estimator, no sections: what one layout costs */
static int estimators_only(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0 || dc_estimate(&c->plan, DC_EST_ALL, &c->res) != 0)
		return -1;
	c->sink += c->res.memory.top.peak_bytes + c->res.comm.bytes_per_rank + c->res.ring.bytes_sent_max +
		   c->res.strategies.v[0].peak_bytes + (uint64_t)c->res.flops.model_per_rank;
	return 0;
}

static int plan_only(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0)
		return -1;
	c->sink += c->plan.ring_msg_bytes;
	return 0;
}

static int ring_only(void *p)
{
	struct ctx *c = p;
	struct dc_ring r;
	dc_ring_compute(c->plan.ring_ranks, c->plan.ring_msg_bytes, &c->plan.ring_link.params,
			c->plan.ring_link.choice, &r);
	c->sink += r.bytes_sent_max;
	return 0;
}

int main(int argc, char **argv)
{
	double seconds;
	int first = bench_args(argc, argv, "bench_eval [SECONDS] CONFIG...", &seconds);
	static struct ctx c;

	if (first < 0)
		return 2;
	for (int i = first; i < argc; i++) {
		memset(&c, 0, sizeof(c));
		c.name = bench_basename(argv[i]);
		c.buf = bench_slurp(argv[i], &c.len);
		if (!c.buf || load_only(&c) != 0 || plan_only(&c) != 0) {
			fprintf(stderr, "bench: cannot load '%s'\n", argv[i]);
			return 1;
		}
		figure("estimators-only", &c, seconds, "ns", estimators_only);
		figure("plan derive", &c, seconds, "ns", plan_only);
		figure("ring lab totals", &c, seconds, "ns", ring_only);
		figure("load", &c, seconds, "us", load_only);
		free(c.buf);
	}
	return 0;
}
