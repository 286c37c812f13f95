/* hf.c - Hugging Face config.json -> struct dc_model; see hf.h and
 * docs/models.md. Family defaults are those of transformers'
 * configuration_<family>.py, used when a key is missing. A null is
 * read as transformers reads None where None has a meaning there
 * (sliding_window, num_key_value_heads, head_dim, q_lora_rank,
 * n_inner); for the other keys (sizes, counts) transformers has no use
 * for None, and distcalc takes the default. */
#include "distcalc/hf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/util.h"

#include "config_int.h"

struct hf {
	const cJSON *root;     /* the object read: the file's, or its text_config */
	const cJSON *top;      /* the file's */
	const char *text;      /* the file's text, for a duplicate's line:column */
	size_t len;
	const char *name;
	struct dc_diag *diag;
	size_t errors;
	/* keys that change the numbers, once a family's reader has taken
	 * them: the ones no reader took are checked after it (check_unread) */
	int read_mtp, read_layer_types, read_vision;
	/* the scale keys read_dense took from the class's defaults, warned
	 * of once the file reads without an error */
	char scale_missing[160];
	size_t scale_n;
	/* max_position_embeddings where the file leaves it out: the class's
	 * default, set by a family whose released files leave it out
	 * (Gemma 3's); 0: no check */
	uint64_t max_pos_default;
	/* a multimodal wrapper's text_config, where its text model's keys are */
	const cJSON *text_root;
};

static void hf_error(struct hf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hf_error(struct hf *r, const char *fmt, ...)
{
	char *msg;
	const char *text;
	va_list ap;
	r->errors++;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(r->diag);
	va_end(ap);
	/* values from the file may hold control characters: never print them */
	for (char *p = msg; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	dc_diag_error(r->diag, DC_ERR_CONFIG, "%s: error: %s", r->name, text);
	free(msg);
}

static void hf_warn(struct hf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value distcalc reads in a way the user should know of: a warning
 * naming the key, never a silent drop. */
static void hf_warn(struct hf *r, const char *fmt, ...)
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
	for (char *p = msg; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	dc_diag_warn(r->diag, "%s: %s", r->name, text);
	free(msg);
}

/* What the file holds, for "got X". */
static const char *describe(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) > 40)
			snprintf(buf, len, "\"%.40s...\"", v->valuestring);
		else
			snprintf(buf, len, "\"%s\"", v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		snprintf(buf, len, "%.17g", v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, len, "an array");
	} else if (cJSON_IsObject(v)) {
		snprintf(buf, len, "an object");
	} else {
		snprintf(buf, len, "null");
	}
	return buf;
}

/* "'KEY': duplicate key" at the second copy's line:column, with the
 * first's, as the config loader words it (config_values.c). */
static void duplicate(struct hf *r, const char *key)
{
	char path[160];
	size_t first, at, line, col, fline, fcol, ls;
	snprintf(path, sizeof(path), "%s%s", r->root != r->top ? "text_config." : "", key);
	if (!r->text || dc_cfg_key_pos(r->text, r->len, path, 0, &first) != 0 ||
	    dc_cfg_key_pos(r->text, r->len, path, 1, &at) != 0) {
		hf_error(r, "'%s': duplicate key", key);
		return;
	}
	dc_cfg_line_col(r->text, r->len, first, &fline, &fcol, &ls);
	dc_cfg_line_col(r->text, r->len, at, &line, &col, &ls);
	r->errors++;
	dc_diag_error(r->diag, DC_ERR_CONFIG, "%s:%zu:%zu: error: '%s': duplicate key (first at %zu:%zu)", r->name, line,
		      col, key, fline, fcol);
}

/* The value of `key`, or NULL when it is missing or null (HF's "use the
 * default"). A key given twice is an error: JSON readers disagree on which
 * copy wins. */
static const cJSON *get(struct hf *r, const char *key)
{
	const cJSON *found = NULL;
	for (const cJSON *c = r->root->child; c; c = c->next) {
		if (!c->string || strcmp(c->string, key) != 0)
			continue;
		if (found) {
			duplicate(r, key);
			return NULL;
		}
		found = c;
	}
	return found && !cJSON_IsNull(found) ? found : NULL;
}

/* Is `key` in the object at all (null included; a duplicate is get's
 * error, said once)? */
static int has_key(const struct hf *r, const char *key)
{
	for (const cJSON *c = r->root->child; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			return 1;
	return 0;
}

/* Is `key` present with the value null? */
static int is_null(struct hf *r, const char *key)
{
	for (const cJSON *c = r->root->child; c; c = c->next)
		if (c->string && strcmp(c->string, key) == 0)
			return cJSON_IsNull(c);
	return 0;
}

/* The count and size keys whose None transformers' classes give a
 * meaning (docs/models.md, "null"); their readers handle the null. */
static int null_has_meaning(const char *key)
{
	static const char *const keys[] = {"n_inner", "head_dim", "q_lora_rank", "sliding_window",
					   "attention_chunk_size", "num_key_value_heads"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

/* An integer >= min, or `dflt` when absent. A null where None means
 * nothing is an error: the class passes None on, not its default, and
 * the model cannot be built from it. */
static uint64_t get_uint(struct hf *r, const char *key, uint64_t min, uint64_t dflt)
{
	const cJSON *v = get(r, key);
	char got[64];
	double d;
	if (!v) {
		if (is_null(r, key) && !null_has_meaning(key))
			hf_error(r, "'%s': null; transformers passes None on (not its default of %llu), and the model cannot be built with it: give the number, or leave the key out for the default",
				 key, (unsigned long long)dflt);
		return dflt;
	}
	if (!cJSON_IsNumber(v)) {
		hf_error(r, "'%s': expected an integer, got %s", key, describe(v, got, sizeof(got)));
		return dflt;
	}
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d)) {
		hf_error(r, "'%s': expected an integer, got %s", key, describe(v, got, sizeof(got)));
		return dflt;
	}
	if (d < (double)min) {
		hf_error(r, "'%s': must be %s, got %.0f", key, min ? "at least 1" : "non-negative", d);
		return dflt;
	}
	if (d >= DC_MAX_EXACT_INT) {
		hf_error(r, "'%s': must be below 2^53 (9007199254740992), got about %.6g", key, d);
		return dflt;
	}
	return (uint64_t)d;
}

/* A dropout rate in [0, 1], or `dflt` when absent or null. */
static double get_rate(struct hf *r, const char *key, double dflt)
{
	const cJSON *v = get(r, key);
	char got[64];
	if (!v || cJSON_IsNull(v))
		return dflt;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 || v->valuedouble > 1) {
		hf_error(r, "'%s': expected a dropout rate in [0, 1], got %s", key, describe(v, got, sizeof(got)));
		return dflt;
	}
	return v->valuedouble;
}

/* Dropout as the modeling files apply it: on when any of `keys` (a
 * NULL-terminated list, each defaulting to `dflt`) is above 0. */
static int get_dropout(struct hf *r, const char *const *keys, double dflt)
{
	int on = 0;
	for (size_t i = 0; keys[i]; i++)
		if (get_rate(r, keys[i], dflt) > 0)
			on = 1;
	return on;
}

static int get_bool(struct hf *r, const char *key, int dflt)
{
	const cJSON *v = get(r, key);
	char got[64];
	if (!v)
		return dflt;
	if (!cJSON_IsBool(v)) {
		hf_error(r, "'%s': expected true or false, got %s", key, describe(v, got, sizeof(got)));
		return dflt;
	}
	return cJSON_IsTrue(v);
}

/* A key distcalc cannot model unless it holds `ok`: every layer after the
 * first dense ones is a MoE layer. */
static void expect_uint(struct hf *r, const char *key, uint64_t ok, const char *why)
{
	uint64_t v = get_uint(r, key, 0, ok);
	if (v != ok)
		hf_error(r, "'%s': distcalc models %s; only %llu is supported, got %llu", key, why,
			 (unsigned long long)ok, (unsigned long long)v);
}

static void expect_empty_list(struct hf *r, const char *key, const char *why)
{
	const cJSON *v = get(r, key);
	char got[64];
	if (!v)
		return;
	if (!cJSON_IsArray(v))
		hf_error(r, "'%s': expected a list of layer numbers, got %s", key, describe(v, got, sizeof(got)));
	else if (cJSON_GetArraySize(v) != 0)
		hf_error(r, "'%s': distcalc models %s; only an empty list is supported, got %d entries", key,
			 why, cJSON_GetArraySize(v));
}

/* Defaults of one family's configuration class (transformers
 * configuration_<family>.py). kv 0: num_attention_heads; head_dim 0:
 * hidden_size / num_attention_heads. */
struct dense_defaults {
	uint64_t vocab, hidden, inter, layers, heads, kv, head_dim;
	int tie;
};

/* The model's scale (its width, depth and heads: `keys`, their class's
 * defaults `dflt`): every released config.json gives these (some leave
 * out a vocab_size or a head_dim equal to the class's default); a file
 * without one takes the class's default, as transformers does, and the
 * load says which once it reads without an error (a user trial's
 * truncated file read as a Llama-2-7B without a word). */
static void note_scale(struct hf *r, const char *const keys[3], const uint64_t dflt[3])
{
	char *missing = r->scale_missing;
	size_t len = sizeof(r->scale_missing);
	for (size_t i = 0; i < 3; i++)
		if (!has_key(r, keys[i]))
			snprintf(missing + strlen(missing), len - strlen(missing), "%s%s %llu", r->scale_n++ ? ", " : "",
				 keys[i], (unsigned long long)dflt[i]);
}

/* The keys every Llama-shaped family shares (LlamaConfig and its kin). */
static void read_dense(struct hf *r, struct dc_model *m, const struct dense_defaults *d)
{
	static const char *const scale[] = {"hidden_size", "num_hidden_layers", "num_attention_heads"};
	note_scale(r, scale, (const uint64_t[]){d->hidden, d->layers, d->heads});
	m->vocab_size = get_uint(r, "vocab_size", 1, d->vocab);
	m->hidden_size = get_uint(r, "hidden_size", 1, d->hidden);
	m->ffn_hidden_size = get_uint(r, "intermediate_size", 1, d->inter);
	m->num_layers = get_uint(r, "num_hidden_layers", 1, d->layers);
	m->num_attention_heads = get_uint(r, "num_attention_heads", 1, d->heads);
	m->num_kv_heads = get_uint(r, "num_key_value_heads", 1, d->kv ? d->kv : m->num_attention_heads);
	/* None is multi-head attention, whatever the class's default
	 * (LlamaConfig, MistralConfig "for backward compatibility",
	 * Qwen2Config, Qwen3Config, Phi3Config, GptOssConfig); the classes
	 * that keep None (Gemma's, Llama 4's) refuse it: kv_null_refused */
	if (is_null(r, "num_key_value_heads"))
		m->num_kv_heads = m->num_attention_heads;
	m->head_dim = get_uint(r, "head_dim", 1, d->head_dim);
	m->tie_word_embeddings = get_bool(r, "tie_word_embeddings", d->tie);
	m->dropout = get_dropout(r, (const char *const[]){"attention_dropout", NULL}, 0);
	m->mlp = DC_MLP_SWIGLU;
	m->norm = DC_NORM_RMSNORM;
	if (!m->head_dim) {
		if (m->hidden_size % m->num_attention_heads != 0)
			hf_error(r, "'num_attention_heads': must divide hidden_size (%llu) when head_dim is not given, got %llu",
				 (unsigned long long)m->hidden_size, (unsigned long long)m->num_attention_heads);
		else
			m->head_dim = m->hidden_size / m->num_attention_heads;
	}
	if (m->num_kv_heads > m->num_attention_heads || m->num_attention_heads % m->num_kv_heads != 0)
		hf_error(r, "'num_key_value_heads': must divide num_attention_heads (%llu), got %llu",
			 (unsigned long long)m->num_attention_heads, (unsigned long long)m->num_kv_heads);
}

static void read_top_k(struct hf *r, struct dc_model *m, uint64_t dflt)
{
	m->experts_per_token = get_uint(r, "num_experts_per_tok", 1, dflt);
	if (m->experts_per_token > m->num_experts)
		hf_error(r, "'num_experts_per_tok': must be at most the number of experts (%llu), got %llu",
			 (unsigned long long)m->num_experts, (unsigned long long)m->experts_per_token);
}

/* transformers' layer_types: one entry a layer, "full_attention" or
 * `other` ("sliding_attention", "linear_attention"). distcalc keeps the
 * layer kinds as "every n-th layer is full attention" (docs/models.md,
 * "Layer kinds"): *every gets that n (0: no layer is full), *given 1 when
 * the file has the list. A list of another length, another kind or no
 * such period is an error naming it. */
static void read_layer_types(struct hf *r, const struct dc_model *m, const char *other, uint64_t *every, int *given)
{
	const cJSON *v = get(r, "layer_types"), *e;
	char got[64];
	uint64_t i = 0, n = 0;

	*given = 0;
	r->read_layer_types = 1;
	if (!v)
		return;
	if (!cJSON_IsArray(v)) {
		hf_error(r, "'layer_types': expected a list of layer kinds, got %s", describe(v, got, sizeof(got)));
		return;
	}
	if ((uint64_t)cJSON_GetArraySize(v) != m->num_layers) {
		hf_error(r, "'layer_types': expected one entry a layer (num_hidden_layers %llu), got %d",
			 (unsigned long long)m->num_layers, cJSON_GetArraySize(v));
		return;
	}
	*given = 1;
	cJSON_ArrayForEach(e, v) {
		i++;
		if (!cJSON_IsString(e) || (strcmp(e->valuestring, "full_attention") != 0 && strcmp(e->valuestring, other) != 0)) {
			hf_error(r, "'layer_types': entry %llu is %s; this family's layers are \"full_attention\" or \"%s\"",
				 (unsigned long long)i, describe(e, got, sizeof(got)), other);
			return;
		}
		if (!n && strcmp(e->valuestring, "full_attention") == 0)
			n = i;
	}
	i = 0;
	cJSON_ArrayForEach(e, v) {
		int full = strcmp(e->valuestring, "full_attention") == 0;
		i++;
		if (full != (n && i % n == 0)) {
			hf_error(r, "'layer_types': distcalc models every n-th layer as full attention and the others as \"%s\"; layer %llu (from 1) breaks the period %llu of the first full one",
				 other, (unsigned long long)i, (unsigned long long)n);
			return;
		}
	}
	*every = n;
}

/* What a null sliding_window is in the family's transformers classes. */
enum null_window {
	/* None: no window on any layer (MistralModel, Phi3Model and
	 * MixtralModel pick create_causal_mask when config.sliding_window is
	 * None; Qwen2Config and its kin then list no sliding layer) */
	NULL_NO_WINDOW,
	/* None leaves the family's sliding layers without a window:
	 * masking_utils.create_sliding_window_causal_mask raises (Gemma 2
	 * and 3, gpt-oss build that mask for their sliding layers) */
	NULL_REFUSED,
};

/* Sliding windows: sliding_window tokens on every layer but each
 * `pattern`-th (layer_types overrides the family's pattern). A window
 * no shorter than max_position_embeddings still counts as a window. */
static void read_sliding(struct hf *r, struct dc_model *m, uint64_t dflt_window, uint64_t pattern,
			 enum null_window null)
{
	int given;
	m->sliding_window = get_uint(r, "sliding_window", 1, dflt_window);
	if (is_null(r, "sliding_window"))
		m->sliding_window = 0;
	read_layer_types(r, m, "sliding_attention", &pattern, &given);
	m->sliding_window_pattern = pattern;
	if (pattern == 1) /* every layer full */
		m->sliding_window = 0;
	else if (null == NULL_REFUSED && is_null(r, "sliding_window"))
		hf_error(r, "'sliding_window': null leaves this family's sliding layers without a window (transformers' create_sliding_window_causal_mask refuses it); give the window, or a 'layer_types' of \"full_attention\" only");
	if (!m->sliding_window)
		m->sliding_window_pattern = 0;
}

/* Qwen2/Qwen3's use_sliding_window: the layers from max_window_layers on
 * slide (configuration_qwen3.py layer_types). Every layer sliding is a
 * window on every layer; anything else has no "every n-th" form. */
static void read_qwen_sliding(struct hf *r, struct dc_model *m)
{
	uint64_t from;
	int given;
	uint64_t every = 0;
	if (!get_bool(r, "use_sliding_window", 0)) {
		read_layer_types(r, m, "sliding_attention", &every, &given);
		if (given && every != 1)
			hf_error(r, "'layer_types': sliding layers without 'use_sliding_window': true; give one or the other");
		return;
	}
	if (is_null(r, "sliding_window")) {
		/* Qwen2Config and Qwen3Config list no sliding layer when the
		 * window is None, whatever max_window_layers */
		read_layer_types(r, m, "sliding_attention", &every, &given);
		if (given && every != 1)
			hf_error(r, "'sliding_window': null with sliding layers in 'layer_types'; transformers' sliding mask needs a window");
		return;
	}
	from = get_uint(r, "max_window_layers", 0, 28);
	if (from >= m->num_layers) /* no layer from there on: none slides */
		return;
	if (from != 0) {
		hf_error(r, "'max_window_layers': distcalc models a window on every layer or on all but every n-th; with use_sliding_window only 0 or at least num_hidden_layers (%llu) is supported, got %llu",
			 (unsigned long long)m->num_layers, (unsigned long long)from);
		return;
	}
	read_sliding(r, m, 4096, 0, NULL_NO_WINDOW);
}

/* num_nextn_predict_layers (DeepSeek-V3, GLM-4.5, Qwen3-Next): the
 * multi-token-prediction modules, trained with the model */
static void read_mtp(struct hf *r, struct dc_model *m)
{
	m->mtp_layers = get_uint(r, "num_nextn_predict_layers", 0, 0);
	r->read_mtp = 1;
}

/* LlamaConfig: attention_bias puts biases on q, k, v and o
 * (modeling_llama.py LlamaAttention), mlp_bias on gate, up and down. */
static void read_llama(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {32000, 4096, 11008, 32, 32, 0, 0, 0};
	read_dense(r, m, &d);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->mlp_bias = get_bool(r, "mlp_bias", 0);
}

/* MistralConfig: no biases (modeling_mistral.py). sliding_window (4096
 * when missing) slides every layer; null (v0.2 and later, Nemo,
 * Small 3.x) is no window: MistralModel builds create_causal_mask when
 * config.sliding_window is None. */
static void read_mistral_shape(struct hf *r, struct dc_model *m, const struct dense_defaults *d, uint64_t dflt_window)
{
	read_dense(r, m, d);
	read_sliding(r, m, dflt_window, 0, NULL_NO_WINDOW);
}

static void read_mistral(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {32000, 4096, 14336, 32, 32, 8, 0, 0};
	read_mistral_shape(r, m, &d, 4096);
}

/* MixtralConfig: every layer's MLP is num_local_experts experts of
 * intermediate_size (modeling_mixtral.py MixtralSparseMoeBlock). */
static void read_mixtral(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {32000, 4096, 14336, 32, 32, 8, 0, 0};
	read_dense(r, m, &d);
	m->num_experts = get_uint(r, "num_local_experts", 1, 8);
	read_top_k(r, m, 2);
	m->moe_ffn_hidden_size = m->ffn_hidden_size;
	read_sliding(r, m, 0, 0, NULL_NO_WINDOW); /* MixtralConfig.sliding_window: none by default */
}

/* Phi3Config (modeling_phi3.py; Phi-3, Phi-3.5 mini and medium, phi-4):
 * Llama's layer with q, k and v fused in one qkv_proj of h x (a + 2k) d
 * and gate and up in one gate_up_proj of h x 2f: the same shapes and
 * counts. No bias anywhere (Phi3Attention does not read attention_bias).
 * sliding_window (None when missing or null) windows every layer, as
 * Mistral's does (Phi3Model is MistralModel's). resid_pdrop drops both
 * residual branches; embd_pdrop has no module in Phi3Model. RoPE keys
 * (partial_rotary_factor, rope_scaling's longrope factors,
 * original_max_position_embeddings) hold no weights and no matmul. */
static void read_phi3(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {32064, 3072, 8192, 32, 32, 0, 0, 0};
	read_dense(r, m, &d);
	m->dropout = get_dropout(r, (const char *const[]){"attention_dropout", "resid_pdrop", NULL}, 0);
	read_sliding(r, m, 0, 0, NULL_NO_WINDOW);
}

/* Qwen2Config: q, k and v are biased, o is not (modeling_qwen2.py). */
static void read_qwen2(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151936, 4096, 22016, 32, 32, 32, 0, 0};
	read_dense(r, m, &d);
	m->qkv_bias = 1;
	read_qwen_sliding(r, m);
}

/* Qwen2-MoE, Qwen3-MoE and Qwen3-Next put the experts on layer_idx when
 * (layer_idx + 1) % decoder_sparse_step == 0 and a dense MLP of
 * intermediate_size on the others (modeling_qwen2_moe.py,
 * modeling_qwen3_moe.py, modeling_qwen3_next.py decoder layers): layer i
 * from 1 when the step divides i, model.moe_layer_interval
 * (docs/models.md, "Layer kinds"). mlp_only_layers names dense layers one
 * by one: only an empty list fits that rule. */
static void read_qwen_moe_layout(struct hf *r, struct dc_model *m)
{
	m->moe_layer_interval = get_uint(r, "decoder_sparse_step", 1, 1);
	expect_empty_list(r, "mlp_only_layers", "MoE layers as every decoder_sparse_step-th layer");
}

/* Qwen2MoeConfig (modeling_qwen2_moe.py): biased q, k, v; num_experts
 * routed experts of moe_intermediate_size, one shared expert of
 * shared_expert_intermediate_size with a sigmoid gate h -> 1. */
static void read_qwen2_moe(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151936, 2048, 5632, 24, 16, 16, 0, 0};
	read_dense(r, m, &d);
	m->qkv_bias = 1;
	m->num_experts = get_uint(r, "num_experts", 1, 60);
	read_top_k(r, m, 4);
	m->moe_ffn_hidden_size = get_uint(r, "moe_intermediate_size", 1, 1408);
	m->shared_expert_ffn_hidden_size = get_uint(r, "shared_expert_intermediate_size", 0, 5632);
	m->shared_expert_gate = m->shared_expert_ffn_hidden_size > 0;
	read_qwen_moe_layout(r, m);
	read_qwen_sliding(r, m);
}

/* Qwen3MoeConfig (modeling_qwen3_moe.py): q_norm and k_norm (RMSNorm of
 * head_dim), attention_bias on q, k, v and o, no shared expert. */
static void read_qwen3_moe(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151936, 2048, 6144, 24, 32, 4, 0, 0};
	read_dense(r, m, &d);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->qk_norm = 1;
	m->num_experts = get_uint(r, "num_experts", 1, 128);
	read_top_k(r, m, 8);
	m->moe_ffn_hidden_size = get_uint(r, "moe_intermediate_size", 1, 768);
	read_qwen_moe_layout(r, m);
	read_qwen_sliding(r, m);
}

/* GPT2Config (modeling_gpt2.py): LayerNorms, every linear biased, a GELU
 * MLP of n_inner (default 4 n_embd), a learned position table of
 * n_positions rows, the head tied to wte. */
static void read_gpt2(struct hf *r, struct dc_model *m)
{
	static const char *const scale[] = {"n_embd", "n_layer", "n_head"};
	note_scale(r, scale, (const uint64_t[]){768, 12, 12});
	m->vocab_size = get_uint(r, "vocab_size", 1, 50257);
	m->hidden_size = get_uint(r, "n_embd", 1, 768);
	m->num_layers = get_uint(r, "n_layer", 1, 12);
	m->num_attention_heads = get_uint(r, "n_head", 1, 12);
	m->position_embeddings = get_uint(r, "n_positions", 1, 1024);
	m->tie_word_embeddings = get_bool(r, "tie_word_embeddings", 1);
	/* GPT2Config: every rate defaults to 0.1 */
	m->dropout = get_dropout(r, (const char *const[]){"attn_pdrop", "resid_pdrop", "embd_pdrop", NULL}, 0.1);
	m->num_kv_heads = m->num_attention_heads;
	m->mlp = DC_MLP_GELU;
	m->norm = DC_NORM_LAYERNORM;
	m->qkv_bias = m->out_bias = m->mlp_bias = 1;
	if (m->hidden_size % m->num_attention_heads != 0)
		hf_error(r, "'n_head': must divide n_embd (%llu), got %llu", (unsigned long long)m->hidden_size,
			 (unsigned long long)m->num_attention_heads);
	else
		m->head_dim = m->hidden_size / m->num_attention_heads;
	if (dc_mul_u64(m->hidden_size, 4, &m->ffn_hidden_size))
		m->ffn_hidden_size = 0;
	m->ffn_hidden_size = get_uint(r, "n_inner", 1, m->ffn_hidden_size);
	if (!m->ffn_hidden_size)
		hf_error(r, "'n_embd': 4 x n_embd (the default n_inner) overflows 64 bits");
}

/* Gemma 1/2/3 and Llama 4 keep a None num_key_value_heads or head_dim
 * (their configuration classes have no "None: multi-head" or "None:
 * h / a" rule; Gemma2Config's head_dim is a strict int) and the attention
 * then fails on it: refused, not read as the other families read it. */
static void kv_null_refused(struct hf *r)
{
	static const char *const keys[] = {"num_key_value_heads", "head_dim"};
	for (size_t i = 0; i < 2; i++)
		if (is_null(r, keys[i]))
			hf_error(r, "'%s': null; this family's configuration class keeps None (no fallback) and the attention cannot be built with it: give the number, or leave the key out for the default",
				 keys[i]);
}

/* GemmaConfig (modeling_gemma.py): GeGLU MLP (3 matrices), head_dim 256,
 * the head tied to the embedding. */
static void read_gemma(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {256000, 3072, 24576, 28, 16, 16, 256, 1};
	read_dense(r, m, &d);
	kv_null_refused(r);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
}

/* DeepseekV3Config (modeling_deepseek_v3.py): MLA, first_k_dense_replace
 * dense layers of intermediate_size, then n_routed_experts experts of
 * moe_intermediate_size, n_shared_experts shared ones (one MLP of
 * n_shared_experts x moe_intermediate_size) and the router's score bias
 * e_score_correction_bias. */
static void check_router_groups(struct hf *r, const struct dc_model *m);

static void read_deepseek_v3(struct hf *r, struct dc_model *m)
{
	uint64_t shared;
	static const char *const scale[] = {"hidden_size", "num_hidden_layers", "num_attention_heads"};
	note_scale(r, scale, (const uint64_t[]){7168, 61, 128});
	m->vocab_size = get_uint(r, "vocab_size", 1, 129280);
	m->hidden_size = get_uint(r, "hidden_size", 1, 7168);
	m->ffn_hidden_size = get_uint(r, "intermediate_size", 1, 18432);
	m->moe_ffn_hidden_size = get_uint(r, "moe_intermediate_size", 1, 2048);
	m->num_layers = get_uint(r, "num_hidden_layers", 1, 61);
	m->num_attention_heads = get_uint(r, "num_attention_heads", 1, 128);
	m->num_kv_heads = m->num_attention_heads; /* MLA: every head gets its own k and v */
	m->num_experts = get_uint(r, "n_routed_experts", 1, 256);
	shared = get_uint(r, "n_shared_experts", 0, 1);
	read_top_k(r, m, 8);
	m->dense_layers = get_uint(r, "first_k_dense_replace", 0, 3);
	/* node-limited routing: n_group groups of experts, a token's from
	 * topk_group of them (DeepseekV3Config's defaults 8 and 4) */
	m->router_groups = get_uint(r, "n_group", 1, 8);
	m->router_group_topk = get_uint(r, "topk_group", 1, 4);
	/* an explicit null means no q compression (a plain q_proj), unlike
	 * a missing key, which takes DeepseekV3Config's 1536 */
	if (is_null(r, "q_lora_rank"))
		m->q_lora_rank = 0;
	else
		m->q_lora_rank = get_uint(r, "q_lora_rank", 0, 1536);
	m->kv_lora_rank = get_uint(r, "kv_lora_rank", 1, 512);
	m->qk_rope_head_dim = get_uint(r, "qk_rope_head_dim", 1, 64);
	m->qk_nope_head_dim = get_uint(r, "qk_nope_head_dim", 1, 128);
	m->v_head_dim = get_uint(r, "v_head_dim", 1, 128);
	m->tie_word_embeddings = get_bool(r, "tie_word_embeddings", 0);
	m->dropout = get_dropout(r, (const char *const[]){"attention_dropout", NULL}, 0);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->mlp = DC_MLP_SWIGLU;
	m->norm = DC_NORM_RMSNORM;
	m->router_bias = 1;
	m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim; /* q and k per head */
	if (dc_mul_u64(shared, m->moe_ffn_hidden_size, &m->shared_expert_ffn_hidden_size))
		hf_error(r, "'n_shared_experts': n_shared_experts x moe_intermediate_size overflows 64 bits");
	if (m->dense_layers >= m->num_layers)
		hf_error(r, "'first_k_dense_replace': must be below num_hidden_layers (%llu), got %llu",
			 (unsigned long long)m->num_layers, (unsigned long long)m->dense_layers);
	check_router_groups(r, m);
	expect_uint(r, "moe_layer_freq", 1, "every layer after first_k_dense_replace as a MoE layer");
	read_mtp(r, m);
}

/* The router's groups, as modeling_deepseek_v3.py and modeling_glm4_moe.py
 * split the scores: n_group equal groups, topk_group of them a token */
static void check_router_groups(struct hf *r, const struct dc_model *m)
{
	if (m->num_experts % m->router_groups != 0)
		hf_error(r, "'n_group': must divide n_routed_experts (%llu) into equal groups, got %llu",
			 (unsigned long long)m->num_experts, (unsigned long long)m->router_groups);
	else if (m->router_group_topk > m->router_groups)
		hf_error(r, "'topk_group': must be at most n_group (%llu), got %llu",
			 (unsigned long long)m->router_groups, (unsigned long long)m->router_group_topk);
	else if (m->experts_per_token > m->router_group_topk * (m->num_experts / m->router_groups))
		hf_error(r, "'topk_group': %llu group%s of %llu experts hold fewer than num_experts_per_tok (%llu)",
			 (unsigned long long)m->router_group_topk, m->router_group_topk == 1 ? "" : "s",
			 (unsigned long long)(m->num_experts / m->router_groups),
			 (unsigned long long)m->experts_per_token);
}

/* Qwen3Config (modeling_qwen3.py): Llama's layout with q_norm and k_norm
 * (RMSNorm of head_dim), attention_bias on q, k, v and o, head_dim 128. */
static void read_qwen3(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151936, 4096, 22016, 32, 32, 32, 128, 0};
	read_dense(r, m, &d);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->qk_norm = 1;
	read_qwen_sliding(r, m);
}

/* Gemma2Config (modeling_gemma2.py): Gemma's GeGLU MLP and tied head,
 * four RMSNorms a layer (before and after attention and the MLP), a
 * 4096-token window on every other layer (the odd ones from 1), logit
 * soft-capping (no parameters, no matmul). */
static void read_gemma2(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {256000, 2304, 9216, 26, 8, 4, 256, 1};
	read_dense(r, m, &d);
	kv_null_refused(r);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->sandwich_norm = 1;
	read_sliding(r, m, 4096, 2, NULL_REFUSED);
}

/* Gemma3TextConfig (modeling_gemma3.py): Gemma 2's layer with q_norm and
 * k_norm, sliding_window_pattern 6 (five sliding layers, then a global
 * one). */
static void read_gemma3_text(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {262208, 2304, 9216, 26, 8, 4, 256, 1};
	read_dense(r, m, &d);
	kv_null_refused(r);
	/* Gemma3TextConfig's max_position_embeddings=131_072
	 * (configuration_gemma3.py): gemma-3-4b-it's text_config leaves it
	 * out, as it does its heads */
	r->max_pos_default = 131072;
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->sandwich_norm = 1;
	m->qk_norm = 1;
	read_sliding(r, m, 4096, get_uint(r, "sliding_window_pattern", 1, 6), NULL_REFUSED);
}

/* A multimodal wrapper: its text model sits in text_config (missing: the
 * text class's defaults); the vision tower and projector are not counted,
 * and a warning says so. */
static void read_wrapped(struct hf *r, struct dc_model *m, void (*text)(struct hf *, struct dc_model *))
{
	const cJSON *tc = get(r, "text_config"), *outer = r->root;
	char got[64];
	r->read_vision = 1;
	if (get(r, "vision_config"))
		hf_warn(r, "'vision_config': the vision tower and its projector are not counted; distcalc models the text model in 'text_config'");
	if (tc && !cJSON_IsObject(tc)) {
		hf_error(r, "'text_config': expected an object, got %s", describe(tc, got, sizeof(got)));
		return;
	}
	if (tc)
		r->root = r->text_root = tc;
	text(r, m);
	r->root = outer;
}

static void read_gemma3(struct hf *r, struct dc_model *m)
{
	read_wrapped(r, m, read_gemma3_text);
}

/* Llama4TextConfig (modeling_llama4.py): routed experts of
 * intermediate_size on every interleave_moe_layer_step-th layer, each
 * with a shared expert of the same size and a bias-free router; the other
 * layers a dense MLP of intermediate_size_mlp. q/k L2 norms carry no
 * weights. Chunked attention (attention_chunk_size) on the RoPE layers,
 * every fourth layer (NoPE) global: model.attention_chunked over chunks
 * of sliding_window (docs/models.md, "Layer kinds"). */
static void read_llama4_text(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {202048, 5120, 16384, 48, 40, 8, 128, 0};
	const cJSON *nr = get(r, "no_rope_layers");
	uint64_t chunk, step;

	read_dense(r, m, &d);
	kv_null_refused(r);
	m->ffn_hidden_size = get_uint(r, "intermediate_size_mlp", 1, 16384);
	m->moe_ffn_hidden_size = get_uint(r, "intermediate_size", 1, 8192);
	m->shared_expert_ffn_hidden_size = m->moe_ffn_hidden_size;
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->num_experts = get_uint(r, "num_local_experts", 1, 16);
	read_top_k(r, m, 1);
	step = get_uint(r, "interleave_moe_layer_step", 1, 1);
	m->moe_layer_interval = step;
	/* configuration_llama4.py derives the list only for a null or absent
	 * one (`moe_layers if moe_layers is not None else ...`): an empty list
	 * is kept, and no layer is MoE (modeling_llama4.py: `layer_idx in
	 * config.moe_layers`), every one an MLP of intermediate_size_mlp. A
	 * trial's [] was read as the derived list, 24 MoE layers counted */
	if (cJSON_IsArray(get(r, "moe_layers")) && cJSON_GetArraySize(get(r, "moe_layers")) == 0)
		hf_error(r, "'moe_layers': [] makes no layer MoE (transformers keeps an empty list: every layer is then an MLP of intermediate_size_mlp, %llu); distcalc reads a Llama 4 file with its MoE layers: drop the key (or give null) for every interleave_moe_layer_step-th layer, or describe the dense model with model.* keys",
			 (unsigned long long)m->ffn_hidden_size);
	else if (get(r, "moe_layers") && !is_null(r, "moe_layers")) {
		/* the list configuration_llama4.py derives: step - 1, 2 step - 1, ... */
		const cJSON *v = get(r, "moe_layers"), *e;
		uint64_t want = step - 1;
		int ok = cJSON_IsArray(v);
		if (ok)
			cJSON_ArrayForEach(e, v) {
				if (!cJSON_IsNumber(e) || e->valuedouble != (double)want) {
					ok = 0;
					break;
				}
				want += step;
			}
		if (!ok || want < m->num_layers)
			hf_error(r, "'moe_layers': distcalc models MoE layers as every interleave_moe_layer_step-th layer (%llu); the list must be %llu, %llu, ... below num_hidden_layers",
				 (unsigned long long)step, (unsigned long long)(step - 1), (unsigned long long)(2 * step - 1));
	}
	chunk = get_uint(r, "attention_chunk_size", 1, 8192);
	if (is_null(r, "attention_chunk_size")) {
		hf_error(r, "'attention_chunk_size': null leaves the chunked layers without a chunk (transformers' create_chunked_causal_mask refuses it); give the chunk size");
		return; /* no chunk to price, nor to warn about */
	}
	if (nr && !(cJSON_IsArray(nr) && cJSON_GetArraySize(nr) == 0)) {
		const cJSON *e;
		uint64_t i = 0;
		int ok = cJSON_IsArray(nr) && (uint64_t)cJSON_GetArraySize(nr) == m->num_layers;
		if (ok)
			cJSON_ArrayForEach(e, nr) {
				i++;
				if (!cJSON_IsNumber(e) || e->valuedouble != (i % 4 != 0 ? 1.0 : 0.0)) {
					ok = 0;
					break;
				}
			}
		if (!ok)
			hf_error(r, "'no_rope_layers': distcalc models every fourth layer (4, 8, ... from 1) as the global NoPE layer, as Llama4TextConfig derives it; the list must be 1, 1, 1, 0, ... for num_hidden_layers layers");
	}
	m->sliding_window = chunk;
	m->sliding_window_pattern = 4;
	m->attention_chunked = 1;
}

static void read_llama4(struct hf *r, struct dc_model *m)
{
	read_wrapped(r, m, read_llama4_text);
}

/* Mistral3Config (configuration_mistral3.py; Mistral-Small-3.1 and
 * 3.2): text_config is a MistralConfig. Without text_config the class
 * builds Mistral-Small-3.1's text model (these defaults, no window);
 * a text_config of another model_type (Ministral 3's "ministral3") is
 * not read. The Pixtral tower and the projector are not counted. */
static void read_mistral3_text(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {32000, 4096, 14336, 32, 32, 8, 0, 0};
	static const struct dense_defaults small = {131072, 5120, 32768, 40, 32, 8, 128, 0};
	const cJSON *mt;
	char got[64];

	if (r->root == r->top) {
		read_mistral_shape(r, m, &small, 0);
		return;
	}
	mt = get(r, "model_type");
	if (mt && !(cJSON_IsString(mt) && strcmp(mt->valuestring, "mistral") == 0))
		hf_error(r, "'text_config.model_type': distcalc reads a mistral3 model's text model as \"mistral\" (MistralConfig), got %s",
			 describe(mt, got, sizeof(got)));
	read_mistral_shape(r, m, &d, 4096);
}

static void read_mistral3(struct hf *r, struct dc_model *m)
{
	read_wrapped(r, m, read_mistral3_text);
}

/* GptOssConfig (modeling_gpt_oss.py): every layer MoE, q, k, v and o
 * biased, a learned sink per head, routed experts with biases on
 * gate_up (2f) and down (h), a router with a bias, 128-token windows on
 * every other layer (the odd ones from 1). The checkpoint's MXFP4 experts
 * are a storage format: training holds them at precision.* bytes. */
static void read_gpt_oss(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {201088, 2880, 2880, 36, 64, 8, 64, 0};
	read_dense(r, m, &d);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 1);
	m->attention_sinks = 1;
	m->num_experts = get_uint(r, "num_local_experts", 1, 128);
	read_top_k(r, m, 4);
	m->moe_ffn_hidden_size = m->ffn_hidden_size;
	m->mlp_bias = 1; /* the experts' (there is no dense MLP) */
	m->router_bias = 1;
	read_sliding(r, m, 128, 2, NULL_REFUSED);
}

/* Glm4MoeConfig (modeling_glm4_moe.py): DeepSeek-V3's MoE layout
 * (first_k_dense_replace dense layers, n_shared_experts x
 * moe_intermediate_size shared, the router's e_score_correction_bias)
 * with GQA attention, q, k and v biased by attention_bias (o never),
 * q_norm and k_norm when use_qk_norm. */
static void read_glm4_moe(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151552, 4096, 10944, 46, 96, 8, 128, 0};
	uint64_t shared;
	read_dense(r, m, &d);
	m->qkv_bias = get_bool(r, "attention_bias", 0);
	m->qk_norm = get_bool(r, "use_qk_norm", 0);
	m->num_experts = get_uint(r, "n_routed_experts", 1, 128);
	read_top_k(r, m, 8);
	m->moe_ffn_hidden_size = get_uint(r, "moe_intermediate_size", 1, 1408);
	shared = get_uint(r, "n_shared_experts", 0, 1);
	if (dc_mul_u64(shared, m->moe_ffn_hidden_size, &m->shared_expert_ffn_hidden_size))
		hf_error(r, "'n_shared_experts': n_shared_experts x moe_intermediate_size overflows 64 bits");
	m->dense_layers = get_uint(r, "first_k_dense_replace", 0, 1);
	m->router_bias = 1;
	/* Glm4MoeConfig's group-limited routing: n_group 1, topk_group 1 */
	m->router_groups = get_uint(r, "n_group", 1, 1);
	m->router_group_topk = get_uint(r, "topk_group", 1, 1);
	if (m->dense_layers >= m->num_layers)
		hf_error(r, "'first_k_dense_replace': must be below num_hidden_layers (%llu), got %llu",
			 (unsigned long long)m->num_layers, (unsigned long long)m->dense_layers);
	check_router_groups(r, m);
	read_mtp(r, m);
}

/* Qwen3NextConfig (modeling_qwen3_next.py): Gated DeltaNet on three layers
 * of four, gated softmax attention (attn_output_gate, q_norm, k_norm) on
 * every full_attention_interval-th, Qwen2-MoE's experts with a gated
 * shared expert. */
static void read_qwen3_next(struct hf *r, struct dc_model *m)
{
	static const struct dense_defaults d = {151936, 2048, 5632, 48, 16, 2, 256, 0};
	uint64_t every;
	int given;
	read_dense(r, m, &d);
	m->qkv_bias = m->out_bias = get_bool(r, "attention_bias", 0);
	m->qk_norm = 1;
	m->attention_output_gate = 1;
	m->num_experts = get_uint(r, "num_experts", 1, 512);
	read_top_k(r, m, 10);
	m->moe_ffn_hidden_size = get_uint(r, "moe_intermediate_size", 1, 512);
	m->shared_expert_ffn_hidden_size = get_uint(r, "shared_expert_intermediate_size", 0, 512);
	m->shared_expert_gate = m->shared_expert_ffn_hidden_size > 0;
	read_qwen_moe_layout(r, m);
	every = get_uint(r, "full_attention_interval", 1, 4);
	read_layer_types(r, m, "linear_attention", &every, &given);
	m->full_attention_interval = every;
	if (get_bool(r, "use_sliding_window", 0))
		hf_error(r, "'use_sliding_window': distcalc models no window in a hybrid linear-attention model; only false is supported");
	if (every == 0)
		hf_error(r, "'layer_types': distcalc needs at least one \"full_attention\" layer in a hybrid model");
	m->linear_num_key_heads = get_uint(r, "linear_num_key_heads", 1, 16);
	m->linear_num_value_heads = get_uint(r, "linear_num_value_heads", 1, 32);
	m->linear_key_head_dim = get_uint(r, "linear_key_head_dim", 1, 128);
	m->linear_value_head_dim = get_uint(r, "linear_value_head_dim", 1, 128);
	m->linear_conv_kernel_dim = get_uint(r, "linear_conv_kernel_dim", 1, 4);
	read_mtp(r, m);
}

struct family {
	const char *model_type;
	const char *architecture;
	void (*read)(struct hf *r, struct dc_model *m);
	const char *size_keys; /* the keys a parameter count grows with, for messages */
};

#define DENSE_SIZES "hidden_size, intermediate_size, vocab_size and num_hidden_layers"

static const struct family families[] = {
	{"llama", "LlamaForCausalLM", read_llama, DENSE_SIZES},
	{"mistral", "MistralForCausalLM", read_mistral, DENSE_SIZES},
	{"mixtral", "MixtralForCausalLM", read_mixtral,
	 "hidden_size, intermediate_size, num_local_experts, vocab_size and num_hidden_layers"},
	{"qwen2", "Qwen2ForCausalLM", read_qwen2, DENSE_SIZES},
	{"qwen2_moe", "Qwen2MoeForCausalLM", read_qwen2_moe,
	 "hidden_size, intermediate_size, moe_intermediate_size, shared_expert_intermediate_size, num_experts, vocab_size and num_hidden_layers"},
	{"qwen3_moe", "Qwen3MoeForCausalLM", read_qwen3_moe,
	 "hidden_size, intermediate_size, moe_intermediate_size, num_experts, vocab_size and num_hidden_layers"},
	{"gpt2", "GPT2LMHeadModel", read_gpt2, "n_embd, n_inner, vocab_size and n_layer"},
	{"gemma", "GemmaForCausalLM", read_gemma, DENSE_SIZES},
	{"deepseek_v3", "DeepseekV3ForCausalLM", read_deepseek_v3,
	 "hidden_size, intermediate_size, moe_intermediate_size, n_routed_experts, n_shared_experts, vocab_size and num_hidden_layers"},
	{"qwen3", "Qwen3ForCausalLM", read_qwen3, DENSE_SIZES},
	{"gemma2", "Gemma2ForCausalLM", read_gemma2, DENSE_SIZES},
	{"gemma3", "Gemma3ForConditionalGeneration", read_gemma3, "text_config's " DENSE_SIZES},
	{"gemma3_text", "Gemma3ForCausalLM", read_gemma3_text, DENSE_SIZES},
	{"mistral3", "Mistral3ForConditionalGeneration", read_mistral3, "text_config's " DENSE_SIZES},
	{"phi3", "Phi3ForCausalLM", read_phi3, DENSE_SIZES},
	{"llama4", "Llama4ForConditionalGeneration", read_llama4,
	 "text_config's hidden_size, intermediate_size, intermediate_size_mlp, num_local_experts, vocab_size and num_hidden_layers"},
	{"llama4_text", "Llama4ForCausalLM", read_llama4_text,
	 "hidden_size, intermediate_size, intermediate_size_mlp, num_local_experts, vocab_size and num_hidden_layers"},
	{"gpt_oss", "GptOssForCausalLM", read_gpt_oss,
	 "hidden_size, intermediate_size, num_local_experts, vocab_size and num_hidden_layers"},
	{"glm4_moe", "Glm4MoeForCausalLM", read_glm4_moe,
	 "hidden_size, intermediate_size, moe_intermediate_size, n_routed_experts, n_shared_experts, vocab_size and num_hidden_layers"},
	{"qwen3_next", "Qwen3NextForCausalLM", read_qwen3_next,
	 "hidden_size, moe_intermediate_size, shared_expert_intermediate_size, num_experts, the linear_* sizes, vocab_size and num_hidden_layers"},
};

#define NFAMILIES (sizeof(families) / sizeof(families[0]))

const char *dc_hf_size_keys(const char *model_type)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (strcmp(model_type, families[i].model_type) == 0)
			return families[i].size_keys;
	return NULL;
}

const char *dc_hf_supported(void)
{
	return "llama, mistral, mistral3, mixtral, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, gpt2, gemma, "
	       "gemma2, gemma3, gemma3_text, llama4, llama4_text, gpt_oss, glm4_moe, deepseek_v3";
}

/* The family named by model_type, else by the first of architectures. */
static const struct family *find_family(struct hf *r)
{
	const cJSON *mt = get(r, "model_type"), *arch = get(r, "architectures");
	const cJSON *first = NULL;
	char got[64];

	if (mt) {
		if (!cJSON_IsString(mt)) {
			hf_error(r, "'model_type': expected a string, got %s", describe(mt, got, sizeof(got)));
			return NULL;
		}
		for (size_t i = 0; i < NFAMILIES; i++)
			if (strcmp(mt->valuestring, families[i].model_type) == 0)
				return &families[i];
		/* a model_type of its own over a known architecture (Kimi K2's
		 * kimi_k2 is a DeepseekV3ForCausalLM): read as that family, and say so */
		if (arch && cJSON_IsArray(arch))
			first = cJSON_GetArrayItem(arch, 0);
		if (first && cJSON_IsString(first))
			for (size_t i = 0; i < NFAMILIES; i++)
				if (strcmp(first->valuestring, families[i].architecture) == 0) {
					char arch_got[64];
					hf_warn(r, "'model_type': %s is not a family distcalc reads; read as %s, the family of 'architectures' %s",
						describe(mt, got, sizeof(got)), families[i].model_type,
						describe(first, arch_got, sizeof(arch_got)));
					return &families[i];
				}
		hf_error(r, "'model_type': unsupported architecture %s; supported: %s",
			 describe(mt, got, sizeof(got)), dc_hf_supported());
		return NULL;
	}
	if (arch && cJSON_IsArray(arch))
		first = cJSON_GetArrayItem(arch, 0);
	if (!first || !cJSON_IsString(first)) {
		if (get(r, "cluster") && get(r, "model"))
			hf_error(r, "'model_type': missing: this looks like a distcalc config, not a Hugging Face config.json; pass it with --config");
		else
			hf_error(r, "'model_type': missing, and no 'architectures' entry names the model; supported: %s",
				 dc_hf_supported());
		return NULL;
	}
	for (size_t i = 0; i < NFAMILIES; i++)
		if (strcmp(first->valuestring, families[i].architecture) == 0)
			return &families[i];
	hf_error(r, "'architectures': unsupported architecture %s; supported: %s",
		 describe(first, got, sizeof(got)), dc_hf_supported());
	return NULL;
}

/* Keys that change the numbers but that the family's reader did not
 * take: an error or a warning naming each, never a silent drop. */
static void check_unread(struct hf *r, const char *family)
{
	const cJSON *v = get(r, "layer_types"), *e;
	uint64_t n = get_uint(r, "num_nextn_predict_layers", 0, 0);
	if (!r->read_mtp && n)
		hf_error(r, "'num_nextn_predict_layers': distcalc reads multi-token-prediction modules for deepseek_v3, glm4_moe and qwen3_next, not %s; got %llu (give model.mtp_layers for them)",
			 family, (unsigned long long)n);
	if (!r->read_layer_types && v && cJSON_IsArray(v))
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e) || strcmp(e->valuestring, "full_attention") != 0) {
				hf_error(r, "'layer_types': distcalc reads layer kinds for mistral, qwen2, qwen3, gemma2, gemma3, gpt_oss and qwen3_next, not %s; this list has layers other than \"full_attention\"",
					 family);
				break;
			}
		}
	if (!r->read_vision && get(r, "vision_config"))
		hf_warn(r, "'vision_config': the vision tower is not counted; distcalc models the %s text model", family);
}

/* The longest context a rotary model is set up for: max_position_embeddings
 * (the family's class default where the file leaves it out and released
 * files do: Gemma 3's 131072, already the extended length), or, where
 * rope_scaling gives a factor, the factor times its
 * original_max_position_embeddings (else times max_position_embeddings)
 * when that is longer: DeepSeek-V3 and gpt-oss state the extended length
 * (163840 = 40 x 4096; 131072 = 32 x 4096), Qwen's YaRN setups keep the
 * original one beside the factor (40960 with 4 x 32768), and so do linear
 * ones (lmsys/vicuna-7b-v1.5-16k: 4096 with a linear factor 4, 16384). A
 * "llama3" scaling's file states the extended length itself (Llama 3.1
 * 131072 with factor 8 of 8192, Llama 3.2 131072 with factor 32 of 8192),
 * so the factor extends nothing there. Gemma 3 stating its 131072 beside a
 * linear 8 reads 1,048,576: a linear file says not which it gives (a
 * review's Vicuna warned at 16384 when linear was read as extended).
 * rope_scaling's type is "rope_type" or the older "type"; transformers v5
 * names the object rope_parameters (per layer kind in Gemma's: its
 * full_attention entry's). It holds no weights and only a warning reads
 * it: a value that is no positive whole number is not read (0). */
static uint64_t max_positions(struct hf *r)
{
	const cJSON *v = get(r, "max_position_embeddings"), *rs = get(r, "rope_scaling"), *f, *o, *t;
	double d, lim;
	if (!v && r->max_pos_default)
		return r->max_pos_default;
	if (!v || !cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (!isfinite(d) || d < 1 || d != floor(d) || d >= DC_MAX_EXACT_INT)
		return 0;
	lim = d;
	if (!rs || cJSON_IsNull(rs))
		rs = get(r, "rope_parameters");
	if (rs && cJSON_IsObject(rs) && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rs, "full_attention")))
		rs = cJSON_GetObjectItemCaseSensitive(rs, "full_attention");
	if (rs && cJSON_IsObject(rs)) {
		f = cJSON_GetObjectItemCaseSensitive(rs, "factor");
		o = cJSON_GetObjectItemCaseSensitive(rs, "original_max_position_embeddings");
		t = cJSON_GetObjectItemCaseSensitive(rs, "rope_type");
		if (!t)
			t = cJSON_GetObjectItemCaseSensitive(rs, "type");
		if (t && cJSON_IsString(t) && strcmp(t->valuestring, "llama3") == 0)
			f = NULL;
		if (f && cJSON_IsNumber(f) && isfinite(f->valuedouble) && f->valuedouble > 1) {
			double base = o && cJSON_IsNumber(o) && isfinite(o->valuedouble) && o->valuedouble >= 1
					      ? o->valuedouble
					      : d;
			if (base * f->valuedouble > lim)
				lim = base * f->valuedouble;
		}
	}
	return lim < DC_MAX_EXACT_INT ? (uint64_t)lim : 0;
}

int dc_hf_model_read(const cJSON *root, const char *text, size_t len, const char *name, struct dc_model *m,
		     struct dc_diag *diag)
{
	struct hf r;
	const struct family *f;

	memset(m, 0, sizeof(*m));
	r.root = r.top = root;
	r.text = text;
	r.len = len;
	r.name = name;
	r.diag = diag;
	r.errors = 0;
	r.read_mtp = r.read_layer_types = r.read_vision = 0;
	r.scale_missing[0] = '\0';
	r.scale_n = 0;
	r.max_pos_default = 0;
	r.text_root = NULL;
	if (!cJSON_IsObject(root)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: a Hugging Face config is a JSON object", name);
		return -1;
	}
	f = find_family(&r);
	if (!f)
		return -1;
	snprintf(m->family, sizeof(m->family), "%s", f->model_type);
	m->moe_layer_interval = 1;
	f->read(&r, m);
	/* the longest context a rotary model is set up for (rope_scaling's
	 * extension included: Llama 3.1 says 131072, DeepSeek-V3 163840);
	 * a learned table's length is read as position_embeddings */
	if (!m->position_embeddings) {
		/* a wrapper's text model's (its rope_scaling too) */
		if (r.text_root)
			r.root = r.text_root;
		m->hf_max_positions = max_positions(&r);
		r.root = root;
	}
	/* every other family routes over all experts at once */
	if (!m->router_groups)
		m->router_groups = m->router_group_topk = 1;
	check_unread(&r, f->model_type);
	if (r.scale_n && !r.errors)
		/* released files mostly give these, not always: gemma-3-4b-it's
		 * text_config leaves out its heads, equal to the class's 8 and 4
		 * (a trial read "a released model's config.json gives it" there) */
		hf_warn(&r, "not in the file, the configuration class's default%s taken, as transformers does: %s; "
			    "check the file against the model's released config.json (one may leave out a key equal to "
			    "its class's default; a truncated or hand-made file reads the same way)",
			r.scale_n > 1 ? "s are" : " is", r.scale_missing);
	{
		const cJSON *q = get(&r, "quantization_config"), *qm = NULL;
		char got[64];
		if (q && cJSON_IsObject(q))
			qm = cJSON_GetObjectItemCaseSensitive(q, "quant_method");
		/* fp8 with block scales (DeepSeek-V3) is how the model trained
		 * (precision.matmul fp8); a 4-bit storage (gpt-oss's MXFP4) is not */
		if (q && !(qm && cJSON_IsString(qm) && strcmp(qm->valuestring, "fp8") == 0))
			hf_warn(&r, "'quantization_config': the checkpoint's %s storage is not what training holds; distcalc counts every weight at the precision.* bytes",
				qm ? describe(qm, got, sizeof(got)) : "quantized");
	}
	return r.errors ? -1 : 0;
}
