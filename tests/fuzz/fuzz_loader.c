/* fuzz_loader.c - libFuzzer harness over the config loader.
 *
 * Input: config bytes, optionally followed by a 0x01 byte and --set
 * overrides, one per line. The loader must never crash, leak or read out
 * of bounds, and must either succeed or record at least one error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"

#define MAX_SETS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *split = memchr(text, 0x01, size);
	size_t cfg_len = split ? (size_t)(split - text) : size;
	struct dc_override sets[MAX_SETS];
	char *owned[MAX_SETS];
	size_t nsets = 0;
	struct dc_config cfg;
	struct dc_diag diag;
	int rc;

	if (split) {
		const char *p = split + 1, *end = text + size;
		while (p < end && nsets < MAX_SETS) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			owned[nsets] = malloc(n + 1);
			if (!owned[nsets])
				break;
			memcpy(owned[nsets], p, n);
			owned[nsets][n] = '\0';
			/* a line "!PATH" is an --unset PATH */
			sets[nsets].unset = owned[nsets][0] == '!';
			sets[nsets].text = owned[nsets] + sets[nsets].unset;
			nsets++;
			p += n + 1;
		}
	}
	dc_diag_init(&diag);
	rc = dc_config_load_buffer(text, cfg_len, "fuzz.json", sets, nsets, &cfg, &diag);
	if (rc != 0 && diag.errors == 0)
		abort(); /* a failure must say why */
	if (rc == 0 && diag.errors != 0)
		abort();
	dc_diag_release(&diag);
	for (size_t i = 0; i < nsets; i++)
		free(owned[i]);
	return 0;
}
