/* hf.h - reading a Hugging Face config.json into a model shape.
 *
 * Internal to the loader: only config.c calls it. config.c reads the file
 * (the loader's limits: 1 MiB, no NUL bytes, strict JSON) and parses it;
 * dc_hf_model_read() maps the parsed tree to struct dc_model and never lets
 * cJSON out. Families: docs/models.md lists them (dc_hf_supported()), with
 * every key read, its default, what a null in it means and the modeling
 * file it follows. Keys distcalc does not use are ignored; the keys it
 * reads are validated like config keys.
 */
#ifndef DISTCALC_HF_H
#define DISTCALC_HF_H

#include <stddef.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"

struct cJSON;

/* Fills every shape field of *m (the family's defaults where a key is
 * missing, a null read as transformers reads None: docs/models.md, "null";
 * seq_length and params are left 0) from the JSON object
 * `root` of the file `name`, parsed from text[len] (NULL: not at hand; a
 * duplicate key's message then names no line:column). Returns 0, or -1
 * with every problem recorded in `diag` as DC_ERR_CONFIG, each line naming
 * `name` and the key. */
int dc_hf_model_read(const struct cJSON *root, const char *text, size_t len, const char *name, struct dc_model *m,
		     struct dc_diag *diag);

/* The supported model_type values, comma-separated, for messages. */
const char *dc_hf_supported(void);

/* The keys of the family `model_type` that its parameter count grows with,
 * as a message lists them ("hidden_size, intermediate_size, vocab_size and
 * num_hidden_layers"), or NULL for an unknown family. Static. */
const char *dc_hf_size_keys(const char *model_type);

#endif
