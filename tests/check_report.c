/* check_report.c - one field tree, two renderings (report.h).
 *
 * A tree built here by hand is rendered as a table and as JSON; the JSON is
 * parsed back with cJSON and must carry exactly the numbers put in, and the
 * table must show the same numbers in its display units (GiB = 2^30 bytes,
 * GB/s = 10^9 B/s, times scaled to ms). Then the ring experiment on the
 * seed's worked example goes through the same two renderers.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

static void row_fn(const void *ctx, uint64_t index, struct dc_rnode *row)
{
	(void)ctx;
	dc_rn_u64(row, "i", "index", DC_U_COUNT, index);
	dc_rn_f64(row, "t_s", "time", DC_U_SECONDS, (double)index * 1e-3);
}

static struct dc_report *sample(void)
{
	struct dc_report *r = dc_report_new();
	struct dc_rnode *s;
	ck_assert(r != NULL);
	s = dc_rn_object(dc_report_root(r), "sec", "A section");
	dc_rn_u64(s, "bytes", "bytes", DC_U_BYTES, 1610612736u);    /* 1.5 GiB */
	dc_rn_f64(s, "time_s", "time", DC_U_SECONDS, 0.03221225472); /* 32.212 ms */
	dc_rn_f64(s, "bw_GBps", "bandwidth", DC_U_GBPS, 50.0);
	dc_rn_f64(s, "third", "a third", DC_U_NONE, 1.0 / 3.0);
	dc_rn_str(s, "name", "name", "a \"quoted\"\tname\n");
	dc_rn_bool(s, "flag", "flag", 1);
	dc_rn_null(s, "algbw_GBps", "algbw", DC_U_GBPS);
	dc_rn_array_gen(s, "rows", "Rows", "rows", 100, row_fn, NULL);
	ck_assert(!dc_report_failed(r));
	return r;
}

START_TEST(test_json_carries_the_numbers)
{
	struct dc_report *r = sample();
	struct dc_render_opts o = {0};
	struct dc_buf b;
	cJSON *root, *sec, *rows;

	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_json(r, &o, &b), 0);
	root = cJSON_ParseWithLength(b.data, b.len);
	ck_assert_msg(root != NULL, "JSON does not parse:\n%s", b.data);
	sec = cJSON_GetObjectItemCaseSensitive(root, "sec");
	ck_assert(cJSON_IsObject(sec));
	ck_assert(cJSON_GetObjectItemCaseSensitive(sec, "bytes")->valuedouble == 1610612736.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(sec, "time_s")->valuedouble == 0.03221225472);
	ck_assert(cJSON_GetObjectItemCaseSensitive(sec, "bw_GBps")->valuedouble == 50.0);
	/* shortest text that reads back exactly */
	ck_assert(cJSON_GetObjectItemCaseSensitive(sec, "third")->valuedouble == 1.0 / 3.0);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(sec, "name")->valuestring, "a \"quoted\"\tname\n");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sec, "flag")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sec, "algbw_GBps")));
	rows = cJSON_GetObjectItemCaseSensitive(sec, "rows");
	ck_assert_int_eq(cJSON_GetArraySize(rows), 100); /* max_rows 0: all rows */
	ck_assert(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 99), "i")->valuedouble == 99.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 99), "t_s")->valuedouble == 99 * 1e-3);
	cJSON_Delete(root);
	dc_buf_release(&b);

	/* an excerpt: the first 5 and last 5 rows and the count left out */
	o.max_rows = 10;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_json(r, &o, &b), 0);
	root = cJSON_ParseWithLength(b.data, b.len);
	ck_assert(root != NULL);
	sec = cJSON_GetObjectItemCaseSensitive(root, "sec");
	rows = cJSON_GetObjectItemCaseSensitive(sec, "rows");
	ck_assert_int_eq(cJSON_GetArraySize(rows), 10);
	ck_assert(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 4), "i")->valuedouble == 4.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 5), "i")->valuedouble == 95.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(sec, "rows_omitted")->valuedouble == 90.0);
	cJSON_Delete(root);
	dc_buf_release(&b);
	dc_report_free(r);
}
END_TEST

START_TEST(test_table_shows_the_same_numbers)
{
	struct dc_report *r = sample();
	struct dc_render_opts o = {10};
	struct dc_buf b;

	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	/* 1610612736 / 2^30 = 1.5 GiB; 0.03221225472 s = 32.212 ms */
	ck_assert_msg(strstr(b.data, "\nA section\n=========\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "  bytes      1.500 GiB (1,610,612,736 B)\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "  time       32.212 ms\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "  bandwidth  50.000 GB/s\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "  algbw      n/a\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "  flag       yes\n") != NULL, "%s", b.data);
	/* a units row under the header; times of up to 0.099 s shown in ms */
	ck_assert_msg(strstr(b.data, "    index    time\n             [ms]\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "    ... 90 rows not shown (--all prints every row) ...\n") != NULL, "%s", b.data);
	ck_assert_msg(strstr(b.data, "       99  99.000\n") != NULL, "%s", b.data);
	dc_buf_release(&b);
	dc_report_free(r);
}
END_TEST

/* The seed's worked example through the ring experiment: both renderings
 * must carry 1,610,612,736 bytes per rank and 24 events. */
START_TEST(test_ring_table_and_json_agree)
{
	static const char *const sets[] = {"collective.ranks=4", "collective.message_size=1 GiB",
					   "cluster.intra_node.bandwidth=50 GB/s", "cluster.intra_node.latency=0"};
	struct dc_override ov[4];
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_run_info info = {"ring", "t.json", 7};
	const struct dc_experiment *exp = dc_experiment_find("ring");
	struct dc_report *r;
	struct dc_render_opts o = {0};
	struct dc_buf table, json;
	cJSON *root, *ring;

	ck_assert(exp != NULL);
	for (int i = 0; i < 4; i++)
		ov[i].text = sets[i];
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(dc_default_config, dc_default_config_len, "t.json", ov, 4, &cfg, &d), 0);
	r = dc_experiment_run(exp, &cfg, &info, &d);
	ck_assert(r != NULL);
	dc_buf_init(&table);
	dc_buf_init(&json);
	ck_assert_int_eq(dc_report_render_table(r, &o, &table), 0);
	ck_assert_int_eq(dc_report_render_json(r, &o, &json), 0);
	root = cJSON_ParseWithLength(json.data, json.len);
	ck_assert_msg(root != NULL, "JSON does not parse");
	ck_assert(cJSON_GetObjectItemCaseSensitive(root, "seed")->valuedouble == 7.0);
	ring = cJSON_GetObjectItemCaseSensitive(root, "ring");
	ck_assert(cJSON_GetObjectItemCaseSensitive(ring, "ranks")->valuedouble == 4.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(ring, "message_bytes")->valuedouble == 1073741824.0);
	ck_assert(cJSON_GetObjectItemCaseSensitive(ring, "bytes_sent_per_rank")->valuedouble == 1610612736.0);
	/* 6 x 2^28 B / 5e10 B/s; busbw = B = 50 GB/s when alpha = 0 (relative
	 * tolerance 1e-12) */
	ck_assert(fabs(cJSON_GetObjectItemCaseSensitive(ring, "time_s")->valuedouble - 0.03221225472) <= 1e-12 * 0.0322);
	ck_assert(fabs(cJSON_GetObjectItemCaseSensitive(ring, "busbw_GBps")->valuedouble - 50.0) <= 1e-12 * 50.0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ring, "events")), 24);
	ck_assert(strstr(table.data, "1.500 GiB (1,610,612,736 B)") != NULL);
	ck_assert(strstr(table.data, "32.212 ms") != NULL);
	ck_assert(strstr(table.data, "50.000 GB/s") != NULL);
	cJSON_Delete(root);
	dc_buf_release(&table);
	dc_buf_release(&json);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_fmt_double)
{
	char buf[64];
	dc_fmt_double(buf, sizeof(buf), 0.1);
	ck_assert_str_eq(buf, "0.1");
	dc_fmt_double(buf, sizeof(buf), 1.0 / 3.0);
	ck_assert_str_eq(buf, "0.3333333333333333");
	dc_fmt_double(buf, sizeof(buf), 5e10);
	ck_assert_str_eq(buf, "50000000000");
	dc_fmt_double(buf, sizeof(buf), 1.0 / 0.0);
	ck_assert_str_eq(buf, "null");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_json_carries_the_numbers);
	tcase_add_test(tc, test_table_shows_the_same_numbers);
	tcase_add_test(tc, test_ring_table_and_json_agree);
	tcase_add_test(tc, test_fmt_double);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
