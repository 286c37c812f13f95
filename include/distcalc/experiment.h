/* experiment.h - the registry of experiments and the estimators they run.
 *
 * An estimator is a pure function of the config that adds its section to
 * the report: one file, one table row (nccl-tests' one-file-per-collective
 * layout). An experiment is a named list of estimators.
 */
#ifndef DISTCALC_EXPERIMENT_H
#define DISTCALC_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/report.h"

struct dc_run_info {
	const char *experiment;
	const char *config_name; /* file path or "built-in default" */
	uint64_t seed;
};

/* Adds the estimator's section(s) under `root`. Returns 0, or -1 with the
 * problem in `diag`. Warnings go to `diag` as DC_SEV_WARNING; the runner
 * copies them into the report's "warnings" array. Memory the report's
 * generators need must come from dc_report_keep(). */
typedef int (*dc_estimator_fn)(const struct dc_config *cfg, const struct dc_run_info *info,
			       struct dc_report *report, struct dc_diag *diag);

struct dc_estimator {
	const char *name;
	dc_estimator_fn run;
};

struct dc_experiment {
	const char *name;
	const char *summary;
	const struct dc_estimator *const *estimators; /* NULL-terminated */
};

/* NULL-terminated list of experiments. */
extern const struct dc_experiment *const dc_experiments[];

const struct dc_experiment *dc_experiment_find(const char *name);

/* Runs `exp` into a new report (header, estimators, warnings). Every
 * warning in `diag` goes into the report's "warnings" array, the loader's
 * included: pass the diag that loaded `cfg`, not one shared across runs.
 * Returns the report, or NULL with the reason in `diag`. Caller frees the
 * report. */
struct dc_report *dc_experiment_run(const struct dc_experiment *exp, const struct dc_config *cfg,
				    const struct dc_run_info *info, struct dc_diag *diag);

/* Estimators. */
extern const struct dc_estimator dc_estimator_ring;
extern const struct dc_estimator dc_estimator_model;      /* model_report.c */
extern const struct dc_estimator dc_estimator_topology;   /* topology_report.c */
extern const struct dc_estimator dc_estimator_batch;      /* batch_report.c */
extern const struct dc_estimator dc_estimator_memory;     /* memory_report.c */
extern const struct dc_estimator dc_estimator_comm;       /* comm_report.c */
extern const struct dc_estimator dc_estimator_strategies; /* strategies_report.c */
extern const struct dc_estimator dc_estimator_flops;      /* flops_report.c */

#endif
