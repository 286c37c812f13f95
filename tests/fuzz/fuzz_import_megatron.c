/* fuzz_import_megatron.c - libFuzzer harness over the importer of a
 * Megatron-LM argument list or launch script (the shell-word reader and its mapping, src/load/import_megatron.c), as --from-* reaches it through dc_import_parse.
 *
 * Input: the file's bytes. The parse must succeed or record at least one
 * error, never crash or leak; an accepted import must write its equivalent
 * config over the built-in default's cluster, and that config must load or
 * record an error.
 */
#include <stdint.h>
#include <stdlib.h>

#include "distcalc/config.h"
#include "distcalc/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_import imp;
	struct dc_diag diag;
	struct dc_buf out;
	int rc;

	dc_diag_init(&diag);
	dc_buf_init(&out);
	rc = dc_import_parse(DC_IMPORT_MEGATRON, (const char *)data, size, "fuzz", &imp, &diag);
	if (rc != 0 && diag.errors == 0 && !diag.oom)
		abort(); /* a refusal always says why */
	if (rc == 0 && dc_import_config(&imp, "fuzz", dc_default_config, dc_default_config_len, "configs/systems.json",
					&out, &diag) == 0) {
		static struct dc_config cfg;
		struct dc_diag ld;
		dc_diag_init(&ld);
		if (dc_config_load_buffer_opts(out.data, out.len, "fuzz (as imported)", NULL, &cfg, &ld) != 0 &&
		    ld.errors == 0 && !ld.oom)
			abort();
		dc_diag_release(&ld);
	}
	dc_buf_release(&out);
	dc_import_release(&imp);
	dc_diag_release(&diag);
	return 0;
}
