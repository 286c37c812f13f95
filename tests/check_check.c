/* check_check.c - budget regression comparison rules. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>

#include "distcalc/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The header fields that make a JSON object a distcalc report (check.h). */
#define HEADER "\"distcalc_version\": \"0.1.0\", \"experiment\": \"systems\", \"seed\": 0"

/* `obj` ("{...}") with the report header put first. */
static const char *with_header(const char *obj, char *buf, size_t len)
{
	ck_assert(obj[0] == '{');
	snprintf(buf, len, "{" HEADER "%s%s", obj[1] == '}' ? "" : ", ", obj + 1);
	return buf;
}

/* Compares the reports `e` and `a` (each an object given without the
 * header fields, which are the same on both sides and add no lines). */
static size_t run(const char *e, const char *a, double rtol, struct dc_buf *out)
{
	struct dc_check_result res;
	struct dc_diag d;
	char eb[512], ab[512];
	e = with_header(e, eb, sizeof(eb));
	a = with_header(a, ab, sizeof(ab));
	dc_diag_init(&d);
	dc_buf_init(out);
	ck_assert_int_eq(dc_check_compare(e, strlen(e), "exp.json", a, strlen(a), rtol, out, &res, &d), 0);
	dc_diag_release(&d);
	return res.differences;
}

/* The one error dc_check_compare gives for the stored text `e`. */
static void run_bad(const char *e, size_t len, const char *want)
{
	struct dc_buf out;
	struct dc_check_result res;
	struct dc_diag d;
	const char *a = "{" HEADER "}";
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare(e, len, "exp.json", a, strlen(a), 0, &out, &res, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_str_eq(d.entries[0].text, want);
	ck_assert_uint_eq(out.len, 0);
	dc_diag_release(&d);
	dc_buf_release(&out);
}

/* A toy report's count predicate: "topology.world_size" and the rows'
 * "rank" are counts, as the report's field tables type them. */
static int toy_is_count(const void *ctx, const char *path)
{
	(void)ctx;
	return strcmp(path, "topology.world_size") == 0 ||
	       (strncmp(path, "ranks[", 6) == 0 && strstr(path, "].rank") && !strstr(path, "].rank_"));
}

struct text_src {
	const char *t;
};

static int render_text(void *ctx, struct dc_buf *b)
{
	const struct text_src *t = ctx;
	dc_buf_add(b, t->t, strlen(t->t));
	return b->failed ? -1 : 0;
}

/* Compares `e` and `a` (whole reports) both ways: the stored text read
 * whole, and streamed from a file; both must find `want` differences. */
static void both_ways(const char *e, const char *a, double rtol, size_t want)
{
	struct dc_check_result r1, r2;
	struct dc_diag d;
	struct dc_buf o1, o2;
	char path[] = "/tmp/distcalc-check-XXXXXX";
	struct text_src src = {a};
	int fd;
	dc_diag_init(&d);
	dc_buf_init(&o1);
	dc_buf_init(&o2);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), rtol, NULL, &o1, &r1, &d,
					       toy_is_count, NULL),
			 0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, e, strlen(e)), (int)strlen(e));
	close(fd);
	ck_assert_int_eq(dc_check_compare_file(path, rtol, NULL, render_text, &src, NULL, NULL, &o2, &r2, &d,
					       toy_is_count, NULL),
			 0);
	unlink(path);
	ck_assert_msg(r1.differences == want, "whole: %zu differences, want %zu: %s", r1.differences, want,
		      o1.len ? o1.data : "");
	ck_assert_msg(r2.differences == want, "streamed: %zu differences, want %zu: %s", r2.differences, want,
		      o2.len ? o2.data : "");
	dc_buf_release(&o1);
	dc_buf_release(&o2);
	dc_diag_release(&d);
}

/* A field the new report types as a count compares exactly whatever
 * --rtol: 8.000000001 ranks stored against 8 is a move at rtol 0.01 (a
 * relative change of 1.25e-10), while the same change in a time passes. */
START_TEST(test_counts_exact)
{
	const char *a = "{" HEADER ", \"topology\": {\"world_size\": 8, \"step_s\": 2}}";
	both_ways("{" HEADER ", \"topology\": {\"world_size\": 8.000000001, \"step_s\": 2}}", a, 0.01, 1);
	both_ways("{" HEADER ", \"topology\": {\"world_size\": 8, \"step_s\": 2.000000001}}", a, 0.01, 0);
	/* a row's count, in an array */
	both_ways("{" HEADER ", \"ranks\": [{\"rank\": 0}, {\"rank\": 1.0000001}]}",
		  "{" HEADER ", \"ranks\": [{\"rank\": 0}, {\"rank\": 1}]}", 0.5, 1);
}
END_TEST

/* A keys row's origin says how a value was given (the file, a --set, the
 * default), not what was estimated: moving a --set into the file keeps
 * the budget. Its value is compared. */
START_TEST(test_key_origin_not_compared)
{
	const char *a = "{" HEADER ", \"cluster\": {\"keys\": [{\"key\": \"cluster.inter_node.latency\", \"value\": 1e-05, "
			"\"origin\": \"config\"}]}}";
	both_ways("{" HEADER ", \"cluster\": {\"keys\": [{\"key\": \"cluster.inter_node.latency\", \"value\": 1e-05, "
		  "\"origin\": \"--set\"}]}}",
		  a, 0.001, 0);
	both_ways("{" HEADER ", \"cluster\": {\"keys\": [{\"key\": \"cluster.inter_node.latency\", \"value\": 2e-05, "
		  "\"origin\": \"config\"}]}}",
		  a, 0.001, 1);
}
END_TEST

/* A string opening with its report's "config" and ": " (a warning) is
 * compared past that prefix: the path is not a budget. The rest is. */
START_TEST(test_warning_config_prefix)
{
	const char *e = "{" HEADER ", \"config\": \"configs/a.json\", \"warnings\": [\"configs/a.json: 'x': y\"]}";
	both_ways(e, "{" HEADER ", \"config\": \"./configs/a.json\", \"warnings\": [\"./configs/a.json: 'x': y\"]}", 0,
		  0);
	both_ways(e, "{" HEADER ", \"config\": \"./configs/a.json\", \"warnings\": [\"./configs/a.json: 'x': z\"]}", 0,
		  1);
	/* a string naming another file is compared whole */
	both_ways(e, "{" HEADER ", \"config\": \"./configs/a.json\", \"warnings\": [\"configs/b.json: 'x': y\"]}", 0,
		  1);
}
END_TEST

/* The files a report names are where the tool ran, not budgets: the
 * model's config.json (model.hf_config, its keys row's value and text, a
 * warning it prefixes) and the topology file's keys row compare as the
 * "config" header does; the rest of the row, and another key's row, still
 * compare. */
START_TEST(test_file_fields)
{
#define FILES(m, t, w, k)                                                                                             \
	"{" HEADER ", \"config\": \"c.json\", \"model\": {\"hf_config\": \"" m "\", \"keys\": [{\"key\": "        \
	"\"model.hf_config\", \"value\": \"" m "\", \"text\": \"" m "\", \"origin\": \"config\"}, {\"key\": "      \
	"\"model.num_layers\", \"value\": " k ", \"text\": \"" k "\"}]}, \"cluster\": {\"keys\": [{\"key\": "        \
	"\"cluster.topology_file\", \"value\": \"" t "\", \"text\": \"" t "\"}]}, \"warnings\": [\"" w "\"]}"
	const char *e = FILES("/a/models/m.json", "/a/topo.txt", "/a/models/m.json: 'x': y", "32");
	both_ways(e, FILES("b/models/m.json", "b/topo.txt", "b/models/m.json: 'x': y", "32"), 0, 0);
	/* the warning's rest, and another key's row, are compared */
	both_ways(e, FILES("b/models/m.json", "b/topo.txt", "b/models/m.json: 'x': z", "32"), 0, 1);
	both_ways(e, FILES("b/models/m.json", "b/topo.txt", "b/models/m.json: 'x': y", "24"), 0, 2);
	/* a row naming another key is compared whole */
	both_ways("{" HEADER ", \"model\": {\"keys\": [{\"key\": \"model.mlp\", \"value\": \"a\"}]}}",
		  "{" HEADER ", \"model\": {\"keys\": [{\"key\": \"model.mlp\", \"value\": \"b\"}]}}", 0, 1);
#undef FILES
}
END_TEST

/* The summary's counts add up: a field one side lacks (a whole section
 * a sweep report does not have) is one compared and one moved, never
 * "2 fields compared, 13 moved". */
START_TEST(test_counts_add_up)
{
	const char *e = "{" HEADER ", \"a\": 1, \"b\": {\"c\": 1, \"d\": 2}, \"x\": [1, 2]}";
	const char *a = "{" HEADER ", \"a\": 1, \"x\": [1], \"y\": 3}";
	struct dc_check_result res;
	struct dc_diag d;
	struct dc_buf out;
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare(e, strlen(e), "exp.json", a, strlen(a), 0, &out, &res, &d), 0);
	/* equal: experiment, seed (distcalc_version is not compared), a,
	 * x[0]; one side only: b, x[1], y */
	ck_assert_uint_eq(res.differences, 3);
	ck_assert_uint_eq(res.compared, 4 + 3);
	dc_buf_release(&out);
	dc_diag_release(&d);
}
END_TEST

/* A number's text of any length is JSON: a stored 3.666...6e-05 of 100
 * digits compares the same whole and streamed (the streamed reader once
 * cut it at 63 bytes and called the rest "not JSON"; fuzz_check found it). */
START_TEST(test_long_number_both_ways)
{
	char e[512];
	snprintf(e, sizeof(e), "{" HEADER ", \"x\": 3.%se-05}",
		 "6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666");
	both_ways(e, "{" HEADER ", \"x\": 3.6666666666666667e-05}", 1e-9, 0);
	both_ways(e, "{" HEADER ", \"x\": 3.7e-05}", 1e-9, 1);
}
END_TEST

START_TEST(test_identical)
{
	struct dc_buf out;
	const char *j = "{\"a\": 1, \"b\": {\"c\": [1, 2.5, \"x\", true, null]}}";
	ck_assert_uint_eq(run(j, j, 0, &out), 0);
	ck_assert_uint_eq(out.len, 0);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_integers_are_exact)
{
	struct dc_buf out;
	/* one byte out of 1.6e9 is far inside any relative tolerance, yet a
	 * byte count must match exactly */
	ck_assert_uint_eq(run("{\"m\": {\"bytes\": 1610612736}}", "{\"m\": {\"bytes\": 1610612737}}", 0.01, &out), 1);
	ck_assert_str_eq(out.data, "m.bytes: expected 1610612736, got 1610612737 (change +6.20882e-08%; a count or byte "
				   "field, compared exactly whatever --rtol)\n");
	dc_buf_release(&out);
	/* a field without a unit whole on both sides is a count: exact */
	ck_assert_uint_eq(run("{\"m\": {\"ranks\": 50}}", "{\"m\": {\"ranks\": 51}}", 0.05, &out), 1);
	ck_assert_str_eq(out.data, "m.ranks: expected 50, got 51 (change +2%; whole numbers on both sides, compared "
				   "exactly whatever --rtol)\n");
	dc_buf_release(&out);
	/* a measure whole on both sides follows --rtol: a bandwidth, a time,
	 * a rate (a user trial's 50 -> 40 GB/s failed --rtol 0.3 while
	 * 50 -> 40.5 passed): 50 -> 51 is +2%, 2 -> 3 s +50%, 10 -> 11
	 * tokens/s +10% */
	ck_assert_uint_eq(run("{\"m\": {\"bw_GBps\": 50}}", "{\"m\": {\"bw_GBps\": 51}}", 0.05, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"m\": {\"bw_GBps\": 50}}", "{\"m\": {\"bw_GBps\": 40}}", 0.3, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"m\": {\"bw_GBps\": 50}}", "{\"m\": {\"bw_GBps\": 40}}", 0.1, &out), 1);
	ck_assert_str_eq(out.data, "m.bw_GBps: expected 50, got 40 (change -20%)\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"ring\": {\"time_s\": 2}}", "{\"ring\": {\"time_s\": 3}}", 0.5, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"s\": {\"tokens_per_s\": 10}}", "{\"s\": {\"tokens_per_s\": 11}}", 0.1, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"l\": {\"bandwidth_bytes_per_s\": 100}}", "{\"l\": {\"bandwidth_bytes_per_s\": 101}}", 0.05,
			      &out),
			  0);
	dc_buf_release(&out);
	/* past --rtol the line needs no reason */
	ck_assert_uint_eq(run("{\"m\": {\"bytes\": 100}}", "{\"m\": {\"bytes\": 150}}", 0.01, &out), 1);
	ck_assert_str_eq(out.data, "m.bytes: expected 100, got 150 (change +50%)\n");
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_floats_use_rtol)
{
	struct dc_buf out;
	/* 0.0322122547 vs 0.0322122548: relative change 3.1e-9 */
	ck_assert_uint_eq(run("{\"t\": 0.0322122547}", "{\"t\": 0.0322122548}", 1e-8, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"t\": 0.0322122547}", "{\"t\": 0.0322122548}", 1e-9, &out), 1);
	dc_buf_release(&out);
	/* 0.5 -> 0.75 is +50% */
	ck_assert_uint_eq(run("{\"t\": 0.5}", "{\"t\": 0.75}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data, "t: expected 0.5, got 0.75 (change +50%)\n");
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_one_side_only_and_types)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"a\": 1, \"gone\": 2}", "{\"a\": 1, \"new\": \"x\"}", 0, &out), 2);
	/* in the new report's order; what the stored one alone holds comes at
	 * the end of its object */
	ck_assert_str_eq(out.data, "new: not in the expected report, got \"x\"\n"
				   "gone: expected 2, missing from the new report\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"a\": [1, 2]}", "{\"a\": [1, 2, 3]}", 0, &out), 1);
	ck_assert_str_eq(out.data, "a[2]: not in the expected report, got 3\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"s\": \"fsdp\"}", "{\"s\": \"none\"}", 0, &out), 1);
	ck_assert_str_eq(out.data, "s: expected \"fsdp\", got \"none\"\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"f\": true}", "{\"f\": false}", 0, &out), 1);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_version_and_config_ignored)
{
	struct dc_buf out;
	struct dc_check_result res;
	struct dc_diag d;
	const char *e = "{\"distcalc_version\": \"0.1.0\", \"experiment\": \"ring\", \"config\": \"a.json\", "
			"\"seed\": 7, \"x\": 1}";
	const char *a = "{\"distcalc_version\": \"9.9.9\", \"experiment\": \"ring\", \"config\": \"b/a.json\", "
			"\"seed\": 7, \"x\": 1}";
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare(e, strlen(e), "exp.json", a, strlen(a), 0, &out, &res, &d), 0);
	ck_assert_uint_eq(res.differences, 0);
	ck_assert_uint_eq(res.compared, 3); /* experiment, seed, x */
	dc_diag_release(&d);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_absurd_expected)
{
	struct dc_buf out;
	/* 1e400 overflows a double: it reads as inf, and inf > rtol * inf is
	 * false, so a tolerance test alone would pass it against anything;
	 * the line shows the stored text, not the inf it reads as */
	ck_assert_uint_eq(run("{\"t\": 1e400}", "{\"t\": 0.5}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data, "t: the stored value 1e400 is not a plausible number (it reads as inf); got 0.5\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"t\": -1e400}", "{\"t\": -1e400}", 1, &out), 1);
	ck_assert_str_eq(out.data,
			 "t: the stored value -1e400 is not a plausible number (it reads as -inf); got -1e400\n");
	dc_buf_release(&out);
	/* 2^53 itself is still a count; a huge time is only compared */
	ck_assert_uint_eq(run("{\"bytes\": 9007199254740992}", "{\"bytes\": 9007199254740992}", 0, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"time_s\": 1e300}", "{\"time_s\": 1e300}", 1e-9, &out), 0);
	dc_buf_release(&out);
}
END_TEST

/* Above 2^53 = 9007199254740992 a double stops holding every integer
 * (2^53 + 1 reads as 2^53): a count written as its digits is compared
 * digit for digit, the same digits are equal whatever their size (a ring
 * of 8 PiB sends 15762598695796736 bytes a rank, and its report checks
 * against itself), and a line never reads "expected X, got X" */
START_TEST(test_integers_above_2_53)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"bytes_sent\": 15762598695796736}", "{\"bytes_sent\": 15762598695796736}", 0, &out),
			  0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"m\": {\"peak_bytes\": 1e20}}", "{\"m\": {\"peak_bytes\": 1e20}}", 1e-9, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"bytes_sent\": 9007199254740993}", "{\"bytes_sent\": 9007199254740992}", 0.5, &out),
			  1);
	ck_assert_str_eq(out.data, "bytes_sent: expected 9007199254740993, got 9007199254740992\n");
	dc_buf_release(&out);
	/* a field typed as a count (the toy predicate's world_size) up to
	 * 2^64 - 1, the stored report read whole and streamed */
	both_ways("{" HEADER ", \"topology\": {\"world_size\": 18446744073709551615}}",
		  "{" HEADER ", \"topology\": {\"world_size\": 18446744073709551614}}", 1e-9, 1);
	both_ways("{" HEADER ", \"topology\": {\"world_size\": 18446744073709551615}}",
		  "{" HEADER ", \"topology\": {\"world_size\": 18446744073709551615}}", 1e-9, 0);
	/* a double that is no count keeps its tolerance above 2^53 too: a
	 * FLOP count of 1.5744e16 is a product of doubles */
	ck_assert_uint_eq(run("{\"flops\": 15744456753938432}", "{\"flops\": 15744456753938434}", 1e-9, &out), 0);
	dc_buf_release(&out);
}
END_TEST

/* Two texts that part past the 200 bytes a line shows are shown from a
 * little (40 bytes) before where they part */
START_TEST(test_long_texts_part_late)
{
	struct dc_buf out;
	char e[400], a[400], want[700];
	memset(e, 'x', 300);
	memcpy(a, e, 300);
	a[250] = 'y';
	strcpy(e + 300, "\"}");
	strcpy(a + 300, "\"}");
	{
		char eo[420], ao[420];
		snprintf(eo, sizeof(eo), "{\"w\": \"%s", e);
		snprintf(ao, sizeof(ao), "{\"w\": \"%s", a);
		ck_assert_uint_eq(run(eo, ao, 0, &out), 1);
	}
	/* 210 + 40 bytes alike: shown from byte 210, 90 bytes each */
	snprintf(want, sizeof(want), "w: expected \"...%.90s\", got \"...%.40sy%.49s\"\n", e + 210, e, e);
	ck_assert_str_eq(out.data, want);
	dc_buf_release(&out);
}
END_TEST

/* A seed names a stream of draws: a changed seed is a changed value, not
 * a percentage ("+20%" for 5 against 6), and above 2^53 its digits
 * count */
START_TEST(test_seed_is_a_value)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"loss\": {\"seed\": 5}}", "{\"loss\": {\"seed\": 6}}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data, "loss.seed: expected 5, got 6\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(
		run("{\"loss\": {\"seed\": 9007199254740993}}", "{\"loss\": {\"seed\": 9007199254740992}}", 1e-9, &out),
		1);
	ck_assert_str_eq(out.data, "loss.seed: expected 9007199254740993, got 9007199254740992\n");
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_bad_expected)
{
	run_bad("[1]", 3, "exp.json: error: not a distcalc JSON report (the top level is not a JSON object; write one "
			  "with --format json --output FILE)");
	run_bad("not json", 8, "exp.json: error: not a distcalc JSON report (exp.json:1:1: expected a value: strings "
			       "need double quotes; write one with --format json --output FILE)");
	run_bad("", 0, "exp.json: error: not a distcalc JSON report (exp.json:1:1: unexpected end of input: expected a "
		       "value; write one with --format json --output FILE)");
}
END_TEST

/* The whole text must be the one object: cJSON alone stops reading at its
 * end and would take what follows as nothing. */
START_TEST(test_trailing_bytes)
{
	const char *t = "{" HEADER "}\n junk";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (exp.json:2:2: trailing data after the JSON "
			      "object; write one with --format json --output FILE)");
	t = "{" HEADER "}{}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (exp.json:1:66: trailing data after the JSON "
			      "object; write one with --format json --output FILE)");
	/* a NUL byte ends cJSON's reading early too */
	run_bad("{" HEADER "}\0x", 67, "exp.json: error: not a distcalc JSON report (exp.json:1:66: trailing data after "
					 "the JSON object; write one with --format json --output FILE)");
	/* whitespace after it is fine */
	t = "{" HEADER "}\n\n  \t";
	{
		struct dc_buf out;
		struct dc_check_result res;
		struct dc_diag d;
		const char *a = "{" HEADER "}";
		dc_diag_init(&d);
		dc_buf_init(&out);
		ck_assert_int_eq(dc_check_compare(t, strlen(t), "exp.json", a, strlen(a), 0, &out, &res, &d), 0);
		ck_assert_uint_eq(res.differences, 0);
		dc_diag_release(&d);
		dc_buf_release(&out);
	}
}
END_TEST

/* A key held twice would compare only one copy (cJSON finds the first). */
START_TEST(test_duplicate_keys)
{
	const char *t = "{" HEADER ", \"ring\": {\"time_s\": 1, \"chunk_bytes\": 2, \"time_s\": 3}}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (duplicate key 'ring.time_s'; write one with "
			      "--format json --output FILE)");
	t = "{" HEADER ", \"a\": [{\"x\": 1}, {\"y\": 1, \"y\": 1}]}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (duplicate key 'a[1].y'; write one with "
			      "--format json --output FILE)");
	t = "{" HEADER ", \"seed\": 1}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (duplicate key 'seed'; write one with "
			      "--format json --output FILE)");
}
END_TEST

/* A JSON object without the report header is some other file (a config). */
START_TEST(test_not_a_report)
{
	const char *t = "{\"model\": {\"hidden_size\": 4096}}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (no header field 'distcalc_version'; write "
			      "one with --format json --output FILE)");
	t = "{\"distcalc_version\": \"0.1.0\", \"seed\": 0}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (no header field 'experiment'; write one "
			      "with --format json --output FILE)");
	t = "{\"distcalc_version\": \"0.1.0\", \"experiment\": \"ring\", \"seed\": \"7\"}";
	run_bad(t, strlen(t), "exp.json: error: not a distcalc JSON report (a wrong type for the header field 'seed'; "
			      "write one with --format json --output FILE)");
}
END_TEST

/* Writes `n` bytes of 'x' to a new temporary file; its name in path. */
static void temp_file(char *path, size_t n)
{
	int fd;
	strcpy(path, "/tmp/check_check.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_read_file)
{
	char path[64];
	struct dc_diag d;
	size_t len = 99;
	char *buf;

	/* a regular file: one allocation, of its size (and room for a NUL) */
	temp_file(path, 1000);
	dc_diag_init(&d);
	dc_alloc_fail_at(0);
	buf = dc_check_read_file(path, 4096, &len, &d);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(dc_alloc_count(), 1);
	ck_assert_uint_eq(len, 1000);
	ck_assert_int_eq(buf[999], 'x');
	ck_assert_int_eq(buf[1000], '\0');
	free(buf);
	/* over the limit: refused */
	ck_assert_ptr_null(dc_check_read_file(path, 999, &len, &d));
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	ck_assert(strstr(d.entries[0].text, "' is larger than 0 MiB") != NULL);
	dc_diag_release(&d);
	/* an empty file */
	unlink(path);
	temp_file(path, 0);
	dc_diag_init(&d);
	buf = dc_check_read_file(path, 4096, &len, &d);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(len, 0);
	free(buf);
	unlink(path);
	/* a directory, and a missing file */
	ck_assert_ptr_null(dc_check_read_file("/tmp", 4096, &len, &d));
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check': '/tmp' is a directory");
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	dc_diag_release(&d);
	/* out of memory */
	temp_file(path, 10);
	dc_diag_init(&d);
	dc_alloc_fail_at(1);
	ck_assert_ptr_null(dc_check_read_file(path, 4096, &len, &d));
	dc_alloc_fail_at(0);
	ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
	dc_diag_release(&d);
	unlink(path);
}
END_TEST

/* A pipe has no size: the buffer starts at 64 KiB and doubles. */
START_TEST(test_read_pipe)
{
	int fds[2];
	pid_t pid;
	struct dc_diag d;
	size_t len = 0;
	char *buf, path[64];
	const size_t n = 200000; /* 64 Ki -> 128 Ki -> 256 Ki: 3 allocations */

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static char block[1000];
		close(fds[0]);
		memset(block, 'y', sizeof(block));
		for (size_t i = 0; i < n / sizeof(block); i++)
			if (write(fds[1], block, sizeof(block)) != (ssize_t)sizeof(block))
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	dc_diag_init(&d);
	dc_alloc_fail_at(0);
	buf = dc_check_read_file(path, (size_t)1 << 20, &len, &d);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(dc_alloc_count(), 3);
	ck_assert_uint_eq(len, n);
	ck_assert_int_eq(buf[n - 1], 'y');
	free(buf);
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	dc_diag_release(&d);
}
END_TEST

/* Runs dc_check_budgets on `report` with the --check-max arguments in
 * args (NULL-terminated); returns its result, the lines in out. */
static int budgets(const char *report, const char *const *args, struct dc_buf *out, size_t *exceeded,
		   struct dc_diag *d)
{
	struct dc_check_max m[8];
	size_t n = 0;
	int rc;
	char err[256];
	for (; args[n]; n++)
		ck_assert_msg(dc_check_max_parse(args[n], &m[n], err, sizeof(err)) == 0, "%s: %s", args[n], err);
	dc_buf_init(out);
	dc_diag_init(d);
	rc = dc_check_budgets(report, strlen(report), m, n, out, exceeded, d);
	for (size_t i = 0; i < n; i++)
		free(m[i].path);
	return rc;
}

START_TEST(test_budgets)
{
	/* 80 GiB = 85,899,345,920 bytes; the peak is one byte over it */
	const char *r = "{\"memory\": {\"per_rank\": {\"peak_bytes\": 85899345921}}, \"comm\": {\"time_s\": 0.5, "
			"\"groups\": [{\"busbw_GBps\": 60}]}, \"summary\": {\"warnings\": 2, \"fits\": true}}";
	static const char *const over[] = {"memory.per_rank.peak_bytes=80GiB", "comm.time_s=0.5s",
					   "comm.groups[0].busbw_GBps=50 GB/s", "summary.warnings=1", NULL};
	static const char *const within[] = {"memory.per_rank.peak_bytes=85899345921", "comm.time_s=500 ms",
					     "comm.groups[0].busbw_GBps=480 Gb/s", NULL};
	static const char *const missing_parsed[] = {"memory.per_rank.peak=1", "comm.groups[1].busbw_GBps=1",
						     "summary.fits=1", "comm=1", NULL};
	struct dc_buf out;
	struct dc_diag d;
	size_t exceeded = 99;
	char err[256];
	struct dc_check_max m;

	ck_assert_int_eq(budgets(r, over, &out, &exceeded, &d), 0);
	/* 0.5 s is not above 0.5 s: a budget is a maximum, the value may reach it */
	ck_assert_uint_eq(exceeded, 3);
	ck_assert_str_eq(out.data, "memory.per_rank.peak_bytes: 85899345921 exceeds the budget 80GiB (85899345920) by "
				   "1.16e-09%\n"
				   "comm.groups[0].busbw_GBps: 60 exceeds the budget 50 GB/s (50) by 20%\n"
				   "summary.warnings: 2 exceeds the budget 1 by 100%\n");
	dc_buf_release(&out);
	dc_diag_release(&d);

	ck_assert_int_eq(budgets(r, within, &out, &exceeded, &d), 0);
	ck_assert_uint_eq(exceeded, 0); /* 480 Gb/s = 60 GB/s */
	ck_assert_uint_eq(out.len, 0);
	dc_buf_release(&out);
	dc_diag_release(&d);

	ck_assert_int_eq(budgets(r, missing_parsed, &out, &exceeded, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_uint_eq(d.count, 4); /* every bad path, not just the first */
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-max': 'memory.per_rank.peak': not a field of the report; did you mean 'memory.per_rank.peak_bytes'?");
	ck_assert_str_eq(d.entries[1].text,
			 "distcalc: error: '--check-max': 'comm.groups[1].busbw_GBps': not a field of the report: 'comm.groups' has no row [1]");
	ck_assert_str_eq(d.entries[2].text,
			 "distcalc: error: '--check-max': 'summary.fits': not a number in the report, it holds true");
	ck_assert_str_eq(d.entries[3].text,
			 "distcalc: error: '--check-max': 'comm': not a number in the report, it holds an object");
	dc_buf_release(&out);
	dc_diag_release(&d);

	/* the unit comes from the key; a key without one takes plain numbers */
	ck_assert_int_eq(dc_check_max_parse("a.peak_bytes=1.5 KiB", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == 1536.0);
	ck_assert_str_eq(m.path, "a.peak_bytes");
	ck_assert_str_eq(m.value, "1.5 KiB");
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("x.round_time_s=2 ms", &m, err, sizeof(err)), 0);
	ck_assert(fabs(m.limit - 2e-3) <= 1e-15);
	free(m.path);
	/* a rate ending in _per_s is not a time: a plain number, no warning
	 * about seconds, no time unit; one in bytes a second is a bandwidth */
	ck_assert_int_eq(dc_check_max_parse("summary.tokens_per_s=24000", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == 24000.0);
	ck_assert_str_eq(m.warn, "");
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("summary.tokens_per_s=1 ms", &m, err, sizeof(err)), 0);
	ck_assert_int_eq(m.no_unit, 1);
	free(m.path);
	/* seconds per token are a time (its CSV unit is s), a rate of
	 * tokens a second per GPU is not */
	ck_assert_int_eq(dc_check_max_parse("step.gpu_s_per_token=1 ms", &m, err, sizeof(err)), 0);
	ck_assert(fabs(m.limit - 1e-3) <= 1e-18);
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("step.tokens_per_s_per_gpu=4000", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.warn, "");
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("step.host_bandwidth_bytes_per_s=64 GB/s", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == 64e9);
	free(m.path);
	/* a unit on a field without one is reported by dc_check_budgets, once
	 * the path is known to be a field (a typo is named as that first) */
	ck_assert_int_eq(dc_check_max_parse("x.params_total=7 GiB", &m, err, sizeof(err)), 0);
	ck_assert_int_eq(m.no_unit, 1);
	free(m.path);
	/* a field without a unit may be signed (loss.rank_rel_error), and
	 * its budget or floor too; a negative one with a unit is refused as
	 * the unit's parser refuses it */
	ck_assert_int_eq(dc_check_max_parse("loss.rank_rel_error=-0.02", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == -0.02);
	ck_assert_int_eq(m.no_unit, 0);
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("summary.warnings=-1", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == -1.0);
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("summary.peak_bytes=-1", &m, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "must not be negative, got '-1'");
	dc_alloc_fail_at(1);
	ck_assert_int_eq(dc_check_max_parse("x.params_total=7", &m, err, sizeof(err)), -1);
	dc_alloc_fail_at(0);
	ck_assert_str_eq(err, "out of memory");
}
END_TEST

/* --check-min floors, field-name typos and a unit on a field without one. */
START_TEST(test_floors_and_typos)
{
	const char *r = "{\"step\": {\"tokens_per_s_per_gpu\": 2999.5, \"time_s\": 2}, \"summary\": {\"peak_bytes\": 10, \"warnings\": 0}}";
	static const char *const floors[] = {"step.tokens_per_s_per_gpu=3000", "step.time_s=2", NULL};
	static const char *const typos[] = {"summary.peak_byte=80GiB", "step.tokens_per_s_per_gpuu=1", "summary.warnings=1 s",
					    "memory.per_rank.peak_bytes=80GiB", "step.step_time_s=1s", "summary.peak=1GiB",
					    NULL};
	struct dc_buf out;
	struct dc_diag d;
	size_t exceeded = 99;
	struct dc_check_max m[4];
	char err[256];

	/* 2999.5 is below the floor 3000; 2 s is not below 2 s */
	for (size_t i = 0; floors[i]; i++) {
		ck_assert_int_eq(dc_check_max_parse(floors[i], &m[i], err, sizeof(err)), 0);
		m[i].min = 1;
	}
	dc_buf_init(&out);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_check_budgets(r, strlen(r), m, 2, &out, &exceeded, &d), 0);
	ck_assert_uint_eq(exceeded, 1);
	ck_assert_str_eq(out.data, "step.tokens_per_s_per_gpu: 2999.5 is below the floor 3000 by 0.0167%\n");
	for (size_t i = 0; i < 2; i++)
		free(m[i].path);
	dc_buf_release(&out);
	dc_diag_release(&d);

	ck_assert_int_eq(budgets(r, typos, &out, &exceeded, &d), -1);
	ck_assert_uint_eq(d.count, 6);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-max': 'summary.peak_byte': not a field of the report; did you mean 'summary.peak_bytes'?");
	ck_assert_str_eq(d.entries[1].text, "distcalc: error: '--check-max': 'step.tokens_per_s_per_gpuu': not a field of the report; did you mean 'step.tokens_per_s_per_gpu'?");
	ck_assert_str_eq(d.entries[2].text, "distcalc: error: '--check-max': 'summary.warnings': takes a plain number in the field's own unit (the CSV's unit column: FLOP, 1/s, ...), got '1 s'");
	/* a section the report lacks (left out by --only) is named as such */
	ck_assert_str_eq(d.entries[3].text, "distcalc: error: '--check-max': 'memory.per_rank.peak_bytes': not in the report: it has no 'memory' (a section --only leaves out, the command's or the one a --check file holds, or not one of this experiment's; a sweep's figures are under sweep.rows[i])");
	/* a name past three edits but a word of the field's: the section said
	 * twice, the unit left out */
	ck_assert_str_eq(d.entries[4].text, "distcalc: error: '--check-max': 'step.step_time_s': not a field of the report; did you mean 'step.time_s'?");
	ck_assert_str_eq(d.entries[5].text, "distcalc: error: '--check-max': 'summary.peak': not a field of the report; did you mean 'summary.peak_bytes'?");
	dc_buf_release(&out);
	dc_diag_release(&d);
}
END_TEST

/* A field whose key names bytes or parameters is a count: exact whatever
 * --rtol, even when one side is not whole (37884542976 stored, 30.5 bytes
 * more now: 8e-10 relative, inside rtol 1e-3). */
START_TEST(test_count_fields_exact_whatever_rtol)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"s\": {\"peak_bytes\": 37884542976}}", "{\"s\": {\"peak_bytes\": 37884543006.5}}", 1e-3, &out), 1);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"s\": {\"total_params\": 6738415616}}", "{\"s\": {\"total_params\": 6738415616.25}}", 1e-3, &out), 1);
	dc_buf_release(&out);
	/* a rate is not a count: rtol applies */
	ck_assert_uint_eq(run("{\"s\": {\"bytes_per_s\": 1000000000}}", "{\"s\": {\"bytes_per_s\": 1000000000.5}}", 1e-3, &out), 0);
	dc_buf_release(&out);
}
END_TEST

/* --check-only: fields under the listed paths, at component boundaries. */
START_TEST(test_compare_only)
{
	const char *e = "{" HEADER ", \"memory\": {\"peak_bytes\": 1, \"classes\": [{\"peak_bytes\": 2}]}, "
			"\"memory_x\": 3, \"comm\": {\"time_s\": 0.5, \"bytes\": 4}}";
	const char *a = "{\"distcalc_version\": \"0.1.0\", \"experiment\": \"ring\", \"seed\": 9, "
			"\"memory\": {\"peak_bytes\": 10, \"classes\": [{\"peak_bytes\": 20}]}, \"memory_x\": 30, "
			"\"comm\": {\"time_s\": 0.75, \"bytes\": 4}}";
	struct dc_buf out;
	struct dc_check_result res;
	struct dc_diag d;

	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "memory,comm.bytes", &out,
					       &res, &d, NULL, NULL), 0);
	/* memory.peak_bytes, memory.classes[0].peak_bytes, comm.bytes; not
	 * memory_x, comm.time_s or the header fields that moved */
	ck_assert_uint_eq(res.compared, 3);
	ck_assert_uint_eq(res.differences, 2);
	ck_assert_str_eq(out.data, "memory.peak_bytes: expected 1, got 10 (change +900%)\n"
				   "memory.classes[0].peak_bytes: expected 2, got 20 (change +900%)\n");
	dc_buf_release(&out);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "memory.classes[0]", &out,
					       &res, &d, NULL, NULL), 0);
	ck_assert_uint_eq(res.compared, 1);
	ck_assert_uint_eq(res.differences, 1);
	dc_buf_release(&out);
	dc_diag_release(&d);

	/* a path that matches nothing is named, each of them */
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "mem,comm,ring.x", &out,
					       &res, &d, NULL, NULL), -1);
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_uint_eq(d.count, 2);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-only': 'mem' matches no field of either report");
	ck_assert_str_eq(d.entries[1].text, "distcalc: error: '--check-only': 'ring.x' matches no field of either report");
	dc_buf_release(&out);
	dc_diag_release(&d);

	/* a section missing from the new report is one difference */
	dc_diag_init(&d);
	dc_buf_init(&out);
	a = "{" HEADER ", \"comm\": {\"time_s\": 0.5, \"bytes\": 4}}";
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "memory.peak_bytes", &out,
					       &res, &d, NULL, NULL), 0);
	ck_assert_str_eq(out.data, "memory: expected an object, missing from the new report\n");
	dc_buf_release(&out);
	dc_diag_release(&d);
}
END_TEST

/* Blanks around a budget's PATH and VALUE, and around each --check-only
 * path, are dropped, as --set and --sweep drop them around a value: a CI
 * file's YAML adds them ('80GiB ' was "unknown size unit 'GiB '", and
 * ' step.time_s' matched no field). */
START_TEST(test_blanks_trimmed)
{
	const char *e = "{" HEADER ", \"memory\": {\"peak_bytes\": 1}, \"comm\": {\"time_s\": 0.5, \"bytes\": 4}}";
	const char *a = "{" HEADER ", \"memory\": {\"peak_bytes\": 10}, \"comm\": {\"time_s\": 0.75, \"bytes\": 4}}";
	struct dc_check_max m;
	struct dc_check_result res;
	struct dc_buf out;
	struct dc_diag d;
	char err[256];

	ck_assert_int_eq(dc_check_max_parse("summary.peak_bytes=80GiB ", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.path, "summary.peak_bytes");
	ck_assert_str_eq(m.value, "80GiB");
	ck_assert(m.limit == 85899345920.0);
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse(" summary.peak_bytes = 80 GiB\t", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.path, "summary.peak_bytes");
	ck_assert_str_eq(m.value, "80 GiB");
	ck_assert(m.limit == 85899345920.0);
	free(m.path);
	ck_assert_int_eq(dc_check_max_parse("comm.time_s=\n0.5 s\r\n", &m, err, sizeof(err)), 0);
	ck_assert_str_eq(m.value, "0.5 s");
	ck_assert(m.limit == 0.5);
	free(m.path);
	/* a plain number too: its slip warning quotes it without the blanks */
	ck_assert_int_eq(dc_check_max_parse("step.time_s= 500 ", &m, err, sizeof(err)), 0);
	ck_assert(m.limit == 500);
	ck_assert_str_eq(m.warn, "'step.time_s': 500 is in seconds (a plain number is seconds); if you meant 500 ms, write '500 ms'");
	free(m.path);
	/* blanks alone are no value, nor a path */
	ck_assert_int_eq(dc_check_max_parse("summary.peak_bytes= ", &m, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB");
	ck_assert_int_eq(dc_check_max_parse(" =1", &m, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB");

	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "memory.peak_bytes, comm.bytes ",
					       &out, &res, &d, NULL, NULL), 0);
	ck_assert_uint_eq(res.compared, 2);
	ck_assert_uint_eq(res.differences, 1);
	ck_assert_str_eq(out.data, "memory.peak_bytes: expected 1, got 10 (change +900%)\n");
	dc_buf_release(&out);
	dc_diag_release(&d);
	/* a path of blanks is an empty one */
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare_only(e, strlen(e), "exp.json", a, strlen(a), 1e-9, "memory, ,comm", &out, &res,
					       &d, NULL, NULL), -1);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-only': empty path in 'memory, ,comm'");
	dc_buf_release(&out);
	dc_diag_release(&d);
}
END_TEST

/* Under --only SECTION.TABLE the report holds that table alone: a budget
 * on another field of the section says --only left it out, as one on a
 * section --only leaves out does (it was "'memory.per_rank' has no
 * 'peak_bytes'", as if the report had no such field). */
START_TEST(test_only_table_leaves_out)
{
	const char *r = "{" HEADER ", \"only\": \"memory.per_rank.phases\", \"memory\": {\"per_rank\": {\"phases\": "
			"[{\"phase\": \"forward\", \"total_bytes\": 2097152}]}}, \"warnings\": []}";
	const char *sec = "{" HEADER ", \"only\": \"memory\", \"memory\": {\"per_rank\": {\"peak_bytes\": 5}}}";
	static const char *const args[] = {"memory.per_rank.peak_bytes=1GiB", "memory.classes[0].peak_bytes=1GiB",
					   "memory.per_rank.phases[3].total_bytes=1", "summary.peak_bytes=1",
					   "memory.per_rank.phases[0].total_bytes=1MiB", NULL};
	static const char *const in_section[] = {"memory.per_rank.nope=1", NULL};
	struct dc_buf out;
	struct dc_diag d;
	size_t exceeded = 0;

	ck_assert_int_eq(budgets(r, args, &out, &exceeded, &d), -1);
	ck_assert_uint_eq(d.count, 4);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-max': 'memory.per_rank.peak_bytes': not in the report: --only memory.per_rank.phases (the command's or the one a --check file holds) prints that table alone and leaves out the rest of 'memory'; --only memory prints the whole section");
	ck_assert_str_eq(d.entries[1].text, "distcalc: error: '--check-max': 'memory.classes[0].peak_bytes': not in the report: --only memory.per_rank.phases (the command's or the one a --check file holds) prints that table alone and leaves out the rest of 'memory'; --only memory prints the whole section");
	/* within the table, and in another section, as before */
	ck_assert_str_eq(d.entries[2].text, "distcalc: error: '--check-max': 'memory.per_rank.phases[3].total_bytes': not a field of the report: 'memory.per_rank.phases' has no row [3]");
	ck_assert_str_eq(d.entries[3].text, "distcalc: error: '--check-max': 'summary.peak_bytes': not in the report: it has no 'summary' (a section --only leaves out, the command's or the one a --check file holds, or not one of this experiment's; a sweep's figures are under sweep.rows[i])");
	ck_assert_uint_eq(exceeded, 1);
	ck_assert_str_eq(out.data, "memory.per_rank.phases[0].total_bytes: 2097152 exceeds the budget 1MiB (1048576) by 100%\n");
	dc_buf_release(&out);
	dc_diag_release(&d);
	/* a whole section shown: a field it lacks is its own */
	ck_assert_int_eq(budgets(sec, in_section, &out, &exceeded, &d), -1);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check-max': 'memory.per_rank.nope': not a field of the report: 'memory.per_rank' has no 'nope'");
	dc_buf_release(&out);
	dc_diag_release(&d);
}
END_TEST

/* "-" reads the stored report from standard input: a pipe, or a file from
 * where it stands; descriptor 0 stays open, and it is never streamed (it
 * could not be read twice). */
START_TEST(test_read_stdin)
{
	int fds[2], fd;
	struct dc_diag d;
	size_t len = 0;
	char *buf, path[64];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], "{\"a\": 1}", 8), 8);
	close(fds[1]);
	ck_assert_int_eq(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
	close(fds[0]);
	dc_diag_init(&d);
	buf = dc_check_read_file("-", 4096, &len, &d);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(len, 8);
	ck_assert_str_eq(buf, "{\"a\": 1}");
	free(buf);
	ck_assert_int_ne(fcntl(STDIN_FILENO, F_GETFD), -1);
	ck_assert_int_eq(dc_check_stream_wanted("-"), 0);

	/* a file, read from its offset on; over the limit from there */
	temp_file(path, 1000);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lseek(fd, 990, SEEK_SET), 990);
	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	buf = dc_check_read_file("-", 10, &len, &d);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(len, 10);
	free(buf);
	ck_assert_int_eq(lseek(STDIN_FILENO, 0, SEEK_SET), 0);
	ck_assert_ptr_null(dc_check_read_file("-", 999, &len, &d));
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--check': standard input is larger than 0 MiB");
	unlink(path);
	dc_diag_release(&d);

	/* a directory on standard input says so, naming it as such */
	fd = open("/tmp", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	dc_diag_init(&d);
	ck_assert_ptr_null(dc_check_read_file_as("-", "--config", 4096, &len, &d));
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--config': standard input is a directory");
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	dc_diag_release(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("compare");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_identical);
	tcase_add_test(tc, test_integers_are_exact);
	tcase_add_test(tc, test_count_fields_exact_whatever_rtol);
	tcase_add_test(tc, test_floors_and_typos);
	tcase_add_test(tc, test_floats_use_rtol);
	tcase_add_test(tc, test_one_side_only_and_types);
	tcase_add_test(tc, test_version_and_config_ignored);
	tcase_add_test(tc, test_absurd_expected);
	tcase_add_test(tc, test_integers_above_2_53);
	tcase_add_test(tc, test_seed_is_a_value);
	tcase_add_test(tc, test_long_texts_part_late);
	tcase_add_test(tc, test_bad_expected);
	tcase_add_test(tc, test_trailing_bytes);
	tcase_add_test(tc, test_duplicate_keys);
	tcase_add_test(tc, test_not_a_report);
	tcase_add_test(tc, test_read_file);
	tcase_add_test(tc, test_read_pipe);
	tcase_add_test(tc, test_budgets);
	tcase_add_test(tc, test_compare_only);
	tcase_add_test(tc, test_counts_exact);
	tcase_add_test(tc, test_key_origin_not_compared);
	tcase_add_test(tc, test_counts_add_up);
	tcase_add_test(tc, test_long_number_both_ways);
	tcase_add_test(tc, test_warning_config_prefix);
	tcase_add_test(tc, test_file_fields);
	tcase_add_test(tc, test_blanks_trimmed);
	tcase_add_test(tc, test_only_table_leaves_out);
	tcase_add_test(tc, test_read_stdin);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
