/* import.c - the imported keys and the equivalent config; see import.h. */
#include "distcalc/import.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/catalogue.h"
#include "distcalc/config.h"
#include "import_int.h"

const char *dc_import_option(enum dc_import_format f)
{
	switch (f) {
	case DC_IMPORT_MEGATRON: return "--from-megatron";
	case DC_IMPORT_TORCHTITAN: return "--from-torchtitan";
	case DC_IMPORT_DEEPSPEED: return "--from-deepspeed";
	}
	return "--from-?";
}

const char *dc_import_framework(enum dc_import_format f)
{
	switch (f) {
	case DC_IMPORT_MEGATRON: return "Megatron-LM arguments";
	case DC_IMPORT_TORCHTITAN: return "a torchtitan train config";
	case DC_IMPORT_DEEPSPEED: return "a DeepSpeed config";
	}
	return "?";
}

const char *dc_import_where(char *buf, size_t n, const char *name, unsigned line)
{
	char shown[512];
	dc_fmt_printable(shown, sizeof(shown), name);
	if (line)
		snprintf(buf, n, "%s:%u", shown, line);
	else
		snprintf(buf, n, "%s", shown);
	return buf;
}

const char *dc_import_get(const struct dc_import *imp, const char *path)
{
	for (size_t i = 0; i < imp->nkeys; i++)
		if (strcmp(imp->keys[i].path, path) == 0)
			return imp->keys[i].json; /* NULL when unset */
	return NULL;
}

void dc_import_launch_check(const struct dc_import *imp, const char *name, const struct dc_config *cfg,
			    struct dc_diag *diag)
{
	unsigned long long world = (unsigned long long)cfg->cluster.num_nodes * cfg->cluster.gpus_per_node;
	/* torchrun's --nnodes defaults to 1; given but not a count (a
	 * scheduler's variable): not known */
	unsigned long long nodes = imp->launch_nodes ? imp->launch_nodes : imp->launch_nodes_given ? 0 : 1;
	char at[600];
	if (!nodes || !imp->launch_per_node || nodes * imp->launch_per_node == world)
		return;
	dc_diag_warn(diag,
		     "%s: the script launches %llu GPUs (torchrun --nnodes %llu --nproc_per_node %llu), but the "
		     "config's cluster has %llu (%llu nodes of %llu): the cluster is the config's, so dp and the "
		     "accumulation are derived for its %llu GPUs, a run the script does not launch; give --config a "
		     "cluster of the script's nodes (cluster.num_nodes %llu, gpus_per_node %llu), or --set them",
		     dc_import_where(at, sizeof(at), name, imp->launch_line), nodes * imp->launch_per_node, nodes,
		     imp->launch_per_node, world, (unsigned long long)cfg->cluster.num_nodes,
		     (unsigned long long)cfg->cluster.gpus_per_node, world, nodes, imp->launch_per_node);
}

void dc_import_model_check(const struct dc_import *imp, const char *name, const char *model,
			   const struct dc_config *cfg, struct dc_diag *diag)
{
	char at[600], got[256];
	if (!model)
		return;
	for (size_t i = 0; i < imp->nkeys; i++) {
		const struct dc_import_key *k = &imp->keys[i];
		int ki;
		/* the shape's keys: the sequence is the file's (it stays), the
		 * hf_config is what --model replaces by name */
		if (strncmp(k->path, "model.", 6) != 0 || !k->json || !k->line || strcmp(k->path, "model.seq_length") == 0 ||
		    strcmp(k->path, "model.hf_config") == 0 || (ki = dc_config_key_index(k->path)) < 0 ||
		    dc_config_value_json(cfg, (size_t)ki, got, sizeof(got)) != 0 || strcmp(got, k->json) == 0)
			continue;
		/* the script's --vocab-size is --model's, padded as Megatron-LM
		 * pads it (a review: Qwen3-8B's 151936 at tp 2, 152064): the
		 * same model */
		if (strcmp(k->path, "model.vocab_size") == 0 && k->line == imp->vocab_line && imp->vocab_raw &&
		    imp->vocab_raw == cfg->model.vocab_size)
			continue;
		dc_diag_warn(diag,
			     "%s: '%s' gives %s %s, but --model %s has %s: the model priced is --model's (a script's "
			     "shape beside --model is not merged); give --set %s=%s to price the script's",
			     dc_import_where(at, sizeof(at), name, k->line), k->from, k->path, k->json, model, got, k->path,
			     k->json);
	}
}

/* Megatron's vocabulary padded on the final tp (import.h vocab_raw):
 * the key still from the script's line, at another tp than the script's */
static int vocab_finish(struct dc_import *imp, unsigned long long tp)
{
	unsigned long long mult = imp->vocab_div * tp, padded;
	char t[32];
	if (!imp->vocab_line || tp == imp->vocab_tp || !mult)
		return 0;
	for (size_t i = 0; i < imp->nkeys; i++) {
		struct dc_import_key *k = &imp->keys[i];
		char *j;
		if (strcmp(k->path, "model.vocab_size") != 0 || k->line != imp->vocab_line)
			continue; /* a --set gave it (line 0): it stands */
		padded = (imp->vocab_raw + mult - 1) / mult * mult;
		snprintf(t, sizeof(t), "%llu", padded);
		if (!(j = dc_strdup(t)))
			return -1;
		free(k->json);
		k->json = j;
		snprintf(k->from, sizeof(k->from), "%s",
			 "--vocab-size, padded to a multiple of --make-vocab-size-divisible-by x the --set tp");
	}
	return 0;
}

int dc_import_finish(struct dc_import *imp, const char *name, struct dc_diag *diag)
{
	const char *tp = dc_import_get(imp, "parallel.tp");
	unsigned long long tpn = tp ? strtoull(tp, NULL, 10) : 1;
	char at[600];
	if (vocab_finish(imp, tpn) != 0) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	/* --num-layers-per-virtual-pipeline-stage at a --set pp: the chunks
	 * a rank derived again, (layers) / pp / n, as Megatron-LM derives
	 * them (arguments.py:957-975 at d98e8a64; a trial's pp 4 -> 2 kept 4
	 * chunks of 10 layers where Megatron runs 8 of 5), or refused where
	 * they are no whole number, as it asserts */
	if (imp->vpp_line) {
		const char *pps = dc_import_get(imp, "parallel.pp");
		unsigned long long pp = pps ? strtoull(pps, NULL, 10) : 1;
		for (size_t i = 0; pp && pp != imp->vpp_pp && i < imp->nkeys; i++) {
			struct dc_import_key *k = &imp->keys[i];
			char t[32], *j;
			if (strcmp(k->path, "parallel.virtual_pipeline") != 0 || k->line != imp->vpp_line || !k->json)
				continue; /* a --set gave it (line 0): it stands */
			if (imp->vpp_layers % pp != 0 || imp->vpp_layers / pp % imp->vpp_per_chunk != 0) {
				dc_diag_error(diag, DC_ERR_CONFIG,
					      "%s: error: '--num-layers-per-virtual-pipeline-stage': %llu must divide %llu "
					      "layers / the --set pipeline-model-parallel-size %llu, a whole number, as Megatron-LM "
					      "asserts (megatron/training/arguments.py:968-973 at d98e8a64); --set "
					      "parallel.virtual_pipeline too, or another pp",
					      dc_import_where(at, sizeof(at), name, imp->vpp_line), imp->vpp_per_chunk,
					      imp->vpp_layers, pp);
				return -1;
			}
			snprintf(t, sizeof(t), "%llu", imp->vpp_layers / pp / imp->vpp_per_chunk);
			if (!(j = dc_strdup(t))) {
				dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
				return -1;
			}
			free(k->json);
			k->json = j;
			snprintf(k->from, sizeof(k->from), "%s",
				 "--num-layers-per-virtual-pipeline-stage, on the --set pp");
		}
	}
	/* the script's --sequence-parallel at a --set tp of 1: off, as
	 * Megatron-LM turns it off at tensor-model-parallel-size 1 (a trial's
	 * --set parallel.tp=1 was refused: "needs parallel.tp > 1") */
	if (imp->format == DC_IMPORT_MEGATRON && tpn == 1)
		for (size_t i = 0; i < imp->nkeys; i++) {
			const struct dc_import_key *k = &imp->keys[i];
			unsigned line = k->line;
			if (strcmp(k->path, "parallel.sequence_parallel") != 0 || !k->json || strcmp(k->json, "true") != 0 ||
			    !line)
				continue;
			if (dc_import_unset(imp, "parallel.sequence_parallel", diag) != 0)
				return -1;
			dc_diag_warn(diag,
				     "%s: '--sequence-parallel': off at the --set tensor-model-parallel-size 1, as Megatron-LM "
				     "turns it off",
				     dc_import_where(at, sizeof(at), name, line));
			break;
		}
	if (!imp->sp_at_tp1_line)
		return 0;
	if (tp && strtoull(tp, NULL, 10) > 1) {
		if (dc_import_get(imp, "parallel.sequence_parallel"))
			return 0; /* a --set gives it */
		return dc_import_set(imp, "parallel.sequence_parallel", "true", "--sequence-parallel", imp->sp_at_tp1_line,
				     name, diag);
	}
	dc_diag_warn(diag, "%s: '--sequence-parallel': off at tensor-model-parallel-size 1, as Megatron-LM turns it off",
		     dc_import_where(at, sizeof(at), name, imp->sp_at_tp1_line));
	return 0;
}

int dc_import_set(struct dc_import *imp, const char *path, const char *json, const char *from, unsigned line,
		  const char *name, struct dc_diag *diag)
{
	struct dc_import_key *k;
	char at[600];
	for (size_t i = 0; i < imp->nkeys; i++) {
		k = &imp->keys[i];
		if (strcmp(k->path, path) != 0)
			continue;
		if (!k->json) {
			/* unset before: set again */
			if (!(k->json = dc_strdup(json))) {
				dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
				return -1;
			}
			snprintf(k->from, sizeof(k->from), "%s", from);
			k->line = line;
			return 0;
		}
		if (strcmp(k->json, json) == 0)
			return 0;
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: '%s': gives '%s' %s, but '%s'%s%u gave it %s",
			      dc_import_where(at, sizeof(at), name, line), from, path, json, k->from,
			      k->line ? " on line " : "", k->line, k->json);
		return -1;
	}
	if (imp->nkeys >= DC_IMPORT_MAX_ITEMS) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: more than %d keys", name, DC_IMPORT_MAX_ITEMS);
		return -1;
	}
	k = dc_realloc(imp->keys, (imp->nkeys + 1) * sizeof(*k));
	if (!k) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	imp->keys = k;
	k = &imp->keys[imp->nkeys];
	memset(k, 0, sizeof(*k));
	if (!(k->json = dc_strdup(json))) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	snprintf(k->path, sizeof(k->path), "%s", path);
	snprintf(k->from, sizeof(k->from), "%s", from);
	k->line = line;
	imp->nkeys++;
	return 0;
}

int dc_import_set_u64(struct dc_import *imp, const char *path, unsigned long long v, const char *from, unsigned line,
		      const char *name, struct dc_diag *diag)
{
	char t[32];
	snprintf(t, sizeof(t), "%llu", v);
	return dc_import_set(imp, path, t, from, line, name, diag);
}

int dc_import_set_str(struct dc_import *imp, const char *path, const char *v, const char *from, unsigned line,
		      const char *name, struct dc_diag *diag)
{
	int rc;
	char *t;
	cJSON *s = cJSON_CreateString(v);
	if (!s || !(t = cJSON_PrintUnformatted(s))) {
		cJSON_Delete(s);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	rc = dc_import_set(imp, path, t, from, line, name, diag);
	cJSON_free(t);
	cJSON_Delete(s);
	return rc;
}

int dc_import_override(struct dc_import *imp, const char *text, struct dc_diag *diag)
{
	const char *eq = strchr(text, '=');
	char path[64];
	cJSON *j;
	char *json;
	int rc;
	if (!eq || eq == text || (size_t)(eq - text) >= sizeof(path)) {
		dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--set': expected PATH=VALUE, got '%s'", text);
		return -1;
	}
	memcpy(path, text, (size_t)(eq - text));
	path[eq - text] = '\0';
	j = cJSON_ParseWithOpts(eq + 1, NULL, 1);
	if (!j)
		j = cJSON_CreateString(eq + 1);
	json = j ? cJSON_PrintUnformatted(j) : NULL;
	cJSON_Delete(j);
	if (!json) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	for (size_t i = 0; i < imp->nkeys; i++) {
		if (strcmp(imp->keys[i].path, path) == 0) {
			char *t = dc_strdup(json);
			cJSON_free(json);
			if (!t) {
				dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
				return -1;
			}
			free(imp->keys[i].json);
			imp->keys[i].json = t;
			snprintf(imp->keys[i].from, sizeof(imp->keys[i].from), "--set");
			imp->keys[i].line = 0;
			return 0;
		}
	}
	rc = dc_import_set(imp, path, json, "--set", 0, "--set", diag);
	cJSON_free(json);
	return rc;
}

int dc_import_unset(struct dc_import *imp, const char *name, struct dc_diag *diag)
{
	/* a copy: `name` may be a key's own path, which the compaction below
	 * overwrites */
	char *path = dc_strdup(name);
	size_t n, kept = 0;
	int rc = -1;
	if (!path) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "--unset: error: out of memory");
		return -1;
	}
	n = strlen(path);
	for (size_t i = 0; i < imp->nkeys; i++) {
		const char *p = imp->keys[i].path;
		if (strcmp(p, path) == 0 || (strncmp(p, path, n) == 0 && p[n] == '.')) {
			free(imp->keys[i].json);
			continue;
		}
		imp->keys[kept++] = imp->keys[i];
	}
	imp->nkeys = kept;
	if (dc_import_set(imp, path, "null", "--unset", 0, "--unset", diag) == 0) {
		free(imp->keys[imp->nkeys - 1].json);
		imp->keys[imp->nkeys - 1].json = NULL;
		rc = 0;
	}
	free(path);
	return rc;
}

void dc_import_release(struct dc_import *imp)
{
	for (size_t i = 0; i < imp->nkeys; i++)
		free(imp->keys[i].json);
	free(imp->keys);
	imp->keys = NULL;
	imp->nkeys = 0;
}

int dc_import_parse(enum dc_import_format f, const char *buf, size_t len, const char *name, struct dc_import *imp,
		    struct dc_diag *diag)
{
	int rc = -1;
	memset(imp, 0, sizeof(*imp));
	imp->format = f;
	if (len > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: file is larger than 1 MiB", name);
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: a NUL byte: not a text file", name);
		return -1;
	}
	switch (f) {
	case DC_IMPORT_MEGATRON: rc = dc_import_megatron(buf, len, name, imp, diag); break;
	case DC_IMPORT_TORCHTITAN: rc = dc_import_torchtitan(buf, len, name, imp, diag); break;
	case DC_IMPORT_DEEPSPEED: rc = dc_import_deepspeed(buf, len, name, imp, diag); break;
	}
	return rc != 0 || diag->errors ? -1 : 0;
}

int dc_import_read(enum dc_import_format f, const char *path, struct dc_import *imp, struct dc_diag *diag)
{
	FILE *fp;
	char *buf;
	size_t n;
	int rc;
	memset(imp, 0, sizeof(*imp));
	imp->format = f;
	fp = fopen(path, "rb");
	if (!fp) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': cannot open '%s': %s", dc_import_option(f), path,
			      strerror(errno));
		return -1;
	}
	buf = dc_malloc(DC_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(fp);
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
		return -1;
	}
	n = fread(buf, 1, DC_CONFIG_MAX_BYTES + 1, fp);
	if (ferror(fp)) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': cannot read '%s': %s", dc_import_option(f), path,
			      strerror(errno));
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	if (n > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': '%s' is larger than 1 MiB", dc_import_option(f),
			      path);
		free(buf);
		return -1;
	}
	rc = dc_import_parse(f, buf, n, path, imp, diag);
	free(buf);
	return rc;
}

/* ---- the equivalent config ---- */

static void put_indent(struct dc_buf *out, int depth)
{
	dc_buf_pad(out, (size_t)depth * 2);
}

static void put_string(struct dc_buf *out, const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *t = j ? cJSON_PrintUnformatted(j) : NULL;
	if (!t)
		out->failed = 1;
	else
		dc_buf_puts(out, t);
	cJSON_free(t);
	cJSON_Delete(j);
}

/* An object's members one a line, two spaces a level; arrays and scalars
 * as cJSON writes them. The depth is the base config's, which cJSON's
 * parser bounds (CJSON_NESTING_LIMIT). */
static void put_value(struct dc_buf *out, const cJSON *v, int depth)
{
	if (cJSON_IsObject(v)) {
		const cJSON *c;
		int first = 1;
		if (!v->child) {
			dc_buf_puts(out, "{}");
			return;
		}
		dc_buf_puts(out, "{\n");
		cJSON_ArrayForEach(c, v) {
			if (!first)
				dc_buf_puts(out, ",\n");
			first = 0;
			put_indent(out, depth + 1);
			put_string(out, c->string ? c->string : "");
			dc_buf_puts(out, ": ");
			put_value(out, c, depth + 1);
		}
		dc_buf_putc(out, '\n');
		put_indent(out, depth);
		dc_buf_putc(out, '}');
	} else {
		char *t = cJSON_PrintUnformatted(v);
		if (!t) {
			out->failed = 1;
			return;
		}
		dc_buf_puts(out, t);
		cJSON_free(t);
	}
}

/* The object at the dotted `path` below `root`, created as needed, and the
 * last component in *leaf. NULL when out of memory or a component is not
 * an object. */
static cJSON *parent_of(cJSON *root, const char *path, const char **leaf)
{
	cJSON *o = root;
	const char *p = path, *dot;
	while ((dot = strchr(p, '.')) != NULL) {
		char part[64];
		cJSON *c;
		size_t n = (size_t)(dot - p);
		if (n >= sizeof(part))
			return NULL;
		memcpy(part, p, n);
		part[n] = '\0';
		c = cJSON_GetObjectItemCaseSensitive(o, part);
		if (!c) {
			c = cJSON_AddObjectToObject(o, part);
			if (!c)
				return NULL;
		} else if (!cJSON_IsObject(c)) {
			return NULL;
		}
		o = c;
		p = dot + 1;
	}
	*leaf = p;
	return o;
}

/* Puts one key into the tree, replacing what is there. Returns 0, or -1
 * (out of memory, or a path through a value that is not an object). */
static int add_key(cJSON *root, const struct dc_import_key *k)
{
	const char *leaf;
	cJSON *parent, *v;
	if (!k->json)
		return 0; /* an --unset: remove_key, at the end */
	parent = parent_of(root, k->path, &leaf);
	if (!parent || !(v = cJSON_Parse(k->json)))
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(parent, leaf))
		return cJSON_ReplaceItemInObjectCaseSensitive(parent, leaf, v) ? 0 : (cJSON_Delete(v), -1);
	if (!cJSON_AddItemToObject(parent, leaf, v)) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

/* The last component of `path` in out[n], cut back to a whole UTF-8
 * character when longer. */
static void short_name(char *out, size_t n, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;
	snprintf(out, n, "%s", slash && slash[1] ? slash + 1 : path);
	len = strlen(out);
	if (len == n - 1)
		while (len > 0 && ((unsigned char)out[len] & 0xC0) == 0x80)
			out[--len] = '\0';
	if (len == n - 1 && len > 0 && ((unsigned char)out[len - 1] & 0x80))
		out[--len] = '\0';
}

/* --unset PATH: PATH leaves the tree, and a section it empties too. */
static void remove_key(cJSON *root, const char *path)
{
	cJSON *o = root;
	const char *p = path, *dot;
	while ((dot = strchr(p, '.')) != NULL) {
		char part[64];
		size_t n = (size_t)(dot - p);
		if (n >= sizeof(part))
			return;
		memcpy(part, p, n);
		part[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, part);
		if (!cJSON_IsObject(o))
			return;
		p = dot + 1;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, p);
}

static int has_section(const struct dc_import *imp, const char *section)
{
	size_t n = strlen(section);
	for (size_t i = 0; i < imp->nkeys; i++)
		if (imp->keys[i].json && strncmp(imp->keys[i].path, section, n) == 0 && imp->keys[i].path[n] == '.')
			return 1;
	return 0;
}

/* The components of a relative path, "." and empty ones dropped, into
 * c[] (at most max); -1 when it holds "..", is absolute or too long */
static int path_parts(const char *path, const char **c, size_t *len, size_t max)
{
	size_t n = 0;
	if (path[0] == '/')
		return -1;
	for (const char *p = path; *p;) {
		size_t l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (l && !(l == 1 && p[0] == '.')) {
			if (n == max)
				return -1;
			c[n] = p;
			len[n++] = l;
		}
		p += l + (p[l] == '/');
	}
	return (int)n;
}

/* `path`, relative to the current directory, as a path relative to the
 * folder `dir` (also relative to it): a new string, NULL when out of
 * memory; `path` itself (copied) where either holds ".." or is absolute */
static char *path_from(const char *dir, const char *path)
{
	const char *dc[64], *pc[64];
	size_t dl[64], pl[64], common = 0;
	int nd = path_parts(dir, dc, dl, 64), np = path_parts(path, pc, pl, 64);
	struct dc_buf b;
	if (nd < 0 || np < 1)
		return dc_strdup(path);
	while (common < (size_t)nd && common + 1 < (size_t)np && dl[common] == pl[common] &&
	       memcmp(dc[common], pc[common], dl[common]) == 0)
		common++;
	dc_buf_init(&b);
	for (size_t i = common; i < (size_t)nd; i++)
		dc_buf_add(&b, "../", 3);
	for (size_t i = common; i < (size_t)np; i++) {
		dc_buf_add(&b, pc[i], pl[i]);
		if (i + 1 < (size_t)np)
			dc_buf_add(&b, "/", 1);
	}
	dc_buf_add(&b, "", 1);
	if (b.failed) {
		dc_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* A file path the config names (model.hf_config, cluster.topology_file),
 * read against the base config's folder: against the current directory
 * (the folder of `base_name` before it), then against `out_dir` where the
 * emitted config goes to a file there. A catalogue name and an absolute
 * path stay. Returns 0, -1 when out of memory. */
static int rebase_path(cJSON *item, const char *base_name, const char *out_dir, int catalogue)
{
	char *p, *q;
	if (!cJSON_IsString(item) || (catalogue && dc_catalogue_is_name(item->valuestring)) ||
	    item->valuestring[0] == '/')
		return 0;
	p = strrchr(base_name, '/')
		    ? dc_asprintf("%.*s/%s", (int)(strrchr(base_name, '/') - base_name), base_name, item->valuestring)
		    : dc_strdup(item->valuestring);
	if (!p)
		return -1;
	q = out_dir ? path_from(out_dir, p) : p;
	if (q != p)
		free(p);
	if (!q || !cJSON_SetValuestring(item, q)) {
		free(q);
		return -1;
	}
	free(q);
	return 0;
}

int dc_import_config(const struct dc_import *imp, const char *import_name, const char *base, size_t base_len,
		     const char *base_name, struct dc_buf *out, struct dc_diag *diag)
{
	return dc_import_config_in(imp, import_name, base, base_len, base_name, NULL, out, diag);
}

int dc_import_config_in(const struct dc_import *imp, const char *import_name, const char *base, size_t base_len,
			const char *base_name, const char *out_dir, struct dc_buf *out, struct dc_diag *diag)
{
	static const char *const order[] = {"model", "cluster", "parallel", "training", "precision", "overlap", NULL};
	cJSON *broot, *root = NULL, *cluster;
	char *desc = NULL;
	int rc = -1;

	broot = cJSON_ParseWithLength(base, base_len);
	if (!broot || !cJSON_IsObject(broot)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: not a JSON object; '%s' takes the cluster from a distcalc config",
			      base_name, dc_import_option(imp->format));
		goto out;
	}
	cluster = cJSON_GetObjectItemCaseSensitive(broot, "cluster");
	if (!cJSON_IsObject(cluster)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: no 'cluster' object; '%s' takes the cluster from it",
			      base_name, dc_import_option(imp->format));
		goto out;
	}
	root = cJSON_CreateObject();
	{
		/* the files' last names, each at most 64 bytes: the loader takes
		 * a description of 256 */
		char a[65], b[65];
		short_name(a, sizeof(a), import_name);
		short_name(b, sizeof(b), base_name);
		desc = dc_asprintf("Imported by distcalc %s from %s (%s); the cluster from %s.",
				   dc_import_option(imp->format), a, dc_import_framework(imp->format), b);
	}
	if (!root || !desc || !cJSON_AddStringToObject(root, "description", desc))
		goto oom;
	for (size_t s = 0; order[s]; s++) {
		if (strcmp(order[s], "model") == 0 && !has_section(imp, "model")) {
			/* the framework names no model (DeepSpeed): the base's */
			const cJSON *bm = cJSON_GetObjectItemCaseSensitive(broot, "model");
			cJSON *copy, *hf;
			if (!cJSON_IsObject(bm))
				continue;
			if (!(copy = cJSON_Duplicate(bm, 1)) || !cJSON_AddItemToObject(root, "model", copy)) {
				cJSON_Delete(copy);
				goto oom;
			}
			/* relative to the base's folder, as the loader reads it
			 * there (and to the emitted file's, out_dir) */
			hf = cJSON_GetObjectItemCaseSensitive(copy, "hf_config");
			if (rebase_path(hf, base_name, out_dir, 1) != 0)
				goto oom;
			continue;
		}
		if (strcmp(order[s], "cluster") == 0) {
			cJSON *copy = cJSON_Duplicate(cluster, 1);
			if (!copy || !cJSON_AddItemToObject(root, "cluster", copy)) {
				cJSON_Delete(copy);
				goto oom;
			}
			/* the base's topology file likewise (a trial's import of a
			 * config in another folder read it from the current one) */
			if (rebase_path(cJSON_GetObjectItemCaseSensitive(copy, "topology_file"), base_name, out_dir, 0) != 0)
				goto oom;
			/* a --set of a cluster key replaces the base's */
			for (size_t i = 0; i < imp->nkeys; i++)
				if (strncmp(imp->keys[i].path, "cluster.", 8) == 0 && add_key(root, &imp->keys[i]) != 0)
					goto oom;
			continue;
		}
		for (size_t i = 0; i < imp->nkeys; i++) {
			size_t n = strlen(order[s]);
			if (strncmp(imp->keys[i].path, order[s], n) == 0 && imp->keys[i].path[n] == '.' &&
			    add_key(root, &imp->keys[i]) != 0)
				goto oom;
		}
	}
	/* the sections above not among them (a --set of checkpoint.*, ...) */
	for (size_t i = 0; i < imp->nkeys; i++) {
		int known = 0;
		for (size_t s = 0; order[s]; s++) {
			size_t n = strlen(order[s]);
			known |= strncmp(imp->keys[i].path, order[s], n) == 0 && imp->keys[i].path[n] == '.';
		}
		if (!known && add_key(root, &imp->keys[i]) != 0)
			goto oom;
	}
	for (size_t i = 0; i < imp->nkeys; i++)
		if (!imp->keys[i].json)
			remove_key(root, imp->keys[i].path);
	{
		/* a model the command line named (--model or --set
		 * model.hf_config) for a framework that names none (DeepSpeed):
		 * the base's training sequence, which no Hugging Face config
		 * gives, unless a --set gives it or an --unset removed it */
		cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "model");
		const cJSON *bm = cJSON_GetObjectItemCaseSensitive(broot, "model");
		const cJSON *bs = cJSON_IsObject(bm) ? cJSON_GetObjectItemCaseSensitive(bm, "seq_length") : NULL;
		int unset = 0;
		for (size_t i = 0; i < imp->nkeys; i++)
			unset |= !imp->keys[i].json && (strcmp(imp->keys[i].path, "model.seq_length") == 0 ||
							strcmp(imp->keys[i].path, "model") == 0);
		if (cJSON_IsObject(m) && bs && !unset && !cJSON_GetObjectItemCaseSensitive(m, "seq_length")) {
			cJSON *copy = cJSON_Duplicate(bs, 1);
			if (!copy || !cJSON_AddItemToObject(m, "seq_length", copy)) {
				cJSON_Delete(copy);
				goto oom;
			}
		}
	}
	put_value(out, root, 0);
	dc_buf_putc(out, '\n');
	if (out->failed)
		goto oom;
	rc = 0;
	goto out;
oom:
	dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
out:
	free(desc);
	cJSON_Delete(root);
	cJSON_Delete(broot);
	return rc;
}
