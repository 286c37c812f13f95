/* fuzz_pipeline.c - libFuzzer harness over the whole pipeline: loader,
 * plan, estimators, every experiment, every sink into memory. Any config
 * the loader accepts must produce a plan whose stage classes tile the
 * pipeline, finite results and a report, never a crash or a hang.
 *
 * Input: a config, optionally followed by 0x01 and --set lines; or 0x02
 * and --set lines applied to the built-in default (configs/systems.json),
 * so that most inputs are accepted configs and reach the estimators. Up to
 * MAX_SETS overrides. The last byte of the input picks the seed and
 * whether the report is rendered whole (--all) besides excerpted.
 *
 * Bounded so that every input finishes well under a second (run.sh gives
 * libFuzzer -timeout=2): worlds up to 2^24 ranks render excerpted (32
 * rows a table, as the command line does by default); --all and CSV, which
 * print every row of the per-rank tables (and the ring experiment, its
 * 2p(p-1) events), only up to ALL_MAX_WORLD ranks. The layout search
 * (--experiment search) enumerates every layout of the world, which grows
 * with the world's divisors (917,280 layouts, 0.4 s uninstrumented, for
 * 8,192 GPUs, 0.07 s for the 175B config's 64, fifty times that under
 * the sanitizers): it runs here up to SEARCH_MAX_WORLD ranks; its speed is
 * bench_search's and its answers check_search's. Two estimators do work
 * in proportion to the layout by design: the loss experiment draws every
 * sample of every dp rank (dp x grad_accum x micro batch) and the
 * checkpoint's restore walks every new rank; they run here up to
 * SAMPLE_MAX samples and SAMPLE_MAX ranks (tens of milliseconds at 2^24
 * uninstrumented, seconds under the sanitizers); the what-if experiment,
 * which prices the step once per fault, runs where the step is simulated
 * within its bound (whatif_small).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/results.h"
#include "distcalc/step.h"
#include "distcalc/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 64
#define ALL_MAX_WORLD 64
#define SAMPLE_MAX 65536u
#define SEARCH_MAX_WORLD 8

/* The plan of an accepted config: its classes, made one by one, cover
 * stages 0..pp-1 in order, and the most loaded one has the highest peak. */
static void check_plan(const struct dc_plan *p)
{
	struct dc_memory_result m;
	struct dc_mem_ledger l;
	const char *err = NULL;
	uint64_t next = 0;

	if (dc_memory_compute(p, &m, &err) != 0) {
		if (!err)
			abort();
		return;
	}
	if (m.most_loaded >= m.nclasses || m.nclasses > p->layout.pp)
		abort();
	for (uint64_t i = 0; i < m.nclasses && i < 4096; i++) {
		if (dc_memory_class_at(p, &m, i, &l) != 0 || l.stage_first != next || l.stage_last < l.stage_first ||
		    l.peak_bytes > m.top.peak_bytes)
			abort();
		next = l.stage_last + 1;
	}
	if (m.nclasses <= 4096 && next != p->layout.pp)
		abort();
}

static void finite(double v)
{
	if (!isfinite(v))
		abort();
}

/* Every estimator's doubles, read from the result structs themselves (the
 * runner checks what the sections show; this checks what they are made
 * from): an accepted config never yields inf or nan. */
/* Whether the loss and checkpoint estimators' per-sample and per-rank
 * walks stay within the harness's budget (above). */
static int loss_small(const struct dc_plan *p)
{
	double samples = (double)p->layout.dp * (double)p->layout.grad_accum_steps *
			 (double)p->layout.micro_batch_size;
	return samples <= SAMPLE_MAX;
}

/* Whether the what-if experiment's steps stay within the harness's
 * budget: it prices the step once per fault (the baseline, the slow
 * network, each slow data rank's, the stragglers'), and a schedule past
 * the step's simulation bound (2^18 chunks: pp x v x m, DualPipe's 2 pp
 * m) is a max-plus extension each time, (3 pp)^3 log m: a pp 64, v 8
 * uneven interleaving at 65,536 microbatches takes 0.62 s released,
 * past 15 s here. Those steps are fuzzed once each through the systems
 * experiment and check_results. */
static int whatif_small(const struct dc_plan *p)
{
	double chunks = (double)p->layout.pp * (double)(p->v > 2 ? p->v : 2) *
			(double)dc_layout_schedule_m(&p->layout);
	return chunks <= (double)DC_STEP_SIM_MAX_CHUNKS;
}

static int restore_small(const struct dc_plan *p)
{
	const struct dc_ckpt_restore *r = &p->in->checkpoint.restore;
	return p->world <= SAMPLE_MAX && (double)r->num_nodes * (double)r->gpus_per_node <= SAMPLE_MAX;
}

static void check_results(const struct dc_plan *p)
{
	struct dc_results r;
	uint32_t wanted = DC_EST_ALL;

	if (!loss_small(p))
		wanted &= ~DC_EST_BIT(DC_EST_LOSS);
	if (!restore_small(p))
		wanted &= ~DC_EST_BIT(DC_EST_CHECKPOINT);
	memset(&r, 0, sizeof(r));
	if (dc_estimate(p, wanted, &r) != 0) {
		if (!r.error)
			abort(); /* a failure names its keys */
		return;
	}
	finite(r.ring.round_s);
	finite(r.ring.time_s);
	finite(r.ring.algbw_GBps);
	finite(r.ring.busbw_GBps);
	finite(r.comm.time_s);
	for (int s = 0; s < DC_STRAT_COUNT; s++) {
		finite(r.comm.s[s].time_s);
		for (uint64_t c = 0; c < r.comm.s[s].ncoll && c < DC_COMM_MAX_COLL; c++)
			finite(r.comm.s[s].coll[c].time_s);
	}
	finite(r.flops.attention_core_fwd_per_token);
	finite(r.flops.model_per_token);
	finite(r.flops.recompute_per_token);
	finite(r.flops.hardware_per_token);
	finite(r.flops.model_per_step);
	finite(r.flops.hardware_per_step);
	finite(r.flops.model_per_rank);
	finite(r.flops.hardware_per_rank);
	{
		const struct dc_work_time *w[] = {&r.compute.dense_layer, &r.compute.moe_layer, &r.compute.embedding,
						  &r.compute.head};
		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			finite(w[i]->fwd_s);
			finite(w[i]->bwd_s);
			finite(w[i]->recompute_s);
		}
		for (uint64_t i = 0; i < p->nsegments && i < DC_PLAN_MAX_SEGMENTS; i++)
			finite(r.compute.optimizer_s[i]);
	}
	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		finite(r.strategies.v[v].comm_time_s);
		finite(r.strategies.v[v].comm_bytes_per_token);
		finite(r.strategies.v[v].comm_time_per_token_s);
	}
}

/* Splits "line\nline..." into at most MAX_SETS owned override strings. */
static size_t split_sets(const char *p, const char *end, struct dc_override *sets, char **owned)
{
	size_t n = 0;
	while (p < end && n < MAX_SETS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		owned[n] = malloc(len + 1);
		if (!owned[n])
			break;
		memcpy(owned[n], p, len);
		owned[n][len] = '\0';
		/* a line "!PATH" is an --unset PATH */
		sets[n].unset = owned[n][0] == '!';
		sets[n].text = owned[n] + sets[n].unset;
		n++;
		p += len + 1;
	}
	return n;
}

/* JSON and table with max_rows (0: every row), and CSV, which always
 * writes every row, and the SVG chart, when `csv`. */
static void render(struct dc_report *r, uint64_t max_rows, int csv)
{
	struct dc_render_opts ro = {max_rows, (size_t)(max_rows ? 100 : 0)};
	struct dc_buf out;

	dc_buf_init(&out);
	if (dc_report_render_json(r, &ro, &out) != 0 || out.len == 0 || out.data[0] != '{')
		abort();
	dc_buf_release(&out);
	dc_buf_init(&out);
	if (dc_report_render_table(r, &ro, &out) != 0)
		abort();
	dc_buf_release(&out);
	if (!csv)
		return;
	dc_buf_init(&out);
	if (dc_report_render_csv(r, &ro, &out) != 0)
		abort();
	dc_buf_release(&out);
	/* --plot: bounded whatever the world (32 ring lanes, 4 memory classes,
	 * 32 checkpoint ranks); nothing to draw is a reason and no bytes */
	dc_buf_init(&out);
	{
		const char *why = NULL;
		int rc = dc_report_render_svg_why(r, &out, &why);
		if (rc != 0 ? !why || out.len != 0
			    : out.len < 6 || memcmp(out.data, "<?xml", 5) != 0 || out.len > (1u << 22))
			abort();
	}
	dc_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *cfg_text = text;
	const char *split;
	size_t cfg_len = size, nsets = 0;
	struct dc_override sets[MAX_SETS];
	char *owned[MAX_SETS];
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_diag diag;
	uint8_t last = size ? data[size - 1] : 0;

	if (size > 0 && data[0] == 0x02) {
		cfg_text = dc_default_config;
		cfg_len = dc_default_config_len;
		nsets = split_sets(text + 1, text + size, sets, owned);
	} else if ((split = memchr(text, 0x01, size)) != NULL) {
		cfg_len = (size_t)(split - text);
		nsets = split_sets(split + 1, text + size, sets, owned);
	}
	dc_diag_init(&diag);
	if (dc_config_load_buffer(cfg_text, cfg_len, "fuzz.json", sets, nsets, &cfg, &diag) == 0) {
		if (dc_plan_derive(&cfg, &plan) != 0)
			abort(); /* the loader's checks leave no overflow for the plan */
		check_plan(&plan);
		check_results(&plan);
		for (size_t i = 0; dc_experiments[i]; i++) {
			struct dc_run_info info = {dc_experiments[i]->name, "fuzz.json", last % 16u, NULL};
			size_t before = diag.count;
			struct dc_report *r;
			const char *name = dc_experiments[i]->name;
			if ((strcmp(name, "search") == 0 && plan.world > SEARCH_MAX_WORLD) ||
			    (strcmp(name, "loss") == 0 && !loss_small(&plan)) ||
			    (strcmp(name, "whatif") == 0 && !whatif_small(&plan)) ||
			    (strcmp(name, "checkpoint") == 0 && !restore_small(&plan)))
				continue;
			r = dc_experiment_run(dc_experiments[i], &cfg, &info, &diag);
			if (!r) {
				/* an accepted config must run: an overflow is a config
				 * error; a non-finite result (DC_ERR_INTERNAL) is a bug */
				if (diag.status != DC_ERR_CONFIG || diag.count == before)
					abort();
				for (size_t k = before; k < diag.count; k++)
					if (strstr(diag.entries[k].text, "is not finite"))
						abort();
				continue;
			}
			render(r, 32, 0);
			if (plan.world <= ALL_MAX_WORLD)
				render(r, (last & 0x80) ? 0 : 32, 1);
			dc_report_free(r);
		}
	}
	dc_diag_release(&diag);
	for (size_t i = 0; i < nsets; i++)
		free(owned[i]);
	return 0;
}
