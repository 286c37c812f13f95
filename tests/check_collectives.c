/* check_collectives.c - the nccl-tests-style sweep (--experiment
 * collectives) and --calibrate.
 *
 * The sweep: its rows are nccl-tests' sizes and counts (src/common.cu
 * setupArgs: float elements, all_gather's count per rank), algbw = S / t
 * and busbw = algbw x 2(p-1)/p as nccl-tests' doc/PERFORMANCE.md defines
 * them, the closing average the mean busbw; checked against those
 * definitions, worked by hand, on the JSON the report prints.
 *
 * The calibration: fitted to the real 2 x 8 H100 log (NVIDIA/nccl-tests
 * issue #309, tests/data/README.md), every size of its sweep within 25%
 * and the median within 10%, the prediction recomputed here through
 * net.h from the config the fit wrote, the measurement read from the log.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/calibrate.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/net.h"
#include "distcalc/nccl_log.h"
#include "distcalc/report.h"

#define CONFIG DC_SOURCE_DIR "/tests/inputs/dgx_h100_2x8.json"
#define LOG DC_SOURCE_DIR "/tests/data/nccl-tests-h100-2x8-ib.txt"

static void load(struct dc_config *cfg, const char *set1, const char *set2)
{
	struct dc_override ov[2] = {{set1}, {set2}};
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_file(CONFIG, ov, set2 ? 2 : set1 ? 1 : 0, cfg, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "");
	dc_diag_release(&d);
}

/* The JSON report of `exp` on cfg (parsed; the caller deletes it). */
static cJSON *run_json(const char *exp, const struct dc_config *cfg, const struct dc_calibration *cal)
{
	struct dc_run_info info = {exp, "t.json", 0, NULL, cal};
	struct dc_render_opts ro = {0, 100};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r;
	cJSON *root;
	dc_diag_init(&d);
	r = dc_experiment_run(dc_experiment_find(exp), cfg, &info, &d);
	ck_assert_msg(r != NULL, "%s", d.count ? d.entries[0].text : "");
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_json(r, &ro, &b), 0);
	root = cJSON_ParseWithLength(b.data, b.len);
	ck_assert_ptr_nonnull(root);
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
	return root;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	ck_assert_msg(cJSON_IsNumber(v), "%s is not a number", k);
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	ck_assert_msg(cJSON_IsString(v), "%s is not a string", k);
	return v->valuestring;
}

/* -b 8 -e 8G -f 2 on 16 ranks: 31 sizes 8 B .. 8 GiB, count = S / 4,
 * busbw = algbw x 2(16-1)/16 = 1.875 algbw, the average their mean. */
START_TEST(all_reduce_sweep)
{
	static struct dc_config cfg;
	cJSON *root, *sec, *rows, *row;
	double sum = 0;
	int i = 0;
	load(&cfg, NULL, NULL);
	root = run_json("collectives", &cfg, NULL);
	sec = cJSON_GetObjectItemCaseSensitive(root, "collectives");
	ck_assert_ptr_nonnull(sec);
	ck_assert_str_eq(str(sec, "binary"), "all_reduce_perf");
	ck_assert_double_eq(num(sec, "ranks"), 16);
	rows = cJSON_GetObjectItemCaseSensitive(sec, "rows");
	ck_assert_int_eq(cJSON_GetArraySize(rows), 31);
	cJSON_ArrayForEach(row, rows) {
		double S = 8.0 * ldexp(1.0, i), t = num(row, "time_s"), alg = num(row, "algbw_GBps");
		ck_assert_double_eq(num(row, "size_bytes"), S);
		ck_assert_double_eq(num(row, "count"), S / 4);
		ck_assert_str_eq(str(row, "type"), "float");
		ck_assert_str_eq(str(row, "redop"), "sum");
		ck_assert_str_eq(str(row, "root"), "-1");
		ck_assert(t > 0);
		ck_assert_double_eq_tol(alg, S / t / 1e9, 1e-12 * alg);
		ck_assert_double_eq_tol(num(row, "busbw_GBps"), 1.875 * alg, 1e-12 * alg);
		ck_assert(strlen(str(row, "algorithm")) > 0 && strlen(str(row, "protocol")) > 0);
		sum += num(row, "busbw_GBps");
		i++;
	}
	ck_assert_double_eq_tol(num(sec, "avg_busbw_GBps"), sum / 31, 1e-12 * sum);
	cJSON_Delete(root);
}
END_TEST

/* all_gather on 16 ranks from 8 B: nccl-tests' count is per rank, S / 4 /
 * 16 rounded down to a multiple of 16 bytes (4 floats; nccl-tests
 * src/all_gather.cu since 2.19.3), and the size printed count x 4 x 16 (0
 * below 256 B); alltoall rounds the same way. */
START_TEST(per_rank_counts)
{
	static struct dc_config cfg;
	cJSON *root, *rows, *row;
	load(&cfg, "collective.op=all_gather", "collective.max_bytes=4 KiB");
	root = run_json("collectives", &cfg, NULL);
	rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "rows");
	ck_assert_int_eq(cJSON_GetArraySize(rows), 10); /* 8 .. 4096 */
	row = cJSON_GetArrayItem(rows, 0);              /* 8 B: 2 floats, 0 per rank */
	ck_assert_double_eq(num(row, "size_bytes"), 0);
	ck_assert_double_eq(num(row, "count"), 0);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "time_s")));
	row = cJSON_GetArrayItem(rows, 4); /* 128 B: 32 floats, 2 per rank, 8 B: rounded to 0 */
	ck_assert_double_eq(num(row, "size_bytes"), 0);
	ck_assert_double_eq(num(row, "count"), 0);
	row = cJSON_GetArrayItem(rows, 5); /* 256 B: 64 floats, 4 per rank (16 B) */
	ck_assert_double_eq(num(row, "size_bytes"), 256);
	ck_assert_double_eq(num(row, "count"), 4);
	ck_assert_str_eq(str(row, "redop"), "none");
	row = cJSON_GetArrayItem(rows, 9); /* 4096 B: 64 per rank, busbw = algbw x 15/16 */
	ck_assert_double_eq(num(row, "count"), 64);
	ck_assert_double_eq_tol(num(row, "busbw_GBps"), num(row, "algbw_GBps") * 15.0 / 16.0, 1e-12);
	cJSON_Delete(root);
	load(&cfg, "collective.op=all_to_all", "collective.max_bytes=1 KiB");
	root = run_json("collectives", &cfg, NULL);
	rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "rows");
	row = cJSON_GetArrayItem(rows, 5); /* 256 B: 64 floats, 4 per rank */
	ck_assert_double_eq(num(row, "count"), 4);
	ck_assert_double_eq(num(row, "size_bytes"), 256);
	row = cJSON_GetArrayItem(rows, 4); /* 128 B: 32 floats, 2 per rank, rounded down to 0 */
	ck_assert_double_eq(num(row, "count"), 0);
	cJSON_Delete(root);
	/* collective.dtype double (-d double): 8-byte elements, 16 B = 2 of
	 * them; 128 B on 16 ranks is 1 per rank, rounded to 0; 256 B is 2 */
	load(&cfg, "collective.op=reduce_scatter", "collective.dtype=double");
	root = run_json("collectives", &cfg, NULL);
	rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "rows");
	row = cJSON_GetArrayItem(rows, 4);
	ck_assert_str_eq(str(row, "type"), "double");
	ck_assert_double_eq(num(row, "count"), 0);
	row = cJSON_GetArrayItem(rows, 5);
	ck_assert_double_eq(num(row, "count"), 2);
	ck_assert_double_eq(num(row, "size_bytes"), 256);
	cJSON_Delete(root);
	load(&cfg, "collective.op=broadcast", "collective.max_bytes=8");
	root = run_json("collectives", &cfg, NULL);
	rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "rows");
	ck_assert_str_eq(str(cJSON_GetArrayItem(rows, 0), "root"), "0");
	cJSON_Delete(root);
}
END_TEST

/* The median of n values (sorted in place). */
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

START_TEST(calibrate_reference_log)
{
	static struct dc_config cfg, before;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	struct dc_net net;
	struct dc_net_group g;
	const char *names[] = {LOG};
	double err[64], worst = 0;
	size_t n = 0;
	cJSON *root, *sec, *cl;

	load(&cfg, NULL, NULL);
	before = cfg;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(LOG, &log, &d), 0);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert(cal.fit_intra && cal.fit_inter); /* 8 ranks on each of 2 hosts */
	ck_assert_uint_eq(cal.npoints, 32);
	/* the fit is applied to the config */
	ck_assert(cfg.cluster.intra_node.bw_bytes_per_s == cal.intra_after.bw_bytes_per_s);
	ck_assert(cfg.cluster.inter_node.latency_s == cal.inter_after.latency_s);
	ck_assert(before.cluster.intra_node.bw_bytes_per_s == cal.intra_before.bw_bytes_per_s);
	/* every size, priced again through net.h on the fitted config */
	dc_net_init(&cfg, &net);
	net.algorithm = DC_NET_ALGO_AUTO;
	dc_net_group_ranks(&net, 0, 1, 16, &g);
	for (size_t i = 0; i < log.nrows; i++) {
		struct dc_net_choice c;
		const struct dc_nccl_row *r = &log.rows[i];
		double measured = r->time_s[0] < r->time_s[1] ? r->time_s[0] : r->time_s[1];
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, r->size_bytes, DC_NET_ALGO_AUTO, &c), 0);
		err[n] = fabs(c.time_s / measured - 1);
		ck_assert_msg(err[n] <= 0.25, "%llu B: predicted %.2f us, measured %.2f us (%.1f%%)",
			      (unsigned long long)r->size_bytes, c.time_s * 1e6, measured * 1e6, 100 * err[n]);
		ck_assert_double_eq_tol(cal.points[i].error, c.time_s / measured - 1, 1e-12);
		worst = err[n] > worst ? err[n] : worst;
		n++;
	}
	qsort(err, n, sizeof(err[0]), cmp);
	ck_assert_msg(0.5 * (err[15] + err[16]) <= 0.10, "median |error| %.1f%%", 50 * (err[15] + err[16]));
	ck_assert_double_eq_tol(cal.median_abs_error, 0.5 * (err[15] + err[16]), 1e-12);
	ck_assert_double_eq_tol(cal.max_abs_error, worst, 1e-12);
	/* the report: the calibration section after the experiment's, its
	 * cluster object ready to paste */
	root = run_json("ring", &cfg, &cal);
	sec = cJSON_GetObjectItemCaseSensitive(root, "calibration");
	ck_assert_ptr_nonnull(sec);
	ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(root, "ring"));
	cl = cJSON_GetObjectItemCaseSensitive(sec, "cluster");
	ck_assert_str_eq(str(cl, "system"), "dgx-h100");
	ck_assert_ptr_nonnull(strstr(str(cJSON_GetObjectItemCaseSensitive(cl, "inter_node"), "bandwidth"), " GB/s"));
	ck_assert_ptr_nonnull(strstr(str(cJSON_GetObjectItemCaseSensitive(cl, "intra_node"), "latency"), " us"));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sec, "sizes")), 32);
	cJSON_Delete(root);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* The pasted cluster object loads back to the fitted links. */
START_TEST(paste_round_trip)
{
	static struct dc_config cfg, again;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {LOG};
	char *text, json[4096];
	cJSON *root, *cl;
	load(&cfg, NULL, NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(LOG, &log, &d), 0);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	root = run_json("ring", &cfg, &cal);
	cl = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "calibration"), "cluster");
	text = cJSON_PrintUnformatted(cl);
	snprintf(json, sizeof(json),
		 "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32, "
		 "\"vocab_size\": 32000, \"seq_length\": 4096}, \"cluster\": %s}",
		 text);
	free(text);
	ck_assert_msg(dc_config_load_buffer(json, strlen(json), "pasted.json", NULL, 0, &again, &d) == 0, "%s: %s",
		      json, d.count ? d.entries[0].text : "");
	/* %.6g: six significant digits */
	ck_assert_double_eq_tol(again.cluster.intra_node.bw_bytes_per_s, cfg.cluster.intra_node.bw_bytes_per_s,
				1e-5 * cfg.cluster.intra_node.bw_bytes_per_s);
	ck_assert_double_eq_tol(again.cluster.inter_node.latency_s, cfg.cluster.inter_node.latency_s,
				1e-5 * cfg.cluster.inter_node.latency_s);
	ck_assert_int_eq(again.cluster.nvls, cfg.cluster.nvls);
	ck_assert_uint_eq(again.cluster.nics_per_node, cfg.cluster.nics_per_node);
	cJSON_Delete(root);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* Two logs fit together: every row of both, each priced on its own shape. */
START_TEST(calibrate_two_logs)
{
	static struct dc_config cfg;
	struct dc_nccl_log logs[2];
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {LOG, DC_SOURCE_DIR "/tests/data/all_gather_perf-synthetic-1x8.txt"};
	load(&cfg, NULL, NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(names[0], &logs[0], &d), 0);
	ck_assert_int_eq(dc_nccl_log_read(names[1], &logs[1], &d), 0);
	ck_assert_int_eq(dc_calibrate(&cfg, logs, names, 2, &cal, &d), 0);
	ck_assert_uint_eq(cal.nlogs, 2);
	ck_assert_uint_eq(cal.npoints, 32 + 9);
	ck_assert_uint_eq(cal.points[32].log, 1);
	ck_assert_uint_eq(cal.points[32].size_bytes, 1024);
	ck_assert_uint_eq(cal.logs[1].ranks, 8);
	ck_assert_uint_eq(cal.logs[1].nodes, 1);
	ck_assert_uint_eq(d.count, 0); /* both logs ran 8 ranks per host, as the config's nodes */
	dc_calibration_release(&cal);
	/* a config of 4 GPUs per node (the preset keeps 8 NICs): warned that the hosts use its NICs */
	load(&cfg, "cluster.gpus_per_node=4", "cluster.num_nodes=4");
	ck_assert_int_eq(dc_calibrate(&cfg, logs, names, 1, &cal, &d), 0);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_int_eq(d.entries[0].severity, DC_SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "'--calibrate': the log ran 8 ranks per host, the config has 4 "
							"GPUs per node; its hosts are priced with the config's 8 NICs per node"));
	dc_calibration_release(&cal);
	dc_nccl_log_release(&logs[0]);
	dc_nccl_log_release(&logs[1]);
	dc_diag_release(&d);
}
END_TEST

START_TEST(calibrate_refuses)
{
	static struct dc_config cfg, before;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"reduce_perf.txt"};
	static const char text[] =
		"# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] X\n"
		"#  Rank  1 Group  0 Pid    100 on          a device  1 [0000:19:00] X\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"           8             2     float     sum       0    20.00    0.00    0.00      0    21.00    0.00    0.00      0\n"
		"# Avg bus bandwidth    : 0 \n";
	load(&cfg, NULL, NULL);
	before = cfg;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_parse(text, strlen(text), "reduce_perf.txt", &log, &d), 0);
	ck_assert_int_eq(log.op, DC_NCCL_REDUCE);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), -1);
	ck_assert_str_eq(d.entries[0].text,
			 "reduce_perf.txt: error: '--calibrate': the network model prices no Reduce; calibrate with "
			 "all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf or "
			 "sendrecv_perf logs");
	ck_assert(memcmp(&cfg, &before, sizeof(cfg)) == 0); /* nothing applied */
	ck_assert_ptr_null(cal.points);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("collectives");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, all_reduce_sweep);
	tcase_add_test(tc, per_rank_counts);
	tcase_add_test(tc, calibrate_reference_log);
	tcase_add_test(tc, paste_round_trip);
	tcase_add_test(tc, calibrate_two_logs);
	tcase_add_test(tc, calibrate_refuses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
