/* check_nccl_log.c - the nccl-tests log reader: the real 2 x 8 H100 log
 * (NVIDIA/nccl-tests issue #309, tests/data/README.md), the 2.13 layout,
 * the op worked out from the rows, and each bad log with its line. The
 * figures asserted are the log's own text, read by eye. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/nccl_log.h"

#define DATA DC_SOURCE_DIR "/tests/data/"
#define REAL DATA "nccl-tests-h100-2x8-ib.txt"

static void ck_rel(double got, double want, double rtol)
{
	ck_assert_msg(fabs(got - want) <= rtol * fabs(want), "got %.17g, want %.17g", got, want);
}

START_TEST(real_log)
{
	struct dc_nccl_log log;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(REAL, &log, &d), 0);
	/* the file name says nothing: the rows tell, size = count x 4 B, sum,
	 * root -1, busbw / algbw = 469.21 / 250.24 = 1.875 = 2(16-1)/16 */
	ck_assert_int_eq(log.op, DC_NCCL_ALL_REDUCE);
	ck_assert_str_eq(log.op_source, "the rows");
	ck_assert_uint_eq(log.nthread, 1);
	ck_assert_uint_eq(log.ngpus, 1);
	ck_assert_uint_eq(log.min_bytes, 8);
	ck_assert_uint_eq(log.max_bytes, 17179869184ull);
	ck_assert_uint_eq(log.ranks, 16);
	ck_assert_uint_eq(log.nodes, 2);
	ck_assert_uint_eq(log.ranks_per_node, 8);
	ck_assert_str_eq(log.device, "NVIDIA H100 80GB HBM3");
	ck_assert_str_eq(log.type, "float");
	ck_assert_uint_eq(log.type_bytes, 4);
	ck_assert_str_eq(log.redop, "sum");
	ck_assert_int_eq(log.root, -1);
	ck_assert_uint_eq(log.nrows, 32); /* 8 B .. 16 GiB by 2: 2^3 .. 2^34 */
	ck_assert_uint_eq(log.rows[0].line, 24);
	ck_assert_uint_eq(log.rows[0].size_bytes, 8);
	ck_assert_uint_eq(log.rows[0].count, 2);
	ck_rel(log.rows[0].time_s[DC_NCCL_OOP], 68.52e-6, 1e-12);
	ck_rel(log.rows[0].time_s[DC_NCCL_IP], 24.70e-6, 1e-12);
	ck_rel(dc_nccl_row_time_s(&log.rows[0]), 24.70e-6, 1e-12); /* the faster column */
	ck_assert_uint_eq(log.rows[31].size_bytes, 17179869184ull);
	ck_assert_uint_eq(log.rows[31].count, 4294967296ull);
	ck_rel(log.rows[31].time_s[DC_NCCL_OOP], 68652e-6, 1e-12);
	ck_rel(log.rows[31].algbw_GBps[DC_NCCL_OOP], 250.24, 1e-12);
	ck_rel(log.rows[31].busbw_GBps[DC_NCCL_IP], 469.10, 1e-12);
	ck_rel(dc_nccl_row_time_s(&log.rows[31]), 68652e-6, 1e-12);
	ck_rel(log.avg_busbw_GBps, 139.56, 1e-12);
	for (size_t i = 1; i < log.nrows; i++)
		ck_assert_uint_eq(log.rows[i].size_bytes, 2 * log.rows[i - 1].size_bytes);
	dc_nccl_log_release(&log);
	ck_assert_ptr_null(log.rows);
	dc_diag_release(&d);
}
END_TEST

/* Under the binary's name, the name tells. */
START_TEST(op_from_name)
{
	FILE *f = fopen(REAL, "rb");
	static char buf[1 << 16];
	size_t n;
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_parse(buf, n, "logs/all_reduce_perf.log", &log, &d), 0);
	ck_assert_int_eq(log.op, DC_NCCL_ALL_REDUCE);
	ck_assert_str_eq(log.op_source, "the file name");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

START_TEST(layout_2_13)
{
	struct dc_nccl_log log;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(DATA "all_gather_perf-synthetic-1x8.txt", &log, &d), 0);
	ck_assert_int_eq(log.op, DC_NCCL_ALL_GATHER);
	ck_assert_str_eq(log.op_source, "the 'Collective test starting' line");
	ck_assert_uint_eq(log.ranks, 8);
	ck_assert_uint_eq(log.nodes, 1);
	ck_assert_uint_eq(log.ranks_per_node, 8);
	ck_assert_str_eq(log.redop, "none");
	ck_assert_uint_eq(log.nrows, 9);
	/* all_gather prints size = count x 4 B x 8 ranks: 1024 B is 32 floats */
	ck_assert_uint_eq(log.rows[0].size_bytes, 1024);
	ck_assert_uint_eq(log.rows[0].count, 32);
	ck_rel(log.rows[8].time_s[DC_NCCL_OOP], 177.11e-6, 1e-12);
	ck_rel(log.avg_busbw_GBps, 91.9698, 1e-12);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

START_TEST(busbw_factors)
{
	/* nccl-tests doc/PERFORMANCE.md: 2(n-1)/n, (n-1)/n, 1 */
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_ALL_REDUCE, 16), 1.875, 1e-15);
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_ALL_GATHER, 8), 0.875, 1e-15);
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_REDUCE_SCATTER, 4), 0.75, 1e-15);
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_ALL_TO_ALL, 2), 0.5, 1e-15);
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_BROADCAST, 16), 1.0, 1e-15);
	ck_rel(dc_nccl_busbw_factor(DC_NCCL_SEND_RECV, 2), 1.0, 1e-15);
	ck_assert_str_eq(dc_nccl_op_name(DC_NCCL_ALL_TO_ALL), "all_to_all");
}
END_TEST

/* Each bad log: one error, naming the file and the line. */
static const struct {
	const char *file, *want;
} bad[] = {
	{"nccl_empty.txt", "nccl_empty.txt: error: empty file; expected the output of an nccl-tests *_perf binary"},
	{"nccl_binary.txt", "nccl_binary.txt:1: error: binary data (a NUL or control byte); expected the text "
			    "output of an nccl-tests *_perf binary"},
	{"nccl_osu.txt", "nccl_osu.txt:1: error: not nccl-tests output: no '# nThread N nGpus N minBytes ...' header "
			 "(this line reads '# OSU MPI Allreduce Latency Test v7.3')"},
	{"nccl_truncated.txt", "nccl_truncated.txt:40: error: truncated: the log ends after the row on line 40 "
			       "without the '# Avg bus bandwidth' footer"},
	{"nccl_size_order.txt", "nccl_size_order.txt:32: error: size column out of order: 1024 B after 2048 B on "
				"line 31 (sizes must increase)"},
	{"nccl_mixed_redop.txt", "nccl_mixed_redop.txt:33: error: mixes ops: redop 'sum' from line 24, 'max' here; "
				 "one op per log (-o)"},
	{"nccl_short_row.txt", "nccl_short_row.txt:40: error: a short result row: 7 columns where the header (line "
			       "22) has 13; is the log truncated?"},
	{"nccl_mixed_ops.txt", "nccl_mixed_ops.txt:32: error: mixes ops: all_reduce from line 2, all_gather here; "
			       "one collective per log"},
	{"nccl_unnamed_a2a.txt",
	 "nccl_unnamed_a2a.txt:16: error: cannot tell all_gather_perf from alltoall_perf output (same columns): "
	 "the log has no '# Collective test starting' line; name the file after the binary (all_gather_perf.log)"},
};

START_TEST(bad_logs)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dc_nccl_log log;
		struct dc_diag d;
		char path[512];
		const char *text;
		snprintf(path, sizeof(path), DATA "%s", bad[i].file);
		dc_diag_init(&d);
		ck_assert_int_eq(dc_nccl_log_read(path, &log, &d), -1);
		ck_assert_uint_eq(d.count, 1);
		ck_assert_int_eq(d.status, DC_ERR_INPUT);
		ck_assert_uint_eq(log.nrows, 0);
		ck_assert_ptr_null(log.rows);
		text = d.entries[0].text;
		ck_assert_msg(strlen(text) > strlen(DATA) && strcmp(text + strlen(DATA), bad[i].want) == 0,
			      "%s:\n got  %s\n want %s", bad[i].file, text, bad[i].want);
		dc_diag_release(&d);
	}
}
END_TEST

/* Made in memory: the pieces that need no file of their own. */
static int parse_text(const char *text, const char *name, struct dc_nccl_log *log, struct dc_diag *d)
{
	dc_diag_init(d);
	return dc_nccl_log_parse(text, strlen(text), name, log, d);
}

/* A header claiming 0 GPUs (or threads) is refused, naming the field. */
START_TEST(zero_gpus_refused)
{
	static const char text[] =
		"# nThread 1 nGpus 0 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n";
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_int_eq(parse_text(text, "x.txt", &log, &d), -1);
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "'nGpus 0' in the '# nThread' header: nccl-tests runs at least one thread with at least one GPU"));
	dc_diag_release(&d);
}
END_TEST

/* Rows whose columns contradict one another, a failed validation and
 * uneven hosts are refused naming the line and the column. The base log:
 * all_reduce on 2 hosts x 2 ranks, 1 MiB of float = 262,144 elements in
 * 100 us: algbw = 1,048,576 B / 100 us = 10.49 GB/s, busbw = 10.49 x
 * 2(4-1)/4 = 15.73 GB/s; 2 MiB in 180 us: 11.65 and 17.48. */
static const char consistent_log[] =
	"# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
	"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
	"#  Rank  1 Group  0 Pid    101 on          a device  1 [0000:3b:00] NVIDIA H100 80GB HBM3\n"
	"#  Rank  2 Group  0 Pid    102 on          b device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
	"#  Rank  3 Group  0 Pid    103 on          b device  1 [0000:3b:00] NVIDIA H100 80GB HBM3\n"
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	"     1048576        262144     float     sum      -1   100.0   10.49   15.73      0   100.0   10.49   15.73      0\n"
	"     2097152        524288     float     sum      -1   180.0   11.65   17.48      0   180.0   11.65   17.48      0\n"
	"# Avg bus bandwidth    : 16.6 \n";

static void refused_edit(const char *from, const char *to, const char *want)
{
	char text[sizeof(consistent_log) + 64];
	const char *at = strstr(consistent_log, from);
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_ptr_nonnull(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - consistent_log), consistent_log, to, at + strlen(from));
	ck_assert_int_eq(parse_text(text, "all_reduce_perf.txt", &log, &d), -1);
	ck_assert_msg(strstr(d.entries[0].text, want) != NULL, "%s", d.entries[0].text);
	dc_diag_release(&d);
}

START_TEST(contradicting_rows_refused)
{
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_msg(parse_text(consistent_log, "all_reduce_perf.txt", &log, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
	/* validation failed on the 1 MiB row's in-place run */
	refused_edit("15.73      0\n", "15.73     37\n",
		     "all_reduce_perf.txt:7: error: '#wrong' is 37 in-place: nccl-tests' validation found wrong results "
		     "at 1048576 B");
	/* 999,999 elements of float are 3,999,996 B, not 1 MiB */
	refused_edit("262144", "999999",
		     "all_reduce_perf.txt:7: error: the 'count' column (999999 elements) x float (4 B) is 3999996 B, not "
		     "the size column's 1048576 B");
	/* algbw ten times size / time */
	refused_edit("100.0   10.49", "100.0  104.90",
		     "all_reduce_perf.txt:7: error: the out-of-place 'algbw' column says 104.90 GB/s but size / time is "
		     "1048576 B / 100.00 us = 10.49 GB/s");
	/* busbw not algbw x 1.5 */
	refused_edit("11.65   17.48      0\n", "11.65   11.65      0\n",
		     "all_reduce_perf.txt:8: error: the in-place 'busbw' column says 11.65 GB/s but algbw x all_reduce's "
		     "factor on 4 ranks is 11.65 x 1.5000 = 17.48 GB/s");
	/* 1 rank on a, 3 on b */
	refused_edit("101 on          a device  1", "101 on          b device  2",
		     "all_reduce_perf.txt: error: uneven ranks per host: 1 on 'a' but 3 on 'b' (2 hosts, 4 ranks)");
}
END_TEST

START_TEST(debug_lines_and_chatter)
{
	static const char text[] =
		"Warning: Permanently added 'node2' to the list of known hosts.\n"
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#\n# Using devices\n"
		"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] NVIDIA A100-SXM4-80GB\n"
		"#  Rank  1 Group  0 Pid    101 on          b device  0 [0000:19:00] NVIDIA A100-SXM4-80GB\n"
		"#  Rank  2 Group  0 Pid    102 on          b device  1 [0000:3b:00] NVIDIA A100-SXM4-80GB\n"
		"#  Rank  3 Group  0 Pid    103 on          a device  1 [0000:3b:00] NVIDIA A100-SXM4-80GB\n"
		"a:100:100 [0] NCCL INFO Channel 00/02 : 0 1 2 3\n"
		"#\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
		"        1024           256     float     sum      -1    20.00    0.05    0.08    N/A    21.00    0.05    0.07    N/A\n"
		"b:101:101 [0] NCCL INFO comm 0x1 rank 1 nranks 4 - Destroy COMPLETE\n"
		"        2048           512     float     sum      -1    1.2e+01    0.17    0.26    N/A    20.00    0.10    0.15    N/A\n"
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.15 \n";
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_msg(parse_text(text, "x.txt", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(log.ranks, 4);
	ck_assert_uint_eq(log.nodes, 2);
	ck_assert_uint_eq(log.ranks_per_node, 2);
	ck_assert_uint_eq(log.nrows, 2);
	ck_rel(log.rows[1].time_s[0], 12e-6, 1e-12);
	ck_rel(dc_nccl_row_time_s(&log.rows[1]), 12e-6, 1e-12);
	/* busbw / algbw = 0.26 / 0.17 = 1.53, near 2(4-1)/4 = 1.5, not 1 */
	ck_assert_int_eq(log.op, DC_NCCL_ALL_REDUCE);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* nccl-tests before 2.11: no Group in the device lines, no redop and root
 * columns, "error" for "#wrong"; an all_gather_perf on 2 GPUs of one
 * process (-g 2). */
START_TEST(old_layout)
{
	static const char text[] =
		"# nThread 1 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
		"#\n# Using devices\n"
		"#   Rank  0 Pid  12345 on   v100-01 device  0 [0x1a] Tesla V100-SXM2-32GB\n"
		"#   Rank  1 Pid  12345 on   v100-01 device  1 [0x1b] Tesla V100-SXM2-32GB\n"
		"#\n"
		"#                                             out-of-place                       in-place          \n"
		"#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
		"#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
		"        1024           128   float    10.00    0.10    0.05  0e+00    10.00    0.10    0.05  0e+00\n"
		"        2048           256   float    11.00    0.19    0.09  0e+00    11.00    0.19    0.09  0e+00\n"
		"# Out of bounds values : 0 OK\n"
		"# Avg bus bandwidth    : 0.07 \n";
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_msg(parse_text(text, "all_gather_perf.log", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_int_eq(log.op, DC_NCCL_ALL_GATHER);
	ck_assert_uint_eq(log.ranks, 2);
	ck_assert_uint_eq(log.nodes, 1);
	ck_assert_str_eq(log.device, "Tesla V100-SXM2-32GB");
	ck_assert_str_eq(log.redop, "");
	ck_assert_uint_eq(log.nrows, 2);
	ck_rel(log.rows[1].time_s[1], 11e-6, 1e-12);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* srun --label: "0: " before every line */
START_TEST(labelled_lines)
{
	char text[1 << 16], *o = text;
	FILE *f = fopen(REAL, "rb");
	char line[512];
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		o += sprintf(o, "0: %s", line);
	fclose(f);
	ck_assert_msg(parse_text(text, "slurm-1234.out", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(log.ranks, 16);
	ck_assert_uint_eq(log.nrows, 32);
	ck_rel(log.avg_busbw_GBps, 139.56, 1e-12);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

START_TEST(second_run_refused)
{
	static const char run[] =
		"# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] X\n"
		"#  Rank  1 Group  0 Pid    100 on          a device  1 [0000:19:00] X\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"           8             2     float     sum      -1    20.00    0.00    0.00      0    21.00    0.00    0.00      0\n"
		"# Avg bus bandwidth    : 0 \n";
	char text[4096];
	struct dc_nccl_log log;
	struct dc_diag d;
	snprintf(text, sizeof(text), "%s%s", run, run);
	ck_assert_int_eq(parse_text(text, "all_reduce_perf.txt", &log, &d), -1);
	ck_assert_str_eq(d.entries[0].text,
			 "all_reduce_perf.txt:7: error: a second run starts here, after the one that ended on an earlier "
			 "line; one run per log (give each its own --calibrate)");
	dc_diag_release(&d);
	/* on 2 ranks all_reduce's busbw factor is 1, as sendrecv's: the rows cannot tell */
	ck_assert_int_eq(parse_text(run, "run.txt", &log, &d), -1);
	ck_assert_str_eq(d.entries[0].text,
			 "run.txt:5: error: cannot tell all_reduce_perf from sendrecv_perf output on 2 ranks: the log "
			 "has no '# Collective test starting' line; name the file after the binary (all_reduce_perf.log)");
	dc_diag_release(&d);
	ck_assert_int_eq(parse_text(run, "sendrecv_perf.txt", &log, &d), 0);
	ck_assert_int_eq(log.op, DC_NCCL_SEND_RECV);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

#define REAL4 DATA "nccl-tests-h100-4x8-ib.txt"

/* The 4 x 8 log (NVIDIA/nccl-tests issue #309, a later comment): the
 * mpirun line and "Run-1 ..." before the header, "NCCL version
 * 2.26.2+cuda12.8" after the device list (line 38), the column header on
 * lines 41-42, 32 rows from line 43; read by eye from the file. */
START_TEST(real_log_4x8)
{
	struct dc_nccl_log log;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_msg(dc_nccl_log_read(REAL4, &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_str_eq(log.nccl_version, "2.26.2+cuda12.8");
	ck_assert_uint_eq(log.ranks, 32);
	ck_assert_uint_eq(log.nodes, 4);
	ck_assert_uint_eq(log.ranks_per_node, 8);
	ck_assert_uint_eq(log.nrows, 32);
	ck_assert_uint_eq(log.rows[0].line, 43);
	ck_rel(log.rows[0].time_s[DC_NCCL_IP], 34.75e-6, 1e-12);
	ck_assert_uint_eq(log.rows[31].size_bytes, 17179869184ull);
	ck_rel(log.rows[31].time_s[DC_NCCL_OOP], 90986e-6, 1e-12);
	ck_rel(log.avg_busbw_GBps, 107.51, 1e-12);
	/* the mpirun line sets NCCL_NET_GDR_LEVEL and others, not NCCL_ALGO */
	ck_assert_str_eq(log.nccl_algo, "");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* mpirun --tag-output: "[1,0]<stdout>:" before every line and, where
 * nccl-tests printed a row in pieces, inside it (after the root column and
 * between the two column groups). */
START_TEST(tagged_rows)
{
	static char text[1 << 16];
	char *o = text, line[512];
	FILE *f = fopen(REAL, "rb");
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *mid = strstr(line, "    -1 ");
		o += sprintf(o, "[1,0]<stdout>:");
		if (mid && line[0] == ' ') {
			mid += 6;
			o += sprintf(o, "%.*s[1,0]<stdout>:%s", (int)(mid - line), line, mid);
		} else {
			o += sprintf(o, "%s", line);
		}
	}
	fclose(f);
	ck_assert_msg(parse_text(text, "tagged.out", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(log.ranks, 16);
	ck_assert_uint_eq(log.nrows, 32);
	ck_rel(log.rows[0].time_s[DC_NCCL_OOP], 68.52e-6, 1e-12);
	ck_rel(log.rows[31].busbw_GBps[DC_NCCL_IP], 469.10, 1e-12);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* NCCL_ALGO and NCCL_PROTO from mpirun's -x, an environment line among
 * the device lines, and NCCL's own INFO line (the last one wins). */
START_TEST(environment_lines)
{
	static const char head[] =
		"mpirun -np 2 -H a:1,b:1 -x NCCL_ALGO=Tree -x NCCL_PROTO=LL128 ./all_reduce_perf -b 1024 -e 2048\n"
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#\n# Using devices\n"
		"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
		"#  Rank  1 Group  0 Pid    101 on          b device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n";
	static const char tail[] =
		"NCCL version 2.21.5+cuda12.4\n"
		"#\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
		"        1024           256     float     sum      -1    20.00    0.05    0.05      0    21.00    0.05    0.05      0\n"
		"        2048           512     float     sum      -1    21.00    0.10    0.10      0    20.00    0.10    0.10      0\n"
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.07 \n";
	char text[4096];
	struct dc_nccl_log log;
	struct dc_diag d;
	snprintf(text, sizeof(text), "%sexport NCCL_PROTO=Simple\n%s", head, tail);
	ck_assert_msg(parse_text(text, "all_reduce_perf.log", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_str_eq(log.nccl_algo, "Tree");
	ck_assert_str_eq(log.nccl_proto, "Simple");
	ck_assert_str_eq(log.nccl_version, "2.21.5+cuda12.4");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
	snprintf(text, sizeof(text), "%sa:100:100 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n%s", head, tail);
	ck_assert_msg(parse_text(text, "all_reduce_perf.log", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_str_eq(log.nccl_algo, "Ring");
	ck_assert_str_eq(log.nccl_proto, "LL128");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
}
END_TEST

/* NCCL_ALGO and NCCL_PROTO whole, however long (up to 255 bytes): a
 * value cut at a fixed length can drop the entry for the log's own
 * collective. The 46-byte list below kept only its first 31 bytes,
 * "allgather:ring,nvls;reduce:ring", before the field was widened. One
 * byte over 255 is refused by name, never cut. */
START_TEST(long_environment_values)
{
	static const char tail[] =
		"# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#\n# Using devices\n"
		"#  Rank  0 Group  0 Pid    100 on          a device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
		"#  Rank  1 Group  0 Pid    101 on          b device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
		"#\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
		"        1024           256     float     sum      -1    20.00    0.05    0.05      0    21.00    0.05    0.05      0\n"
		"        2048           512     float     sum      -1    21.00    0.10    0.10      0    20.00    0.10    0.10      0\n"
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.07 \n";
	static const char algo46[] = "allgather:ring,nvls;reduce:ring;allreduce:ring";
	char text[8192], value[300];
	struct dc_nccl_log log;
	struct dc_diag d;
	ck_assert_uint_eq(strlen(algo46), 46);
	snprintf(text, sizeof(text), "NCCL_ALGO=%s\nexport NCCL_PROTO=%s\n%s", algo46,
		 "reducescatter:simple;allreduce:ll128", tail);
	ck_assert_msg(parse_text(text, "all_reduce_perf.log", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_str_eq(log.nccl_algo, algo46);
	ck_assert_str_eq(log.nccl_proto, "reducescatter:simple;allreduce:ll128");
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
	/* 255 bytes: "ring," x 50 (250) + "tree," is 255 */
	value[0] = '\0';
	for (int i = 0; i < 50; i++)
		strcat(value, "ring,");
	strcat(value, "tree,");
	ck_assert_uint_eq(strlen(value), 255);
	snprintf(text, sizeof(text), "NCCL_ALGO=%s\n%s", value, tail);
	ck_assert_msg(parse_text(text, "all_reduce_perf.log", &log, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_str_eq(log.nccl_algo, value);
	dc_nccl_log_release(&log);
	dc_diag_release(&d);
	/* 256 bytes, on line 1 of the log: refused */
	strcat(value, "x");
	snprintf(text, sizeof(text), "NCCL_ALGO=%s\n%s", value, tail);
	ck_assert_int_eq(parse_text(text, "all_reduce_perf.log", &log, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	ck_assert_str_eq(d.entries[0].text, "all_reduce_perf.log:1: error: NCCL_ALGO is longer than 255 bytes (256)");
	dc_diag_release(&d);
	/* NCCL_PROTO likewise, from NCCL's own INFO line (line 2) */
	value[255] = '\0';
	snprintf(text, sizeof(text), "NCCL_ALGO=Ring\na:1:1 [0] NCCL INFO NCCL_PROTO set by environment to %sxy\n%s",
		 value, tail);
	ck_assert_int_eq(parse_text(text, "all_reduce_perf.log", &log, &d), -1);
	ck_assert_str_eq(d.entries[0].text, "all_reduce_perf.log:2: error: NCCL_PROTO is longer than 255 bytes (257)");
	dc_diag_release(&d);
}
END_TEST

START_TEST(missing_file)
{
	struct dc_nccl_log log;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_nccl_log_read(DATA "no-such-log.txt", &log, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "no-such-log.txt: error: cannot open: "));
	dc_diag_release(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nccl_log");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_add_test(tc, real_log);
	tcase_add_test(tc, op_from_name);
	tcase_add_test(tc, layout_2_13);
	tcase_add_test(tc, busbw_factors);
	tcase_add_test(tc, bad_logs);
	tcase_add_test(tc, debug_lines_and_chatter);
	tcase_add_test(tc, zero_gpus_refused);
	tcase_add_test(tc, second_run_refused);
	tcase_add_test(tc, old_layout);
	tcase_add_test(tc, labelled_lines);
	tcase_add_test(tc, missing_file);
	tcase_add_test(tc, real_log_4x8);
	tcase_add_test(tc, tagged_rows);
	tcase_add_test(tc, contradicting_rows_refused);
	tcase_add_test(tc, environment_lines);
	tcase_add_test(tc, long_environment_values);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
