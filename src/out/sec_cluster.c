/* sec_cluster.c - the cluster section: every cluster key as the run
 * resolved it, and where its value came from (config, --set, a preset,
 * the topology file, a --calibrate fit, or the default). The rows follow
 * the loader's key table (config.h), so a new cluster key is listed
 * without a change here. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/section.h"
#include "report_int.h"

struct view {
	struct dc_key_list keys;
};

#define row dc_key_row

static void view(const struct dc_run *run, void *out)
{
	dc_key_list_fill(&((struct view *)out)->keys, run->plan->in, "cluster.");
}

/* The network keys whose absence is a value of its own: the fabric's
 * plugin latency (cluster.network's) and a size factor of none. The
 * cluster section lists them whatever the config gives. */
static int network_default(size_t i)
{
	const struct dc_config_key_info *k = dc_config_key_at(i);
	const char *path = k ? k->path : "";
	return strcmp(path, "cluster.inter_node.plugin_latency") == 0 || strcmp(path, "cluster.intra_node.ramp") == 0 ||
	       strcmp(path, "cluster.inter_node.ramp") == 0;
}

void dc_key_list_fill(struct dc_key_list *l, const struct dc_config *cfg, const char *prefix)
{
	size_t plen = strlen(prefix), nkeys = dc_config_key_count();
	l->cfg = cfg;
	l->n = 0;
	memset(l->origin, 0, sizeof(l->origin));
	for (size_t i = 0; i < nkeys && l->n < DC_CONFIG_MAX_KEYS; i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		unsigned o;
		if (!k || strncmp(k->path, prefix, plen) != 0 ||
		    !(dc_config_key_has_value(cfg, i) || (strcmp(prefix, "cluster.") == 0 && network_default(i))))
			continue;
		l->key[l->n++] = (uint16_t)i;
		o = cfg->origin[i];
		if (o < sizeof(l->origin) / sizeof(l->origin[0]) && !l->origin[o])
			l->origin[o] = dc_config_origin_text(cfg, i, l->origin_buf[o], sizeof(l->origin_buf[o]));
	}
}

uint64_t dc_key_list_count(const struct dc_key_list *l)
{
	return l->n;
}

/* A key left at 0 whose default is derived later (the GPU's efficiencies
 * and SM count, from its preset in the kernel model) has no value yet:
 * its origin is the default, its default's text says "derived", and its
 * JSON text (json, n bytes) is "0". */
static int not_derived_here(const struct dc_config *cfg, size_t key, const struct dc_config_key_info *k,
			    const char *json, size_t n)
{
	return cfg->origin[key] == DC_ORIGIN_DEFAULT && n == 1 && json[0] == '0' &&
	       strncmp(k->default_text, "derived", 7) == 0;
}

void dc_key_list_row(const struct dc_key_list *l, uint64_t i, struct dc_key_row *r)
{
	const struct dc_config_key_info *k;
	unsigned o;
	size_t n;
	r->cfg = l->cfg;
	r->key = i < l->n ? l->key[i] : 0;
	k = dc_config_key_at(r->key); /* a listed key is a row of the table, and so is 0 */
	r->path = k ? k->path : "";
	r->unit = k ? k->unit : "";
	/* every listed key's origin was worded by dc_key_list_fill (a row
	 * past n, which no sink asks for, may find none: no words) */
	o = r->cfg->origin[r->key];
	r->origin = o < sizeof(l->origin) / sizeof(l->origin[0]) && l->origin[o] ? l->origin[o] : "";
	r->derived = 0;
	r->json_len = 0;
	/* a value too long for json[] (a ramp's five numbers) is made at
	 * full length when printed; one with no value at all is the
	 * network's default, or not listed */
	if (dc_config_value_json(r->cfg, r->key, r->json, sizeof(r->json)) != 0) {
		r->json[0] = '\0';
		if (!dc_config_key_has_value(r->cfg, r->key) && network_default(r->key)) {
			/* left out: the plugin latency cluster.network gives (what
			 * the network model prices), or no size factor (null:
			 * "(none)") */
			if (strcmp(r->path, "cluster.inter_node.plugin_latency") == 0)
				r->json_len = dc_fmt_double(r->json, sizeof(r->json),
							    dc_net_fabric_latency(r->cfg->cluster.network));
			else
				r->json_len = (size_t)snprintf(r->json, sizeof(r->json), "null");
		}
		return;
	}
	n = strlen(r->json);
	if (not_derived_here(r->cfg, r->key, k, r->json, n) && strcmp(r->path, "cluster.nccl_channels") == 0)
		/* known from the cluster already: the count the network
		 * model runs (a trial found it shown nowhere) */
		r->json_len = (size_t)snprintf(r->json, sizeof(r->json), "%llu",
					       (unsigned long long)dc_net_default_channels(r->cfg));
	else if (not_derived_here(r->cfg, r->key, k, r->json, n))
		r->derived = 1;
	else if (n && n + 1 < sizeof(r->json)) /* a longer text (a file path) is made again at full length */
		r->json_len = n;
}

static uint64_t key_count(const void *base)
{
	return dc_key_list_count(&((const struct view *)base)->keys);
}

static void key_row(const void *base, uint64_t i, void *out)
{
	dc_key_list_row(&((const struct view *)base)->keys, i, out);
}

/* `s` into buf[len], cut at len - 1 bytes as snprintf would; s may lie
 * within buf (a quoted text moved over its quote). */
static void copy_text(char *buf, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memmove(buf, s, n);
	buf[n] = '\0';
}

static void value_json(const void *base, char *buf, size_t len)
{
	const struct row *r = base;
	if (r->derived)
		copy_text(buf, len, "null", 4);
	else if (r->json_len && len >= sizeof(r->json))
		copy_text(buf, len, r->json, r->json_len);
	else if (dc_config_value_json(r->cfg, r->key, buf, len) != 0)
		copy_text(buf, len, "null", 4);
}

/* The value for the table: a string as its text (the quotes gone, its
 * escapes decoded: a path holding '"' shows it, as model.hf_config
 * does), null as the default's words. */
static void value_text(const void *base, char *buf, size_t len)
{
	const struct row *r = base;
	const char *t = buf;
	size_t n;
	if (r->derived) {
		copy_text(buf, len, "(derived)", 9); /* docs/config.md says from what */
		return;
	}
	if (r->json_len && len >= sizeof(r->json)) { /* the row's text, its length known */
		t = r->json;
		n = r->json_len;
	} else {
		value_json(base, buf, len);
		n = strlen(buf);
	}
	if (n >= 2 && t[0] == '"' && t[n - 1] == '"' && dc_json_string_text(buf, len, t, n) != (size_t)-1)
		return;
	else if (n == 4 && memcmp(t, "null", 4) == 0)
		copy_text(buf, len, "(none)", 6);
	else if (t != buf)
		copy_text(buf, len, t, n);
}

#define R(m) offsetof(struct row, m)
static const struct dc_field row_fields[] = {
	{"key", "key", DC_U_NONE, DC_FT_STR, R(path)},
	{"value", "value", DC_U_NONE, DC_FT_FN, 0, .text = value_json, .json_value = 1},
	{"text", "value", DC_U_NONE, DC_FT_FN, 0, .text = value_text},
	{"unit", "unit", DC_U_NONE, DC_FT_STR, R(unit)},
	{"origin", "from", DC_U_NONE, DC_FT_STR, R(origin)},
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
