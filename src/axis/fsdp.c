/* fsdp.c - the fully sharded axis (FSDP2 / ZeRO-3) over dp x cp ranks:
 * per unit per microbatch an AllGather of its parameters before forward,
 * again before backward when resharded, and a ReduceScatter of its
 * gradients; the root unit gathered once per microbatch; with a pipeline
 * every unit stays gathered and reduces once per step (unit_calls).
 * docs/formulas-systems.md, "Communication per step", "FSDP". */
#include "axis_int.h"

#include "distcalc/activation.h"
#include "distcalc/framework.h"

/* How often one step gathers a unit (before forwards, before backwards)
 * and reduce-scatters its gradients, for the chunk's gas microbatches. */
struct unit_calls {
	uint64_t fwd, bwd, rs;
};

/* The root unit (`root`: the embedding and head, or a whole-model unit,
 * one fully_shard(model)) is never resharded after forward ("for the
 * root, do not reshard after forward", FSDPState._lazy_init): one gather
 * a microbatch. A layer unit is gathered again before backward when
 * resharded after forward. With a pipeline (pp > 1, the memory ledger's
 * fsdp_holds_stage) torch.distributed.pipelining runs every backward
 * with set_reshard_after_backward(False) and
 * set_requires_gradient_sync(False) and reduce-scatters once, in the
 * stage's _post_backward after the last one (stage.py): one
 * ReduceScatter a unit a step, and a unit gathered again only after a
 * forward resharded it. Then a chunk's ops start with a forward and
 * every forward is followed by another op of the chunk, so a resharding
 * unit is gathered 1 + gas times: the forwards before the chunk's first
 * backward (its in-flight microbatches, 1F1B's min(pp - s, m)) and the
 * ops after a forward from there on, taken as backward; without
 * resharding (torchtitan's default under pp) once. */
static void unit_calls(const struct dc_axis_ctx *x, int root, struct unit_calls *u)
{
	const struct dc_plan *p = x->p;
	uint64_t gas = dc_pipeline_chunk_microbatches(p), sched = dc_layout_schedules(&p->layout);
	int reshard = !root && dc_framework_reshard_after_forward(p);
	if (p->layout.pp < 2) {
		u->fwd = gas;
		u->bwd = reshard ? gas : 0;
		u->rs = gas;
		return;
	}
	/* a step of several schedules (parallel.pipeline_schedule_
	 * microbatches) runs each as one: its stage's _post_backward at its
	 * end reduce-scatters and reshards (stage.py), and the next one
	 * gathers again, for its gas / sched microbatches */
	gas /= sched;
	u->rs = sched;
	u->fwd = sched;
	u->bwd = 0;
	if (reshard) {
		uint64_t ahead = dc_pipeline_in_flight_chunk(p, x->stage, 0);
		uint64_t fwd = ahead < gas ? ahead : gas;
		u->fwd = sched * fwd;
		u->bwd = sched * (gas + 1 - fwd);
	}
}

/* HSDP (parallel.dp_replicate > 1, FSDP2 on a 2-D mesh): after each
 * ReduceScatter of M gradient bytes over the shard group, FSDP2
 * all-reduces the shard, ceil(M / shard) bytes, across the replicas. */
static void replicas(struct dc_axis_ctx *x, enum dc_coll_what what, uint64_t calls, uint64_t msg_bytes,
		     uint64_t shard, const struct dc_plan_link *l, const struct dc_net_group *g)
{
	const struct dc_plan *p = x->p;
	int expert = what == DC_CW_REPLICA_EXPERT_GRAD_BUCKET;
	const struct dc_plan_group *rep = &p->group[expert ? DC_GROUP_EREP : DC_GROUP_REP];
	if (p->dp_replicate < 2)
		return;
	x->s->group_size = p->dp_replicate;
	dc_axis_use_link(x->s, &rep->link, &rep->net);
	dc_axis_push(x, DC_COLL_ALL_REDUCE, what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, calls,
		     dc_ceil_div(msg_bytes, shard));
	x->s->group_size = shard;
	dc_axis_use_link(x->s, l, g);
}

/* DualPipe's mirror sum (dp.c mirror_sum): each unit's reduced gradient
 * shard, ceil(M / shard) bytes after a ReduceScatter of M, all-reduced
 * over the mirror pair, after HSDP's replicas */
static void mirrors(struct dc_axis_ctx *x, int expert, uint64_t calls, uint64_t msg_bytes, uint64_t shard,
		    const struct dc_plan_link *l, const struct dc_net_group *g)
{
	dc_axis_push_mirror(x, expert, calls, dc_ceil_div(msg_bytes, shard));
	x->s->group_size = shard;
	dc_axis_use_link(x->s, l, g);
}

/* The stage's parameters outside the layer units (`other`: the
 * embedding, final norm and head) as FSDP units. Every framework but
 * torchtitan leaves them to the root (fully_shard(model)), never
 * resharded after forward: one unit. torchtitan wraps them itself
 * (torchtitan/distributed/fsdp.py:238-265 at b5bcd76c): untied,
 * tok_embeddings is its own unit under the layers' policy (:252-257)
 * and [norm, lm_head] another, resharded only under "always"
 * (:258-265); tied, the three are one unit under the "always" rule
 * (:238-250). distcalc's boolean reshard_after_forward reads true as
 * "always" only under a pipeline, where "default" is false (:129-132).
 * Splits `other` into the embedding's unit (*embed, 0 when it has none)
 * and the rest, with how each is called. */
struct root_units {
	uint64_t embed, head;
	enum dc_coll_what head_params, head_grads; /* the embedding's: DC_CW_EMBED_PARAMS, _GRADS */
	struct unit_calls e, h;
};

static void root_units(const struct dc_axis_ctx *x, uint64_t other, struct root_units *o)
{
	const struct dc_plan *p = x->p;
	int tt = p->in->training.framework == DC_FRAMEWORK_TORCHTITAN;
	o->embed = 0;
	o->head = other;
	o->head_params = DC_CW_ROOT_PARAMS;
	o->head_grads = DC_CW_ROOT_GRADS;
	unit_calls(x, 1, &o->h);
	o->e = o->h;
	if (!tt || !other)
		return;
	/* the head's unit (or the tied one) reshards only under "always" */
	unit_calls(x, p->layout.pp < 2, &o->h);
	if (p->in->model.tie_word_embeddings)
		return;
	o->head_params = DC_CW_HEAD_PARAMS;
	o->head_grads = DC_CW_HEAD_GRADS;
	/* the first stage's embedding (and a learned position table,
	 * which torchtitan's models lack: kept with it) */
	o->embed = dc_framework_fsdp_embedding_unit(p, x->stage, other);
	o->head = other - o->embed;
	unit_calls(x, 0, &o->e);
}

/* The root's (or torchtitan's embedding and head units') AllGathers
 * (`grads` 0, w bytes a parameter) or ReduceScatters (gb) */
static void root_gathers(struct dc_axis_ctx *x, uint64_t other, int grads, uint64_t bytes)
{
	struct dc_ck *b = x->b;
	struct root_units r;
	root_units(x, other, &r);
	if (!grads) {
		if (r.embed) {
			dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_EMBED_PARAMS, DC_CPHASE_FORWARD, DC_OVL_PREFETCH, r.e.fwd,
				     dc_ck_mul(b, r.embed, bytes));
			if (r.e.bwd)
				dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_EMBED_PARAMS, DC_CPHASE_BACKWARD, DC_OVL_PREFETCH,
					     r.e.bwd, dc_ck_mul(b, r.embed, bytes));
		}
		dc_axis_push(x, DC_COLL_ALL_GATHER, r.head_params, DC_CPHASE_FORWARD, DC_OVL_PREFETCH, r.h.fwd,
			     dc_ck_mul(b, r.head, bytes));
		if (r.h.bwd)
			dc_axis_push(x, DC_COLL_ALL_GATHER, r.head_params, DC_CPHASE_BACKWARD, DC_OVL_PREFETCH, r.h.bwd,
				     dc_ck_mul(b, r.head, bytes));
		return;
	}
	if (r.embed)
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_EMBED_GRADS, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, r.e.rs,
			     dc_ck_mul(b, r.embed, bytes));
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, r.head_grads, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, r.h.rs,
		     dc_ck_mul(b, r.head, bytes));
}

/* HSDP's AllReduces of the root's (torchtitan: the embedding's and the
 * head's units') gradient shards (replicas) */
static void root_replicas(struct dc_axis_ctx *x, enum dc_coll_what rep, uint64_t other, uint64_t gb, uint64_t shard,
			  const struct dc_plan_link *l, const struct dc_net_group *g)
{
	struct dc_ck *b = x->b;
	struct root_units r;
	root_units(x, other, &r);
	if (r.embed)
		replicas(x, rep, r.e.rs, dc_ck_mul(b, r.embed, gb), shard, l, g);
	replicas(x, rep, other ? r.h.rs : 0, dc_ck_mul(b, r.head, gb), shard, l, g);
	if (r.embed)
		mirrors(x, 0, r.e.rs, dc_ck_mul(b, r.embed, gb), shard, l, g);
	mirrors(x, 0, other ? r.h.rs : 0, dc_ck_mul(b, r.head, gb), shard, l, g);
}

/* `units` units of q parameters, r of them one more; `other` parameters in
 * the root unit (embedding, head), which stays gathered through backward:
 * FSDP2 never reshards the root after forward. `whole`: the units are the
 * root (fsdp_unit "model"). The strategy's current group is the shard
 * group (l, g). */
static void fsdp_units(struct dc_axis_ctx *x, uint64_t units, uint64_t q, uint64_t r, uint64_t other, int expert,
		       int whole, const struct dc_plan_link *l, const struct dc_net_group *g)
{
	const struct dc_precision *pr = &x->p->in->precision;
	struct dc_ck *b = x->b;
	/* per unit per microbatch of its chunk: m / 2 under DualPipe, whose
	 * rank holds two stages' units, each run by one direction's half */
	struct unit_calls u;
	enum dc_coll_what params = expert ? DC_CW_EXPERT_UNIT_PARAMS : DC_CW_UNIT_PARAMS;
	enum dc_coll_what grads = expert ? DC_CW_EXPERT_UNIT_GRADS : DC_CW_UNIT_GRADS;
	uint64_t w = pr->working_bytes, gb = pr->grad_bytes, shard = x->s->group_size;
	enum dc_coll_what rep = expert ? DC_CW_REPLICA_EXPERT_GRAD_BUCKET : DC_CW_REPLICA_GRAD_BUCKET;

	unit_calls(x, whole, &u);
	dc_axis_push(x, DC_COLL_ALL_GATHER, params, DC_CPHASE_FORWARD, DC_OVL_PREFETCH, dc_ck_mul(b, units - r, u.fwd),
		     dc_ck_mul(b, q, w));
	dc_axis_push(x, DC_COLL_ALL_GATHER, params, DC_CPHASE_FORWARD, DC_OVL_PREFETCH, dc_ck_mul(b, r, u.fwd),
		     dc_ck_mul(b, q + 1, w));
	root_gathers(x, other, 0, w);
	if (u.bwd) {
		dc_axis_push(x, DC_COLL_ALL_GATHER, params, DC_CPHASE_BACKWARD, DC_OVL_PREFETCH,
			     dc_ck_mul(b, units - r, u.bwd), dc_ck_mul(b, q, w));
		dc_axis_push(x, DC_COLL_ALL_GATHER, params, DC_CPHASE_BACKWARD, DC_OVL_PREFETCH, dc_ck_mul(b, r, u.bwd),
			     dc_ck_mul(b, q + 1, w));
	}
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, grads, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC,
		     dc_ck_mul(b, units - r, u.rs), dc_ck_mul(b, q, gb));
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, grads, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, dc_ck_mul(b, r, u.rs),
		     dc_ck_mul(b, q + 1, gb));
	root_gathers(x, other, 1, gb);
	replicas(x, rep, dc_ck_mul(b, units - r, u.rs), dc_ck_mul(b, q, gb), shard, l, g);
	replicas(x, rep, dc_ck_mul(b, r, u.rs), dc_ck_mul(b, q + 1, gb), shard, l, g);
	mirrors(x, expert, dc_ck_mul(b, units - r, u.rs), dc_ck_mul(b, q, gb), shard, l, g);
	mirrors(x, expert, dc_ck_mul(b, r, u.rs), dc_ck_mul(b, q + 1, gb), shard, l, g);
	root_replicas(x, rep, other, gb, shard, l, g);
}

void dc_axis_fsdp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_stage_params *best = x->best;
	/* layers may differ in size (dense layers before MoE ones): split the
	 * stage's layer parameters into units of q and q + 1 so the units add
	 * up to the stage exactly. Routed experts are sharded over the
	 * expert-data-parallel group (the ledger's dp / ep ranks, memory.c):
	 * their part of each unit is gathered and scattered there, the rest
	 * over all of dp (x cp) */
	uint64_t layer_units = best->layers ? best->layers : 1;
	uint64_t layer_total = best->total - best->other_params - best->expert_params;
	uint64_t other_params = best->other_params;
	uint64_t experts = best->expert_params, edp = p->expert_shard_dp_cp;
	int whole = p->in->parallel.fsdp_unit == DC_FSDP_UNIT_MODEL;
	if (p->dp_cp < 2 || p->layout.sharding != DC_SHARD_FSDP)
		return;
	/* HSDP: one replica's shard group (the dp x cp group without it) */
	dc_axis_setup(x, p->shard_dp_cp, &p->group[DC_GROUP_SHARD].link, &p->group[DC_GROUP_SHARD].net);
	if (whole) {
		layer_units = 1;
		layer_total = best->total - best->expert_params;
		other_params = 0;
	}
	if (edp == p->shard_dp_cp) {
		/* ep = 1: the experts shard with the rest of their unit */
		layer_total += experts;
		experts = 0;
	}
	fsdp_units(x, layer_units, layer_total / layer_units, layer_total % layer_units, other_params, 0, whole,
		   &p->group[DC_GROUP_SHARD].link, &p->group[DC_GROUP_SHARD].net);
	/* DualPipe sums even unsharded experts with the mirror (mirrors) */
	if (experts > 0 && (edp > 1 || p->dp_replicate > 1 || dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE)) {
		/* the MoE layers' expert parts, one per MoE layer */
		uint64_t n = whole || !best->moe_layers ? 1 : best->moe_layers;
		x->s->group_size = edp;
		dc_axis_use_link(x->s, &p->group[DC_GROUP_ESHARD].link, &p->group[DC_GROUP_ESHARD].net);
		fsdp_units(x, n, experts / n, experts % n, 0, 1, whole, &p->group[DC_GROUP_ESHARD].link, &p->group[DC_GROUP_ESHARD].net);
		x->s->group_size = p->shard_dp_cp;
		dc_axis_use_link(x->s, &p->group[DC_GROUP_SHARD].link, &p->group[DC_GROUP_SHARD].net);
	}
}

/* ZeRO-3 / FSDP shards every state over the shard group (dp_shards). */
void dc_axis_fsdp_shards(const struct dc_plan *p, struct dc_state_shards *out)
{
	if (p->layout.sharding != DC_SHARD_FSDP)
		return;
	for (int s = 0; s < DC_STATE_COUNT; s++) {
		out->dense[s] = p->shard_dp_cp;
		out->expert[s] = p->expert_shard_dp_cp;
	}
}
