/* fuzz_pipeline.c - libFuzzer harness over the whole pipeline: loader,
 * plan, every experiment, both reporters into memory. Any config the
 * loader accepts must produce a plan whose stage classes tile the pipeline
 * and a report, never a crash, a hang or a non-finite number in the JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The plan of an accepted config: its classes, made one by one, cover
 * stages 0..pp-1 in order, and the most loaded one has the highest peak. */
static void check_plan(const struct dc_config *cfg)
{
	struct dc_plan p;
	struct dc_memory_result m;
	struct dc_mem_ledger l;
	const char *err = NULL;
	uint64_t next = 0;

	if (dc_plan_derive(cfg, &p) != 0)
		abort(); /* the loader's checks leave no overflow for the plan */
	if (dc_memory_compute(&p, &m, &err) != 0) {
		if (!err)
			abort();
		return;
	}
	if (m.most_loaded >= m.nclasses || m.nclasses > p.layout.pp)
		abort();
	for (uint64_t i = 0; i < m.nclasses && i < 4096; i++) {
		if (dc_memory_class_at(&p, &m, i, &l) != 0 || l.stage_first != next || l.stage_last < l.stage_first ||
		    l.peak_bytes > m.top.peak_bytes)
			abort();
		next = l.stage_last + 1;
	}
	if (m.nclasses <= 4096 && next != p.layout.pp)
		abort();
}

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
		check_plan(&cfg);
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
