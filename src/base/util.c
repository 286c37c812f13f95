/* util.c - allocation wrappers, checked arithmetic, text buffer, edit
 * distance, modular search; see util.h. */
#include "distcalc/util.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shared by every thread that allocates (the search's workers, the
 * streamed --check's renderer): atomics, so the n-th allocation is one
 * allocation whichever thread makes it, and no count is lost. Relaxed
 * order: the counters order nothing else. */
static atomic_ulong alloc_fail_at;
static atomic_ulong alloc_count;
static atomic_ulong alloc_failures;

void dc_alloc_fail_at(unsigned long n)
{
	atomic_store_explicit(&alloc_fail_at, n, memory_order_relaxed);
	atomic_store_explicit(&alloc_count, 0, memory_order_relaxed);
}

unsigned long dc_alloc_count(void)
{
	return atomic_load_explicit(&alloc_count, memory_order_relaxed);
}

static void count_failure(void)
{
	atomic_fetch_add_explicit(&alloc_failures, 1, memory_order_relaxed);
}

static int should_fail(void)
{
	unsigned long at = atomic_load_explicit(&alloc_fail_at, memory_order_relaxed);
	unsigned long n = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
	if (at != 0 && n == at) {
		count_failure();
		return 1;
	}
	return 0;
}

unsigned long dc_alloc_failures(void)
{
	return atomic_load_explicit(&alloc_failures, memory_order_relaxed);
}

void *dc_malloc(size_t n)
{
	if (should_fail())
		return NULL;
	void *q = malloc(n ? n : 1);
	if (!q)
		count_failure();
	return q;
}

void *dc_calloc(size_t count, size_t size)
{
	if (should_fail())
		return NULL;
	void *q = calloc(count ? count : 1, size ? size : 1);
	if (!q)
		count_failure();
	return q;
}

void *dc_realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	void *q = realloc(p, n ? n : 1);
	if (!q)
		count_failure();
	return q;
}

char *dc_strndup(const char *s, size_t n)
{
	char *p = dc_malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *dc_strdup(const char *s)
{
	return dc_strndup(s, strlen(s));
}

char *dc_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	p = dc_malloc((size_t)n + 1);
	if (!p)
		return NULL;
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *dc_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = dc_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}






void dc_buf_init(struct dc_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void dc_buf_release(struct dc_buf *b)
{
	free(b->data);
	dc_buf_init(b);
}

int dc_buf_flush(struct dc_buf *b)
{
	if (b->failed)
		return -1;
	if (!b->flush || b->len == 0)
		return 0;
	if (b->flush(b->flush_ctx, b->data, b->len) != 0) {
		b->failed = 1;
		b->flush_failed = 1;
		return -1;
	}
	b->len = 0;
	b->data[0] = '\0';
	return 0;
}

static int grow(struct dc_buf *b, size_t extra)
{
	size_t need, n;
	char *p;

	if (b->failed)
		return -1;
	if (b->flush && b->len > 0 && b->len + extra >= DC_BUF_FLUSH_BYTES && dc_buf_flush(b) != 0)
		return -1;
	if (dc_add_u64(b->len, extra + 1, &need) != 0)
		goto fail;
	if (need <= b->alloc)
		return 0;
	n = b->alloc ? b->alloc : 16384; /* a whole report of the default config fits */
	while (n < need) {
		if (n > SIZE_MAX / 2)
			goto fail;
		n *= 2;
	}
	p = dc_realloc(b->data, n);
	if (!p)
		goto fail;
	b->data = p;
	b->alloc = n;
	return 0;
fail:
	b->failed = 1;
	return -1;
}

void dc_buf_add_slow(struct dc_buf *b, const char *s, size_t n)
{
	if (grow(b, n) != 0)
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

char *dc_buf_room_slow(struct dc_buf *b, size_t n)
{
	return grow(b, n) == 0 ? b->data + b->len : NULL;
}

void dc_buf_pad_slow(struct dc_buf *b, size_t n)
{
	if (grow(b, n) != 0)
		return;
	memset(b->data + b->len, ' ', n);
	b->len += n;
	b->data[b->len] = '\0';
}

void dc_buf_printf(struct dc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room;

	if (b->failed)
		return;
	/* usually the text fits what is left: format once */
	room = b->alloc > b->len ? b->alloc - b->len : 0;
	if (room > 0) {
		va_start(ap, fmt);
		n = vsnprintf(b->data + b->len, room, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		b->data[b->len] = '\0'; /* drop the partial text */
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if (grow(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

const char *dc_text_trim(const char *p, size_t n, size_t *len)
{
	while (n && is_blank(*p)) {
		p++;
		n--;
	}
	while (n && is_blank(p[n - 1]))
		n--;
	*len = n;
	return p;
}

static char fold_char(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t dc_edit_distance(const char *a, size_t la, const char *b, int fold)
{
	size_t lb = strlen(b), row[64];
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			char ca = fold ? fold_char(a[i - 1]) : a[i - 1], cb = fold ? fold_char(b[j - 1]) : b[j - 1];
			size_t up = row[j], best = diag + (ca != cb);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* dc_first_in_range: Euclid on (m, a), O(log m) steps, every product
 * below m^2 */
uint64_t dc_first_in_range(uint64_t a, uint64_t m, uint64_t lo, uint64_t hi)
{
	uint64_t x, y;

	a %= m;
	if (lo == 0)
		return 0;
	if (a == 0)
		return UINT64_MAX;
	x = lo / a + (lo % a != 0); /* the first multiple of a from lo, no wrap */
	if (x * a <= hi)
		return x;
	/* [lo, hi] lies strictly between two multiples of a, so
	 * 0 < lo mod a <= hi mod a; a x = m y + v with v in [lo, hi] asks for a
	 * multiple of a in [m y + lo, m y + hi], i.e. (m y) mod a in
	 * [a - hi mod a, a - lo mod a]; the smallest y gives the smallest x */
	y = dc_first_in_range(m % a, a, a - hi % a, a - lo % a);
	if (y == UINT64_MAX)
		return UINT64_MAX;
	return (m * y + lo + a - 1) / a;
}
