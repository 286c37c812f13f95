/* catalogue.c - the model catalogue; see catalogue.h. */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/catalogue.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "distcalc/config.h"
#include "distcalc/util.h"

#ifndef DC_DATA_DIR_SOURCE
#define DC_DATA_DIR_SOURCE ""
#endif
#ifndef DC_DATA_DIR_INSTALL
#define DC_DATA_DIR_INSTALL "/usr/local/share/distcalc"
#endif

#define LIST_MAX 4096

int dc_catalogue_is_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > DC_CATALOGUE_NAME_MAX || strchr(s, '/') || s[0] == '.')
		return 0;
	if (n >= 5 && strcmp(s + n - 5, ".json") == 0)
		return 0;
	return 1;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* `base` holds a models/ folder */
static int has_models(const char *base)
{
	char p[4096];
	int len = snprintf(p, sizeof(p), "%s/models", base);
	return len > 0 && (size_t)len < sizeof(p) && is_dir(p);
}

int dc_catalogue_dir(char *out, size_t n)
{
	const char *env = getenv(DC_CATALOGUE_ENV);
	const char *cands[3];
	size_t k = 0;
	if (env && *env) {
		/* an override is taken as given, even when it lacks models/:
		 * the caller's message names it */
		snprintf(out, n, "%s", env);
		return has_models(env) ? 0 : -1;
	}
	cands[k++] = DC_DATA_DIR_SOURCE;
	cands[k++] = DC_DATA_DIR_INSTALL;
	for (size_t i = 0; i < k; i++) {
		if (*cands[i] && has_models(cands[i])) {
			snprintf(out, n, "%s", cands[i]);
			return 0;
		}
	}
	snprintf(out, n, "%s", DC_DATA_DIR_INSTALL);
	return -1;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct dc_catalogue_entry *)a)->name, ((const struct dc_catalogue_entry *)b)->name);
}

/* The names of <dir>/models/ *.json, sorted; *out owned. Returns 0 or -1
 * (errno-style failure: cannot open, out of memory). */
static int scan(const char *dir, struct dc_catalogue_entry **out, size_t *n)
{
	char p[4096];
	DIR *d;
	struct dirent *de;
	struct dc_catalogue_entry *e = NULL;
	size_t count = 0;
	int len = snprintf(p, sizeof(p), "%s/models", dir);

	*out = NULL;
	*n = 0;
	if (len < 0 || (size_t)len >= sizeof(p) || !(d = opendir(p)))
		return -1;
	while ((de = readdir(d)) != NULL && count < LIST_MAX) {
		size_t l = strlen(de->d_name);
		struct dc_catalogue_entry *grown;
		if (l <= 5 || strcmp(de->d_name + l - 5, ".json") != 0 || de->d_name[0] == '.' ||
		    l - 5 > DC_CATALOGUE_NAME_MAX)
			continue;
		grown = dc_realloc(e, (count + 1) * sizeof(*e));
		if (!grown) {
			closedir(d);
			free(e);
			return -1;
		}
		e = grown;
		memset(&e[count], 0, sizeof(e[count]));
		memcpy(e[count].name, de->d_name, l - 5);
		e[count].name[l - 5] = '\0';
		count++;
	}
	closedir(d);
	if (count)
		qsort(e, count, sizeof(*e), cmp_entry);
	*out = e;
	*n = count;
	return 0;
}

int dc_catalogue_path(const char *name, const char *option, char *out, size_t n, struct dc_diag *diag)
{
	char dir[2048];
	struct dc_catalogue_entry *e = NULL;
	size_t count = 0;
	struct dc_buf known;
	struct stat st;
	int len;

	if (dc_catalogue_dir(dir, sizeof(dir)) != 0) {
		dc_diag_error(diag, DC_ERR_INPUT,
			      "distcalc: error: %s: '%s' names a model of the catalogue, but '%s/models' is not a folder "
			      "(set %s to a folder holding models/, or give a path such as ./%s.json)",
			      option, name, dir, DC_CATALOGUE_ENV, name);
		return -1;
	}
	len = snprintf(out, n, "%s/models/%s.json", dir, name);
	if (len > 0 && (size_t)len < n && stat(out, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	dc_buf_init(&known);
	if (scan(dir, &e, &count) == 0) {
		/* the nearest name within 2 edits (a slip: qwen3-30b-a3 for
		 * qwen3-30b-a3b), ties to the first in order */
		size_t best = 3, nl = strlen(name);
		const char *near = NULL;
		for (size_t i = 0; i < count; i++) {
			size_t d = dc_edit_distance(name, nl, e[i].name, 1);
			if (d < best) {
				best = d;
				near = e[i].name;
			}
		}
		if (near)
			dc_buf_printf(&known, "did you mean '%s'? ", near);
		dc_buf_printf(&known, "known: ");
		for (size_t i = 0; i < count; i++)
			dc_buf_printf(&known, "%s%s", i ? ", " : "", e[i].name);
	}
	dc_diag_error(diag, DC_ERR_INPUT,
		      "distcalc: error: %s: no model '%s' in the catalogue (%s/models); %s (a file needs a path "
		      "such as ./%s or a name ending in .json)",
		      option, name, dir, known.failed || !known.len ? "known: none" : known.data, name);
	dc_buf_release(&known);
	free(e);
	return -1;
}

int dc_catalogue_list(struct dc_catalogue_entry **out, size_t *n, struct dc_diag *diag)
{
	static const struct dc_override tp1[] = {{"parallel.tp=1"}, {"parallel.dp=8"}, {"parallel.pp=1"},
						{"model.seq_length=512"}};
	char dir[2048];
	struct dc_catalogue_entry *e;
	size_t count;

	*out = NULL;
	*n = 0;
	if (dc_catalogue_dir(dir, sizeof(dir)) != 0) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '--list-models': '%s/models' is not a folder (set %s)",
			      dir, DC_CATALOGUE_ENV);
		return -1;
	}
	if (scan(dir, &e, &count) != 0) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '--list-models': cannot read '%s/models'", dir);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		struct dc_config *cfg = dc_malloc(sizeof(*cfg));
		struct dc_load_opts lo;
		struct dc_diag d;
		char *path = dc_asprintf("%s/models/%s.json", dir, e[i].name);
		if (!cfg || !path) {
			free(cfg);
			free(path);
			dc_catalogue_list_free(e, count);
			dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
			return -1;
		}
		memset(&lo, 0, sizeof(lo));
		lo.overrides = tp1;
		lo.noverrides = sizeof(tp1) / sizeof(tp1[0]);
		lo.model_file = path;
		dc_diag_init(&d);
		if (dc_config_load_buffer_opts(dc_default_config, dc_default_config_len, "configs/systems.json", &lo, cfg,
					       &d) == 0 &&
		    dc_model_param_count(&cfg->model, &e[i].params) == 0) {
			snprintf(e[i].family, sizeof(e[i].family), "%s", cfg->model.family);
		} else {
			const char *why = "it does not load";
			for (size_t k = 0; k < d.count; k++) {
				if (d.entries[k].severity == DC_SEV_ERROR) {
					why = d.entries[k].text;
					break;
				}
			}
			e[i].params = 0;
			e[i].error = dc_strdup(why);
		}
		dc_diag_release(&d);
		free(path);
		free(cfg);
	}
	*out = e;
	*n = count;
	return 0;
}

void dc_catalogue_list_free(struct dc_catalogue_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		free(e[i].error);
	free(e);
}
