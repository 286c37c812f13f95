/* import_deepspeed.c - a DeepSpeed config JSON onto distcalc keys
 * (docs/importers.md, "DeepSpeed"). Names and meanings are DeepSpeed's
 * docs/_pages/config-json.md; the bytes of mixed precision are ZeRO's
 * (Rajbhandari et al. 2020 §3.1: 2 + 2 bytes of FP16/BF16 parameters and
 * gradients, 12 of FP32 master copy and Adam moments). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/util.h"
#include "import_int.h"

struct dctx {
	const char *name, *buf;
	size_t len;
	struct dc_import *imp;
	struct dc_diag *diag;
	int errors;
	/* the ZeRO-1/2 bucket in elements, 0 when not given; bytes once the
	 * precision is known */
	unsigned long long bucket_elements;
	/* the ZeRO stage as the file gives it (0 without zero_optimization),
	 * -1 when it is no stage; bf16_opt: DeepSpeed runs its BF16_Optimizer
	 * (bf16_optimizer_runs) */
	int stage, bf16_opt;
	/* offload_optimizer to the cpu (or the legacy cpu_offload) */
	int opt_offload;
	/* the object a message's key sits in ("bf16", "offload_param"), NULL
	 * at the top: line_of looks past its own key first (a trial's
	 * bf16's "enabled" was named at fp16's line) */
	const char *within;
	/* the name the file gives BF16's section: "bf16", or DeepSpeed's
	 * older "bfloat16", which it reads where "bf16" is absent
	 * (runtime/precision_config.py get_bfloat16_config: BFLOAT16_OLD,
	 * "keeping for backwards compatibility") */
	const char *bf16;
};

/* The `nth` (0-based) "key": in the text at or after `from` (a key, not
 * a value: a value is never followed by ':'; nor one written with
 * escapes), *line its line counted from the text's start; NULL when not
 * found. */
static const char *key_at(const struct dctx *d, const char *key, const char *from, size_t nth, unsigned *line)
{
	char pat[80];
	const char *end = d->buf + d->len;
	int n = snprintf(pat, sizeof(pat), "\"%s\"", key);
	*line = 1;
	if (n <= 0 || (size_t)n >= sizeof(pat))
		return NULL;
	for (const char *p = d->buf; p < from; p++)
		*line += *p == '\n';
	for (const char *p = from; p + n <= end; p++) {
		const char *q;
		if (*p == '\n') {
			(*line)++;
			continue;
		}
		if (memcmp(p, pat, (size_t)n) != 0 || (p > d->buf && p[-1] == '\\'))
			continue;
		for (q = p + n; q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'); q++)
			;
		if (q < end && *q == ':' && nth-- == 0)
			return p;
	}
	return NULL;
}

/* The line of the first "key": in the text (past the first "within" key
 * where d->within is set), 0 when not found: JSON's messages name it. */
static unsigned line_of(const struct dctx *d, const char *key)
{
	const char *from = d->buf, *sec;
	unsigned line;
	if (d->within && (sec = key_at(d, d->within, d->buf, 0, &line)) != NULL)
		from = sec;
	return key_at(d, key, from, 0, &line) ? line : 0;
}

static void err(struct dctx *d, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void err(struct dctx *d, const char *key, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(d->diag);
	va_end(ap);
	dc_diag_error(d->diag, DC_ERR_CONFIG, "%s: error: '%s': %s", dc_import_where(at, sizeof(at), d->name, line_of(d, key)),
		      key, text);
	d->errors++;
	free(msg);
}

/* The line of the `nth` (0-based) "key": in the text, 0 when not found
 * (a key written with escapes). Keys are counted as cJSON lists them, in
 * the text's order, so the nth member named `key` in a pre-order walk is
 * the nth "key": here (a value is never followed by ':'). */
static unsigned line_of_nth(const struct dctx *d, const char *key, size_t nth)
{
	unsigned line;
	return key_at(d, key, d->buf, nth, &line) ? line : 0;
}

/* How many members named `key` come before `node` in a pre-order walk
 * from `at`; *found set once `node` is reached. */
static size_t members_before(const cJSON *at, const cJSON *node, const char *key, int *found)
{
	size_t n = 0;
	for (const cJSON *c = at->child; c && !*found; c = c->next) {
		if (c == node) {
			*found = 1;
			break;
		}
		if (c->string && strcmp(c->string, key) == 0)
			n++;
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			n += members_before(c, node, key, found);
	}
	return n;
}

struct member {
	const cJSON *node;
	size_t order;
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->node->string, y->node->string);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A member given twice in one object is an error at its second line:
 * DeepSpeed reads the file with Python's json, which keeps the last value,
 * where every other reader of distcalc refuses (docs/importers.md). At
 * most 8 are named (each costs a walk of the file). O(n log n) per object. */
static void duplicates(struct dctx *d, const cJSON *root, const cJSON *obj, int *named)
{
	size_t n = 0, i;
	struct member *m;
	for (const cJSON *c = obj->child; c; c = c->next) {
		n++;
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			duplicates(d, root, c, named);
	}
	if (!cJSON_IsObject(obj) || n < 2)
		return;
	if (!(m = dc_malloc(n * sizeof(*m)))) {
		dc_diag_error(d->diag, DC_ERR_INTERNAL, "%s: error: out of memory", d->name);
		d->errors++;
		return;
	}
	i = 0;
	for (const cJSON *c = obj->child; c; c = c->next, i++)
		m[i] = (struct member){c, i};
	qsort(m, n, sizeof(*m), member_cmp);
	for (i = 1; i < n; i++) {
		char at[600];
		int found = 0;
		size_t nth;
		unsigned first, line;
		if (strcmp(m[i].node->string, m[i - 1].node->string) != 0)
			continue;
		d->errors++;
		if ((*named)++ >= 8)
			continue;
		nth = members_before(root, m[i].node, m[i].node->string, &found);
		line = line_of_nth(d, m[i].node->string, nth);
		found = 0;
		first = line_of_nth(d, m[i - 1].node->string, members_before(root, m[i - 1].node, m[i].node->string, &found));
		if (first)
			dc_diag_error(d->diag, DC_ERR_CONFIG,
				      "%s: error: '%s' given twice (first on line %u), which DeepSpeed refuses too "
				      "(runtime/config.py reads it with dict_raise_error_on_duplicate_keys); give it once",
				      dc_import_where(at, sizeof(at), d->name, line), m[i].node->string, first);
		else
			dc_diag_error(d->diag, DC_ERR_CONFIG,
				      "%s: error: '%s' given twice, which DeepSpeed refuses too (runtime/config.py reads it "
				      "with dict_raise_error_on_duplicate_keys); give it once",
				      dc_import_where(at, sizeof(at), d->name, line), m[i].node->string);
	}
	free(m);
}

static void warn(struct dctx *d, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warn(struct dctx *d, const char *key, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(d->diag);
	va_end(ap);
	dc_diag_warn(d->diag, "%s: '%s': %s", dc_import_where(at, sizeof(at), d->name, line_of(d, key)), key, text);
	free(msg);
}

static void set(struct dctx *d, const char *path, const char *json, const char *key)
{
	if (dc_import_set(d->imp, path, json, key, line_of(d, key), d->name, d->diag) != 0)
		d->errors++;
}

/* A whole number >= 1 (0 when zero_ok); "auto" is the Hugging Face
 * Trainer's to fill in. */
static int whole(struct dctx *d, const cJSON *v, const char *key, int zero_ok, unsigned long long *out)
{
	if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
		err(d, key, "\"auto\" is filled in by the Hugging Face Trainer; give the number it would use");
		return -1;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < (zero_ok ? 0 : 1) || v->valuedouble > 9007199254740992.0) {
		err(d, key, "expected a whole number from %d", zero_ok ? 0 : 1);
		return -1;
	}
	*out = (unsigned long long)v->valuedouble;
	return 0;
}

static void count(struct dctx *d, const cJSON *obj, const char *key, const char *path)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	unsigned long long n;
	char t[32];
	if (!v || whole(d, v, key, 0, &n) != 0)
		return;
	snprintf(t, sizeof(t), "%llu", n);
	set(d, path, t, key);
}

/* "enabled": true / false / absent; -1 after an error. */
static int enabled(struct dctx *d, const cJSON *root, const char *section)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, section), *e;
	if (!s)
		return 0;
	if (!cJSON_IsObject(s)) {
		err(d, section, "expected an object");
		return -1;
	}
	e = cJSON_GetObjectItemCaseSensitive(s, "enabled");
	if (!e) {
		/* DeepSpeed reads a section without "enabled" as off: its
		 * get_bfloat16_enabled / get_fp16_enabled / the AMP reader take
		 * get_scalar_param(section, "enabled", *_ENABLED_DEFAULT), each
		 * default False (runtime/constants.py, runtime/config.py); a
		 * trial's {"bf16": {}} was priced as mixed precision where
		 * DeepSpeed trains FP32. Said, as a reader may mean it on */
		warn(d, section, "no \"enabled\" in '%s': DeepSpeed reads the section as off (its default, False), so "
				 "this run is priced without it; give \"enabled\": true to turn it on",
		     section);
		return 0;
	}
	if (cJSON_IsString(e) && strcmp(e->valuestring, "auto") == 0) {
		d->within = section;
		err(d, "enabled", "\"auto\" in '%s' is filled in by the Hugging Face Trainer; give true or false", section);
		d->within = NULL;
		return -1;
	}
	if (!cJSON_IsBool(e)) {
		d->within = section;
		err(d, "enabled", "in '%s': expected true or false", section);
		d->within = NULL;
		return -1;
	}
	return cJSON_IsTrue(e) ? 1 : 0;
}

static int listed(const char *const *list, const char *k);

/* offload_optimizer / offload_param: 1 for cpu, 0 for none or absent. */
static int offload(struct dctx *d, const cJSON *zero, const char *key, unsigned long long stage)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(zero, key), *dev;
	if (!o || cJSON_IsNull(o))
		return 0;
	if (!cJSON_IsObject(o)) {
		err(d, key, "expected an object with \"device\"");
		return -1;
	}
	dev = cJSON_GetObjectItemCaseSensitive(o, "device");
	if (!cJSON_IsString(dev)) {
		err(d, key, "expected \"device\": \"cpu\", \"nvme\" or \"none\"");
		return -1;
	}
	if (strcmp(dev->valuestring, "none") == 0)
		return 0;
	if (strcmp(dev->valuestring, "cpu") != 0) {
		err(d, key, "device \"%s\" is not mapped (distcalc offloads to the host's memory: \"cpu\")",
		    dev->valuestring);
		return -1;
	}
	{
		/* the rest of the object (zero/offload_config.py at edaa7221):
		 * the copies' buffers, pinning and pipelining change no byte
		 * distcalc counts; a ratio below 1 keeps a share of the
		 * optimizer on the GPU (:99), which distcalc does not price */
		static const char *const param_quiet[] = {"device", "nvme_path", "buffer_count", "buffer_size",
							  "max_in_cpu", "pin_memory", NULL};
		static const char *const opt_quiet[] = {"device", "nvme_path", "buffer_count", "pin_memory",
							"pipeline_read", "pipeline_write", "fast_init",
							"cpuadam_cores_perc", NULL};
		int opt = strcmp(key, "offload_optimizer") == 0;
		const cJSON *c;
		int bad = 0;
		d->within = key; /* its members' lines past its own */
		cJSON_ArrayForEach(c, o) {
			/* ratio and super_offload are "Only valid with ZeRO Stage
			 * 3" (offload_config.py:99-103): below it they change
			 * nothing */
			if (opt && strcmp(c->string, "ratio") == 0) {
				if (!cJSON_IsNumber(c) || !(c->valuedouble >= 0 && c->valuedouble <= 1)) {
					err(d, "ratio", "in offload_optimizer: expected a number from 0 to 1");
					bad = 1;
				} else if (c->valuedouble != 1.0 && stage == 3) {
					err(d, "ratio", "in offload_optimizer: a ratio below 1 offloads that share of the optimizer "
							"and keeps the rest on the GPU, which distcalc does not price (it offloads "
							"all of it): remove it, or give 1");
					bad = 1;
				} else if (c->valuedouble != 1.0) {
					warn(d, "ratio", "in offload_optimizer: DeepSpeed reads it at ZeRO stage 3 alone "
							 "(offload_config.py:99-100): at stage %llu the whole optimizer is offloaded",
					     stage);
				}
			} else if (opt && strcmp(c->string, "super_offload") == 0) {
				if (!cJSON_IsBool(c)) {
					err(d, "super_offload", "in offload_optimizer: expected true or false");
					bad = 1;
				} else if (cJSON_IsTrue(c) && stage == 3) {
					err(d, "super_offload", "in offload_optimizer: SuperOffload (GH200/GB200's superchip "
								"offload) is not priced");
					bad = 1;
				} else if (cJSON_IsTrue(c)) {
					warn(d, "super_offload", "in offload_optimizer: DeepSpeed reads it at ZeRO stage 3 alone "
								 "(offload_config.py:102-103): at stage %llu it changes nothing",
					     stage);
				}
			} else if (!listed(opt ? opt_quiet : param_quiet, c->string)) {
				err(d, c->string, "not an %s key distcalc maps or knows to change nothing it computes "
						  "(docs/importers.md lists both)",
				    key);
				bad = 1;
			}
		}
		d->within = NULL;
		if (bad)
			return -1;
	}
	return 1;
}

/* Keys that change nothing distcalc computes (DeepSpeed's config-json.md). */
static const char *const top_ignored[] = {
	"gradient_clipping", "steps_per_print", "wall_clock_breakdown", "dump_state", "scheduler",
	"zero_allow_untested_optimizer", "prescale_gradients", "gradient_predivide_factor", "sparse_gradients",
	"tensorboard", "wandb", "csv_monitor", "comet", "comms_logger", "flops_profiler", "memory_breakdown",
	"logging", "checkpoint", "autotuning", "seed", NULL,
};
/* Sections that switch a feature on with "enabled": true, off by default
 * (DeepSpeed's config-json.md); off, they change nothing (a trial:
 * DeepSpeed-Chat's published config failed on "hybrid_engine": {"enabled":
 * false}); on, distcalc does not price them. elasticity, on, takes over
 * the batch sizes (runtime/config.py, elasticity's
 * compute_elastic_config), which distcalc then does not know. */
static const char *const switched[] = {
	"hybrid_engine", "compile", "curriculum_learning", "data_efficiency", "eigenvalue", "progressive_layer_drop",
	"quantize_training", "nebula", "torch_autocast", "elasticity", NULL,
};
static const char *const zero_ignored[] = {
	"contiguous_gradients", "reduce_scatter", "allgather_partitions",
	"sub_group_size", "round_robin_gradients", "stage3_max_live_parameters", "stage3_max_reuse_distance",
	"stage3_prefetch_bucket_size", "stage3_param_persistence_threshold", "stage3_gather_16bit_weights_on_model_save",
	"gather_16bit_weights_on_model_save", "stage3_gather_fp16_weights_on_model_save", "load_from_fp32_weights",
	"elastic_checkpoint", "ignore_unused_parameters", "cpu_offload_use_pin_memory", NULL,
};

/* The first of `keys` present in `obj`: the key a message is placed at */
static const char *within_first(const cJSON *obj, const char *const *keys)
{
	for (int i = 0; keys[i]; i++)
		if (cJSON_GetObjectItemCaseSensitive(obj, keys[i]))
			return keys[i];
	return keys[0];
}

static int listed(const char *const *list, const char *k)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], k) == 0)
			return 1;
	return 0;
}

/* DeepSpeed's names of each type (DtypeEnum, deepspeed/inference/config.py:15-18) */
static const char *const dtype_names[3][5] = {
	{"fp32", "torch.float32", "float32", "float", NULL},
	{"bf16", "torch.bfloat16", "bfloat16", "bfloat", NULL},
	{"fp16", "torch.float16", "float16", "half", NULL},
};

/* reduce_bucket_size and allgather_bucket_size count elements
 * (deepspeed/runtime/zero/config.py:113, :132, 5e8 each). ZeRO-1/2 reduce
 * the gradients in the one and gather the updated parameters in the other;
 * distcalc's parallel.bucket_size is one size in bytes for both, and the
 * gradients and parameters this importer gives have the same width, so it
 * maps them when they hold as many elements. Without ZeRO the engine
 * all-reduces in buckets of its own (engine.py:160, :2891); ZeRO-3's
 * reduce-scatter runs as distcalc's FSDP, without these buckets. */
static void map_buckets(struct dctx *d, const cJSON *zero, unsigned long long stage)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(zero, "reduce_bucket_size");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(zero, "allgather_bucket_size");
	unsigned long long nr = 500000000, na = 500000000;
	if (!r && !a)
		return;
	if ((r && whole(d, r, "reduce_bucket_size", 0, &nr) != 0) || (a && whole(d, a, "allgather_bucket_size", 0, &na) != 0))
		return;
	if (d->bf16_opt) {
		/* BF16_Optimizer has no reduce_gradients: the engine's
		 * allreduce_gradients all-reduces its FP32 gradients in
		 * buckets of its own (buffered_allreduce_fallback,
		 * MEMORY_OPT_ALLREDUCE_SIZE), and only its all-gather of the
		 * parameters reads allgather_bucket_size */
		warn(d, r ? "reduce_bucket_size" : "allgather_bucket_size",
		     "not mapped under DeepSpeed's BF16_Optimizer (bf16 at ZeRO stage %llu): the engine all-reduces the "
		     "FP32 gradients in buckets of its own, 5e8 elements (engine.py MEMORY_OPT_ALLREDUCE_SIZE), which "
		     "training.framework deepspeed prices; allgather_bucket_size sizes only the parameters' all-gather",
		     stage);
		return;
	}
	if (stage == 0 || stage == 3) {
		warn(d, r ? "reduce_bucket_size" : "allgather_bucket_size", "%s",
		     stage == 0 ? "changes nothing distcalc computes at ZeRO stage 0 (the engine's all-reduce buckets "
				  "are its own)"
				: "not priced at ZeRO stage 3, which distcalc prices as FSDP, each unit's gradients "
				  "reduce-scattered as one: DeepSpeed's stage-3 reduce bucket (reduce_bucket_size x the "
				  "gradients' bytes on the GPU) is not in the memory ledger");
		return;
	}
	if (nr != na) {
		err(d, r ? "reduce_bucket_size" : "allgather_bucket_size",
		    "%llu elements for the gradients' reduction but %llu for the parameters' gather%s; distcalc's "
		    "parallel.bucket_size is one size for both: give them equal, or remove them and give --set "
		    "parallel.bucket_size=BYTES",
		    nr, na, r && a ? "" : " (DeepSpeed's default 5e8 for the one left out)");
		return;
	}
	if (nr == 0 || nr > (1ull << 53) / 4) {
		err(d, r ? "reduce_bucket_size" : "allgather_bucket_size", "expected a whole number from 1 to 2^51");
		return;
	}
	d->bucket_elements = nr;
}

/* All three of the batch: DeepSpeed asserts train_batch_size =
 * train_micro_batch_size_per_gpu x gradient_accumulation_steps x the
 * data-parallel world size (runtime/config.py, _batch_assertion). The
 * world is the base config's, which the loader checks against
 * training.grad_accum_steps (its rule on global_batch_size); here the
 * product of the other two must divide train_batch_size. */
static void batch_triple(struct dctx *d, const cJSON *root)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "train_batch_size");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "train_micro_batch_size_per_gpu");
	unsigned long long tb, mb, ga;
	uint64_t per;
	char v[32];
	if (whole(d, cJSON_GetObjectItemCaseSensitive(root, "gradient_accumulation_steps"), "gradient_accumulation_steps",
		  0, &ga) != 0)
		return; /* said why */
	/* the other two were read by count(), which said why when not whole */
	if (!cJSON_IsNumber(t) || !cJSON_IsNumber(m) || !(t->valuedouble >= 1) || !(m->valuedouble >= 1) ||
	    t->valuedouble > 9007199254740992.0 || m->valuedouble > 9007199254740992.0 ||
	    t->valuedouble != floor(t->valuedouble) || m->valuedouble != floor(m->valuedouble))
		return;
	tb = (unsigned long long)t->valuedouble;
	mb = (unsigned long long)m->valuedouble;
	if (dc_mul_u64(mb, ga, &per) || tb % per != 0) {
		err(d, "gradient_accumulation_steps",
		    "train_batch_size %llu is not train_micro_batch_size_per_gpu %llu x gradient_accumulation_steps %llu "
		    "x a whole number of data-parallel GPUs, as DeepSpeed asserts; give the three consistent",
		    tb, mb, ga);
		return;
	}
	snprintf(v, sizeof(v), "%llu", ga);
	set(d, "training.grad_accum_steps", v, "gradient_accumulation_steps");
}

/* A deprecated offload switch `key` (cpu_offload, cpu_offload_param):
 * 1 when true, so the offload `now` names is on; 0 when false or absent.
 * True beside `now` itself it is refused. */
static int legacy_offload(struct dctx *d, const cJSON *zero, const char *key, const char *now)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(zero, key);
	if (!c || cJSON_IsNull(c))
		return 0;
	if (!cJSON_IsBool(c)) {
		err(d, key, "expected true or false");
		return 0;
	}
	if (cJSON_IsTrue(c) && cJSON_GetObjectItemCaseSensitive(zero, now)) {
		err(d, key, "deprecated for %s, which the file gives too: give %s alone", now, now);
		return 0;
	}
	return cJSON_IsTrue(c) ? 1 : 0;
}

static void map_zero(struct dctx *d, const cJSON *root)
{
	static const char *const stages[] = {"\"none\"", "\"zero1\"", "\"zero2\"", "\"fsdp\""};
	const cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization"), *c, *st;
	unsigned long long stage = 0;
	int oo, op;
	if (!zero) {
		/* BF16_Optimizer shards the master and Adam's states as ZeRO-1
		 * does (bf16_optimizer_runs) */
		set(d, "parallel.sharding", d->bf16_opt ? "\"zero1\"" : "\"none\"", "zero_optimization");
		return;
	}
	if (!cJSON_IsObject(zero)) {
		err(d, "zero_optimization", "expected an object");
		return;
	}
	cJSON_ArrayForEach(c, zero) {
		if (!listed(zero_ignored, c->string) && strcmp(c->string, "stage") != 0 &&
		    strcmp(c->string, "offload_optimizer") != 0 && strcmp(c->string, "offload_param") != 0 &&
		    strcmp(c->string, "overlap_comm") != 0 && strcmp(c->string, "reduce_bucket_size") != 0 &&
		    strcmp(c->string, "allgather_bucket_size") != 0 && strcmp(c->string, "cpu_offload") != 0 &&
		    strcmp(c->string, "cpu_offload_param") != 0)
			err(d, c->string, "not a zero_optimization key distcalc maps or knows to change nothing it computes "
					  "(docs/importers.md lists both)");
	}
	st = cJSON_GetObjectItemCaseSensitive(zero, "stage");
	if (st && whole(d, st, "stage", 1, &stage) == 0 && stage > 3)
		err(d, "stage", "expected 0, 1, 2 or 3, got %llu", stage);
	else if (stage <= 3)
		set(d, "parallel.sharding", d->bf16_opt ? stages[1] : stages[stage], "zero_optimization.stage");
	/* ZeRO-3's own tuning: which parameters stay gathered, how far ahead
	 * it prefetches, how many it keeps live, the optimizer's sub-groups.
	 * distcalc gathers ZeRO-3 as FSDP units (its memory ledger's root and
	 * two layers), so they are not priced: a count they must be, and a
	 * warning that they move memory and time (a trial's persistence
	 * threshold 1e10, every parameter kept gathered, moved nothing) */
	{
		static const char *const tuning[] = {"stage3_param_persistence_threshold", "stage3_prefetch_bucket_size",
						     "stage3_max_live_parameters", "stage3_max_reuse_distance",
						     "sub_group_size", NULL};
		char names[256] = "";
		size_t used = 0;
		for (int i = 0; tuning[i]; i++) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(zero, tuning[i]);
			if (!t)
				continue;
			/* "auto": the Hugging Face Trainer's, from the hidden size;
			 * not priced either way, so not refused */
			if (!(cJSON_IsString(t) && strcmp(t->valuestring, "auto") == 0) &&
			    (!cJSON_IsNumber(t) || !(t->valuedouble >= 0) || !isfinite(t->valuedouble))) {
				err(d, tuning[i], "expected a count, 0 or more, or \"auto\"");
				continue;
			}
			if (stage == 3 && used < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
							 tuning[i]);
		}
		if (used)
			warn(d, within_first(zero, tuning),
			     "%s: not priced: distcalc gathers ZeRO-3's parameters as FSDP units (the memory ledger's "
			     "root and two layers at a time, docs/memory-conventions.md), while DeepSpeed's persistence, "
			     "prefetch, live-parameter and sub-group limits move what it holds and when it gathers",
			     names);
	}
	oo = offload(d, zero, "offload_optimizer", stage);
	op = offload(d, zero, "offload_param", stage);
	/* the deprecated switches, which DeepSpeed still reads as a cpu
	 * offload_optimizer and offload_param (zero/config.py:181-213 at
	 * edaa7221) */
	if (legacy_offload(d, zero, "cpu_offload", "offload_optimizer"))
		oo = 1;
	if (legacy_offload(d, zero, "cpu_offload_param", "offload_param"))
		op = 1;
	d->opt_offload = oo == 1;
	if (oo == 1 && stage == 0)
		/* no ZeRO optimizer at stage 0 (engine.py:1980-1997), so
		 * nothing reads the offload */
		err(d, cJSON_GetObjectItemCaseSensitive(zero, "offload_optimizer") ? "offload_optimizer" : "cpu_offload",
		    "needs ZeRO stage 1, 2 or 3: at stage 0 DeepSpeed builds no ZeRO optimizer and offloads nothing");
	else if (op == 1 && stage != 3)
		err(d, cJSON_GetObjectItemCaseSensitive(zero, "offload_param") ? "offload_param" : "cpu_offload_param",
		    "needs ZeRO stage 3, as DeepSpeed does");
	else if (op == 1 && oo != 1)
		err(d, cJSON_GetObjectItemCaseSensitive(zero, "offload_param") ? "offload_param" : "cpu_offload_param",
		    "without offload_optimizer to the cpu: distcalc offloads the parameters only with the optimizer "
		    "(parallel.offload \"optimizer+params\")");
	else if (op == 1)
		set(d, "parallel.offload", "\"optimizer+params\"", "offload_param");
	else if (oo == 1)
		set(d, "parallel.offload", "\"optimizer\"", "offload_optimizer");
	c = cJSON_GetObjectItemCaseSensitive(zero, "overlap_comm");
	if (c && !cJSON_IsBool(c))
		err(d, "overlap_comm", "expected true or false");
	else if (c)
		set(d, stage == 3 ? "overlap.fsdp_prefetch" : "overlap.dp", cJSON_IsTrue(c) ? "true" : "false",
		    "overlap_comm");
	map_buckets(d, zero, stage);
}

/* The keys of the precision objects (precision_config.py at edaa7221)
 * and data_types (runtime/config.py:638, engine.py:1485-1496): loss
 * scaling changes nothing distcalc counts; FP16 or BF16 master weights
 * and gradients, BF16 optimizer states, and a gradient accumulation type
 * other than the model's change the bytes the presets hold: refused.
 * `on`: the enabled one ("bf16", "fp16"), NULL for FP32. */
static void precision_keys(struct dctx *d, const cJSON *root, const char *on)
{
	static const char *const fp16_quiet[] = {"enabled", "auto_cast", "loss_scale", "initial_scale_power",
						 "loss_scale_window", "hysteresis", "consecutive_hysteresis",
						 "min_loss_scale", NULL};
	static const char *const bf16_quiet[] = {"enabled", "immediate_grad_update", "check_grad_overflow", NULL};
	const char *const sections[] = {"fp16", d->bf16};
	const cJSON *c, *dt = cJSON_GetObjectItemCaseSensitive(root, "data_types");
	for (int i = 0; i < 2; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, sections[i]);
		d->within = NULL;
		if (!cJSON_IsObject(s))
			continue;
		cJSON_ArrayForEach(c, s) {
			if (listed(i ? bf16_quiet : fp16_quiet, c->string))
				continue;
			if (cJSON_IsFalse(c) && (strcmp(c->string, "fp16_master_weights_and_grads") == 0 ||
						 strcmp(c->string, "bf16_master_weights_and_grads") == 0 ||
						 strcmp(c->string, "bf16_optimizer_states") == 0))
				continue;
			d->within = sections[i];
			err(d, c->string, "in %s: %s", sections[i],
			    strcmp(c->string, "fp16_master_weights_and_grads") == 0 ||
				    strcmp(c->string, "bf16_master_weights_and_grads") == 0 ||
				    strcmp(c->string, "bf16_optimizer_states") == 0
				    ? "16-bit master weights, gradients or optimizer states are not the presets' bytes: remove "
				      "it and give --set precision.master_bytes, grad_bytes or optimizer_bytes"
				    : "not a key distcalc maps or knows to change nothing it computes (docs/importers.md lists "
				      "both)");
		}
	}
	d->within = NULL;
	if (!dt)
		return;
	if (!cJSON_IsObject(dt)) {
		err(d, "data_types", "expected an object");
		return;
	}
	cJSON_ArrayForEach(c, dt) {
		const char *const(*names)[5] = dtype_names;
		int t = on && strcmp(on, d->bf16) == 0 ? 1 : on ? 2 : 0;
		const char *model = names[t][0];
		if (strcmp(c->string, "grad_accum_dtype") == 0) {
			/* BF16 accumulation without ZeRO: DeepSpeed's
			 * _do_optimizer_sanity_check (engine.py) raises
			 * NotImplementedError on it (its pipeline engine aside) */
			if (t == 1 && d->stage == 0 && cJSON_IsString(c) && listed(names[1], c->valuestring)) {
				err(d, "grad_accum_dtype",
				    "in data_types: bf16 gradient accumulation with bf16 at ZeRO stage 0, which DeepSpeed "
				    "refuses (engine.py _do_optimizer_sanity_check raises NotImplementedError \"Bfloat16 "
				    "wrapper must use a gradient accumulation type of fp32, enable ZeRO to use Bfloat16 "
				    "gradient accumulation\"; its pipeline engine alone accepts it): remove it for fp32, "
				    "or give zero_optimization.stage 1 or above");
				continue;
			}
			/* the model's own type is DeepSpeed's default; fp32
			 * where DeepSpeed then runs its BF16_Optimizer */
			if (cJSON_IsNull(c) || (cJSON_IsString(c) && listed(names[t], c->valuestring)) ||
			    (d->bf16_opt && cJSON_IsString(c) && listed(names[0], c->valuestring)))
				continue;
			err(d, "grad_accum_dtype", "in data_types: gradients accumulated in %s, not the model's %s, change the "
						   "gradients' bytes (DeepSpeed then runs its BF16 optimizer or refuses the mix: "
						   "engine.py:1978-2021): remove it and give --set precision.grad_bytes",
			    cJSON_IsString(c) ? c->valuestring : "another type", model);
		} else {
			err(d, c->string, "in data_types: not a key distcalc maps");
		}
	}
}

/* Does DeepSpeed run its BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py)?
 * Read quietly from the file as given, before the keys are mapped (each
 * key's own reader says what is wrong with it). DeepSpeed's engine.py (at
 * edaa7221; DeepSpeed is not mirrored here, so the lines are not pinned):
 * get_data_types() makes the gradient accumulation type FP32 when the
 * model is bf16, ZeRO is off and data_types.grad_accum_dtype is not given
 * (else the model's type, or the one given); _do_optimizer_sanity_check
 * then returns BFLOAT16 for bf16 with FP32 accumulation without ZeRO, and
 * at ZeRO stage 1 without CPU offload (zero_cpu_offload: offload_optimizer
 * on cpu or nvme), and _configure_bf16_optimizer builds BF16_Optimizer.
 * Sets d->stage (0 without zero_optimization, -1 when no stage) and
 * returns 1 when it runs. */
static int bf16_optimizer_runs(struct dctx *d, const cJSON *root)
{
	const cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization");
	const cJSON *bf = cJSON_GetObjectItemCaseSensitive(root, d->bf16);
	const cJSON *fp = cJSON_GetObjectItemCaseSensitive(root, "fp16");
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(root, "data_types");
	const cJSON *acc = cJSON_IsObject(dt) ? cJSON_GetObjectItemCaseSensitive(dt, "grad_accum_dtype") : NULL;
	const cJSON *st, *e, *oo, *co;
	int fp32_acc, offloaded;
	d->stage = 0;
	if (zero) {
		st = cJSON_IsObject(zero) ? cJSON_GetObjectItemCaseSensitive(zero, "stage") : NULL;
		if (!cJSON_IsObject(zero) || (st && (!cJSON_IsNumber(st) || (st->valuedouble != 0.0 && st->valuedouble != 1.0 &&
									 st->valuedouble != 2.0 && st->valuedouble != 3.0))))
			d->stage = -1;
		else if (st)
			d->stage = (int)st->valuedouble;
	}
	/* bf16 on ("enabled": true; a section without it is off, DeepSpeed's
	 * default), fp16 not */
	e = cJSON_IsObject(bf) ? cJSON_GetObjectItemCaseSensitive(bf, "enabled") : NULL;
	if (!cJSON_IsObject(bf) || !cJSON_IsTrue(e))
		return 0;
	e = cJSON_IsObject(fp) ? cJSON_GetObjectItemCaseSensitive(fp, "enabled") : NULL;
	if (fp && (!cJSON_IsObject(fp) || (e && !cJSON_IsFalse(e))))
		return 0;
	fp32_acc = cJSON_IsString(acc) && listed(dtype_names[0], acc->valuestring);
	if (d->stage == 0)
		return !acc || cJSON_IsNull(acc) || fp32_acc;
	if (d->stage != 1 || !fp32_acc)
		return 0;
	oo = cJSON_GetObjectItemCaseSensitive(zero, "offload_optimizer");
	e = cJSON_IsObject(oo) ? cJSON_GetObjectItemCaseSensitive(oo, "device") : NULL;
	co = cJSON_GetObjectItemCaseSensitive(zero, "cpu_offload");
	offloaded = (cJSON_IsString(e) && (strcmp(e->valuestring, "cpu") == 0 || strcmp(e->valuestring, "nvme") == 0)) ||
		    cJSON_IsTrue(co);
	return !offloaded;
}

/* Does the text end with an object, an array or a string still open?
 * Brackets counted outside strings, a backslash escaping the next byte in
 * one. */
static int unclosed(const char *buf, size_t len)
{
	long depth = 0;
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = 0;
		} else if (ch == '"') {
			in_str = 1;
		} else if (ch == '{' || ch == '[') {
			depth++;
		} else if ((ch == '}' || ch == ']') && depth > 0) {
			depth--;
		}
	}
	return in_str || depth > 0;
}

int dc_import_deepspeed(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag)
{
	struct dctx d = {name, buf, len, imp, diag, 0, 0, 0, 0, 0, NULL, "bf16"};
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	const cJSON *c, *opt;
	int bf16, fp16;

	if (!root || !cJSON_IsObject(root)) {
		const char *at = cJSON_GetErrorPtr();
		unsigned line = 1;
		if (!root && at && at >= buf && at <= buf + len)
			for (const char *p = buf; p < at; p++)
				line += *p == '\n';
		/* the text ends inside an object, an array or a string it
		 * opened (a file cut short), not at a syntax JSON lacks */
		int at_end = !root && unclosed(buf, len);
		if (root)
			dc_diag_error(diag, DC_ERR_CONFIG, "%s:1: error: not a JSON object (a DeepSpeed config is one)", name);
		else if (at_end)
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s:%u: error: the JSON ends here, before every object, array and string it opened is "
				      "closed (a file cut short?)",
				      name, line);
		else
			/* DeepSpeed reads a config file with hjson
			 * (deepspeed/runtime/config.py:699 at edaa7221), which
			 * takes comments, trailing commas and unquoted keys */
			dc_diag_error(diag, DC_ERR_CONFIG,
				      "%s:%u: error: not strict JSON here (DeepSpeed reads its configs with hjson, which takes "
				      "comments, trailing commas and unquoted keys; distcalc reads JSON: remove them)",
				      name, line);
		cJSON_Delete(root);
		return -1;
	}
	if (end) {
		/* text after the config's object (a second object, a comment):
		 * hjson refuses trailing characters too */
		unsigned line = 1;
		const char *p = end;
		while (p < buf + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\0'))
			p++;
		if (p < buf + len) {
			for (const char *q = buf; q < p; q++)
				line += *q == '\n';
			dc_diag_error(diag, DC_ERR_CONFIG, "%s:%u: error: text after the config's JSON object: remove it", name,
				      line);
			cJSON_Delete(root);
			return -1;
		}
	}
	{
		int named = 0;
		duplicates(&d, root, root, &named);
		if (d.errors) {
			if (named > 8)
				dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %d more keys given twice", name, named - 8);
			cJSON_Delete(root);
			return -1;
		}
	}
	if (cJSON_GetObjectItemCaseSensitive(root, "bfloat16")) {
		if (cJSON_GetObjectItemCaseSensitive(root, "bf16"))
			err(&d, "bfloat16", "given beside bf16: DeepSpeed reads bfloat16 only where bf16 is absent "
					    "(runtime/precision_config.py get_bfloat16_config), so this one changes nothing; "
					    "remove it");
		else
			d.bf16 = "bfloat16";
	}
	cJSON_ArrayForEach(c, root) {
		static const char *const mapped[] = {"train_batch_size", "train_micro_batch_size_per_gpu",
						     "gradient_accumulation_steps", "zero_optimization", "bf16", "bfloat16", "fp16",
						     "optimizer", "activation_checkpointing", "amp", "data_types", NULL};
		if (strcmp(c->string, "compile") == 0 && cJSON_IsObject(c) &&
		    (cJSON_GetObjectItemCaseSensitive(c, "deepcompile") || cJSON_GetObjectItemCaseSensitive(c, "enabled"))) {
			/* DeepSpeed's CompileConfig (deepspeed/compile/config.py at
			 * edaa7221) is switched by deepcompile and forbids other
			 * keys (a review: {"deepcompile": true} imported without a
			 * word) */
			const cJSON *dcmp = cJSON_GetObjectItemCaseSensitive(c, "deepcompile");
			if (cJSON_GetObjectItemCaseSensitive(c, "enabled"))
				err(&d, c->string, "'enabled': DeepSpeed's compile section has no such key (its switch is "
						   "\"deepcompile\"), and DeepSpeed refuses it");
			else if (!cJSON_IsBool(dcmp))
				err(&d, c->string, "'deepcompile': expected true or false");
			else if (cJSON_IsTrue(dcmp))
				err(&d, c->string, "'deepcompile': true: DeepCompile reorders ZeRO's gathers and may offload "
						   "the optimizer states, which distcalc does not price; set it false (or remove "
						   "the section) to import the rest");
		} else if (listed(switched, c->string)) {
			const cJSON *on = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "enabled") : NULL;
			if (!cJSON_IsObject(c))
				err(&d, c->string, "expected an object");
			else if (on && !cJSON_IsBool(on))
				err(&d, c->string, "'enabled': expected true or false");
			else if (cJSON_IsTrue(on))
				err(&d, c->string,
				    strcmp(c->string, "elasticity") == 0
					    ? "enabled: DeepSpeed's elasticity then chooses the micro batch and the accumulation "
					      "from its own ranges, which distcalc does not know; set enabled false and give the "
					      "batch keys of the run"
					    : "enabled: distcalc does not price it; set enabled false (or remove it) to import the "
					      "rest");
		} else if (!listed(mapped, c->string) && !listed(top_ignored, c->string))
			err(&d, c->string, "a key distcalc neither maps nor knows to change nothing it computes "
					   "(docs/importers.md lists both); remove it to import the rest");
	}
	count(&d, root, "train_micro_batch_size_per_gpu", "training.micro_batch_size");
	count(&d, root, "train_batch_size", "training.global_batch_size");
	if (!cJSON_GetObjectItemCaseSensitive(root, "train_batch_size"))
		count(&d, root, "gradient_accumulation_steps", "training.grad_accum_steps");
	else if (cJSON_GetObjectItemCaseSensitive(root, "gradient_accumulation_steps") &&
		 cJSON_GetObjectItemCaseSensitive(root, "train_micro_batch_size_per_gpu"))
		batch_triple(&d, root);
	else if (!cJSON_GetObjectItemCaseSensitive(root, "train_micro_batch_size_per_gpu")) {
		/* DeepSpeed derives the micro batch from the other two and the
		 * data-parallel world, its accumulation 1 when train_batch_size
		 * comes alone (runtime/config.py, _set_batch_related_parameters):
		 * the accumulation, and the base config's micro batch dropped so
		 * the loader derives it the same way (rule_global_batch) */
		unsigned long long ga = 1;
		c = cJSON_GetObjectItemCaseSensitive(root, "gradient_accumulation_steps");
		if (!c || whole(&d, c, "gradient_accumulation_steps", 0, &ga) == 0) {
			char v[32];
			snprintf(v, sizeof(v), "%llu", ga);
			set(&d, "training.grad_accum_steps", v, c ? "gradient_accumulation_steps" : "train_batch_size");
			if (dc_import_set(d.imp, "training.micro_batch_size", "null", "train_batch_size", line_of(&d, "train_batch_size"),
					  d.name, d.diag) != 0)
				d.errors++;
			else {
				free(d.imp->keys[d.imp->nkeys - 1].json);
				d.imp->keys[d.imp->nkeys - 1].json = NULL;
			}
		}
	}
	/* DeepSpeed asserts one of the two (runtime/config.py:942-986 at
	 * edaa7221, _set_batch_related_parameters) */
	if (!cJSON_GetObjectItemCaseSensitive(root, "train_batch_size") &&
	    !cJSON_GetObjectItemCaseSensitive(root, "train_micro_batch_size_per_gpu"))
	{
		dc_diag_error(d.diag, DC_ERR_CONFIG,
			      "%s:1: error: neither train_batch_size nor train_micro_batch_size_per_gpu: DeepSpeed asserts "
			      "\"Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided\" "
			      "(deepspeed/runtime/config.py:984-985); give one",
			      name);
		d.errors++;
	}
	d.bf16_opt = bf16_optimizer_runs(&d, root);
	map_zero(&d, root);
	bf16 = enabled(&d, root, d.bf16);
	fp16 = enabled(&d, root, "fp16");
	precision_keys(&d, root, bf16 == 1 ? d.bf16 : fp16 == 1 ? "fp16" : NULL);
	/* Apex AMP (engine.py:1998-2009): another mixed precision, which
	 * DeepSpeed refuses beside ZeRO, fp16 and bf16 */
	if (enabled(&d, root, "amp") == 1)
		err(&d, "amp", "Apex AMP's mixed precision is not priced; use \"fp16\" or \"bf16\" (DeepSpeed refuses amp "
			       "beside ZeRO, fp16 or bf16: engine.py:1983-2003)");
	if (bf16 == 1 && fp16 == 1)
		err(&d, "fp16", "enabled together with bf16: give one");
	else if (bf16 == 1 || fp16 == 1)
		set(&d, "precision.preset", "\"course\"", bf16 == 1 ? d.bf16 : "fp16");
	if (bf16 == 1 && fp16 != 1 && d.bf16_opt) {
		/* BF16_Optimizer (runtime/bf16_optimizer.py,
		 * _setup_for_real_optimizer): the BF16 parameters flat and
		 * whole, fp32_groups_gradients_flat a whole FP32 gradient
		 * buffer, fp32_groups_flat_partition a 1/dp partition of the
		 * FP32 master with Adam's states built on it; the engine's
		 * allreduce_gradients all-reduces the FP32 buffer at the
		 * accumulation boundary, update_lp_params all-gathers the BF16
		 * parameters. That is distcalc's ZeRO-1 under
		 * training.framework deepspeed (an all-reduce at the boundary,
		 * docs/step-model.md) with 4-byte gradients: 2 + 4 + 12/dp
		 * bytes a parameter. Its backward() frees the BF16 .grad only
		 * when the next backward starts (clear_lp_grads, then
		 * update_hp_grads(clear_lp_grads=False); the
		 * immediate_grad_update hook zero_()s them, keeping the
		 * memory): 2 B a parameter the ledger does not hold. */
		set(&d, "precision.grad_bytes", "4", d.bf16);
		warn(&d, d.bf16,
		     "at ZeRO stage %d DeepSpeed runs its BF16_Optimizer (engine.py get_data_types, "
		     "_do_optimizer_sanity_check and _configure_bf16_optimizer; runtime/bf16_optimizer.py): BF16 "
		     "parameters, a whole FP32 gradient buffer, and the FP32 master and Adam's states split over the dp "
		     "ranks, the gradients all-reduced in FP32 at the accumulation boundary and the parameters "
		     "all-gathered in BF16; priced as parallel.sharding \"zero1\" with precision.grad_bytes 4 "
		     "(2 + 4 + 12/dp bytes a parameter) under training.framework deepspeed, whose ZeRO-1 all-reduces "
		     "too. Not priced: the BF16 .grad of every parameter, which it keeps beside the FP32 buffer from the "
		     "backward through the step (2 B a parameter more: add 2 x the rank's parameters to "
		     "--set memory.workspace)",
		     d.stage);
	}
	else if (bf16 == 0 && fp16 == 0) {
		/* FP32 parameters; ZeRO-1/2 clone the rank's partition for the
		 * optimizer whatever the dtype (stage_1_and_2.py at edaa7221:
		 * `.clone()` of the partition into single_partition_of_fp32_groups),
		 * ZeRO-3 when it offloads the optimizer (its CPU copy of the fp32
		 * partition); ZeRO-3 on the GPU steps the partition in place, and
		 * stage 0 the parameters themselves (a trial: FP32 ZeRO-2 with
		 * offload priced no host copy for CPU-Adam to step) */
		int clone = d.stage == 1 || d.stage == 2 || (d.stage == 3 && d.opt_offload);
		set(&d, "precision.param_bytes", "4", "no bf16 or fp16 (FP32)");
		set(&d, "precision.grad_bytes", "4", "no bf16 or fp16 (FP32)");
		set(&d, "precision.master_bytes", clone ? "4" : "0",
		    clone ? "no bf16 or fp16 (FP32): ZeRO's copy of the partition the optimizer steps" : "no bf16 or fp16 (FP32)");
		set(&d, "precision.optimizer_bytes", "8", "no bf16 or fp16 (FP32)");
	}
	if (d.bucket_elements) {
		/* the gradients' bytes: 2 under bf16 or fp16 (the course preset), 4 in FP32 */
		char t[32];
		snprintf(t, sizeof(t), "%llu", d.bucket_elements * (bf16 == 1 || fp16 == 1 ? 2ull : 4ull));
		set(&d, "parallel.bucket_size", t,
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "zero_optimization"),
						     "reduce_bucket_size")
			    ? "reduce_bucket_size"
			    : "allgather_bucket_size");
	}
	/* whose overlap rules (docs/step-model.md, "Framework rules"); --set
	 * training.framework replaces it */
	set(&d, "training.framework", "\"deepspeed\"", "DeepSpeed config");
	opt = cJSON_GetObjectItemCaseSensitive(root, "optimizer");
	if (opt) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(opt, "type");
		if (!cJSON_IsString(t))
			err(&d, "optimizer", "expected an object with a \"type\"");
		else if (strcmp(t->valuestring, "Adam") != 0 && strcmp(t->valuestring, "AdamW") != 0 &&
			 strcmp(t->valuestring, "adam") != 0 && strcmp(t->valuestring, "adamw") != 0)
			err(&d, "type", "optimizer \"%s\" is not mapped (distcalc's optimizer states are Adam's two moments)",
			    t->valuestring);
	}
	if (cJSON_GetObjectItemCaseSensitive(root, "activation_checkpointing"))
		warn(&d, "activation_checkpointing",
		     "how checkpointing runs, not whether: the model's code decides that; give --set "
		     "training.recompute=full when it checkpoints every layer (partitioned or CPU-held checkpoints are "
		     "not modelled)");
	cJSON_Delete(root);
	return d.errors ? -1 : 0;
}
