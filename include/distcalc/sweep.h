/* sweep.h - "change one thing and watch": one experiment run per value.
 *
 * A sweep axis is "PATH=V1,V2,...": a config key (the loader's key table)
 * and its values, each applied as a --set on top of the command line's
 * own. Several axes make a grid, walked in the order given (the first axis
 * varies slowest). Every point is loaded and validated exactly as a --set
 * would be; a point the loader or the estimators refuse becomes a row that
 * says why, and the others still run.
 *
 * The result is a report (report.h) whose root holds the usual header
 * fields, one object "sweep" with a table "rows" (one row per point: the
 * swept values, "status", the chosen metrics, "error") and the warnings,
 * so the table, JSON and CSV sinks render it unchanged. Metrics are JSON
 * paths of the experiment's report ("summary.peak_bytes",
 * "memory.per_rank.phases[1].total_bytes"): a scalar keeps its key as the
 * column key, its unit and its type, a text its whole text. A JSON-valued
 * field ("search.best[0].layout") is its JSON value, and a path may go on
 * inside it as --check-max's does ("search.best[0].layout.parallel.tp"),
 * the values then taking their JSON type. docs/sweeps.md shows every
 * column.
 *
 * Like the rest of the library this never prints: errors go to the diag.
 */
#ifndef DISTCALC_SWEEP_H
#define DISTCALC_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

#define DC_SWEEP_MAX_AXES 4
#define DC_SWEEP_MAX_POINTS 1024
#define DC_SWEEP_MAX_METRICS 16
/* Longest value of an axis, in bytes. */
#define DC_SWEEP_MAX_VALUE 63

/* How every point is loaded: the command line's config (a file, or a
 * buffer such as the built-in default), its --model and its --set
 * overrides; the point's own values are applied after `sets`. */
struct dc_sweep_load {
	const char *config_path; /* NULL: load `buf` */
	const char *buf;
	size_t len;
	const char *name;        /* the buffer's name in messages */
	const char *model_file;  /* --model, or NULL */
	const struct dc_override *sets;
	size_t nsets;
	int auto_layout;         /* dc_load_opts.auto_layout */
	/* NULL, or called on each point's config once it loaded, before the
	 * experiment runs: the command line applies --calibrate and
	 * --calibrate-compute there, as in a single run, and may set
	 * info->calibration. Returns 0, or -1 with an error in `diag`: the
	 * point's row says why (DC_ERR_INTERNAL stops the sweep). `finish`
	 * (NULL: none) runs once the point's report is freed, whenever
	 * `prepare` was called, to release what it made. */
	int (*prepare)(void *ctx, struct dc_config *cfg, struct dc_run_info *info, struct dc_diag *diag);
	void (*finish)(void *ctx, struct dc_run_info *info);
	void *ctx;
	/* the files `prepare` applies, named in the report (sweep.calibrate,
	 * sweep.compute_profile): --calibrate's logs and --calibrate-compute's
	 * profile, as given, borrowed until the report is freed; 0 and NULL:
	 * none */
	const char *const *calibrate_logs;
	size_t ncalibrate_logs;
	const char *compute_profile;
};

/* Checks one "--sweep" argument: "PATH=V1,V2,...", PATH a key of the
 * config's key table (not a section), at least one value, no empty value,
 * none longer than DC_SWEEP_MAX_VALUE bytes. Returns the number of values,
 * or 0 with a one-line reason (no subject) in err[errlen]. */
size_t dc_sweep_axis_check(const char *text, char *err, size_t errlen);

/* The length of the --sweep value that starts at p: up to the next comma
 * outside brackets and double quotes (so a list value such as
 * ["ll128","simple"] is one value), or the end of the text. */
size_t dc_sweep_value_len(const char *p);

/* The value of dc_sweep_value_len's n bytes at p without its leading and
 * trailing blanks (dc_text_trim's): its start, and its length in *len. A
 * list typed `1 KiB, 32 KiB` is two values, not one with a leading blank. */
const char *dc_sweep_value_trim(const char *p, size_t n, size_t *len);

/* The metrics a sweep shows unless --sweep-metrics picks others, as a
 * comma-separated list of report paths: the headline figures of the
 * experiment (peak memory per rank, fits, bytes and time communicated per
 * step; the ring's time and bus bandwidth for the ring experiment). */
const char *dc_sweep_default_metrics(const struct dc_experiment *exp);

/* Runs `exp` at every point of the grid `axes[0..naxes)` (each checked by
 * dc_sweep_axis_check) and returns the sweep's report, or NULL with the
 * reason in `diag`: DC_ERR_USAGE for a metric path the experiment has no
 * scalar at (the message names it; a path inside a JSON value that no
 * point's value has is found once the points ran), too many points (the
 * message says how many) or metrics;
 * DC_ERR_INPUT when the config or model file cannot be read;
 * DC_ERR_INTERNAL when out of memory. `metrics` is a comma-separated list
 * of paths, NULL for dc_sweep_default_metrics (after the GPU count,
 * topology.world_size, when an axis is cluster.num_nodes,
 * cluster.gpus_per_node or cluster.system; of the DP and the FSDP pairs
 * of columns, those some point has). Each point's warnings are
 * added to `diag` (and to the report) prefixed with the point. `info`
 * names the experiment, config and seed for the header (info->only must be
 * NULL). Caller frees the report with dc_report_free. */
struct dc_report *dc_sweep_run(const struct dc_experiment *exp, const struct dc_sweep_load *load,
			       const char *const *axes, size_t naxes, const char *metrics,
			       const struct dc_run_info *info, struct dc_diag *diag);

/* Points of the sweep report `r` that ran (0 when `r` is no sweep). */
size_t dc_sweep_valid_points(const struct dc_report *r);

/* The points of the sweep report r, valid or not (0 for another report). */
size_t dc_sweep_points(const struct dc_report *r);

#endif
