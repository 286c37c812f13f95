/* sweep_int.h - a sweep's points, as the sweep report and the SVG sink
 * read them. Internal to the library; see sweep.h. */
#ifndef DISTCALC_SWEEP_INT_H
#define DISTCALC_SWEEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/section.h"
#include "distcalc/sweep.h"

/* Longest JSON text of a point's values (a cell's text: DC_CELL_MAX). A
 * text metric and a point's error have no bound of their own: each is
 * kept whole (a user trial's 63-byte cut split a JSON text and a UTF-8
 * character), as long as the report that gave it prints it. */
#define DC_SWEEP_VALUES_JSON 1024

union dc_sweep_cell {
	uint64_t u;
	double d;
	int b;
	const char *s; /* into the point's text[] */
};

struct dc_sweep_point {
	char value[DC_SWEEP_MAX_AXES][DC_SWEEP_MAX_VALUE + 1];
	char values_json[DC_SWEEP_VALUES_JSON]; /* the values in their JSON types: {"cluster.num_nodes": 8} */
	int ok;                 /* the point loaded and ran */
	char *error;            /* why not, when !ok */
	unsigned char null[DC_SWEEP_MAX_METRICS]; /* the metric is undefined here */
	union dc_sweep_cell cell[DC_SWEEP_MAX_METRICS];
	/* the texts, whole: the error and each text metric (cell[k].s is
	 * text[k]); on the heap while the points run, then moved into the
	 * report's views, which dc_report_free frees (sweep.c pack_texts) */
	char *text[DC_SWEEP_MAX_METRICS];
	/* for the chart: the point's GPU memory and whether its most loaded
	 * rank fits (when it ran and its report has the memory ledger) */
	int has_memory, fits;
	uint64_t gpu_mem_bytes;
	/* the tokens of its step (batch.tokens_per_step), whatever the
	 * metrics, when its report has the batch section; 0: none */
	uint64_t tokens_per_step;
	/* the loss estimator ran and its figures are expected values, not
	 * draws (loss.h expected): a sweep that mixes the two says so */
	int loss_ran, loss_expected;
};

struct dc_sweep_metric {
	char path[128];  /* as given: the column's key */
	char label[48];  /* the table's column label */
	enum dc_unit unit;
	enum dc_ftype type; /* U64, F64, BOOL or STR (text of any kind) */
	int context; /* a default column beside the values (the GPU count), not charted */
	/* read from a JSON-valued field (search.best[].layout) or a path
	 * inside one (search.best[0].layout.parallel.tp): each point's text
	 * is its JSON, typed once every point ran (sweep.c type_json) */
	int from_json;
	/* its values are JSON objects or arrays (or of mixed types): JSON
	 * shows each as it is, CSV its JSON text, the table the text through
	 * a table-only twin (the table leaves a JSON-valued column out) */
	int json;
	int found; /* from_json: some point had the path */
	char miss[400]; /* from_json: why a point did not, the first one's */
};

/* The "sweep" object of the report. */
struct dc_sweep {
	size_t naxes, nmetrics, npoints, valid;
	uint64_t npoints_u, valid_u; /* the two counts as the field table reads them */
	char axis[DC_SWEEP_MAX_AXES][128]; /* the swept paths */
	size_t nvalues[DC_SWEEP_MAX_AXES];
	struct dc_sweep_metric metric[DC_SWEEP_MAX_METRICS];
	struct dc_sweep_point *points; /* npoints, in grid order */
	char axes_text[600];           /* "cluster.num_nodes x parallel.tp" */
	const char *const *logs;       /* --calibrate's logs as given (borrowed) */
	size_t nlogs;
	const char *profile;           /* --calibrate-compute's profile as given (borrowed); NULL none */
	/* the field tables the sinks walk (keys and labels point into the
	 * members above) */
	struct dc_field col_f[DC_MAX_COLUMNS]; /* a JSON metric takes two (pick_metrics counts them) */
	struct dc_fields cols;
	struct dc_field obj_f[6];
	struct dc_fields obj;
};

#endif
