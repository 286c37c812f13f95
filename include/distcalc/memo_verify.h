/* memo_verify.h - the DISTCALC_VERIFY_MEMOS debug switch: every reuse of
 * earlier work (the search's step, ledger and data-parallel call memos,
 * the network price memos, the equal GEMMs priced once, a one-kind
 * stage's activations as a product, an equal
 * group's shape found once, the resharded plans and kernels;
 * docs/search.md, "Speed") computed again fresh on
 * each hit and compared
 * with what was reused, bit for bit.
 *
 * The memos key on raw pointers and byte-compared inputs: a later edit
 * that has a memoised function read one more field, left out of the key,
 * would return stale results without a word. Built with
 * -DDISTCALC_VERIFY_MEMOS=ON (CMake; CI's ASan build), a hit whose fresh
 * result differs prints which memo and the first differing field to
 * stderr and abort()s: a debug build's contract check, like assert, the
 * one place the library prints. Off (the default), DC_MEMO_VERIFY(call)
 * is ((void)0): the release build is what it was, instruction for
 * instruction. */
#ifndef DISTCALC_MEMO_VERIFY_H
#define DISTCALC_MEMO_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef DISTCALC_VERIFY_MEMOS
#define DC_MEMO_VERIFY(call) (call)
#else
#define DC_MEMO_VERIFY(call) ((void)0)
#endif

/* A member of a compared struct: its name, where it starts and its size */
struct dc_memo_field {
	const char *name;
	size_t offset, size;
};

#define DC_MEMO_FIELD(type, member) {#member, offsetof(type, member), sizeof(((type *)0)->member)}

/* Compares `fields` (n of them) of the reused and the fresh struct, each
 * member as bytes (doubles bit for bit: -0 and +0 differ, a NaN equals
 * only the same NaN); padding and members not listed are not read. On the
 * first member that differs, prints "distcalc: memo verify: MEMO: WHAT.
 * MEMBER differs (...)" with both values to stderr and aborts. */
void dc_memo_verify_fields(const char *memo, const char *what, const void *reused, const void *fresh,
			   const struct dc_memo_field *fields, size_t n);

/* The same for a struct with no padding compared whole (size bytes):
 * `fields` (may be NULL) names the member the first differing byte lies
 * in. */
void dc_memo_verify_bytes(const char *memo, const char *what, const void *reused, const void *fresh, size_t size,
			  const struct dc_memo_field *fields, size_t n);

/* One double (bit for bit), one integer. */
void dc_memo_verify_double(const char *memo, const char *what, double reused, double fresh);
void dc_memo_verify_u64(const char *memo, const char *what, uint64_t reused, uint64_t fresh);

#endif
