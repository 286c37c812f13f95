/* check_sweep.c - the sweep module (sweep.h) and the SVG sink (svg.h) as a
 * library: axis checks, the grid's order, metric paths (nested objects,
 * a table's row by index, nulls), the field tables the sinks walk, and
 * charts drawn from a sweep. Figures are worked by hand in the comments;
 * tests/cli/test_sweep.sh and test_plot.sh check the command line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/svg.h"
#include "distcalc/sweep.h"
#include "distcalc/util.h"

#define GPUS DC_SOURCE_DIR "/configs/sweeps/gpus.json"

START_TEST(test_axis_check)
{
	char err[300];
	ck_assert_uint_eq(dc_sweep_axis_check("cluster.num_nodes=1,2,4,8", err, sizeof(err)), 4);
	ck_assert_uint_eq(dc_sweep_axis_check("parallel.sharding=fsdp", err, sizeof(err)), 1);
	/* a value is anything but a comma, spaces and '=' included */
	ck_assert_uint_eq(dc_sweep_axis_check("cluster.inter_node.bandwidth=100 Gb/s,a=b", err, sizeof(err)), 2);
	ck_assert_uint_eq(dc_sweep_axis_check("cluster.num_nodes", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "expected PATH=V1,V2,..., got 'cluster.num_nodes'");
	ck_assert_uint_eq(dc_sweep_axis_check("cluster.nodes=1", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "unknown config key 'cluster.nodes'");
	ck_assert_uint_eq(dc_sweep_axis_check("parallel=1", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "'parallel' is a section; sweep one of its keys");
	ck_assert_uint_eq(dc_sweep_axis_check("parallel.tp=1,,2", err, sizeof(err)), 0);
	ck_assert_str_eq(err, "'parallel.tp': empty value in '1,,2'");
}
END_TEST

static struct dc_report *run(const char *const *axes, size_t naxes, const char *metrics, struct dc_diag *d)
{
	struct dc_sweep_load sl = {GPUS, NULL, 0, NULL, NULL, NULL, 0, 0};
	struct dc_run_info info = {"systems", "gpus.json", 7};
	dc_diag_init(d);
	return dc_sweep_run(dc_experiment_find("systems"), &sl, axes, naxes, metrics, &info, d);
}

static char *json_of(struct dc_report *r, struct dc_buf *b)
{
	struct dc_render_opts ro = {0};
	dc_buf_init(b);
	ck_assert_int_eq(dc_report_render_json(r, &ro, b), 0);
	return b->data;
}

/* A 2 x 2 grid: the first axis varies slowest; a metric inside a table
 * row by index (the phases in their fixed order: forward first); a row
 * past the end (4 phases) is null. gpus.json: 4 GPUs a node, tp 4, so
 * dp = num_nodes. */
START_TEST(test_grid_and_paths)
{
	static const char *const axes[] = {"cluster.num_nodes=1,2", "parallel.sharding=none,zero1"};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r = run(axes, 2,
				  "summary.fits,memory.per_rank.phases[0].phase,memory.per_rank.phases[7].total_bytes,"
				  "batch.global_batch_size",
				  &d);
	const char *j;
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(dc_sweep_valid_points(r), 4);
	j = json_of(r, &b);
	ck_assert_ptr_nonnull(strstr(j, "{\"point\": 0, \"cluster.num_nodes\": \"1\", \"parallel.sharding\": \"none\", "
					"\"status\": \"ok\", \"summary.fits\": true, "
					"\"memory.per_rank.phases[0].phase\": \"forward\", "
					"\"memory.per_rank.phases[7].total_bytes\": null, \"batch.global_batch_size\": 8, "
					"\"error\": null, \"values\": {\"cluster.num_nodes\": 1, \"parallel.sharding\": \"none\"}}"));
	/* gpus.json is the course config, 8 microbatches of 1 sample a rank:
	 * the global batch is 1 x 8 x dp, 8 on one node, 16 on two */
	ck_assert_ptr_nonnull(strstr(j, "{\"point\": 3, \"cluster.num_nodes\": \"2\", \"parallel.sharding\": \"zero1\", "
					"\"status\": \"ok\", \"summary.fits\": true, "
					"\"memory.per_rank.phases[0].phase\": \"forward\", "
					"\"memory.per_rank.phases[7].total_bytes\": null, \"batch.global_batch_size\": 16, "
					"\"error\": null, \"values\": {\"cluster.num_nodes\": 2, \"parallel.sharding\": \"zero1\"}}"));
	ck_assert_ptr_nonnull(strstr(j, "\"axes\": \"cluster.num_nodes (2) x parallel.sharding (2)\""));
	ck_assert_ptr_nonnull(strstr(j, "\"points\": 4,\n    \"valid\": 4,"));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* No point valid: a report all the same, every row saying why. */
START_TEST(test_nothing_runs)
{
	static const char *const axes[] = {"parallel.tp=3,5"};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r = run(axes, 1, NULL, &d);
	const char *j;
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(dc_sweep_valid_points(r), 0);
	j = json_of(r, &b);
	ck_assert_ptr_nonnull(strstr(j, "\"status\": \"invalid\", \"summary.peak_bytes\": null"));
	ck_assert_ptr_nonnull(strstr(j, "'parallel.tp': must divide model.num_attention_heads (32), got 5"));
	dc_buf_release(&b);
	/* the chart still draws: gaps and markers */
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_svg(r, &b), 0);
	ck_assert_ptr_nonnull(strstr(b.data, "2 of 2 points did not run"));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_bad_metrics)
{
	static const char *const axes[] = {"parallel.tp=4"};
	static const struct {
		const char *metrics, *error;
	} cases[] = {
		{"summary.peak", "distcalc: error: '--sweep-metrics': 'summary.peak': no field 'peak' there"},
		{"summary.peak_byte", "distcalc: error: '--sweep-metrics': 'summary.peak_byte': no field 'peak_byte' there; "
				      "did you mean 'summary.peak_bytes'?"},
		{"memory.per_rank.peak_bytez", "distcalc: error: '--sweep-metrics': 'memory.per_rank.peak_bytez': no field "
					       "'peak_bytez' there; did you mean 'memory.per_rank.peak_bytes'?"},
		{"step.x", "distcalc: error: '--sweep-metrics': 'step.x': no field 'x' there"},
		{"memory.totl", "distcalc: error: '--sweep-metrics': 'memory.totl': no field 'totl' there"},
		{"nosuch.x", "distcalc: error: '--sweep-metrics': 'nosuch.x': experiment 'systems' has no section 'nosuch'"},
		{"memory.per_rank", "distcalc: error: '--sweep-metrics': 'memory.per_rank': not a number or text (an "
				    "object, table or list)"},
		{"memory.per_rank.phases",
		 "distcalc: error: '--sweep-metrics': 'memory.per_rank.phases': 'phases' is a table; pick a row, as in "
		 "phases[0]"},
		{"memory.per_rank.phases[x]", "distcalc: error: '--sweep-metrics': 'memory.per_rank.phases[x]': expected "
					      "a dotted path such as summary.peak_bytes"},
		{"summary.fits[0]", "distcalc: error: '--sweep-metrics': 'summary.fits[0]': expected a dotted path such "
				    "as summary.peak_bytes"},
		{"summary.fits,", "distcalc: error: '--sweep-metrics': empty path in 'summary.fits,'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dc_diag d;
		struct dc_report *r = run(axes, 1, cases[i].metrics, &d);
		ck_assert_ptr_null(r);
		ck_assert_int_eq(d.status, DC_ERR_USAGE);
		ck_assert_uint_eq(d.count, 1);
		if (strcmp(cases[i].error + strlen(cases[i].error) - 6, " there") == 0) {
			/* no near name: the names there follow, the section's
			 * first among them (a student tried model.rank_params
			 * and got no lead) */
			size_t n = strlen(cases[i].error);
			ck_assert_msg(strncmp(d.entries[0].text, cases[i].error, n) == 0 &&
					      strncmp(d.entries[0].text + n, "; its fields: ", 14) == 0,
				      "%s", d.entries[0].text);
		} else {
			ck_assert_str_eq(d.entries[0].text, cases[i].error);
		}
		dc_diag_release(&d);
	}
	{
		/* summary's fields, all of them on the line */
		struct dc_diag d;
		struct dc_report *r = run(axes, 1, "summary.peak", &d);
		ck_assert_ptr_null(r);
		ck_assert_ptr_nonnull(strstr(d.entries[0].text, "; its fields: fits, host_shortfall_bytes, gpu_memory_bytes, peak_bytes,"));
		ck_assert_ptr_null(strstr(d.entries[0].text, " more)"));
		dc_diag_release(&d);
	}
}
END_TEST

/* The ring experiment's headline metrics, and a log axis over decades:
 * 1 KiB, 1 MiB, 1 GiB are 2^10, 2^20, 2^30 bytes, so their ticks stand
 * evenly spaced. */
START_TEST(test_ring_sweep_chart)
{
	static const char *const axes[] = {"collective.message_size=1 KiB,1 MiB,1 GiB"};
	struct dc_sweep_load sl = {GPUS, NULL, 0, NULL, NULL, NULL, 0, 0};
	struct dc_run_info info = {"ring", "gpus.json", 7};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r;
	double x[3];
	const char *p;

	dc_diag_init(&d);
	r = dc_sweep_run(dc_experiment_find("ring"), &sl, axes, 1, NULL, &info, &d);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(dc_sweep_default_metrics(dc_experiment_find("ring")),
			 "ring.time_s,ring.busbw_GBps,ring.bytes_sent_per_rank");
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_svg(r, &b), 0);
	ck_assert_ptr_nonnull(strstr(b.data, "collective.message_size (log scale)"));
	/* three numeric metrics: three panels */
	ck_assert_ptr_nonnull(strstr(b.data, "width=\"800\" height=\"1500\""));
	p = b.data;
	for (int i = 0; i < 3; i++) {
		p = strstr(p, "<circle cx=\"");
		ck_assert_ptr_nonnull(p);
		p += strlen("<circle cx=\"");
		x[i] = strtod(p, NULL);
	}
	ck_assert_double_eq_tol(x[1] - x[0], x[2] - x[1], 0.2);
	ck_assert_double_gt(x[1] - x[0], 100);
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* Every experiment has default metrics: the checkpoint's are its saved
 * bytes, save time, blocking time, save-phase peak and whether the
 * restore fits. A synchronous sharded save (gpus.json) writes every byte
 * at checkpoint.storage_bandwidth and blocks for all of it, so each
 * point's save and blocking time are its saved bytes over that bandwidth:
 * 10 x as long at 1 GB/s as at 10 GB/s, the bytes the same. */
static double number_after(const char *j, const char *key, int nth)
{
	const char *p = j;
	for (int i = 0; i <= nth; i++) {
		p = strstr(p, key);
		ck_assert_ptr_nonnull(p);
		p += strlen(key);
	}
	return strtod(p, NULL);
}

START_TEST(test_checkpoint_default_metrics)
{
	static const char *const axes[] = {"checkpoint.storage_bandwidth=1 GB/s,10 GB/s"};
	struct dc_sweep_load sl = {GPUS, NULL, 0, NULL, NULL, NULL, 0, 0};
	struct dc_run_info info = {"checkpoint", "gpus.json", 7};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r;
	const char *j;
	double saved[2], save[2], block[2];

	dc_diag_init(&d);
	r = dc_sweep_run(dc_experiment_find("checkpoint"), &sl, axes, 1, NULL, &info, &d);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(dc_sweep_valid_points(r), 2);
	j = json_of(r, &b);
	for (int i = 0; i < 2; i++) {
		saved[i] = number_after(j, "\"checkpoint.saved_bytes\": ", i);
		save[i] = number_after(j, "\"checkpoint.save_time_s\": ", i);
		block[i] = number_after(j, "\"checkpoint.blocking_time_s\": ", i);
	}
	ck_assert_double_eq(saved[0], saved[1]);
	ck_assert_double_eq_tol(save[0], saved[0] / 1e9, 1e-9);
	ck_assert_double_eq_tol(save[1], saved[1] / 1e10, 1e-9);
	ck_assert_double_eq(block[0], save[0]);
	ck_assert_double_eq(block[1], save[1]);
	ck_assert_ptr_nonnull(strstr(j, "\"checkpoint.restore.restore_fits\": true"));
	ck_assert_ptr_nonnull(strstr(j, "\"checkpoint.gpu_peak_bytes\": "));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
	/* and the others' default columns name fields their reports have:
	 * a sweep of each runs without --sweep-metrics */
	{
		static const char *const names[] = {"loss", "collectives", "search", "whatif"};
		static const char *const one[] = {"cluster.num_nodes=2"};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			struct dc_run_info in = {names[i], "gpus.json", 7};
			dc_diag_init(&d);
			r = dc_sweep_run(dc_experiment_find(names[i]), &sl, one, 1, NULL, &in, &d);
			ck_assert_msg(r != NULL, "%s", names[i]);
			ck_assert_uint_eq(dc_sweep_valid_points(r), 1);
			dc_report_free(r);
			dc_diag_release(&d);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_axis_check);
	tcase_add_test(tc, test_grid_and_paths);
	tcase_add_test(tc, test_nothing_runs);
	tcase_add_test(tc, test_bad_metrics);
	tcase_add_test(tc, test_ring_sweep_chart);
	tcase_add_test(tc, test_checkpoint_default_metrics);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
