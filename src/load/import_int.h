/* import_int.h - what the importers share (import.c the list and the config
 * writer; import_megatron.c, import_torchtitan.c, import_deepspeed.c the
 * readers). Not part of the library's API: import.h is. */
#ifndef DISTCALC_IMPORT_INT_H
#define DISTCALC_IMPORT_INT_H

#include "distcalc/import.h"

/* Most arguments, keys or table entries one file may hold. */
#define DC_IMPORT_MAX_ITEMS 4096

/* Sets `path` to the JSON text `json`, given by `from` at `line` of the
 * file `name`. The same path set again to another value is an error naming
 * both sources. Returns 0, or -1 (recorded in `diag`). */
int dc_import_set(struct dc_import *imp, const char *path, const char *json, const char *from, unsigned line,
		  const char *name, struct dc_diag *diag);
/* As dc_import_set with an unsigned integer / a string value. */
int dc_import_set_u64(struct dc_import *imp, const char *path, unsigned long long v, const char *from, unsigned line,
		      const char *name, struct dc_diag *diag);
int dc_import_set_str(struct dc_import *imp, const char *path, const char *v, const char *from, unsigned line,
		      const char *name, struct dc_diag *diag);

int dc_import_megatron(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag);
int dc_import_torchtitan(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag);
int dc_import_deepspeed(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag);

/* Writes "name:line" ("name" for line 0) into buf[n], the file name
 * escaped as messages show it; returns buf. */
const char *dc_import_where(char *buf, size_t n, const char *name, unsigned line);

#endif
