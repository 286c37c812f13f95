/* units.h - quantities with explicit, case-sensitive units.
 *
 * Config values that carry a unit may be a plain JSON number in base units
 * (bytes, bytes/s, seconds) or a string "<number> <unit>" (the space is
 * optional). Units:
 *   bytes      B kB MB GB TB PB (10^3n)  KiB MiB GiB TiB PiB (2^10n)
 *   bandwidth  the byte units followed by "/s", or bit rates
 *              b/s kb/s Mb/s Gb/s Tb/s (= bytes/s x 8), Gbit/s etc.
 *   time       s ms us µs ns
 * Ambiguous spellings ("80G", "80gb", "10 Gbps") are errors whose message
 * says what to write instead.
 *
 * Every parser returns 0 and sets *out, or returns -1 and writes a one-line
 * reason (no trailing newline, no subject) into err[errlen].
 */
#ifndef DISTCALC_UNITS_H
#define DISTCALC_UNITS_H

#include <stddef.h>
#include <stdint.h>

enum dc_quantity {
	DC_Q_BYTES,
	DC_Q_BANDWIDTH,
	DC_Q_TIME,
};

/* Exact byte count; fractional results ("0.3 B") and values above 2^53 are
 * errors. */
int dc_units_parse_bytes(const char *s, uint64_t *out, char *err, size_t errlen);
/* Bandwidth in bytes per second; must be finite. Sign is not checked here. */
int dc_units_parse_bandwidth(const char *s, double *out, char *err, size_t errlen);
/* Time in seconds; must be finite. */
int dc_units_parse_time(const char *s, double *out, char *err, size_t errlen);
/* A GPU's arithmetic rate in FLOP/s: a number and one of FLOP/s, kFLOP/s,
 * MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s ("989 TFLOP/s"); must be finite. */
int dc_units_parse_flops(const char *s, double *out, char *err, size_t errlen);

/* Conversion constants (base units). */
#define DC_GIB 1073741824.0 /* 2^30 bytes */
#define DC_GB 1e9           /* 10^9 bytes; GB/s = 10^9 bytes/s */
#define DC_GIB_D DC_GIB

#endif
