/* fuzz_hf.c - libFuzzer harness over the Hugging Face loader (src/load/hf.c)
 * through the public loader API, as --model FILE reaches it: the input is
 * written to a file and loaded as the model of the built-in default config
 * (dc_load_opts.model_file).
 *
 * Input: a config.json, optionally followed by 0x01 and --set lines
 * (model.* on top of the file's shape). The load must succeed or record at
 * least one error, never crash or leak; an accepted shape must derive a
 * plan and a parameter count.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 16

static char path[64];
static int fd = -1;

static void remove_model_file(void)
{
	unlink(path);
}

/* One file for the whole run, rewritten for each input, removed at exit. */
static int model_file(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%.40s/fuzz_hf.XXXXXX", dir && *dir && strlen(dir) < 40 ? dir : "/tmp");
		if ((fd = mkstemp(path)) < 0)
			return -1;
		atexit(remove_model_file);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *split = memchr(data, 0x01, size);
	size_t hf_len = split ? (size_t)(split - data) : size, nsets = 0;
	struct dc_override sets[MAX_SETS];
	char *owned[MAX_SETS];
	struct dc_load_opts opts = {sets, 0, path, 0};
	struct dc_config cfg;
	struct dc_diag diag;
	struct dc_plan plan;
	uint64_t params;
	int rc;

	if (split) {
		const char *p = (const char *)split + 1, *end = (const char *)data + size;
		while (p < end && nsets < MAX_SETS) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (!(owned[nsets] = malloc(n + 1)))
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
	opts.noverrides = nsets;
	if (model_file(data, hf_len) != 0)
		abort(); /* the harness's own file, not the code under test */
	dc_diag_init(&diag);
	rc = dc_config_load_buffer_opts(dc_default_config, dc_default_config_len, "built-in default", &opts, &cfg,
					&diag);
	if (rc != 0 && diag.errors == 0)
		abort(); /* a failure must say why */
	if (rc == 0) {
		if (diag.errors != 0)
			abort();
		if (dc_model_param_count(&cfg.model, &params) == 0 && params == 0)
			abort(); /* an accepted shape has parameters */
		if (dc_plan_derive(&cfg, &plan) != 0)
			abort(); /* the loader's checks leave no overflow for the plan */
	}
	dc_diag_release(&diag);
	for (size_t i = 0; i < nsets; i++)
		free(owned[i]);
	return 0;
}
