/* config_int.h - what the loader's files share (config.c the driver and
 * diagnostics, config_keys.c the key table, json_strict.c the strict JSON
 * scanner, config_values.c the value readers, the file walk and --set,
 * config_rules.c the defaults, presets and rules between keys). Not part of
 * the library's API: config.h is. */
#ifndef DISTCALC_CONFIG_INT_H
#define DISTCALC_CONFIG_INT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"

enum kkind {
	K_SECTION,   /* a JSON object holding more keys */
	K_COUNT,     /* integer >= 1 */
	K_COUNT_AUTO, /* integer >= 1, or "auto": derived as if absent (loader.is_auto) */
	K_UINT,      /* integer >= 0 */
	K_BYTES,     /* byte quantity >= 0 */
	K_BYTES_POS, /* byte quantity >= 1 */
	K_BW,        /* bandwidth in [lo, hi) */
	K_TIME,      /* time in [lo, hi) */
	K_BOOL,
	K_ENUM,      /* string from info.choices[] stored as int */
	K_GPU,       /* cluster.gpu: an enum stored as 1 + its index (0: no preset) */
	K_ORDER,     /* parallel.order */
	K_FRACTION,  /* number in [0, 1) */
	K_REAL,      /* number >= 0 */
	K_STRING,    /* free text (descriptions) */
	K_LIST,      /* a JSON array of counts >= 1 (parallel.pipeline_layers) */
	K_VALUES,    /* a JSON array of counts >= 1 into struct dc_search_values (search.space) */
	K_CHOICES,   /* a JSON array of info.choices[] strings into a uint32_t mask */
	K_BOOLS,     /* a JSON array of true / false into a uint32_t mask (bit 0 false, bit 1 true) */
	K_RAMP,      /* a JSON array of DC_NET_RAMP_KNOTS numbers in (0, 1] into a double[] (cluster.*.ramp) */
};

/* One key. `info` is what dc_config_key_at() shows; the rest is how the
 * loader reads the value. lo and hi are the bounds info.bounds words, for
 * the numeric kinds: a value is at least lo (above it when lo_open) and
 * below hi. */
struct key {
	struct dc_config_key_info info;
	enum kkind kind;
	size_t off;    /* where the value lands in struct dc_config; NOFF: nowhere */
	double lo, hi;
	int lo_open;
	double def;    /* the value info.default_text writes, when that is a literal */
};

/* Every key's id: its row's index in dc_cfg_keys (config_keys.def). */
enum key_id {
#define KEY(id, row) id,
#include "config_keys.def"
#undef KEY
	KEY_COUNT
};

extern const struct key dc_cfg_keys[KEY_COUNT];
extern const char *const dc_cfg_axis_names[];
extern const char *const dc_cfg_sharding_names[];
extern const char *const dc_cfg_recompute_names[];
extern const char *const dc_cfg_recompute_module_names[];
extern const char *const dc_cfg_protocol_names[];
extern const char *const dc_cfg_pipe_schedule_names[];

#define OFF(field) offsetof(struct dc_config, field)
#define NOFF ((size_t)-1)

#define NKEYS ((size_t)KEY_COUNT)
#define MAX_ERRORS 50

enum key_index_hint { KI_NONE = -1 };

struct loader {
	const char *name;      /* file name for messages */
	const char *buf;       /* the text (for line/col) */
	size_t len;
	struct dc_config *cfg;
	struct dc_diag *diag;
	int seen[NKEYS];       /* key present (file or --set) */
	int from_set[NKEYS];   /* last value came from --set */
	int unset[NKEYS];      /* removed by --unset (and not set again after) */
	int preset_removed[NKEYS]; /* cluster.system or .gpu: the last --set or
				    * --unset of it took away a preset the file
				    * or an earlier --set named */
	unsigned char filled[NKEYS]; /* enum dc_origin of a value a preset or
				      * the topology file filled; 0: none */
	int suggested[NKEYS];  /* an unknown key's suggestion: its "missing" would repeat it */
	int from_hf[NKEYS];    /* the value came from the Hugging Face config */
	int walked[NKEYS];     /* a section whose object was walked (not of a wrong type) */
	int is_auto[NKEYS];    /* a K_COUNT_AUTO key given as "auto" */
	int refused[NKEYS];    /* a value the walk refused: its error stands for what
				* it would fill (a preset's keys, their "missing") */
	size_t errors;
	char got[96];          /* describe()'s text for the message being built */
	const char *dir;       /* the config file's directory; NULL: the current one */
	char hf_path[DC_CONFIG_MAX_STRING + 1]; /* model.hf_config as written */
	int hf_loaded;         /* the shape came from a Hugging Face config */
	char topo_path[DC_CONFIG_MAX_STRING + 1]; /* cluster.topology_file as written */
	const struct dc_load_opts *opts;
};

/* ---- config.c: diagnostics and positions ---- */

/* The key named `path`, or -1 (a path from the file or --set). */
int dc_cfg_find_key(const char *path);
const char *dc_cfg_origin(const struct loader *l, int ki);
/* The first of keys[0..n) a --set gave or an --unset removed (an error
 * about several keys is the command line's when it changed one of them),
 * else `fallback`: the `ki` for dc_cfg_errorf. */
int dc_cfg_blame(const struct loader *l, int fallback, const int *keys, size_t n);
void dc_cfg_errorf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* dc_cfg_errorf about the text at offset `pos` of the file: "NAME:LINE:COL:
 * error: MSG", the place as a syntax error names it. */
void dc_cfg_errorf_at(struct loader *l, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 1 when tp splits the model's heads: the query and KV heads and, with
 * linear attention, its key heads (config_rules.c's rule_tp_heads). */
int dc_cfg_tp_admits(const struct dc_model *m, uint64_t tp);
void dc_cfg_warnf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The shortest "%.*g" text (15 to 17 digits) that reads back to v, so a
 * message never shows 1.0000001 as "1" (config_values.c). */
void dc_cfg_fmt_num(char *buf, size_t len, double v);
void dc_cfg_line_col(const char *buf, size_t len, size_t pos, size_t *line, size_t *col, size_t *line_start);
void dc_cfg_syntax_error(struct loader *l, size_t pos, const char *what);

/* ---- json_strict.c ---- */

#define JSON_MAX_DEPTH 64

struct scan {
	const char *s;
	size_t len, pos;
	size_t err_pos;
	char what[160];
	int failed;
};

/* Checks the text [s, s + len) strictly; 0, or -1 with sc->err_pos and
 * sc->what set (sc: zeroed by the caller but for s and len). */
int dc_cfg_scan_text(struct scan *sc, const char *s, size_t len);
size_t dc_cfg_utf8_len(const unsigned char *s, size_t n);
/* Where the key `path` ("model.seq_length") stands in the JSON text
 * buf[len], which passed the strict check: *pos is the offset of the
 * opening quote of the nth (from 0) copy of its last name, in the object
 * that the first copy of each name before it opens (the copy the walk
 * reads). Returns 0, or -1 when the text has no such copy. A duplicate
 * key's message names its line:column so. */
int dc_cfg_key_pos(const char *buf, size_t len, const char *path, size_t nth, size_t *pos);
int dc_cfg_is_space(char c);

/* ---- config_values.c ---- */

/* Reads every key of `obj` (the file's top level: prefix "") into
 * l->cfg, recording unknown keys with suggestions and bad values. */
void dc_cfg_walk(struct loader *l, const cJSON *obj, const char *prefix);
/* Applies one --set PATH=VALUE to the parsed tree: 0, or -1 recorded. */
int dc_cfg_apply_override(struct loader *l, cJSON *root, const char *text);
/* Applies one --unset PATH: removes PATH (a key or a section) from the
 * tree. Returns its key id (a PATH the tree lacks warns), or -1 recorded
 * (an unknown key). */
int dc_cfg_apply_unset(struct loader *l, cJSON *root, const char *path);
const char *dc_cfg_type_name(const cJSON *v);

/* ---- config_rules.c ---- */

void dc_cfg_set_defaults(struct dc_config *c);
void dc_cfg_apply_system(struct loader *l);
void dc_cfg_check_missing(struct loader *l);
/* The rules between keys, in table order (once every key read cleanly). */
void dc_cfg_cross_check(struct loader *l);

#endif
