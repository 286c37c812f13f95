/* topo_file.h - reading `nvidia-smi topo -m`, the matrix of how the GPUs
 * and NICs of one node reach each other, for cluster.topology_file.
 *
 * The text (docs/nccl-tools.md, "The topology file"): a header row of
 * column names separated by tabs (GPU0..GPUn-1, then the NICs as NIC0.. or
 * mlx5_0.., then "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"); one row
 * per GPU and per NIC whose cells are X (self), NV# (# bonded NVLinks),
 * PIX (at most one PCIe bridge), PXB (several PCIe bridges, no host
 * bridge), PHB (a PCIe host bridge: the CPU), NODE (between host bridges of
 * one NUMA node), SYS (across the sockets' interconnect; SOC in old
 * versions), then the affinity cells; then the legend, whose "NIC Legend"
 * names each NIC (NIC0: mlx5_0). Colour codes are dropped.
 *
 * What is derived:
 * - nvlink_domain: the largest k dividing the GPU count such that GPUs
 *   [0, k), [k, 2k), ... are each joined pairwise by NVLink (NVSwitch: all
 *   of them; NVLink bridges on pairs: 2; none: 1);
 * - each GPU's NIC: the NIC it reaches by the best path (PIX before PXB,
 *   PHB, NODE, SYS), a tie going to the NIC fewer GPUs use so far, then the
 *   lower index; nics_per_node is the number of NICs some GPU uses (storage
 *   NICs no GPU is nearest to are not counted);
 * - the worst of those GPU-to-NIC paths, which a collective over all rails
 *   waits for.
 * A malformed matrix (no header, a row that is not a GPU or NIC of the
 * header, a cell that is not one of the words above, X off the diagonal,
 * a GPU-GPU cell that disagrees with its mirror, missing GPU rows) gets one
 * error naming the file and the line.
 */
#ifndef DISTCALC_TOPO_FILE_H
#define DISTCALC_TOPO_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/diag.h"

/* How two devices of a node reach each other, best first. */
enum dc_topo_path {
	DC_TOPO_X,    /* the device itself */
	DC_TOPO_NV,   /* NVLink (NV#) */
	DC_TOPO_PIX,
	DC_TOPO_PXB,
	DC_TOPO_PHB,
	DC_TOPO_NODE,
	DC_TOPO_SYS,
	DC_TOPO_PATH_COUNT,
};

#define DC_TOPO_MAX_GPUS 64
#define DC_TOPO_MAX_NICS 64

struct dc_topo_file {
	size_t ngpus, nnics;
	unsigned char gpu_gpu[DC_TOPO_MAX_GPUS][DC_TOPO_MAX_GPUS]; /* enum dc_topo_path */
	unsigned char nvlinks[DC_TOPO_MAX_GPUS][DC_TOPO_MAX_GPUS]; /* the # of NV#, 0 otherwise */
	unsigned char gpu_nic[DC_TOPO_MAX_GPUS][DC_TOPO_MAX_NICS]; /* enum dc_topo_path */
	char nic_name[DC_TOPO_MAX_NICS][32]; /* the legend's name (mlx5_0), else the column's */
	/* derived */
	uint64_t nvlink_domain;
	uint64_t nvlinks_per_pair;  /* the fewest NVLinks between two GPUs of one domain; 0 when none */
	uint64_t nics_per_node;     /* NICs some GPU uses; 0 when the file lists none */
	int gpu_nic_index[DC_TOPO_MAX_GPUS];            /* -1 when there are no NICs */
	enum dc_topo_path gpu_nic_path[DC_TOPO_MAX_GPUS];
	enum dc_topo_path worst_nic_path; /* DC_TOPO_X when there are no NICs */
};

/* Parses `len` bytes of `buf` named `name`. Returns 0 with *t filled, or
 * -1 with one error in `diag` ("NAME:LINE: error: ...", DC_ERR_CONFIG
 * when the text is read but wrong). */
int dc_topo_file_parse(const char *buf, size_t len, const char *name, struct dc_topo_file *t,
		       struct dc_diag *diag);

/* Reads `path` (at most 1 MiB) and parses it; DC_ERR_INPUT when it cannot
 * be read. */
int dc_topo_file_read(const char *path, struct dc_topo_file *t, struct dc_diag *diag);

/* "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS". */
const char *dc_topo_path_name(enum dc_topo_path p);

#endif
