/* experiment.h - the registry of experiments and the runner.
 *
 * An experiment is a named list of sections (section.h). The runner
 * derives the plan (plan.h) once, computes the estimators the chosen
 * sections need (results.h) in dependency order, gathers the warnings and
 * returns a report (report.h) ready to render.
 */
#ifndef DISTCALC_EXPERIMENT_H
#define DISTCALC_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/report.h"
#include "distcalc/section.h"

struct dc_calibration;
struct dc_search_progress;

struct dc_run_info {
	const char *experiment;
	const char *config_name; /* file path or "built-in default" */
	uint64_t seed;
	/* --only: comma-separated section names; NULL or "" shows every
	 * section of the experiment */
	const char *only;
	/* --calibrate: the fit already applied to the config (calibrate.h);
	 * NULL: none. When set, every experiment ends with the calibration
	 * section. Borrowed: it must outlive the report. */
	const struct dc_calibration *calibration;
	/* --experiment search: threads (--jobs; 0 reads as 1), a progress
	 * callback (NULL: none), and the command line's --model and --set
	 * overrides, which the winner's command line repeats. Borrowed. */
	unsigned jobs;
	const struct dc_search_progress *progress;
	const char *model_file;
	const struct dc_override *sets;
	size_t nsets;
	/* --calibrate's logs and --calibrate-compute's profile as given (NULL
	 * and 0: none), which the winner's command line repeats. Borrowed. */
	const char *const *calibrate_logs;
	size_t ncalibrate_logs;
	const char *compute_profile;
	/* --from-megatron/--from-torchtitan/--from-deepspeed: the option and
	 * its file, which the winner's command line repeats, and the --config
	 * the cluster came from (NULL: the built-in default). NULL: no import */
	const char *import_option, *import_file, *import_base;
	/* --all: every row shown; the JSON header records it ("all": true)
	 * so that --check compares the same rows */
	int all_rows;
	/* warnings printed before the run (an importer's, --model replacing
	 * an import's model, a synthetic --calibrate-compute profile): the
	 * report lists and counts them ahead of its own. Read only while the
	 * report is made; NULL: none */
	const struct dc_diag *early_warnings;
};

struct dc_experiment {
	const char *name;
	const char *summary;
	const struct dc_section *const *sections; /* NULL-terminated, in report order */
	/* non-zero: the runner also runs the what-if scenarios (whatif.h)
	 * on the plan and its results, with info->seed, for run->whatif */
	int whatif;
};

/* NULL-terminated list of experiments. */
extern const struct dc_experiment *const dc_experiments[];

const struct dc_experiment *dc_experiment_find(const char *name);

/* Runs `exp` on `cfg` (copied: it need not outlive the report). Every
 * warning in `diag` goes into the report's "warnings", the loader's
 * included: pass the diag that loaded `cfg`, not one shared across runs;
 * the runner adds its own warnings there too. Returns the report, or NULL
 * with the reason in `diag`: DC_ERR_USAGE for an unknown --only name (the
 * message lists the known ones), DC_ERR_CONFIG when a result overflows,
 * DC_ERR_INTERNAL when out of memory or when a number the chosen sections
 * show is not finite (the message names its path, "ring.time_s"; a field
 * whose is_null hook says null is exempt). The rows of tables are checked
 * by the sinks, each row as it is printed (report.h: a render fails on
 * one, dc_report_render_error names it). Caller frees the report. */
struct dc_report *dc_experiment_run(const struct dc_experiment *exp, const struct dc_config *cfg,
				    const struct dc_run_info *info, struct dc_diag *diag);

#endif
