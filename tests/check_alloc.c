/* check_alloc.c - every allocation of the whole pipeline can fail.
 *
 * For n = 1, 2, ... the n-th allocation (dc_alloc_fail_at, util.h) fails
 * somewhere in loader -> estimators -> table and JSON renderers. Each run
 * must end in a clean error (DC_ERR_INTERNAL from the loader or the runner,
 * or -1 from a renderer): never a crash, never a leak under ASan, and never
 * success with a failed allocation behind it (a half-built report). Once n
 * passes the last allocation the output must be byte-identical to a run
 * without injection.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/svg.h"
#include "distcalc/sweep.h"
#include "distcalc/util.h"

#define SYSTEMS DC_SOURCE_DIR "/configs/systems.json"

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* Loads (unless `loaded` is given), runs `experiment` and renders both
 * formats into *table and *json. Returns 0 on success, 1 when a step failed
 * cleanly. */
static int pipeline(const char *buf, size_t len, const char *const *sets, size_t nsets,
		    const struct dc_config *loaded, const char *experiment, struct dc_buf *table,
		    struct dc_buf *json, unsigned long n)
{
	struct dc_override ov[8];
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_run_info info = {experiment, "t.json", 7};
	struct dc_render_opts ro = {8};
	struct dc_report *r;
	int rc = 0;

	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_buf_init(table);
	dc_buf_init(json);
	dc_diag_init(&d);
	if (loaded)
		cfg = *loaded;
	else if (dc_config_load_buffer(buf, len, "t.json", ov, nsets, &cfg, &d) != 0) {
		ck_assert_msg(d.status == DC_ERR_INTERNAL, "allocation %lu: the load failed with status %d", n,
			      (int)d.status);
		dc_diag_release(&d);
		return 1;
	}
	r = dc_experiment_run(dc_experiment_find(experiment), &cfg, &info, &d);
	if (!r) {
		ck_assert_msg(d.status == DC_ERR_INTERNAL, "allocation %lu: the run failed with status %d", n,
			      (int)d.status);
		dc_diag_release(&d);
		return 1;
	}
	if (dc_report_render_table(r, &ro, table) != 0 || dc_report_render_json(r, &ro, json) != 0)
		rc = 1;
	dc_report_free(r);
	dc_diag_release(&d);
	return rc;
}

/* with_load: inject into the loader too (check_config.c covers it alone, so
 * the other cases load once and inject from the estimators on) */
static void fail_each_allocation(const char *const *sets, size_t nsets, const char *experiment,
				 int with_load)
{
	struct dc_buf want_table, want_json;
	struct dc_config cfg;
	struct dc_diag d;
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	unsigned long n, failures;
	int done = 0;
	struct dc_override ov[8];

	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_alloc_fail_at(0);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(buf, len, "t.json", ov, nsets, &cfg, &d), 0);
	dc_diag_release(&d);
	/* the reference run, nothing injected, from the same start as the
	 * injected ones: the loaded config (whose warnings the report then
	 * does not hold) unless they load too */
	failures = dc_alloc_failures();
	ck_assert_int_eq(pipeline(buf, len, sets, nsets, with_load ? NULL : &cfg, experiment, &want_table, &want_json, 0),
			 0);
	ck_assert_uint_eq(dc_alloc_failures(), failures);
	for (n = 1; n < 1000000 && !done; n++) {
		struct dc_buf table, json;
		int rc;
		failures = dc_alloc_failures();
		dc_alloc_fail_at(n);
		rc = pipeline(buf, len, sets, nsets, with_load ? NULL : &cfg, experiment, &table, &json, n);
		dc_alloc_fail_at(0);
		if (dc_alloc_failures() == failures) {
			/* n is past the last allocation: the real result */
			ck_assert_int_eq(rc, 0);
			ck_assert_str_eq(table.data, want_table.data);
			ck_assert_str_eq(json.data, want_json.data);
			done = 1;
		} else if (rc == 0) {
			ck_abort_msg("%s%s%s: allocation %lu failed, yet the pipeline reported success",
				     experiment, nsets ? " --set " : "", nsets ? sets[0] : "", n);
		}
		dc_buf_release(&table);
		dc_buf_release(&json);
	}
	ck_assert_msg(done, "never ran out of allocations to fail");
	if (with_load) {
		/* the loader allocates (cJSON): injection tested something */
		ck_assert_uint_gt(n, 100);
	} else {
		/* past the loader only the report (itself, the config name, the
		 * views, the warnings) and the two output buffers allocate: the
		 * estimators and the sections never do, whatever the layout;
		 * the buffers grow by doubling, a few times each */
		ck_assert_uint_gt(n, 3);
		ck_assert_uint_le(n, 16);
	}
	dc_buf_release(&want_table);
	dc_buf_release(&want_json);
	free(buf);
}

START_TEST(test_systems_default)
{
	fail_each_allocation(NULL, 0, "systems", 1);
}
END_TEST

START_TEST(test_ring_experiment)
{
	fail_each_allocation(NULL, 0, "ring", 1);
}
END_TEST

/* every estimator branch: fsdp, pp with interleaving, sequence parallelism,
 * recomputation, a warning (tp across nodes) */
START_TEST(test_systems_fsdp_pp)
{
	static const char *const sets[] = {"parallel.tp=2", "parallel.pp=2", "parallel.dp=2",
					   "parallel.sharding=fsdp", "parallel.virtual_pipeline=2",
					   "parallel.sequence_parallel=true", "training.recompute=selective"};
	fail_each_allocation(sets, sizeof(sets) / sizeof(sets[0]), "systems", 0);
}
END_TEST

START_TEST(test_systems_zero2_warning)
{
	static const char *const sets[] = {"parallel.order=dp-tp-pp", "parallel.sharding=zero2",
					   "training.recompute=full", "parallel.fsdp_unit=model"};
	fail_each_allocation(sets, sizeof(sets) / sizeof(sets[0]), "systems", 0);
}
END_TEST

/* A sweep of three points, one valid, rendered as table, JSON
 * and SVG: each allocation fails in turn, from the loader of every point
 * to the chart. */
static int sweep_pipeline(const char *buf, size_t len, struct dc_buf *out, unsigned long n)
{
	static const char *const axes[] = {"parallel.tp=2,3,4"};
	struct dc_sweep_load sl = {NULL, buf, len, "t.json", NULL, NULL, 0, 0};
	struct dc_run_info info = {"systems", "t.json", 7};
	struct dc_render_opts ro = {8};
	struct dc_diag d;
	struct dc_report *r;
	int rc = 0;

	/* one node of 4 GPUs, dp 1: tp 4 runs, tp 2 (dp would be 2) and tp 3
	 * (not a divisor of the heads) do not */
	static const struct dc_override sets[] = {{"cluster.num_nodes=1"}, {"parallel.dp=1"}};
	sl.sets = sets;
	sl.nsets = 2;
	dc_buf_init(out);
	dc_diag_init(&d);
	r = dc_sweep_run(dc_experiment_find("systems"), &sl, axes, 1, NULL, &info, &d);
	if (!r) {
		ck_assert_msg(d.status == DC_ERR_INTERNAL, "allocation %lu: the sweep failed with status %d", n,
			      (int)d.status);
		dc_diag_release(&d);
		return 1;
	}
	ck_assert_uint_eq(dc_sweep_valid_points(r), 1);
	if (dc_report_render_table(r, &ro, out) != 0 || dc_report_render_json(r, &ro, out) != 0 ||
	    dc_report_render_svg(r, out) != 0)
		rc = 1;
	dc_report_free(r);
	dc_diag_release(&d);
	return rc;
}

START_TEST(test_sweep_and_svg)
{
	struct dc_buf want;
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	unsigned long n, failures;
	int done = 0;

	dc_alloc_fail_at(0);
	ck_assert_int_eq(sweep_pipeline(buf, len, &want, 0), 0);
	for (n = 1; n < 1000000 && !done; n++) {
		struct dc_buf out;
		int rc;
		failures = dc_alloc_failures();
		dc_alloc_fail_at(n);
		rc = sweep_pipeline(buf, len, &out, n);
		dc_alloc_fail_at(0);
		if (dc_alloc_failures() == failures) {
			ck_assert_int_eq(rc, 0);
			ck_assert_str_eq(out.data, want.data);
			done = 1;
		} else if (rc == 0) {
			ck_abort_msg("sweep: allocation %lu failed, yet it reported success", n);
		}
		dc_buf_release(&out);
	}
	ck_assert(done);
	/* three loads (cJSON) and a report per valid point */
	ck_assert_uint_gt(n, 300);
	dc_buf_release(&want);
	free(buf);
}
END_TEST

/* Fuzzing found (fuzz_pipeline, out of memory at 2 GiB under ASan): a
 * world of 4 x 444,449 ranks made the topology section store every group's
 * ranks, 3 x world report nodes. Group lists are generated one at a time
 * now, so building the report takes a bounded number of allocations,
 * independent of the world size. */
START_TEST(test_huge_world_is_not_stored)
{
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_run_info info = {"systems", "t.json", 7};
	struct dc_report *r;
	size_t len;
	char *buf = read_all(DC_SOURCE_DIR "/tests/inputs/fuzz_huge_world.json", &len);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(buf, len, "t.json", NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.world_size, 1777796);
	dc_alloc_fail_at(0);
	r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
	ck_assert_ptr_nonnull(r);
	/* the default systems report builds with a few hundred; storing the
	 * groups took over five million */
	ck_assert_uint_lt(dc_alloc_count(), 5000);
	dc_report_free(r);
	dc_diag_release(&d);
	free(buf);
}
END_TEST

/* The counters are shared by every allocating thread (the search's
 * workers, the streamed --check's renderer): 4 threads x 200000
 * allocations count 800000 exactly, and the 400000th of them fails
 * exactly once, whichever thread makes it. With plain counters the
 * threads lose increments (the count comes short, and the n-th can be
 * skipped or failed twice); TSan reports the race. */
#define RACE_THREADS 4
#define RACE_EACH 200000ul

static void *alloc_many(void *arg)
{
	unsigned long *nulls = arg;
	for (unsigned long i = 0; i < RACE_EACH; i++) {
		void *q = dc_malloc(16);
		if (!q)
			++*nulls;
		free(q);
	}
	return NULL;
}

START_TEST(test_counters_across_threads)
{
	pthread_t t[RACE_THREADS];
	unsigned long nulls[RACE_THREADS] = {0}, total = 0, failed = dc_alloc_failures();
	dc_alloc_fail_at(RACE_THREADS * RACE_EACH / 2);
	for (int i = 0; i < RACE_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, alloc_many, &nulls[i]), 0);
	for (int i = 0; i < RACE_THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		total += nulls[i];
	}
	ck_assert_uint_eq(dc_alloc_count(), RACE_THREADS * RACE_EACH);
	ck_assert_uint_eq(total, 1);
	ck_assert_uint_eq(dc_alloc_failures() - failed, 1);
	dc_alloc_fail_at(0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("pipeline");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_systems_default);
	tcase_add_test(tc, test_ring_experiment);
	tcase_add_test(tc, test_sweep_and_svg);
	tcase_add_test(tc, test_systems_fsdp_pp);
	tcase_add_test(tc, test_systems_zero2_warning);
	tcase_add_test(tc, test_huge_world_is_not_stored);
	tcase_add_test(tc, test_counters_across_threads);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
