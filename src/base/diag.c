/* diag.c - diagnostics list; see diag.h. */
#include "distcalc/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/util.h"

void dc_diag_init(struct dc_diag *d)
{
	memset(d, 0, sizeof(*d));
}

void dc_diag_release(struct dc_diag *d)
{
	for (size_t i = 0; i < d->count; i++) {
		free(d->entries[i].text);
		free(d->entries[i].key);
	}
	free(d->entries);
	dc_diag_init(d);
}

static void note_error(struct dc_diag *d, enum dc_status status)
{
	d->errors++;
	if (d->status == DC_OK)
		d->status = status == DC_OK ? DC_ERR_INTERNAL : status;
}

static void vadd(struct dc_diag *d, enum dc_severity sev, enum dc_status status, const char *key,
		 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vadd(struct dc_diag *d, enum dc_severity sev, enum dc_status status, const char *key,
		 const char *fmt, va_list ap)
{
	char *text, *key_copy = NULL;

	if (sev == DC_SEV_ERROR)
		note_error(d, status);
	text = dc_vasprintf(fmt, ap);
	if (!text)
		goto oom;
	if (key && !(key_copy = dc_strdup(key)))
		goto oom;
	if (d->count == d->alloc) {
		size_t n = d->alloc ? d->alloc * 2 : 8;
		struct dc_diag_entry *e = dc_realloc(d->entries, n * sizeof(*e));
		if (!e)
			goto oom;
		d->entries = e;
		d->alloc = n;
	}
	d->entries[d->count].severity = sev;
	d->entries[d->count].text = text;
	d->entries[d->count].key = key_copy;
	d->count++;
	return;
oom:
	free(text);
	free(key_copy);
	d->oom = 1;
	if (d->status == DC_OK || sev == DC_SEV_ERROR)
		d->status = DC_ERR_INTERNAL;
	if (sev != DC_SEV_ERROR)
		d->errors++;
}

void dc_diag_oom(struct dc_diag *d)
{
	d->oom = 1;
	d->errors++;
	d->status = DC_ERR_INTERNAL;
}

void dc_diag_add(struct dc_diag *d, enum dc_severity sev, enum dc_status status,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vadd(d, sev, status, NULL, fmt, ap);
	va_end(ap);
}

void dc_diag_add_key(struct dc_diag *d, enum dc_severity sev, enum dc_status status, const char *key,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vadd(d, sev, status, key, fmt, ap);
	va_end(ap);
}

size_t dc_diag_warnings(const struct dc_diag *d)
{
	size_t n = 0;
	for (size_t i = 0; i < d->count; i++)
		n += d->entries[i].severity == DC_SEV_WARNING;
	return n;
}
