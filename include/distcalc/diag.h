/* diag.h - diagnostics: the library records problems here, main.c prints them.
 *
 * The library never prints and never exits. Every function that can fail
 * takes a struct dc_diag and appends one fully formatted line per problem
 * (no trailing newline), so a config with five mistakes yields five lines.
 * A line about one config key also carries that key's path as data, so a
 * caller (an editor, a test) need not parse it back out of the text.
 */
#ifndef DISTCALC_DIAG_H
#define DISTCALC_DIAG_H

#include <stddef.h>

enum dc_severity {
	DC_SEV_ERROR,
	DC_SEV_WARNING,
};

/* The class of a failure; main.c maps it to the exit code. */
enum dc_status {
	DC_OK = 0,
	DC_ERR_USAGE,    /* bad command line */
	DC_ERR_CONFIG,   /* the config is readable but wrong */
	DC_ERR_INPUT,    /* a file cannot be read */
	DC_ERR_OUTPUT,   /* the output cannot be written */
	DC_ERR_INTERNAL, /* out of memory or a bug */
};

struct dc_diag_entry {
	enum dc_severity severity;
	char *text; /* owned */
	char *key;  /* owned: the config path the line is about ("parallel.tp",
		     * "model.hiden_size" as written), or NULL when it is about no
		     * one key (a syntax error, an unreadable file) */
};

struct dc_diag {
	struct dc_diag_entry *entries;
	size_t count;
	size_t alloc;
	size_t errors;
	enum dc_status status; /* the first error's class; DC_OK when none */
	int oom;               /* set when a line could not be recorded */
};

void dc_diag_init(struct dc_diag *d);
void dc_diag_release(struct dc_diag *d);

/* Records that memory ran out while reporting: the run fails with
 * DC_ERR_INTERNAL, as when an entry cannot be added. */
void dc_diag_oom(struct dc_diag *d);

/* Appends a formatted line. `status` classifies an error (ignored for
 * warnings). Never fails visibly: on allocation failure `oom` is set and the
 * status becomes DC_ERR_INTERNAL. */
void dc_diag_add(struct dc_diag *d, enum dc_severity sev, enum dc_status status,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* As dc_diag_add, and the entry's key is a copy of `key` (NULL: none). An
 * allocation failure for the copy is handled as for the text. */
void dc_diag_add_key(struct dc_diag *d, enum dc_severity sev, enum dc_status status, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define dc_diag_error(d, st, ...) dc_diag_add((d), DC_SEV_ERROR, (st), __VA_ARGS__)
#define dc_diag_warn(d, ...) dc_diag_add((d), DC_SEV_WARNING, DC_OK, __VA_ARGS__)

/* Number of warnings recorded. */
size_t dc_diag_warnings(const struct dc_diag *d);

#endif
