/* check_properties.c - invariants over thousands of generated configs.
 *
 * A seeded generator (SplitMix64, include/distcalc/rng.h) writes valid
 * config JSON; each goes through the real loader and estimators, and
 * relations that must hold whatever the numbers are asserted. The seed is
 * fixed so a failure reproduces; DC_PROPERTY_SEED and DC_PROPERTY_COUNT in
 * the environment change it for exploration.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/ring.h"
#include "distcalc/rng.h"

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static uint64_t pick(struct dc_rng *r, const uint64_t *choices, size_t n)
{
	return choices[dc_rng_range(r, 0, n - 1)];
}

/* Writes a random valid config into buf. */
static void gen_config(struct dc_rng *r, char *buf, size_t len)
{
	static const uint64_t gpn_choices[] = {1, 2, 4, 8, 16};
	static const uint64_t pow2[] = {1, 2, 4, 8};
	static const char *const sharding[] = {"none", "zero1", "zero2", "fsdp"};
	static const char *const orders[] = {"tp-cp-ep-dp-pp", "tp-dp-pp", "dp-tp-pp", "tp-pp-dp",
					     "pp-dp-tp"};
	uint64_t gpn = pick(r, gpn_choices, 5);
	uint64_t nodes = dc_rng_range(r, 1, 16);
	uint64_t world = gpn * nodes;
	uint64_t tp, pp, heads_per_tp, kv_groups, layers, heads, kv, head_dim, hidden;
	/* tp and pp must divide the world */
	do
		tp = pick(r, pow2, 4);
	while (world % tp != 0);
	do
		pp = dc_rng_range(r, 1, 4);
	while ((world / tp) % pp != 0);
	heads_per_tp = dc_rng_range(r, 1, 8);
	heads = tp * heads_per_tp;
	kv_groups = dc_rng_range(r, 1, heads_per_tp);
	while (heads_per_tp % kv_groups != 0)
		kv_groups--;
	kv = tp * kv_groups;
	head_dim = 16 * dc_rng_range(r, 1, 16);
	hidden = heads * head_dim;
	layers = pp * dc_rng_range(r, 1, 12);
	snprintf(buf, len,
		 "{\"model\": {\"num_layers\": %llu, \"hidden_size\": %llu, \"num_attention_heads\": %llu,"
		 " \"num_kv_heads\": %llu, \"ffn_hidden_size\": %llu, \"vocab_size\": %llu,"
		 " \"seq_length\": %llu, \"mlp\": \"%s\"},"
		 " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": %llu, \"gpu_memory\": \"%llu GiB\","
		 " \"intra_node\": {\"bandwidth\": \"%llu GB/s\", \"latency\": \"%llu us\"},"
		 " \"inter_node\": {\"bandwidth\": \"%llu Gb/s\", \"latency\": \"%llu us\"}},"
		 " \"parallel\": {\"tp\": %llu, \"pp\": %llu, \"order\": \"%s\", \"sharding\": \"%s\"},"
		 " \"training\": {\"micro_batch_size\": %llu, \"grad_accum_steps\": %llu},"
		 " \"collective\": {\"ranks\": %llu, \"message_size\": %llu}}",
		 (unsigned long long)layers, (unsigned long long)hidden, (unsigned long long)heads,
		 (unsigned long long)kv, (unsigned long long)(hidden * dc_rng_range(r, 1, 4)),
		 (unsigned long long)dc_rng_range(r, 1000, 200000),
		 (unsigned long long)(128 * dc_rng_range(r, 1, 64)), dc_rng_range(r, 0, 1) ? "swiglu" : "gelu",
		 (unsigned long long)nodes, (unsigned long long)gpn, (unsigned long long)dc_rng_range(r, 16, 192),
		 (unsigned long long)dc_rng_range(r, 10, 900), (unsigned long long)dc_rng_range(r, 0, 20),
		 (unsigned long long)(100 * dc_rng_range(r, 1, 8)), (unsigned long long)dc_rng_range(r, 0, 50),
		 (unsigned long long)tp, (unsigned long long)pp, orders[dc_rng_range(r, 0, 4)],
		 sharding[dc_rng_range(r, 0, 3)], (unsigned long long)dc_rng_range(r, 1, 8),
		 (unsigned long long)dc_rng_range(r, 1, 16), (unsigned long long)dc_rng_range(r, 1, world),
		 (unsigned long long)dc_rng_range(r, 1, 1ULL << 34));
}

static void load_ok(const char *json, struct dc_config *cfg)
{
	struct dc_diag d;
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "gen.json", NULL, 0, cfg, &d) != 0)
		ck_abort_msg("generated config rejected: %s\n%s", d.count ? d.entries[0].text : "?", json);
	dc_diag_release(&d);
}

START_TEST(test_ring_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_u64("DC_PROPERTY_COUNT", 2000);
	char json[2048];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7));
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		struct dc_ring r, fast;
		struct dc_link link, link2;
		enum dc_link_choice ch;
		uint64_t p;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		p = cfg.collective.ranks;
		ch = dc_ring_pick_link(&cfg, p, &link);
		dc_ring_compute(p, cfg.collective.msg_bytes, &link, ch, &r);

		/* time is finite and non-negative; zero exactly when p = 1 */
		ck_assert(isfinite(r.time_s) && r.time_s >= 0);
		ck_assert((p == 1) == (r.time_s == 0));
		/* doubling bandwidth never increases time */
		link2 = link;
		link2.bw_bytes_per_s *= 2;
		dc_ring_compute(p, cfg.collective.msg_bytes, &link2, ch, &fast);
		ck_assert(fast.time_s <= r.time_s);
		/* busbw never exceeds the link bandwidth (equals it when alpha = 0
		 * and p | M) */
		if (r.have_bw)
			ck_assert(r.busbw_GBps <= link.bw_bytes_per_s / 1e9 * (1 + 1e-12));
		/* a ring confined to one node uses the intra-node link under auto */
		ck_assert((ch == DC_LINK_INTRA) == (p <= cfg.cluster.gpus_per_node));

		/* event conservation: every byte sent is received, and each rank's
		 * event bytes equal its totals (enumerate for rings up to 64) */
		if (p <= 64) {
			uint64_t sent[64] = {0}, recv[64] = {0}, total_sent = 0, total_recv = 0;
			for (uint64_t k = 0; k < r.events; k++) {
				struct dc_ring_event e;
				dc_ring_event_at(&r, k, &e);
				ck_assert_uint_eq(e.dst, (e.src + 1) % p);
				ck_assert(e.end_s >= e.start_s && e.end_s <= r.time_s * (1 + 1e-12));
				sent[e.src] += e.bytes;
				recv[e.dst] += e.bytes;
			}
			for (uint64_t k = 0; k < p; k++) {
				ck_assert_uint_eq(sent[k], dc_ring_rank_bytes_sent(&r, k));
				ck_assert_uint_eq(recv[k], dc_ring_rank_bytes_recv(&r, k));
				ck_assert(sent[k] <= r.bytes_sent_max && sent[k] >= r.bytes_sent_min);
				total_sent += sent[k];
				total_recv += recv[k];
			}
			ck_assert_uint_eq(total_sent, total_recv);
			/* 2(p-1) rounds move every chunk p-1 times per phase */
			ck_assert_uint_eq(total_sent, 2 * (p - 1) * cfg.collective.msg_bytes);
		}
	}
}
END_TEST

START_TEST(test_loader_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_u64("DC_PROPERTY_COUNT", 2000);
	char json[2048];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 1);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		/* the layout multiplies out to the world */
		ck_assert_uint_eq(cfg.parallel.dp * cfg.parallel.tp * cfg.parallel.pp, cfg.world_size);
		ck_assert_uint_eq(cfg.world_size, cfg.cluster.num_nodes * cfg.cluster.gpus_per_node);
		/* parameters grow with the shape: adding a layer adds exactly one
		 * layer's worth (independent of the rest) */
		{
			struct dc_model m = cfg.model;
			uint64_t a, b, c;
			ck_assert_int_eq(dc_model_param_count(&m, &a), 0);
			m.num_layers++;
			ck_assert_int_eq(dc_model_param_count(&m, &b), 0);
			m.num_layers++;
			ck_assert_int_eq(dc_model_param_count(&m, &c), 0);
			ck_assert_uint_gt(b, a);
			ck_assert_uint_eq(c - b, b - a);
		}
	}
}
END_TEST

START_TEST(test_outputs_are_deterministic)
{
	struct dc_rng rng;
	char json[2048];
	dc_rng_seed(&rng, 99);
	for (int i = 0; i < 50; i++) {
		struct dc_config cfg;
		struct dc_diag d;
		struct dc_run_info info = {"systems", "gen.json", 7};
		struct dc_render_opts ro = {32};
		struct dc_buf a, b;
		struct dc_report *r1, *r2;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		dc_diag_init(&d);
		r1 = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
		r2 = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
		ck_assert_ptr_nonnull(r1);
		ck_assert_ptr_nonnull(r2);
		dc_buf_init(&a);
		dc_buf_init(&b);
		ck_assert_int_eq(dc_report_render_json(r1, &ro, &a), 0);
		ck_assert_int_eq(dc_report_render_json(r2, &ro, &b), 0);
		ck_assert_str_eq(a.data, b.data);
		dc_buf_release(&a);
		dc_buf_release(&b);
		dc_report_free(r1);
		dc_report_free(r2);
		dc_diag_release(&d);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("properties");
	TCase *tc = tcase_create("generated");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ring_invariants);
	tcase_add_test(tc, test_loader_invariants);
	tcase_add_test(tc, test_outputs_are_deterministic);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
