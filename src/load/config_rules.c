/* config_rules.c - the defaults, the GPU, precision and system presets,
 * the required keys, and the rules between keys (one row each: its text,
 * the keys it reads, its check), run in table order once every key read
 * cleanly; and the read-only rule API (config.h). */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "distcalc/hf.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/topo_file.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

#include "config_int.h"

/* ---- defaults and cross-field checks ---- */

/* Does the row's default text write a value (rather than "derived: ...",
 * or nothing)? */
static int literal_default(const struct key *k)
{
	return k->info.default_text[0] && strncmp(k->info.default_text, "derived:", 8) != 0;
}

/* Every row's literal default; what is derived stays 0 until cross_check. */
void dc_cfg_set_defaults(struct dc_config *c)
{
	static const enum dc_axis megatron[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP,
							     DC_AXIS_DP, DC_AXIS_PP};
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &dc_cfg_keys[i];
		void *f;
		if (k->off == NOFF || !literal_default(k))
			continue;
		f = (char *)c + k->off;
		switch (k->kind) {
		case K_COUNT:
		case K_COUNT_AUTO:
		case K_UINT:
		case K_BYTES:
		case K_BYTES_POS:
			*(uint64_t *)f = (uint64_t)k->def;
			break;
		case K_BW:
		case K_TIME:
		case K_FRACTION:
		case K_REAL:
			*(double *)f = k->def;
			break;
		case K_BOOL:
		case K_ENUM:
			*(int *)f = (int)k->def;
			break;
		case K_GPU:
		case K_SECTION:
		case K_ORDER:
		case K_STRING:
		case K_LIST:
		case K_VALUES:
		case K_CHOICES:
		case K_BOOLS:
		case K_RAMP:
			break;
		}
	}
	/* parallel.order's row says "tp-cp-ep-dp-pp": Megatron-LM's order */
	memcpy(c->parallel.order, megatron, sizeof(megatron));
	snprintf(c->parallel.order_text, sizeof(c->parallel.order_text), "tp-cp-ep-dp-pp");
	snprintf(c->model.family, sizeof(c->model.family), "custom");
}

/* Is a Hugging Face config named (--model or model.hf_config), loaded or
 * not? Then it gives the shape, or its own errors say why not. */
static int hf_named(const struct loader *l)
{
	return l->hf_loaded || (l->opts && l->opts->model_file) || l->seen[KEY_MODEL_HF_CONFIG];
}

/* A cluster.gpu or cluster.system whose value was refused (an unknown
 * preset) names a preset all the same: its error stands, and the keys
 * that preset would fill are not reported missing on top of it. */
static int is_required(const struct loader *l, size_t i)
{
	enum dc_config_need need = dc_cfg_keys[i].info.need;
	int no_system = l->cfg->cluster.system == DC_SYSTEM_CUSTOM && !l->refused[KEY_CLUSTER_SYSTEM];
	return need == DC_KEY_REQUIRED || (need == DC_KEY_REQUIRED_UNLESS_HF && !hf_named(l)) ||
	       (need == DC_KEY_REQUIRED_UNLESS_GPU && l->cfg->cluster.gpu == DC_GPU_NONE &&
		!l->refused[KEY_CLUSTER_GPU] && no_system) ||
	       (need == DC_KEY_REQUIRED_UNLESS_SYSTEM && no_system);
}

/* ---- cross-field rules ----
 *
 * Once every key read cleanly, the rules run in table order, each reporting
 * every problem it finds, so one load names them all. A rule returns -1 to
 * end the walk when the rules below would read what it could not vouch for
 * (the world size, a product that overflows, the shape); else 0. A rule
 * also fills the derived default of a key it checks, before the rules
 * below read it. */

struct rule {
	struct dc_config_rule_info info;
	int (*check)(struct loader *l);
};

static int seen(const struct loader *l, enum key_id k)
{
	return l->seen[k];
}

/* The key a rule's message blames, for its origin: `ki`, unless only the
 * other key it compares against (`other_path`) came from --set or was
 * removed by --unset, so a rule an override broke names it. */
static int blame(const struct loader *l, int ki, enum key_id other)
{
	return ki >= 0 && (l->from_set[ki] || l->unset[ki] || !(l->from_set[other] || l->unset[other])) ? ki
													 : (int)other;
}

/* As blame() against parallel.dp: `ki`, unless only dp came from --set,
 * or, where dp is derived (left out or "auto", rule_layout), a key it is
 * derived from did (the GPU count, tp, pp, cp): a --set of num_nodes that
 * moves dp is the override that broke a rule on dp. */
static int blame_dp(const struct loader *l, int ki)
{
	static const int from[] = {KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_SYSTEM, KEY_CLUSTER_GPUS_PER_NODE,
				   KEY_PARALLEL_TP, KEY_PARALLEL_PP, KEY_PARALLEL_CP};
	if (ki >= 0 && l->from_set[ki])
		return ki;
	if (l->from_set[KEY_PARALLEL_DP])
		return KEY_PARALLEL_DP;
	if (l->cfg->parallel.dp_explicit)
		return ki;
	return dc_cfg_blame(l, ki, from, sizeof(from) / sizeof(from[0]));
}

/* "" when dp was given; else how it was derived, for a rule's message on
 * it: "; parallel.dp 48 is derived: num_nodes x gpus_per_node (768) / (tp
 * x cp x pp) (16)" */
static const char *dp_derived(const struct loader *l, char *buf, size_t len)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	if (p->dp_explicit)
		return "";
	snprintf(buf, len, "; parallel.dp %llu is derived: num_nodes x gpus_per_node (%llu) / (tp x cp x pp) (%llu)",
		 (unsigned long long)p->dp, (unsigned long long)c->world_size,
		 (unsigned long long)(p->tp * p->cp * p->pp));
	return buf;
}

/* The report lists every rank and group: O(world) work and output, so the
 * world is capped at 2^24 ranks (today's largest clusters are ~10^5 GPUs)
 * to keep a typo from running for minutes. */
static int rule_world(struct loader *l)
{
	struct dc_config *c = l->cfg;
	if (dc_mul_u64(c->cluster.num_nodes, c->cluster.gpus_per_node, &c->world_size) ||
	    c->world_size > DC_MAX_WORLD) {
		dc_cfg_errorf(l, KEY_CLUSTER_NUM_NODES,
		       "'cluster.num_nodes': num_nodes x gpus_per_node must be at most %llu ranks, got %llu x %llu",
		       (unsigned long long)DC_MAX_WORLD, (unsigned long long)c->cluster.num_nodes,
		       (unsigned long long)c->cluster.gpus_per_node);
		return -1;
	}
	return 0;
}

/* The H100 PCIe and NVL cards link over NVLink bridges, two cards a bridge
 * (NVIDIA's H100 data sheet, "NVLink: 600 GB/s" on the NVL and PCIe parts,
 * with a 2-way bridge); there is no NVSwitch between them. */
static int nvlink_bridged(enum dc_gpu g)
{
	return g == DC_GPU_H100_PCIE_80GB || g == DC_GPU_H100_NVL_94GB;
}

/* The most A100s one NVLink fabric joins: two HGX A100 8-GPU boards whose
 * NVSwitches are linked (NVIDIA's HGX A100 platform: 4-, 8- and 16-GPU
 * configurations); nothing carries NVLink between A100 nodes. */
#define A100_NVLINK_REACH 16

/* The network's derived defaults: one NIC per GPU and one NVLink domain
 * per node; a domain holds whole nodes. */
static int rule_network(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	int ki = KEY_CLUSTER_NVLINK_DOMAIN;
	if (!c->nics_per_node)
		c->nics_per_node = c->gpus_per_node;
	if (!c->nvlink_domain)
		c->nvlink_domain = c->gpus_per_node;
	if (c->nvlink_domain % c->gpus_per_node != 0) {
		dc_cfg_errorf(l, blame(l, ki, KEY_CLUSTER_GPUS_PER_NODE),
		       "'cluster.nvlink_domain': must be a multiple of cluster.gpus_per_node (%llu), got %llu",
		       (unsigned long long)c->gpus_per_node, (unsigned long long)c->nvlink_domain);
	} else if (c->nvlink_domain > c->gpus_per_node && nvlink_bridged(c->gpu)) {
		/* NVLink bridges join cards of one node; no NVSwitch carries
		 * it to another (a trial's 16 nodes of H100 PCIe under one
		 * 64-GPU domain priced every group on NVLink, without a word) */
		dc_cfg_errorf(l, blame(l, ki, KEY_CLUSTER_GPU),
			      "'cluster.nvlink_domain': %llu GPUs over several nodes, but 'cluster.gpu' \"%s\" links over "
			      "NVLink bridges between pairs of cards (no NVSwitch; NVIDIA's H100 data sheet), so no NVLink "
			      "leaves a node: set nvlink_domain to gpus_per_node (%llu) or drop it",
			      (unsigned long long)c->nvlink_domain, dc_gpu_name(c->gpu), (unsigned long long)c->gpus_per_node);
	} else if (c->nvlink_domain > A100_NVLINK_REACH &&
		   (c->gpu == DC_GPU_A100_SXM4_40GB || c->gpu == DC_GPU_A100_SXM4_80GB)) {
		dc_cfg_errorf(l, blame(l, ki, KEY_CLUSTER_GPU),
			      "'cluster.nvlink_domain': %llu GPUs, but 'cluster.gpu' \"%s\"'s NVSwitch joins at most %d "
			      "(an HGX A100 board of 8, or two of them joined by their NVSwitches; the A100 has no NVLink "
			      "Switch System between nodes): set nvlink_domain to at most %d, a multiple of gpus_per_node, "
			      "or drop it",
			      (unsigned long long)c->nvlink_domain, dc_gpu_name(c->gpu), A100_NVLINK_REACH, A100_NVLINK_REACH);
	} else if (c->nvlink_domain > c->gpus_per_node && c->num_nodes <= DC_MAX_WORLD / c->gpus_per_node) {
		/* each strategy is priced on its first group across domains
		 * (docs/network-model.md); with a partial last domain another
		 * group can hold fewer ranks there, on fewer NICs */
		uint64_t world = c->num_nodes * c->gpus_per_node;
		/* named after what the command line changed, where it did:
		 * the nodes, or a system that filled the domain */
		static const int why[] = {KEY_CLUSTER_NVLINK_DOMAIN, KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE,
					  KEY_CLUSTER_SYSTEM};
		if (world > c->nvlink_domain && world % c->nvlink_domain != 0) {
			/* a job placed on fewer GPUs of each domain (a scheduler
			 * can give it part of each rack) lays its ranks out
			 * otherwise: the largest whole part, at least half a
			 * domain, that the world fills, as a way to price that
			 * (a user trial's DeepSeek-V3 on 256 GB200: 72 left its
			 * EP 64 groups across racks, 64 kept them inside) */
			char hint[256] = "";
			for (uint64_t d = c->nvlink_domain - c->gpus_per_node; d >= c->gpus_per_node && 2 * d >= c->nvlink_domain;
			     d -= c->gpus_per_node)
				if (world % d == 0) {
					snprintf(hint, sizeof(hint),
						 "; if the job is given %llu GPUs of each domain (%llu = %llu x %llu), set cluster.nvlink_domain to %llu, and the groups are priced on the domains they then span",
						 (unsigned long long)d, (unsigned long long)world, (unsigned long long)(world / d),
						 (unsigned long long)d, (unsigned long long)d);
					break;
				}
			dc_cfg_warnf(l, dc_cfg_blame(l, ki, why, sizeof(why) / sizeof(why[0])),
				     "'cluster.nvlink_domain': the world's %llu GPUs (cluster.num_nodes x gpus_per_node) are not a whole number of %llu-GPU NVLink domains: the last domain holds %llu, and a group that reaches into it with fewer ranks than the group each strategy is priced on (its first across domains) uses fewer NICs, so that strategy may be slower than shown; at a multiple of %llu GPUs no domain is partial%s",
				     (unsigned long long)world, (unsigned long long)c->nvlink_domain,
				     (unsigned long long)(world % c->nvlink_domain), (unsigned long long)c->nvlink_domain, hint);
		}
	}
	/* more than a bridged pair in a node: a group of three or more of
	 * its cards reaches some over PCIe, not NVLink (a trial's 8 H100
	 * PCIe a node priced its TP 8 at the bridge's 300 GB/s) */
	if (nvlink_bridged(c->gpu) && c->gpus_per_node > 2 && dc_gpu_spec(c->gpu) &&
	    c->intra_node.bw_bytes_per_s > dc_gpu_spec(c->gpu)->host_bw * 1.0001)
		dc_cfg_warnf(l, seen(l, KEY_CLUSTER_INTRA_NODE_BANDWIDTH) ? KEY_CLUSTER_INTRA_NODE_BANDWIDTH : KEY_CLUSTER_GPUS_PER_NODE,
			     "'cluster.intra_node.bandwidth': %.4g GB/s between any two of a node's %llu GPUs, but "
			     "'cluster.gpu' \"%s\" cards pair over NVLink bridges (2 cards a bridge, no NVSwitch): a group of "
			     "more than 2 of a node's GPUs moves data over PCIe, at most %.4g GB/s one way (Gen5 x16); "
			     "priced as given: give the PCIe rate (unless every group holds at most the 2 GPUs of a bridged pair of each node, which the bridge serves)",
			     c->intra_node.bw_bytes_per_s / 1e9, (unsigned long long)c->gpus_per_node, dc_gpu_name(c->gpu),
			     dc_gpu_spec(c->gpu)->host_bw / 1e9);
	/* CollNet's reductions run in SHARP-capable InfiniBand switches
	 * (NVIDIA Quantum, the CollNet plugin): EFA, GPUDirect-TCPXO and
	 * RoCE Ethernet have none (a trial: a3-mega's step 26.519 -> 25.103
	 * s without a word) */
	if (c->collnet && c->network != DC_NETWORK_IB && c->num_nodes > 1)
		dc_cfg_warnf(l, blame(l, KEY_CLUSTER_COLLNET, KEY_CLUSTER_NETWORK),
			     "'cluster.collnet': true prices reductions in the network switches (CollNet over SHARP, which needs InfiniBand switches with SHARP: NVIDIA Quantum), but cluster.network is \"%s\", which has no in-network reduction: priced as given; set collnet false",
			     dc_network_name(c->network));
	/* one NIC's one-way rate: the fastest sold is 800 Gb/s (NVIDIA
	 * ConnectX-8 SuperNIC), 100 GB/s; above it the value is likely a
	 * node's total or GB/s typed for Gb/s */
	if (c->inter_node.bw_bytes_per_s > 100e9 && seen(l, KEY_CLUSTER_INTER_NODE_BANDWIDTH))
		dc_cfg_warnf(l, KEY_CLUSTER_INTER_NODE_BANDWIDTH,
			     "'cluster.inter_node.bandwidth': %.4g GB/s is above the fastest NIC sold, 800 Gb/s = 100 GB/s one way (NVIDIA ConnectX-8); the key is one NIC's rate (GPU i uses NIC i mod nics_per_node), not a node's: a 400 Gb/s NIC is \"400 Gb/s\" (50 GB/s); priced as given",
			     c->inter_node.bw_bytes_per_s / 1e9);
	return 0;
}

static int rule_ffn_default(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (!seen(l, KEY_MODEL_FFN_HIDDEN_SIZE) && dc_mul_u64(m->hidden_size, 4, &m->ffn_hidden_size)) {
		dc_cfg_errorf(l, KEY_MODEL_HIDDEN_SIZE,
		       "'model.hidden_size': 4 x hidden_size (the default ffn_hidden_size) overflows 64 bits, got %llu",
		       (unsigned long long)m->hidden_size);
		return -1;
	}
	return 0;
}

/* Mixture-of-experts and MLA keys: defaults and rules (docs/config.md). */
static int rule_moe_mla(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	int k_ept = KEY_MODEL_EXPERTS_PER_TOKEN;
	size_t errors = l->errors;

	if (m->num_experts) {
		if (!seen(l, KEY_MODEL_MOE_FFN_HIDDEN_SIZE))
			m->moe_ffn_hidden_size = m->ffn_hidden_size;
		if (!l->seen[k_ept])
			dc_cfg_errorf(l, KEY_MODEL_NUM_EXPERTS,
			       "'model.experts_per_token': required with model.num_experts (%llu)",
			       (unsigned long long)m->num_experts);
		else if (m->experts_per_token > m->num_experts)
			dc_cfg_errorf(l, k_ept, "'model.experts_per_token': must be at most model.num_experts (%llu), got %llu",
			       (unsigned long long)m->num_experts, (unsigned long long)m->experts_per_token);
		if (m->dense_layers >= m->num_layers)
			dc_cfg_errorf(l, KEY_MODEL_DENSE_LAYERS,
			       "'model.dense_layers': must be below model.num_layers (%llu), got %llu",
			       (unsigned long long)m->num_layers, (unsigned long long)m->dense_layers);
	} else {
		/* the routed experts' own keys given on a dense model (a
		 * Hugging Face config's mapping writes them for every model):
		 * nothing reads them (as router_groups below), so a model
		 * meant to be MoE would be priced dense without a word */
		static const struct {
			int key;
			const char *what;
		} moe_keys[] = {{KEY_MODEL_EXPERTS_PER_TOKEN, "routes each token to experts"},
				{KEY_MODEL_MOE_FFN_HIDDEN_SIZE, "sizes the routed experts"}};
		for (size_t i = 0; i < sizeof(moe_keys) / sizeof(moe_keys[0]); i++) {
			int k = moe_keys[i].key;
			if (!seen(l, (enum key_id)k) || l->from_hf[k])
				continue;
			/* num_experts left out: a MoE model meant, its count
			 * forgotten; given 0 (a --set, a sweep's dense point):
			 * the key changes nothing there, as rule 38's */
			if (!seen(l, KEY_MODEL_NUM_EXPERTS))
				dc_cfg_errorf(l, k,
					      "'%s': %s, but model.num_experts is not given (0: a dense model); give "
					      "num_experts, or leave it out",
					      dc_cfg_keys[k].info.path, moe_keys[i].what);
			else
				dc_cfg_warnf(l, dc_cfg_blame(l, k, (const int[]){KEY_MODEL_NUM_EXPERTS}, 1),
					     "'%s': %s, but model.num_experts is 0 (a dense model): it has no effect",
					     dc_cfg_keys[k].info.path, moe_keys[i].what);
		}
	}
	/* group-limited routing: G equal groups of consecutive experts, a
	 * token's k experts from T of them (DeepSeek-V3's n_group, topk_group) */
	if (!seen(l, KEY_MODEL_ROUTER_GROUP_TOPK))
		m->router_group_topk = m->router_groups;
	if (!m->num_experts && (m->router_groups != 1 || m->router_group_topk != 1))
		dc_cfg_errorf(l, m->router_groups != 1 ? KEY_MODEL_ROUTER_GROUPS : KEY_MODEL_ROUTER_GROUP_TOPK,
			      "'%s': groups the routed experts, but model.num_experts is 0 (a dense model); leave it out",
			      m->router_groups != 1 ? "model.router_groups" : "model.router_group_topk");
	else if (m->num_experts && m->num_experts % m->router_groups != 0)
		dc_cfg_errorf(l, blame(l, KEY_MODEL_ROUTER_GROUPS, KEY_MODEL_NUM_EXPERTS),
			      "'model.router_groups': must divide model.num_experts (%llu) into equal groups, got %llu",
			      (unsigned long long)m->num_experts, (unsigned long long)m->router_groups);
	else if (m->router_group_topk > m->router_groups)
		dc_cfg_errorf(l, blame(l, KEY_MODEL_ROUTER_GROUP_TOPK, KEY_MODEL_ROUTER_GROUPS),
			      "'model.router_group_topk': must be at most model.router_groups (%llu), got %llu",
			      (unsigned long long)m->router_groups, (unsigned long long)m->router_group_topk);
	else if (m->num_experts && m->experts_per_token <= m->num_experts /* else refused above */ &&
		 m->experts_per_token > m->router_group_topk * (m->num_experts / m->router_groups))
		dc_cfg_errorf(l, blame(l, KEY_MODEL_ROUTER_GROUP_TOPK, KEY_MODEL_EXPERTS_PER_TOKEN),
			      "'model.router_group_topk': %llu group%s of %llu experts hold fewer than model.experts_per_token (%llu)",
			      (unsigned long long)m->router_group_topk, m->router_group_topk == 1 ? "" : "s",
			      (unsigned long long)(m->num_experts / m->router_groups),
			      (unsigned long long)m->experts_per_token);
	if (m->kv_lora_rank) {
		static const enum key_id need[] = {KEY_MODEL_QK_ROPE_HEAD_DIM, KEY_MODEL_QK_NOPE_HEAD_DIM,
						   KEY_MODEL_V_HEAD_DIM};
		for (size_t i = 0; i < 3; i++)
			if (!seen(l, need[i]))
				dc_cfg_errorf(l, KEY_MODEL_KV_LORA_RANK, "'%s': required with model.kv_lora_rank (MLA)",
				       dc_cfg_keys[need[i]].info.path);
		/* MLA: every head has its own k and v after the up-projection */
		if (!seen(l, KEY_MODEL_NUM_KV_HEADS))
			m->num_kv_heads = m->num_attention_heads;
		if (!seen(l, KEY_MODEL_HEAD_DIM))
			m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
	}
	return l->errors > errors ? -1 : 0;
}

/* Layer kinds (docs/models.md, "Layer kinds"): a pattern needs its
 * window, linear attention its five sizes (value heads a multiple of the
 * key heads, as the grouped heads of Gated DeltaNet need) and no window,
 * interleaved MoE layers an MoE model. */
static int rule_layer_kinds(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	size_t errors = l->errors;
	if (m->sliding_window_pattern && !m->sliding_window)
		dc_cfg_errorf(l, KEY_MODEL_SLIDING_WINDOW_PATTERN,
			      "'model.sliding_window_pattern': needs model.sliding_window (the window of the other layers), got %llu without one",
			      (unsigned long long)m->sliding_window_pattern);
	if (m->attention_chunked && !m->sliding_window)
		dc_cfg_errorf(l, KEY_MODEL_ATTENTION_CHUNKED,
			      "'model.attention_chunked': needs model.sliding_window (the chunk's tokens), got true without one");
	if (m->full_attention_interval) {
		static const enum key_id need[] = {KEY_MODEL_LINEAR_NUM_KEY_HEADS, KEY_MODEL_LINEAR_NUM_VALUE_HEADS,
						   KEY_MODEL_LINEAR_KEY_HEAD_DIM, KEY_MODEL_LINEAR_VALUE_HEAD_DIM,
						   KEY_MODEL_LINEAR_CONV_KERNEL_DIM};
		const uint64_t *val[] = {&m->linear_num_key_heads, &m->linear_num_value_heads, &m->linear_key_head_dim,
					 &m->linear_value_head_dim, &m->linear_conv_kernel_dim};
		for (size_t i = 0; i < 5; i++)
			if (!*val[i])
				dc_cfg_errorf(l, KEY_MODEL_FULL_ATTENTION_INTERVAL,
					      "'%s': at least 1 required with model.full_attention_interval (Gated DeltaNet layers)",
					      dc_cfg_keys[need[i]].info.path);
		if (m->linear_num_key_heads && m->linear_num_value_heads % m->linear_num_key_heads != 0)
			dc_cfg_errorf(l, KEY_MODEL_LINEAR_NUM_VALUE_HEADS,
				      "'model.linear_num_value_heads': must be a multiple of model.linear_num_key_heads (%llu), got %llu",
				      (unsigned long long)m->linear_num_key_heads, (unsigned long long)m->linear_num_value_heads);
		if (m->sliding_window)
			dc_cfg_errorf(l, KEY_MODEL_SLIDING_WINDOW,
				      "'model.sliding_window': distcalc models no window in a hybrid linear-attention model (model.full_attention_interval %llu), got %llu",
				      (unsigned long long)m->full_attention_interval, (unsigned long long)m->sliding_window);
	}
	if (m->moe_layer_interval > 1 && !m->num_experts)
		dc_cfg_errorf(l, KEY_MODEL_MOE_LAYER_INTERVAL,
			      "'model.moe_layer_interval': needs a mixture-of-experts model (model.num_experts), got %llu",
			      (unsigned long long)m->moe_layer_interval);
	/* experts on no layer under expert parallelism: ep would split
	 * experts no layer runs, as with num_experts 0 (rule_ep), silently
	 * (a trial's interval 33 over 32 layers at ep 8) */
	if (m->num_experts && !m->params_explicit && m->num_layers && l->errors == errors &&
	    l->cfg->parallel.ep > 1 && dc_params_moe_in(m, 0, m->num_layers) == 0)
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_EP, KEY_MODEL_MOE_LAYER_INTERVAL),
			      "'parallel.ep': %llu splits the routed experts, but model.moe_layer_interval %llu and "
			      "dense_layers %llu leave none of the %llu layers with them: set ep 1, or give the experts "
			      "a layer",
			      (unsigned long long)l->cfg->parallel.ep, (unsigned long long)m->moe_layer_interval,
			      (unsigned long long)m->dense_layers, (unsigned long long)m->num_layers);
	return l->errors > errors ? -1 : 0;
}

static int rule_head_dim(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (seen(l, KEY_MODEL_HEAD_DIM) || m->kv_lora_rank)
		return 0;
	if (m->hidden_size % m->num_attention_heads != 0) {
		dc_cfg_errorf(l, blame(l, KEY_MODEL_NUM_ATTENTION_HEADS, KEY_MODEL_HIDDEN_SIZE),
		       "'model.num_attention_heads': must divide model.hidden_size (%llu) unless model.head_dim is given, got %llu",
		       (unsigned long long)m->hidden_size, (unsigned long long)m->num_attention_heads);
		return -1;
	}
	m->head_dim = m->hidden_size / m->num_attention_heads;
	return 0;
}

static int rule_positions(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	if (m->position_embeddings > 0 && m->seq_length > m->position_embeddings)
		dc_cfg_errorf(l, blame(l, KEY_MODEL_SEQ_LENGTH, KEY_MODEL_POSITION_EMBEDDINGS),
		       "'model.seq_length': %llu tokens do not fit the learned position table of %llu positions (GPT-2's n_positions); use at most %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)m->position_embeddings,
		       (unsigned long long)m->position_embeddings);
	else if (m->position_embeddings == 0 && m->hf_max_positions > 0 && m->seq_length > m->hf_max_positions)
		dc_cfg_warnf(l, KEY_MODEL_SEQ_LENGTH,
		      "'model.seq_length': %llu tokens are longer than the %llu positions %s sets the model up for (max_position_embeddings, or its class's default where the file leaves it out, or rope_scaling's factor times the original length where longer, but for a llama3 scaling's): it is priced as given, but the model was not built for that context; check the length or the model",
		      (unsigned long long)m->seq_length, (unsigned long long)m->hf_max_positions,
		      m->hf_config[0] ? m->hf_config : "its Hugging Face config");
	return 0;
}

static int rule_kv_heads(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (!seen(l, KEY_MODEL_NUM_KV_HEADS))
		m->num_kv_heads = m->num_attention_heads;
	if (m->num_kv_heads > m->num_attention_heads || m->num_attention_heads % m->num_kv_heads != 0)
		dc_cfg_errorf(l, blame(l, KEY_MODEL_NUM_KV_HEADS, KEY_MODEL_NUM_ATTENTION_HEADS),
		       "'model.num_kv_heads': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)m->num_kv_heads);
	return 0;
}

static int rule_tp_pp(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	uint64_t tp_pp;
	if (dc_mul_u64(p->tp, p->pp, &tp_pp) || dc_mul_u64(tp_pp, p->cp, &tp_pp)) {
		dc_cfg_errorf(l, KEY_PARALLEL_TP, "'parallel.tp': tp x cp x pp overflows 64 bits, got %llu x %llu x %llu",
		       (unsigned long long)p->tp, (unsigned long long)p->cp, (unsigned long long)p->pp);
		return -1;
	}
	return 0;
}

/* The key to name when tp x cp x pp does not divide the world: one of
 * them above 1 (a degree of 1 divides anything), one whose degree alone
 * does not divide the world before one that only breaks the product, and
 * then the command line's (--set, --unset) before the file's; the first
 * of tp, cp, pp when nothing tells them apart. */
static int layout_culprit(const struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	const int keys[] = {KEY_PARALLEL_TP, KEY_PARALLEL_CP, KEY_PARALLEL_PP};
	const uint64_t deg[] = {p->tp, p->cp ? p->cp : 1, p->pp};
	int best = KEY_PARALLEL_TP, best_score = -1;
	for (size_t i = 0; i < 3; i++) {
		int ki = keys[i], score;
		if (deg[i] <= 1)
			continue;
		score = 2 * (l->cfg->world_size % deg[i] != 0) + (l->from_set[ki] || l->unset[ki]);
		if (score > best_score) {
			best = ki;
			best_score = score;
		}
	}
	/* no degree changed on the command line but the world did: the
	 * --set that broke it */
	if (!l->from_set[best] && !l->unset[best]) {
		const int world[] = {KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE, KEY_CLUSTER_SYSTEM};
		best = dc_cfg_blame(l, best, world, 3);
	}
	return best;
}

/* dp x tp x cp x pp = world; dp, when absent, is what makes it so. */
static int rule_layout(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	int k_tp = KEY_PARALLEL_TP, k_pp = KEY_PARALLEL_PP, k_dp = KEY_PARALLEL_DP;
	int k_cp = KEY_PARALLEL_CP;
	uint64_t tp_pp = p->tp * p->pp * p->cp; /* rule_tp_pp: no overflow */

	/* "auto" derives dp as if the key were absent */
	p->dp_explicit = l->seen[k_dp] && !l->is_auto[k_dp];
	if (!p->dp_explicit) {
		if (c->world_size % tp_pp != 0) {
			int ki = layout_culprit(l);
			if (p->cp > 1)
				dc_cfg_errorf(l, ki,
				       "'%s': tp x cp x pp (%llu) must divide the world size num_nodes x gpus_per_node (%llu)",
				       dc_cfg_keys[ki].info.path, (unsigned long long)tp_pp, (unsigned long long)c->world_size);
			else
				dc_cfg_errorf(l, ki,
				       "'%s': tp x pp (%llu) must divide the world size num_nodes x gpus_per_node (%llu)",
				       dc_cfg_keys[ki].info.path, (unsigned long long)tp_pp, (unsigned long long)c->world_size);
		} else {
			p->dp = c->world_size / tp_pp;
		}
	} else {
		uint64_t prod;
		if (dc_mul_u64(tp_pp, p->dp, &prod) || prod != c->world_size) {
			char hint[128] = "";
			int k_world = l->from_set[KEY_CLUSTER_NUM_NODES] ? KEY_CLUSTER_NUM_NODES
				      : l->from_set[KEY_CLUSTER_GPUS_PER_NODE] ? KEY_CLUSTER_GPUS_PER_NODE : k_dp;
			/* "leave it out" as a --set can follow it: --unset, or
			 * drop the --set that gave dp */
			if (c->world_size % tp_pp == 0)
				snprintf(hint, sizeof(hint), "; %s to derive it from the GPU count (%llu here)",
					 l->from_set[k_dp] ? "--set parallel.dp=auto (or drop the --set of parallel.dp)"
							   : "set parallel.dp to \"auto\" (or --unset parallel.dp)",
					 (unsigned long long)(c->world_size / tp_pp));
			else
				/* no dp fits: the other degrees must divide the GPUs */
				snprintf(hint, sizeof(hint), "; no dp fits, since %s (%llu) does not divide %llu GPUs",
					 p->cp > 1 ? "tp x cp x pp" : "tp x pp", (unsigned long long)tp_pp,
					 (unsigned long long)c->world_size);
			/* blame the override that broke the product, if one did:
			 * the layout's, else the world's (a --set of num_nodes);
			 * an --unset of tp, pp or cp is one too */
			const int layout_keys[] = {k_tp, k_pp, k_cp};
			if (l->from_set[k_dp] && k_world != k_dp)
				k_world = k_dp;
			k_world = dc_cfg_blame(l, k_world, layout_keys, p->cp > 1 ? 3 : 2);
			if (p->cp > 1)
				dc_cfg_errorf(l, k_world,
				       "'parallel.dp': dp x tp x cp x pp (%llu x %llu x %llu x %llu) must equal num_nodes x gpus_per_node (%llu)%s",
				       (unsigned long long)p->dp, (unsigned long long)p->tp, (unsigned long long)p->cp,
				       (unsigned long long)p->pp, (unsigned long long)c->world_size, hint);
			else
				dc_cfg_errorf(l, k_world,
				       "'parallel.dp': dp x tp x pp (%llu x %llu x %llu) must equal num_nodes x gpus_per_node (%llu)%s",
				       (unsigned long long)p->dp, (unsigned long long)p->tp, (unsigned long long)p->pp,
				       (unsigned long long)c->world_size, hint);
		}
	}
	return 0;
}

/* Context parallelism (Megatron-Core): the sequence splits into 2 cp
 * chunks, rank i holding chunks i and 2cp - 1 - i so causal attention
 * balances (TransformerEngine asserts an even sequence per rank); the
 * AlltoAll form swaps sequence shards for head shards, so cp must also
 * divide the heads each tp rank holds. */
/* Under training.framework torchtitan, parallel.cp_comm_type left out is
 * what torchtitan's context parallelism runs: K and V all-gathered, not
 * Megatron's ring of sends. At 9dec370 (December 2024) its
 * context_parallel_rotate_method defaulted to "allgather", as PyTorch's
 * _ContextParallelOptions.rotate_method does (_RotateMethod.ALL_GATHER,
 * torch/distributed/tensor/experimental/_context_parallel/_attention.py:65
 * at 09b101c5); since 8e5554449 (June 2026) torchtitan gathers K and V at
 * the attention boundary (models/common/decoder_sharding.py:275-283 at
 * b5bcd76c). Run at rule_cp, the first rule that reads it. */
static void torchtitan_cp_default(struct loader *l)
{
	struct dc_config *c = l->cfg;
	if (c->training.framework != DC_FRAMEWORK_TORCHTITAN || seen(l, KEY_PARALLEL_CP_COMM_TYPE) ||
	    l->filled[KEY_PARALLEL_CP_COMM_TYPE])
		return;
	c->parallel.cp_comm_type = DC_CP_ALL_GATHER;
	l->filled[KEY_PARALLEL_CP_COMM_TYPE] = DC_ORIGIN_FRAMEWORK;
}

static int rule_cp(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_cp = KEY_PARALLEL_CP;
	torchtitan_cp_default(l);
	if (p->cp <= 1)
		return 0;
	if (p->cp_comm_type != DC_CP_A2A && m->seq_length % (2 * p->cp) != 0)
		dc_cfg_errorf(l, blame(l, k_cp, KEY_MODEL_SEQ_LENGTH),
		       "'parallel.cp': 2 x cp must divide model.seq_length (%llu): each cp rank holds two of 2 x cp equal chunks, got cp %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)p->cp);
	else if (p->cp_comm_type == DC_CP_A2A && m->seq_length % p->cp != 0)
		dc_cfg_errorf(l, blame(l, k_cp, KEY_MODEL_SEQ_LENGTH), "'parallel.cp': must divide model.seq_length (%llu), got %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)p->cp);
	else if (p->cp_comm_type == DC_CP_A2A &&
		 (m->num_attention_heads / p->tp % p->cp != 0 || m->num_kv_heads / p->tp % p->cp != 0))
		dc_cfg_errorf(l, blame(l, k_cp, KEY_MODEL_NUM_ATTENTION_HEADS),
		       "'parallel.cp': with cp_comm_type \"a2a\" cp must divide the heads of each tp rank (%llu query, %llu key/value heads), got %llu",
		       (unsigned long long)(m->num_attention_heads / p->tp),
		       (unsigned long long)(m->num_kv_heads / p->tp), (unsigned long long)p->cp);
	return 0;
}

int dc_cfg_tp_admits(const struct dc_model *m, uint64_t tp)
{
	return tp && m->num_attention_heads % tp == 0 && (!m->num_kv_heads || m->num_kv_heads % tp == 0) &&
	       (!m->full_attention_interval || m->linear_num_key_heads % tp == 0);
}

int dc_config_tp_splits_mlp(const struct dc_model *m, uint64_t tp, uint64_t etp)
{
	uint64_t moe = dc_params_moe_layers(m);
	if (!etp)
		etp = tp;
	if (!tp)
		return 0;
	if (moe < m->num_layers && m->ffn_hidden_size % tp != 0)
		return 0; /* a dense MLP runs */
	if (!m->num_experts)
		return 1;
	return m->shared_expert_ffn_hidden_size % tp == 0 && m->moe_ffn_hidden_size % etp == 0;
}

uint64_t dc_config_layout_etp(const struct dc_config *c, uint64_t ep)
{
	if (c->parallel.etp)
		return c->parallel.etp;
	return c->training.framework == DC_FRAMEWORK_TORCHTITAN && ep > 1 ? 1 : 0;
}

uint64_t dc_config_etp(const struct dc_config *c, uint64_t tp, uint64_t ep)
{
	uint64_t etp = dc_config_layout_etp(c, ep);
	return etp ? etp : tp;
}

int dc_config_sp_splits_tokens(const struct dc_model *m, uint64_t tp, uint64_t cp)
{
	return tp && cp && m->seq_length % cp == 0 && (m->seq_length / cp) % tp == 0;
}

/* The largest tp below p->tp the model admits (dc_cfg_tp_admits, and
 * its MLP sizes: dc_config_tp_splits_mlp) that divides the world over
 * pp x cp, as "; --set parallel.tp=T --set parallel.dp=D would fit
 * WHAT" in hint[n]; "" when none. */
static void tp_hint(const struct loader *l, char *hint, size_t n, const char *what)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	const struct dc_cluster *c = &l->cfg->cluster;
	uint64_t world, rest;
	hint[0] = '\0';
	if (dc_mul_u64(c->num_nodes, c->gpus_per_node, &world) || dc_mul_u64(p->pp ? p->pp : 1, p->cp ? p->cp : 1, &rest) ||
	    !rest)
		return;
	if (world > DC_MAX_WORLD || world % rest != 0)
		return; /* rule_world says why; t x rest must divide the world */
	/* t divides world / rest (at most 2^24): its divisors in pairs up
	 * to the square root, not every value below a tp of any size */
	{
		uint64_t q = world / rest, best = 0;
		for (uint64_t i = 1; i * i <= q; i++) {
			uint64_t d[2] = {i, q / i};
			if (q % i != 0)
				continue;
			for (int k = 0; k < 2; k++)
				if (d[k] < p->tp && d[k] > best && dc_cfg_tp_admits(&l->cfg->model, d[k]) &&
				    dc_config_tp_splits_mlp(&l->cfg->model, d[k],
							    dc_config_layout_etp(l->cfg, p->ep ? p->ep : 1)))
					best = d[k];
		}
		if (best)
			snprintf(hint, n, "; --set parallel.tp=%llu --set parallel.dp=%llu would fit %s",
				 (unsigned long long)best, (unsigned long long)(q / best), what);
	}
}

static int rule_tp_heads(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_tp = KEY_PARALLEL_TP;
	char hint[96] = "";
	if (!dc_cfg_tp_admits(m, p->tp))
		tp_hint(l, hint, sizeof(hint), "the heads");
	if (m->num_attention_heads % p->tp != 0)
		dc_cfg_errorf(l, blame(l, k_tp, KEY_MODEL_NUM_ATTENTION_HEADS),
		       "'parallel.tp': must divide model.num_attention_heads (%llu), got %llu%s",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)p->tp, hint);
	else if (m->num_kv_heads % p->tp != 0)
		dc_cfg_errorf(l, blame(l, k_tp, KEY_MODEL_NUM_KV_HEADS), "'parallel.tp': must divide model.num_kv_heads (%llu), got %llu%s",
		       (unsigned long long)m->num_kv_heads, (unsigned long long)p->tp, hint);
	else if (m->full_attention_interval && m->linear_num_key_heads % p->tp != 0)
		dc_cfg_errorf(l, blame(l, k_tp, KEY_MODEL_LINEAR_NUM_KEY_HEADS),
		       "'parallel.tp': must divide model.linear_num_key_heads (%llu; the Gated DeltaNet heads split over tp), got %llu%s",
		       (unsigned long long)m->linear_num_key_heads, (unsigned long long)p->tp, hint);
	return 0;
}

/* Expert parallelism (Megatron-Core): ep ranks are carved out of dp (or
 * folded: dc_layout_expert_folded), each
 * holding num_experts / ep experts of every MoE layer. */
/* Under training.framework torchtitan, parallel.sequence_parallel left
 * out is torchtitan's default, on with tensor parallelism
 * (ParallelismConfig's enable_sequence_parallel = True, "Enabled by
 * default": torchtitan/config/configs.py:169 at b5bcd76c). Where tp does
 * not divide the tokens, rule_sequence_parallel refuses it, as torchtitan
 * raises then (trainer.py:299-308). Run at rule_ep, the first rule that
 * reads it (docs/config.md rule 16). */
static void torchtitan_sp_default(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	if (c->training.framework != DC_FRAMEWORK_TORCHTITAN || p->tp < 2 || seen(l, KEY_PARALLEL_SEQUENCE_PARALLEL) ||
	    l->filled[KEY_PARALLEL_SEQUENCE_PARALLEL])
		return;
	p->sequence_parallel = 1;
	l->filled[KEY_PARALLEL_SEQUENCE_PARALLEL] = DC_ORIGIN_FRAMEWORK;
}

static int rule_ep(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_ep = KEY_PARALLEL_EP, k_etp = KEY_PARALLEL_ETP;
	uint64_t ep = p->ep ? p->ep : 1, etp = dc_config_etp(l->cfg, p->tp, ep), cp = p->cp ? p->cp : 1;
	struct dc_layout lay;
	int outer = 1, seen_pp = 0;
	const char *why;
	torchtitan_sp_default(l);
	/* torchtitan has no expert tensor-parallel group: with EP its experts
	 * take the tokens of dp_shard x cp x tp whole (etp 1), without it they
	 * split over tp as the dense MLP does (torchtitan/config/configs.py:
	 * 282-289, models/common/moe_sharding.py at b5bcd76c) */
	if (l->cfg->training.framework == DC_FRAMEWORK_TORCHTITAN && p->etp && m->num_experts &&
	    p->etp != (ep > 1 ? 1 : p->tp)) {
		static const int keys[] = {KEY_PARALLEL_ETP, KEY_PARALLEL_EP, KEY_PARALLEL_TP, KEY_TRAINING_FRAMEWORK};
		dc_cfg_errorf(l, dc_cfg_blame(l, k_etp, keys, sizeof(keys) / sizeof(keys[0])),
			      "'parallel.etp': torchtitan has no expert tensor-parallel size: its experts split over tp without expert parallelism and not at all with it (its EP borrows the ranks of dp_shard x cp x tp: torchtitan/config/configs.py:282-289 at b5bcd76c), so under training.framework \"torchtitan\" at ep %llu etp is %llu, got %llu; leave it out",
			      (unsigned long long)ep, (unsigned long long)(ep > 1 ? 1 : p->tp), (unsigned long long)p->etp);
		return 0;
	}
	if (ep <= 1 && etp == p->tp)
		return 0;
	if (!p->dp)
		return 0; /* the layout is wrong already (reported above) */
	/* pp the slowest axis: no axis of degree > 1 after it in the order */
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		enum dc_axis a = p->order[i];
		uint64_t deg = a == DC_AXIS_TP ? p->tp : a == DC_AXIS_CP ? cp : a == DC_AXIS_DP ? p->dp : 1;
		if (a == DC_AXIS_PP)
			seen_pp = 1;
		else if (seen_pp && deg > 1 && p->pp > 1)
			outer = 0;
	}
	memset(&lay, 0, sizeof(lay));
	lay.tp = p->tp;
	lay.dp = p->dp;
	lay.cp = cp;
	lay.pp = p->pp;
	lay.ep = ep;
	lay.etp = dc_config_layout_etp(l->cfg, ep);
	why = dc_layout_expert_error(&lay, m->num_experts, outer);
	if (!why)
		;
	else if (!m->num_experts)
		dc_cfg_errorf(l, blame(l, ep > 1 ? k_ep : k_etp, KEY_MODEL_NUM_EXPERTS), "%s, got %s %llu", why,
		       ep > 1 ? "ep" : "etp", (unsigned long long)(ep > 1 ? ep : etp));
	else if (m->num_experts % ep != 0)
		dc_cfg_errorf(l, blame(l, k_ep, KEY_MODEL_NUM_EXPERTS), "'parallel.ep': must divide model.num_experts (%llu), got %llu",
		       (unsigned long long)m->num_experts, (unsigned long long)ep);
	else if (strncmp(why, "'parallel.order'", 16) == 0)
		dc_cfg_errorf(l, KEY_PARALLEL_ORDER, "%s, got \"%s\" with pp %llu", why, p->order_text,
		       (unsigned long long)p->pp);
	else {
		char d[160], hint[160] = "";
		uint64_t ranks = p->tp * p->dp * cp, etp_used = lay.etp ? lay.etp : p->tp;
		/* experts whole on each rank (etp 1, DeepSeek-V3's recipes)
		 * when ep alone divides the stage's ranks: say so (a trial's
		 * tp 2 broke a config whose etp followed tp) */
		if (etp_used > 1 && ranks % ep == 0)
			/* with the sequence parallelism etp 1 then needs at tp
			 * > 1 (the rule below; a trial took the hint and met
			 * that error next) */
			snprintf(hint, sizeof(hint), "; --set parallel.etp=1%s (each expert whole on its rank) would fit",
				 p->tp > 1 && !p->sequence_parallel ? " --set parallel.sequence_parallel=true" : "");
		/* a --set of etp alone broke it: name that --set */
		dc_cfg_errorf(l, l->from_set[k_etp] && !l->from_set[k_ep] ? k_etp : blame_dp(l, k_ep),
		       "'parallel.ep': ep x etp (%llu x %llu) must divide tp x dp x cp (%llu x %llu x %llu), the ranks of a stage that the expert layers regroup (Megatron-Core's MoE parallel folding)%s%s",
		       (unsigned long long)ep, (unsigned long long)etp, (unsigned long long)p->tp,
		       (unsigned long long)p->dp, (unsigned long long)cp, dp_derived(l, d, sizeof(d)), hint);
	}
	if (why)
		return 0;
	/* Megatron-Core's expert rank generator reads parallel.order itself,
	 * with cp 1 (parallel_state.py:886-895 at d98e8a64): only some orders
	 * give the expert groups distcalc prices (dc_layout_ep_placed; a
	 * trial's orders moved nothing, silently), and an order without ep
	 * it refuses (:504-508) */
	if (!dc_layout_ep_placed(l->cfg, &lay)) {
		if (!dc_layout_order_names_ep(l->cfg))
			dc_cfg_errorf(l, blame(l, KEY_PARALLEL_ORDER, KEY_PARALLEL_EP),
				      "'parallel.order': names no ep, with parallel.ep %llu, which Megatron-Core refuses (its "
				      "rank generator: \"you haven't specified the order\", parallel_state.py:504-508 at "
				      "d98e8a64); put ep just before dp, as in its default \"tp-cp-ep-dp-pp\", got \"%s\"",
				      (unsigned long long)ep, p->order_text);
		else
			dc_cfg_errorf(l, blame(l, KEY_PARALLEL_ORDER, KEY_PARALLEL_EP),
				      "'parallel.order': Megatron-Core's expert rank generator reads this order with cp 1 "
				      "(parallel_state.py:886-895 at d98e8a64), and \"%s\" makes other ranks its expert "
				      "groups (or pipeline groups) than distcalc prices at ep %llu, etp %llu: %s, which its "
				      "default \"tp-cp-ep-dp-pp\" does",
				      p->order_text, (unsigned long long)ep, (unsigned long long)etp,
				      dc_layout_expert_folded(&lay)
					      ? "folded, a stage's ranks regroup as etp x ep x expert-dp, etp the fastest"
					      : "ep consecutive members of each dp group");
		return 0;
	}
	if (etp != p->tp && p->tp > 1 && !p->sequence_parallel && l->cfg->training.framework == DC_FRAMEWORK_TORCHTITAN)
		/* torchtitan's EP takes the tp ranks' tokens whole (etp 1); its
		 * sequence parallelism is on by default (enable_sequence_parallel,
		 * torchtitan/config/configs.py:169 at b5bcd76c); without it each
		 * tp rank's routed experts take a slice of the replicated tokens
		 * (models/common/moe_sharding.py), which is not modelled */
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_SEQUENCE_PARALLEL, KEY_PARALLEL_EP),
		       "'parallel.sequence_parallel': distcalc prices torchtitan's expert parallelism at tp > 1 with sequence parallelism, torchtitan's default (enable_sequence_parallel, torchtitan/config/configs.py:169 at b5bcd76c); without it each tp rank's routed experts take a slice of the replicated tokens, which is not modelled; set it true, got false at tp %llu, ep %llu",
		       (unsigned long long)p->tp, (unsigned long long)ep);
	else if (etp != p->tp && p->tp > 1 && !p->sequence_parallel)
		dc_cfg_errorf(l, blame(l, k_etp, KEY_PARALLEL_SEQUENCE_PARALLEL),
		       "'parallel.etp': an expert tp group other than tp (%llu) regroups the attention's tokens, which Megatron-Core does only with sequence parallelism; set parallel.sequence_parallel, got etp %llu",
		       (unsigned long long)p->tp, (unsigned long long)etp);
	return 0;
}

/* Tensor parallelism splits each MLP's inner size evenly over its ranks:
 * the dense MLP's (where the model has a dense layer) and the shared
 * experts' over tp (Megatron-Core moe/shared_experts.py:131 builds them
 * on the tp group), each routed expert's over the expert tp group, etp
 * (moe/experts.py:210 and :1448, pg_collection.expt_tp). Megatron-Core
 * asserts it where the inner size is the row-parallel input
 * (tensor_parallel/layers.py:1408, RowParallelLinear's
 * input_size_per_partition = divide(input_size, world_size);
 * extensions/transformer_engine.py:2470-2472, the experts' grouped
 * linears), divide() failing with "N is not divisible by T"
 * (core/utils.py:590-599); Megatron-LM d98e8a6. */
static int rule_tp_mlp(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	uint64_t etp = dc_config_etp(l->cfg, p->tp, p->ep ? p->ep : 1);
	int moe_seen = seen(l, KEY_MODEL_MOE_FFN_HIDDEN_SIZE), dense_bad = 0;
	const struct {
		int size_key, deg_key;
		uint64_t size, deg;
		const char *whose;
	} mlp[] = {
		{KEY_MODEL_FFN_HIDDEN_SIZE, KEY_PARALLEL_TP, dc_params_moe_layers(m) < m->num_layers ? m->ffn_hidden_size : 0,
		 p->tp, "the dense MLP's inner size"},
		{KEY_MODEL_SHARED_EXPERT_FFN_HIDDEN_SIZE, KEY_PARALLEL_TP,
		 m->num_experts ? m->shared_expert_ffn_hidden_size : 0, p->tp, "the shared experts' inner size"},
		/* moe_ffn_hidden_size left out is ffn_hidden_size (rule_moe_mla) */
		{moe_seen ? KEY_MODEL_MOE_FFN_HIDDEN_SIZE : KEY_MODEL_FFN_HIDDEN_SIZE,
		 p->etp ? KEY_PARALLEL_ETP : KEY_PARALLEL_TP, m->num_experts ? m->moe_ffn_hidden_size : 0, etp,
		 "each routed expert's inner size"},
	};

	if (!p->tp || !etp)
		return 0;
	for (size_t i = 0; i < sizeof(mlp) / sizeof(mlp[0]); i++) {
		const char *size_path = dc_cfg_keys[mlp[i].size_key].info.path;
		const char *deg_path = dc_cfg_keys[mlp[i].deg_key].info.path;
		const char *group = mlp[i].deg_key == KEY_PARALLEL_ETP ? "expert tp" : "tp";
		/* the routed experts' size as the config names it */
		const char *what = i == 2 ? "model.moe_ffn_hidden_size" : size_path;
		const char *why = i == 2 && !moe_seen ? " (model.moe_ffn_hidden_size, left out, is ffn_hidden_size; Megatron-Core's row-parallel linears assert it)"
						      : " (Megatron-Core's row-parallel linears assert it)";
		char hint[112] = "";
		int ki;
		if (!mlp[i].size || mlp[i].size % mlp[i].deg == 0)
			continue;
		/* a tp that fails the heads has its error (rule_tp_heads), and
		 * its hint a tp that fits the MLP too */
		if (mlp[i].deg_key == KEY_PARALLEL_TP && !dc_cfg_tp_admits(m, p->tp))
			continue;
		if (i == 0)
			dense_bad = 1;
		else if (i == 2 && !moe_seen && !p->etp && dense_bad)
			continue; /* the same ffn_hidden_size over the same tp: said */
		ki = blame(l, mlp[i].deg_key, (enum key_id)mlp[i].size_key);
		if (ki == mlp[i].size_key) {
			dc_cfg_errorf(l, ki,
				      "'%s': each %s rank holds an equal share of %s%s, so it must be a multiple of %s (%llu), got %llu",
				      size_path, group, mlp[i].whose, why, deg_path, (unsigned long long)mlp[i].deg,
				      (unsigned long long)mlp[i].size);
			continue;
		}
		if (mlp[i].deg_key == KEY_PARALLEL_TP)
			tp_hint(l, hint, sizeof(hint), "the heads and the MLP");
		dc_cfg_errorf(l, ki,
			      "'%s': must divide %s (%llu): each %s rank holds an equal share of %s%s, got %llu%s",
			      deg_path, what, (unsigned long long)mlp[i].size, group, mlp[i].whose, why,
			      (unsigned long long)mlp[i].deg, hint);
	}
	return 0;
}

/* HSDP: dp = dp_replicate x shard; the replicas of one shard group are
 * dp / dp_replicate dp ranks apart, so an expert's shard group (its dp / ep
 * expert-data-parallel ranks) splits the same way. */
static int rule_dp_replicate(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	int k = KEY_PARALLEL_DP_REPLICATE;
	uint64_t r = p->dp_replicate ? p->dp_replicate : 1, ep = p->ep ? p->ep : 1;
	if (r <= 1 || !p->dp)
		return 0;
	if (p->dp % r != 0)
		dc_cfg_errorf(l, blame_dp(l, k), "'parallel.dp_replicate': must divide parallel.dp (%llu), got %llu",
		       (unsigned long long)p->dp, (unsigned long long)r);
	else if (p->sharding == DC_SHARD_NONE)
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_SHARDING),
		       "'parallel.dp_replicate': replicates sharded states, so it needs parallel.sharding zero1, zero2 or fsdp (DDP already replicates everything), got %llu with sharding \"none\"",
		       (unsigned long long)r);
	else {
		if (r == p->dp)
			/* torchtitan runs it (replicas with shard degree 1, its
			 * parallelize.py:57-78 at b5bcd76c): HSDP over one-rank
			 * shards, priced as such */
			dc_cfg_warnf(l, k,
				     "'parallel.dp_replicate': equals parallel.dp (%llu), so each shard group is one rank: "
				     "nothing is sharded (DDP's memory)%s; priced as given (sharding \"none\" is plain DDP)",
				     (unsigned long long)r,
				     p->sharding == DC_SHARD_FSDP && p->pp <= 1
					     ? ", and each microbatch all-reduces the gradients across the replicas (HSDP), "
					       "where DDP reduces once a step"
					     : "");
		/* the expert-data-parallel ranks: dp / ep, or tp dp cp / (ep etp)
		 * folded (etp other than tp, ep not dividing dp, or ep > 1 with
		 * cp > 1: dc_layout_expert_folded) */
		uint64_t etp = dc_config_etp(l->cfg, p->tp, ep), cp = p->cp ? p->cp : 1;
		int unfolded = etp == p->tp && p->dp % ep == 0 && !(ep > 1 && cp > 1);
		uint64_t edp = unfolded ? p->dp / ep : p->tp * p->dp * cp / (ep * etp);
		if ((ep > 1 || etp != p->tp) && (p->tp * p->dp * cp) % (ep * etp) == 0 && edp % r != 0)
			dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_EP),
			       "'parallel.dp_replicate': must divide the expert-data-parallel ranks (%llu), got %llu",
			       (unsigned long long)edp, (unsigned long long)r);
	}
	return 0;
}

/* The pipeline's stages: even (pp divides the layers), an explicit list,
 * or Megatron's first/last-stage forms; dc_stage_split (plan.h) resolves
 * them, the plan reads the same runs. */
static int rule_pp_layers(struct loader *l)
{
	struct dc_parallel *p = &l->cfg->parallel;
	struct dc_stage_runs runs;
	char err[768];
	const char *key = NULL;

	p->first_stage_layers_given = seen(l, KEY_PARALLEL_FIRST_STAGE_LAYERS);
	p->last_stage_layers_given = seen(l, KEY_PARALLEL_LAST_STAGE_LAYERS);
	if (seen(l, KEY_PARALLEL_PIPELINE_LAYERS) && !p->pipeline_layers_n)
		return 0; /* the list itself was an error */
	if (dc_stage_split(p, l->cfg->model.num_layers, p->virtual_pipeline, &runs, &key, err, sizeof(err)) != 0) {
		/* dc_stage_split names one of the stage keys (a bug if not);
		 * an even split on pp that an --unset of the stage list or
		 * form left is that --unset's */
		static const int forms[] = {KEY_PARALLEL_PIPELINE_LAYERS, KEY_PARALLEL_FIRST_STAGE_LAYERS,
					    KEY_PARALLEL_LAST_STAGE_LAYERS};
		int ki = dc_cfg_find_key(key);
		if (ki == KEY_PARALLEL_PP && !l->from_set[ki])
			for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
				if (l->unset[forms[i]]) {
					ki = forms[i];
					break;
				}
		dc_cfg_errorf(l, ki < 0 || ki != dc_cfg_find_key(key) ? ki
				  : blame(l, ki, strcmp(key, "parallel.pp") == 0 ? KEY_MODEL_NUM_LAYERS : KEY_PARALLEL_PP),
			      "%s", err);
	}
	return 0;
}

/* MoE every n-th layer (Llama 4): the stages' dense and MoE layers are
 * counted (dc_plan_dense_in) in at most DC_PLAN_MAX_SEGMENTS kinds of
 * stage; DualPipeV gives each rank its own kind */
static int rule_moe_interval_pp(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	uint64_t v = p->virtual_pipeline ? p->virtual_pipeline : 1;
	uint64_t kinds;
	if (!c->model.num_experts || c->model.moe_layer_interval <= 1 || c->model.params_explicit || p->pp <= 1)
		return 0;
	kinds = dc_layout_moe_segments(c, p->pp, v);
	if (kinds > DC_PLAN_MAX_SEGMENTS)
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_PP, KEY_MODEL_MOE_LAYER_INTERVAL),
			      "'parallel.pp': with MoE on every n-th layer (model.moe_layer_interval %llu) these stages make %llu runs of differing dense and MoE layer mixes, more than the %d kinds of stage distcalc keeps; give fewer stages, or each stage (or model chunk) a multiple of %llu layers, got pp %llu",
			      (unsigned long long)c->model.moe_layer_interval, (unsigned long long)kinds,
			      DC_PLAN_MAX_SEGMENTS, (unsigned long long)c->model.moe_layer_interval, (unsigned long long)p->pp);
	else if (p->pipeline_schedule == DC_PIPE_DUALPIPEV && p->pp > DC_PLAN_MAX_SEGMENTS)
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_PP, KEY_MODEL_MOE_LAYER_INTERVAL),
			      "'parallel.pp': dualpipev with MoE on every n-th layer (model.moe_layer_interval %llu) prices every rank on its own, at most %d, got %llu",
			      (unsigned long long)c->model.moe_layer_interval, DC_PLAN_MAX_SEGMENTS, (unsigned long long)p->pp);
	return 0;
}

/* Sequence parallelism splits a cp rank's tokens, seq_length / cp, over
 * the tp ranks: Megatron-Core's scatter to the sequence-parallel region
 * asserts "First dimension of the tensor should be divisible by tensor
 * parallel size" (megatron/core/tensor_parallel/mappings.py:72-74,
 * _split_along_first_dim; Megatron-LM d98e8a6). */
static int rule_sequence_parallel(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	uint64_t cp = p->cp ? p->cp : 1;
	if (!p->sequence_parallel)
		return 0;
	if (p->tp < 2) {
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_SEQUENCE_PARALLEL, KEY_PARALLEL_TP),
		       "'parallel.sequence_parallel': needs parallel.tp > 1 (it splits the tp group's activations), got tp %llu",
		       (unsigned long long)p->tp);
	} else if (m->seq_length % cp == 0 && !dc_config_sp_splits_tokens(m, p->tp, cp) &&
		   /* a tp the heads refuse is that rule's error, with its fix:
		    * a sequence length for it would be no advice */
		   (!m->num_attention_heads || m->num_attention_heads % p->tp == 0)) {
		/* blamed on what the command line changed, else on sp; the
		 * lengths that fit: multiples of tp x cp (and of 2 cp where
		 * the cp ranks hold two chunks each, rule_cp) */
		static const int why[] = {KEY_MODEL_SEQ_LENGTH, KEY_PARALLEL_TP, KEY_PARALLEL_CP};
		int ki = dc_cfg_blame(l, KEY_PARALLEL_SEQUENCE_PARALLEL, why, sizeof(why) / sizeof(why[0]));
		uint64_t unit = p->tp * cp, below;
		char tokens[96], fits[48];
		if (cp > 1 && p->cp_comm_type != DC_CP_A2A && p->tp % 2 != 0 && unit <= UINT64_MAX / 2)
			unit *= 2;
		below = m->seq_length / unit * unit;
		if (cp > 1)
			snprintf(tokens, sizeof(tokens), "a cp rank's %llu tokens (model.seq_length %llu / cp %llu)",
				 (unsigned long long)(m->seq_length / cp), (unsigned long long)m->seq_length,
				 (unsigned long long)cp);
		else
			snprintf(tokens, sizeof(tokens), "the %llu tokens of model.seq_length",
				 (unsigned long long)m->seq_length);
		if (below)
			snprintf(fits, sizeof(fits), "%llu or %llu", (unsigned long long)below,
				 (unsigned long long)(below + unit));
		else
			snprintf(fits, sizeof(fits), "%llu", (unsigned long long)unit);
		if (l->filled[KEY_PARALLEL_SEQUENCE_PARALLEL] == DC_ORIGIN_FRAMEWORK)
			/* torchtitan's default, not the config's: it raises too
			 * (trainer.py:299-308 at b5bcd76c: the tokens of a
			 * microbatch divisible by tp x 2 cp under sequence
			 * parallelism) */
			dc_cfg_errorf(l, ki,
				      "'%s': training.framework \"torchtitan\" runs sequence parallelism at tp > 1 by default (enable_sequence_parallel), which splits %s over the tp ranks, so parallel.tp (%llu) must divide them (torchtitan raises otherwise: torchtitan/trainer.py:299-308 at b5bcd76c); a seq_length that is a multiple of %llu fits (%s), or set parallel.sequence_parallel false",
				      dc_cfg_keys[ki].info.path, tokens, (unsigned long long)p->tp, (unsigned long long)unit, fits);
		else
			dc_cfg_errorf(l, ki,
				      "'%s': sequence parallelism splits %s over the tp ranks, so parallel.tp (%llu) must divide them (Megatron-Core asserts it); a seq_length that is a multiple of %llu fits (%s)",
				      dc_cfg_keys[ki].info.path, tokens, (unsigned long long)p->tp, (unsigned long long)unit, fits);
	}
	return 0;
}

/* overlap.ep a2a_1f1b: Megatron-Core's combined 1F1B pairs one
 * microbatch's forward with another's backward, which it does for expert
 * parallelism and, with a pipeline, only in the interleaved schedule
 * (Megatron-LM arguments.py: --overlap-moe-expert-parallel-comm needs
 * expert_model_parallel_size > 1 and a virtual pipeline when pp > 1). */
/* training.framework (docs/step-model.md, "Framework rules"): the keys
 * whose default a framework sets are marked given or not, for the plan to
 * derive the rest per layout (the search changes pp and the sharding);
 * overlap.param_gather is Megatron's distributed optimizer's, and the
 * tiled TP overlap of Megatron (`--tp-comm-overlap`, which
 * megatron/training/arguments.py asserts needs sequence parallelism) and
 * torchtitan (async TP on sequence-parallel AllGathers and
 * ReduceScatters) needs sequence_parallel. */
static int rule_framework(struct loader *l)
{
	struct dc_config *c = l->cfg;
	enum dc_framework f = c->training.framework;
	const char *fw = dc_framework_name(f);
	c->parallel.bucket_given = seen(l, KEY_PARALLEL_BUCKET_SIZE);
	c->parallel.reshard_given = seen(l, KEY_PARALLEL_RESHARD_AFTER_FORWARD);
	c->overlap.dp_given = seen(l, KEY_OVERLAP_DP);
	c->overlap.param_gather_given = seen(l, KEY_OVERLAP_PARAM_GATHER);
	/* custom's values of the derived keys, which the other frameworks
	 * replace per plan (framework.c): PyTorch DDP's 25 MiB bucket
	 * (`bucket_cap_mb`), FSDP's resharding, buckets behind the backward */
	if (!c->parallel.bucket_given)
		c->parallel.bucket_bytes = 25ull * 1024 * 1024;
	if (!c->parallel.reshard_given)
		c->parallel.reshard_after_forward = 1;
	if (!c->overlap.dp_given)
		c->overlap.dp = 1;
	/* precision.fp8_recipe left out under torchtitan: its Float8
	 * converter's default, "rowwise" (torchtitan/components/quantization/
	 * float8.py:58 at b5bcd76c, recipe_name Literal["rowwise",
	 * "rowwise_with_gw_hp"] = "rowwise"; Transformer Engine's delayed
	 * scaling, the default elsewhere, is no torchtitan recipe), where its
	 * FP8 matmuls run */
	if (!seen(l, KEY_PRECISION_FP8_RECIPE) && f == DC_FRAMEWORK_TORCHTITAN &&
	    c->precision.compute == DC_COMPUTE_FP8) {
		c->precision.fp8_recipe = DC_FP8_ROWWISE;
		l->filled[KEY_PRECISION_FP8_RECIPE] = DC_ORIGIN_FRAMEWORK;
	}
	if (c->overlap.param_gather) {
		if (f != DC_FRAMEWORK_MEGATRON)
			dc_cfg_errorf(l, blame(l, KEY_OVERLAP_PARAM_GATHER, KEY_TRAINING_FRAMEWORK),
			       "'overlap.param_gather': Megatron's --overlap-param-gather needs training.framework \"megatron\", got \"%s\"",
			       fw);
		else if (c->parallel.sharding != DC_SHARD_ZERO1)
			dc_cfg_errorf(l, blame(l, KEY_OVERLAP_PARAM_GATHER, KEY_PARALLEL_SHARDING),
			       "'overlap.param_gather': overlaps the distributed optimizer's AllGather of the updated parameters, so it needs parallel.sharding \"zero1\", got \"%s\"",
			       dc_sharding_name(c->parallel.sharding));
	}
	if (c->overlap.tp && (f == DC_FRAMEWORK_MEGATRON || f == DC_FRAMEWORK_TORCHTITAN) && c->parallel.tp > 1 &&
	    !c->parallel.sequence_parallel)
		dc_cfg_errorf(l, blame(l, KEY_OVERLAP_TP, KEY_PARALLEL_SEQUENCE_PARALLEL),
		       "'overlap.tp': %s overlaps the sequence-parallel AllGathers and ReduceScatters with their GEMMs, so it needs parallel.sequence_parallel true",
		       f == DC_FRAMEWORK_MEGATRON ? "Megatron's --tp-comm-overlap" : "torchtitan's async TP");
	/* torchtitan's async TP is an Inductor pass over the compiled blocks
	 * (torchtitan/config/configs.py:306-312 raises without the model
	 * compiled; torchtitan/distributed/compile.py sets
	 * torch._inductor.config._micro_pipeline_tp) */
	if (c->overlap.tp && f == DC_FRAMEWORK_TORCHTITAN && c->parallel.tp > 1 && c->parallel.sequence_parallel &&
	    !c->training.compile)
		dc_cfg_errorf(l, blame(l, KEY_OVERLAP_TP, KEY_TRAINING_COMPILE),
		       "'overlap.tp': torchtitan's async TP is a torch.compile pass, so it needs training.compile true");
	return 0;
}

static int rule_ep_overlap(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	int k = KEY_OVERLAP_EP;
	if (c->overlap.ep == DC_EP_OVERLAP_DUALPIPE) {
		/* the schedule as given (rule_pipeline_schedule derives the
		 * default later; it is never a DualPipe) */
		if (p->ep < 2)
			dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_EP),
			       "'overlap.ep': \"dualpipe\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep %llu",
			       (unsigned long long)(p->ep ? p->ep : 1));
		else if (p->pipeline_schedule != DC_PIPE_DUALPIPE && p->pipeline_schedule != DC_PIPE_DUALPIPEV)
			dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_PIPELINE_SCHEDULE),
			       "'overlap.ep': \"dualpipe\" overlaps one microbatch's forward chunk with another's backward chunk, so it needs parallel.pipeline_schedule \"dualpipe\" or \"dualpipev\", got \"%s\"",
			       seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE) ? dc_cfg_pipe_schedule_names[p->pipeline_schedule]
								      : (p->virtual_pipeline > 1 ? "interleaved" : "1f1b"));
		return 0;
	}
	if (c->overlap.ep != DC_EP_OVERLAP_A2A_1F1B)
		return 0;
	if (p->ep < 2)
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_EP),
		       "'overlap.ep': \"a2a_1f1b\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep %llu",
		       (unsigned long long)(p->ep ? p->ep : 1));
	else if (p->pp > 1 && p->virtual_pipeline < 2)
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_VIRTUAL_PIPELINE),
		       "'overlap.ep': \"a2a_1f1b\" with a pipeline needs the interleaved schedule (parallel.virtual_pipeline > 1), as Megatron-Core does, got pp %llu, virtual_pipeline %llu",
		       (unsigned long long)p->pp, (unsigned long long)(p->virtual_pipeline ? p->virtual_pipeline : 1));
	else if (c->training.recompute == DC_RECOMPUTE_FULL)
		/* Megatron-Core's TransformerConfig: "Disable full recomputation
		 * when enabling overlap_moe_expert_parallel_comm" (a checkpointed
		 * layer's backward cannot be split into the overlapped parts) */
		dc_cfg_errorf(l, blame(l, k, KEY_TRAINING_RECOMPUTE),
		       "'overlap.ep': \"a2a_1f1b\" cannot run with training.recompute \"full\" (Megatron-Core refuses full recomputation with the overlap); use \"selective\" or \"none\"");
	return 0;
}

/* checkpoint.gather places a full state dict's gathered tensors: a
 * sharded save gathers nothing, so "gpu" there would be ignored */
static void warn_key(struct loader *l, enum key_id k, const char *why, const char *fix);

static int set_unread(const struct loader *l, enum key_id k);

static int rule_ckpt_gather(struct loader *l)
{
	const struct dc_checkpoint *k = &l->cfg->checkpoint;
	if (k->gather == DC_CKPT_GATHER_GPU && k->format != DC_CKPT_FULL)
		dc_cfg_errorf(l, KEY_CHECKPOINT_GATHER,
		       "'checkpoint.gather': \"gpu\" keeps a full state dict on the GPU, but checkpoint.format is \"%s\" (a sharded save gathers nothing); set checkpoint.format \"full\" or drop checkpoint.gather",
		       dc_ckpt_format_name(k->format));
	/* checkpoint.staging_bandwidth prices every save's copy to the host
	 * (sync and full ones copy too: docs/checkpoint-and-loss.md; before
	 * stop 69 it warned "no effect" beside them) */
	return 0;
}

/* The restored tp splits what parallel.tp does (rule_tp_heads, rule_tp_mlp):
 * the heads and the MLP sizes, each rank an equal share; the routed experts
 * over parallel.etp when given, else over the new tp. The first size that
 * does not split is named. */
static void restore_tp_splits(struct loader *l, uint64_t tp)
{
	const struct dc_model *m = &l->cfg->model;
	uint64_t etp = dc_config_etp(l->cfg, tp, l->cfg->checkpoint.restore.ep ? l->cfg->checkpoint.restore.ep : 1);
	const struct {
		const char *path;
		uint64_t size, deg;
		const char *whose;
	} sz[] = {
		{"model.num_attention_heads", m->num_attention_heads, tp, NULL},
		{"model.num_kv_heads", m->num_kv_heads, tp, NULL},
		{"model.linear_num_key_heads", m->full_attention_interval ? m->linear_num_key_heads : 0, tp,
		 "the Gated DeltaNet heads"},
		{"model.ffn_hidden_size", dc_params_moe_layers(m) < m->num_layers ? m->ffn_hidden_size : 0, tp,
		 "the dense MLP's inner size"},
		{"model.shared_expert_ffn_hidden_size", m->num_experts ? m->shared_expert_ffn_hidden_size : 0, tp,
		 "the shared experts' inner size"},
		{"model.moe_ffn_hidden_size", m->num_experts && !l->cfg->parallel.etp ? m->moe_ffn_hidden_size : 0, etp,
		 "each routed expert's inner size (parallel.etp is not given, so the experts split over tp)"},
	};
	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
		if (!sz[i].size || sz[i].size % sz[i].deg == 0)
			continue;
		if (sz[i].whose)
			dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_TP,
				      "'checkpoint.restore.tp': must divide %s (%llu): each tp rank holds an equal share of %s, got %llu",
				      sz[i].path, (unsigned long long)sz[i].size, sz[i].whose, (unsigned long long)sz[i].deg);
		else
			dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_TP, "'checkpoint.restore.tp': must divide %s (%llu), got %llu",
				      sz[i].path, (unsigned long long)sz[i].size, (unsigned long long)sz[i].deg);
		return;
	}
}

/* checkpoint.restore: the saved layout unless given; dp from the new world */
static int rule_restore(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_ckpt_restore *r = &c->checkpoint.restore;
	int kd = KEY_CHECKPOINT_RESTORE_DP;
	uint64_t world, mp;

	if (!r->tp)
		r->tp = c->parallel.tp;
	if (!r->pp)
		r->pp = c->parallel.pp;
	if (!r->cp)
		r->cp = c->parallel.cp ? c->parallel.cp : 1;
	if (!r->ep)
		r->ep = c->parallel.ep ? c->parallel.ep : 1;
	if (!r->num_nodes)
		r->num_nodes = c->cluster.num_nodes;
	if (!r->gpus_per_node)
		r->gpus_per_node = c->cluster.gpus_per_node;
	/* the saved layout is wrong already (reported above): the restored
	 * one, derived from it, would only repeat that */
	if (l->errors)
		return 0;
	if (dc_mul_u64(r->num_nodes, r->gpus_per_node, &world) != 0 || world > DC_MAX_WORLD) {
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_NUM_NODES,
		       "'checkpoint.restore.num_nodes': num_nodes x gpus_per_node must be at most 2^24 ranks, got %llu x %llu",
		       (unsigned long long)r->num_nodes, (unsigned long long)r->gpus_per_node);
		return 0;
	}
	restore_tp_splits(l, r->tp);
	if (c->model.num_layers && r->pp > c->model.num_layers && l->seen[KEY_CHECKPOINT_RESTORE_PP])
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_PP,
		       "'checkpoint.restore.pp': must be at most model.num_layers (%llu), got %llu",
		       (unsigned long long)c->model.num_layers, (unsigned long long)r->pp);
	/* cp as parallel.cp (rule_cp): 2 x cp chunks, two a rank, unless the
	 * AlltoAll form, which also splits the heads of a new tp rank */
	if (r->cp > 1 && c->parallel.cp_comm_type != DC_CP_A2A && c->model.seq_length % (2 * r->cp) != 0)
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_CP,
		       "'checkpoint.restore.cp': 2 x cp must divide model.seq_length (%llu): each cp rank holds two of 2 x cp equal chunks, got cp %llu",
		       (unsigned long long)c->model.seq_length, (unsigned long long)r->cp);
	else if (r->cp > 1 && c->parallel.cp_comm_type == DC_CP_A2A && c->model.seq_length % r->cp != 0)
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_CP,
		       "'checkpoint.restore.cp': must divide model.seq_length (%llu), got %llu",
		       (unsigned long long)c->model.seq_length, (unsigned long long)r->cp);
	else if (r->cp > 1 && c->parallel.cp_comm_type == DC_CP_A2A && r->tp &&
		 c->model.num_attention_heads % r->tp == 0 && c->model.num_kv_heads % r->tp == 0 &&
		 (c->model.num_attention_heads / r->tp % r->cp != 0 || c->model.num_kv_heads / r->tp % r->cp != 0))
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_CP,
		       "'checkpoint.restore.cp': with parallel.cp_comm_type \"a2a\" cp must divide the heads of each new tp rank (%llu query, %llu key/value heads), got %llu",
		       (unsigned long long)(c->model.num_attention_heads / r->tp),
		       (unsigned long long)(c->model.num_kv_heads / r->tp), (unsigned long long)r->cp);
	/* ep as parallel.ep (rule_ep): a mixture-of-experts model (the
	 * restore's slices take an ep that does not divide the experts,
	 * src/est/checkpoint.c) */
	if (r->ep > 1 && !c->model.num_experts)
		dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_EP,
		       "'checkpoint.restore.ep': needs a mixture-of-experts model (model.num_experts), got ep %llu",
		       (unsigned long long)r->ep);
	if (dc_mul_u64(r->tp, r->pp, &mp) != 0 || dc_mul_u64(mp, r->cp, &mp) != 0)
		mp = UINT64_MAX;
	if (mp > world || world % mp != 0) {
		/* the key the user gave: a layout key given, else the new
		 * world's (the layout kept from the save is nobody's choice) */
		const int layout[] = {KEY_CHECKPOINT_RESTORE_TP, KEY_CHECKPOINT_RESTORE_PP, KEY_CHECKPOINT_RESTORE_CP};
		const int world_keys[] = {KEY_CHECKPOINT_RESTORE_GPUS_PER_NODE, KEY_CHECKPOINT_RESTORE_NUM_NODES};
		int ki = -1;
		for (size_t i = 0; i < 3 && ki < 0; i++)
			if (l->seen[layout[i]])
				ki = layout[i];
		for (size_t i = 0; i < 2 && ki < 0; i++)
			if (l->seen[world_keys[i]])
				ki = world_keys[i];
		if (ki < 0)
			ki = KEY_CHECKPOINT_RESTORE_TP;
		ki = dc_cfg_blame(l, ki, world_keys, 2);
		dc_cfg_errorf(l, ki,
		       "'%s': the new layout's tp x pp x cp (%llu x %llu x %llu) must divide the new world, num_nodes x gpus_per_node = %llu",
		       dc_cfg_keys[ki].info.path, (unsigned long long)r->tp, (unsigned long long)r->pp,
		       (unsigned long long)r->cp, (unsigned long long)world);
		return 0;
	}
	if (r->pipeline_layers_n) {
		/* one entry per new stage, adding up to the model's layers */
		uint64_t sum = 0;
		int kl = KEY_CHECKPOINT_RESTORE_PIPELINE_LAYERS;
		for (uint64_t i = 0; i < r->pipeline_layers_n; i++)
			sum += r->pipeline_layers[i]; /* each < 2^53, at most 256 */
		if (r->pipeline_layers_n != r->pp)
			dc_cfg_errorf(l, blame(l, kl, KEY_CHECKPOINT_RESTORE_PP),
				      "'checkpoint.restore.pipeline_layers': expected one entry per new pipeline stage (checkpoint.restore.pp = %llu%s), got %llu",
				      (unsigned long long)r->pp, l->seen[KEY_CHECKPOINT_RESTORE_PP] ? "" : ", the saved parallel.pp",
				      (unsigned long long)r->pipeline_layers_n);
		else if (c->model.num_layers && sum != c->model.num_layers)
			dc_cfg_errorf(l, blame(l, kl, KEY_MODEL_NUM_LAYERS),
				      "'checkpoint.restore.pipeline_layers': the entries must add up to model.num_layers (%llu), got %llu",
				      (unsigned long long)c->model.num_layers, (unsigned long long)sum);
	}
	if (!r->dp)
		r->dp = world / mp;
	else if (r->dp != world / mp)
		dc_cfg_errorf(l, kd,
		       "'checkpoint.restore.dp': tp x pp x dp x cp must be the new world (%llu ranks), so dp must be %llu, got %llu",
		       (unsigned long long)world, (unsigned long long)(world / mp), (unsigned long long)r->dp);
	{
		/* as parallel.ep (rule_ep): out of dp, or folded over tp dp cp
		 * with the expert tp group (parallel.etp, else the new tp) */
		uint64_t etp = dc_config_etp(c, r->tp, r->ep);
		if ((r->ep <= 1 || c->model.num_experts) && r->dp && (r->tp * r->dp * r->cp) % (r->ep * etp) != 0)
			dc_cfg_errorf(l, KEY_CHECKPOINT_RESTORE_EP,
			       "'checkpoint.restore.ep': ep x etp (%llu x %llu) must divide the new tp x dp x cp (%llu x %llu x %llu), got ep %llu",
			       (unsigned long long)r->ep, (unsigned long long)etp, (unsigned long long)r->tp,
			       (unsigned long long)r->dp, (unsigned long long)r->cp, (unsigned long long)r->ep);
	}
	return 0;
}

static int rule_loss_tokens(struct loader *l)
{
	struct dc_loss *s = &l->cfg->loss;
	uint64_t seq = l->cfg->model.seq_length;
	if (!s->max_length)
		s->max_length = seq;
	if (seq && s->max_length > seq)
		dc_cfg_errorf(l, KEY_LOSS_TOKENS_MAX_LENGTH,
		       "'loss.tokens.max_length': must be at most model.seq_length (%llu), got %llu",
		       (unsigned long long)seq, (unsigned long long)s->max_length);
	if (s->min_length > s->max_length)
		dc_cfg_errorf(l, KEY_LOSS_TOKENS_MIN_LENGTH,
		       "'loss.tokens.min_length': must be at most loss.tokens.max_length (%llu), got %llu",
		       (unsigned long long)s->max_length, (unsigned long long)s->min_length);
	if (!(s->token_loss > 0 && s->token_loss < 1000))
		dc_cfg_errorf(l, KEY_LOSS_TOKEN_LOSS, "'loss.token_loss': must be above 0 and below 1000 nats, got %g",
		       s->token_loss);
	return 0;
}

/* search.space: a value no layout can take (a tp that does not divide the
 * GPUs, say) is left out of the search; each key that has such values
 * says which, and what they must divide, rather than the search dropping
 * them unseen (src/search/search.c walks the divisors). The values of v
 * left out into list[len]: those not dividing `whole` (0: every value),
 * but `own` (when not 0: a value kept though it does not, an uneven
 * pipeline's own v or pp) and those not dividing `said` (when not 0: said
 * already). Returns their count. */
static size_t space_bad(const struct dc_search_values *v, uint64_t whole, uint64_t own, uint64_t said, char *list,
			size_t len)
{
	size_t n = 0, bad = 0;
	list[0] = 0;
	for (uint32_t i = 0; i < v->n; i++) {
		if ((whole && whole % v->v[i] == 0) || (said && said % v->v[i] != 0) || (own && v->v[i] == own))
			continue;
		bad++;
		if (n < len)
			n += (size_t)snprintf(list + n, len - n, "%s%llu", bad > 1 ? ", " : "", (unsigned long long)v->v[i]);
	}
	return bad;
}

/* The values of v that do not divide `whole` (`what` names it) */
static void space_left_out(struct loader *l, enum key_id k, const struct dc_search_values *v, uint64_t whole,
			   uint64_t own, const char *what, uint64_t said)
{
	char list[256];
	size_t bad = space_bad(v, whole, own, said, list, sizeof(list));
	if (bad)
		dc_cfg_warnf(l, (int)k, "'%s': %s %s %s, so no layout takes %s: left out of the search%s",
			     dc_cfg_keys[k].info.path, list, bad > 1 ? "do not divide" : "does not divide", what,
			     bad > 1 ? "them" : "it", bad == v->n ? ", which then has no layout" : "");
}

/* The values of v other than `own` (`what` naming why it alone) */
static void space_left_out_unless(struct loader *l, enum key_id k, const struct dc_search_values *v, uint64_t own,
				  const char *what, uint64_t said)
{
	char list[256];
	size_t bad = space_bad(v, 0, own, said, list, sizeof(list));
	if (bad)
		dc_cfg_warnf(l, (int)k, "'%s': %s %s not %s, so no layout takes %s: left out of the search",
			     dc_cfg_keys[k].info.path, list, bad > 1 ? "are" : "is", what, bad > 1 ? "them" : "it");
}

static int rule_search_space(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_search *q = &c->search;
	uint64_t gbs = c->training.global_batch_size, v = c->parallel.virtual_pipeline;
	if (!gbs && dc_mul_u64(c->training.micro_batch_size, c->training.grad_accum_steps, &gbs))
		gbs = 0;
	if (!c->training.global_batch_size && dc_mul_u64(gbs, c->parallel.dp, &gbs))
		gbs = 0;
	char gpus[96], experts[96], layers[64], batch[64];
	snprintf(gpus, sizeof(gpus), "the %llu GPUs (num_nodes x gpus_per_node)", (unsigned long long)c->world_size);
	if (c->model.num_experts)
		snprintf(experts, sizeof(experts), "model.num_experts (%llu)", (unsigned long long)c->model.num_experts);
	else
		snprintf(experts, sizeof(experts), "1 (a dense model takes ep 1 alone)");
	snprintf(layers, sizeof(layers), "model.num_layers (%llu)", (unsigned long long)c->model.num_layers);
	snprintf(batch, sizeof(batch), "the global batch (%llu samples)", (unsigned long long)gbs);
	space_left_out(l, KEY_SEARCH_SPACE_TP, &q->tp, c->world_size, 0, gpus, 0);
	space_left_out(l, KEY_SEARCH_SPACE_CP, &q->cp, c->world_size, 0, gpus, 0);
	space_left_out(l, KEY_SEARCH_SPACE_PP, &q->pp, c->world_size, 0, gpus, 0);
	/* the search splits the layers evenly (src/plan/plan.c,
	 * dc_layout_fault: R_PP), but at the input's own uneven pp: a pp that
	 * divides the GPUs and not the layers is left out too */
	if (dc_stages_uneven(&c->parallel)) {
		/* the config's uneven stages fix its pp: every other value
		 * (that divides the GPUs: said above otherwise) is left out */
		char own[96];
		snprintf(own, sizeof(own), "the config's own pp (%llu), which its uneven stages fix",
			 (unsigned long long)c->parallel.pp);
		space_left_out_unless(l, KEY_SEARCH_SPACE_PP, &q->pp, c->parallel.pp, own, c->world_size);
	} else if (c->model.num_layers) {
		space_left_out(l, KEY_SEARCH_SPACE_PP, &q->pp, c->model.num_layers, 0, layers, c->world_size);
	}
	space_left_out(l, KEY_SEARCH_SPACE_DP, &q->dp, c->world_size, 0, gpus, 0);
	space_left_out(l, KEY_SEARCH_SPACE_EP, &q->ep, c->model.num_experts ? c->model.num_experts : 1, 0, experts,
		       0);
	space_left_out(l, KEY_SEARCH_SPACE_VIRTUAL_PIPELINE, &q->virtual_pipeline, c->model.num_layers,
		       v > 1 && dc_stages_uneven(&c->parallel) ? v : 0, layers, 0);
	if (gbs)
		space_left_out(l, KEY_SEARCH_SPACE_MICRO_BATCH_SIZE, &q->micro_batch_size, gbs, 0, batch, 0);
	return 0;
}

static int rule_sweep(struct loader *l)
{
	const struct dc_collective *c = &l->cfg->collective;
	if (c->step_factor < 2)
		dc_cfg_errorf(l, KEY_COLLECTIVE_STEP_FACTOR,
		       "'collective.step_factor': must be at least 2 (each size is the one before times it), got %llu",
		       (unsigned long long)c->step_factor);
	if (c->min_bytes > c->max_bytes)
		dc_cfg_errorf(l, blame(l, KEY_COLLECTIVE_MIN_BYTES, KEY_COLLECTIVE_MAX_BYTES),
		       "'collective.min_bytes': must be at most collective.max_bytes (%llu B), got %llu B",
		       (unsigned long long)c->max_bytes, (unsigned long long)c->min_bytes);
	return 0;
}

/* The file's own batch, micro_batch_size x grad_accum_steps, divides its
 * global_batch_size: some dp makes the three agree, so a --set that moves
 * dp may have broken them. One that does not divide was the file's own
 * contradiction, which a --set of tp (even to the file's value) does not
 * excuse (a review's case: 64 samples, 10 steps of 1). */
static int file_batch_whole(const struct dc_training *t)
{
	uint64_t per_dp;
	return !dc_mul_u64(t->micro_batch_size, t->grad_accum_steps, &per_dp) && per_dp &&
	       t->global_batch_size % per_dp == 0;
}

/* training.global_batch_size, when given, fixes the work of a step:
 * grad_accum_steps = global_batch_size / (micro_batch_size x dp), so a
 * --set of the micro batch or of dp keeps the samples per step. */
static int rule_global_batch(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_training *t = &c->training;
	int kg = KEY_TRAINING_GLOBAL_BATCH_SIZE, ka = KEY_TRAINING_GRAD_ACCUM_STEPS;
	int kb = KEY_TRAINING_MICRO_BATCH_SIZE;
	int who;
	uint64_t per_micro;
	/* dp 0: the layout rule could not derive it and said why (a sweep of
	 * parallel.tp=3 on 8 GPUs divided by it) */
	if (!l->seen[kg] || c->parallel.dp == 0)
		return 0;
	/* blame the --set that broke the division, if one did */
	who = l->from_set[kg] ? kg : l->from_set[kb] ? kb : blame_dp(l, kg);
	if (l->seen[ka] && !l->seen[kb]) {
		/* the global batch and the accumulation given, the micro batch
		 * not: it is theirs, as DeepSpeed derives it
		 * (deepspeed/runtime/config.py, _set_batch_related_parameters:
		 * train_batch_size and gradient_accumulation_steps give
		 * train_micro_batch_size_per_gpu) */
		uint64_t per_step;
		if (l->from_set[ka])
			who = ka;
		if (dc_mul_u64(t->grad_accum_steps, c->parallel.dp, &per_step) || t->global_batch_size % per_step != 0) {
			char d[160];
			dc_cfg_errorf(l, who,
			       "'training.global_batch_size': with training.grad_accum_steps given and no micro_batch_size, must be a multiple of grad_accum_steps x parallel.dp (%llu x %llu), got %llu%s; or give training.micro_batch_size",
			       (unsigned long long)t->grad_accum_steps, (unsigned long long)c->parallel.dp,
			       (unsigned long long)t->global_batch_size, dp_derived(l, d, sizeof(d)));
			return -1;
		}
		t->micro_batch_size = t->global_batch_size / per_step;
		return 0;
	}
	if (dc_mul_u64(t->micro_batch_size, c->parallel.dp, &per_micro) || t->global_batch_size % per_micro != 0) {
		char d[160];
		dc_cfg_errorf(l, who,
		       "'training.global_batch_size': must be a multiple of training.micro_batch_size x parallel.dp (%llu x %llu), got %llu%s",
		       (unsigned long long)t->micro_batch_size, (unsigned long long)c->parallel.dp,
		       (unsigned long long)t->global_batch_size, dp_derived(l, d, sizeof(d)));
		return -1;
	}
	if (l->seen[ka] && t->grad_accum_steps != t->global_batch_size / per_micro && !l->from_set[ka] &&
	    !l->from_set[kg] && (l->from_set[kb] || (blame_dp(l, -1) >= 0 && file_batch_whole(t)))) {
		/* the file gave both; a --set of the micro batch or of dp keeps
		 * the work, as does one that moves a derived dp (tp, pp, cp, the
		 * nodes or their GPUs: a user trial's --set parallel.tp was
		 * refused where --set parallel.dp of the same dp ran), said
		 * against that --set */
		dc_cfg_warnf(l, l->from_set[kb] ? kb : blame_dp(l, -1),
		      "'training.grad_accum_steps': the file's %llu becomes %llu = training.global_batch_size / (micro_batch_size x dp) = %llu / (%llu x %llu)",
		      (unsigned long long)t->grad_accum_steps, (unsigned long long)(t->global_batch_size / per_micro),
		      (unsigned long long)t->global_batch_size, (unsigned long long)t->micro_batch_size,
		      (unsigned long long)c->parallel.dp);
	} else if (l->seen[ka] && t->grad_accum_steps != t->global_batch_size / per_micro) {
		dc_cfg_errorf(l, l->from_set[ka] ? ka : who,
		       "'training.grad_accum_steps': %llu disagrees with training.global_batch_size: %llu = micro_batch_size %llu x dp %llu x %llu accumulation steps; leave it out (%s) to derive it",
		       (unsigned long long)t->grad_accum_steps, (unsigned long long)t->global_batch_size,
		       (unsigned long long)t->micro_batch_size, (unsigned long long)c->parallel.dp,
		       (unsigned long long)(t->global_batch_size / per_micro),
		       l->from_set[ka] ? "drop its --set" : "--unset training.grad_accum_steps");
		return -1;
	}
	t->grad_accum_steps = t->global_batch_size / per_micro;
	return 0;
}

static void preset_loses(struct loader *l, enum key_id k, const char *preset_key, const char *preset, const char *mine,
			 const char *theirs);
static void precision_preset_loses(struct loader *l, enum key_id k, const char *preset, const char *mine,
				   const char *theirs);

/* precision.preset fills every byte key not given (docs/formulas.md,
 * "Precision presets"). */
static int rule_precision_preset(struct loader *l)
{
	static const uint64_t bytes[][5] = {
		/* param, grad, master, optimizer, working (0: param) */
		[DC_PRECISION_COURSE] = {2, 2, 4, 8, 0},
		[DC_PRECISION_MEGATRON] = {2, 4, 4, 8, 0},
		[DC_PRECISION_FSDP2] = {4, 4, 0, 8, 2},
		[DC_PRECISION_DEEPSEEK_V3] = {2, 4, 4, 4, 0},
	};
	static const enum key_id path[] = {KEY_PRECISION_PARAM_BYTES, KEY_PRECISION_GRAD_BYTES,
					   KEY_PRECISION_MASTER_BYTES, KEY_PRECISION_OPTIMIZER_BYTES,
					   KEY_PRECISION_WORKING_BYTES};
	struct dc_precision *pr = &l->cfg->precision;
	uint64_t *field[] = {&pr->param_bytes, &pr->grad_bytes, &pr->master_bytes, &pr->optimizer_bytes,
			     &pr->working_bytes};
	for (size_t i = 0; i < 5; i++) {
		uint64_t v = i == 4 && !bytes[pr->preset][i] ? pr->param_bytes : bytes[pr->preset][i];
		char a[24], b[24];
		if (!seen(l, path[i])) {
			*field[i] = v;
		} else if (l->from_set[KEY_PRECISION_PRESET] && !l->from_set[path[i]] && *field[i] != v) {
			/* a preset given by --set where the config gives a byte key
			 * it would fill otherwise: the config's key wins, and says
			 * so (a preset never loses silently). A config naming both,
			 * or a --set of the key, says what it means: no warning */
			snprintf(a, sizeof(a), "%llu", (unsigned long long)*field[i]);
			snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
			precision_preset_loses(l, path[i], dc_precision_preset_name(pr->preset), a, b);
		}
	}
	return 0;
}

static int rule_offload(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	if (p->offload == DC_OFFLOAD_OPTIMIZER_PARAMS && p->sharding != DC_SHARD_FSDP)
		dc_cfg_errorf(l, blame(l, KEY_PARALLEL_OFFLOAD, KEY_PARALLEL_SHARDING),
		       "'parallel.offload': \"optimizer+params\" offloads the parameter shards, so it needs parallel.sharding \"fsdp\", got \"%s\"",
		       dc_cfg_sharding_names[p->sharding]);
	return 0;
}

/* training.loss_chunks: n divides a cp rank's microbatch tokens, as
 * torchtitan's ChunkedLossWrapper checks before it splits them into n
 * equal chunks (torch._check, components/loss.py:602-611 at b5bcd76c);
 * the chunked loss has no MTP heads (torchtitan's MTP decoder
 * refuses _skip_lm_head: models/deepseek_v3/mtp.py:268-272 at b5bcd76c)
 * and runs each chunk's weight gradient inside the loss call, so no
 * zero-bubble schedule can defer the head's W. */
static int rule_loss_chunks(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	int k = KEY_TRAINING_LOSS_CHUNKS;
	uint64_t n = c->training.loss_chunks, cp = c->parallel.cp ? c->parallel.cp : 1, tokens;
	if (n <= 1)
		return 0;
	if (dc_mul_u64(c->training.micro_batch_size, c->model.seq_length, &tokens))
		return 0; /* the batch rules said why */
	tokens /= cp;
	if (tokens % n)
		dc_cfg_errorf(l, blame(l, k, KEY_TRAINING_MICRO_BATCH_SIZE),
		       "'training.loss_chunks': must divide the %llu tokens of a microbatch on a cp rank (micro_batch_size %llu x seq_length %llu / cp %llu), as torchtitan's ChunkedLossWrapper requires of its equal chunks (components/loss.py:602-611 at b5bcd76c), got %llu",
		       (unsigned long long)tokens, (unsigned long long)c->training.micro_batch_size,
		       (unsigned long long)c->model.seq_length, (unsigned long long)cp, (unsigned long long)n);
	if (c->model.mtp_layers)
		dc_cfg_errorf(l, blame(l, k, KEY_MODEL_MTP_LAYERS),
		       "'training.loss_chunks': above 1 needs model.mtp_layers 0 (torchtitan's chunked loss takes no MTP heads, models/deepseek_v3/mtp.py:268-272 at b5bcd76c, and distcalc does not price chunked MTP heads), got %llu chunks with %llu MTP layers",
		       (unsigned long long)n, (unsigned long long)c->model.mtp_layers);
	if (c->parallel.pipeline_schedule == DC_PIPE_ZERO_BUBBLE)
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_PIPELINE_SCHEDULE),
		       "'training.loss_chunks': above 1 cannot run under parallel.pipeline_schedule \"zero_bubble\" (each chunk's backward, the head's weight gradient with it, runs inside the loss call, so the head's W cannot be deferred), got %llu",
		       (unsigned long long)n);
	return 0;
}

static int rule_recompute_layers(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	int k = KEY_TRAINING_RECOMPUTE_LAYERS;
	uint64_t chunk, chunks;
	if (!c->training.recompute_layers)
		return 0;
	if (dc_mul_u64(c->parallel.pp, c->parallel.virtual_pipeline, &chunks))
		return 0; /* rule_virtual_pipeline said why */
	chunk = c->model.num_layers / chunks;
	if (dc_stages_uneven(&c->parallel)) {
		/* uneven stages or chunks: the largest chunk (plan.h) */
		struct dc_stage_runs runs;
		const char *key;
		char err[8];
		uint64_t v = c->parallel.virtual_pipeline ? c->parallel.virtual_pipeline : 1;
		if (dc_stage_split(&c->parallel, c->model.num_layers, c->parallel.virtual_pipeline, &runs, &key, err, sizeof(err)) != 0)
			return 0; /* rule_pp_layers said why */
		chunk = runs.vfirst > runs.vlast ? runs.vfirst : runs.vlast;
		for (uint64_t i = 0; i < runs.n; i++) {
			/* a run's chunks: its stage's layers over v, the first
			 * and last stage's others over v - 1 */
			uint64_t st = runs.first[i], n = runs.layers[i], b = n / v;
			if (v > 1 && st == 0)
				b = (n - runs.vfirst) / (v - 1);
			else if (v > 1 && runs.first[i + 1] == c->parallel.pp)
				b = (n - runs.vlast) / (v - 1);
			if (b > chunk)
				chunk = b;
		}
	}
	if (c->training.recompute != DC_RECOMPUTE_FULL)
		dc_cfg_errorf(l, blame(l, k, KEY_TRAINING_RECOMPUTE),
		       "'training.recompute_layers': needs training.recompute \"full\" (it says how many layers are recomputed fully), got \"%s\"",
		       dc_cfg_recompute_names[c->training.recompute]);
	else if (c->training.recompute_layers > chunk)
		/* Megatron-Core's block method checkpoints layers 0 .. N - 1
		 * of each chunk and raises nothing when N is above the chunk's
		 * (megatron/core/recompute.py:167-181 at d98e8a64): every layer
		 * is recomputed, as the estimators price min(N, chunk) */
		dc_cfg_warnf(l, blame(l, k, KEY_PARALLEL_PP),
		       "'training.recompute_layers': %llu is above the %llu layers of the largest model chunk (num_layers / (pp x virtual_pipeline), or the largest chunk of uneven stages): every layer of each chunk is recomputed, as Megatron-Core's block method does with it",
		       (unsigned long long)c->training.recompute_layers, (unsigned long long)chunk);
	return 0;
}

/* precision.bf16_first_layers, bf16_last_layers: Megatron-Core's
 * first_last_layers_bf16 (megatron/core/fp8_utils.py:711-727 at
 * d98e8a64: a layer whose global index is below the first count, or at
 * or above num_layers less the last, runs outside the FP8 context), with
 * Megatron's own refusals (transformer_config.py:1527-1552) */
/* A vocabulary tp does not split evenly: Megatron-Core's vocab-parallel
 * embedding and head divide it exactly (tensor_parallel/utils.py:118,
 * VocabUtility.vocab_range_from_global_vocab_size's divide(), which
 * asserts; d98e8a64), after Megatron-LM pads it to a multiple of
 * make-vocab-size-divisible-by x tp (128 x tp by default). distcalc
 * prices the vocabulary as given, V / tp rows a rank on average: said,
 * not refused (a Hugging Face vocabulary is often unpadded, and
 * torchtitan's DTensor shards split it unevenly). Not under the layout
 * search, which tries tp values the user did not choose. */
static int rule_vocab_tp(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	uint64_t v = c->model.vocab_size, tp = c->parallel.tp, q = 128 * tp;
	if (l->errors || tp < 2 || !v || v % tp == 0 || (l->opts && l->opts->search) || tp > UINT64_MAX / 128)
		return 0;
	dc_cfg_warnf(l, KEY_MODEL_VOCAB_SIZE,
		     "'model.vocab_size': %llu does not split evenly over tp %llu; Megatron-LM pads it to a multiple of 128 x tp, %llu, before its vocab-parallel embedding and head divide it (tensor_parallel/utils.py:118 asserts), torchtitan's shards split it unevenly: priced as given, %llu / %llu rows a rank on average (give the padded size to price Megatron's)",
		     (unsigned long long)v, (unsigned long long)tp, (unsigned long long)((v + q - 1) / q * q),
		     (unsigned long long)v, (unsigned long long)tp);
	return 0;
}

static int rule_bf16_layers(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_precision *pr = &c->precision;
	static const enum key_id keys[] = {KEY_PRECISION_BF16_FIRST_LAYERS, KEY_PRECISION_BF16_LAST_LAYERS};
	const uint64_t n[] = {pr->bf16_first_layers, pr->bf16_last_layers};
	uint64_t L = c->model.num_layers;
	if (!n[0] && !n[1])
		return 0;
	if (pr->compute != DC_COMPUTE_FP8) {
		/* a warning, as fp8_recipe's: a sweep over precision.compute
		 * keeps its BF16 points */
		for (int i = 0; i < 2; i++)
			if (n[i])
				dc_cfg_warnf(l, (int)keys[i],
				       "'%s': keeps layers in BF16 among FP8 ones, but precision.compute is \"bf16\": every layer is BF16 already, so it has no effect; set precision.compute to \"fp8\" or drop the key",
				       dc_cfg_keys[keys[i]].info.path);
		return 0;
	}
	if (pr->fp8_recipe == DC_FP8_DELAYED) {
		int k = (int)(n[0] ? keys[0] : keys[1]);
		dc_cfg_errorf(l, blame(l, k, KEY_PRECISION_FP8_RECIPE),
		       "'%s': BF16 layers among FP8 ones need fp8_recipe \"current\", \"rowwise\" or \"mxfp8\": under delayed scaling each layer would leave and re-enter the FP8 context, which breaks its amax reduction, and Megatron-Core refuses it (\"Delayed scaling does not support first / last layer in BF16\", megatron/core/transformer/transformer_config.py:1529-1530 at d98e8a64); fp8_recipe is \"delayed\"",
		       dc_cfg_keys[k].info.path);
		return 0;
	}
	for (int i = 0; i < 2; i++)
		if (L && n[i] > L) {
			dc_cfg_errorf(l, (int)keys[i], "'%s': %llu is above the model's %llu layers (model.num_layers)",
			       dc_cfg_keys[keys[i]].info.path, (unsigned long long)n[i], (unsigned long long)L);
			return 0;
		}
	if (L && n[0] && n[1] && n[0] + n[1] > L) {
		dc_cfg_errorf(l, blame(l, (int)keys[1], keys[0]),
		       "'precision.bf16_last_layers': with bf16_first_layers %llu, %llu BF16 layers exceed the model's %llu (model.num_layers); the two ends may meet, not overlap",
		       (unsigned long long)n[0], (unsigned long long)(n[0] + n[1]), (unsigned long long)L);
		return 0;
	}
	/* the step prices one stage for all the middle ones (step.c's
	 * segments), so the BF16 layers stay in the model's end chunks: its
	 * first (stage 0's chunk 0) and its last (stage pp - 1's chunk v - 1;
	 * under DualPipeV rank 0's second, each L / (2 pp) layers) */
	if (c->parallel.pp > 1 && L) {
		uint64_t v = c->parallel.virtual_pipeline ? c->parallel.virtual_pipeline : 1, cap[2];
		int vee = c->parallel.pipeline_schedule == DC_PIPE_DUALPIPEV;
		uint64_t chunks = vee ? 2 : v;
		cap[0] = cap[1] = L / (c->parallel.pp * chunks);
		if (dc_stages_uneven(&c->parallel)) {
			struct dc_stage_runs runs;
			const char *key;
			char err[8];
			if (dc_stage_split(&c->parallel, L, c->parallel.virtual_pipeline, &runs, &key, err, sizeof(err)) != 0)
				return 0; /* rule_pp_layers said why */
			cap[0] = v > 1 ? runs.vfirst : runs.layers[0] / chunks;
			cap[1] = v > 1 ? runs.vlast : vee ? runs.layers[0] / chunks : runs.layers[runs.n - 1];
		}
		for (int i = 0; i < 2; i++)
			if (n[i] > cap[i]) {
				dc_cfg_errorf(l, blame(l, (int)keys[i], v > 1 ? KEY_PARALLEL_VIRTUAL_PIPELINE : KEY_PARALLEL_PP),
				       "'%s': %llu layers are more than the %llu of the model's %s chunk (%s): distcalc's step prices one stage for all the middle ones, so BF16 layers must stay in the model's end chunks; at most %llu, or fewer pipeline stages or model chunks (Megatron-Core itself takes up to num_layers / pp)",
				       dc_cfg_keys[keys[i]].info.path, (unsigned long long)n[i], (unsigned long long)cap[i],
				       i ? "last" : "first",
				       vee ? (i ? "rank 0's second, under DualPipeV" : "rank 0's first")
					   : (i ? "stage pp - 1's chunk v - 1" : "stage 0's chunk 0"),
				       (unsigned long long)cap[i]);
				return 0;
			}
	}
	/* Megatron-Core: each count at most num_layers // pp (its
	 * max_bf16_layers_per_pipeline_stage, transformer_config.py:1533-1552) */
	if (c->training.framework == DC_FRAMEWORK_MEGATRON && c->parallel.pp && L) {
		uint64_t most = L / c->parallel.pp;
		for (int i = 0; i < 2; i++)
			if (n[i] > most) {
				dc_cfg_errorf(l, blame(l, (int)keys[i], KEY_PARALLEL_PP),
				       "'%s': %llu is above num_layers / pp = %llu / %llu = %llu, the most Megatron-Core accepts under training.framework \"megatron\" (transformer_config.py:1533-1552 at d98e8a64 raises)",
				       dc_cfg_keys[keys[i]].info.path, (unsigned long long)n[i], (unsigned long long)L,
				       (unsigned long long)c->parallel.pp, (unsigned long long)most);
				return 0;
			}
	}
	return 0;
}

/* training.recompute_modules: Megatron-Core's --recompute-modules, so
 * under selective recompute and framework megatron, with Megatron's own
 * refusals (transformer_config.py:1944-2002, 3031-3032 at d98e8a64) and
 * a warning for a module the model has nothing of (Megatron accepts it
 * and reruns nothing) */
static void warn_key(struct loader *l, enum key_id k, const char *why, const char *fix);
static int search_tries_above_one(const struct loader *l, const struct dc_search_values *v);

/* NCCL refuses a collective of FP8 elements below sm90 ("FP8 reduction
 * support begins with sm90 capable devices", src/enqueue.cc v2.26.2
 * L2204-2208: any collective, not the point-to-point ops), so the
 * collectives sweep of one on an A100 prices what cannot run (a review) */
static int rule_collective_fp8(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	enum dc_collective_op op = c->collective.op;
	if ((c->collective.dtype != DC_DTYPE_F8E4M3 && c->collective.dtype != DC_DTYPE_F8E5M2) ||
	    op == DC_COLLECTIVE_ALL_TO_ALL || op == DC_COLLECTIVE_SEND_RECV || !l->opts || !l->opts->experiment ||
	    strcmp(l->opts->experiment, "collectives") != 0)
		return 0;
	if (dc_gpu_arch(c->cluster.gpu) == DC_GPU_ARCH_AMPERE)
		dc_cfg_errorf(l, blame(l, KEY_COLLECTIVE_DTYPE, KEY_CLUSTER_GPU),
			      "'collective.dtype': \"%s\" on an Ampere GPU (cluster.gpu \"%s\"), which NCCL refuses for "
			      "%s: FP8 collectives need sm90 or later (src/enqueue.cc v2.26.2 L2204-2208); give a Hopper or "
			      "Blackwell GPU, or another dtype",
			      dc_dtype_name(c->collective.dtype), dc_gpu_name(c->cluster.gpu), dc_collective_op_name(op));
	else if (c->cluster.gpu == DC_GPU_NONE)
		dc_cfg_warnf(l, KEY_COLLECTIVE_DTYPE,
			     "'collective.dtype': \"%s\" needs a Hopper or Blackwell GPU (NCCL refuses FP8 collectives "
			     "below sm90, src/enqueue.cc v2.26.2 L2204-2208), and the config names none (cluster.gpu): "
			     "priced as given",
			     dc_dtype_name(c->collective.dtype));
	return 0;
}

/* precision.param_bytes 1 (FP8 primary weights, --fp8-param-gather) under
 * training.framework megatron, as Megatron-LM d98e8a64 takes it: refused
 * without FP8 matmuls (transformer_config.py:1566-1567, "fp8_param must
 * be used together with fp8 mode") and without the distributed optimizer
 * or FSDP (arguments.py:1095-1097); under FSDP2 turned off with Transformer
 * Engine 2.0 or later (arguments.py:1051-1056), which warns (a trial's
 * hand config priced both refused runs, which the importer refuses). */
static int rule_fp8_params_megatron(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	if (c->training.framework != DC_FRAMEWORK_MEGATRON || c->precision.param_bytes != 1 ||
	    !seen(l, KEY_PRECISION_PARAM_BYTES))
		return 0;
	if (c->precision.compute != DC_COMPUTE_FP8)
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_PARAM_BYTES, KEY_PRECISION_COMPUTE),
			      "'precision.param_bytes': 1 is FP8 primary weights (--fp8-param-gather), which Megatron-LM "
			      "refuses without FP8 matmuls (megatron/core/transformer/transformer_config.py:1566-1567 at "
			      "d98e8a64: \"fp8_param must be used together with fp8 mode\"), and precision.compute is "
			      "\"bf16\"; set precision.compute to \"fp8\", or param_bytes to 2");
	else if (c->parallel.sharding == DC_SHARD_NONE && !(l->opts && l->opts->search))
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_PARAM_BYTES, KEY_PARALLEL_SHARDING),
			      "'precision.param_bytes': 1 is FP8 primary weights (--fp8-param-gather), which Megatron-LM "
			      "runs only with the distributed optimizer or FSDP (megatron/training/arguments.py:1095-1097 "
			      "at d98e8a64), and parallel.sharding is \"none\"; set sharding to \"zero1\" (the "
			      "distributed optimizer), or param_bytes to 2");
	else if (c->parallel.sharding == DC_SHARD_FSDP)
		warn_key(l, KEY_PRECISION_PARAM_BYTES,
			 "is FP8 primary weights (--fp8-param-gather), which Megatron-LM turns off under FSDP2 with "
			 "Transformer Engine 2.0 or later and gathers BF16 (megatron/training/arguments.py:1051-1056 at "
			 "d98e8a64): priced as given, FP8 weights and gathers",
			 "set param_bytes to 2 for Transformer Engine 2.0 or later");
	return 0;
}

/* Key k given by the config file or --set, not filled by a model file or
 * a preset */
static int given_here(const struct loader *l, enum key_id k)
{
	return seen(l, k) && !l->from_hf[k] && !l->filled[k];
}

/* training.moe_dispatcher "deepep": DeepEP moves the expert AlltoAlls of
 * an ep group; with expert tensor parallelism Megatron-Core's flex
 * dispatcher runs over the etp x ep group (token_dispatcher.py:1259-1260, 1837-1838
 * at d98e8a64), which ep.c does not price: refused. Without experts or
 * with ep 1 (and no search trying ep > 1) there is nothing to move. */
static int rule_moe_dispatcher(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	int k = KEY_TRAINING_MOE_DISPATCHER;
	uint64_t etp = p->etp ? p->etp : p->tp;
	if (c->training.moe_dispatcher != DC_MOE_DISPATCH_DEEPEP) {
		/* group-limited routing changes only DeepEP's crossings (ep.c):
		 * given in the config or by --set (a model file's n_group is
		 * the model's, said or not), under the AlltoAll it moves
		 * nothing (a trial's --set of both changed no figure, silently) */
		int gs = given_here(l, KEY_MODEL_ROUTER_GROUPS), gt = given_here(l, KEY_MODEL_ROUTER_GROUP_TOPK);
		int g = gs ? KEY_MODEL_ROUTER_GROUPS : KEY_MODEL_ROUTER_GROUP_TOPK;
		if ((gs || gt) && c->model.num_experts && !set_unread(l, (enum key_id)g))
			dc_cfg_warnf(l, g,
				     "%s: only training.moe_dispatcher \"deepep\" reads group-limited routing (a token's "
				     "experts on fewer nodes, fewer network crossings); under \"alltoall\" every copy of a "
				     "token is sent alike, so %s no effect; set training.moe_dispatcher \"deepep\", or "
				     "drop %s",
				     gs && gt ? "'model.router_groups', 'model.router_group_topk'" : gs ? "'model.router_groups'"
											 : "'model.router_group_topk'",
				     gs && gt ? "they have" : "it has", gs && gt ? "them" : "the key");
		return 0;
	}
	if (!c->model.num_experts) {
		warn_key(l, (enum key_id)k, "dispatches tokens to routed experts, but the model has none (model.num_experts is 0): it has no effect",
			 "drop the key");
		return 0;
	}
	if (etp > 1 && p->ep > 1) {
		dc_cfg_errorf(l, blame(l, k, p->etp ? KEY_PARALLEL_ETP : KEY_PARALLEL_TP),
			      "'training.moe_dispatcher': \"deepep\" is priced over the expert-parallel group alone, with expert tensor parallelism 1; got etp %llu%s (Megatron-Core's flex dispatcher then runs over etp x ep ranks, which distcalc does not model): set parallel.etp 1",
			      (unsigned long long)etp, p->etp ? "" : " (parallel.etp left out: tp's)");
		return 0;
	}
	if (p->ep < 2 && !search_tries_above_one(l, &c->search.ep))
		warn_key(l, (enum key_id)k, "moves the expert AlltoAlls between ep ranks, but parallel.ep is 1: it has no effect",
			 "set parallel.ep above 1 or drop the key");
	return 0;
}

static int rule_recompute_modules(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_model *m = &c->model;
	int k = KEY_TRAINING_RECOMPUTE_MODULES;
	uint32_t mods = c->training.recompute_modules_mask;
	uint64_t moe_layers = m->num_experts ? dc_params_moe_layers(m) : 0;
	size_t errors = l->errors;
	if (!mods)
		return 0;
	/* as rule_no_effect's keys: a warning without selective, so that a
	 * sweep over training.recompute keeps the list for its selective
	 * points; the layout search's selective layouts read it */
	if (c->training.recompute != DC_RECOMPUTE_SELECTIVE &&
	    !(l->opts && l->opts->search && (dc_search_recompute_mask(c) & (1u << DC_RECOMPUTE_SELECTIVE)))) {
		char v[160];
		dc_recompute_modules_text(mods, v, sizeof(v));
		dc_cfg_warnf(l, blame(l, k, KEY_TRAINING_RECOMPUTE),
			     "'training.recompute_modules': %s are the modules selective recompute reruns, but training.recompute is \"%s\": they have no effect; set training.recompute \"selective\" or drop the key",
			     v, dc_cfg_recompute_names[c->training.recompute]);
		return 0;
	}
	if (c->training.framework != DC_FRAMEWORK_MEGATRON) {
		dc_cfg_errorf(l, blame(l, k, KEY_TRAINING_FRAMEWORK),
			      "'training.recompute_modules': Megatron-Core's --recompute-modules, so it needs training.framework \"megatron\", got \"%s\" (whose selective recompute reruns the attention core alone)",
			      dc_framework_name(c->training.framework));
		return 0;
	}
	if ((mods & DC_RCM(DC_RCM_MLA_UP_PROJ)) && !m->kv_lora_rank)
		dc_cfg_errorf(l, blame(l, k, KEY_MODEL_KV_LORA_RANK),
			      "'training.recompute_modules': \"mla_up_proj\" reruns multi-latent attention's up-projections, but the model has no MLA (model.kv_lora_rank is 0), as Megatron-Core refuses");
	if ((mods & DC_RCM(DC_RCM_MOE_ACT)) && !moe_layers)
		dc_cfg_errorf(l, blame(l, k, KEY_MODEL_NUM_EXPERTS),
			      "'training.recompute_modules': \"moe_act\" reruns the routed experts' activation (Megatron-Core's grouped GEMM experts), but the model has no MoE layers");
	if ((mods & (DC_RCM(DC_RCM_MOE_ACT) | DC_RCM(DC_RCM_LAYERNORM))) && c->precision.compute == DC_COMPUTE_FP8 &&
	    c->precision.fp8_recipe == DC_FP8_DELAYED)
		dc_cfg_errorf(l, blame(l, k, KEY_PRECISION_FP8_RECIPE),
			      "'training.recompute_modules': \"%s\" cannot run under precision.fp8_recipe \"delayed\" (Megatron-Core: \"Delayed scaling does not support moe_act and layernorm recompute for fp8\"); use \"current\" or \"mxfp8\"",
			      (mods & DC_RCM(DC_RCM_MOE_ACT)) ? "moe_act" : "layernorm");
	if ((mods & DC_RCM(DC_RCM_MOE)) && c->overlap.ep == DC_EP_OVERLAP_A2A_1F1B)
		dc_cfg_errorf(l, blame(l, k, KEY_OVERLAP_EP),
			      "'training.recompute_modules': \"moe\" cannot run with overlap.ep \"a2a_1f1b\" (Megatron-Core: \"disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm\")");
	if (l->errors > errors)
		return 0;
	if ((mods & DC_RCM(DC_RCM_MLP)) && moe_layers >= m->num_layers)
		dc_cfg_warnf(l, k, "'training.recompute_modules': \"mlp\" reruns a dense layer's MLP, and every layer of the model is a MoE layer: it reruns nothing (\"moe\" or \"shared_experts\" rerun a MoE layer's)");
	if ((mods & DC_RCM(DC_RCM_MOE)) && !moe_layers)
		dc_cfg_warnf(l, k, "'training.recompute_modules': \"moe\" reruns a MoE layer's MLP part, and the model has no MoE layers: it reruns nothing");
	if ((mods & DC_RCM(DC_RCM_SHARED_EXPERTS)) && (!moe_layers || !m->shared_expert_ffn_hidden_size))
		dc_cfg_warnf(l, k, "'training.recompute_modules': \"shared_experts\" reruns a MoE layer's shared experts, and the model has none (model.shared_expert_ffn_hidden_size is 0): it reruns nothing");
	if ((mods & DC_RCM(DC_RCM_LAYERNORM)) && !m->kv_lora_rank && !moe_layers)
		dc_cfg_warnf(l, k, "'training.recompute_modules': \"layernorm\" reruns the norms Megatron-Core keeps apart from a linear (MLA's input norm, a MoE layer's pre-MLP norm); this model's norms are fused into the next linear (Transformer Engine's LayerNormLinear): it reruns nothing");
	return 0;
}

/* Whether training.grad_accum_steps was derived from the global batch
 * (rule_global_batch), and then in `why` how, for a rule's message on it:
 * ", derived: global_batch_size / (micro_batch_size x dp) = G / (B x D)",
 * or in parentheses with `paren`; "" when given. */
static int accum_derived(const struct loader *l, char *why, size_t len, int paren)
{
	const struct dc_config *c = l->cfg;
	int derived = l->seen[KEY_TRAINING_GLOBAL_BATCH_SIZE] && !l->seen[KEY_TRAINING_GRAD_ACCUM_STEPS];
	why[0] = 0;
	if (derived)
		snprintf(why, len, "%sderived: global_batch_size / (micro_batch_size x dp) = %llu / (%llu x %llu)%s",
			 paren ? " (" : ", ", (unsigned long long)c->training.global_batch_size,
			 (unsigned long long)c->training.micro_batch_size, (unsigned long long)c->parallel.dp,
			 paren ? ")" : "");
	return derived;
}

/* parallel.pipeline_schedule_microbatches: the microbatches of one
 * schedule, when a step runs several (torchtitan: one a gradient-
 * accumulation step, trainer.py:856-902 at b5bcd76c). It divides the
 * step's microbatches; Megatron-LM and DeepSpeed run one schedule of
 * them all, so under those frameworks it warns, priced as given; at pp 1
 * there is no schedule and it warns that it has no effect (the plan
 * reads it at pp > 1 alone: plan.h dc_layout_schedule_m). */
static int rule_schedule_microbatches(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	int k = KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES;
	uint64_t n = p->pipeline_schedule_microbatches, m = c->training.grad_accum_steps;
	if (!seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES))
		return 0;
	if (p->pp < 2) {
		/* the search's layouts of pp > 1 read it (plan.h
		 * dc_layout_schedule_m) */
		if (!(l->opts && l->opts->search))
			warn_key(l, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES,
				 "has no effect at parallel.pp 1 (no pipeline schedule: each of the step's microbatches runs forward and backward in turn)",
				 "leave it out, or set parallel.pp > 1");
		return 0;
	}
	if (!m || (l->seen[KEY_TRAINING_GLOBAL_BATCH_SIZE] && p->dp == 0))
		return 0; /* the batch rules said why */
	if (m % n != 0) {
		static const int moved[] = {KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES, KEY_TRAINING_GRAD_ACCUM_STEPS,
					    KEY_TRAINING_GLOBAL_BATCH_SIZE, KEY_TRAINING_MICRO_BATCH_SIZE, KEY_PARALLEL_DP,
					    KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE, KEY_CLUSTER_SYSTEM,
					    KEY_PARALLEL_TP, KEY_PARALLEL_PP, KEY_PARALLEL_CP};
		char why[200];
		int derived = accum_derived(l, why, sizeof(why), 0);
		dc_cfg_errorf(l, dc_cfg_blame(l, k, moved, derived ? sizeof(moved) / sizeof(moved[0]) : 2),
			      "'parallel.pipeline_schedule_microbatches': must divide the step's microbatches, training.grad_accum_steps (%llu%s), into whole schedules, got %llu",
			      (unsigned long long)m, why, (unsigned long long)n);
		return 0;
	}
	if (n == m)
		return 0; /* one schedule a step: what every framework runs */
	if (c->training.framework == DC_FRAMEWORK_MEGATRON)
		warn_key(l, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES,
			 "runs a step as several pipeline schedules, but Megatron-LM runs one of all the step's microbatches (train_step calls forward_backward_func once with num_microbatches=get_num_microbatches(): megatron/training/training.py:3093-3097 at d98e8a64) and training.framework is \"megatron\": it is priced as given",
			 "leave it out, or set training.framework to \"torchtitan\" or \"custom\"");
	else if (c->training.framework == DC_FRAMEWORK_DEEPSPEED)
		warn_key(l, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES,
			 "runs a step as several pipeline schedules, but DeepSpeed's pipeline engine runs one TrainSchedule of all the batch's micro-batches (train_batch: deepspeed/runtime/pipe/engine.py:389-392 at edaa7221) and training.framework is \"deepspeed\": it is priced as given",
			 "leave it out, or set training.framework to \"torchtitan\" or \"custom\"");
	return 0;
}

/* Keys one experiment reads alone, given to a run of another: the
 * layout search's (a trial wrote search.headroom 0.9 into a shared config
 * and read "fits" at 43 GiB of 141 without a word), and the what-if,
 * loss, checkpoint and collectives experiments' (a CI trial's --set
 * checkpoint.storage_bandwidth left its budget unmoved, silently). Each
 * row: a key or a key prefix ending in '.', and the experiments that
 * read it (checkpoint.format and .gather are read by the memory ledger
 * too: not here; collective.ranks by the ring lab and the collectives
 * sweep, none else: a CI trial's --set of it under loss and whatif went
 * unremarked; .message_size and .link by the ring lab alone, which the
 * systems and ring experiments show: a trial's --set of message_size under
 * --experiment collectives went unremarked). */
static const struct {
	const char *key;
	const char *readers[3]; /* experiment names (--experiment) */
	const char *what;       /* the readers, as the warning says them */
} one_experiment_keys[] = {
#define WHATIF {"whatif"}, "the what-if experiment (--experiment whatif)"
#define CHECKPOINT {"checkpoint"}, "the checkpoint experiment (--experiment checkpoint)"
#define COLLECTIVES {"collectives"}, "the collectives sweep (--experiment collectives)"
	{"search.", {"search"}, "the layout search (--experiment search)"},
	{"whatif.", WHATIF},
	{"training.jitter", WHATIF},
	{"loss.", {"loss"}, "the loss experiment (--experiment loss)"},
	{"checkpoint.async", CHECKPOINT},
	{"checkpoint.storage_bandwidth", CHECKPOINT},
	{"checkpoint.staging_bandwidth", CHECKPOINT},
	{"checkpoint.step", CHECKPOINT},
	{"checkpoint.restore.", CHECKPOINT},
	{"collective.op", COLLECTIVES},
	{"collective.dtype", COLLECTIVES},
	{"collective.min_bytes", COLLECTIVES},
	{"collective.step_factor", COLLECTIVES},
	{"collective.ranks", {"systems", "ring", "collectives"},
	 "the ring lab and the collectives sweep (--experiment systems, ring, collectives)"},
	{"collective.message_size", {"systems", "ring"}, "the ring lab (--experiment systems, ring)"},
	{"collective.link", {"systems", "ring"}, "the ring lab (--experiment systems, ring)"},
	/* whatif's slow_network detail prices nccl-tests' AllReduce at it */
	{"collective.max_bytes", {"collectives", "whatif"},
	 "the collectives sweep and the what-if experiment (--experiment collectives, whatif)"},
#undef WHATIF
#undef CHECKPOINT
#undef COLLECTIVES
};
#define N_ONE_EXPERIMENT_KEYS (sizeof(one_experiment_keys) / sizeof(one_experiment_keys[0]))

/* The row of one_experiment_keys `path` falls under, or -1 */
static int one_experiment_row(const char *path)
{
	for (size_t i = 0; i < N_ONE_EXPERIMENT_KEYS; i++) {
		const char *k = one_experiment_keys[i].key;
		size_t n = strlen(k);
		if (k[n - 1] == '.' ? strncmp(path, k, n) == 0 : strcmp(path, k) == 0)
			return (int)i;
	}
	return -1;
}

static int read_by(int row, const char *experiment)
{
	for (int i = 0; i < 3; i++)
		if (one_experiment_keys[row].readers[i] && strcmp(one_experiment_keys[row].readers[i], experiment) == 0)
			return 1;
	return 0;
}

int dc_config_key_read_by(const char *path, const char *experiment)
{
	int row = one_experiment_row(path);
	return row < 0 || read_by(row, experiment);
}

/* The load's experiment as one_experiment_keys names its readers */
static const char *run_experiment(const struct loader *l)
{
	return l->opts->search ? "search" : l->opts->experiment;
}

/* The run does not read key k, given by --set: rule_one_experiment_keys
 * says so, and a key's own "has no effect" warning would say it again
 * (a review found three keys warned twice) */
static int set_unread(const struct loader *l, enum key_id k)
{
	if (!l->opts || !l->opts->experiment || !l->from_set[k])
		return 0;
	return !dc_config_key_read_by(dc_cfg_keys[k].info.path, run_experiment(l));
}

/* Is `path` a sweep axis of this load (dc_load_opts swept)? */
static int swept(const struct loader *l, const char *path)
{
	for (size_t i = 0; i < l->opts->nswept; i++)
		if (strcmp(l->opts->swept[i], path) == 0)
			return 1;
	return 0;
}

/* Key paths a warning lists, in key order: the first key (its blame),
 * the count, and the names that fit ("'a', 'b'"); `listed` below `n`
 * marks a cut list */
struct key_names {
	char text[400];
	size_t used, n, listed;
	int first;
};

static void key_names_init(struct key_names *g)
{
	g->text[0] = 0;
	g->used = g->n = g->listed = 0;
	g->first = -1;
}

static void key_names_add(struct key_names *g, size_t k, const char *path)
{
	if (g->first < 0)
		g->first = (int)k;
	if (g->used + strlen(path) + 16 < sizeof(g->text)) {
		g->used += (size_t)snprintf(g->text + g->used, sizeof(g->text) - g->used, "%s'%s'", g->n ? ", " : "",
					    path);
		g->listed++;
	}
	g->n++;
}

/* ", ..." after a cut list, else "" */
static const char *key_names_more(const struct key_names *g)
{
	return g->listed < g->n ? ", ..." : "";
}

/* Such keys given by --set (a config file may hold other experiments'
 * sections and still be run for its report: the search's own winner
 * command is such a run) to a run that does not read them, at any value:
 * one warning for the keys of each reader. Only where the run's options
 * are known (the command line's loads). */
static int rule_one_experiment_keys(struct loader *l)
{
	/* the keys of each reader (a group: the first row of its readers),
	 * in one pass over the keys --set gave: every load runs this, a
	 * sweep's 100 points too (the pass over every key for every row
	 * once made a sweep 5 x slower) */
	struct key_names g[N_ONE_EXPERIMENT_KEYS];
	const char *experiment;
	/* a config with errors stops the run: no warning beside them */
	if (!l->opts || !l->opts->experiment || l->errors || !l->opts->noverrides)
		return 0;
	experiment = run_experiment(l);
	for (size_t r = 0; r < N_ONE_EXPERIMENT_KEYS; r++)
		key_names_init(&g[r]);
	for (size_t k = 0; k < NKEYS; k++) {
		const char *path = dc_cfg_keys[k].info.path;
		int row;
		size_t r = 0;
		/* whatever its value, the default's too: the run reads none
		 * (a default spelled otherwise, "10 GB/s", once warned where
		 * "1000" did not: a review) */
		if (!l->from_set[k] || !seen(l, (enum key_id)k) || dc_cfg_keys[k].kind == K_SECTION || swept(l, path) ||
		    (row = one_experiment_row(path)) < 0 || read_by(row, experiment))
			continue;
		/* rows of the same readers speak once, as the first of them */
		while (strcmp(one_experiment_keys[r].what, one_experiment_keys[row].what) != 0)
			r++;
		key_names_add(&g[r], k, path);
	}
	for (size_t r = 0; r < N_ONE_EXPERIMENT_KEYS; r++)
		if (g[r].n)
			dc_cfg_warnf(l, g[r].first,
				     "%s%s: only %s %s %s, so %s no effect on this run (experiment '%s'); drop the --set, or run --experiment %s",
				     g[r].text, key_names_more(&g[r]), one_experiment_keys[r].what,
				     /* the readers as said: "the ring lab" is one,
				      * of two experiments */
				     strstr(one_experiment_keys[r].what, " and ") ? "read" : "reads", g[r].n == 1 ? "it" : "them",
				     g[r].n == 1 ? "it has" : "they have", l->opts->experiment,
				     one_experiment_keys[r].readers[0]);
	return 0;
}

/* The microbatches one pipeline schedule runs: the step's, or those of
 * parallel.pipeline_schedule_microbatches (rule_schedule_microbatches) */
static uint64_t schedule_m(const struct dc_config *c)
{
	uint64_t n = c->parallel.pipeline_schedule_microbatches;
	return n && c->parallel.pp > 1 ? n : c->training.grad_accum_steps;
}

static int rule_virtual_pipeline(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	int kv = KEY_PARALLEL_VIRTUAL_PIPELINE;
	uint64_t chunks;
	if (p->virtual_pipeline <= 1)
		return 0;
	if (p->pp < 2)
		dc_cfg_errorf(l, kv, "'parallel.virtual_pipeline': an interleaved schedule needs parallel.pp > 1, got pp %llu",
		       (unsigned long long)p->pp);
	else if (!dc_stages_uneven(p) && /* uneven: rule_pp_layers checks each chunk */
		 (dc_mul_u64(p->pp, p->virtual_pipeline, &chunks) || c->model.num_layers % chunks != 0))
	{
		char hint[320] = "";
		/* where pp does not divide the layers either, its error says it */
		if (!dc_mul_u64(p->pp, p->virtual_pipeline, &chunks) && c->model.num_layers % p->pp == 0)
			dc_stages_counted_hint(c->model.num_layers, chunks, 1, hint, sizeof(hint));
		dc_cfg_errorf(l, kv,
		       "'parallel.virtual_pipeline': pp x virtual_pipeline (%llu x %llu) must divide model.num_layers (%llu)%s",
		       (unsigned long long)p->pp, (unsigned long long)p->virtual_pipeline,
		       (unsigned long long)c->model.num_layers, hint);
	}
	else if (schedule_m(c) % p->pp != 0 && schedule_m(c) == c->training.grad_accum_steps &&
		 /* dp 0: the world size rule failed and said why; a batch
		  * derived from it was not derived */
		 !(l->seen[KEY_TRAINING_GLOBAL_BATCH_SIZE] && p->dp == 0)) {
		/* grad_accum_steps derived from the global batch (rule_global_batch):
		 * a --set of the batch, the micro batch or what dp follows moved
		 * it, and is the override to name */
		static const int moved[] = {KEY_PARALLEL_VIRTUAL_PIPELINE, KEY_PARALLEL_PP, KEY_TRAINING_GRAD_ACCUM_STEPS,
					    KEY_TRAINING_GLOBAL_BATCH_SIZE, KEY_TRAINING_MICRO_BATCH_SIZE, KEY_PARALLEL_DP,
					    KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE, KEY_CLUSTER_SYSTEM,
					    KEY_PARALLEL_TP, KEY_PARALLEL_CP};
		uint64_t m = c->training.grad_accum_steps;
		/* given, grad_accum_steps moves with none of the batch keys */
		char why[200];
		int derived = accum_derived(l, why, sizeof(why), 0);
		dc_cfg_errorf(l, dc_cfg_blame(l, kv, moved, derived ? sizeof(moved) / sizeof(moved[0]) : 3),
		       "'parallel.virtual_pipeline': the interleaved schedule needs training.grad_accum_steps (%llu microbatch%s%s) to be a multiple of parallel.pp (%llu)",
		       (unsigned long long)m, m == 1 ? "" : "es", why, (unsigned long long)p->pp);
	} else if (schedule_m(c) % p->pp != 0 && !(l->seen[KEY_TRAINING_GLOBAL_BATCH_SIZE] && p->dp == 0)) {
		/* (dp 0 with a global batch: the schedule's microbatches were
		 * not derived either; a trial's --set tp=3 drew this as a third
		 * error that blamed the file for a key it never set) */
		dc_cfg_errorf(l, blame(l, kv, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES),
			      "'parallel.virtual_pipeline': the interleaved schedule needs parallel.pipeline_schedule_microbatches (%llu, the microbatches of one schedule) to be a multiple of parallel.pp (%llu)",
			      (unsigned long long)schedule_m(c), (unsigned long long)p->pp);
	}
	return 0;
}

/* parallel.pipeline_schedule: derived from virtual_pipeline when not
 * given (interleaved when v > 1, else 1f1b: every shipped config's
 * schedule); a given one must agree with virtual_pipeline and meet its
 * schedule's needs (docs/step-model.md, section 3): DualPipe's step()
 * asserts an even rank count and an even num_chunks >= 2 x ranks,
 * DualPipeV's num_chunks >= 2 x ranks (deepseek-ai/DualPipe); both place
 * stages of num_layers / pp (DualPipeV: / 2pp) layers themselves. */
static int rule_pipeline_schedule(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	int k = KEY_PARALLEL_PIPELINE_SCHEDULE;
	uint64_t v = p->virtual_pipeline ? p->virtual_pipeline : 1, pp = p->pp, m = schedule_m(c);
	enum dc_pipe_schedule s = p->pipeline_schedule;
	const char *name = dc_cfg_pipe_schedule_names[s];

	if (!seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE)) {
		p->pipeline_schedule = v > 1 ? DC_PIPE_INTERLEAVED : DC_PIPE_1F1B;
		return 0;
	}
	if (s == DC_PIPE_INTERLEAVED) {
		if (v < 2)
			dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_VIRTUAL_PIPELINE),
			       "'parallel.pipeline_schedule': \"interleaved\" runs parallel.virtual_pipeline > 1 model chunks a rank, got virtual_pipeline 1 (one chunk a rank is \"1f1b\")");
		return 0;
	}
	if (v > 1) {
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_VIRTUAL_PIPELINE),
		       "'parallel.pipeline_schedule': \"%s\" %s, so it needs parallel.virtual_pipeline 1, got %llu (virtual_pipeline > 1 is \"interleaved\")",
		       name, s == DC_PIPE_1F1B ? "runs one model chunk a rank" : "places its own model chunks",
		       (unsigned long long)v);
		return 0;
	}
	if (s == DC_PIPE_1F1B)
		return 0;
	if (s == DC_PIPE_DUALPIPE && pp % 2 != 0) {
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_PP),
		       "'parallel.pipeline_schedule': \"dualpipe\" needs an even parallel.pp (rank s holds stages s and pp - 1 - s, fed from both ends), got pp %llu",
		       (unsigned long long)pp);
		return 0;
	}
	if (pp < 2) {
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_PP),
		       "'parallel.pipeline_schedule': \"%s\" is a pipeline schedule, so it needs parallel.pp > 1, got pp %llu",
		       name, (unsigned long long)pp);
		return 0;
	}
	if (s == DC_PIPE_ZERO_BUBBLE)
		return 0;
	/* DualPipe runs the stages it is given (rank s holds stages s and
	 * pp - 1 - s, however many layers each); DualPipeV cuts the model
	 * into 2 pp chunks itself */
	if (s == DC_PIPE_DUALPIPEV && dc_stages_uneven(p)) {
		dc_cfg_errorf(l, k,
		       "'parallel.pipeline_schedule': \"dualpipev\" cuts the model into 2 x pp chunks of equal layers itself; drop pipeline_layers, first_stage_layers, last_stage_layers and account_for_* (\"dualpipe\" takes uneven stages)");
		return 0;
	}
	if (s == DC_PIPE_DUALPIPEV && c->model.num_layers % (2 * pp) != 0) {
		dc_cfg_errorf(l, blame(l, k, KEY_MODEL_NUM_LAYERS),
		       "'parallel.pipeline_schedule': \"dualpipev\" splits the model into 2 x pp = %llu chunks, two a rank, so 2 x pp must divide model.num_layers (%llu)",
		       (unsigned long long)(2 * pp), (unsigned long long)c->model.num_layers);
		return 0;
	}
	if ((m < 2 * pp || (s == DC_PIPE_DUALPIPE && m % 2 != 0)) && m != c->training.grad_accum_steps) {
		dc_cfg_errorf(l, blame(l, k, KEY_PARALLEL_PIPELINE_SCHEDULE_MICROBATCHES),
			      "'parallel.pipeline_schedule': \"%s\" needs %sparallel.pipeline_schedule_microbatches (the microbatches of one schedule) of at least 2 x pp = %llu (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks%s), got %llu",
			      name, s == DC_PIPE_DUALPIPE ? "an even " : "", (unsigned long long)(2 * pp),
			      s == DC_PIPE_DUALPIPE ? ", half of them fed from each end" : "", (unsigned long long)m);
	} else if (m < 2 * pp || (s == DC_PIPE_DUALPIPE && m % 2 != 0)) {
		/* a derived accumulation moves with the batch keys: the one the
		 * user set last among them is the override to name (as the
		 * interleaved rule does) */
		static const int moved[] = {KEY_PARALLEL_PIPELINE_SCHEDULE, KEY_TRAINING_GRAD_ACCUM_STEPS, KEY_PARALLEL_PP,
					    KEY_TRAINING_GLOBAL_BATCH_SIZE, KEY_TRAINING_MICRO_BATCH_SIZE, KEY_PARALLEL_DP,
					    KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE, KEY_CLUSTER_SYSTEM,
					    KEY_PARALLEL_TP, KEY_PARALLEL_CP};
		char why[200];
		int derived = accum_derived(l, why, sizeof(why), 1);
		dc_cfg_errorf(l, dc_cfg_blame(l, k, moved, derived ? sizeof(moved) / sizeof(moved[0]) : 3),
		       "'parallel.pipeline_schedule': \"%s\" needs %straining.grad_accum_steps of at least 2 x pp = %llu (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks%s), got %llu%s",
		       name, s == DC_PIPE_DUALPIPE ? "an even " : "", (unsigned long long)(2 * pp),
		       s == DC_PIPE_DUALPIPE ? ", half of them fed from each end" : "", (unsigned long long)m, why);
	}
	return 0;
}

/* A key the config (or --set) gives where the preset named in the same
 * run would fill another value: the explicit one wins, and a warning names
 * both, so a preset never loses silently. A value the walk refused has
 * its error, and no value to win with: nothing more is said. */
static void preset_loses(struct loader *l, enum key_id k, const char *preset_key, const char *preset, const char *mine,
			 const char *theirs)
{
	if (l->refused[k])
		return;
	dc_cfg_warnf(l, (int)k, "'%s': %s from %s overrides %s that %s \"%s\" would fill",
		     dc_cfg_keys[k].info.path, mine, l->from_set[k] ? "--set" : "the config", theirs, preset_key, preset);
}

/* preset_loses for a byte key of the config against a precision.preset
 * given by --set: and how to take the preset's value (a student's
 * trial: the --set alone changed nothing) */
static void precision_preset_loses(struct loader *l, enum key_id k, const char *preset, const char *mine,
				   const char *theirs)
{
	if (l->refused[k])
		return;
	dc_cfg_warnf(l, (int)k,
		     "'%s': %s from the config overrides %s that precision.preset \"%s\" would fill; --unset %s "
		     "to take the preset's",
		     dc_cfg_keys[k].info.path, mine, theirs, preset, dc_cfg_keys[k].info.path);
}

static void fill_u64(struct loader *l, enum key_id k, uint64_t *f, uint64_t v, enum dc_origin o, const char *pk,
		     const char *pn)
{
	char a[64], b[64]; /* "8388607.999 GiB (9,007,199,254,740,991 B)" */
	if (!seen(l, k)) {
		*f = v;
		l->filled[k] = (unsigned char)o;
	} else if (*f != v) {
		/* memory in GiB as the presets give it, counts as they are */
		if (k == KEY_CLUSTER_GPU_MEMORY) {
			dc_fmt_gib(a, sizeof(a), *f);
			dc_fmt_gib(b, sizeof(b), v);
		} else {
			snprintf(a, sizeof(a), "%llu", (unsigned long long)*f);
			snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
		}
		preset_loses(l, k, pk, pn, a, b);
	}
}

/* v (in base units) as a preset's value is worded, in `unit` (x 1/scale):
 * as %g writes it ("370.8 GB/s", "3.4 us") where that needs no exponent;
 * a value that large with its integer digits ("1234567 GB/s"); one that
 * small (a unit left out: 989 FLOP/s is 9.89e-10 TFLOP/s) exactly in the
 * base unit, as the config gave it ("989 FLOP/s"), and where even that
 * takes an exponent (1e-11 s) in plain decimals of `unit` to 15
 * significant digits ("0.00001 us"); an exponent only past 20 zeros
 * there (1e-30 s), where the decimals would not fit. */
static void preset_value_text(char *buf, size_t len, double v, double scale, const char *unit)
{
	const char *sp = *unit ? " " : "";
	char num[32], digits[24], *e;
	size_t n = 0;
	snprintf(buf, len, "%g%s%s", v / scale, sp, unit);
	if (!strchr(buf, 'e'))
		return;
	if (fabs(v / scale) >= 1) {
		snprintf(buf, len, "%.0f%s%s", v / scale, sp, unit);
		return;
	}
	dc_cfg_fmt_num(num, sizeof(num), v);
	if (!strchr(num, 'e')) {
		snprintf(buf, len, "%s %s", num,
			 strstr(unit, "FLOP/s") ? "FLOP/s" : strstr(unit, "B/s") ? "B/s" : "s");
		return;
	}
	/* |v / scale| < 1e-4 here (%g took an exponent), so %.15g writes
	 * d.ddde-XX with XX >= 5: 0. then XX - 1 zeros, then the digits;
	 * past 20 zeros (1e-22 us and less, no real rate or time) the
	 * exponent form, which fits the callers' 48 bytes whole */
	snprintf(num, sizeof(num), "%.15g", fabs(v / scale));
	e = strchr(num, 'e');
	if (!e || atoi(e + 1) < -21) {
		snprintf(buf, len, "%s%s%s%s", v < 0 ? "-" : "", num, sp, unit);
		return;
	}
	for (const char *c = num; c < e && n + 1 < sizeof(digits); c++)
		if (*c != '.')
			digits[n++] = *c;
	digits[n] = '\0';
	snprintf(buf, len, "%s0.%0*d%s%s%s", v < 0 ? "-" : "", -atoi(e + 1) - 1, 0, digits, sp, unit);
}

/* `scale` and `unit` word the values ("GB/s" at 1e9, "us" at 1e-6). */
static void fill_f64(struct loader *l, enum key_id k, double *f, double v, enum dc_origin o, const char *pk,
		     const char *pn, double scale, const char *unit)
{
	char a[48], b[48];
	if (!seen(l, k)) {
		*f = v;
		l->filled[k] = (unsigned char)o;
	} else if (*f != v && v == 0 && !l->refused[k]) {
		/* the preset has no such figure (an A100's FP8 peak): nothing
		 * is overridden, but the value is the user's alone */
		preset_value_text(a, sizeof(a), *f, scale, unit);
		dc_cfg_warnf(l, (int)k, "'%s': %s from %s is taken, though %s \"%s\" gives none (it fills 0)",
			     dc_cfg_keys[k].info.path, a, l->from_set[k] ? "--set" : "the config", pk, pn);
	} else if (*f != v) {
		preset_value_text(a, sizeof(a), *f, scale, unit);
		preset_value_text(b, sizeof(b), v, scale, unit);
		/* values %g rounds alike (a trial's 400.0000001 Gb/s read "50
		 * GB/s ... overrides 50 GB/s"): as many digits as tell them
		 * apart */
		for (int prec = 7; prec <= 17 && strcmp(a, b) == 0; prec++) {
			snprintf(a, sizeof(a), "%.*g%s%s", prec, *f / scale, *unit ? " " : "", unit);
			snprintf(b, sizeof(b), "%.*g%s%s", prec, v / scale, *unit ? " " : "", unit);
		}
		preset_loses(l, k, pk, pn, a, b);
	}
}

/* NVLink SHARP by GPU: 1 has it (Hopper's third-generation NVSwitch), -1
 * has not (the A100's NVSwitch does no in-switch reductions), 0 not known
 * (a preset without an entry: not refused). */
static const signed char gpu_nvls[DC_GPU_COUNT] = {
	[DC_GPU_A100_SXM4_40GB] = -1,
	[DC_GPU_A100_SXM4_80GB] = -1,
	[DC_GPU_H100_SXM5_80GB] = 1,
	/* the NVL and PCIe cards pair over NVLink bridges: no NVSwitch */
	[DC_GPU_H100_NVL_94GB] = -1,
	[DC_GPU_H100_PCIE_80GB] = -1,
	[DC_GPU_H800_SXM5_80GB] = 1,
	[DC_GPU_H200_SXM_141GB] = 1,
	[DC_GPU_GH200_96GB] = 1,
	[DC_GPU_B200_SXM_180GB] = 1,
	[DC_GPU_GB200] = 1,
};

static int gpu_lacks_nvls(enum dc_gpu g)
{
	return g != DC_GPU_NONE && g < DC_GPU_COUNT && gpu_nvls[g] < 0;
}

/* The vendor data sheets' figures (dense, no sparsity; docs/compute-model.md,
 * "The presets", each row's source there). A card sold as N GB holds N GiB
 * (warn_decimal_gpu_memory). host_bw, the last column: the data sheets' host link, halved to one
 * way: PCIe Gen4 x16 64 GB/s (A100), PCIe Gen5 x16 128 GB/s (H100, H800,
 * H200, B200), NVLink-C2C 900 GB/s (GH200; GB200's one C2C link to its
 * Grace serves two B200s, so half of that each). host_mem_bw, after it:
 * the Grace's LPDDR5X bandwidth a GPU has, for cluster.host_adam_rate
 * (derive_host_adam_rate): GH200 512 GB/s (its data sheet), GB200 the
 * NVL72 data sheet's 18.4 TB/s over its 72 GPUs */
static const struct dc_gpu_spec gpu_specs[DC_GPU_COUNT] = {
	[DC_GPU_A100_SXM4_40GB] = {40, 312e12, 0, 0, 1.555e12, 108, 300e9, "the A100 has no FP8 tensor cores", 32e9},
	[DC_GPU_A100_SXM4_80GB] = {80, 312e12, 0, 0, 2.039e12, 108, 300e9, "the A100 has no FP8 tensor cores", 32e9},
	[DC_GPU_H100_SXM5_80GB] = {80, 989e12, 1979e12, 0, 3.35e12, 132, 450e9, NULL, 64e9},
	[DC_GPU_H100_NVL_94GB] = {94, 835.5e12, 1670.5e12, 0, 3.9e12, 132, 300e9, NULL, 64e9},
	[DC_GPU_H100_PCIE_80GB] = {80, 756.5e12, 1513e12, 0, 2.0e12, 114, 300e9, NULL, 64e9},
	[DC_GPU_H800_SXM5_80GB] = {80, 989e12, 1979e12, 0, 3.35e12, 132, 200e9, NULL, 64e9},
	[DC_GPU_H200_SXM_141GB] = {141, 989e12, 1979e12, 0, 4.8e12, 132, 450e9, NULL, 64e9},
	[DC_GPU_GH200_96GB] = {96, 989e12, 1979e12, 0, 4.0e12, 132, 450e9, NULL, 450e9, 512e9},
	[DC_GPU_B200_SXM_180GB] = {180, 2250e12, 4500e12, 9000e12, 8.0e12, 148, 900e9, NULL, 64e9},
	[DC_GPU_GB200] = {186, 2500e12, 5000e12, 10000e12, 8.0e12, 148, 900e9, NULL, 225e9, 18.4e12 / 72},
};

const struct dc_gpu_spec *dc_gpu_spec(enum dc_gpu g)
{
	return g == DC_GPU_NONE || g >= DC_GPU_COUNT ? NULL : &gpu_specs[g];
}

/* overlap.compute_slowdown, derived: the share of the GPU's SMs that
 * NCCL's channels hold while a collective runs behind kernels. NCCL opens
 * one ring channel per rail (8 NICs: 8) and does not double them on these
 * nodes (src/graph/search.cc, ncclTopoDupChannels: only when a channel
 * carries at least 25 GB/s, and on sm80+ not below 50 GB/s with more than
 * 4 channels), so 8 channels over the SMs: cluster.sm_count when given,
 * else the preset's. The A100 preset keeps the 0.075 shipped before the
 * presets (8 / 108 = 0.0741, rounded up), as does a config with neither a
 * preset nor sm_count (no SMs to divide by). */
#define NCCL_CHANNELS 8.0
static double derived_slowdown(enum dc_gpu g, uint64_t sms, int sms_given)
{
	if (sms_given && sms)
		return NCCL_CHANNELS / (double)sms;
	if (g == DC_GPU_NONE || dc_gpu_arch(g) == DC_GPU_ARCH_AMPERE || sms == 0)
		return 0.075;
	return NCCL_CHANNELS / (double)sms;
}

/* The derivation, with or without a preset; at 8 SMs or fewer NCCL's
 * channels would hold every SM (a slowdown of 1 or more, outside the
 * key's [0, 1)): the share model has no figure for kernels that wait for
 * SMs, so such a GPU is refused rather than clamped to a number nobody
 * measured; a given overlap.compute_slowdown stands in for the
 * derivation (and replaces it without a warning: it is derived from the
 * SMs in use, not a preset figure). */
/* DeepEP's kernels hold their own SMs while its AlltoAlls run behind
 * compute: 20, Megatron-Core's flex dispatcher's default
 * (moe_flex_dispatcher_num_sms None -> 20, token_dispatcher.py:1288-1292
 * at d98e8a64), the 20 of DeepSeek-V3's report (section 3.2.2) */
#define DEEPEP_SMS 20u
static void derive_slowdown(struct loader *l)
{
	const struct dc_cluster *c = &l->cfg->cluster;
	struct dc_overlap *o = &l->cfg->overlap;
	double sd;
	/* a given slowdown stands for every overlap; derived, DeepEP's share
	 * of the SMs where they are known and leave some to the kernels */
	o->ep_slowdown = o->compute_slowdown;
	if (seen(l, KEY_OVERLAP_COMPUTE_SLOWDOWN))
		return;
	if (l->cfg->training.moe_dispatcher == DC_MOE_DISPATCH_DEEPEP && c->sm_count > DEEPEP_SMS)
		o->ep_slowdown = (double)DEEPEP_SMS / (double)c->sm_count;
	sd = derived_slowdown(c->gpu, c->sm_count, seen(l, KEY_CLUSTER_SM_COUNT));
	if (!(sd < 1.0)) {
		dc_cfg_errorf(l, blame(l, KEY_CLUSTER_SM_COUNT, KEY_CLUSTER_GPU),
		       "'cluster.sm_count': NCCL's %.0f channels each hold one SM while a collective runs behind kernels, so %llu SMs leave none to the kernels (overlap.compute_slowdown, derived as %.0f / sm_count, would be %g, outside [0, 1)); give more than %.0f SMs, or give overlap.compute_slowdown",
		       NCCL_CHANNELS, (unsigned long long)c->sm_count, NCCL_CHANNELS, sd, NCCL_CHANNELS);
		return;
	}
	l->cfg->overlap.compute_slowdown = sd;
	if (!(l->cfg->training.moe_dispatcher == DC_MOE_DISPATCH_DEEPEP && c->sm_count > DEEPEP_SMS))
		o->ep_slowdown = sd;
}

/* cluster.host_adam_rate from the CPU memory bandwidth of a node
 * (docs/step-model.md, "The optimizer on the host"). CPU-Adam streams
 * its operands (DeepSpeed csrc/includes/cpu_adam.h Step_AVX: FP32
 * parameter, gradient and both moments read, parameter and moments
 * written, 28 B a parameter), so its rate follows the memory's. The one
 * measurement, ZeRO-Offload's DGX-2 (Ren et al. 2021, Table 4: 10^10
 * parameters in 2.57 s, 3.891e9 a second), on two Xeon Platinum 8168 of
 * 6 DDR4-2666 channels each (Intel's data sheet: 2 x 6 x 2666 MT/s x 8 B
 * = 255.936 GB/s), fixes the fraction of that peak it reaches:
 * 3.891e9 x 28 / 255.936e9 = 0.4257. A node of bandwidth B then steps
 * B x 0.4257 / 28 = 3.891e9 x B / 255.936e9 parameters a second (the
 * 28 B drop out: the same stream on a faster memory). */
#define DGX2_ADAM_RATE 3.891e9
#define DGX2_CPU_MEM_BW (2.0 * 6.0 * 2666e6 * 8.0)
static double host_adam_rate_of(double node_mem_bw)
{
	return DGX2_ADAM_RATE * node_mem_bw / DGX2_CPU_MEM_BW;
}

/* cluster.host_adam_rate where neither the config nor the cluster.system
 * preset (dc_cfg_apply_system) gave it: a Grace part's CPU comes with the
 * GPU, so the node's rate is its GPUs' share of Grace memory, where no
 * cluster.system names the host; else the DGX-2's measured rate. */
static void derive_host_adam_rate(struct loader *l, const struct dc_gpu_spec *g)
{
	struct dc_cluster *c = &l->cfg->cluster;
	if (g && g->host_mem_bw > 0 && c->system == DC_SYSTEM_CUSTOM && c->gpus_per_node > 0)
		fill_f64(l, KEY_CLUSTER_HOST_ADAM_RATE, &c->host_adam_params_per_s,
			 host_adam_rate_of(g->host_mem_bw * (double)c->gpus_per_node), DC_ORIGIN_GPU, "cluster.gpu",
			 dc_gpu_name(c->gpu), 1, "param/s");
	if (!seen(l, KEY_CLUSTER_HOST_ADAM_RATE) && !l->filled[KEY_CLUSTER_HOST_ADAM_RATE])
		c->host_adam_params_per_s = DGX2_ADAM_RATE;
}

/* cluster.gpu fills what the config leaves out; precision.compute "fp8"
 * on a preset without FP8 (and no peak_flops_fp8 given) is refused. */
static int rule_gpu_preset(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	const struct dc_gpu_spec *g = dc_gpu_spec(c->gpu);
	const char *pk = "cluster.gpu", *pn;
	enum dc_origin o = DC_ORIGIN_GPU;
	if (!g) {
		derive_host_adam_rate(l, NULL);
		derive_slowdown(l);
		return 0;
	}
	if (c->nvls && gpu_lacks_nvls(c->gpu))
		dc_cfg_errorf(l, blame(l, KEY_CLUSTER_NVLS, KEY_CLUSTER_GPU),
		       "'cluster.nvls': NVLink SHARP needs NVSwitch reductions (Hopper's third-generation NVSwitch), which 'cluster.gpu' \"%s\" has not; leave nvls false",
		       dc_gpu_name(c->gpu));
	pn = dc_gpu_name(c->gpu);
	fill_u64(l, KEY_CLUSTER_GPU_MEMORY, &c->gpu_mem_bytes, (uint64_t)(g->mem_gib * 1073741824.0), o, pk, pn);
	fill_f64(l, KEY_CLUSTER_PEAK_FLOPS, &c->peak_flops, g->peak_flops, o, pk, pn, 1e12, "TFLOP/s");
	fill_f64(l, KEY_CLUSTER_PEAK_FLOPS_FP8, &c->peak_flops_fp8, g->peak_flops_fp8, o, pk, pn, 1e12, "TFLOP/s");
	fill_f64(l, KEY_CLUSTER_HBM_BANDWIDTH, &c->hbm_bandwidth, g->hbm_bandwidth, o, pk, pn, 1e12, "TB/s");
	fill_u64(l, KEY_CLUSTER_SM_COUNT, &c->sm_count, g->sms, o, pk, pn);
	/* a given figure above what the named GPU can do: the data sheet's
	 * two-way NVLink figure, or its with-sparsity peak, typed for the
	 * one-way line rate and the dense peak (a trial: 900 GB/s on an
	 * H200, 16% optimistic without a word); priced as given */
	if (seen(l, KEY_CLUSTER_INTRA_NODE_BANDWIDTH) && g->nvlink_bw > 0 && c->gpus_per_node > 1 &&
	    c->intra_node.bw_bytes_per_s > g->nvlink_bw * 1.0001)
		dc_cfg_warnf(l, blame(l, KEY_CLUSTER_INTRA_NODE_BANDWIDTH, KEY_CLUSTER_GPU),
			     "'cluster.intra_node.bandwidth': %.4g GB/s is above cluster.gpu \"%s\"'s NVLink line rate, %.4g GB/s one way (docs/compute-model.md, \"The presets\"; a data sheet's %.4g GB/s counts both directions): the key is one GPU's one-way rate; priced as given",
			     c->intra_node.bw_bytes_per_s / 1e9, pn, g->nvlink_bw / 1e9, 2 * g->nvlink_bw / 1e9);
	/* the same from a cluster.system preset whose GPU cluster.gpu
	 * replaced (a network trial's dgx-h100 with an A100: 370.8 GB/s
	 * kept, silently, above the A100's 300) */
	else if (!seen(l, KEY_CLUSTER_INTRA_NODE_BANDWIDTH) && l->filled[KEY_CLUSTER_INTRA_NODE_BANDWIDTH] == DC_ORIGIN_SYSTEM &&
		 seen(l, KEY_CLUSTER_GPU) && g->nvlink_bw > 0 && c->gpus_per_node > 1 &&
		 c->intra_node.bw_bytes_per_s > g->nvlink_bw * 1.0001)
		dc_cfg_warnf(l, KEY_CLUSTER_GPU,
			     "'cluster.gpu': \"%s\"'s NVLink line rate is %.4g GB/s one way, but cluster.system \"%s\" fills cluster.intra_node.bandwidth with its own GPU's %.4g GB/s: give intra_node.bandwidth for this GPU (docs/compute-model.md, \"The presets\"); priced as filled",
			     pn, g->nvlink_bw / 1e9, dc_system_name(c->system), c->intra_node.bw_bytes_per_s / 1e9);
	if (seen(l, KEY_CLUSTER_PEAK_FLOPS) && c->peak_flops > g->peak_flops * 1.0001)
		dc_cfg_warnf(l, KEY_CLUSTER_PEAK_FLOPS,
			     "'cluster.peak_flops': %.4g TFLOP/s is above cluster.gpu \"%s\"'s dense BF16 peak, %.4g TFLOP/s (a data sheet's figure with sparsity is twice the dense one, which training runs at): priced as given",
			     c->peak_flops / 1e12, pn, g->peak_flops / 1e12);
	if (seen(l, KEY_CLUSTER_PEAK_FLOPS_FP8) && g->peak_flops_fp8 > 0 && c->peak_flops_fp8 > g->peak_flops_fp8 * 1.0001)
		dc_cfg_warnf(l, KEY_CLUSTER_PEAK_FLOPS_FP8,
			     "'cluster.peak_flops_fp8': %.4g TFLOP/s is above cluster.gpu \"%s\"'s dense FP8 peak, %.4g TFLOP/s (a data sheet's figure with sparsity is twice the dense one, which training runs at): priced as given",
			     c->peak_flops_fp8 / 1e12, pn, g->peak_flops_fp8 / 1e12);
	derive_host_adam_rate(l, g);
	derive_slowdown(l);
	if (l->cfg->precision.compute == DC_COMPUTE_FP8 && c->peak_flops_fp8 == 0)
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_COMPUTE, KEY_CLUSTER_GPU),
		       "'precision.compute': \"fp8\" needs an FP8 matmul peak, but 'cluster.gpu' \"%s\" has none (%s); use \"bf16\" or give cluster.peak_flops_fp8",
		       dc_gpu_name(c->gpu), g->no_fp8 ? g->no_fp8 : "no FP8 figure");
	return 0;
}

/* Megatron's --tp-comm-overlap keeps DC_TE_COMM_SMS SMs from the GEMMs
 * beside its "pipeline" and "bulk" collectives (config.h): a GPU with
 * that many SMs or fewer has none left for those GEMMs. Refused whatever
 * the tp degree, as a search may choose tp > 1. Runs after
 * rule_gpu_preset, which fills sm_count from cluster.gpu. */
static int rule_tp_overlap_sms(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	uint64_t sms = c->cluster.sm_count;
	if (!c->overlap.tp || c->training.framework != DC_FRAMEWORK_MEGATRON || sms == 0 || sms > DC_TE_COMM_SMS)
		return 0;
	dc_cfg_errorf(l, blame(l, KEY_CLUSTER_SM_COUNT, KEY_OVERLAP_TP),
	       "'cluster.sm_count': Megatron's --tp-comm-overlap (overlap.tp true, training.framework \"megatron\") keeps %d SMs for communication (Transformer Engine's userbuffers num_sm), so it needs more than %d SMs, got %llu; set overlap.tp false or give more SMs",
	       DC_TE_COMM_SMS, DC_TE_COMM_SMS, (unsigned long long)sms);
	return 0;
}

static void warn_key(struct loader *l, enum key_id k, const char *why, const char *fix);
static void warn_key_by(struct loader *l, enum key_id k, int by, const char *why, const char *fix);

/* precision.attention "fp8" on a backend that has an FP8 kernel, on
 * Hopper or Blackwell, against Transformer Engine's backend selection
 * (transformer_engine/pytorch/attention/dot_product_attention/utils.py,
 * get_attention_backend, NVIDIA/TransformerEngine d0067d0d): FA3 turned
 * off for FP8 training leaves cuDNN's FP8 kernel, a warning; on Hopper,
 * current scaling or a sliding window turns cuDNN's off too, and no
 * backend is left: an error, as TE raises. On Blackwell the sliding
 * window needs cuDNN 9.21 or later (utils.py:1344-1354), which is
 * assumed: distcalc knows no cuDNN version. */
static void fp8_attention_runs(struct loader *l, enum dc_attention_backend b, enum dc_gpu_arch arch)
{
	const struct dc_config *c = l->cfg;
	/* utils.py:657-660: "Disabling FlashAttention 3 for FP8 training" */
	if (b == DC_ATTN_BACKEND_FA3) {
		warn_key_by(l, KEY_PRECISION_ATTENTION, blame(l, KEY_PRECISION_ATTENTION, KEY_TRAINING_ATTENTION_BACKEND),
			 "with training.attention_backend \"fa3\": Transformer Engine turns FlashAttention-3 off for FP8 attention in training (transformer_engine/pytorch/attention/dot_product_attention/utils.py:657-660 at d0067d0d), so no FA3 FP8 attention runs; it is priced as given, at the FP8 fused-attention speed",
			 "set training.attention_backend to \"cudnn\" (with fp8_recipe \"delayed\" on Hopper) or precision.attention to \"bf16\"");
		return;
	}
	if (arch != DC_GPU_ARCH_HOPPER)
		return;
	/* utils.py:686-689: "Disabling FusedAttention for FP8 current
	 * scaling on arch < sm100" (the attention's recipe is the linears'
	 * current scaling for q, k, v, o and their gradients,
	 * dot_product_attention.py:1012-1026 and 1099-1101, and
	 * get_attention_backend reads that one, utils.py:647-649). FP8
	 * attention in training has no other backend: FlashAttention 2 and
	 * 4 are off for FP8, 3 for FP8 training, the unfused one unless
	 * NVTE_UnfusedDPA_Emulate_FP8 (utils.py:650-674); with none left,
	 * DotProductAttention raises "No dot product attention backend is
	 * available" (dot_product_attention.py:2159-2164). An error, as a
	 * run that raises: not a BF16 fallback to price. torchtitan runs no
	 * Transformer Engine attention: rule_framework_runs warns there. */
	if (c->precision.fp8_recipe == DC_FP8_CURRENT && c->training.framework != DC_FRAMEWORK_TORCHTITAN)
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_ATTENTION, KEY_PRECISION_FP8_RECIPE),
		       "'precision.attention': \"fp8\" with precision.fp8_recipe \"current\" on 'cluster.gpu' \"%s\" does not run: Transformer Engine turns off cuDNN FP8 attention for current scaling below sm100 and every other backend for FP8 attention in training (transformer_engine/pytorch/attention/dot_product_attention/utils.py:650-689 at d0067d0d), so it raises \"No dot product attention backend is available\" (dot_product_attention.py:2159-2164); set precision.attention to \"bf16\" or fp8_recipe to \"delayed\"",
		       dc_gpu_name(c->cluster.gpu));
	/* utils.py:1344-1354: no FP8 FusedAttention with a sliding window
	 * on sm < 100, and, as for current scaling above, no other backend
	 * for FP8 attention in training (utils.py:650-674): the windowed
	 * layers raise (dot_product_attention.py:2159-2164) */
	else if (c->model.sliding_window && c->training.framework != DC_FRAMEWORK_TORCHTITAN)
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_ATTENTION, KEY_MODEL_SLIDING_WINDOW),
		       "'precision.attention': \"fp8\" with model.sliding_window %llu on 'cluster.gpu' \"%s\" does not run: Transformer Engine turns off cuDNN FP8 attention with a sliding window below sm100 (transformer_engine/pytorch/attention/dot_product_attention/utils.py:1344-1354 at d0067d0d) and every other backend for FP8 attention in training (utils.py:650-674), so the windowed layers raise \"No dot product attention backend is available\" (dot_product_attention.py:2159-2164); set precision.attention to \"bf16\"",
		       (unsigned long long)c->model.sliding_window, dc_gpu_name(c->cluster.gpu));
}

/* training.attention_backend agrees with training.attention (or sets it),
 * runs on the preset's architecture; the FP8 keys come with
 * precision.compute "fp8", mxfp8 on Blackwell, FP8 attention with a fused
 * backend that has an FP8 kernel. */
static int rule_attention_fp8(struct loader *l)
{
	struct dc_config *c = l->cfg;
	enum dc_gpu_arch arch = dc_gpu_arch(c->cluster.gpu);
	enum dc_attention_backend b = c->training.attention_backend;
	int fp8 = c->precision.compute == DC_COMPUTE_FP8;
	if (!seen(l, KEY_TRAINING_ATTENTION_BACKEND)) {
		b = c->training.attention == DC_ATTENTION_EAGER ? DC_ATTN_BACKEND_EAGER : DC_ATTN_BACKEND_SDPA;
		/* Megatron-Core runs attention through Transformer Engine
		 * (--transformer-impl transformer_engine, --attention-backend
		 * auto: both FlashAttention and FusedAttention allowed), and TE
		 * drops FlashAttention for its cuDNN FusedAttention on compute
		 * capability 9.0 and above (get_attention_backend, "Disabling
		 * FlashAttention to give FusedAttention preference on Hopper+";
		 * docs/compute-model.md, "Attention backends"); on sm80 it keeps
		 * FlashAttention-2, "sdpa". torchtitan keeps "sdpa" off
		 * Blackwell: its language models run FlexAttention, taken as a
		 * kernel of FlashAttention-2's class, since 169545712 (June
		 * 2026), and ran cuDNN's through SDPA only from 6a3a9da9
		 * (October 2025) to then (docs/compute-model.md, "Attention
		 * backends") */
		if (b == DC_ATTN_BACKEND_SDPA && c->training.framework == DC_FRAMEWORK_MEGATRON &&
		    (arch == DC_GPU_ARCH_HOPPER || arch == DC_GPU_ARCH_BLACKWELL)) {
			b = DC_ATTN_BACKEND_CUDNN;
			l->filled[KEY_TRAINING_ATTENTION_BACKEND] = DC_ORIGIN_FRAMEWORK;
		} else if (b == DC_ATTN_BACKEND_SDPA && arch == DC_GPU_ARCH_BLACKWELL) {
			/* on Blackwell a current stack runs cuDNN's, not
			 * FlashAttention-2 (Ampere's MMA instructions, 0.14 of
			 * the peak): PyTorch puts cuDNN first on sm10x with a
			 * cuDNN newer than 9.15 (check_prefer_cudnn_attention; its
			 * CUDA 13 builds), torchtitan did on compute capability
			 * 10.0 from 3b85aa31 (May 2025) to June 2026
			 * (docs/compute-model.md, "On Blackwell") */
			b = DC_ATTN_BACKEND_CUDNN;
			l->filled[KEY_TRAINING_ATTENTION_BACKEND] = DC_ORIGIN_GPU;
		}
	} else if (!seen(l, KEY_TRAINING_ATTENTION)) {
		c->training.attention = b == DC_ATTN_BACKEND_EAGER ? DC_ATTENTION_EAGER : DC_ATTENTION_FLASH;
		/* its origin is the backend's, not the default: eager
		 * stores the scores, and a report says where that came from */
		l->filled[KEY_TRAINING_ATTENTION] =
			(unsigned char)(l->from_set[KEY_TRAINING_ATTENTION_BACKEND] ? DC_ORIGIN_SET : DC_ORIGIN_CONFIG);
	}
	else if ((b == DC_ATTN_BACKEND_EAGER) != (c->training.attention == DC_ATTENTION_EAGER))
		dc_cfg_errorf(l, blame(l, KEY_TRAINING_ATTENTION_BACKEND, KEY_TRAINING_ATTENTION),
		       "'training.attention_backend': \"%s\" %s, but training.attention is \"%s\"",
		       dc_attention_backend_name(b),
		       b == DC_ATTN_BACKEND_EAGER ? "stores the scores (attention \"eager\")"
						   : "is a fused kernel that stores no scores (attention \"flash\")",
		       c->training.attention == DC_ATTENTION_EAGER ? "eager" : "flash");
	c->training.attention_backend = b;
	if (b == DC_ATTN_BACKEND_FA3 && arch != DC_GPU_ARCH_HOPPER)
		dc_cfg_errorf(l, blame(l, KEY_TRAINING_ATTENTION_BACKEND, KEY_CLUSTER_GPU),
		       "'training.attention_backend': \"fa3\" runs on Hopper GPUs only (FlashAttention-3 is built for sm90), but 'cluster.gpu' %s%s%s",
		       arch == DC_GPU_ARCH_UNKNOWN ? "names no preset; name a Hopper one" : "is \"",
		       dc_gpu_name(c->cluster.gpu), arch == DC_GPU_ARCH_UNKNOWN ? "" : "\"");
	/* 1-byte parameters are FP8 primary weights (Megatron's
	 * --fp8-param-gather, which the importer maps so): BF16 matmuls
	 * cannot take them */
	if (!fp8 && c->precision.param_bytes == 1 && seen(l, KEY_PRECISION_PARAM_BYTES) &&
	    c->training.framework != DC_FRAMEWORK_MEGATRON /* refused there: rule_fp8_params_megatron */)
		warn_key_by(l, KEY_PRECISION_PARAM_BYTES, blame(l, KEY_PRECISION_PARAM_BYTES, KEY_PRECISION_COMPUTE),
			    "is FP8 primary weights (Megatron-LM's --fp8-param-gather), but precision.compute is \"bf16\": they are priced as given, though BF16 matmuls take 2-byte weights",
			    "set precision.compute to \"fp8\", or param_bytes to 2");
	if (!fp8) { /* a value other than the default, with nothing to act on */
		static const enum key_id fp8_keys[] = {KEY_PRECISION_FP8_RECIPE, KEY_PRECISION_FP8_LM_HEAD};
		int changed[] = {c->precision.fp8_recipe != DC_FP8_DELAYED, c->precision.fp8_lm_head != 0};
		for (size_t i = 0; i < sizeof(fp8_keys) / sizeof(fp8_keys[0]); i++)
			if (seen(l, fp8_keys[i]) && changed[i])
				dc_cfg_warnf(l, (int)fp8_keys[i],
				       "'%s': applies to FP8 matmuls, but precision.compute is \"bf16\": it has no effect; set precision.compute to \"fp8\" or drop the key",
				       dc_cfg_keys[fp8_keys[i]].info.path);
	}
	/* under bf16 the recipe has no effect (warned above): a sweep over
	 * precision.compute keeps its BF16 points */
	if (fp8 && c->precision.fp8_recipe == DC_FP8_MXFP8 && arch != DC_GPU_ARCH_UNKNOWN &&
	    arch != DC_GPU_ARCH_BLACKWELL)
		dc_cfg_errorf(l, blame(l, KEY_PRECISION_FP8_RECIPE, KEY_CLUSTER_GPU),
		       "'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs, but 'cluster.gpu' is \"%s\"%s%s%s",
		       dc_gpu_name(c->cluster.gpu),
		       l->filled[KEY_CLUSTER_GPU] == DC_ORIGIN_SYSTEM ? " (from cluster.system \"" : "",
		       l->filled[KEY_CLUSTER_GPU] == DC_ORIGIN_SYSTEM ? dc_system_name(c->cluster.system) : "",
		       l->filled[KEY_CLUSTER_GPU] == DC_ORIGIN_SYSTEM ? "\")" : "");
	/* with no preset the GPU is unknown: mxfp8 cannot be checked, and
	 * the A100's kernel set prices it (a user trial's hand-described
	 * B200 came out 22% faster than the b200 preset, silently) */
	if (fp8 && c->precision.fp8_recipe == DC_FP8_MXFP8 && arch == DC_GPU_ARCH_UNKNOWN)
		dc_cfg_warnf(l, blame(l, KEY_PRECISION_FP8_RECIPE, KEY_PRECISION_COMPUTE),
			     "'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs, but cluster.gpu names no preset to check that by; without one the matmuls are priced with the A100's kernel set (its BF16 level over the FP8 peak, its FlashAttention-2 level) unless --calibrate-compute gives measured levels: name the GPU (cluster.gpu b200-sxm-180gb or gb200)");
	if (c->precision.attention == DC_ATTN_PRECISION_FP8) {
		if (!fp8)
			dc_cfg_errorf(l, blame(l, KEY_PRECISION_ATTENTION, KEY_PRECISION_COMPUTE),
			       "'precision.attention': \"fp8\" needs precision.compute \"fp8\" (the FP8 peak and recipe), got \"bf16\"");
		else if (b != DC_ATTN_BACKEND_CUDNN && b != DC_ATTN_BACKEND_FA3)
			dc_cfg_errorf(l, blame(l, KEY_PRECISION_ATTENTION, KEY_TRAINING_ATTENTION_BACKEND),
			       "'precision.attention': \"fp8\" needs an FP8 fused-attention kernel, training.attention_backend \"cudnn\" or \"fa3\", got \"%s\"",
			       dc_attention_backend_name(b));
		else if (arch != DC_GPU_ARCH_HOPPER && arch != DC_GPU_ARCH_BLACKWELL)
			dc_cfg_errorf(l, blame(l, KEY_PRECISION_ATTENTION, KEY_CLUSTER_GPU),
			       "'precision.attention': \"fp8\" is priced at a measured FP8 fused-attention level, known for the Hopper and Blackwell presets; 'cluster.gpu' names none of them");
		else
			fp8_attention_runs(l, b, arch);
	}
	/* FlashAttention-3 has no dropout: Transformer Engine turns it off
	 * when the attention dropout is on (dot_product_attention/utils.py:
	 * 1105-1108, "Disabling FlashAttention 3 for dropout"), and falls
	 * back to a slower backend */
	if (b == DC_ATTN_BACKEND_FA3 && arch == DC_GPU_ARCH_HOPPER && l->cfg->model.dropout)
		warn_key_by(l, KEY_TRAINING_ATTENTION_BACKEND, blame(l, KEY_TRAINING_ATTENTION_BACKEND, KEY_MODEL_DROPOUT),
			 "is FlashAttention-3, which has no dropout, but model.dropout is true: Transformer Engine turns FA3 off for attention dropout (transformer_engine/pytorch/attention/dot_product_attention/utils.py:1105-1108 at d0067d0d) and runs another backend; it is priced as given, at FA3's speed",
			 "set training.attention_backend to \"cudnn\", or model.dropout false");
	return 0;
}

/* The what-if scenarios' knobs name a node, a rank and a share that exist. */
static int rule_whatif(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_whatif_config *w = &c->whatif;
	if (w->slow_node >= c->cluster.num_nodes)
		dc_cfg_errorf(l, blame(l, KEY_WHATIF_SLOW_NETWORK_NODE, KEY_CLUSTER_NUM_NODES),
		       "'whatif.slow_network.node': must be below cluster.num_nodes (%llu), got %llu",
		       (unsigned long long)c->cluster.num_nodes, (unsigned long long)w->slow_node);
	if (w->slow_all_links && seen(l, KEY_WHATIF_SLOW_NETWORK_NODE) && w->slow_node < c->cluster.num_nodes &&
	    !set_unread(l, KEY_WHATIF_SLOW_NETWORK_NODE))
		dc_cfg_warnf(l, KEY_WHATIF_SLOW_NETWORK_NODE,
			     "'whatif.slow_network.node': %llu has no effect: whatif.slow_network.scope \"all\" slows every link between nodes; drop it, or set scope \"node\"",
			     (unsigned long long)w->slow_node);
	/* one NVLink domain: no link between nodes to slow (a trial's factor
	 * on a one-node config read "Warnings none", the scenario "nothing
	 * slowed") */
	{
		static const enum key_id slow[] = {KEY_WHATIF_SLOW_NETWORK_FACTOR, KEY_WHATIF_SLOW_NETWORK_SCOPE,
						   KEY_WHATIF_SLOW_NETWORK_NODE};
		uint64_t dom = c->cluster.nvlink_domain ? c->cluster.nvlink_domain : c->cluster.gpus_per_node;
		if (c->cluster.num_nodes == 1 || (dom && dom >= c->world_size))
			for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
				if (seen(l, slow[i]) && !set_unread(l, slow[i])) {
					dc_cfg_warnf(l, (int)slow[i],
						     "'%s': has no effect: the cluster is one NVLink domain (%llu GPUs), so no "
						     "link between nodes carries a collective for whatif.slow_network to slow; "
						     "drop it, or give more nodes",
						     dc_cfg_keys[slow[i]].info.path, (unsigned long long)c->world_size);
					break;
				}
	}
	if (w->slow_factor > 1)
		dc_cfg_errorf(l, KEY_WHATIF_SLOW_NETWORK_FACTOR,
		       "'whatif.slow_network.factor': must be at most 1 (the share of the bandwidth kept), got %g",
		       w->slow_factor);
	if (w->data_rank >= c->world_size)
		dc_cfg_errorf(l, blame(l, KEY_WHATIF_SLOW_DATA_RANK_RANK, KEY_CLUSTER_NUM_NODES),
		       "'whatif.slow_data_rank.rank': must be below the world size (%llu), got %llu",
		       (unsigned long long)c->world_size, (unsigned long long)w->data_rank);
	/* on a dense model the scenario has no expert to load: its bound,
	 * num_experts / experts_per_token, does not apply, and the value
	 * changes nothing (the scenario says n/a) */
	if (!c->model.num_experts && seen(l, KEY_WHATIF_EXPERT_IMBALANCE) && w->expert_imbalance != 1 &&
	    !set_unread(l, KEY_WHATIF_EXPERT_IMBALANCE))
		dc_cfg_warnf(l, KEY_WHATIF_EXPERT_IMBALANCE,
			     "'whatif.expert_imbalance': %g has no effect: model.num_experts is 0 (a dense model), so no "
			     "expert takes more tokens than another (the scenario is n/a)",
			     w->expert_imbalance);
	if (c->model.num_experts && c->model.experts_per_token &&
	    w->expert_imbalance > (double)c->model.num_experts / (double)c->model.experts_per_token)
		dc_cfg_errorf(l, blame(l, KEY_WHATIF_EXPERT_IMBALANCE, KEY_MODEL_NUM_EXPERTS),
		       "'whatif.expert_imbalance': must be at most num_experts / experts_per_token (%g: the busiest expert then takes every token), got %g",
		       (double)c->model.num_experts / (double)c->model.experts_per_token, w->expert_imbalance);
	return 0;
}

/* A key given a value other than its default that this layout never reads
 * (or that no such framework runs) draws a warning, not an error, worded
 * as rule_attention_fp8's for the FP8 keys: the key, its value, why.
 * A default never warns; a sweep point warns only where it holds; the
 * layout search (dc_load_opts.search) tries the FSDP and cp > 1 layouts
 * of its space itself, so the keys those read are not said there.
 * warn_key_by says it where `by` came from (the --set that made it hold). */
static void warn_key_by(struct loader *l, enum key_id k, int by, const char *why, const char *fix)
{
	char v[64];
	if (dc_config_value_json(l->cfg, (size_t)k, v, sizeof(v)) != 0)
		snprintf(v, sizeof(v), "?");
	dc_cfg_warnf(l, by, "'%s': %s %s; %s", dc_cfg_keys[k].info.path, v, why, fix);
}

static void warn_key(struct loader *l, enum key_id k, const char *why, const char *fix)
{
	warn_key_by(l, k, (int)k, why, fix);
}

static int search_tries_fsdp(const struct loader *l)
{
	uint32_t m = l->cfg->search.sharding_mask;
	return l->opts && l->opts->search && (m == 0 || (m & (1u << DC_SHARD_FSDP)));
}

/* whether the layout search tries a value above 1 of the dimension whose
 * space list is `v` (empty: every divisor of the world, search.c) */
static int search_tries_above_one(const struct loader *l, const struct dc_search_values *v)
{
	if (!l->opts || !l->opts->search)
		return 0;
	for (uint32_t i = 0; i < v->n; i++)
		if (v->v[i] > 1)
			return 1;
	return v->n == 0;
}

static int search_tries_cp(const struct loader *l)
{
	return search_tries_above_one(l, &l->cfg->search.cp);
}

/* whether the layout search tries a sharding other than fsdp, whose
 * data-parallel buckets read parallel.bucket_size */
static int search_tries_buckets(const struct loader *l)
{
	uint32_t m = l->cfg->search.sharding_mask;
	return l->opts && l->opts->search && (m == 0 || (m & ~(1u << DC_SHARD_FSDP)));
}

/* whether the layout search tries tp > 1 (its space's tp list, else
 * every divisor: search.c) */
static int search_tries_tp(const struct loader *l)
{
	return search_tries_above_one(l, &l->cfg->search.tp);
}

/* whether the layout search tries a recompute other than none (its
 * space's recompute list, else none, selective and full: search.c) */
static int search_tries_recompute(const struct loader *l)
{
	uint32_t m = dc_search_recompute_mask(l->cfg);
	return l->opts && l->opts->search && (m & ~(1u << DC_RECOMPUTE_NONE));
}

static int rule_no_effect(struct loader *l)
{
	struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	char why[320];

	if (p->sharding != DC_SHARD_FSDP && !search_tries_fsdp(l)) {
		int reshard_default = c->training.framework == DC_FRAMEWORK_TORCHTITAN ? p->pp < 2 : 1;
		const struct {
			enum key_id k;
			int changed;
		} fsdp[] = {
			{KEY_PARALLEL_RESHARD_AFTER_FORWARD, p->reshard_after_forward != reshard_default},
			{KEY_PARALLEL_FSDP_UNIT, p->fsdp_unit != DC_FSDP_UNIT_LAYER},
			{KEY_OVERLAP_FSDP_PREFETCH, !c->overlap.fsdp_prefetch},
		};
		/* the report's strategies section prices an fsdp row with them;
		 * the search (whose space tries no fsdp here) has no such row */
		snprintf(why, sizeof(why), "applies to FSDP, but parallel.sharding is \"%s\": it has no effect%s",
			 dc_sharding_name(p->sharding),
			 l->opts && l->opts->search ? ""
						    : " on this layout (the strategies section's fsdp row reads it)");
		for (size_t i = 0; i < sizeof(fsdp) / sizeof(fsdp[0]); i++)
			if (seen(l, fsdp[i].k) && fsdp[i].changed)
				warn_key(l, fsdp[i].k, why, "set parallel.sharding to \"fsdp\" or drop the key");
	} else if (p->fsdp_unit == DC_FSDP_UNIT_MODEL && p->reshard_after_forward &&
		   seen(l, KEY_PARALLEL_RESHARD_AFTER_FORWARD)) {
		/* the one unit is the root, which FSDP2's lazy init leaves
		 * unresharded (docs/formulas-systems.md, "FSDP working set") */
		warn_key(l, KEY_PARALLEL_RESHARD_AFTER_FORWARD,
			  p->pp > 1 ? "reshards units after forward, but parallel.fsdp_unit is \"model\": the one unit is FSDP2's root, which is priced never resharded (under the pipeline gathered once a step), so it has no effect"
				    : "reshards units after forward, but parallel.fsdp_unit is \"model\": the one unit is FSDP2's root, which is priced never resharded (gathered once a microbatch), so it has no effect",
			  "set parallel.fsdp_unit to \"layer\" or drop the key");
	}
	if ((p->sharding == DC_SHARD_FSDP || search_tries_fsdp(l)) && p->fsdp_unit == DC_FSDP_UNIT_MODEL &&
	    !c->overlap.fsdp_prefetch && seen(l, KEY_OVERLAP_FSDP_PREFETCH)) {
		/* one unit: its AllGather comes before the first forward, with
		 * nothing before it to hide behind (step.c, ov_fsdp) */
		warn_key(l, KEY_OVERLAP_FSDP_PREFETCH,
			  "turns off prefetching the next unit's AllGather, but parallel.fsdp_unit is \"model\": the one unit's gather is waited for either way, so it has no effect",
			  "set parallel.fsdp_unit to \"layer\" or drop the key");
	}
	/* FSDP reduce-scatters each unit's gradients as one (src/axis/fsdp.c)
	 * and keeps no DDP buckets (memory.c): the bucket sizes only the
	 * data-parallel syncs of none, zero1 and zero2 (src/axis/dp.c) */
	if (p->sharding == DC_SHARD_FSDP && seen(l, KEY_PARALLEL_BUCKET_SIZE) && !search_tries_buckets(l))
		warn_key(l, KEY_PARALLEL_BUCKET_SIZE,
			  l->opts && l->opts->search
				  ? "sizes the gradient buckets of sharding none, zero1 and zero2, but the search tries sharding \"fsdp\" only, which reduce-scatters each unit's gradients as one (parallel.fsdp_unit): it has no effect"
				  : "sizes the gradient buckets of sharding none, zero1 and zero2, but parallel.sharding is \"fsdp\", which reduce-scatters each unit's gradients as one (parallel.fsdp_unit): it has no effect on this layout (the strategies section's pure_dp row reads it)",
			  l->opts && l->opts->search ? "add \"none\", \"zero1\" or \"zero2\" to search.space.sharding, or drop the key"
						     : "set parallel.sharding to \"none\", \"zero1\" or \"zero2\", or drop the key");
	/* at tp 1 there are no TP collectives to overlap (src/axis/tp.c),
	 * and the tiled GEMMs need tp > 1 (compute.c) */
	if (c->overlap.tp && seen(l, KEY_OVERLAP_TP) && p->tp < 2 && !search_tries_tp(l))
		warn_key(l, KEY_OVERLAP_TP,
			  l->opts && l->opts->search
				  ? "overlaps the tensor-parallel collectives, but the search tries tp 1 only: there are none, so it has no effect"
				  : "overlaps the tensor-parallel collectives, but parallel.tp is 1: there are none, so it has no effect",
			  l->opts && l->opts->search ? "add a tp above 1 to search.space.tp, or drop the key"
						     : "set parallel.tp above 1 or drop the key");
	/* the oversubscription divides the rate of traffic between leaf
	 * switches alone (net.c dc_net_node_bw: a group's cross_leaf); with
	 * every node under one leaf none crosses */
	if (c->cluster.oversubscription > 1 && seen(l, KEY_CLUSTER_OVERSUBSCRIPTION) &&
	    (c->cluster.nodes_per_leaf == 0 || c->cluster.nodes_per_leaf >= c->cluster.num_nodes)) {
		if (c->cluster.nodes_per_leaf == 0)
			snprintf(why, sizeof(why),
				 "divides the rate of traffic between leaf switches, but cluster.nodes_per_leaf is 0 (every "
				 "node under one leaf): none crosses one, so it has no effect");
		else
			snprintf(why, sizeof(why),
				 "divides the rate of traffic between leaf switches, but cluster.nodes_per_leaf (%llu) holds "
				 "all %llu nodes under one leaf: none crosses one, so it has no effect",
				 (unsigned long long)c->cluster.nodes_per_leaf, (unsigned long long)c->cluster.num_nodes);
		warn_key(l, KEY_CLUSTER_OVERSUBSCRIPTION, why,
			 "set cluster.nodes_per_leaf to the nodes one leaf switch holds (below cluster.num_nodes)");
	}
	/* and the leaves without an oversubscribed spine: traffic between
	 * them runs at the NICs' rate, as within one (a trial's
	 * nodes_per_leaf 2 moved nothing, without a word) */
	if (c->cluster.nodes_per_leaf > 0 && !(c->cluster.oversubscription > 1) &&
	    seen(l, KEY_CLUSTER_NODES_PER_LEAF) && c->cluster.nodes_per_leaf < c->cluster.num_nodes)
		warn_key(l, KEY_CLUSTER_NODES_PER_LEAF,
			 "places nodes under leaf switches, but cluster.oversubscription is 1 (a full-bisection spine): "
			 "traffic between leaves runs at the NICs' rate, so it has no effect",
			 "set cluster.oversubscription to the leaf's downlinks over its uplinks (above 1), or drop the key");
	if (p->cp < 2 && p->cp_comm_type != DC_CP_P2P && seen(l, KEY_PARALLEL_CP_COMM_TYPE) && !search_tries_cp(l))
		warn_key(l, KEY_PARALLEL_CP_COMM_TYPE,
			  "applies to context parallelism, but parallel.cp is 1: it has no effect",
			  "set parallel.cp above 1 or drop the key");
	/* the step's collectives fall back to the ring; the collectives sweep
	 * takes auto's choice and says so itself (sec_collectives.c): this
	 * warning would contradict it there (a trial read both) */
	if (c->collective.algorithm == DC_NET_ALGO_NVLS && !c->cluster.nvls && seen(l, KEY_COLLECTIVE_ALGORITHM) &&
	    !(l->opts && l->opts->experiment && strcmp(run_experiment(l), "collectives") == 0)) {
		if (gpu_lacks_nvls(c->cluster.gpu))
			snprintf(why, sizeof(why),
				 "needs NVLink SHARP, which 'cluster.gpu' \"%s\" has not (no NVSwitch reductions): NVLS never runs, so every collective falls back to \"ring\", not to auto's choice",
				 dc_gpu_name(c->cluster.gpu));
		else
			snprintf(why, sizeof(why),
				 "needs NVLink SHARP, but cluster.nvls is false: NVLS never runs, so every collective falls back to \"ring\", not to auto's choice");
		warn_key(l, KEY_COLLECTIVE_ALGORITHM, why,
			  gpu_lacks_nvls(c->cluster.gpu) ? "set collective.algorithm to \"auto\" or drop the key"
							 : "set cluster.nvls true, or collective.algorithm to \"auto\"");
	}
	/* NVLS, PAT and the hierarchy (CollNet's stand-in) run Simple only
	 * (net.c, their runs functions; NCCL's tuning.cc disables their other
	 * protocols): without it a forced one never runs */
	if (c->collective.protocols_mask && !(c->collective.protocols_mask & (1u << DC_NET_PROTO_SIMPLE)) &&
	    ((c->collective.algorithm == DC_NET_ALGO_NVLS && c->cluster.nvls) || c->collective.algorithm == DC_NET_ALGO_PAT ||
	     c->collective.algorithm == DC_NET_ALGO_HIER)) {
		char have[48];
		dc_protocols_text(c->collective.protocols_mask, have, sizeof(have));
		snprintf(why, sizeof(why),
			 "runs the Simple protocol only, which collective.protocols %s leaves out: it never runs, so the step's collectives fall back to \"ring\" on the protocols left (--experiment collectives and --calibrate to auto's choice among them)",
			 have);
		warn_key_by(l, KEY_COLLECTIVE_ALGORITHM, blame(l, KEY_COLLECTIVE_ALGORITHM, KEY_COLLECTIVE_PROTOCOLS), why,
			    "add \"simple\" to collective.protocols, or set collective.algorithm to \"auto\"");
	}
	/* a sharding over one data-parallel rank: the states shard over dp x
	 * cp (an expert's over its expert-data-parallel ranks), so at 1
	 * every rank holds them whole, as under "none" (the search changes
	 * dp itself) */
	if (p->sharding != DC_SHARD_NONE && seen(l, KEY_PARALLEL_SHARDING) && !(l->opts && l->opts->search) &&
	    p->dp * (p->cp ? p->cp : 1) == 1) {
		static const int layout[] = {KEY_PARALLEL_DP, KEY_PARALLEL_TP, KEY_PARALLEL_PP, KEY_PARALLEL_CP,
					     KEY_CLUSTER_NUM_NODES, KEY_CLUSTER_GPUS_PER_NODE, KEY_CLUSTER_SYSTEM};
		uint64_t ep = p->ep ? p->ep : 1, etp = dc_config_etp(c, p->tp, ep);
		if (p->offload != DC_OFFLOAD_NONE) {
			/* the sharding carries the offload (ZeRO-Offload on one
			 * rank); DeepSpeed ZeRO-3's per-microbatch host copies
			 * ride the FSDP collectives (step.c, zero3_host_copies),
			 * of which one rank has none, though DeepSpeed copies
			 * there too (partition_parameters.py:60-75 at edaa7221,
			 * NoGatherHandle) */
			if (c->training.framework == DC_FRAMEWORK_DEEPSPEED && p->sharding == DC_SHARD_FSDP)
				warn_key_by(l, KEY_PARALLEL_OFFLOAD,
					    dc_cfg_blame(l, KEY_PARALLEL_OFFLOAD, layout, sizeof(layout) / sizeof(layout[0])),
					    "under DeepSpeed ZeRO-3 on one data-parallel rank (dp 1, cp 1): the step prices the host optimizer, not ZeRO-3's per-microbatch host copies of parameter and gradient partitions, which it prices beside the FSDP collectives only where there are some",
					    "set parallel.dp above 1 to see them priced");
		} else if (!c->model.num_experts || ep * etp >= p->tp)
			warn_key_by(l, KEY_PARALLEL_SHARDING,
				    dc_cfg_blame(l, KEY_PARALLEL_SHARDING, layout, sizeof(layout) / sizeof(layout[0])),
				    "shards the states over the data-parallel ranks (dp x cp), but there is one (dp 1, cp 1): it has no effect, every rank holding its whole states as under \"none\"",
				    "set parallel.dp above 1 or drop the key");
	}
	/* the override replaces every layer's kept activations (memory.c,
	 * ledger), whatever the recompute keeps; the replay's own layer in
	 * backward stays the model's */
	if (seen(l, KEY_MEMORY_ACTIVATION_BYTES_PER_TOKEN_PER_LAYER) &&
	    (l->opts && l->opts->search ? search_tries_recompute(l) : c->training.recompute != DC_RECOMPUTE_NONE)) {
		if (l->opts && l->opts->search)
			snprintf(why, sizeof(why),
				 "replaces the activations every layer keeps, whatever the recompute the search tries keeps: each layout's ledger holds this figure a token a layer, so a recompute buys no memory, only time");
		else
			snprintf(why, sizeof(why),
				 "replaces the activations every layer keeps, whatever training.recompute (\"%s\") keeps: the ledger holds this figure a token a layer, and only the layer rebuilt in backward is still the model's",
				 dc_cfg_recompute_names[c->training.recompute]);
		warn_key_by(l, KEY_MEMORY_ACTIVATION_BYTES_PER_TOKEN_PER_LAYER,
			    blame(l, KEY_MEMORY_ACTIVATION_BYTES_PER_TOKEN_PER_LAYER, KEY_TRAINING_RECOMPUTE), why,
			    "give the bytes a layer keeps under that recompute (a memory profile of the run), or drop the key");
	}
	if (c->training.framework == DC_FRAMEWORK_MEGATRON) {
		if (p->sharding == DC_SHARD_ZERO2 && seen(l, KEY_PARALLEL_SHARDING))
			warn_key(l, KEY_PARALLEL_SHARDING,
				  "is not a Megatron-LM sharding (its distributed optimizer is \"zero1\", --use-torch-fsdp2 \"fsdp\"), but training.framework is \"megatron\": it is priced as given, as ZeRO-2 (gradients reduce-scattered every microbatch, no overlap.param_gather)",
				  "set parallel.sharding to \"zero1\" or \"fsdp\", or training.framework to \"deepspeed\"");
		if (c->training.compile && seen(l, KEY_TRAINING_COMPILE))
			warn_key(l, KEY_TRAINING_COMPILE,
				  "is torch.compile of each block (torchtitan's [compile]), which Megatron-LM does not run, but training.framework is \"megatron\": it is priced as given, with Inductor's fusions",
				  "drop the key, or set training.framework to \"torchtitan\"");
	}
	/* the host's CPU-Adam steps the states under an offload: the device
	 * update, fused or foreach, does not run (compute.c optimizer_steps) */
	if (p->offload != DC_OFFLOAD_NONE && c->training.optimizer_implementation != DC_OPT_IMPL_FUSED &&
	    seen(l, KEY_TRAINING_OPTIMIZER_IMPLEMENTATION))
		warn_key_by(l, KEY_TRAINING_OPTIMIZER_IMPLEMENTATION, blame(l, KEY_TRAINING_OPTIMIZER_IMPLEMENTATION,
										KEY_PARALLEL_OFFLOAD),
			    "is the GPU's Adam, but parallel.offload steps the optimizer on the host (CPU-Adam), which it "
			    "does not change",
			    "drop the key, or set parallel.offload to \"none\"");
	if (c->training.framework == DC_FRAMEWORK_TORCHTITAN &&
	    (p->sharding == DC_SHARD_ZERO1 || p->sharding == DC_SHARD_ZERO2) && seen(l, KEY_PARALLEL_SHARDING)) {
		snprintf(why, sizeof(why),
			 "is not a torchtitan sharding (it runs FSDP2's fully_shard, \"fsdp\", or replicated DDP, \"none\"), but training.framework is \"torchtitan\": it is priced as given, as ZeRO-%d",
			 p->sharding == DC_SHARD_ZERO1 ? 1 : 2);
		warn_key(l, KEY_PARALLEL_SHARDING, why,
			  "set parallel.sharding to \"fsdp\" (reshard_after_forward false keeps the parameters gathered, as ZeRO-2 does) or \"none\", or training.framework to \"deepspeed\"");
	}
	return 0;
}

/* What the named framework runs (training.framework), each checked
 * against its source at the commits the docs cite: a combination it
 * cannot express is priced as given, with a warning, as rule_no_effect's
 * Megatron ZeRO-2; one its code refuses (an assert, a raise) is an
 * error, as rule_framework's torchtitan async TP without compile. */
static int rule_framework_runs(struct loader *l)
{
	struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	enum dc_framework f = c->training.framework;
	int fp8 = c->precision.compute == DC_COMPUTE_FP8;

	/* the framework's own state bytes are a precision preset's, which
	 * training.framework does not set (a public key of its own): left at
	 * "course" (2-byte gradients) a trial's Megatron 70B peak was 4.4 GiB
	 * low and its torchtitan FSDP traffic 25% low, without a word */
	if (!seen(l, KEY_PRECISION_PRESET) && !seen(l, KEY_PRECISION_GRAD_BYTES) && !seen(l, KEY_PRECISION_PARAM_BYTES) &&
	    !seen(l, KEY_PRECISION_MASTER_BYTES) && !seen(l, KEY_PRECISION_OPTIMIZER_BYTES) && c->precision.grad_bytes == 2) {
		if (f == DC_FRAMEWORK_MEGATRON)
			dc_cfg_warnf(l, KEY_TRAINING_FRAMEWORK,
				     "'precision.preset': left at \"course\" (2-byte gradients), but training.framework is \"megatron\", whose --bf16 runs accumulate and reduce the gradients in FP32 (megatron/training/arguments.py:1204-1216 at d98e8a64, unless --grad-reduce-in-bf16); set precision.preset \"megatron\" to price them so, or give the state bytes (precision.grad_bytes and the others)");
		else if (f == DC_FRAMEWORK_TORCHTITAN && p->sharding == DC_SHARD_FSDP)
			dc_cfg_warnf(l, KEY_TRAINING_FRAMEWORK,
				     "'precision.preset': left at \"course\" (2-byte gradients, BF16 shards), but training.framework is \"torchtitan\", whose FSDP2 keeps FP32 parameter shards and reduces the gradients in FP32 (mixed_precision_param \"bfloat16\" gathers, mixed_precision_reduce \"float32\": torchtitan/config/configs.py:94-102 at b5bcd76c); set precision.preset \"fsdp2\" to price them so, or give the state bytes (precision.param_bytes, grad_bytes and the others)");
	}
	if (f == DC_FRAMEWORK_MEGATRON) {
		/* Megatron-Core steps Adam with Transformer Engine's FusedAdam,
		 * or Apex's, torch's AdamW only where neither is installed
		 * (megatron/core/optimizer/__init__.py:11-33 at d98e8a64); a
		 * trial's foreach under megatron drew no word */
		if (c->training.optimizer_implementation == DC_OPT_IMPL_FOREACH &&
		    seen(l, KEY_TRAINING_OPTIMIZER_IMPLEMENTATION) && p->offload == DC_OFFLOAD_NONE)
			warn_key(l, KEY_TRAINING_OPTIMIZER_IMPLEMENTATION,
				 "is torch's foreach AdamW, which Megatron-Core runs only where neither Transformer Engine's nor Apex's FusedAdam is installed (megatron/core/optimizer/__init__.py:11-33 at d98e8a64), but training.framework is \"megatron\": it is priced as given",
				 "set training.optimizer_implementation to \"fused\", or training.framework to \"custom\" or \"torchtitan\"");
		/* Megatron's recipes: megatron/core/enums.py:12-19 (Fp8Recipe:
		 * delayed, tensorwise, mxfp8, blockwise, custom) and
		 * transformer_config.py:594, the Literal its --fp8-recipe takes
		 * (Megatron-LM d98e8a64); rowwise is torchao's */
		if (fp8 && c->precision.fp8_recipe == DC_FP8_ROWWISE && seen(l, KEY_PRECISION_FP8_RECIPE))
			warn_key(l, KEY_PRECISION_FP8_RECIPE,
				 "is torchao's rowwise scaling, not a Megatron-LM recipe (--fp8-recipe takes delayed, tensorwise, mxfp8, blockwise or custom: megatron/core/transformer/transformer_config.py:594, enums.py:12-19 at d98e8a64), but training.framework is \"megatron\": it is priced as given, with rowwise casts",
				 "set precision.fp8_recipe to \"delayed\" or \"current\" (Megatron's tensorwise), or training.framework to \"torchtitan\"");
		/* the LM head in FP8 is Megatron's fp8_output_proj, which
		 * TransformerConfig refuses outside MXFP8 (transformer_config.py:
		 * 1572-1575 raises "fp8_output_proj requires fp8_recipe='mxfp8'";
		 * gpt_model.py:272-276 builds the TE head only then) */
		if (fp8 && c->precision.fp8_lm_head && c->precision.fp8_recipe != DC_FP8_MXFP8) {
			static const int keys[] = {KEY_PRECISION_FP8_LM_HEAD, KEY_PRECISION_FP8_RECIPE,
						   KEY_TRAINING_FRAMEWORK, KEY_PRECISION_COMPUTE};
			dc_cfg_errorf(l, dc_cfg_blame(l, KEY_PRECISION_FP8_LM_HEAD, keys, sizeof(keys) / sizeof(keys[0])),
				      "'precision.fp8_lm_head': Megatron-LM runs the LM head in FP8 (--fp8-output-proj) only with fp8_recipe \"mxfp8\" (megatron/core/transformer/transformer_config.py:1572-1575 at d98e8a64 raises otherwise), but training.framework is \"megatron\" and fp8_recipe \"%s\"; set fp8_lm_head false or fp8_recipe \"mxfp8\"",
				      dc_fp8_recipe_name(c->precision.fp8_recipe));
		}
		/* Megatron-Core's schedules: get_forward_backward_func picks
		 * 1F1B, interleaved or none (pipeline_parallel/schedules.py:161-168
		 * at d98e8a64); no DualPipe or zero-bubble schedule is in the tree */
		if ((p->pipeline_schedule == DC_PIPE_DUALPIPE || p->pipeline_schedule == DC_PIPE_DUALPIPEV ||
		     p->pipeline_schedule == DC_PIPE_ZERO_BUBBLE) &&
		    seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE))
			warn_key(l, KEY_PARALLEL_PIPELINE_SCHEDULE,
				 "is not a Megatron-LM schedule (Megatron-Core runs 1F1B or the interleaved schedule: megatron/core/pipeline_parallel/schedules.py:161-168 at d98e8a64), but training.framework is \"megatron\": it is priced as given",
				 "set parallel.pipeline_schedule to \"1f1b\" or \"interleaved\", or training.framework to \"custom\"");
		/* the output layer and the loss run over the whole microbatch's
		 * logits (gpt_model.py:839 calls compute_language_model_loss,
		 * language_module.py:161-200: one vocab-parallel cross entropy);
		 * the chunked loss is torchtitan's ChunkedLossWrapper */
		if (c->training.loss_chunks > 1)
			warn_key(l, KEY_TRAINING_LOSS_CHUNKS,
				 "is torchtitan's chunked loss (ChunkedLossWrapper, components/loss.py:501-548 at b5bcd76c), which Megatron-LM does not run (its output layer and cross entropy take the whole microbatch's logits: megatron/core/models/gpt/gpt_model.py:839, common/language_module/language_module.py:161-200 at d98e8a64), but training.framework is \"megatron\": it is priced as given",
				 "set training.loss_chunks to 1, or training.framework to \"torchtitan\"");
		/* a MoE layer under tensor parallelism without sequence
		 * parallelism: Megatron-Core's MoELayer.forward raises in training
		 * (megatron/core/transformer/moe/moe_layer.py:636-640 at d98e8a64,
		 * "During training, performance may degrade if MoE and tensor
		 * parallelism are enabled without also enabling sequence
		 * parallelism") */
		if (c->model.num_experts && p->tp > 1 && !p->sequence_parallel) {
			static const int keys[] = {KEY_PARALLEL_SEQUENCE_PARALLEL, KEY_PARALLEL_TP, KEY_TRAINING_FRAMEWORK,
						   KEY_MODEL_NUM_EXPERTS};
			dc_cfg_errorf(l, dc_cfg_blame(l, KEY_PARALLEL_SEQUENCE_PARALLEL, keys, sizeof(keys) / sizeof(keys[0])),
				      "'parallel.sequence_parallel': Megatron-Core's MoE layer raises in training when tp > 1 runs without sequence parallelism (megatron/core/transformer/moe/moe_layer.py:636-640 at d98e8a64), but training.framework is \"megatron\" with %llu experts at tp %llu and sequence_parallel false; set it true, or tp 1",
				      (unsigned long long)c->model.num_experts, (unsigned long long)p->tp);
		}
		/* sharding fsdp is Megatron-LM's --use-torch-fsdp2, which its
		 * argument checks refuse with a pipeline or expert parallelism
		 * (megatron/training/arguments.py:1034-1037 at d98e8a64) */
		if (p->sharding == DC_SHARD_FSDP && (p->pp > 1 || (p->ep ? p->ep : 1) > 1)) {
			static const int keys[] = {KEY_PARALLEL_SHARDING, KEY_PARALLEL_PP, KEY_PARALLEL_EP, KEY_TRAINING_FRAMEWORK};
			dc_cfg_errorf(l, dc_cfg_blame(l, KEY_PARALLEL_SHARDING, keys, sizeof(keys) / sizeof(keys[0])),
				      "'parallel.sharding': \"fsdp\" under training.framework \"megatron\" is Megatron-LM's --use-torch-fsdp2, which asserts no pipeline and no expert parallelism (megatron/training/arguments.py:1034-1037 at d98e8a64), got pp %llu and ep %llu; use sharding \"zero1\" (its distributed optimizer), or pp 1 and ep 1",
				      (unsigned long long)p->pp, (unsigned long long)(p->ep ? p->ep : 1));
		}
		/* --recompute-granularity full or selective
		 * (transformer_config.py:532); torch's per-op policy is torchtitan's */
		if (c->training.recompute == DC_RECOMPUTE_OP && seen(l, KEY_TRAINING_RECOMPUTE))
			warn_key(l, KEY_TRAINING_RECOMPUTE,
				 "is torch's per-op selective policy as torchtitan configures it, which Megatron-LM does not run (--recompute-granularity is full or selective: megatron/core/transformer/transformer_config.py:532 at d98e8a64), but training.framework is \"megatron\": it is priced as given",
				 "set training.recompute to \"selective\" or \"full\", or training.framework to \"torchtitan\"");
	}
	/* DeepSpeed's PipelineEngine asserts zero_optimization_stage() <
	 * ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3 are incompatible with
	 * pipeline parallelism" (deepspeed/runtime/pipe/engine.py:76-77 at
	 * edaa7221) */
	if (f == DC_FRAMEWORK_DEEPSPEED && p->pp > 1 && (p->sharding == DC_SHARD_ZERO2 || p->sharding == DC_SHARD_FSDP)) {
		static const int keys[] = {KEY_PARALLEL_SHARDING, KEY_PARALLEL_PP, KEY_TRAINING_FRAMEWORK};
		dc_cfg_errorf(l, dc_cfg_blame(l, KEY_PARALLEL_SHARDING, keys, sizeof(keys) / sizeof(keys[0])),
			      "'parallel.sharding': DeepSpeed's pipeline engine asserts ZeRO stage below 2 (\"ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism\", deepspeed/runtime/pipe/engine.py:76-77 at edaa7221), but training.framework is \"deepspeed\" with pp %llu and sharding \"%s\" (ZeRO-%d); use sharding \"zero1\" or \"none\", or pp 1",
			      (unsigned long long)p->pp, dc_sharding_name(p->sharding), p->sharding == DC_SHARD_ZERO2 ? 2 : 3);
	}
	/* DeepSpeed's PipelineEngine runs one schedule, TrainSchedule
	 * (deepspeed/runtime/pipe/engine.py:389 builds it for train_batch;
	 * schedule.py:189 at edaa7221 is 1F1B over one stage a rank): no
	 * interleaved chunks, DualPipe or zero bubble */
	if (f == DC_FRAMEWORK_DEEPSPEED && p->pp > 1 && p->pipeline_schedule != DC_PIPE_1F1B &&
	    (seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE) || seen(l, KEY_PARALLEL_VIRTUAL_PIPELINE))) {
		char why[400];
		snprintf(why, sizeof(why),
			 "gives the schedule \"%s\", which DeepSpeed does not run (its pipeline engine runs TrainSchedule, 1F1B over one stage a rank: deepspeed/runtime/pipe/engine.py:389, schedule.py:189 at edaa7221), but training.framework is \"deepspeed\": it is priced as given",
			 dc_cfg_pipe_schedule_names[p->pipeline_schedule]);
		warn_key(l, seen(l, KEY_PARALLEL_PIPELINE_SCHEDULE) ? KEY_PARALLEL_PIPELINE_SCHEDULE : KEY_PARALLEL_VIRTUAL_PIPELINE,
			 why, "set parallel.pipeline_schedule to \"1f1b\" (virtual_pipeline 1), or training.framework to \"megatron\" or \"custom\"");
	}
	/* DeepSpeed's ZeRO-1 and ZeRO-2 (DeepSpeedZeroOptimizer) shard over
	 * the engine's whole data-parallel group, seq_data_parallel_group
	 * (deepspeed/runtime/engine.py:2382-2410 at edaa7221): no replica
	 * group. Its hybrid sharding, MiCS (mics_shard_size), is a ZeRO-3
	 * optimizer (engine.py:2434, 2468-2469; runtime/zero/mics.py), and
	 * ZeRO++'s hpZ (zero_hpz_partition_size) a secondary partition of the
	 * ZeRO-3 parameters (partition_parameters.py:1105-1106), neither a
	 * replicated ZeRO-1/2: a combination it cannot express, a warning */
	if (f == DC_FRAMEWORK_DEEPSPEED && p->dp_replicate > 1 &&
	    (p->sharding == DC_SHARD_ZERO1 || p->sharding == DC_SHARD_ZERO2)) {
		char why[400];
		snprintf(why, sizeof(why),
			 "with parallel.sharding \"%s\" is hybrid sharding, which DeepSpeed's ZeRO-1/2 do not run: they shard over the whole dp group (deepspeed/runtime/engine.py:2382-2410 at edaa7221); its hybrid sharding, MiCS, is ZeRO-3's (engine.py:2468-2469); but training.framework is \"deepspeed\": it is priced as given",
			 dc_sharding_name(p->sharding));
		warn_key_by(l, KEY_PARALLEL_DP_REPLICATE, blame(l, KEY_PARALLEL_DP_REPLICATE, KEY_TRAINING_FRAMEWORK), why,
			    "set parallel.dp_replicate to 1, or parallel.sharding to \"fsdp\" (ZeRO-3 with MiCS)");
	}
	if (f == DC_FRAMEWORK_TORCHTITAN) {
		/* torchtitan's policies: selective (per-op: distcalc's "op"),
		 * full and memory budget (distributed/activation_checkpoint.py:
		 * 185-192, 333-336 at b5bcd76c); none reruns the attention core
		 * alone, as Megatron's selective recompute does */
		if (c->training.recompute == DC_RECOMPUTE_SELECTIVE && seen(l, KEY_TRAINING_RECOMPUTE))
			warn_key(l, KEY_TRAINING_RECOMPUTE,
				 "is Megatron's selective recompute (the attention core alone, Korthikanti et al. 2022), which torchtitan does not run (its activation checkpointing is selective per op, full or a memory budget: torchtitan/distributed/activation_checkpoint.py:185-192, 333-336 at b5bcd76c), but training.framework is \"torchtitan\": it is priced as given",
				 "set training.recompute to \"op\" (torchtitan's selective per-op policy) or \"full\", or training.framework to \"megatron\"");
		/* torchtitan's Float8 converter takes recipe_name "rowwise" or
		 * "rowwise_with_gw_hp" (torchtitan/components/quantization/
		 * float8.py:58 at b5bcd76c), none of them delayed */
		if (fp8 && c->precision.fp8_recipe == DC_FP8_DELAYED && seen(l, KEY_PRECISION_FP8_RECIPE))
			warn_key(l, KEY_PRECISION_FP8_RECIPE,
				 "is Transformer Engine's delayed scaling, which torchtitan does not run (its Float8 converter takes recipe_name \"rowwise\" or \"rowwise_with_gw_hp\": torchtitan/components/quantization/float8.py:58 at b5bcd76c), but training.framework is \"torchtitan\": it is priced as given",
				 "set precision.fp8_recipe to \"rowwise\" (torchtitan's default, what a left-out fp8_recipe takes under torchtitan), or training.framework to \"megatron\"");
		/* tensorwise (current) scaling: float8.py's recipe_name took
		 * "tensorwise" until 6348d93d (2026-04-27; its parent's
		 * float8.py:40-42), and the converter at b5bcd76c takes the
		 * rowwise recipes alone (float8.py:58) */
		if (fp8 && c->precision.fp8_recipe == DC_FP8_CURRENT && seen(l, KEY_PRECISION_FP8_RECIPE))
			warn_key(l, KEY_PRECISION_FP8_RECIPE,
				 "is tensorwise scaling, which torchtitan ran until 6348d93d (2026-04-27; float8.py's recipe_name took \"tensorwise\") and no longer does (its Float8 converter takes \"rowwise\" or \"rowwise_with_gw_hp\": torchtitan/components/quantization/float8.py:58 at b5bcd76c), but training.framework is \"torchtitan\": it is priced as that earlier torchtitan ran it, the TP gathers in FP8",
				 "set precision.fp8_recipe to \"rowwise\" for today's torchtitan, or keep it to price an earlier one");
		/* Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-
		 * comm) pairs one microbatch's forward with another's backward;
		 * torchtitan's core has no such schedule, and its EP overlap is
		 * an experiment that chunks one microbatch (graph_trainer's
		 * compile.ep_overlap: torchtitan/experiments/graph_trainer/
		 * configs.py:166 at b5bcd76c) */
		if (c->overlap.ep == DC_EP_OVERLAP_A2A_1F1B && seen(l, KEY_OVERLAP_EP))
			warn_key(l, KEY_OVERLAP_EP,
				 "is Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm: one microbatch's forward beside another's backward), which torchtitan does not run (its EP overlap is an experiment that chunks one microbatch: torchtitan/experiments/graph_trainer/configs.py:166 at b5bcd76c), but training.framework is \"torchtitan\": it is priced as given",
				 "set overlap.ep to \"none\", or training.framework to \"megatron\"");
		/* the converter swaps the Linear layers (and grouped experts)
		 * only (float8.py:151-172): attention stays BF16 */
		if (c->precision.attention == DC_ATTN_PRECISION_FP8)
			warn_key(l, KEY_PRECISION_ATTENTION,
				 "is Transformer Engine's FP8 attention, which torchtitan does not run (its Float8 converter swaps the Linear layers only: torchtitan/components/quantization/float8.py:151-172 at b5bcd76c), but training.framework is \"torchtitan\": it is priced as given, at the FP8 fused-attention speed",
				 "set precision.attention to \"bf16\", or training.framework to \"megatron\"");
	}
	/* FSDP2's CPUOffloadPolicy moves the sharded parameters, gradients
	 * and optimizer states to the host together, the step on the CPU
	 * (torch/distributed/fsdp/_fully_shard/_fsdp_api.py, CPUOffloadPolicy's
	 * docstring): there is no optimizer-only offload */
	if (c->precision.preset == DC_PRECISION_FSDP2 && p->offload == DC_OFFLOAD_OPTIMIZER) {
		warn_key_by(l, KEY_PARALLEL_OFFLOAD, blame(l, KEY_PARALLEL_OFFLOAD, KEY_PRECISION_PRESET),
			 "offloads only the optimizer (ZeRO-Offload's split), which FSDP2 has not: its CPUOffloadPolicy moves the sharded parameters, gradients and optimizer states to the host together (torch/distributed/fsdp/_fully_shard/_fsdp_api.py), but precision.preset is \"fsdp2\": it is priced as given, the FP32 parameter shard kept on the GPU",
			 "set parallel.offload to \"optimizer+params\" (FSDP2's CPUOffloadPolicy; with sharding \"fsdp\"), or drop the key");
	}
	return 0;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct rule rules[] = {
	{{"the world, num_nodes × gpus_per_node, is at most 2^24 ranks",
	  KEYS("cluster.num_nodes", "cluster.gpus_per_node")}, rule_world},
	{{"ffn_hidden_size defaults to 4 × hidden_size, which fits 64 bits",
	  KEYS("model.ffn_hidden_size", "model.hidden_size")}, rule_ffn_default},
	{{"experts_per_token comes with num_experts and is at most it (it and moe_ffn_hidden_size given without num_experts are refused; at num_experts 0 they warn: no effect); dense_layers is below num_layers; "
	  "router_groups divides num_experts, router_group_topk (default router_groups) is at most it and its groups hold experts_per_token experts, both 1 on a dense model; "
	  "kv_lora_rank (MLA) comes with the three MLA head sizes",
	  KEYS("model.num_experts", "model.experts_per_token", "model.moe_ffn_hidden_size", "model.dense_layers",
	       "model.num_layers", "model.router_groups", "model.router_group_topk", "model.kv_lora_rank",
	       "model.qk_rope_head_dim", "model.qk_nope_head_dim", "model.v_head_dim")}, rule_moe_mla},
	{{"sliding_window_pattern and attention_chunked come with sliding_window; full_attention_interval with the five linear_* sizes, value heads a multiple of key heads and no window; moe_layer_interval > 1 with num_experts",
	  KEYS("model.sliding_window", "model.sliding_window_pattern", "model.attention_chunked", "model.full_attention_interval",
	       "model.linear_num_key_heads", "model.linear_num_value_heads", "model.moe_layer_interval",
	       "model.num_experts")}, rule_layer_kinds},
	{{"num_attention_heads divides hidden_size unless head_dim is given",
	  KEYS("model.num_attention_heads", "model.hidden_size", "model.head_dim")}, rule_head_dim},
	{{"seq_length fits a learned position table; past a Hugging Face config's max_position_embeddings it warns",
	  KEYS("model.seq_length", "model.position_embeddings", "model.hf_config")}, rule_positions},
	{{"num_kv_heads divides num_attention_heads",
	  KEYS("model.num_kv_heads", "model.num_attention_heads")}, rule_kv_heads},
	{{"tp × cp × pp fits 64 bits", KEYS("parallel.tp", "parallel.cp", "parallel.pp")}, rule_tp_pp},
	{{"dp × tp × cp × pp equals the world size; without dp (or with dp \"auto\"), tp × cp × pp divides it",
	  KEYS("parallel.dp", "parallel.tp", "parallel.cp", "parallel.pp", "cluster.num_nodes", "cluster.gpus_per_node")},
	 rule_layout},
	{{"tp divides num_attention_heads and num_kv_heads",
	  KEYS("parallel.tp", "model.num_attention_heads", "model.num_kv_heads")}, rule_tp_heads},
	{{"ep > 1 or etp other than tp: a mixture-of-experts model, ep divides num_experts, ep × etp divides tp × dp × cp, parallel.order one that gives the expert and pipeline groups distcalc prices under Megatron-Core's expert rank generator, which reads it (ep named, just before dp when carved out of dp; folded, tp then ep then dp, cp and axes of one rank aside; not under torchtitan or deepspeed, whose groups are their own), pp the slowest axis when folded, sequence_parallel when etp ≠ tp > 1; under training.framework torchtitan, which has no expert tensor-parallel size, a given etp is 1 at ep > 1 and tp at ep 1, and ep > 1 at tp > 1 needs sequence_parallel (its default; the other case is not modelled)",
	  KEYS("parallel.ep", "parallel.etp", "parallel.dp", "parallel.tp", "parallel.cp", "parallel.order",
	       "parallel.sequence_parallel", "model.num_experts")}, rule_ep},
	{{"tp divides the MLP inner sizes it splits, ffn_hidden_size (where a layer has a dense MLP) and shared_expert_ffn_hidden_size, and etp moe_ffn_hidden_size (etp: as given, else tp, or 1 under training.framework torchtitan at ep > 1, whose experts are whole there), as Megatron-Core's row-parallel linears assert (megatron/core/tensor_parallel/layers.py:1408 and extensions/transformer_engine.py:2470-2472 through core/utils.py:590-599's divide(), Megatron-LM d98e8a6)",
	  KEYS("parallel.tp", "parallel.etp", "parallel.ep", "training.framework", "model.ffn_hidden_size",
	       "model.shared_expert_ffn_hidden_size", "model.moe_ffn_hidden_size", "model.num_experts",
	       "model.dense_layers", "model.moe_layer_interval")},
	 rule_tp_mlp},
	{{"dp_replicate > 1 divides dp (and dp / ep), with sharding zero1, zero2 or fsdp; dp_replicate equal to dp (one-rank shards: nothing sharded) is priced as given, with a warning",
	  KEYS("parallel.dp_replicate", "parallel.dp", "parallel.ep", "parallel.sharding")}, rule_dp_replicate},
	{{"2 × cp divides seq_length (a2a: cp divides seq_length and the heads per tp rank); cp_comm_type left out is all_gather under training.framework torchtitan (what torchtitan's and PyTorch's context parallelism run), its origin the framework",
	  KEYS("parallel.cp", "parallel.cp_comm_type", "model.seq_length", "model.num_attention_heads",
	       "model.num_kv_heads", "parallel.tp", "training.framework")}, rule_cp},
	{{"the stages hold num_layers: pp divides them, or pipeline_layers (pp entries) adds up to them, or the first/last-stage forms leave an even split",
	  KEYS("parallel.pp", "model.num_layers", "parallel.pipeline_layers", "parallel.first_stage_layers",
	       "parallel.last_stage_layers", "parallel.account_for_embedding", "parallel.account_for_loss")},
	 rule_pp_layers},
	{{"sequence_parallel needs tp > 1 and tp dividing the tokens of a cp rank, seq_length / cp, as Megatron-Core's scatter to the sequence-parallel region asserts (megatron/core/tensor_parallel/mappings.py:72-74, Megatron-LM d98e8a6); left out under training.framework torchtitan it is true at tp > 1 (torchtitan's enable_sequence_parallel default: torchtitan/config/configs.py:169, b5bcd76c), and tp must divide those tokens there too (torchtitan/trainer.py:299-308 raises otherwise)",
	  KEYS("parallel.sequence_parallel", "parallel.tp", "model.seq_length", "parallel.cp", "training.framework")},
	 rule_sequence_parallel},
	{{"MoE on every n-th layer (moe_layer_interval > 1): the stages hold at most 20 different mixes of dense and MoE layers (dualpipev: pp at most 20)",
	  KEYS("parallel.pp", "model.moe_layer_interval")}, rule_moe_interval_pp},
	{{"overlap.ep a2a_1f1b needs ep > 1, with pp > 1 virtual_pipeline > 1, and no full recompute; dualpipe needs ep > 1 and pipeline_schedule dualpipe or dualpipev",
	  KEYS("overlap.ep", "parallel.ep", "parallel.pp", "parallel.virtual_pipeline", "parallel.pipeline_schedule",
	       "training.recompute")},
	 rule_ep_overlap},
	{{"training.framework derives bucket_size, reshard_after_forward, overlap.dp and overlap.param_gather where they are not given, and fp8_recipe under torchtitan with compute fp8 (rowwise, torchtitan's Float8 default: torchtitan/components/quantization/float8.py:58, torchtitan b5bcd76c); overlap.param_gather needs framework megatron and sharding zero1; overlap.tp under megatron or torchtitan needs sequence_parallel, and under torchtitan training.compile",
	  KEYS("training.framework", "parallel.bucket_size", "parallel.reshard_after_forward", "overlap.dp",
	       "overlap.param_gather", "overlap.tp", "parallel.sharding", "parallel.sequence_parallel",
	       "training.compile", "precision.fp8_recipe", "precision.compute")},
	 rule_framework},
	{{"global_batch_size, when given, is a multiple of micro_batch_size × dp and gives grad_accum_steps (which, when also given, must agree); given with grad_accum_steps and no micro_batch_size, it is a multiple of grad_accum_steps × dp and gives micro_batch_size (DeepSpeed's rule)",
	  KEYS("training.global_batch_size", "training.micro_batch_size", "parallel.dp", "training.grad_accum_steps")},
	 rule_global_batch},
	{{"virtual_pipeline > 1 needs pp > 1, pp × virtual_pipeline dividing num_layers and grad_accum_steps (or pipeline_schedule_microbatches) a multiple of pp",
	  KEYS("parallel.virtual_pipeline", "parallel.pp", "model.num_layers", "training.grad_accum_steps")},
	 rule_virtual_pipeline},
	{{"pipeline_schedule defaults to interleaved when virtual_pipeline > 1, else 1f1b; a given one agrees with virtual_pipeline (1 for all but interleaved); zero_bubble needs pp > 1; dualpipe an even pp and an even grad_accum_steps (or pipeline_schedule_microbatches) ≥ 2·pp; dualpipev pp > 1, grad_accum_steps (or pipeline_schedule_microbatches) ≥ 2·pp, 2·pp dividing num_layers and even stages (dualpipe takes uneven ones)",
	  KEYS("parallel.pipeline_schedule", "parallel.virtual_pipeline", "parallel.pp", "training.grad_accum_steps",
	       "model.num_layers", "parallel.pipeline_layers", "parallel.first_stage_layers", "parallel.last_stage_layers")},
	 rule_pipeline_schedule},
	{{"precision.preset gives every byte key not given (one given by --set warns where the config's byte key wins with another value); working_bytes defaults to param_bytes but under fsdp2",
	  KEYS("precision.preset", "precision.param_bytes", "precision.grad_bytes", "precision.master_bytes",
	       "precision.optimizer_bytes", "precision.working_bytes")},
	 rule_precision_preset},
	{{"offload optimizer+params needs sharding fsdp", KEYS("parallel.offload", "parallel.sharding")}, rule_offload},
	{{"recompute_layers needs recompute full (above a model chunk's layers it warns: the whole chunk)",
	  KEYS("training.recompute_layers", "training.recompute", "model.num_layers", "parallel.pp",
	       "parallel.virtual_pipeline")},
	 rule_recompute_layers},
	{{"moe_dispatcher deepep needs expert tensor parallelism 1 with ep > 1; without routed experts or with ep 1 it has no effect and warns (unless the layout search tries ep > 1); model.router_groups or router_group_topk given in the config or by --set under another dispatcher warns (only DeepEP's crossings read them)",
	  KEYS("training.moe_dispatcher", "parallel.ep", "parallel.etp", "parallel.tp", "model.num_experts",
	       "model.router_groups", "model.router_group_topk")},
	 rule_moe_dispatcher},
	{{"recompute_modules needs framework megatron, and without recompute selective has no effect and warns (unless the layout search tries selective); mla_up_proj needs MLA, moe_act a MoE model; moe_act and layernorm cannot run under fp8_recipe delayed, moe not with overlap.ep a2a_1f1b (Megatron-Core's refusals); a module the model has nothing of warns",
	  KEYS("training.recompute_modules", "training.recompute", "training.framework", "model.kv_lora_rank",
	       "model.num_experts", "precision.fp8_recipe", "overlap.ep")},
	 rule_recompute_modules},
	{{"cluster.gpu fills gpu_memory, peak_flops, peak_flops_fp8, hbm_bandwidth, sm_count and overlap.compute_slowdown unless given (the derived slowdown needs more than 8 SMs), and host_adam_rate unless given or filled by cluster.system (a Grace part's from its CPU memory bandwidth, else the DGX-2's 3.891e9); precision.compute \"fp8\" needs an FP8 peak; an intra_node.bandwidth above the GPU's one-way NVLink line rate (given, or filled by a cluster.system preset of another GPU), or a peak above its dense data-sheet peak, warns (priced as given)",
	  KEYS("cluster.gpu", "cluster.gpu_memory", "cluster.peak_flops", "cluster.peak_flops_fp8",
	       "cluster.hbm_bandwidth", "cluster.sm_count", "overlap.compute_slowdown", "precision.compute",
	       "cluster.host_adam_rate", "cluster.intra_node.bandwidth")}, rule_gpu_preset},
	{{"overlap.tp under framework megatron keeps 16 SMs for communication, so cluster.sm_count (given or from cluster.gpu) is above 16",
	  KEYS("cluster.sm_count", "overlap.tp", "training.framework", "cluster.gpu")}, rule_tp_overlap_sms},
	{{"attention_backend defaults from attention (eager: eager, flash: sdpa, but cudnn under framework megatron on a Hopper or Blackwell cluster.gpu, where Transformer Engine picks its cuDNN fused attention, and cudnn under any framework on a Blackwell cluster.gpu, where PyTorch with a cuDNN newer than 9.15 and torchtitan put cuDNN first and FlashAttention-2 runs the older instructions); a given backend sets attention when it is not given (eager: eager, else flash) and else agrees with it; fa3 needs a Hopper GPU; mxfp8 a Blackwell GPU under compute fp8 (with no cluster.gpu preset, which leaves it unchecked and the A100 kernel set pricing it, a warning); attention fp8 needs compute fp8 and backend cudnn or fa3; fp8_recipe or fp8_lm_head changed without compute fp8 has no effect and draws a warning, not an error (a sweep over compute keeps them), and so does param_bytes 1 (FP8 primary weights) without it (outside framework megatron, which refuses it: rule 46); attention fp8 where Transformer Engine turns the FP8 kernel off warns, priced as given: with fa3 (no FA3 FP8 attention in training), (transformer_engine/pytorch/attention/dot_product_attention/utils.py:657-660, TransformerEngine d0067d0d); on Hopper with fp8_recipe current or a sliding window (outside framework torchtitan) it is an error: TE turns every backend off (utils.py:650-689, 1344-1354) and raises (dot_product_attention.py:2159-2164); so does fa3 with model.dropout (FA3 has no dropout: utils.py:1105-1108)",
	  KEYS("training.attention_backend", "training.attention", "training.framework", "cluster.gpu",
	       "precision.compute", "precision.fp8_recipe", "precision.fp8_lm_head", "precision.param_bytes", "precision.attention",
	       "model.sliding_window", "model.dropout")},
	 rule_attention_fp8},
	{{"the sweep's step_factor is at least 2 and min_bytes at most max_bytes",
	  KEYS("collective.step_factor", "collective.min_bytes", "collective.max_bytes")}, rule_sweep},
	{{"the what-if node is below num_nodes (given with scope all it warns: no effect), its factor at most 1 (a slow_network key given on a cluster of one NVLink domain warns: no link between nodes to slow), the slow data rank below the world size, and expert_imbalance at most num_experts / experts_per_token (on a dense model a value above 1 warns: it has no effect)",
	  KEYS("whatif.slow_network.node", "whatif.slow_network.scope", "whatif.slow_network.factor", "whatif.slow_data_rank.rank",
	       "whatif.expert_imbalance", "cluster.num_nodes", "model.num_experts")}, rule_whatif},
	{{"nvlink_domain is a multiple of gpus_per_node, no more than gpus_per_node on the H100 PCIe and NVL (their NVLink bridges pair cards inside a node) and at most 16 on an A100 (its NVSwitch joins two 8-GPU boards at most); on the H100 PCIe and NVL with more than 2 GPUs a node an intra_node.bandwidth above the PCIe Gen5 x16 rate, 64 GB/s one way, warns (priced as given); a world of more than one domain that is not a whole number of them warns (its last domain is partial), naming the largest whole part of a domain, at least half, that the world fills; collnet on a network other than ib (no in-network reduction) warns, and so does an inter_node.bandwidth above 100 GB/s, the fastest NIC's 800 Gb/s (both priced as given)",
	  KEYS("cluster.nvlink_domain", "cluster.gpus_per_node", "cluster.nics_per_node", "cluster.num_nodes",
	       "cluster.collnet", "cluster.network", "cluster.inter_node.bandwidth", "cluster.gpu",
	       "cluster.intra_node.bandwidth")}, rule_network},
	{{"checkpoint.gather \"gpu\" needs checkpoint.format \"full\" (\"cpu\", the default, is a full save's alone)",
	  KEYS("checkpoint.gather", "checkpoint.format")},
	 rule_ckpt_gather},
	{{"checkpoint.restore: degrees not given keep the saved ones (dp: the new world / (tp × pp × cp)); tp × pp × dp × cp is num_nodes × gpus_per_node, tp divides the heads, pp (when given) at most num_layers, 2 × cp divides seq_length (a2a: cp divides seq_length and the heads per new tp rank), ep > 1 a mixture-of-experts model, ep × etp divides tp × dp × cp; pipeline_layers has pp entries adding up to num_layers",
	  KEYS("checkpoint.restore.tp", "checkpoint.restore.pp", "checkpoint.restore.dp", "checkpoint.restore.cp",
	       "checkpoint.restore.ep", "checkpoint.restore.num_nodes", "checkpoint.restore.gpus_per_node",
	       "checkpoint.restore.pipeline_layers", "model.seq_length", "model.num_experts", "parallel.cp_comm_type")},
	 rule_restore},
	{{"loss.tokens: min_length at most max_length at most seq_length; token_loss at least 1e-6 and below 1000",
	  KEYS("loss.tokens.min_length", "loss.tokens.max_length", "model.seq_length", "loss.token_loss")},
	 rule_loss_tokens},
	{{"search.space: a value that does not divide what it must (tp, cp, pp and dp the GPUs, pp num_layers too, or with uneven stages the input's own pp alone, ep num_experts or 1, virtual_pipeline num_layers, micro_batch_size the global batch) is left out of the search, with a warning",
	  KEYS("search.space.tp", "search.space.cp", "search.space.pp", "search.space.dp", "search.space.ep",
	       "search.space.virtual_pipeline", "search.space.micro_batch_size")},
	 rule_search_space},
	{{"a key given a value other than its default that the layout does not read draws a warning, not an error (a sweep over the key that reads it keeps it): reshard_after_forward, fsdp_unit and overlap.fsdp_prefetch without sharding fsdp, overlap.fsdp_prefetch false or reshard_after_forward true with fsdp_unit model (the root, never resharded), cp_comm_type at cp 1 (neither under the layout search when its space tries fsdp or cp > 1), collective.algorithm nvls without cluster.nvls (not under --experiment collectives, whose sweep says it takes auto's choice), and nvls, pat or hierarchical with a collective.protocols that leaves out simple (every collective falls back to ring); bucket_size given under sharding fsdp (FSDP reduce-scatters each unit's gradients as one; the buckets are none, zero1 and zero2's; not under the layout search when its space tries another sharding), overlap.tp true at tp 1 (no TP collectives; not under the layout search when its space tries tp > 1); sharding zero1, zero2 or fsdp with dp × cp 1 (and no expert-data-parallel ranks; not under the layout search; with an offload, which the sharding carries, only DeepSpeed ZeRO-3's warns: its per-microbatch host copies are priced beside the FSDP collectives, of which one rank has none); memory.activation_bytes_per_token_per_layer under recompute selective, full or op (it replaces what the recompute keeps); training.optimizer_implementation foreach under an offload (the host's CPU-Adam steps the states); cluster.oversubscription above 1 where no traffic crosses a leaf switch (cluster.nodes_per_leaf 0, every node under one leaf, or at least num_nodes), and cluster.nodes_per_leaf below num_nodes with oversubscription 1 (a full-bisection spine: nothing is slower between leaves); under framework megatron, sharding zero2 and training.compile, which Megatron-LM does not run, and under torchtitan, sharding zero1 and zero2, which torchtitan does not run, are priced as given, with a warning",
	  KEYS("parallel.reshard_after_forward", "parallel.fsdp_unit", "overlap.fsdp_prefetch", "parallel.sharding",
	       "parallel.cp_comm_type", "parallel.cp", "collective.algorithm", "cluster.nvls", "collective.protocols", "cluster.gpu",
	       "training.framework", "training.compile", "parallel.dp", "memory.activation_bytes_per_token_per_layer",
	       "training.recompute", "parallel.bucket_size", "overlap.tp", "parallel.tp",
	       "training.optimizer_implementation", "parallel.offload", "cluster.oversubscription",
	       "cluster.nodes_per_leaf", "cluster.num_nodes")},
	 rule_no_effect},
	{{"training.loss_chunks above 1: divides micro_batch_size x seq_length / cp (torchtitan splits a cp rank's tokens into equal chunks), with model.mtp_layers 0 and a pipeline_schedule other than zero_bubble",
	  KEYS("training.loss_chunks", "training.micro_batch_size", "model.seq_length", "parallel.cp", "model.mtp_layers",
	       "parallel.pipeline_schedule")},
	 rule_loss_chunks},
	{{"what training.framework runs: a precision.preset left out (course, 2-byte gradients) warns under megatron (FP32 main gradients) and under torchtitan with sharding fsdp (FSDP2's FP32 shards and reduce), unless a state's bytes (precision.param_bytes, grad_bytes, master_bytes, optimizer_bytes) are given; under megatron, fp8_recipe rowwise, pipeline_schedule dualpipe, dualpipev or zero_bubble, recompute op, loss_chunks above 1 and optimizer_implementation foreach (without an offload), which Megatron-LM does not run, are priced as given, with a warning, and a MoE model at tp > 1 needs sequence_parallel (Megatron-Core's MoE layer raises in training without it: megatron/core/transformer/moe/moe_layer.py:636-640), sharding fsdp (--use-torch-fsdp2) needs pp 1 and ep 1 (megatron/training/arguments.py:1034-1037), and fp8_lm_head with compute fp8 needs fp8_recipe mxfp8 (megatron/core/transformer/transformer_config.py:1572-1575, Megatron-LM d98e8a64); under deepspeed, pp > 1 needs sharding none or zero1 (deepspeed/runtime/pipe/engine.py:76-77, DeepSpeed edaa7221) and a schedule other than 1f1b (interleaved, dualpipe, dualpipev, zero_bubble; engine.py:389 runs TrainSchedule) is priced as given, with a warning, as is dp_replicate > 1 with sharding zero1 or zero2 (DeepSpeed's ZeRO-1/2 shard over the whole dp group, engine.py:2382-2410; its hybrid sharding, MiCS, is ZeRO-3's: engine.py:2468-2469); under torchtitan, recompute selective (Megatron's attention-core recompute; torchtitan's selective is per op, recompute op), fp8_recipe delayed and current (tensorwise, which torchtitan ran until 6348d93d), attention fp8 and overlap.ep a2a_1f1b (Megatron-Core's combined 1F1B) are priced as given, with a warning; precision.preset fsdp2 with offload optimizer (FSDP2 offloads parameters too) warns",
	  KEYS("training.framework", "precision.fp8_recipe", "precision.fp8_lm_head", "precision.compute",
	       "precision.attention", "parallel.pipeline_schedule", "training.recompute", "parallel.pp",
	       "parallel.sharding", "precision.preset", "parallel.offload", "parallel.dp_replicate",
	       "training.loss_chunks", "overlap.ep", "precision.grad_bytes", "training.optimizer_implementation")},
	 rule_framework_runs},
	{{"pipeline_schedule_microbatches divides grad_accum_steps; at pp 1 it has no effect and warns, and under training.framework megatron or deepspeed (one schedule a step) a value below grad_accum_steps warns, priced as given",
	  KEYS("parallel.pipeline_schedule_microbatches", "training.grad_accum_steps", "parallel.pp", "training.framework")},
	 rule_schedule_microbatches},
	/* last: a config with errors draws no warning that a key has no
	 * effect (rule_one_experiment_keys reads l->errors) */
	{{"a key one experiment reads alone, given by --set to a run of another, warns (a config file's sections for other experiments draw nothing): search.* (the layout search), whatif.* and training.jitter (whatif), loss.* (loss), checkpoint.async, storage_bandwidth, staging_bandwidth, step and restore.* (checkpoint: its format and gather the memory ledger reads too), collective.op, dtype, min_bytes and step_factor (collectives), collective.max_bytes (collectives and whatif), collective.ranks (the ring lab and the collectives sweep: systems, ring and collectives) and collective.message_size and link (the ring lab: systems and ring); and under the collectives sweep, which reads only cluster.* and collective.*, any other key but the layout's parallel.* and the model's (which a new cluster size or a --model may need to load) and one another warning names",
	  KEYS("search.top", "search.headroom", "search.objective", "search.tp_across_nodes", "whatif.slow_network.factor",
	       "training.jitter", "loss.token_loss", "loss.tokens.mode", "checkpoint.async", "checkpoint.storage_bandwidth",
	       "checkpoint.staging_bandwidth", "checkpoint.step", "checkpoint.restore.tp", "collective.op", "collective.dtype",
	       "collective.min_bytes", "collective.step_factor", "collective.max_bytes", "collective.ranks",
	       "collective.message_size", "collective.link")},
	 rule_one_experiment_keys},
	{{"bf16_first_layers and bf16_last_layers act under compute fp8 (else they have no effect and warn), not with fp8_recipe delayed (Megatron-Core refuses it: megatron/core/transformer/transformer_config.py:1529-1530 at d98e8a64), together at most model.num_layers, with pp > 1 each at most the layers of the model's first (last) chunk, stage 0's chunk 0 (stage pp - 1's chunk v - 1; under dualpipev rank 0's two chunks of L / (2 pp)), since the step prices one stage for all the middle ones, and under framework megatron each at most num_layers / pp (integer division; transformer_config.py:1533-1552)",
	  KEYS("precision.bf16_first_layers", "precision.bf16_last_layers", "precision.compute", "precision.fp8_recipe",
	       "model.num_layers", "parallel.pp", "parallel.virtual_pipeline", "parallel.pipeline_layers",
	       "parallel.pipeline_schedule", "training.framework")},
	 rule_bf16_layers},
	{{"model.vocab_size that parallel.tp does not divide (tp > 1) is priced as given, V / tp rows a rank on average, with a warning naming the size Megatron-LM pads it to (a multiple of 128 x tp: its vocab-parallel embedding and head divide it exactly, megatron/core/tensor_parallel/utils.py:118 at d98e8a64); not under the layout search",
	  KEYS("model.vocab_size", "parallel.tp")},
	 rule_vocab_tp},
	{{"collective.dtype f8e4m3 or f8e5m2 under --experiment collectives (a collective, not all_to_all or send_recv) is refused on an Ampere cluster.gpu and warns without one: NCCL runs FP8 collectives on sm90 and later",
	  KEYS("collective.dtype", "collective.op", "cluster.gpu")},
	 rule_collective_fp8},
	{{"precision.param_bytes 1 (FP8 primary weights) under training.framework megatron needs precision.compute fp8 and sharding zero1, zero2 or fsdp (under the layout search its none layouts are refused instead), as Megatron-LM asserts; under fsdp it warns (Megatron-LM gathers BF16 under FSDP2 with Transformer Engine 2.0 or later; priced as given)",
	  KEYS("precision.param_bytes", "precision.compute", "parallel.sharding", "training.framework")},
	 rule_fp8_params_megatron},
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* Returns 0, or -1 when a rule ended the walk. */
/* The collectives sweep prices collective.op over the network the
 * cluster describes (sec_collectives.c: cluster.* through net.h,
 * collective.*), nothing of the model, layout or training: a --set of
 * another key moves none of its figures (a CI trial's --set
 * training.micro_batch_size there went unremarked). Left out: the
 * layout's parallel.* and the model's keys, which a new cluster size or a
 * --model may need to load (parallel.dp beside cluster.num_nodes,
 * model.seq_length), and a key another warning already names (its own
 * "no effect" one: a review found them said twice). After every rule. */
static void collectives_unread(struct loader *l)
{
	struct key_names g;
	if (!l->opts || !l->opts->experiment || l->errors || !l->opts->noverrides ||
	    strcmp(run_experiment(l), "collectives") != 0)
		return;
	key_names_init(&g);
	for (size_t k = 0; k < NKEYS; k++) {
		const char *path = dc_cfg_keys[k].info.path;
		int named = 0;
		if (!l->from_set[k] || !seen(l, (enum key_id)k) || dc_cfg_keys[k].kind == K_SECTION || swept(l, path) ||
		    strncmp(path, "cluster.", 8) == 0 || strncmp(path, "collective.", 11) == 0 ||
		    strncmp(path, "parallel.", 9) == 0 || strncmp(path, "model.", 6) == 0 || one_experiment_row(path) >= 0)
			continue;
		for (size_t i = 0; i < l->diag->count && !named; i++)
			named = l->diag->entries[i].key && strcmp(l->diag->entries[i].key, path) == 0;
		if (named)
			continue;
		key_names_add(&g, k, path);
	}
	if (g.n)
		dc_cfg_warnf(l, g.first,
			     "%s%s: the collectives sweep (--experiment collectives) reads only cluster.* and "
			     "collective.* (the network and the sweep), so %s no effect on this run; drop the "
			     "--set unless the config needs it to load, or run another experiment",
			     g.text, key_names_more(&g), g.n == 1 ? "it has" : "they have");
}

static int check_rules(struct loader *l)
{
	for (size_t i = 0; i < NRULES; i++)
		if (rules[i].check(l) != 0)
			return -1;
	collectives_unread(l);
	return 0;
}

/* ---- cluster.system presets (docs/network-model.md, "Systems") ----
 *
 * Vendor data: GPUs and NICs from NVIDIA's DGX user guides (the GPU's own
 * figures from its cluster.gpu preset); the
 * NVLink rate per GPU is links x NCCL's effective rate per link (its
 * topology model: 20.0 GB/s on SM80, 20.6 GB/s on SM90); per-hop latencies
 * are NCCL's ring/Simple hop latencies over NVLink (3.4 us) and the
 * network (14 us). A key the config (or --set) gives wins. */
struct system_preset {
	enum dc_gpu gpu; /* its cluster.gpu preset: memory, peaks, HBM */
	uint64_t gpus_per_node, nics_per_node;
	double nvlink_bw, nvlink_lat, nic_bw, nic_lat;
	int nvls;
	uint64_t nvlink_domain; /* GPUs on one NVLink fabric; 0: the node */
	enum dc_network network;
	/* one GPU's link to host memory when every GPU copies at once, one
	 * way, bytes/s; 0: the cluster.gpu preset's (each its own x16) */
	double host_bw;
	/* the node's CPU memory bandwidth, the data sheets' peak, bytes/s,
	 * for cluster.host_adam_rate; 0: the CPU is not sourced (the DGX-2
	 * default stays) */
	double cpu_mem_bw;
	/* the protocols its provider's NCCL configuration allows, a mask
	 * over enum dc_net_proto; 0: NCCL's default, every one */
	uint32_t protocols;
};

/* dgx-b200: NVIDIA's DGX B200 user guide (8 B200, 8 ConnectX-7 at 400
 * Gb/s), 18 NVLink 5 links at NCCL's 40.0 GB/s for sm100 (src/graph/
 * topo.h SM100_NVLINK_BW); gb200-nvl72: a compute tray of two GB200
 * superchips (4 GPUs, a ConnectX-7 at 400 Gb/s each) in a 72-GPU NVLink
 * domain (NVIDIA's GB200 NVL72 data sheet); hgx-h800: 8 links of NVLink 4
 * (the H800's 400 GB/s both ways) at NCCL's 20.6 GB/s, 164.8 GB/s (DeepSeek-
 * V3 report section 3.2.2 measures 160 GB/s) and 400 Gb/s InfiniBand per
 * GPU (the same report: 50 GB/s). */
/* host_bw: the DGX A100's four PCIe Gen4 switches each take two GPUs
 * (and two NICs) to the CPU over one x16 uplink (NVIDIA DGX A100 System
 * Architecture white paper, WP-10083-001, "First Accelerated System With
 * All PCIe Gen4"), so with all eight copying at once each gets half of
 * its 32 GB/s one way; the DGX H100, H200 and B200 give each GPU its own
 * switch and uplink (their nvidia-smi topo: GPU to GPU NODE, not PXB),
 * the GPU preset's figure. cpu_mem_bw: the host CPUs' data sheets, two
 * sockets x channels x MT/s x 8 B (docs/step-model.md, "The optimizer
 * on the host", cites each): DGX A100 2 x EPYC 7742, 8 DDR4-3200;
 * DGX H100 and H200 2 x Xeon Platinum 8480C, 8 DDR5-4800; DGX B200 2 x
 * Xeon Platinum 8570, 8 DDR5-5600; a GB200 NVL72 tray's two Grace, the
 * rack data sheet's 18.4 TB/s over 36. The HGX H800 is a board without
 * its host, and the clouds do not name a CPU with a data sheet: 0. */
/* The clouds' machines (docs/network-model.md, "Systems", cites each
 * figure): GPUs and NICs per node and the NIC's line rate from the
 * provider's documentation; the NVLink and latency figures as the DGX
 * H100's (the same HGX H100 / H200 board). */
static const struct system_preset presets[] = {
	[DC_SYSTEM_DGX_A100] = {DC_GPU_A100_SXM4_80GB, 8, 8, 12 * 20.0e9, 3.4e-6, 200e9 / 8, 14e-6, 0, 8, DC_NETWORK_IB,
			       32e9 / 2, 2 * 8 * 3200e6 * 8},
	[DC_SYSTEM_DGX_H100] = {DC_GPU_H100_SXM5_80GB, 8, 8, 18 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 8, DC_NETWORK_IB,
			       0, 2 * 8 * 4800e6 * 8},
	[DC_SYSTEM_DGX_H200] = {DC_GPU_H200_SXM_141GB, 8, 8, 18 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 8, DC_NETWORK_IB,
			       0, 2 * 8 * 4800e6 * 8},
	[DC_SYSTEM_DGX_B200] = {DC_GPU_B200_SXM_180GB, 8, 8, 18 * 40.0e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 8, DC_NETWORK_IB,
			       0, 2 * 8 * 5600e6 * 8},
	[DC_SYSTEM_GB200_NVL72] = {DC_GPU_GB200, 4, 4, 18 * 40.0e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 72, DC_NETWORK_IB,
				  0, 2 * 18.4e12 / 36},
	[DC_SYSTEM_HGX_H800] = {DC_GPU_H800_SXM5_80GB, 8, 8, 8 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 8, DC_NETWORK_IB},
	[DC_SYSTEM_AWS_P5] = {DC_GPU_H100_SXM5_80GB, 8, 32, 18 * 20.6e9, 3.4e-6, 100e9 / 8, 14e-6, 1, 8, DC_NETWORK_EFA},
	[DC_SYSTEM_AWS_P5E] = {DC_GPU_H200_SXM_141GB, 8, 32, 18 * 20.6e9, 3.4e-6, 100e9 / 8, 14e-6, 1, 8, DC_NETWORK_EFA},
	/* GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpxo/
	 * README.md, "NCCL configs": NCCL_PROTO=Simple,LL128 */
	[DC_SYSTEM_GCP_A3_MEGA] = {DC_GPU_H100_SXM5_80GB, 8, 8, 18 * 20.6e9, 3.4e-6, 200e9 / 8, 14e-6, 1, 8,
				   DC_NETWORK_TCPXO, 0, 0,
				   (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE)},
	[DC_SYSTEM_AZURE_ND_H100_V5] = {DC_GPU_H100_SXM5_80GB, 8, 8, 18 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1, 8,
					DC_NETWORK_IB},
	[DC_SYSTEM_OCI_BM_GPU_H100] = {DC_GPU_H100_SXM5_80GB, 8, 16, 18 * 20.6e9, 3.4e-6, 200e9 / 8, 14e-6, 1, 8,
				       DC_NETWORK_ROCE},
};
_Static_assert(sizeof(presets) / sizeof(presets[0]) == DC_SYSTEM_OCI_BM_GPU_H100 + 1, "a preset per system");

void dc_cfg_apply_system(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	const struct system_preset *ps;
	const char *pk = "cluster.system", *pn;
	enum dc_origin o = DC_ORIGIN_SYSTEM;
	if (c->system == DC_SYSTEM_CUSTOM)
		return;
	ps = &presets[c->system];
	pn = dc_system_name(c->system);
	fill_u64(l, KEY_CLUSTER_GPUS_PER_NODE, &c->gpus_per_node, ps->gpus_per_node, o, pk, pn);
	if (!seen(l, KEY_CLUSTER_GPU)) {
		c->gpu = ps->gpu; /* which fills gpu_memory and the GPU's speeds (rule_gpu_preset) */
		l->filled[KEY_CLUSTER_GPU] = (unsigned char)o;
	} else if (c->gpu != ps->gpu) {
		char a[48], b[48];
		snprintf(a, sizeof(a), "\"%s\"", dc_gpu_name(c->gpu));
		snprintf(b, sizeof(b), "\"%s\"", dc_gpu_name(ps->gpu));
		preset_loses(l, KEY_CLUSTER_GPU, pk, pn, a, b);
	}
	fill_u64(l, KEY_CLUSTER_NICS_PER_NODE, &c->nics_per_node, ps->nics_per_node, o, pk, pn);
	/* the preset's NICs are its node's: a node of another size given
	 * keeps them, so its GPUs share them otherwise (an NVL72 rack
	 * written as one 72-GPU node: 4 NICs for 72 GPUs, a trial's 2.5 x
	 * slower step), said beside the gpus_per_node warning */
	if (seen(l, KEY_CLUSTER_GPUS_PER_NODE) && !seen(l, KEY_CLUSTER_NICS_PER_NODE) &&
	    !seen(l, KEY_CLUSTER_TOPOLOGY_FILE) /* whose NICs come after, and win */ &&
	    c->gpus_per_node != ps->gpus_per_node && !l->refused[KEY_CLUSTER_GPUS_PER_NODE])
		dc_cfg_warnf(l, KEY_CLUSTER_GPUS_PER_NODE,
			     "'cluster.nics_per_node': %llu, cluster.system \"%s\"'s for its node of %llu GPUs, is kept for "
			     "gpus_per_node %llu: give cluster.nics_per_node for the node you describe, or keep the preset's "
			     "node and count nodes with num_nodes%s",
			     (unsigned long long)ps->nics_per_node, pn, (unsigned long long)ps->gpus_per_node,
			     (unsigned long long)c->gpus_per_node,
			     ps->nvlink_domain > ps->gpus_per_node ? " (its NVLink domain spans nodes already)" : "");
	fill_f64(l, KEY_CLUSTER_INTRA_NODE_BANDWIDTH, &c->intra_node.bw_bytes_per_s, ps->nvlink_bw, o, pk, pn, 1e9, "GB/s");
	fill_f64(l, KEY_CLUSTER_INTRA_NODE_LATENCY, &c->intra_node.latency_s, ps->nvlink_lat, o, pk, pn, 1e-6, "us");
	fill_f64(l, KEY_CLUSTER_INTER_NODE_BANDWIDTH, &c->inter_node.bw_bytes_per_s, ps->nic_bw, o, pk, pn, 1e9, "GB/s");
	fill_f64(l, KEY_CLUSTER_INTER_NODE_LATENCY, &c->inter_node.latency_s, ps->nic_lat, o, pk, pn, 1e-6, "us");
	if (!seen(l, KEY_CLUSTER_NETWORK)) {
		c->network = ps->network;
		l->filled[KEY_CLUSTER_NETWORK] = (unsigned char)o;
	} else if (c->network != ps->network) {
		char a[24], b[24];
		snprintf(a, sizeof(a), "\"%s\"", dc_network_name(c->network));
		snprintf(b, sizeof(b), "\"%s\"", dc_network_name(ps->network));
		preset_loses(l, KEY_CLUSTER_NETWORK, pk, pn, a, b);
	}
	/* the preset's NVLink SHARP only where the GPU in use has it: an A100
	 * kept over a DGX H100 preset gets none, with a warning saying why */
	if (!seen(l, KEY_CLUSTER_NVLS)) {
		c->nvls = ps->nvls && !gpu_lacks_nvls(c->gpu);
		/* false because of the GPU: its preset's, not the system's */
		l->filled[KEY_CLUSTER_NVLS] = (unsigned char)(ps->nvls && !c->nvls ? DC_ORIGIN_GPU : o);
		if (ps->nvls && !c->nvls)
			dc_cfg_warnf(l, KEY_CLUSTER_GPU,
				     "'cluster.nvls': cluster.system \"%s\" has NVLink SHARP, but 'cluster.gpu' \"%s\" has no NVSwitch reductions: nvls false",
				     pn, dc_gpu_name(c->gpu));
	} else if (c->nvls != ps->nvls) {
		preset_loses(l, KEY_CLUSTER_NVLS, pk, pn, c->nvls ? "true" : "false", ps->nvls ? "true" : "false");
	}
	/* the NVLink domain where the preset names one (docs/network-model.md,
	 * "Systems"): beyond the node (the NVL72 rack), or the node itself
	 * (dgx-b200, hgx-h800), which follows a gpus_per_node the config
	 * gives instead of the preset's (its default, the node, then) */
	if (ps->nvlink_domain && (ps->nvlink_domain != ps->gpus_per_node || c->gpus_per_node == ps->gpus_per_node))
		fill_u64(l, KEY_CLUSTER_NVLINK_DOMAIN, &c->nvlink_domain, ps->nvlink_domain, o, pk, pn);
	/* the protocols the provider's own NCCL configuration allows */
	if (ps->protocols && !seen(l, KEY_COLLECTIVE_PROTOCOLS)) {
		l->cfg->collective.protocols_mask = ps->protocols;
		l->filled[KEY_COLLECTIVE_PROTOCOLS] = (unsigned char)o;
	} else if (ps->protocols && l->cfg->collective.protocols_mask != ps->protocols) {
		char a[48], b[48];
		dc_protocols_text(l->cfg->collective.protocols_mask, a, sizeof(a));
		dc_protocols_text(ps->protocols, b, sizeof(b));
		preset_loses(l, KEY_COLLECTIVE_PROTOCOLS, pk, pn, a, b);
	}
	/* the host's side of parallel.offload (docs/step-model.md, "The
	 * optimizer on the host"): a shared PCIe uplink, the CPUs' Adam rate */
	if (ps->host_bw > 0)
		fill_f64(l, KEY_CLUSTER_HOST_BANDWIDTH, &c->host_bw_bytes_per_s, ps->host_bw, o, pk, pn, 1e9, "GB/s");
	if (ps->cpu_mem_bw > 0)
		fill_f64(l, KEY_CLUSTER_HOST_ADAM_RATE, &c->host_adam_params_per_s, host_adam_rate_of(ps->cpu_mem_bw), o,
			 pk, pn, 1, "param/s");
}

/* The preset key whose --unset or --set left key i required, or -1: i
 * is required only for want of a preset, and the command line took away
 * one the file or an earlier --set named (l->preset_removed): for a key
 * a GPU preset gives, cluster.gpu's first, else cluster.system's */
static int preset_dropped(const struct loader *l, size_t i)
{
	enum dc_config_need need = dc_cfg_keys[i].info.need;
	int gpu_gone = (l->unset[KEY_CLUSTER_GPU] || l->from_set[KEY_CLUSTER_GPU]) && l->preset_removed[KEY_CLUSTER_GPU];
	int sys_gone = (l->unset[KEY_CLUSTER_SYSTEM] || l->from_set[KEY_CLUSTER_SYSTEM]) &&
		       l->preset_removed[KEY_CLUSTER_SYSTEM];
	if (need == DC_KEY_REQUIRED_UNLESS_GPU && gpu_gone)
		return KEY_CLUSTER_GPU;
	if ((need == DC_KEY_REQUIRED_UNLESS_GPU || need == DC_KEY_REQUIRED_UNLESS_SYSTEM) && sys_gone)
		return KEY_CLUSTER_SYSTEM;
	return -1;
}

/* Every required key that is missing, reported whatever else is wrong. */
void dc_cfg_check_missing(struct loader *l)
{
	int pk;
	for (size_t i = 0; i < NKEYS; i++)
		if (is_required(l, i) && !l->seen[i] && !l->suggested[i]) {
			/* a missing section already implies its keys */
			const char *dot = strrchr(dc_cfg_keys[i].info.path, '.');
			if (dot) {
				char sec[64];
				snprintf(sec, sizeof(sec), "%.*s", (int)(dot - dc_cfg_keys[i].info.path), dc_cfg_keys[i].info.path);
				int si = dc_cfg_find_key(sec);
				if (si >= 0 && !l->seen[si] && is_required(l, (size_t)si))
					continue;
				/* a section of the wrong type is its own error */
				if (si >= 0 && l->seen[si] && !l->walked[si])
					continue;
			}
			if (l->unset[i])
				dc_cfg_errorf(l, (int)i, "'%s': required key is missing (the --unset removed it; it has no default)",
					      dc_cfg_keys[i].info.path);
			else if ((pk = preset_dropped(l, i)) >= 0)
				/* required because the command line took away the
				 * preset that gives it: blamed there (a trial's
				 * --unset cluster.system blamed the file) */
				/* (a --set of cluster.gpu names a GPU: only its
				 * --unset takes one away) */
				dc_cfg_errorf(l, pk, "'%s': required key is missing (%s left no preset to give it)",
					      dc_cfg_keys[i].info.path,
					      pk == KEY_CLUSTER_GPU       ? "the --unset of cluster.gpu"
					      : l->unset[pk]              ? "the --unset of cluster.system"
									  : "--set cluster.system custom");
			else if (hf_named(l) && strcmp(dc_cfg_keys[i].info.path, "model.seq_length") == 0)
				dc_cfg_errorf(l, -1, "'%s': required key is missing; a Hugging Face config gives no training sequence length (max_position_embeddings is the longest context)",
				       dc_cfg_keys[i].info.path);
			else
				dc_cfg_errorf(l, -1, "'%s': required key is missing", dc_cfg_keys[i].info.path);
		}
}

/* Did the Hugging Face config give every key a parameter count grows
 * with (none from the config file or --set)? */
static int shape_from_hf(const struct loader *l)
{
	static const enum key_id sizes[] = {KEY_MODEL_HIDDEN_SIZE, KEY_MODEL_FFN_HIDDEN_SIZE, KEY_MODEL_VOCAB_SIZE,
					    KEY_MODEL_NUM_LAYERS, KEY_MODEL_NUM_EXPERTS, KEY_MODEL_MOE_FFN_HIDDEN_SIZE,
					    KEY_MODEL_SHARED_EXPERT_FFN_HIDDEN_SIZE};
	if (!l->hf_loaded)
		return 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		enum key_id ki = sizes[i];
		if (l->seen[ki] && !l->from_hf[ki])
			return 0;
	}
	return 1;
}

/* An error about the size of a shape the Hugging Face config gave: names
 * that file and its keys ("'hidden_size': WHAT; check hidden_size, ..."). */
static void hf_size_error(struct loader *l, const char *what)
{
	const struct dc_model *m = &l->cfg->model;
	const char *list = dc_hf_size_keys(m->family);
	char experts[256] = "";
	size_t u = 0;
	if (!list)
		list = "hidden_size";
	/* the sizes as read, in distcalc's names: the one out of range shows
	 * (a trial's 67,108,864 layers were blamed on a plain hidden_size);
	 * a head_dim or a shared expert the file gives too (a review's 2^40
	 * head_dim showed none of them) */
	if (m->head_dim)
		u += (size_t)snprintf(experts + u, sizeof(experts) - u, ", model.head_dim %llu",
				      (unsigned long long)m->head_dim);
	if (m->num_experts)
		u += (size_t)snprintf(experts + u, sizeof(experts) - u,
				      ", model.num_experts %llu, model.moe_ffn_hidden_size %llu",
				      (unsigned long long)m->num_experts, (unsigned long long)m->moe_ffn_hidden_size);
	if (m->shared_expert_ffn_hidden_size && u < sizeof(experts))
		snprintf(experts + u, sizeof(experts) - u, ", model.shared_expert_ffn_hidden_size %llu",
			 (unsigned long long)m->shared_expert_ffn_hidden_size);
	l->errors++;
	dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, l->opts && l->opts->model_file ? NULL : "model.hf_config",
			"%s: error: %s (read as model.hidden_size %llu, model.ffn_hidden_size %llu, "
			"model.vocab_size %llu, model.num_layers %llu%s); check %s",
			m->hf_config, what, (unsigned long long)m->hidden_size, (unsigned long long)m->ffn_hidden_size,
			(unsigned long long)m->vocab_size, (unsigned long long)m->num_layers, experts, list);
}

/* A model key the command line changed (a --set, an --unset), else
 * `fallback`: the shape's errors are the command line's when it changed
 * one of the sizes they multiply. */
static int model_blame(const struct loader *l, int fallback)
{
	for (size_t i = 0; i < NKEYS; i++)
		if ((l->from_set[i] || l->unset[i]) && strncmp(dc_cfg_keys[i].info.path, "model.", 6) == 0)
			return (int)i;
	return fallback;
}

/* The size a parameter count grows with that the command line changed
 * (a --set, an --unset), or -1: the one to name when the count is too
 * large. */
static int size_blame(const struct loader *l)
{
	static const enum key_id sizes[] = {KEY_MODEL_VOCAB_SIZE, KEY_MODEL_HIDDEN_SIZE, KEY_MODEL_NUM_LAYERS,
					    KEY_MODEL_FFN_HIDDEN_SIZE, KEY_MODEL_NUM_EXPERTS, KEY_MODEL_MOE_FFN_HIDDEN_SIZE,
					    KEY_MODEL_SHARED_EXPERT_FFN_HIDDEN_SIZE};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (l->from_set[sizes[i]])
			return (int)sizes[i];
	return -1;
}

void dc_cfg_cross_check(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_model *m = &c->model;
	uint64_t state_bytes;

	if (l->errors)
		return;
	if (check_rules(l) != 0)
		return;

	/* parameters: explicit or from the shape (blamed on the Hugging Face
	 * file when it gave every size). The loader only validates
	 * the count; the plan (plan.h) derives it */
	uint64_t params, shape_params = 0;
	m->params_explicit = l->seen[KEY_MODEL_PARAMS];
	m->params_as_shape = 0;
	if (!m->params_explicit)
		m->params = 0; /* dropped by --model: the shape's count applies */
	{
		struct dc_param_terms t;
		if (dc_params_terms(m, &t) != 0) {
			if (shape_from_hf(l))
				hf_size_error(l, "the parameter count of this shape overflows 64 bits");
			else
				dc_cfg_errorf(l, model_blame(l, KEY_MODEL_HIDDEN_SIZE),
				       "'model': the parameter count of this shape overflows 64 bits; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes");
			return;
		}
		shape_params = t.total;
		if (m->params_explicit && m->params == shape_params) {
			/* the shape's own count (a model card's figure, say):
			 * the shape's report, placed and counted by its terms
			 * (the value kept, as given; every reader goes by
			 * params_explicit, the model section's source by
			 * params_as_shape) */
			m->params_explicit = 0;
			m->params_as_shape = 1;
		} else if (m->params_explicit && m->num_experts > 0) {
			/* a count apart from the shape has no terms to place:
			 * every parameter dense, none split over ep, all of them
			 * active in 6N (a trial's Mixtral read MFU 1.58) */
			/* blamed where the command line made it so: its
			 * count, or the experts it gave the shape */
			static const int moe_keys[] = {KEY_MODEL_PARAMS, KEY_MODEL_NUM_EXPERTS};
			dc_cfg_errorf(l, dc_cfg_blame(l, KEY_MODEL_PARAMS, moe_keys, 2),
				      "'model.params': %llu differs from the shape's %llu, and a model with routed "
				      "experts (model.num_experts %llu) cannot take a count apart from its shape: it "
				      "would hold every parameter as dense (no expert split over parallel.ep) and count "
				      "all of them active in the model FLOPs (the shape's active count is %llu); leave "
				      "model.params out, or give the shape's %llu",
				      (unsigned long long)m->params, (unsigned long long)shape_params,
				      (unsigned long long)m->num_experts, (unsigned long long)t.active,
				      (unsigned long long)shape_params);
			return;
		}
		params = m->params_explicit ? m->params : t.total;
	}
	/* model-state bytes must be representable (overflow guard for the ledger) */
	{
		uint64_t per_param = c->precision.param_bytes;
		if (dc_add_u64(per_param, c->precision.grad_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.master_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.optimizer_bytes, &per_param) ||
		    dc_mul_u64(params, per_param, &state_bytes) || (double)state_bytes >= DC_MAX_EXACT_INT) {
			char what[160];
			snprintf(what, sizeof(what),
				 "%llu parameters x %llu bytes of model state per parameter must be below 2^53 bytes",
				 (unsigned long long)params, (unsigned long long)per_param);
			const int state_keys[] = {KEY_PRECISION_PARAM_BYTES, KEY_PRECISION_GRAD_BYTES,
						  KEY_PRECISION_MASTER_BYTES, KEY_PRECISION_OPTIMIZER_BYTES, KEY_MODEL_PARAMS};
			int ki = dc_cfg_blame(l, -1, state_keys, 5);
			if (ki < 0)
				ki = model_blame(l, m->params_explicit ? KEY_MODEL_PARAMS : KEY_MODEL_HIDDEN_SIZE);
			if (!m->params_explicit && shape_from_hf(l) && !(l->from_set[ki] || l->unset[ki]))
				hf_size_error(l, what);
			else if (!m->params_explicit && size_blame(l) >= 0 && ki == model_blame(l, -1)) {
				/* a size the command line gave: named, with its value */
				char v[64];
				ki = size_blame(l);
				if (dc_config_value_json(c, (size_t)ki, v, sizeof(v)) != 0)
					snprintf(v, sizeof(v), "?");
				dc_cfg_errorf(l, ki, "'%s': %s makes the model too large; %s", dc_cfg_keys[ki].info.path, v, what);
			} else /* the key blamed: a precision key the command line gave, else the model's */
				dc_cfg_errorf(l, ki, "'%s': %s%s",
					      strncmp(dc_cfg_keys[ki].info.path, "precision.", 10) == 0 ? dc_cfg_keys[ki].info.path
					      : m->params_explicit ? "model.params" : "model",
					      what,
					      strncmp(dc_cfg_keys[ki].info.path, "precision.", 10) == 0 || m->params_explicit ? ""
					      : "; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes");
		} else if (m->params_explicit && m->params != shape_params) {
			/* an explicit count the shape does not give: the report
			 * rests on two models, and says which figure follows which */
			dc_cfg_warnf(l, KEY_MODEL_PARAMS,
				     "'model.params': %llu differs from the shape's %llu (%+.1f%%); the model-state memory, the DP, "
				     "FSDP, ring and checkpoint bytes, the optimizer step and the model FLOPs (so MFU) follow "
				     "model.params, while the activations, the TP, PP, CP and EP bytes and the layers' kernel times "
				     "follow the shape, so the step time mixes the two; leave model.params out for one model",
				     (unsigned long long)m->params, (unsigned long long)shape_params,
				     100.0 * ((double)m->params - (double)shape_params) / (double)shape_params);
		}
	}
	{
		uint64_t tokens;
		if (dc_mul_u64(c->training.micro_batch_size, m->seq_length, &tokens) ||
		    dc_mul_u64(tokens, m->hidden_size, &tokens) || dc_mul_u64(tokens, 64, &tokens) ||
		    (double)tokens >= DC_MAX_EXACT_INT)
		{
			/* blame the key a --set gave, if one did (a --set of
			 * seq_length was reported against the file's micro batch) */
			int kb = l->from_set[KEY_MODEL_SEQ_LENGTH]    ? KEY_MODEL_SEQ_LENGTH
				 : l->from_set[KEY_MODEL_HIDDEN_SIZE] ? KEY_MODEL_HIDDEN_SIZE
								      : KEY_TRAINING_MICRO_BATCH_SIZE;
			dc_cfg_errorf(l, kb, "'%s': micro_batch_size x seq_length x hidden_size (%llu x %llu x %llu) is too large for the activation ledger",
			       dc_cfg_keys[kb].info.path, (unsigned long long)c->training.micro_batch_size,
			       (unsigned long long)m->seq_length, (unsigned long long)m->hidden_size);
		}
	}
	if (l->errors)
		return;

	/* collective: as given (0 when absent); the plan defaults them to all
	 * ranks and one rank's gradient bytes */
	if (l->seen[KEY_COLLECTIVE_RANKS] && c->collective.ranks > c->world_size)
		dc_cfg_errorf(l, KEY_COLLECTIVE_RANKS,
		       "'collective.ranks': must be at most the world size (%llu), got %llu",
		       (unsigned long long)c->world_size, (unsigned long long)c->collective.ranks);
	/* the ring lists 2(p-1) x p transfer events: below 2^49 with the
	 * world capped at 2^24 ranks, so the count is exact */
	c->memory.activation_explicit = l->seen[KEY_MEMORY_ACTIVATION_BYTES_PER_TOKEN_PER_LAYER];
}

size_t dc_config_rule_count(void)
{
	return NRULES;
}

const struct dc_config_rule_info *dc_config_rule_at(size_t i)
{
	return i < NRULES ? &rules[i].info : NULL;
}

