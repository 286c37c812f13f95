/* check_sweep.c - the sweep module (sweep.h) and the SVG sink (svg.h) as a
 * library: axis checks, the grid's order, metric paths (nested objects,
 * a table's row by index, nulls), the field tables the sinks walk, and
 * charts drawn from a sweep. Figures are worked by hand in the comments;
 * tests/cli/test_sweep.sh and test_plot.sh check the command line. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Text metrics are whole (a user trial: every text cut to 63 bytes): the
 * activation model's assumption is 179 bytes in the report, and so in
 * each row, in JSON as in the table. */
START_TEST(test_text_metrics_whole)
{
	static const char *const axes[] = {"parallel.sharding=none,zero1"};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r = run(axes, 1, "memory.activation_model,step.tp_overlap", &d);
	const char *j, *p;
	ck_assert_ptr_nonnull(r);
	j = json_of(r, &b);
	p = strstr(j, "\"memory.activation_model\": \"assumption: ");
	ck_assert_ptr_nonnull(p);
	/* the text ends where the report's does, with its closing quote */
	p = strchr(p + strlen("\"memory.activation_model\": \""), '"');
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(j, "docs/formulas.md\", \"step.tp_overlap\": \""));
	ck_assert_ptr_nonnull(strstr(j, "(Megatron's async rule)\", \"error\": null"));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* A text with a two-byte UTF-8 character where the old cut fell (bytes
 * 62-63 of a model.hf_config path): whole, so JSON and CSV show the same
 * é (the cut made JSON's \ufffd and CSV's raw byte 0xc3). */
START_TEST(test_text_metric_utf8)
{
	static const char *const axes[] = {"parallel.sharding=none,zero1"};
	char dir[] = "/tmp/check_sweep.XXXXXX", path[200], set[260];
	struct dc_override sets[2] = {{set, 0}, {"model.seq_length=1024", 0}};
	struct dc_sweep_load sl = {GPUS, NULL, 0, NULL, NULL, sets, 2, 0};
	struct dc_run_info info = {"systems", "gpus.json", 7};
	struct dc_render_opts ro = {0};
	struct dc_diag d;
	struct dc_buf b;
	struct dc_report *r;
	size_t n;
	FILE *in, *out;
	char buf[4096];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	n = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	while (n < 62)
		path[n++] = 'a';
	snprintf(path + n, sizeof(path) - n, "\xc3\xa9-gpt2.json");
	ck_assert_uint_eq((unsigned char)path[62], 0xc3);
	in = fopen(DC_SOURCE_DIR "/configs/models/gpt2.json", "rb");
	out = fopen(path, "wb");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
	snprintf(set, sizeof(set), "model.hf_config=%s", path);

	dc_diag_init(&d);
	r = dc_sweep_run(dc_experiment_find("systems"), &sl, axes, 1, "model.hf_config", &info, &d);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(dc_sweep_valid_points(r), 2);
	snprintf(buf, sizeof(buf), "\"model.hf_config\": \"%s\"", path);
	ck_assert_ptr_nonnull(strstr(json_of(r, &b), buf));
	dc_buf_release(&b);
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_csv(r, &ro, &b), 0);
	snprintf(buf, sizeof(buf), ",ok,%s,", path);
	ck_assert_ptr_nonnull(strstr(b.data, buf));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
	remove(path);
	rmdir(dir);
}
END_TEST

/* A JSON-valued field (search.best[].layout) is the object itself in the
 * sweep's JSON, its JSON text in CSV and in the table (not a string cut
 * inside it), and a path inside it is read as --check-max reads it: a key
 * with dots whole, its value in its JSON type. korthikanti-22b's best
 * layout has tp 2 with no headroom and tp 4 with 10% (the search's own
 * tp column says the same). */
#define K22B DC_SOURCE_DIR "/configs/korthikanti-22b.json"
static struct dc_report *search_sweep(const char *metrics, struct dc_diag *d)
{
	static const char *const axes[] = {"search.headroom=0,0.1"};
	struct dc_sweep_load sl = {K22B, NULL, 0, NULL, NULL, NULL, 0, 0};
	struct dc_run_info info = {"search", "korthikanti-22b.json", 0};
	dc_diag_init(d);
	return dc_sweep_run(dc_experiment_find("search"), &sl, axes, 1, metrics, &info, d);
}

START_TEST(test_json_metric)
{
	struct dc_diag d;
	struct dc_buf b;
	struct dc_render_opts ro = {0};
	struct dc_report *r = search_sweep("search.best[0].layout,search.best[0].tp,search.best[0].layout.parallel.tp,"
					   "search.best[0].layout.parallel.sharding,"
					   "search.best[0].layout.parallel.sequence_parallel",
					   &d);
	const char *j;
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(dc_sweep_valid_points(r), 2);
	j = json_of(r, &b);
	ck_assert_ptr_nonnull(strstr(j, "\"search.best[0].layout\": {\"parallel.tp\": 2, \"parallel.cp\": 2, "));
	ck_assert_ptr_nonnull(strstr(j, "\"training.recompute\": \"none\"}, \"search.best[0].tp\": 2, "
					"\"search.best[0].layout.parallel.tp\": 2, "
					"\"search.best[0].layout.parallel.sharding\": \"fsdp\", "
					"\"search.best[0].layout.parallel.sequence_parallel\": true, \"error\": null"));
	ck_assert_ptr_nonnull(strstr(j, "\"search.best[0].tp\": 4, \"search.best[0].layout.parallel.tp\": 4, "));
	dc_buf_release(&b);
	/* CSV: the object's JSON text, quoted; a key's value as any column's */
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_csv(r, &ro, &b), 0);
	ck_assert_ptr_nonnull(strstr(b.data, ",\"{\"\"parallel.tp\"\": 2, \"\"parallel.cp\"\": 2, "));
	ck_assert_ptr_nonnull(strstr(b.data, "\"\"training.recompute\"\": \"\"none\"\"}\",2,2,fsdp,true,"));
	dc_buf_release(&b);
	/* the table shows the text (a JSON-valued column alone it leaves out) */
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &ro, &b), 0);
	ck_assert_ptr_nonnull(strstr(b.data, "{\"parallel.tp\": 4, \"parallel.cp\": 2,"));
	dc_buf_release(&b);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

/* A path inside a JSON value that no point's value has is refused as a
 * field-table path is, with the nearest key or the keys there. */
START_TEST(test_json_metric_misses)
{
	static const struct {
		const char *metrics, *error;
	} cases[] = {
		{"search.best[0].layout.parallel.tpp",
		 "distcalc: error: '--sweep-metrics': 'search.best[0].layout.parallel.tpp': 'search.best[0].layout' has no "
		 "key 'parallel.tpp' (at every point that ran); did you mean 'search.best[0].layout.parallel.tp'?"},
		{"search.best[0].layout.parallel.tp.x",
		 "distcalc: error: '--sweep-metrics': 'search.best[0].layout.parallel.tp.x': "
		 "'search.best[0].layout.parallel.tp' is a number, so no key 'x' (at every point that ran)"},
		{"search.best[0].layout.zzzzzzzzzz",
		 "distcalc: error: '--sweep-metrics': 'search.best[0].layout.zzzzzzzzzz': 'search.best[0].layout' has no "
		 "key 'zzzzzzzzzz' (at every point that ran); its keys: parallel.tp, parallel.cp, "},
		{"search.best[0].layout..tp",
		 "distcalc: error: '--sweep-metrics': 'search.best[0].layout..tp': expected a dotted path such as "
		 "summary.peak_bytes"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dc_diag d;
		struct dc_report *r = search_sweep(cases[i].metrics, &d);
		ck_assert_ptr_null(r);
		ck_assert_int_eq(d.status, DC_ERR_USAGE);
		ck_assert_msg(strncmp(d.entries[d.count - 1].text, cases[i].error, strlen(cases[i].error)) == 0, "%s",
			      d.entries[d.count - 1].text);
		dc_diag_release(&d);
	}
	{
		/* a row past the end of the table is null, as before */
		struct dc_diag d;
		struct dc_buf b;
		struct dc_report *r = search_sweep("search.best[9999].layout.parallel.tp", &d);
		ck_assert_ptr_nonnull(r);
		ck_assert_ptr_nonnull(strstr(json_of(r, &b), "\"search.best[9999].layout.parallel.tp\": null"));
		dc_buf_release(&b);
		dc_report_free(r);
		dc_diag_release(&d);
	}
}
END_TEST

/* Too many points: how many, and how the axes multiply to them. */
START_TEST(test_grid_too_large)
{
	static const char *const axes[] = {"cluster.num_nodes=1,2,3,4,5,6,7,8,9,10,11",
					   "training.micro_batch_size=1,2,3,4,5,6,7,8,9,10",
					   "parallel.tp=1,2,3,4,5,6,7,8,9,10"};
	struct dc_diag d;
	ck_assert_ptr_null(run(axes, 3, NULL, &d));
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--sweep': 1100 points in the grid (11 x 10 x 10); at most 1024");
	dc_diag_release(&d);
	/* 1024 is allowed: the two first axes alone are 110 */
	ck_assert_ptr_null(run(axes, 2, "nosuch.x", &d));
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "no section 'nosuch'"));
	dc_diag_release(&d);
}
END_TEST

/* Each allocation of a sweep with text and JSON metrics fails in turn:
 * the sweep fails as out of memory (its texts freed: the sanitizer build
 * finds a leak), or, past the last allocation, renders as it does
 * without a failure. */
static int alloc_run(int search, struct dc_buf *out, unsigned long n)
{
	static const char *const tp[] = {"parallel.tp=2,3,4"};
	static const char *const headroom[] = {"search.headroom=0.1"};
	struct dc_sweep_load sl = {search ? K22B : GPUS, NULL, 0, NULL, NULL, NULL, 0, 0};
	struct dc_run_info info = {search ? "search" : "systems", "t.json", 7};
	struct dc_render_opts ro = {0};
	struct dc_diag d;
	struct dc_report *r;
	int rc = 0;
	dc_buf_init(out);
	dc_diag_init(&d);
	r = dc_sweep_run(dc_experiment_find(info.experiment), &sl, search ? headroom : tp, 1,
			 search ? "search.best[0].layout,search.best[0].layout.parallel.sharding"
				: "step.tp_overlap,cluster.keys[0].value",
			 &info, &d);
	if (!r) {
		ck_assert_msg(d.status == DC_ERR_INTERNAL, "allocation %lu: the sweep failed with status %d", n,
			      (int)d.status);
		dc_diag_release(&d);
		return 1;
	}
	if (dc_report_render_table(r, &ro, out) != 0 || dc_report_render_json(r, &ro, out) != 0 ||
	    dc_report_render_csv(r, &ro, out) != 0)
		rc = 1;
	dc_report_free(r);
	dc_diag_release(&d);
	return rc;
}

START_TEST(test_texts_out_of_memory)
{
	for (int search = 0; search < 2; search++) {
		struct dc_buf want;
		unsigned long n;
		int done = 0;
		dc_alloc_fail_at(0);
		ck_assert_int_eq(alloc_run(search, &want, 0), 0);
		for (n = 1; n < 1000000 && !done; n++) {
			struct dc_buf out;
			unsigned long failures = dc_alloc_failures();
			int rc;
			dc_alloc_fail_at(n);
			rc = alloc_run(search, &out, n);
			dc_alloc_fail_at(0);
			if (dc_alloc_failures() == failures) {
				ck_assert_int_eq(rc, 0);
				ck_assert_str_eq(out.data, want.data);
				done = 1;
			} else if (rc == 0 && !(search && strstr(out.data, "\"error\": \"search: out of memory\""))) {
				/* (experiment.c says the search's own out of memory as
				 * a config error, DC_ERR_CONFIG: the point's row; not
				 * the sweep's to tell apart) */
				ck_abort_msg("allocation %lu failed, yet the sweep reported success", n);
			}
			dc_buf_release(&out);
		}
		ck_assert(done);
		dc_buf_release(&want);
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
	tcase_add_test(tc, test_text_metrics_whole);
	tcase_add_test(tc, test_text_metric_utf8);
	tcase_add_test(tc, test_json_metric);
	tcase_add_test(tc, test_json_metric_misses);
	tcase_add_test(tc, test_grid_too_large);
	tcase_add_test(tc, test_texts_out_of_memory);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
