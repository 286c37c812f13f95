/* import.h - training setups in a framework's words, mapped onto distcalc's
 * config keys: Megatron-LM arguments, torchtitan TOML, DeepSpeed JSON.
 *
 * An importer reads one file into a list of distcalc keys and values
 * (struct dc_import), each naming what in the file gave it and its line.
 * What it cannot map is an error naming the argument or key and its line;
 * what it maps only in part is a warning naming it. dc_import_config()
 * then writes the equivalent distcalc config: the cluster section of a
 * base config (the machines are not the framework's to say) and the
 * imported keys, which the loader reads and validates like any config and
 * --emit-config prints for the user to keep. docs/importers.md has every
 * mapping table. Like the loader, the importers never print or exit.
 */
#ifndef DISTCALC_IMPORT_H
#define DISTCALC_IMPORT_H

#include <stddef.h>

#include "distcalc/diag.h"
#include "distcalc/util.h"

struct dc_config;

enum dc_import_format {
	DC_IMPORT_MEGATRON,   /* --from-megatron: pretrain_gpt.py arguments or a launch script */
	DC_IMPORT_TORCHTITAN, /* --from-torchtitan: a train config .toml */
	DC_IMPORT_DEEPSPEED,  /* --from-deepspeed: a DeepSpeed config .json */
};

/* One distcalc key the import sets. */
struct dc_import_key {
	char path[64];  /* "parallel.tp" */
	char *json;     /* the value as JSON text: 8, "fsdp", true (owned); NULL:
			 * removed by --unset (from the base's cluster too) */
	char from[96];  /* what gave it: "--num-layers", "[parallelism] tensor_parallel_degree" */
	unsigned line;  /* 1-based line in the imported file; 0: a default of the framework */
};

struct dc_import {
	enum dc_import_format format;
	struct dc_import_key *keys; /* owned; in the order set */
	size_t nkeys;
	/* a model the file names that the catalogue lacks: why, for main.c
	 * to report unless --model gives the shape; "" when none */
	char model_unresolved[512];
	/* Megatron: --sequence-parallel given on this line (0: not) with the
	 * script's tp 1, which Megatron-LM turns off; dc_import_finish
	 * decides it on the tp the --set overrides leave */
	unsigned sp_at_tp1_line;
	/* Megatron: --vocab-size (with the tokenizer's own token) as the
	 * script gives it, padded on this line (0: not) to a multiple of
	 * vocab_div x the script's tp, vocab_tp; dc_import_finish pads it
	 * again on the tp the --set overrides leave, as Megatron-LM pads on
	 * the tp it runs (a --set of model.vocab_size stands) */
	unsigned long long vocab_raw, vocab_div, vocab_tp;
	unsigned vocab_line;
	/* Megatron: --num-layers-per-virtual-pipeline-stage vpp_per_chunk on
	 * this line (0: not), of vpp_layers (the layers, plus the embedding
	 * and loss where the split accounts for them) at the script's pp,
	 * vpp_pp; dc_import_finish derives the chunks again on the pp the
	 * --set overrides leave, as Megatron-LM derives them on the pp it
	 * runs (a --set of parallel.virtual_pipeline stands) */
	unsigned long long vpp_per_chunk, vpp_layers, vpp_pp;
	unsigned vpp_line;
	/* Megatron: torchrun's --nnodes and --nproc_per_node, when both are
	 * plain numbers (0: not given, or not a number: an elastic "1:4", a
	 * variable left unexpanded), and the line of the later; main.c holds
	 * their product against the config's GPUs (dc_import_launch_check) */
	unsigned long long launch_nodes, launch_per_node;
	unsigned launch_line;
	int launch_nodes_given; /* --nnodes given, a count or not (absent: torchrun's 1) */
	/* torchtitan: parallel.pipeline_layers is its stage split of the
	 * [model] flavor's layers, which --model's layers void (main.c) */
	int split_of_flavor;
};

/* The option that selects `f` ("--from-megatron") and the framework's name
 * ("Megatron-LM"). Static strings. */
const char *dc_import_option(enum dc_import_format f);
const char *dc_import_framework(enum dc_import_format f);

/* Parses `len` bytes of `buf`, the file `name` (for messages), into *imp
 * (initialised here). Bounded: at most 1 MiB of input, 4096 arguments or
 * keys, nesting 32 deep. Returns 0 (warnings may be in `diag`), or -1 with
 * every problem found recorded (DC_ERR_CONFIG; DC_ERR_INTERNAL when out of
 * memory). Call dc_import_release either way. */
int dc_import_parse(enum dc_import_format f, const char *buf, size_t len, const char *name, struct dc_import *imp,
		    struct dc_diag *diag);

/* As dc_import_parse, reading the file `path` (at most 1 MiB; DC_ERR_INPUT
 * when it cannot be read). */
int dc_import_read(enum dc_import_format f, const char *path, struct dc_import *imp, struct dc_diag *diag);

void dc_import_release(struct dc_import *imp);

/* A launch script's GPUs (torchrun's --nnodes x --nproc_per_node) that
 * are not the loaded config's cluster, num_nodes x gpus_per_node: a
 * warning in `diag` naming both (the cluster is the config's, so dp and
 * the accumulation are derived for its GPUs, not the script's). None
 * when the script gives no such count. */
void dc_import_launch_check(const struct dc_import *imp, const char *name, const struct dc_config *cfg,
			    struct dc_diag *diag);

/* The file's model keys that --model `model` replaced with other values
 * (the loaded config's): a warning in `diag` for each, naming the file's
 * line and argument and both values, since the model priced is
 * --model's. None without --model. */
void dc_import_model_check(const struct dc_import *imp, const char *name, const char *model,
			   const struct dc_config *cfg, struct dc_diag *diag);

/* A --set PATH=VALUE on top of the import (replacing what the file gave),
 * so that --emit-config prints it too: VALUE as JSON when it is JSON
 * (8, true, [4,4]), else as a string ("200 GB/s"). Returns 0, or -1 with
 * an error in `diag` (no '=', out of memory). */
int dc_import_override(struct dc_import *imp, const char *text, struct dc_diag *diag);

/* An --unset PATH on top of the import: what the file gave at PATH (a key
 * or a section) goes, and the config written leaves PATH out. Returns 0, or
 * -1 when out of memory. */
int dc_import_unset(struct dc_import *imp, const char *path, struct dc_diag *diag);

/* The value set for `path`, as JSON text, or NULL. */
const char *dc_import_get(const struct dc_import *imp, const char *path);

/* After the --set overrides, the decisions that read them: Megatron-LM's
 * arguments.py turns sequence parallelism off at tp 1 on the final
 * arguments, so a --sequence-parallel of a tp-1 script holds where a
 * --set makes tp > 1 (unless a --set says otherwise) and is dropped with
 * a warning naming the file `name` and its line where tp stays 1.
 * Returns 0, or -1 (recorded in `diag`). */
int dc_import_finish(struct dc_import *imp, const char *name, struct dc_diag *diag);

/* Appends to `out` the equivalent distcalc config as JSON (two-space
 * indent, a newline at the end): a description naming `import_name` and
 * `base_name`, the `cluster` object of the distcalc config `base`
 * (`base_len` bytes, named `base_name`), then the imported keys by
 * section. Returns 0, or -1 with an error in `diag` (the base is not JSON
 * or has no cluster object: DC_ERR_CONFIG; out of memory). */
int dc_import_config(const struct dc_import *imp, const char *import_name, const char *base, size_t base_len,
		     const char *base_name, struct dc_buf *out, struct dc_diag *diag);

/* As dc_import_config, the files the base config names (model.hf_config,
 * cluster.topology_file: read against its folder) written relative to
 * the folder `out_dir` (relative to the current directory) where the
 * config is emitted to a file, or to the current directory (NULL) */
int dc_import_config_in(const struct dc_import *imp, const char *import_name, const char *base, size_t base_len,
			const char *base_name, const char *out_dir, struct dc_buf *out, struct dc_diag *diag);

#endif
