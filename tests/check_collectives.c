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
 * issue #309, tests/data/README.md), every size of its sweep within 20%
 * and the median within 8% (the bar), the prediction recomputed
 * here through net.h from the config the fit wrote, the measurement read
 * from the log; then the fit on synthetic logs generated from known
 * parameters: recovered, NVLink kept, NCCL_ALGO used, each warning.
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
		/* two rows by hand (check_net test_small_messages_take_a_low_latency_protocol,
		 * test_ll_ceiling_bounds_every_channel): 8 B and 8 KiB run the
		 * tree's LL, 6.8 us + 2 x (7 x 0.6 + 5.0) us = 25.2 us of latency,
		 * 8 B at one channel of 16 of LL's 19.5 GB/s, 8 KiB at 2 of 16
		 * and LL's size factor 0.7 at 128 x 64 B */
		if (i == 0 || i == 10) {
			double want = i == 0 ? 25.2e-6 + 8.0 / (19.5e9 / 16) : 25.2e-6 + 8192.0 / (19.5e9 * 2 / 16 * 0.7);
			ck_assert_str_eq(str(row, "algorithm"), "tree");
			ck_assert_str_eq(str(row, "protocol"), "LL");
			ck_assert_msg(fabs(t / want - 1) < 1e-12, "row %d: %.9g s, want %.9g", i, t, want);
		}
		sum += num(row, "busbw_GBps");
		i++;
	}
	ck_assert_double_eq_tol(num(sec, "avg_busbw_GBps"), sum / 31, 1e-12 * sum);
	cJSON_Delete(root);
}
END_TEST

/* sendrecv_perf on the course cluster (configs/systems.json: 2 nodes x 4
 * GPUs, one 400 Gb/s NIC a node, 10 us, 8 ranks): rank r sends to r + 1
 * and receives from r - 1 (nccl-tests src/sendrecv.cu), so 3 -> 4 and
 * 7 -> 0 are the only sends that leave a node, one a direction on each
 * NIC: the slowest rank sends 1 GiB at the NIC's 50 GB/s, after the
 * ring's Simple start-up (8.4 us, docs/network-model.md "Protocols") and
 * the network hop (the config's 10 us): 8.4 + 10 + 2^30 / 50e9 s =
 * 21,493.24 us, busbw = algbw (sendrecv's factor 1). The same with a NIC
 * per GPU (nics_per_node 4): each crossing send still has one NIC. Priced
 * as the node's four ranks sharing the one NIC it was 4x slower (a
 * student trial). With two NICs a GPU (nics_per_node 8, as aws-p5's 4 EFA
 * NICs a GPU) the crossing send stripes over its GPU's two: 100 GB/s,
 * 8.4 + 10 us + 2^30 / 100e9 s = 10,755.82 us (one NIC alone, 21.49 ms,
 * was a review's catch). */
START_TEST(send_recv_one_flow_per_node)
{
	static struct dc_config cfg;
	static const char *const nics[] = {"cluster.nics_per_node=1", "cluster.nics_per_node=4",
					   "cluster.nics_per_node=8"};
	for (size_t k = 0; k < 3; k++) {
		const double want = 8.4e-6 + 10e-6 + 1073741824.0 / (k == 2 ? 100e9 : 50e9);
		struct dc_override ov[] = {{"collective.op=send_recv"}, {"collective.min_bytes=1 GiB"},
					   {"collective.max_bytes=1 GiB"}, {nics[k]}};
		struct dc_diag d;
		cJSON *root, *rows, *row;
		dc_diag_init(&d);
		ck_assert_msg(dc_config_load_file(DC_SOURCE_DIR "/configs/systems.json", ov, 4, &cfg, &d) == 0, "%s",
			      d.count ? d.entries[0].text : "");
		dc_diag_release(&d);
		root = run_json("collectives", &cfg, NULL);
		rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "rows");
		ck_assert_int_eq(cJSON_GetArraySize(rows), 1);
		row = cJSON_GetArrayItem(rows, 0);
		ck_assert_str_eq(str(row, "algorithm"), "p2p");
		ck_assert_str_eq(str(row, "protocol"), "Simple");
		ck_assert_msg(fabs(num(row, "time_s") / want - 1) < 1e-12, "%s: %.9g s, want %.9g", nics[k],
			      num(row, "time_s"), want);
		ck_assert_double_eq_tol(num(row, "busbw_GBps"), num(row, "algbw_GBps"), 1e-12);
		cJSON_Delete(root);
	}
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
	{
		/* the average over all 10 rows, the 5 empty ones (8 .. 128 B)
		 * counting 0, as nccl-tests' common.cu counts every row it
		 * prints (a trial found them left out: the mean of the 5 that
		 * move bytes) */
		double sum = 0;
		for (int i = 5; i < 10; i++)
			sum += num(cJSON_GetArrayItem(rows, i), "busbw_GBps");
		ck_assert(sum > 0);
		ck_assert_double_eq_tol(num(cJSON_GetObjectItemCaseSensitive(root, "collectives"), "avg_busbw_GBps"),
					sum / 10, 1e-12 * sum);
	}
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
	/* 8 ranks on each of 2 hosts: the network is fitted, NVLink kept */
	ck_assert(!cal.fit_intra && cal.fit_inter && cal.nvlink_kept);
	ck_assert(cfg.cluster.intra_node.bw_bytes_per_s == before.cluster.intra_node.bw_bytes_per_s);
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
		ck_assert_msg(err[n] <= 0.20, "%llu B: predicted %.2f us, measured %.2f us (%.1f%%)",
			      (unsigned long long)r->size_bytes, c.time_s * 1e6, measured * 1e6, 100 * err[n]);
		ck_assert_double_eq_tol(cal.points[i].error, c.time_s / measured - 1, 1e-12);
		worst = err[n] > worst ? err[n] : worst;
		n++;
	}
	qsort(err, n, sizeof(err[0]), cmp);
	ck_assert_msg(0.5 * (err[15] + err[16]) <= 0.08, "median |error| %.1f%%", 50 * (err[15] + err[16]));
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
	/* both logs ran 8 ranks per host, as the config's nodes: no warning
	 * but the fit's own (with the pick made on every channel it holds
	 * NVLink at the hardware's rate and misses the synthetic log's 1 KiB
	 * row by 26.5%) */
	ck_assert_uint_eq(d.count, cal.nwarnings);
	for (size_t i = 0; i < d.count; i++)
		ck_assert_msg(!strstr(d.entries[i].text, "ranks per host"), "%s", d.entries[i].text);
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	dc_diag_init(&d);
	/* a config of 4 GPUs per node (the preset keeps 8 NICs): warned that the hosts use its NICs */
	load(&cfg, "cluster.gpus_per_node=4", "cluster.num_nodes=4");
	ck_assert_int_eq(dc_calibrate(&cfg, logs, names, 1, &cal, &d), 0);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_int_eq(d.entries[0].severity, DC_SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "'--calibrate': the log ran 8 ranks per host, the config has 4 "
							"GPUs per node (cluster.gpus_per_node); its hosts are priced with "
							"the config's 8 NICs per node (cluster.nics_per_node)"));
	/* the keys named, and the value that fits the log's hosts */
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "give --set cluster.gpus_per_node=8"));
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

/* ---- the fit on synthetic logs: generated from known parameters ---- */

/* Writes an nccl-tests all_reduce log of `nodes` x `gpn` ranks, 8 B to
 * 16 GiB by 2, each time the model's on `truth` (forced to `algo`, AUTO
 * for its choice), times `spoil` on every other row when spoil > 0;
 * `env` (a line such as "NCCL_ALGO=Ring") before the header when given. */
static unsigned synth_protocols; /* the generating model's NCCL_PROTO mask (net.h); 0: all */

static void synth_log(const struct dc_config *truth, uint64_t nodes, uint64_t gpn, enum dc_net_algo algo,
		      const char *env, double spoil, struct dc_nccl_log *log)
{
	static char text[1 << 16];
	size_t at = 0;
	struct dc_net net;
	struct dc_net_group g;
	struct dc_diag d;
	dc_net_init(truth, &net);
	net.algorithm = DC_NET_ALGO_AUTO;
	net.protocols = synth_protocols;
	if (net.num_nodes < nodes)
		net.num_nodes = nodes;
	dc_net_group_ranks(&net, 0, 1, nodes * gpn, &g);
	if (env)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s\n", env);
	at += (size_t)snprintf(text + at, sizeof(text) - at,
			       "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 "
			       "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n");
	for (uint64_t r = 0; r < nodes * gpn; r++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "#  Rank %2llu Group  0 Pid %6llu on     node-%llu device %2llu [0000:19:00] NVIDIA "
				       "H100 80GB HBM3\n",
				       (unsigned long long)r, (unsigned long long)(1000 + r), (unsigned long long)(r / gpn),
				       (unsigned long long)(r % gpn));
	at += (size_t)snprintf(text + at, sizeof(text) - at,
			       "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     "
			       "time   algbw   busbw #wrong\n");
	for (int i = 0; i < 32; i++) {
		uint64_t S = 8ull << i;
		struct dc_net_choice c;
		double t, alg, bus;
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, S, algo, &c), 0);
		t = c.time_s * 1e6 * (spoil > 0 && i % 2 ? spoil : 1.0);
		/* the bandwidths as nccl-tests prints them: algbw = S / t,
		 * busbw = algbw x 2(n-1)/n (doc/PERFORMANCE.md) */
		alg = (double)S / (t * 1e3);
		bus = alg * 2.0 * (double)(nodes * gpn - 1) / (double)(nodes * gpn);
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "%12llu %12llu     float     sum      -1 %10.4f %6.2f %6.2f      0 %10.4f %6.2f %6.2f"
				       "      0\n",
				       (unsigned long long)S, (unsigned long long)(S / 4), t, alg, bus, t, alg, bus);
	}
	at += (size_t)snprintf(text + at, sizeof(text) - at, "# Avg bus bandwidth    : 0 \n");
	ck_assert(at < sizeof(text));
	dc_diag_init(&d);
	ck_assert_msg(dc_nccl_log_parse(text, at, "all_reduce_perf.txt", log, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "");
	dc_diag_release(&d);
}

/* The 2 x 8 H100 preset with 2 NICs a node (the network, 100 GB/s a node,
 * is then slower than NVLink's 370.8) and no NVLS. */
static void two_nic_config(struct dc_config *cfg)
{
	load(cfg, "cluster.nics_per_node=2", "cluster.nvls=false");
}

static int has_warning(const struct dc_calibration *cal, const char *part)
{
	for (size_t i = 0; i < cal->nwarnings; i++)
		if (strstr(cal->warnings[i], part))
			return 1;
	return 0;
}

/* Known parameters in, the same out: a NIC of 40 GB/s, 10 us a network
 * hop and a ramp across nodes of 0.6, 0.8, 0.5, 0.7, 0.9 at 8 KiB, 128 KiB,
 * 2 MiB, 32 MiB and 512 MiB generate the log; the fit starts from the
 * preset's 50 GB/s, 14 us and no ramp. The data are exact, so the fit
 * finds them up to the weak prior's pull: the NIC within 2%, the latency
 * within 5%, the knots from 128 KiB up (where the bytes take 10% or more
 * of a call) within 0.05; every size within 2% (the 8 KiB knot, under
 * the latency, is left near the prior's 1). */
START_TEST(calibrate_recovers_known_parameters)
{
	static struct dc_config cfg, truth;
	static const double ramp[DC_NET_RAMP_KNOTS] = {0.6, 0.8, 0.5, 0.7, 0.9};
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"synthetic-2x8.txt"};
	two_nic_config(&cfg);
	truth = cfg;
	truth.cluster.inter_node.bw_bytes_per_s = 40e9;
	truth.cluster.inter_node.latency_s = 10e-6;
	memcpy(truth.cluster.bw_ramp[1], ramp, sizeof(ramp));
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_msg(fabs(cfg.cluster.inter_node.bw_bytes_per_s / 40e9 - 1) < 0.02, "NIC %.3f GB/s",
		      cfg.cluster.inter_node.bw_bytes_per_s / 1e9);
	ck_assert_msg(fabs(cfg.cluster.inter_node.latency_s / 10e-6 - 1) < 0.05, "hop %.3f us",
		      cfg.cluster.inter_node.latency_s * 1e6);
	for (int k = 1; k < DC_NET_RAMP_KNOTS; k++)
		ck_assert_msg(fabs(cfg.cluster.bw_ramp[1][k] - ramp[k]) < 0.05, "knot %d: %.3f, not %.3f", k,
			      cfg.cluster.bw_ramp[1][k], ramp[k]);
	ck_assert_msg(cal.max_abs_error < 0.02, "largest |error| %.2f%%", 100 * cal.max_abs_error);
	ck_assert_uint_eq(cal.nwarnings, 0);
	ck_assert_uint_eq(d.count, 0);
	/* InfiniBand's plugin adds nothing: the fit leaves it within 1 us */
	ck_assert_msg(cal.plugin_after < 1e-6, "plugin %.3f us", cal.plugin_after * 1e6);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* a fabric whose plugin adds 50 us a network hop (GCP's TCPX floors
	 * of 123 us want about that): an 8-byte AllReduce on 2 x 8 is then
	 * 6.8 + 2 x (7 x 0.6 + 5.0 + 50) = 125.2 us by the tree's LL (network-
	 * model.md), which no hop of 20 us or less reaches; the fit finds the
	 * plugin's 50 us within 5%, every size within 2%, no warning */
	two_nic_config(&cfg);
	truth = cfg;
	truth.cluster.plugin_latency_fitted = 1;
	truth.cluster.plugin_latency_s = 50e-6;
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	ck_assert_double_eq_tol(log.rows[0].time_s[0], 125.2e-6, 5e-9); /* + 8 B at the LL rate, ~1 ns */
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_msg(fabs(cal.plugin_after / 50e-6 - 1) < 0.05, "plugin %.3f us", cal.plugin_after * 1e6);
	ck_assert_msg(cal.max_abs_error < 0.02, "largest |error| %.2f%%", 100 * cal.max_abs_error);
	ck_assert_uint_eq(cal.nwarnings, 0);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* an InfiniBand log (no plugin latency) fitted on a config that says
	 * EFA, whose plugin adds a published 20 us a hop: the fit takes the
	 * latency down near 0 and says the log may be another fabric's */
	two_nic_config(&truth);
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	two_nic_config(&cfg);
	cfg.cluster.network = DC_NETWORK_EFA;
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_msg(cal.plugin_after < 5e-6, "plugin %.3f us", cal.plugin_after * 1e6);
	ck_assert(has_warning(&cal, "the fit moved the network plugin's latency from 20.00 us (cluster.network \"efa\")"));
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* Multi-node logs alone leave NVLink as configured (bit for bit); a
 * one-node log (here generated at 300 GB/s and 2 us a hop) fits it. The
 * NIC at 35 GB/s: 2 x 35 x 0.92 = 64.4 GB/s of tree, under the four
 * channels' cap of 4 x 41.4 / 2 = 82.8 (above it the NIC would not show). */
START_TEST(calibrate_keeps_nvlink)
{
	static struct dc_config cfg, truth, before;
	struct dc_nccl_log logs[2];
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"synthetic-2x8.txt", "synthetic-1x8.txt"};
	two_nic_config(&cfg);
	before = cfg;
	truth = cfg;
	truth.cluster.inter_node.bw_bytes_per_s = 35e9;
	truth.cluster.intra_node.bw_bytes_per_s = 300e9;
	truth.cluster.intra_node.latency_s = 2e-6;
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &logs[0]);
	synth_log(&truth, 1, 8, DC_NET_ALGO_AUTO, NULL, 0, &logs[1]);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, logs, names, 1, &cal, &d), 0);
	ck_assert(cal.nvlink_kept && !cal.fit_intra && cal.fit_inter);
	ck_assert(memcmp(&cfg.cluster.intra_node, &before.cluster.intra_node, sizeof(cfg.cluster.intra_node)) == 0);
	for (int k = 0; k < DC_NET_RAMP_KNOTS; k++)
		ck_assert(cfg.cluster.bw_ramp[0][k] == 0); /* no ramp in one node */
	dc_calibration_release(&cal);
	cfg = before;
	ck_assert_int_eq(dc_calibrate(&cfg, logs, names, 2, &cal, &d), 0);
	ck_assert(!cal.nvlink_kept && cal.fit_intra && cal.fit_inter);
	ck_assert_msg(fabs(cfg.cluster.intra_node.bw_bytes_per_s / 300e9 - 1) < 0.03, "NVLink %.2f GB/s",
		      cfg.cluster.intra_node.bw_bytes_per_s / 1e9);
	ck_assert_msg(fabs(cfg.cluster.inter_node.bw_bytes_per_s / 35e9 - 1) < 0.03, "NIC %.2f GB/s",
		      cfg.cluster.inter_node.bw_bytes_per_s / 1e9);
	ck_assert_msg(cal.max_abs_error < 0.02, "largest |error| %.2f%%", 100 * cal.max_abs_error);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&logs[0]);
	dc_nccl_log_release(&logs[1]);
	dc_diag_release(&d);
}
END_TEST

/* A log run with NCCL_ALGO=Ring is priced with the ring: every size of a
 * log the preset's ring generated fits within 1% with the preset's own
 * values, each size's algorithm "ring"; without the environment line the
 * same rows are priced with NCCL's choice (the tree and NVLS, faster at
 * most sizes) and miss. NCCL_ALGO's other forms: "^NVLS,Tree" on one node
 * leaves the ring and PAT; a per-op list takes the log's op; an unknown
 * name is refused. */
START_TEST(calibrate_uses_nccl_algo)
{
	static struct dc_config cfg, truth;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"ring.txt"};
	load(&cfg, NULL, NULL);
	truth = cfg;
	dc_diag_init(&d);
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring", 0, &log);
	ck_assert_str_eq(log.nccl_algo, "Ring");
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].algorithm, "ring");
	ck_assert_str_eq(cal.logs[0].algorithm_from, "NCCL_ALGO=Ring");
	for (size_t i = 0; i < cal.npoints; i++)
		ck_assert_str_eq(cal.points[i].algorithm, "ring");
	ck_assert_msg(cal.max_abs_error < 0.01, "largest |error| %.2f%%", 100 * cal.max_abs_error);
	ck_assert_msg(cal.max_abs_before < 1e-5, "before %.2g", cal.max_abs_before); /* the log's 4 decimals */
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* the same rows without the line: NCCL's choice (the tree at 8 B:
	 * 25.2 us against the ring's 6.6 + 2 x 2.7 + 28 x 1 = 40.0 us LL, see
	 * network-model.md) misses them before the fit */
	load(&cfg, NULL, NULL);
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, NULL, 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].algorithm, "auto");
	ck_assert_msg(cal.max_abs_before > 0.3, "before %.2f%%", 100 * cal.max_abs_before);
	ck_assert_str_eq(cal.points[0].algorithm, "tree");
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* exclusion on one node: NVLS and the tree out, the ring and PAT left */
	load(&cfg, NULL, NULL);
	synth_log(&truth, 1, 8, DC_NET_ALGO_RING, "export NCCL_ALGO=^NVLS,Tree", 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].algorithm, "ring, pat");
	ck_assert_str_eq(cal.points[31].algorithm, "ring");
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* per op: the log's all_reduce takes "tree" */
	load(&cfg, NULL, NULL);
	synth_log(&truth, 2, 8, DC_NET_ALGO_TREE, "NCCL_ALGO=allgather:ring;allreduce:tree", 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].algorithm, "tree");
	ck_assert_str_eq(cal.points[31].algorithm, "tree");
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* NCCL_PROTO=Simple as well: a ring of Simple at every size, so the
	 * 8-byte row is 8.4 + 28 x 3.4 (the NVLink hop, above the CPU's 3 us
	 * post of a Simple step) + 2 x 14 = 131.6 us, the plateau's 1.4 only
	 * from 64 B a channel and rank; with every protocol the ring's LL
	 * would be priced, 6.6 + 28 x 1 + 2 x 2.7 = 40 us, and miss */
	load(&cfg, NULL, NULL);
	synth_protocols = 1u << DC_NET_PROTO_SIMPLE;
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring\nNCCL_PROTO=Simple", 0, &log);
	synth_protocols = 0;
	ck_assert_double_eq_tol(log.rows[0].time_s[0], 131.6e-6, 5e-9);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].protocols, "Simple");
	ck_assert_str_eq(cal.points[0].protocol, "Simple");
	ck_assert_msg(cal.max_abs_before < 1e-5, "before %.2g", cal.max_abs_before);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* NCCL's first entry holds for every op, later ones for theirs:
	 * "Ring;allgather:tree" leaves the all_reduce log on the ring */
	load(&cfg, NULL, NULL);
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring;allgather:tree", 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].algorithm, "ring");
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* a collective NCCL does not know */
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=allreducex:ring", 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), -1);
	ck_assert_ptr_nonnull(strstr(d.entries[d.count - 1].text, "'allreducex' is not one of NCCL's collectives"));
	dc_nccl_log_release(&log);
	/* an unknown name */
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring,Spiral", 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), -1);
	ck_assert_str_eq(d.entries[d.count - 1].text,
			 "ring.txt: error: '--calibrate': the log's NCCL_ALGO=Ring,Spiral: 'spiral' is not one of Ring, "
			 "Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* NCCL_ALGO as NCCL's parseList (src/graph/tuning.cc) reads it: an empty
 * ';' entry is skipped (strtok_r), the prefixes are ncclFuncStr's five
 * collectives, and every entry's names are checked, not only the log's
 * own op's; a list of any length up to the log's field is read whole. */
START_TEST(calibrate_nccl_algo_entries)
{
	static struct dc_config cfg, truth;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"ring.txt"};
	static const struct {
		const char *env, *algorithm;
	} ok[] = {
		{"NCCL_ALGO=allreduce:tree;", "tree"},
		{"NCCL_ALGO=ring;;allreduce:tree", "tree"},
		/* 46 bytes: cut at 31 it named no allreduce entry and fitted "auto" */
		{"NCCL_ALGO=allgather:ring,nvls;reduce:ring;allreduce:ring", "ring"},
	};
	static const struct {
		const char *env, *why;
	} bad[] = {
		{"NCCL_ALGO=sendrecv:ring;allreduce:ring", "'sendrecv' is not one of NCCL's collectives"},
		{"NCCL_ALGO=send:ring", "'send' is not one of NCCL's collectives"},
		{"NCCL_ALGO=reducescatter:simple;allreduce:ring", "'simple' is not one of Ring, Tree"},
		{"NCCL_ALGO=allreduce:", "'allreduce:' names nothing after its collective"},
		{"NCCL_ALGO=;ring", "'ring': every entry but the first needs a collective"},
	};
	load(&cfg, NULL, NULL);
	truth = cfg;
	dc_diag_init(&d);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		synth_log(&truth, 2, 8, strcmp(ok[i].algorithm, "tree") == 0 ? DC_NET_ALGO_TREE : DC_NET_ALGO_RING,
			  ok[i].env, 0, &log);
		ck_assert_str_eq(log.nccl_algo, ok[i].env + strlen("NCCL_ALGO="));
		ck_assert_msg(dc_calibrate(&cfg, &log, names, 1, &cal, &d) == 0, "%s: %s", ok[i].env,
			      d.count ? d.entries[d.count - 1].text : "");
		ck_assert_str_eq(cal.logs[0].algorithm, ok[i].algorithm);
		ck_assert_str_eq(cal.logs[0].algorithm_from, ok[i].env);
		dc_calibration_release(&cal);
		dc_nccl_log_release(&log);
		load(&cfg, NULL, NULL);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		synth_log(&truth, 2, 8, DC_NET_ALGO_RING, bad[i].env, 0, &log);
		ck_assert_msg(dc_calibrate(&cfg, &log, names, 1, &cal, &d) == -1, "%s accepted", bad[i].env);
		ck_assert_msg(strstr(d.entries[d.count - 1].text, bad[i].why) != NULL, "%s: %s", bad[i].env,
			      d.entries[d.count - 1].text);
		dc_nccl_log_release(&log);
	}
	/* a field with no NUL (a log not from the reader, which refuses a
	 * longer value): refused by the list's own length check */
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, NULL, 0, &log);
	memset(log.nccl_algo, 'r', sizeof(log.nccl_algo));
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), -1);
	ck_assert_ptr_nonnull(strstr(d.entries[d.count - 1].text, ": longer than 255 bytes"));
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* A log that ran under NCCL_ALGO=Ring is fitted as it ran; a run that
 * prices NCCL's own choice prices its sizes otherwise, and says so in a
 * note (naming the key that would price them as the log ran), not a
 * warning; a run forced to the ring says nothing. */
START_TEST(calibrate_restricted_log_note)
{
	static struct dc_config cfg, truth;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"ring.txt"};
	int seen = 0;
	load(&truth, NULL, NULL);
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring", 0, &log);
	load(&cfg, NULL, NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	for (size_t i = 0; i < cal.nnotes; i++)
		if (strstr(cal.notes[i], "ring.txt ran under NCCL_ALGO=Ring (ring), and its rows are fitted so") &&
		    strstr(cal.notes[i], "priced so only with collective.algorithm set to it"))
			seen = 1;
	ck_assert_msg(seen, "no note of the log's NCCL_ALGO among %zu notes", cal.nnotes);
	/* a note, not a warning: the fitted links hold */
	for (size_t i = 0; i < cal.nwarnings; i++)
		ck_assert_msg(!strstr(cal.warnings[i], "ran under"), "%s", cal.warnings[i]);
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	load(&cfg, "collective.algorithm=ring", NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_uint_eq(cal.nnotes, 0);
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	dc_nccl_log_release(&log);
	/* a log under NCCL_PROTO=Simple,LL128 (the 8 B row on LL128, where
	 * every protocol prices LL): the note names the set to give, and with
	 * collective.protocols ["ll128", "simple"] the run prices the log's
	 * sizes as they ran: no note */
	synth_protocols = (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE);
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, "NCCL_PROTO=Simple,LL128", 0, &log);
	synth_protocols = 0;
	load(&cfg, NULL, NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	seen = 0;
	for (size_t i = 0; i < cal.nnotes; i++)
		if (strstr(cal.notes[i], "ring.txt ran under NCCL_PROTO (LL128, Simple)") &&
		    strstr(cal.notes[i], "priced so with collective.protocols [\"ll128\", \"simple\"]"))
			seen = 1;
	ck_assert_msg(seen, "no note of the log's NCCL_PROTO among %zu notes: %s", cal.nnotes,
		      cal.nnotes ? cal.notes[0] : "");
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	load(&cfg, "collective.protocols=[\"ll128\", \"simple\"]", NULL);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_uint_eq(cal.nnotes, 0);
	ck_assert_str_eq(cal.logs[0].protocols_from, "NCCL_PROTO");
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	dc_nccl_log_release(&log);
	/* the same cluster's log without NCCL_PROTO (set in its environment
	 * by other means): fitted on the config's set, as a log without
	 * NCCL_ALGO is on collective.algorithm; its 8 B row on LL128 then
	 * fits exactly, where every protocol would price LL there */
	synth_protocols = (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE);
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	synth_protocols = 0;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_str_eq(cal.logs[0].protocols, "LL128, Simple");
	ck_assert_str_eq(cal.logs[0].protocols_from, "collective.protocols");
	ck_assert_str_eq(cal.points[0].protocol, "LL128");
	ck_assert_uint_eq(cal.nnotes, 0);
	dc_calibration_release(&cal);
	dc_diag_release(&d);
	dc_nccl_log_release(&log);
}
END_TEST

/* Every allocation of the fit can fail: the n-th failing ends in "out
 * of memory" (DC_ERR_INTERNAL, -1), never in a fit that went on without
 * one of its starts and printed other numbers; past the last one the
 * fit is the one without injection. */
START_TEST(calibrate_out_of_memory)
{
	static struct dc_config cfg, truth;
	struct dc_nccl_log log;
	struct dc_calibration cal, clean;
	struct dc_diag d;
	const char *names[] = {"ring.txt"};
	unsigned long n;
	load(&cfg, NULL, NULL);
	truth = cfg;
	synth_log(&truth, 2, 8, DC_NET_ALGO_RING, "NCCL_ALGO=Ring", 0, &log);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &clean, &d), 0);
	dc_diag_release(&d);
	for (n = 1; n < 200; n++) {
		unsigned long failed = dc_alloc_failures();
		int rc;
		load(&cfg, NULL, NULL);
		dc_diag_init(&d);
		dc_alloc_fail_at(n);
		rc = dc_calibrate(&cfg, &log, names, 1, &cal, &d);
		dc_alloc_fail_at(0);
		if (dc_alloc_failures() == failed) {
			/* past the last allocation: the same fit */
			ck_assert_int_eq(rc, 0);
			ck_assert_double_eq(cal.objective, clean.objective);
			dc_calibration_release(&cal);
			dc_diag_release(&d);
			break;
		}
		ck_assert_msg(rc == -1, "allocation %lu failed and the fit went on", n);
		ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
		ck_assert_str_eq(d.entries[d.count - 1].text, "distcalc: error: out of memory");
		dc_diag_release(&d);
	}
	ck_assert_uint_lt(n, 200);
	ck_assert_uint_ge(n, 4); /* points, the row errors, then the fit's own */
	dc_calibration_release(&clean);
	dc_nccl_log_release(&log);
}
END_TEST

/* Each warning, on a log made to need it; the fitted value stays in its
 * physical range, and the section's verdict says not to paste. */
START_TEST(calibrate_warns)
{
	static struct dc_config cfg, truth;
	struct dc_nccl_log log;
	struct dc_calibration cal;
	struct dc_diag d;
	const char *names[] = {"synthetic.txt"};
	cJSON *root;
	dc_diag_init(&d);
	/* NVLink at twice the hardware's 370.8 GB/s, one node */
	load(&cfg, "cluster.nvls=false", NULL);
	truth = cfg;
	truth.cluster.intra_node.bw_bytes_per_s = 741.6e9;
	synth_log(&truth, 1, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_msg(has_warning(&cal, "NVLink (cluster.intra_node.bandwidth) at ") &&
			      has_warning(&cal, "above the hardware's 370.8 GB/s: held at 370.8 GB/s"),
		      "%s", cal.nwarnings ? cal.warnings[0] : "no warning");
	ck_assert_double_eq(cfg.cluster.intra_node.bw_bytes_per_s, 370.8e9); /* held at the cap, as said */
	ck_assert_uint_eq(d.count, cal.nwarnings);
	ck_assert_int_eq(d.entries[0].severity, DC_SEV_WARNING);
	root = run_json("ring", &cfg, &cal);
	ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(root, "calibration"), "verdict"),
			 "do not paste the cluster below as it is: see the warnings");
	cJSON_Delete(root);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* a NIC at 100 GB/s, the config's line rate 50 */
	two_nic_config(&cfg);
	truth = cfg;
	truth.cluster.inter_node.bw_bytes_per_s = 100e9;
	synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert_msg(has_warning(&cal, "above its line rate of 50.0 GB/s: held at 50.0 GB/s"), "%s",
		      cal.nwarnings ? cal.warnings[0] : "no warning");
	ck_assert_double_eq(cfg.cluster.inter_node.bw_bytes_per_s, 50e9);
	dc_calibration_release(&cal);
	dc_nccl_log_release(&log);
	/* a network hop of 40, 60, 80 and 100 us, 2 to 5 times what a hop can
	 * take: each warns, naming the latency the log was made with within
	 * 10% (the relaxed search starts again at 2, 5 and 20 times the bound:
	 * a pick made on every channel makes the price a step function of the
	 * latency, and one start stopped at 12.7 us for 60 us) */
	for (int k = 0; k < 4; k++) {
		static const double hop_us[] = {40, 60, 80, 100};
		double want = 0;
		const char *w = NULL;
		char kept[96];
		two_nic_config(&cfg);
		truth = cfg;
		truth.cluster.inter_node.latency_s = hop_us[k] * 1e-6;
		synth_log(&truth, 2, 8, DC_NET_ALGO_AUTO, NULL, 0, &log);
		ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
		for (size_t i = 0; i < cal.nwarnings && !w; i++)
			w = strstr(cal.warnings[i], "network hop latency (cluster.inter_node.latency) of ");
		/* the warning says what the fit keeps: the bound, or the value
		 * below it the bounded fit stopped at (it said "held at 20 us"
		 * over a fitted 12.7 us; a test audit's tightening found it) */
		snprintf(kept, sizeof(kept), cfg.cluster.inter_node.latency_s >= 20e-6 * (1 - 1e-9)
						      ? "above the 20 us a hop can take: held at 20 us"
						      : "above the 20 us a hop can take: the fit keeps %.1f us",
			 cfg.cluster.inter_node.latency_s * 1e6);
		ck_assert_msg(w && has_warning(&cal, kept), "%.0f us: want '%s' in %s", hop_us[k], kept,
			      cal.nwarnings ? cal.warnings[0] : "no warning");
		ck_assert_int_eq(sscanf(w + strlen("network hop latency (cluster.inter_node.latency) of "), "%lf", &want),
				 1);
		ck_assert_msg(fabs(want / hop_us[k] - 1) < 0.10, "%.0f us fitted as %.1f us", hop_us[k], want);
		ck_assert(cfg.cluster.inter_node.latency_s <= 20e-6);
		dc_calibration_release(&cal);
		dc_nccl_log_release(&log);
	}
	/* every other size 2.5 x slower: no model follows that */
	two_nic_config(&cfg);
	synth_log(&cfg, 2, 8, DC_NET_ALGO_AUTO, NULL, 2.5, &log);
	ck_assert_int_eq(dc_calibrate(&cfg, &log, names, 1, &cal, &d), 0);
	ck_assert(cal.max_abs_error > 0.25);
	ck_assert_msg(has_warning(&cal, "the largest residual, ") && has_warning(&cal, " of synthetic.txt, exceeds 25%"),
		      "%s", cal.nwarnings ? cal.warnings[0] : "no warning");
	dc_calibration_release(&cal);
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
	tcase_add_test(tc, send_recv_one_flow_per_node);
	tcase_add_test(tc, calibrate_reference_log);
	tcase_add_test(tc, paste_round_trip);
	tcase_add_test(tc, calibrate_two_logs);
	tcase_add_test(tc, calibrate_refuses);
	tcase_add_test(tc, calibrate_recovers_known_parameters);
	tcase_add_test(tc, calibrate_keeps_nvlink);
	tcase_add_test(tc, calibrate_uses_nccl_algo);
	tcase_add_test(tc, calibrate_nccl_algo_entries);
	tcase_add_test(tc, calibrate_restricted_log_note);
	tcase_add_test(tc, calibrate_out_of_memory);
	tcase_add_test(tc, calibrate_warns);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
