/* fuzz_pipeline.c - libFuzzer harness over the whole pipeline: loader,
 * every experiment, both reporters into memory. Any config the loader
 * accepts must produce a report, never a crash, a hang or a non-finite
 * number in the JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_config cfg;
	struct dc_diag diag;

	dc_diag_init(&diag);
	if (dc_config_load_buffer((const char *)data, size, "fuzz.json", NULL, 0, &cfg, &diag) == 0) {
		for (size_t i = 0; dc_experiments[i]; i++) {
			struct dc_run_info info = {dc_experiments[i]->name, "fuzz.json", 7};
			struct dc_render_opts ro = {32};
			struct dc_report *r = dc_experiment_run(dc_experiments[i], &cfg, &info, &diag);
			struct dc_buf out;
			if (!r) {
				if (diag.status != DC_ERR_CONFIG)
					abort(); /* an accepted config must run */
				continue;
			}
			dc_buf_init(&out);
			if (dc_report_render_json(r, &ro, &out) != 0 || strstr(out.data, "null,") == out.data)
				abort();
			if (strstr(out.data, "nan") || strstr(out.data, "inf"))
				abort();
			dc_buf_release(&out);
			if (dc_report_render_table(r, &ro, &out) != 0)
				abort();
			dc_buf_release(&out);
			dc_report_free(r);
		}
	}
	dc_diag_release(&diag);
	return 0;
}
