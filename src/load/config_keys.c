/* config_keys.c - the loader's key table: every key's path, kind, bounds,
 * default, unit, one-line doc and where it lands in struct dc_config, one
 * row each (config_keys.def), in docs/config.md's order; the value names of
 * every enum key; the read-only key API (config.h). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/section.h" /* dc_fmt_double */
#include "distcalc/util.h"

#include "config_int.h"

static const char *const mlp_names[] = {"swiglu", "gelu", NULL};
static const char *const norm_names[] = {"rmsnorm", "layernorm", NULL};
const char *const dc_cfg_sharding_names[] = {"none", "zero1", "zero2", "fsdp", NULL};
static const char *const ep_overlap_names[] = {"none", "a2a_1f1b", "dualpipe", NULL};
/* enum dc_pipe_schedule order */
const char *const dc_cfg_pipe_schedule_names[] = {"1f1b", "interleaved", "dualpipe", "dualpipev", "zero_bubble", NULL};
static const char *const fsdp_unit_names[] = {"layer", "model", NULL};
static const char *const offload_names[] = {"none", "optimizer", "optimizer+params", NULL};
const char *const dc_cfg_recompute_names[] = {"none", "selective", "full", "op", NULL};
/* enum dc_recompute_module order: Megatron-Core's names */
const char *const dc_cfg_recompute_module_names[] = {"core_attn", "mlp", "moe", "moe_act", "layernorm",
						     "mla_up_proj", "shared_experts", NULL};
/* enum dc_net_proto order */
const char *const dc_cfg_protocol_names[] = {"ll", "ll128", "simple", NULL};

/* The names of mask's bits as a JSON list, in `names` order */
static void names_text(const char *const *names, uint32_t mask, char *buf, size_t len)
{
	size_t at = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; names[i]; i++) {
		int w;
		if (!(mask & (1u << i)))
			continue;
		w = snprintf(buf + at, len - at, "%s\"%s\"", at ? ", " : "[", names[i]);
		if (w < 0 || (size_t)w >= len - at)
			return;
		at += (size_t)w;
	}
	if (at)
		snprintf(buf + at, len - at, "]");
}

void dc_protocols_text(uint32_t mask, char *buf, size_t len)
{
	names_text(dc_cfg_protocol_names, mask, buf, len);
}

void dc_recompute_modules_text(uint32_t mask, char *buf, size_t len)
{
	names_text(dc_cfg_recompute_module_names, mask, buf, len);
}
static const char *const attention_names[] = {"flash", "eager", NULL};
/* enum dc_framework order */
static const char *const framework_names[] = {"custom", "megatron", "torchtitan", "deepspeed", NULL};
static const char *const preset_names[] = {"course", "megatron", "fsdp2", "deepseek_v3", NULL};
static const char *const link_names[] = {"auto", "intra_node", "inter_node", NULL};
const char *const dc_cfg_axis_names[] = {"tp", "cp", "ep", "dp", "pp", NULL};
static const char *const collective_op_names[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
						  "broadcast", "send_recv", NULL};
/* enum dc_dtype order: nccl-tests' -d names (src/common.cu test_typenames) */
static const char *const dtype_names[] = {"int8",  "uint8", "int32",  "uint32",   "int64",  "uint64",
					  "half",  "float", "double", "bfloat16", "f8e4m3", "f8e5m2", NULL};
/* enum dc_system, enum dc_nic_path and enum dc_net_algo order */
static const char *const system_names[] = {"custom",      "dgx-a100",        "dgx-h100",   "dgx-h200",
					   "dgx-b200",    "gb200-nvl72",     "hgx-h800",   "aws-p5",
					   "aws-p5e",     "gcp-a3-mega",     "azure-nd-h100-v5", "oci-bm-gpu-h100",
					   NULL};
static const char *const nic_path_names[] = {"pix", "pxb", "phb", "sys", NULL};
static const char *const algorithm_names[] = {"auto", "ring", "hierarchical", "tree", "nvls", "pat", NULL};
/* enum dc_network order */
static const char *const network_names[] = {"ib", "roce", "efa", "tcpxo", NULL};
/* in enum dc_gpu's order after DC_GPU_NONE */
static const char *const gpu_names[] = {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h100-nvl-94gb",
					"h100-pcie-80gb", "h800-sxm5-80gb", "h200-sxm-141gb", "gh200-96gb",
					"b200-sxm-180gb", "gb200", NULL};
/* enum dc_attention_backend, dc_fp8_recipe and dc_attention_precision order */
static const char *const attention_backend_names[] = {"eager", "sdpa", "cudnn", "fa3", NULL};
/* enum dc_moe_dispatcher order */
static const char *const moe_dispatcher_names[] = {"alltoall", "deepep", NULL};
static const char *const optimizer_impl_names[] = {"fused", "foreach", NULL};
static const char *const fp8_recipe_names[] = {"delayed", "current", "rowwise", "mxfp8", NULL};
static const char *const attention_precision_names[] = {"bf16", "fp8", NULL};
static const char *const compute_precision_names[] = {"bf16", "fp8", NULL};
static const char *const cp_comm_names[] = {"p2p", "all_gather", "a2a", NULL};
static const char *const slow_scope_names[] = {"node", "all", NULL};
static const char *const ckpt_format_names[] = {"sharded", "full", NULL};
static const char *const ckpt_gather_names[] = {"cpu", "gpu", NULL};
static const char *const loss_mode_names[] = {"padding", "packing", NULL};
static const char *const objective_names[] = {"tokens_per_s", "memory", NULL};

#define OFF(field) offsetof(struct dc_config, field)
#define NOFF ((size_t)-1)
#define MiB (1024.0 * 1024.0)
#define OPT DC_KEY_OPTIONAL
#define REQ DC_KEY_REQUIRED
#define REQ_HF DC_KEY_REQUIRED_UNLESS_HF
#define REQ_SYS DC_KEY_REQUIRED_UNLESS_SYSTEM
#define REQ_GPU DC_KEY_REQUIRED_UNLESS_GPU

/* One macro per kind, so a kind's name, bounds and checks cannot disagree.
 * `def, text`: the default's value and what a user writes for it (or 0 and
 * "derived: ..."); `unit`: what a plain number means. */
#define ROW(path, kname, unit, text, bounds, doc, choices, need, kind, off, lo, hi, lo_open, def) \
	{{path, kname, unit, text, bounds, doc, choices, need}, kind, off, lo, hi, lo_open, def}
#define SECTION(path, need, doc) ROW(path, "section", "", "", "", doc, NULL, need, K_SECTION, NOFF, 0, 0, 0, 0)
/* every string value, of any kind, is at most DC_CONFIG_MAX_STRING bytes (read_value) */
#define STRING(path, doc) ROW(path, "string", "", "", "≤ 256 bytes", doc, NULL, OPT, K_STRING, NOFF, 0, 0, 0, 0)
#define COUNT(path, field, need, def, text, unit, doc) \
	ROW(path, "count", unit, text, "≥ 1", doc, NULL, need, K_COUNT, OFF(field), 1, DC_MAX_EXACT_INT, 0, def)
/* a count, or "auto" for the value the loader would derive without it */
#define COUNT_AUTO(path, field, need, def, text, unit, doc)                                                   \
	ROW(path, "count or \"auto\"", unit, text, "≥ 1", doc, NULL, need, K_COUNT_AUTO, OFF(field), 1, \
	    DC_MAX_EXACT_INT, 0, def)
#define UINT(path, field, def, text, unit, doc) \
	ROW(path, "integer", unit, text, "≥ 0", doc, NULL, OPT, K_UINT, OFF(field), 0, DC_MAX_EXACT_INT, 0, def)
#define BYTES(path, field, def, text, doc) \
	ROW(path, "bytes", "bytes", text, "≥ 0", doc, NULL, OPT, K_BYTES, OFF(field), 0, DC_MAX_EXACT_INT, 0, def)
#define BYTES_POS(path, field, need, def, text, doc)                                                   \
	ROW(path, "bytes", "bytes", text, "≥ 1", doc, NULL, need, K_BYTES_POS, OFF(field), 1, DC_MAX_EXACT_INT, \
	    0, def)
/* A bandwidth of at least 1 B/s and below 10^18 B/s (1 EB/s), a time
 * below an hour: every time a result holds is then a finite multiple of
 * bytes / bandwidth + latency, and every rate a finite ratio (the runner
 * checks each number is finite, experiment.c) */
#define BW(path, field, need, doc)                                                                      \
	ROW(path, "bandwidth", "bytes/s", "", "≥ 1 and < 10^18", doc, NULL, need, K_BW, OFF(field), 1, 1e18, 0, \
	    0)
#define TIME(path, field, def, text, doc) \
	ROW(path, "time", "s", text, "≥ 0 and < 3600", doc, NULL, OPT, K_TIME, OFF(field), 0, 3600, 0, def)
#define BOOL(path, field, def, text, doc) \
	ROW(path, "boolean", "", text, "", doc, NULL, OPT, K_BOOL, OFF(field), 0, 0, 0, def)
#define ENUM(path, field, names, def, text, doc) \
	ROW(path, "enum", "", text, "", doc, names, OPT, K_ENUM, OFF(field), 0, 0, 0, def)
#define ORDER(path, text, doc) ROW(path, "string", "", text, "", doc, NULL, OPT, K_ORDER, NOFF, 0, 0, 0, 0)
#define FRACTION(path, field, def, text, doc) \
	ROW(path, "fraction", "", text, "[0, 1)", doc, NULL, OPT, K_FRACTION, OFF(field), 0, 1, 0, def)
#define LIST(path, doc)                                                                                 \
	ROW(path, "list", "", "", "each ≥ 1, at most 256", doc, NULL, OPT, K_LIST, NOFF, 1, DC_MAX_EXACT_INT, 0, 0)
/* search.space: lists that restrict one dimension of the layout search */
#define VALUES(path, field, doc)                                                                            \
	ROW(path, "list", "", "", "each ≥ 1, at most 32", doc, NULL, OPT, K_VALUES, OFF(field), 1, DC_MAX_EXACT_INT, \
	    0, 0)
/* the size factor's knots (net.h): exactly DC_NET_RAMP_KNOTS numbers in
 * (0, 1] into a double[DC_NET_RAMP_KNOTS]; all 0 (left out): no factor */
#define RAMP(path, field, doc)                                                                          \
	ROW(path, "list", "", "", "5 numbers, each ≥ 0.001 and ≤ 1", doc, NULL, OPT, K_RAMP, OFF(field), 0, 1, 1, \
	    0)
#define CHOICES(path, field, names, bounds, doc) \
	ROW(path, "list", "", "", bounds, doc, NULL, OPT, K_CHOICES, OFF(field), 0, 0, 0, 0)
#define BOOLS(path, field, doc) \
	ROW(path, "list", "", "", "true, false", doc, NULL, OPT, K_BOOLS, OFF(field), 0, 0, 0, 0)
#define REAL(path, field, def, text, unit, doc) \
	ROW(path, "number", unit, text, "≥ 0", doc, NULL, OPT, K_REAL, OFF(field), 0, INFINITY, 0, def)
/* A GPU speed the cluster.gpu preset fills unless given: at least 1 and
 * below 10^18 per second, as a link's bandwidth, so every kernel time is a
 * finite multiple of FLOPs / peak + bytes / bandwidth */
#define PRESET_BW(path, field, doc)                                                                          \
	ROW(path, "bandwidth", "bytes/s", "derived: the cluster.gpu preset", "≥ 1 and < 10^18", doc, NULL, OPT, \
	    K_BW, OFF(field), 1, 1e18, 0, 0)
#define PRESET_FLOPS(path, field, doc)                                                                             \
	ROW(path, "FLOP rate", "FLOP/s", "derived: the cluster.gpu preset", "≥ 1 and < 10^18", doc, NULL, OPT, K_REAL, \
	    OFF(field), 1, 1e18, 0, 0)

/* Table order is docs/config.md's order, and the unknown-key suggestions
 * prefer the earlier of two keys as close as each other. The rows are
 * config_keys.def's, whose ids (enum key_id) index this table. */
const struct key dc_cfg_keys[KEY_COUNT] = {
#define KEY(id, row) [id] = row,
#include "config_keys.def"
#undef KEY
};

const char *dc_sharding_name(enum dc_sharding s)
{
	return dc_cfg_sharding_names[s];
}

const char *dc_axis_name(enum dc_axis a)
{
	return dc_cfg_axis_names[a];
}

const char *dc_cp_comm_name(enum dc_cp_comm c)
{
	return cp_comm_names[c];
}

const char *dc_ckpt_format_name(enum dc_ckpt_format f)
{
	return ckpt_format_names[f];
}

const char *dc_ckpt_gather_name(enum dc_ckpt_gather g)
{
	return ckpt_gather_names[g];
}

const char *dc_loss_mode_name(enum dc_loss_mode m)
{
	return loss_mode_names[m];
}

const char *dc_search_objective_name(enum dc_search_objective o)
{
	return objective_names[o];
}

const char *dc_pipe_schedule_name(enum dc_pipe_schedule s)
{
	return dc_cfg_pipe_schedule_names[s];
}

const char *dc_recompute_name(enum dc_recompute r)
{
	return dc_cfg_recompute_names[r];
}

uint32_t dc_search_recompute_mask(const struct dc_config *c)
{
	if (c->search.recompute_mask)
		return c->search.recompute_mask;
	return (1u << DC_RECOMPUTE_NONE) | (1u << DC_RECOMPUTE_FULL) |
	       (1u << (c->training.framework == DC_FRAMEWORK_TORCHTITAN ? DC_RECOMPUTE_OP : DC_RECOMPUTE_SELECTIVE));
}

uint32_t dc_recompute_modules(const struct dc_config *c)
{
	if (c->training.recompute != DC_RECOMPUTE_SELECTIVE)
		return 0;
	return c->training.recompute_modules_mask ? c->training.recompute_modules_mask : DC_RCM(DC_RCM_CORE_ATTN);
}

const char *dc_collective_op_name(enum dc_collective_op op)
{
	return collective_op_names[op];
}

const char *dc_dtype_name(enum dc_dtype t)
{
	return dtype_names[t];
}

uint64_t dc_dtype_bytes(enum dc_dtype t)
{
	static const uint64_t bytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
	return (unsigned)t < sizeof(bytes) / sizeof(bytes[0]) ? bytes[t] : 4;
}

const char *dc_network_name(enum dc_network n)
{
	return network_names[n];
}

const char *dc_system_name(enum dc_system s)
{
	return system_names[s];
}

const char *dc_nic_path_name(enum dc_nic_path p)
{
	return nic_path_names[p];
}

const char *dc_attention_name(enum dc_attention a)
{
	return attention_names[a];
}

const char *dc_framework_name(enum dc_framework f)
{
	return framework_names[f];
}

const char *dc_precision_preset_name(enum dc_precision_preset p)
{
	return preset_names[p];
}

const char *dc_offload_name(enum dc_offload o)
{
	return offload_names[o];
}

const char *dc_norm_name(enum dc_norm n)
{
	return norm_names[n];
}

const char *dc_gpu_name(enum dc_gpu g)
{
	return g == DC_GPU_NONE || g >= DC_GPU_COUNT ? "" : gpu_names[g - 1];
}

enum dc_gpu_arch dc_gpu_arch(enum dc_gpu g)
{
	switch (g) {
	case DC_GPU_A100_SXM4_40GB:
	case DC_GPU_A100_SXM4_80GB:
		return DC_GPU_ARCH_AMPERE;
	case DC_GPU_H100_SXM5_80GB:
	case DC_GPU_H100_NVL_94GB:
	case DC_GPU_H100_PCIE_80GB:
	case DC_GPU_H800_SXM5_80GB:
	case DC_GPU_H200_SXM_141GB:
	case DC_GPU_GH200_96GB:
		return DC_GPU_ARCH_HOPPER;
	case DC_GPU_B200_SXM_180GB:
	case DC_GPU_GB200:
		return DC_GPU_ARCH_BLACKWELL;
	case DC_GPU_NONE:
	case DC_GPU_COUNT:
		break;
	}
	return DC_GPU_ARCH_UNKNOWN;
}

const char *dc_moe_dispatcher_name(enum dc_moe_dispatcher d)
{
	return d < DC_MOE_DISPATCH_COUNT ? moe_dispatcher_names[d] : "";
}

const char *dc_attention_backend_name(enum dc_attention_backend b)
{
	return b < DC_ATTN_BACKEND_COUNT ? attention_backend_names[b] : "";
}

const char *dc_fp8_recipe_name(enum dc_fp8_recipe r)
{
	return (size_t)r < sizeof(fp8_recipe_names) / sizeof(fp8_recipe_names[0]) - 1 ? fp8_recipe_names[r] : "";
}

const char *dc_compute_precision_name(enum dc_compute_precision c)
{
	return compute_precision_names[c];
}

const char *dc_link_choice_name(enum dc_link_choice l)
{
	return link_names[l];
}

/* ---- the key table, read-only (config.h) ---- */

size_t dc_config_key_count(void)
{
	return NKEYS;
}

const struct dc_config_key_info *dc_config_key_at(size_t i)
{
	return i < NKEYS ? &dc_cfg_keys[i].info : NULL;
}

const struct dc_config_key_info *dc_config_key_find(const char *path)
{
	int ki = dc_cfg_find_key(path);
	return ki < 0 ? NULL : &dc_cfg_keys[ki].info;
}


/* ---- values and where they came from (config.h) ---- */

_Static_assert(KEY_COUNT <= DC_CONFIG_MAX_KEYS, "raise DC_CONFIG_MAX_KEYS");

int dc_config_key_index(const char *path)
{
	return dc_cfg_find_key(path);
}

/* The shortest text that reads back as v (15 to 17 digits). */
/* a, b and c one after another into buf[len], cut at len - 1 bytes as
 * snprintf("%s%s%s") would: the key table's texts without printf */
static void put3(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	const char *part[3] = {a, b, c};
	size_t o = 0;
	if (!len)
		return;
	for (int i = 0; i < 3; i++)
		for (const char *p = part[i]; *p && o + 1 < len; p++)
			buf[o++] = *p;
	buf[o] = '\0';
}

static void real_text(char *buf, size_t len, double v)
{
	/* the sinks' formatter gives this loop's text for every finite
	 * non-zero double (fmt.c; check_report.c compares the two on a
	 * million doubles), without printf on its fast paths */
	if (v != 0 && isfinite(v) && len >= 32) {
		dc_fmt_double(buf, len, v);
		return;
	}
	if (v == 0 && !signbit(v)) { /* "%.15g" of 0; -0 keeps its sign below */
		put3(buf, len, "0", "", "");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

int dc_config_key_has_value(const struct dc_config *c, size_t i)
{
	const struct key *k;
	int e, n = 0;
	if (i >= NKEYS)
		return 0;
	k = &dc_cfg_keys[i];
	if (i == KEY_MODEL_HF_CONFIG || i == KEY_CLUSTER_TOPOLOGY_FILE)
		return 1;
	if (k->off == NOFF)
		return 0;
	/* cluster.network's latency, unless a config or a fit gave one: the
	 * cluster section then shows no row for it, as before the key */
	if (i == KEY_CLUSTER_INTER_NODE_PLUGIN_LATENCY)
		return c->cluster.plugin_latency_fitted != 0;
	switch (k->kind) {
	case K_RAMP:
		for (int j = 0; j < DC_NET_RAMP_KNOTS; j++) {
			double d;
			memcpy(&d, (const char *)c + k->off + (size_t)j * sizeof(d), sizeof(d));
			if (d != 0)
				return 1;
		}
		return 0;
	case K_COUNT:
	case K_COUNT_AUTO: /* "auto" is derived to a count when loaded */
	case K_UINT:
	case K_BYTES:
	case K_BYTES_POS:
	case K_BW:
	case K_TIME:
	case K_FRACTION:
	case K_REAL:
	case K_BOOL:
		return 1;
	case K_ENUM:
	case K_GPU:
		memcpy(&e, (const char *)c + k->off, sizeof(e));
		if (k->kind == K_GPU) {
			if (e == 0)
				return 1; /* null */
			e--;
		}
		while (k->info.choices[n])
			n++;
		return e >= 0 && e < n;
	default:
		return 0;
	}
}

int dc_config_value_json(const struct dc_config *c, size_t i, char *buf, size_t len)
{
	const struct key *k;
	const char *f;
	if (!len || !dc_config_key_has_value(c, i))
		return -1;
	k = &dc_cfg_keys[i];
	if (i == KEY_MODEL_HF_CONFIG || i == KEY_CLUSTER_TOPOLOGY_FILE) {
		const char *s = i == KEY_MODEL_HF_CONFIG ? c->model.hf_config : c->cluster.topology_file;
		char esc[2 * sizeof(c->model.hf_config) + 2];
		size_t n = 0;
		if (!*s) {
			put3(buf, len, "null", "", "");
			return 0;
		}
		/* a path as a JSON string: quotes, backslashes and control bytes escaped */
		for (; *s && n + 7 < sizeof(esc); s++) {
			unsigned char ch = (unsigned char)*s;
			if (ch == '"' || ch == '\\')
				n += (size_t)snprintf(esc + n, sizeof(esc) - n, "\\%c", ch);
			else if (ch < 0x20 || ch == 0x7f)
				n += (size_t)snprintf(esc + n, sizeof(esc) - n, "\\u%04x", ch);
			else
				esc[n++] = (char)ch;
		}
		esc[n] = '\0';
		snprintf(buf, len, "\"%s\"", esc);
		return 0;
	}
	if (k->off == NOFF)
		return -1;
	f = (const char *)c + k->off;
	switch (k->kind) {
	case K_COUNT:
	case K_COUNT_AUTO:
	case K_UINT:
	case K_BYTES:
	case K_BYTES_POS: {
		uint64_t u;
		char num[24];
		memcpy(&u, f, sizeof(u));
		if (len > 20) { /* 20 digits and the NUL: written in place */
			dc_fmt_u64(buf, u);
			return 0;
		}
		dc_fmt_u64(num, u);
		put3(buf, len, num, "", "");
		return 0;
	}
	case K_BW:
	case K_TIME:
	case K_FRACTION:
	case K_REAL: {
		double d;
		memcpy(&d, f, sizeof(d));
		real_text(buf, len, d);
		return 0;
	}
	case K_RAMP: {
		size_t n = 0;
		if (len < 5 * 40 + 2)
			return -1; /* five numbers of up to 32 bytes and their commas */
		for (int j = 0; j < DC_NET_RAMP_KNOTS; j++) {
			double d;
			memcpy(&d, f + (size_t)j * sizeof(d), sizeof(d));
			buf[n++] = j ? ',' : '[';
			if (j)
				buf[n++] = ' ';
			real_text(buf + n, len - n, d);
			n += strlen(buf + n);
		}
		buf[n++] = ']';
		buf[n] = '\0';
		return 0;
	}
	case K_BOOL: {
		int b;
		memcpy(&b, f, sizeof(b));
		put3(buf, len, b ? "true" : "false", "", "");
		return 0;
	}
	case K_ENUM:
	case K_GPU: {
		int e, n = 0;
		memcpy(&e, f, sizeof(e));
		if (k->kind == K_GPU) {
			if (e == 0) {
				put3(buf, len, "null", "", "");
				return 0;
			}
			e--;
		}
		while (k->info.choices[n])
			n++;
		if (e < 0 || e >= n)
			return -1;
		put3(buf, len, "\"", k->info.choices[e], "\"");
		return 0;
	}
	default:
		return -1;
	}
}

const char *dc_config_origin_of(const struct dc_config *c, const char *path, char *buf, size_t len)
{
	int i = dc_config_key_index(path);
	return i < 0 ? "default" : dc_config_origin_text(c, (size_t)i, buf, len);
}

const char *dc_config_origin_text(const struct dc_config *c, size_t i, char *buf, size_t len)
{
	switch (i < NKEYS ? c->origin[i] : DC_ORIGIN_DEFAULT) {
	case DC_ORIGIN_CONFIG: return "config";
	case DC_ORIGIN_SET: return "--set";
	case DC_ORIGIN_SYSTEM:
		put3(buf, len, "preset:", dc_system_name(c->cluster.system), "");
		return buf;
	case DC_ORIGIN_GPU:
		put3(buf, len, "preset:", dc_gpu_name(c->cluster.gpu), "");
		return buf;
	case DC_ORIGIN_HF: return "hf_config";
	case DC_ORIGIN_MODEL: return "--model";
	case DC_ORIGIN_TOPOLOGY: return "topology_file";
	case DC_ORIGIN_CALIBRATED: return "calibrated";
	case DC_ORIGIN_FRAMEWORK:
		put3(buf, len, "framework:", dc_framework_name(c->training.framework), "");
		return buf;
	default: return "default";
	}
}

void dc_config_set_origin(struct dc_config *c, const char *path, enum dc_origin origin)
{
	int ki = dc_cfg_find_key(path);
	if (ki >= 0)
		c->origin[ki] = (unsigned char)origin;
}
