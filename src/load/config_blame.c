/* config_blame.c - an estimator's overflow worded against the keys that
 * drove it; see dc_config_blame_overflow in config.h.
 *
 * The estimators and the plan report a product that overflows 64 bits as a
 * static text ("'model' x 'training' x 'precision': communication bytes per
 * step overflow 64 bits"): they hold no buffer and do not know which key the
 * user gave. The loader does (origin[]), so the words that name the key and
 * its value are written here, when the report is about to print the error.
 * The check stays in the estimators: a bound in the loader's rules that is
 * exact needs the estimator's own sums, and a looser one would refuse inputs
 * that run today (or let some overflows through to the old message).
 */
#include "distcalc/config.h"

#include <stdio.h>
#include <string.h>

/* A factor of an overflowing product: its key and what one unit is. */
struct factor {
	const char *path;
	const char *unit; /* "microbatches": "4000000000 microbatches" */
};

/* One estimator text and the keys whose values it multiplies, the likeliest
 * culprit first (a key the user gave is blamed before one with a default). */
struct overflow {
	const char *error; /* the estimator's text, exactly */
	const char *what;  /* "communication bytes per step" */
	struct factor f[10];
};

/* the sizes a model's parameter count grows with */
#define MODEL_SIZES                                                                                          \
	{"model.hidden_size", "hidden units"}, {"model.num_layers", "layers"}, {"model.vocab_size", "tokens"}, \
		{"model.ffn_hidden_size", "MLP units"}, {"model.num_experts", "experts"},                     \
		{"model.moe_ffn_hidden_size", "expert MLP units"}

static const struct overflow overflows[] = {
	{"'training.micro_batch_size' x 'model.seq_length': tokens per microbatch overflow 64 bits",
	 "tokens per microbatch",
	 {{"model.seq_length", "tokens"}, {"training.micro_batch_size", "samples"}}},
	{"'model' x 'training' x 'precision': communication bytes per step overflow 64 bits",
	 "communication bytes per step",
	 {{"training.grad_accum_steps", "microbatches"},
	  {"training.global_batch_size", "samples"},
	  {"training.micro_batch_size", "samples"},
	  {"model.seq_length", "tokens"},
	  {"model.num_layers", "layers"},
	  {"model.hidden_size", "hidden units"}}},
	{"'training.micro_batch_size' x 'training.grad_accum_steps' x 'parallel.dp' x 'model.seq_length': tokens per step overflow 64 bits",
	 "tokens per step",
	 {{"training.grad_accum_steps", "microbatches"},
	  {"training.global_batch_size", "samples"},
	  {"training.micro_batch_size", "samples"},
	  {"model.seq_length", "tokens"},
	  {"parallel.dp", "ranks"}}},
	{"'model': checkpoint elements overflow 64 bits", "checkpoint elements", {MODEL_SIZES}},
	{"'model': parameter terms overflow 64 bits", "parameter terms", {MODEL_SIZES}},
	{"'model' x 'precision': checkpoint bytes overflow 64 bits",
	 "checkpoint bytes",
	 {MODEL_SIZES,
	  {"precision.master_bytes", "bytes"},
	  {"precision.optimizer_bytes", "bytes"},
	  {"cluster.num_nodes", "nodes"}}},
	{"'checkpoint.step' x the global batch: samples consumed overflow 64 bits",
	 "samples consumed",
	 {{"checkpoint.step", "steps"},
	  {"training.grad_accum_steps", "microbatches"},
	  {"training.global_batch_size", "samples"},
	  {"training.micro_batch_size", "samples"},
	  {"parallel.dp", "ranks"}}},
	{"'model' / 'parallel.tp': parameters per rank overflow 64 bits", "parameters per rank", {MODEL_SIZES}},
	{"'model' x 'precision': model-state bytes per rank overflow 64 bits",
	 "model-state bytes per rank",
	 {MODEL_SIZES,
	  {"precision.param_bytes", "bytes"},
	  {"precision.grad_bytes", "bytes"},
	  {"precision.master_bytes", "bytes"},
	  {"precision.optimizer_bytes", "bytes"}}},
	{"'memory.activation_bytes_per_token_per_layer' / 'training.micro_batch_size' x 'model.seq_length': activation bytes overflow 64 bits",
	 "activation bytes",
	 {{"memory.activation_bytes_per_token_per_layer", "bytes"},
	  {"training.micro_batch_size", "samples"},
	  {"model.seq_length", "tokens"},
	  {"model.hidden_size", "hidden units"},
	  {"model.num_layers", "layers"}}},
	{"'cluster.gpus_per_node' x 'parallel.offload': host bytes per node overflow 64 bits",
	 "host bytes per node",
	 {{"cluster.gpus_per_node", "GPUs"}, {"parallel.offload", ""}}},
};

/* Row `i`'s value as a message quotes it: the JSON text, "4000000000". */
static void value_text(const struct dc_config *c, int i, char *buf, size_t len)
{
	if (i < 0 || dc_config_value_json(c, (size_t)i, buf, len) != 0)
		snprintf(buf, len, "?");
}

/* The factors of `o` with origin `want` (-1: any but a default), as row
 * indexes in `rows`; returns how many. */
static size_t factors_from(const struct dc_config *c, const struct overflow *o, int want, int *rows)
{
	size_t n = 0;
	for (size_t k = 0; k < sizeof(o->f) / sizeof(o->f[0]) && o->f[k].path; k++) {
		int i = dc_config_key_index(o->f[k].path);
		if (i < 0)
			continue;
		if (want >= 0 ? c->origin[i] == want : c->origin[i] != DC_ORIGIN_DEFAULT)
			rows[n++] = (int)k;
	}
	return n;
}

const char *dc_config_blame_overflow(const struct dc_config *c, const char *error, const char *where, char *buf,
				     size_t len)
{
	const struct overflow *o = NULL;
	int rows[10];
	size_t n, used;
	char v[64];
	const char *sp = where && *where ? " " : "";

	if (!where)
		where = "";

	if (!error || !c || len == 0)
		return error;
	for (size_t i = 0; i < sizeof(overflows) / sizeof(overflows[0]) && !o; i++)
		if (strcmp(error, overflows[i].error) == 0)
			o = &overflows[i];
	if (!o)
		return error;
	/* the key a --set gave, the first in the likeliest-first order;
	 * else the one key the config gave */
	if ((n = factors_from(c, o, DC_ORIGIN_SET, rows)) == 0)
		n = factors_from(c, o, -1, rows);
	if (n >= 1 && (n == 1 || c->origin[dc_config_key_index(o->f[rows[0]].path)] == DC_ORIGIN_SET)) {
		const struct factor *f = &o->f[rows[0]];
		value_text(c, dc_config_key_index(f->path), v, sizeof(v));
		snprintf(buf, len, "'%s': %s%s%s make%s the %s overflow 64 bits%s%s; use a smaller value", f->path, v,
			 f->unit[0] ? " " : "", f->unit, f->unit[0] ? "" : "s", o->what, sp, where);
		return buf;
	}
	if (n == 0) /* every factor its default: name them all */
		for (size_t k = 0; k < sizeof(o->f) / sizeof(o->f[0]) && o->f[k].path; k++)
			rows[n++] = (int)k;
	/* "'a' x 'b': WHAT overflow 64 bits[ WHERE]; got 4096 x 1000000" */
	used = 0;
	for (size_t k = 0; k < n && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s'%s'", k ? " x " : "", o->f[rows[k]].path);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, ": %s overflow 64 bits%s%s; got ", o->what, sp, where);
	for (size_t k = 0; k < n && used < len; k++) {
		value_text(c, dc_config_key_index(o->f[rows[k]].path), v, sizeof(v));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " x " : "", v);
	}
	return buf;
}
