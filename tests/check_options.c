/* check_options.c - the option table: parsing, --help and suggestions
 * (options.h).
 *
 * Every message is the exact text the command line printed before the
 * table existed (tests/cli/cases/usage_*.stderr pin the same lines), typed
 * here by hand; the --help rows are checked against the old hand-written
 * help text.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/experiment.h"
#include "distcalc/options.h"
#include "distcalc/util.h"

#define MAX_ARGS 16

/* Parses "distcalc" followed by the NULL-terminated arguments. */
static int vparse(struct dc_options *o, struct dc_diag *d, const char *first, va_list ap)
{
	static const char *argv[MAX_ARGS + 1];
	int argc = 0;
	argv[argc++] = "distcalc";
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		ck_assert_int_lt(argc, MAX_ARGS);
		argv[argc++] = a;
	}
	argv[argc] = NULL;
	dc_diag_init(d);
	return dc_options_parse(argc, argv, o, d);
}

/* The arguments parse with no diagnostic. The caller releases `o`. */
static void parse_ok(struct dc_options *o, const char *first, ...)
{
	struct dc_diag d;
	va_list ap;
	int rc;
	va_start(ap, first);
	rc = vparse(o, &d, first, ap);
	va_end(ap);
	ck_assert_msg(rc == 0, "parse failed: %s", d.count ? d.entries[0].text : "(no message)");
	ck_assert_uint_eq(d.count, 0);
	dc_diag_release(&d);
}

/* The arguments are a usage error whose one line is exactly `want`. */
static void parse_err(const char *want, const char *first, ...)
{
	struct dc_options o;
	struct dc_diag d;
	va_list ap;
	int rc;
	va_start(ap, first);
	rc = vparse(&o, &d, first, ap);
	va_end(ap);
	ck_assert_int_eq(rc, -1);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_int_eq(d.status, DC_ERR_USAGE);
	ck_assert_str_eq(d.entries[0].text, want);
	dc_diag_release(&d);
	dc_options_release(&o);
}

/* The synopsis printed after every usage error names every option of the
 * table (its long name followed by a space or a bracket, so --check does
 * not stand for --check-max), as "[--name" or "[--name VALUE". */
START_TEST(test_usage_names_every_option)
{
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		char want[64];
		const char *at = dc_options_usage;
		int found = 0;
		snprintf(want, sizeof(want), "[%s", r->long_name);
		while ((at = strstr(at, want)) != NULL) {
			char next = at[strlen(want)];
			if (next == ' ' || next == ']') {
				found = 1;
				break;
			}
			at++;
		}
		ck_assert_msg(found, "the usage synopsis lacks %s", r->long_name);
	}
}
END_TEST

START_TEST(test_defaults)
{
	struct dc_options o;
	parse_ok(&o, NULL);
	ck_assert_int_eq(o.action, DC_OPTIONS_RUN);
	ck_assert_ptr_null(o.config);
	ck_assert_ptr_null(o.model);
	ck_assert_str_eq(o.experiment, "systems");
	ck_assert_uint_eq(o.seed, 0);
	ck_assert_int_eq(o.format, DC_FORMAT_TABLE);
	ck_assert_ptr_null(o.only);
	ck_assert_ptr_null(o.output);
	ck_assert_ptr_null(o.sets);
	ck_assert_uint_eq(o.nsets, 0);
	ck_assert_int_eq(o.all_rows, 0);
	ck_assert_ptr_null(o.check);
	ck_assert(o.rtol == 1e-9); /* the documented --rtol default */
	ck_assert_int_eq(o.rtol_set, 0);
	dc_options_release(&o);
}
END_TEST

/* A string option in every spelling: "--long v", "--long=v", "-s v". */
static const char *string_field(const struct dc_options *o, const char *name)
{
	if (strcmp(name, "--config") == 0)
		return o->config;
	if (strcmp(name, "--model") == 0)
		return o->model;
	if (strcmp(name, "--experiment") == 0)
		return o->experiment;
	if (strcmp(name, "--only") == 0)
		return o->only;
	if (strcmp(name, "--output") == 0)
		return o->output;
	if (strcmp(name, "--check") == 0)
		return o->check;
	ck_abort_msg("no string field for %s", name);
	return NULL;
}

START_TEST(test_string_options)
{
	static const struct {
		const char *lng, *shrt, *value;
	} cases[] = {
		{"--config", "-c", "configs/x.json"},
		{"--model", "-m", "models/llama.json"},
		{"--experiment", "-e", "ring"},
		{"--only", NULL, "summary,memory"},
		{"--output", "-o", "out.txt"},
		{"--check", NULL, "budget.json"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dc_options o;
		char joined[128];
		snprintf(joined, sizeof(joined), "%s=%s", cases[i].lng, cases[i].value);

		parse_ok(&o, cases[i].lng, cases[i].value, NULL);
		ck_assert_str_eq(string_field(&o, cases[i].lng), cases[i].value);
		dc_options_release(&o);

		parse_ok(&o, joined, NULL);
		ck_assert_str_eq(string_field(&o, cases[i].lng), cases[i].value);
		dc_options_release(&o);

		if (cases[i].shrt) {
			parse_ok(&o, cases[i].shrt, cases[i].value, NULL);
			ck_assert_str_eq(string_field(&o, cases[i].lng), cases[i].value);
			dc_options_release(&o);
		}
	}
}
END_TEST

START_TEST(test_values_are_taken_verbatim)
{
	struct dc_options o;
	static const char only[] = "memory,comm";
	/* the string itself is stored, not a copy */
	parse_ok(&o, "--only", only, NULL);
	ck_assert_ptr_eq(o.only, only);
	dc_options_release(&o);
	/* everything after the first '=' is the value */
	parse_ok(&o, "--config=a=b.json", NULL);
	ck_assert_str_eq(o.config, "a=b.json");
	dc_options_release(&o);
	/* the next argument that is one of the options is not taken as the
	 * value: the value was left out (a CI trial's `--output --all` wrote
	 * a file named --all and dropped --all); with '=' it is the value */
	parse_err("distcalc: error: '--config': needs a value, but the next word is the option '--help' (a value that is "
		  "that text: '--config=--help', or './--help' for a file)",
		  "--config", "--help", NULL);
	parse_err("distcalc: error: '--output': needs a value, but the next word is the option '-f' (a value that is "
		  "that text: '--output=-f', or './-f' for a file)",
		  "--output", "-f", "json", NULL);
	parse_ok(&o, "--config=--help", NULL);
	ck_assert_str_eq(o.config, "--help");
	ck_assert_int_eq(o.action, DC_OPTIONS_RUN);
	dc_options_release(&o);
	/* a word that only looks like an option is a value */
	parse_ok(&o, "--config", "--not-an-option.json", NULL);
	ck_assert_str_eq(o.config, "--not-an-option.json");
	dc_options_release(&o);
	/* "-" is standard output, as a Unix tool reads it (it made a file
	 * named "-"); a file of that name is ./- */
	parse_ok(&o, "-o", "-", NULL);
	ck_assert_ptr_null(o.output);
	dc_options_release(&o);
	parse_ok(&o, "-o", "./-", NULL);
	ck_assert_str_eq(o.output, "./-");
	dc_options_release(&o);
	/* given twice is refused: the last one silently winning hid a slip */
	parse_err("distcalc: error: '--config': given twice ('x', then 'y'); give it once", "-c", "x", "--config", "y",
		  NULL);
	parse_err("distcalc: error: '--output': given twice ('a', then 'a'); give it once", "-o", "a", "--output=a",
		  NULL);
	parse_err("distcalc: error: '--seed': given twice ('1', then '2'); give it once", "--seed", "1", "--seed", "2",
		  NULL);
	/* the experiment name is checked later, by dc_experiment_find */
	parse_ok(&o, "--experiment", "nope", NULL);
	ck_assert_str_eq(o.experiment, "nope");
	dc_options_release(&o);
}
END_TEST

START_TEST(test_seed)
{
	struct dc_options o;
	parse_ok(&o, "--seed", "7", NULL);
	ck_assert_uint_eq(o.seed, 7);
	dc_options_release(&o);
	parse_ok(&o, "--seed=18446744073709551615", NULL);
	ck_assert_uint_eq(o.seed, UINT64_MAX);
	dc_options_release(&o);
	parse_ok(&o, "--seed", "0", NULL);
	ck_assert_uint_eq(o.seed, 0);
	dc_options_release(&o);
}
END_TEST

START_TEST(test_format)
{
	struct dc_options o;
	parse_ok(&o, "--format", "json", NULL);
	ck_assert_int_eq(o.format, DC_FORMAT_JSON);
	dc_options_release(&o);
	parse_ok(&o, "--format=csv", NULL);
	ck_assert_int_eq(o.format, DC_FORMAT_CSV);
	dc_options_release(&o);
	parse_ok(&o, "-f", "csv", NULL);
	ck_assert_int_eq(o.format, DC_FORMAT_CSV);
	dc_options_release(&o);
	parse_err("distcalc: error: '--format': given twice ('json', then 'table'); give it once", "-f", "json",
		  "--format", "table", NULL);
}
END_TEST

START_TEST(test_set_repeats_in_order)
{
	struct dc_options o;
	parse_ok(&o, "--set", "a=1", "--set=b=2", "-s", "c=3", "--set", "'d=4 GB/s'", NULL);
	ck_assert_uint_eq(o.nsets, 4);
	ck_assert_str_eq(o.sets[0].text, "a=1");
	ck_assert_str_eq(o.sets[1].text, "b=2");
	ck_assert_str_eq(o.sets[2].text, "c=3");
	ck_assert_str_eq(o.sets[3].text, "'d=4 GB/s'");
	dc_options_release(&o);
	ck_assert_ptr_null(o.sets);
	ck_assert_uint_eq(o.nsets, 0);
}
END_TEST

START_TEST(test_flags_and_check)
{
	struct dc_options o;
	parse_ok(&o, "--all", NULL);
	ck_assert_int_eq(o.all_rows, 1);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol", "0.01", NULL);
	ck_assert_str_eq(o.check, "b.json");
	ck_assert(o.rtol == 0.01);
	ck_assert_int_eq(o.rtol_set, 1);
	dc_options_release(&o);
	/* 0 is allowed, and --rtol may come first; just below 1 too */
	parse_ok(&o, "--rtol=0", "--check=b.json", NULL);
	ck_assert(o.rtol == 0.0);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol=0.999", NULL);
	ck_assert(o.rtol == 0.999);
	dc_options_release(&o);
	/* 1 would pass any change of the same sign (|d| <= the larger) */
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '1'", "--check", "b.json",
		  "--rtol=1", NULL);
}
END_TEST

/* --rtol takes any finite decimal number in [0, 1]: a subnormal one too
 * (strtod flags 1e-310 with ERANGE though it is representable), and one
 * below the smallest subnormal (it rounds to 0). */
START_TEST(test_rtol_decimal)
{
	struct dc_options o;
	parse_ok(&o, "--check", "b.json", "--rtol", "1e-310", NULL);
	ck_assert(o.rtol > 9.99e-311 && o.rtol < 1.001e-310);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol", "4.9e-324", NULL);
	ck_assert(o.rtol > 0);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol", "1e-400", NULL);
	ck_assert(o.rtol == 0.0);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol", ".5", NULL);
	ck_assert(o.rtol == 0.5);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--rtol", "1E-3", NULL);
	ck_assert(o.rtol == 1e-3);
	dc_options_release(&o);
	/* hex floats, infinities and spellings strtod takes beyond decimals */
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '0x1p-3'", "--check", "b.json",
		  "--rtol", "0x1p-3", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '0X.8'", "--check", "b.json",
		  "--rtol", "0X.8", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got 'inf'", "--check", "b.json",
		  "--rtol", "inf", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got 'INFINITY'", "--check", "b.json",
		  "--rtol", "INFINITY", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got ' 0.1'", "--check", "b.json",
		  "--rtol", " 0.1", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '1e400'", "--check", "b.json",
		  "--rtol", "1e400", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '.'", "--check", "b.json",
		  "--rtol", ".", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '1e'", "--check", "b.json",
		  "--rtol", "1e", NULL);
}
END_TEST

/* --check-max PATH=VALUE: repeatable, VALUE in the unit the key names
 * (80 GiB = 80 x 2^30 = 85,899,345,920 bytes; 5 us = 5e-6 s; 50 GB/s in a
 * _GBps field is 50), a plain number in base units. */
START_TEST(test_check_max)
{
	struct dc_options o;
	parse_ok(&o, "--check-max", "memory.per_rank.peak_bytes=80GiB", "--check-max=comm.time_s=5 us",
		 "--check-max", "ring.busbw_GBps=50 GB/s", "--check-max", "summary.peak_bytes=1000",
		 "--check-max", "model.params_total=6.5e9", "--check-max", "a.b[2].time_s=0.25", NULL);
	ck_assert_uint_eq(o.nmaxes, 6);
	ck_assert_str_eq(o.maxes[0].path, "memory.per_rank.peak_bytes");
	ck_assert_str_eq(o.maxes[0].value, "80GiB");
	ck_assert(o.maxes[0].limit == 85899345920.0);
	ck_assert_str_eq(o.maxes[1].path, "comm.time_s");
	ck_assert_str_eq(o.maxes[1].value, "5 us");
	ck_assert(fabs(o.maxes[1].limit - 5e-6) <= 1e-15 * 5e-6);
	ck_assert(o.maxes[2].limit == 50.0);
	ck_assert(o.maxes[3].limit == 1000.0);
	ck_assert(o.maxes[4].limit == 6.5e9);
	ck_assert_str_eq(o.maxes[5].path, "a.b[2].time_s");
	ck_assert(o.maxes[5].limit == 0.25);
	ck_assert_ptr_null(o.check);
	dc_options_release(&o);
	ck_assert_uint_eq(o.nmaxes, 0);
	ck_assert_ptr_null(o.maxes);

	parse_err("distcalc: error: '--check-max': 'memory.peak_bytes=80G': ambiguous unit 'G': write '80 GB' (10^9 "
		  "bytes) or '80 GiB' (2^30 bytes)",
		  "--check-max", "memory.peak_bytes=80G", NULL);
	/* a unit on a field without one: dc_check_budgets says so, once the
	 * path is known to be a field (check_check.c) */
	parse_ok(&o, "--check-max", "summary.warnings=3 s", "--check-min", "step.tokens_per_s_per_gpu=3000", NULL);
	ck_assert_int_eq(o.maxes[0].no_unit, 1);
	ck_assert_int_eq(o.maxes[0].min, 0);
	ck_assert_int_eq(o.maxes[1].min, 1);
	ck_assert(o.maxes[1].limit == 3000);
	dc_options_release(&o);
	parse_ok(&o, "--unset", "parallel.dp", "--set", "parallel.tp=2", NULL);
	ck_assert_uint_eq(o.nsets, 2);
	ck_assert_int_eq(o.sets[0].unset, 1);
	ck_assert_str_eq(o.sets[0].text, "parallel.dp");
	ck_assert_int_eq(o.sets[1].unset, 0);
	dc_options_release(&o);
	parse_err("distcalc: error: '--unset': empty key path", "--unset", "", NULL);
	parse_err("distcalc: error: '--check-max': 'comm.time_s=5 GiB': unknown time unit 'GiB' (units are "
		  "case-sensitive): use s, ms, us or ns, like '5 us'",
		  "--check-max", "comm.time_s=5 GiB", NULL);
	parse_err("distcalc: error: '--check-max': 'x': expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB",
		  "--check-max", "x", NULL);
	parse_err("distcalc: error: '--check-max': '=1': expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB",
		  "--check-max", "=1", NULL);
	parse_err("distcalc: error: '--check-max': 'a=': expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB",
		  "--check-max", "a=", NULL);
	parse_err("distcalc: error: '--check-max': 'a=inf': the field has no unit: expected a plain number, got 'inf'",
		  "--check-max", "a=inf", NULL);
	parse_err("distcalc: error: '--check-max' prints what exceeds a budget to standard output; it cannot be "
		  "combined with '--output'",
		  "--check-max", "a=1", "-o", "x.json", NULL);
}
END_TEST

START_TEST(test_check_only)
{
	struct dc_options o;
	parse_ok(&o, "--check", "b.json", "--check-only", "memory.per_rank,comm", NULL);
	ck_assert_str_eq(o.check_only, "memory.per_rank,comm");
	dc_options_release(&o);
	parse_err("distcalc: error: '--check-only' only applies with '--check'", "--check-only", "memory", NULL);
	parse_err("distcalc: error: '--check-only': empty path in ''", "--check", "b.json", "--check-only=", NULL);
	parse_err("distcalc: error: '--check-only': empty path in 'a,,b'", "--check", "b.json", "--check-only", "a,,b",
		  NULL);
	parse_err("distcalc: error: '--check-only': empty path in 'a,'", "--check", "b.json", "--check-only", "a,",
		  NULL);
	parse_err("distcalc: error: '--check-only': empty path in ',a'", "--check", "b.json", "--check-only", ",a",
		  NULL);
	parse_err("distcalc: error: '--check-only': given twice; list every path in one, as in --check-only "
		  "memory,comm",
		  "--check", "b.json", "--check-only", "a", "--check-only", "b", NULL);
	parse_err("distcalc: error: '--check-only': more than 32 paths", "--check", "b.json", "--check-only",
		  "a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a", NULL);
}
END_TEST

START_TEST(test_help_and_version)
{
	static const char *const spellings[] = {"--help", "-h", "--version", "-V"};
	for (size_t i = 0; i < 4; i++) {
		struct dc_options o;
		enum dc_options_action want = i < 2 ? DC_OPTIONS_HELP : DC_OPTIONS_VERSION;
		parse_ok(&o, spellings[i], NULL);
		ck_assert_int_eq(o.action, want);
		dc_options_release(&o);
		/* parsing stops there: what follows is not looked at, and the
		 * cross-option checks are skipped */
		parse_ok(&o, "--check", "b.json", "--output", "o", spellings[i], "--bogus", "extra", NULL);
		ck_assert_int_eq(o.action, want);
		dc_options_release(&o);
	}
	/* an error before --help still wins */
	parse_err("distcalc: error: unknown option '--bogus'", "--bogus", "--help", NULL);
	/* flags take no value */
	parse_err("distcalc: error: unknown option '--help=yes'; did you mean '--help'?", "--help=yes", NULL);
	parse_err("distcalc: error: unknown option '--all=1'; did you mean '--all'?", "--all=1", NULL);
}
END_TEST

START_TEST(test_usage_errors)
{
	parse_err("distcalc: error: '--config': empty file name", "--config", "", NULL);
	parse_err("distcalc: error: '--config': empty file name", "--config=", NULL);
	parse_err("distcalc: error: '--config': empty file name", "-c", "", NULL);
	parse_err("distcalc: error: '--model': empty file name", "--model=", NULL);
	parse_err("distcalc: error: '--output': empty file name", "-o", "", NULL);
	parse_err("distcalc: error: '--check': empty file name", "--check", "", NULL);
	parse_err("distcalc: error: '--only': empty section list", "--only", "", NULL);
	parse_err("distcalc: error: '--only': empty section list", "--only=", NULL);
	/* two lists would be ambiguous: one of them would be dropped */
	parse_err("distcalc: error: '--only': given twice; list every section in one, as in --only memory,comm",
		  "--only", "a", "--only=b", NULL);

	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got '-1'",
		  "--seed", "-1", NULL);
	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got "
		  "'18446744073709551616'",
		  "--seed", "18446744073709551616", NULL);
	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got ''",
		  "--seed=", NULL);
	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got '+1'",
		  "--seed", "+1", NULL);
	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got ' 1'",
		  "--seed", " 1", NULL);
	parse_err("distcalc: error: '--seed': expected an integer from 0 to 18446744073709551615, got '7x'",
		  "--seed", "7x", NULL);

	parse_err("distcalc: error: '--format': expected 'table', 'json', 'csv', 'markdown' or 'html', got 'xml'", "--format", "xml",
		  NULL);
	parse_err("distcalc: error: '--format': expected 'table', 'json', 'csv', 'markdown' or 'html', got 'JSON'", "-f", "JSON", NULL);
	parse_err("distcalc: error: '--format': expected 'table', 'json', 'csv', 'markdown' or 'html', got ''", "--format=", NULL);

	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '2'", "--check", "b.json",
		  "--rtol", "2", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '-0.1'", "--rtol=-0.1", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got 'nan'", "--rtol", "nan", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got ''", "--rtol=", NULL);
	parse_err("distcalc: error: '--rtol': expected a number from 0 to below 1, got '1e-3x'", "--rtol", "1e-3x", NULL);

	parse_err("distcalc: error: unexpected argument 'extra'", "--all", "extra", NULL);
	parse_err("distcalc: error: unexpected argument ''", "", NULL);
	parse_err("distcalc: error: unexpected argument 'configs/systems.json'; did you mean '--config configs/systems.json' (or '--model configs/systems.json' for a Hugging Face config.json)?",
		  "configs/systems.json", NULL);
	parse_err("distcalc: error: unknown option '--bogus'", "--bogus", NULL);
	parse_err("distcalc: error: unknown option '-x'", "-x", NULL);
	parse_err("distcalc: error: unknown option '-cx'", "-cx", NULL);
	parse_err("distcalc: error: unknown option '-c=x'", "-c=x", NULL);

	parse_err("distcalc: error: '--check' prints differences to standard output; it cannot be combined with "
		  "'--output'",
		  "--check", "b.json", "-o", "out.json", NULL);
	parse_err("distcalc: error: '--rtol' only applies with '--check'", "--rtol", "0.1", NULL);
}
END_TEST

/* Every option that takes a value says so, under its long name, when the
 * value is missing, however it was spelled. */
START_TEST(test_needs_a_value)
{
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		char want[128], shrt[3] = {'-', r->short_name, '\0'};
		if (!r->metavar)
			continue;
		snprintf(want, sizeof(want), "distcalc: error: '%s': needs a value", r->long_name);
		parse_err(want, r->long_name, NULL);
		parse_err(want, "--all", r->long_name, NULL);
		if (r->short_name)
			parse_err(want, shrt, NULL);
	}
	/* and the list above covered these */
	parse_err("distcalc: error: '--output': needs a value", "--config", "x.json", "--output", NULL);
	parse_err("distcalc: error: '--set': needs a value", "-s", NULL);
	parse_err("distcalc: error: '--only': needs a value", "--only", NULL);
}
END_TEST

START_TEST(test_suggestions)
{
	parse_err("distcalc: error: unknown option '--conifg'; did you mean '--config'?", "--conifg",
		  "configs/systems.json", NULL);
	parse_err("distcalc: error: unknown option '--formt=json'; did you mean '--format'?", "--formt=json", NULL);
	parse_err("distcalc: error: unknown option '--ouptut'; did you mean '--output'?", "--ouptut", "o", NULL);
	ck_assert_str_eq(dc_options_suggest("--versoin"), "--version");
	ck_assert_str_eq(dc_options_suggest("--onyl=memory"), "--only");
	ck_assert_str_eq(dc_options_suggest("--rtl"), "--rtol");
	ck_assert_str_eq(dc_options_suggest("-experiment"), "--experiment");
	ck_assert_str_eq(dc_options_suggest("--check"), "--check");
	/* three edits is too far */
	ck_assert_ptr_null(dc_options_suggest("--bogus"));
	ck_assert_ptr_null(dc_options_suggest("--cfg"));
	ck_assert_ptr_null(dc_options_suggest("--configuration"));
	ck_assert_ptr_null(dc_options_suggest("-x"));
	/* too long to compare */
	ck_assert_ptr_null(dc_options_suggest("--config-config-config-config-config"));
	/* every long option suggests itself, with or without a value */
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		char with[64];
		snprintf(with, sizeof(with), "%s=1", r->long_name);
		ck_assert_str_eq(dc_options_suggest(r->long_name), r->long_name);
		ck_assert_str_eq(dc_options_suggest(with), r->long_name);
	}
}
END_TEST

START_TEST(test_sweep)
{
	struct dc_options o;
	char longv[80];
	parse_ok(&o, "--sweep", "cluster.num_nodes=1,2,4", "--sweep=parallel.sharding=none,fsdp",
		 "--sweep-metrics", "summary.peak_bytes,ring.time_s", "--plot", "x.svg", NULL);
	ck_assert_uint_eq(o.nsweeps, 2);
	ck_assert_str_eq(o.sweeps[0], "cluster.num_nodes=1,2,4");
	ck_assert_str_eq(o.sweeps[1], "parallel.sharding=none,fsdp");
	ck_assert_str_eq(o.sweep_metrics, "summary.peak_bytes,ring.time_s");
	ck_assert_str_eq(o.plot, "x.svg");
	dc_options_release(&o);
	ck_assert_uint_eq(o.nsweeps, 0);
	ck_assert_ptr_null(o.sweeps);

	/* a value keeps its spaces and unit: the loader reads it as a --set */
	parse_ok(&o, "--sweep", "cluster.inter_node.bandwidth=100 Gb/s,400 Gb/s", NULL);
	ck_assert_str_eq(o.sweeps[0], "cluster.inter_node.bandwidth=100 Gb/s,400 Gb/s");
	dc_options_release(&o);
	parse_ok(&o, "--plot", "chart.svg", NULL);
	ck_assert_uint_eq(o.nsweeps, 0);
	dc_options_release(&o);

	parse_err("distcalc: error: '--sweep': unknown config key 'cluster.num_node'; did you mean 'cluster.num_nodes'?", "--sweep",
		  "cluster.num_node=1,2", NULL);
	parse_err("distcalc: error: '--sweep': expected PATH=V1,V2,..., got 'cluster.num_nodes'", "--sweep",
		  "cluster.num_nodes", NULL);
	parse_err("distcalc: error: '--sweep': expected PATH=V1,V2,..., got '=1'", "--sweep", "=1", NULL);
	parse_err("distcalc: error: '--sweep': 'cluster.num_nodes': empty value in ''", "--sweep", "cluster.num_nodes=",
		  NULL);
	parse_err("distcalc: error: '--sweep': 'cluster.num_nodes': empty value in '1,'", "--sweep",
		  "cluster.num_nodes=1,", NULL);
	parse_err("distcalc: error: '--sweep': 'model' is a section; sweep one of its keys", "--sweep", "model=1", NULL);
	memset(longv, '1', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	memcpy(longv, "parallel.tp=", 12);
	parse_err("distcalc: error: '--sweep': 'parallel.tp': value '11111111111111111111111111111111...' is longer "
		  "than 63 bytes",
		  "--sweep", longv, NULL);
	parse_err("distcalc: error: '--sweep': given more than 4 times", "--sweep", "parallel.tp=1", "--sweep",
		  "parallel.pp=1", "--sweep", "parallel.dp=1", "--sweep", "parallel.ep=1", "--sweep", "model.num_layers=1",
		  NULL);
	parse_err("distcalc: error: '--sweep': 'parallel.tp' swept twice; list every value in one, as in parallel.tp=1,2,4",
		  "--sweep", "parallel.tp=1", "--sweep", "parallel.tp=2", NULL);
	parse_err("distcalc: error: '--sweep-metrics': empty path list", "--sweep", "parallel.tp=1", "--sweep-metrics",
		  "", NULL);
	parse_err("distcalc: error: '--sweep-metrics' only applies with '--sweep'", "--sweep-metrics", "a.b", NULL);
	/* --only with --sweep: the sweep's table (sweep.c checks the name) */
	{
		struct dc_options so;
		parse_ok(&so, "--sweep", "parallel.tp=1", "--only", "sweep.rows", NULL);
		ck_assert_str_eq(so.only, "sweep.rows");
		dc_options_release(&so);
	}
	parse_err("distcalc: error: '--plot': empty file name", "--plot", "", NULL);
	parse_err("distcalc: error: '--plot' and '--output' name the same file 'a'", "--plot", "a", "-o", "a", NULL);
}
END_TEST

START_TEST(test_table_is_well_formed)
{
	size_t n = 0;
	for (const struct dc_option *r = dc_option_table; r->long_name; r++, n++) {
		ck_assert_msg(strncmp(r->long_name, "--", 2) == 0 && strlen(r->long_name) > 3, "%s", r->long_name);
		ck_assert_ptr_nonnull(r->help);
		ck_assert(r->apply != NULL);
		for (const struct dc_option *q = dc_option_table; q < r; q++) {
			ck_assert_msg(strcmp(q->long_name, r->long_name) != 0, "%s twice", r->long_name);
			ck_assert_msg(!r->short_name || q->short_name != r->short_name, "-%c twice", r->short_name);
		}
	}
	/* config model experiment seed format only output trace set all check
	 * unset rtol check-max check-min check-only calibrate calibrate-compute sweep
	 * sweep-metrics plot jobs from-megatron from-torchtitan from-deepspeed
	 * emit-config list-models help version */
	ck_assert_uint_eq(n, 29);
}
END_TEST

static char *help_text(struct dc_buf *b)
{
	dc_buf_init(b);
	ck_assert_int_eq(dc_options_help(b), 0);
	ck_assert_int_eq(b->failed, 0);
	return b->data;
}

/* --help lists every row of the table: its spelling, its metavar and each
 * line of its help text, the continuation lines indented. */
START_TEST(test_help_lists_every_option)
{
	struct dc_buf b;
	const char *h = help_text(&b);
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		char left[64];
		const char *t = r->help, *at;
		size_t left_len;
		if (r->short_name)
			snprintf(left, sizeof(left), "\n  -%c, %s%s%s", r->short_name, r->long_name, r->metavar ? " " : "",
				 r->metavar ? r->metavar : "");
		else
			snprintf(left, sizeof(left), "\n      %s%s%s", r->long_name, r->metavar ? " " : "",
				 r->metavar ? r->metavar : "");
		/* the text follows on the line, or below a left part too wide
		 * for the column (--check-max PATH=VALUE) */
		at = strstr(h, left);
		left_len = strlen(left);
		ck_assert_msg(at && (at[left_len] == ' ' || (at[left_len] == '\n' && left_len - 1 + 2 > 25)),
			      "--help lacks '%s'", left + 1);
		for (;;) {
			char line[128];
			size_t n = strcspn(t, "\n");
			snprintf(line, sizeof(line), " %.*s\n", (int)n, t);
			ck_assert_msg(strstr(h, line), "--help lacks the line '%.*s' of %s", (int)n, t, r->long_name);
			if (!t[n])
				break;
			t += n + 1;
		}
	}
	dc_buf_release(&b);
}
END_TEST

START_TEST(test_help_layout)
{
	struct dc_buf b;
	const char *h = help_text(&b);
	/* the usage line first, then the sections in order */
	ck_assert_int_eq(strncmp(h, dc_options_usage, strlen(dc_options_usage)), 0);
	{
		static const char first[] =
			"usage: distcalc [--config FILE] [--model HF_CONFIG] [--experiment NAME] [--seed N]\n";
		ck_assert_int_eq(strncmp(h, first, strlen(first)), 0);
	}
	{
		const char *opts = strstr(h, "\noptions:\n"), *exps = strstr(h, "\nexperiments:\n"),
			   *exits = strstr(h, "\nexit status:\n"), *units = strstr(h, "\nUnits in configs are explicit");
		ck_assert_ptr_nonnull(opts);
		ck_assert_ptr_nonnull(exps);
		ck_assert_ptr_nonnull(exits);
		ck_assert_ptr_nonnull(units);
		ck_assert(opts < exps && exps < exits && exits < units);
		for (size_t i = 0; dc_experiments[i]; i++) {
			char line[256];
			snprintf(line, sizeof(line), "\n  %-11s %s\n", dc_experiments[i]->name, dc_experiments[i]->summary);
			ck_assert_msg(strstr(exps, line) && strstr(exps, line) < exits, "experiment %s not listed",
				      dc_experiments[i]->name);
		}
		for (int code = 0; code <= 6; code++) {
			char line[16];
			snprintf(line, sizeof(line), "\n  %d  ", code);
			ck_assert_msg(strstr(exits, line), "exit status %d not listed", code);
		}
	}
	/* rows as the hand-written help laid them out: text from column 25 */
	ck_assert_ptr_nonnull(strstr(h, "\n  -c, --config FILE      read the config from FILE (default: the built-in copy\n"
					"                         of configs/systems.json)\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n      --all              print every row of long tables (events, per-rank)\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -s, --set PATH=VALUE   override one config value, validated as if it were in\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n                           --set model.hidden_size=4096\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -f, --format FMT       table (default), json, csv, markdown (GitHub tables,\n"));
	ck_assert_ptr_nonnull(strstr(h, "\n  -V, --version          print the version and exit\n"));
	/* the generated options section fits in 80 columns (the usage
	 * synopsis, pinned by the usage goldens, runs to 82) */
	for (const char *l = strstr(h, "\noptions:\n"), *end = strstr(h, "\nexperiments:\n"); l < end;) {
		size_t n = strcspn(l, "\n");
		ck_assert_msg(n <= 80, "help line over 80 columns: %.*s", (int)n, l);
		l += n + 1;
	}
	dc_buf_release(&b);
}
END_TEST

/* Out of memory: a clean error, never a half-parsed success, no leak. */
START_TEST(test_out_of_memory)
{
	struct dc_options o;
	struct dc_diag d;
	struct dc_buf b;
	static const char *const argv[] = {"distcalc", "--set", "a=1", "--set", "b=2", "--seed", "x"};
	unsigned long n;
	for (n = 1;; n++) {
		int rc;
		dc_alloc_fail_at(n);
		dc_diag_init(&d);
		rc = dc_options_parse(7, argv, &o, &d);
		dc_alloc_fail_at(0);
		ck_assert_int_eq(rc, -1);
		if (d.status == DC_ERR_USAGE) {
			ck_assert_str_eq(d.entries[0].text, "distcalc: error: '--seed': expected an integer from 0 to "
							    "18446744073709551615, got 'x'");
			dc_diag_release(&d);
			dc_options_release(&o);
			break;
		}
		ck_assert_int_eq(d.status, DC_ERR_INTERNAL);
		dc_diag_release(&d);
		dc_options_release(&o);
		ck_assert_uint_lt(n, 100);
	}
	ck_assert_uint_gt(n, 2); /* both --set allocations were made to fail */

	dc_buf_init(&b);
	dc_alloc_fail_at(1);
	ck_assert_int_eq(dc_options_help(&b), -1);
	dc_alloc_fail_at(0);
	dc_buf_release(&b);
}
END_TEST

/* "-": --output's is standard output, --config's and --check's standard
 * input (read by main.c and dc_check_read_file); any other option would
 * open or create a file named "-", so it is refused saying what reads or
 * takes standard input. */
START_TEST(test_dash)
{
	struct dc_options o;
	parse_ok(&o, "-o", "-", "--check-max", "summary.peak_bytes=1GiB", NULL);
	ck_assert_ptr_null(o.output);
	dc_options_release(&o);
	parse_ok(&o, "--check", "b.json", "--output=-", NULL);
	ck_assert_ptr_null(o.output);
	dc_options_release(&o);
	parse_err("distcalc: error: '--output': given twice ('-', then 'x'); give it once", "-o", "-", "-o", "x", NULL);
	parse_ok(&o, "-c", "-", NULL);
	ck_assert_str_eq(o.config, "-");
	dc_options_release(&o);
	parse_ok(&o, "--check", "-", NULL);
	ck_assert_str_eq(o.check, "-");
	dc_options_release(&o);
	parse_err("distcalc: error: '--config -' and '--check -' both read standard input; give one of them a file", "-c",
		  "-", "--check", "-", NULL);
	parse_err("distcalc: error: '--plot': '-' is not taken: standard output holds the report; give /dev/stdout to "
		  "write it there after the report, or ./- for a file named '-'",
		  "--plot", "-", NULL);
	parse_err("distcalc: error: '--trace': '-' is not taken: standard output holds the report; give /dev/stdout to "
		  "write it there after the report, or ./- for a file named '-'",
		  "--trace", "-", NULL);
	parse_err("distcalc: error: '--model': '-' (standard input) is read only by '--config' and '--check'; give a "
		  "file (./- for one named '-')",
		  "-m", "-", NULL);
	parse_err("distcalc: error: '--calibrate': '-' (standard input) is read only by '--config' and '--check'; give "
		  "a file (./- for one named '-')",
		  "--calibrate", "-", NULL);
	parse_err("distcalc: error: '--calibrate-compute': '-' (standard input) is read only by '--config' and "
		  "'--check'; give a file (./- for one named '-')",
		  "--calibrate-compute", "-", NULL);
	parse_err("distcalc: error: '--from-megatron': '-' (standard input) is read only by '--config' and '--check'; "
		  "give a file (./- for one named '-')",
		  "--from-megatron", "-", NULL);
	/* the line says what to write: no synopsis after it */
	{
		struct dc_diag d;
		static const char *const argv[] = {"distcalc", "--plot", "-"};
		dc_diag_init(&d);
		ck_assert_int_eq(dc_options_parse(3, argv, &o, &d), -1);
		ck_assert_int_eq(o.value_error, 1);
		dc_diag_release(&d);
		dc_options_release(&o);
	}
}
END_TEST

/* Blanks around each item of --only, --check-only and --sweep-metrics
 * are dropped, as --set and --sweep drop them around a value (a CI file's
 * YAML adds them: --only 'summary, memory' was "unknown section
 * ' memory'"); a list without any is argv's own string. */
START_TEST(test_list_blanks_trimmed)
{
	struct dc_options o;
	static const char plain[] = "summary,memory";
	parse_ok(&o, "--only", "summary, memory", NULL);
	ck_assert_str_eq(o.only, "summary,memory");
	dc_options_release(&o);
	parse_ok(&o, "--only", " summary\t,memory.per_rank.phases \r\n", NULL);
	ck_assert_str_eq(o.only, "summary,memory.per_rank.phases");
	dc_options_release(&o);
	parse_ok(&o, "--only", plain, NULL);
	ck_assert_ptr_eq(o.only, plain);
	dc_options_release(&o);
	parse_err("distcalc: error: '--only': empty section list", "--only", " ", NULL);
	parse_ok(&o, "--check", "b.json", "--check-only", "summary.peak_bytes, step.time_s", NULL);
	ck_assert_str_eq(o.check_only, "summary.peak_bytes,step.time_s");
	dc_options_release(&o);
	parse_err("distcalc: error: '--check-only': empty path in 'a, ,b'", "--check", "b.json", "--check-only", "a, ,b",
		  NULL);
	parse_err("distcalc: error: '--check-only': empty path in ' '", "--check", "b.json", "--check-only", " ", NULL);
	parse_ok(&o, "--sweep", "cluster.num_nodes=1,2", "--sweep-metrics", "summary.peak_bytes, step.time_s ", NULL);
	ck_assert_str_eq(o.sweep_metrics, "summary.peak_bytes,step.time_s");
	dc_options_release(&o);
	parse_err("distcalc: error: '--sweep-metrics': empty path list", "--sweep", "cluster.num_nodes=1,2",
		  "--sweep-metrics", "\t", NULL);
	/* a budget's PATH and VALUE (dc_check_max_parse) */
	parse_ok(&o, "--check-max", "summary.peak_bytes=80GiB ", "--check-min", " step.mfu = 0.3", NULL);
	ck_assert_str_eq(o.maxes[0].path, "summary.peak_bytes");
	ck_assert_str_eq(o.maxes[0].value, "80GiB");
	ck_assert(o.maxes[0].limit == 85899345920.0);
	ck_assert_str_eq(o.maxes[1].path, "step.mfu");
	ck_assert(o.maxes[1].limit == 0.3);
	dc_options_release(&o);
	/* the same budget with and without blanks is one budget given twice */
	parse_err("distcalc: error: '--check-max': 'summary.peak_bytes' given twice (80GiB and 80GiB): give one",
		  "--check-max", "summary.peak_bytes=80GiB", "--check-max", "summary.peak_bytes= 80GiB", NULL);
}
END_TEST

/* --check, --check-max and --check-min compare the JSON report: --format
 * json, which stored it, is taken; any other --format is refused, and
 * --help says both. */
START_TEST(test_format_with_checks)
{
	struct dc_options o;
	struct dc_buf b;
	parse_ok(&o, "-f", "json", "--check-max", "summary.peak_bytes=80GiB", NULL);
	ck_assert_int_eq(o.format, DC_FORMAT_JSON);
	dc_options_release(&o);
	parse_ok(&o, "-f", "json", "--check", "b.json", NULL);
	dc_options_release(&o);
	parse_err("distcalc: error: '--format table' does not apply with '--check-max': it compares the JSON report and "
		  "prints the differences as lines",
		  "-f", "table", "--check-max", "summary.peak_bytes=80GiB", NULL);
	parse_err("distcalc: error: '--format csv' does not apply with '--check-min': it compares the JSON report and "
		  "prints the differences as lines",
		  "--check-min", "step.mfu=0.3", "-f", "csv", NULL);
	parse_err("distcalc: error: '--format markdown' does not apply with '--check': it compares the JSON report and "
		  "prints the differences as lines",
		  "--check", "b.json", "-f", "markdown", NULL);
	dc_buf_init(&b);
	ck_assert_int_eq(dc_options_help(&b), 0);
	ck_assert_ptr_nonnull(strstr(b.data, "exactly. It compares the JSON report: --format json\n"
					     "                         is taken, any other --format refused\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "or without --check; --format as with --check.\n"));
	/* and the other documented readings of this change */
	ck_assert_ptr_nonnull(strstr(b.data, "('-' is standard output)\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "'-' reads standard input; the files it names\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "most one per online CPU (a note says when fewer);\n"));
	dc_buf_release(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_string_options);
	tcase_add_test(tc, test_values_are_taken_verbatim);
	tcase_add_test(tc, test_seed);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_set_repeats_in_order);
	tcase_add_test(tc, test_flags_and_check);
	tcase_add_test(tc, test_rtol_decimal);
	tcase_add_test(tc, test_check_max);
	tcase_add_test(tc, test_check_only);
	tcase_add_test(tc, test_sweep);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_usage_errors);
	tcase_add_test(tc, test_needs_a_value);
	tcase_add_test(tc, test_suggestions);
	tcase_add_test(tc, test_table_is_well_formed);
	tcase_add_test(tc, test_help_lists_every_option);
	tcase_add_test(tc, test_usage_names_every_option);
	tcase_add_test(tc, test_help_layout);
	tcase_add_test(tc, test_out_of_memory);
	tcase_add_test(tc, test_dash);
	tcase_add_test(tc, test_list_blanks_trimmed);
	tcase_add_test(tc, test_format_with_checks);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
