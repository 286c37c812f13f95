/* check_config_doc.c - docs/config.md and the loader's key table agree.
 *
 * The key table in config.c is the one place that knows each key
 * (dc_config_key_at). docs/config.md's reference tables must list exactly
 * its keys, in its order, each row as this file renders it: kind with its
 * bounds or choices and whether it is required, unit, default and the row's
 * one-line doc. Its rule list must be the rule table (dc_config_rule_at).
 * Any difference fails with the doc's line and what the table says.
 *
 * `check_config_doc --print` writes the reference tables and the rule list
 * as they belong in docs/config.md (scripts/gen-config-doc.sh runs it).
 *
 * The literal defaults are held to the loader too: setting a key to its
 * documented default with --set must load the same config as leaving it
 * out.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"

#define DOC DC_SOURCE_DIR "/docs/config.md"
#define HEADER "| key | kind | unit | default | meaning |"
#define RULES_HEADING "## Rules between keys"

/* ---- rendering: one row as docs/config.md writes it ---- */

static int is_section(const struct dc_config_key_info *k)
{
	return strcmp(k->kind, "section") == 0;
}

/* The top-level section a key is listed under ("" for a top-level key). */
static void group_of(const char *path, char *out, size_t len)
{
	const char *dot = strchr(path, '.');
	snprintf(out, len, "%.*s", dot ? (int)(dot - path) : 0, path);
}

static void kind_cell(const struct dc_config_key_info *k, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s", k->kind);
	if (k->choices) {
		for (size_t i = 0; k->choices[i] && n < len; i++)
			n += (size_t)snprintf(out + n, len - n, "%s`\"%s\"`", i ? ", " : " ", k->choices[i]);
	} else if (k->bounds[0] && n < len) {
		n += (size_t)snprintf(out + n, len - n, " %s", k->bounds);
	}
	if (k->need != DC_KEY_OPTIONAL && n < len)
		snprintf(out + n, len - n, ", **required**");
}

static void default_cell(const struct dc_config_key_info *k, char *out, size_t len)
{
	if (!k->default_text[0])
		snprintf(out, len, "—");
	else if (strncmp(k->default_text, "derived:", 8) == 0)
		snprintf(out, len, "%s", k->default_text);
	else
		snprintf(out, len, "`%s`", k->default_text);
}

static const char *unit_cell(const struct dc_config_key_info *k)
{
	return k->unit[0] ? k->unit : "—";
}

/* The key as its section's table names it: "intra_node.bandwidth". */
static const char *short_path(const char *path)
{
	const char *dot = strchr(path, '.');
	return dot ? dot + 1 : path;
}

static void render_row(const struct dc_config_key_info *k, char *out, size_t len)
{
	char kind[256], def[256];
	kind_cell(k, kind, sizeof(kind));
	default_cell(k, def, sizeof(def));
	snprintf(out, len, "| `%s` | %s | %s | %s | %s |", short_path(k->path), kind, unit_cell(k), def, k->doc);
}

static void render_rule(size_t i, const struct dc_config_rule_info *r, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%zu. %s (", i + 1, r->name);
	for (size_t j = 0; r->keys[j] && n < len; j++)
		n += (size_t)snprintf(out + n, len - n, "%s`%s`", j ? ", " : "", r->keys[j]);
	if (n < len)
		snprintf(out + n, len - n, ")");
}

/* Writes the reference tables, each under its heading, and the rules. */
static void print_doc(FILE *f)
{
	char group[64] = "\x01", g[64], row[2048];
	for (size_t i = 0; i < dc_config_key_count(); i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		if (is_section(k))
			continue;
		group_of(k->path, g, sizeof(g));
		if (strcmp(g, group) != 0) {
			if (g[0])
				fprintf(f, "%s## `%s`\n\n%s\n", group[0] == 1 ? "" : "\n", g, HEADER);
			else
				fprintf(f, "%s## Top level\n\n%s\n", group[0] == 1 ? "" : "\n", HEADER);
			fprintf(f, "| --- | --- | --- | --- | --- |\n");
			snprintf(group, sizeof(group), "%s", g);
		}
		render_row(k, row, sizeof(row));
		fprintf(f, "%s\n", row);
	}
	fprintf(f, "\n%s\n\n", RULES_HEADING);
	for (size_t i = 0; i < dc_config_rule_count(); i++) {
		render_rule(i, dc_config_rule_at(i), row, sizeof(row));
		fprintf(f, "%s\n", row);
	}
}

/* ---- the doc ---- */

struct problems {
	char text[16384];
	size_t n;
};

static void problem(struct problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct problems *p, const char *fmt, ...)
{
	size_t used = strlen(p->text);
	va_list ap;
	p->n++;
	if (used + 2 >= sizeof(p->text))
		return;
	va_start(ap, fmt);
	vsnprintf(p->text + used, sizeof(p->text) - used - 1, fmt, ap);
	va_end(ap);
	strcat(p->text, "\n");
}

static char *read_doc(void)
{
	FILE *f = fopen(DOC, "rb");
	char *buf;
	size_t n;
	ck_assert_msg(f != NULL, "cannot open %s", DOC);
	buf = malloc(1 << 20);
	ck_assert(buf != NULL);
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Splits a table row "| a | b |" into trimmed cells; returns their count. */
static size_t cells(char *line, char **cell, size_t max)
{
	size_t n = 0;
	char *p = line;
	if (*p != '|')
		return 0;
	p++;
	while (*p && n < max) {
		char *bar = strchr(p, '|'), *end;
		if (!bar)
			break;
		*bar = '\0';
		while (*p == ' ')
			p++;
		end = p + strlen(p);
		while (end > p && end[-1] == ' ')
			*--end = '\0';
		cell[n++] = p;
		p = bar + 1;
	}
	return n;
}

static const char *const column[8] = {"key", "kind", "unit", "default", "meaning", "cell 6", "cell 7", "cell 8"};

/* Compares row `i` of the table with the doc's row at `lineno`. */
static void compare_row(struct problems *p, int lineno, const struct dc_config_key_info *k, char *line)
{
	char want_line[2048], *want[8], *got[8];
	size_t nw, ng;
	render_row(k, want_line, sizeof(want_line));
	nw = cells(want_line, want, 8);
	ng = cells(line, got, 8);
	if (ng != nw) {
		problem(p, "docs/config.md:%d: '%s': %zu cells, the table renders %zu", lineno, k->path, ng, nw);
		return;
	}
	for (size_t c = 1; c < nw; c++)
		if (strcmp(got[c], want[c]) != 0)
			problem(p, "docs/config.md:%d: '%s': documented %s \"%s\", the key table says \"%s\"", lineno,
				k->path, column[c], got[c], want[c]);
}

/* Walks docs/config.md: every table row under a section heading is a key. */
static void check_doc(struct problems *p)
{
	size_t nkeys = dc_config_key_count(), last = 0, nrules = 0;
	int *line_of = calloc(nkeys, sizeof(int));
	char *doc = read_doc(), *next;
	char group[64] = "";
	int in_ref = 0, in_rules = 0, lineno = 0, any = 0;

	ck_assert(line_of != NULL);
	for (char *line = doc; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (strncmp(line, "## ", 3) == 0) {
			in_ref = in_rules = 0;
			if (strcmp(line, "## Top level") == 0) {
				in_ref = 1;
				group[0] = '\0';
			} else if (strncmp(line, "## `", 4) == 0) {
				const char *end = strchr(line + 4, '`');
				const struct dc_config_key_info *s;
				snprintf(group, sizeof(group), "%.*s", end ? (int)(end - line - 4) : 0, line + 4);
				s = dc_config_key_find(group);
				if (!s || !is_section(s))
					problem(p, "docs/config.md:%d: heading '%s' is not a section of the key table", lineno,
						group);
				else if ((strstr(line, "(required)") != NULL) != (s->need != DC_KEY_OPTIONAL))
					problem(p, "docs/config.md:%d: heading '%s' must say \"(required)\" exactly when the section is",
						lineno, group);
				in_ref = 1;
			} else if (strcmp(line, RULES_HEADING) == 0) {
				in_rules = 1;
			}
			continue;
		}
		if (in_rules && line[0] >= '1' && line[0] <= '9') {
			char want[2048];
			const struct dc_config_rule_info *r = dc_config_rule_at(nrules);
			if (!r) {
				problem(p, "docs/config.md:%d: rule %zu is not in the rule table", lineno, nrules + 1);
			} else {
				render_rule(nrules, r, want, sizeof(want));
				if (strcmp(line, want) != 0)
					problem(p, "docs/config.md:%d: rule %zu reads\n  %s\nthe rule table says\n  %s", lineno,
						nrules + 1, line, want);
			}
			nrules++;
			continue;
		}
		if (!in_ref || line[0] != '|')
			continue;
		if (strncmp(line, "| --- ", 6) == 0)
			continue;
		if (strncmp(line, "| key ", 6) == 0) {
			if (strcmp(line, HEADER) != 0)
				problem(p, "docs/config.md:%d: a reference table's header must be \"%s\"", lineno, HEADER);
			continue;
		}
		{
			char path[256], *cell[8];
			char copy[2048];
			const char *name, *end;
			size_t i;
			snprintf(copy, sizeof(copy), "%s", line);
			if (cells(copy, cell, 8) < 1 || cell[0][0] != '`' || !(end = strchr(cell[0] + 1, '`'))) {
				problem(p, "docs/config.md:%d: a reference row starts with a `key`", lineno);
				continue;
			}
			name = cell[0] + 1;
			if (group[0])
				snprintf(path, sizeof(path), "%s.%.*s", group, (int)(end - name), name);
			else
				snprintf(path, sizeof(path), "%.*s", (int)(end - name), name);
			for (i = 0; i < nkeys; i++)
				if (strcmp(dc_config_key_at(i)->path, path) == 0)
					break;
			if (i == nkeys || is_section(dc_config_key_at(i))) {
				problem(p, "docs/config.md:%d: '%s' is documented but is not a key of the table", lineno, path);
				continue;
			}
			if (line_of[i]) {
				problem(p, "docs/config.md:%d: '%s' is documented twice (first on line %d)", lineno, path,
					line_of[i]);
				continue;
			}
			if (any && i < last)
				problem(p, "docs/config.md:%d: '%s' is out of the key table's order", lineno, path);
			line_of[i] = lineno;
			last = i;
			any = 1;
			compare_row(p, lineno, dc_config_key_at(i), line);
		}
	}
	for (size_t i = 0; i < nkeys; i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		if (!is_section(k) && !line_of[i])
			problem(p, "'%s' is in the key table but not in docs/config.md", k->path);
	}
	if (nrules != dc_config_rule_count())
		problem(p, "docs/config.md lists %zu rules under \"%s\", the rule table has %zu", nrules, RULES_HEADING,
			dc_config_rule_count());
	free(line_of);
	free(doc);
}

START_TEST(test_doc_matches_the_key_table)
{
	struct problems *p = calloc(1, sizeof(*p));
	ck_assert(p != NULL);
	check_doc(p);
	ck_assert_msg(p->n == 0, "%zu problems (scripts/gen-config-doc.sh prints the tables):\n%s", p->n, p->text);
	free(p);
}
END_TEST

/* The rows themselves: unique paths, a section before its keys, a text in
 * every field, nothing that would break a Markdown table. */
START_TEST(test_key_table_is_well_formed)
{
	size_t n = dc_config_key_count();
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(dc_config_key_at(n));
	ck_assert_ptr_null(dc_config_key_find("model.hiden_size"));
	for (size_t i = 0; i < n; i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		const char *dot = strrchr(k->path, '.');
		ck_assert_ptr_eq(dc_config_key_find(k->path), k);
		ck_assert_msg(k->kind && k->unit && k->default_text && k->bounds && k->doc && k->doc[0],
			      "'%s': a field is missing", k->path);
		ck_assert_msg(!strchr(k->doc, '|') && !strchr(k->default_text, '|'), "'%s': '|' in a cell", k->path);
		ck_assert_msg((strcmp(k->kind, "enum") == 0) == (k->choices != NULL), "'%s': choices", k->path);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(dc_config_key_at(j)->path, k->path);
		if (dot) {
			char parent[128];
			const struct dc_config_key_info *s;
			snprintf(parent, sizeof(parent), "%.*s", (int)(dot - k->path), k->path);
			s = dc_config_key_find(parent);
			ck_assert_msg(s && is_section(s) && s < k, "'%s': its section '%s' is not a row above it", k->path,
				      parent);
		}
	}
}
END_TEST

START_TEST(test_rules_name_known_keys)
{
	ck_assert_uint_gt(dc_config_rule_count(), 0);
	ck_assert_ptr_null(dc_config_rule_at(dc_config_rule_count()));
	for (size_t i = 0; i < dc_config_rule_count(); i++) {
		const struct dc_config_rule_info *r = dc_config_rule_at(i);
		ck_assert_msg(r->keys[0] != NULL, "rule '%s' names no key", r->name);
		for (size_t j = 0; r->keys[j]; j++) {
			const struct dc_config_key_info *k = dc_config_key_find(r->keys[j]);
			ck_assert_msg(k && !is_section(k), "rule '%s': '%s' is not a key", r->name, r->keys[j]);
		}
	}
}
END_TEST

/* Every kind the table uses is one docs/config.md's "Value kinds" explains. */
START_TEST(test_kinds_are_explained)
{
	char *doc = read_doc();
	const char *kinds = strstr(doc, "## Value kinds");
	const char *end = kinds ? strstr(kinds + 1, "\n## ") : NULL;
	ck_assert(kinds && end);
	for (size_t i = 0; i < dc_config_key_count(); i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		char row[64];
		const char *hit;
		if (is_section(k))
			continue;
		snprintf(row, sizeof(row), "\n| %s |", k->kind);
		hit = strstr(kinds, row);
		ck_assert_msg(hit && hit < end, "kind '%s' ('%s') is not in docs/config.md's Value kinds", k->kind,
			      k->path);
	}
	free(doc);
}
END_TEST

/* Every model, cluster and layout key needs a value in this config, so a
 * default set with --set meets the same rules as one left out. */
static const char base[] = "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
			   " \"vocab_size\": 32000, \"seq_length\": 4096},"
			   " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			   " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}}}";

static void load(const char *set, struct dc_config *cfg)
{
	struct dc_override ov = {set};
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_buffer(base, strlen(base), "t.json", &ov, set ? 1 : 0, cfg, &d) == 0,
		      "--set %s: %s", set ? set : "(none)", d.count ? d.entries[0].text : "?");
	ck_assert_msg(d.count == 0, "--set %s: %s", set ? set : "(none)", d.entries[0].text);
	dc_diag_release(&d);
}

START_TEST(test_literal_defaults_are_the_loaders)
{
	struct dc_config *omitted = calloc(1, sizeof(*omitted)), *given = calloc(1, sizeof(*given));
	size_t checked = 0;
	ck_assert(omitted && given);
	load(NULL, omitted);
	for (size_t i = 0; i < dc_config_key_count(); i++) {
		const struct dc_config_key_info *k = dc_config_key_at(i);
		char set[320];
		if (!k->default_text[0] || strncmp(k->default_text, "derived:", 8) == 0)
			continue;
		snprintf(set, sizeof(set), "%s=%s", k->path, k->default_text);
		memset(given, 0, sizeof(*given));
		load(set, given);
		/* the values alike; where they came from differs by design */
		memcpy(given->origin, omitted->origin, sizeof(given->origin));
		ck_assert_msg(memcmp(omitted, given, sizeof(*given)) == 0,
			      "--set %s loads another config than leaving '%s' out", set, k->path);
		checked++;
	}
	/* by hand from docs/config.md: model 30 (mlp, norm, 11 booleans, 15
	 * integers at 0, moe_layer_interval and router_groups at 1), cluster 10 (2 latencies, host_memory,
	 * system, nvls, collnet, network, oversubscription, nodes_per_leaf, nic_path), parallel 13 (all but
	 * dp, pipeline_layers, first/last_stage_layers, and bucket_size,
	 * reshard_after_forward and sequence_parallel, which training.framework
	 * derives), training
	 * 11 (micro batch, grad accum, recompute, recompute_layers, attention,
	 * framework, compile, loss_chunks, optimizer_implementation, moe_dispatcher) and jitter, precision
	 * 6 (the preset, compute, fp8_lm_head, attention, bf16_first_layers and
	 * bf16_last_layers; the byte keys
	 * and fp8_recipe, which training.framework derives, are derived),
	 * collective 7
	 * (link, algorithm and the sweep's op, dtype, min_bytes, max_bytes,
	 * step_factor), memory 4 (all but the activation override),
	 * overlap 3 (fsdp_prefetch, tp, ep; dp, param_gather and
	 * compute_slowdown are derived), whatif 7 (all of them), checkpoint 5 (format, gather, async, the
	 * storage bandwidth, step; staging_bandwidth and the restore degrees are derived), loss 4 (mode,
	 * min_length, token_loss, token_loss_spread), search 4 (tp_across_nodes,
	 * headroom, objective, top): 104 */
	ck_assert_uint_eq(checked, 105);
	free(omitted);
	free(given);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	if (argc == 2 && strcmp(argv[1], "--print") == 0) {
		print_doc(stdout);
		return 0;
	}
	s = suite_create("config_doc");
	tc = tcase_create("config_doc");
	tcase_add_test(tc, test_doc_matches_the_key_table);
	tcase_add_test(tc, test_key_table_is_well_formed);
	tcase_add_test(tc, test_rules_name_known_keys);
	tcase_add_test(tc, test_kinds_are_explained);
	tcase_add_test(tc, test_literal_defaults_are_the_loaders);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
