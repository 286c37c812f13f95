/* config.c - JSON config loader and validator; see config.h. This file
 * is the driver (read, check strictly, parse, walk, --set, presets,
 * defaults, rules) and the diagnostics; the loader's other concerns each
 * have a file (config_int.h lists them): the key table (config_keys.c,
 * config_keys.def), the strict JSON scanner (json_strict.c), the value
 * readers, the walk and --set (config_values.c), the defaults, presets and
 * rules between keys (config_rules.c).
 *
 * The only module besides the JSON reporter that sees cJSON. Every key is a
 * row of one table: its path, kind, bounds, default, unit, one-line doc and
 * where it lands in struct dc_config. The file walk, --set, the unknown-key
 * suggestions, the range checks, the defaults and docs/config.md's reference
 * tables (tests/check_config_doc.c) all follow that one list; the code names
 * a key by its id (enum key_id), never by looking its path up.
 */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "distcalc/catalogue.h"
#include "distcalc/hf.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/topo_file.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

#include "config_int.h"

/* ---- finding a key by its path: a hash table over the key table ---- */

/* Open addressing with linear probing, at most half full: a look-up hashes
 * the path and compares it with one or two keys, where walking the table
 * compared it with a hundred (a config's walk looks up every key it holds,
 * a sweep every key of every point). Built once, on first use, from the
 * key table (pthread_once: the search's threads may look keys up). */
#define KEY_SLOTS 1024
_Static_assert(KEY_SLOTS >= 2 * DC_CONFIG_MAX_KEYS && (KEY_SLOTS & (KEY_SLOTS - 1)) == 0,
	       "KEY_SLOTS: a power of two at least twice DC_CONFIG_MAX_KEYS");
static uint16_t key_slot[KEY_SLOTS]; /* key index + 1; 0: empty */
static pthread_once_t key_slots_once = PTHREAD_ONCE_INIT;

/* FNV-1a (32 bits) of a path. */
static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void key_slots_build(void)
{
	/* in table order: a path listed twice is found at its first row,
	 * as a walk of the table would find it */
	for (size_t i = 0; i < NKEYS; i++) {
		uint32_t h = path_hash(dc_cfg_keys[i].info.path) & (KEY_SLOTS - 1);
		while (key_slot[h])
			h = (h + 1) & (KEY_SLOTS - 1);
		key_slot[h] = (uint16_t)(i + 1);
	}
}

int dc_cfg_find_key(const char *path)
{
	uint32_t h;

	pthread_once(&key_slots_once, key_slots_build);
	for (h = path_hash(path) & (KEY_SLOTS - 1); key_slot[h]; h = (h + 1) & (KEY_SLOTS - 1))
		if (strcmp(dc_cfg_keys[key_slot[h] - 1].info.path, path) == 0)
			return key_slot[h] - 1;
	return -1;
}

/* 1 when `path` names a symbolic link */
static int is_symlink(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static const char *origin(const struct loader *l, int ki)
{
	return ki >= 0 && l->from_set[ki] ? "--set" : ki >= 0 && l->unset[ki] ? "--unset" : l->name;
}

int dc_cfg_blame(const struct loader *l, int fallback, const int *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] >= 0 && (l->from_set[keys[i]] || l->unset[keys[i]]))
			return keys[i];
	return fallback;
}

/* The one grammar of a loader message is "'PATH': problem": the path it
 * is about comes first, in quotes. Copies that path into `key` and returns
 * it, or NULL when `msg` does not start with one. */
static const char *subject(const char *msg, char *key, size_t len)
{
	const char *end;
	if (msg[0] != '\'' || !(end = strstr(msg + 1, "': ")) || (size_t)(end - msg - 1) >= len)
		return NULL;
	memcpy(key, msg + 1, (size_t)(end - msg - 1));
	key[end - msg - 1] = '\0';
	return key;
}

/* Records an error "ORIGIN: error: MSG" whose entry's key is the path MSG
 * starts with; `ki` (or -1) is the key whose value is blamed, for ORIGIN. */
void dc_cfg_errorf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* dc_cfg_errorf's and dc_cfg_errorf_at's work; `at` (NULL: none) is the
 * place in the file, as "LINE:COL" with the colon after it. */
static void verrorf(struct loader *l, int ki, const size_t *at, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void verrorf(struct loader *l, int ki, const size_t *at, const char *fmt, va_list ap)
{
	char key[512], place[48] = "";
	char *msg;
	const char *text;

	l->errors++;
	if (l->errors > MAX_ERRORS) {
		if (l->errors == MAX_ERRORS + 1)
			dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: too many errors; stopping after %d",
				      l->name, MAX_ERRORS);
		return;
	}
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(l->diag);
	/* keys and strings from the file may hold escaped control characters:
	 * never send them to a terminal */
	for (char *p = msg; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (at) {
		size_t line, col, ls;
		dc_cfg_line_col(l->buf, l->len, *at, &line, &col, &ls);
		snprintf(place, sizeof(place), ":%zu:%zu", line, col);
	}
	dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, subject(text, key, sizeof(key)), "%s%s: error: %s",
			at ? l->name : origin(l, ki), place, text);
	free(msg);
}

void dc_cfg_errorf(struct loader *l, int ki, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrorf(l, ki, NULL, fmt, ap);
	va_end(ap);
}

void dc_cfg_errorf_at(struct loader *l, size_t pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrorf(l, -1, &pos, fmt, ap);
	va_end(ap);
}

void dc_cfg_warnf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A value that is valid but probably not what was meant; as errorf. */
void dc_cfg_warnf(struct loader *l, int ki, const char *fmt, ...)
{
	char key[512];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(l->diag);
	va_end(ap);
	dc_diag_add_key(l->diag, DC_SEV_WARNING, DC_OK, subject(text, key, sizeof(key)), "%s: %s", origin(l, ki), text);
	free(msg);
}

/* ---- positions and syntax errors ---- */

void dc_cfg_line_col(const char *buf, size_t len, size_t pos, size_t *line, size_t *col,
		     size_t *line_start)
{
	size_t ln = 1, ls = 0;
	for (size_t i = 0; i < pos && i < len; i++)
		if (buf[i] == '\n') {
			ln++;
			ls = i + 1;
		}
	*line = ln;
	*col = pos - ls + 1;
	*line_start = ls;
}


static void syntax_error(struct loader *l, size_t pos, const char *what)
{
	size_t line, col, ls, le;
	char shown[4 * 120 + 1];
	size_t n, caret;

	if (pos > l->len)
		pos = l->len;
	dc_cfg_line_col(l->buf, l->len, pos, &line, &col, &ls);
	{
		/* a file that does not open as JSON at all (a wrong path: a
		 * CI trial's --config /etc/shadow printed its first line into
		 * the log) is named, its text not shown */
		size_t f = l->len >= 3 && memcmp(l->buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
		while (f < l->len && dc_cfg_is_space(l->buf[f]))
			f++;
		if (f < l->len && l->buf[f] != '{') {
			l->errors++;
			dc_diag_error(l->diag, DC_ERR_CONFIG,
				      "%s:%zu:%zu: error: %s (the file does not open with '{': not a JSON config, so its "
				      "text is not shown; is it the file meant?)",
				      l->name, line, col, what);
			return;
		}
	}
	for (le = ls; le < l->len && l->buf[le] != '\n' && l->buf[le] != '\r'; le++)
		;
	/* show at most 120 characters of the line, keeping the caret in view */
	n = le - ls;
	caret = pos - ls;
	if (n > 120) {
		size_t start = caret > 60 ? caret - 60 : 0;
		if (start + 120 > n)
			start = n - 120;
		ls += start;
		caret -= start;
		n = 120;
	}
	/* the line as a terminal may show it: control characters as spaces,
	 * bytes that are not UTF-8 escaped as \xff (four columns); the caret
	 * counts columns, one per character */
	{
		size_t out = 0, cols = 0, caret_col = 0;
		const unsigned char *u = (const unsigned char *)l->buf + ls;
		for (size_t i = 0; i < n;) {
			size_t k = dc_cfg_utf8_len(u + i, n - i);
			if (i <= caret)
				caret_col = cols;
			if (k == 0) {
				out += (size_t)snprintf(shown + out, sizeof(shown) - out, "\\x%02x", (unsigned)u[i]);
				cols += 4;
				i++;
				continue;
			}
			if (k == 1 && (u[i] < 0x20 || u[i] == 0x7f))
				shown[out++] = ' ';
			else
				memcpy(shown + out, u + i, k), out += k;
			cols++;
			i += k;
		}
		if (caret >= n)
			caret_col = cols + (caret - n);
		shown[out] = '\0';
		caret = caret_col;
	}
	l->errors++;
	dc_diag_error(l->diag, DC_ERR_CONFIG, "%s:%zu:%zu: error: %s\n%s\n%*s^", l->name, line, col,
		      what, shown, (int)caret, "");
}

int dc_cfg_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- entry points ---- */

/* cJSON allocates through distcalc's wrappers so tests can inject failures. */
static void use_dc_allocator(void)
{
	static int done;
	cJSON_Hooks hooks;
	if (done)
		return;
	hooks.malloc_fn = dc_malloc;
	hooks.free_fn = free;
	cJSON_InitHooks(&hooks);
	done = 1;
}

/* Checks l->buf against the loader's limits and strict JSON, then parses
 * it. Returns the tree, or NULL with the problem recorded (*oom set when
 * only an allocation failed). */
static cJSON *parse_text(struct loader *l, int *oom)
{
	const char *buf = l->buf, *end = NULL;
	size_t len = l->len, i;
	struct scan sc;
	unsigned long failed_before;
	cJSON *root;

	*oom = 0;
	if (len > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(l->diag, DC_ERR_INPUT, "%s: error: file is larger than 1 MiB (%zu bytes)", l->name, len);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		size_t pos = (size_t)((const char *)memchr(buf, '\0', len) - buf);
		syntax_error(l, pos, "NUL byte in the file; a config is UTF-8 JSON text");
		return NULL;
	}
	i = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	while (i < len && dc_cfg_is_space(buf[i]))
		i++;
	if (i == len) {
		dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: the file is empty; a config is a JSON object", l->name);
		return NULL;
	}
	if (dc_cfg_scan_text(&sc, buf, len) != 0) {
		syntax_error(l, sc.err_pos, sc.what);
		return NULL;
	}
	use_dc_allocator();
	failed_before = dc_alloc_failures();
	root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (!root) {
		/* the text passed dc_cfg_scan_text, so only a failed allocation stops cJSON */
		if (dc_alloc_failures() != failed_before)
			*oom = 1;
		else
			syntax_error(l, end ? (size_t)(end - buf) : 0, "cannot parse this JSON");
	}
	return root;
}

/* Reads `path` whole (at most DC_CONFIG_MAX_BYTES). Returns the bytes (the
 * caller frees them), or NULL with the reason in `diag`; `via` (NULL for a
 * config) says who named the file, and `key` (or NULL) is the config key
 * that did, for the entry. */
static char *read_limited(const char *path, const char *via, const char *key, size_t *len,
			  struct dc_diag *diag)
{
	const char *open_paren = via ? " (" : "", *close_paren = via ? ")" : "";
	char shown[DC_CONFIG_MAX_STRING * 4]; /* the name as messages print it */

	if (!via)
		via = "";
	FILE *f;
	struct stat st;
	char *buf;
	size_t n;

	dc_fmt_printable(shown, sizeof(shown), path);
	f = fopen(path, "rb");
	if (!f) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: cannot open: %s%s%s%s", shown,
				strerror(errno), open_paren, via, close_paren);
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key,
				"%s: error: is a directory, not a config file%s%s%s", shown, open_paren, via, close_paren);
		return NULL;
	}
	buf = dc_malloc(DC_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", shown);
		return NULL;
	}
	n = fread(buf, 1, DC_CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: read failed: %s", shown,
				strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > DC_CONFIG_MAX_BYTES) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: file is larger than 1 MiB%s%s%s",
				shown, open_paren, via, close_paren);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int is_model_shape_key(size_t i)
{
	return strncmp(dc_cfg_keys[i].info.path, "model.", 6) == 0 && dc_cfg_keys[i].off != NOFF &&
	       strcmp(dc_cfg_keys[i].info.path, "model.params") != 0 && strcmp(dc_cfg_keys[i].info.path, "model.seq_length") != 0;
}

/* A model shape key's value in `m` as a message shows it. */
static void model_value_text(const struct dc_model *m, size_t i, char *buf, size_t len)
{
	const struct key *k = &dc_cfg_keys[i];
	const char *f = (const char *)m + (k->off - offsetof(struct dc_config, model));
	if (k->kind == K_COUNT || k->kind == K_UINT) {
		uint64_t u;
		memcpy(&u, f, sizeof(u));
		snprintf(buf, len, "%llu", (unsigned long long)u);
	} else {
		int e, n = 0;
		memcpy(&e, f, sizeof(e));
		if (k->kind == K_BOOL) {
			snprintf(buf, len, "%s", e ? "true" : "false");
			return;
		}
		while (k->info.choices && k->info.choices[n])
			n++;
		snprintf(buf, len, "\"%s\"", e >= 0 && e < n ? k->info.choices[e] : "?");
	}
}

/* The Hugging Face config named by --model or model.hf_config: read it
 * (hf.c maps it), then take its value for every model key the config does
 * not give. With --model its shape replaces the config file's model keys
 * (model.seq_length stays; --set still applies on top). */
static void load_hf(struct loader *l)
{
	const struct dc_load_opts *o = l->opts;
	int k_hf = KEY_MODEL_HF_CONFIG, oom = 0;
	const char *rel, *dir = NULL;
	char path[sizeof(l->cfg->model.hf_config)];
	struct loader hl;
	struct dc_model hm;
	cJSON *root;
	char *buf;
	size_t n = 0;
	int len;

	if (o && o->model_file && l->from_set[k_hf]) {
		/* two Hugging Face configs on one command line: which one the
		 * user meant is a guess either way (docs/config.md, "Which
		 * value wins") */
		dc_cfg_errorf(l, k_hf,
			      "'model.hf_config': --model '%s' gives the model already; give one of --model and "
			      "--set model.hf_config='%s', not both",
			      o->model_file, l->hf_path);
		return;
	} else if (o && o->model_file) {
		rel = o->model_file;
	} else if (l->hf_path[0]) {
		rel = l->hf_path;
		dir = l->from_set[k_hf] ? NULL : l->dir;
	} else {
		return;
	}
	if (dc_catalogue_is_name(rel)) {
		/* a name without a path: the catalogue's (catalogue.h) */
		/* the key's file named, as a path's "named by" is below */
		char opt[300];
		if (o && o->model_file)
			snprintf(opt, sizeof(opt), "'--model'");
		else if (l->from_set[k_hf])
			/* a --set, or a sweep's value (its point says which) */
			snprintf(opt, sizeof(opt), "'model.hf_config' from the command line");
		else
			snprintf(opt, sizeof(opt), "'model.hf_config' in %.256s", origin(l, k_hf));
		if (dc_catalogue_path(rel, opt, path, sizeof(path), l->diag) != 0) {
			l->errors++;
			return;
		}
		len = 0;
	} else if (dir && *dir && rel[0] != '/') {
		len = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	} else {
		len = snprintf(path, sizeof(path), "%s", rel);
	}
	if (len < 0 || (size_t)len >= sizeof(path)) {
		dc_cfg_errorf(l, k_hf, "'model.hf_config': the path is longer than %zu bytes", sizeof(path) - 1);
		return;
	}
	{
		char via[400];
		if (o && o->model_file)
			snprintf(via, sizeof(via), "named by --model");
		else if (rel[0] != '/' && len > 0 && l->name && !l->from_set[k_hf] && is_symlink(l->name) &&
			 access(path, F_OK) != 0)
			/* a relative path from a linked config is read beside
			 * the link, as the file was named, not beside its target */
			snprintf(via, sizeof(via),
				 "named by 'model.hf_config' in %.200s, a symbolic link: its relative paths are read from the link's directory, not its target's",
				 l->name);
		else
			snprintf(via, sizeof(via), "named by 'model.hf_config' in %.256s", origin(l, k_hf));
		buf = read_limited(path, via, o && o->model_file ? NULL : "model.hf_config", &n, l->diag);
	}
	if (!buf) {
		l->errors++;
		return;
	}
	memset(&hl, 0, sizeof(hl));
	hl.name = path;
	hl.buf = buf;
	hl.len = n;
	hl.cfg = l->cfg;
	hl.diag = l->diag;
	root = parse_text(&hl, &oom);
	if (!root) {
		if (oom)
			dc_diag_error(l->diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
		l->errors++;
		free(buf);
		return;
	}
	if (dc_hf_model_read(root, buf, n, path, &hm, l->diag) != 0) {
		l->errors++;
	} else {
		struct dc_model *m = &l->cfg->model;
		/* docs/config.md, "Which value wins": a --set always; then a
		 * Hugging Face config named on the command line (--model, --set
		 * model.hf_config) over the config file's shape keys, which were
		 * written for another model; a config file's own keys over the
		 * file it names beside them. Every key both give warns. */
		int cli_named = (o && o->model_file) || l->from_set[k_hf];
		/* --model replaces the config's model keys by its definition
		 * (--help says so): no warning each; their origin says --model */
		int quiet = o && o->model_file;
		const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		for (size_t i = 0; i < NKEYS; i++) {
			size_t moff;
			char mine[48], theirs[48];
			if (!is_model_shape_key(i))
				continue;
			moff = dc_cfg_keys[i].off - offsetof(struct dc_config, model);
			if (l->seen[i] && !quiet) {
				model_value_text(m, i, mine, sizeof(mine));
				model_value_text(&hm, i, theirs, sizeof(theirs));
				if (strcmp(mine, theirs) == 0)
					; /* both give the same value: nothing is replaced */
				else if (l->from_set[i])
					dc_cfg_warnf(l, (int)i, "'%s': the --set value %s overrides %s from %s",
						     dc_cfg_keys[i].info.path, mine, theirs, file);
				else if (cli_named)
					dc_cfg_warnf(l, (int)i, "'%s': the config's %s is replaced by %s from %s (named by %s)",
						     dc_cfg_keys[i].info.path, mine, theirs, file,
						     o && o->model_file ? "--model" : "--set model.hf_config");
				else
					dc_cfg_warnf(l, (int)i, "'%s': the config's %s overrides %s from %s (model.hf_config)",
						     dc_cfg_keys[i].info.path, mine, theirs, file);
			}
			if (cli_named && !l->from_set[i])
				l->seen[i] = 0;
			if (l->seen[i])
				continue;
			if (dc_cfg_keys[i].kind == K_COUNT || dc_cfg_keys[i].kind == K_UINT)
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(uint64_t));
			else
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(int));
			l->seen[i] = 1;
			l->from_hf[i] = 1;
		}
		if (cli_named && l->seen[KEY_MODEL_PARAMS] && !l->from_set[KEY_MODEL_PARAMS]) {
			/* the config's count was another model's */
			if (!quiet)
				dc_cfg_warnf(l, KEY_MODEL_PARAMS, "'model.params': the config's count is dropped; %s's shape gives the count",
					     file);
			l->seen[KEY_MODEL_PARAMS] = 0;
		}
		snprintf(m->family, sizeof(m->family), "%s", hm.family);
		snprintf(m->hf_config, sizeof(m->hf_config), "%s", path);
		m->hf_max_positions = hm.hf_max_positions;
		l->hf_loaded = 1;
	}
	cJSON_Delete(root);
	free(buf);
}

/* cluster.topology_file: reads the matrix (topo_file.h) and fills the
 * cluster keys it settles that the config (or --set) does not give:
 * nvlink_domain (when every GPU of the node shares NVLink; fewer warns),
 * nics_per_node (the NICs some GPU is nearest to) and
 * nic_path (the worst GPU-to-NIC path; NODE, between the host bridges of
 * one socket, counts as PHB). Its GPU count must be gpus_per_node. */
static void load_topology(struct loader *l)
{
	static struct dc_topo_file t; /* 12 KiB: off the stack; the loader is not reentrant per thread anyway */
	int kt = KEY_CLUSTER_TOPOLOGY_FILE;
	struct dc_cluster *c = &l->cfg->cluster;
	char path[DC_CONFIG_MAX_STRING * 2 + 2];
	const char *dir = l->from_set[kt] ? NULL : l->dir;
	size_t before = l->diag->count;
	int k, len;

	if (!l->topo_path[0])
		return;
	if (dir && *dir && l->topo_path[0] != '/')
		len = snprintf(path, sizeof(path), "%s/%s", dir, l->topo_path);
	else
		len = snprintf(path, sizeof(path), "%s", l->topo_path);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		dc_cfg_errorf(l, kt, "'cluster.topology_file': the path is longer than %zu bytes", sizeof(path) - 1);
		return;
	}
	if (dc_topo_file_read(path, &t, l->diag) != 0) {
		/* the reader's line names the file and the line; the entry names the key too */
		for (size_t i = before; i < l->diag->count; i++)
			if (!l->diag->entries[i].key) {
				/* as hf_config's: say which key named the file, and where */
				char *text = dc_asprintf("%s (named by 'cluster.topology_file' in %s)",
							 l->diag->entries[i].text, origin(l, kt));
				l->diag->entries[i].key = dc_strdup("cluster.topology_file");
				if (text) {
					free(l->diag->entries[i].text);
					l->diag->entries[i].text = text;
				}
			}
		l->errors++;
		return;
	}
	if (t.ngpus != c->gpus_per_node) {
		dc_cfg_errorf(l, kt, "'cluster.topology_file': '%s' lists %zu GPUs but cluster.gpus_per_node is %llu", path,
		       t.ngpus, (unsigned long long)c->gpus_per_node);
		return;
	}
	snprintf(c->topology_file, sizeof(c->topology_file), "%s", path);
	/* the model's NVLink domain is the node or a multiple of it: a node
	 * whose GPUs share NVLink in smaller groups (bridged pairs) or not at
	 * all is one domain at the intra-node rate the config gives */
	if (t.nvlink_domain == t.ngpus && ((k = KEY_CLUSTER_NVLINK_DOMAIN) < 0 || !l->seen[k])) {
		c->nvlink_domain = t.nvlink_domain;
		l->filled[KEY_CLUSTER_NVLINK_DOMAIN] = DC_ORIGIN_TOPOLOGY;
	}
	else if (t.nvlink_domain < t.ngpus) {
		/* NVLink SHARP reduces in an NVSwitch every GPU of the node
		 * reaches: a node without one cannot run it, whatever a
		 * cluster.system preset said (a user trial's PCIe node was
		 * priced through NVLS, 23% faster than its ring could run) */
		int nvls_off = c->nvls && !l->seen[KEY_CLUSTER_NVLS];
		if (c->nvls && l->seen[KEY_CLUSTER_NVLS])
			dc_cfg_errorf(l, KEY_CLUSTER_NVLS,
			       "'cluster.nvls': NVLink SHARP reduces in an NVSwitch that every GPU of the node reaches, but 'cluster.topology_file' '%s' shows %s; set nvls false",
			       path, t.nvlink_domain == 1 ? "no two GPUs sharing NVLink" : "GPUs sharing NVLink only in groups");
		if (nvls_off) {
			c->nvls = 0;
			l->filled[KEY_CLUSTER_NVLS] = DC_ORIGIN_TOPOLOGY;
		}
		dc_cfg_warnf(l, kt,
		      "'cluster.topology_file': %s; the network model prices the node as one domain at "
		      "cluster.intra_node.bandwidth (%g GB/s): give the PCIe or bridge rate there%s",
		      t.nvlink_domain == 1 ? "no two GPUs share NVLink" : "GPUs share NVLink only in groups",
		      c->intra_node.bw_bytes_per_s / 1e9,
		      nvls_off ? "; cluster.nvls false (NVLink SHARP needs an NVSwitch every GPU reaches)" : "");
	}
	if (t.nics_per_node && ((k = KEY_CLUSTER_NICS_PER_NODE) < 0 || !l->seen[k])) {
		/* a preset's value the file replaces: said, as presets never
		 * lose silently (docs/config.md) */
		if (l->filled[k] == DC_ORIGIN_SYSTEM && c->nics_per_node != t.nics_per_node)
			dc_cfg_warnf(l, kt,
			      "'cluster.topology_file': its %llu NICs a node replace the %llu of cluster.system \"%s\" (cluster.nics_per_node); give nics_per_node to keep the preset's",
			      (unsigned long long)t.nics_per_node, (unsigned long long)c->nics_per_node, dc_system_name(c->system));
		c->nics_per_node = t.nics_per_node;
		l->filled[KEY_CLUSTER_NICS_PER_NODE] = DC_ORIGIN_TOPOLOGY;
	}
	if (t.nnics && ((k = KEY_CLUSTER_NIC_PATH) < 0 || !l->seen[k])) {
		l->filled[KEY_CLUSTER_NIC_PATH] = DC_ORIGIN_TOPOLOGY;
		switch (t.worst_nic_path) {
		case DC_TOPO_SYS: c->nic_path = DC_NIC_PATH_SYS; break;
		case DC_TOPO_NODE:
		case DC_TOPO_PHB: c->nic_path = DC_NIC_PATH_PHB; break;
		case DC_TOPO_PXB: c->nic_path = DC_NIC_PATH_PXB; break;
		default: c->nic_path = DC_NIC_PATH_PIX; break;
		}
	}
}

/* dc_load_opts.auto_layout: a tp the model admits in place of the
 * built-in default's, dp the rest of the world. */
static void auto_layout(struct loader *l)
{
	struct dc_parallel *p = &l->cfg->parallel;
	const struct dc_model *m = &l->cfg->model;
	const struct dc_cluster *c = &l->cfg->cluster;
	uint64_t world, rest, tp, old = p->tp;

	if (!l->opts || !l->opts->auto_layout || !l->hf_loaded || l->from_set[KEY_PARALLEL_TP] ||
	    l->from_set[KEY_PARALLEL_DP] || l->from_set[KEY_PARALLEL_PP] || l->from_set[KEY_PARALLEL_CP])
		return;
	if (!m->num_attention_heads || !p->tp || !p->pp || !p->cp)
		return;
	if (dc_cfg_tp_admits(m, p->tp))
		return;
	if (dc_mul_u64(c->num_nodes, c->gpus_per_node, &world) || dc_mul_u64(p->pp, p->cp, &rest) || !rest)
		return;
	for (tp = p->tp; tp > 1; tp--)
		if (dc_cfg_tp_admits(m, tp) && world % (tp * rest) == 0)
			break;
	if (world % (tp * rest) != 0)
		return;
	p->tp = tp;
	p->dp = world / (tp * rest);
	{
		/* the global batch follows dp where the file gives none (micro
		 * x accumulation x dp): said, since it changes the step's work
		 * (a student trial read tp 4 -> 1 and missed 16 -> 64 sequences) */
		const struct dc_training *t = &l->cfg->training;
		uint64_t old_dp = old * rest != 0 && world % (old * rest) == 0 ? world / (old * rest) : 0, per = 0;
		char batch[200] = "";
		if (!t->global_batch_size && old_dp && old_dp != p->dp &&
		    !dc_mul_u64(t->micro_batch_size, t->grad_accum_steps, &per) && per && per <= UINT64_MAX / world)
			snprintf(batch, sizeof(batch),
				 "; the global batch follows dp, %llu sequences a step where the built-in layout ran %llu "
				 "(keep it with --set training.global_batch_size=%llu --unset training.grad_accum_steps)",
				 (unsigned long long)(per * p->dp), (unsigned long long)(per * old_dp),
				 (unsigned long long)(per * old_dp));
		dc_cfg_warnf(l, KEY_PARALLEL_TP,
			     "'parallel.tp': the built-in layout's tp %llu does not split the model's heads evenly (%llu query, "
			     "%llu key/value%s); using tp %llu and dp %llu (choose with --set parallel.tp=N --set parallel.dp=M)%s",
			     (unsigned long long)old, (unsigned long long)m->num_attention_heads,
			     (unsigned long long)(m->num_kv_heads ? m->num_kv_heads : m->num_attention_heads),
			     m->linear_num_key_heads ? ", and the linear attention's key heads" : "", (unsigned long long)tp,
			     (unsigned long long)p->dp, batch);
	}
}

/* dc_load_opts.auto_layout: the model's longest context in place of the
 * built-in default's seq_length when that does not fit the model's learned
 * position table (GPT-2's 1024 positions against 4096 tokens), as tp is
 * adapted to its heads. A seq_length the user gave is never changed. */
static void auto_seq_length(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	uint64_t old = m->seq_length;

	if (!l->opts || !l->opts->auto_layout || !l->hf_loaded || l->from_set[KEY_MODEL_SEQ_LENGTH] ||
	    m->position_embeddings == 0 || old <= m->position_embeddings)
		return;
	m->seq_length = m->position_embeddings;
	l->from_hf[KEY_MODEL_SEQ_LENGTH] = 1; /* its origin: --model */
	dc_cfg_warnf(l, KEY_MODEL_SEQ_LENGTH,
		     "'model.seq_length': the built-in default's %llu tokens do not fit the model's learned position "
		     "table of %llu positions; using %llu (choose with --set model.seq_length=N)",
		     (unsigned long long)old, (unsigned long long)m->position_embeddings,
		     (unsigned long long)m->seq_length);
}

/* Everything after the parse: the top level, --set and --unset, the walk,
 * the Hugging Face config, presets, the layout, the topology file, the
 * rules, where each value came from. `root` is the parsed text (changed by
 * --set; freed here); `l` holds the name, the diag and the options. */
/* Whether `root` names a cluster preset at cluster.KEY: a string other
 * than `none_value` (a refused name counts: it was meant as one) */
static int preset_named(const cJSON *root, const char *key, const char *none_value)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "cluster");
	const cJSON *v = c && cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, key) : NULL;
	if (!v || !cJSON_IsString(v) || !v->valuestring)
		return 0;
	return strcmp(v->valuestring, none_value) != 0;
}

static int load_root(struct loader *l, cJSON *root, const char *name)
{
	struct dc_diag *diag = l->diag;
	const struct dc_load_opts *opts = l->opts;
	struct dc_config *cfg = l->cfg;
	size_t i, noverrides = opts ? opts->noverrides : 0;
	unsigned long failed_before;
	int rc = -1;

	if (!cJSON_IsObject(root)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: the top level must be a JSON object, got %s", name,
			      dc_cfg_type_name(root));
		goto out;
	}
	for (i = 0; i < noverrides; i++) {
		const struct dc_override *ov = &opts->overrides[i];
		/* a preset the file or an earlier --set named, which this
		 * override may take away (preset_removed) */
		int had = preset_named(root, "system", "custom") | preset_named(root, "gpu", "none") << 1;
		failed_before = dc_alloc_failures();
		int ki = ov->unset ? dc_cfg_apply_unset(l, root, ov->text) : dc_cfg_apply_override(l, root, ov->text);
		if (ki == -2 || dc_alloc_failures() != failed_before)
			goto oom;
		if (ki >= 0) {
			l->from_set[ki] = !ov->unset;
			l->unset[ki] = ov->unset;
			if (ki == KEY_CLUSTER_SYSTEM || ki == KEY_CLUSTER_GPU) {
				int bit = ki == KEY_CLUSTER_SYSTEM ? 1 : 2;
				int now = preset_named(root, bit == 1 ? "system" : "gpu", bit == 1 ? "custom" : "none");
				l->preset_removed[ki] = (had & bit) && !now;
			}
		}
	}
	/* a --set that is not PATH=VALUE is a usage error and ends the load;
	 * one that names an unknown key still lets the file be checked */
	if (diag->status == DC_ERR_USAGE)
		goto out;
	dc_cfg_walk(l, root, "");
	if (l->errors == 0)
		load_hf(l);
	dc_cfg_apply_system(l);
	if (l->errors == 0) {
		auto_seq_length(l);
		auto_layout(l);
	}
	if (l->errors == 0)
		load_topology(l);
	dc_cfg_check_missing(l);
	if (l->errors == 0)
		dc_cfg_cross_check(l);
	/* where every value came from, for the cluster section and the
	 * model keys' provenance */
	for (i = 0; i < NKEYS; i++) {
		enum dc_origin o = DC_ORIGIN_DEFAULT;
		if (l->from_set[i])
			o = DC_ORIGIN_SET;
		else if (i == KEY_MODEL_HF_CONFIG && opts && opts->model_file && l->hf_loaded)
			o = DC_ORIGIN_MODEL; /* the file's path is --model's, as the keys it fills */
		else if (l->from_hf[i])
			o = opts && opts->model_file ? DC_ORIGIN_MODEL : DC_ORIGIN_HF;
		else if (l->seen[i])
			o = DC_ORIGIN_CONFIG;
		else if (l->filled[i])
			o = (enum dc_origin)l->filled[i];
		cfg->origin[i] = (unsigned char)o;
	}
	rc = l->errors || diag->errors ? -1 : 0;
out:
	cJSON_Delete(root);
	return rc;
oom:
	cJSON_Delete(root);
	dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
	return -1;
}

/* The loader's state for a load of `name` (`shown`: its printable form,
 * which messages name). `dir`: the directory model.hf_config is relative
 * to (NULL: the current one). */
static void loader_init(struct loader *l, const char *shown, const char *buf, size_t len, const char *dir,
			const struct dc_load_opts *opts, struct dc_config *cfg, struct dc_diag *diag)
{
	memset(l, 0, sizeof(*l));
	l->name = shown;
	l->buf = buf;
	l->len = len;
	l->cfg = cfg;
	l->diag = diag;
	l->opts = opts;
	l->dir = dir;
	dc_cfg_set_defaults(cfg);
}

static int load_buffer(const char *buf, size_t len, const char *name, const char *dir,
		       const struct dc_load_opts *opts, struct dc_config *cfg, struct dc_diag *diag)
{
	struct loader l;
	char shown[DC_CONFIG_MAX_STRING * 4];
	cJSON *root;
	int oom = 0;

	/* messages name the file escaped: a newline or ESC in it stays text */
	dc_fmt_printable(shown, sizeof(shown), name);
	loader_init(&l, shown, buf, len, dir, opts, cfg, diag);
	root = parse_text(&l, &oom);
	if (!root) {
		if (oom)
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	return load_root(&l, root, name);
}

/* ---- a config parsed once, loaded many times (config.h) ---- */

struct dc_config_parsed {
	cJSON *root;   /* the file's tree, never changed: each load changes a copy */
	char *name;    /* as given, for messages */
	char *dir;     /* model.hf_config's directory; NULL: the current one */
};

void dc_config_parsed_free(struct dc_config_parsed *p)
{
	if (!p)
		return;
	cJSON_Delete(p->root);
	free(p->name);
	free(p->dir);
	free(p);
}

/* Parses `buf` as load_buffer would, into a new dc_config_parsed that
 * takes `dir` (owned). Returns NULL with the problem in `diag`. */
static struct dc_config_parsed *parse_once(const char *buf, size_t len, const char *name, char *dir,
					   struct dc_diag *diag)
{
	struct loader l;
	struct dc_config scratch;
	struct dc_config_parsed *p = dc_calloc(1, sizeof(*p));
	char shown[DC_CONFIG_MAX_STRING * 4];
	int oom = 0;

	if (!p || !(p->name = dc_strdup(name))) {
		free(p);
		free(dir);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return NULL;
	}
	p->dir = dir;
	dc_fmt_printable(shown, sizeof(shown), name);
	loader_init(&l, shown, buf, len, dir, NULL, &scratch, diag);
	p->root = parse_text(&l, &oom);
	if (!p->root) {
		if (oom)
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		dc_config_parsed_free(p);
		return NULL;
	}
	return p;
}

struct dc_config_parsed *dc_config_parse_buffer(const char *buf, size_t len, const char *name, struct dc_diag *diag)
{
	return parse_once(buf, len, name, NULL, diag);
}

struct dc_config_parsed *dc_config_parse_file(const char *path, struct dc_diag *diag)
{
	char *buf, *dir = NULL;
	size_t n = 0;
	struct dc_config_parsed *p;
	const char *slash = strrchr(path, '/');

	buf = read_limited(path, NULL, NULL, &n, diag);
	if (!buf)
		return NULL;
	/* model.hf_config is relative to the config file's directory */
	if (slash) {
		dir = dc_strndup(path, slash == path ? 1 : (size_t)(slash - path));
		if (!dir) {
			free(buf);
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
			return NULL;
		}
	}
	p = parse_once(buf, n, path, dir, diag);
	free(buf);
	return p;
}

int dc_config_load_parsed(const struct dc_config_parsed *p, const struct dc_load_opts *opts, struct dc_config *cfg,
			  struct dc_diag *diag)
{
	struct loader l;
	char shown[DC_CONFIG_MAX_STRING * 4];
	unsigned long failed_before = dc_alloc_failures();
	cJSON *root;

	dc_fmt_printable(shown, sizeof(shown), p->name);
	loader_init(&l, shown, NULL, 0, p->dir, opts, cfg, diag);
	root = cJSON_Duplicate(p->root, 1);
	if (!root || dc_alloc_failures() != failed_before) {
		cJSON_Delete(root);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", p->name);
		return -1;
	}
	return load_root(&l, root, p->name);
}

int dc_config_load_buffer_opts(const char *buf, size_t len, const char *name,
			       const struct dc_load_opts *opts, struct dc_config *cfg,
			       struct dc_diag *diag)
{
	return load_buffer(buf, len, name, NULL, opts, cfg, diag);
}

int dc_config_load_buffer(const char *buf, size_t len, const char *name,
			  const struct dc_override *overrides, size_t noverrides,
			  struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL, 0};
	return load_buffer(buf, len, name, NULL, &o, cfg, diag);
}

int dc_config_load_file_opts(const char *path, const struct dc_load_opts *opts,
			     struct dc_config *cfg, struct dc_diag *diag)
{
	char *buf, *dir = NULL;
	size_t n = 0;
	int rc;
	const char *slash = strrchr(path, '/');

	dc_cfg_set_defaults(cfg);
	buf = read_limited(path, NULL, NULL, &n, diag);
	if (!buf)
		return -1;
	/* model.hf_config is relative to the config file's directory */
	if (slash) {
		dir = dc_strndup(path, slash == path ? 1 : (size_t)(slash - path));
		if (!dir) {
			free(buf);
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
			return -1;
		}
	}
	rc = load_buffer(buf, n, path, dir, opts, cfg, diag);
	free(dir);
	free(buf);
	return rc;
}

int dc_config_load_file(const char *path, const struct dc_override *overrides, size_t noverrides,
			struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL, 0};
	return dc_config_load_file_opts(path, &o, cfg, diag);
}

