/* import_megatron.c - Megatron-LM's pretrain_gpt.py arguments, as a plain
 * list or inside a launch script, onto distcalc keys (docs/importers.md,
 * "Megatron-LM").
 *
 * The reader runs no shell. It splits the text into words as a shell would
 * (quotes removed, '#' comments, backslash-newline, the separators ( ) ; |
 * & < > `), splits a word with spaces in it again (so "--fp8-format hybrid"
 * in an array is two words), and takes every word starting with "--" as an
 * argument, anywhere in the file but an echo's or printf's words (text
 * they print, a warning) and the words of a command that starts with an
 * argument just after a comment which ended the continued command above
 * it (the launch ran without them, a warning): shell conditions are not evaluated (a
 * mapped argument inside an `if` or `case` block warns with both lines). A
 * value "$X", "${X}" or "${X:-default}" is the last assignment X=... above
 * it, else the default. Megatron-LM's names and defaults are those of
 * megatron/training/arguments.py and megatron/core/transformer/
 * transformer_config.py (NVIDIA/Megatron-LM d98e8a6).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/util.h"
#include "import_int.h"

#define MAX_WORDS 65536
#define MAX_VALUE 128
#define MAX_DEPTH 8

struct word {
	char *text;
	unsigned line;
	/* the line of the innermost shell `if` or `case` the word is in, 0
	 * when none; its keyword in `block` */
	unsigned cond;
	const char *block;
	/* sep: a shell separator (; | & ( ) < > or a line's end) stands
	 * between the word and the one before; redir: a redirection (< or >)
	 * follows it at once, as 2 in 2>&1; piece: a later word of one
	 * quoted token that white space split (end_word) */
	unsigned char sep, redir, piece;
	/* the line of a comment that ended the command continued above it
	 * ('\\' then a comment: lex), on the first word after it where a
	 * command starts; 0 otherwise */
	unsigned cut;
	/* cut came from a '\\' before trailing blanks, not a comment: the
	 * '\\' escapes a space, and the line's end ends the command */
	unsigned char cut_bs;
	/* every '$' of the word stood inside single quotes: bash passes it as
	 * written, no variable (a trial's '$TP' was read as TP's value) */
	unsigned char literal;
};

#define MAX_BLOCKS 64

struct words {
	struct word *w;
	size_t n, cap;
	/* the `if` / `case` blocks open where the next word goes: their lines
	 * and keywords (deeper than MAX_BLOCKS counted, not kept) */
	unsigned open[MAX_BLOCKS];
	const char *open_kw[MAX_BLOCKS];
	/* a `case` block's place (enum case_state): its subject word, its
	 * `in`, a pattern list (up to the ')': no command, so no arguments)
	 * or a branch's commands (up to ';;', ';&' or ';;&') */
	unsigned char case_at[MAX_BLOCKS];
	size_t depth;
	/* the '$'s the word being read took inside single quotes (lex) */
	size_t sq_dollars;
};

enum case_state { CS_NONE, CS_SUBJECT, CS_IN, CS_PATTERN, CS_BODY };

/* The innermost block's case_state (CS_NONE: none, or an `if`). */
static enum case_state case_state(const struct words *ws)
{
	if (!ws->depth || ws->depth > MAX_BLOCKS)
		return CS_NONE;
	return (enum case_state)ws->case_at[ws->depth - 1];
}

static void set_case_state(struct words *ws, enum case_state st)
{
	if (ws->depth && ws->depth <= MAX_BLOCKS)
		ws->case_at[ws->depth - 1] = (unsigned char)st;
}

/* ---- words ---- */

static int push(struct words *ws, const char *s, size_t n, unsigned line, int sep, int piece)
{
	struct word *g;
	if (ws->n >= MAX_WORDS)
		return -2;
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 64;
		g = dc_realloc(ws->w, cap * sizeof(*g));
		if (!g)
			return -1;
		ws->w = g;
		ws->cap = cap;
	}
	if (!(ws->w[ws->n].text = dc_strndup(s, n)))
		return -1;
	ws->w[ws->n].line = line;
	ws->w[ws->n].sep = (unsigned char)sep;
	ws->w[ws->n].redir = 0;
	ws->w[ws->n].piece = (unsigned char)piece;
	ws->w[ws->n].cond = 0;
	ws->w[ws->n].block = NULL;
	ws->w[ws->n].cut = 0;
	ws->w[ws->n].cut_bs = 0;
	ws->w[ws->n].literal = 0;
	if (ws->depth) {
		size_t top = (ws->depth < MAX_BLOCKS ? ws->depth : MAX_BLOCKS) - 1;
		ws->w[ws->n].cond = ws->open[top];
		ws->w[ws->n].block = ws->open_kw[top];
	}
	ws->n++;
	return 0;
}

/* After an unquoted word `w` that stood where a command starts: opens or
 * closes a shell `if` / `case` block. Returns whether the next word stands
 * where a command starts too (after `then`, `else`, `do`...). */
static int shell_keyword(struct words *ws, const char *w, unsigned line)
{
	static const char *const lead[] = {"then", "else", "elif", "do", "while", "until", "!", "{", "time", NULL};
	if (strcmp(w, "if") == 0 || strcmp(w, "case") == 0) {
		if (ws->depth < MAX_BLOCKS) {
			ws->open[ws->depth] = line;
			ws->open_kw[ws->depth] = w[0] == 'i' ? "if" : "case";
			ws->case_at[ws->depth] = (unsigned char)(w[0] == 'i' ? CS_NONE : CS_SUBJECT);
		}
		ws->depth++;
		return w[0] == 'i';
	}
	if ((strcmp(w, "fi") == 0 || strcmp(w, "esac") == 0) && ws->depth)
		ws->depth--;
	for (size_t i = 0; lead[i]; i++)
		if (strcmp(w, lead[i]) == 0)
			return 1;
	return 0;
}

/* Ends the word in `cur`: pushed whole, or piece by piece when quotes put
 * white space in it. */
static int end_word(struct words *ws, struct dc_buf *cur, unsigned line, int quoted, int sep)
{
	size_t first = ws->n, dollars = 0, sq = ws->sq_dollars;
	int rc = 0;
	ws->sq_dollars = 0;
	if (cur->failed)
		return -1;
	if (!cur->len && !quoted)
		return 0;
	for (size_t i = 0; i < cur->len; i++)
		dollars += cur->data[i] == '$';
	if (!quoted) {
		rc = push(ws, cur->data, cur->len, line, sep, 0);
	} else {
		size_t i = 0;
		unsigned l = line;
		while (i < cur->len && rc == 0) {
			size_t s;
			while (i < cur->len && isspace((unsigned char)cur->data[i])) {
				l += cur->data[i] == '\n';
				i++;
			}
			s = i;
			while (i < cur->len && !isspace((unsigned char)cur->data[i]))
				i++;
			if (i > s)
				rc = push(ws, cur->data + s, i - s, l, ws->n == first ? sep : 0, ws->n > first);
		}
	}
	if (sq && sq == dollars)
		for (size_t i = first; i < ws->n; i++)
			ws->w[i].literal = 1;
	cur->len = 0;
	if (cur->data)
		cur->data[0] = '\0';
	return rc;
}

static void words_free(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].text);
	free(ws->w);
	ws->w = NULL;
	ws->n = ws->cap = 0;
}

/* Splits buf into words. Returns 0, or -1 with the error in `diag`. */
static int lex(const char *buf, size_t len, const char *name, struct words *ws, struct dc_diag *diag)
{
	struct dc_buf cur;
	unsigned line = 1, wline = 1, qline = 0;
	char quote = 0;
	int in_word = 0, quoted = 0, rc = 0;
	/* does the next word stand where a command starts (for if / case)?
	 * sep: has a separator come since the last word (struct word) */
	int cmd = 1, word_cmd = 0, sep = 0, word_sep = 0;
	/* a shell ends a command at a comment even where the command was
	 * continued with '\\' onto its line or the comment ends in '\\' (the
	 * '\\' is the comment's): cont, the command has been continued; words,
	 * it has a word; cut, the line of such a comment, for the next word
	 * where a command starts (struct word), word_cut that word's */
	int cont = 0, words = 0;
	/* arrays: NAME=( open, where a comment ends nothing; substs: $( open,
	 * whose ) closes no array */
	unsigned cut = 0, word_cut = 0, arrays = 0, substs = 0;
	int cut_bs = 0, word_cut_bs = 0;
	size_t before = 0;
	char at[600];

	dc_buf_init(&cur);
	for (size_t i = 0; i < len && rc == 0; i++) {
		char c = buf[i], next = i + 1 < len ? buf[i + 1] : '\0';
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else
				dc_buf_putc(&cur, c);
			ws->sq_dollars += c == '$';
			line += c == '\n';
			continue;
		}
		if (quote == '"') {
			if (c == '"') {
				quote = 0;
			} else if (c == '\\' && next == '\n') {
				i++;
				line++;
			} else if (c == '\\' && (next == '"' || next == '\\' || next == '$' || next == '`')) {
				dc_buf_putc(&cur, next);
				i++;
			} else {
				dc_buf_putc(&cur, c);
				line += c == '\n';
			}
			continue;
		}
		if (c == '\\' && next == '\n') {
			i++;
			line++;
			cont = 1;
			continue;
		}
		if (c == '#' && !in_word) {
			unsigned at_line = line;
			while (i + 1 < len && buf[i + 1] != '\n')
				i++;
			if (words && !arrays && (cont || buf[i] == '\\'))
				cut = at_line, cut_bs = 0;
			continue;
		}
		if (isspace((unsigned char)c) || strchr("();|&<>`", c)) {
			enum case_state cs = case_state(ws);
			if (cs == CS_PATTERN) {
				/* a case pattern list ("--foo)", "-h|--help)"):
				 * words a shell matches, never runs, so no
				 * arguments; `esac` where a pattern would stand
				 * closes the block; the ')' opens the branch */
				int closed = in_word && !quoted && cur.len == 4 && memcmp(cur.data, "esac", 4) == 0;
				cur.len = 0;
				if (cur.data)
					cur.data[0] = '\0';
				/* the words dropped stand for a separator: the
				 * next word kept starts a command of its own */
				sep = 1;
				if (closed) {
					ws->depth--;
					cmd = c == '\n' || strchr(";|&()", c);
					if (cmd)
						cont = words = 0;
				} else if (c == ')') {
					set_case_state(ws, CS_BODY);
					cmd = 1, cont = words = 0;
				}
				in_word = quoted = 0;
				line += c == '\n';
				continue;
			}
			if (cs == CS_BODY && c == ';' && (next == ';' || next == '&')) {
				/* ';;', ';&' or ';;&' ends the branch: a pattern
				 * list comes next */
				if (in_word) {
					before = ws->n;
					rc = end_word(ws, &cur, wline, quoted, word_sep);
					if (rc == 0 && ws->n > before)
						ws->w[before].cut = word_cut, ws->w[before].cut_bs = (unsigned char)word_cut_bs;
				}
				set_case_state(ws, CS_PATTERN);
				i++;
				if (next == ';' && i + 1 < len && buf[i + 1] == '&')
					i++;
				cmd = 0, cont = words = 0;
				sep = 1;
				in_word = quoted = 0;
				continue;
			}
			if (c == '(' && in_word && cur.len && cur.data[cur.len - 1] == '=')
				arrays++;
			else if (c == '(' && in_word && cur.len && cur.data[cur.len - 1] == '$')
				substs++;
			else if (c == ')' && substs)
				substs--;
			else if (c == ')' && arrays)
				arrays--;
			if (in_word && (cs == CS_SUBJECT || cs == CS_IN)) {
				/* the subject, then `in` (or, after a newline, the
				 * `in` the subject is still waiting for) */
				if (cs == CS_IN || (!quoted && cur.len == 2 && memcmp(cur.data, "in", 2) == 0))
					set_case_state(ws, CS_PATTERN);
				else
					set_case_state(ws, CS_IN);
			}
			if (in_word) {
				before = ws->n;
				rc = end_word(ws, &cur, wline, quoted, word_sep);
				if (rc == 0 && (c == '<' || c == '>') && ws->n > before)
					ws->w[ws->n - 1].redir = 1;
				if (rc == 0 && ws->n > before) {
					ws->w[before].cut = word_cut, ws->w[before].cut_bs = (unsigned char)word_cut_bs;
					words = 1;
				}
				if (rc == 0)
					cmd = word_cmd && !quoted && ws->n == before + 1
						      ? shell_keyword(ws, ws->w[before].text, wline)
						      : 0;
			}
			if (c == '\n' || strchr(";|&()", c))
				cmd = 1, cont = words = 0;
			if (c == '\n' || strchr(";|&()<>`", c))
				sep = 1;
			in_word = quoted = 0;
			line += c == '\n';
			continue;
		}
		if (!in_word) {
			in_word = 1;
			wline = line;
			word_cmd = cmd;
			word_sep = sep;
			sep = 0;
			word_cut = cmd ? cut : 0;
			word_cut_bs = cmd ? cut_bs : 0;
			cut = 0;
			cut_bs = 0;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			quoted = 1;
			qline = line;
		} else if (c == '\\' && next) {
			/* '\\' then blanks to the line's end: an escaped space,
			 * not a continuation (bash ends the command at the
			 * newline), though it reads as one: as a comment that
			 * ends a continued command, the next line's command of
			 * arguments is not the launch's (the warning below) */
			if ((next == ' ' || next == '\t') && words && !arrays) {
				size_t k = i + 1;
				while (k < len && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r'))
					k++;
				if (k >= len || buf[k] == '\n')
					cut = line, cut_bs = 1;
			}
			dc_buf_putc(&cur, next);
			line += next == '\n';
			i++;
		} else {
			dc_buf_putc(&cur, c);
		}
	}
	if (rc == 0 && quote) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: a %s quote that never closes",
			      dc_import_where(at, sizeof(at), name, qline), quote == '"' ? "double" : "single");
		rc = -3;
	}
	if (rc == 0 && in_word) {
		before = ws->n;
		rc = end_word(ws, &cur, wline, quoted, word_sep);
		if (rc == 0 && ws->n > before)
			ws->w[before].cut = word_cut, ws->w[before].cut_bs = (unsigned char)word_cut_bs;
	}
	if (cur.failed && rc == 0)
		rc = -1;
	dc_buf_release(&cur);
	if (rc == -1)
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
	else if (rc == -2)
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: more than %d words", name, MAX_WORDS);
	return rc ? -1 : 0;
}

/* ---- variables ---- */

static int is_assignment(const char *w, size_t *name_len)
{
	size_t i = 0;
	if (!(isalpha((unsigned char)w[0]) || w[0] == '_'))
		return 0;
	while (isalnum((unsigned char)w[i]) || w[i] == '_')
		i++;
	if (w[i] != '=')
		return 0;
	*name_len = i;
	return 1;
}

/* The value of `v` as used at word `at`: itself without a '$', else the
 * variable it names (recursively, MAX_DEPTH deep). Returns 0 with the value
 * in out[MAX_VALUE], or -1 when it cannot be known. `join`: a list's
 * value, so an assignment's quoted value that white space split into
 * pieces (struct word) is whole again, its words space-separated.
 * *cond_i: the first assignment taken that stands inside a shell `if` or
 * `case` block the word using it is not in (the last one written above
 * wins, whatever branch the shell would run: the caller warns), else
 * left as it was. */
/* Whether assignment word i is a prefix assignment (TP=2 torchrun ...):
 * only assignments from its command's start to it, and a command word
 * after it in the same command. bash expands the command's words before
 * it assigns, and only into that command's environment, so it is no
 * value of any word (export TP=2 is export's argument, and holds). */
static int prefix_assignment(const struct words *ws, size_t i)
{
	size_t nl, k = i;
	while (k > 0 && !ws->w[k].sep) {
		k--;
		if (!ws->w[k].piece && !is_assignment(ws->w[k].text, &nl))
			return 0;
	}
	for (k = i + 1; k < ws->n && !ws->w[k].sep; k++)
		if (!ws->w[k].piece && !is_assignment(ws->w[k].text, &nl))
			return 1;
	return 0;
}

static int resolve(const struct words *ws, size_t at, const char *v, char *out, int depth, size_t *budget, int join,
		   size_t *cond_i, size_t *prefix_i)
{
	char var[64], def[MAX_VALUE];
	const char *p;
	size_t n;
	int has_def = 0;

	/* no '$', or only the ones single quotes kept from bash (v is that
	 * word's text, or an assignment's value in it): as written */
	if (!strchr(v, '$') ||
	    (ws->w[at].literal && v >= ws->w[at].text && v < ws->w[at].text + strlen(ws->w[at].text))) {
		if (strlen(v) >= MAX_VALUE)
			return -1;
		snprintf(out, MAX_VALUE, "%s", v);
		return 0;
	}
	if (depth >= MAX_DEPTH || v[0] != '$')
		return -1;
	p = v + 1;
	if (*p == '{') {
		const char *close = strchr(p, '}');
		const char *dash;
		if (!close || close[1] != '\0')
			return -1;
		p++;
		n = strcspn(p, ":-}");
		if (n == 0 || n >= sizeof(var))
			return -1;
		memcpy(var, p, n);
		var[n] = '\0';
		dash = p + n;
		if (*dash == ':')
			dash++;
		if (*dash == '-') {
			size_t dn = (size_t)(close - dash - 1);
			if (dn >= sizeof(def))
				return -1;
			memcpy(def, dash + 1, dn);
			def[dn] = '\0';
			has_def = 1;
		} else if (*dash != '}') {
			return -1;
		}
	} else {
		n = strlen(p);
		if (n == 0 || n >= sizeof(var))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '_')
				return -1;
		memcpy(var, p, n + 1);
	}
	for (size_t i = at; i-- > 0;) {
		size_t nl;
		if (*budget == 0)
			return -1;
		--*budget;
		if (is_assignment(ws->w[i].text, &nl) && nl == strlen(var) && strncmp(ws->w[i].text, var, nl) == 0) {
			const char *val = ws->w[i].text + nl + 1;
			if (prefix_assignment(ws, i)) {
				/* TP=2 torchrun ... ${TP:-8}: not its value */
				if (*prefix_i == SIZE_MAX)
					*prefix_i = i;
				continue;
			}
			if (*val || !has_def) {
				size_t k = i + 1, len;
				if (ws->w[i].cond && ws->w[i].cond != ws->w[at].cond && *cond_i == SIZE_MAX)
					*cond_i = i;
				if (resolve(ws, i, val, out, depth + 1, budget, join, cond_i, prefix_i) != 0)
					return -1;
				for (len = strlen(out); join && k < ws->n && ws->w[k].piece; k++) {
					size_t pn = strlen(ws->w[k].text);
					if (strchr(ws->w[k].text, '$') || len + pn + 2 > MAX_VALUE)
						return -1;
					out[len++] = ' ';
					memcpy(out + len, ws->w[k].text, pn + 1);
					len += pn;
				}
				return 0;
			}
			break;
		}
	}
	if (has_def)
		return resolve(ws, at, def, out, depth + 1, budget, join, cond_i, prefix_i);
	return -1;
}

/* ---- the arguments distcalc maps ---- */

enum arg_id {
	A_NUM_LAYERS, A_HIDDEN, A_FFN, A_HEADS, A_GQA, A_GROUPS, A_KV_CHANNELS, A_SEQ, A_MAX_POS, A_POS_TYPE,
	A_ROTARY, A_NO_POS, A_VOCAB, A_VOCAB_DIV, A_TOKENIZER, A_SWIGLU, A_NORM, A_NO_BIAS, A_QKV_BIAS, A_UNTIE,
	A_QK_NORM, A_ATT_DROP, A_HID_DROP, A_MLA, A_ROPE_TYPE, A_MTP,
	A_EXPERTS, A_TOPK, A_MOE_FFN, A_SHARED, A_MOE_FREQ, A_EXPERT_BIAS, A_DISPATCHER, A_CAPACITY,
	A_FLEX_BACKEND, A_ENABLE_DEEPEP, A_ROUTER_GROUPS, A_ROUTER_GROUP_TOPK,
	A_TP, A_PP, A_CP, A_CP_COMM, A_EP, A_ETP, A_VPP_LAYERS, A_VPP, A_VPP_OLD, A_FIRST, A_LAST, A_ACC_EMB, A_ACC_LOSS, A_NO_P2P_OVERLAP,
	A_SP, A_DIST_OPT, A_DIST_OPT_INST, A_OVERLAP_GRAD, A_OVERLAP_PARAM, A_DDP_BUCKET, A_TP_OVERLAP, A_FSDP2,
	A_MBS, A_GBS, A_RECOMPUTE, A_RECOMPUTE_METHOD, A_RECOMPUTE_LAYERS, A_RECOMPUTE_ACT, A_RECOMPUTE_MODULES, A_GROUPED_GEMM, A_FLASH, A_ATT_BACKEND,
	A_BF16, A_FP16, A_FP8, A_FP8_RECIPE, A_FP8_PARAM, A_FP8_OUT, A_FP8_DPA, A_FP8_MHA, A_FIRST_LAST_BF16, A_BF16_START, A_BF16_END, A_GRAD_BF16, A_GRAD_FP32, A_OPTIMIZER,
	A_COUNT
};

static const struct {
	const char *name;
	int value; /* takes a value; 2: a list of them (argparse's nargs '*') */
} args[A_COUNT] = {
	[A_NUM_LAYERS] = {"--num-layers", 1},
	[A_HIDDEN] = {"--hidden-size", 1},
	[A_FFN] = {"--ffn-hidden-size", 1},
	[A_HEADS] = {"--num-attention-heads", 1},
	[A_GQA] = {"--group-query-attention", 0},
	[A_GROUPS] = {"--num-query-groups", 1},
	[A_KV_CHANNELS] = {"--kv-channels", 1},
	[A_SEQ] = {"--seq-length", 1},
	[A_MAX_POS] = {"--max-position-embeddings", 1},
	[A_POS_TYPE] = {"--position-embedding-type", 1},
	[A_ROTARY] = {"--use-rotary-position-embeddings", 0},
	[A_NO_POS] = {"--no-position-embedding", 0},
	[A_VOCAB] = {"--vocab-size", 1},
	[A_VOCAB_DIV] = {"--make-vocab-size-divisible-by", 1},
	[A_TOKENIZER] = {"--tokenizer-type", 1},
	[A_SWIGLU] = {"--swiglu", 0},
	[A_NORM] = {"--normalization", 1},
	[A_NO_BIAS] = {"--disable-bias-linear", 0},
	[A_QKV_BIAS] = {"--add-qkv-bias", 0},
	[A_UNTIE] = {"--untie-embeddings-and-output-weights", 0},
	[A_QK_NORM] = {"--qk-layernorm", 0},
	[A_ATT_DROP] = {"--attention-dropout", 1},
	[A_HID_DROP] = {"--hidden-dropout", 1},
	[A_MLA] = {"--multi-latent-attention", 0},
	/* which RoPE: read only to refuse what Megatron-LM refuses */
	[A_ROPE_TYPE] = {"--rope-type", 1},
	/* multi-token prediction (arguments.py --mtp-num-layers at
	 * d98e8a64): DeepSeek-V3's modules, on the last stage */
	[A_MTP] = {"--mtp-num-layers", 1},
	[A_EXPERTS] = {"--num-experts", 1},
	[A_TOPK] = {"--moe-router-topk", 1},
	[A_MOE_FFN] = {"--moe-ffn-hidden-size", 1},
	[A_SHARED] = {"--moe-shared-expert-intermediate-size", 1},
	[A_MOE_FREQ] = {"--moe-layer-freq", 1},
	[A_EXPERT_BIAS] = {"--moe-router-enable-expert-bias", 0},
	[A_DISPATCHER] = {"--moe-token-dispatcher-type", 1},
	[A_FLEX_BACKEND] = {"--moe-flex-dispatcher-backend", 1},
	[A_ENABLE_DEEPEP] = {"--moe-enable-deepep", 0},
	[A_ROUTER_GROUPS] = {"--moe-router-num-groups", 1},
	[A_ROUTER_GROUP_TOPK] = {"--moe-router-group-topk", 1},
	[A_CAPACITY] = {"--moe-expert-capacity-factor", 1},
	[A_TP] = {"--tensor-model-parallel-size", 1},
	[A_PP] = {"--pipeline-model-parallel-size", 1},
	[A_CP] = {"--context-parallel-size", 1},
	[A_CP_COMM] = {"--cp-comm-type", 1},
	[A_EP] = {"--expert-model-parallel-size", 1},
	[A_ETP] = {"--expert-tensor-parallel-size", 1},
	[A_VPP_LAYERS] = {"--num-layers-per-virtual-pipeline-stage", 1},
	[A_VPP] = {"--num-virtual-stages-per-pipeline-rank", 1},
	/* not an argument of d98e8a64's parser: read only to refuse it,
	 * naming the one above */
	[A_VPP_OLD] = {"--virtual-pipeline-model-parallel-size", 1},
	[A_FIRST] = {"--decoder-first-pipeline-num-layers", 1},
	[A_LAST] = {"--decoder-last-pipeline-num-layers", 1},
	[A_ACC_EMB] = {"--account-for-embedding-in-pipeline-split", 0},
	[A_ACC_LOSS] = {"--account-for-loss-in-pipeline-split", 0},
	[A_NO_P2P_OVERLAP] = {"--no-overlap-p2p-communication", 0},
	[A_SP] = {"--sequence-parallel", 0},
	[A_DIST_OPT] = {"--use-distributed-optimizer", 0},
	[A_DIST_OPT_INST] = {"--num-distributed-optimizer-instances", 1},
	[A_OVERLAP_GRAD] = {"--overlap-grad-reduce", 0},
	[A_OVERLAP_PARAM] = {"--overlap-param-gather", 0},
	[A_DDP_BUCKET] = {"--ddp-bucket-size", 1},
	[A_TP_OVERLAP] = {"--tp-comm-overlap", 0},
	[A_FSDP2] = {"--use-torch-fsdp2", 0},
	[A_MBS] = {"--micro-batch-size", 1},
	[A_GBS] = {"--global-batch-size", 1},
	[A_RECOMPUTE] = {"--recompute-granularity", 1},
	[A_RECOMPUTE_METHOD] = {"--recompute-method", 1},
	[A_RECOMPUTE_LAYERS] = {"--recompute-num-layers", 1},
	[A_RECOMPUTE_ACT] = {"--recompute-activations", 0},
	[A_RECOMPUTE_MODULES] = {"--recompute-modules", 2},
	/* changes no byte or FLOP distcalc counts; read for moe_act */
	[A_GROUPED_GEMM] = {"--moe-grouped-gemm", 0},
	[A_FLASH] = {"--use-flash-attn", 0},
	[A_ATT_BACKEND] = {"--attention-backend", 1},
	[A_BF16] = {"--bf16", 0},
	[A_FP16] = {"--fp16", 0},
	[A_FP8] = {"--fp8-format", 1},
	[A_FP8_RECIPE] = {"--fp8-recipe", 1},
	[A_FP8_PARAM] = {"--fp8-param-gather", 0},
	/* TransformerConfig.fp8_output_proj (transformer_config.py:635-638
	 * at d98e8a64), a generated argument */
	[A_FP8_OUT] = {"--fp8-output-proj", 0},
	/* fields with no argument at d98e8a64 (arguments.py:2333-2334, "no
	 * CLI argument exists for these"): read only to say so */
	[A_FP8_DPA] = {"--fp8-dot-product-attention", 0},
	[A_FP8_MHA] = {"--fp8-multi-head-attention", 0},
	[A_FIRST_LAST_BF16] = {"--first-last-layers-bf16", 0},
	[A_BF16_START] = {"--num-layers-at-start-in-bf16", 1},
	[A_BF16_END] = {"--num-layers-at-end-in-bf16", 1},
	[A_GRAD_BF16] = {"--grad-reduce-in-bf16", 0},
	[A_GRAD_FP32] = {"--accumulate-allreduce-grads-in-fp32", 0},
	[A_OPTIMIZER] = {"--optimizer", 1},
};

/* Arguments that change nothing distcalc computes (learning rates, data,
 * logging, checkpoint paths, initialisation, fused-kernel switches, the
 * launcher's own), by exact name or, ending in '-', by prefix. */
static const char *const ignored[] = {
	/* torchrun */
	"--nproc_per_node", "--nproc-per-node", "--nnodes", "--node_rank", "--node-rank", "--master_addr",
	"--master-addr", "--master_port", "--master-port", "--rdzv_", "--rdzv-", "--standalone",
	/* optimisation hyperparameters */
	"--lr", "--lr-", "--min-lr", "--decoupled-", "--weight-decay", "--start-weight-decay", "--end-weight-decay",
	"--clip-grad", "--adam-", "--sgd-momentum", "--train-iters", "--train-samples", "--exit-", "--seed",
	"--init-method-", "--loss-scale", "--loss-scale-window", "--initial-loss-scale", "--min-loss-scale", "--hysteresis",
	"--moe-aux-loss-coeff", "--moe-z-loss-coeff", "--moe-router-load-balancing-type", "--moe-router-score-function",
	"--moe-router-pre-softmax", "--moe-router-dtype", "--mtp-loss-scaling-factor", "--moe-router-topk-scaling-factor", "--moe-input-jitter-eps",
	"--rotary-", "--use-rope-scaling", "--rope-scaling-factor", "--norm-epsilon", "--apply-layernorm-1p",
	/* Multi-Latent Attention's shape (arguments.py:3548-3564 at d98e8a64),
	 * read by MLATransformerConfig alone: with --multi-latent-attention
	 * the model is --model's (map_model), without it they change nothing;
	 * --mscale and --mscale-all-dim scale its RoPE, --cache-mla-latents is
	 * inference's */
	"--q-lora-rank", "--kv-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim", "--v-head-dim", "--mscale",
	"--mscale-all-dim", "--cache-mla-latents",
	/* data and tokenizer files */
	"--data-", "--split", "--mock-data", "--tokenizer-model", "--vocab-file", "--merge-file", "--tiktoken-",
	"--num-workers", "--dataloader-type", "--no-create-attention-mask-in-dataloader", "--no-mmap-bin-files",
	"--eod-mask-loss", "--reset-position-ids", "--reset-attention-mask", "--train-data-path", "--valid-data-path",
	"--test-data-path",
	/* logging, evaluation, checkpoints, profiling */
	"--log-", "--eval-", "--tensorboard-", "--wandb-", "--save", "--save-", "--load", "--no-load-", "--no-save-",
	"--ckpt-", "--use-checkpoint-args", "--exit-on-missing-checkpoint", "--finetune", "--profile", "--profile-",
	"--use-pytorch-profiler", "--timing-log-", "--log-throughput", "--use-dist-ckpt", "--async-save",
	"--distributed-timeout-minutes", "--distributed-backend",
	/* kernels and fusions that leave the bytes and FLOPs as they are */
	"--use-mcore-models", "--transformer-impl", "--no-masked-softmax-fusion", "--masked-softmax-fusion",
	"--no-bias-gelu-fusion", "--no-bias-swiglu-fusion", "--no-bias-dropout-fusion", "--no-rope-fusion",
	"--no-gradient-accumulation-fusion", "--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl",
	"--attention-softmax-in-fp32", "--no-async-tensor-model-parallel-allreduce",
	"--moe-permute-fusion", "--disable-te-fused-rope", "--fp8-margin", "--fp8-interval", "--fp8-amax-",
	"--manual-gc", "--manual-gc-", "--empty-unused-memory-level", "--calculate-per-token-loss",
	"--check-for-nan-in-loss-and-grad", "--no-check-for-nan-in-loss-and-grad",
	/* dataclass-built arguments of d98e8a64 that change nothing priced:
	 * the log level (training/config/training_config.py:351), a memory
	 * snapshot of the last rank (config/common_config.py:56, read at
	 * training.py:3541), MoE's per-layer loss logging
	 * (core/transformer/transformer_config.py:914), checkpoint loading
	 * (training_config.py:493 auto_detect_ckpt_format, :603
	 * dist_ckpt_strictness), and the update rate of the expert bias
	 * (transformer_config.py:821; the bias itself is
	 * --moe-router-enable-expert-bias's) */
	"--logging-level", "--record-memory-history", "--moe-per-layer-logging", "--auto-detect-ckpt-format",
	"--dist-ckpt-strictness", "--moe-router-bias-update-rate",
	NULL,
};

static int is_ignored(const char *name)
{
	for (size_t i = 0; ignored[i]; i++) {
		size_t n = strlen(ignored[i]);
		if (ignored[i][n - 1] == '-' || ignored[i][n - 1] == '_') {
			if (strncmp(name, ignored[i], n) == 0)
				return 1;
		} else if (strcmp(name, ignored[i]) == 0) {
			return 1;
		}
	}
	return 0;
}

/* The mapped or ignored argument nearest an unknown `name`, within 2
 * edits (a slip, not another argument: Megatron has many whose names
 * differ in one word, --window-size and --hidden-size), for the error's
 * suggestion; NULL when none is that near. A prefix of the ignored list
 * ("--no-") is never offered. */
static const char *nearest_arg(const char *name)
{
	size_t best = 99, nl = strlen(name);
	const char *near = NULL;
	for (int a = 0; a < A_COUNT; a++) {
		size_t d = dc_edit_distance(name, nl, args[a].name, 0);
		if (d < best) {
			best = d;
			near = args[a].name;
		}
	}
	for (size_t i = 0; ignored[i]; i++) {
		size_t n = strlen(ignored[i]), d;
		if (ignored[i][n - 1] == '-' || ignored[i][n - 1] == '_')
			continue;
		d = dc_edit_distance(name, nl, ignored[i], 0);
		if (d < best) {
			best = d;
			near = ignored[i];
		}
	}
	return best <= 2 ? near : NULL;
}

struct given {
	int set;
	char value[MAX_VALUE];
	unsigned line;
	/* --tokenizer-type given again with another value */
	int differs;
	unsigned other_line;
	char other[MAX_VALUE];
	/* its value was refused already (number, real): said once, however
	 * many mappings read it */
	int refused;
};

struct mctx {
	const char *name;
	struct dc_import *imp;
	struct dc_diag *diag;
	struct given g[A_COUNT];
	int errors;
};

static void err(struct mctx *m, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A launcher count as used at word `at`: itself, or the script's own
 * assignment of the variable it names ($N, ${N}), followed 4 deep; NULL
 * where it cannot be known or rests on a default for the scheduler to
 * replace (${SLURM_NNODES:-1}: the count is the allocation's, not the
 * script's) */
static const char *launch_value(const struct words *ws, size_t at, const char *v)
{
	for (int depth = 0; v && v[0] == '$' && depth < 4; depth++) {
		if (ws->w[at].literal)
			return NULL; /* '$N' in single quotes: no number */
		char var[64];
		const char *p = v + 1;
		size_t n, nl;
		int braced = *p == '{';
		p += braced;
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (n == 0 || n >= sizeof(var) || (braced ? strcmp(p + n, "}") != 0 : p[n] != '\0'))
			return NULL;
		memcpy(var, p, n);
		var[n] = '\0';
		v = NULL;
		for (size_t i = at; i-- > 0;)
			if (is_assignment(ws->w[i].text, &nl) && nl == n && strncmp(ws->w[i].text, var, n) == 0) {
				v = ws->w[i].text + nl + 1;
				at = i;
				break;
			}
	}
	return v && v[0] != '$' ? v : NULL;
}

/* torchrun's --nnodes or --nproc_per_node with a plain number (1 to
 * 2^20), kept; anything else (an elastic range, a variable the script
 * leaves unset, "gpu") keeps nothing */
static void launch_count(struct mctx *m, const char *arg, const char *v, unsigned line)
{
	int nodes = strcmp(arg, "--nnodes") == 0;
	unsigned long long n = 0;
	if (!nodes && strcmp(arg, "--nproc_per_node") != 0 && strcmp(arg, "--nproc-per-node") != 0)
		return;
	if (nodes)
		m->imp->launch_nodes_given = 1;
	if (!v || !*v)
		return;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9' || n > (1u << 20))
			return;
		n = n * 10 + (unsigned long long)(*c - '0');
	}
	if (n == 0 || n > (1u << 20))
		return;
	if (nodes)
		m->imp->launch_nodes = n;
	else
		m->imp->launch_per_node = n;
	if (line > m->imp->launch_line)
		m->imp->launch_line = line;
}

static void err(struct mctx *m, unsigned line, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(m->diag);
	va_end(ap);
	dc_diag_error(m->diag, DC_ERR_CONFIG, "%s: error: %s", dc_import_where(at, sizeof(at), m->name, line), text);
	m->errors++;
	free(msg);
}

static void warn(struct mctx *m, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void warn(struct mctx *m, unsigned line, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(m->diag);
	va_end(ap);
	dc_diag_warn(m->diag, "%s: %s", dc_import_where(at, sizeof(at), m->name, line), text);
	free(msg);
}

/* A whole number from 1 (0 when `zero`) to 2^53 in argument `a`. */
static int number(struct mctx *m, enum arg_id a, int zero, unsigned long long *out)
{
	const char *v = m->g[a].value;
	char *end;
	unsigned long long n;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || *end || errno || n > (1ull << 53) || (!zero && n == 0)) {
		if (!m->g[a].refused++)
			err(m, m->g[a].line, "'%s': expected a whole number from %d, got '%s'", args[a].name, zero ? 0 : 1, v);
		return -1;
	}
	*out = n;
	return 0;
}

/* A decimal number (a dropout rate). */
static int real(struct mctx *m, enum arg_id a, double *out)
{
	const char *v = m->g[a].value;
	char *end;
	double x;
	errno = 0;
	x = strtod(v, &end);
	if (end == v || *end || errno || !(x >= 0 && x <= 1)) {
		if (!m->g[a].refused++)
			err(m, m->g[a].line, "'%s': expected a number from 0 to 1, got '%s'", args[a].name, v);
		return -1;
	}
	*out = x;
	return 0;
}

static void set_u64(struct mctx *m, const char *path, unsigned long long v, enum arg_id a)
{
	if (dc_import_set_u64(m->imp, path, v, args[a].name, m->g[a].line, m->name, m->diag) != 0)
		m->errors++;
}

static void set_json(struct mctx *m, const char *path, const char *json, const char *from, unsigned line)
{
	if (dc_import_set(m->imp, path, json, from, line, m->name, m->diag) != 0)
		m->errors++;
}

static void set_str(struct mctx *m, const char *path, const char *v, const char *from, unsigned line)
{
	if (dc_import_set_str(m->imp, path, v, from, line, m->name, m->diag) != 0)
		m->errors++;
}

/* A count argument straight onto a key. */
static void count(struct mctx *m, enum arg_id a, const char *path)
{
	unsigned long long n;
	if (m->g[a].set && number(m, a, 0, &n) == 0)
		set_u64(m, path, n, a);
}

#define G(a) (m->g[a].set)
#define L(a) (m->g[a].line)
#define V(a) (m->g[a].value)

static void map_model(struct mctx *m)
{
	unsigned long long heads = 0, hidden = 0, v, div = 128, tp = 1;
	double att = 0.1, hid = 0.1; /* TransformerConfig's dropout defaults */
	int rope;

	count(m, A_NUM_LAYERS, "model.num_layers");
	count(m, A_HIDDEN, "model.hidden_size");
	count(m, A_HEADS, "model.num_attention_heads");
	count(m, A_SEQ, "model.seq_length");
	count(m, A_KV_CHANNELS, "model.head_dim");
	count(m, A_MTP, "model.mtp_layers");
	if (G(A_HIDDEN))
		number(m, A_HIDDEN, 0, &hidden);
	if (G(A_HEADS))
		number(m, A_HEADS, 0, &heads);
	if (G(A_MLA)) {
		/* MLA's shape is not mapped: the model is --model's, which
		 * this importer does not see (main.c applies it after the
		 * import). Refused by main.c without --model, as a file whose
		 * model the catalogue lacks (model_unresolved), accepted with
		 * it (before, refused even then, though the message asked for
		 * --model) */
		snprintf(m->imp->model_unresolved, sizeof(m->imp->model_unresolved),
			 "'--multi-latent-attention' (line %u): Megatron-LM's MLA shape is not mapped; give the model "
			 "with --model (a catalogue name, or its Hugging Face config.json)",
			 L(A_MLA));
		warn(m, L(A_MLA),
		     "'--multi-latent-attention': its shape (--q-lora-rank, --kv-lora-rank, --qk-head-dim, "
		     "--qk-pos-emb-head-dim, --v-head-dim) is not mapped; the model priced is --model's, which must be "
		     "this MLA model (the importer cannot check it against these arguments)");
	}
	/* MLP: SwiGLU or Megatron's default GeLU; ffn_hidden_size's default
	 * is arguments.py's (4h, or int(4h * 2 / 3 / 64) * 64 with --swiglu) */
	set_str(m, "model.mlp", G(A_SWIGLU) ? "swiglu" : "gelu", G(A_SWIGLU) ? "--swiglu" : "no --swiglu", L(A_SWIGLU));
	if (G(A_FFN))
		count(m, A_FFN, "model.ffn_hidden_size");
	else if (hidden && G(A_SWIGLU))
		dc_import_set_u64(m->imp, "model.ffn_hidden_size", (unsigned long long)(4 * hidden * 2 / 3 / 64) * 64,
				  "--swiglu without --ffn-hidden-size", L(A_SWIGLU), m->name, m->diag);
	else if (hidden)
		dc_import_set_u64(m->imp, "model.ffn_hidden_size", 4 * hidden, "no --ffn-hidden-size", 0, m->name,
				  m->diag);
	/* grouped-query attention: --num-query-groups only counts with
	 * --group-query-attention (arguments.py) */
	if (G(A_GQA) && G(A_GROUPS))
		count(m, A_GROUPS, "model.num_kv_heads");
	else if (G(A_GQA)) {
		/* --num-query-groups defaults to 1 (arguments.py: type=int,
		 * default=1), which core_transformer_config_from_args passes
		 * under --group-query-attention: one key/value group, multi-query
		 * (a trial's flag alone was priced as multi-head) */
		dc_import_set_u64(m->imp, "model.num_kv_heads", 1, "--group-query-attention without --num-query-groups",
				  L(A_GQA), m->name, m->diag);
		warn(m, L(A_GQA),
		     "'--group-query-attention' without '--num-query-groups': Megatron-LM's default is 1 group, so the model is "
		     "multi-query (model.num_kv_heads 1); give --num-query-groups if more were meant");
	} else if (G(A_GROUPS))
		warn(m, L(A_GROUPS), "'--num-query-groups': ignored without --group-query-attention, as Megatron-LM does");
	/* norms and biases */
	if (G(A_NORM)) {
		if (strcmp(V(A_NORM), "RMSNorm") == 0)
			set_str(m, "model.norm", "rmsnorm", "--normalization", L(A_NORM));
		else if (strcmp(V(A_NORM), "LayerNorm") == 0)
			set_str(m, "model.norm", "layernorm", "--normalization", L(A_NORM));
		else
			err(m, L(A_NORM), "'--normalization': expected 'LayerNorm' or 'RMSNorm', got '%s'", V(A_NORM));
	} else {
		set_str(m, "model.norm", "layernorm", "no --normalization (Megatron-LM's LayerNorm)", 0);
	}
	set_json(m, "model.qkv_bias", G(A_NO_BIAS) && !G(A_QKV_BIAS) ? "false" : "true",
		 G(A_QKV_BIAS) ? "--add-qkv-bias" : G(A_NO_BIAS) ? "--disable-bias-linear" : "no --disable-bias-linear",
		 G(A_QKV_BIAS) ? L(A_QKV_BIAS) : L(A_NO_BIAS));
	set_json(m, "model.out_bias", G(A_NO_BIAS) ? "false" : "true",
		 G(A_NO_BIAS) ? "--disable-bias-linear" : "no --disable-bias-linear", L(A_NO_BIAS));
	set_json(m, "model.mlp_bias", G(A_NO_BIAS) ? "false" : "true",
		 G(A_NO_BIAS) ? "--disable-bias-linear" : "no --disable-bias-linear", L(A_NO_BIAS));
	set_json(m, "model.tie_word_embeddings", G(A_UNTIE) ? "false" : "true",
		 G(A_UNTIE) ? "--untie-embeddings-and-output-weights" : "no --untie-embeddings-and-output-weights",
		 L(A_UNTIE));
	if (G(A_QK_NORM))
		set_json(m, "model.qk_norm", "true", "--qk-layernorm", L(A_QK_NORM));
	if (G(A_ATT_DROP))
		real(m, A_ATT_DROP, &att);
	if (G(A_HID_DROP))
		real(m, A_HID_DROP, &hid);
	set_json(m, "model.dropout", att > 0 || hid > 0 ? "true" : "false",
		 G(A_ATT_DROP) || G(A_HID_DROP) ? "--attention-dropout/--hidden-dropout"
						 : "no --attention-dropout/--hidden-dropout (0.1)",
		 G(A_ATT_DROP) ? L(A_ATT_DROP) : L(A_HID_DROP));
	/* positions: a learned table unless rope or none */
	rope = G(A_ROTARY) || G(A_NO_POS);
	/* --rope-type (arguments.py:2906-2909 at d98e8a64, choices rope and
	 * yarn) picks the rotary variant, which has no parameters and no
	 * FLOPs distcalc counts apart: changes nothing, but what Megatron-LM
	 * refuses is refused (argument_utils.py:335-340 asserts "rope"
	 * without --multi-latent-attention) */
	if (G(A_ROPE_TYPE)) {
		if (strcmp(V(A_ROPE_TYPE), "rope") != 0 && strcmp(V(A_ROPE_TYPE), "yarn") != 0)
			err(m, L(A_ROPE_TYPE), "'--rope-type': '%s' is none of Megatron-LM's choices, rope and yarn "
					       "(arguments.py:2906-2909)",
			    V(A_ROPE_TYPE));
		else if (strcmp(V(A_ROPE_TYPE), "yarn") == 0 && !G(A_MLA))
			err(m, L(A_ROPE_TYPE), "'--rope-type': 'yarn' without --multi-latent-attention, which Megatron-LM "
					       "refuses (megatron/training/argument_utils.py:335-340 asserts \"Common attention "
					       "only support rope_type=\"rope\"\"); give rope");
	}
	if (G(A_POS_TYPE)) {
		if (strcmp(V(A_POS_TYPE), "learned_absolute") != 0 && strcmp(V(A_POS_TYPE), "rope") != 0 &&
		    strcmp(V(A_POS_TYPE), "none") != 0)
			err(m, L(A_POS_TYPE), "'--position-embedding-type': '%s' is not mapped (learned_absolute, rope, none)",
			    V(A_POS_TYPE));
		else if (strcmp(V(A_POS_TYPE), "learned_absolute") != 0)
			rope = 1;
	}
	/* a learned table is --max-position-embeddings long; whatever the
	 * positions, Megatron-LM refuses it below --seq-length
	 * (arguments.py:1353-1356 at d98e8a64). Its absence with rope is left
	 * to the base config, as any other absent argument (Megatron-LM
	 * requires it: :1314-1317, unread by rope) */
	if (!G(A_MAX_POS)) {
		if (!rope)
			err(m, 0, "'--max-position-embeddings': needed for Megatron-LM's learned position table "
				  "(--position-embedding-type learned_absolute, the default)");
	} else {
		unsigned long long mp, seq;
		if (number(m, A_MAX_POS, 0, &mp) == 0 && G(A_SEQ) && number(m, A_SEQ, 0, &seq) == 0 && mp < seq)
			err(m, L(A_MAX_POS), "'--max-position-embeddings': %llu is below --seq-length %llu, which Megatron-LM "
					     "refuses (arguments.py:1353-1356: \"must be greater than or equal to "
					     "seq_length\")",
			    mp, seq);
		else if (!rope)
			count(m, A_MAX_POS, "model.position_embeddings");
	}
	/* vocabulary: --vocab-size padded as vocab_size_with_padding does
	 * (megatron/core/tokenizers/utils/build_tokenizer.py:133-146 at
	 * d98e8a64), to a multiple of --make-vocab-size-divisible-by (128) x
	 * tp, from the tokenizer's vocab_size (:149-152). pretrain_gpt.py
	 * builds its tokenizer there (megatron/training/global_vars.py:17,
	 * 220-224; the legacy megatron/training/tokenizer is gone): its
	 * NullTokenizer counts --vocab-size as given, its end-of-document id
	 * the last of them (core/tokenizers/text/libraries/null_tokenizer.py:
	 * 18-19, 60-62; the +1 went in c9dfe34798), where NullMultimodal-
	 * Tokenizer still adds one (core/tokenizers/vision/libraries/
	 * null_multimodal_tokenizer.py:9-10, 65) */
	if (G(A_VOCAB_DIV))
		number(m, A_VOCAB_DIV, 0, &div);
	if (G(A_TP) && number(m, A_TP, 0, &tp) != 0)
		tp = 1;
	if (G(A_VOCAB) && number(m, A_VOCAB, 0, &v) == 0) {
		unsigned long long mult = div * tp, padded;
		if (G(A_TOKENIZER) && m->g[A_TOKENIZER].differs)
			warn(m, m->g[A_TOKENIZER].other_line,
			     "'--tokenizer-type': '%s' here and '%s' on line %u; distcalc evaluates no shell conditions and "
			     "counts '--vocab-size' without NullMultimodalTokenizer's end-of-document token",
			     m->g[A_TOKENIZER].other, V(A_TOKENIZER), L(A_TOKENIZER));
		else if (G(A_TOKENIZER) && strcmp(V(A_TOKENIZER), "NullMultimodalTokenizer") == 0)
			v += 1;
		padded = (v + mult - 1) / mult * mult;
		m->imp->vocab_raw = v;
		m->imp->vocab_div = div;
		m->imp->vocab_tp = tp;
		m->imp->vocab_line = L(A_VOCAB);
		dc_import_set_u64(m->imp, "model.vocab_size", padded,
				  "--vocab-size, padded to a multiple of --make-vocab-size-divisible-by x tp", L(A_VOCAB),
				  m->name, m->diag);
	}
	/* no --vocab-size: the tokenizer's, which distcalc does not read;
	 * main.c asks for --set model.vocab_size unless one is given */
}

static void map_moe(struct mctx *m)
{
	unsigned long long e = 0;
	if (!G(A_EXPERTS)) {
		for (int a = A_TOPK; a <= A_ROUTER_GROUP_TOPK; a++)
			if (G(a))
				warn(m, L(a), "'%s': ignored without --num-experts", args[a].name);
		return;
	}
	if (number(m, A_EXPERTS, 0, &e) != 0)
		return;
	set_u64(m, "model.num_experts", e, A_EXPERTS);
	if (G(A_TOPK))
		count(m, A_TOPK, "model.experts_per_token");
	else
		set_json(m, "model.experts_per_token", "2", "no --moe-router-topk (2)", 0);
	count(m, A_MOE_FFN, "model.moe_ffn_hidden_size");
	count(m, A_SHARED, "model.shared_expert_ffn_hidden_size");
	if (G(A_EXPERT_BIAS))
		set_json(m, "model.router_bias", "true", "--moe-router-enable-expert-bias", L(A_EXPERT_BIAS));
	if (G(A_MOE_FREQ) && strcmp(V(A_MOE_FREQ), "1") != 0)
		err(m, L(A_MOE_FREQ), "'--moe-layer-freq': '%s' is not mapped (distcalc places MoE in every layer past "
				      "model.dense_layers); give 1 and --set model.dense_layers=N",
		    V(A_MOE_FREQ));
	/* the flex dispatcher's backend: deepep unless named
	 * (TransformerConfig.moe_flex_dispatcher_backend, transformer_config.py:898
	 * at d98e8a64; --moe-enable-deepep its older switch, :895) */
	if (G(A_DISPATCHER) && strcmp(V(A_DISPATCHER), "flex") == 0) {
		if (G(A_FLEX_BACKEND) && strcmp(V(A_FLEX_BACKEND), "deepep") != 0)
			err(m, L(A_FLEX_BACKEND), "'--moe-flex-dispatcher-backend': '%s' is not mapped (distcalc prices DeepEP's dispatch: deepep)",
			    V(A_FLEX_BACKEND));
		else
			set_json(m, "training.moe_dispatcher", "\"deepep\"",
				 G(A_FLEX_BACKEND) ? "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep"
						   : "--moe-token-dispatcher-type flex (its backend: deepep)",
				 L(A_DISPATCHER));
	} else if (G(A_DISPATCHER) && strcmp(V(A_DISPATCHER), "alltoall") != 0) {
		err(m, L(A_DISPATCHER), "'--moe-token-dispatcher-type': '%s' is not mapped (distcalc prices the alltoall and the flex dispatcher with DeepEP)",
		    V(A_DISPATCHER));
	} else if (G(A_FLEX_BACKEND) || G(A_ENABLE_DEEPEP)) {
		/* Megatron-Core reads them with the flex dispatcher alone */
		warn(m, L(G(A_FLEX_BACKEND) ? A_FLEX_BACKEND : A_ENABLE_DEEPEP),
		     "'%s': applies to --moe-token-dispatcher-type flex, and the dispatcher is %s: not imported",
		     G(A_FLEX_BACKEND) ? "--moe-flex-dispatcher-backend" : "--moe-enable-deepep",
		     G(A_DISPATCHER) ? V(A_DISPATCHER) : "left out");
	}
	count(m, A_ROUTER_GROUPS, "model.router_groups");
	count(m, A_ROUTER_GROUP_TOPK, "model.router_group_topk");
	/* left out, Megatron-Core dispatches with allgather
	 * (TransformerConfig.moe_token_dispatcher_type, transformer_config.py:891
	 * at d98e8a64), which distcalc does not price either */
	if (!G(A_DISPATCHER))
		err(m, L(A_EXPERTS),
		    "'--num-experts': without --moe-token-dispatcher-type Megatron-Core dispatches tokens with allgather, which "
		    "distcalc does not price; give --moe-token-dispatcher-type alltoall to price the alltoall dispatcher");
	if (G(A_CAPACITY))
		err(m, L(A_CAPACITY), "'--moe-expert-capacity-factor': not mapped (distcalc routes every token: no capacity, "
				      "no drops)");
}

static void map_parallel(struct mctx *m)
{
	unsigned long long tp = 1, pp = 1, layers = 0, n;
	count(m, A_TP, "parallel.tp");
	count(m, A_PP, "parallel.pp");
	count(m, A_CP, "parallel.cp");
	count(m, A_EP, "parallel.ep");
	count(m, A_ETP, "parallel.etp");
	count(m, A_DIST_OPT_INST, "parallel.dp_replicate");
	if (G(A_TP))
		number(m, A_TP, 0, &tp);
	if (G(A_PP))
		number(m, A_PP, 0, &pp);
	if (G(A_CP_COMM)) {
		const char *t = V(A_CP_COMM);
		if (strcmp(t, "p2p") == 0 || strcmp(t, "a2a") == 0)
			set_str(m, "parallel.cp_comm_type", t, "--cp-comm-type", L(A_CP_COMM));
		else if (strcmp(t, "allgather") == 0)
			set_str(m, "parallel.cp_comm_type", "all_gather", "--cp-comm-type", L(A_CP_COMM));
		else
			err(m, L(A_CP_COMM), "'--cp-comm-type': '%s' is not mapped (p2p, allgather, a2a)", t);
	}
	/* the virtual pipeline (megatron/training/arguments.py:927-980 at
	 * d98e8a64): --num-virtual-stages-per-pipeline-rank (:3116) is the
	 * chunks a rank; --num-layers-per-virtual-pipeline-stage n (:3114)
	 * derives them as (L + 1 per --account-for-embedding/loss-in-
	 * pipeline-split) / pp / n (:957-975), and is refused beside
	 * --decoder-first/last-pipeline-num-layers (:954-956); at most one of
	 * the two (:928-939). The parser has no --virtual-pipeline-model-
	 * parallel-size (argparse with allow_abbrev=False, :119-132, rejects
	 * it): refused, naming the argument that replaced it. */
	if (G(A_VPP_OLD))
		err(m, L(A_VPP_OLD),
		    "'--virtual-pipeline-model-parallel-size': not an argument of Megatron-LM d98e8a64, whose parser "
		    "(megatron/training/arguments.py:119-132, allow_abbrev=False) rejects it; give "
		    "--num-virtual-stages-per-pipeline-rank %s (arguments.py:3116), the model chunks a rank",
		    V(A_VPP_OLD));
	if (G(A_VPP) && G(A_VPP_LAYERS))
		err(m, L(A_VPP_LAYERS),
		    "'--num-layers-per-virtual-pipeline-stage': with --num-virtual-stages-per-pipeline-rank on line %u: "
		    "Megatron-LM allows no more than one of them (megatron/training/arguments.py:928-939 at d98e8a64)",
		    L(A_VPP));
	else if (G(A_VPP))
		count(m, A_VPP, "parallel.virtual_pipeline");
	else if (G(A_VPP_LAYERS) && (G(A_FIRST) || G(A_LAST)))
		err(m, L(A_VPP_LAYERS),
		    "'--num-layers-per-virtual-pipeline-stage': with '%s' on line %u: Megatron-LM asserts \"please use "
		    "--num-virtual-stages-per-pipeline-rank to specify virtual pipeline parallel degree when enable "
		    "uneven pipeline parallelism\" (megatron/training/arguments.py:954-956 at d98e8a64); give that "
		    "instead",
		    G(A_FIRST) ? args[A_FIRST].name : args[A_LAST].name, G(A_FIRST) ? L(A_FIRST) : L(A_LAST));
	else if (G(A_VPP_LAYERS) && number(m, A_VPP_LAYERS, 0, &n) == 0) {
		unsigned long long extra = (G(A_ACC_EMB) ? 1ull : 0ull) + (G(A_ACC_LOSS) ? 1ull : 0ull);
		if (!G(A_NUM_LAYERS) || number(m, A_NUM_LAYERS, 0, &layers) != 0)
			err(m, L(A_VPP_LAYERS), "'--num-layers-per-virtual-pipeline-stage': needs --num-layers");
		else if ((layers + extra) % pp != 0 || (layers + extra) / pp % n != 0)
			err(m, L(A_VPP_LAYERS),
			    "'--num-layers-per-virtual-pipeline-stage': %llu must divide (--num-layers %llu%s) / "
			    "--pipeline-model-parallel-size %llu, a whole number, as Megatron-LM asserts "
			    "(megatron/training/arguments.py:968-973 at d98e8a64)",
			    n, layers, extra == 2 ? " + 1 + 1, the embedding and the loss" : extra ? " + 1, the embedding or the loss" : "",
			    pp);
		else {
			set_u64(m, "parallel.virtual_pipeline", (layers + extra) / pp / n, A_VPP_LAYERS);
			m->imp->vpp_per_chunk = n;
			m->imp->vpp_layers = layers + extra;
			m->imp->vpp_pp = pp;
			m->imp->vpp_line = L(A_VPP_LAYERS);
		}
	}
	/* --no-overlap-p2p-communication (arguments.py:3118-3120 at
	 * d98e8a64; overlap_p2p_comm is on by default): with a virtual
	 * pipeline Megatron-LM asserts pp > 2 without it (:1000-1009); without
	 * one it turns the overlap off itself (:1010-1013), so the flag
	 * changes nothing there. distcalc runs the pipeline's sends on their
	 * own stream (docs/step-model.md), the overlapped default. */
	if (G(A_NO_P2P_OVERLAP) && (G(A_VPP) || G(A_VPP_LAYERS))) {
		if (pp <= 2)
			err(m, L(A_NO_P2P_OVERLAP),
			    "'--no-overlap-p2p-communication': with a virtual pipeline at --pipeline-model-parallel-size "
			    "%llu Megatron-LM asserts \"pipeline-model-parallel size should be greater than 2\" when p2p "
			    "communication overlap is disabled (megatron/training/arguments.py:1005-1009 at d98e8a64): "
			    "remove it, or give pp 3 or more",
			    pp);
		else
			warn(m, L(A_NO_P2P_OVERLAP),
			     "'--no-overlap-p2p-communication': the interleaved schedule's sends then block the compute "
			     "stream between chunks; distcalc prices them on their own stream, as Megatron's default "
			     "overlap runs them (docs/step-model.md), so its step leaves their time out");
	}
	count(m, A_FIRST, "parallel.first_stage_layers");
	count(m, A_LAST, "parallel.last_stage_layers");
	if (G(A_ACC_EMB))
		set_json(m, "parallel.account_for_embedding", "true", args[A_ACC_EMB].name, L(A_ACC_EMB));
	if (G(A_ACC_LOSS))
		set_json(m, "parallel.account_for_loss", "true", args[A_ACC_LOSS].name, L(A_ACC_LOSS));
	/* arguments.py turns sequence parallelism off at tp 1, on the final
	 * arguments: a --set of tp may still make it hold */
	if (G(A_SP) && tp > 1)
		set_json(m, "parallel.sequence_parallel", "true", "--sequence-parallel", L(A_SP));
	else if (G(A_SP))
		m->imp->sp_at_tp1_line = L(A_SP); /* decided on the final tp: dc_import_finish */
	if (G(A_FSDP2) && G(A_DIST_OPT))
		err(m, L(A_FSDP2), "'--use-torch-fsdp2': with --use-distributed-optimizer on line %u: give one", L(A_DIST_OPT));
	else if (G(A_FSDP2))
		set_str(m, "parallel.sharding", "fsdp", "--use-torch-fsdp2", L(A_FSDP2));
	else
		set_str(m, "parallel.sharding", G(A_DIST_OPT) ? "zero1" : "none",
			G(A_DIST_OPT) ? "--use-distributed-optimizer" : "no --use-distributed-optimizer", L(A_DIST_OPT));
	/* Megatron-LM reduces the gradients after the backward unless
	 * --overlap-grad-reduce */
	set_json(m, "overlap.dp", G(A_OVERLAP_GRAD) ? "true" : "false",
		 G(A_OVERLAP_GRAD) ? "--overlap-grad-reduce" : "no --overlap-grad-reduce", L(A_OVERLAP_GRAD));
	/* arguments.py:1024-1029: the parameter gather overlaps only with the
	 * distributed optimizer (or Megatron FSDP, or dist_muon, which distcalc
	 * does not map) and with --overlap-grad-reduce; off by default
	 * (arguments.py:3148), which training.framework megatron would derive
	 * as on under zero1, so the import says off */
	if (G(A_OVERLAP_PARAM) && !G(A_DIST_OPT))
		err(m, L(A_OVERLAP_PARAM), "'--overlap-param-gather': needs --use-distributed-optimizer, as Megatron-LM "
					   "asserts");
	else if (G(A_OVERLAP_PARAM) && !G(A_OVERLAP_GRAD))
		err(m, L(A_OVERLAP_PARAM), "'--overlap-param-gather': needs --overlap-grad-reduce, as Megatron-LM asserts");
	else
		set_json(m, "overlap.param_gather", G(A_OVERLAP_PARAM) ? "true" : "false",
			 G(A_OVERLAP_PARAM) ? "--overlap-param-gather" : "no --overlap-param-gather", L(A_OVERLAP_PARAM));
	if (G(A_TP_OVERLAP))
		set_json(m, "overlap.tp", "true", "--tp-comm-overlap", L(A_TP_OVERLAP));
}

/* --recompute-modules (argparse nargs '*': transformer_config.py
 * recompute_modules at d98e8a64) onto training.recompute_modules, whose
 * loader checks the names; Megatron reads it under selective recompute
 * alone. A name given twice is one (Megatron tests membership); an empty
 * list reruns nothing: selective is then none (map_training). */
static void map_recompute_modules(struct mctx *m, int selective)
{
	char json[4 * MAX_VALUE];
	const char *v = V(A_RECOMPUTE_MODULES);
	size_t at = 0;
	if (!selective) {
		warn(m, L(A_RECOMPUTE_MODULES),
		     "'--recompute-modules': Megatron-Core reads it under --recompute-granularity selective alone, "
		     "and %s: not imported",
		     G(A_RECOMPUTE) ? "this run's is full" : "this run recomputes nothing");
		return;
	}
	json[at++] = '[';
	json[at] = '\0'; /* strstr below reads it: a name seen already */
	while (*v) {
		size_t w = strcspn(v, " ");
		char word[MAX_VALUE + 2];
		/* names are Megatron's words, which the loader checks: a word
		 * of other characters is none */
		if (strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") < w) {
			err(m, L(A_RECOMPUTE_MODULES), "'--recompute-modules': '%.*s' is not a module name", (int)w, v);
			return;
		}
		snprintf(word, sizeof(word), "\"%.*s\"", (int)w, v);
		if (!strstr(json, word))
			at += (size_t)snprintf(json + at, sizeof(json) - at, "%s%s", at > 1 ? ", " : "", word);
		if (w == 7 && strncmp(v, "moe_act", 7) == 0 && !G(A_GROUPED_GEMM)) {
			err(m, L(A_RECOMPUTE_MODULES),
			    "'--recompute-modules': moe_act needs --moe-grouped-gemm, as Megatron-Core refuses "
			    "(transformer_config.py:1964-1967)");
			return;
		}
		v += w;
		while (*v == ' ')
			v++;
	}
	snprintf(json + at, sizeof(json) - at, "]");
	set_json(m, "training.recompute_modules", json, "--recompute-modules", L(A_RECOMPUTE_MODULES));
}

static void map_training(struct mctx *m)
{
	int selective = G(A_RECOMPUTE) ? strcmp(V(A_RECOMPUTE), "selective") == 0 : G(A_RECOMPUTE_ACT);
	count(m, A_MBS, "training.micro_batch_size");
	count(m, A_GBS, "training.global_batch_size");
	if (G(A_RECOMPUTE) && G(A_RECOMPUTE_ACT) && strcmp(V(A_RECOMPUTE), "selective") != 0)
		err(m, L(A_RECOMPUTE_ACT), "'--recompute-activations': selective, but --recompute-granularity on line %u is '%s'",
		    L(A_RECOMPUTE), V(A_RECOMPUTE));
	else if (G(A_RECOMPUTE) && strcmp(V(A_RECOMPUTE), "full") != 0 && strcmp(V(A_RECOMPUTE), "selective") != 0)
		err(m, L(A_RECOMPUTE), "'--recompute-granularity': expected 'full' or 'selective', got '%s'", V(A_RECOMPUTE));
	else if (selective && G(A_RECOMPUTE_MODULES) && !*V(A_RECOMPUTE_MODULES)) {
		warn(m, L(A_RECOMPUTE_MODULES),
		     "'--recompute-modules': no module given, so selective recompute reruns nothing: imported as "
		     "training.recompute \"none\"");
		set_str(m, "training.recompute", "none", "--recompute-modules", L(A_RECOMPUTE_MODULES));
	} else if (G(A_RECOMPUTE))
		set_str(m, "training.recompute", V(A_RECOMPUTE), "--recompute-granularity", L(A_RECOMPUTE));
	else if (G(A_RECOMPUTE_ACT))
		set_str(m, "training.recompute", "selective", "--recompute-activations", L(A_RECOMPUTE_ACT));
	if (G(A_RECOMPUTE_MODULES) && (*V(A_RECOMPUTE_MODULES) || !selective))
		map_recompute_modules(m, selective);
	/* Megatron-Core's own checks (transformer_config.py:1908-1932 at
	 * d98e8a64): full needs a method and a layer count, selective
	 * takes no layer count; a script that breaks them does not start */
	if (G(A_RECOMPUTE) && strcmp(V(A_RECOMPUTE), "full") == 0 && !G(A_RECOMPUTE_METHOD))
		err(m, L(A_RECOMPUTE),
		    "'--recompute-granularity': full without --recompute-method: Megatron-Core raises \"recompute_method "
		    "must be \"block\" or \"uniform\"\" (transformer_config.py:1913-1917); give --recompute-method "
		    "uniform --recompute-num-layers 1 to recompute every layer");
	else if (G(A_RECOMPUTE) && strcmp(V(A_RECOMPUTE), "full") == 0 && !G(A_RECOMPUTE_LAYERS))
		err(m, L(A_RECOMPUTE),
		    "'--recompute-granularity': full without --recompute-num-layers: Megatron-Core raises \"recompute_num_layers "
		    "must be between 1 and num_layers_per_pipeline_rank\" (transformer_config.py:1919-1925)");
	if (selective && G(A_RECOMPUTE_LAYERS))
		err(m, L(A_RECOMPUTE_LAYERS),
		    "'--recompute-num-layers': under selective recompute Megatron-Core raises \"recompute_num_layers must "
		    "be None\" (transformer_config.py:1926-1932): remove it");
	if (G(A_RECOMPUTE_METHOD)) {
		unsigned long long n;
		if (!G(A_RECOMPUTE) || strcmp(V(A_RECOMPUTE), "full") != 0)
			err(m, L(A_RECOMPUTE_METHOD), "'--recompute-method': only with --recompute-granularity full");
		else if (strcmp(V(A_RECOMPUTE_METHOD), "block") == 0 && G(A_RECOMPUTE_LAYERS) &&
			 number(m, A_RECOMPUTE_LAYERS, 0, &n) == 0)
			/* block checkpoints layers 0 .. n - 1 of each chunk
			 * (megatron/core/recompute.py:167-181 at d98e8a64); n 0,
			 * none, is refused by number() */
			set_u64(m, "training.recompute_layers", n, A_RECOMPUTE_LAYERS);
		else if (strcmp(V(A_RECOMPUTE_METHOD), "uniform") == 0 && G(A_RECOMPUTE_LAYERS) &&
			   number(m, A_RECOMPUTE_LAYERS, 0, &n) == 0 && n != 1)
			/* uniform checkpoints the input of each run of n layers and
			 * reruns the run (recompute.py:157-165): distcalc prices one
			 * checkpoint a layer, uniform's n 1 */
			warn(m, L(A_RECOMPUTE_LAYERS),
			     "'--recompute-num-layers': %llu under --recompute-method uniform checkpoints each run of %llu "
			     "layers' input and reruns the run (megatron/core/recompute.py:157-165); distcalc prices "
			     "--recompute-num-layers 1 (one input kept a layer, one layer rebuilt at a time), so its "
			     "activations differ from the run's",
			     n, n);
		else if (strcmp(V(A_RECOMPUTE_METHOD), "uniform") != 0 && strcmp(V(A_RECOMPUTE_METHOD), "block") != 0)
			err(m, L(A_RECOMPUTE_METHOD), "'--recompute-method': expected 'uniform' or 'block', got '%s'",
			    V(A_RECOMPUTE_METHOD));
		/* block without --recompute-num-layers: the granularity's
		 * check above names it */
	}
	if (G(A_ATT_BACKEND)) {
		/* fused is TE's cuDNN FusedAttention, flash TE's FlashAttention
		 * (flash-attn 2; FA3 only where installed on sm90: --set it);
		 * auto is left to training.framework megatron, which derives
		 * cudnn on Hopper and Blackwell as TE picks there */
		const char *b = V(A_ATT_BACKEND), *kernel = NULL;
		if (strcmp(b, "fused") == 0)
			kernel = "cudnn";
		else if (strcmp(b, "flash") == 0)
			kernel = "sdpa";
		if (kernel || strcmp(b, "auto") == 0)
			set_str(m, "training.attention", "flash", "--attention-backend", L(A_ATT_BACKEND));
		else if (strcmp(b, "unfused") == 0 || strcmp(b, "local") == 0)
			set_str(m, "training.attention", "eager", "--attention-backend", L(A_ATT_BACKEND));
		else
			err(m, L(A_ATT_BACKEND), "'--attention-backend': expected flash, fused, unfused, local or auto, got '%s'", b);
		if (kernel)
			set_str(m, "training.attention_backend", kernel, "--attention-backend", L(A_ATT_BACKEND));
	} else {
		/* the default backend, auto, picks a fused kernel */
		set_str(m, "training.attention", "flash", G(A_FLASH) ? "--use-flash-attn" : "no --attention-backend (auto)",
			L(A_FLASH));
	}
}

static void map_precision(struct mctx *m)
{
	if (G(A_OPTIMIZER) && strcmp(V(A_OPTIMIZER), "adam") != 0)
		err(m, L(A_OPTIMIZER), "'--optimizer': '%s' is not mapped (distcalc's optimizer states are Adam's)",
		    V(A_OPTIMIZER));
	if (G(A_BF16) && G(A_FP16))
		err(m, L(A_FP16), "'--fp16': with --bf16 on line %u: give one", L(A_BF16));
	if (G(A_BF16) || G(A_FP16)) {
		enum arg_id a = G(A_BF16) ? A_BF16 : A_FP16;
		/* BF16 params, FP32 main grads, FP32 master copy, Adam's two FP32
		 * moments: the "megatron" preset */
		set_str(m, "precision.preset", "megatron", args[a].name, L(a));
		if (G(A_BF16) && G(A_GRAD_BF16))
			set_json(m, "precision.grad_bytes", "2", "--grad-reduce-in-bf16", L(A_GRAD_BF16));
		else if (G(A_FP16) && !G(A_GRAD_FP32)) {
			/* arguments.py:1194-1217 at d98e8a64 sets
			 * accumulate_allreduce_grads_in_fp32 for --bf16 alone:
			 * under --fp16 the gradient buffer is the parameters'
			 * FP16 (param_and_grad_buffer.py:895), reduced so; the
			 * optimizer step copies each rank's gradient shard to
			 * FP32 for the master copy (optimizer.py:1097,
			 * distrib_optimizer.py:2792), which the ledger leaves out */
			set_json(m, "precision.grad_bytes", "2", "--fp16", L(A_FP16));
			warn(m, L(A_FP16),
			     "'--fp16': the gradients are FP16 (Megatron-LM accumulates and reduces them in FP32 under --bf16 "
			     "alone, or with --accumulate-allreduce-grads-in-fp32): priced at 2 bytes; the optimizer "
			     "step's FP32 copy of each rank's gradient shard (4 bytes a parameter it updates) is not in "
			     "the memory ledger");
		}
		/* both: under --bf16 --grad-reduce-in-bf16 turns the FP32
		 * accumulation off (arguments.py:1213-1214); under --fp16 it
		 * is not read there, so the FP32 accumulation stands */
		if (G(A_GRAD_FP32) && G(A_GRAD_BF16) && G(A_BF16))
			warn(m, L(A_GRAD_FP32), "'--accumulate-allreduce-grads-in-fp32': overridden by --grad-reduce-in-bf16 on "
						"line %u, as Megatron-LM does under --bf16 (arguments.py:1213-1214): 2-byte "
						"gradients",
			     L(A_GRAD_BF16));
		else if (G(A_GRAD_BF16) && G(A_FP16))
			warn(m, L(A_GRAD_BF16), "'--grad-reduce-in-bf16': Megatron-LM reads it under --bf16 alone "
						"(arguments.py:1206-1217): under --fp16 it changes nothing");
	} else {
		/* FP32 training: FP32 params and grads, no master copy */
		set_json(m, "precision.param_bytes", "4", "no --bf16 or --fp16 (FP32)", 0);
		set_json(m, "precision.grad_bytes", "4", "no --bf16 or --fp16 (FP32)", 0);
		set_json(m, "precision.master_bytes", "0", "no --bf16 or --fp16 (FP32)", 0);
		set_json(m, "precision.optimizer_bytes", "8", "no --bf16 or --fp16 (FP32)", 0);
	}
	if (G(A_FP8)) {
		if (strcmp(V(A_FP8), "e4m3") != 0 && strcmp(V(A_FP8), "hybrid") != 0)
			err(m, L(A_FP8), "'--fp8-format': expected 'e4m3' or 'hybrid', got '%s'", V(A_FP8));
		else
			set_str(m, "precision.compute", "fp8", "--fp8-format", L(A_FP8));
	}
	if (G(A_FP8_RECIPE)) {
		/* transformer_config.py:594 lists the recipes; fp8_utils.py:771-792
		 * gives each to Transformer Engine: delayed DelayedScaling,
		 * tensorwise Float8CurrentScaling, mxfp8 MXFP8BlockScaling (the
		 * loader refuses it off Blackwell), blockwise Float8BlockScaling */
		static const char *const names[][2] = {{"delayed", "delayed"}, {"tensorwise", "current"}, {"mxfp8", "mxfp8"}};
		size_t k;
		for (k = 0; k < 3 && strcmp(V(A_FP8_RECIPE), names[k][0]) != 0; k++)
			;
		if (k == 3 && (strcmp(V(A_FP8_RECIPE), "blockwise") == 0 || strcmp(V(A_FP8_RECIPE), "custom") == 0))
			err(m, L(A_FP8_RECIPE),
			    "'--fp8-recipe': '%s' is not a recipe distcalc prices (it prices delayed, tensorwise as "
			    "Transformer Engine's current scaling, and mxfp8)",
			    V(A_FP8_RECIPE));
		else if (k == 3)
			err(m, L(A_FP8_RECIPE), "'--fp8-recipe': expected 'delayed', 'tensorwise', 'mxfp8', 'blockwise' or "
						"'custom' (Megatron-LM's choices), got '%s'",
			    V(A_FP8_RECIPE));
		else if (!G(A_FP8))
			warn(m, L(A_FP8_RECIPE), "'--fp8-recipe': changes nothing without --fp8-format (Megatron-LM then "
						 "trains in BF16)");
		else
			set_str(m, "precision.fp8_recipe", names[k][1], "--fp8-recipe", L(A_FP8_RECIPE));
	}
	if (G(A_FP8_PARAM)) {
		if (!G(A_FP8))
			err(m, L(A_FP8_PARAM), "'--fp8-param-gather': needs --fp8-format");
		else if (!G(A_DIST_OPT) && !G(A_FSDP2))
			/* arguments.py:1095-1097 at d98e8a64 (inference aside) */
			err(m, L(A_FP8_PARAM), "'--fp8-param-gather': needs --use-distributed-optimizer or "
					       "--use-torch-fsdp2, as Megatron-LM asserts (arguments.py:1095-1097: "
					       "\"only supported with distributed optimizer, torch fsdp2, megatron fsdp, "
					       "or inference mode\")");
		else if (G(A_FSDP2))
			/* arguments.py:1051-1056 at d98e8a64: with Transformer
			 * Engine 2.0 or later Megatron-LM turns it off under FSDP2
			 * and gathers BF16 (a trial's import priced FP8 weights) */
			warn(m, L(A_FP8_PARAM),
			     "'--fp8-param-gather': under --use-torch-fsdp2 Megatron-LM turns it off with Transformer Engine "
			     "2.0 or later (arguments.py:1051-1056: \"will fallback to bf16 all_gather\"): priced with BF16 "
			     "weights; give --set precision.param_bytes=1 for an older Transformer Engine");
		else
			set_json(m, "precision.param_bytes", "1", "--fp8-param-gather", L(A_FP8_PARAM));
	}
	/* the LM head under the MXFP8 autocast (transformer_config.py:1569-1575:
	 * with fp8 and fp8_recipe mxfp8 alone; the loader refuses the rest) */
	if (G(A_FP8_OUT) && !G(A_FP8))
		err(m, L(A_FP8_OUT), "'--fp8-output-proj': needs --fp8-format, as Megatron-Core raises "
				     "(transformer_config.py:1570-1571: \"fp8_output_proj must be used together with fp8 "
				     "mode\")");
	else if (G(A_FP8_OUT))
		set_json(m, "precision.fp8_lm_head", "true", "--fp8-output-proj", L(A_FP8_OUT));
	for (int a = A_FP8_DPA; a <= A_FP8_MHA; a++)
		if (G(a))
			err(m, L(a),
			    "'%s': not an argument of Megatron-LM d98e8a64 (TransformerConfig's field has no command-line "
			    "argument there: arguments.py:2333-2334), so the script would not start; distcalc prices FP8 "
			    "attention with --set precision.attention=fp8",
			    args[a].name);
	/* --first-last-layers-bf16 with --num-layers-at-start-in-bf16 and
	 * --num-layers-at-end-in-bf16, 1 each by default
	 * (transformer_config.py:649-658 at d98e8a64), read only with the
	 * switch on (fp8_utils.py:711-727) */
	{
		static const enum arg_id counts[2] = {A_BF16_START, A_BF16_END};
		static const char *const keys[2] = {"precision.bf16_first_layers", "precision.bf16_last_layers"};
		for (int i = 0; i < 2; i++) {
			unsigned long long n = 1;
			if (G(counts[i]) && !G(A_FIRST_LAST_BF16))
				warn(m, L(counts[i]),
				     "'%s': changes nothing without --first-last-layers-bf16 (Megatron-Core reads the count only "
				     "with it: megatron/core/fp8_utils.py:711-727)",
				     args[counts[i]].name);
			if (!G(A_FIRST_LAST_BF16))
				continue;
			if (G(counts[i]) && number(m, counts[i], 1, &n) != 0)
				continue;
			if (!G(A_FP8)) {
				if (i == 0)
					warn(m, L(A_FIRST_LAST_BF16), "'--first-last-layers-bf16': changes nothing without "
								      "--fp8-format (Megatron-LM then trains every layer in BF16)");
				continue;
			}
			if (G(counts[i]))
				set_u64(m, keys[i], n, counts[i]);
			else
				set_json(m, keys[i], "1", "--first-last-layers-bf16", L(A_FIRST_LAST_BF16));
		}
	}
}

/* --ddp-bucket-size: parameters a bucket holds (distributed_data_parallel_config.py:48-51).
 * distcalc's parallel.bucket_size is bytes, one size for the gradients'
 * reduction and the distributed optimizer's parameter gather, so the
 * parameters become bytes at the gradients' width, and under the
 * distributed optimizer only where the parameters have the same width. */
static void map_bucket(struct mctx *m)
{
	int half = G(A_BF16) || G(A_FP16);
	/* the bytes map_precision gave: the megatron preset's FP32 main grads
	 * (2 with --grad-reduce-in-bf16), BF16 params (1 with
	 * --fp8-param-gather); FP32 training 4 and 4 */
	unsigned long long gb = half && ((G(A_BF16) && G(A_GRAD_BF16)) || (G(A_FP16) && !G(A_GRAD_FP32))) ? 2 : 4;
	unsigned long long pb = !half ? 4 : (G(A_FP8_PARAM) && G(A_FP8) && !G(A_FSDP2)) ? 1 : 2;
	unsigned long long n;
	if (!G(A_DDP_BUCKET) || number(m, A_DDP_BUCKET, 0, &n) != 0)
		return;
	if (G(A_FSDP2))
		warn(m, L(A_DDP_BUCKET), "'--ddp-bucket-size': changes nothing under --use-torch-fsdp2 (FSDP gathers and "
					 "reduces per module)");
	else if (!G(A_OVERLAP_GRAD))
		/* training.py:2192-2193: no buckets without the overlap */
		warn(m, L(A_DDP_BUCKET), "'--ddp-bucket-size': changes nothing without --overlap-grad-reduce (Megatron-LM "
					 "then reduces all the gradients at once)");
	else if (n > (1ull << 53) / 4)
		err(m, L(A_DDP_BUCKET), "'--ddp-bucket-size': %llu parameters: more than distcalc's byte sizes hold", n);
	else if (G(A_DIST_OPT) && gb != pb)
		err(m, L(A_DDP_BUCKET),
		    "'--ddp-bucket-size': %llu parameters are %llu bytes of gradients but %llu bytes of parameters "
		    "for the distributed optimizer's gather, and distcalc's parallel.bucket_size is one size in bytes "
		    "for both; remove it and give --set parallel.bucket_size=BYTES",
		    n, n * gb, n * pb);
	else
		set_u64(m, "parallel.bucket_size", n * gb, A_DDP_BUCKET);
}

int dc_import_megatron(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag)
{
	struct words ws;
	struct mctx *m;
	size_t nargs = 0;
	/* words looked at while resolving variables, all told: bounds the
	 * work of a file of many variables */
	size_t budget = 4u << 20;
	int rc = -1;

	memset(&ws, 0, sizeof(ws));
	if (lex(buf, len, name, &ws, diag) != 0) {
		words_free(&ws);
		return -1;
	}
	m = dc_calloc(1, sizeof(*m));
	if (!m) {
		words_free(&ws);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
		return -1;
	}
	m->name = name;
	m->imp = imp;
	m->diag = diag;
	for (size_t i = 0, cmd = 0; i < ws.n && m->errors < 50; i++) {
		const char *w = ws.w[i].text, *eq;
		char argname[96], value[MAX_VALUE];
		const char *raw = NULL;
		int a;
		size_t nl, cond_i = SIZE_MAX, prefix_i = SIZE_MAX;
		/* an assignment's value starting with "--" (OPTS="--a --b",
		 * ARG="--tensor-model-parallel-size 8": the first word glued to
		 * the name, the rest pieces of their own) is an argument too,
		 * as every "--" word of the file is */
		if (is_assignment(w, &nl) && w[nl + 1] == '-' && w[nl + 2] == '-')
			w += nl + 1;
		/* the command a word belongs to starts at the last separator */
		if (i == 0 || ws.w[i].sep)
			cmd = i;
		/* a command that starts with an argument, after a comment that
		 * ended the command continued above it: a shell runs it as a
		 * program of its own, which fails, and the launch above ran
		 * without these arguments */
		if (ws.w[cmd].cut && strncmp(ws.w[cmd].text, "--", 2) == 0) {
			if (i == cmd && ws.w[cmd].cut_bs) {
				char at[600];
				dc_diag_warn(diag,
					     "%s: '%.80s': the '\\' at the end of line %u has blanks after it, so it escapes a "
					     "space instead of continuing the command: a shell ends the command there and runs "
					     "this line as a command of its own, which fails, and the launch runs without its "
					     "arguments: not taken (delete the blanks after the '\\' to pass them)",
					     dc_import_where(at, sizeof(at), name, ws.w[i].line), ws.w[i].text,
					     ws.w[cmd].cut);
			} else if (i == cmd) {
				char at[600];
				dc_diag_warn(diag,
					     "%s: '%.80s': the comment on line %u ended the command continued with '\\' "
					     "above it, so a shell runs this line as a command of its own, which fails, and "
					     "the launch runs without its arguments: not taken (delete the comment line, or "
					     "move it below the command, to pass them)",
					     dc_import_where(at, sizeof(at), name, ws.w[i].line), ws.w[i].text,
					     ws.w[cmd].cut);
			}
			continue;
		}
		if (w[0] != '-' || w[1] != '-' || !isalpha((unsigned char)w[2]))
			continue;
		/* echo's and printf's words are text they print (a hint,
		 * a log line), not the launch's arguments */
		if (cmd < i && (strcmp(ws.w[cmd].text, "echo") == 0 || strcmp(ws.w[cmd].text, "printf") == 0)) {
			char at[600];
			dc_diag_warn(diag, "%s: '%.80s': printed by %s, not an argument of the launch: not taken",
				     dc_import_where(at, sizeof(at), name, ws.w[i].line), w, ws.w[cmd].text);
			continue;
		}
		if (++nargs > DC_IMPORT_MAX_ITEMS)
			break;
		eq = strchr(w, '=');
		nl = eq ? (size_t)(eq - w) : strlen(w);
		if (nl >= sizeof(argname)) {
			err(m, ws.w[i].line, "'%.40s...': an argument name over %zu bytes", w, sizeof(argname) - 1);
			continue;
		}
		memcpy(argname, w, nl);
		argname[nl] = '\0';
		for (a = 0; a < A_COUNT; a++)
			if (strcmp(argname, args[a].name) == 0)
				break;
		if (a == A_COUNT) {
			if (!is_ignored(argname)) {
				const char *near = nearest_arg(argname);
				if (near)
					err(m, ws.w[i].line,
					    "'%s': not an argument distcalc maps or knows to change nothing it computes "
					    "(docs/importers.md lists both); did you mean '%s'? Else remove it to import the rest",
					    argname, near);
				else
					err(m, ws.w[i].line,
					    "'%s': not an argument distcalc maps or knows to change nothing it computes "
					    "(docs/importers.md lists both); remove it to import the rest",
					    argname);
				continue;
			}
			/* an ignored argument's value, if it has one, is skipped;
			 * torchrun's GPU counts are kept, to hold against the
			 * config's cluster (dc_import_launch_check) */
			{
				const char *v = eq ? eq + 1 : NULL;
				if (!eq && i + 1 < ws.n && ws.w[i + 1].text[0] != '-' &&
				    !is_assignment(ws.w[i + 1].text, &nl))
					v = ws.w[++i].text;
				launch_count(m, argname, launch_value(&ws, i, v), ws.w[i].line);
			}
			continue;
		}
		if (ws.w[i].cond)
			warn(m, ws.w[i].line,
			     "'%s': inside the shell '%s' of line %u, taken as if the branch ran (distcalc evaluates no "
			     "shell conditions): check it, or --set or --unset the key it gives",
			     argname, ws.w[i].block, ws.w[i].cond);
		if (args[a].value == 2 && !eq) {
			/* the words up to the next argument or the command's end
			 * (a separator, a redirection), space-separated; a
			 * variable's split quoted value whole (resolve's join) */
			size_t at = 0;
			int bad = 0;
			value[0] = '\0';
			while (i + 1 < ws.n && !(ws.w[i + 1].text[0] == '-' && ws.w[i + 1].text[1] == '-') &&
			       !ws.w[i + 1].sep && !ws.w[i + 1].redir && !is_assignment(ws.w[i + 1].text, &nl)) {
				char one[MAX_VALUE];
				size_t n;
				raw = ws.w[++i].text;
				if (resolve(&ws, i, raw, one, 0, &budget, 1, &cond_i, &prefix_i) != 0) {
					err(m, ws.w[i].line, "'%s': cannot tell the value of '%.64s' without running the script%s; "
							     "write the value itself",
					    argname, raw, budget ? "" : " (too many variables to follow)");
					bad = 1;
					break;
				}
				n = strlen(one);
				if (at + n + 2 > sizeof(value)) {
					err(m, ws.w[i].line, "'%s': its values run over %zu bytes", argname, sizeof(value) - 1);
					bad = 1;
					break;
				}
				if (at)
					value[at++] = ' ';
				memcpy(value + at, one, n + 1);
				at += n;
			}
			if (bad)
				continue;
		} else if (args[a].value) {
			if (eq) {
				raw = eq + 1;
			} else if (i + 1 < ws.n && !(ws.w[i + 1].text[0] == '-' && ws.w[i + 1].text[1] == '-')) {
				raw = ws.w[++i].text;
			} else {
				err(m, ws.w[i].line, "'%s': needs a value", argname);
				continue;
			}
			if (resolve(&ws, i, raw, value, 0, &budget, args[a].value == 2, &cond_i, &prefix_i) != 0) {
				/* a '$' the separators cut off: $(...) or $((...)) */
				err(m, ws.w[i].line, "'%s': cannot tell the value of '%.64s'%s without running the script%s; "
						     "write the value itself",
				    argname, raw,
				    strcmp(raw, "$") == 0 || (raw[0] == '$' && raw[1] == '(')
					    ? " (a command substitution or arithmetic, $(...) or $((...)))"
					    : "",
				    budget ? "" : " (too many variables to follow)");
				continue;
			}
		} else if (eq) {
			err(m, ws.w[i].line, "'%s': a flag takes no value", argname);
			continue;
		} else {
			/* a word after a flag in the same command, as
			 * "--sequence-parallel true": argparse takes no value
			 * for it and refuses the stray word */
			const struct word *nx = i + 1 < ws.n ? &ws.w[i + 1] : NULL;
			if (nx && !nx->sep && !ws.w[i].redir && nx->text[0] != '-' && nx->text[0] != '$' &&
			    !is_assignment(nx->text, &nl) && (strcmp(nx->text, "true") == 0 || strcmp(nx->text, "false") == 0 ||
								   strcmp(nx->text, "True") == 0 || strcmp(nx->text, "False") == 0))
				warn(m, ws.w[i].line,
				     "'%s' is a flag, taken as given; the word after it, '%s', is no value of it "
				     "(Megatron-LM's argparse refuses it: remove it, or the flag for false)",
				     argname, nx->text);
			value[0] = '\0';
		}
		if (prefix_i != SIZE_MAX)
			/* TP=2 torchrun ... ${TP:-8}: bash expands first */
			warn(m, ws.w[i].line,
			     "'%s': its value '%s' is not %.64s of line %u: that assignment prefixes a command, which bash "
			     "runs after expanding the command's words and gives the variable in its environment alone "
			     "(bash -c 'TP=2 echo ${TP:-8}' prints 8); assign it on a line of its own (or export it) to "
			     "pass it",
			     argname, value, ws.w[prefix_i].text, ws.w[prefix_i].line);
		if (cond_i != SIZE_MAX)
			/* a variable set in a branch: the last assignment written
			 * above is taken, whichever branch the shell runs */
			warn(m, ws.w[i].line,
			     "'%s': its value '%s' comes from %.64s on line %u, inside the shell '%s' of line %u, taken as "
			     "if that branch ran (distcalc evaluates no shell conditions and takes the last assignment "
			     "written above): check it, or --set the key it gives",
			     argname, value, ws.w[cond_i].text, ws.w[cond_i].line, ws.w[cond_i].block, ws.w[cond_i].cond);
		if (m->g[a].set && strcmp(m->g[a].value, value) != 0) {
			if (a == A_TOKENIZER) {
				m->g[a].differs = 1;
				m->g[a].other_line = ws.w[i].line;
				snprintf(m->g[a].other, sizeof(m->g[a].other), "%s", value);
				continue;
			}
			err(m, ws.w[i].line, "'%s': '%s' here but '%s' on line %u; distcalc evaluates no shell conditions: give one",
			    argname, value, m->g[a].value, m->g[a].line);
			continue;
		}
		if (!m->g[a].set) {
			m->g[a].set = 1;
			m->g[a].line = ws.w[i].line;
			snprintf(m->g[a].value, sizeof(m->g[a].value), "%s", value);
		}
	}
	if (nargs > DC_IMPORT_MAX_ITEMS)
		err(m, 0, "more than %d arguments", DC_IMPORT_MAX_ITEMS);
	if (!nargs)
		err(m, 0, "no argument starting with '--': not Megatron-LM arguments or a launch script");
	if (m->errors == 0) {
		map_model(m);
		map_moe(m);
		map_parallel(m);
		map_training(m);
		map_precision(m);
		map_bucket(m);
		/* whose overlap rules (docs/step-model.md, "Framework rules");
		 * --set training.framework replaces it */
		set_str(m, "training.framework", "megatron", "Megatron-LM arguments", 0);
	}
	rc = m->errors || diag->errors ? -1 : 0;
	free(m);
	words_free(&ws);
	return rc;
}
