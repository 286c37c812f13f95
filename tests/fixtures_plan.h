/* fixtures_plan.h - plans for the Check suites, derived by the real
 * dc_plan_derive from a config the loader made (fixtures.h). */
#ifndef DISTCALC_TEST_FIXTURES_PLAN_H
#define DISTCALC_TEST_FIXTURES_PLAN_H

#include <check.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"

/* Derives *p from c; aborts the test if the plan is rejected. */
static inline void fixture_plan(const struct dc_config *c, struct dc_plan *p)
{
	if (dc_plan_derive(c, p) != 0)
		ck_abort_msg("plan rejected: %s", p->error ? p->error : "?");
}

/* The plan of c in static storage, for one call at a time:
 * dc_act_layer_bytes(plan_of(&c), 0, &v). c must stay as it is while the
 * plan is used. */
static inline const struct dc_plan *plan_of(const struct dc_config *c)
{
	static struct dc_plan p;
	fixture_plan(c, &p);
	return &p;
}

#endif
