/* textfile.h - reading the plain-text files distcalc takes besides its
 * configs (nccl-tests logs, `nvidia-smi topo -m` output): the whole file
 * under a size limit, then line by line with 1-based line numbers.
 *
 * A file that holds a NUL byte or control characters other than tab, CR,
 * LF and ESC (terminal colour codes, which the line reader drops) is not
 * text: dc_text_check says which line.
 */
#ifndef DISTCALC_TEXTFILE_H
#define DISTCALC_TEXTFILE_H

#include <stdarg.h>
#include <stddef.h>

#include "distcalc/diag.h"

/* Reads `path` whole, at most `max_bytes`. Returns the bytes, NUL-terminated
 * (the caller frees them), with their count in *len; or NULL with one error
 * in `diag` (DC_ERR_INPUT: cannot open, a directory, larger than the limit,
 * read error; DC_ERR_INTERNAL: out of memory). `what` names the kind of
 * file in messages ("nccl-tests log"). */
char *dc_text_read_file(const char *path, size_t max_bytes, const char *what, size_t *len,
			struct dc_diag *diag);

/* Records one error in `diag` as "NAME:LINE: error: MESSAGE" ("NAME:
 * error: MESSAGE" when `line` is 0), MESSAGE formatted from `fmt` and `ap`,
 * with `status`; DC_ERR_INTERNAL "out of memory" when it cannot be
 * formatted. The readers of logs and topology files report through it. */
void dc_text_error(struct dc_diag *diag, enum dc_status status, const char *name, size_t line, const char *fmt,
		   va_list ap) __attribute__((format(printf, 5, 0)));

/* 0 when `len` bytes of `buf` are text; else -1 with the 1-based line of
 * the first byte that is not in *line. */
int dc_text_check(const char *buf, size_t len, size_t *line);

/* One line at a time: `text` is the line without its end ("\n" or
 * "\r\n") and without ANSI colour sequences (ESC [ ... m), cut to
 * DC_TEXT_LINE_MAX - 1 bytes (`long_line` says so). */
#define DC_TEXT_LINE_MAX 4096
struct dc_text_lines {
	const char *buf;
	size_t len, pos;
	size_t line;     /* 1-based number of the line in `text` */
	int long_line;
	char text[DC_TEXT_LINE_MAX];
};

void dc_text_lines_init(struct dc_text_lines *it, const char *buf, size_t len);
/* Returns 1 with the next line in it->text, or 0 at the end. */
int dc_text_lines_next(struct dc_text_lines *it);

#endif
