/* check_topo_file.c - `nvidia-smi topo -m` matrices: the DGX-H100-like and
 * PCIe samples of tests/data (written for these tests, tests/data/README.md),
 * NVLink pairs, the text without tabs, and each malformed matrix with the
 * line its error names. What is asserted was read off the matrices by eye. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/topo_file.h"

#define DATA DC_SOURCE_DIR "/tests/data/"

START_TEST(dgx_h100_like)
{
	static struct dc_topo_file t;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_topo_file_read(DATA "topo-dgx-h100-like.txt", &t, &d), 0);
	ck_assert_uint_eq(t.ngpus, 8);
	ck_assert_uint_eq(t.nnics, 10);
	ck_assert_uint_eq(t.nvlink_domain, 8);   /* every pair NV18: one NVSwitch domain */
	ck_assert_uint_eq(t.nvlinks_per_pair, 18);
	ck_assert_uint_eq(t.nics_per_node, 8);   /* NIC8, NIC9 (storage) are nobody's nearest */
	for (int g = 0; g < 8; g++) {
		ck_assert_int_eq(t.gpu_nic_index[g], g); /* rail-optimised: GPU i on NIC i */
		ck_assert_int_eq(t.gpu_nic_path[g], DC_TOPO_PIX);
	}
	ck_assert_int_eq(t.worst_nic_path, DC_TOPO_PIX);
	ck_assert_str_eq(t.nic_name[3], "mlx5_3");
	ck_assert_int_eq(t.gpu_nic[0][4], DC_TOPO_SYS);
	ck_assert_int_eq(t.gpu_nic[0][8], DC_TOPO_NODE);
	dc_diag_release(&d);
}
END_TEST

START_TEST(pcie_box)
{
	static struct dc_topo_file t;
	struct dc_diag d;
	static const int nic[8] = {0, 0, 0, 0, 1, 1, 1, 1};
	static const enum dc_topo_path path[8] = {DC_TOPO_PIX,  DC_TOPO_PIX, DC_TOPO_NODE, DC_TOPO_NODE,
						  DC_TOPO_PIX,  DC_TOPO_PIX, DC_TOPO_NODE, DC_TOPO_NODE};
	dc_diag_init(&d);
	ck_assert_int_eq(dc_topo_file_read(DATA "topo-pcie-8gpu.txt", &t, &d), 0);
	ck_assert_uint_eq(t.ngpus, 8);
	ck_assert_uint_eq(t.nnics, 2);
	ck_assert_uint_eq(t.nvlink_domain, 1); /* no NVLink */
	ck_assert_uint_eq(t.nvlinks_per_pair, 0);
	ck_assert_uint_eq(t.nics_per_node, 2);
	for (int g = 0; g < 8; g++) {
		ck_assert_int_eq(t.gpu_nic_index[g], nic[g]);
		ck_assert_int_eq(t.gpu_nic_path[g], path[g]);
	}
	ck_assert_int_eq(t.worst_nic_path, DC_TOPO_NODE);
	ck_assert_int_eq(t.gpu_gpu[0][1], DC_TOPO_PIX);
	ck_assert_int_eq(t.gpu_gpu[0][2], DC_TOPO_NODE);
	ck_assert_int_eq(t.gpu_gpu[0][7], DC_TOPO_SYS);
	dc_diag_release(&d);
}
END_TEST

static int parse(const char *text, struct dc_topo_file *t, struct dc_diag *d)
{
	dc_diag_init(d);
	return dc_topo_file_parse(text, strlen(text), "topo.txt", t, d);
}

/* Four PCIe GPUs with NVLink bridges on pairs (0-1, 2-3), old column names
 * (mlx5_0), SOC for SYS, no affinity columns, spaces instead of tabs. */
START_TEST(bridged_pairs_without_tabs)
{
	static const char text[] =
		"        GPU0    GPU1    GPU2    GPU3    mlx5_0  CPU Affinity\n"
		"GPU0     X      NV12    SOC     SOC     PHB     0-15\n"
		"GPU1    NV12     X      SOC     SOC     PHB     0-15\n"
		"GPU2    SOC     SOC      X      NV12    SOC     16-31\n"
		"GPU3    SOC     SOC     NV12     X      SOC     16-31\n"
		"mlx5_0  PHB     PHB     SOC     SOC      X \n"
		"\nLegend:\n\n  X   = Self\n  SOC  = Connection traversing PCIe as well as the SMP link between CPU sockets\n";
	static struct dc_topo_file t;
	struct dc_diag d;
	ck_assert_msg(parse(text, &t, &d) == 0, "%s", d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(t.ngpus, 4);
	ck_assert_uint_eq(t.nvlink_domain, 2);
	ck_assert_uint_eq(t.nvlinks_per_pair, 12);
	ck_assert_uint_eq(t.nics_per_node, 1);
	ck_assert_int_eq(t.gpu_nic_path[0], DC_TOPO_PHB);
	ck_assert_int_eq(t.gpu_nic_path[3], DC_TOPO_SYS);
	ck_assert_int_eq(t.worst_nic_path, DC_TOPO_SYS);
	ck_assert_str_eq(t.nic_name[0], "mlx5_0");
	dc_diag_release(&d);
}
END_TEST

#define HEAD "\tGPU0\tGPU1\tNIC0\tCPU Affinity\n"
static const struct {
	const char *text, *want;
} bad[] = {
	{"", "topo.txt: error: empty file; expected the output of `nvidia-smi topo -m`"},
	{"nvidia-smi: command not found\n",
	 "topo.txt:1: error: not `nvidia-smi topo -m` output: expected the header row GPU0 GPU1 ... (this line reads "
	 "'nvidia-smi: command not found')"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU1\tNV4\t X \tPIZ\t0-7\n",
	 "topo.txt:3: error: GPU1 to NIC0: 'PIZ' is not one of X, NV#, PIX, PXB, PHB, NODE, SYS"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU1\tNV4\tNV4\tPIX\t0-7\n",
	 "topo.txt:3: error: GPU1 to GPU1: expected X (the device itself)"},
	{HEAD "GPU0\t X \t X \tPIX\t0-7\n", "topo.txt:2: error: GPU0 to GPU1: X off the diagonal"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU1\tPIX\t X \tPIX\t0-7\n",
	 "topo.txt:3: error: GPU1 to GPU0 is PIX but GPU0 to GPU1 on line 2 is NV4"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\n",
	 "topo.txt:2: error: no row for GPU1: the header (line 1) has 2 GPUs; is the file truncated?"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU1\tNV4\t X\n",
	 "topo.txt:3: error: row 'GPU1' has 2 cells; the header (line 1) has 3 GPU and NIC columns"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU2\tNV4\t X \tPIX\t0-7\n",
	 "topo.txt:3: error: row 'GPU2' but the header (line 1) has GPU0 to GPU1"},
	{HEAD "GPU0\t X \tNV4\tPIX\t0-7\nGPU1\tNV4\t X \tPIX\t0-7\nmlx5_9\tPIX\tPIX\t X \n",
	 "topo.txt:4: error: row 'mlx5_9' is not a GPU or NIC of the header (line 1)"},
	{HEAD "GPU0\t X \tNV4\tNV2\t0-7\n", "topo.txt:2: error: GPU0 to NIC0: NVLink between a GPU and a NIC"},
	{"\tGPU1\tGPU0\n", "topo.txt:1: error: column 'GPU1' where GPU0 was expected (GPUs in order from GPU0)"},
	{"GPU0\t X \x01\n", "topo.txt:1: error: binary data (a NUL or control byte); expected the output of `nvidia-smi topo -m`"},
};

START_TEST(malformed)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		static struct dc_topo_file t;
		struct dc_diag d;
		ck_assert_int_eq(parse(bad[i].text, &t, &d), -1);
		ck_assert_uint_eq(d.count, 1);
		ck_assert_msg(strcmp(d.entries[0].text, bad[i].want) == 0, "case %zu:\n got  %s\n want %s", i,
			      d.entries[0].text, bad[i].want);
		ck_assert_uint_eq(t.ngpus, 0);
		dc_diag_release(&d);
	}
}
END_TEST

/* cluster.topology_file in a config: relative to the config's directory,
 * it fills nvlink_domain, nics_per_node and nic_path. */
START_TEST(config_key)
{
	static struct dc_config cfg;
	struct dc_diag d;
	struct dc_override ov = {"cluster.topology_file=" DATA "topo-pcie-8gpu.txt"};
	struct dc_load_opts o = {&ov, 1, NULL, 0};
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/tests/inputs/topology_h100.json", NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.nvlink_domain, 8);
	ck_assert_uint_eq(cfg.cluster.nics_per_node, 8);
	ck_assert_int_eq(cfg.cluster.nic_path, DC_NIC_PATH_PIX);
	ck_assert_str_eq(cfg.cluster.topology_file, DC_SOURCE_DIR "/tests/inputs/../data/topo-dgx-h100-like.txt");
	dc_diag_release(&d);
	/* the PCIe box through --set: no NVLink, 2 NICs, the worst path NODE (counted as PHB) */
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_file_opts(DC_SOURCE_DIR "/tests/inputs/topology_h100.json", &o, &cfg, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(cfg.cluster.nvlink_domain, 8); /* the node: the model's smallest domain */
	ck_assert_uint_eq(cfg.cluster.nics_per_node, 2);
	ck_assert_int_eq(cfg.cluster.nic_path, DC_NIC_PATH_PHB);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_int_eq(d.entries[0].severity, DC_SEV_WARNING);
	ck_assert_str_eq(d.entries[0].text,
			 "--set: 'cluster.topology_file': no two GPUs share NVLink; the network model prices "
			 "the node as one domain at cluster.intra_node.bandwidth (450 GB/s): give the PCIe or bridge "
			 "rate there");
	dc_diag_release(&d);
}
END_TEST

/* Who wins: a key the config or --set gives over the file, the file over
 * a cluster.system preset (dgx-h100: 8 NICs per node). */
START_TEST(config_key_precedence)
{
	static struct dc_config cfg;
	struct dc_diag d;
	struct dc_override ov[3] = {{"cluster.system=dgx-h100"},
				    {"cluster.topology_file=" DATA "topo-pcie-8gpu.txt"},
				    {"cluster.nic_path=sys"}};
	struct dc_load_opts o = {ov, 3, NULL, 0};
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_file_opts(DC_SOURCE_DIR "/tests/inputs/topology_h100.json", &o, &cfg, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "");
	ck_assert_uint_eq(cfg.cluster.nics_per_node, 2);          /* the file over the preset's 8 */
	ck_assert_int_eq(cfg.cluster.nic_path, DC_NIC_PATH_SYS); /* --set over the file's phb */
	dc_diag_release(&d);
	ov[2].text = "cluster.nics_per_node=4";
	ov[2].unset = 0;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file_opts(DC_SOURCE_DIR "/tests/inputs/topology_h100.json", &o, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.nics_per_node, 4);
	ck_assert_int_eq(cfg.cluster.nic_path, DC_NIC_PATH_PHB);
	dc_diag_release(&d);
}
END_TEST

START_TEST(config_key_bad_file)
{
	static struct dc_config cfg;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/tests/inputs/topology_bad.json", NULL, 0, &cfg, &d), -1);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_int_eq(d.status, DC_ERR_CONFIG);
	ck_assert_str_eq(d.entries[0].key, "cluster.topology_file");
	ck_assert_str_eq(d.entries[0].text, DC_SOURCE_DIR "/tests/inputs/../data/topo_bad_cell.txt:3: error: GPU1 to NIC0: "
							  "'PXX' is not one of X, NV#, PIX, PXB, PHB, NODE, SYS (named by "
							  "'cluster.topology_file' in " DC_SOURCE_DIR "/tests/inputs/topology_bad.json)");
	dc_diag_release(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topo_file");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_add_test(tc, dgx_h100_like);
	tcase_add_test(tc, pcie_box);
	tcase_add_test(tc, bridged_pairs_without_tabs);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, config_key);
	tcase_add_test(tc, config_key_precedence);
	tcase_add_test(tc, config_key_bad_file);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
