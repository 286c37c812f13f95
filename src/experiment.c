/* experiment.c - experiment registry and runner; see experiment.h. */
#include "distcalc/experiment.h"

#include <string.h>

static const struct dc_estimator *const systems_estimators[] = {
	&dc_estimator_model,
	&dc_estimator_topology,
	&dc_estimator_batch,
	&dc_estimator_memory,
	&dc_estimator_ring,
	&dc_estimator_comm,
	&dc_estimator_strategies,
	&dc_estimator_flops,
	NULL,
};

static const struct dc_estimator *const ring_estimators[] = {
	&dc_estimator_ring,
	NULL,
};

static const struct dc_experiment systems = {
	"systems",
	"the course lab: model, groups, batch, memory ledger, ring AllReduce, communication, strategies, FLOPs",
	systems_estimators,
};

static const struct dc_experiment ring = {
	"ring",
	"the ring AllReduce lab alone: bytes, time, busbw and per-round transfer events",
	ring_estimators,
};

const struct dc_experiment *const dc_experiments[] = {&systems, &ring, NULL};

const struct dc_experiment *dc_experiment_find(const char *name)
{
	for (size_t i = 0; dc_experiments[i]; i++)
		if (strcmp(dc_experiments[i]->name, name) == 0)
			return dc_experiments[i];
	return NULL;
}

struct dc_report *dc_experiment_run(const struct dc_experiment *exp, const struct dc_config *cfg,
				    const struct dc_run_info *info, struct dc_diag *diag)
{
	struct dc_report *r = dc_report_new();
	struct dc_rnode *root, *warnings;

	if (!r) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
		return NULL;
	}
	root = dc_report_root(r);
	dc_rn_str(root, "distcalc_version", "distcalc", DC_VERSION);
	dc_rn_str(root, "experiment", "experiment", exp->name);
	dc_rn_str(root, "config", "config", info->config_name);
	dc_rn_u64(root, "seed", "seed", DC_U_NONE, info->seed);
	for (size_t i = 0; exp->estimators[i]; i++) {
		if (exp->estimators[i]->run(cfg, info, r, diag) != 0) {
			dc_report_free(r);
			return NULL;
		}
	}
	warnings = dc_rn_array(root, "warnings", "Warnings");
	/* every warning so far: the loader's (implausible values) and the
	 * estimators' */
	for (size_t i = 0; i < diag->count; i++)
		if (diag->entries[i].severity == DC_SEV_WARNING)
			dc_rn_str(warnings, NULL, NULL, diag->entries[i].text);
	/* a warning or error that could not be recorded fails the run: the
	 * report would otherwise claim a clean bill it cannot back */
	if (dc_report_failed(r) || diag->oom) {
		dc_report_free(r);
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
		return NULL;
	}
	return r;
}
