/* check_memo_verify.c - the DISTCALC_VERIFY_MEMOS switch (memo_verify.h)
 * can fail: built only with the switch on (CMakeLists.txt).
 *
 * With the switch on, every memo hit is computed again and compared. An
 * honest hit passes (the same step twice on one plan, its memos lent); a
 * hit on an entry the test corrupted (one value moved by a ulp, a byte, a
 * factor 2, as a key that left out an input the function reads would
 * leave it) aborts, and names the memo and the first member that differs
 * on stderr. Each case runs in a child of its own (fork), its stderr read
 * back through a pipe.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/step.h"

static struct dc_config cfg;
static struct dc_plan plan;
static struct dc_results res;
static struct dc_step_memo *step_memo;
static struct dc_mem_memo *mem_memo;
static struct dc_net_memo *net_memo;
static struct dc_comm_memo *comm_memo;

/* configs/korthikanti-175b.json (pp 8, interleaved: the step memo and the
 * ledger memo both apply) as a search's plan: every memo lent; `dp2`: on
 * tp 4 x dp 2, so that the data-parallel axis has calls; `uneven`:
 * configs/deepseek-v3-bridge-h100.json instead (uneven chunks: the step
 * simulated, its op order and simulation memoised) */
static void load(int dp2, int uneven)
{
	static const struct dc_override ov[] = {{"parallel.tp=4", 0}, {"parallel.dp=2", 0}};
	char path[512];
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR,
		 uneven ? "deepseek-v3-bridge-h100.json" : "korthikanti-175b.json");
	dp2 = dp2 && !uneven;
	dc_diag_init(&d);
	if (dc_config_load_file(path, dp2 ? ov : NULL, dp2 ? 2 : 0, &cfg, &d) != 0)
		ck_abort_msg("%s: does not load", path);
	dc_diag_release(&d);
	if (dc_plan_derive(&cfg, &plan) != 0)
		ck_abort_msg("plan: %s", plan.error);
	step_memo = dc_step_memo_new();
	mem_memo = dc_mem_memo_new();
	net_memo = calloc(1, sizeof(*net_memo));
	comm_memo = dc_comm_memo_new();
	ck_assert(step_memo && mem_memo && net_memo && comm_memo);
	dc_net_memo_bind(net_memo, &plan.net);
	plan.step_memo = step_memo;
	plan.mem_memo = mem_memo;
	plan.net_memo = net_memo;
	plan.comm_memo = comm_memo;
}

/* the report's step (and what it needs: the ledger, the collectives) */
static void step(void)
{
	if (dc_estimate(&plan, DC_EST_BIT(DC_EST_STEP) | DC_EST_BIT(DC_EST_MEMORY), &res) != 0)
		ck_abort_msg("estimate: %s", res.error);
}

enum corrupt { NONE, STEP, MEM, NET, COMM, NONE_DP2, NONE_UNEVEN, ORDER, SIM, DP };

/* In a child: the step once (the memos filled), `what` corrupted, the
 * step again (every memo hit). Exits 0 when nothing aborted. */
static void child(enum corrupt what)
{
	load(what == COMM || what == NONE_DP2 || what == DP, what == NONE_UNEVEN || what == ORDER || what == SIM);
	step();
	if (what == ORDER || what == SIM)
		dc_step_memo_corrupt_sim(step_memo, what == ORDER);
	else if (what == STEP)
		dc_step_memo_corrupt(step_memo);
	else if (what == MEM)
		dc_mem_memo_corrupt(mem_memo);
	else if (what == NET)
		dc_net_memo_corrupt(net_memo);
	else if (what == COMM)
		dc_comm_memo_corrupt(comm_memo);
	else if (what == DP && dc_step_memo_corrupt_dp(step_memo) == 0)
		exit(2); /* no rank with rows of its own: nothing to test */
	step();
	exit(0);
}

/* Runs child(what) in a process of its own: its wait status, and what it
 * wrote to stderr into err */
static int run_child(enum corrupt what, char *err, size_t len)
{
	int fd[2], status = 0;
	size_t n = 0;
	ssize_t got;
	pid_t pid;
	ck_assert_int_eq(pipe(fd), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		child(what);
	}
	close(fd[1]);
	while (n + 1 < len && (got = read(fd[0], err + n, len - 1 - n)) > 0)
		n += (size_t)got;
	err[n] = '\0';
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void assert_aborts(enum corrupt what, const char *memo, const char *member)
{
	static char err[8192];
	int status = run_child(what, err, sizeof(err));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "no abort (status %d); stderr: %s", status,
		      err);
	ck_assert_msg(strstr(err, "distcalc: memo verify: ") != NULL, "stderr: %s", err);
	ck_assert_msg(strstr(err, memo) != NULL, "memo '%s' not named; stderr: %s", memo, err);
	ck_assert_msg(strstr(err, member) != NULL, "member '%s' not named; stderr: %s", member, err);
}

/* Honest hits (the same plan's step twice) pass the check, with and
 * without data-parallel calls */
START_TEST(test_honest_hits_pass)
{
	static char err[8192];
	int status = run_child(NONE, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d; stderr: %s", status, err);
	ck_assert_str_eq(err, "");
	status = run_child(NONE_DP2, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "dp 2: status %d; stderr: %s", status, err);
	ck_assert_str_eq(err, "");
	status = run_child(NONE_UNEVEN, err, sizeof(err));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "uneven: status %d; stderr: %s", status, err);
	ck_assert_str_eq(err, "");
}
END_TEST

/* Stage 0's first backward one ulp off in the step memo */
START_TEST(test_step_memo_corrupted_aborts)
{
	assert_aborts(STEP, "step memo", "first.bwd_first_s differs");
}
END_TEST

/* Rank 0's first op one microbatch on in the kept op order of a
 * simulated step (uneven chunks) */
START_TEST(test_order_memo_corrupted_aborts)
{
	assert_aborts(ORDER, "op order memo", "stage 0's differs");
}
END_TEST

/* The span of the last simulation one ulp off */
START_TEST(test_sim_memo_corrupted_aborts)
{
	assert_aborts(SIM, "simulation memo", "span differs");
}
END_TEST

/* One byte more of every slot's layers' activations in the ledger memo */
START_TEST(test_mem_memo_corrupted_aborts)
{
	assert_aborts(MEM, "memory-ledger memo", "activation part.activation_layers_bytes differs");
}
END_TEST

/* Every price the network memo keeps doubled */
START_TEST(test_net_memo_corrupted_aborts)
{
	assert_aborts(NET, "network price memo", "choice.time_s differs");
}
END_TEST

/* Every kept rank's DP calls one ulp slower: the 175B on tp 4 x dp 2,
 * where stage 0 (the embedding and its learned positions) holds more
 * parameters than stage 7 (the tied head's copy and the final norm), so
 * stage 7 syncs rows of its own, kept across layouts (step.c rank_dp) */
START_TEST(test_dp_memo_corrupted_aborts)
{
	assert_aborts(DP, "a rank's DP calls kept across a search's layouts", "seconds differs");
}
END_TEST

/* Every call the data-parallel axes' memo keeps one ulp slower */
START_TEST(test_comm_memo_corrupted_aborts)
{
	assert_aborts(COMM, "data-parallel axes' calls", "s[dp].coll[0].time_s differs");
}
END_TEST

static Suite *memo_verify_suite(void)
{
	Suite *s = suite_create("memo_verify");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_honest_hits_pass);
	tcase_add_test(tc, test_step_memo_corrupted_aborts);
	tcase_add_test(tc, test_order_memo_corrupted_aborts);
	tcase_add_test(tc, test_sim_memo_corrupted_aborts);
	tcase_add_test(tc, test_mem_memo_corrupted_aborts);
	tcase_add_test(tc, test_net_memo_corrupted_aborts);
	tcase_add_test(tc, test_comm_memo_corrupted_aborts);
	tcase_add_test(tc, test_dp_memo_corrupted_aborts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(memo_verify_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
