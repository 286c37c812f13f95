/* rng.h - the one PRNG behind every random choice: SplitMix64.
 *
 * SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of
 * xoshiro/xoroshiro) is fully specified by three constants and two shifts,
 * so the same seed gives the same stream on every machine and compiler.
 * Never use rand(): its sequence differs between C libraries.
 */
#ifndef DISTCALC_RNG_H
#define DISTCALC_RNG_H

#include <stdint.h>

struct dc_rng {
	uint64_t state;
};

void dc_rng_seed(struct dc_rng *r, uint64_t seed);
uint64_t dc_rng_next(struct dc_rng *r);
/* Uniform integer in [lo, hi] (hi >= lo), by rejection: no modulo bias. */
uint64_t dc_rng_range(struct dc_rng *r, uint64_t lo, uint64_t hi);
/* Uniform double in [0, 1) with 53 random bits. */
double dc_rng_unit(struct dc_rng *r);

#endif
