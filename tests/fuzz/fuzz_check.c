/* fuzz_check.c - libFuzzer harness over the --check reader and comparator
 * (src/cli/check.c: dc_check_compare, dc_check_stored_only).
 *
 * Input: a stored report (the "expected" golden), optionally followed by
 * 0x01 and a second document compared as the fresh report ("actual");
 * without it the golden is compared with a real report rendered once (the
 * ring experiment on the built-in default). The comparison must run or
 * record why not, and it writes a line for every difference it counts.
 * A real report compared with itself has no difference (checked once); a
 * fuzzed one need not (an expected 1e400 is a difference even with itself).
 * The golden is also compared streamed (dc_check_compare_file, as --check
 * reads a stored report above 1 MiB) against the real report: it must
 * accept and refuse what the tree comparison does, with the same lines.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dc_buf real;

static void render_real(void)
{
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_run_info info = {"ring", "built-in default", 7, NULL};
	struct dc_render_opts ro = {32, 0};
	struct dc_report *r;

	dc_diag_init(&d);
	dc_buf_init(&real);
	if (dc_config_load_buffer(dc_default_config, dc_default_config_len, "built-in default", NULL, 0, &cfg, &d) != 0 ||
	    !(r = dc_experiment_run(dc_experiment_find("ring"), &cfg, &info, &d)) ||
	    dc_report_render_json(r, &ro, &real) != 0)
		abort();
	dc_report_free(r);
	dc_diag_release(&d);
}

static void compare(const char *exp, size_t elen, const char *act, size_t alen, int same);

static size_t lines(const struct dc_buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

static void compare(const char *exp, size_t elen, const char *act, size_t alen, int same)
{
	struct dc_check_result res = {0, 0};
	struct dc_diag d;
	struct dc_buf out;
	int rc;

	dc_diag_init(&d);
	dc_buf_init(&out);
	rc = dc_check_compare(exp, elen, "expected.json", act, alen, 1e-9, &out, &res, &d);
	if (rc != 0 && d.errors == 0)
		abort(); /* a refusal says why */
	/* at least one line per difference: check.c writes a stored string
	 * as it is, so a "\n" in one splits its line (for check.c to escape) */
	if (rc == 0 && !out.failed && lines(&out) < res.differences)
		abort();
	if (rc == 0 && same && res.differences != 0)
		abort();
	dc_buf_release(&out);
	dc_diag_release(&d);
}

struct text {
	const char *p;
	size_t n;
};

static int render_text(void *ctx, struct dc_buf *b)
{
	const struct text *t = ctx;
	dc_buf_add(b, t->p, t->n);
	return b->failed ? -1 : 0;
}

/* The golden through a file, streamed, against the tree comparison. */
static void compare_streamed(const char *exp, size_t elen, const char *act, size_t alen)
{
	static char path[64];
	static int fd = -1;
	struct dc_check_result r1 = {0, 0}, r2 = {0, 0};
	struct dc_diag d1, d2;
	struct dc_buf o1, o2;
	struct text t = {act, alen};
	int rc1, rc2;

	if (fd < 0) {
		/* one file for the run, gone from /tmp at once: read by its fd */
		char tmp[] = "/tmp/fuzz_check.XXXXXX";
		if ((fd = mkstemp(tmp)) < 0 || unlink(tmp) != 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, exp, elen, 0) != (ssize_t)elen)
		abort();
	dc_diag_init(&d1);
	dc_diag_init(&d2);
	dc_buf_init(&o1);
	dc_buf_init(&o2);
	rc1 = dc_check_compare(exp, elen, path, act, alen, 1e-9, &o1, &r1, &d1);
	rc2 = dc_check_compare_file(path, 1e-9, NULL, render_text, &t, NULL, NULL, &o2, &r2, &d2, NULL, NULL);
	if (rc2 != 0 && d2.errors == 0)
		abort(); /* a refusal says why */
	if ((rc1 == 0) != (rc2 == 0))
		abort(); /* one accepts what the other refuses */
	if (rc1 == 0 && (r1.differences != r2.differences || r1.compared != r2.compared || o1.len != o2.len ||
			 memcmp(o1.data, o2.data, o1.len) != 0))
		abort(); /* the same lines */
	dc_buf_release(&o1);
	dc_buf_release(&o2);
	dc_diag_release(&d1);
	dc_diag_release(&d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *split = memchr(text, 0x01, size);
	size_t elen = split ? (size_t)(split - text) : size;
	char only[256];

	if (!real.data) {
		render_real();
		compare(real.data, real.len, real.data, real.len, 1);
	}
	(void)dc_check_stored_only(text, elen, only, sizeof(only));
	if (split)
		compare(text, elen, split + 1, size - elen - 1, 0);
	else
		compare(text, elen, real.data, real.len, 0);
	/* the golden against itself: every leaf on both sides */
	compare(text, elen, text, elen, 0);
	compare_streamed(text, elen, real.data, real.len);
	return 0;
}
