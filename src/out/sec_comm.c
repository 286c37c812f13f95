/* sec_comm.c - the comm section: collectives, bytes and time per step for
 * every strategy in play. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct strat_view {
	const struct dc_comm_strategy *s;
	int in_play, sequence_parallel;
	uint64_t group_size, bytes_per_rank;
	const char *link, *note;
	double bw_GBps, latency_s, time_s;
	int crosses;            /* the priced group spans NVLink domains */
	uint64_t nic_flows;     /* groups moving data through each of its NICs at once */
	double node_bw_GBps;    /* what its share of a node's NICs carries */
	char other_groups[400]; /* the note when some collective runs on other groups */
};

struct view {
	const char *model;
	char protocols[64]; /* collective.protocols, "" when every one */
	char protocols_from[48]; /* where the set came from */
	uint64_t stage, ep_stage, bytes_per_rank;
	double time_s;
	struct strat_view s[DC_STRAT_COUNT];
};

/* shown when the set is not every protocol: a JSON list of names */
static int protocols_restricted(const void *base)
{
	return ((const struct view *)base)->protocols[0] != '\0';
}

static void protocols_text(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->protocols);
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_comm *c = &run->res->comm;

	v->model = "network model (docs/network-model.md): the algorithm and protocol NCCL's tuner would pick for each call on each strategy's slowest group, all its groups at once; bytes one rank sends on a ring; nothing overlapped with compute";
	/* every protocol, given or not, is NCCL's default: nothing to show */
	if (run->plan->in->collective.protocols_mask == (1u << DC_NET_PROTO_COUNT) - 1)
		v->protocols[0] = '\0';
	else
		dc_protocols_text(run->plan->in->collective.protocols_mask, v->protocols, sizeof(v->protocols));
	{
		char buf[48];
		snprintf(v->protocols_from, sizeof(v->protocols_from), "%s",
			 dc_config_origin_of(run->plan->in, "collective.protocols", buf, sizeof(buf)));
	}
	v->stage = c->stage;
	v->ep_stage = c->ep_stage;
	v->bytes_per_rank = c->bytes_per_rank;
	v->time_s = c->time_s;
	/* DualPipe feeds both ends, DualPipeV folds the chunks back: every
	 * rank sends activations and gradients both */
	enum dc_pipe_schedule sched = dc_pipeline_schedule(run->plan);

	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		const struct dc_comm_strategy *st = &c->s[i];
		struct strat_view *sv = &v->s[i];
		sv->s = st;
		sv->in_play = st->in_play;
		sv->sequence_parallel = run->plan->layout.sequence_parallel;
		sv->group_size = st->group_size;
		sv->link = dc_link_choice_name(st->link);
		sv->bw_GBps = st->link_params.bw_bytes_per_s / 1e9;
		sv->latency_s = st->link_params.latency_s;
		sv->bytes_per_rank = st->bytes_per_rank;
		sv->time_s = st->time_s;
		sv->crosses = st->in_play && st->net_group && st->net_group->nodes > 1;
		sv->nic_flows = sv->crosses ? st->net_group->concurrent : 0;
		sv->node_bw_GBps = sv->crosses ? dc_net_node_bw(st->net, st->net_group) / 1e9 : 0;
		sv->note = i != DC_STRAT_PP ? NULL
			   : sched == DC_PIPE_DUALPIPE
				   ? "DualPipe: every rank sends both rows, the microbatches fed from both ends"
			   : sched == DC_PIPE_DUALPIPEV
				   ? "DualPipeV: every rank sends both rows, its second chunk's activations coming back down the ranks"
			   : run->plan->layout.pp == 2 && run->plan->layout.virtual_pipeline > 1
				   ? "two stages, interleaved: a rank sends v of its own direction per microbatch (stage 0 activations, stage 1 gradients) and v - 1 of the other"
			   : run->plan->layout.pp == 2
				   ? "two stages: the first sends the activations, the second the gradients; the row is the analysed stage's"
			   : run->plan->layout.virtual_pipeline > 1
				   ? "interleaved: the rows are the analysed stage's; every stage sends both, the chunks wrapping from the last stage to the first, v per microbatch each way (the first stage v - 1 gradients, the last v - 1 activations); group size above is the pipeline's, each row a pair of neighbouring stages (group 2)"
				   : "the rows are the analysed stage's: a middle stage sends both, the first activations alone, the last gradients alone; group size above is the pipeline's, each row a pair of neighbouring stages (group 2)";
		/* HSDP's AllReduce across replicas runs on other groups than
		 * the shard groups the header names: say so beside them */
		for (size_t k = 0; !sv->note && st->in_play && k < st->ncoll; k++) {
			const struct dc_coll *cl = &st->coll[k];
			char whats[160];
			int more = 0;
			if (cl->link == st->link && cl->group_size == st->group_size)
				continue;
			/* another kind of row on yet other groups: named as
			 * "and others" (each row names its group and link) */
			for (size_t j = k + 1; j < st->ncoll && !more; j++) {
				const struct dc_coll *o = &st->coll[j];
				more = (o->link != st->link || o->group_size != st->group_size) &&
				       (o->link != cl->link || o->group_size != cl->group_size);
			}
			/* every kind of row on groups of that size and link
			 * (HSDP's replicas, DualPipe's mirror, the experts'
			 * expert-data-parallel groups), each named once */
			whats[0] = 0;
			for (size_t j = k; j < st->ncoll; j++) {
				const struct dc_coll *o = &st->coll[j];
				const char *w = dc_coll_what_label(o->what);
				size_t at = strlen(whats);
				if (o->link != cl->link || o->group_size != cl->group_size || strstr(whats, w))
					continue;
				snprintf(whats + at, sizeof(whats) - at, "%s%s", at ? ", " : "", w);
			}
			if (k == 0)
				/* no row runs on the header's groups (ring
				 * attention's sends go to one neighbour of the
				 * cp group): the header is the whole group's */
				snprintf(sv->other_groups, sizeof(sv->other_groups),
					 "group size and link above are the whole group's; the %s rows run on groups of %llu over %s%s (each row names its group and link)",
					 whats, (unsigned long long)cl->group_size,
					 dc_link_choice_name(cl->link), more ? ", and other rows on other groups" : "");
			else
				snprintf(sv->other_groups, sizeof(sv->other_groups),
					 "group size and link above are those of the %s rows' groups; the %s rows run on groups of %llu over %s%s (each row names its group and link)",
					 dc_coll_what_label(st->coll[0].what), whats,
					 (unsigned long long)cl->group_size, dc_link_choice_name(cl->link),
					 more ? ", and other rows on other groups" : "");
			sv->note = sv->other_groups;
		}
	}
}

struct coll_row {
	const char *kind, *what, *phase, *link, *algorithm, *protocol;
	uint64_t count, msg_bytes, group_size, bytes_per_rank;
	double time_s;
};

static uint64_t coll_count(const void *base)
{
	return ((const struct strat_view *)base)->s->ncoll;
}

static void coll_row(const void *base, uint64_t i, void *out)
{
	const struct dc_coll *c = &((const struct strat_view *)base)->s->coll[i];
	struct coll_row *row = out;
	row->kind = dc_coll_kind_name(c->kind);
	row->what = dc_coll_what_label(c->what);
	row->phase = dc_coll_phase_name(c->phase);
	row->count = c->count;
	row->msg_bytes = c->msg_bytes;
	row->group_size = c->group_size;
	row->link = dc_link_choice_name(c->link);
	row->algorithm = c->algorithm;
	row->protocol = c->protocol;
	row->bytes_per_rank = c->bytes_per_rank;
	row->time_s = c->time_s;
}

#define CR(m) offsetof(struct coll_row, m)
static const struct dc_field coll_fields[] = {
	{"kind", "kind", DC_U_NONE, DC_FT_STR, CR(kind)},
	{"what", "what", DC_U_NONE, DC_FT_STR, CR(what)},
	{"phase", "phase", DC_U_NONE, DC_FT_STR, CR(phase)},
	{"count_per_step", "calls/step", DC_U_COUNT, DC_FT_U64, CR(count)},
	{"message_bytes", "message M", DC_U_BYTES_RAW, DC_FT_U64, CR(msg_bytes)},
	{"group_size", "group", DC_U_COUNT, DC_FT_U64, CR(group_size)},
	{"link", "link", DC_U_NONE, DC_FT_STR, CR(link)},
	{"algorithm", "algorithm", DC_U_NONE, DC_FT_STR, CR(algorithm)},
	{"protocol", "protocol", DC_U_NONE, DC_FT_STR, CR(protocol)},
	{"bytes_per_rank", "sent/rank", DC_U_BYTES, DC_FT_U64, CR(bytes_per_rank)},
	{"time_s", "time", DC_U_SECONDS, DC_FT_F64, CR(time_s)},
};
static const struct dc_fields coll_table = DC_FIELDS(coll_fields);
static const struct dc_rows coll_rows = {coll_count, coll_row, sizeof(struct coll_row), "collectives", 3};

static int crosses(const void *base)
{
	return ((const struct strat_view *)base)->crosses;
}

static int has_note(const void *base)
{
	return ((const struct strat_view *)base)->note != NULL;
}

#define SV(m) offsetof(struct strat_view, m)
static const struct dc_field strat_fields[] = {
	{"group_size", "group size", DC_U_COUNT, DC_FT_U64, SV(group_size)},
	{"link", "link (slowest group)", DC_U_NONE, DC_FT_STR, SV(link)},
	{"link_bandwidth_GBps", "link bandwidth B", DC_U_GBPS, DC_FT_F64, SV(bw_GBps)},
	{"link_latency_s", "link latency alpha", DC_U_SECONDS, DC_FT_F64, SV(latency_s)},
	{"nic_flows", "groups sharing each NIC", DC_U_COUNT, DC_FT_U64, SV(nic_flows), .shown = crosses},
	{"node_bandwidth_GBps", "one group's share of its domain's NICs", DC_U_GBPS, DC_FT_F64, SV(node_bw_GBps),
	 .shown = crosses},
	{"bytes_per_rank", "bytes sent per rank per step", DC_U_BYTES, DC_FT_U64, SV(bytes_per_rank)},
	{"time_s", "time per step", DC_U_SECONDS, DC_FT_F64, SV(time_s)},
	{"note", "note", DC_U_NONE, DC_FT_STR, SV(note), .shown = has_note},
	{"collectives", "Collectives", DC_U_NONE, DC_FT_ROWS, 0, .sub = &coll_table, .rows = &coll_rows},
};
static const struct dc_fields strat_obj = DC_FIELDS(strat_fields);

#define IN_PLAY(name, i)                                                                           \
	static int name##_in_play(const void *base)                                                \
	{                                                                                          \
		return ((const struct view *)base)->s[i].in_play;                                  \
	}
IN_PLAY(dp, DC_STRAT_DP)
IN_PLAY(fsdp, DC_STRAT_FSDP)
IN_PLAY(tp, DC_STRAT_TP)
IN_PLAY(pp, DC_STRAT_PP)
IN_PLAY(ep, DC_STRAT_EP)
IN_PLAY(cp, DC_STRAT_CP)

static void tp_title(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s",
		    ((const struct strat_view *)base)->sequence_parallel
			 ? "Tensor parallel (with sequence parallelism, Korthikanti et al. 2022: AllGather + ReduceScatter)"
			 : "Tensor parallel (Megatron-LM 2019's f/g: AllReduce of each layer's output)");
}

/* the EP rows count another stage's MoE layers (comm.h ep_stage) */
static int ep_elsewhere(const void *base)
{
	const struct view *v = base;
	return v->s[DC_STRAT_EP].in_play && v->ep_stage != v->stage;
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"model", "model", DC_U_NONE, DC_FT_STR, V(model)},
	{"protocols", "protocols NCCL may pick (collective.protocols)", DC_U_NONE, DC_FT_FN, 0, .text = protocols_text,
	 .shown = protocols_restricted, .json_value = 1},
	{"protocols_from", "protocols from", DC_U_NONE, DC_FT_TEXT, V(protocols_from), .shown = protocols_restricted},
	{"stage", "pipeline stage analysed for dp/fsdp/tp/ep (most parameters)", DC_U_COUNT, DC_FT_U64, V(stage)},
	{"ep_stage", "pipeline stage analysed for ep (most MoE layers)", DC_U_COUNT,
	 DC_FT_U64, V(ep_stage), .shown = ep_elsewhere},
	{"bytes_per_rank", "bytes sent per rank per step (all strategies)", DC_U_BYTES, DC_FT_U64, V(bytes_per_rank)},
	{"time_s", "time per step if nothing overlaps", DC_U_SECONDS, DC_FT_F64, V(time_s)},
	{"dp", "Data parallel (gradient synchronisation)", DC_U_NONE, DC_FT_OBJECT, V(s[DC_STRAT_DP]),
	 .sub = &strat_obj, .shown = dp_in_play},
	{"fsdp", "FSDP (ZeRO-3): gather params, scatter grads", DC_U_NONE, DC_FT_OBJECT, V(s[DC_STRAT_FSDP]),
	 .sub = &strat_obj, .shown = fsdp_in_play},
	{"tp", NULL, DC_U_NONE, DC_FT_OBJECT, V(s[DC_STRAT_TP]), .sub = &strat_obj, .shown = tp_in_play,
	 .label_fn = tp_title},
	{"pp", "Pipeline parallel (stage boundaries)", DC_U_NONE, DC_FT_OBJECT, V(s[DC_STRAT_PP]), .sub = &strat_obj,
	 .shown = pp_in_play},
	{"ep", "Expert parallel (MoE token AlltoAll, uniform routing assumed)", DC_U_NONE, DC_FT_OBJECT,
	 V(s[DC_STRAT_EP]), .sub = &strat_obj, .shown = ep_in_play},
	{"cp", "Context parallel (attention's K/V exchange, parallel.cp_comm_type)", DC_U_NONE, DC_FT_OBJECT,
	 V(s[DC_STRAT_CP]), .sub = &strat_obj, .shown = cp_in_play},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

/* A collective.algorithm named (not auto) that none of the plan's
 * collectives runs: each fell back to the ring (docs/network-model.md,
 * "Auto"), which only its rows said (a network trial's FSDP step with
 * tree, nvls or pat, all ring, exit 0, no word). Config rule 38 warns of
 * the cases it can see from the keys alone; this one needs the rows. */
static void warn(const struct dc_plan *p, const struct dc_results *res, const char *config_name,
		 struct dc_diag *diag)
{
	enum dc_net_algo want = p->in->collective.algorithm;
	const char *name = dc_net_algo_name(want);
	uint64_t calls = 0;
	(void)config_name;
	/* nvls without cluster.nvls, or a Simple-only algorithm (nvls, pat,
	 * hierarchical) with protocols that leave Simple out: config rule 38
	 * said it already */
	uint32_t protos = p->in->collective.protocols_mask;
	if (want == DC_NET_ALGO_AUTO || !(res->done & DC_EST_BIT(DC_EST_COMM)) ||
	    (want == DC_NET_ALGO_NVLS && !p->in->cluster.nvls) ||
	    (protos && !(protos & (1u << DC_NET_PROTO_SIMPLE)) &&
	     (want == DC_NET_ALGO_NVLS || want == DC_NET_ALGO_PAT || want == DC_NET_ALGO_HIER)))
		return;
	for (int a = 0; a < DC_STRAT_COUNT; a++) {
		const struct dc_comm_strategy *st = &res->comm.s[a];
		if (!st->in_play)
			continue;
		for (uint64_t i = 0; i < st->ncoll; i++) {
			const struct dc_coll *c = &st->coll[i];
			if (!c->algorithm || strcmp(c->algorithm, "p2p") == 0 || strcmp(c->algorithm, "none") == 0)
				continue;
			if (strcmp(c->algorithm, name) == 0)
				return;
			calls++;
		}
	}
	if (calls)
		dc_diag_warn(diag,
			     "'collective.algorithm': \"%s\" runs none of this plan's %llu rows of collectives (the network model's rules: docs/network-model.md, \"Algorithms\"), so each fell back to \"ring\" (comm.*.collectives[].algorithm); set it to \"auto\" or to one a call can run",
			     name, (unsigned long long)calls);
}

const struct dc_section dc_section_comm = {
	"comm", "Communication per training step (per rank)",
	"each strategy's collectives: calls, bytes, group, link, time",
	DC_EST_BIT(DC_EST_COMM), sizeof(struct view), view, DC_FIELDS(fields), NULL, warn,
};
