# A launch of 16 GPUs (torchrun --nnodes 2 --nproc_per_node 8): a trial ran it on a 64-GPU cluster, where it was priced as dp 16 without a word.
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
--num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
--group-query-attention --num-query-groups 8 --seq-length 8192 --max-position-embeddings 8192 \
--position-embedding-type rope --normalization RMSNorm --swiglu --untie-embeddings-and-output-weights \
--disable-bias-linear --attention-dropout 0.0 --hidden-dropout 0.0 --vocab-size 128256 \
--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 \
--micro-batch-size 1 --global-batch-size 128 --bf16 \
--use-distributed-optimizer --overlap-grad-reduce --sequence-parallel \
  --log-interval 1
