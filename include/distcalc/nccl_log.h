/* nccl_log.h - reading the standard output of an nccl-tests *_perf binary
 * (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, reduce_scatter_perf,
 * alltoall_perf, broadcast_perf, reduce_perf, sendrecv_perf).
 *
 * What is read (docs/nccl-tools.md, "What is read"):
 * - the header: "# nThread N nGpus N minBytes N maxBytes N step: ...",
 *   and after "# Using devices" one "#  Rank R Group G Pid P on HOST device
 *   D [bus] NAME" line per rank: ranks, hosts (nodes) and ranks per host;
 * - "# Collective test starting: NAME_perf" when the version prints it
 *   (2.14 on): the collective;
 * - the column header ("# size count type redop root time algbw busbw
 *   #wrong time algbw busbw #wrong"; older layouts without redop and root
 *   too) and every result row, out-of-place and in-place columns;
 * - the footer "# Avg bus bandwidth : X".
 * Lines from NCCL_DEBUG=INFO ("host:pid:tid NCCL INFO ...") and lines
 * before the header (mpirun's chatter) are skipped; so are the "NCCL
 * version X" line NCCL prints after the device list (kept in
 * nccl_version) and environment lines ("NCCL_ALGO=Ring"). NCCL_ALGO and
 * NCCL_PROTO are read from any line that sets them (an environment line,
 * mpirun's -x, NCCL's "set by environment to"). srun's "0: " label and
 * mpirun --tag-output's "[1,0]<stdout>:" tags are dropped wherever they
 * sit (inside a row too).
 *
 * Which collective ran: the "Collective test starting" line; else the file
 * name (all_gather_perf.log, ...); else the rows themselves (size / count,
 * redop, root and busbw / algbw tell all but all_gather from alltoall, and
 * all_reduce from sendrecv on 2 ranks, which are an error).
 *
 * A log that is empty, binary, not nccl-tests output, truncated (no footer,
 * a short row), holds two runs or mixes ops, data types or roots, or has a
 * size column that does not increase gets one error naming the file and
 * the line; nothing is returned.
 */
#ifndef DISTCALC_NCCL_LOG_H
#define DISTCALC_NCCL_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/diag.h"

/* The room for an NCCL_ALGO or NCCL_PROTO value, its NUL included */
#define DC_NCCL_ENV_MAX 256

enum dc_nccl_op {
	DC_NCCL_ALL_REDUCE,
	DC_NCCL_ALL_GATHER,
	DC_NCCL_REDUCE_SCATTER,
	DC_NCCL_ALL_TO_ALL,
	DC_NCCL_BROADCAST,
	DC_NCCL_REDUCE,
	DC_NCCL_SEND_RECV,
	DC_NCCL_OP_COUNT,
};

/* The out-of-place (0) and in-place (1) columns. */
enum { DC_NCCL_OOP = 0, DC_NCCL_IP = 1 };

/* One result row. */
struct dc_nccl_row {
	size_t line;           /* 1-based line in the log */
	uint64_t size_bytes;   /* the size column: nccl-tests' S, max(send, recv) bytes of one rank */
	uint64_t count;        /* the count column: elements of the call's count argument */
	int has[2];            /* the column group was printed */
	double time_s[2];      /* the time column (us) in seconds */
	double algbw_GBps[2];
	double busbw_GBps[2];
};

struct dc_nccl_log {
	enum dc_nccl_op op;
	const char *op_source;  /* static: "the 'Collective test starting' line", "the file name", "the rows" */
	char type[16];          /* "float" */
	uint64_t type_bytes;    /* 4 for float; 0 when the type is unknown */
	char redop[16];         /* "sum", "none"; "" in layouts without the column */
	int64_t root;           /* -1 unless a rooted op */
	uint64_t nthread, ngpus, min_bytes, max_bytes;
	uint64_t ranks;         /* "#  Rank" lines */
	uint64_t nodes;         /* distinct hosts among them */
	uint64_t ranks_per_node; /* the most ranks on one host */
	char device[96];        /* rank 0's device name, "NVIDIA H100 80GB HBM3" */
	char nccl_version[32];  /* "2.26.2+cuda12.8" from the "NCCL version" line; "" when absent */
	/* NCCL_ALGO as the log's environment lines set it ("Ring"); "" when
	 * unset. A longer value than DC_NCCL_ENV_MAX - 1 bytes is refused,
	 * never cut: a cut list can drop the entry for the log's collective */
	char nccl_algo[DC_NCCL_ENV_MAX];
	char nccl_proto[DC_NCCL_ENV_MAX]; /* NCCL_PROTO likewise */
	double avg_busbw_GBps;  /* the footer */
	size_t nrows;
	struct dc_nccl_row *rows; /* owned: dc_nccl_log_release */
};

/* Parses `len` bytes of `buf` (need not be NUL-terminated) named `name`
 * (file name, for messages and the op hint). Returns 0 with *log filled
 * (release it), or -1 with one error in `diag` ("NAME:LINE: error: ...",
 * DC_ERR_INPUT; DC_ERR_INTERNAL when out of memory) and *log empty. */
int dc_nccl_log_parse(const char *buf, size_t len, const char *name, struct dc_nccl_log *log,
		      struct dc_diag *diag);

/* Reads `path` (at most DC_NCCL_LOG_MAX_BYTES) and parses it as above. */
int dc_nccl_log_read(const char *path, struct dc_nccl_log *log, struct dc_diag *diag);

#define DC_NCCL_LOG_MAX_BYTES (16u * 1024u * 1024u)

/* Frees the rows and empties *log. Safe on an empty log. */
void dc_nccl_log_release(struct dc_nccl_log *log);

/* "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
 * "broadcast", "reduce", "send_recv". */
const char *dc_nccl_op_name(enum dc_nccl_op op);

/* nccl-tests' bus-bandwidth factor for `op` on n ranks (its *GetBw
 * functions, doc/PERFORMANCE.md): all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, send_recv 1. */
double dc_nccl_busbw_factor(enum dc_nccl_op op, uint64_t n);

/* The time of one row: the faster of its out-of-place and in-place
 * columns (noise only adds time; the first call often carries set-up). */
double dc_nccl_row_time_s(const struct dc_nccl_row *r);

#endif
