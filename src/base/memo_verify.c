/* memo_verify.c - the comparisons of the DISTCALC_VERIFY_MEMOS switch; see
 * memo_verify.h. Always built, so warnings as errors keep it compiling;
 * a release build never calls it, so its tools do not link it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/memo_verify.h"

/* The bytes of a member as hex, lowest address first, and as a double or
 * an integer where it has the size of one: enough to tell which value the
 * memo kept and which a fresh computation gives. */
static void print_value(const char *label, const unsigned char *p, size_t size)
{
	fprintf(stderr, "  %s:", label);
	for (size_t i = 0; i < size && i < 64; i++)
		fprintf(stderr, "%s%02x", i % 8 == 0 ? " " : "", p[i]);
	if (size > 64)
		fprintf(stderr, " ...");
	if (size == 8) {
		double d;
		uint64_t u;
		memcpy(&d, p, 8);
		memcpy(&u, p, 8);
		fprintf(stderr, " (double %.17g, u64 %" PRIu64 ")", d, u);
	} else if (size == 4) {
		int32_t i;
		memcpy(&i, p, 4);
		fprintf(stderr, " (int %" PRId32 ")", i);
	}
	fputc('\n', stderr);
}

static _Noreturn void fail(const char *memo, const char *what, const char *member, size_t offset, size_t at,
		 const unsigned char *reused, const unsigned char *fresh, size_t size)
{
	fprintf(stderr,
		"distcalc: memo verify: %s: %s%s%s differs (member at byte %zu, first differing byte %zu): the reused "
		"result is not what a fresh computation gives; a memoised function reads an input its key leaves "
		"out\n",
		memo, what, member ? "." : "", member ? member : "", offset, at);
	print_value("reused", reused, size);
	print_value("fresh ", fresh, size);
	fflush(stderr);
	abort();
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t size)
{
	size_t i = 0;
	while (i < size && a[i] == b[i])
		i++;
	return i;
}

void dc_memo_verify_fields(const char *memo, const char *what, const void *reused, const void *fresh,
			   const struct dc_memo_field *fields, size_t n)
{
	const unsigned char *a = reused, *b = fresh;
	for (size_t i = 0; i < n; i++) {
		const struct dc_memo_field *f = &fields[i];
		const unsigned char *x = a + f->offset, *y = b + f->offset;
		if (memcmp(x, y, f->size) != 0)
			fail(memo, what, f->name, f->offset, f->offset + first_diff(x, y, f->size), x, y, f->size);
	}
}

void dc_memo_verify_bytes(const char *memo, const char *what, const void *reused, const void *fresh, size_t size,
			  const struct dc_memo_field *fields, size_t n)
{
	const unsigned char *a = reused, *b = fresh;
	const struct dc_memo_field *in = NULL;
	size_t at;
	if (memcmp(a, b, size) == 0)
		return;
	at = first_diff(a, b, size);
	/* the member the byte lies in, when named */
	for (size_t i = 0; i < n; i++)
		if (at >= fields[i].offset && at < fields[i].offset + fields[i].size)
			in = &fields[i];
	if (in)
		fail(memo, what, in->name, in->offset, at, a + in->offset, b + in->offset, in->size);
	fail(memo, what, NULL, at, at, a + at, b + at, size - at < 8 ? size - at : 8);
}

void dc_memo_verify_double(const char *memo, const char *what, double reused, double fresh)
{
	if (memcmp(&reused, &fresh, sizeof(reused)) != 0)
		fail(memo, what, NULL, 0, first_diff((const unsigned char *)&reused, (const unsigned char *)&fresh, 8),
		     (const unsigned char *)&reused, (const unsigned char *)&fresh, sizeof(reused));
}

void dc_memo_verify_u64(const char *memo, const char *what, uint64_t reused, uint64_t fresh)
{
	if (reused != fresh)
		fail(memo, what, NULL, 0, first_diff((const unsigned char *)&reused, (const unsigned char *)&fresh, 8),
		     (const unsigned char *)&reused, (const unsigned char *)&fresh, sizeof(reused));
}
