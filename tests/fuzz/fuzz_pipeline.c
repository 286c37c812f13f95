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

#define MAX_SETS 8

/* Splits "line\nline..." into at most MAX_SETS owned override strings. */
static size_t split_sets(const char *p, const char *end, struct dc_override *sets, char **owned)
{
	size_t n = 0;
	while (p < end && n < MAX_SETS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		owned[n] = malloc(len + 1);
		if (!owned[n])
			break;
		memcpy(owned[n], p, len);
		owned[n][len] = '\0';
		sets[n].text = owned[n];
		n++;
		p += len + 1;
	}
	return n;
}

/* Input: a config, optionally followed by 0x01 and --set lines; or 0x02
 * and --set lines applied to the built-in default (configs/systems.json),
 * so that most inputs are accepted configs and reach the estimators. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *cfg_text = text;
	const char *split;
	size_t cfg_len = size, nsets = 0;
	struct dc_override sets[MAX_SETS];
	char *owned[MAX_SETS];
	struct dc_config cfg;
	struct dc_diag diag;

	if (size > 0 && data[0] == 0x02) {
		cfg_text = dc_default_config;
		cfg_len = dc_default_config_len;
		nsets = split_sets(text + 1, text + size, sets, owned);
	} else if ((split = memchr(text, 0x01, size)) != NULL) {
		cfg_len = (size_t)(split - text);
		nsets = split_sets(split + 1, text + size, sets, owned);
	}
	dc_diag_init(&diag);
	if (dc_config_load_buffer(cfg_text, cfg_len, "fuzz.json", sets, nsets, &cfg, &diag) == 0) {
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
	for (size_t i = 0; i < nsets; i++)
		free(owned[i]);
	return 0;
}
