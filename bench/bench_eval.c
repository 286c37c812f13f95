/* bench_eval.c - in-process cost of distcalc's stages on one core: the
 * loader, the plan, and the plan with every estimator but the step, then
 * with the step too (no sections: what one layout of a search costs), the
 * step's closed form alone (what a layout search calls: step.h), the ring
 * lab's totals. A config that names no GPU runs on the A100 preset so that
 * the step has kernel times. bench_report
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
#include "distcalc/step.h"

struct ctx {
	const char *name; /* the config's file name, for the figures */
	char *buf;
	size_t len;
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_results res;
	struct dc_override gpu; /* cluster.gpu when the config names none */
	size_t ngpu;
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
	rc = dc_config_load_buffer(c->buf, c->len, "bench", &c->gpu, c->ngpu, &c->cfg, &d);
	dc_diag_release(&d);
	return rc;
}

/* The systems report's estimators: all but those of the checkpoint and
 * loss experiments (whose walks over ranks and samples are measured apart) */
#define SYSTEMS_ESTS (DC_EST_ALL & ~DC_EST_BIT(DC_EST_CHECKPOINT) & ~DC_EST_BIT(DC_EST_LOSS))

/* plan derive + the systems report's estimators but the step, no sections */
static int estimators_only(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0 ||
	    dc_estimate(&c->plan, SYSTEMS_ESTS & ~DC_EST_BIT(DC_EST_STEP) & ~DC_EST_BIT(DC_EST_STEP_VARIANTS), &c->res) != 0)
		return -1;
	c->sink += c->res.memory.top.peak_bytes + c->res.comm.bytes_per_rank + c->res.ring.bytes_sent_max +
		   c->res.strategies.v[0].peak_bytes + (uint64_t)c->res.flops.model_per_rank;
	return 0;
}

/* ... and the step (with its variants of the strategies comparison): what
 * one layout of a report costs */
static int estimators_step(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0 || dc_estimate(&c->plan, SYSTEMS_ESTS, &c->res) != 0)
		return -1;
	c->sink += c->res.memory.top.peak_bytes + c->res.comm.bytes_per_rank + (uint64_t)(c->res.step.time_s * 1e9);
	return 0;
}

/* the checkpoint experiment's estimator (with the memory it reads) */
static int checkpoint_est(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0 ||
	    dc_estimate(&c->plan, DC_EST_BIT(DC_EST_CHECKPOINT), &c->res) != 0)
		return -1;
	c->sink += c->res.memory.top.peak_bytes;
	return 0;
}

/* the loss experiment's draws over every sample of every dp rank */
static int loss_est(void *p)
{
	struct ctx *c = p;
	if (dc_plan_derive(&c->cfg, &c->plan) != 0 || dc_estimate(&c->plan, DC_EST_BIT(DC_EST_LOSS), &c->res) != 0)
		return -1;
	c->sink += c->res.loss.ranks;
	return 0;
}

/* the step's closed form alone, on results computed once */
static int step_closed_form(void *p)
{
	struct ctx *c = p;
	struct dc_step s;
	const char *err = NULL;
	if (dc_step_compute(&c->plan, &c->res.compute, &c->res.comm, &c->res.flops, &c->res.batch, &s, &err) != 0)
		return -1;
	c->sink += (uint64_t)(s.time_s * 1e9);
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
		if (c.buf && !strstr(c.buf, "\"gpu\"")) {
			c.gpu.text = "cluster.gpu=a100-sxm4-80gb";
			c.ngpu = 1;
		}
		if (!c.buf || load_only(&c) != 0 || plan_only(&c) != 0 || estimators_step(&c) != 0) {
			fprintf(stderr, "bench: cannot load '%s'\n", argv[i]);
			return 1;
		}
		figure("estimators-only", &c, seconds, "ns", estimators_only);
		figure("estimators-only+step", &c, seconds, "ns", estimators_step);
		estimators_step(&c);
		figure("step closed form", &c, seconds, "ns", step_closed_form);
		figure("plan derive", &c, seconds, "ns", plan_only);
		figure("checkpoint estimator", &c, seconds, "ns", checkpoint_est);
		figure("loss estimator", &c, seconds, "ns", loss_est);
		figure("ring lab totals", &c, seconds, "ns", ring_only);
		figure("load", &c, seconds, "us", load_only);
		free(c.buf);
	}
	return 0;
}
