/* calibrate.h - fitting the network model to nccl-tests logs
 * (--calibrate LOG, repeatable; docs/nccl-tools.md, "How the fit works").
 *
 * What is fitted: from one-node logs NVLink (cluster.intra_node.bandwidth,
 * .latency) and its bandwidth ramp; from multi-node logs the network
 * (cluster.inter_node.bandwidth per NIC, .latency, the plugin's latency per
 * hop) and its bandwidth ramp (net.h, dc_net_ramp_factor: five knots).
 * Without a one-node log NVLink stays as configured. Each parameter stays
 * within its physical range during the fit: a rate at most the configured
 * (the hardware's) and at least 1/20 of it, a hop latency 0.1 to 20 us, the
 * plugin's 0 to 200 us, a ramp knot 0.05 to 1.
 *
 * The objective: the sum over every row of every log of ln(predicted /
 * measured)^2 - predicted by dc_net_time for the log's collective, size,
 * group shape and algorithm (the log's NCCL_ALGO, else the config's forced
 * collective.algorithm, else NCCL's choice), measured the faster of the
 * row's two columns - plus a weak prior 0.01 x sum of (ln value - ln
 * prior)^2 at the config's values and a ramp of 1. The search: bounded
 * Levenberg-Marquardt from three fixed starts, then Nelder-Mead from the
 * best; deterministic. With cluster.nvls on, the fit is made again with it
 * off and the better kept.
 *
 * Warnings (out->warnings, and in diag): the largest |error| above 25%; a
 * value the logs want beyond its physical range (a fit with the upper
 * bounds relaxed fits markedly better and moves it more than 10% out); an
 * NCCL_ALGO the model cannot run at some size.
 *
 * The logs' shape (ranks, hosts, ranks per host) comes from their headers,
 * not from the config: a 2 x 8 log calibrates a 64 x 8 config's links. A
 * log whose ranks per host differ from gpus_per_node gets a warning: its
 * hosts are priced with the config's NICs (the log does not say how many
 * it had).
 */
#ifndef DISTCALC_CALIBRATE_H
#define DISTCALC_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/nccl_log.h"

#define DC_CALIB_MAX_LOGS 16
/* Most rows of one log the fit uses: a longer log is fitted on this many
 * of its rows, evenly spaced in log2(size) (docs/nccl-tools.md); every row
 * is still priced in the table. nccl-tests' default sweep (-f 2, 8 B to
 * 16 GiB) has 32 rows and is fitted whole. */
#define DC_CALIB_FIT_ROWS 64
#define DC_CALIB_MAX_WARNINGS 24
/* a fit whose largest |error| is above this is warned about */
#define DC_CALIB_RESIDUAL_LIMIT 0.25
/* a hop latency above this is outside its physical range */
#define DC_CALIB_HOP_LATENCY_MAX 20e-6

/* One row of one log, measured and predicted. */
struct dc_calib_point {
	size_t log;          /* index into logs[] */
	size_t line;         /* the row's line in its log */
	uint64_t size_bytes;
	double measured_s;
	double before_s;     /* the model with the config's parameters */
	double predicted_s;  /* the model with the fitted parameters */
	double residual_s;   /* predicted_s - measured_s */
	double before_error; /* before_s / measured_s - 1 */
	double error;        /* predicted_s / measured_s - 1 */
	const char *algorithm, *protocol; /* static: the fitted model's choice */
};

struct dc_calib_log {
	char name[256];      /* as given, printable */
	enum dc_nccl_op op;
	const char *op_source;
	uint64_t ranks, nodes, ranks_per_node;
	size_t rows;
	char algorithm[48];  /* the algorithms it is priced with: "auto", "ring", "ring, tree" */
	char algorithm_from[DC_NCCL_ENV_MAX + 16]; /* "NCCL_ALGO=Ring", "collective.algorithm", "NCCL's choice" */
	char protocols[48];  /* "LL, LL128, Simple" (NCCL's choice) or NCCL_PROTO's */
	char protocols_from[24]; /* "NCCL_PROTO", "collective.protocols", "NCCL's choice" */
	double median_abs_error, max_abs_error; /* its rows after the fit */
};

struct dc_calibration {
	size_t nlogs;
	struct dc_calib_log logs[DC_CALIB_MAX_LOGS];
	int fit_intra, fit_inter;            /* which links were fitted */
	int nvlink_kept;                     /* NVLink kept: multi-node logs only */
	struct dc_link intra_before, inter_before;
	struct dc_link intra_after, inter_after;
	double ramp_after[2][DC_NET_RAMP_KNOTS]; /* the fitted ramp (cluster.intra_node.ramp, cluster.inter_node.ramp) */
	double plugin_before, plugin_after;  /* the network plugin's latency per hop, s */
	size_t npoints;
	struct dc_calib_point *points;       /* owned */
	double median_abs_error, max_abs_error;       /* after the fit */
	double median_abs_before, max_abs_before;     /* with the config's values */
	int nvls_before, nvls_after;         /* cluster.nvls: the fit may turn it off */
	double objective;                    /* the minimised sum (above) at the fit */
	unsigned evaluations;                /* of the objective */
	size_t nwarnings;                    /* the fit is not to be pasted when > 0 */
	char warnings[DC_CALIB_MAX_WARNINGS][320];
	/* what the reader should know that leaves the fit sound: a log that
	 * ran under NCCL_ALGO or NCCL_PROTO and whose sizes the run prices
	 * otherwise (calibrate.c restricted_note); one a log at most */
	size_t nnotes;
	char notes[DC_CALIB_MAX_LOGS][1024];
};

/* Fits `cfg`'s network parameters to the `nlogs` logs (names[i] names log
 * i, for the report) and, on success, writes them into *cfg and fills *out
 * (release it); each of out->warnings is also a warning in `diag`. Returns
 * 0, or -1 with one error in `diag` (DC_ERR_CONFIG: more than
 * DC_CALIB_MAX_LOGS logs, a collective the model cannot price (reduce), a
 * log with a single rank, an NCCL_ALGO the model does not know;
 * DC_ERR_INTERNAL: out of memory), *cfg unchanged. */
int dc_calibrate(struct dc_config *cfg, const struct dc_nccl_log *logs, const char *const *names, size_t nlogs,
		 struct dc_calibration *out, struct dc_diag *diag);

void dc_calibration_release(struct dc_calibration *c);

#endif
