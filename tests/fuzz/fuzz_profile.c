/* fuzz_profile.c - libFuzzer harness over the --calibrate-compute profile
 * reader (src/load/calibrate_compute.c: dc_compute_profile_parse) and the
 * levels it gives the built-in default config (dc_compute_profile_apply).
 * Every input must parse or record why not; an accepted profile's levels,
 * when applied, are below 1 and at least 0.01 of the peak times the
 * factor the H100 set applies to a measurement (its in-situ factor for a
 * boost-clock profile's GEMMs, its streaming share for element-wise:
 * calibrate_compute.h), as the measured levels are refused below 0.01. */
#include <stdint.h>
#include <stdlib.h>

#include "distcalc/calibrate_compute.h"
#include "distcalc/compute.h"
#include "distcalc/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dc_compute_profile p;
	static struct dc_config cfg;
	struct dc_diag d;
	const char *sets[] = {"cluster.gpu=h100-sxm5-80gb"};
	struct dc_override ov = {sets[0], 0};
	double clock, share;
	dc_diag_init(&d);
	if (dc_compute_profile_parse((const char *)data, size, "fuzz.json", &p, &d) != 0) {
		if (d.count == 0)
			abort(); /* a refusal says why */
		dc_diag_release(&d);
		return 0;
	}
	if (dc_config_load_buffer(dc_default_config, dc_default_config_len, "built-in default", &ov, 1, &cfg, &d) != 0)
		abort();
	dc_compute_in_situ(DC_GPU_H100_SXM5_80GB, &clock, &share);
	if (dc_compute_profile_apply(&p, &cfg, &d) == 0 &&
	    !(cfg.cluster.matmul_efficiency >= 0.01 * clock && cfg.cluster.matmul_efficiency < 1 &&
	      cfg.cluster.memory_efficiency >= 0.01 * share && cfg.cluster.memory_efficiency < 1))
		abort();
	dc_diag_release(&d);
	return 0;
}
