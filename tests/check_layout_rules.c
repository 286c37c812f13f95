/* check_layout_rules.c - the loader and the plan's layout rules agree.
 *
 * The search counts layouts by the plan's rules (dc_layout_fault_outer /
 * _inner, plan.h); the loader words the same rules with each key's
 * numbers (config_rules.c). This suite walks a grid of layouts of one
 * small MoE model on 8 GPUs (every tp, cp, pp whose product divides 8,
 * dp the rest, ep, etp, virtual_pipeline, sequence parallelism, HSDP
 * replicas) and asserts that the loader accepts a layout exactly when
 * the plan's rules find no fault: two wordings, one rule. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/plan.h"

/* 8 layers, 8 query and 4 key/value heads, 8 experts (top 2), sequence 64;
 * 16 microbatches, a multiple of every pp tried. */
static int load_layout(uint64_t tp, uint64_t cp, uint64_t pp, uint64_t dp, uint64_t ep, uint64_t etp, uint64_t v,
		       int sp, uint64_t rep, struct dc_config *c, char *why, size_t whylen)
{
	char json[2048], etp_text[32] = "";
	struct dc_diag d;
	int rc;
	if (etp)
		snprintf(etp_text, sizeof(etp_text), ", \"etp\": %llu", (unsigned long long)etp);
	snprintf(json, sizeof(json),
		 "{\"model\": {\"num_layers\": 8, \"hidden_size\": 256, \"num_attention_heads\": 8, \"num_kv_heads\": 4,"
		 " \"ffn_hidden_size\": 512, \"vocab_size\": 1000, \"seq_length\": 64, \"num_experts\": 8,"
		 " \"experts_per_token\": 2},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		 " \"parallel\": {\"tp\": %llu, \"cp\": %llu, \"pp\": %llu, \"dp\": %llu, \"ep\": %llu%s,"
		 " \"virtual_pipeline\": %llu, \"sequence_parallel\": %s, \"dp_replicate\": %llu, \"sharding\": \"zero1\"},"
		 " \"training\": {\"grad_accum_steps\": 16}}",
		 (unsigned long long)tp, (unsigned long long)cp, (unsigned long long)pp, (unsigned long long)dp,
		 (unsigned long long)ep, etp_text, (unsigned long long)v, sp ? "true" : "false", (unsigned long long)rep);
	dc_diag_init(&d);
	rc = dc_config_load_buffer(json, strlen(json), "grid.json", NULL, 0, c, &d);
	snprintf(why, whylen, "%s", d.count ? d.entries[0].text : "");
	dc_diag_release(&d);
	return rc;
}

START_TEST(test_loader_and_plan_agree)
{
	static const uint64_t deg[] = {1, 2, 4, 8};
	uint64_t checked = 0, accepted = 0;
	struct dc_config c, ref;
	char why[512];
	/* the reference input: the same model, one layout the rules accept */
	ck_assert_int_eq(load_layout(1, 1, 1, 8, 1, 0, 1, 0, 1, &ref, why, sizeof(why)), 0);
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 3; b++)
			for (size_t e = 0; e < 3; e++) {
				uint64_t tp = deg[a], cp = deg[b], pp = deg[e];
				if (8 % (tp * cp * pp) != 0)
					continue;
				for (size_t f = 0; f < 4; f++)
					for (uint64_t etp = 0; etp <= 2; etp++)
						for (size_t g = 0; g < 3; g++)
							for (int sp = 0; sp < 2; sp++)
								for (uint64_t rep = 1; rep <= 2; rep++) {
									uint64_t dp = 8 / (tp * cp * pp), ep = deg[f], v = deg[g];
									struct dc_layout lay = {tp, pp, dp, cp, ep, v, sp, DC_SHARD_ZERO1,
												1, 16, rep, etp};
									int plan_ok, loaded;
									loaded = load_layout(tp, cp, pp, dp, ep, etp, v, sp, rep, &c,
											     why, sizeof(why)) == 0;
									plan_ok = dc_layout_fault_outer(&ref, tp, cp, pp) == DC_LF_NONE &&
										  dc_layout_fault_inner(&ref, &lay) == DC_LF_NONE;
									ck_assert_msg(loaded == plan_ok,
										      "tp %llu cp %llu pp %llu dp %llu ep %llu etp %llu v %llu sp %d rep %llu: loader %s, plan %s (%s)",
										      (unsigned long long)tp, (unsigned long long)cp,
										      (unsigned long long)pp, (unsigned long long)dp,
										      (unsigned long long)ep, (unsigned long long)etp,
										      (unsigned long long)v, sp, (unsigned long long)rep,
										      loaded ? "accepts" : "refuses",
										      plan_ok ? "finds no fault" : "finds a fault", why);
									checked++;
									accepted += (uint64_t)loaded;
								}
			}
	fprintf(stderr, "layout_rules: %llu layouts, %llu accepted\n", (unsigned long long)checked, (unsigned long long)accepted);
	/* the grid reaches both sides of the rules */
	ck_assert_uint_gt(accepted, 50);
	ck_assert_uint_gt(checked - accepted, 500);
}
END_TEST

/* A named schedule runs as named or the layout is refused, never priced
 * as 1F1B quietly: DualPipe on pp 4 needs an even number of microbatches,
 * at least 2 x 4 = 8 (DualPipe's step() asserts), so of layouts with 8
 * and with 6 microbatches only the first runs it; without a pipeline
 * there is no schedule to run. */
START_TEST(test_named_schedule_or_refused)
{
	struct dc_config c;
	struct dc_diag d;
	const char *json = "{\"model\": {\"num_layers\": 8, \"hidden_size\": 256, \"num_attention_heads\": 8,"
			   " \"vocab_size\": 1000, \"seq_length\": 64},"
			   " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			   " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
			   " \"parallel\": {\"pp\": 4, \"pipeline_schedule\": \"dualpipe\"},"
			   " \"training\": {\"grad_accum_steps\": 8}}";
	struct dc_layout lay;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(json, strlen(json), "s.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	dc_layout_of(&c, &lay);
	ck_assert_int_eq(dc_layout_schedule(&c, &lay, 1), DC_PIPE_DUALPIPE);
	ck_assert_int_eq(dc_layout_fault_inner(&c, &lay), DC_LF_NONE);
	lay.grad_accum_steps = 6;
	ck_assert_int_eq(dc_layout_schedule(&c, &lay, 1), DC_PIPE_1F1B);
	ck_assert_int_eq(dc_layout_fault_inner(&c, &lay), DC_LF_SCHEDULE);
	lay.pp = 1;
	lay.dp = 8;
	ck_assert_int_eq(dc_layout_fault_inner(&c, &lay), DC_LF_NONE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout_rules");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_loader_and_plan_agree);
	tcase_add_test(tc, test_named_schedule_or_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
