/* sec_calibration.c - what --calibrate fitted: the logs read, the links
 * fitted, the cluster object to paste into a config, and measured against
 * predicted time for every size of every log, before and after the fit
 * (calibrate.h, docs/nccl-tools.md). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/calibrate.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/section.h"
#include "distcalc/units.h"

/* The cluster object, as a config writes it (units spelled out). */
struct paste_link {
	char bandwidth[32], latency[32], plugin_latency[32];
	char ramp[DC_NET_RAMP_KNOTS * 28 + 8]; /* a JSON array; "" for none */
	int inter;
};

struct paste {
	const char *system, *gpu, *network, *nic_path;
	uint64_t num_nodes, gpus_per_node, nvlink_domain, nics_per_node, nccl_channels, nodes_per_leaf;
	double oversubscription;
	int nvls, collnet;
	char gpu_memory[32];
	struct paste_link intra_node, inter_node;
};

struct view {
	const struct dc_calibration *cal;
	const char *fitted, *nvls, *nvlink, *verdict, *ramp_scope;
	double plugin_before, plugin_after;
	uint64_t nlogs, npoints, nwarnings, nnotes, nramp;
	int ramp_dom[2]; /* the ramps shown, in order */
	double median_abs_error, max_abs_error, median_abs_before, max_abs_before;
	struct paste cluster;
};

/* `v` x scale with UNIT ("GB/s", "us"; "" for a plain number) in the
 * fewest digits, six at least, that read back as v: calibrate.c rounds
 * what it fits to six, and a value from the config keeps its own. */
static void exact_text(char *buf, size_t len, double v, double scale, const char *unit)
{
	for (int prec = 6; prec <= 17; prec++) {
		char err[128];
		double q = 0;
		int rc;
		snprintf(buf, len, "%.*g%s%s", prec, v * scale, *unit ? " " : "", unit);
		rc = !*unit			  ? (q = strtod(buf, NULL), 0)
		     : strcmp(unit, "GB/s") == 0 ? dc_units_parse_bandwidth(buf, &q, err, sizeof(err))
						  : dc_units_parse_time(buf, &q, err, sizeof(err));
		if (rc == 0 && q == v)
			return;
	}
}

/* One link as a config writes it, to the six digits calibrate.c rounded
 * every fitted value to (so the text reads back as the run's value): its
 * ramp when it has one; across nodes, the plugin latency the run used,
 * fitted or cluster.network's. */
static void link_text(const struct dc_config *in, int inter, struct paste_link *p)
{
	const struct dc_link *l = inter ? &in->cluster.inter_node : &in->cluster.intra_node;
	const double *ramp = in->cluster.bw_ramp[inter];
	size_t n = 0;
	int any = 0;
	exact_text(p->bandwidth, sizeof(p->bandwidth), l->bw_bytes_per_s, 1e-9, "GB/s");
	exact_text(p->latency, sizeof(p->latency), l->latency_s, 1e6, "us");
	p->inter = inter;
	exact_text(p->plugin_latency, sizeof(p->plugin_latency),
		   in->cluster.plugin_latency_fitted ? in->cluster.plugin_latency_s
						     : dc_net_fabric_latency(in->cluster.network),
		   1e6, "us");
	for (int k = 0; k < DC_NET_RAMP_KNOTS; k++)
		any |= ramp[k] != 0;
	p->ramp[0] = '\0';
	for (int k = 0; any && k < DC_NET_RAMP_KNOTS && n + 32 < sizeof(p->ramp); k++) {
		char num[32];
		exact_text(num, sizeof(num), ramp[k], 1, "");
		n += (size_t)snprintf(p->ramp + n, sizeof(p->ramp) - n, "%s%s%s", k ? ", " : "[", num,
				      k + 1 == DC_NET_RAMP_KNOTS ? "]" : "");
	}
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_calibration *c = run->info->calibration;
	const struct dc_config *in = run->plan->in;
	v->cal = c;
	if (!c)
		return;
	v->fitted = c->fit_intra && c->fit_inter
			    ? "intra_node and inter_node bandwidth and latency, the network plugin's latency, both bandwidth "
			      "ramps"
		    : c->fit_inter ? "inter_node bandwidth and latency, the network plugin's latency, the network's bandwidth ramp"
				   : "intra_node bandwidth and latency, NVLink's bandwidth ramp";
	v->nvlink = c->nvlink_kept ? "kept as configured: no one-node log" : "fitted from the one-node logs";
	v->verdict = c->nwarnings ? "do not paste the cluster below as it is: see the warnings"
		     : c->nnotes  ? "no warnings: the cluster below may be pasted into a config; the notes say how "
				    "a restricted log's own sizes price here"
				  : "no warnings: the cluster below may be pasted into a config";
	v->nwarnings = c->nwarnings;
	v->nnotes = c->nnotes;
	v->plugin_before = c->plugin_before;
	v->plugin_after = c->plugin_after;
	v->nramp = 0;
	if (c->fit_intra)
		v->ramp_dom[v->nramp++] = 0;
	if (c->fit_inter)
		v->ramp_dom[v->nramp++] = 1;
	v->nramp *= DC_NET_RAMP_KNOTS;
	/* a ramp fitted on the logs' ops and shapes prices every call of its
	 * link (net.c dc_net_ramp_factor): said, not hidden */
	v->ramp_scope = "every call on its link (inside a node, across nodes), whatever its op and group; the logs "
			"below measured their own ops and shapes only (docs/network-model.md, \"The fitted bandwidth "
			"ramp\")";
	v->nvls = c->nvls_before == c->nvls_after ? (c->nvls_after ? "on (fits better than off)" : "off")
		  : "turned off: the logs fit better without NVLS";
	v->nlogs = c->nlogs;
	v->npoints = c->npoints;
	v->median_abs_error = c->median_abs_error;
	v->max_abs_error = c->max_abs_error;
	v->median_abs_before = c->median_abs_before;
	v->max_abs_before = c->max_abs_before;
	v->cluster.system = dc_system_name(in->cluster.system);
	v->cluster.num_nodes = in->cluster.num_nodes;
	v->cluster.gpus_per_node = in->cluster.gpus_per_node;
	v->cluster.nvlink_domain = in->cluster.nvlink_domain;
	v->cluster.nics_per_node = in->cluster.nics_per_node;
	v->cluster.nvls = in->cluster.nvls;
	/* every other key the network model reads, as the run resolved it,
	 * so the object prices as this run also without cluster.system's
	 * preset (a value equal to the preset's is no override) */
	v->cluster.gpu = in->cluster.gpu != DC_GPU_NONE ? dc_gpu_name(in->cluster.gpu) : NULL;
	v->cluster.network = dc_network_name(in->cluster.network);
	v->cluster.nic_path = dc_nic_path_name(in->cluster.nic_path);
	v->cluster.collnet = in->cluster.collnet;
	v->cluster.nccl_channels = in->cluster.nccl_channels;
	v->cluster.oversubscription = in->cluster.oversubscription;
	v->cluster.nodes_per_leaf = in->cluster.nodes_per_leaf;
	if (in->cluster.gpu_mem_bytes % (1ull << 30) == 0)
		dc_text_fmt(v->cluster.gpu_memory, sizeof(v->cluster.gpu_memory), "%llu GiB",
			    (unsigned long long)(in->cluster.gpu_mem_bytes >> 30));
	else
		dc_text_fmt(v->cluster.gpu_memory, sizeof(v->cluster.gpu_memory), "%llu B",
			    (unsigned long long)in->cluster.gpu_mem_bytes);
	link_text(in, 0, &v->cluster.intra_node);
	link_text(in, 1, &v->cluster.inter_node);
}

struct log_row {
	uint64_t index, ranks, nodes, ranks_per_node, rows;
	const char *name, *op, *op_from, *algorithm, *algorithm_from, *protocols, *protocols_from;
	double median_abs_error, max_abs_error;
};

static uint64_t log_count(const void *base)
{
	return ((const struct view *)base)->nlogs;
}

static void log_row(const void *base, uint64_t i, void *out)
{
	const struct dc_calib_log *l = &((const struct view *)base)->cal->logs[i];
	struct log_row *r = out;
	r->index = i;
	/* the file's own name: the table's columns then keep their width
	 * wherever the logs live (the CLI goldens run from any checkout) */
	r->name = strrchr(l->name, '/') ? strrchr(l->name, '/') + 1 : l->name;
	r->op = dc_nccl_op_name(l->op);
	r->op_from = l->op_source;
	r->ranks = l->ranks;
	r->nodes = l->nodes;
	r->ranks_per_node = l->ranks_per_node;
	r->rows = l->rows;
	r->algorithm = l->algorithm;
	r->algorithm_from = l->algorithm_from;
	r->protocols_from = l->protocols_from;
	r->protocols = l->protocols;
	r->median_abs_error = l->median_abs_error;
	r->max_abs_error = l->max_abs_error;
}

#define L(m) offsetof(struct log_row, m)
static const struct dc_field log_fields[] = {
	{"log", "log", DC_U_COUNT, DC_FT_U64, L(index)},
	{"file", "file", DC_U_NONE, DC_FT_STR, L(name)},
	{"op", "collective", DC_U_NONE, DC_FT_STR, L(op)},
	{"op_from", "named by", DC_U_NONE, DC_FT_STR, L(op_from)},
	{"ranks", "ranks", DC_U_COUNT, DC_FT_U64, L(ranks)},
	{"hosts", "hosts", DC_U_COUNT, DC_FT_U64, L(nodes)},
	{"ranks_per_host", "ranks per host", DC_U_COUNT, DC_FT_U64, L(ranks_per_node)},
	{"rows", "rows", DC_U_COUNT, DC_FT_U64, L(rows)},
	{"algorithm", "algorithm", DC_U_NONE, DC_FT_STR, L(algorithm)},
	{"algorithm_from", "as", DC_U_NONE, DC_FT_STR, L(algorithm_from)},
	{"protocols", "protocols", DC_U_NONE, DC_FT_STR, L(protocols)},
	{"protocols_from", "as", DC_U_NONE, DC_FT_STR, L(protocols_from)},
	{"median_abs_error", "median |error|", DC_U_RATIO, DC_FT_F64, L(median_abs_error)},
	{"max_abs_error", "largest |error|", DC_U_RATIO, DC_FT_F64, L(max_abs_error)},
};
static const struct dc_fields log_table = DC_FIELDS(log_fields);
static const struct dc_rows log_rows = {log_count, log_row, sizeof(struct log_row), "logs"};

struct point_row {
	uint64_t log, size_bytes, line;
	double measured_s, predicted_s, residual_s, error, before_s, before_error;
	const char *algorithm, *protocol;
};

static uint64_t point_count(const void *base)
{
	return ((const struct view *)base)->npoints;
}

static void point_row(const void *base, uint64_t i, void *out)
{
	const struct dc_calib_point *p = &((const struct view *)base)->cal->points[i];
	struct point_row *r = out;
	r->log = p->log;
	r->line = p->line;
	r->size_bytes = p->size_bytes;
	r->measured_s = p->measured_s;
	r->predicted_s = p->predicted_s;
	r->residual_s = p->residual_s;
	r->error = p->error;
	r->before_s = p->before_s;
	r->before_error = p->before_error;
	r->algorithm = p->algorithm;
	r->protocol = p->protocol;
}

#define P(m) offsetof(struct point_row, m)
static const struct dc_field point_fields[] = {
	{"log", "log", DC_U_COUNT, DC_FT_U64, P(log)},
	{"line", "line", DC_U_COUNT, DC_FT_U64, P(line)},
	{"size_bytes", "size", DC_U_BYTES_RAW, DC_FT_U64, P(size_bytes)},
	{"measured_s", "measured", DC_U_SECONDS_US, DC_FT_F64, P(measured_s)},
	{"predicted_s", "fitted", DC_U_SECONDS_US, DC_FT_F64, P(predicted_s)},
	{"residual_s", "residual", DC_U_SECONDS_US, DC_FT_F64, P(residual_s)},
	{"error", "error", DC_U_RATIO, DC_FT_F64, P(error)},
	{"before_s", "before", DC_U_SECONDS_US, DC_FT_F64, P(before_s)},
	{"before_error", "error before", DC_U_RATIO, DC_FT_F64, P(before_error)},
	{"algorithm", "algorithm", DC_U_NONE, DC_FT_STR, P(algorithm)},
	{"protocol", "protocol", DC_U_NONE, DC_FT_STR, P(protocol)},
};
static const struct dc_fields point_table = DC_FIELDS(point_fields);
static const struct dc_rows point_rows = {point_count, point_row, sizeof(struct point_row), "sizes"};

struct warning_row {
	uint64_t index;
	const char *text;
};

static uint64_t warning_count(const void *base)
{
	return ((const struct view *)base)->nwarnings;
}

static void warning_row(const void *base, uint64_t i, void *out)
{
	struct warning_row *r = out;
	r->index = i;
	r->text = ((const struct view *)base)->cal->warnings[i];
}

#define W(m) offsetof(struct warning_row, m)
static const struct dc_field warning_fields[] = {
	{"index", "#", DC_U_COUNT, DC_FT_U64, W(index)},
	{"warning", "warning", DC_U_NONE, DC_FT_STR, W(text)},
};
static const struct dc_fields warning_table = DC_FIELDS(warning_fields);
static const struct dc_rows warning_rows = {warning_count, warning_row, sizeof(struct warning_row), "warnings"};

static uint64_t note_count(const void *base)
{
	return ((const struct view *)base)->nnotes;
}

static void note_row(const void *base, uint64_t i, void *out)
{
	struct warning_row *r = out;
	r->index = i;
	r->text = ((const struct view *)base)->cal->notes[i];
}

static const struct dc_field note_fields[] = {
	{"index", "#", DC_U_COUNT, DC_FT_U64, W(index)},
	{"note", "note", DC_U_NONE, DC_FT_STR, W(text)},
};
static const struct dc_fields note_table = DC_FIELDS(note_fields);
static const struct dc_rows note_rows = {note_count, note_row, sizeof(struct warning_row), "notes"};

static int notes_shown(const void *base)
{
	return ((const struct view *)base)->nnotes > 0;
}

/* The fitted ramps: the bandwidth factor at each knot (net.h). */
struct ramp_row {
	const char *link;
	uint64_t size_bytes;
	double factor;
};

static uint64_t ramp_count(const void *base)
{
	return ((const struct view *)base)->nramp;
}

static void ramp_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	struct ramp_row *r = out;
	int dom = v->ramp_dom[i / DC_NET_RAMP_KNOTS], k = (int)(i % DC_NET_RAMP_KNOTS);
	r->link = dom ? "across nodes" : "in one node";
	r->size_bytes = 1ull << (DC_NET_RAMP_LOG2_FIRST + DC_NET_RAMP_LOG2_STEP * k);
	r->factor = v->cal->ramp_after[dom][k];
}

#define R(m) offsetof(struct ramp_row, m)
static const struct dc_field ramp_fields[] = {
	{"calls", "calls", DC_U_NONE, DC_FT_STR, R(link)},
	{"size_bytes", "size", DC_U_BYTES_RAW, DC_FT_U64, R(size_bytes)},
	{"factor", "bandwidth factor", DC_U_RATIO, DC_FT_F64, R(factor)},
};
static const struct dc_fields ramp_table = DC_FIELDS(ramp_fields);
static const struct dc_rows ramp_rows = {ramp_count, ramp_row, sizeof(struct ramp_row), "ramp"};

static int link_inter(const void *base)
{
	return ((const struct paste_link *)base)->inter;
}

static int has_ramp(const void *base)
{
	return ((const struct paste_link *)base)->ramp[0] != '\0';
}

static void ramp_text(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct paste_link *)base)->ramp);
}

#define K(m) offsetof(struct paste_link, m)
static const struct dc_field link_fields[] = {
	{"bandwidth", "bandwidth", DC_U_NONE, DC_FT_TEXT, K(bandwidth)},
	{"latency", "latency", DC_U_NONE, DC_FT_TEXT, K(latency)},
	{"plugin_latency", "plugin_latency", DC_U_NONE, DC_FT_TEXT, K(plugin_latency), .shown = link_inter},
	{"ramp", "ramp", DC_U_NONE, DC_FT_FN, 0, .text = ramp_text, .shown = has_ramp, .json_value = 1},
};
static const struct dc_fields link_obj = DC_FIELDS(link_fields);

static int has_gpu(const void *base)
{
	return ((const struct paste *)base)->gpu != NULL;
}

static int has_channels(const void *base)
{
	return ((const struct paste *)base)->nccl_channels != 0; /* 0: NCCL's default, derived */
}

#define C(m) offsetof(struct paste, m)
static const struct dc_field cluster_fields[] = {
	{"system", "system", DC_U_NONE, DC_FT_STR, C(system)},
	{"num_nodes", "num_nodes", DC_U_COUNT, DC_FT_U64, C(num_nodes)},
	{"gpus_per_node", "gpus_per_node", DC_U_COUNT, DC_FT_U64, C(gpus_per_node)},
	{"gpu_memory", "gpu_memory", DC_U_NONE, DC_FT_TEXT, C(gpu_memory)},
	{"nvlink_domain", "nvlink_domain", DC_U_COUNT, DC_FT_U64, C(nvlink_domain)},
	{"nics_per_node", "nics_per_node", DC_U_COUNT, DC_FT_U64, C(nics_per_node)},
	{"nvls", "nvls", DC_U_NONE, DC_FT_BOOL, C(nvls)},
	{"gpu", "gpu", DC_U_NONE, DC_FT_STR, C(gpu), .shown = has_gpu},
	{"network", "network", DC_U_NONE, DC_FT_STR, C(network)},
	{"nic_path", "nic_path", DC_U_NONE, DC_FT_STR, C(nic_path)},
	{"collnet", "collnet", DC_U_NONE, DC_FT_BOOL, C(collnet)},
	{"nccl_channels", "nccl_channels", DC_U_COUNT, DC_FT_U64, C(nccl_channels), .shown = has_channels},
	{"oversubscription", "oversubscription", DC_U_NONE, DC_FT_F64, C(oversubscription)},
	{"nodes_per_leaf", "nodes_per_leaf", DC_U_COUNT, DC_FT_U64, C(nodes_per_leaf)},
	{"intra_node", "intra_node", DC_U_NONE, DC_FT_OBJECT, C(intra_node), .sub = &link_obj},
	{"inter_node", "inter_node", DC_U_NONE, DC_FT_OBJECT, C(inter_node), .sub = &link_obj},
};
static const struct dc_fields cluster_obj = DC_FIELDS(cluster_fields);

static int ramp_shown(const void *base)
{
	return ((const struct view *)base)->nramp > 0;
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"fitted", "fitted", DC_U_NONE, DC_FT_STR, V(fitted)},
	{"nvlink", "NVLink", DC_U_NONE, DC_FT_STR, V(nvlink)},
	{"nvls", "NVLS (cluster.nvls)", DC_U_NONE, DC_FT_STR, V(nvls)},
	{"plugin_latency_s", "plugin latency per hop", DC_U_SECONDS_US, DC_FT_F64,
	 V(plugin_after)},
	{"plugin_latency_before_s", "plugin latency before", DC_U_SECONDS_US, DC_FT_F64,
	 V(plugin_before)},
	{"verdict", "verdict", DC_U_NONE, DC_FT_STR, V(verdict)},
	{"ramp_applies_to", "a fitted ramp prices", DC_U_NONE, DC_FT_STR, V(ramp_scope), .shown = ramp_shown},
	{"median_abs_error", "median |error| after the fit", DC_U_RATIO, DC_FT_F64, V(median_abs_error)},
	{"max_abs_error", "largest |error| after the fit", DC_U_RATIO, DC_FT_F64, V(max_abs_error)},
	{"median_abs_error_before", "median |error| before", DC_U_RATIO, DC_FT_F64, V(median_abs_before)},
	{"max_abs_error_before", "largest |error| before", DC_U_RATIO, DC_FT_F64, V(max_abs_before)},
	{"warnings", "Warnings", DC_U_NONE, DC_FT_ROWS, 0, .sub = &warning_table, .rows = &warning_rows},
	{"notes", "Notes (the fit holds)", DC_U_NONE, DC_FT_ROWS, 0, .sub = &note_table, .rows = &note_rows,
	 .shown = notes_shown},
	{"cluster", "Fitted cluster", DC_U_NONE, DC_FT_OBJECT, V(cluster), .sub = &cluster_obj},
	{"ramp", "Fitted bandwidth ramp (cluster.intra_node.ramp, cluster.inter_node.ramp)", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &ramp_table, .rows = &ramp_rows},
	{"logs", "Logs read", DC_U_NONE, DC_FT_ROWS, 0, .sub = &log_table, .rows = &log_rows},
	{"sizes", "Measured and predicted time, every size", DC_U_NONE, DC_FT_ROWS, 0, .sub = &point_table,
	 .rows = &point_rows},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_calibration = {
	"calibration", "Calibration (--calibrate)",
	"with --calibrate: the fitted links, the cluster object to paste, measured vs predicted time per size",
	0, sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
