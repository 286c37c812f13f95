/* sec_cluster.c - the cluster section: every cluster key as the run
 * resolved it, and where its value came from (config, --set, a preset,
 * the topology file, a --calibrate fit, or the default). The rows follow
 * the loader's key table (config.h), so a new cluster key is listed
 * without a change here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/section.h"
#include "report_int.h"

struct view {
	const struct dc_config *cfg;
};

#define row dc_key_row

static void view(const struct dc_run *run, void *out)
{
	((struct view *)out)->cfg = run->plan->in;
}

/* Is key table row i a key under `prefix` with a value of its own? */
static int listed(const struct dc_config *cfg, const char *prefix, size_t i)
{
	const struct dc_config_key_info *k = dc_config_key_at(i);
	char buf[8];
	return k && strncmp(k->path, prefix, strlen(prefix)) == 0 && dc_config_value_json(cfg, i, buf, sizeof(buf)) == 0;
}

uint64_t dc_key_rows_count(const struct dc_config *cfg, const char *prefix)
{
	uint64_t n = 0;
	for (size_t i = 0; i < dc_config_key_count(); i++)
		n += (uint64_t)listed(cfg, prefix, i);
	return n;
}

void dc_key_rows_fill(const struct dc_config *cfg, const char *prefix, uint64_t i, struct dc_key_row *r)
{
	r->cfg = cfg;
	for (size_t k = 0; k < dc_config_key_count(); k++)
		if (listed(cfg, prefix, k) && i-- == 0) {
			r->key = k;
			return;
		}
}

static uint64_t key_count(const void *base)
{
	return dc_key_rows_count(((const struct view *)base)->cfg, "cluster.");
}

static void key_row(const void *base, uint64_t i, void *out)
{
	dc_key_rows_fill(((const struct view *)base)->cfg, "cluster.", i, out);
}

/* A key left at 0 whose default is derived later (the GPU's efficiencies
 * and SM count, from its preset in the kernel model) has no value yet. */
static int not_derived_here(const struct row *r)
{
	const struct dc_config_key_info *k = dc_config_key_at(r->key);
	char buf[8];
	return r->cfg->origin[r->key] == DC_ORIGIN_DEFAULT && strncmp(k->default_text, "derived", 7) == 0 &&
	       dc_config_value_json(r->cfg, r->key, buf, sizeof(buf)) == 0 && strcmp(buf, "0") == 0;
}

static void key_text(const void *base, char *buf, size_t len)
{
	snprintf(buf, len, "%s", dc_config_key_at(((const struct row *)base)->key)->path);
}

static void value_json(const void *base, char *buf, size_t len)
{
	const struct row *r = base;
	if (not_derived_here(r))
		snprintf(buf, len, "null");
	else if (dc_config_value_json(r->cfg, r->key, buf, len) != 0)
		snprintf(buf, len, "null");
}

/* The value for the table: a string without its quotes, null as the
 * default's words. */
static void value_text(const void *base, char *buf, size_t len)
{
	const struct row *r = base;
	size_t n;
	if (not_derived_here(r)) {
		snprintf(buf, len, "(derived)"); /* docs/config.md says from what */
		return;
	}
	value_json(base, buf, len);
	n = strlen(buf);
	if (n >= 2 && buf[0] == '"' && buf[n - 1] == '"') {
		memmove(buf, buf + 1, n - 2);
		buf[n - 2] = '\0';
	} else if (strcmp(buf, "null") == 0) {
		snprintf(buf, len, "(none)");
	}
}

static void unit_text(const void *base, char *buf, size_t len)
{
	snprintf(buf, len, "%s", dc_config_key_at(((const struct row *)base)->key)->unit);
}

static void origin_text(const void *base, char *buf, size_t len)
{
	const struct row *r = base;
	char tmp[64];
	snprintf(buf, len, "%s", dc_config_origin_text(r->cfg, r->key, tmp, sizeof(tmp)));
}

static const struct dc_field row_fields[] = {
	{"key", "key", DC_U_NONE, DC_FT_FN, 0, .text = key_text},
	{"value", "value", DC_U_NONE, DC_FT_FN, 0, .text = value_json, .json_value = 1},
	{"text", "value", DC_U_NONE, DC_FT_FN, 0, .text = value_text},
	{"unit", "unit", DC_U_NONE, DC_FT_FN, 0, .text = unit_text},
	{"origin", "from", DC_U_NONE, DC_FT_FN, 0, .text = origin_text},
};
const struct dc_fields dc_key_row_table = DC_FIELDS(row_fields);
static const struct dc_rows key_rows = {key_count, key_row, sizeof(struct row), "keys", 1, 0, 1};

static const struct dc_field fields[] = {
	{"keys", "Every cluster key as resolved, and where it came from", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &dc_key_row_table, .rows = &key_rows},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");
_Static_assert(sizeof(struct row) <= DC_ROW_MAX, "row too large");

const struct dc_section dc_section_cluster = {
	"cluster", "Cluster as resolved",
	"every cluster key's value and where it came from (config, --set, preset:NAME, default, calibrated)",
	0, sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
