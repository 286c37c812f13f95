/* check_report.c - the sections, their sinks and the formatting they share
 * (section.h, report.h).
 *
 * - dc_fmt_double gives exactly the text of the "%.15g" ... "%.17g"
 *   round-trip loop, on a million seeded doubles of every scale and on
 *   the hard cases (powers of two and ten, ties, carries, 2^53);
 * - the seed's worked example through the ring experiment: the table and
 *   the JSON carry 1,610,612,736 bytes per rank, 24 events, 32.212 ms;
 * - --only keeps the header, the warnings and the chosen sections, in
 *   report order, and an unknown name is a usage error listing the known
 *   ones;
 * - the summary agrees with the memory and comm sections it condenses;
 * - a non-finite result is an internal error naming its field;
 * - JSON strings are valid UTF-8 and the table and CSV escape control
 *   bytes, whatever a file name holds;
 * - every section's field keys are unique and every row table has a row
 *   struct no larger than DC_ROW_MAX.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/rng.h"
#include "distcalc/section.h"

/* The reference: the shortest of %.15g, %.16g, %.17g that reads back. */
static void slow_double(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

START_TEST(test_fmt_double_hand_cases)
{
	char buf[40];
	dc_fmt_double(buf, sizeof(buf), 0.1);
	ck_assert_str_eq(buf, "0.1");
	dc_fmt_double(buf, sizeof(buf), 1.0 / 3.0);
	ck_assert_str_eq(buf, "0.3333333333333333");
	dc_fmt_double(buf, sizeof(buf), 5e10);
	ck_assert_str_eq(buf, "50000000000");
	dc_fmt_double(buf, sizeof(buf), 0.00843401792);
	ck_assert_str_eq(buf, "0.00843401792");
	dc_fmt_double(buf, sizeof(buf), 1e-05);
	ck_assert_str_eq(buf, "1e-05");
	dc_fmt_double(buf, sizeof(buf), 3.0202210025472e+15);
	ck_assert_str_eq(buf, "3.0202210025472e+15");
	dc_fmt_double(buf, sizeof(buf), -2.5);
	ck_assert_str_eq(buf, "-2.5");
	dc_fmt_double(buf, sizeof(buf), INFINITY);
	ck_assert_str_eq(buf, "null");
	/* short decimals: 17 digits that end in nines rounded up (0.7 is
	 * 0.6999999999999999555...) or in zeros (0.5 exactly) */
	dc_fmt_double(buf, sizeof(buf), 0.7);
	ck_assert_str_eq(buf, "0.7");
	dc_fmt_double(buf, sizeof(buf), 0.5);
	ck_assert_str_eq(buf, "0.5");
	/* x = -4, the last fixed form: "0.000" and the digits */
	dc_fmt_double(buf, sizeof(buf), 0.00012345);
	ck_assert_str_eq(buf, "0.00012345");
	/* zeros that end both groups of eight and more: 1e20 is 1 and 14 zeros */
	dc_fmt_double(buf, sizeof(buf), 1e20);
	ck_assert_str_eq(buf, "1e+20");
	dc_fmt_double(buf, sizeof(buf), 1.5e-5);
	ck_assert_str_eq(buf, "1.5e-05");
	dc_fmt_double(buf, sizeof(buf), 123456789.5);
	ck_assert_str_eq(buf, "123456789.5");
	/* 17 digits, 16 before the point, after a sign: the longest fixed form */
	dc_fmt_double(buf, sizeof(buf), -1234567890123456.5);
	ck_assert_str_eq(buf, "-1234567890123456.5");
	/* the double 12345678901234568: 17 digits, exponent 16 < 17, fixed */
	dc_fmt_double(buf, sizeof(buf), 12345678901234567.0);
	ck_assert_str_eq(buf, "12345678901234568");
	dc_fmt_u64_grouped(buf, 1610612736u);
	ck_assert_str_eq(buf, "1,610,612,736");
	dc_fmt_u64_grouped(buf, 999);
	ck_assert_str_eq(buf, "999");
	dc_fmt_u64(buf, UINT64_MAX);
	ck_assert_str_eq(buf, "18446744073709551615");
}
END_TEST

/* Seeded doubles of every magnitude, short decimals (the figures a report
 * holds: 0.00843401792, 28.5) and random bit patterns. */
START_TEST(test_fmt_double_matches_printf)
{
	struct dc_rng rng;
	char fast[40], slow[40];
	unsigned long bad = 0;

	dc_rng_seed(&rng, 7);
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = dc_rng_next(&rng);
		double v;
		switch (i % 4) {
		case 0: /* a short decimal: m / 10^k */
			v = (double)(r % 100000000000ull) / pow(10, (double)(dc_rng_next(&rng) % 16));
			break;
		case 1: /* any scale */
			v = ldexp((double)(r >> 11) / 9007199254740992.0, (int)(dc_rng_next(&rng) % 120) - 60);
			break;
		case 2: /* raw bits */
			memcpy(&v, &r, sizeof(v));
			break;
		default: /* products like the estimators make, and exponent forms */
			v = (double)(r % 1000000) * 1e-6 * (double)(dc_rng_next(&rng) % 100000);
			if (r % 3 == 0)
				v = (double)(r % 1000000000) * pow(10, (double)(dc_rng_next(&rng) % 26));
		}
		if (i % 7 == 0)
			v = -v;
		dc_fmt_double(fast, sizeof(fast), v);
		slow_double(slow, sizeof(slow), v);
		if (strcmp(fast, slow) != 0 && bad++ < 5)
			fprintf(stderr, "fmt %.17g: fast '%s', printf '%s'\n", v, fast, slow);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* The cases an exact formatter gets wrong first: every power of two and
 * of ten and their neighbours (where the gap below a double is half the
 * gap above, and where the decimal exponent steps), values just below a
 * power of ten (rounding carries into a new digit), integers around 2^53,
 * halves (ties at the last digit), decimals of 16 and 17 digits, and the
 * edges of the exact path's range, each against printf's loop. */
static unsigned long fmt_mismatch(double v)
{
	char fast[40], slow[40];
	unsigned long bad = 0;
	double w[4] = {v, nextafter(v, INFINITY), nextafter(v, -INFINITY), 0};
	w[3] = -w[1];
	for (int i = 0; i < 4; i++) {
		dc_fmt_double(fast, sizeof(fast), w[i]);
		slow_double(slow, sizeof(slow), w[i]);
		if (strcmp(fast, slow) != 0) {
			fprintf(stderr, "fmt %a: fast '%s', printf '%s'\n", w[i], fast, slow);
			bad++;
		}
	}
	return bad;
}

START_TEST(test_fmt_double_hard_cases)
{
	static const char *const forms[] = {"1",   "9.99999999999999999",    "9.999999999999999",
					    "9.99999999999999", "5", "1.0000000000000001", "2.5",
					    "1.2345678901234567"};
	struct dc_rng rng;
	unsigned long bad = 0;
	char s[64];

	for (int e = -1074; e <= 1023; e++)
		bad += fmt_mismatch(ldexp(1.0, e));
	for (int k = -323; k <= 308; k++)
		for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
			snprintf(s, sizeof(s), "%se%d", forms[f], k);
			bad += fmt_mismatch(strtod(s, NULL));
		}
	dc_rng_seed(&rng, 11);
	for (int i = 0; i < 20000; i++) {
		bad += fmt_mismatch((double)((1ull << 53) - 10000 + (uint64_t)i));
		bad += fmt_mismatch((double)i + 0.5);
		bad += fmt_mismatch(ldexp((double)(dc_rng_next(&rng) % 100000) + 0.5, -(int)(dc_rng_next(&rng) % 40)));
		/* a 16- or 17-digit decimal, read as the double nearest it */
		snprintf(s, sizeof(s), "%llu.%llue%d", (unsigned long long)(dc_rng_next(&rng) % 9 + 1),
			 (unsigned long long)(dc_rng_next(&rng) % 10000000000000000ull),
			 (int)(dc_rng_next(&rng) % 60) - 30);
		bad += fmt_mismatch(strtod(s, NULL));
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

static struct dc_report *run(const char *experiment, const char *only, const char *const *sets, size_t nsets,
			     struct dc_diag *d)
{
	struct dc_override ov[8] = {{0}};
	struct dc_config cfg;
	struct dc_run_info info = {experiment, "t.json", 7, only};

	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, "t.json", ov, nsets, &cfg, d),
			 0);
	return dc_experiment_run(dc_experiment_find(experiment), &cfg, &info, d);
}

static cJSON *json_of(struct dc_report *r)
{
	struct dc_render_opts o = {0, 0};
	struct dc_buf b;
	cJSON *root;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_json(r, &o, &b), 0);
	root = cJSON_ParseWithLength(b.data, b.len);
	ck_assert_msg(root != NULL, "JSON does not parse:\n%s", b.data);
	dc_buf_release(&b);
	return root;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", key);
	return v->valuedouble;
}

/* The seed's worked example through the ring experiment: both renderings
 * carry 1,610,612,736 bytes per rank and 24 events. */
START_TEST(test_ring_table_and_json_agree)
{
	static const char *const sets[] = {"collective.ranks=4", "collective.message_size=1 GiB",
					   "cluster.intra_node.bandwidth=50 GB/s", "cluster.intra_node.latency=0"};
	struct dc_diag d;
	struct dc_render_opts o = {0, 0};
	struct dc_buf table;
	struct dc_report *r;
	cJSON *root, *ring;

	dc_diag_init(&d);
	r = run("ring", NULL, sets, 4, &d);
	ck_assert(r != NULL);
	dc_buf_init(&table);
	ck_assert_int_eq(dc_report_render_table(r, &o, &table), 0);
	root = json_of(r);
	ck_assert(num(root, "seed") == 7.0);
	ring = cJSON_GetObjectItemCaseSensitive(root, "ring");
	ck_assert(num(ring, "ranks") == 4.0);
	ck_assert(num(ring, "message_bytes") == 1073741824.0);
	/* 2(p-1)M/p = 1.5 x 2^30 */
	ck_assert(num(ring, "bytes_sent_per_rank") == 1610612736.0);
	/* 6 x 2^28 B / 5e10 B/s; busbw = B = 50 GB/s when alpha = 0 */
	ck_assert(fabs(num(ring, "time_s") - 0.03221225472) <= 1e-12 * 0.0322);
	ck_assert(fabs(num(ring, "busbw_GBps") - 50.0) <= 1e-12 * 50.0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ring, "events")), 24);
	ck_assert(strstr(table.data, "1.500 GiB (1,610,612,736 B)") != NULL);
	ck_assert(strstr(table.data, "32.212 ms") != NULL);
	ck_assert(strstr(table.data, "50.000 GB/s") != NULL);
	cJSON_Delete(root);
	dc_buf_release(&table);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_only_keeps_header_and_chosen_sections)
{
	static const char *const want[] = {"distcalc_version", "experiment", "config", "seed", "only",
					   "summary", "memory", "warnings"};
	struct dc_diag d;
	struct dc_report *r;
	struct dc_render_opts o = {0, 0};
	struct dc_buf table;
	cJSON *root, *c;
	size_t i = 0;

	dc_diag_init(&d);
	/* asked out of order: printed in report order */
	r = run("systems", "memory,summary", NULL, 0, &d);
	ck_assert(r != NULL);
	root = json_of(r);
	for (c = root->child; c; c = c->next, i++) {
		ck_assert_uint_lt(i, sizeof(want) / sizeof(want[0]));
		ck_assert_str_eq(c->string, want[i]);
	}
	ck_assert_uint_eq(i, sizeof(want) / sizeof(want[0]));
	/* the choice is recorded in report order, for --check to apply again */
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "only")->valuestring, "summary,memory");
	/* the table shows the sections alone */
	dc_buf_init(&table);
	ck_assert_int_eq(dc_report_render_table(r, &o, &table), 0);
	ck_assert_msg(strncmp(table.data, "Summary\n=======\n", 16) == 0, "%s", table.data);
	ck_assert(strstr(table.data, "Memory per rank") != NULL);
	ck_assert(strstr(table.data, "Model (exact") == NULL);
	ck_assert(strstr(table.data, "distcalc ") == NULL);
	dc_buf_release(&table);
	cJSON_Delete(root);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_only_unknown_section_lists_known)
{
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert(run("systems", "memory,bogus", NULL, 0, &d) == NULL);
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_str_eq(d.entries[d.count - 1].text,
			 "distcalc: error: '--only': unknown section 'bogus' for experiment 'systems'; known sections: "
			 "summary, model, cluster, topology, groups, batch, memory, ring, comm, strategies, flops, step");
	dc_diag_release(&d);
	/* a section the experiment does not have */
	dc_diag_init(&d);
	ck_assert(run("ring", "memory", NULL, 0, &d) == NULL);
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_str_eq(d.entries[d.count - 1].text,
			 "distcalc: error: '--only': experiment 'ring' has no section 'memory'; its sections: ring");
	dc_diag_release(&d);
}
END_TEST

/* The summary is the memory section's most loaded rank and the comm
 * totals, with a pipeline so that the peak rank is not 0: 8 ranks of
 * tp 1 x pp 2 x dp 4, rank r on stage r / 4 (pp stride 4). */
START_TEST(test_summary_condenses_memory_and_comm)
{
	static const char *const sets[] = {"parallel.tp=1", "parallel.pp=2", "parallel.dp=4",
					   "training.grad_accum_steps=1"};
	struct dc_diag d;
	struct dc_report *r;
	cJSON *root, *s, *mem, *pr, *comm;
	uint64_t peak_rank;

	dc_diag_init(&d);
	r = run("systems", NULL, sets, 4, &d);
	ck_assert(r != NULL);
	root = json_of(r);
	ck_assert_str_eq(root->child->next->next->next->next->string, "summary");
	s = cJSON_GetObjectItemCaseSensitive(root, "summary");
	mem = cJSON_GetObjectItemCaseSensitive(root, "memory");
	pr = cJSON_GetObjectItemCaseSensitive(mem, "per_rank");
	comm = cJSON_GetObjectItemCaseSensitive(root, "comm");
	ck_assert(num(s, "peak_bytes") == num(pr, "peak_bytes"));
	ck_assert(num(s, "headroom_bytes") == num(mem, "headroom_bytes"));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "fits")) ==
		  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mem, "fits")));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(s, "peak_phase")->valuestring,
			 cJSON_GetObjectItemCaseSensitive(pr, "peak_phase")->valuestring);
	/* one microbatch in flight on both stages (min(pp - s, m), m = 1);
	 * both hold an untied V x h table (embedding, head), but only the last
	 * adds the final norm and the FP32 logits 4sbV = 524,288,000 B against
	 * the first stage's sbh = 16,777,216 B of embedding masks: stage 1,
	 * whose first rank is 1 x pp stride 4 */
	peak_rank = (uint64_t)num(s, "peak_rank");
	ck_assert_uint_eq(peak_rank, 4);
	ck_assert(num(pr, "rank") == (double)peak_rank);
	ck_assert(num(s, "comm_bytes_per_step") == num(comm, "bytes_per_rank"));
	ck_assert(num(s, "comm_time_s") == num(comm, "time_s"));
	ck_assert(num(s, "warnings") == (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "warnings")));
	cJSON_Delete(root);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* Warnings printed before the run (an importer's, --model over an
 * import's model: dc_run_info.early_warnings) are the report's too: listed
 * first, in their order, and counted by the summary; an early line lost
 * to memory fails the run rather than drop it. */
START_TEST(test_early_warnings_are_reported)
{
	struct dc_diag d, early;
	struct dc_config cfg;
	struct dc_run_info info = {"systems", "t.json", 7, "summary"};
	struct dc_report *r;
	cJSON *root, *w;

	dc_diag_init(&d);
	dc_diag_init(&early);
	dc_diag_add(&early, DC_SEV_WARNING, DC_OK, "importer: first");
	dc_diag_add(&early, DC_SEV_WARNING, DC_OK, "importer: second");
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, "t.json", NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(d.count, 0); /* the default config warns of nothing */
	info.early_warnings = &early;
	r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
	ck_assert(r != NULL);
	root = json_of(r);
	w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
	ck_assert_int_eq(cJSON_GetArraySize(w), 2);
	ck_assert_str_eq(cJSON_GetArrayItem(w, 0)->valuestring, "importer: first");
	ck_assert_str_eq(cJSON_GetArrayItem(w, 1)->valuestring, "importer: second");
	ck_assert(num(cJSON_GetObjectItemCaseSensitive(root, "summary"), "warnings") == 2);
	cJSON_Delete(root);
	dc_report_free(r);

	dc_diag_oom(&early);
	r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
	ck_assert(r == NULL);
	ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
	dc_diag_release(&early);
	dc_diag_release(&d);
}
END_TEST

/* --all (max_rows 0) prints every row of every table but the ring's
 * O(p^2) events, which stay excerpted beside other sections: 8 ranks make
 * 2 x 7 x 8 = 112 events, 32 shown, 80 left out; alone they all print. */
START_TEST(test_all_keeps_ring_events_excerpted_beside_other_sections)
{
	struct dc_diag d;
	struct dc_report *r;
	cJSON *root, *ring;

	dc_diag_init(&d);
	r = run("systems", NULL, NULL, 0, &d);
	ck_assert(r != NULL);
	root = json_of(r);
	ring = cJSON_GetObjectItemCaseSensitive(root, "ring");
	ck_assert(num(ring, "events_total") == 112);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ring, "events")), 32);
	ck_assert(num(ring, "events_omitted") == 80);
	/* the per-rank tables print whole */
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
				 cJSON_GetObjectItemCaseSensitive(root, "topology"), "ranks")), 8);
	cJSON_Delete(root);
	/* Markdown says what shows them, as the table format does: rows 17
	 * to 96 counted from 1 (16 shown before, 16 after) left out, and
	 * --all alone does not show them (a student trial) */
	{
		struct dc_render_opts ro = {0, 100};
		struct dc_buf md;
		dc_buf_init(&md);
		ck_assert_int_eq(dc_report_render_markdown(r, &ro, &md), 0);
		ck_assert_ptr_nonnull(strstr(md.data, "80 of 112 events left out (rows 17 to 96); --only ring --all shows every row"));
		dc_buf_release(&md);
	}
	dc_report_free(r);
	r = run("systems", "ring", NULL, 0, &d);
	ck_assert(r != NULL);
	root = json_of(r);
	ring = cJSON_GetObjectItemCaseSensitive(root, "ring");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ring, "events")), 112);
	ck_assert(cJSON_GetObjectItemCaseSensitive(ring, "events_omitted") == NULL);
	cJSON_Delete(root);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

static void keys_unique(const struct dc_fields *fs, const char *where)
{
	for (size_t i = 0; i < fs->n; i++) {
		ck_assert_msg(fs->f[i].key && *fs->f[i].key, "%s: field %zu has no key", where, i);
		/* the JSON sink writes keys unescaped, CSV unquoted */
		ck_assert_msg(strspn(fs->f[i].key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
				      strlen(fs->f[i].key),
			      "%s: key '%s' is not [A-Za-z0-9_]", where, fs->f[i].key);
		for (size_t j = i + 1; j < fs->n; j++)
			ck_assert_msg(strcmp(fs->f[i].key, fs->f[j].key) != 0, "%s: key '%s' twice", where,
				      fs->f[i].key);
		if (fs->f[i].type == DC_FT_OBJECT || fs->f[i].type == DC_FT_ROWS) {
			ck_assert_msg(fs->f[i].sub != NULL, "%s.%s: no sub-fields", where, fs->f[i].key);
			keys_unique(fs->f[i].sub, fs->f[i].key);
		}
		if (fs->f[i].type == DC_FT_ROWS) {
			ck_assert_msg(fs->f[i].rows && fs->f[i].rows->row_size <= DC_ROW_MAX, "%s.%s: row size",
				      where, fs->f[i].key);
			ck_assert_msg(fs->f[i].sub->n <= DC_MAX_COLUMNS, "%s.%s: %zu columns", where, fs->f[i].key,
				      fs->f[i].sub->n);
		}
	}
}

/* A result that is not finite never reaches a sink: the runner fails with
 * an internal error naming the field. The loader's bounds keep every valid
 * config finite, so the config is changed after loading: a 1e-300 B/s link
 * makes a round M/(pB) = 2^30 / 4 / 1e-300 = 2.7e308 s, above DBL_MAX
 * (1.8e308), so inf; a NaN latency is shown first as ring.link_latency_s. */
START_TEST(test_nonfinite_result_is_internal_error)
{
	static const char *const sets[] = {"collective.ranks=4", "collective.message_size=1 GiB",
					   "cluster.intra_node.bandwidth=50 GB/s", "cluster.intra_node.latency=0"};
	struct dc_override ov[4];
	struct dc_config cfg;
	struct dc_run_info info = {"ring", "t.json", 7, NULL};
	struct dc_diag d;
	struct dc_report *r;

	for (size_t i = 0; i < 4; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, "t.json", ov, 4, &cfg, &d), 0);
	cfg.cluster.intra_node.bw_bytes_per_s = 1e-300;
	r = dc_experiment_run(dc_experiment_find("ring"), &cfg, &info, &d);
	ck_assert(r == NULL);
	ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
	ck_assert_str_eq(d.entries[d.count - 1].text, "error: 'ring.round_time_s' is not finite (inf)");
	dc_diag_release(&d);

	dc_diag_init(&d);
	cfg.cluster.intra_node.bw_bytes_per_s = 50e9;
	cfg.cluster.intra_node.latency_s = NAN;
	r = dc_experiment_run(dc_experiment_find("ring"), &cfg, &info, &d);
	ck_assert(r == NULL);
	ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
	ck_assert_str_eq(d.entries[d.count - 1].text, "error: 'ring.link_latency_s' is not finite (nan)");
	dc_diag_release(&d);

	/* the same config, finite again, runs */
	dc_diag_init(&d);
	cfg.cluster.intra_node.latency_s = 0;
	r = dc_experiment_run(dc_experiment_find("ring"), &cfg, &info, &d);
	ck_assert(r != NULL);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* JSON strings are valid UTF-8 whatever the bytes: each byte that does not
 * begin a well-formed sequence (RFC 3629 table 3-7) becomes U+FFFD; the
 * table and CSV escape every byte that would act on a terminal. The
 * expected texts are worked out from the RFC's table by hand: 0xff never
 * occurs; 0xed 0xa0 0x80 encodes the surrogate U+D800 (0xed allows 0x80 to
 * 0x9f next), so all three bytes are bad; 0xc0 0xaf is the overlong '/';
 * 0xc2 0x9b is U+009B, the C1 CSI. */
/* The finiteness check over a made-up section: a field whose is_null hook
 * says null may hold inf; a nested object's path is dotted and the runner
 * refuses it; a table of 10,000 rows is checked by each sink over the rows
 * it prints, so a NaN in its last row fails every render and is named by
 * its index, while one in row 5000 fails only the renders that print row
 * 5000 (--all, and CSV, which prints every row): an excerpt of 32 rows
 * shows rows 0..15 and 9984..9999 (dc_excerpt_bounds_max: 32 / 2 = 16 at
 * the head, 10000 - 16 = 9984 onwards at the tail). */
struct fin_view {
	double shown_inf, ok;
	struct {
		double inner;
	} sub;
	uint64_t bad_row;
};
struct fin_row {
	double v;
};
static uint64_t fin_count(const void *base)
{
	(void)base;
	return 10000;
}
static void fin_row_at(const void *base, uint64_t i, void *row)
{
	const struct fin_view *v = base;
	((struct fin_row *)row)->v = i == v->bad_row ? NAN : (double)i;
}
static int fin_null(const void *base)
{
	(void)base;
	return 1;
}
static uint64_t fin_bad_row = 9999;
static double fin_inner = 1.0;
static void fin_view_fill(const struct dc_run *run, void *out)
{
	struct fin_view *v = out;
	(void)run;
	v->shown_inf = INFINITY;
	v->ok = 2.5;
	v->sub.inner = fin_inner;
	v->bad_row = fin_bad_row;
}
static const struct dc_field fin_row_fields[] = {{"v", "v", DC_U_NONE, DC_FT_F64, 0}};
static const struct dc_fields fin_row_fs = DC_FIELDS(fin_row_fields);
static const struct dc_rows fin_rows = {fin_count, fin_row_at, sizeof(struct fin_row), "rows"};
static const struct dc_field fin_sub_fields[] = {
	{"inner", "inner", DC_U_NONE, DC_FT_F64, offsetof(struct fin_view, sub.inner) - offsetof(struct fin_view, sub)},
};
static const struct dc_fields fin_sub_fs = DC_FIELDS(fin_sub_fields);
static const struct dc_field fin_fields[] = {
	{"shown_inf", "n/a here", DC_U_NONE, DC_FT_F64, offsetof(struct fin_view, shown_inf), .is_null = fin_null},
	{"ok", "ok", DC_U_NONE, DC_FT_F64, offsetof(struct fin_view, ok)},
	{"sub", "sub", DC_U_NONE, DC_FT_OBJECT, offsetof(struct fin_view, sub), .sub = &fin_sub_fs},
	{"table", "table", DC_U_NONE, DC_FT_ROWS, 0, .sub = &fin_row_fs, .rows = &fin_rows},
};

/* Renders `r` in `format` (0 table, 1 JSON, 2 CSV, 3 Markdown) with at
 * most `max_rows` rows a table (0: all); returns the render's status and
 * its error text ("" when none). */
static int fin_render(struct dc_report *r, int format, uint64_t max_rows, const char **why)
{
	struct dc_render_opts ro = {max_rows, 100};
	struct dc_buf out;
	int rc;

	dc_buf_init(&out);
	switch (format) {
	case 0: rc = dc_report_render_table(r, &ro, &out); break;
	case 1: rc = dc_report_render_json(r, &ro, &out); break;
	case 2: rc = dc_report_render_csv(r, &ro, &out); break;
	default: rc = dc_report_render_markdown(r, &ro, &out); break;
	}
	dc_buf_release(&out);
	*why = dc_report_render_error(r) ? dc_report_render_error(r) : "";
	return rc;
}

START_TEST(test_finite_check_walks_objects_and_row_ends)
{
	static const struct dc_section sec = {
		"fin", "Finite", "test", 0, sizeof(struct fin_view), fin_view_fill, DC_FIELDS(fin_fields),
	};
	static const struct dc_section *const secs[] = {&sec, NULL};
	static const struct dc_experiment exp = {"fin", "test", secs};
	struct dc_run_info info = {"fin", "t.json", 7, NULL};
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_report *r;
	const char *why;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, "t.json", NULL, 0, &cfg, &d), 0);
	/* the last row: the runner builds no row; every sink's excerpt prints it */
	r = dc_experiment_run(&exp, &cfg, &info, &d);
	ck_assert(r != NULL);
	for (int format = 0; format < 4; format++) {
		ck_assert_int_eq(fin_render(r, format, 32, &why), -1);
		ck_assert_str_eq(why, "error: 'fin.table[9999].v' is not finite (nan)");
	}
	dc_report_free(r);
	dc_diag_release(&d);

	/* row 9984 is the first of the excerpt's last 16; row 9983 is not shown */
	fin_bad_row = 9984;
	dc_diag_init(&d);
	ck_assert((r = dc_experiment_run(&exp, &cfg, &info, &d)) != NULL);
	ck_assert_int_eq(fin_render(r, 1, 32, &why), -1);
	ck_assert_str_eq(why, "error: 'fin.table[9984].v' is not finite (nan)");
	dc_report_free(r);
	dc_diag_release(&d);
	fin_bad_row = 9983;
	dc_diag_init(&d);
	ck_assert((r = dc_experiment_run(&exp, &cfg, &info, &d)) != NULL);
	ck_assert_int_eq(fin_render(r, 1, 32, &why), 0);
	ck_assert_str_eq(why, "");
	dc_report_free(r);
	dc_diag_release(&d);

	/* row 5000: left out of an excerpt, so the table, JSON and Markdown
	 * print finite numbers only; --all and CSV print it and fail */
	fin_bad_row = 5000;
	dc_diag_init(&d);
	r = dc_experiment_run(&exp, &cfg, &info, &d);
	ck_assert(r != NULL);
	ck_assert_int_eq(fin_render(r, 0, 32, &why), 0);
	ck_assert_int_eq(fin_render(r, 1, 32, &why), 0);
	ck_assert_int_eq(fin_render(r, 3, 32, &why), 0);
	ck_assert_str_eq(why, "");
	ck_assert_int_eq(fin_render(r, 2, 32, &why), -1);
	ck_assert_str_eq(why, "error: 'fin.table[5000].v' is not finite (nan)");
	for (int format = 0; format < 4; format++) {
		ck_assert_int_eq(fin_render(r, format, 0, &why), -1);
		ck_assert_str_eq(why, "error: 'fin.table[5000].v' is not finite (nan)");
	}
	dc_report_free(r);
	dc_diag_release(&d);

	/* a nested object's scalar: the runner refuses it before any sink */
	fin_inner = -INFINITY;
	dc_diag_init(&d);
	ck_assert(dc_experiment_run(&exp, &cfg, &info, &d) == NULL);
	ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
	ck_assert_str_eq(d.entries[d.count - 1].text, "error: 'fin.sub.inner' is not finite (-inf)");
	dc_diag_release(&d);
	fin_inner = 1.0;
	fin_bad_row = 9999;
}
END_TEST

/* --check's count predicate follows the field tables: a world size, a
 * row's rank, a process group's member and a byte count are counts; a
 * time, a rank's link (text), the groups table itself and unknown paths
 * are not. */
START_TEST(test_path_is_count)
{
	struct dc_diag d;
	struct dc_report *r;
	dc_diag_init(&d);
	r = run("systems", NULL, NULL, 0, &d);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(dc_report_path_is_count(r, "topology.world_size"), 1);
	ck_assert_int_eq(dc_report_path_is_count(r, "topology.ranks[3].rank"), 1);
	ck_assert_int_eq(dc_report_path_is_count(r, "groups.dp[1][1]"), 1);
	ck_assert_int_eq(dc_report_path_is_count(r, "summary.peak_bytes"), 1);
	ck_assert_int_eq(dc_report_path_is_count(r, "seed"), 1);
	ck_assert_int_eq(dc_report_path_is_count(r, "summary.step_time_s"), 0);
	ck_assert_int_eq(dc_report_path_is_count(r, "groups.axes[0].link"), 0);
	ck_assert_int_eq(dc_report_path_is_count(r, "groups.dp"), 0);
	ck_assert_int_eq(dc_report_path_is_count(r, "topology.world_size[0]"), 0);
	ck_assert_int_eq(dc_report_path_is_count(r, "topology.nope"), 0);
	ck_assert_int_eq(dc_report_path_is_count(r, ""), 0);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* The cluster section lists the network keys a config leaves out with the
 * value the network model uses: EFA's plugin latency is aws-ofi-nccl's
 * 20 us a network step (docs/network-model.md, "Fabrics"), IB's 0, and no
 * size factor is "(none)"; a given ramp is its five knots. */
static const cJSON *cluster_row(const cJSON *root, const char *key)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "cluster"), "keys"), *x;
	cJSON_ArrayForEach(x, rows)
		if (strcmp(cJSON_GetObjectItemCaseSensitive(x, "key")->valuestring, key) == 0)
			return x;
	ck_abort_msg("no cluster row '%s'", key);
	return NULL;
}

START_TEST(test_cluster_network_defaults)
{
	const char *efa[] = {"cluster.network=efa"};
	const char *ramp[] = {"cluster.inter_node.ramp=[0.5, 0.6, 0.7, 0.8, 0.9]"};
	struct dc_diag d;
	struct dc_report *r;
	cJSON *root;
	const cJSON *row;
	dc_diag_init(&d);
	r = run("systems", "cluster", efa, 1, &d);
	ck_assert_ptr_nonnull(r);
	root = json_of(r);
	row = cluster_row(root, "cluster.inter_node.plugin_latency");
	ck_assert(fabs(cJSON_GetObjectItemCaseSensitive(row, "value")->valuedouble - 20e-6) <= 1e-18);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "origin")->valuestring, "default");
	row = cluster_row(root, "cluster.intra_node.ramp");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "value")));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "text")->valuestring, "(none)");
	cJSON_Delete(root);
	dc_report_free(r);
	r = run("systems", "cluster", ramp, 1, &d);
	ck_assert_ptr_nonnull(r);
	root = json_of(r);
	row = cluster_row(root, "cluster.inter_node.plugin_latency");
	ck_assert(cJSON_GetObjectItemCaseSensitive(row, "value")->valuedouble == 0); /* IB: none */
	row = cluster_row(root, "cluster.inter_node.ramp");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(row, "value")), 5);
	ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(row, "value"), 4)->valuedouble == 0.9);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "origin")->valuestring, "--set");
	cJSON_Delete(root);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* A key row's columns as each sink writes them, worked out from the
 * presets: cluster.system dgx-h100 by --set fills the network (ib) and
 * nvls, the config's gpu a100-sxm4-80gb overrides the preset's and fills
 * the GPU's figures (A100: 312 TFLOP/s bf16, 108 SMs) and turns the
 * system's nvls off (no NVSwitch reductions: the GPU's origin), so one
 * list holds both preset origins; a string without its quotes in `text`, the
 * efficiencies derived later, a null size factor "(none)", and a ramp too
 * long for the row's own text (made again at full length) quoted in CSV. */
START_TEST(test_cluster_key_rows)
{
	static const char *const lines[] = {
		"key,value,text,unit,origin\r\n",
		"cluster.system,dgx-h100,dgx-h100,,--set\r\n",
		"cluster.num_nodes,2,2,,config\r\n",
		"cluster.gpu,a100-sxm4-80gb,a100-sxm4-80gb,,config\r\n",
		"cluster.peak_flops,312000000000000,312000000000000,FLOP/s,preset:a100-sxm4-80gb\r\n",
		"cluster.sm_count,108,108,,preset:a100-sxm4-80gb\r\n",
		"cluster.matmul_efficiency,,(derived),,default\r\n",
		"cluster.intra_node.latency,5e-06,5e-06,s,config\r\n",
		"cluster.intra_node.ramp,,(none),,default\r\n",
		"cluster.inter_node.ramp,\"[0.5, 0.25, 0.75, 1, 1]\",\"[0.5, 0.25, 0.75, 1, 1]\",,--set\r\n",
		"cluster.nvls,false,false,,preset:a100-sxm4-80gb\r\n",
		"cluster.network,ib,ib,,preset:dgx-h100\r\n",
		"cluster.topology_file,,(none),,default\r\n",
	};
	const char *sets[] = {"cluster.system=dgx-h100", "cluster.inter_node.ramp=[0.5, 0.25, 0.75, 1, 1]"};
	struct dc_render_opts o = {0, 0}, t = {0, 200};
	struct dc_diag d;
	struct dc_report *r;
	struct dc_buf b;
	cJSON *root;
	const cJSON *row;
	dc_diag_init(&d);
	r = run("systems", "cluster", sets, 2, &d);
	ck_assert_ptr_nonnull(r);
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_csv(r, &o, &b), 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_msg(strstr(b.data, lines[i]) != NULL, "no CSV line %s in:\n%s", lines[i], b.data);
	dc_buf_release(&b);
	root = json_of(r);
	row = cluster_row(root, "cluster.system");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "value")->valuestring, "dgx-h100");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "text")->valuestring, "dgx-h100");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "unit")->valuestring, "");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "origin")->valuestring, "--set");
	row = cluster_row(root, "cluster.hbm_bandwidth");
	ck_assert(cJSON_GetObjectItemCaseSensitive(row, "value")->valuedouble == 2039e9);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "text")->valuestring, "2039000000000");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "unit")->valuestring, "bytes/s");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "origin")->valuestring, "preset:a100-sxm4-80gb");
	row = cluster_row(root, "cluster.memory_efficiency");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "value")));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "text")->valuestring, "(derived)");
	row = cluster_row(root, "cluster.network");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(row, "origin")->valuestring, "preset:dgx-h100");
	cJSON_Delete(root);
	/* the table: key, the text (no quotes) right-aligned in the width of
	 * the ramp's 23 bytes, unit (7: bytes/s) and origin (21) */
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &t, &b), 0);
	ck_assert_msg(strstr(b.data, " cluster.system" "                 dgx-h100" "         " "                  --set\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, " cluster.peak_flops" "          312000000000000" "   FLOP/s" "  preset:a100-sxm4-80gb\n") != NULL,
		      "%s", b.data);
	ck_assert_msg(strstr(b.data, " cluster.nvls" "                    false" "         " "  preset:a100-sxm4-80gb\n") != NULL,
		      "%s", b.data);
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* The reserve's label rounds its percent as "%.0f" does, to the nearest
 * integer and a tie to the even one: 12.5 (0.125 exactly) is 12, 13.5
 * (0.135 x 100 is a little above it) is 14, 2.5 (0.025 x 100 rounds to
 * 2.5 exactly) is 2. */
START_TEST(test_reserve_label_percent)
{
	static const struct {
		const char *set, *label;
	} cases[] = {
		{"memory.allocator_reserve=0.125", "allocator reserve (12% of the backward subtotal)"},
		{"memory.allocator_reserve=0.135", "allocator reserve (14% of the backward subtotal)"},
		{"memory.allocator_reserve=0.025", "allocator reserve (2% of the backward subtotal)"},
		{"memory.allocator_reserve=0", "allocator reserve (0% of the backward subtotal)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sets[] = {cases[i].set};
		struct dc_render_opts t = {32, 100};
		struct dc_diag d;
		struct dc_report *r;
		struct dc_buf b;
		dc_diag_init(&d);
		r = run("systems", "memory", sets, 1, &d);
		ck_assert_ptr_nonnull(r);
		dc_buf_init(&b);
		ck_assert_int_eq(dc_report_render_table(r, &t, &b), 0);
		ck_assert_msg(strstr(b.data, cases[i].label) != NULL, "%s: no '%s' in:\n%s", cases[i].set, cases[i].label,
			      b.data);
		dc_buf_release(&b);
		dc_report_free(r);
		dc_diag_release(&d);
	}
}
END_TEST

START_TEST(test_text_escapes)
{
	struct dc_buf b;
	char out[16];

	dc_buf_init(&b);
	dc_buf_json_string(&b, "a\xff\x1b\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80\xc0\xafz\xe2\x82");
	ck_assert_str_eq(b.data, "\"a\\ufffd\\u001b\\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				 "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdz\\ufffd\\ufffd\"");
	dc_buf_release(&b);

	dc_buf_init(&b);
	dc_buf_printable(&b, "a\xff\x1b\n\xc3\xa9\xc2\x9b\x7f\tq\\r\r");
	ck_assert_str_eq(b.data, "a\\xff\\x1b\\n\xc3\xa9\\xc2\\x9b\\x7f\\tq\\r\\r");
	dc_buf_release(&b);
	ck_assert_int_eq(dc_text_printable("plain text, \xc3\xa9 and \xe2\x82\xac"), 1);
	ck_assert_int_eq(dc_text_printable("a\x1b"), 0);
	ck_assert_int_eq(dc_text_printable("\xc2\x9b"), 0);
	ck_assert_int_eq(dc_text_printable("\xe2\x82"), 0);

	/* a fixed buffer is cut before an escape or a character, never in it */
	ck_assert_uint_eq(dc_fmt_printable(out, 6, "ab\x1b" "cd"), 2);
	ck_assert_str_eq(out, "ab");
	ck_assert_uint_eq(dc_fmt_printable(out, 7, "ab\x1b" "cd"), 6);
	ck_assert_str_eq(out, "ab\\x1b");
	ck_assert_uint_eq(dc_fmt_printable(out, 5, "abc\xc3\xa9"), 3);
	ck_assert_str_eq(out, "abc");
	ck_assert_uint_eq(dc_fmt_printable(out, 4, "abcdef"), 3);
	ck_assert_str_eq(out, "abc");
}
END_TEST

static int has_byte_from(const char *s, size_t n, const char *bytes)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] && strchr(bytes, s[i]))
			return 1;
	return 0;
}

/* A config named with a non-UTF-8 byte, ESC and a newline, and a Hugging
 * Face path holding the same, through every sink: the JSON parses and
 * holds U+FFFD for the bad byte, the table and the CSV show escapes and no
 * raw control or stray byte. */
START_TEST(test_sinks_escape_names)
{
	const char *name = "a\xff\x1b\n.json";
	struct dc_render_opts o = {0, 0};
	struct dc_run_info info = {"systems", name, 7, "model"};
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r;
	cJSON *root;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, name, NULL, 0, &cfg, &d), 0);
	snprintf(cfg.model.hf_config, sizeof(cfg.model.hf_config), "hf\x1b[2J\xc2\x9b\r.json");
	r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
	ck_assert(r != NULL);

	root = json_of(r);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "config")->valuestring, "a\xef\xbf\xbd\x1b\n.json");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "model"), "hf_config")
				 ->valuestring,
			 "hf\x1b[2J\xc2\x9b\r.json");
	cJSON_Delete(root);

	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_msg(strstr(b.data, "hf\\x1b[2J\\xc2\\x9b\\r.json") != NULL, "table:\n%s", b.data);
	ck_assert(!has_byte_from(b.data, b.len, "\x1b\r\xff\xc2\x9b"));
	dc_buf_release(&b);

	/* the header's name too, where the table shows it (--only hides the
	 * header in a table) */
	dc_report_free(r);
	info.only = NULL;
	r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
	ck_assert(r != NULL);
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_msg(strstr(b.data, "a\\xff\\x1b\\n.json\n") != NULL, "table:\n%.400s", b.data);
	ck_assert(!has_byte_from(b.data, b.len, "\x1b\r\xff\xc2\x9b"));
	dc_buf_release(&b);

	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_csv(r, &o, &b), 0);
	ck_assert(strstr(b.data, "# config: \"a\\ufffd\\u001b\\n.json\"\r\n") != NULL);
	ck_assert_msg(strstr(b.data, "\r\nhf_config,hf\\x1b[2J\\xc2\\x9b\\r.json,\r\n") != NULL, "csv:\n%.2000s", b.data);
	ck_assert(!has_byte_from(b.data, b.len, "\x1b\xff\xc2\x9b"));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* A table's static title is simple text: printable ASCII, single spaces,
 * none at either end, which the table sink writes as it is when it fits
 * on its line (sink_table.c t_rows), as its wrap would; a title made at
 * render time (label_fn) goes through the wrap. */
static void table_titles_simple(const struct dc_fields *fs, const char *where)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		size_t n;
		if (f->type == DC_FT_OBJECT)
			table_titles_simple(f->sub, f->key);
		if (f->type != DC_FT_ROWS || f->label_fn || !f->label)
			continue;
		n = strlen(f->label);
		ck_assert_msg(n > 0 && f->label[0] != ' ' && f->label[n - 1] != ' ' && !strstr(f->label, "  "),
			      "%s.%s: title '%s' has a space at an end or two in a row", where, f->key, f->label);
		for (size_t k = 0; k < n; k++)
			ck_assert_msg(f->label[k] >= 0x20 && f->label[k] < 0x7f, "%s.%s: title byte %zu not printable",
				      where, f->key, k);
	}
}

START_TEST(test_sections_field_tables)
{
	for (size_t i = 0; dc_sections[i]; i++) {
		int listed = 0;
		ck_assert(dc_sections[i]->view_size <= DC_VIEW_MAX);
		ck_assert(dc_section_find(dc_sections[i]->name) == dc_sections[i]);
		/* a CSV key path drops its section's name up to the dot the sink
		 * inserts after it (sink_csv.c path_push), as the keys below hold
		 * no dot either: a name of [a-z0-9_] keeps the two the same */
		ck_assert_msg(strspn(dc_sections[i]->name, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
				      strlen(dc_sections[i]->name),
			      "section name '%s' is not [a-z0-9_]", dc_sections[i]->name);
		keys_unique(&dc_sections[i]->fields, dc_sections[i]->name);
		table_titles_simple(&dc_sections[i]->fields, dc_sections[i]->name);
		/* every section is part of some experiment */
		for (size_t e = 0; dc_experiments[e]; e++)
			for (size_t k = 0; dc_experiments[e]->sections[k]; k++)
				listed |= dc_experiments[e]->sections[k] == dc_sections[i];
		/* calibration joins every experiment under --calibrate
		 * (check_calibrate.c runs one) */
		listed |= dc_sections[i] == &dc_section_calibration;
		ck_assert_msg(listed, "section '%s' is in no experiment", dc_sections[i]->name);
	}
	ck_assert(dc_section_find("nope") == NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fmt_double_hand_cases);
	tcase_add_test(tc, test_fmt_double_matches_printf);
	tcase_add_test(tc, test_fmt_double_hard_cases);
	tcase_add_test(tc, test_ring_table_and_json_agree);
	tcase_add_test(tc, test_only_keeps_header_and_chosen_sections);
	tcase_add_test(tc, test_only_unknown_section_lists_known);
	tcase_add_test(tc, test_summary_condenses_memory_and_comm);
	tcase_add_test(tc, test_early_warnings_are_reported);
	tcase_add_test(tc, test_sections_field_tables);
	tcase_add_test(tc, test_nonfinite_result_is_internal_error);
	tcase_add_test(tc, test_finite_check_walks_objects_and_row_ends);
	tcase_add_test(tc, test_text_escapes);
	tcase_add_test(tc, test_path_is_count);
	tcase_add_test(tc, test_cluster_network_defaults);
	tcase_add_test(tc, test_cluster_key_rows);
	tcase_add_test(tc, test_reserve_label_percent);
	tcase_add_test(tc, test_sinks_escape_names);
	tcase_add_test(tc, test_all_keeps_ring_events_excerpted_beside_other_sections);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
