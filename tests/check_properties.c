/* check_properties.c - invariants over thousands of generated configs.
 *
 * A seeded generator (SplitMix64, include/distcalc/rng.h) writes valid
 * config JSON (pp up to 8, interleaving, every sharding, sequence
 * parallelism, recomputation, ...); each goes through the real loader and
 * estimators, and relations that must hold whatever the numbers are
 * asserted: ring events conserve bytes; model states fsdp <= zero2 <= zero1
 * <= none and never grow with dp; global batch x seq = tokens; rank ->
 * coordinates is a bijection and each axis's groups partition the ranks;
 * every time is finite, non-negative, never below bytes / bandwidth and
 * never grows when bandwidth doubles; table and JSON carry the same
 * numbers. The seed is fixed so a failure reproduces; DC_PROPERTY_SEED and
 * DC_PROPERTY_COUNT (default 2000) in the environment change it.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/batch.h"
#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/section.h"
#include "distcalc/ring.h"
#include "distcalc/rng.h"
#include "distcalc/topology.h"

/* ck_assert marks a point through the fork-mode pipe on every success,
 * which dominates loops over millions of values; these only call into Check
 * when the relation fails. */
#define HOLDS(cond)                                                                                  \
	do {                                                                                         \
		if (!(cond))                                                                         \
			ck_abort_msg("%s:%d: '%s' does not hold", __FILE__, __LINE__, #cond);          \
	} while (0)
#define HOLDS_EQ(a, b)                                                                               \
	do {                                                                                         \
		uint64_t a_ = (a), b_ = (b);                                                         \
		if (a_ != b_)                                                                        \
			ck_abort_msg("%s:%d: %s == %llu, %s == %llu", __FILE__, __LINE__, #a,            \
				     (unsigned long long)a_, #b, (unsigned long long)b_);                  \
	} while (0)

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

/* DC_PROPERTY_COUNT: a count that would skip every draw (halved or
 * quartered by some tests) passes nothing, so it is refused; a seed is
 * any number */
static uint64_t env_count(void)
{
	uint64_t n = env_u64("DC_PROPERTY_COUNT", 2000);
	ck_assert_msg(n >= 4, "DC_PROPERTY_COUNT must be at least 4, got %llu", (unsigned long long)n);
	return n;
}

static uint64_t pick(struct dc_rng *r, const uint64_t *choices, size_t n)
{
	return choices[dc_rng_range(r, 0, n - 1)];
}

/* What the generator chose, for tests that re-load a config with changes. */
struct gen_info {
	uint64_t nodes, gpn, tp, pp, dp, vp;
	int dp_explicit;
};

/* Writes a random valid config into buf: any world of 1-16 nodes of 1-16
 * GPUs, tp a power of two, pp up to 8 (with an interleaved schedule, v up
 * to 3, when pp > 1), every sharding, FSDP unit and resharding choice,
 * sequence parallelism when tp > 1, every recompute mode, flash or eager
 * attention with or without dropout, tied or untied
 * embeddings, GQA, dp given or derived, and varied buckets and overheads. */
static void gen_config_info(struct dc_rng *r, char *buf, size_t len, struct gen_info *gi)
{
	static const uint64_t gpn_choices[] = {1, 2, 4, 8, 16};
	static const uint64_t pow2[] = {1, 2, 4, 8};
	static const char *const sharding[] = {"none", "zero1", "zero2", "fsdp"};
	static const char *const recompute[] = {"none", "selective", "full", "op"};
	static const char *const orders[] = {"tp-cp-ep-dp-pp", "tp-dp-pp", "dp-tp-pp", "tp-pp-dp",
					     "pp-dp-tp"};
	uint64_t gpn = pick(r, gpn_choices, 5);
	uint64_t nodes = dc_rng_range(r, 1, 16);
	uint64_t world = gpn * nodes;
	uint64_t tp, pp, vp = 1, gas, heads_per_tp, kv_groups, layers, heads, kv, head_dim, hidden;
	int sp, dp_explicit = (int)dc_rng_range(r, 0, 1);
	int eager = (int)dc_rng_range(r, 0, 1), dropout = (int)dc_rng_range(r, 0, 1);
	char dp_text[48] = "";
	/* tp and pp must divide the world */
	do
		tp = pick(r, pow2, 4);
	while (world % tp != 0);
	do
		pp = dc_rng_range(r, 1, 8);
	while ((world / tp) % pp != 0);
	if (pp > 1 && dc_rng_range(r, 0, 2) == 0)
		vp = dc_rng_range(r, 2, 3);
	/* the interleaved schedule needs accumulation steps a multiple of pp */
	gas = vp > 1 ? pp * dc_rng_range(r, 1, 4) : dc_rng_range(r, 1, 16);
	sp = tp > 1 && dc_rng_range(r, 0, 1);
	heads_per_tp = dc_rng_range(r, 1, 8);
	heads = tp * heads_per_tp;
	kv_groups = dc_rng_range(r, 1, heads_per_tp);
	while (heads_per_tp % kv_groups != 0)
		kv_groups--;
	kv = tp * kv_groups;
	head_dim = 16 * dc_rng_range(r, 1, 16);
	hidden = heads * head_dim;
	layers = pp * vp * dc_rng_range(r, 1, vp > 1 ? 6 : 12);
	if (dp_explicit)
		snprintf(dp_text, sizeof(dp_text), "\"dp\": %llu, ", (unsigned long long)(world / tp / pp));
	snprintf(buf, len,
		 "{\"model\": {\"num_layers\": %llu, \"hidden_size\": %llu, \"num_attention_heads\": %llu,"
		 " \"num_kv_heads\": %llu, \"ffn_hidden_size\": %llu, \"vocab_size\": %llu,"
		 " \"seq_length\": %llu, \"mlp\": \"%s\", \"tie_word_embeddings\": %s, \"dropout\": %s},"
		 " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": %llu, \"gpu_memory\": \"%llu GiB\","
		 " \"intra_node\": {\"bandwidth\": \"%llu GB/s\", \"latency\": \"%llu us\"},"
		 " \"inter_node\": {\"bandwidth\": \"%llu Gb/s\", \"latency\": \"%llu us\"}},"
		 " \"parallel\": {%s\"tp\": %llu, \"pp\": %llu, \"order\": \"%s\", \"sharding\": \"%s\","
		 " \"reshard_after_forward\": %s, \"fsdp_unit\": \"%s\", \"bucket_size\": \"%llu MiB\","
		 " \"sequence_parallel\": %s, \"virtual_pipeline\": %llu},"
		 " \"training\": {\"micro_batch_size\": %llu, \"grad_accum_steps\": %llu, \"recompute\": \"%s\","
		 " \"attention\": \"%s\"},"
		 " \"memory\": {\"allocator_reserve\": %g},"
		 " \"collective\": {\"ranks\": %llu, \"message_size\": %llu}}",
		 (unsigned long long)layers, (unsigned long long)hidden, (unsigned long long)heads,
		 (unsigned long long)kv, (unsigned long long)(hidden * dc_rng_range(r, 1, 4)),
		 (unsigned long long)dc_rng_range(r, 1000, 200000),
		 (unsigned long long)(128 * dc_rng_range(r, 1, 64)), dc_rng_range(r, 0, 1) ? "swiglu" : "gelu",
		 dc_rng_range(r, 0, 1) ? "true" : "false", dropout ? "true" : "false", (unsigned long long)nodes,
		 (unsigned long long)gpn,
		 (unsigned long long)dc_rng_range(r, 16, 192), (unsigned long long)dc_rng_range(r, 10, 900),
		 (unsigned long long)dc_rng_range(r, 0, 20), (unsigned long long)(100 * dc_rng_range(r, 1, 8)),
		 (unsigned long long)dc_rng_range(r, 0, 50), dp_text, (unsigned long long)tp,
		 (unsigned long long)pp, orders[dc_rng_range(r, 0, 4)], sharding[dc_rng_range(r, 0, 3)],
		 dc_rng_range(r, 0, 1) ? "true" : "false", dc_rng_range(r, 0, 3) ? "layer" : "model",
		 (unsigned long long)dc_rng_range(r, 1, 64), sp ? "true" : "false", (unsigned long long)vp,
		 (unsigned long long)dc_rng_range(r, 1, 8), (unsigned long long)gas,
		 recompute[dc_rng_range(r, 0, 3)], eager ? "eager" : "flash", (double)dc_rng_range(r, 0, 10) / 100.0,
		 (unsigned long long)dc_rng_range(r, 1, world), (unsigned long long)dc_rng_range(r, 1, 1ULL << 34));
	if (gi) {
		gi->nodes = nodes;
		gi->gpn = gpn;
		gi->tp = tp;
		gi->pp = pp;
		gi->dp = world / tp / pp;
		gi->vp = vp;
		gi->dp_explicit = dp_explicit;
	}
}

static void gen_config(struct dc_rng *r, char *buf, size_t len)
{
	gen_config_info(r, buf, len, NULL);
}

/* Loads json with --set overrides; the generator only writes valid configs. */
static void load_set(const char *json, const char *const *sets, size_t nsets, struct dc_config *cfg)
{
	struct dc_override ov[4];
	struct dc_diag d;

	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "gen.json", ov, nsets, cfg, &d) != 0)
		ck_abort_msg("generated config rejected: %s\n%s%s%s", d.count ? d.entries[0].text : "?", json,
			     nsets ? "\n--set " : "", nsets ? sets[0] : "");
	dc_diag_release(&d);
}

static void load_ok(const char *json, struct dc_config *cfg)
{
	load_set(json, NULL, 0, cfg);
}

START_TEST(test_ring_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_count();
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7));
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		struct dc_plan plan;
		struct dc_ring r, fast;
		struct dc_link link, link2;
		enum dc_link_choice ch;
		uint64_t p, msg;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		HOLDS(dc_plan_derive(&cfg, &plan) == 0);
		p = plan.ring_ranks;
		msg = plan.ring_msg_bytes;
		HOLDS_EQ(p, cfg.collective.ranks);
		HOLDS_EQ(msg, cfg.collective.msg_bytes);
		ch = plan.ring_link.choice;
		link = plan.ring_link.params;
		dc_ring_compute(p, msg, &link, ch, &r);

		/* time is finite and non-negative; zero exactly when p = 1 */
		HOLDS(isfinite(r.time_s) && r.time_s >= 0);
		HOLDS((p == 1) == (r.time_s == 0));
		/* doubling bandwidth never increases time */
		link2 = link;
		link2.bw_bytes_per_s *= 2;
		dc_ring_compute(p, msg, &link2, ch, &fast);
		HOLDS(fast.time_s <= r.time_s);
		/* busbw never exceeds the link bandwidth (equals it when alpha = 0
		 * and p | M) */
		if (r.have_bw)
			HOLDS(r.busbw_GBps <= link.bw_bytes_per_s / 1e9 * (1 + 1e-12));
		/* a ring confined to one node uses the intra-node link under auto */
		HOLDS((ch == DC_LINK_INTRA) == (p <= cfg.cluster.gpus_per_node));

		/* event conservation: every byte sent is received, and each rank's
		 * event bytes equal its totals (enumerate for rings up to 64) */
		if (p <= 64) {
			uint64_t sent[64] = {0}, recv[64] = {0}, total_sent = 0, total_recv = 0;
			for (uint64_t k = 0; k < r.events; k++) {
				struct dc_ring_event e;
				dc_ring_event_at(&r, k, &e);
				HOLDS_EQ(e.dst, (e.src + 1) % p);
				HOLDS(e.end_s >= e.start_s && e.end_s <= r.time_s * (1 + 1e-12));
				sent[e.src] += e.bytes;
				recv[e.dst] += e.bytes;
			}
			for (uint64_t k = 0; k < p; k++) {
				HOLDS_EQ(sent[k], dc_ring_rank_bytes_sent(&r, k));
				HOLDS_EQ(recv[k], dc_ring_rank_bytes_recv(&r, k));
				HOLDS(sent[k] <= r.bytes_sent_max && sent[k] >= r.bytes_sent_min);
				total_sent += sent[k];
				total_recv += recv[k];
			}
			HOLDS_EQ(total_sent, total_recv);
			/* 2(p-1) rounds move every chunk p-1 times per phase */
			HOLDS_EQ(total_sent, 2 * (p - 1) * msg);
		}
	}
}
END_TEST

START_TEST(test_loader_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_count();
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 1);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		/* the layout multiplies out to the world */
		HOLDS_EQ(cfg.parallel.dp * cfg.parallel.tp * cfg.parallel.pp, cfg.world_size);
		HOLDS_EQ(cfg.world_size, cfg.cluster.num_nodes * cfg.cluster.gpus_per_node);
		/* parameters grow with the shape: adding a layer adds exactly one
		 * layer's worth (independent of the rest) */
		{
			struct dc_model m = cfg.model;
			uint64_t a, b, c;
			HOLDS(dc_model_param_count(&m, &a) == 0);
			m.num_layers++;
			HOLDS(dc_model_param_count(&m, &b) == 0);
			m.num_layers++;
			HOLDS(dc_model_param_count(&m, &c) == 0);
			ck_assert_uint_gt(b, a);
			HOLDS_EQ(c - b, b - a);
		}
	}
}
END_TEST

START_TEST(test_outputs_are_deterministic)
{
	struct dc_rng rng;
	char json[4096];
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
		/* a run reports every warning in its diag: a second run gets its own */
		dc_diag_release(&d);
		dc_diag_init(&d);
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

/* Model states of one rank on `stage` under `sh`. */
static uint64_t states_under(const struct dc_config *cfg, enum dc_sharding sh, uint64_t stage,
			     struct dc_mem_ledger *l)
{
	struct dc_config c = *cfg;
	struct dc_plan p;
	const char *err = NULL;
	c.parallel.sharding = sh;
	HOLDS(dc_plan_derive(&c, &p) == 0);
	if (dc_memory_stage(&p, stage, l, &err) != 0)
		ck_abort_msg("ledger failed: %s", err ? err : "?");
	return l->model_states_bytes;
}

/* ZeRO section 5: sharding more states never costs more, and more data
 * parallel ranks never cost more per rank, whatever the sharding; the
 * states do not depend on recomputation or sequence parallelism. */
START_TEST(test_memory_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_count() / 2;
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 2);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg, more[2], other;
		struct gen_info gi;
		char set_nodes[2][64], set_dp[2][64];
		uint64_t per_param;

		gen_config_info(&rng, json, sizeof(json), &gi);
		load_ok(json, &cfg);
		per_param = cfg.precision.param_bytes + cfg.precision.grad_bytes + cfg.precision.master_bytes +
			    cfg.precision.optimizer_bytes;
		/* the same layout on 2x and 3x the nodes: dp grows, tp and pp stay */
		for (int k = 0; k < 2; k++) {
			const char *sets[2];
			snprintf(set_nodes[k], sizeof(set_nodes[k]), "cluster.num_nodes=%llu",
				 (unsigned long long)(gi.nodes * (uint64_t)(k + 2)));
			snprintf(set_dp[k], sizeof(set_dp[k]), "parallel.dp=%llu",
				 (unsigned long long)(gi.dp * (uint64_t)(k + 2)));
			sets[0] = set_nodes[k];
			sets[1] = set_dp[k];
			load_set(json, sets, gi.dp_explicit ? 2 : 1, &more[k]);
			HOLDS_EQ(more[k].parallel.dp, gi.dp * (uint64_t)(k + 2));
		}
		for (uint64_t st = 0; st < cfg.parallel.pp; st++) {
			struct dc_mem_ledger l, m;
			uint64_t s[4], total;
			for (int sh = 0; sh < 4; sh++)
				s[sh] = states_under(&cfg, (enum dc_sharding)sh, st, &l);
			total = l.p.total;
			/* fsdp <= zero2 <= zero1 <= none */
			HOLDS(s[DC_SHARD_FSDP] <= s[DC_SHARD_ZERO2]);
			HOLDS(s[DC_SHARD_ZERO2] <= s[DC_SHARD_ZERO1]);
			HOLDS(s[DC_SHARD_ZERO1] <= s[DC_SHARD_NONE]);
			/* none is the whole 16 B/param (or configured) budget; fsdp
			 * holds ceil(P / dp) of every state */
			HOLDS_EQ(s[DC_SHARD_NONE], total * per_param);
			HOLDS_EQ(s[DC_SHARD_FSDP], (total + cfg.parallel.dp - 1) / cfg.parallel.dp * per_param);
			if (cfg.parallel.dp == 1)
				HOLDS_EQ(s[DC_SHARD_FSDP], s[DC_SHARD_NONE]);
			/* more data-parallel ranks never cost more per rank */
			for (int sh = 0; sh < 4; sh++) {
				uint64_t a = states_under(&more[0], (enum dc_sharding)sh, st, &m);
				uint64_t b = states_under(&more[1], (enum dc_sharding)sh, st, &m);
				if (!(a <= s[sh] && b <= s[sh]))
					ck_abort_msg("sharding %d stage %llu: dp %llu -> %llu B, "
						     "dp x2 -> %llu B, dp x3 -> %llu B\n%s",
						     sh, (unsigned long long)st, (unsigned long long)cfg.parallel.dp,
						     (unsigned long long)s[sh], (unsigned long long)a, (unsigned long long)b, json);
				/* the parameters one rank holds do not depend on dp */
				HOLDS_EQ(m.p.total, total);
			}
			/* recomputation and sequence parallelism change activations,
			 * never the model states, and never add activations */
			states_under(&cfg, cfg.parallel.sharding, st, &l);
			other = cfg;
			other.training.recompute = DC_RECOMPUTE_NONE;
			other.parallel.sequence_parallel = 0;
			states_under(&other, cfg.parallel.sharding, st, &m);
			HOLDS_EQ(l.model_states_bytes, m.model_states_bytes);
			if (!cfg.memory.activation_explicit)
				HOLDS(l.activations_bytes <= m.activations_bytes);
		}
	}
}
END_TEST

/* Global batch = b x accum x dp, tokens = global x seq (course section 3). */
START_TEST(test_batch_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_count();
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 3);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		struct dc_plan p;
		struct dc_batch b;
		const char *err = NULL;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		HOLDS(dc_plan_derive(&cfg, &p) == 0);
		HOLDS(dc_batch_compute(&p, &b, &err) == 0);
		HOLDS_EQ(b.global_batch_size * cfg.model.seq_length, b.tokens_per_step);
		HOLDS_EQ(b.global_batch_size, cfg.training.micro_batch_size *
							       cfg.training.grad_accum_steps * cfg.parallel.dp);
		/* every GPU works on some sample: replicas x GPUs per sample = world */
		HOLDS_EQ(b.replicas * b.gpus_per_sample, cfg.world_size);
	}
}
END_TEST

/* The rank -> coordinates map is a bijection onto the coordinate box, and
 * the groups of every axis partition the ranks; group nodes and links
 * agree with a brute-force count. */
START_TEST(test_topology_invariants)
{
	static const enum dc_axis axes[] = {DC_AXIS_TP, DC_AXIS_DP, DC_AXIS_PP};
	struct dc_rng rng;
	uint64_t n = env_count() / 2;
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 4);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		struct dc_topology t;
		unsigned char *seen;
		uint64_t w;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		dc_topology_init(&cfg, &t);
		w = t.world;
		HOLDS_EQ(t.degree[DC_AXIS_TP] * t.degree[DC_AXIS_DP] * t.degree[DC_AXIS_PP], w);
		seen = calloc(w, 1);
		ck_assert_ptr_nonnull(seen);
		/* bijection: the mixed-radix code of the coordinates (tp fastest,
		 * then dp, then pp: an order independent of parallel.order) hits
		 * every value in [0, world) exactly once */
		for (uint64_t r = 0; r < w; r++) {
			uint64_t c[DC_AXIS_COUNT], code;
			dc_topology_coords(&t, r, c);
			for (int a = 0; a < DC_AXIS_COUNT; a++)
				HOLDS(c[a] < t.degree[a]);
			HOLDS_EQ(c[DC_AXIS_CP], 0);
			HOLDS_EQ(c[DC_AXIS_EP], 0);
			code = c[DC_AXIS_TP] + t.degree[DC_AXIS_TP] * (c[DC_AXIS_DP] + t.degree[DC_AXIS_DP] * c[DC_AXIS_PP]);
			HOLDS(code < w);
			if (seen[code])
				ck_abort_msg("two ranks share coordinates\n%s", json);
			seen[code] = 1;
			HOLDS_EQ(dc_topology_node(&t, r), r / cfg.cluster.gpus_per_node);
		}
		/* every axis's groups cover each rank exactly once */
		for (size_t ai = 0; ai < 3; ai++) {
			enum dc_axis a = axes[ai];
			uint64_t groups = dc_topology_group_count(&t, a), crossing = 0;
			HOLDS_EQ(groups * t.degree[a], w);
			memset(seen, 0, w);
			for (uint64_t g = 0; g < groups; g++) {
				struct dc_group grp;
				uint64_t c0[DC_AXIS_COUNT], nodes = 0, last_node = UINT64_MAX;
				dc_topology_group(&t, a, g, &grp);
				HOLDS_EQ(grp.size, t.degree[a]);
				dc_topology_coords(&t, dc_group_rank(&grp, 0), c0);
				for (uint64_t k = 0; k < grp.size; k++) {
					uint64_t r = dc_group_rank(&grp, k), c[DC_AXIS_COUNT];
					HOLDS(r < w);
					if (seen[r] != 0)
						ck_abort_msg("rank %llu in two %s groups\n%s",
							     (unsigned long long)r, dc_axis_name(a), json);
					seen[r] = 1;
					/* members differ on this axis only, member k at coordinate k */
					dc_topology_coords(&t, r, c);
					for (int b = 0; b < DC_AXIS_COUNT; b++)
						HOLDS_EQ(c[b], b == (int)a ? k : c0[b]);
					/* ranks increase along a group, so distinct nodes are
					 * counted by changes */
					if (r / cfg.cluster.gpus_per_node != last_node) {
						nodes++;
						last_node = r / cfg.cluster.gpus_per_node;
					}
				}
				HOLDS_EQ(dc_group_nodes(&t, &grp), nodes);
				HOLDS((dc_group_link(&t, &grp) == DC_LINK_INTER) == (nodes > 1));
				crossing += nodes > 1;
			}
			for (uint64_t r = 0; r < w; r++)
				if (seen[r] != 1)
					ck_abort_msg("rank %llu in no %s group\n%s", (unsigned long long)r,
						     dc_axis_name(a), json);
			HOLDS_EQ(dc_topology_crossing_groups(&t, a), crossing);
		}
		free(seen);
	}
}
END_TEST

static int near_le(double a, double b)
{
	return a <= b * (1 + 1e-12);
}

/* Whether strategy s's calls (every strategy's, s < 0) run the same
 * algorithm and protocol in a and b */
static int picks_kept(const struct dc_comm *a, const struct dc_comm *b, int s)
{
	for (int i = s < 0 ? 0 : s; i < (s < 0 ? DC_STRAT_COUNT : s + 1); i++) {
		if (a->s[i].ncoll != b->s[i].ncoll)
			return 0;
		for (uint64_t k = 0; k < a->s[i].ncoll; k++)
			if (strcmp(a->s[i].coll[k].algorithm, b->s[i].coll[k].algorithm) != 0 ||
			    strcmp(a->s[i].coll[k].protocol, b->s[i].coll[k].protocol) != 0)
				return 0;
	}
	return 1;
}

/* Communication: every time non-negative and finite, never below bytes /
 * bandwidth, each call's bytes = count x what the ring sends; doubling every
 * link's bandwidth changes no byte count and never increases a time whose
 * calls keep their algorithm and protocol. A call whose pick moves can be
 * slower: NCCL picks on every channel and runs the pick on the channels a
 * small call uses (docs/network-model.md, "The pick first, then the
 * channels"). */
START_TEST(test_comm_invariants)
{
	struct dc_rng rng;
	uint64_t n = env_count();
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 5);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg, fast_cfg;
		struct dc_plan pl, fast_pl;
		struct dc_comm c, fast;
		const char *err = NULL;
		uint64_t sum = 0;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		fast_cfg = cfg;
		fast_cfg.cluster.intra_node.bw_bytes_per_s *= 2;
		fast_cfg.cluster.inter_node.bw_bytes_per_s *= 2;
		HOLDS(dc_plan_derive(&cfg, &pl) == 0 && dc_plan_derive(&fast_cfg, &fast_pl) == 0);
		HOLDS(dc_comm_compute(&pl, &c, &err) == 0);
		HOLDS(dc_comm_compute(&fast_pl, &fast, &err) == 0);
		HOLDS(isfinite(c.time_s) && c.time_s >= 0);
		HOLDS(!picks_kept(&c, &fast, -1) || near_le(fast.time_s, c.time_s));
		HOLDS_EQ(fast.bytes_per_rank, c.bytes_per_rank);
		/* strategies in play follow the layout */
		HOLDS((c.s[DC_STRAT_TP].in_play) == (cfg.parallel.tp > 1));
		HOLDS((c.s[DC_STRAT_PP].in_play) == (cfg.parallel.pp > 1));
		ck_assert_int_eq(c.s[DC_STRAT_DP].in_play,
				 cfg.parallel.dp > 1 && cfg.parallel.sharding != DC_SHARD_FSDP);
		ck_assert_int_eq(c.s[DC_STRAT_FSDP].in_play,
				 cfg.parallel.dp > 1 && cfg.parallel.sharding == DC_SHARD_FSDP);
		for (int s = 0; s < DC_STRAT_COUNT; s++) {
			const struct dc_comm_strategy *st = &c.s[s], *ft = &fast.s[s];
			double bw = st->link_params.bw_bytes_per_s;
			HOLDS(isfinite(st->time_s) && st->time_s >= 0);
			HOLDS(!picks_kept(&c, &fast, s) || near_le(ft->time_s, st->time_s));
			HOLDS_EQ(ft->bytes_per_rank, st->bytes_per_rank);
			HOLDS_EQ(ft->ncoll, st->ncoll);
			sum += st->bytes_per_rank;
			if (st->in_play)
				HOLDS(st->link_params.bw_bytes_per_s > 0);
			for (uint64_t k = 0; k < st->ncoll; k++) {
				const struct dc_coll *x = &st->coll[k];
				uint64_t p = x->group_size, m = x->msg_bytes, per_call;
				/* what the busiest rank sends in one call, worked out
				 * here: M splits into m % p chunks of q + 1 bytes and the
				 * rest of q = floor(M/p). A ReduceScatter or AllGather
				 * sends every chunk but one: M - q at most. An AllReduce
				 * skips two cyclically neighbouring chunks (i+1, then
				 * i+2): two of q when at least two chunks are small,
				 * else q and q + 1 */
				if (p < 2)
					per_call = 0;
				else if (x->kind == DC_COLL_SEND)
					per_call = m;
				else if (x->kind == DC_COLL_ALL_REDUCE)
					per_call = 2 * m - 2 * (m / p) - (p - m % p >= 2 ? 0 : 1);
				else
					per_call = m - m / p;
				/* and the ring lab agrees for AllReduce */
				if (x->kind == DC_COLL_ALL_REDUCE && p >= 2) {
					struct dc_ring ring;
					dc_ring_compute(p, m, &st->link_params, st->link, &ring);
					HOLDS_EQ(ring.bytes_sent_max, per_call);
				}
				HOLDS_EQ(x->bytes_per_rank, x->count * per_call);
				HOLDS(isfinite(x->time_s) && x->time_s >= 0);
				/* faster links never slow a call that keeps its pair */
				if (strcmp(ft->coll[k].algorithm, x->algorithm) == 0 &&
				    strcmp(ft->coll[k].protocol, x->protocol) == 0)
					HOLDS(near_le(ft->coll[k].time_s, x->time_s));
				/* never faster than half the ring's bytes over every link
				 * the rank has at once (NVLS and the hierarchical
				 * algorithm move fewer bytes than the ring, never less
				 * than half): its NVLink port and every NIC of its node */
				if (!near_le((double)x->bytes_per_rank / 2.0 /
						     (cfg.cluster.intra_node.bw_bytes_per_s +
						      (double)cfg.cluster.nics_per_node * cfg.cluster.inter_node.bw_bytes_per_s),
					     x->time_s))
					ck_abort_msg("%s %s: %llu B in %g s over %g B/s\n%s",
						     dc_strategy_name((enum dc_strategy)s), dc_coll_what_label(x->what), (unsigned long long)x->bytes_per_rank, x->time_s, bw, json);
				HOLDS(x->count > 0 && x->msg_bytes > 0);
			}
		}
		HOLDS_EQ(c.bytes_per_rank, sum);
	}
}
END_TEST

/* ---- table and JSON carry the same numbers ---- */

/* Table text of an exact count: thousands separated by commas (written
 * here, not taken from report.c). */
static void grouped(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	size_t n, o = 0;
	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	n = strlen(digits);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

struct tokens {
	char **t;
	size_t n;
	const char *text; /* the section, for strings */
	size_t text_len;
};

/* Splits the section [from, to) of a table into words, stripping the
 * brackets and separators around numbers: "(3,369,607,168" -> "3,369,607,168". */
static void tokenize(const char *from, const char *to, struct tokens *tk)
{
	size_t cap = 64;
	const char *p = from;
	tk->t = malloc(cap * sizeof(*tk->t));
	tk->n = 0;
	tk->text = from;
	tk->text_len = (size_t)(to - from);
	ck_assert_ptr_nonnull(tk->t);
	while (p < to) {
		const char *s, *e;
		while (p < to && (*p == ' ' || *p == '\n'))
			p++;
		s = p;
		while (p < to && *p != ' ' && *p != '\n')
			p++;
		e = p;
		while (s < e && (*s == '(' || *s == '['))
			s++;
		while (e > s && (e[-1] == ')' || e[-1] == ']' || e[-1] == ','))
			e--;
		if (e == s)
			continue;
		if (tk->n == cap) {
			cap *= 2;
			tk->t = realloc(tk->t, cap * sizeof(*tk->t));
			ck_assert_ptr_nonnull(tk->t);
		}
		tk->t[tk->n] = malloc((size_t)(e - s) + 1);
		ck_assert_ptr_nonnull(tk->t[tk->n]);
		memcpy(tk->t[tk->n], s, (size_t)(e - s));
		tk->t[tk->n][e - s] = '\0';
		tk->n++;
	}
}

static int has_token(const struct tokens *tk, const char *w)
{
	for (size_t i = 0; i < tk->n; i++)
		if (strcmp(tk->t[i], w) == 0)
			return 1;
	return 0;
}

static void tokens_free(struct tokens *tk)
{
	for (size_t i = 0; i < tk->n; i++)
		free(tk->t[i]);
	free(tk->t);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every integer leaf under `node` must be in the table section: exact
 * counts and bytes with thousands separators, except byte columns of table
 * rows (keys ending in _bytes inside arrays), which the table shows in GiB
 * with three decimals (or exact, in byte-count columns), and the "<key>_omitted" counts of an excerpt, which
 * the gap marker prints plainly. Keys ending in _s or GBps are continuous
 * quantities (times, bandwidths), not integer leaves even when whole;
 * strings must appear verbatim. */
static void leaves_in_table(const cJSON *node, int in_array, const struct tokens *tk, const char *path,
			    const char *json)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, node)
	{
		const char *key = c->string ? c->string : "";
		char want[64], alt[64];
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			leaves_in_table(c, in_array || cJSON_IsArray(c), tk, path, json);
			continue;
		}
		if (cJSON_IsString(c)) {
			size_t n = strlen(c->valuestring);
			int found = 0;
			for (size_t i = 0; !found && n <= tk->text_len && i + n <= tk->text_len; i++)
				found = memcmp(tk->text + i, c->valuestring, n) == 0;
			if (!found)
				ck_abort_msg("%s.%s: string \"%s\" not in the table\n%s", path, key, c->valuestring,
					     json);
			continue;
		}
		if (!cJSON_IsNumber(c) || ends_with(key, "_s") || ends_with(key, "GBps"))
			continue;
		ck_assert(c->valuedouble >= 0 && c->valuedouble == floor(c->valuedouble));
		if (ends_with(key, "_members_omitted")) {
			/* a sum over the groups shown: the table marks each group */
			if (!strstr(tk->text, "ranks)"))
				ck_abort_msg("%s.%s: no member marker in the table\n%s", path, key, json);
			continue;
		}
		if (ends_with(key, "_omitted")) {
			/* the marker groups thousands: "... 87,748 events not shown" */
			dc_fmt_u64_grouped(want, (uint64_t)c->valuedouble);
			if (!has_token(tk, want))
				ck_abort_msg("%s.%s = %s: no gap marker in the table\n%s", path, key,
					     want, json);
			continue;
		}
		grouped((uint64_t)c->valuedouble, want, sizeof(want));
		snprintf(alt, sizeof(alt), "%.3f", c->valuedouble / 1073741824.0);
		if (in_array && ends_with(key, "_bytes")) {
			/* or exact, as the activation terms' columns print them */
			if (!has_token(tk, alt) && !has_token(tk, want))
				ck_abort_msg("%s.%s = %s B: %s GiB not in the table\n%s", path, key, want, alt,
					     json);
		} else if (!has_token(tk, want)) {
			ck_abort_msg("%s.%s = %s not in the table\n%s", path, key, want, json);
		}
	}
}

/* The table text from the line `title` to the end of its section (the next
 * heading at the same level: `end_title`, or a blank line when NULL). */
static void section(const char *table, const char *title, const char *end_title, const char **from,
		    const char **to)
{
	const char *s = strstr(table, title), *e;
	if (s == NULL)
		ck_abort_msg("no section \"%s\" in the table", title);
	e = end_title ? strstr(s, end_title) : strstr(s, "\n\n");
	*from = s;
	*to = e ? e : s + strlen(s);
}

START_TEST(test_table_and_json_agree)
{
	static const struct {
		const char *json_path[2]; /* object keys from the root */
		const char *title, *end_title;
	} sections[] = {
		{{"ring", NULL}, "Ring AllReduce (ReduceScatter + AllGather)\n", NULL},
		{{"batch", NULL}, "Batch per training step\n", NULL},
		{{"memory", "per_rank"}, "Rank with the highest peak memory\n", "Classes of ranks with identical ledgers"},
	};
	struct dc_rng rng;
	uint64_t n = env_count() / 4;
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 7) + 6);
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config cfg;
		struct dc_diag d;
		struct dc_run_info info = {"systems", "gen.json", 7};
		struct dc_render_opts ro = {32};
		struct dc_buf tb, jb;
		struct dc_report *r;
		cJSON *root;

		gen_config(&rng, json, sizeof(json));
		load_ok(json, &cfg);
		dc_diag_init(&d);
		r = dc_experiment_run(dc_experiment_find("systems"), &cfg, &info, &d);
		ck_assert_ptr_nonnull(r);
		dc_diag_release(&d);
		/* one report, both renderings */
		dc_buf_init(&tb);
		dc_buf_init(&jb);
		ck_assert_int_eq(dc_report_render_table(r, &ro, &tb), 0);
		ck_assert_int_eq(dc_report_render_json(r, &ro, &jb), 0);
		root = cJSON_ParseWithLength(jb.data, jb.len);
		if (root == NULL)
			ck_abort_msg("JSON does not parse\n%s", json);
		for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
			const cJSON *node = root;
			const char *from, *to;
			struct tokens tk;
			for (int k = 0; k < 2 && sections[s].json_path[k]; k++)
				node = cJSON_GetObjectItemCaseSensitive(node, sections[s].json_path[k]);
			if (!cJSON_IsObject(node))
				ck_abort_msg("no JSON section %s", sections[s].json_path[0]);
			section(tb.data, sections[s].title, sections[s].end_title, &from, &to);
			tokenize(from, to, &tk);
			leaves_in_table(node, 0, &tk, sections[s].json_path[0], json);
			tokens_free(&tk);
		}
		cJSON_Delete(root);
		dc_buf_release(&tb);
		dc_buf_release(&jb);
		dc_report_free(r);
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
	tcase_add_test(tc, test_memory_invariants);
	tcase_add_test(tc, test_batch_invariants);
	tcase_add_test(tc, test_topology_invariants);
	tcase_add_test(tc, test_comm_invariants);
	tcase_add_test(tc, test_table_and_json_agree);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
