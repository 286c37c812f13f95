/* topo_file.c - `nvidia-smi topo -m` reader; see topo_file.h and
 * docs/nccl-tools.md, "The topology file". */
#include "distcalc/topo_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/textfile.h"
#include "distcalc/util.h"

static const char *const path_names[DC_TOPO_PATH_COUNT] = {"X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};

const char *dc_topo_path_name(enum dc_topo_path p)
{
	return (unsigned)p < DC_TOPO_PATH_COUNT ? path_names[p] : "?";
}

#define MAX_CELLS (DC_TOPO_MAX_GPUS + DC_TOPO_MAX_NICS + 8)

struct tparser {
	const char *name;
	struct dc_diag *diag;
	struct dc_topo_file *t;
	int failed;
	size_t head_line;
	char col_name[DC_TOPO_MAX_NICS][32]; /* the NIC columns' names */
	size_t gpu_line[DC_TOPO_MAX_GPUS];   /* the line of each GPU's row; 0: not seen */
	int use_tabs;
};

static void tfail(struct tparser *p, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void tfail(struct tparser *p, size_t line, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	dc_text_error(p->diag, DC_ERR_CONFIG, p->name, line, fmt, ap);
	va_end(ap);
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Splits a row into cells at tabs (nvidia-smi's separator); a text
 * without tabs (pasted through something that expanded them) at runs of
 * two or more spaces or a single space before a word of the matrix. The
 * first cell is the row's name (empty in the header). */
static size_t cells(char *s, int use_tabs, char **cell)
{
	size_t n = 0;
	if (use_tabs) {
		for (;;) {
			char *tab = strchr(s, '\t');
			if (n == MAX_CELLS)
				break;
			if (tab)
				*tab = '\0';
			cell[n++] = trim(s);
			if (!tab)
				break;
			s = tab + 1;
		}
		/* a trailing tab leaves an empty last cell */
		while (n > 1 && !*cell[n - 1])
			n--;
		return n;
	}
	while (*s && n < MAX_CELLS) {
		char *start = s;
		while (*s && !(s[0] == ' ' && s[1] == ' '))
			s++;
		if (*s)
			*s++ = '\0';
		cell[n++] = trim(start);
		while (*s == ' ')
			s++;
	}
	return n;
}

static int gpu_index(const char *s, size_t *i)
{
	char *end;
	unsigned long v;
	if (strncmp(s, "GPU", 3) != 0 || s[3] < '0' || s[3] > '9')
		return -1;
	v = strtoul(s + 3, &end, 10);
	if (*end)
		return -1;
	*i = (size_t)v;
	return 0;
}

static int is_affinity(const char *s)
{
	return strcmp(s, "CPU Affinity") == 0 || strcmp(s, "NUMA Affinity") == 0 || strcmp(s, "GPU NUMA ID") == 0;
}

/* A cell of the matrix: X, NV#, PIX, PXB, PHB, NODE, SYS (SOC). */
static int read_cell(const char *s, enum dc_topo_path *path, unsigned *links)
{
	static const struct {
		const char *word;
		enum dc_topo_path path;
	} words[] = {
		{"X", DC_TOPO_X},     {"PIX", DC_TOPO_PIX},   {"PXB", DC_TOPO_PXB}, {"PHB", DC_TOPO_PHB},
		{"NODE", DC_TOPO_NODE}, {"SYS", DC_TOPO_SYS}, {"SOC", DC_TOPO_SYS},
	};
	*links = 0;
	if (s[0] == 'N' && s[1] == 'V' && s[2] >= '1' && s[2] <= '9') {
		char *end;
		unsigned long v = strtoul(s + 2, &end, 10);
		if (*end || v > 255)
			return -1;
		*path = DC_TOPO_NV;
		*links = (unsigned)v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(s, words[i].word) == 0) {
			*path = words[i].path;
			return 0;
		}
	return -1;
}

static void read_header(struct tparser *p, char **cell, size_t n, size_t line)
{
	struct dc_topo_file *t = p->t;
	size_t c = 1;
	for (; c < n && !is_affinity(cell[c]); c++) {
		size_t g;
		if (gpu_index(cell[c], &g) == 0) {
			if (t->nnics) {
				tfail(p, line, "GPU column '%s' after the NIC columns", cell[c]);
				return;
			}
			if (g != t->ngpus) {
				tfail(p, line, "column '%s' where GPU%zu was expected (GPUs in order from GPU0)", cell[c],
				      t->ngpus);
				return;
			}
			if (t->ngpus == DC_TOPO_MAX_GPUS) {
				tfail(p, line, "more than %d GPUs", DC_TOPO_MAX_GPUS);
				return;
			}
			t->ngpus++;
		} else {
			if (t->nnics == DC_TOPO_MAX_NICS) {
				tfail(p, line, "more than %d NICs", DC_TOPO_MAX_NICS);
				return;
			}
			if (!*cell[c]) {
				tfail(p, line, "an empty column name");
				return;
			}
			snprintf(p->col_name[t->nnics], sizeof(p->col_name[0]), "%s", cell[c]);
			snprintf(t->nic_name[t->nnics], sizeof(t->nic_name[0]), "%s", cell[c]);
			t->nnics++;
		}
	}
	if (t->ngpus == 0) {
		tfail(p, line, "a header without GPU columns");
		return;
	}
	p->head_line = line;
}

static void read_row(struct tparser *p, char **cell, size_t n, size_t line)
{
	struct dc_topo_file *t = p->t;
	size_t g = 0, nic = 0, width = t->ngpus + t->nnics;
	int is_gpu = gpu_index(cell[0], &g) == 0;

	if (is_gpu) {
		if (g >= t->ngpus) {
			tfail(p, line, "row '%s' but the header (line %zu) has GPU0 to GPU%zu", cell[0], p->head_line,
			      t->ngpus - 1);
			return;
		}
		if (p->gpu_line[g]) {
			tfail(p, line, "a second row for %s (line %zu has one)", cell[0], p->gpu_line[g]);
			return;
		}
	} else {
		for (nic = 0; nic < t->nnics; nic++)
			if (strcmp(cell[0], p->col_name[nic]) == 0)
				break;
		if (nic == t->nnics) {
			char shown[80];
			dc_fmt_printable(shown, sizeof(shown), cell[0]);
			tfail(p, line, "row '%s' is not a GPU or NIC of the header (line %zu)", shown, p->head_line);
			return;
		}
	}
	if (n < 1 + width) {
		tfail(p, line, "row '%s' has %zu cells; the header (line %zu) has %zu GPU and NIC columns", cell[0],
		      n - 1, p->head_line, width);
		return;
	}
	for (size_t c = 0; c < width; c++) {
		enum dc_topo_path path;
		unsigned links;
		int self = is_gpu ? c == g : c == t->ngpus + nic;
		const char *col = c < t->ngpus ? "GPU" : p->col_name[c - t->ngpus];
		char colbuf[40];
		if (c < t->ngpus) {
			snprintf(colbuf, sizeof(colbuf), "GPU%zu", c);
			col = colbuf;
		}
		if (read_cell(cell[1 + c], &path, &links) != 0) {
			char shown[40];
			dc_fmt_printable(shown, sizeof(shown), cell[1 + c]);
			tfail(p, line, "%s to %s: '%s' is not one of X, NV#, PIX, PXB, PHB, NODE, SYS", cell[0], col,
			      shown);
			return;
		}
		if ((path == DC_TOPO_X) != self) {
			tfail(p, line, "%s to %s: %s", cell[0], col,
			      self ? "expected X (the device itself)" : "X off the diagonal");
			return;
		}
		if (path == DC_TOPO_NV && (!is_gpu || c >= t->ngpus)) {
			tfail(p, line, "%s to %s: NVLink between a GPU and a NIC", cell[0], col);
			return;
		}
		if (!is_gpu)
			continue;
		if (c < t->ngpus) {
			t->gpu_gpu[g][c] = (unsigned char)path;
			t->nvlinks[g][c] = (unsigned char)links;
		} else {
			t->gpu_nic[g][c - t->ngpus] = (unsigned char)path;
		}
	}
	if (is_gpu)
		p->gpu_line[g] = line;
}

/* "  NIC0: mlx5_0" */
static void read_nic_legend(struct tparser *p, const char *s)
{
	const char *colon = strchr(s, ':');
	char key[32], val[32];
	size_t kl;
	if (!colon)
		return;
	kl = (size_t)(colon - s);
	if (kl >= sizeof(key))
		return;
	memcpy(key, s, kl);
	key[kl] = '\0';
	snprintf(val, sizeof(val), "%s", colon + 1);
	for (size_t i = 0; i < p->t->nnics; i++)
		if (strcmp(trim(key), p->col_name[i]) == 0)
			snprintf(p->t->nic_name[i], sizeof(p->t->nic_name[i]), "%s", trim(val));
}

static void derive(struct tparser *p)
{
	struct dc_topo_file *t = p->t;
	size_t n = t->ngpus;
	int used[DC_TOPO_MAX_NICS] = {0};

	/* the mirror of every GPU-GPU cell */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (t->gpu_gpu[i][j] != t->gpu_gpu[j][i] || t->nvlinks[i][j] != t->nvlinks[j][i]) {
				tfail(p, p->gpu_line[j],
				      "GPU%zu to GPU%zu is %s%.0u but GPU%zu to GPU%zu on line %zu is %s%.0u", j, i,
				      path_names[t->gpu_gpu[j][i]], (unsigned)t->nvlinks[j][i], i, j, p->gpu_line[i],
				      path_names[t->gpu_gpu[i][j]], (unsigned)t->nvlinks[i][j]);
				return;
			}
	/* nvlink_domain: the largest k | n whose blocks are NVLink cliques */
	for (size_t k = n; k >= 1; k--) {
		int ok = n % k == 0;
		unsigned fewest = 0;
		for (size_t b = 0; ok && b < n; b += k)
			for (size_t i = b; ok && i < b + k; i++)
				for (size_t j = b; ok && j < b + k; j++) {
					if (i == j)
						continue;
					ok = t->gpu_gpu[i][j] == DC_TOPO_NV;
					if (ok && (fewest == 0 || t->nvlinks[i][j] < fewest))
						fewest = t->nvlinks[i][j];
				}
		if (ok) {
			t->nvlink_domain = k;
			t->nvlinks_per_pair = fewest;
			break;
		}
	}
	/* each GPU's NIC */
	t->worst_nic_path = DC_TOPO_X;
	for (size_t g = 0; g < n; g++) {
		int best = -1;
		t->gpu_nic_index[g] = -1;
		t->gpu_nic_path[g] = DC_TOPO_X;
		for (size_t k = 0; k < t->nnics; k++) {
			if (best < 0 || t->gpu_nic[g][k] < t->gpu_nic[g][best] ||
			    (t->gpu_nic[g][k] == t->gpu_nic[g][best] && used[k] < used[best]))
				best = (int)k;
		}
		if (best < 0)
			continue;
		used[best]++;
		t->gpu_nic_index[g] = best;
		t->gpu_nic_path[g] = (enum dc_topo_path)t->gpu_nic[g][best];
		if (t->gpu_nic_path[g] > t->worst_nic_path)
			t->worst_nic_path = t->gpu_nic_path[g];
	}
	t->nics_per_node = 0;
	for (size_t k = 0; k < t->nnics; k++)
		t->nics_per_node += used[k] > 0;
}

int dc_topo_file_parse(const char *buf, size_t len, const char *name, struct dc_topo_file *t,
		       struct dc_diag *diag)
{
	struct tparser p;
	struct dc_text_lines it;
	char shown[1024];
	size_t bad_line, last_line = 0;
	int in_nic_legend = 0, in_legend = 0;

	memset(t, 0, sizeof(*t));
	memset(&p, 0, sizeof(p));
	dc_fmt_printable(shown, sizeof(shown), name);
	p.name = shown;
	p.diag = diag;
	p.t = t;
	if (len == 0) {
		tfail(&p, 0, "empty file; expected the output of `nvidia-smi topo -m`");
		return -1;
	}
	if (dc_text_check(buf, len, &bad_line) != 0) {
		tfail(&p, bad_line, "binary data (a NUL or control byte); expected the output of `nvidia-smi topo -m`");
		return -1;
	}
	dc_text_lines_init(&it, buf, len);
	while (!p.failed && dc_text_lines_next(&it)) {
		/* cell: NULL past the n that cells() fills (gcc's -fanalyzer
		 * cannot tie n to them and took the rest for uninitialised) */
		char copy[DC_TEXT_LINE_MAX], *cell[MAX_CELLS] = {NULL}, *s;
		size_t n;
		memcpy(copy, it.text, strlen(it.text) + 1);
		s = trim(copy);
		if (!*s)
			continue;
		last_line = it.line;
		if (!p.head_line) {
			/* the header: the first line whose first word is a GPU */
			size_t w = strcspn(s, " \t"), g;
			char first[16];
			snprintf(first, sizeof(first), "%.*s", (int)(w < 15 ? w : 15), s);
			if (s[w] && gpu_index(first, &g) == 0) {
				p.use_tabs = strchr(it.text, '\t') != NULL;
				memcpy(copy, it.text, strlen(it.text) + 1);
				n = cells(copy, p.use_tabs, cell);
				/* the header's first cell is empty: the row names' column */
				if (n && *cell[0]) {
					memmove(cell + 1, cell, (n < MAX_CELLS ? n : MAX_CELLS - 1) * sizeof(*cell));
					cell[0] = copy + strlen(it.text);
					n = n < MAX_CELLS ? n + 1 : MAX_CELLS;
				}
				read_header(&p, cell, n, it.line);
			} else {
				char q[80];
				dc_fmt_printable(q, sizeof(q), s);
				tfail(&p, it.line,
				      "not `nvidia-smi topo -m` output: expected the header row GPU0 GPU1 ... (this line "
				      "reads '%.60s')",
				      q);
			}
			continue;
		}
		if (strncmp(s, "Legend", 6) == 0) {
			in_legend = 1;
			continue;
		}
		if (strncmp(s, "NIC Legend", 10) == 0) {
			in_nic_legend = 1;
			continue;
		}
		if (in_nic_legend) {
			read_nic_legend(&p, s);
			continue;
		}
		if (in_legend)
			continue;
		memcpy(copy, it.text, strlen(it.text) + 1);
		n = cells(copy, p.use_tabs, cell);
		read_row(&p, cell, n, it.line);
	}
	if (!p.failed && !p.head_line)
		tfail(&p, 0, "no matrix: expected the output of `nvidia-smi topo -m`");
	for (size_t g = 0; !p.failed && g < t->ngpus; g++)
		if (!p.gpu_line[g])
			tfail(&p, last_line, "no row for GPU%zu: the header (line %zu) has %zu GPUs; is the file truncated?",
			      g, p.head_line, t->ngpus);
	if (!p.failed)
		derive(&p);
	if (p.failed) {
		memset(t, 0, sizeof(*t));
		return -1;
	}
	return 0;
}

int dc_topo_file_read(const char *path, struct dc_topo_file *t, struct dc_diag *diag)
{
	size_t len = 0;
	char *buf = dc_text_read_file(path, 1024 * 1024, "`nvidia-smi topo -m` output", &len, diag);
	int rc;
	if (!buf) {
		memset(t, 0, sizeof(*t));
		return -1;
	}
	rc = dc_topo_file_parse(buf, len, path, t, diag);
	free(buf);
	return rc;
}
