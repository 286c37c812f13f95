/* rng.c - SplitMix64; see rng.h. */
#include "distcalc/rng.h"

void dc_rng_seed(struct dc_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t dc_rng_next(struct dc_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t dc_rng_range(struct dc_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo, limit, v;
	if (span == UINT64_MAX)
		return dc_rng_next(r);
	span++;
	/* reject the top partial bucket */
	limit = UINT64_MAX - UINT64_MAX % span;
	do
		v = dc_rng_next(r);
	while (v >= limit);
	return lo + v % span;
}

double dc_rng_unit(struct dc_rng *r)
{
	return (double)(dc_rng_next(r) >> 11) * 0x1.0p-53;
}
