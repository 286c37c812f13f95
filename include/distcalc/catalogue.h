/* catalogue.h - the model catalogue: Hugging Face config.json files that
 * `--model NAME` and `model.hf_config` name without a path.
 *
 * The catalogue is the models/ folder of distcalc's data directory, found
 * independently of the working directory, first that exists of:
 *   1. $DISTCALC_DATA_DIR (a folder holding models/), when set and not empty;
 *   2. the source tree's configs/ (compiled in: a build run in place);
 *   3. the installed <prefix>/share/distcalc (compiled in: `cmake --install`).
 * docs/importers.md says the same. A name is a catalogue name when it holds
 * no '/' and does not end in ".json": "llama-3-8b" is
 * <data>/models/llama-3-8b.json; "./x.json" or "x.json" is a file.
 */
#ifndef DISTCALC_CATALOGUE_H
#define DISTCALC_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/diag.h"

#define DC_CATALOGUE_ENV "DISTCALC_DATA_DIR"
/* A catalogue name is at most this many bytes. */
#define DC_CATALOGUE_NAME_MAX 96

/* 1 when `s` is a catalogue name (see above), else 0. */
int dc_catalogue_is_name(const char *s);

/* Writes the data directory into out[n]. Returns 0, or -1 when none of the
 * three exists (out then holds the compiled-in installed path, for
 * messages). */
int dc_catalogue_dir(char *out, size_t n);

/* Writes <data>/models/NAME.json into out[n] when that file exists.
 * Returns 0; -1 with one error in `diag` (DC_ERR_INPUT) naming `option`
 * ("'--model'", "'model.hf_config' in FILE") and listing the catalogue otherwise. */
int dc_catalogue_path(const char *name, const char *option, char *out, size_t n, struct dc_diag *diag);

/* One model of the catalogue. */
struct dc_catalogue_entry {
	char name[DC_CATALOGUE_NAME_MAX + 1]; /* "llama-3-8b" */
	char family[32];                      /* its model_type as distcalc reads it */
	uint64_t params;                      /* its parameter total; 0 when it does not load */
	char *error;                          /* why it does not load (owned); NULL when it does */
};

/* Every *.json of <data>/models, sorted by name, each loaded (the built-in
 * default config with the model from the file, at tp 1) for its family and
 * parameter total. *out is owned (dc_catalogue_list_free). Returns 0, or -1
 * with an error in `diag` when the folder cannot be read or out of memory.
 * At most 4096 files are listed. */
int dc_catalogue_list(struct dc_catalogue_entry **out, size_t *n, struct dc_diag *diag);
void dc_catalogue_list_free(struct dc_catalogue_entry *e, size_t n);

#endif
