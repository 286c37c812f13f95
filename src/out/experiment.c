/* experiment.c - experiment registry and runner; see experiment.h. */
#include "distcalc/experiment.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/whatif.h"
#include "distcalc/search.h"
#include "report_int.h"

const struct dc_section *const dc_sections[] = {
	&dc_section_summary, &dc_section_model, &dc_section_cluster, &dc_section_topology, &dc_section_groups,
	&dc_section_batch,   &dc_section_memory, &dc_section_ring,    &dc_section_comm,
	&dc_section_strategies, &dc_section_flops, &dc_section_step, &dc_section_collectives, &dc_section_calibration,
	&dc_section_whatif, &dc_section_checkpoint, &dc_section_loss, &dc_section_search, NULL,
};

const struct dc_section *dc_section_find(const char *name)
{
	for (size_t i = 0; dc_sections[i]; i++)
		if (strcmp(dc_sections[i]->name, name) == 0)
			return dc_sections[i];
	return NULL;
}

static const struct dc_section *const systems_sections[] = {
	&dc_section_summary, &dc_section_model, &dc_section_cluster, &dc_section_topology, &dc_section_groups,
	&dc_section_batch,   &dc_section_memory, &dc_section_ring,    &dc_section_comm,
	&dc_section_strategies, &dc_section_flops, &dc_section_step, NULL,
};

static const struct dc_section *const ring_sections[] = {&dc_section_ring, NULL};

static const struct dc_section *const collectives_sections[] = {&dc_section_collectives, NULL};

static const struct dc_section *const whatif_sections[] = {&dc_section_whatif, NULL};

static const struct dc_experiment whatif = {
	"whatif",
	"the layout once as the baseline and once per injected fault:\n"
	"              slow network, slow data rank, whole-model AllGather,\n"
	"              checkpoint peak, expert imbalance, stragglers (section whatif)",
	whatif_sections,
	1,
};

static const struct dc_experiment systems = {
	"systems",
	"the course lab: every section below, in that order",
	systems_sections,
};

static const struct dc_experiment ring = {
	"ring",
	"the teaching ring alone (section ring): bytes, time, busbw, events",
	ring_sections,
};

static const struct dc_experiment collectives = {
	"collectives",
	"an nccl-tests-style sweep of collective.op through the network\n"
	"              model (section collectives)",
	collectives_sections,
};

static const struct dc_section *const checkpoint_sections[] = {&dc_section_checkpoint, NULL};

static const struct dc_section *const loss_sections[] = {&dc_section_loss, NULL};

static const struct dc_experiment checkpoint = {
	"checkpoint",
	"checkpoint save by rank and kind, its time and memory, the restore\n"
	"              into checkpoint.restore, acceptance conditions (section checkpoint)",
	checkpoint_sections,
};

static const struct dc_experiment loss = {
	"loss",
	"loss normalisation: the global token mean against per-rank and\n"
	"              per-microbatch means, drawn with --seed (section loss)",
	loss_sections,
};

static const struct dc_section *const search_sections[] = {&dc_section_search, NULL};

static const struct dc_experiment search = {
	"search",
	"every valid parallel layout of the model on the cluster, ranked\n"
	"              by search.objective under the memory limit (section search)",
	search_sections,
};

const struct dc_experiment *const dc_experiments[] = {&systems, &ring, &collectives, &whatif, &checkpoint, &loss, &search, NULL};

const struct dc_experiment *dc_experiment_find(const char *name)
{
	for (size_t i = 0; dc_experiments[i]; i++)
		if (strcmp(dc_experiments[i]->name, name) == 0)
			return dc_experiments[i];
	return NULL;
}

/* ---- the header and the warnings: root fields of every report ---- */

static int has_only(const void *base)
{
	return ((const struct dc_header_view *)base)->only != NULL;
}

static int has_all(const void *base)
{
	return ((const struct dc_header_view *)base)->all_rows;
}

static uint64_t warning_count(const void *base)
{
	return ((const struct dc_header_view *)base)->report->nwarnings;
}

static const char *warning_at(const void *base, uint64_t i)
{
	return ((const struct dc_header_view *)base)->report->warnings[i];
}

static const struct dc_prose warnings_prose = {warning_count, warning_at};

#define HV(m) offsetof(struct dc_header_view, m)
const struct dc_field dc_header_fields[] = {
	{"distcalc_version", "distcalc", DC_U_NONE, DC_FT_STR, HV(version)},
	{"experiment", "experiment", DC_U_NONE, DC_FT_STR, HV(experiment)},
	{"config", "config", DC_U_NONE, DC_FT_STR, HV(config)},
	{"seed", "seed", DC_U_NONE, DC_FT_U64, HV(seed)},
	/* what --only chose, in report order: --check applies it again */
	{"only", "sections (--only)", DC_U_NONE, DC_FT_STR, HV(only), .shown = has_only},
	/* --all: --check shows every row again (docs/reliability.md) */
	{"all", "every row (--all)", DC_U_NONE, DC_FT_BOOL, HV(all_rows), .shown = has_all},
};
const size_t dc_header_nfields = sizeof(dc_header_fields) / sizeof(dc_header_fields[0]);

static size_t count_warnings(const struct dc_diag *d)
{
	size_t nw = 0;
	for (size_t i = 0; d && i < d->count; i++)
		nw += d->entries[i].severity == DC_SEV_WARNING;
	return nw;
}

static int copy_warnings(struct dc_report *r, const struct dc_diag *d)
{
	for (size_t i = 0; d && i < d->count; i++) {
		if (d->entries[i].severity != DC_SEV_WARNING)
			continue;
		if (!(r->warnings[r->nwarnings] = dc_strdup(d->entries[i].text)))
			return -1;
		r->nwarnings++;
	}
	return 0;
}

int dc_report_take_warnings(struct dc_report *r, const struct dc_diag *early, const struct dc_diag *diag)
{
	size_t nw = count_warnings(early) + count_warnings(diag);
	if (early && early->oom)
		return -1; /* one of them is lost: out of memory, as for a line of `diag` */
	if (nw == 0)
		return 0;
	if (!(r->warnings = dc_calloc(nw, sizeof(*r->warnings))))
		return -1;
	return copy_warnings(r, early) != 0 || copy_warnings(r, diag) != 0 ? -1 : 0;
}

const struct dc_field dc_warnings_field = {
	"warnings", "Warnings", DC_U_NONE, DC_FT_PROSE, 0, .prose = &warnings_prose,
};

static const struct dc_field log_row_fields[] = {
	{"log", "log", DC_U_NONE, DC_FT_STR, offsetof(struct dc_log_row, log)},
};
const struct dc_fields dc_log_row_table = DC_FIELDS(log_row_fields);

/* ---- the runner ---- */

/* One unknown --only name: why, and what the experiment has instead. */
static void unknown_section(const struct dc_experiment *exp, const char *name, size_t n, const char *list,
			    struct dc_diag *diag)
{
	struct dc_buf known;
	const char *near = NULL;
	size_t best = 3;
	int elsewhere = 0;

	dc_buf_init(&known);
	for (size_t k = 0; exp->sections[k]; k++) {
		size_t d = dc_edit_distance(name, n, exp->sections[k]->name, 0);
		if (k)
			dc_buf_add(&known, ", ", 2);
		dc_buf_puts(&known, exp->sections[k]->name);
		if (d < best) {
			best = d;
			near = exp->sections[k]->name;
		}
	}
	for (size_t k = 0; dc_sections[k]; k++)
		if (strlen(dc_sections[k]->name) == n && strncmp(dc_sections[k]->name, name, n) == 0)
			elsewhere = 1;
	if (n == 0)
		dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--only': empty section name in '%.200s'", list);
	else if (elsewhere)
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': experiment '%s' has no section '%.*s'; its sections: %s",
			      exp->name, (int)n, name, known.failed ? "" : known.data);
	else if (near)
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': unknown section '%.*s'; did you mean '%s'? known sections: %s",
			      (int)(n < 64 ? n : 64), name, near, known.failed ? "" : known.data);
	else
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': unknown section '%.*s' for experiment '%s'; known sections: %s",
			      (int)(n < 64 ? n : 64), name, exp->name, known.failed ? "" : known.data);
	dc_buf_release(&known);
}

/* --only SECTION.TABLE that names no table: why, the nearest table path
 * and every table path of the experiment. */
static void unknown_table(const struct dc_experiment *exp, const char *path, struct dc_diag *diag)
{
	struct dc_buf known;
	char near[256] = "";
	size_t best = 4;

	dc_buf_init(&known);
	for (size_t k = 0; exp->sections[k]; k++)
		dc_report_table_paths(&exp->sections[k]->fields, exp->sections[k]->name, &known, path, near, &best);
	if (near[0])
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': '%.100s' is not a table of experiment '%s'; did you mean '%s'? its tables: %s",
			      path, exp->name, near, known.failed || !known.len ? "none" : known.data);
	else
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': '%.100s' is not a table of experiment '%s'; its tables: %s", path,
			      exp->name, known.failed || !known.len ? "none" : known.data);
	dc_buf_release(&known);
}

/* --only SECTION.TABLE: that table alone (see dc_report_only_table). */
static int select_table(struct dc_report *r, const struct dc_experiment *exp, const char *path, struct dc_diag *diag)
{
	size_t n = strcspn(path, ".");
	const struct dc_fields *sub;

	if (strchr(path, ',')) {
		/* name the path among the list's names */
		const char *t = path;
		while (strchr(t, ',') && t + strcspn(t, ",") < strchr(t, '.'))
			t += strcspn(t, ",") + 1;
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': a table's path prints that table alone; give '%.*s' by itself, without other sections",
			      (int)(strcspn(t, ",") < 100 ? strcspn(t, ",") : 100), t);
		return -1;
	}
	for (size_t i = 0; exp->sections[i]; i++) {
		if (strlen(exp->sections[i]->name) != n || strncmp(exp->sections[i]->name, path, n) != 0)
			continue;
		if (dc_report_only_table(r, &exp->sections[i]->fields, path + n + 1, &sub) != 0)
			break;
		r->only = 1;
		r->sec[r->nsec++] = exp->sections[i];
		r->only_sub = sub;
		snprintf(r->only_text, sizeof(r->only_text), "%s", path);
		return 0;
	}
	unknown_table(exp, path, diag);
	return -1;
}

/* --only: the experiment's sections named in `list`, in report order; a
 * name given twice counts once. */
static int select_sections(struct dc_report *r, const struct dc_experiment *exp, const char *list,
			   struct dc_diag *diag)
{
	int want[DC_REPORT_MAX_SECTIONS] = {0};
	size_t nexp = 0, bad = 0;
	int empty_seen = 0;
	const char *p = list;

	while (nexp < DC_REPORT_MAX_SECTIONS && exp->sections[nexp])
		nexp++;
	if (!list || !*list) {
		for (size_t i = 0; i < nexp; i++)
			r->sec[r->nsec++] = exp->sections[i];
		return 0;
	}
	if (strchr(list, '.'))
		return select_table(r, exp, list, diag);
	r->only = 1;
	for (;;) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < nexp; i++)
			if (strlen(exp->sections[i]->name) == n && strncmp(exp->sections[i]->name, p, n) == 0)
				break;
		if (i < nexp) {
			want[i] = 1;
		} else {
			/* one line for the list's empty names, not one each
			 * (',,' printed the same line three times) */
			if (n || !empty_seen)
				unknown_section(exp, p, n, list, diag);
			empty_seen |= n == 0;
			bad++;
		}
		p += n;
		if (*p != ',')
			break;
		p++; /* a trailing comma leaves an empty name: an error too */
	}
	if (bad)
		return -1;
	for (size_t i = 0; i < nexp; i++) {
		size_t used = strlen(r->only_text);
		if (!want[i])
			continue;
		r->sec[r->nsec++] = exp->sections[i];
		snprintf(r->only_text + used, sizeof(r->only_text) - used, "%s%s", used ? "," : "",
			 exp->sections[i]->name);
	}
	return 0;
}

static size_t align_up(size_t n)
{
	size_t a = alignof(max_align_t);
	return (n + a - 1) / a * a;
}

static int build_views(struct dc_report *r)
{
	size_t off[DC_REPORT_MAX_SECTIONS], size = align_up(sizeof(struct dc_header_view));
	struct dc_header_view *h;
	size_t k = 0;

	for (size_t i = 0; i < r->nsec; i++) {
		off[i] = size;
		size += align_up(r->sec[i]->view_size);
	}
	r->views = dc_calloc(1, size);
	if (!r->views)
		return -1;
	r->views_size = size;
	h = (struct dc_header_view *)(void *)r->views;
	h->report = r;
	h->version = DC_VERSION;
	h->experiment = r->info.experiment;
	h->config = r->config_name;
	h->seed = r->info.seed;
	h->only = r->only ? r->only_text : NULL;
	h->all_rows = r->info.all_rows;
	for (size_t i = 0; i < dc_header_nfields; i++)
		r->root_f[k++] = dc_header_fields[i];
	r->nheader = k;
	for (size_t i = 0; i < r->nsec; i++) {
		const struct dc_section *s = r->sec[i];
		struct dc_field *f = &r->root_f[k++];
		s->view(&r->run, r->views + off[i]);
		memset(f, 0, sizeof(*f));
		f->key = s->name;
		f->label = s->title;
		f->type = DC_FT_OBJECT;
		f->off = off[i];
		f->sub = r->only_table ? r->only_sub : &s->fields;
		f->label_fn = s->title_fn;
	}
	r->root_f[k++] = dc_warnings_field;
	r->root.f = r->root_f;
	r->root.n = k;
	return 0;
}

/* ---- every number printed is finite ---- */

/* The scalars and nested objects of every shown section are checked here,
 * before any sink sees them: a few hundred fields. A table's rows are
 * generated at render time and can be millions (the ring's O(p^2)
 * events), of which a sink prints an excerpt; each sink checks the rows it
 * prints as it generates them (dc_report_row_check), so the check costs
 * what is shown and no row is built twice. */

static const char *nonfinite_name(double v)
{
	return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/* prefix, then "[row]" when row >= 0, then ".key" (the path is written
 * only when it is needed: a failure, a nested object or table) */
static void field_path(char *buf, size_t len, const char *prefix, int64_t row, const char *key)
{
	if (row >= 0)
		snprintf(buf, len, "%.200s[%lld].%.60s", prefix, (long long)row, key);
	else
		snprintf(buf, len, "%.200s%s%.60s", prefix, *prefix ? "." : "", key);
}

/* Writes "error: 'PATH' is not finite (nan)" for the first non-finite
 * double under `fs` over `base` (row `row` of the table at `prefix`, or
 * -1) into err[errlen], nested objects included and tables left out.
 * Returns -1 when one was found, else 0. */
static int check_fields(const struct dc_fields *fs, const void *base, const char *prefix, int64_t row, char *err,
			size_t errlen)
{
	char path[320];

	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		if (!dc_fld_shown(f, base) || dc_fld_null(f, base))
			continue;
		if (f->type == DC_FT_F64) {
			double v;
			memcpy(&v, dc_fld_ptr(base, f), sizeof(v));
			if (!isfinite(v)) {
				field_path(path, sizeof(path), prefix, row, f->key);
				snprintf(err, errlen, "error: '%s' is not finite (%s)", path, nonfinite_name(v));
				return -1;
			}
		} else if (f->type == DC_FT_OBJECT) {
			field_path(path, sizeof(path), prefix, row, f->key);
			if (check_fields(f->sub, dc_fld_ptr(base, f), path, -1, err, errlen) != 0)
				return -1;
		}
	}
	return 0;
}

/* Every shown section of `r`: its fields and nested objects. */
static int check_finite(const struct dc_report *r, struct dc_diag *diag)
{
	char err[400];

	for (size_t i = r->nheader; i < r->root.n; i++) {
		const struct dc_field *f = &r->root.f[i];
		if (f->type != DC_FT_OBJECT)
			continue;
		if (check_fields(f->sub, r->views + f->off, f->key, -1, err, sizeof(err)) != 0) {
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s", err);
			return -1;
		}
	}
	return 0;
}

/* Is every double under `fs` over `base` finite, shown or not? The common
 * case, answered without calling a field's hooks. */
static int all_finite(const struct dc_fields *fs, const void *base)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		if (f->type == DC_FT_F64) {
			double v;
			memcpy(&v, dc_fld_ptr(base, f), sizeof(v));
			if (!isfinite(v))
				return 0;
		} else if (f->type == DC_FT_OBJECT && !all_finite(f->sub, dc_fld_ptr(base, f))) {
			return 0;
		}
	}
	return 1;
}

/* Adds the offsets of the doubles under `fs` (at `at` in the row) to d;
 * -1 when there are more than d holds. */
static int doubles_add(struct dc_row_doubles *d, const struct dc_fields *fs, size_t at)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		if (f->type == DC_FT_F64) {
			if (d->n == DC_ROW_DOUBLES_MAX)
				return -1;
			d->off[d->n++] = (uint16_t)(at + f->off);
		} else if (f->type == DC_FT_OBJECT && doubles_add(d, f->sub, at + f->off) != 0) {
			return -1;
		}
	}
	return 0;
}

void dc_row_doubles_init(struct dc_row_doubles *d, const struct dc_fields *cf)
{
	d->fs = cf;
	d->n = 0;
	d->walk = doubles_add(d, cf, 0) != 0;
}

int dc_row_doubles_finite(const struct dc_row_doubles *d, const void *row)
{
	if (d->walk)
		return all_finite(d->fs, row);
	for (size_t k = 0; k < d->n; k++) {
		double v;
		memcpy(&v, (const char *)row + d->off[k], sizeof(v));
		if (!isfinite(v))
			return 0;
	}
	return 1;
}

/* The path of the table field `table` over `tbase` under `fs` over `base`
 * (prefix `prefix`) into path[len]; 0 when found, else -1. */
static int table_path(const struct dc_fields *fs, const void *base, const char *prefix, const struct dc_field *table,
		      const void *tbase, char *path, size_t len)
{
	char sub[320];

	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		if (f == table && base == tbase) {
			field_path(path, len, prefix, -1, f->key);
			return 0;
		}
		if (f->type == DC_FT_OBJECT) {
			field_path(sub, sizeof(sub), prefix, -1, f->key);
			if (table_path(f->sub, dc_fld_ptr(base, f), sub, table, tbase, path, len) == 0)
				return 0;
		}
	}
	return -1;
}

int dc_report_row_check(struct dc_report *r, const struct dc_field *table, const void *base, uint64_t i,
			const void *row, struct dc_buf *out)
{
	char path[320], err[sizeof(r->render_error)];

	if (all_finite(table->sub, row))
		return 0;
	if (table_path(&r->root, r->views, "", table, base, path, sizeof(path)) != 0)
		snprintf(path, sizeof(path), "%.60s", table->key);
	if (check_fields(table->sub, row, path, (int64_t)(i > INT64_MAX ? INT64_MAX : i), err, sizeof(err)) == 0)
		return 0;
	/* the first of this render: once `out` failed, the sink prints nothing more */
	if (!out->failed)
		memcpy(r->render_error, err, sizeof(err));
	out->failed = 1;
	return -1;
}

const char *dc_report_render_error(const struct dc_report *r)
{
	return r->render_error[0] ? r->render_error : NULL;
}

/* Where an estimator's error "'a.b' x 'c': ..." comes from: "--set" when
 * a --set gave one of the keys it names (a quoted key, or any key under a
 * quoted section such as 'model'), else the config's name. The loader
 * names the --set of the errors it finds; these come after it. */
static const char *error_origin(const struct dc_report *r, const char *msg)
{
	const char *p = msg, *colon = strstr(msg, "': ");
	size_t nkeys = dc_config_key_count();
	while (p && *p == '\'' && (!colon || p <= colon)) {
		const char *end = strchr(p + 1, '\'');
		size_t n;
		if (!end)
			break;
		n = (size_t)(end - p - 1);
		for (size_t i = 0; i < nkeys; i++) {
			const struct dc_config_key_info *k = dc_config_key_at(i);
			const char *path = k ? k->path : "";
			if (r->in.origin[i] == DC_ORIGIN_SET && strncmp(path, p + 1, n) == 0 &&
			    (path[n] == '\0' || path[n] == '.'))
				return "--set";
		}
		/* the next quoted path: "'a' x 'b'", "'a' / 'b'" */
		p = strchr(end + 1, '\'');
	}
	return r->config_name;
}

struct dc_report *dc_experiment_run(const struct dc_experiment *exp_in, const struct dc_config *cfg,
				    const struct dc_run_info *info, struct dc_diag *diag)
{
	struct dc_report *r = dc_calloc(1, sizeof(*r));
	uint32_t needs = 0;
	/* --calibrate: the experiment's sections, then the calibration */
	const struct dc_section *with_cal[DC_REPORT_MAX_SECTIONS + 1];
	struct dc_experiment calibrated;
	const struct dc_experiment *exp = exp_in;
	char why[512];

	if (info->calibration) {
		size_t n = 0;
		while (exp_in->sections[n] && n + 1 < DC_REPORT_MAX_SECTIONS) {
			with_cal[n] = exp_in->sections[n];
			n++;
		}
		with_cal[n++] = &dc_section_calibration;
		with_cal[n] = NULL;
		calibrated = *exp_in;
		calibrated.sections = with_cal;
		exp = &calibrated;
	}

	if (!r) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
		return NULL;
	}
	r->in = *cfg;
	r->info = *info;
	r->config_name = dc_strdup(info->config_name ? info->config_name : "");
	if (!r->config_name)
		goto oom;
	r->info.config_name = r->config_name;
	r->info.only = NULL;
	r->title_model = info->model_file;
	r->title_sets = info->sets;
	r->ntitle_sets = info->nsets;
	if (select_sections(r, exp, info->only, diag) != 0)
		goto fail;
	for (size_t i = 0; i < r->nsec; i++)
		needs |= r->sec[i]->needs;
	if (dc_plan_derive(&r->in, &r->plan) != 0) {
		const char *e = dc_config_blame_overflow(&r->in, r->plan.error, NULL, why, sizeof(why));
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", error_origin(r, e), e);
		goto fail;
	}
	r->plan.seed = info->seed;
	if (dc_estimate(&r->plan, needs, &r->res) != 0) {
		/* an overflow names the key that drove it (config.h) */
		const char *e = dc_config_blame_overflow(&r->in, r->res.error, NULL, why, sizeof(why));
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", error_origin(r, e), e);
		goto fail;
	}
	/* the warnings the results call for */
	for (size_t i = 0; exp->sections[i]; i++)
		if (exp->sections[i]->warn)
			exp->sections[i]->warn(&r->plan, &r->res, r->config_name, diag);
	/* the layout search: its own plans and estimators per layout (search.h) */
	for (size_t i = 0; i < r->nsec; i++) {
		const char *err = NULL;
		if (r->sec[i] != &dc_section_search || r->search)
			continue;
		if (!(r->search = dc_calloc(1, sizeof(*r->search))))
			goto oom;
		if (dc_search_run(&r->in, info->jobs, info->progress, r->search, &err) != 0) {
			/* an overflow as the configured run's names its key */
			const char *e = dc_config_blame_overflow(&r->in, err, "in a layout the search tried", why,
								 sizeof(why));
			if (e && e != err)
				dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", error_origin(r, e), e);
			else
				dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: search: %s", r->config_name,
					      err ? err : "failed");
			goto fail;
		}
	}
	/* the search's own, then every warning so far: the loader's
	 * (implausible values) and these */
	if (r->search)
		dc_search_warn(&r->plan, r->search, diag);
	if (diag->oom)
		goto oom;
	if (dc_report_take_warnings(r, info->early_warnings, diag) != 0)
		goto oom;
	r->run.search = r->search;
	r->run.plan = &r->plan;
	r->run.res = &r->res;
	r->run.info = &r->info;
	r->run.warnings = (const char *const *)r->warnings;
	r->run.nwarnings = r->nwarnings;
	if (exp->whatif) {
		const char *err = NULL;
		r->whatif = dc_calloc(1, sizeof(*r->whatif));
		if (!r->whatif)
			goto oom;
		if (dc_whatif_compute(&r->plan, &r->res, r->info.seed, r->whatif, &err) != 0) {
			char where[96];
			const char *e;
			dc_text_fmt(where, sizeof(where), "in the what-if scenario %s",
				    dc_whatif_scenario_name(r->whatif->failed));
			e = dc_config_blame_overflow(&r->in, err, where, why, sizeof(why));
			dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", e ? error_origin(r, e) : r->config_name,
				      e ? e : "what-if failed");
			goto fail;
		}
		r->run.whatif = r->whatif;
	}
	if (build_views(r) != 0)
		goto oom;
	if (check_finite(r, diag) != 0)
		goto fail;
	return r;
oom:
	dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
fail:
	dc_report_free(r);
	return NULL;
}
