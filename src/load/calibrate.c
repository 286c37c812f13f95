/* calibrate.c - fitting link parameters to nccl-tests logs; see
 * calibrate.h and docs/nccl-tools.md, "How the fit works". */
#include "distcalc/calibrate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/net.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

/* the links of both kinds and both ramps */
#define MAX_PARAMS (5 + 2 * DC_NET_RAMP_KNOTS)
/* The physical range (docs/nccl-tools.md, "How the fit works"): a link
 * rate at most the configured one (the hardware's: NVLink's effective rate,
 * the NIC's line rate), at least 1/20 of it; a hop latency within 0.1 us to
 * 20 us; a ramp factor within 0.05 to 1 (no call beats its link). */
#define RATE_FLOOR (1.0 / 20.0)
#define LAT_LO 0.1e-6
#define RAMP_LO 0.05
/* How far the unbounded check may go: 4 x a rate, 1 ms a hop. */
#define RATE_RELAX 4.0
#define LAT_RELAX 1e-3
/* A weak prior at the config's values (a preset's vendor data) and at a
 * ramp of 1: moving a parameter by a factor e costs as much as one row
 * 10% off (ln 1.1 ^ 2 ~ 0.01). The rows decide what they pin; what no row
 * depends on (the NIC rate of a log whose every size is NVLink-bound)
 * stays as configured instead of wandering to a bound. */
#define PRIOR_WEIGHT 0.01

enum kind { P_INTRA_BW, P_INTRA_LAT, P_INTER_BW, P_INTER_LAT, P_PLUGIN_LAT, P_RAMP };

/* The plugin's latency may be 0: its parameter is ln(latency + 1 us), and
 * it stays within 0 to PLUGIN_MAX (a software stack's cost per network
 * hop: GCP's TCPX floors of 123 us need about 50 us of it). */
#define PLUGIN_OFFSET 1e-6
#define PLUGIN_MAX 200e-6

struct param {
	enum kind kind;
	int dom, knot;       /* P_RAMP: ramp[dom][knot] */
	double lo, hi;       /* ln of the bounds the search keeps */
	double hi_value;     /* the upper bound itself (exp(hi) may round above it) */
	double centre;       /* ln of the prior's centre */
};

/* The algorithms a log is priced with: a mask over enum dc_net_algo; 0
 * for NCCL's choice (the config's collective.algorithm). */
struct log_algo {
	unsigned mask;
	unsigned protos; /* over enum dc_net_proto, from NCCL_PROTO or collective.protocols; 0: every one */
	int protos_logged; /* protos is the log's own NCCL_PROTO */
};

struct fit {
	const struct dc_config *base;
	const struct dc_nccl_log *logs;
	const struct log_algo *algo;
	size_t nlogs;
	struct param p[MAX_PARAMS];
	size_t n;
	size_t nres; /* usable rows + n */
	unsigned evals;
	int oom; /* an allocation in the fit failed: the run fails, never fits on without it */
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

/* The config with the parameters at exp(x), each kept in its bounds. */
static void apply(const struct fit *f, const double *x, struct dc_config *c)
{
	*c = *f->base;
	for (size_t i = 0; i < f->n; i++) {
		const struct param *p = &f->p[i];
		double v = x[i] >= p->hi ? p->hi_value : exp(clampd(x[i], p->lo, p->hi));
		switch (p->kind) {
		case P_INTRA_BW: c->cluster.intra_node.bw_bytes_per_s = v; break;
		case P_INTRA_LAT: c->cluster.intra_node.latency_s = v; break;
		case P_INTER_BW: c->cluster.inter_node.bw_bytes_per_s = v; break;
		case P_INTER_LAT: c->cluster.inter_node.latency_s = v; break;
		case P_PLUGIN_LAT:
			c->cluster.plugin_latency_fitted = 1;
			c->cluster.plugin_latency_s = v - PLUGIN_OFFSET > 0 ? v - PLUGIN_OFFSET : 0;
			break;
		case P_RAMP: c->cluster.bw_ramp[p->dom][p->knot] = v; break;
		}
	}
}

/* `v` as the text "%.6g UNIT" of v x scale reads back (units.c): what
 * the calibration section prints is then exactly what the run used. */
static double quantize_unit(double v, double scale, const char *unit, int bandwidth)
{
	char text[64], err[128];
	double q;
	snprintf(text, sizeof(text), "%.6g %s", v * scale, unit);
	if ((bandwidth ? dc_units_parse_bandwidth(text, &q, err, sizeof(err))
		       : dc_units_parse_time(text, &q, err, sizeof(err))) != 0)
		return v;
	return q;
}

/* Every value the fit moved, rounded to the six digits the calibration
 * section prints (GB/s, us, the ramp's knots as numbers), so that the
 * cluster it prints, pasted into a config, prices every size as this run
 * does (tests/cli/test_calibrate.sh); six digits move a time by at most
 * about 5e-6 of itself. */
static void quantize(const struct fit *f, struct dc_config *c)
{
	struct dc_cluster *k = &c->cluster;
	char text[32];
	for (size_t i = 0; i < f->n; i++) {
		const struct param *p = &f->p[i];
		switch (p->kind) {
		case P_INTRA_BW: k->intra_node.bw_bytes_per_s = quantize_unit(k->intra_node.bw_bytes_per_s, 1e-9, "GB/s", 1); break;
		case P_INTRA_LAT: k->intra_node.latency_s = quantize_unit(k->intra_node.latency_s, 1e6, "us", 0); break;
		case P_INTER_BW: k->inter_node.bw_bytes_per_s = quantize_unit(k->inter_node.bw_bytes_per_s, 1e-9, "GB/s", 1); break;
		case P_INTER_LAT: k->inter_node.latency_s = quantize_unit(k->inter_node.latency_s, 1e6, "us", 0); break;
		case P_PLUGIN_LAT: /* below a nanosecond: none (the fit's floor, 0, less rounding) */
			k->plugin_latency_s =
				k->plugin_latency_s < 1e-9 ? 0 : quantize_unit(k->plugin_latency_s, 1e6, "us", 0);
			break;
		case P_RAMP:
			snprintf(text, sizeof(text), "%.6g", k->bw_ramp[p->dom][p->knot]);
			k->bw_ramp[p->dom][p->knot] = strtod(text, NULL);
			break;
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
	/* the log's nodes in order: the last leaf holds the rest, the
	 * fewest of them under one (leaf_least in net.c) */
	g->cross_leaf = 0;
	if (net->nodes_per_leaf && g->nodes > net->nodes_per_leaf) {
		uint64_t k = g->nodes % net->nodes_per_leaf ? g->nodes % net->nodes_per_leaf : net->nodes_per_leaf;
		g->cross_leaf = k > (uint64_t)INT32_MAX ? INT32_MAX : (int)k;
	}
}

/* Prices row `r` of log `l` on config `c` with the algorithms the log ran
 * (the fastest of them, as NCCL's tuner takes among those allowed); NCCL's
 * choice when none is set or none of them can run the call (*fallback then
 * set). 0 when the model cannot price it. */
static double predict(const struct dc_config *c, const struct dc_nccl_log *l, const struct log_algo *la,
		      const struct dc_nccl_row *r, struct dc_net_choice *ch, int *fallback)
{
	struct dc_net net;
	struct dc_net_group g;
	enum dc_coll_kind op = coll_kind(l->op);
	dc_net_init(c, &net);
	log_group(&net, l, &g);
	if (la)
		net.protocols = la->protos;
	if (la && la->mask) {
		int found = 0;
		net.algorithm = DC_NET_ALGO_AUTO;
		for (int a = DC_NET_ALGO_RING; a < DC_NET_ALGO_COUNT; a++) {
			struct dc_net_choice one;
			if (!(la->mask & (1u << a)))
				continue;
			/* a forced algorithm that cannot run returns -1; the
			 * hierarchy on one domain and point to point fall back
			 * inside dc_net_time, which is what NCCL does too */
			if (dc_net_time(&net, op, &g, r->size_bytes, (enum dc_net_algo)a, &one) != 0)
				continue;
			if (!found || one.time_s < ch->time_s)
				*ch = one;
			found = 1;
		}
		if (found)
			return ch->time_s;
		if (fallback)
			*fallback = 1;
	}
	if (dc_net_time(&net, op, &g, r->size_bytes, DC_NET_ALGO_AUTO, ch) == 0)
		return ch->time_s;
	if (net.protocols && fallback) /* no allowed protocol runs it: NCCL's choice */
		*fallback = 1;
	net.protocols = 0;
	if (dc_net_time(&net, op, &g, r->size_bytes, DC_NET_ALGO_AUTO, ch) != 0)
		return 0;
	return ch->time_s;
}

static int usable(const struct dc_nccl_row *r)
{
	return r->size_bytes > 0 && dc_nccl_row_time_s(r) > 0;
}

/* x kept within its bounds */
static void project(const struct fit *f, double *x)
{
	for (size_t i = 0; i < f->n; i++)
		x[i] = clampd(x[i], f->p[i].lo, f->p[i].hi);
}

/* The rows' residuals ln(predicted / measured) and the prior's,
 * sqrt(weight) x (x - centre), into r (f->nres of them) unless r is NULL;
 * returns the sum of their squares (the objective). Without r the prior
 * adds weight x d^2, as Nelder-Mead has always summed it. */
static double residuals(struct fit *f, const double *x, double *r)
{
	struct dc_config c;
	size_t m = 0;
	double sum = 0;
	apply(f, x, &c);
	f->evals++;
	for (size_t k = 0; k < f->nlogs; k++)
		for (size_t i = 0; i < f->logs[k].nrows; i++) {
			const struct dc_nccl_row *row = &f->logs[k].rows[i];
			struct dc_net_choice ch;
			double p, e;
			if (!usable(row))
				continue;
			memset(&ch, 0, sizeof(ch));
			p = predict(&c, &f->logs[k], &f->algo[k], row, &ch, NULL);
			e = p > 0 ? log(p / dc_nccl_row_time_s(row)) : 50.0;
			if (r)
				r[m++] = e;
			sum += e * e;
		}
	for (size_t i = 0; i < f->n; i++) {
		double d = clampd(x[i], f->p[i].lo, f->p[i].hi) - f->p[i].centre;
		if (!r) {
			sum += PRIOR_WEIGHT * d * d;
			continue;
		}
		r[m] = sqrt(PRIOR_WEIGHT) * d;
		sum += r[m] * r[m];
		m++;
	}
	return sum;
}

/* The objective alone: the sum of the squared residuals */
static double objective(struct fit *f, const double *x)
{
	return residuals(f, x, NULL);
}

/* Solves a x = b for the n x n system (Gaussian elimination, partial
 * pivoting) in place; -1 when singular. */
static int solve(double a[MAX_PARAMS][MAX_PARAMS], double *b, size_t n)
{
	for (size_t c = 0; c < n; c++) {
		size_t piv = c;
		for (size_t i = c + 1; i < n; i++)
			if (fabs(a[i][c]) > fabs(a[piv][c]))
				piv = i;
		if (fabs(a[piv][c]) < 1e-300)
			return -1;
		if (piv != c) {
			for (size_t j = 0; j < n; j++) {
				double t = a[c][j];
				a[c][j] = a[piv][j];
				a[piv][j] = t;
			}
			{
				double t = b[c];
				b[c] = b[piv];
				b[piv] = t;
			}
		}
		for (size_t i = c + 1; i < n; i++) {
			double m = a[i][c] / a[c][c];
			for (size_t j = c; j < n; j++)
				a[i][j] -= m * a[c][j];
			b[i] -= m * b[c];
		}
	}
	for (size_t c = n; c-- > 0;) {
		for (size_t j = c + 1; j < n; j++)
			b[c] -= a[c][j] * b[j];
		b[c] /= a[c][c];
	}
	return 0;
}

/* Levenberg-Marquardt on the residuals, bounded: a forward-difference
 * Jacobian (backward at an upper bound), the parameters held at a bound
 * the gradient pushes beyond left out of the step, every step projected
 * into the box, the damping divided by 3 on a gain and multiplied by 4
 * otherwise. Deterministic. Returns the objective; x holds its point. */
static double levenberg_marquardt(struct fit *f, double *x)
{
	size_t m = f->nres, n = f->n;
	double *r = dc_calloc(m * (n + 2), sizeof(double)), *rt, *jac, lambda = 1e-3, cost;
	if (!r) {
		f->oom = 1;
		return -1;
	}
	rt = r + m;
	jac = r + 2 * m; /* jac[j * m + i]: d r_i / d x_j */
	project(f, x);
	cost = residuals(f, x, r);
	for (unsigned it = 0; it < 100 * (unsigned)n && lambda < 1e10; it++) {
		double a[MAX_PARAMS][MAX_PARAMS], g[MAX_PARAMS], d[MAX_PARAMS], y[MAX_PARAMS], c;
		int free_[MAX_PARAMS];
		size_t idx[MAX_PARAMS], nf = 0;
		for (size_t j = 0; j < n; j++) {
			double h = 1e-5, xj = x[j];
			if (xj + h > f->p[j].hi)
				h = -h;
			x[j] = xj + h;
			residuals(f, x, rt);
			x[j] = xj;
			for (size_t i = 0; i < m; i++)
				jac[j * m + i] = (rt[i] - r[i]) / h;
		}
		for (size_t j = 0; j < n; j++) {
			g[j] = 0;
			for (size_t i = 0; i < m; i++)
				g[j] += jac[j * m + i] * r[i];
			/* descent is -g: held where it leaves the box */
			free_[j] = !((x[j] >= f->p[j].hi - 1e-12 && g[j] < 0) || (x[j] <= f->p[j].lo + 1e-12 && g[j] > 0));
			if (free_[j])
				idx[nf++] = j;
		}
		if (nf == 0)
			break;
		for (;;) {
			for (size_t u = 0; u < nf; u++) {
				for (size_t v = 0; v < nf; v++) {
					double s = 0;
					for (size_t i = 0; i < m; i++)
						s += jac[idx[u] * m + i] * jac[idx[v] * m + i];
					a[u][v] = s;
				}
				a[u][u] += lambda * (a[u][u] + 1e-9);
				d[u] = -g[idx[u]];
			}
			memcpy(y, x, n * sizeof(double));
			if (solve(a, d, nf) == 0) {
				for (size_t u = 0; u < nf; u++)
					y[idx[u]] += d[u];
				project(f, y);
				c = residuals(f, y, rt);
				if (c < cost) {
					double gain = cost - c;
					memcpy(x, y, n * sizeof(double));
					memcpy(r, rt, m * sizeof(double));
					cost = c;
					lambda = lambda / 3 > 1e-12 ? lambda / 3 : 1e-12;
					if (gain < 1e-12 * (1 + cost))
						lambda = 1e10; /* converged */
					break;
				}
			}
			lambda *= 4;
			if (lambda >= 1e10)
				break;
		}
	}
	free(r);
	return cost;
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
		if (i) /* into the box: down from an upper bound */
			s[i][i - 1] += s[i][i - 1] + step > f->p[i - 1].hi ? -step : step;
		project(f, s[i]);
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
		project(f, xr);
		fr = objective(f, xr);
		if (fr < fs[lo]) {
			for (size_t j = 0; j < n; j++)
				xe[j] = c[j] + 2 * (c[j] - s[hi][j]);
			project(f, xe);
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
		project(f, xc);
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
			project(f, s[i]);
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
	double best;
	project(f, x);
	best = objective(f, x);
	/* Levenberg-Marquardt from the config's values and from two more
	 * fixed starts below them (rates x 0.7 and ramps 0.8; rates x 0.5 and
	 * ramps 0.5): the rates and the ramp trade against each other, and a
	 * start at the upper bounds can stop in a valley beside the optimum */
	for (int start = 0; start < 3; start++) {
		static const double rate_scale[] = {1.0, 0.7, 0.5}, ramp_at[] = {1.0, 0.8, 0.5};
		double y[MAX_PARAMS], v;
		memcpy(y, x, sizeof(y));
		for (size_t i = 0; start && i < f->n; i++) {
			if (f->p[i].kind == P_INTRA_BW || f->p[i].kind == P_INTER_BW)
				y[i] = f->p[i].hi + log(rate_scale[start]);
			else if (f->p[i].kind == P_RAMP)
				y[i] = log(ramp_at[start]);
		}
		v = levenberg_marquardt(f, y);
		if (v >= 0 && v < best) {
			best = v;
			memcpy(x, y, sizeof(y));
		}
	}
	for (int round = 0; round < 8; round++) {
		double y[MAX_PARAMS], v;
		memcpy(y, x, f->n * sizeof(double));
		v = nelder_mead(f, y, round == 0 ? 0.7 : 0.3, 300 * (unsigned)f->n);
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

/* NCCL_ALGO's names (NCCL's ncclAlgoStr, case-insensitive) and the
 * model's algorithm for each; the NVLS tree is the model's NVLS across
 * domains, CollNet its hierarchy. */
struct nccl_name {
	const char *name;
	int bit;    /* the model's enum dc_net_algo or dc_net_proto */
	int across; /* 1: the name of the multi-domain form, 0: one domain, -1 both */
};

static const struct nccl_name nccl_algos[] = {
	{"ring", DC_NET_ALGO_RING, -1},	 {"tree", DC_NET_ALGO_TREE, -1},
	{"nvls", DC_NET_ALGO_NVLS, 0},	 {"nvlstree", DC_NET_ALGO_NVLS, 1},
	{"collnetdirect", DC_NET_ALGO_HIER, -1}, {"collnetchain", DC_NET_ALGO_HIER, -1},
	{"pat", DC_NET_ALGO_PAT, -1},
};

/* NCCL_PROTO's names (ncclProtoStr) */
static const struct nccl_name nccl_protos[] = {
	{"ll", DC_NET_PROTO_LL, -1}, {"ll128", DC_NET_PROTO_LL128, -1}, {"simple", DC_NET_PROTO_SIMPLE, -1},
};

/* NCCL's short name of an op in NCCL_ALGO's per-op form ("allreduce:tree"). */
static const char *nccl_op_key(enum dc_nccl_op op)
{
	switch (op) {
	case DC_NCCL_ALL_GATHER: return "allgather";
	case DC_NCCL_REDUCE_SCATTER: return "reducescatter";
	case DC_NCCL_BROADCAST: return "broadcast";
	case DC_NCCL_REDUCE: return "reduce";
	case DC_NCCL_ALL_REDUCE: return "allreduce";
	default: return "sendrecv"; /* alltoall and sendrecv run NCCL's send/recv */
	}
}

/* The next `sep`-separated token of *p (NULL at the end); cuts it. */
static char *next_tok(char **p, char sep)
{
	char *t = *p, *e;
	if (!t)
		return NULL;
	e = strchr(t, sep);
	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = NULL;
	}
	return t;
}

/* The log's NCCL_ALGO or NCCL_PROTO field for a message, printable; a
 * field without its NUL (longer than it holds) shown to its end and "...". */
static void env_shown(char *out, size_t len, const char field[DC_NCCL_ENV_MAX])
{
	char raw[DC_NCCL_ENV_MAX + 4];
	const char *nul = memchr(field, '\0', DC_NCCL_ENV_MAX);
	size_t n = nul ? (size_t)(nul - field) : DC_NCCL_ENV_MAX;
	memcpy(raw, field, n);
	memcpy(raw + n, n == DC_NCCL_ENV_MAX ? "..." : "", n == DC_NCCL_ENV_MAX ? 4 : 1);
	dc_fmt_printable(out, len, raw);
}

/* One list of names `list` (cut in place), "^" first to exclude them, for
 * log `l`: fills *mask (0: none named). -1 with `why` filled for a name
 * the model does not know, or (`mine`: the list that holds for the log's
 * own collective) for a list that excludes every one. */
static int parse_names(char *list, const struct dc_nccl_log *l, const struct nccl_name *tab, size_t ntab,
		       unsigned all, const char *choices, int mine, unsigned *mask, char *why, size_t why_len)
{
	char *tok, *rest;
	unsigned named = 0;
	int exclude = 0;
	*mask = 0;
	if (list[0] == '^') {
		exclude = 1;
		list++;
	}
	rest = list;
	while ((tok = next_tok(&rest, ',')) != NULL) {
		size_t k = 0;
		if (!tok[0])
			continue;
		while (k < ntab && strcmp(tok, tab[k].name) != 0)
			k++;
		if (k == ntab) {
			snprintf(why, why_len, "'%s' is not one of %s", tok, choices);
			return -1;
		}
		/* excluding NVLS on a multi-node log leaves its NVLS tree */
		if (exclude && tab[k].across >= 0 && tab[k].across != (l->nodes > 1))
			continue;
		named |= 1u << tab[k].bit;
	}
	if (exclude) {
		*mask = all & ~named;
		if (!*mask && mine) {
			snprintf(why, why_len, "it excludes every one");
			return -1;
		}
	} else {
		*mask = named;
	}
	return 0;
}

/* NCCL_ALGO `v` for log `l`: a list of names, "^" first to exclude them,
 * or "op:list;op:list" per collective. Fills *mask (0: NCCL's choice);
 * -1 with `why` filled for a value longer than the log's field, a
 * collective NCCL does not know or a name the model does not know, in
 * any entry. */
static int parse_nccl_list(const char *v, const struct dc_nccl_log *l, const struct nccl_name *tab, size_t ntab,
			   unsigned all, const char *choices, unsigned *mask, char *why, size_t why_len)
{
	char buf[DC_NCCL_ENV_MAX], *list = buf;
	*mask = 0;
	/* the reader refuses a longer value; a log filled by other means
	 * may still hold one without its NUL */
	if (!memchr(v, '\0', sizeof(buf))) {
		snprintf(why, why_len, "longer than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	if (!v[0])
		return 0;
	/* lower case, without blanks */
	{
		size_t j = 0;
		for (size_t i = 0; v[i]; i++)
			if (v[i] != ' ' && v[i] != '\t')
				buf[j++] = (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] - 'A' + 'a' : v[i]);
		buf[j] = '\0';
	}
	if (strpbrk(buf, ":;")) {
		/* NCCL's parseList (src/graph/tuning.cc), called with
		 * ncclFuncStr's NCCL_NUM_FUNCTIONS prefixes: entries split at
		 * ';' by strtok_r, so an empty one is skipped; only the
		 * entry at the very start may go without a collective, and
		 * it holds for all; each "op:list" after it holds for that
		 * op; a collective other than the five is refused, and so is
		 * an unknown name in any entry */
		static const char *const ops[] = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
		const char *key = nccl_op_key(l->op);
		char *entry, *at = buf;
		list = NULL;
		while ((entry = next_tok(&at, ';')) != NULL) {
			char *colon = strchr(entry, ':'), *names;
			unsigned m;
			size_t k = 0;
			int mine;
			if (!entry[0])
				continue;
			if (!colon) {
				if (entry != buf) {
					snprintf(why, why_len, "'%s': every entry but the first needs a collective", entry);
					return -1;
				}
				names = entry;
				mine = list == NULL;
			} else {
				*colon = '\0';
				names = colon + 1;
				while (k < sizeof(ops) / sizeof(ops[0]) && strcmp(entry, ops[k]) != 0)
					k++;
				if (k == sizeof(ops) / sizeof(ops[0])) {
					snprintf(why, why_len,
						 "'%s' is not one of NCCL's collectives (Broadcast, Reduce, AllGather, "
						 "ReduceScatter, AllReduce)",
						 entry);
					return -1;
				}
				if (!names[0]) {
					snprintf(why, why_len, "'%s:' names nothing after its collective", entry);
					return -1;
				}
				mine = strcmp(entry, key) == 0;
			}
			if (mine)
				list = names;
			/* every entry's names are checked; the log's own list is
			 * parsed at the end, once the last entry for its op is
			 * known (a later one overrides) */
			{
				char copy[DC_NCCL_ENV_MAX];
				memcpy(copy, names, strlen(names) + 1);
				if (parse_names(copy, l, tab, ntab, all, choices, 0, &m, why, why_len) != 0)
					return -1;
			}
		}
		if (!list)
			return 0;
	}
	return parse_names(list, l, tab, ntab, all, choices, 1, mask, why, why_len);
}

/* "ring, tree" */
static void mask_text(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int a = DC_NET_ALGO_RING; a < DC_NET_ALGO_COUNT && at < len; a++)
		if (mask & (1u << a)) {
			int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", dc_net_algo_name((enum dc_net_algo)a));
			at += w > 0 ? (size_t)w : 0;
		}
}

static void add_param(struct fit *f, double *x, enum kind kind, int dom, int knot, double value, double lo, double hi,
		      double centre)
{
	struct param *p = &f->p[f->n];
	p->kind = kind;
	p->dom = dom;
	p->knot = knot;
	p->lo = log(lo);
	p->hi = log(hi);
	p->hi_value = hi;
	p->centre = clampd(log(centre), p->lo, p->hi);
	x[f->n] = clampd(log(value), p->lo, p->hi);
	f->n++;
}

static void warn(struct dc_calibration *out, struct dc_diag *diag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct dc_calibration *out, struct dc_diag *diag, const char *fmt, ...)
{
	va_list ap;
	char *w;
	if (out->nwarnings >= DC_CALIB_MAX_WARNINGS)
		return;
	w = out->warnings[out->nwarnings++];
	va_start(ap, fmt);
	vsnprintf(w, sizeof(out->warnings[0]), fmt, ap);
	va_end(ap);
	dc_diag_warn(diag, "'--calibrate': %s", w);
}

/* "8 MiB", "512 B" */
static void size_text(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && b >= 1024 && b % 1024 == 0) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)b, unit[u]);
}

/* A log that ran under NCCL_ALGO or NCCL_PROTO: its rows are fitted as
 * they ran, but the run prices every call with what the config allows
 * (collective.algorithm, collective.protocols), so the log's own sizes can cost
 * otherwise there. Said, with the row that moves most, when one moves by
 * more than 1%: a note, not a warning, since the fit of the links is
 * sound (a ring-only nccl-tests run is common practice); what it does
 * not carry is a cluster that always runs so. */
static void restricted_note(const struct dc_config *fitted, const struct dc_nccl_log *l, const struct log_algo *la,
			    const struct dc_calib_log *o, struct dc_calibration *out, struct dc_diag *diag)
{
	double worst = 0, fit_s = 0, run_s = 0;
	const char *fa = "", *fp = "", *ra = "", *rp = "";
	uint64_t size = 0;
	char sz[32], what[DC_NCCL_ENV_MAX + 96], set[48], advice[200];
	for (size_t i = 0; i < l->nrows; i++) {
		const struct dc_nccl_row *r = &l->rows[i];
		struct dc_net_choice a, b;
		double x, y;
		if (!usable(r))
			continue;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		x = predict(fitted, l, la, r, &a, NULL);
		y = predict(fitted, l, NULL, r, &b, NULL);
		if (x > 0 && y > 0 && fabs(y / x - 1) > fabs(worst)) {
			worst = y / x - 1;
			fit_s = x;
			run_s = y;
			size = r->size_bytes;
			fa = a.algorithm ? a.algorithm : "?";
			fp = a.protocol ? a.protocol : "?";
			ra = b.algorithm ? b.algorithm : "?";
			rp = b.protocol ? b.protocol : "?";
		}
	}
	if (fabs(worst) <= 0.01)
		return;
	size_text(size, sz, sizeof(sz));
	snprintf(what, sizeof(what), "%s%s%s%s%s%s", la->mask ? o->algorithm_from : "", la->mask ? " (" : "",
		 la->mask ? o->algorithm : "", la->mask ? ")" : "", la->mask && la->protos_logged ? " and " : "",
		 la->protos_logged ? "NCCL_PROTO" : "");
	if (out->nnotes >= DC_CALIB_MAX_LOGS)
		return;
	dc_protocols_text(la->protos, set, sizeof(set));
	if (la->protos_logged)
		snprintf(advice, sizeof(advice), "a cluster that always runs so is priced so with collective.protocols %s%s",
			 set, la->mask ? " (and collective.algorithm for one algorithm)" : "");
	else
		snprintf(advice, sizeof(advice),
			 "a cluster that always runs one of these algorithms is priced so only with collective.algorithm set to it");
	/* a log path past what the note holds cuts its end, never more */
	if (snprintf(out->notes[out->nnotes], sizeof(out->notes[0]),
		 "%s ran under %s%s%s%s, and its rows are fitted so; this run prices each call with what the config "
		 "allows (collective.algorithm, collective.protocols), so the log's own sizes cost otherwise here, most at "
		 "%s: %.2f us (%s, %s) against the fit's %.2f us (%s, %s), %+.0f%%; the fitted links hold either way, "
		 "but %s",
		 o->name, what, la->protos_logged ? " (" : "", la->protos_logged ? o->protocols : "",
		 la->protos_logged ? ")" : "", sz,
		 run_s * 1e6, ra, rp, fit_s * 1e6, fa, fp, 100 * worst, advice) < 0)
		return;
	dc_diag_warn(diag, "'--calibrate': note: %s", out->notes[out->nnotes]);
	out->nnotes++;
}

/* After the bounded fit: the same fit with every link's upper bound
 * relaxed (rates x 4, hop latencies to 1 ms), from the bounded optimum.
 * When that fits the logs markedly better (its objective under 0.9 x the
 * bounded one), a value that then leaves its physical range by more than
 * 10% is what the logs want and the hardware cannot give: warned, named. */
static void check_range(struct fit *f, const double *x, double bounded, struct dc_calibration *out,
			struct dc_diag *diag)
{
	struct fit r = *f;
	double y[MAX_PARAMS], relaxed;
	memcpy(y, x, sizeof(y));
	for (size_t i = 0; i < r.n; i++) {
		struct param *p = &r.p[i];
		if (p->kind == P_INTRA_BW || p->kind == P_INTER_BW)
			p->hi += log(RATE_RELAX);
		else if (p->kind == P_INTRA_LAT || p->kind == P_INTER_LAT)
			p->hi = log(LAT_RELAX);
		p->hi_value = exp(p->hi);
	}
	relaxed = search(&r, y);
	/* a call's price is a step function of the rates and latencies (the
	 * pick is made on every channel, the time on the pick's: net.c), so
	 * the relaxed search, local, can stop below a latency the logs want:
	 * it starts again with each hop latency at 2, 5 and 20 times the
	 * bound and keeps the lowest objective */
	for (size_t i = 0; i < r.n && !r.oom; i++) {
		static const double at[] = {2.0, 5.0, 20.0};
		if (r.p[i].kind != P_INTRA_LAT && r.p[i].kind != P_INTER_LAT)
			continue;
		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			double z[MAX_PARAMS], v;
			memcpy(z, x, sizeof(z));
			z[i] = log(at[k] * DC_CALIB_HOP_LATENCY_MAX);
			v = search(&r, z);
			if (v < relaxed) {
				relaxed = v;
				memcpy(y, z, sizeof(y));
			}
		}
	}
	f->evals = r.evals;
	f->oom |= r.oom;
	if (f->oom)
		return;
	/* the bounds cost the fit less than a tenth of its objective: what
	 * the relaxed fit moved is a trade between parameters the logs do not
	 * tell apart, not a want of the hardware */
	if (relaxed > 0.9 * bounded)
		return;
	for (size_t i = 0; i < f->n; i++) {
		const struct param *p = &f->p[i];
		double want = exp(clampd(y[i], r.p[i].lo, r.p[i].hi)), bound = exp(p->hi);
		/* what the bounded fit keeps: the bound, or below it where the
		 * other parameters took up the rest (a step function of the
		 * latency can leave it there) */
		double kept = exp(clampd(x[i], p->lo, p->hi));
		char held[64];
		if (p->kind == P_RAMP || p->kind == P_PLUGIN_LAT || want <= bound * 1.10)
			continue;
		if (p->kind == P_INTRA_LAT || p->kind == P_INTER_LAT)
			snprintf(held, sizeof(held), kept >= bound * (1 - 1e-9) ? "held at %.0f us" : "the fit keeps %.1f us",
				 kept * 1e6);
		else
			snprintf(held, sizeof(held), kept >= bound * (1 - 1e-9) ? "held at %.1f GB/s" : "the fit keeps %.1f GB/s",
				 kept / 1e9);
		switch (p->kind) {
		case P_INTRA_BW:
			warn(out, diag,
			     "the logs fit best with NVLink (cluster.intra_node.bandwidth) at %.1f GB/s, above the "
			     "hardware's %.1f GB/s: %s",
			     want / 1e9, bound / 1e9, held);
			break;
		case P_INTER_BW:
			warn(out, diag,
			     "the logs fit best with a NIC (cluster.inter_node.bandwidth) at %.1f GB/s, above its line "
			     "rate of %.1f GB/s: %s",
			     want / 1e9, bound / 1e9, held);
			break;
		case P_INTRA_LAT:
		case P_INTER_LAT:
			warn(out, diag,
			     "the logs fit best with a%s hop latency (cluster.%s.latency) of %.1f us, above the %.0f us a "
			     "hop can take: %s",
			     p->kind == P_INTRA_LAT ? "n NVLink" : " network",
			     p->kind == P_INTRA_LAT ? "intra_node" : "inter_node", want * 1e6,
			     DC_CALIB_HOP_LATENCY_MAX * 1e6, held);
			break;
		case P_PLUGIN_LAT:
		case P_RAMP:
			break;
		}
	}
}

/* The rows of `l` the fit uses: all its usable rows when there are at most
 * DC_CALIB_FIT_ROWS, else that many, the j-th the row nearest (the smaller
 * on a tie) to log2(size) = lo + (hi - lo) j / (K - 1) among those after
 * the (j-1)-th, lo and hi the first and last usable row's: the ends always
 * in, each row at most once, chosen in one pass. So a fit's work is at
 * most K rows a log whatever the log's length (one evaluation prices each
 * fitted row once), and a log of K rows or fewer is fitted as before.
 * *sub is owned (NULL when the log is used whole). Returns -1 when out of
 * memory. */
static int fit_rows(const struct dc_nccl_log *l, struct dc_nccl_log *fl, struct dc_nccl_row **sub, size_t *nfit)
{
	size_t u = 0, *idx, next = 0;
	double lo, hi;
	*fl = *l;
	*sub = NULL;
	for (size_t i = 0; i < l->nrows; i++)
		u += (size_t)usable(&l->rows[i]);
	if (u <= DC_CALIB_FIT_ROWS) {
		*nfit = u;
		return 0;
	}
	idx = dc_calloc(u, sizeof(*idx));
	*sub = dc_calloc(DC_CALIB_FIT_ROWS, sizeof(**sub));
	if (!idx || !*sub) {
		free(idx);
		free(*sub);
		*sub = NULL;
		return -1;
	}
	u = 0;
	for (size_t i = 0; i < l->nrows; i++)
		if (usable(&l->rows[i]))
			idx[u++] = i;
	lo = log2((double)l->rows[idx[0]].size_bytes);
	hi = log2((double)l->rows[idx[u - 1]].size_bytes);
	for (size_t j = 0; j < DC_CALIB_FIT_ROWS; j++) {
		double t = lo + (hi - lo) * (double)j / (double)(DC_CALIB_FIT_ROWS - 1);
		size_t i = next, last = u - (DC_CALIB_FIT_ROWS - j); /* leave a row for each pick to come */
		while (i < last && log2((double)l->rows[idx[i]].size_bytes) < t)
			i++;
		if (i > next && fabs(log2((double)l->rows[idx[i - 1]].size_bytes) - t) <=
				    fabs(log2((double)l->rows[idx[i]].size_bytes) - t))
			i--;
		(*sub)[j] = l->rows[idx[i]];
		next = i + 1;
	}
	free(idx);
	fl->rows = *sub;
	fl->nrows = DC_CALIB_FIT_ROWS;
	*nfit = DC_CALIB_FIT_ROWS;
	return 0;
}

int dc_calibrate(struct dc_config *cfg, const struct dc_nccl_log *logs, const char *const *names, size_t nlogs,
		 struct dc_calibration *out, struct dc_diag *diag)
{
	struct fit f;
	struct dc_config fitted;
	struct log_algo algo[DC_CALIB_MAX_LOGS];
	double x[MAX_PARAMS] = {0}, x0[MAX_PARAMS], best, *tmp;
	size_t np = 0, nfit = 0;
	/* the rows the fit uses: each log's, or an even subset of a long one */
	struct dc_nccl_log fitlogs[DC_CALIB_MAX_LOGS];
	struct dc_nccl_row *sub[DC_CALIB_MAX_LOGS] = {0};
	int nvls = cfg->cluster.nvls, one_node = 0, multi_node = 0, fallback[DC_CALIB_MAX_LOGS] = {0};
	int oom_before = diag->oom;

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	memset(algo, 0, sizeof(algo));
	if (nlogs == 0)
		return 0;
	if (nlogs > DC_CALIB_MAX_LOGS) {
		dc_diag_error(diag, DC_ERR_CONFIG, "distcalc: error: '--calibrate': at most %d logs, got %zu",
			      DC_CALIB_MAX_LOGS, nlogs);
		return -1;
	}
	for (size_t k = 0; k < nlogs; k++) {
		const struct dc_nccl_log *l = &logs[k];
		struct dc_calib_log *o = &out->logs[k];
		char shown[256], why[DC_NCCL_ENV_MAX + 256];
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
		if (parse_nccl_list(l->nccl_algo, l, nccl_algos, sizeof(nccl_algos) / sizeof(nccl_algos[0]),
				    (1u << DC_NET_ALGO_RING) | (1u << DC_NET_ALGO_TREE) | (1u << DC_NET_ALGO_NVLS) |
					    (1u << DC_NET_ALGO_PAT) | (cfg->cluster.collnet ? 1u << DC_NET_ALGO_HIER : 0),
				    "Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT", &algo[k].mask, why,
				    sizeof(why)) != 0) {
			char v[DC_NCCL_ENV_MAX + 8];
			env_shown(v, sizeof(v), l->nccl_algo);
			dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: '--calibrate': the log's NCCL_ALGO=%s: %s", shown,
				      v, why);
			return -1;
		}
		if (parse_nccl_list(l->nccl_proto, l, nccl_protos, sizeof(nccl_protos) / sizeof(nccl_protos[0]),
				    (1u << DC_NET_PROTO_COUNT) - 1, "LL, LL128, Simple", &algo[k].protos, why,
				    sizeof(why)) != 0) {
			char v[DC_NCCL_ENV_MAX + 8];
			env_shown(v, sizeof(v), l->nccl_proto);
			dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: '--calibrate': the log's NCCL_PROTO=%s: %s", shown,
				      v, why);
			return -1;
		}
		if (l->ranks_per_node != cfg->cluster.gpus_per_node)
			dc_diag_warn(diag,
				     "%s: '--calibrate': the log ran %llu ranks per host, the config has %llu GPUs per node "
				     "(cluster.gpus_per_node); its hosts are priced with the config's %llu NICs per node "
				     "(cluster.nics_per_node), so the fitted NIC rate is per one of those; give "
				     "--set cluster.gpus_per_node=%llu (and the NICs the log's hosts have) to fit the log's "
				     "own hosts",
				     shown, (unsigned long long)l->ranks_per_node,
				     (unsigned long long)cfg->cluster.gpus_per_node,
				     (unsigned long long)cfg->cluster.nics_per_node, (unsigned long long)l->ranks_per_node);
		snprintf(o->name, sizeof(o->name), "%s", shown);
		o->op = l->op;
		o->op_source = l->op_source;
		o->ranks = l->ranks;
		o->nodes = l->nodes;
		o->ranks_per_node = l->ranks_per_node;
		o->rows = l->nrows;
		if (algo[k].mask) {
			char v[DC_NCCL_ENV_MAX];
			mask_text(algo[k].mask, o->algorithm, sizeof(o->algorithm));
			dc_fmt_printable(v, sizeof(v), l->nccl_algo);
			snprintf(o->algorithm_from, sizeof(o->algorithm_from), "NCCL_ALGO=%s", v);
		} else if (cfg->collective.algorithm != DC_NET_ALGO_AUTO) {
			algo[k].mask = 1u << cfg->collective.algorithm;
			snprintf(o->algorithm, sizeof(o->algorithm), "%s", dc_net_algo_name(cfg->collective.algorithm));
			snprintf(o->algorithm_from, sizeof(o->algorithm_from), "collective.algorithm");
		} else {
			snprintf(o->algorithm, sizeof(o->algorithm), "auto");
			snprintf(o->algorithm_from, sizeof(o->algorithm_from), "NCCL's choice");
		}
		/* a log without NCCL_PROTO ran the cluster's own set: the
		 * config's (collective.protocols, as collective.algorithm above) */
		algo[k].protos_logged = algo[k].protos != 0;
		if (!algo[k].protos && cfg->collective.protocols_mask) {
			algo[k].protos = cfg->collective.protocols_mask;
			snprintf(o->protocols_from, sizeof(o->protocols_from), "collective.protocols");
		} else {
			snprintf(o->protocols_from, sizeof(o->protocols_from), "%s",
				 algo[k].protos ? "NCCL_PROTO" : "NCCL's choice");
		}
		{
			unsigned pm = algo[k].protos ? algo[k].protos : (1u << DC_NET_PROTO_COUNT) - 1;
			size_t at = 0;
			o->protocols[0] = '\0';
			for (int p = 0; p < DC_NET_PROTO_COUNT; p++)
				if (pm & (1u << p)) {
					int w = snprintf(o->protocols + at, sizeof(o->protocols) - at, "%s%s", at ? ", " : "",
							 dc_net_proto_name((enum dc_net_proto)p));
					at += w > 0 && (size_t)w < sizeof(o->protocols) - at ? (size_t)w : 0;
				}
		}
		for (size_t i = 0; i < l->nrows; i++)
			np += (size_t)usable(&l->rows[i]);
		if (l->nodes >= 2)
			multi_node = 1;
		else
			one_node = 1;
	}
	out->nlogs = nlogs;
	f.base = cfg;
	f.logs = logs;
	f.algo = algo;
	f.nlogs = nlogs;
	/* a one-node log fits NVLink, a multi-node log the network; NVLink
	 * stays as configured without a one-node log (a multi-node log would
	 * move it to buy its network's shape, mispricing tensor parallelism) */
	out->fit_intra = one_node;
	out->fit_inter = multi_node;
	out->nvlink_kept = !one_node;
	if (one_node) {
		double bw = cfg->cluster.intra_node.bw_bytes_per_s, lat = cfg->cluster.intra_node.latency_s;
		add_param(&f, x, P_INTRA_BW, 0, 0, bw, bw * RATE_FLOOR, bw, bw);
		add_param(&f, x, P_INTRA_LAT, 0, 0, lat > 0 ? lat : 1e-6, LAT_LO, DC_CALIB_HOP_LATENCY_MAX,
			  lat > 0 ? lat : 1e-6);
		for (int k = 0; k < DC_NET_RAMP_KNOTS; k++)
			add_param(&f, x, P_RAMP, 0, k, 1.0, RAMP_LO, 1.0, 1.0);
	}
	if (multi_node) {
		double bw = cfg->cluster.inter_node.bw_bytes_per_s, lat = cfg->cluster.inter_node.latency_s;
		add_param(&f, x, P_INTER_BW, 0, 0, bw, bw * RATE_FLOOR, bw, bw);
		add_param(&f, x, P_INTER_LAT, 0, 0, lat > 0 ? lat : 1e-6, LAT_LO, DC_CALIB_HOP_LATENCY_MAX,
			  lat > 0 ? lat : 1e-6);
		{
			double plug = cfg->cluster.plugin_latency_fitted ? cfg->cluster.plugin_latency_s
									: dc_net_fabric_latency(cfg->cluster.network);
			add_param(&f, x, P_PLUGIN_LAT, 0, 0, plug + PLUGIN_OFFSET, PLUGIN_OFFSET, PLUGIN_MAX + PLUGIN_OFFSET,
				  plug + PLUGIN_OFFSET);
		}
		for (int k = 0; k < DC_NET_RAMP_KNOTS; k++)
			add_param(&f, x, P_RAMP, 1, k, 1.0, RAMP_LO, 1.0, 1.0);
	}
	memcpy(x0, x, sizeof(x0));
	out->points = dc_calloc(np ? np : 1, sizeof(*out->points));
	tmp = dc_calloc(np ? np : 1, sizeof(*tmp));
	for (size_t k = 0; k < nlogs && out->points && tmp; k++) {
		size_t n = 0;
		if (fit_rows(&logs[k], &fitlogs[k], &sub[k], &n) != 0) {
			free(tmp);
			tmp = NULL;
			break;
		}
		nfit += n;
		if (sub[k]) {
			char shown[256];
			dc_fmt_printable(shown, sizeof(shown), names && names[k] ? names[k] : "log");
			dc_diag_warn(diag,
				     "'--calibrate': %s: %zu rows; the fit uses %d of them, evenly spaced in log2(size) "
				     "(docs/nccl-tools.md); every row is priced below",
				     shown, logs[k].nrows, DC_CALIB_FIT_ROWS);
		}
	}
	if (!out->points || !tmp) {
		free(tmp);
		for (size_t k = 0; k < nlogs; k++)
			free(sub[k]);
		dc_calibration_release(out);
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	f.logs = fitlogs;
	f.nres = nfit + f.n;
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
	out->objective = best;
	{
		struct dc_config base = *cfg;
		base.cluster.nvls = nvls;
		f.base = &base;
		apply(&f, x, &fitted);
		quantize(&f, &fitted);
		check_range(&f, x, best, out, diag);
		f.base = cfg;
	}
	for (size_t k = 0; k < nlogs; k++)
		free(sub[k]);
	/* a start of the fit that could not allocate would leave a fit
	 * with different numbers: out of memory, as every loader says */
	if (f.oom) {
		free(tmp);
		dc_calibration_release(out);
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	out->evaluations = f.evals;
	for (size_t k = 0; k < nlogs; k++) {
		size_t first = out->npoints;
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
			pt->before_s = predict(cfg, &logs[k], &algo[k], r, &ch, NULL);
			memset(&ch, 0, sizeof(ch));
			pt->predicted_s = predict(&fitted, &logs[k], &algo[k], r, &ch, &fallback[k]);
			pt->algorithm = ch.algorithm ? ch.algorithm : "n/a";
			pt->protocol = ch.protocol ? ch.protocol : "n/a";
			pt->residual_s = pt->predicted_s - pt->measured_s;
			pt->before_error = pt->before_s / pt->measured_s - 1;
			pt->error = pt->predicted_s / pt->measured_s - 1;
			out->npoints++;
		}
		for (size_t i = first; i < out->npoints; i++)
			tmp[i - first] = fabs(out->points[i].error);
		spread(tmp, out->npoints - first, &out->logs[k].median_abs_error, &out->logs[k].max_abs_error);
		if (algo[k].mask || algo[k].protos)
			restricted_note(&fitted, &logs[k], &algo[k], &out->logs[k], out, diag);
		if (fallback[k])
			warn(out, diag,
			     "%s: the model cannot run %s (%s) for every size of this log: those sizes are priced with "
			     "NCCL's choice",
			     out->logs[k].name, out->logs[k].algorithm, out->logs[k].algorithm_from);
	}
	{
		size_t worst = 0;
		for (size_t i = 0; i < out->npoints; i++) {
			tmp[i] = fabs(out->points[i].error);
			if (tmp[i] > tmp[worst])
				worst = i;
		}
		if (out->npoints && tmp[worst] > DC_CALIB_RESIDUAL_LIMIT) {
			const struct dc_calib_point *w = &out->points[worst];
			const char *base = strrchr(out->logs[w->log].name, '/');
			char sz[32];
			size_text(w->size_bytes, sz, sizeof(sz));
			warn(out, diag,
			     "the largest residual, %+.1f%% at %s of %s, exceeds %.0f%%: the model cannot follow "
			     "these logs' shape; check the sizes before using the fit",
			     100 * w->error, sz, base ? base + 1 : out->logs[w->log].name, 100 * DC_CALIB_RESIDUAL_LIMIT);
		}
	}
	/* a published plugin latency (EFA's 20 us) the fit moved far: the
	 * log is likely from another fabric than cluster.network names (a log
	 * does not name its own, but NCCL_DEBUG=INFO's NET/IB or NET/OFI lines
	 * do). A fabric without one (0: TCPXO's, or InfiniBand's, which adds
	 * none) is the fit's to find, as docs/nccl-tools.md has it */
	if (fitted.cluster.plugin_latency_fitted && !cfg->cluster.plugin_latency_fitted &&
	    dc_net_fabric_latency(cfg->cluster.network) > 0) {
		double was = dc_net_fabric_latency(cfg->cluster.network);
		double now = fitted.cluster.plugin_latency_s, hi = was > now ? was : now, lo = was > now ? now : was;
		if (hi - lo > 5e-6 && hi > 4.0 * lo)
			warn(out, diag,
			     "the fit moved the network plugin's latency from %.2f us (cluster.network \"%s\") to %.2f us: "
			     "these logs may come from another fabric than \"%s\" (their NCCL_DEBUG=INFO lines name it: "
			     "NET/IB, NET/OFI for EFA); check cluster.network before using the fit",
			     1e6 * was, dc_network_name(cfg->cluster.network), 1e6 * now,
			     dc_network_name(cfg->cluster.network));
	}
	spread(tmp, out->npoints, &out->median_abs_error, &out->max_abs_error);
	for (size_t i = 0; i < out->npoints; i++)
		tmp[i] = fabs(out->points[i].before_error);
	spread(tmp, out->npoints, &out->median_abs_before, &out->max_abs_before);
	free(tmp);
	/* a warning that could not be kept would leave the section without
	 * it: out of memory, as above, and the config untouched */
	if (diag->oom && !oom_before) {
		dc_calibration_release(out);
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	out->intra_before = cfg->cluster.intra_node;
	out->inter_before = cfg->cluster.inter_node;
	out->intra_after = fitted.cluster.intra_node;
	out->inter_after = fitted.cluster.inter_node;
	memcpy(out->ramp_after, fitted.cluster.bw_ramp, sizeof(out->ramp_after));
	out->plugin_before = cfg->cluster.plugin_latency_fitted ? cfg->cluster.plugin_latency_s
								: dc_net_fabric_latency(cfg->cluster.network);
	out->plugin_after = fitted.cluster.plugin_latency_fitted ? fitted.cluster.plugin_latency_s : out->plugin_before;
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
	for (int d = 0; d < 2; d++)
		if (memcmp(cfg->cluster.bw_ramp[d], fitted.cluster.bw_ramp[d], sizeof(cfg->cluster.bw_ramp[d])) != 0)
			dc_config_set_origin(cfg, d ? "cluster.inter_node.ramp" : "cluster.intra_node.ramp",
					     DC_ORIGIN_CALIBRATED);
	if (fitted.cluster.plugin_latency_fitted &&
	    (!cfg->cluster.plugin_latency_fitted || cfg->cluster.plugin_latency_s != fitted.cluster.plugin_latency_s))
		dc_config_set_origin(cfg, "cluster.inter_node.plugin_latency", DC_ORIGIN_CALIBRATED);
	cfg->cluster.intra_node = fitted.cluster.intra_node;
	cfg->cluster.inter_node = fitted.cluster.inter_node;
	cfg->cluster.nvls = fitted.cluster.nvls;
	memcpy(cfg->cluster.bw_ramp, fitted.cluster.bw_ramp, sizeof(cfg->cluster.bw_ramp));
	cfg->cluster.plugin_latency_fitted = fitted.cluster.plugin_latency_fitted;
	cfg->cluster.plugin_latency_s = fitted.cluster.plugin_latency_s;
	return 0;
}
