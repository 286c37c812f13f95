/* calibrate.c - fitting link parameters to nccl-tests logs; see
 * calibrate.h and docs/nccl-tools.md, "How the fit works". */
#include "distcalc/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/net.h"
#include "distcalc/util.h"

#define MAX_PARAMS 4
/* where the search may go (config bounds are wider): 1 MB/s to 1 PB/s, 1 ns to 10 ms */
#define BW_LO 1e6
#define BW_HI 1e15
#define LAT_LO 1e-9
#define LAT_HI 1e-2
/* A weak prior at the config's values (a preset's vendor data): moving a
 * parameter by a factor e costs as much as one row 10% off (ln 1.1 ^ 2 ~
 * 0.01). The rows decide what they pin; what no row depends on (the NIC
 * rate of a log whose every size is NVLink-bound) stays as configured
 * instead of wandering to a bound. */
#define PRIOR_WEIGHT 0.01

enum param { P_INTRA_BW, P_INTRA_LAT, P_INTER_BW, P_INTER_LAT };

struct fit {
	const struct dc_config *base;
	const struct dc_nccl_log *logs;
	size_t nlogs;
	enum param which[MAX_PARAMS];
	size_t n;
	unsigned evals;
	double lat0[2];           /* the config's latencies, 1 us where 0 */
	double x0[MAX_PARAMS];    /* the starting point: the prior's centre */
};

static enum dc_coll_kind coll_kind(enum dc_nccl_op op)
{
	switch (op) {
	case DC_NCCL_ALL_GATHER: return DC_COLL_ALL_GATHER;
	case DC_NCCL_REDUCE_SCATTER: return DC_COLL_REDUCE_SCATTER;
	case DC_NCCL_ALL_TO_ALL: return DC_COLL_ALL_TO_ALL;
	case DC_NCCL_BROADCAST: return DC_COLL_BROADCAST;
	case DC_NCCL_SEND_RECV: return DC_COLL_SEND;
	default: return DC_COLL_ALL_REDUCE;
	}
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The config with the parameters at exp(x). */
static void apply(const struct fit *f, const double *x, struct dc_config *c)
{
	*c = *f->base;
	for (size_t i = 0; i < f->n; i++) {
		double v = exp(x[i]);
		switch (f->which[i]) {
		case P_INTRA_BW: c->cluster.intra_node.bw_bytes_per_s = clampd(v, BW_LO, BW_HI); break;
		case P_INTRA_LAT: c->cluster.intra_node.latency_s = clampd(v, LAT_LO, LAT_HI); break;
		case P_INTER_BW: c->cluster.inter_node.bw_bytes_per_s = clampd(v, BW_LO, BW_HI); break;
		case P_INTER_LAT: c->cluster.inter_node.latency_s = clampd(v, LAT_LO, LAT_HI); break;
		}
	}
}

/* The group a log's ranks form: its hosts are NVLink domains of
 * ranks_per_node ranks each, alone on the cluster. */
static void log_group(struct dc_net *net, const struct dc_nccl_log *l, struct dc_net_group *g)
{
	if (net->num_nodes < l->nodes)
		net->num_nodes = l->nodes;
	if (l->ranks_per_node == net->gpus_per_node || (l->nodes <= 1 && l->ranks <= net->gpus_per_node)) {
		dc_net_group_ranks(net, 0, 1, l->ranks, g);
		return;
	}
	memset(g, 0, sizeof(*g));
	g->ranks = l->ranks;
	g->nodes = l->nodes ? l->nodes : 1;
	g->ranks_per_node = l->ranks_per_node;
	g->rails = l->ranks_per_node < net->nics_per_node ? l->ranks_per_node : net->nics_per_node;
	if (g->rails < 1)
		g->rails = 1;
	g->concurrent = 1;
	g->cross_leaf = net->nodes_per_leaf && g->nodes > net->nodes_per_leaf;
}

/* Prices row `r` of log `l` on config `c`; 0 when the model cannot. */
static double predict(const struct dc_config *c, const struct dc_nccl_log *l, const struct dc_nccl_row *r,
		      struct dc_net_choice *ch)
{
	struct dc_net net;
	struct dc_net_group g;
	dc_net_init(c, &net);
	net.algorithm = DC_NET_ALGO_AUTO; /* the logs ran NCCL's own choice */
	log_group(&net, l, &g);
	if (dc_net_time(&net, coll_kind(l->op), &g, r->size_bytes, DC_NET_ALGO_AUTO, ch) != 0)
		return 0;
	return ch->time_s;
}

static int usable(const struct dc_nccl_row *r)
{
	return r->size_bytes > 0 && dc_nccl_row_time_s(r) > 0;
}

static double objective(struct fit *f, const double *x)
{
	struct dc_config c;
	double sum = 0;
	apply(f, x, &c);
	f->evals++;
	for (size_t k = 0; k < f->nlogs; k++)
		for (size_t i = 0; i < f->logs[k].nrows; i++) {
			const struct dc_nccl_row *r = &f->logs[k].rows[i];
			struct dc_net_choice ch;
			double p, e;
			if (!usable(r))
				continue;
			p = predict(&c, &f->logs[k], r, &ch);
			e = p > 0 ? log(p / dc_nccl_row_time_s(r)) : 50.0;
			sum += e * e;
		}
	for (size_t i = 0; i < f->n; i++)
		sum += PRIOR_WEIGHT * (x[i] - f->x0[i]) * (x[i] - f->x0[i]);
	return sum;
}

/* Nelder-Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2)
 * from x, with a first simplex of steps `step`. Returns the best value;
 * x holds its point. */
static double nelder_mead(struct fit *f, double *x, double step, unsigned max_iter)
{
	size_t n = f->n;
	double s[MAX_PARAMS + 1][MAX_PARAMS], fs[MAX_PARAMS + 1];
	for (size_t i = 0; i <= n; i++) {
		memcpy(s[i], x, n * sizeof(double));
		if (i)
			s[i][i - 1] += step;
		fs[i] = objective(f, s[i]);
	}
	for (unsigned it = 0; it < max_iter; it++) {
		size_t lo = 0, hi = 0, nh = 0;
		double c[MAX_PARAMS] = {0}, xr[MAX_PARAMS], xe[MAX_PARAMS], xc[MAX_PARAMS], fr, fe, fc;
		for (size_t i = 1; i <= n; i++) {
			if (fs[i] < fs[lo])
				lo = i;
			if (fs[i] > fs[hi])
				hi = i;
		}
		nh = lo;
		for (size_t i = 0; i <= n; i++)
			if (i != hi && fs[i] > fs[nh])
				nh = i;
		if (fs[hi] - fs[lo] <= 1e-12 * (1 + fs[lo]))
			break;
		for (size_t i = 0; i <= n; i++)
			if (i != hi)
				for (size_t j = 0; j < n; j++)
					c[j] += s[i][j] / (double)n;
		for (size_t j = 0; j < n; j++)
			xr[j] = c[j] + (c[j] - s[hi][j]);
		fr = objective(f, xr);
		if (fr < fs[lo]) {
			for (size_t j = 0; j < n; j++)
				xe[j] = c[j] + 2 * (c[j] - s[hi][j]);
			fe = objective(f, xe);
			if (fe < fr) {
				memcpy(s[hi], xe, n * sizeof(double));
				fs[hi] = fe;
			} else {
				memcpy(s[hi], xr, n * sizeof(double));
				fs[hi] = fr;
			}
			continue;
		}
		if (fr < fs[nh]) {
			memcpy(s[hi], xr, n * sizeof(double));
			fs[hi] = fr;
			continue;
		}
		for (size_t j = 0; j < n; j++)
			xc[j] = fr < fs[hi] ? c[j] + 0.5 * (xr[j] - c[j]) : c[j] + 0.5 * (s[hi][j] - c[j]);
		fc = objective(f, xc);
		if (fc < (fr < fs[hi] ? fr : fs[hi])) {
			memcpy(s[hi], xc, n * sizeof(double));
			fs[hi] = fc;
			continue;
		}
		for (size_t i = 0; i <= n; i++) {
			if (i == lo)
				continue;
			for (size_t j = 0; j < n; j++)
				s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
			fs[i] = objective(f, s[i]);
		}
	}
	{
		size_t lo = 0;
		for (size_t i = 1; i <= n; i++)
			if (fs[i] < fs[lo])
				lo = i;
		memcpy(x, s[lo], n * sizeof(double));
		return fs[lo];
	}
}

/* Nelder-Mead from x, then restarts from the best point with smaller
 * first steps until one gains nothing. Returns the best value; x holds
 * its point. */
static double search(struct fit *f, double *x)
{
	double best = objective(f, x);
	for (int round = 0; round < 8; round++) {
		double y[MAX_PARAMS], v;
		memcpy(y, x, f->n * sizeof(double));
		v = nelder_mead(f, y, round == 0 ? 0.7 : 0.3, 600);
		if (v < best - 1e-12 * (1 + best)) {
			best = v;
			memcpy(x, y, f->n * sizeof(double));
		} else if (round > 0) {
			break;
		}
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median and the largest of |errors|, sorting `tmp` (n of them). */
static void spread(double *tmp, size_t n, double *median, double *max)
{
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	*max = n ? tmp[n - 1] : 0;
	*median = n == 0 ? 0 : n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

void dc_calibration_release(struct dc_calibration *c)
{
	free(c->points);
	memset(c, 0, sizeof(*c));
}

int dc_calibrate(struct dc_config *cfg, const struct dc_nccl_log *logs, const char *const *names, size_t nlogs,
		 struct dc_calibration *out, struct dc_diag *diag)
{
	struct fit f;
	struct dc_config fitted;
	/* zeroed: only the first f.n are parameters, but x0 and f.x0 copy all */
	double x[MAX_PARAMS] = {0}, x0[MAX_PARAMS], best, *tmp;
	size_t np = 0;
	int nvls = cfg->cluster.nvls;

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	if (nlogs == 0)
		return 0;
	if (nlogs > DC_CALIB_MAX_LOGS) {
		dc_diag_error(diag, DC_ERR_CONFIG, "distcalc: error: '--calibrate': at most %d logs, got %zu",
			      DC_CALIB_MAX_LOGS, nlogs);
		return -1;
	}
	for (size_t k = 0; k < nlogs; k++) {
		const struct dc_nccl_log *l = &logs[k];
		char shown[256];
		dc_fmt_printable(shown, sizeof(shown), names[k]);
		if (l->op == DC_NCCL_REDUCE) {
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s: error: '--calibrate': the network model prices no Reduce; calibrate with "
				      "all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf "
				      "or sendrecv_perf logs",
				      shown);
			return -1;
		}
		if (l->ranks < 2) {
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s: error: '--calibrate': the log ran on %llu rank; a collective needs two or more",
				      shown, (unsigned long long)l->ranks);
			return -1;
		}
		if (l->ranks_per_node != cfg->cluster.gpus_per_node)
			dc_diag_warn(diag,
				     "%s: '--calibrate': the log ran %llu ranks per host, the config has %llu GPUs per node; "
				     "its hosts are priced with the config's %llu NICs per node, so the fitted NIC rate is "
				     "per one of those",
				     shown, (unsigned long long)l->ranks_per_node,
				     (unsigned long long)cfg->cluster.gpus_per_node,
				     (unsigned long long)cfg->cluster.nics_per_node);
		snprintf(out->logs[k].name, sizeof(out->logs[k].name), "%s", shown);
		out->logs[k].op = l->op;
		out->logs[k].op_source = l->op_source;
		out->logs[k].ranks = l->ranks;
		out->logs[k].nodes = l->nodes;
		out->logs[k].ranks_per_node = l->ranks_per_node;
		out->logs[k].rows = l->nrows;
		for (size_t i = 0; i < l->nrows; i++)
			np += (size_t)usable(&l->rows[i]);
		out->fit_intra |= l->ranks_per_node >= 2;
		out->fit_inter |= l->nodes >= 2;
	}
	out->nlogs = nlogs;
	f.base = cfg;
	f.logs = logs;
	f.nlogs = nlogs;
	f.lat0[0] = cfg->cluster.intra_node.latency_s > 0 ? cfg->cluster.intra_node.latency_s : 1e-6;
	f.lat0[1] = cfg->cluster.inter_node.latency_s > 0 ? cfg->cluster.inter_node.latency_s : 1e-6;
	if (out->fit_intra) {
		f.which[f.n] = P_INTRA_BW;
		x[f.n++] = log(clampd(cfg->cluster.intra_node.bw_bytes_per_s, BW_LO, BW_HI));
		f.which[f.n] = P_INTRA_LAT;
		x[f.n++] = log(clampd(f.lat0[0], LAT_LO, LAT_HI));
	}
	if (out->fit_inter) {
		f.which[f.n] = P_INTER_BW;
		x[f.n++] = log(clampd(cfg->cluster.inter_node.bw_bytes_per_s, BW_LO, BW_HI));
		f.which[f.n] = P_INTER_LAT;
		x[f.n++] = log(clampd(f.lat0[1], LAT_LO, LAT_HI));
	}
	memcpy(x0, x, sizeof(x0));
	memcpy(f.x0, x, sizeof(x0));
	out->points = dc_calloc(np ? np : 1, sizeof(*out->points));
	tmp = dc_calloc(np ? np : 1, sizeof(*tmp));
	if (!out->points || !tmp) {
		free(tmp);
		dc_calibration_release(out);
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	best = search(&f, x);
	/* NVLS needs NVSwitch reductions, the fabric manager and NCCL's
	 * support across nodes, which a cluster may lack: with cluster.nvls
	 * on, the fit also prices every row without it and keeps whichever
	 * fits the logs better */
	if (cfg->cluster.nvls) {
		struct dc_config off = *cfg;
		double y[MAX_PARAMS], v;
		off.cluster.nvls = 0;
		memcpy(y, x0, sizeof(y));
		f.base = &off;
		v = search(&f, y);
		f.base = cfg;
		if (v < best) {
			best = v;
			memcpy(x, y, sizeof(y));
			nvls = 0;
		}
	}
	out->evaluations = f.evals;
	out->objective = best;
	{
		struct dc_config base = *cfg;
		base.cluster.nvls = nvls;
		f.base = &base;
		apply(&f, x, &fitted);
		f.base = cfg;
	}
	for (size_t k = 0; k < nlogs; k++)
		for (size_t i = 0; i < logs[k].nrows; i++) {
			const struct dc_nccl_row *r = &logs[k].rows[i];
			struct dc_calib_point *pt = &out->points[out->npoints];
			struct dc_net_choice ch;
			if (!usable(r))
				continue;
			pt->log = k;
			pt->line = r->line;
			pt->size_bytes = r->size_bytes;
			pt->measured_s = dc_nccl_row_time_s(r);
			memset(&ch, 0, sizeof(ch));
			pt->before_s = predict(cfg, &logs[k], r, &ch);
			memset(&ch, 0, sizeof(ch));
			pt->predicted_s = predict(&fitted, &logs[k], r, &ch);
			pt->algorithm = ch.algorithm ? ch.algorithm : "n/a";
			pt->protocol = ch.protocol ? ch.protocol : "n/a";
			pt->before_error = pt->before_s / pt->measured_s - 1;
			pt->error = pt->predicted_s / pt->measured_s - 1;
			out->npoints++;
		}
	for (size_t i = 0; i < out->npoints; i++)
		tmp[i] = fabs(out->points[i].error);
	spread(tmp, out->npoints, &out->median_abs_error, &out->max_abs_error);
	for (size_t i = 0; i < out->npoints; i++)
		tmp[i] = fabs(out->points[i].before_error);
	spread(tmp, out->npoints, &out->median_abs_before, &out->max_abs_before);
	free(tmp);
	out->intra_before = cfg->cluster.intra_node;
	out->inter_before = cfg->cluster.inter_node;
	out->intra_after = fitted.cluster.intra_node;
	out->inter_after = fitted.cluster.inter_node;
	out->nvls_before = cfg->cluster.nvls;
	out->nvls_after = fitted.cluster.nvls;
	/* what the fit changed is "calibrated" in the cluster section */
	if (cfg->cluster.intra_node.bw_bytes_per_s != fitted.cluster.intra_node.bw_bytes_per_s)
		dc_config_set_origin(cfg, "cluster.intra_node.bandwidth", DC_ORIGIN_CALIBRATED);
	if (cfg->cluster.intra_node.latency_s != fitted.cluster.intra_node.latency_s)
		dc_config_set_origin(cfg, "cluster.intra_node.latency", DC_ORIGIN_CALIBRATED);
	if (cfg->cluster.inter_node.bw_bytes_per_s != fitted.cluster.inter_node.bw_bytes_per_s)
		dc_config_set_origin(cfg, "cluster.inter_node.bandwidth", DC_ORIGIN_CALIBRATED);
	if (cfg->cluster.inter_node.latency_s != fitted.cluster.inter_node.latency_s)
		dc_config_set_origin(cfg, "cluster.inter_node.latency", DC_ORIGIN_CALIBRATED);
	if (cfg->cluster.nvls != fitted.cluster.nvls)
		dc_config_set_origin(cfg, "cluster.nvls", DC_ORIGIN_CALIBRATED);
	cfg->cluster.intra_node = fitted.cluster.intra_node;
	cfg->cluster.inter_node = fitted.cluster.inter_node;
	cfg->cluster.nvls = fitted.cluster.nvls;
	return 0;
}
