/* util.h - allocation, checked arithmetic and a growable text buffer.
 *
 * Every allocation in the library goes through dc_malloc/dc_calloc/
 * dc_realloc/dc_strdup so a test can make the n-th one fail
 * (dc_alloc_fail_at) and prove that each call site copes.
 */
#ifndef DISTCALC_UTIL_H
#define DISTCALC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void *dc_malloc(size_t n);
void *dc_calloc(size_t count, size_t size);
void *dc_realloc(void *p, size_t n);
char *dc_strdup(const char *s);
char *dc_strndup(const char *s, size_t n);

/* Fault injection for tests: make the n-th allocation from now fail (1 is
 * the next one); 0 disables. dc_alloc_count() returns allocations made since
 * the last call to dc_alloc_fail_at(). The counters are atomic: the n-th
 * allocation counts every thread's (which one is the n-th among threads
 * racing is the scheduler's); set them while no other thread allocates.
 * Tests only. */
void dc_alloc_fail_at(unsigned long n);
unsigned long dc_alloc_count(void);
/* Allocations that have failed so far (injected or real). */
unsigned long dc_alloc_failures(void);

/* printf into a new string; NULL on allocation failure. */
char *dc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *dc_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The n bytes at p without the blanks at either end (spaces, tabs, line
 * ends): its start, and its length in *len. How every command-line list
 * and value is read (--set, --sweep, budgets, --only): a CI file's YAML
 * adds blanks. */
const char *dc_text_trim(const char *p, size_t n, size_t *len);

/* Levenshtein distance between the first `la` bytes of a and the string
 * b (`fold`: letters compare case-insensitively), for did-you-mean
 * suggestions; 99 when either is 63 bytes or longer. */
size_t dc_edit_distance(const char *a, size_t la, const char *b, int fold);

/* Checked uint64 arithmetic: 0 and *out set, or -1 on overflow. */
static inline int dc_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}
static inline int dc_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out) ? -1 : 0;
}

/* Sticky-overflow arithmetic for long formulas: each call returns the
 * exact result, or 0 and sets c->overflow; check it once at the end. */
struct dc_ck {
	int overflow;
};

static inline uint64_t dc_ck_mul(struct dc_ck *c, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_mul_overflow(a, b, &r)) {
		c->overflow = 1;
		return 0;
	}
	return r;
}
static inline uint64_t dc_ck_add(struct dc_ck *c, uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		c->overflow = 1;
		return 0;
	}
	return r;
}
/* Greatest common divisor (Euclid); dc_gcd_u64(a, 0) = a. */
static inline uint64_t dc_gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}
/* ceil(a / b) for b > 0, without overflow. */
static inline uint64_t dc_ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* Smallest x >= 0 with lo <= (a x) mod m <= hi, for lo <= hi < m;
 * UINT64_MAX when there is none. O(log m), no overflow for m < 2^32. */
uint64_t dc_first_in_range(uint64_t a, uint64_t m, uint64_t lo, uint64_t hi);

/* Largest integer a double holds exactly, 2^53. Config numbers above it are
 * rejected. */
#define DC_MAX_EXACT_INT 9007199254740992.0

/* Growable NUL-terminated text. On allocation failure `failed` is set and
 * further appends do nothing; check it once at the end.
 *
 * With a `flush` callback the buffer streams: once it holds more than
 * DC_BUF_FLUSH_BYTES, appends first hand the text to flush() and start
 * again empty, so output of any size needs bounded memory. A flush that
 * returns non-zero sets `failed` and `flush_failed`. dc_buf_flush() hands
 * over what is left. */
struct dc_buf {
	char *data;
	size_t len;
	size_t alloc;
	int failed;
	int flush_failed;
	int (*flush)(void *ctx, const char *data, size_t len);
	void *flush_ctx;
};

#define DC_BUF_FLUSH_BYTES (256 * 1024)

/* Hands the buffered text to the flush callback (if any); 0 or -1. */
int dc_buf_flush(struct dc_buf *b);

void dc_buf_init(struct dc_buf *b);
void dc_buf_release(struct dc_buf *b);
/* Appends: inline when the text fits, the growth path out of line. */
void dc_buf_add_slow(struct dc_buf *b, const char *s, size_t n);

static inline void dc_buf_add(struct dc_buf *b, const char *s, size_t n)
{
	if (b->len + n < b->alloc && !b->failed) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	dc_buf_add_slow(b, s, n);
}

static inline void dc_buf_putc(struct dc_buf *b, char c)
{
	if (b->len + 1 < b->alloc && !b->failed) {
		b->data[b->len++] = c;
		b->data[b->len] = '\0';
		return;
	}
	dc_buf_add_slow(b, &c, 1);
}

/* Room for up to n more bytes: where they go, to be written there by the
 * caller and then counted in by dc_buf_commit (at most n of them); NULL
 * when the buffer failed (out of memory, a flush that failed), and then
 * nothing is to be written. One check for a piece built of many parts,
 * where each dc_buf_add would check on its own. */
char *dc_buf_room_slow(struct dc_buf *b, size_t n);

static inline char *dc_buf_room(struct dc_buf *b, size_t n)
{
	if (b->len + n < b->alloc && !b->failed)
		return b->data + b->len;
	return dc_buf_room_slow(b, n);
}

/* Counts in the n bytes written at dc_buf_room's pointer. */
static inline void dc_buf_commit(struct dc_buf *b, size_t n)
{
	b->len += n;
	b->data[b->len] = '\0';
}

static inline void dc_buf_puts(struct dc_buf *b, const char *s)
{
	dc_buf_add(b, s, strlen(s));
}
void dc_buf_printf(struct dc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n spaces. */
void dc_buf_pad_slow(struct dc_buf *b, size_t n);

static inline void dc_buf_pad(struct dc_buf *b, size_t n)
{
	if (b->len + n < b->alloc && !b->failed) {
		memset(b->data + b->len, ' ', n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	dc_buf_pad_slow(b, n);
}

/* Text for a terminal or a CSV cell: s with every byte that would act
 * instead of print escaped. LF, TAB and CR as \n, \t, \r; every other C0
 * control, DEL, each byte of a C1 control (U+0080 to U+009F) and each byte
 * that is not part of well-formed UTF-8 as \xHH (ESC is \x1b). Printable
 * ASCII and well-formed characters print as they are; a backslash is not
 * escaped (the text is for people: it is not meant to be read back). The
 * table and CSV sinks write every text so, the loader every file name it
 * puts in a message, main.c every diag line. NULL is "". Defined in
 * src/out/fmt.c beside the other escapes. */
/* 1 when s needs no escape (the sinks' fast path). */
int dc_text_printable(const char *s);
/* dc_text_printable for s of length n (strlen(s), not NULL). */
int dc_text_printable_n(const char *s, size_t n);
/* 1 when the 8 bytes at s may all be printable ASCII: a byte below 0x20
 * sets its top bit in x - 0x20.., one at 0x7f in x + 0x01.., one at 0x80
 * or above in x; a carry between bytes can only flag a plain byte (a 0
 * then sends the text to the exact check). */
static inline int dc_ascii_printable_word(const char *s)
{
	const uint64_t lo = 0x2020202020202020u, one = 0x0101010101010101u, top = 0x8080808080808080u;
	uint64_t x;
	memcpy(&x, s, 8);
	return !(((x - lo) | (x + one) | x) & top);
}

/* dc_ascii_printable_word for the 4 bytes at s */
static inline int dc_ascii_printable_half(const char *s)
{
	const uint32_t lo = 0x20202020u, one = 0x01010101u, top = 0x80808080u;
	uint32_t x;
	memcpy(&x, s, 4);
	return !(((x - lo) | (x + one) | x) & top);
}

/* 1 when s[0..n) is printable ASCII (0x20 to 0x7e) alone, 0 when it may
 * not be (a 0 can be a false alarm: callers take their exact path). Eight
 * bytes a step, a longer text's last few bytes as the word that ends it
 * (its first bytes checked twice); a text of 4 to 7 bytes as two
 * overlapping 4-byte words, a shorter one a byte at a time. In line: the
 * sinks ask it of most cells they write, mostly short ones, where a call
 * costs as much as the check. */
static inline int dc_text_ascii_printable(const char *s, size_t n)
{
	size_t i = 0;
	if (n < 8) {
		if (n >= 4)
			return dc_ascii_printable_half(s) && dc_ascii_printable_half(s + n - 4);
		for (; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
				return 0;
		return 1;
	}
	for (; i + 8 <= n; i += 8)
		if (!dc_ascii_printable_word(s + i))
			return 0;
	return i == n || dc_ascii_printable_word(s + n - 8);
}

/* dc_text_printable_n with its common case, printable ASCII, in line */
static inline int dc_text_printable_fast(const char *s, size_t n)
{
	return dc_text_ascii_printable(s, n) || dc_text_printable_n(s, n);
}
/* Appends the escaped s. */
void dc_buf_printable(struct dc_buf *b, const char *s);
/* Writes the escaped s into buf, NUL-terminated, cut before the first
 * escape or character that does not fit (never through one); returns the
 * length written. len 0 writes nothing. */
size_t dc_fmt_printable(char *buf, size_t len, const char *s);

/* A byte count as a message names memory: in GiB (2^30 bytes), as the
 * report does. A whole number of GiB is "80 GiB" (the text a config
 * would give); any other count is its GiB to three decimals, rounded as
 * "%.3f" rounds, with the exact bytes after it, as the report's scalars
 * carry them: "74.506 GiB (80,000,000,000 B)". Never an exponent. Writes
 * into buf as snprintf would (cut at len - 1 bytes, NUL-terminated);
 * returns the length written. Defined in src/out/fmt.c. */
size_t dc_fmt_gib(char *buf, size_t len, uint64_t bytes);

#endif
