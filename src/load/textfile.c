/* textfile.c - plain-text input files; see textfile.h. */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "distcalc/util.h"

char *dc_text_read_file(const char *path, size_t max_bytes, const char *what, size_t *len,
			struct dc_diag *diag)
{
	char shown[1024];
	struct stat st;
	FILE *f;
	char *buf;
	size_t n;

	dc_fmt_printable(shown, sizeof(shown), path);
	f = fopen(path, "rb");
	if (!f) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: cannot open: %s", shown, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: is a directory, not a %s", shown, what);
		return NULL;
	}
	buf = dc_malloc(max_bytes + 2);
	if (!buf) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", shown);
		return NULL;
	}
	n = fread(buf, 1, max_bytes + 1, f);
	if (ferror(f)) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: read failed: %s", shown, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > max_bytes) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: larger than %zu bytes; not a %s", shown, max_bytes,
			      what);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int dc_text_check(const char *buf, size_t len, size_t *line)
{
	size_t ln = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n')
			ln++;
		else if ((c < 0x20 && c != '\t' && c != '\r' && c != 0x1b) || c == 0x7f) {
			*line = ln;
			return -1;
		}
	}
	return 0;
}

void dc_text_lines_init(struct dc_text_lines *it, const char *buf, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
}

int dc_text_lines_next(struct dc_text_lines *it)
{
	size_t n = 0;
	if (it->pos >= it->len)
		return 0;
	it->line++;
	it->long_line = 0;
	while (it->pos < it->len && it->buf[it->pos] != '\n') {
		char c = it->buf[it->pos++];
		if (c == 0x1b && it->pos < it->len && it->buf[it->pos] == '[') {
			/* a colour sequence: ESC [ parameters final-byte */
			it->pos++;
			while (it->pos < it->len && it->buf[it->pos] != '\n' &&
			       !((unsigned char)it->buf[it->pos] >= 0x40 && (unsigned char)it->buf[it->pos] <= 0x7e))
				it->pos++;
			if (it->pos < it->len && it->buf[it->pos] != '\n')
				it->pos++;
			continue;
		}
		if (n + 1 < sizeof(it->text))
			it->text[n++] = c;
		else
			it->long_line = 1;
	}
	if (it->pos < it->len)
		it->pos++; /* the '\n' */
	if (n && it->text[n - 1] == '\r')
		n--;
	it->text[n] = '\0';
	return 1;
}

void dc_text_error(struct dc_diag *diag, enum dc_status status, const char *name, size_t line, const char *fmt,
		   va_list ap)
{
	char *msg = dc_vasprintf(fmt, ap);
	if (!msg) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return;
	}
	if (line)
		dc_diag_error(diag, status, "%s:%zu: error: %s", name, line, msg);
	else
		dc_diag_error(diag, status, "%s: error: %s", name, msg);
	free(msg);
}
