/* korthikanti2022.h - the measured times of Korthikanti et al. 2022,
 * "Reducing Activation Recomputation in Large Transformer Models" (Selene:
 * 8 x A100-SXM4-80GB and 8 x 200 Gb/s HDR InfiniBand per node), copied
 * from ../shared/reference/step-time.md. Published figures only, shared
 * by the tests that check against them and tools/fit_kernel_levels.c,
 * which fits the kernel model's two levels to them. */
#ifndef DISTCALC_TESTS_KORTHIKANTI2022_H
#define DISTCALC_TESTS_KORTHIKANTI2022_H

/* Table 4: time per transformer layer of the 22B model (TP 8, micro batch
 * 4, s 2048), ms; `sp` and `recompute` are the config values of the row. */
static const struct korthikanti_table4_row {
	const char *name, *sp, *recompute;
	double fwd_ms, bwd_ms;
} korthikanti_table4[] = {
	{"baseline no recompute", "false", "none", 7.7, 11.9},
	{"sequence parallelism", "true", "none", 7.2, 11.8},
	{"baseline with recompute", "false", "full", 7.7, 19.5},
	{"selective recompute", "false", "selective", 7.7, 13.2},
	{"selective + sequence", "true", "selective", 7.2, 13.1},
};
#define KORTHIKANTI_TABLE4_ROWS (sizeof(korthikanti_table4) / sizeof(korthikanti_table4[0]))

/* Table 5: iteration time, s: present work (selective recompute + sequence
 * parallelism, configs/korthikanti-*.json as shipped) and full recompute
 * without sequence parallelism. */
static const struct korthikanti_table5_row {
	const char *config;
	double present_s, full_s;
} korthikanti_table5[] = {
	{"korthikanti-22b.json", 1.10, 1.42},
	{"korthikanti-175b.json", 13.75, 18.13},
	{"korthikanti-530b.json", 37.83, 49.05},
	{"korthikanti-1t.json", 71.49, 94.42},
};
#define KORTHIKANTI_TABLE5_ROWS (sizeof(korthikanti_table5) / sizeof(korthikanti_table5[0]))

#endif
