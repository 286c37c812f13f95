/* fuzz_options.c - libFuzzer harness over the command line: the option
 * table's parser (dc_options_parse), the did-you-mean suggestion, and the
 * --set strings and --only list it collects, applied to the built-in
 * default as main.c applies them.
 *
 * Input: argv[1..] separated by NUL bytes (at most MAX_ARGS). Parsing must
 * succeed or record exactly one usage line; a successful parse's --set
 * strings (and --unset paths) must load or say why, its --only list must
 * select sections or say why, and its --check-max / --check-min budgets
 * must be checked against the report or say why, never crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/options.h"
#include "distcalc/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	const char *argv[MAX_ARGS + 2];
	int argc = 1;
	struct dc_options o;
	struct dc_diag diag;
	size_t i = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "distcalc";
	while (i < size && argc <= MAX_ARGS) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	argv[argc] = NULL;

	dc_diag_init(&diag);
	if (dc_options_parse(argc, argv, &o, &diag) != 0) {
		if (diag.errors != 1 || (diag.status != DC_ERR_USAGE && diag.status != DC_ERR_INTERNAL))
			abort(); /* one line, a usage error */
	} else if (diag.errors != 0) {
		abort();
	} else if (o.action == DC_OPTIONS_RUN) {
		const struct dc_experiment *exp = dc_experiment_find(o.experiment);
		struct dc_config cfg;
		struct dc_diag ld;
		dc_diag_init(&ld);
		if (dc_config_load_buffer(dc_default_config, dc_default_config_len, "built-in default", o.sets,
					  o.nsets, &cfg, &ld) == 0) {
			/* --only against the experiment, as main.c runs it */
			if (exp) {
				struct dc_run_info info = {exp->name, "built-in default", o.seed, o.only};
				struct dc_report *r = dc_experiment_run(exp, &cfg, &info, &ld);
				if (!r && ld.status != DC_ERR_USAGE && ld.status != DC_ERR_CONFIG)
					abort();
				if (r && o.nmaxes) {
					/* the budgets, as main.c checks them */
					struct dc_render_opts ro = {20, 100};
					struct dc_buf json, lines;
					size_t exceeded = 0;
					dc_buf_init(&json);
					dc_buf_init(&lines);
					if (dc_report_render_json(r, &ro, &json) == 0 &&
					    dc_check_budgets(json.data, json.len, o.maxes, o.nmaxes, &lines, &exceeded, &ld) != 0 &&
					    ld.status != DC_ERR_USAGE && ld.status != DC_ERR_INTERNAL && ld.status != DC_ERR_CONFIG)
						abort();
					dc_buf_release(&json);
					dc_buf_release(&lines);
				}
				dc_report_free(r);
			}
		} else if (ld.errors == 0) {
			abort(); /* a failed --set says why */
		}
		dc_diag_release(&ld);
	}
	for (int k = 1; k < argc; k++)
		if (argv[k][0] == '-')
			(void)dc_options_suggest(argv[k]);
	dc_options_release(&o);
	dc_diag_release(&diag);
	free(copy);
	return 0;
}
