/* options.h - the command line's one option table.
 *
 * One static table of rows {long name, short name, metavar, help, apply}
 * drives parsing (dc_options_parse), the options section of --help
 * (dc_options_help) and the did-you-mean suggestion for an unknown option
 * (dc_options_suggest), so the three cannot drift. A new option is one row
 * and, where it takes a value, one small apply function.
 *
 * Like the rest of the library this module never prints and never exits:
 * a usage error is one line in a struct dc_diag with status DC_ERR_USAGE;
 * main.c prints it, then dc_options_usage and a hint, and exits 2.
 */
#ifndef DISTCALC_OPTIONS_H
#define DISTCALC_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/util.h"

/* --format: how the report is rendered. */
enum dc_format {
	DC_FORMAT_TABLE, /* the default */
	DC_FORMAT_JSON,
	DC_FORMAT_CSV,
	DC_FORMAT_MARKDOWN,
	DC_FORMAT_HTML,
};

/* What the command line asks for. */
enum dc_options_action {
	DC_OPTIONS_RUN,     /* compute a report (the default) */
	DC_OPTIONS_HELP,    /* -h, --help: print dc_options_help() and exit 0 */
	DC_OPTIONS_VERSION, /* -V, --version: print the version and exit 0 */
	DC_OPTIONS_LIST_MODELS, /* --list-models: print the catalogue and exit 0 */
};

/* The parsed command line. Strings point into the argv given to
 * dc_options_parse (nothing is copied): keep argv alive as long as this. */
struct dc_options {
	enum dc_options_action action;
	const char *config;     /* --config FILE; NULL: the built-in default. "-"
				 * reads the config from standard input (main.c;
				 * a relative model.hf_config or topology_file in
				 * it is then relative to the current directory) */
	const char *model;      /* --model FILE|NAME; NULL: none. A NAME (no '/',
				 * not ending in .json) is the catalogue's
				 * (catalogue.h); the loader resolves it */
	const char *experiment; /* --experiment NAME; "systems" unless given; the
				 * name is not checked here (dc_experiment_find) */
	uint64_t seed;          /* --seed N; 0 unless given */
	enum dc_format format;  /* --format; DC_FORMAT_TABLE unless given */
	const char *only;       /* --only SECTION[,SECTION...], the list with the
				 * blanks around each name dropped (argv's string
				 * when it has none, else only_copy); NULL: every
				 * section. Never "": that is a usage error. The
				 * names are not checked here. */
	const char *output;     /* --output FILE; NULL: standard output, also
				 * for FILE "-" */
	const char *trace;      /* --trace FILE: one step as Chrome trace-event JSON; NULL: none */
	struct dc_override *sets; /* --set PATH=VALUE, in order; owned (freed by
				   * dc_options_release); NULL when nsets is 0 */
	size_t nsets;
	int all_rows;           /* --all */
	const char *check;      /* --check FILE; NULL: no check. "-" reads the
				 * stored report from standard input
				 * (dc_check_read_file) */
	double rtol;            /* --rtol X, a plain decimal number (no hex float,
				 * inf or nan) from 0 to 1, subnormals included;
				 * DC_CHECK_DEFAULT_RTOL unless given */
	int rtol_set;           /* 1 when --rtol was given */
	struct dc_check_max *maxes; /* --check-max PATH=VALUE, in order, parsed
				     * (dc_check_max_parse); owned, paths and all
				     * (freed by dc_options_release); NULL when
				     * nmaxes is 0. The paths are not looked up
				     * here (dc_check_budgets) */
	size_t nmaxes;
	const char **calibrate; /* --calibrate LOG, in order; owned array (freed by
				 * dc_options_release), the names point into argv;
				 * NULL when ncalibrate is 0 */
	size_t ncalibrate;
	const char *calibrate_compute; /* --calibrate-compute PROFILE.json (tools/gpu-probe.py); NULL: none */
	const char *check_only; /* --check-only PATH[,PATH...], the list with the
				 * blanks around each path dropped, as --only (no
				 * empty path, at most DC_CHECK_ONLY_MAX); NULL:
				 * compare every field. Only with --check */
	const char **sweeps;    /* --sweep PATH=V1,V2,..., in order, each checked by
				 * dc_sweep_axis_check (sweep.h); the array is owned
				 * (freed by dc_options_release), the strings are
				 * argv's; NULL when nsweeps is 0 */
	size_t nsweeps;
	const char *sweep_metrics; /* --sweep-metrics PATH[,PATH...], the list with
				    * the blanks around each path dropped, as
				    * --only; NULL: the headline metrics. Only with
				    * --sweep; the paths are looked up by
				    * dc_sweep_run */
	const char *plot;       /* --plot FILE.svg; NULL: no chart */
	unsigned jobs;          /* --jobs N, 1 to 1024: threads of --experiment search; 1 unless
				 * given (main.c caps it at the online CPUs) */
	const char *import;     /* --from-megatron/--from-torchtitan/--from-deepspeed FILE; NULL: none */
	int import_format;      /* enum dc_import_format of `import` */
	int emit_config;        /* --emit-config: print the equivalent distcalc config (needs `import`) */
	/* the trimmed copies --only, --check-only and --sweep-metrics point
	 * to where argv's list had blanks around an item (a CI file's YAML
	 * adds them); owned, freed by dc_options_release; NULL: none */
	char *only_copy, *check_only_copy, *sweep_metrics_copy;
	int value_error;        /* the parse failed on a well-formed option's value (a
				 * --check-max number or unit): the error alone, no
				 * synopsis after it, as the budget's later checks */
};

/* One row of the option table. */
struct dc_option {
	const char *long_name; /* "--config"; NULL ends the table */
	char short_name;       /* 'c' for "-c"; 0: none */
	const char *metavar;   /* "FILE" for an option that takes a value; NULL: a flag */
	const char *help;      /* --help text; '\n' starts an indented continuation line */
	/* Stores the option in `o`: `value` is the option's value (NULL for a
	 * flag). Returns 0, or -1 with one error in `diag`. A row may set
	 * o->action, which ends parsing (--help, --version). */
	int (*apply)(struct dc_options *o, const char *value, struct dc_diag *diag);
};

/* The table, in --help order, ended by a row whose long_name is NULL. */
extern const struct dc_option dc_option_table[];

/* The usage synopsis printed at the top of --help and after a usage
 * error in the command line's shape (not after a bad value of a known
 * option: value_error): lines each ending in '\n'. */
extern const char dc_options_usage[];

/* Sets every field to its default (as if no option were given). */
void dc_options_init(struct dc_options *o);

/* Frees what dc_options_parse allocated (the --set and --check-max arrays)
 * and resets `o` to its defaults. Safe after a failed parse and on an
 * initialised `o`. */
void dc_options_release(struct dc_options *o);

/* Parses argv[1..argc-1] into `o`, which it initialises first. An option's
 * value is "--opt=value", "--opt value" or "-o value"; a flag takes no
 * value. Parsing stops at the first --help or --version (o->action says
 * which; the cross-option checks are then skipped) and at the first error.
 * Returns 0, or -1 with one line in `diag` ("distcalc: error: ...", status
 * DC_ERR_USAGE; DC_ERR_INTERNAL when out of memory). Call
 * dc_options_release afterwards whatever it returns. */
int dc_options_parse(int argc, const char *const *argv, struct dc_options *o,
		     struct dc_diag *diag);

/* The long option closest to `arg` (an unknown option; only the part before
 * any '=' counts) when it is within two edits, else NULL. */
const char *dc_options_suggest(const char *arg);

/* Appends the whole --help text to `out`: usage, description, the options
 * (generated from dc_option_table), the experiments, the exit statuses and
 * the units paragraph. Returns 0, or -1 when `out` failed (out->failed). */
int dc_options_help(struct dc_buf *out);

#endif
