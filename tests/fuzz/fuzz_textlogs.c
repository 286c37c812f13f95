/* fuzz_textlogs.c - libFuzzer harness over the plain-text readers: the
 * nccl-tests log reader (src/load/nccl_log.c) and the `nvidia-smi topo -m`
 * reader (src/load/topo_file.c). The same bytes go through both. Each must
 * either fill its result or record exactly one error and return nothing;
 * a log it accepts has rows whose sizes increase and finite, positive
 * times, a matrix it accepts an NVLink domain that divides its GPUs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "distcalc/nccl_log.h"
#include "distcalc/topo_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dc_topo_file t;
	struct dc_nccl_log log;
	struct dc_diag d;

	dc_diag_init(&d);
	if (dc_nccl_log_parse((const char *)data, size, "fuzz.log", &log, &d) == 0) {
		if (d.count != 0 || log.nrows == 0 || log.ranks == 0)
			abort();
		for (size_t i = 0; i < log.nrows; i++) {
			double t_s = dc_nccl_row_time_s(&log.rows[i]);
			if (!(t_s > 0) || !isfinite(t_s) || (i && log.rows[i].size_bytes <= log.rows[i - 1].size_bytes))
				abort();
		}
		dc_nccl_log_release(&log);
	} else if (d.count != 1 || log.rows) {
		abort();
	}
	dc_diag_release(&d);

	dc_diag_init(&d);
	if (dc_topo_file_parse((const char *)data, size, "fuzz.txt", &t, &d) == 0) {
		if (d.count != 0 || t.ngpus == 0 || t.nvlink_domain == 0 || t.ngpus % t.nvlink_domain != 0 ||
		    t.nics_per_node > t.nnics)
			abort();
	} else if (d.count != 1 || t.ngpus != 0) {
		abort();
	}
	dc_diag_release(&d);
	return 0;
}
