/* check_fmt.c - the integer and text formatters the sinks share (fmt.c,
 * section.h, util.h), each against printf or a plain byte-at-a-time
 * reference, so that their fast paths write exactly the reference's bytes:
 *
 * - dc_fmt_u64, dc_fmt_u64_grouped and dc_fmt_fixed_u64 against "%llu"
 *   (grouped and cut into decimals by hand) at every power of ten and of
 *   two and their neighbours, 0, 2^64 - 1 and a million seeded values;
 * - dc_fmt_gib (a byte count in a message) on counts worked out by hand;
 * - dc_text_fmt against snprintf for every format the sections use, cut
 *   at every buffer length, and for the formats it leaves to printf;
 * - dc_buf_json_string against a byte loop of RFC 8259's escapes (and
 *   RFC 3629's well-formed UTF-8), and dc_text_printable against the
 *   escaped text, on seeded strings of every length up to 40 mixing
 *   plain ASCII, quotes, backslashes, controls, DEL, UTF-8 and stray
 *   bytes: the word-at-a-time scans must flag what the byte loops flag;
 * - the table's wrap of a text a line at a time against its word-at-a-time
 *   wrap, at every start column and width; its columns counted and its
 *   words cut by characters of UTF-8, never inside one, on hand-worked
 *   texts and on seeded ones against their ASCII look-alikes;
 * - the sinks' per-table plans (report_int.h) on hand-worked rows: the
 *   JSON row plan's text and its bounds (the longest key piece, the most
 *   columns), dc_csv_plain on every special byte at every position, and
 *   a table's list of doubles (nested objects, more than it holds);
 * - the table sink's cell cache on a 70-row table of 250-byte texts (cells
 *   formatted in place, through scratch once the cache is nearly full, and
 *   made again past it), its column kinds (counts, GiB, strings, text
 *   functions, texts in the row, null and escaped cells, cells either side
 *   of the 16 bytes a short one is copied as), its fixed-point numbers
 *   against printf, a key-value block's lines (labels of each length its
 *   copies take; texts short, wrapped, spaced, null and escaped), a
 *   wrapped column under a heading wider than it, rows of 1 KiB (fewer
 *   kept whole than the cache's rows, each column's own loop left part
 *   way for cell_text), each unit's heading in the units row, a key-value
 *   block's counts, the scans' overlapping last word, and the table's
 *   check for a word too long to wrap a line at a time.
 *
 * dc_fmt_double has its own comparison with printf in check_report.c;
 * here its path for whole numbers, at its edges.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/rng.h"
#include "distcalc/section.h"
#include "distcalc/util.h"

#include "../src/out/report_int.h" /* dc_table_wrap_text */

/* The values an integer formatter gets wrong first: 0, 2^64 - 1, every
 * power of ten and of two and their neighbours; then seeded values of
 * every length. Calls check(v) on each; returns the mismatches. */
static unsigned long each_u64(unsigned long (*check)(uint64_t v))
{
	struct dc_rng rng;
	unsigned long bad = check(0) + check(UINT64_MAX) + check(UINT64_MAX - 1);
	uint64_t p = 1;
	for (int k = 0; k < 20; k++, p *= 10)
		for (int d = -3; d <= 3; d++)
			bad += check(p + (uint64_t)(int64_t)d);
	for (int b = 0; b < 64; b++)
		for (int d = -3; d <= 3; d++)
			bad += check(((uint64_t)1 << b) + (uint64_t)(int64_t)d);
	dc_rng_seed(&rng, 26);
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = dc_rng_next(&rng);
		bad += check(r >> (r % 64)); /* every length, not only 20 digits */
	}
	return bad;
}

static unsigned long u64_matches(uint64_t v)
{
	char fast[32], slow[32];
	size_t n = dc_fmt_u64(fast, v);
	snprintf(slow, sizeof(slow), "%llu", (unsigned long long)v);
	if (strcmp(fast, slow) == 0 && n == strlen(slow))
		return 0;
	fprintf(stderr, "u64 %s: '%s'\n", slow, fast);
	return 1;
}

/* "%llu" with a comma before each group of three digits from the right */
static unsigned long grouped_matches(uint64_t v)
{
	char fast[32], digits[32], slow[40];
	size_t nd = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), o = 0;
	size_t n = dc_fmt_u64_grouped(fast, v);
	for (size_t i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			slow[o++] = ',';
		slow[o++] = digits[i];
	}
	slow[o] = '\0';
	if (strcmp(fast, slow) == 0 && n == o)
		return 0;
	fprintf(stderr, "grouped %s: '%s', want '%s'\n", digits, fast, slow);
	return 1;
}

/* "%llu" padded with zeros to prec + 1 digits, a point before the last
 * prec of them */
static unsigned long fixed_matches(uint64_t v)
{
	unsigned long bad = 0;
	for (unsigned prec = 0; prec <= 4; prec++) {
		char fast[40], digits[40], slow[48];
		size_t nd = (size_t)snprintf(digits, sizeof(digits), "%0*llu", (int)prec + 1, (unsigned long long)v);
		size_t n = dc_fmt_fixed_u64(fast, v, prec), whole = nd - prec;
		memcpy(slow, digits, whole);
		if (prec) {
			slow[whole] = '.';
			memcpy(slow + whole + 1, digits + whole, prec);
		}
		slow[nd + (prec ? 1 : 0)] = '\0';
		if (strcmp(fast, slow) != 0 || n != strlen(slow)) {
			fprintf(stderr, "fixed %s at %u: '%s', want '%s'\n", digits, prec, fast, slow);
			bad++;
		}
	}
	return bad;
}

START_TEST(test_u64_matches_printf)
{
	/* groups by hand: each written with its comma from a table of
	 * ",000" to ",999" (zeros inside a group kept) */
	static const struct {
		uint64_t v;
		const char *text;
	} grouped[] = {
		{999, "999"},
		{1000, "1,000"},
		{1001001, "1,001,001"},
		{999999, "999,999"},
		{1000000000000, "1,000,000,000,000"},
		{85899345920, "85,899,345,920"},
		{UINT64_MAX, "18,446,744,073,709,551,615"},
	};
	for (size_t i = 0; i < sizeof(grouped) / sizeof(grouped[0]); i++) {
		char buf[32];
		ck_assert_uint_eq(dc_fmt_u64_grouped(buf, grouped[i].v), strlen(grouped[i].text));
		ck_assert_str_eq(buf, grouped[i].text);
	}
	ck_assert_uint_eq(each_u64(u64_matches), 0);
	ck_assert_uint_eq(each_u64(grouped_matches), 0);
}
END_TEST

START_TEST(test_fixed_u64_matches_printf)
{
	char buf[32];
	ck_assert_uint_eq(dc_fmt_fixed_u64(buf, 1234, 3), 5);
	ck_assert_str_eq(buf, "1.234");
	dc_fmt_fixed_u64(buf, 5, 3);
	ck_assert_str_eq(buf, "0.005");
	dc_fmt_fixed_u64(buf, 0, 4);
	ck_assert_str_eq(buf, "0.0000");
	dc_fmt_fixed_u64(buf, 70, 0);
	ck_assert_str_eq(buf, "70");
	ck_assert_uint_eq(each_u64(fixed_matches), 0);
}
END_TEST

/* dc_text_fmt against snprintf for one format, cut at every length. */
#define TEXT_FMT_MATCHES(bad, ...)                                                                                   \
	do {                                                                                                         \
		char fast_[300], slow_[300];                                                                         \
		for (size_t len_ = 0; len_ <= sizeof(fast_); len_++) {                                               \
			memset(fast_, 'x', sizeof(fast_));                                                           \
			memset(slow_, 'x', sizeof(slow_));                                                           \
			dc_text_fmt(fast_, len_, __VA_ARGS__);                                                       \
			snprintf(slow_, len_, __VA_ARGS__);                                                          \
			if (memcmp(fast_, slow_, sizeof(fast_)) != 0) {                                              \
				if ((bad)++ < 5)                                                                     \
					fprintf(stderr, "text_fmt at %zu: '%.*s' / '%.*s'\n", len_, (int)len_,       \
						fast_, (int)len_, slow_);                                            \
			}                                                                                            \
		}                                                                                                    \
	} while (0)

/* dc_fmt_gib on counts worked out by hand: whole GiB as the integer, any
 * other count to three decimals (half to even, as "%.3f": 2^26 B is
 * 0.0625 GiB, 3 x 2^26 B is 0.1875 GiB) with the exact bytes. */
START_TEST(test_fmt_gib)
{
	char buf[64];
	ck_assert_uint_eq(dc_fmt_gib(buf, sizeof(buf), 85899345920ull), 6);
	ck_assert_str_eq(buf, "80 GiB");
	dc_fmt_gib(buf, sizeof(buf), 0);
	ck_assert_str_eq(buf, "0 GiB");
	dc_fmt_gib(buf, sizeof(buf), 1ull << 53); /* 2^23 GiB, not 8.38861e+06 */
	ck_assert_str_eq(buf, "8388608 GiB");
	dc_fmt_gib(buf, sizeof(buf), 80000000000ull); /* 74.50580... GiB */
	ck_assert_str_eq(buf, "74.506 GiB (80,000,000,000 B)");
	dc_fmt_gib(buf, sizeof(buf), 80); /* 7.45e-08 GiB */
	ck_assert_str_eq(buf, "0.000 GiB (80 B)");
	dc_fmt_gib(buf, sizeof(buf), 1ull << 26);
	ck_assert_str_eq(buf, "0.062 GiB (67,108,864 B)");
	dc_fmt_gib(buf, sizeof(buf), 3ull << 26);
	ck_assert_str_eq(buf, "0.188 GiB (201,326,592 B)");
	dc_fmt_gib(buf, sizeof(buf), 87509958656ull); /* 81.5 GiB */
	ck_assert_str_eq(buf, "81.500 GiB (87,509,958,656 B)");
	/* 2^34 - 1 GiB and 2^30 - 1 B: the decimals round up into the whole */
	ck_assert_uint_eq(dc_fmt_gib(buf, sizeof(buf), UINT64_MAX), 50);
	ck_assert_str_eq(buf, "17179869184.000 GiB (18,446,744,073,709,551,615 B)");
	/* cut as snprintf cuts */
	ck_assert_uint_eq(dc_fmt_gib(buf, 8, 80000000000ull), 7);
	ck_assert_str_eq(buf, "74.506 ");
	ck_assert_uint_eq(dc_fmt_gib(buf, 3, 85899345920ull), 2);
	ck_assert_str_eq(buf, "80");
	ck_assert_uint_eq(dc_fmt_gib(buf, 0, 80), 0);
}
END_TEST

START_TEST(test_text_fmt_matches_snprintf)
{
	unsigned long bad = 0;
	/* a NULL string the compiler cannot see (it warns on a literal one) */
	const char *none = getenv("DISTCALC_CHECK_FMT_UNSET");
	TEXT_FMT_MATCHES(bad, "microbatches in flight");
	TEXT_FMT_MATCHES(bad, "%s", "");
	TEXT_FMT_MATCHES(bad, "%s", "fits in GPU and host memory (every rank)");
	TEXT_FMT_MATCHES(bad, "params (%llu B/param, %s%s)", 2ull, "replicated over dp", ", offloaded");
	TEXT_FMT_MATCHES(bad, "%llu-%llu, %llu-%llu, ... (%llu runs every %llu)", 0ull, 7ull, 8ull, 15ull, 4ull,
			 18446744073709551615ull);
	TEXT_FMT_MATCHES(bad, "tp %llu, cp %llu, pp %llu, ep %llu", 4ull, 1ull, 2ull, 1ull);
	TEXT_FMT_MATCHES(bad, "100%% of %s, %%s%%", "it");
	TEXT_FMT_MATCHES(bad, "%s%s%s", "a", "", "b");
	/* left to printf: other conversions, a NULL string */
	TEXT_FMT_MATCHES(bad, "reserve (%.0f%% of the %s subtotal)", 5.0, "forward");
	TEXT_FMT_MATCHES(bad, "%s and %g and %llu", "x", 0.1, 3ull);
	TEXT_FMT_MATCHES(bad, "%lu %d %.3s", 5ul, -3, "abcdef");
	TEXT_FMT_MATCHES(bad, "[%s]", none);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* The reference JSON string: a byte loop over RFC 8259's escapes, a
 * well-formed UTF-8 sequence (RFC 3629) kept, any other byte at or above
 * 0x80 as \ufffd. */
static size_t utf8_ok(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

static void slow_json_string(struct dc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	dc_buf_putc(b, '"');
	while (*p) {
		size_t n;
		if (*p == '"' || *p == '\\') {
			dc_buf_putc(b, '\\');
			dc_buf_putc(b, (char)*p);
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			dc_buf_putc(b, '\\');
			dc_buf_putc(b, *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		} else if (*p < 0x20) {
			dc_buf_printf(b, "\\u%04x", *p);
		} else if (*p < 0x80) {
			dc_buf_putc(b, (char)*p);
		} else if ((n = utf8_ok(p)) > 0) {
			dc_buf_add(b, (const char *)p, n);
			p += n;
			continue;
		} else {
			dc_buf_puts(b, "\\ufffd");
		}
		p++;
	}
	dc_buf_putc(b, '"');
}

/* A seeded string of n bytes: mostly plain ASCII (whole words of it, for
 * the word-at-a-time scans), else one of the bytes they must flag. */
static void random_text(struct dc_rng *rng, char *s, size_t n)
{
	static const unsigned char odd[] = {'"', '\\', '\n', '\t', '\r', 0x01, 0x1b, 0x1f, 0x7f, 0x80, 0x9f, 0xa0,
					    0xc2, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff, '#', ',', ' '};
	static const char *const utf8[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc2\x85"};
	size_t i = 0;
	uint64_t mode = dc_rng_next(rng) % 4; /* 0: plain only */
	while (i < n) {
		uint64_t r = dc_rng_next(rng);
		if (mode == 0 || r % 16 != 0) {
			s[i++] = (char)(0x20 + r % 95);
			if (s[i - 1] == '"' || s[i - 1] == '\\')
				s[i - 1] = mode ? s[i - 1] : 'q';
		} else if (r % 5 == 0 && mode == 3) {
			const char *u = utf8[(r >> 8) % 4];
			for (size_t k = 0; u[k] && i < n; k++)
				s[i++] = u[k];
		} else {
			s[i++] = (char)odd[(r >> 8) % sizeof(odd)];
		}
	}
	s[n] = '\0';
}

START_TEST(test_json_string_and_printable_match_byte_loops)
{
	struct dc_rng rng;
	unsigned long bad = 0;
	dc_rng_seed(&rng, 8259);
	for (int it = 0; it < 200000; it++) {
		char s[48];
		struct dc_buf fast, slow, esc;
		random_text(&rng, s, (size_t)(it % 41));
		dc_buf_init(&fast);
		dc_buf_init(&slow);
		dc_buf_init(&esc);
		dc_buf_add(&fast, "x", 1); /* not at the buffer's start */
		dc_buf_add(&slow, "x", 1);
		dc_buf_json_string(&fast, s);
		slow_json_string(&slow, s);
		dc_buf_printable(&esc, s);
		if (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "json string: '%s' / '%s'\n", fast.data, slow.data);
		}
		/* printable exactly when escaping leaves the text as it is */
		if (dc_text_printable(s) != (esc.len == strlen(s) && memcmp(esc.data ? esc.data : "", s, esc.len) == 0)) {
			if (bad++ < 5)
				fprintf(stderr, "printable: '%s'\n", esc.data ? esc.data : "");
		}
		dc_buf_release(&fast);
		dc_buf_release(&slow);
		dc_buf_release(&esc);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* The table's wrap: its line-at-a-time path against the word-at-a-time
 * one, on seeded texts of words of 1 to 40 letters and single or double
 * spaces (some at the ends), starting at every column up to 60 of lines 0
 * (no wrap) to 140 wide, so lines run short of, exactly to and past the
 * width, and words reach the word buffer's size. */
START_TEST(test_table_wrap_line_at_a_time)
{
	struct dc_rng rng;
	unsigned long bad = 0, lines = 0;
	dc_rng_seed(&rng, 100);
	for (int it = 0; it < 300000; it++) {
		char s[400];
		size_t n = dc_rng_next(&rng) % 300, col = dc_rng_next(&rng) % 60, width;
		uint64_t word_max = 1 + dc_rng_next(&rng) % 40, spaces = dc_rng_next(&rng) % 4;
		struct dc_buf fast, slow;
		width = dc_rng_next(&rng) % 5 == 0 ? 0 : dc_rng_next(&rng) % 140;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = dc_rng_next(&rng);
			s[i] = r % 100 < spaces * 5 + 3 || (r >> 8) % word_max == 0 ? ' ' : (char)('a' + (r >> 16) % 26);
		}
		if (it % 50 == 0) /* a word longer than any buffer */
			memset(s, 'w', n < 200 ? n : 200);
		s[n] = '\0';
		dc_buf_init(&fast);
		dc_buf_init(&slow);
		dc_table_wrap_text(&fast, s, col, width, 1);
		dc_table_wrap_text(&slow, s, col, width, 0);
		if (fast.len != slow.len || (fast.len && memcmp(fast.data, slow.data, fast.len) != 0)) {
			if (bad++ < 3)
				fprintf(stderr, "wrap at %zu of %zu: '%s'\n'%s'\n'%s'\n", col, width, s,
					fast.data ? fast.data : "", slow.data ? slow.data : "");
		}
		lines += fast.data && strchr(fast.data, '\n');
		dc_buf_release(&fast);
		dc_buf_release(&slow);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_gt(lines, 10000); /* the texts did wrap */
}
END_TEST

/* The wrap of `s` at `col` of lines `width` wide, both ways, as a string
 * (into out, cap bytes); fails when the two differ */
static const char *wrap_both(char *out, size_t cap, const char *s, size_t col, size_t width)
{
	struct dc_buf fast, slow;
	dc_buf_init(&fast);
	dc_buf_init(&slow);
	dc_table_wrap_text(&fast, s, col, width, 1);
	dc_table_wrap_text(&slow, s, col, width, 0);
	ck_assert_uint_eq(fast.len, slow.len);
	ck_assert(fast.len < cap);
	if (fast.len)
		ck_assert(memcmp(fast.data, slow.data, fast.len) == 0);
	memcpy(out, fast.data ? fast.data : "", fast.len);
	out[fast.len] = '\0';
	dc_buf_release(&fast);
	dc_buf_release(&slow);
	return out;
}

/* The table counts a UTF-8 character as one column and cuts only between
 * characters (a user's file name of 'e'-acute cut in two made stdout
 * invalid UTF-8; widths in bytes wrapped words that fit). Worked by hand:
 * é is 2 bytes, 中 3, 😀 4; a stray byte is a column. */
START_TEST(test_table_wrap_utf8)
{
	char out[512], s[128];
	ck_assert_uint_eq(dc_table_text_cols("", 0), 0);
	ck_assert_uint_eq(dc_table_text_cols("abc", 3), 3);
	ck_assert_uint_eq(dc_table_text_cols("\xc3\xa9", 2), 1); /* é */
	ck_assert_uint_eq(dc_table_text_cols("a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 10), 4); /* aé中😀 */
	ck_assert_uint_eq(dc_table_text_cols("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10), 5);
	/* stray bytes: a continuation byte alone, a lead byte cut short by
	 * the end, by an ASCII byte, and a 4-byte one cut after 3 */
	ck_assert_uint_eq(dc_table_text_cols("\x80\xbf", 2), 2);
	ck_assert_uint_eq(dc_table_text_cols("\xc3", 1), 1);
	ck_assert_uint_eq(dc_table_text_cols("\xc3" "a", 2), 2);
	ck_assert_uint_eq(dc_table_text_cols("\xf0\x9f\x98" "a", 4), 4);
	ck_assert_uint_eq(dc_table_text_cols("\xff\xfe", 2), 2);

	/* 'a' and 30 é at lines 12 wide (the word buffer 12 columns): cut
	 * after 12 characters (24 or 23 bytes, not 12), each line whole
	 * characters */
	strcpy(s, "a");
	for (int i = 0; i < 30; i++)
		strcat(s, "\xc3\xa9");
	ck_assert_str_eq(wrap_both(out, sizeof(out), s, 0, 12),
			 "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n"
			 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n"
			 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	/* words of 2 columns (4 bytes): "éé éé" is 5 columns and fits a
	 * line of 5 (9 bytes would not) */
	ck_assert_str_eq(wrap_both(out, sizeof(out), "\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9", 0, 5),
			 "\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9");
	/* from column 2 of lines 10 wide: "日本語 日本語" ends at column 9, a
	 * third word would end at 13; the next line indented to 2 */
	ck_assert_str_eq(wrap_both(out, sizeof(out),
				   "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e "
				   "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
				   2, 10),
			 "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n  "
			 "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
	/* 20 emoji at lines 9 wide from 0 (the buffer 9 columns): 9, 9, 2 */
	s[0] = '\0';
	for (int i = 0; i < 20; i++)
		strcat(s, "\xf0\x9f\x98\x80");
	wrap_both(out, sizeof(out), s, 0, 9);
	ck_assert_uint_eq(strlen(out), 20 * 4 + 2);
	ck_assert(out[36] == '\n' && out[73] == '\n');
	/* stray bytes a column each: 4 and a space and 1 is 6, past 5 */
	ck_assert_str_eq(wrap_both(out, sizeof(out), "\x80\x80\x80\x80 \xc3", 0, 5), "\x80\x80\x80\x80\n\xc3");
}
END_TEST

/* Each character of UTF-8 in s (every one well formed) as 'x', a byte
 * of none as '?': so a text wrapped with a character cut reads apart
 * from its ASCII look-alike's wrap */
static void ascii_look_alike(char *d, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t k = *p < 0x80 ? 1 : *p < 0xc2 ? 0 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : *p < 0xf5 ? 4 : 0, i = 1;
		for (; i < k && (p[i] & 0xc0) == 0x80; i++)
			;
		if (k == 0 || i < k) {
			*d++ = '?';
			p++;
			continue;
		}
		*d++ = k == 1 ? (char)*p : 'x';
		p += k;
	}
	*d = '\0';
}

/* Seeded texts of words of ASCII, é, 中 and 😀 wrap as their ASCII
 * look-alikes (each character an 'x') do, both ways, at every start
 * column and width: columns are characters and no line ends inside one */
START_TEST(test_table_wrap_utf8_look_alike)
{
	static const char *const letter[4] = {"a", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"};
	struct dc_rng rng;
	unsigned long bad = 0;
	dc_rng_seed(&rng, 101);
	for (int it = 0; it < 20000; it++) {
		/* at most 250 lines of 59 columns' indent and 4-byte letters */
		static char got[20000], want[20000], mapped[20000];
		char s[1200], a[400];
		size_t n = dc_rng_next(&rng) % 250, col = dc_rng_next(&rng) % 60, width, o = 0, ao = 0;
		uint64_t word_max = 1 + dc_rng_next(&rng) % 40;
		width = dc_rng_next(&rng) % 5 == 0 ? 0 : dc_rng_next(&rng) % 140;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = dc_rng_next(&rng);
			if (r % 100 < 8 || (r >> 8) % word_max == 0) {
				s[o++] = ' ';
				a[ao++] = ' ';
			} else {
				const char *l = letter[(r >> 16) % 4];
				memcpy(s + o, l, strlen(l));
				o += strlen(l);
				a[ao++] = l[1] ? 'x' : 'a';
			}
		}
		s[o] = a[ao] = '\0';
		wrap_both(got, sizeof(got), s, col, width);
		wrap_both(want, sizeof(want), a, col, width);
		ascii_look_alike(mapped, got);
		if (strcmp(mapped, want) != 0 && bad++ < 3)
			fprintf(stderr, "utf8 wrap at %zu of %zu: '%s'\n'%s'\n'%s'\n", col, width, s, got, want);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* dc_text_add and dc_text_add_u64 cut at the buffer and never write past
 * it: an append that does not fit keeps what fits, one from a position at
 * or past the end appends nothing (review: the unsigned length wrapped). */
START_TEST(test_text_add_bounds)
{
	char b[9];
	memset(b, 'z', sizeof(b));
	b[8] = 'G'; /* a guard past the 8 bytes given */
	ck_assert_uint_eq(dc_text_add(b, 8, 0, "abc"), 3);
	ck_assert_str_eq(b, "abc");
	ck_assert_uint_eq(dc_text_add_u64(b, 8, 3, 18446744073709551615ull), 7);
	ck_assert_str_eq(b, "abc1844");
	ck_assert_uint_eq(dc_text_add(b, 8, 7, "x"), 7);
	ck_assert_uint_eq(dc_text_add(b, 8, 8, "x"), 7);
	ck_assert_uint_eq(dc_text_add(b, 8, 100, "xyz"), 7);
	ck_assert_str_eq(b, "abc1844");
	ck_assert_int_eq(b[8], 'G');
	ck_assert_uint_eq(dc_text_add_u64(b, 0, 0, 5), 0);
	ck_assert_uint_eq(dc_text_add_u64(b, 8, 0, 42), 2);
	ck_assert_str_eq(b, "42");
}
END_TEST

/* dc_fmt_double's whole-number path against printf's shortest of
 * "%.15g" to "%.17g": every power of ten and of two below 2^60 and their
 * neighbours (the path's edge is 10^15), both signs, and seeded integers
 * of every size. */
static unsigned long double_matches(double v)
{
	char fast[40], slow[40];
	dc_fmt_double(fast, sizeof(fast), v);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(slow, sizeof(slow), "%.*g", prec, v);
		if (strtod(slow, NULL) == v)
			break;
	}
	if (v == 0)
		strcpy(slow, "0");
	if (strcmp(fast, slow) == 0)
		return 0;
	fprintf(stderr, "double %.17g: '%s', printf '%s'\n", v, fast, slow);
	return 1;
}

START_TEST(test_whole_doubles_match_printf)
{
	struct dc_rng rng;
	unsigned long bad = 0;
	double p = 1;
	for (int k = 0; k <= 18; k++, p *= 10)
		for (int d = -3; d <= 3; d++)
			bad += double_matches(p + d) + double_matches(-(p + d)) +
			       double_matches(nextafter(p + d, 0)) + double_matches(nextafter(p + d, 1e300));
	for (int b = 0; b < 60; b++)
		for (int d = -3; d <= 3; d++)
			bad += double_matches(ldexp(1, b) + d) + double_matches(-(ldexp(1, b) + d));
	dc_rng_seed(&rng, 15);
	for (int i = 0; i < 200000; i++) {
		uint64_t r = dc_rng_next(&rng);
		double v = (double)(r >> (r % 64));
		bad += double_matches(r & 1 ? -v : v);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_buf_room)
{
	struct dc_buf b;
	char *o;
	dc_buf_init(&b);
	o = dc_buf_room(&b, 5);
	ck_assert_ptr_nonnull(o);
	memcpy(o, "abcde", 5);
	dc_buf_commit(&b, 3); /* fewer than reserved */
	ck_assert_str_eq(b.data, "abc");
	for (int i = 0; i < 10000; i++) { /* across growth */
		o = dc_buf_room(&b, 100);
		ck_assert_ptr_nonnull(o);
		memset(o, 'z', 7);
		dc_buf_commit(&b, 7);
	}
	ck_assert_uint_eq(b.len, 3 + 70000);
	ck_assert_uint_eq(strlen(b.data), b.len);
	b.failed = 1; /* a failed buffer gives no room */
	ck_assert_ptr_null(dc_buf_room(&b, 1));
	dc_buf_release(&b);
}
END_TEST

/* ---- the sinks' per-table plans (report_int.h): hand-worked rows ---- */

struct jrow {
	uint64_t a;
	double b;
	const char *s;
	int flag;
	double gone;
	char t[8];
};

static int always(const void *base)
{
	(void)base;
	return 1;
}

#define JR(m) offsetof(struct jrow, m)
static const struct dc_field jrow_fields[] = {
	{"a", NULL, DC_U_COUNT, DC_FT_U64, JR(a)},
	{"bb", NULL, DC_U_NONE, DC_FT_F64, JR(b)},
	{"s", NULL, DC_U_NONE, DC_FT_STR, JR(s)},
	{"hidden", NULL, DC_U_COUNT, DC_FT_U64, JR(a), .table_only = 1},
	{"flag", NULL, DC_U_NONE, DC_FT_BOOL, JR(flag)},
	{"gone", NULL, DC_U_NONE, DC_FT_F64, JR(gone), .is_null = always},
	{"t", NULL, DC_U_NONE, DC_FT_TEXT, JR(t)},
};

/* The JSON sink's row plan: each key piece once per table, the values in
 * place. Numbers at their edges (2^64 - 1, 0, a double of 17 digits, one
 * in the exponent form, a subnormal: printf's path), a string to escape,
 * a null, a column the table alone shows (left out). */
START_TEST(test_json_row_plan)
{
	static const struct dc_fields fs = DC_FIELDS(jrow_fields);
	struct dc_json_row_plan plan;
	struct jrow r1 = {UINT64_MAX, 0.1 + 0.2, "q\"x", 1, 1.0, "hi"};
	struct jrow r2 = {0, -1e300, NULL, 0, 0.0, ""};
	struct jrow r3 = {10, 5e-324, "", 0, 0.0, "x"};
	struct dc_buf b;

	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), 0);
	ck_assert_uint_eq(plan.n, 6);
	dc_buf_init(&b);
	dc_json_row_write(&b, &plan, &r1);
	ck_assert_str_eq(b.data, "{\"a\": 18446744073709551615, \"bb\": 0.30000000000000004, \"s\": \"q\\\"x\", "
				 "\"flag\": true, \"gone\": null, \"t\": \"hi\"}");
	b.len = 0;
	dc_json_row_write(&b, &plan, &r2);
	ck_assert_str_eq(b.data, "{\"a\": 0, \"bb\": -1e+300, \"s\": \"\", \"flag\": false, \"gone\": null, \"t\": \"\"}");
	b.len = 0;
	dc_json_row_write(&b, &plan, &r3);
	ck_assert_str_eq(b.data, "{\"a\": 10, \"bb\": 4.94065645841247e-324, \"s\": \"\", \"flag\": false, "
				 "\"gone\": null, \"t\": \"x\"}");
	dc_buf_release(&b);
}
END_TEST

/* A column's number memo (report_int.h): the text of each double as
 * dc_fmt_double writes it, a repeat kept (its bits unchanged), a shorter
 * text after a longer one cut at its own length, and 0 after -0 (other
 * bits, the same text); counts as dc_fmt_u64 writes them, 2^64 - 1 the
 * longest. Then the JSON rows through it and the text memo:
 * a row written again after another reads as it did the first time, and
 * a string that points into the row buffer itself is read afresh when
 * the buffer holds the next row (the same pointer, another text). */
START_TEST(test_row_memos)
{
	static const struct dc_fields fs = DC_FIELDS(jrow_fields);
	struct dc_json_row_plan plan;
	struct jrow r1 = {5896812544, 0.1 + 0.2, "a", 1, 0.0, "x"};
	struct jrow r2 = {2, 2.5, "b", 0, 0.0, "y"};
	const char *w1 = "{\"a\": 5896812544, \"bb\": 0.30000000000000004, \"s\": \"a\", \"flag\": true, "
			 "\"gone\": null, \"t\": \"x\"}";
	const char *w2 = "{\"a\": 2, \"bb\": 2.5, \"s\": \"b\", \"flag\": false, \"gone\": null, \"t\": \"y\"}";
	struct dc_num_memo m;
	struct dc_buf b;

	dc_num_memo_init(&m);
	ck_assert_uint_eq(m.len, 0);
	dc_num_memo_f64(&m, 0.1 + 0.2);
	ck_assert_str_eq(m.text, "0.30000000000000004");
	ck_assert_uint_eq(m.len, 19);
	dc_num_memo_f64(&m, 0.1 + 0.2);
	ck_assert_str_eq(m.text, "0.30000000000000004");
	ck_assert_uint_eq(m.len, 19);
	dc_num_memo_f64(&m, 1e300);
	ck_assert_str_eq(m.text, "1e+300");
	ck_assert_uint_eq(m.len, 6);
	dc_num_memo_f64(&m, -0.0);
	ck_assert_str_eq(m.text, "0");
	dc_num_memo_f64(&m, 0.0);
	ck_assert_str_eq(m.text, "0");
	ck_assert_uint_eq(m.len, 1);
	dc_num_memo_init(&m);
	dc_num_memo_u64(&m, UINT64_MAX);
	ck_assert_str_eq(m.text, "18446744073709551615");
	ck_assert_uint_eq(m.len, 20);
	dc_num_memo_u64(&m, UINT64_MAX);
	ck_assert_str_eq(m.text, "18446744073709551615");
	dc_num_memo_u64(&m, 1000);
	ck_assert_str_eq(m.text, "1000");
	ck_assert_uint_eq(m.len, 4);

	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), 0);
	dc_buf_init(&b);
	dc_json_row_write(&b, &plan, &r1);
	ck_assert_str_eq(b.data, w1);
	b.len = 0;
	dc_json_row_write(&b, &plan, &r1);
	ck_assert_str_eq(b.data, w1);
	b.len = 0;
	dc_json_row_write(&b, &plan, &r2);
	ck_assert_str_eq(b.data, w2);
	b.len = 0;
	dc_json_row_write(&b, &plan, &r1);
	ck_assert_str_eq(b.data, w1);

	/* one row buffer, as the sink's, its string pointing into it */
	r2.s = r2.t;
	b.len = 0;
	dc_json_row_write(&b, &plan, &r2);
	ck_assert_str_eq(b.data, "{\"a\": 2, \"bb\": 2.5, \"s\": \"y\", \"flag\": false, \"gone\": null, \"t\": \"y\"}");
	memcpy(r2.t, "zzz", 4);
	b.len = 0;
	dc_json_row_write(&b, &plan, &r2);
	ck_assert_str_eq(b.data,
			 "{\"a\": 2, \"bb\": 2.5, \"s\": \"zzz\", \"flag\": false, \"gone\": null, \"t\": \"zzz\"}");
	dc_buf_release(&b);
}
END_TEST

/* Its bounds: a piece of DC_JSON_PIECE_MAX (48) bytes is the longest
 * planned (a first key of 43 bytes: "{\"" + 43 + "\": "; a later one of 42:
 * ", \"" + 42 + "\": "); DC_MAX_COLUMNS columns, and none, as the table
 * sink's rows allow. A refused plan has no columns. */
START_TEST(test_json_row_plan_bounds)
{
	static const char k43[] = "abcdefghijabcdefghijabcdefghijabcdefghijabc";
	struct dc_field many[DC_MAX_COLUMNS + 1];
	struct dc_fields fs = {many, 0};
	struct dc_json_row_plan plan;
	struct jrow r = {7, 0.5, "", 0, 0.0, ""};
	struct dc_buf b;

	ck_assert_uint_eq(strlen(k43), 43);
	memset(many, 0, sizeof(many));
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), -1); /* no column */
	many[0] = (struct dc_field){k43, NULL, DC_U_COUNT, DC_FT_U64, JR(a)};
	many[1] = (struct dc_field){k43 + 1, NULL, DC_U_NONE, DC_FT_F64, JR(b)};
	fs.n = 2;
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), 0);
	dc_buf_init(&b);
	dc_json_row_write(&b, &plan, &r);
	ck_assert_str_eq(b.data, "{\"abcdefghijabcdefghijabcdefghijabcdefghijabc\": 7, "
				 "\"bcdefghijabcdefghijabcdefghijabcdefghijabc\": 0.5}");
	dc_buf_release(&b);
	many[1].key = k43; /* 49 bytes after the first column */
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), -1);
	ck_assert_uint_eq(plan.n, 0);
	for (size_t i = 0; i < DC_MAX_COLUMNS + 1; i++)
		many[i] = (struct dc_field){"k", NULL, DC_U_COUNT, DC_FT_U64, JR(a)};
	fs.n = DC_MAX_COLUMNS;
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), 0);
	ck_assert_uint_eq(plan.n, DC_MAX_COLUMNS);
	fs.n = DC_MAX_COLUMNS + 1;
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), -1);
	many[DC_MAX_COLUMNS].table_only = 1; /* not JSON's: 24 shown */
	ck_assert_int_eq(dc_json_row_plan_init(&plan, &fs), 0);
}
END_TEST

/* dc_csv_plain: 1 for a field CSV writes as it is. Every special byte at
 * every position of texts of 1 to 40 bytes (the 8-byte steps, the
 * overlapping last word, the short texts' byte loop), and the bytes
 * next to them in the table (0x21, 0x24, 0x2b, 0x2d, 0x7e), which are plain. */
START_TEST(test_csv_plain)
{
	static const unsigned char special[] = {',', '"', '#', 0x01, 0x1f, '\n', '\r', 0x7f, 0x80, 0xc3, 0xff};
	static const unsigned char plain[] = {'!', '$', '+', '-', '~', ' ', 'a', '0'};
	char t[48];

	ck_assert_int_eq(dc_csv_plain("", 0), 1);
	ck_assert_int_eq(dc_csv_plain("a b", 3), 1);
	ck_assert_int_eq(dc_csv_plain(" ab", 3), 0); /* edge spaces are quoted */
	ck_assert_int_eq(dc_csv_plain("abcdefghij ", 11), 0);
	ck_assert_int_eq(dc_csv_plain(" ", 1), 0);
	for (size_t n = 1; n <= 40; n++) {
		memset(t, 'x', n);
		t[n] = '\0';
		ck_assert_int_eq(dc_csv_plain(t, n), 1);
		for (size_t i = 0; i < n; i++) {
			for (size_t k = 0; k < sizeof(special); k++) {
				t[i] = (char)special[k];
				ck_assert_msg(dc_csv_plain(t, n) == 0, "byte 0x%02x at %zu of %zu", special[k], i, n);
			}
			for (size_t k = 0; k < sizeof(plain); k++) {
				t[i] = (char)plain[k];
				ck_assert_msg(dc_csv_plain(t, n) == !(plain[k] == ' ' && (i == 0 || i == n - 1)),
					      "byte 0x%02x at %zu of %zu", plain[k], i, n);
			}
			t[i] = 'x';
		}
	}
}
END_TEST

struct drow {
	uint64_t a;
	double b;
	struct {
		double c;
		uint64_t d;
	} o;
	double e;
	double many[40];
};

#define DR(m) offsetof(struct drow, m)
static const struct dc_field drow_inner[] = {
	{"c", NULL, DC_U_NONE, DC_FT_F64, offsetof(struct drow, o.c) - offsetof(struct drow, o)},
	{"d", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct drow, o.d) - offsetof(struct drow, o)},
};
static const struct dc_fields drow_inner_fs = DC_FIELDS(drow_inner);
static const struct dc_field drow_fields[] = {
	{"a", NULL, DC_U_COUNT, DC_FT_U64, DR(a)},
	{"b", NULL, DC_U_NONE, DC_FT_F64, DR(b), .is_null = always}, /* checked all the same */
	{"o", NULL, DC_U_NONE, DC_FT_OBJECT, DR(o), .sub = &drow_inner_fs},
	{"e", NULL, DC_U_NONE, DC_FT_F64, DR(e)},
};

/* A table's doubles: b, o.c (at o's offset plus c's) and e, in field
 * order; a row is finite until one of them is not. More than
 * DC_ROW_DOUBLES_MAX (32) doubles: the field table is walked instead. */
START_TEST(test_row_doubles)
{
	static const struct dc_fields fs = DC_FIELDS(drow_fields);
	struct dc_field wide[34];
	struct dc_fields wide_fs = {wide, 0};
	struct dc_row_doubles d;
	struct drow r;

	memset(&r, 0, sizeof(r));
	dc_row_doubles_init(&d, &fs);
	ck_assert_int_eq(d.walk, 0);
	ck_assert_uint_eq(d.n, 3);
	ck_assert_uint_eq(d.off[0], DR(b));
	ck_assert_uint_eq(d.off[1], DR(o.c));
	ck_assert_uint_eq(d.off[2], DR(e));
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 1);
	r.a = UINT64_MAX; /* not a double */
	r.many[0] = NAN;  /* not in the table */
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 1);
	r.o.c = INFINITY;
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 0);
	r.o.c = 1e308;
	r.e = -INFINITY;
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 0);
	r.e = 0;
	r.b = NAN;
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 0);
	r.b = 0;

	for (size_t i = 0; i < 34; i++)
		wide[i] = (struct dc_field){"m", NULL, DC_U_NONE, DC_FT_F64, DR(many) + i * sizeof(double)};
	wide_fs.n = 32;
	dc_row_doubles_init(&d, &wide_fs);
	ck_assert_int_eq(d.walk, 0);
	ck_assert_uint_eq(d.n, 32);
	wide_fs.n = 34;
	dc_row_doubles_init(&d, &wide_fs);
	ck_assert_int_eq(d.walk, 1);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 1);
	r.many[33] = NAN;
	ck_assert_int_eq(dc_row_doubles_finite(&d, &r), 0);
}
END_TEST

/* ---- the table sink's cell cache, through a report of one table ---- */

#define TROWS 70 /* past the 64 rows whose cells the sink keeps */
#define TTEXT 250

struct tview {
	char text[TROWS][TTEXT + 1];
};
struct trow {
	uint64_t i;
	double time_s;
	char text[TTEXT + 1];
};

static uint64_t trow_count(const void *base)
{
	(void)base;
	return TROWS;
}

static void trow_row(const void *base, uint64_t i, void *out)
{
	struct trow *r = out;
	r->i = i * 1000; /* grouped: 69,000 at most */
	r->time_s = (double)i * 1e-3 + 2.5e-7; /* ms, three decimals */
	memcpy(r->text, ((const struct tview *)base)->text[i], TTEXT + 1);
}

static int trow_null(const void *row)
{
	return ((const struct trow *)row)->i == 3000; /* row 3's time is n/a */
}

static const struct dc_field trow_fields[] = {
	/* a label wider than the 32 spaces a cell's padding is copied from */
	{"i", "the row's index, a label wider than 32 bytes", DC_U_COUNT, DC_FT_U64, offsetof(struct trow, i)},
	{"time_s", "time", DC_U_SECONDS, DC_FT_F64, offsetof(struct trow, time_s), .is_null = trow_null},
	{"text", "text", DC_U_NONE, DC_FT_TEXT, offsetof(struct trow, text)},
};
static const struct dc_fields trow_fs = DC_FIELDS(trow_fields);
static const struct dc_rows trow_rows = {trow_count, trow_row, sizeof(struct trow), "rows", 1, 0, 0};
static const struct dc_field tsec_fields[] = {
	{"rows", "Rows", DC_U_NONE, DC_FT_ROWS, 0, .sub = &trow_fs, .rows = &trow_rows},
};
static const struct dc_fields tsec_fs = DC_FIELDS(tsec_fields);
static const struct dc_field troot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &tsec_fs},
};

/* Every row of a 70-row table (--all), each with a 250-byte text: the
 * sink formats the first rows' cells in place in its 16 KiB cache, the
 * later cached ones through its scratch buffer once less than a cell's
 * 1 KiB is left, and rows 64 on (and those the cache could not hold) are
 * made again when printed; a row kept whole is written in one piece
 * (put_cached_row), its first column padded past the 32 spaces copied in
 * one step. The expected lines are written here with
 * printf: the index grouped by thousands, the time in ms (the largest,
 * 69.0003 ms, is below 1 s) with three decimals, "n/a" for row 3,
 * right-aligned in columns as wide as their widest cell. */
START_TEST(test_table_cache_past_its_rows)
{
	static struct tview view;
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	struct dc_buf b, want;

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < TROWS; i++) {
		memset(view.text[i], 'a' + (int)(i % 26), TTEXT);
		view.text[i][TTEXT] = '\0';
	}
	r->root.f = troot_fields;
	r->root.n = 1;
	r->views = (unsigned char *)&view;
	r->nsec = 1;
	dc_buf_init(&b);
	dc_buf_init(&want);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	/* a section's title after a blank line (a report's header comes first) */
	dc_buf_printf(&want, "\nSec\n===\n  Rows\n    %s  %6s  %*s\n    %44s  %6s  %*s\n",
		      "the row's index, a label wider than 32 bytes", "time", TTEXT, "text", "", "[ms]", TTEXT, "");
	for (int i = 0; i < TROWS; i++) {
		char idx[16], t[16];
		snprintf(idx, sizeof(idx), i ? "%d,000" : "0", i);
		if (i == 3)
			snprintf(t, sizeof(t), "n/a");
		else
			snprintf(t, sizeof(t), "%.3f", (double)i + 2.5e-4);
		dc_buf_printf(&want, "    %44s  %6s  %s\n", idx, t, view.text[i]);
	}
	ck_assert_uint_eq(b.len, want.len);
	ck_assert_str_eq(b.data, want.data);
	dc_buf_release(&b);
	dc_buf_release(&want);
	free(r);
}
END_TEST

/* ---- the table's column kinds, each formatted by the measuring pass ---- */

struct krow {
	uint64_t n, b;
	const char *s;
	char t[24];
	uint64_t i;
};
static const char *const kview_s[3] = {"alpha", NULL, "seventeen chars!!"};

static uint64_t krow_count(const void *base)
{
	(void)base;
	return 3;
}

static void krow_row(const void *base, uint64_t i, void *out)
{
	static const uint64_t n[3] = {0, 1234567, 999}, b[3] = {1073741824, 0, 536870912};
	static const char *const t[3] = {"plain", "tab\there", ""};
	struct krow *r = out;
	(void)base;
	r->n = n[i];
	r->b = b[i];
	r->s = kview_s[i];
	snprintf(r->t, sizeof(r->t), "%s", t[i]);
	r->i = i;
}

static int krow_null(const void *row)
{
	return ((const struct krow *)row)->i == 1;
}

static void krow_z(const void *row, char *buf, size_t len)
{
	(void)row;
	snprintf(buf, len, "zz");
}

static void krow_fn(const void *row, char *buf, size_t len)
{
	static const char *const fn[3] = {"f0", "exactly sixteen!", "\x1b[31m"};
	snprintf(buf, len, "%s", fn[((const struct krow *)row)->i]);
}

static const struct dc_field krow_fields[] = {
	{"n", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct krow, n)},
	{"b", NULL, DC_U_BYTES, DC_FT_U64, offsetof(struct krow, b)},
	{"s", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct krow, s)},
	{"z", NULL, DC_U_NONE, DC_FT_FN, 0, .text = krow_z, .is_null = krow_null},
	{"fn", NULL, DC_U_NONE, DC_FT_FN, 0, .text = krow_fn},
	{"t", NULL, DC_U_NONE, DC_FT_TEXT, offsetof(struct krow, t)},
};
static const struct dc_fields krow_fs = DC_FIELDS(krow_fields);
static const struct dc_rows krow_rows = {krow_count, krow_row, sizeof(struct krow), "rows", 1, 0, 0};
static const struct dc_field ksec_fields[] = {
	{"kinds", "Kinds", DC_U_NONE, DC_FT_ROWS, 0, .sub = &krow_fs, .rows = &krow_rows},
};
static const struct dc_fields ksec_fs = DC_FIELDS(ksec_fields);
static const struct dc_field kroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &ksec_fs},
};

/* A count (grouped), a GiB column (three decimals, its unit in the units
 * row), a string (a NULL one empty, one of 17 bytes: past the 16 a short
 * cell is copied as), a text function that can be null ("n/a"), one
 * whose texts are 2 and exactly 16 bytes and one that holds ESC (escaped,
 * as \x1b), and a text in the row holding a tab (escaped as \t). Each
 * column is as wide as its widest cell, label or [unit], cells
 * right-aligned after two spaces. */
START_TEST(test_table_column_kinds)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	struct dc_buf b;
	static unsigned char view[8];
	const char *want = "\nSec\n===\n  Kinds\n"
			   "            n      b                  s    z                fn          t\n"
			   "               [GiB]                                                     \n"
			   "            0  1.000              alpha   zz                f0      plain\n"
			   "    1,234,567  0.000                     n/a  exactly sixteen!  tab\\there\n"
			   "          999  0.500  seventeen chars!!   zz          \\x1b[31m           \n";

	ck_assert_ptr_nonnull(r);
	r->root.f = kroot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* A table's cells equal to the ones above them (sink_table.c,
 * cache_same): a count, bytes in GiB, a string, a scaled time and a
 * ratio repeated from row to row, each repeat the text of the cell
 * above; a change back and forth, a NULL string repeated (empty). The
 * lines worked by hand: widths 9, 5, 5, 7 ("500.000" ms: the largest
 * time is 0.5 s) and 6, two spaces between, right-aligned. */
struct rrow {
	uint64_t n, b;
	const char *s;
	double t, r;
};

static uint64_t rrow_count(const void *base)
{
	(void)base;
	return 4;
}

static void rrow_row(const void *base, uint64_t i, void *out)
{
	static const struct rrow rows[4] = {{1234567, 1073741824, "alpha", 0.5, 0.25},
					    {1234567, 1073741824, "alpha", 0.5, 0.25},
					    {5, 1073741824, NULL, 0.25, 0.25},
					    {5, 0, NULL, 0.25, 1}};
	(void)base;
	*(struct rrow *)out = rows[i];
}

static const struct dc_field rrow_fields[] = {
	{"n", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct rrow, n)},
	{"b", NULL, DC_U_BYTES, DC_FT_U64, offsetof(struct rrow, b)},
	{"s", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct rrow, s)},
	{"t", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct rrow, t)},
	{"r", NULL, DC_U_RATIO, DC_FT_F64, offsetof(struct rrow, r)},
};
static const struct dc_fields rrow_fs = DC_FIELDS(rrow_fields);
static const struct dc_rows rrow_rows = {rrow_count, rrow_row, sizeof(struct rrow), "rows", 1, 0, 0};
static const struct dc_field rsec_fields[] = {
	{"repeats", "Repeats", DC_U_NONE, DC_FT_ROWS, 0, .sub = &rrow_fs, .rows = &rrow_rows},
};
static const struct dc_fields rsec_fs = DC_FIELDS(rsec_fields);
static const struct dc_field rroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &rsec_fs},
};

START_TEST(test_table_repeated_cells)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	struct dc_buf b;
	static unsigned char view[8];
	const char *want = "\nSec\n===\n  Repeats\n"
			   "            n      b      s        t       r\n"
			   "               [GiB]            [ms]        \n"
			   "    1,234,567  1.000  alpha  500.000  0.2500\n"
			   "    1,234,567  1.000  alpha  500.000  0.2500\n"
			   "            5  1.000         250.000  0.2500\n"
			   "            5  0.000         250.000  1.0000\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = rroot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* ---- the table's inline lists (process groups) ---- */

static uint64_t lists_n, lists_len = 3; /* how many lists, of how many items */

static uint64_t lists_count(const void *base)
{
	(void)base;
	return lists_n;
}

static uint64_t lists_len_of(const void *base, uint64_t i)
{
	(void)base;
	(void)i;
	return lists_len;
}

static uint64_t lists_item(const void *base, uint64_t i, uint64_t j)
{
	(void)base;
	return lists_len * i + j;
}

static const struct dc_lists lists_def = {lists_count, lists_len_of, lists_item, "groups", "ranks"};
static const struct dc_field lsec_fields[] = {
	{"l", "L", DC_U_NONE, DC_FT_LISTS, 0, .lists = &lists_def},
};
static const struct dc_fields lsec_fs = DC_FIELDS(lsec_fields);
static const struct dc_field lroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &lsec_fs},
};

/* The table of `lists_n` lists rendered with the options {max_rows, width} */
static char *render_lists(uint64_t max_rows, size_t width)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {max_rows, width};
	static unsigned char view[8];
	struct dc_buf b;
	ck_assert_ptr_nonnull(r);
	r->root.f = lroot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	free(r);
	return b.data;
}

/* Lists on their line ("  L  [" then the lists from column 6), as they
 * are when they fit: two lists of three with no width; the same wrapped
 * at 20 columns (the second list, 10 bytes, would end at column 26, so it
 * starts a line of its own under the first); four of six with a marker
 * for the two left out (max_rows 4); and 300 lists of one, a text of
 * 1,691 bytes with its brackets, longer than the table gathers before
 * it hands the text on to its wrap. */
START_TEST(test_table_lists)
{
	char *got, want[2048];
	size_t o;

	lists_n = 2;
	lists_len = 3;
	got = render_lists(0, 0);
	ck_assert_str_eq(got, "\nSec\n===\n  L  [[0, 1, 2] [3, 4, 5]]\n");
	free(got);
	got = render_lists(0, 20);
	ck_assert_str_eq(got, "\nSec\n===\n  L  [[0, 1, 2]\n      [3, 4, 5]]\n");
	free(got);
	lists_n = 6;
	got = render_lists(4, 0);
	ck_assert_str_eq(got, "\nSec\n===\n  L  [[0, 1, 2] [3, 4, 5] ... (2 more groups) [12, 13, 14] [15, 16, 17]]\n");
	free(got);

	/* "[0]" to "[9]" 3 bytes each, "[10]" to "[99]" 4, "[100]" to
	 * "[299]" 5, 299 spaces between: 30 + 360 + 1000 + 299 = 1689,
	 * and the brackets around them */
	lists_n = 300;
	lists_len = 1;
	o = (size_t)snprintf(want, sizeof(want), "\nSec\n===\n  L  [");
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, i ? " [%d]" : "[%d]", i);
	snprintf(want + o, sizeof(want) - o, "]\n");
	ck_assert_uint_eq(strlen(want) - strlen("\nSec\n===\n  L  [") - 2, 1689);
	got = render_lists(0, 0);
	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

/* ---- CSV's numbers in a row, each written in one piece ---- */

struct crow {
	double v, w;
	uint64_t n, z, i;
	const char *s;
	char t[8];
};

static uint64_t crow_count(const void *base)
{
	(void)base;
	return 4;
}

static void crow_row(const void *base, uint64_t i, void *out)
{
	static const double v[4] = {0.7, -2.5, 0, 0.7}, w[4] = {1.5e-5, 1e20, 123456789.5, 123456789.5};
	static const uint64_t n[4] = {12, UINT64_MAX, 0, 12}, z[4] = {5, 6, 7, 8};
	static const char *const str[4] = {"a, b", NULL, "plain", "plain"}, *const text[4] = {"x", "#y", "", "z"};
	struct crow *r = out;
	(void)base;
	r->v = v[i];
	r->w = w[i];
	r->n = n[i];
	r->z = z[i];
	r->i = i;
	r->s = str[i];
	snprintf(r->t, sizeof(r->t), "%s", text[i]);
}

static int crow_null(const void *row)
{
	return ((const struct crow *)row)->i == 1;
}

static const struct dc_field crow_fields[] = {
	{"v", NULL, DC_U_RATIO, DC_FT_F64, offsetof(struct crow, v)},
	{"n", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct crow, n)},
	{"shown", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct crow, n), .table_only = 1},
	{"w", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct crow, w)},
	{"z", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct crow, z), .is_null = crow_null},
	{"s", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct crow, s)},
	{"t", NULL, DC_U_NONE, DC_FT_TEXT, offsetof(struct crow, t)},
};
static const struct dc_fields crow_fs = DC_FIELDS(crow_fields);
static const struct dc_rows crow_rows = {crow_count, crow_row, sizeof(struct crow), "rows", 1, 0, 0};
struct cview {
	uint64_t a;
	double t;
	struct {
		uint64_t b;
		double x;
		struct {
			double y;
		} in;
	} o;
	int yes;
};

static int cview_null(const void *base)
{
	(void)base;
	return 1;
}

static const struct dc_field cin_fields[] = {
	{"y", NULL, DC_U_BYTES_PER_S, DC_FT_F64, offsetof(struct cview, o.in.y) - offsetof(struct cview, o.in)},
};
static const struct dc_fields cin_fs = DC_FIELDS(cin_fields);
static const struct dc_field cobj_fields[] = {
	{"b", NULL, DC_U_BYTES, DC_FT_U64, offsetof(struct cview, o.b) - offsetof(struct cview, o)},
	{"x", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct cview, o.x) - offsetof(struct cview, o),
	 .is_null = cview_null},
	{"in", NULL, DC_U_NONE, DC_FT_OBJECT, offsetof(struct cview, o.in) - offsetof(struct cview, o), .sub = &cin_fs},
};
static const struct dc_fields cobj_fs = DC_FIELDS(cobj_fields);
static const struct dc_field csec_fields[] = {
	{"a", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct cview, a)},
	{"t", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct cview, t)},
	{"o", NULL, DC_U_NONE, DC_FT_OBJECT, offsetof(struct cview, o), .sub = &cobj_fs},
	{"yes", NULL, DC_U_NONE, DC_FT_BOOL, offsetof(struct cview, yes)},
	{"nums", "Nums", DC_U_NONE, DC_FT_ROWS, 0, .sub = &crow_fs, .rows = &crow_rows},
};
static const struct dc_fields csec_fs = DC_FIELDS(csec_fields);
static const struct dc_field croot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &csec_fs},
};

/* The section's scalars, each "PATH,VALUE,UNIT": a count (no unit), a
 * double in seconds, an object's bytes ("o.b"), its nullable double (an
 * empty value), an object in that object ("o.in.y", in B/s), and a bool
 * after them. Then the table: a double leading the row (no comma before
 * it), a count, a column the table alone shows (left out), doubles in the
 * fixed and exponent forms, 2^64 - 1, a nullable count (empty when
 * null), then a string (quoted for its comma, NULL empty) and a text in
 * the row (quoted for its '#', "" empty: the line ends in its comma). The
 * last row repeats the double above it in w (its memo's text) and v's
 * of two rows up. */
START_TEST(test_csv_row_numbers)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	struct dc_buf b;
	static struct cview view = {42, 0.25, {1073741824, 3, {5e10}}, 1};
	const char *want = "# section: sec\r\nkey,value,unit\r\n"
			   "a,42,\r\nt,0.25,s\r\no.b,1073741824,B\r\no.x,,s\r\no.in.y,50000000000,B/s\r\nyes,true,\r\n"
			   "# table: sec.nums\r\nv,n,w,z,s,t\r\n"
			   "0.7,12,1.5e-05,5,\"a, b\",x\r\n"
			   "-2.5,18446744073709551615,1e+20,,,\"#y\"\r\n"
			   "0,0,123456789.5,7,plain,\r\n"
			   "0.7,12,123456789.5,8,plain,z\r\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = croot_fields;
	r->root.n = 1;
	r->views = (unsigned char *)&view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_csv(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* ---- the table's fixed-point numbers against printf ---- */

/* "%.*f" of x as the table shows it: a text that reads as zero has no
 * sign ("-0.000" is "0.000") */
static void fixed_reference(char *buf, size_t len, double x, int prec)
{
	size_t n = (size_t)snprintf(buf, len, "%.*f", prec, x);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == n - 1)
		memmove(buf, buf + 1, n);
}

/* A per-second rate's text as the table shows it: seven whole digits or
 * more get commas between the thousands ("1,004,468.2") */
static void grouped_reference(char *buf, size_t len)
{
	char tmp[400];
	size_t start = buf[0] == '-', digits = strspn(buf + start, "0123456789"), o = 0;
	if (digits < 4)
		return;
	for (size_t i = 0; buf[i] && o + 2 < sizeof(tmp); i++) {
		tmp[o++] = buf[i];
		if (i >= start && i < start + digits - 1 && (start + digits - 1 - i) % 3 == 0)
			tmp[o++] = ',';
	}
	tmp[o] = '\0';
	snprintf(buf, len, "%s", tmp);
}

/* Each unit the table shows at a fixed precision (ratios 4 decimals,
 * GB/s 3, 1/s 1 with its thousands grouped from four whole digits, us 2, bytes/s
 * as GB/s 3): hand-worked values (a sign
 * dropped from a zero, a leading zero, a value past the integer path,
 * a tie-near value, nan), then seeded values of every magnitude from
 * 1e-7 to 1e12 and either sign against printf. */
START_TEST(test_table_fixed_matches_printf)
{
	static const struct {
		enum dc_unit unit;
		int prec;
		double mult, div; /* shown as v * mult / div */
	} units[] = {
		{DC_U_RATIO, 4, 1, 1},       {DC_U_GBPS, 3, 1, 1},           {DC_U_PER_S, 1, 1, 1},
		{DC_U_SECONDS_US, 2, 1e6, 1}, {DC_U_BYTES_PER_S, 3, 1, 1e9},
	};
	static const struct {
		enum dc_unit unit;
		double v;
		const char *text;
	} hand[] = {
		{DC_U_RATIO, -0.00004, "0.0000"},     {DC_U_RATIO, -1.25, "-1.2500"},     {DC_U_RATIO, 0.05, "0.0500"},
		{DC_U_GBPS, 0.5, "0.500"},            {DC_U_GBPS, 1e9, "1000000000.000"}, {DC_U_GBPS, 300, "300.000"},
		{DC_U_PER_S, 28938.54, "28,938.5"},    {DC_U_PER_S, 0.25, "0.2"},          {DC_U_SECONDS_US, 2.5e-7, "0.25"},
		{DC_U_SECONDS_US, 1.5, "1500000.00"}, {DC_U_BYTES_PER_S, 5e10, "50.000"}, {DC_U_GBPS, NAN, "nan"},
		{DC_U_PER_S, 1004468.2, "1,004,468.2"}, {DC_U_PER_S, 999999.94, "999,999.9"},
		{DC_U_PER_S, 999999.96, "1,000,000.0"}, {DC_U_PER_S, -3891000000, "-3,891,000,000.0"},
		{DC_U_PER_S, 123456.0, "123,456.0"}, {DC_U_PER_S, 999.94, "999.9"}, {DC_U_PER_S, 999.96, "1,000.0"},
		{DC_U_PER_S, -1234.5, "-1,234.5"},
	};
	struct dc_rng rng;
	unsigned long bad = 0;
	double v;
	struct dc_field f = {"v", NULL, DC_U_NONE, DC_FT_F64, 0};
	const char *unit;
	char buf[DC_CELL_MAX], want[400];

	for (size_t i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
		f.unit = hand[i].unit;
		v = hand[i].v;
		ck_assert_str_eq(dc_table_cell(buf, sizeof(buf), &f, &v, 0, 0, &unit), hand[i].text);
	}
	dc_rng_seed(&rng, 4242);
	for (int it = 0; it < 200000; it++) {
		size_t u = (size_t)it % (sizeof(units) / sizeof(units[0]));
		double mag = pow(10.0, -7.0 + 19.0 * (double)(dc_rng_next(&rng) % 1000000) / 1e6);
		v = (dc_rng_next(&rng) & 1 ? -mag : mag) / units[u].mult * units[u].div;
		f.unit = units[u].unit;
		fixed_reference(want, sizeof(want), v * units[u].mult / units[u].div, units[u].prec);
		if (units[u].unit == DC_U_PER_S)
			grouped_reference(want, sizeof(want));
		if (strcmp(dc_table_cell(buf, sizeof(buf), &f, &v, 0, 0, &unit), want) != 0 && bad++ < 5)
			fprintf(stderr, "fixed %.17g: '%s', want '%s'\n", v, buf, want);
	}
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- the table's key-value block ---- */

struct sview {
	uint64_t n, bytes;
	double ratio, t_s, gbps;
	const char *s;
};

static int sview_null(const void *base)
{
	(void)base;
	return 1;
}

static const struct dc_field sblock_fields[] = {
	{"n", "a", DC_U_COUNT, DC_FT_U64, offsetof(struct sview, n)},
	{"bytes", "five5", DC_U_BYTES, DC_FT_U64, offsetof(struct sview, bytes)},
	{"ratio", "twelve chars", DC_U_RATIO, DC_FT_F64, offsetof(struct sview, ratio)},
	{"t_s", "twenty characters ok", DC_U_SECONDS, DC_FT_F64, offsetof(struct sview, t_s)},
	{"s", "a label of forty characters, for copying", DC_U_NONE, DC_FT_STR, offsetof(struct sview, s)},
	{"gbps", "a label of seventy characters that is wider than the 64 copied spaces.", DC_U_GBPS, DC_FT_F64,
	 offsetof(struct sview, gbps), .is_null = sview_null},
};
static const struct dc_fields sblock_fs = DC_FIELDS(sblock_fields);
static const struct dc_field sroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &sblock_fs},
};

/* Labels of 1, 5, 12, 20, 40 and 70 bytes (each length class the line's
 * copies take, and a pad of 71 spaces, past the 64 copied in one move)
 * aligned to the widest after two spaces: a count, 1.5 GiB with its exact
 * bytes, a ratio's four decimals, 2.5 ms (its own scale, its unit after
 * it), a text, and a null figure (n/a, no unit). */
START_TEST(test_table_scalar_block)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	static struct sview view = {7, 1610612736, 0.25, 0.0025, 1, "text value"};
	struct dc_buf b, want;

	ck_assert_ptr_nonnull(r);
	r->root.f = sroot_fields;
	r->root.n = 1;
	r->views = (unsigned char *)&view;
	r->nsec = 1;
	dc_buf_init(&b);
	dc_buf_init(&want);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	dc_buf_printf(&want, "\nSec\n===\n");
	dc_buf_printf(&want, "  %-70s  %s\n", "a", "7");
	dc_buf_printf(&want, "  %-70s  %s\n", "five5", "1.500 GiB (1,610,612,736 B)");
	dc_buf_printf(&want, "  %-70s  %s\n", "twelve chars", "0.2500");
	dc_buf_printf(&want, "  %-70s  %s\n", "twenty characters ok", "2.500 ms");
	dc_buf_printf(&want, "  %-70s  %s\n", "a label of forty characters, for copying", "text value");
	dc_buf_printf(&want, "  %s  n/a\n", "a label of seventy characters that is wider than the 64 copied spaces.");
	ck_assert_str_eq(b.data, want.data);
	dc_buf_release(&b);
	dc_buf_release(&want);
	free(r);
}
END_TEST

struct xview {
	const char *a, *b, *c, *d, *e;
};

static const struct dc_field tblock_fields[] = {
	{"a", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, a)},
	{"bb", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, b)},
	{"c", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, c)},
	{"d", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, d)},
	{"e", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, a), .is_null = sview_null},
	{"f", NULL, DC_U_NONE, DC_FT_STR, offsetof(struct xview, e)},
};
static const struct dc_fields tblock_fs = DC_FIELDS(tblock_fields);
static const struct dc_field tbroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &tblock_fs},
};

/* Texts in a key-value block 30 wide, each at column 6: a short one (the
 * line in one piece), one with a space before it (kept, one space), one
 * with two spaces inside (made one), one that wraps under its column at
 * the last word that fits (22 bytes, then 23), a null one (n/a), and
 * one holding ESC (escaped, \x1b). */
START_TEST(test_table_scalar_texts)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 30};
	static struct xview view = {"yes", " lead", "two  spaces", "a long text that wraps past the width of forty",
				    "\x1b[0m"};
	struct dc_buf b;
	const char *want = "\nSec\n===\n"
			   "  a   yes\n"
			   "  bb   lead\n"
			   "  c   two spaces\n"
			   "  d   a long text that wraps\n"
			   "      past the width of forty\n"
			   "  e   n/a\n"
			   "  f   \\x1b[0m\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = tbroot_fields;
	r->root.n = 1;
	r->views = (unsigned char *)&view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

struct wrow {
	uint64_t k;
	char text[64];
};

static uint64_t wrow_count(const void *base)
{
	(void)base;
	return 2;
}

static void wrow_row(const void *base, uint64_t i, void *out)
{
	static const char *const text[2] = {"alpha beta gamma delta epsilon zeta eta theta iota kappa",
					    "a-very-long-word-that-cannot-break-anywhere-at-all"};
	struct wrow *r = out;
	(void)base;
	r->k = i;
	snprintf(r->text, sizeof(r->text), "%s", text[i]);
}

static const struct dc_field wrow_fields[] = {
	{"k", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct wrow, k)},
	{"text", "a heading of twenty-six ch", DC_U_NONE, DC_FT_TEXT, offsetof(struct wrow, text)},
};
static const struct dc_fields wrow_fs = DC_FIELDS(wrow_fields);
static const struct dc_rows wrow_rows = {wrow_count, wrow_row, sizeof(struct wrow), "rows", 1, 0, 0};
static const struct dc_field wsec_fields[] = {
	{"rows", "Rows", DC_U_NONE, DC_FT_ROWS, 0, .sub = &wrow_fs, .rows = &wrow_rows},
};
static const struct dc_fields wsec_fs = DC_FIELDS(wsec_fields);
static const struct dc_field wroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &wsec_fs},
};

/* A text column wider than a 30-column line wraps to what the key column
 * leaves (30 - 4 indent - 2 key, a column being at least 2 wide - 2 gap
 * = 22): its 26-byte heading, wider than that, pushes past it after the
 * gap; each text breaks at its last space within 22 bytes (a word longer
 * than that at 22), the rest under its column (column 8). */
START_TEST(test_table_wrapped_column)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 30};
	static unsigned char view[8];
	struct dc_buf b;
	const char *want = "\nSec\n===\n  Rows\n"
			   "     k  a heading of twenty-six ch\n"
			   "     0  alpha beta gamma delta\n"
			   "        epsilon zeta eta theta\n"
			   "        iota kappa\n"
			   "     1  a-very-long-word-that-\n"
			   "        cannot-break-anywhere-\n"
			   "        at-all\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = wroot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* ---- rows larger than 512 bytes: fewer kept whole than the cache's 64 ---- */

#define BROWS 40
#define BTEXT 505

struct brow {
	char text[1000];
	uint64_t n;
	double t_s;
	uint64_t i;
};
_Static_assert(sizeof(struct brow) == DC_ROW_MAX, "a row as large as a row may be");

static uint64_t brow_count(const void *base)
{
	(void)base;
	return BROWS;
}

/* row i: "r" and i, but for row 20 a control byte; 505 bytes of one
 * letter, but for row 5 ESC and 504 'f'; i * 1,000,001; (i + 1) ms */
static void brow_row(const void *base, uint64_t i, void *out)
{
	struct brow *r = out;
	(void)base;
	memset(r->text, 'a' + (int)(i % 26), BTEXT);
	if (i == 5)
		r->text[0] = '\x1b';
	r->n = i * 1000001;
	r->t_s = (double)(i + 1) * 1e-3;
	r->i = i;
}

static void brow_fn(const void *row, char *buf, size_t len)
{
	uint64_t i = ((const struct brow *)row)->i;
	if (i == 20)
		snprintf(buf, len, "\x01");
	else
		snprintf(buf, len, "r%llu", (unsigned long long)i);
}

static int brow_null(const void *row)
{
	return ((const struct brow *)row)->i == 9;
}

static const struct dc_field brow_fields[] = {
	{"fn", NULL, DC_U_NONE, DC_FT_FN, 0, .text = brow_fn},
	{"text", NULL, DC_U_NONE, DC_FT_TEXT, offsetof(struct brow, text)},
	{"n", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct brow, n)},
	{"time", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct brow, t_s), .is_null = brow_null},
};
static const struct dc_fields brow_fs = DC_FIELDS(brow_fields);
static const struct dc_rows brow_rows = {brow_count, brow_row, sizeof(struct brow), "rows", 1, 0, 0};
static const struct dc_field bsec_fields[] = {
	{"big", "Big rows", DC_U_NONE, DC_FT_ROWS, 0, .sub = &brow_fs, .rows = &brow_rows},
};
static const struct dc_fields bsec_fs = DC_FIELDS(bsec_fields);
static const struct dc_field broot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &bsec_fs},
};

/* 40 rows of DC_ROW_MAX (1 KiB) bytes: the sink keeps 32 of them whole
 * (its 32 KiB) and caches their cells a column at a time; rows 32 to 39
 * are made again when printed. Down each column the cells leave the
 * column's own loop for cell_text part way: the text function's at row 20
 * (a control byte, escaped as \x01), the texts' at row 5 (ESC, escaped as
 * \x1b: 508 bytes, the others 505, right-aligned under it), and the
 * counts' at row 13: the cells before them (87 bytes of the text
 * function's, 16,163 of texts) and 13 counts (1 + 9 x 9 + 3 x 10 bytes)
 * leave 22 of the cache's 16,384 bytes, less than the 32 a count is
 * written in place with, so rows 13 and 14's counts go through the
 * scratch buffer (kept: 10 bytes each), and from row 15 the counts find
 * no room; nor do the times, cached last (scaled, in pass 2), so every row
 * is made again when printed, as a row the cache holds part of is. Widths
 * by hand:
 * fn 4 ("\x01"), text 508, n 10 ("39,000,039"), time 6 ("40.000" ms, the
 * largest 0.040 s; row 9's n/a). */
START_TEST(test_table_rows_past_the_store)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	static unsigned char view[8];
	struct dc_buf b, want;

	ck_assert_ptr_nonnull(r);
	r->root.f = broot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	dc_buf_init(&want);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	dc_buf_printf(&want, "\nSec\n===\n  Big rows\n    %4s  %508s  %10s  %6s\n    %4s  %508s  %10s  %6s\n", "fn",
		      "text", "n", "time", "", "", "", "[ms]");
	for (int i = 0; i < BROWS; i++) {
		char fn[8], text[BTEXT + 8], n[16], t[16];
		if (i == 20)
			snprintf(fn, sizeof(fn), "\\x01");
		else
			snprintf(fn, sizeof(fn), "r%d", i);
		/* row 5: the four bytes of the escape, then 504 'f' */
		memcpy(text, "\\x1b", i == 5 ? 4 : 0);
		memset(text + (i == 5 ? 4 : 0), 'a' + i % 26, i == 5 ? BTEXT - 1 : BTEXT);
		text[i == 5 ? BTEXT + 3 : BTEXT] = '\0';
		if (i)
			snprintf(n, sizeof(n), "%d,000,%03d", i, i);
		else
			snprintf(n, sizeof(n), "0");
		snprintf(t, sizeof(t), i == 9 ? "n/a" : "%d.000", i + 1);
		dc_buf_printf(&want, "    %4s  %508s  %10s  %6s\n", fn, text, n, t);
	}
	ck_assert_uint_eq(b.len, want.len);
	ck_assert_str_eq(b.data, want.data);
	dc_buf_release(&b);
	dc_buf_release(&want);
	free(r);
}
END_TEST

/* ---- each unit's heading in the units row ---- */

struct urow {
	double g, t, p, e, bw, rate, lat, dt;
	uint64_t raw;
};

static uint64_t urow_count(const void *base)
{
	(void)base;
	return 1;
}

static void urow_row(const void *base, uint64_t i, void *out)
{
	struct urow *r = out;
	(void)base;
	(void)i;
	*r = (struct urow){5e9, 2.5e12, 1e15, 5e21, 12.5, 28938.54, 2.5e-5, 2e-7, 4096};
}

static const struct dc_field urow_fields[] = {
	{"g", NULL, DC_U_FLOPS, DC_FT_F64, offsetof(struct urow, g)},
	{"t", NULL, DC_U_FLOPS, DC_FT_F64, offsetof(struct urow, t)},
	{"p", NULL, DC_U_FLOPS, DC_FT_F64, offsetof(struct urow, p)},
	{"e", NULL, DC_U_FLOPS, DC_FT_F64, offsetof(struct urow, e)},
	{"bw", NULL, DC_U_GBPS, DC_FT_F64, offsetof(struct urow, bw)},
	{"rate", NULL, DC_U_PER_S, DC_FT_F64, offsetof(struct urow, rate)},
	{"lat", NULL, DC_U_SECONDS_US, DC_FT_F64, offsetof(struct urow, lat)},
	{"dt", NULL, DC_U_SECONDS, DC_FT_F64, offsetof(struct urow, dt)},
	{"raw", NULL, DC_U_BYTES_RAW, DC_FT_U64, offsetof(struct urow, raw)},
};
static const struct dc_fields urow_fs = DC_FIELDS(urow_fields);
static const struct dc_rows urow_rows = {urow_count, urow_row, sizeof(struct urow), "rows", 1, 0, 0};
static const struct dc_field usec_fields[] = {
	{"units", "Units", DC_U_NONE, DC_FT_ROWS, 0, .sub = &urow_fs, .rows = &urow_rows},
};
static const struct dc_fields usec_fs = DC_FIELDS(usec_fields);
static const struct dc_field uroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &usec_fs},
};

/* FLOPs at each scale (5e9 in GFLOP, 2.5e12 in TFLOP, 1e15 in PFLOP, 5e21
 * in EFLOP, the largest: 5000.000), 12.5 GB/s, 28,938.54 1/s (one
 * decimal), 25 us (nccl-tests' column: two decimals), 0.2 us (seconds
 * scaled below 1 ms) and 4,096 B: each column as wide as its widest of
 * label, [unit] and cell, the seven-byte "[GFLOP]" wider than its cell. */
START_TEST(test_table_units_row)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	static unsigned char view[8];
	struct dc_buf b;
	const char *want = "\nSec\n===\n  Units\n"
			   "          g        t        p         e      bw      rate    lat     dt    raw\n"
			   "    [GFLOP]  [TFLOP]  [PFLOP]   [EFLOP]  [GB/s]     [1/s]   [us]   [us]    [B]\n"
			   "      5.000    2.500    1.000  5000.000  12.500  28,938.5  25.00  0.200  4,096\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = uroot_fields;
	r->root.n = 1;
	r->views = view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* ---- a key-value block's counts ---- */

struct nview {
	uint64_t zero, small, thousand, max, raw, none;
	double flops;
};

static const struct dc_field nblock_fields[] = {
	{"zero", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct nview, zero)},
	{"small", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct nview, small)},
	{"thousand", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct nview, thousand)},
	{"max", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct nview, max)},
	{"raw", NULL, DC_U_BYTES_RAW, DC_FT_U64, offsetof(struct nview, raw)},
	{"none", NULL, DC_U_COUNT, DC_FT_U64, offsetof(struct nview, none), .is_null = sview_null},
	{"flops", NULL, DC_U_FLOPS, DC_FT_F64, offsetof(struct nview, flops)},
};
static const struct dc_fields nblock_fs = DC_FIELDS(nblock_fields);
static const struct dc_field nroot_fields[] = {
	{"sec", "Sec", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &nblock_fs},
};

/* Counts beside their labels (aligned to "thousand" after two spaces):
 * 0, 999 (no comma), 1,000 (the first comma), 2^64 - 1 (26 bytes), bytes
 * as a count with their unit after them, a null count (n/a, no unit), and
 * FLOPs in the scale of their own value (5e15: PFLOP). */
START_TEST(test_table_scalar_counts)
{
	struct dc_report *r = calloc(1, sizeof(*r));
	struct dc_render_opts o = {0, 0};
	static struct nview view = {0, 999, 1000, UINT64_MAX, 1048576, 5, 5e15};
	struct dc_buf b;
	const char *want = "\nSec\n===\n"
			   "  zero      0\n"
			   "  small     999\n"
			   "  thousand  1,000\n"
			   "  max       18,446,744,073,709,551,615\n"
			   "  raw       1,048,576 B\n"
			   "  none      n/a\n"
			   "  flops     5.000 PFLOP\n";

	ck_assert_ptr_nonnull(r);
	r->root.f = nroot_fields;
	r->root.n = 1;
	r->views = (unsigned char *)&view;
	r->nsec = 1;
	dc_buf_init(&b);
	ck_assert_int_eq(dc_report_render_table(r, &o, &b), 0);
	ck_assert_str_eq(b.data, want);
	dc_buf_release(&b);
	free(r);
}
END_TEST

/* The word-at-a-time scans' last word overlaps the one before it when the
 * length is not a multiple of 8: a byte to flag in the last position, the
 * first position of the overlap and just before it, at lengths 1 to 24. */
START_TEST(test_scans_last_word)
{
	char t[32];
	struct dc_buf b;
	for (size_t n = 1; n <= 24; n++) {
		/* and for 4 to 7 bytes, two overlapping 4-byte words: the
		 * first position of the second and just before it */
		size_t at[5] = {n - 1, n >= 8 ? n - 8 : 0, n >= 9 ? n - 9 : 0, n >= 4 ? n - 4 : 0, n >= 5 ? n - 5 : 0};
		memset(t, 'x', n);
		t[n] = '\0';
		ck_assert_int_eq(dc_text_ascii_printable(t, n), 1);
		for (size_t k = 0; k < 5; k++) {
			t[at[k]] = '\x7f';
			ck_assert_msg(dc_text_ascii_printable(t, n) == 0, "DEL at %zu of %zu", at[k], n);
			t[at[k]] = '"';
			dc_buf_init(&b);
			dc_buf_json_string(&b, t);
			/* the quote escaped: two bytes more than the text and its quotes */
			ck_assert_msg(b.len == n + 3 && b.data[at[k] + 1] == '\\', "quote at %zu of %zu", at[k], n);
			dc_buf_release(&b);
			t[at[k]] = 'x';
		}
	}
	/* every byte at every position of the short texts (1 to 11
	 * bytes): flagged exactly when it is not printable ASCII, there
	 * being no other byte to raise a false alarm */
	for (size_t n = 1; n <= 11; n++)
		for (size_t at = 0; at < n; at++)
			for (int c = 1; c < 256; c++) {
				memset(t, 'x', n);
				t[n] = '\0';
				t[at] = (char)c;
				ck_assert_msg(dc_text_ascii_printable(t, n) == (c >= 0x20 && c < 0x7f), "byte %d at %zu of %zu",
					      c, at, n);
			}
}
END_TEST

/* dc_table_has_word on hand-made texts: a word of exactly `len`, one
 * shorter, at the start, the end and inside, a text of one word, spaces
 * only, and a long text whose one long word sits at every offset. */
START_TEST(test_table_has_word)
{
	char t[200];
	ck_assert_int_eq(dc_table_has_word("ab cd", 5, 3), 0);
	ck_assert_int_eq(dc_table_has_word("abc d", 5, 3), 1);
	ck_assert_int_eq(dc_table_has_word("a bcd", 5, 3), 1);
	ck_assert_int_eq(dc_table_has_word("a bc d", 6, 3), 0);
	ck_assert_int_eq(dc_table_has_word("ab bcde f", 9, 4), 1);
	ck_assert_int_eq(dc_table_has_word("abcdefgh", 8, 8), 1);
	ck_assert_int_eq(dc_table_has_word("abcdefgh", 8, 9), 0);
	ck_assert_int_eq(dc_table_has_word("        ", 8, 1), 0);
	ck_assert_int_eq(dc_table_has_word("       x", 8, 1), 1);
	ck_assert_int_eq(dc_table_has_word("abc", 3, 0), 0);
	/* words of 9 bytes ("aaaaaaaaa ") and one of 12 at every offset */
	for (size_t at = 0; at + 12 <= 190; at++) {
		for (size_t i = 0; i < 190; i++)
			t[i] = i % 10 == 9 ? ' ' : 'a';
		memset(t + at, 'b', 12);
		if (at > 0)
			t[at - 1] = ' ';
		if (at + 12 < 190)
			t[at + 12] = ' ';
		ck_assert_msg(dc_table_has_word(t, 190, 12) == 1, "12 at %zu", at);
		ck_assert_msg(dc_table_has_word(t, 190, 13) == 0, "13 at %zu", at);
	}
}
END_TEST

/* dc_table_has_double_space against a byte loop: texts of 0 to 40 bytes
 * of letters and single spaces (every third byte), then with two spaces
 * at every position, so that a pair falls inside each 8-byte word, across
 * two, and in the last word, which overlaps the one before. */
static int double_space_reference(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (s[i] == ' ' && s[i - 1] == ' ')
			return 1;
	return 0;
}

START_TEST(test_table_has_double_space)
{
	char t[48] = {0};
	for (size_t n = 0; n <= 40; n++) {
		for (size_t i = 0; i < n; i++)
			t[i] = i % 3 == 2 ? ' ' : 'a';
		ck_assert_int_eq(dc_table_has_double_space(t, n), double_space_reference(t, n));
		ck_assert_int_eq(dc_table_has_double_space(t, n), 0);
		for (size_t at = 0; at + 2 <= n; at++) {
			char keep[2] = {t[at], t[at + 1]};
			t[at] = t[at + 1] = ' ';
			ck_assert_msg(dc_table_has_double_space(t, n) == 1, "n %zu at %zu", n, at);
			t[at] = keep[0];
			t[at + 1] = keep[1];
		}
	}
	ck_assert_int_eq(dc_table_has_double_space("a b  ", 5), 1);
	ck_assert_int_eq(dc_table_has_double_space(" a b c d e f g h", 16), 0);
}
END_TEST

/* dc_fmt_double drops %g's trailing zeros from the rounded digits before
 * writing them (two at a time, then one): hand-worked texts with an even
 * and an odd count of zeros dropped, none, and all but the first digit,
 * in the fixed and the exponent form. */
START_TEST(test_double_trailing_zeros)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{0.5, "0.5"},                 /* 14 zeros dropped */
		{0.25, "0.25"},               /* 13 */
		{123.4, "123.4"},             /* 11 */
		{100.25, "100.25"},           /* 10, the inner zeros kept */
		{0.0001, "0.0001"},           /* the fixed form's smallest exponent */
		{1.5e-5, "1.5e-05"},          /* the exponent form below it */
		{1.1e100, "1.1e+100"},        /* three exponent digits */
		{1e16, "1e+16"},              /* one digit left */
		{12345678.9, "12345678.9"},   /* 6 */
		{0.1 + 0.2, "0.30000000000000004"}, /* 17 digits, none dropped */
		{2.5e-7, "2.5e-07"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		size_t n = dc_fmt_double(buf, sizeof(buf), cases[i].v);
		ck_assert_str_eq(buf, cases[i].text);
		ck_assert_uint_eq(n, strlen(cases[i].text));
	}
}
END_TEST

/* dc_json_string_text gives what a JSON reader gets from a string
 * literal, written by hand: escapes decoded (a pair of \u escapes one
 * code point), in place too; anything but one string refused. And it
 * undoes dc_buf_json_string. */
START_TEST(test_json_string_text)
{
	static const struct {
		const char *json, *text;
	} cases[] = {
		{"\"\"", ""},
		{"\"m,o\\\"d<e>l.json\"", "m,o\"d<e>l.json"},
		{"\"a\\\\b\\/c\"", "a\\b/c"},
		{"\"\\n\\t\\r\\b\\f\"", "\n\t\r\b\f"},
		{"\"\\u00e9\\u20ac\"", "\xc3\xa9\xe2\x82\xac"},     /* e-acute, euro sign */
		{"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80"},          /* U+1F600 from its pair */
		{"\"\\ud83d\"", "\xef\xbf\xbd"},                   /* a lone surrogate: U+FFFD */
		{"\"\xc3\xa9\"", "\xc3\xa9"},                         /* UTF-8 as it is */
	};
	static const char *const refused[] = {"", "\"", "x", "{\"a\": 1}", "\"a\" \"b\"", "\"\\x\"", "\"\\u12\"",
					      "\"\\u0000\"", "\"a\\\""};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = strlen(cases[i].json);
		ck_assert_uint_eq(dc_json_string_text(buf, sizeof(buf), cases[i].json, n), strlen(cases[i].text));
		ck_assert_str_eq(buf, cases[i].text);
		memcpy(buf, cases[i].json, n + 1); /* in place */
		ck_assert_uint_eq(dc_json_string_text(buf, sizeof(buf), buf, n), strlen(cases[i].text));
		ck_assert_str_eq(buf, cases[i].text);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_msg(dc_json_string_text(buf, sizeof(buf), refused[i], strlen(refused[i])) == (size_t)-1,
			      "took %s", refused[i]);
	/* cut at cap - 1 bytes, as snprintf */
	ck_assert_uint_eq(dc_json_string_text(buf, 3, "\"abcd\"", 6), 2);
	ck_assert_str_eq(buf, "ab");
	/* the inverse of dc_buf_json_string */
	{
		struct dc_buf b;
		const char *s = "q\"uo\\te\x01\n<>\xc3\xa9";
		dc_buf_init(&b);
		dc_buf_json_string(&b, s);
		ck_assert(!b.failed);
		ck_assert_uint_eq(dc_json_string_text(buf, sizeof(buf), b.data, b.len), strlen(s));
		ck_assert_str_eq(buf, s);
		dc_buf_release(&b);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("fmt");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_u64_matches_printf);
	tcase_add_test(tc, test_fixed_u64_matches_printf);
	tcase_add_test(tc, test_fmt_gib);
	tcase_add_test(tc, test_text_fmt_matches_snprintf);
	tcase_add_test(tc, test_json_string_and_printable_match_byte_loops);
	tcase_add_test(tc, test_json_string_text);
	tcase_add_test(tc, test_whole_doubles_match_printf);
	tcase_add_test(tc, test_table_wrap_line_at_a_time);
	tcase_add_test(tc, test_table_wrap_utf8);
	tcase_add_test(tc, test_table_wrap_utf8_look_alike);
	tcase_add_test(tc, test_buf_room);
	tcase_add_test(tc, test_text_add_bounds);
	tcase_add_test(tc, test_json_row_plan);
	tcase_add_test(tc, test_json_row_plan_bounds);
	tcase_add_test(tc, test_row_memos);
	tcase_add_test(tc, test_csv_plain);
	tcase_add_test(tc, test_csv_row_numbers);
	tcase_add_test(tc, test_row_doubles);
	tcase_add_test(tc, test_table_cache_past_its_rows);
	tcase_add_test(tc, test_table_column_kinds);
	tcase_add_test(tc, test_table_repeated_cells);
	tcase_add_test(tc, test_table_lists);
	tcase_add_test(tc, test_table_fixed_matches_printf);
	tcase_add_test(tc, test_table_scalar_block);
	tcase_add_test(tc, test_table_scalar_texts);
	tcase_add_test(tc, test_table_wrapped_column);
	tcase_add_test(tc, test_table_rows_past_the_store);
	tcase_add_test(tc, test_table_units_row);
	tcase_add_test(tc, test_table_scalar_counts);
	tcase_add_test(tc, test_scans_last_word);
	tcase_add_test(tc, test_table_has_word);
	tcase_add_test(tc, test_table_has_double_space);
	tcase_add_test(tc, test_double_trailing_zeros);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
