/* fixtures.h - configs for the Check suites, made by the real loader.
 *
 * A fixture is JSON text (or a shipped config) loaded through
 * dc_config_load_buffer, so every key it leaves out takes the loader's
 * default and derived fields (world size, dp, head_dim, ...) are the
 * loader's: no suite keeps a copy of the defaults that could drift. Tests
 * then change single fields for the case at hand.
 */
#ifndef DISTCALC_TEST_FIXTURES_H
#define DISTCALC_TEST_FIXTURES_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"

static inline void fixture_json(struct dc_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Loads the config printf(fmt, ...) describes; aborts the test if the
 * loader rejects it. */
static inline void fixture_json(struct dc_config *c, const char *fmt, ...)
{
	char json[4096];
	struct dc_diag d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(json, sizeof(json), fmt, ap);
	va_end(ap);
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "fixture.json", NULL, 0, c, &d) != 0)
		ck_abort_msg("fixture rejected: %s\n%s", d.count ? d.entries[0].text : "?", json);
	dc_diag_release(&d);
}

/* configs/systems.json, the course's setting. */
static inline void fixture_systems(struct dc_config *c)
{
	char path[512];
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/systems.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	if (dc_config_load_file(path, NULL, 0, c, &d) != 0)
		ck_abort_msg("configs/systems.json rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
}

#endif
