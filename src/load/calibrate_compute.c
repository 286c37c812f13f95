/* calibrate_compute.c - reads a tools/gpu-probe.py profile and turns it
 * into the kernel model's two levels; see calibrate_compute.h and
 * docs/compute-model.md, "Calibrating from a probe". */
#include "distcalc/calibrate_compute.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/compute.h"
#include "distcalc/plan.h"
#include "distcalc/textfile.h"
#include "distcalc/util.h"

#define SCHEMA "distcalc-gpu-profile/1"

struct rd {
	const char *name;
	struct dc_diag *diag;
	int bad;
};

static void fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct rd *r, const char *fmt, ...)
{
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(r->diag);
	va_end(ap);
	dc_diag_error(r->diag, DC_ERR_CONFIG, "%s: error: %s", r->name, text);
	r->bad = 1;
	free(msg);
}

/* An object's members, each name once and each one of `known`
 * (NULL-terminated). */
static void members(struct rd *r, const cJSON *o, const char *where, const char *const *known)
{
	for (const cJSON *a = o->child; a; a = a->next) {
		int ok = 0;
		for (size_t i = 0; known[i]; i++)
			ok |= strcmp(a->string, known[i]) == 0;
		if (!ok)
			fail(r, "'%s%s': unknown member", where, a->string);
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0) {
				fail(r, "'%s%s': given twice", where, a->string);
				break;
			}
	}
}

/* A finite number above 0 (and below `hi`), or a whole one when `whole`. */
static double num(struct rd *r, const cJSON *o, const char *key, const char *where, int whole, double hi)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	double x;
	if (!v) {
		fail(r, "'%s%s': missing", where, key);
		return 0;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
		fail(r, "'%s%s': expected a number", where, key);
		return 0;
	}
	x = v->valuedouble;
	if (!(x > 0) || x >= hi || (whole && x != floor(x))) {
		fail(r, "'%s%s': expected %s above 0 and below %g, got %g", where, key, whole ? "a whole number" : "a number",
		     hi, x);
		return 0;
	}
	return x;
}

static const char *str(struct rd *r, const cJSON *o, const char *key, const char *where)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v) {
		fail(r, "'%s%s': missing", where, key);
		return "";
	}
	if (!cJSON_IsString(v)) {
		fail(r, "'%s%s': expected a string", where, key);
		return "";
	}
	return v->valuestring;
}

/* counts and sizes below 2^40; rates below 10^18 per second; a time below an hour */
#define BIG 1099511627776.0
#define RATE 1e18

static void read_gemms(struct rd *r, const cJSON *a, struct dc_compute_profile *p)
{
	static const char *const known[] = {"m", "n", "k", "dtype", "flops_per_s", "what", NULL};
	int i = 0;
	if (!cJSON_IsArray(a)) {
		fail(r, "'gemm': expected an array");
		return;
	}
	for (const cJSON *g = a->child; g; g = g->next, i++) {
		char where[32];
		double m, n, k, rate;
		const char *dt;
		int d;
		snprintf(where, sizeof(where), "gemm[%d].", i);
		if (i >= DC_PROFILE_MAX_ROWS) {
			fail(r, "'gemm': more than %d rows", DC_PROFILE_MAX_ROWS);
			return;
		}
		if (!cJSON_IsObject(g)) {
			fail(r, "'gemm[%d]': expected an object", i);
			continue;
		}
		members(r, g, where, known);
		m = num(r, g, "m", where, 1, BIG);
		n = num(r, g, "n", where, 1, BIG);
		k = num(r, g, "k", where, 1, BIG);
		rate = num(r, g, "flops_per_s", where, 0, RATE);
		dt = str(r, g, "dtype", where);
		d = strcmp(dt, "bf16") == 0 ? 0 : strcmp(dt, "fp8") == 0 ? 1 : -1;
		if (d < 0 && *dt) {
			fail(r, "'%sdtype': expected \"bf16\" or \"fp8\", got \"%.40s\"", where, dt);
			continue;
		}
		if (d < 0 || !(rate > 0))
			continue;
		if (rate > p->gemm_top_rate[d]) {
			p->gemm_top_rate[d] = rate;
			p->gemm_top_row[d] = i;
		}
		p->ngemm[d]++;
		p->gemm_flops[d] += 2.0 * m * n * k;
		p->gemm_s[d] += 2.0 * m * n * k / rate;
	}
}

/* The probe's backend names (tools/gpu-probe.py): the training.
 * attention_backend each measures, 0 for SDPA's memory-efficient kernel
 * (no backend of distcalc's runs it), -1 unknown. */
static int backend_of(const char *name)
{
	if (strcmp(name, "sdpa-flash") == 0)
		return DC_ATTN_BACKEND_SDPA;
	if (strcmp(name, "sdpa-cudnn") == 0)
		return DC_ATTN_BACKEND_CUDNN;
	if (strcmp(name, "fa3") == 0)
		return DC_ATTN_BACKEND_FA3;
	return strcmp(name, "sdpa-efficient") == 0 ? 0 : -1;
}

static void read_attention(struct rd *r, const cJSON *a, struct dc_compute_profile *p)
{
	static const char *const known[] = {"backend", "batch", "heads", "seq", "head_dim", "causal",
					    "fwd_flops_per_s", "bwd_flops_per_s", NULL};
	int i = 0;
	if (!cJSON_IsArray(a)) {
		fail(r, "'attention': expected an array");
		return;
	}
	for (const cJSON *g = a->child; g; g = g->next, i++) {
		char where[32];
		const cJSON *causal;
		const char *be;
		int b;
		double batch, heads, seq, d, fwd, bwd, fl;
		snprintf(where, sizeof(where), "attention[%d].", i);
		if (i >= DC_PROFILE_MAX_ROWS) {
			fail(r, "'attention': more than %d rows", DC_PROFILE_MAX_ROWS);
			return;
		}
		if (!cJSON_IsObject(g)) {
			fail(r, "'attention[%d]': expected an object", i);
			continue;
		}
		members(r, g, where, known);
		be = str(r, g, "backend", where);
		b = backend_of(be);
		if (b < 0 && *be)
			fail(r, "'%sbackend': expected \"sdpa-flash\", \"sdpa-efficient\", \"sdpa-cudnn\" or \"fa3\" (as tools/gpu-probe.py names them), got \"%.40s\"",
			     where, be);
		batch = num(r, g, "batch", where, 1, BIG);
		heads = num(r, g, "heads", where, 1, BIG);
		seq = num(r, g, "seq", where, 1, BIG);
		d = num(r, g, "head_dim", where, 1, BIG);
		fwd = num(r, g, "fwd_flops_per_s", where, 0, RATE);
		bwd = num(r, g, "bwd_flops_per_s", where, 0, RATE);
		causal = cJSON_GetObjectItemCaseSensitive(g, "causal");
		if (!cJSON_IsBool(causal))
			fail(r, "'%scausal': expected true or false", where);
		p->nattention++;
		if (b <= 0 || !(fwd > 0) || !(bwd > 0) || !(batch > 0) || !(heads > 0) || !(seq > 0) || !(d > 0))
			continue;
		/* the FLOPs the probe counts (and compute.c prices): QK^T and
		 * AV, 4 b h s^2 d, half of it causal; the backward 2.5 x */
		fl = 4.0 * batch * heads * seq * seq * d * (cJSON_IsTrue(causal) ? 0.5 : 1.0);
		p->nattn[b]++;
		p->attn_fwd_flops[b] += fl;
		p->attn_fwd_s[b] += fl / fwd;
		p->attn_bwd_flops[b] += 2.5 * fl;
		p->attn_bwd_s[b] += 2.5 * fl / bwd;
	}
}

static void read_layer(struct rd *r, const cJSON *o, struct dc_compute_profile *p)
{
	static const char *const known[] = {"hidden_size", "num_attention_heads", "num_kv_heads", "head_dim",
					    "ffn_hidden_size", "mlp", "seq_length", "micro_batch_size", "tp",
					    "fwd_bwd_s", "config", "attention_backend", "compiled_fwd_bwd_s",
					    "gpu_busy_s", "compiled_gpu_busy_s", NULL};
	struct dc_profile_layer *l = &p->layer;
	const char *mlp;
	const cJSON *be;
	if (!cJSON_IsObject(o)) {
		fail(r, "'layer': expected an object");
		return;
	}
	members(r, o, "layer.", known);
	l->hidden_size = (uint64_t)num(r, o, "hidden_size", "layer.", 1, BIG);
	l->num_attention_heads = (uint64_t)num(r, o, "num_attention_heads", "layer.", 1, BIG);
	l->num_kv_heads = (uint64_t)num(r, o, "num_kv_heads", "layer.", 1, BIG);
	l->head_dim = (uint64_t)num(r, o, "head_dim", "layer.", 1, BIG);
	l->ffn_hidden_size = (uint64_t)num(r, o, "ffn_hidden_size", "layer.", 1, BIG);
	l->seq_length = (uint64_t)num(r, o, "seq_length", "layer.", 1, BIG);
	l->micro_batch_size = (uint64_t)num(r, o, "micro_batch_size", "layer.", 1, BIG);
	l->tp = (uint64_t)num(r, o, "tp", "layer.", 1, BIG);
	l->fwd_bwd_s = num(r, o, "fwd_bwd_s", "layer.", 0, 3600);
	/* the same layer through torch.compile (gpu-probe.py --compile); 0 absent */
	l->compiled_fwd_bwd_s = cJSON_GetObjectItemCaseSensitive(o, "compiled_fwd_bwd_s")
					? num(r, o, "compiled_fwd_bwd_s", "layer.", 0, 3600)
					: 0;
	/* the GPU time in the layer's kernels (gpu-probe.py --layer-kernels);
	 * 0 absent; each beside the layer time it is of, and not far above it */
	for (int c = 0; c < 2; c++) {
		const char *key = c ? "compiled_gpu_busy_s" : "gpu_busy_s";
		double t = c ? l->compiled_fwd_bwd_s : l->fwd_bwd_s, *busy = c ? &l->compiled_gpu_busy_s : &l->gpu_busy_s;
		*busy = cJSON_GetObjectItemCaseSensitive(o, key) ? num(r, o, key, "layer.", 0, 3600) : 0;
		if (*busy > 0 && !cJSON_GetObjectItemCaseSensitive(o, c ? "compiled_fwd_bwd_s" : "fwd_bwd_s"))
			fail(r, "'layer.%s': given without 'layer.%s', the layer time it is part of", key,
			     c ? "compiled_fwd_bwd_s" : "fwd_bwd_s");
		else if (t > 0 && *busy > DC_PROFILE_LAYER_BUSY_MAX * t)
			fail(r, "'layer.%s': %g s is more than %g x the layer's %g s ('layer.%s'): the GPU cannot be busy "
				"longer than the layer took", key, *busy, DC_PROFILE_LAYER_BUSY_MAX, t,
			     c ? "compiled_fwd_bwd_s" : "fwd_bwd_s");
	}
	mlp = str(r, o, "mlp", "layer.");
	if (strcmp(mlp, "swiglu") == 0)
		l->mlp = DC_MLP_SWIGLU;
	else if (strcmp(mlp, "gelu") == 0)
		l->mlp = DC_MLP_GELU;
	else if (*mlp)
		fail(r, "'layer.mlp': expected \"swiglu\" or \"gelu\", got \"%.40s\"", mlp);
	/* the kernel PyTorch's SDPA dispatched the layer's attention to; a
	 * profile written before the member: FlashAttention-2, "sdpa-flash" */
	l->attention = DC_ATTN_BACKEND_SDPA;
	be = cJSON_GetObjectItemCaseSensitive(o, "attention_backend");
	l->attention_given = be != NULL;
	if (be) {
		int b = cJSON_IsString(be) ? backend_of(be->valuestring) : -1;
		if (b < 0)
			fail(r, "'layer.attention_backend': expected \"sdpa-flash\", \"sdpa-efficient\", \"sdpa-cudnn\" or \"fa3\" (the kernel SDPA ran, as tools/gpu-probe.py names it)%s%.40s%s",
			     cJSON_IsString(be)	 ? ", got \""
			     : cJSON_IsNull(be)	 ? ", got null"
			     : cJSON_IsNumber(be) ? ", got a number"
						  : ", got a non-string",
			     cJSON_IsString(be) ? be->valuestring : "", cJSON_IsString(be) ? "\"" : "");
		else
			l->attention = b; /* 0 (DC_ATTN_BACKEND_EAGER): "sdpa-efficient", which no backend prices */
	}
	p->has_layer = 1;
}

/* "head" (gpu-probe.py --ends): its shape and two times, the forward
 * no longer than forward + backward */
static void read_head(struct rd *r, const cJSON *o, struct dc_compute_profile *p)
{
	static const char *const known[] = {"tokens", "hidden_size", "vocab_size", "fwd_s", "fwd_bwd_s", NULL};
	struct dc_profile_head *h = &p->head;
	if (!cJSON_IsObject(o)) {
		fail(r, "'head': expected an object");
		return;
	}
	members(r, o, "head.", known);
	h->tokens = (uint64_t)num(r, o, "tokens", "head.", 1, BIG);
	h->hidden_size = (uint64_t)num(r, o, "hidden_size", "head.", 1, BIG);
	h->vocab_size = (uint64_t)num(r, o, "vocab_size", "head.", 1, BIG);
	h->fwd_s = num(r, o, "fwd_s", "head.", 0, 3600);
	h->fwd_bwd_s = num(r, o, "fwd_bwd_s", "head.", 0, 3600);
	if (h->fwd_s > 0 && h->fwd_bwd_s > 0 && h->fwd_s > h->fwd_bwd_s)
		fail(r, "'head.fwd_s': %g s is more than the forward + backward's %g s ('head.fwd_bwd_s')", h->fwd_s,
		     h->fwd_bwd_s);
	p->has_head = 1;
}

/* "optimizer" (gpu-probe.py --ends): FP32 parameters, three times */
static void read_optimizer(struct rd *r, const cJSON *o, struct dc_compute_profile *p)
{
	static const char *const known[] = {"params",	    "tensors",		"dtype", "foreach_step_s",
					    "fused_step_s", "clip_grad_norm_s", NULL};
	struct dc_profile_optimizer *op = &p->optimizer;
	const char *dtype;
	if (!cJSON_IsObject(o)) {
		fail(r, "'optimizer': expected an object");
		return;
	}
	members(r, o, "optimizer.", known);
	op->params = (uint64_t)num(r, o, "params", "optimizer.", 1, BIG);
	op->tensors = (uint64_t)num(r, o, "tensors", "optimizer.", 1, BIG);
	dtype = str(r, o, "dtype", "optimizer.");
	if (*dtype && strcmp(dtype, "fp32") != 0)
		fail(r, "'optimizer.dtype': expected \"fp32\" (the probe's parameters and states), got \"%.40s\"", dtype);
	op->foreach_step_s = num(r, o, "foreach_step_s", "optimizer.", 0, 3600);
	op->fused_step_s = num(r, o, "fused_step_s", "optimizer.", 0, 3600);
	op->clip_grad_norm_s = num(r, o, "clip_grad_norm_s", "optimizer.", 0, 3600);
	if (op->tensors > op->params && op->params > 0)
		fail(r, "'optimizer.tensors': %llu tensors hold more than the %llu parameters ('optimizer.params')",
		     (unsigned long long)op->tensors, (unsigned long long)op->params);
	p->has_optimizer = 1;
}

/* Does buf[0..len) hold `word` in its first 4 KiB (an nccl-tests log's
 * header names nThread and out-of-place there)? */
static int holds(const char *buf, size_t len, const char *word)
{
	size_t n = strlen(word), end = len < 4096 ? len : 4096;
	for (size_t i = 0; i + n <= end; i++)
		if (memcmp(buf + i, word, n) == 0)
			return 1;
	return 0;
}

int dc_compute_profile_parse(const char *buf, size_t len, const char *name, struct dc_compute_profile *out,
			     struct dc_diag *diag)
{
	static const char *const known[] = {"schema", "synthetic", "source", "clocks", "device", "gemm", "attention",
					    "elementwise", "layer", "head", "optimizer", NULL};
	static const char *const dev_known[] = {"name",  "sm_count", "driver",      "torch",
						"cuda",  "cudnn",    "sm_clock_mhz", NULL};
	static const char *const ew_known[] = {"bytes_per_s", "bytes", NULL};
	struct rd r = {name, diag, 0};
	size_t line = 0, col = 0;
	char what[200];
	cJSON *root;
	const cJSON *v;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (dc_json_check_strict(buf, len, &line, &col, what, sizeof(what)) != 0) {
		/* the other calibration's input given here: one line for it */
		if (holds(buf, len, "nThread") && holds(buf, len, "out-of-place"))
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s: error: an nccl-tests log, not a GPU profile: --calibrate LOG fits the network to "
				      "it; --calibrate-compute takes the JSON profile tools/gpu-probe.py writes",
				      name);
		else
			dc_diag_error(diag, DC_ERR_CONFIG, "%s:%zu:%zu: error: %s", name, line, col, what);
		return -1;
	}
	root = cJSON_ParseWithLength(buf, len);
	if (!root) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory reading the profile", name);
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		fail(&r, "expected a JSON object (a gpu-probe.py profile)");
		cJSON_Delete(root);
		return -1;
	}
	/* gpu-probe.py --layer-kernels writes its trace beside the profile:
	 * one line for it, not a member-by-member list */
	if (!cJSON_GetObjectItemCaseSensitive(root, "schema") && cJSON_GetObjectItemCaseSensitive(root, "kinds_s") &&
	    cJSON_GetObjectItemCaseSensitive(root, "kernels")) {
		fail(&r, "a tools/gpu-probe.py --layer-kernels trace, not a profile (distcalc does not read traces): "
			 "give the profile the probe wrote with --output");
		cJSON_Delete(root);
		return -1;
	}
	members(&r, root, "", known);
	v = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, SCHEMA) != 0)
		fail(&r, "'schema': expected \"%s\" (tools/gpu-probe.py writes it)", SCHEMA);
	v = cJSON_GetObjectItemCaseSensitive(root, "synthetic");
	if (!cJSON_IsBool(v))
		fail(&r, "'synthetic': expected true or false (true: not a measurement)");
	else
		out->synthetic = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(root, "source");
	if (v && !cJSON_IsString(v))
		fail(&r, "'source': expected a string");
	/* the clocks its kernels ran at: "boost" (short runs, the default:
	 * what every profile before the member was), or "sustained" (after
	 * gpu-probe.py --sustain held the GPU at its power limit) */
	v = cJSON_GetObjectItemCaseSensitive(root, "clocks");
	if (v && !(cJSON_IsString(v) && (strcmp(v->valuestring, "boost") == 0 || strcmp(v->valuestring, "sustained") == 0)))
		fail(&r, "'clocks': expected \"boost\" (short runs, the default) or \"sustained\" (gpu-probe.py --sustain), got %s%.40s%s",
		     cJSON_IsString(v) ? "\"" : "", cJSON_IsString(v) ? v->valuestring : "a non-string", cJSON_IsString(v) ? "\"" : "");
	else
		out->sustained = v && strcmp(v->valuestring, "sustained") == 0;
	v = cJSON_GetObjectItemCaseSensitive(root, "device");
	if (!cJSON_IsObject(v)) {
		fail(&r, "'device': expected an object with at least \"name\"");
	} else {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(v, "name");
		members(&r, v, "device.", dev_known);
		snprintf(out->device, sizeof(out->device), "%s", str(&r, v, "name", "device."));
		/* the name is what ties the profile to a GPU (same_gpu) */
		if (cJSON_IsString(nm) && strspn(nm->valuestring, " \t") == strlen(nm->valuestring))
			fail(&r, "'device.name': empty; the probe writes the GPU's name (torch.cuda.get_device_name)");
		if (cJSON_GetObjectItemCaseSensitive(v, "sm_count"))
			out->device_sm_count = (uint64_t)num(&r, v, "sm_count", "device.", 1, 65536);
		if (cJSON_GetObjectItemCaseSensitive(v, "sm_clock_mhz"))
			out->device_sm_clock_mhz = num(&r, v, "sm_clock_mhz", "device.", 0, 100000);
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "gemm");
	if (v)
		read_gemms(&r, v, out);
	v = cJSON_GetObjectItemCaseSensitive(root, "attention");
	if (v)
		read_attention(&r, v, out);
	v = cJSON_GetObjectItemCaseSensitive(root, "elementwise");
	if (v) {
		if (!cJSON_IsObject(v)) {
			fail(&r, "'elementwise': expected an object");
		} else {
			members(&r, v, "elementwise.", ew_known);
			out->elementwise_bytes_per_s = num(&r, v, "bytes_per_s", "elementwise.", 0, RATE);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "layer");
	if (v)
		read_layer(&r, v, out);
	v = cJSON_GetObjectItemCaseSensitive(root, "head");
	if (v)
		read_head(&r, v, out);
	v = cJSON_GetObjectItemCaseSensitive(root, "optimizer");
	if (v)
		read_optimizer(&r, v, out);
	cJSON_Delete(root);
	return r.bad ? -1 : 0;
}

int dc_compute_profile_read(const char *path, struct dc_compute_profile *out, struct dc_diag *diag)
{
	size_t len = 0;
	char *buf = dc_text_read_file(path, DC_PROFILE_MAX_BYTES, "GPU profile", &len, diag);
	int rc;
	if (!buf)
		return -1;
	rc = dc_compute_profile_parse(buf, len, path, out, diag);
	free(buf);
	return rc;
}

/* Did the config or a --set give the key at `path`? */
static int given(const struct dc_config *cfg, const char *path)
{
	int i = dc_config_key_index(path);
	return i >= 0 && (cfg->origin[i] == DC_ORIGIN_CONFIG || cfg->origin[i] == DC_ORIGIN_SET);
}

/* The fused attention levels of the run's backend (the loader's derived
 * one; none under attention "eager", whose products are GEMMs), where the
 * profile has its rows: forward unless precision.attention "fp8"; each
 * measured level times `clock` (the set's in-situ factor for a boost
 * profile, 1 for a sustained one). 0, or -1 with an error for a measured
 * level outside [0.01, 1). */
static int attention_levels(const struct dc_compute_profile *p, struct dc_config *cfg, double clock,
			    struct dc_diag *diag)
{
	enum dc_attention_backend b = cfg->training.attention_backend;
	double peak = cfg->cluster.peak_flops, fwd, bwd;
	cfg->cluster.attention_fwd_efficiency = cfg->cluster.attention_bwd_efficiency = 0;
	if (cfg->training.attention == DC_ATTENTION_EAGER || b <= DC_ATTN_BACKEND_EAGER || b >= DC_ATTN_BACKEND_COUNT ||
	    !p->nattn[b])
		return 0;
	if (!(peak > 0)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: the attention levels are fractions of cluster.peak_flops: set cluster.gpu or it",
			      p->name);
		return -1;
	}
	fwd = p->attn_fwd_flops[b] / (p->attn_fwd_s[b] * peak);
	bwd = p->attn_bwd_flops[b] / (p->attn_bwd_s[b] * peak);
	if (!(fwd >= 0.01 && fwd < 1) || !(bwd >= 0.01 && bwd < 1)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the measured attention %s level %.4g is not at least 0.01 and below 1 of the config's cluster.peak_flops: was the profile taken on another GPU?",
			      p->name, !(fwd >= 0.01 && fwd < 1) ? "forward" : "backward",
			      !(fwd >= 0.01 && fwd < 1) ? fwd : bwd);
		return -1;
	}
	if (cfg->precision.attention != DC_ATTN_PRECISION_FP8)
		cfg->cluster.attention_fwd_efficiency = fwd * clock;
	cfg->cluster.attention_bwd_efficiency = bwd * clock;
	return 0;
}

/* The probe's layer time against the GPU: its GEMMs alone (one tp
 * rank's shard, forward 2 T (h (a + 2 kv) d / tp + a d h / tp + k h
 * ffn / tp) with k 3 for SwiGLU and 2 for GELU, backward twice that, so
 * a lower bound of the layer's FLOPs: attention and element-wise work add
 * time, never take it away) over fwd_bwd_s, as a fraction of the BF16
 * peak the probe runs at. At or above 1 the layer beat the GPU's peak;
 * below 0.001 it ran a thousand times slower than its GEMMs could. Either
 * is another GPU's profile or a broken timer (a 1e-300 s layer once
 * printed a 300-digit predicted / measured). 0, or -1 with an error
 * naming the member. */
#define DC_PROFILE_LAYER_LEVEL_MIN 0.001
static int layer_level(const struct dc_compute_profile *p, const struct dc_config *cfg, struct dc_diag *diag)
{
	const struct dc_profile_layer *l = &p->layer;
	double peak = cfg->cluster.peak_flops, tokens, per_token, flops, level;
	if (!p->has_layer || !(peak > 0))
		return 0;
	tokens = (double)l->seq_length * (double)l->micro_batch_size;
	per_token = (double)l->hidden_size *
		    ((double)(l->num_attention_heads + 2 * l->num_kv_heads) * (double)l->head_dim +
		     (double)l->num_attention_heads * (double)l->head_dim +
		     (l->mlp == DC_MLP_GELU ? 2.0 : 3.0) * (double)l->ffn_hidden_size) /
		    (double)l->tp;
	flops = 3.0 * 2.0 * tokens * per_token;
	for (int c = 0; c < 2; c++) {
		double t = c ? l->compiled_fwd_bwd_s : l->fwd_bwd_s;
		if (c && !(t > 0))
			break; /* no compiled layer */
		level = flops / (t * peak);
		if (!(level >= DC_PROFILE_LAYER_LEVEL_MIN && level < 1)) {
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s: error: 'layer.%s': %g s for the layer's %.4g GEMM FLOPs is %.4g of the config's "
				      "cluster.peak_flops, not at least %g and below 1: was the profile taken on another GPU?",
				      p->name, c ? "compiled_fwd_bwd_s" : "fwd_bwd_s", t, flops, level,
				      DC_PROFILE_LAYER_LEVEL_MIN);
			return -1;
		}
	}
	return 0;
}

/* Is `word` in `s`, ignoring case? */
static int alnum(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* `word` in s, any case, as a whole word: neither end touching a letter
 * or a digit ("RTX A1000" names no A100, "GH200" no H200) */
static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (const char *t = s; *t; t++) {
		size_t i = 0;
		if (t > s && alnum(t[-1]))
			continue;
		while (i < n && t[i] && (t[i] | 0x20) == (word[i] | 0x20))
			i++;
		if (i == n && !alnum(t[n]))
			return 1;
	}
	return 0;
}

#define GPU_BIT(g) (1u << (g))
#define H100_SXM5_PART (GPU_BIT(DC_GPU_H100_SXM5_80GB) | GPU_BIT(DC_GPU_H800_SXM5_80GB))
/* a GPU named for sure that no cluster.gpu preset describes: a bit no
 * preset's GPU_BIT takes */
#define NO_PRESET_PART (1u << 31)
_Static_assert(DC_GPU_COUNT < 31, "NO_PRESET_PART must be a bit no cluster.gpu preset has");
/* The cluster.gpu presets whose GPU a profile's device.name names, as a
 * mask of GPU_BIT(enum dc_gpu); 0 when it names none of them. The names
 * are PyTorch's (torch.cuda.get_device_properties().name: "NVIDIA H100
 * 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200",
 * "NVIDIA GH200 480GB", "NVIDIA B200", "NVIDIA A100-SXM4-80GB", "NVIDIA
 * H800"), or the presets' own, each a whole word (has_word). */
static unsigned named_gpus(const char *name)
{
	if (has_word(name, "gh200"))
		return GPU_BIT(DC_GPU_GH200_96GB);
	if (has_word(name, "gb200"))
		return GPU_BIT(DC_GPU_GB200);
	if (has_word(name, "b200"))
		return GPU_BIT(DC_GPU_B200_SXM_180GB);
	/* the H200 NVL is the PCIe part, at most 600 W (NVIDIA's H200 data
	 * sheet: 835 dense BF16 TFLOP/s against the SXM's 989): no preset
	 * describes it, so it prices no preset's GPU */
	if (has_word(name, "h200"))
		return has_word(name, "nvl") || has_word(name, "pcie") ? NO_PRESET_PART : GPU_BIT(DC_GPU_H200_SXM_141GB);
	/* the H800 SXM5 is the H100 SXM5's part, clocks and HBM3 with fewer
	 * NVLink links (its data sheet; compute.c gives both one kernel set),
	 * and the probe measures no link: either's profile prices the other.
	 * An H800 PCIe names none: no data sheet of it is at hand to tie it
	 * to a preset (its sm_count is still compared) */
	if (has_word(name, "h800"))
		return has_word(name, "pcie") ? 0 : H100_SXM5_PART;
	if (has_word(name, "h100"))
		return has_word(name, "pcie") ? GPU_BIT(DC_GPU_H100_PCIE_80GB)
		       : has_word(name, "nvl") ? GPU_BIT(DC_GPU_H100_NVL_94GB)
					       : H100_SXM5_PART;
	if (has_word(name, "a100"))
		return has_word(name, "40gb")   ? GPU_BIT(DC_GPU_A100_SXM4_40GB)
		       : has_word(name, "80gb") ? GPU_BIT(DC_GPU_A100_SXM4_80GB)
						: GPU_BIT(DC_GPU_A100_SXM4_40GB) | GPU_BIT(DC_GPU_A100_SXM4_80GB);
	return 0;
}

/* The first cluster.gpu preset in a named_gpus() mask, or NULL. */
static const char *named_preset(unsigned named)
{
	if (named == NO_PRESET_PART)
		return NULL;
	for (int g = DC_GPU_NONE + 1; g < DC_GPU_COUNT; g++)
		if (named & GPU_BIT(g))
			return dc_gpu_name((enum dc_gpu)g);
	return NULL;
}

/* The cluster.gpu presets in a named_gpus() mask as text: "\"a\"" or
 * "\"a\" or \"b\"" (into buf; "" for none). */
static const char *named_presets_text(unsigned named, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int g = DC_GPU_NONE + 1; g < DC_GPU_COUNT && named != NO_PRESET_PART; g++)
		if (named & GPU_BIT(g) && n < len) {
			int k = snprintf(buf + n, len - n, "%s\"%s\"", n ? " or " : "", dc_gpu_name((enum dc_gpu)g));
			n = k < 0 ? len : n + (size_t)k;
		}
	return buf;
}

/* The profile's GPU against the config's: the levels are the measured
 * GPU's fractions of the config's peaks, so another GPU's profile prices
 * this one wrong (an H100's on a B200 config: 0.35 of its matmul peak).
 * Refused when device.name names another preset's GPU than cluster.gpu,
 * or when device.sm_count is not the config's SM count (cluster.sm_count,
 * the preset's, or the A100 set's 108 without either). A name that names
 * no preset, or no sm_count, is not checked. 0, or -1 with an error
 * naming both GPUs. */
static int same_gpu(const struct dc_compute_profile *p, const struct dc_config *cfg, struct dc_diag *diag)
{
	const struct dc_cluster *c = &cfg->cluster;
	unsigned named = named_gpus(p->device);
	uint64_t sms = c->sm_count ? c->sm_count : 108;
	const char *preset = named_preset(named);
	int on_preset = c->gpu > DC_GPU_NONE && c->gpu < DC_GPU_COUNT; /* a cluster.gpu preset, not a GPU by hand */
	if (on_preset && named == NO_PRESET_PART) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the profile was measured on \"%.100s\" (device.name), a part no cluster.gpu preset describes, and the config's GPU is cluster.gpu \"%s\": its levels would price this GPU with another's speeds; measure on the config's GPU (tools/gpu-probe.py), or describe the profile's GPU by hand (cluster.peak_flops, cluster.hbm_bandwidth, cluster.sm_count) without cluster.gpu",
			      p->name, p->device, dc_gpu_name(c->gpu));
		return -1;
	}
	if (on_preset && named && !(named & GPU_BIT(c->gpu))) {
		char presets[160];
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the profile was measured on \"%.100s\" (device.name), the config's GPU is cluster.gpu \"%s\": its levels would price this GPU with another's speeds; measure on the config's GPU (tools/gpu-probe.py), or set cluster.gpu to the profile's, %s",
			      p->name, p->device, dc_gpu_name(c->gpu), named_presets_text(named, presets, sizeof(presets)));
		return -1;
	}
	if (p->device_sm_count && p->device_sm_count != sms) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the profile's GPU \"%.100s\" has %llu SMs (device.sm_count), the config's %llu (%s%s%s): its levels would price this GPU with another's speeds; measure on the config's GPU (tools/gpu-probe.py), or give cluster.sm_count %llu if it is that GPU%s%s%s",
			      p->name, p->device, (unsigned long long)p->device_sm_count, (unsigned long long)sms,
			      given(cfg, "cluster.sm_count") ? "cluster.sm_count"
			      : c->sm_count                  ? "cluster.gpu \""
							     : "the A100 set's, without cluster.gpu or cluster.sm_count",
			      !given(cfg, "cluster.sm_count") && c->sm_count ? dc_gpu_name(c->gpu) : "",
			      !given(cfg, "cluster.sm_count") && c->sm_count ? "\"" : "",
			      (unsigned long long)p->device_sm_count,
			      preset && !on_preset ? " (or cluster.gpu \"" : "", preset && !on_preset ? preset : "",
			      preset && !on_preset ? "\", its preset)" : "");
		return -1;
	}
	/* a name of no GPU distcalc knows, without an SM count: nothing
	 * ties the profile to the config's preset (a trial's "My GPU" priced
	 * an H200 without a word) */
	if (on_preset && !named && !p->device_sm_count)
		dc_diag_warn(diag,
			     "%s: the profile's GPU \"%.100s\" (device.name) is no GPU distcalc knows, and the profile "
			     "gives no device.sm_count: nothing checks that it was measured on the config's cluster.gpu "
			     "\"%s\"; its levels price this run as given",
			     p->name, p->device, dc_gpu_name(c->gpu));
	/* a GPU by hand where the profile names a preset's: the A100 set's
	 * in-situ factor and fixed costs price it (compute.c), not that
	 * preset's */
	if (preset && !on_preset)
		dc_diag_warn(diag,
			     "%s: the profile names \"%.100s\" (device.name), the cluster.gpu preset \"%s\"'s GPU, and this "
			     "config names no cluster.gpu: its kernels take the A100 set's in-situ factor and fixed costs; "
			     "set cluster.gpu \"%s\" for that GPU's",
			     p->name, p->device, preset, preset);
	return 0;
}

/* A GEMM level: the rows of dtype `d` (0 bf16, 1 fp8) over `peak`. 0
 * with it in *out, or -1 with an error. */
static int gemm_level(const struct dc_compute_profile *p, int d, double peak, double *out, struct dc_diag *diag)
{
	static const char *const dt[] = {"bf16", "fp8"};
	static const char *const key[] = {"cluster.peak_flops", "cluster.peak_flops_fp8"};
	double mm;
	if (p->ngemm[d] == 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: no \"%s\" GEMM rows%s", p->name, dt[d],
			      d ? " for precision.compute \"fp8\""
				: " (the BF16 level prices the GEMMs that stay BF16 under FP8 too: the LM head, the router)");
		return -1;
	}
	/* a row at or above the peak cannot have been measured on this GPU
	 * (a unit slip, an edited row): the mean over the rows would hide it
	 * (a trial's row at 695 x the peak moved the level 0.6846 -> 0.7116
	 * without a word) */
	if (!(p->gemm_top_rate[d] < peak)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'gemm[%d]' (%s) runs at %.4g TFLOP/s, at or above the config's %s, %.4g TFLOP/s: no GEMM beats its GPU's peak; was the row edited, or taken on another GPU?",
			      p->name, p->gemm_top_row[d], dt[d], p->gemm_top_rate[d] / 1e12, key[d], peak / 1e12);
		return -1;
	}
	mm = p->gemm_flops[d] / (p->gemm_s[d] * peak);
	if (!(mm >= 0.01 && mm < 1)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the measured %s level %.4g is not at least 0.01 and below 1 of the config's %s: was the profile taken on another GPU?",
			      p->name, dt[d], mm, key[d]);
		return -1;
	}
	*out = mm;
	return 0;
}

int dc_compute_profile_apply(const struct dc_compute_profile *p, struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_cluster *c = &cfg->cluster;
	int fp8 = cfg->precision.compute == DC_COMPUTE_FP8;
	double mm = 0, mm8 = 0, mem, clock, mem_share;
	if (same_gpu(p, cfg, diag) != 0)
		return -1;
	if (given(cfg, "cluster.matmul_efficiency") || given(cfg, "cluster.memory_efficiency")) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the config gives cluster.%s; the profile's measured level would replace it (leave the key out, or the profile)",
			      p->name, given(cfg, "cluster.matmul_efficiency") ? "matmul_efficiency" : "memory_efficiency");
		return -1;
	}
	if (!(c->peak_flops > 0) || (fp8 && !(c->peak_flops_fp8 > 0)) || !(c->hbm_bandwidth > 0)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the levels are fractions of cluster.peak_flops%s and cluster.hbm_bandwidth: set cluster.gpu or them",
			      p->name, fp8 ? ", cluster.peak_flops_fp8" : "");
		return -1;
	}
	if (!(p->elementwise_bytes_per_s > 0)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: no 'elementwise.bytes_per_s'", p->name);
		return -1;
	}
	if (gemm_level(p, 0, c->peak_flops, &mm, diag) != 0 || (fp8 && gemm_level(p, 1, c->peak_flops_fp8, &mm8, diag) != 0))
		return -1;
	mem = p->elementwise_bytes_per_s / c->hbm_bandwidth;
	if (!(mem >= 0.01 && mem < 1)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: the measured element-wise level %.4g is not at least 0.01 and below 1 of the config's cluster.hbm_bandwidth: was the profile taken on another GPU?",
			      p->name, mem);
		return -1;
	}
	/* the measurements are isolated kernels: a boost profile's GEMMs and
	 * attention take the set's in-situ factor, as the set's own isolated
	 * ceilings do; a sustained one has paid it; element-wise always takes
	 * the set's streaming share, which is no clock (calibrate_compute.h) */
	dc_compute_in_situ(c->gpu, &clock, &mem_share);
	if (p->sustained)
		clock = 1.0;
	if (attention_levels(p, cfg, clock, diag) != 0 || layer_level(p, cfg, diag) != 0)
		return -1;
	c->matmul_efficiency = mm * clock;
	c->matmul_efficiency_fp8 = mm8 * clock;
	c->memory_efficiency = mem * mem_share;
	dc_config_set_origin(cfg, "cluster.matmul_efficiency", DC_ORIGIN_CALIBRATED);
	dc_config_set_origin(cfg, "cluster.memory_efficiency", DC_ORIGIN_CALIBRATED);
	cfg->compute_profile = p;
	return 0;
}

/* Appends ", NAME PROFILE's (this run's RUN)" to why[n] when they differ. */
static void differs(char *why, size_t n, const char *name, uint64_t profile, uint64_t run)
{
	size_t len = strlen(why);
	if (profile == run || len >= n)
		return;
	snprintf(why + len, n - len, "%s%s %llu, this run's %llu", len ? "; " : "", name, (unsigned long long)profile,
		 (unsigned long long)run);
}

static enum dc_profile_layer_fit kind_fit(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
					  size_t n, int backend);

enum dc_profile_layer_fit dc_compute_profile_layer_fit(const struct dc_compute_profile *p, const struct dc_plan *plan,
						       char *why, size_t n)
{
	const struct dc_config *in = plan->in;
	const struct dc_model *m = &in->model;
	const struct dc_profile_layer *l = &p->layer;
	uint64_t d = m->head_dim ? m->head_dim : m->hidden_size / (m->num_attention_heads ? m->num_attention_heads : 1);
	uint64_t kv = m->num_kv_heads ? m->num_kv_heads : m->num_attention_heads;
	char diff[256] = "";
	if (!p->has_layer) {
		snprintf(why, n, "the profile has no layer");
		return DC_LAYER_UNLIKE;
	}
	if (m->num_experts || m->kv_lora_rank) {
		snprintf(why, n, "the profile's layer is a dense GQA layer; this model's is not");
		return DC_LAYER_OTHER_KIND;
	}
	differs(diff, sizeof(diff), "hidden", l->hidden_size, m->hidden_size);
	differs(diff, sizeof(diff), "heads", l->num_attention_heads, m->num_attention_heads);
	differs(diff, sizeof(diff), "kv heads", l->num_kv_heads, kv);
	differs(diff, sizeof(diff), "head_dim", l->head_dim, d);
	differs(diff, sizeof(diff), "ffn", l->ffn_hidden_size, m->ffn_hidden_size);
	if (l->mlp != m->mlp)
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), "%smlp %s, this run's %s", *diff ? "; " : "",
			 l->mlp == DC_MLP_GELU ? "gelu" : "swiglu", m->mlp == DC_MLP_GELU ? "gelu" : "swiglu");
	differs(diff, sizeof(diff), "sequence", l->seq_length, m->seq_length);
	differs(diff, sizeof(diff), "micro batch", l->micro_batch_size, plan->layout.micro_batch_size);
	differs(diff, sizeof(diff), "tp", l->tp, plan->layout.tp);
	differs(diff, sizeof(diff), "cp", 1, plan->layout.cp);
	/* tools/gpu-probe.py runs one tp rank's layer on the whole sequence:
	 * its norms see every token, as without sequence parallelism */
	if (plan->layout.tp > 1 && plan->layout.sequence_parallel)
		snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff),
			 "%ssequence parallelism off (the probe's norms see every token), this run's on", *diff ? "; " : "");
	if (*diff) {
		snprintf(why, n, "the profile's layer ran another shape: %s", diff);
		return DC_LAYER_OTHER_SHAPE;
	}
	return kind_fit(p, plan, why, n, 1);
}

/* The attention kernel the probe's SDPA ran against the run's backend:
 * DC_LAYER_FITS, or DC_LAYER_UNLIKE with why */
static enum dc_profile_layer_fit backend_fit(const struct dc_profile_layer *l, const struct dc_config *in, char *why,
					     size_t n)
{
	if (l->attention == DC_ATTN_BACKEND_EAGER) {
		snprintf(why, n, "the probe's layer ran SDPA's memory-efficient kernel (layer.attention_backend "
				 "\"sdpa-efficient\"), which no training.attention_backend prices");
		return DC_LAYER_UNLIKE;
	}
	if ((int)in->training.attention_backend != l->attention && !l->attention_given) {
		snprintf(why, n, "the profile does not say which kernel the probe's SDPA ran (no layer.attention_backend: "
				 "a profile written before the probe recorded it), taken as FlashAttention-2 "
				 "(training.attention_backend \"sdpa\"); this run's is \"%s\"",
			 dc_attention_backend_name(in->training.attention_backend));
		return DC_LAYER_UNLIKE;
	}
	if ((int)in->training.attention_backend != l->attention) {
		snprintf(why, n, "the probe's layer ran SDPA's %s kernel (training.attention_backend \"%s\"); this run's is \"%s\"",
			 dc_attention_kernel_text((enum dc_attention_backend)l->attention),
			 dc_attention_backend_name((enum dc_attention_backend)l->attention),
			 dc_attention_backend_name(in->training.attention_backend));
		return DC_LAYER_UNLIKE;
	}
	return DC_LAYER_FITS;
}

/* The probe's block against the run's, the shape aside: DC_LAYER_FITS or
 * DC_LAYER_UNLIKE with the first difference named; `backend` 0 leaves the
 * attention kernel aside too (the same launches either way) */
static enum dc_profile_layer_fit kind_fit(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
					  size_t n, int backend)
{
	const struct dc_config *in = plan->in;
	const struct dc_model *m = &in->model;
	const struct dc_profile_layer *l = &p->layer;
	/* tools/gpu-probe.py's layer is torchtitan's Llama block: RMSNorm,
	 * rotary positions, softmax attention in every layer, and none of the
	 * features below; the first the model has is named */
	{
		const char *off = m->norm != DC_NORM_RMSNORM	  ? "model.norm is \"layernorm\""
				  : m->qkv_bias			  ? "model.qkv_bias is true"
				  : m->out_bias			  ? "model.out_bias is true"
				  : m->mlp_bias			  ? "model.mlp_bias is true"
				  : m->qk_norm			  ? "model.qk_norm is true"
				  : m->dropout			  ? "model.dropout is true"
				  : m->position_embeddings	  ? "model.position_embeddings is not 0"
				  : m->sliding_window		  ? "model.sliding_window is not 0"
				  : m->sandwich_norm		  ? "model.sandwich_norm is true"
				  : m->attention_sinks		  ? "model.attention_sinks is true"
				  : m->attention_output_gate	  ? "model.attention_output_gate is true"
				  : m->full_attention_interval ? "model.full_attention_interval is not 0"
							       : NULL;
		if (off) {
			snprintf(why, n, "the probe's layer is a Llama block; this model's is not (%s)", off);
			return DC_LAYER_OTHER_BLOCK;
		}
	}
	if (in->training.framework != DC_FRAMEWORK_TORCHTITAN) {
		snprintf(why, n, "the probe's layer is torchtitan's block (training.framework \"torchtitan\"); this run's is \"%s\"",
			 dc_framework_name(in->training.framework));
		return DC_LAYER_OTHER_BLOCK;
	}
	if (in->training.compile && !(l->compiled_fwd_bwd_s > 0)) {
		snprintf(why, n, "this run is compiled (training.compile true) and the profile has no compiled layer "
				 "(layer.compiled_fwd_bwd_s: gpu-probe.py --compile)");
		return DC_LAYER_UNLIKE;
	}
	/* tools/gpu-probe.py's layer calls F.scaled_dot_product_attention with
	 * PyTorch's own kernel order, and the profile names the kernel it ran
	 * (layer.attention_backend): FlashAttention-2 is the "sdpa" backend,
	 * cuDNN's the "cudnn" one (PyTorch's sdp_utils.cpp,
	 * check_prefer_cudnn_attention, puts it first on sm90 and sm10x with a
	 * recent cuDNN: newer than 9.15.0 at pytorch 001f694a;
	 * docs/compute-model.md, "Attention backends"), FA3 "fa3"; the
	 * memory-efficient kernel is none of distcalc's backends */
	if (backend && backend_fit(l, in, why, n) != DC_LAYER_FITS)
		return DC_LAYER_UNLIKE;
	if (in->precision.compute == DC_COMPUTE_FP8) {
		snprintf(why, n, "the probe times its layer in BF16; this run's precision.compute is \"fp8\"%s",
			 in->precision.attention == DC_ATTN_PRECISION_FP8 ? " (and precision.attention \"fp8\")" : "");
		return DC_LAYER_UNLIKE;
	}
	if (n)
		*why = 0;
	return DC_LAYER_FITS;
}

int dc_compute_profile_layer_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
				     size_t n)
{
	return dc_compute_profile_layer_fit(p, plan, why, n) == DC_LAYER_FITS;
}

const char *dc_attention_kernel_text(enum dc_attention_backend b)
{
	return b == DC_ATTN_BACKEND_CUDNN ? "cuDNN" : b == DC_ATTN_BACKEND_FA3 ? "FlashAttention-3" : "FlashAttention-2";
}

double dc_compute_profile_layer_measured_s(const struct dc_compute_profile *p, const struct dc_plan *plan)
{
	return plan->in->training.compile ? p->layer.compiled_fwd_bwd_s : p->layer.fwd_bwd_s;
}

double dc_compute_profile_layer_busy_s(const struct dc_compute_profile *p, const struct dc_plan *plan)
{
	return plan->in->training.compile ? p->layer.compiled_gpu_busy_s : p->layer.gpu_busy_s;
}

/* w's forward + backward at the profile's clocks: its clock-bound part
 * (fwd_matmul_s + bwd_matmul_s) x c->in_situ for a boost profile, the
 * memory-bound rest as it is (dc_compute_profile_layer_predicted_s) */
static double at_probe_clocks(const struct dc_compute_profile *p, const struct dc_compute *c,
			      const struct dc_work_time *w)
{
	double clock_bound = w->fwd_matmul_s + w->bwd_matmul_s;
	double rest = w->fwd_s + w->bwd_s - clock_bound;
	return (p->sustained ? 1.0 : c->in_situ) * clock_bound + rest;
}

double dc_compute_profile_layer_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c)
{
	/* the GPU's time, before a host floor stretched it (compute.h) */
	double f = c->dense_layer_host_factor > 1.0 ? c->dense_layer_host_factor : 1.0;
	return at_probe_clocks(p, c, &c->dense_layer) / f;
}

/* Appends ", " and the formatted text to why[n] (the first without the
 * comma). */
static void why_add(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why_add(char *why, size_t n, const char *fmt, ...)
{
	size_t len = strlen(why);
	va_list ap;
	if (len + 3 >= n)
		return;
	if (len) {
		memcpy(why + len, ", ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + len, n - len, fmt, ap);
	va_end(ap);
}

int dc_compute_profile_head_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
				    size_t n)
{
	const struct dc_config *in = plan->in;
	const struct dc_profile_head *h = &p->head;
	uint64_t cp = plan->layout.cp ? plan->layout.cp : 1;
	uint64_t tokens = in->training.micro_batch_size * in->model.seq_length / cp;
	why[0] = 0;
	if (!p->has_head)
		return 0;
	if (in->training.framework != DC_FRAMEWORK_TORCHTITAN) {
		snprintf(why, n, "the probe runs torchtitan's head and loss; this run's training.framework is \"%s\"",
			 dc_framework_name(in->training.framework));
		return 0;
	}
	if (plan->layout.tp != 1) {
		snprintf(why, n, "tp %llu: the probe's head is one GPU's, tp 1 (at tp > 1 torchtitan's loss runs across "
				 "the tp ranks)",
			 (unsigned long long)plan->layout.tp);
		return 0;
	}
	if (in->training.loss_chunks > 1) {
		snprintf(why, n, "training.loss_chunks %llu: the probe runs the whole logits at once",
			 (unsigned long long)in->training.loss_chunks);
		return 0;
	}
	if (in->model.mtp_layers) {
		snprintf(why, n, "model.mtp_layers %llu: this run's head holds the MTP modules too",
			 (unsigned long long)in->model.mtp_layers);
		return 0;
	}
	if (in->precision.fp8_lm_head) {
		snprintf(why, n, "precision.fp8_lm_head: the probe's output projection is BF16");
		return 0;
	}
	if (in->model.norm != DC_NORM_RMSNORM) {
		snprintf(why, n, "model.norm is not \"rmsnorm\": the probe's final norm is torchtitan's RMSNorm");
		return 0;
	}
	if (h->tokens != tokens)
		why_add(why, n, "tokens %llu, this run's %llu (micro batch x seq / cp)", (unsigned long long)h->tokens,
			(unsigned long long)tokens);
	if (h->hidden_size != in->model.hidden_size)
		why_add(why, n, "hidden %llu, this run's %llu", (unsigned long long)h->hidden_size,
			(unsigned long long)in->model.hidden_size);
	if (h->vocab_size != in->model.vocab_size)
		why_add(why, n, "vocab %llu, this run's %llu", (unsigned long long)h->vocab_size,
			(unsigned long long)in->model.vocab_size);
	if (why[0]) {
		char shape[240];
		snprintf(shape, sizeof(shape), "the profile's head ran another shape: %s", why);
		snprintf(why, n, "%s", shape);
		return 0;
	}
	return 1;
}

double dc_compute_profile_head_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c)
{
	return at_probe_clocks(p, c, &c->head);
}

int dc_compute_profile_optimizer_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
					 size_t n)
{
	const struct dc_config *in = plan->in;
	const struct dc_precision *pr = &in->precision;
	uint64_t upd = pr->master_bytes ? pr->master_bytes : pr->param_bytes;
	why[0] = 0;
	if (!p->has_optimizer)
		return 0;
	if (in->training.framework != DC_FRAMEWORK_TORCHTITAN) {
		snprintf(why, n,
			 "the probe runs torch's AdamW and clip_grad_norm_, as torchtitan calls them; this run's "
			 "training.framework is \"%s\"",
			 dc_framework_name(in->training.framework));
		return 0;
	}
	if (in->parallel.offload != DC_OFFLOAD_NONE) {
		snprintf(why, n, "parallel.offload: this run's step runs on the host");
		return 0;
	}
	/* FSDP2's states: the FP32 shard is the master, no copy to make */
	if (pr->master_bytes || upd != 4 || pr->grad_bytes != 4 || pr->optimizer_bytes != 8) {
		snprintf(why, n,
			 "the probe steps FP32 parameters with no master copy (4-byte parameters and gradients, 8 bytes "
			 "of moments: precision.preset \"fsdp2\", torchtitan's); this run updates %llu-byte %s with "
			 "%llu-byte gradients and %llu bytes of moments",
			 (unsigned long long)upd, pr->master_bytes ? "masters" : "parameters",
			 (unsigned long long)pr->grad_bytes, (unsigned long long)pr->optimizer_bytes);
		return 0;
	}
	return 1;
}

double dc_compute_profile_optimizer_measured_s(const struct dc_compute_profile *p, const struct dc_plan *plan)
{
	const struct dc_profile_optimizer *o = &p->optimizer;
	return (plan->in->training.optimizer_implementation == DC_OPT_IMPL_FOREACH ? o->foreach_step_s
										    : o->fused_step_s) +
	       o->clip_grad_norm_s;
}

double dc_compute_profile_optimizer_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c)
{
	double bytes = (double)p->optimizer.params * c->optimizer_bytes_per_param;
	return bytes / (c->hbm_bandwidth * c->memory_efficiency) + c->optimizer_passes * c->memory_overhead_s;
}

double dc_compute_profile_host_floor_s(const struct dc_compute_profile *p, const struct dc_plan *plan)
{
	const struct dc_model *m = &plan->in->model;
	int compiled = plan->in->training.compile;
	double wall = compiled ? p->layer.compiled_fwd_bwd_s : p->layer.fwd_bwd_s;
	double busy = compiled ? p->layer.compiled_gpu_busy_s : p->layer.gpu_busy_s;
	char why[8];
	if (!p->has_layer || !(wall > 0 && busy > 0) || busy >= DC_PROFILE_LAYER_BUSY_WARN * wall)
		return 0;
	/* the same block, so the same kernels in the same order, at any shape */
	if (m->num_experts || m->kv_lora_rank || p->layer.mlp != m->mlp ||
	    kind_fit(p, plan, why, sizeof(why), 0) != DC_LAYER_FITS)
		return 0;
	return wall;
}
